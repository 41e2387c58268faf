"""The NumPy backend limits BLAS threads at import (backends/numpy/blas.py)."""

import json
import os
import subprocess
import sys

import pytest

_CODE = """
import json, numpy, threadpoolctl
threads = lambda: [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
before = threads()
import pyjax
print(json.dumps([before, threads()]))
"""


def _run(env_value):
    env = {k: v for k, v in os.environ.items() if k not in ("PYJAX_BLAS_THREADS", "OPENBLAS_NUM_THREADS")}
    if env_value is not None:
        env["PYJAX_BLAS_THREADS"] = env_value
    return subprocess.run([sys.executable, "-c", _CODE], capture_output=True, text=True, env=env, timeout=120)


def test_default_is_one_thread():
    out = _run(None)
    assert out.returncode == 0, out.stderr
    _, after = json.loads(out.stdout)
    assert after and set(after) == {1}  # NumPy's BLAS and SciPy's, which pyjax loads


def test_a_number_of_threads_and_default():
    out = _run("2")
    assert out.returncode == 0, out.stderr
    _, after = json.loads(out.stdout)
    assert after and set(after) == {2}
    out = _run("default")
    assert out.returncode == 0, out.stderr
    before, after = json.loads(out.stdout)
    assert after[:len(before)] == before  # untouched


@pytest.mark.parametrize("bad", ["zero", "0"])
def test_bad_setting_is_an_error(bad):
    out = _run(bad)
    assert out.returncode != 0
    assert "PYJAX_BLAS_THREADS must be" in out.stderr
