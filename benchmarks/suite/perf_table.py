"""Run the suite side by side with JAX and write its table into docs/performance.md.

    python3 benchmarks/suite/perf_table.py [--rounds N] [--only a,b] [--from-json cmp.json]

Runs ../shared/bench/compare.py --extra benchmarks/suite/suite.py over this suite's
workloads (REF_PY, default /tmp/jax-ref/bin/python; IMPL_PY, default this python, with
src/ on the path), keeps its JSON (--json, default in the temp folder) and replaces
the text between the markers in docs/performance.md. --from-json rewrites the table
from a saved comparison without running anything.
"""
import argparse
import datetime
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
COMPARE = os.path.join(os.path.dirname(ROOT), "shared", "bench", "compare.py")
DOC = os.path.join(ROOT, "docs", "performance.md")
BEGIN, END = "<!-- suite-table:begin -->", "<!-- suite-table:end -->"


def suite_workloads():
    """(name, desc) of every workload suite.py registers, in order."""
    spec = importlib.util.spec_from_file_location("pyjax_suite", os.path.join(HERE, "suite.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    found = []

    def workload(name, letter=None, budget=8.0, timeout=None, default=True, desc=""):
        def deco(fn):
            found.append((name, desc))
            return fn
        return deco

    mod.register(workload)
    return found


def run_compare(names, rounds, out_json):
    env = dict(os.environ)
    env.setdefault("REF_PY", "/tmp/jax-ref/bin/python")
    env.setdefault("IMPL_PY", sys.executable)
    env.setdefault("IMPL_PATH", os.path.join(ROOT, "src"))
    cmd = [sys.executable, COMPARE, "--extra", os.path.join(HERE, "suite.py"),
           "--only", ",".join(names), "--rounds", str(rounds), "--json", out_json,
           "--impl-path", env["IMPL_PATH"]]
    subprocess.run(cmd, check=True, env=env, cwd=ROOT)


def _ms(v):
    return "-" if v is None else (f"{v * 1e3:.3g}" if v < 10 else f"{v * 1e3:.0f}")


def _ratio(r):
    return "-" if r is None else f"{r:.2f}"


def markdown(cmp, workloads, rounds):
    rows = ["| workload | what | JAX steady ms | pyjax steady ms | steady | first call | trace | checksum |",
            "|---|---|---:|---:|---:|---:|---:|---|"]
    for name, desc in workloads:
        t = cmp["table"].get(name)
        if t is None:
            continue
        m = t["metrics"]
        st, fc, tr = (m.get(k, {}) for k in ("steady_s", "first_call_s", "trace_s"))
        status = "" if t["impl_status"] == "ok" and t["ref_status"] == "ok" else \
            f" (JAX {t['ref_status']}, pyjax {t['impl_status']})"
        rows.append(f"| `{name}` | {desc} | {_ms(st.get('ref'))} | {_ms(st.get('impl'))} | "
                    f"{_ratio(st.get('ratio'))} | {_ratio(fc.get('ratio'))} | {_ratio(tr.get('ratio'))} | "
                    f"{t.get('checksum', '-')}{status} |")
    g = cmp["geomean"]
    day = datetime.date.today().isoformat()
    rows += ["", f"Geomeans (pyjax/JAX, below 1 = pyjax faster): steady **{_ratio(g.get('steady_s'))}**, "
             f"first call **{_ratio(g.get('first_call_s'))}**, trace **{_ratio(g.get('trace_s'))}** "
             f"({day}, {rounds} round(s), interleaved; regenerate with "
             "`python3 benchmarks/suite/perf_table.py`)."]
    return "\n".join(rows)


def write_doc(text):
    with open(DOC) as f:
        doc = f.read()
    if BEGIN not in doc:
        raise SystemExit(f"{DOC} has no {BEGIN} marker")
    head, rest = doc.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(DOC, "w") as f:
        f.write(head + BEGIN + "\n" + text + "\n" + END + tail)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--only", help="a subset of the suite's workload names")
    ap.add_argument("--from-json", help="a saved compare.py --json output: no runs")
    ap.add_argument("--json", default=os.path.join(tempfile.gettempdir(), "pyjax_suite_compare.json"),
                    help="where compare.py's JSON goes")
    ap.add_argument("--no-doc", action="store_true", help="print the table only")
    args = ap.parse_args(argv)
    workloads = suite_workloads()
    if args.only:
        keep = set(args.only.split(","))
        workloads = [w for w in workloads if w[0] in keep]
    out_json = args.from_json or args.json
    if not args.from_json:
        run_compare([n for n, _ in workloads], args.rounds, out_json)
    with open(out_json) as f:
        cmp = json.load(f)
    text = markdown(cmp, workloads, args.rounds)
    print(text)
    if not args.no_doc:
        write_doc(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
