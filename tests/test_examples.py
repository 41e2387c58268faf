"""Every example runs on pyjax (and, where JAX is installed in the test
environment, prints the same results as on JAX)."""

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
NAMES = sorted(p.stem for p in EXAMPLES.glob("*.py") if not p.stem.startswith("_"))
TIMING = re.compile(r"\d+(\.\d+)? ms")


def run(name: str, impl: str, python: str = sys.executable) -> str:
    proc = subprocess.run([python, f"{name}.py", "--impl", impl], cwd=EXAMPLES, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.mark.parametrize("name", NAMES)
def test_example_runs_on_pyjax(name):
    out = run(name, "pyjax")
    assert out.strip()
    assert "Traceback" not in out


REFERENCE_PYTHON = Path("/tmp/jax-ref/bin/python")  # ../shared/tools/setup-jax-reference.sh


@pytest.mark.parametrize("name", NAMES)
def test_example_matches_jax_when_installed(name):
    if importlib.util.find_spec("jax") is not None:
        python = sys.executable
    elif REFERENCE_PYTHON.exists():
        python = str(REFERENCE_PYTHON)
    else:
        pytest.skip("JAX is not installed here (it is a reference, never a dependency)")
    assert TIMING.sub("<t>", run(name, "pyjax")) == TIMING.sub("<t>", run(name, "jax", python))


def test_data_parallel_curves_match_single_device():
    # examples/data_parallel.py: the loss curve of the 8-way data-parallel
    # run (shard_map + psum of gradients) equals the single-device one.
    proc = subprocess.run([sys.executable, "data_parallel.py", "--steps", "4"], cwd=EXAMPLES,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines() if re.fullmatch(r"\s*\d+\s+[\d.]+\s+[\d.]+", line)]
    assert len(rows) == 4
    for _, single, parallel in rows:
        assert abs(float(single) - float(parallel)) < 1e-4
    assert "curves agree: True" in proc.stdout and "parameters agree: True" in proc.stdout
    assert "each holds a batch shard of shape (16, 16)" in proc.stdout
