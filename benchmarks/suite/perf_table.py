"""Run the suite side by side with JAX and write its table into docs/performance.md.

    python3 benchmarks/suite/perf_table.py [--rounds N] [--only a,b] [--backends numpy,iree]
                                           [--from-json cmp.json [--from-json-iree cmp_iree.json]]

Runs ../shared/bench/compare.py --extra benchmarks/suite/suite.py over this suite's
workloads (REF_PY, default /tmp/jax-ref/bin/python; IMPL_PY, default this python, with
src/ on the path), once per pyjax backend: the NumPy backend, then the IREE backend
(`PYJAX_BACKEND=iree`; JAX itself ignores that variable, so each run is interleaved
with its own JAX runs). It keeps each JSON (--json, default in the temp folder; the
IREE run's name ends in _iree) and replaces the text between each backend's markers in
docs/performance.md. --from-json (and --from-json-iree) rewrite the tables from saved
comparisons without running anything.
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
MARKERS = {"numpy": ("<!-- suite-table:begin -->", "<!-- suite-table:end -->"),
           "iree": ("<!-- suite-table-iree:begin -->", "<!-- suite-table-iree:end -->")}


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


def run_compare(names, rounds, out_json, backend="numpy"):
    env = dict(os.environ)
    env.pop("PYJAX_BACKEND", None)
    if backend != "numpy":
        env["PYJAX_BACKEND"] = backend
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


def markdown(cmp, workloads, rounds, backend="numpy"):
    who = "pyjax" if backend == "numpy" else f"pyjax ({backend})"
    rows = [f"| workload | what | JAX steady ms | {who} steady ms | steady | first call | trace | checksum |",
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
    missing = [name for name, _ in workloads if name not in cmp["table"]]
    if missing:
        rows += ["", f"Not run or failed: {', '.join(f'`{n}`' for n in missing)}."]
    flag = "" if backend == "numpy" else f" on the {backend} backend (`PYJAX_BACKEND={backend}`)"
    rows += ["", f"Geomeans{flag} (pyjax/JAX, below 1 = pyjax faster): steady **{_ratio(g.get('steady_s'))}**, "
             f"first call **{_ratio(g.get('first_call_s'))}**, trace **{_ratio(g.get('trace_s'))}** "
             f"({day}, {rounds} round(s), interleaved; regenerate with "
             "`python3 benchmarks/suite/perf_table.py`)."]
    return "\n".join(rows)


def write_doc(text, backend="numpy"):
    begin, end = MARKERS[backend]
    with open(DOC) as f:
        doc = f.read()
    if begin not in doc:
        raise SystemExit(f"{DOC} has no {begin} marker")
    head, rest = doc.split(begin, 1)
    tail = rest.split(end, 1)[1]
    with open(DOC, "w") as f:
        f.write(head + begin + "\n" + text + "\n" + end + tail)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--only", help="a subset of the suite's workload names")
    ap.add_argument("--backends", default="numpy,iree",
                    help="pyjax backends to run, in order (numpy, iree); default both")
    ap.add_argument("--from-json", help="a saved compare.py --json output of the NumPy backend: no runs")
    ap.add_argument("--from-json-iree", help="the same for the IREE backend")
    ap.add_argument("--json", default=os.path.join(tempfile.gettempdir(), "pyjax_suite_compare.json"),
                    help="where compare.py's JSON goes (the IREE run's name ends in _iree)")
    ap.add_argument("--no-doc", action="store_true", help="print the tables only")
    args = ap.parse_args(argv)
    workloads = suite_workloads()
    if args.only:
        keep = set(args.only.split(","))
        workloads = [w for w in workloads if w[0] in keep]
    saved = {"numpy": args.from_json, "iree": args.from_json_iree}
    backends = [b for b in args.backends.split(",") if b] if not any(saved.values()) else \
        [b for b, path in saved.items() if path]
    for backend in backends:
        if backend not in MARKERS:
            raise SystemExit(f"unknown backend {backend!r}: choose from {', '.join(MARKERS)}")
        out_json = saved[backend] or (args.json if backend == "numpy" else
                                      os.path.splitext(args.json)[0] + f"_{backend}.json")
        if not saved[backend]:
            run_compare([n for n, _ in workloads], args.rounds, out_json, backend)
        with open(out_json) as f:
            cmp = json.load(f)
        text = markdown(cmp, workloads, args.rounds, backend)
        print(text)
        if not args.no_doc:
            write_doc(text, backend)
    return 0


if __name__ == "__main__":
    sys.exit(main())
