"""Several processes over MPI (docs/distributed.md): the scripts of
tests/mpi/ run under `mpiexec -n 2` (and 4), each checking its shards
against one process's results bitwise.

Needs the `[mpi]` extra (mpi4py and MPICH's mpiexec). Without it the MPI
tests skip, saying so; under PYJAX_REQUIRE_MPI=1 (CI) that is a failure.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ROOT / "tests" / "mpi"
REQUIRED = os.environ.get("PYJAX_REQUIRE_MPI") == "1"
TIMEOUT = 120


def _mpiexec() -> str | None:
    beside = Path(sys.executable).parent / "mpiexec"  # (the mpich wheel installs it beside python)
    return str(beside) if beside.exists() else shutil.which("mpiexec")


def _need_mpi() -> str:
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        reason = "mpi4py is not installed (pip install -e '.[mpi]')"
    else:
        found = _mpiexec()
        if found:
            return found
        reason = "no mpiexec found (pip install -e '.[mpi]' installs MPICH's)"
    if REQUIRED:
        pytest.fail(reason + "; PYJAX_REQUIRE_MPI=1 makes this a failure", pytrace=False)
    pytest.skip(reason)


def _env() -> dict:
    env = dict(os.environ)
    env.pop("JAX_NUM_CPU_DEVICES", None)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _launch(n: int, *args: str, timeout: int = TIMEOUT) -> subprocess.CompletedProcess:
    cmd = [_need_mpi(), "-n", str(n), sys.executable, *args]
    return subprocess.run(cmd, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=timeout)


def _record(script: str, path: Path) -> None:
    proc = subprocess.run([sys.executable, str(SCRIPTS / script), "--record", str(path)], cwd=ROOT, env=_env(),
                          capture_output=True, text=True, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def references(tmp_path_factory):
    _need_mpi()
    where = tmp_path_factory.mktemp("mpi")
    refs = {name: where / f"{name}.npz" for name in ("collectives", "data_parallel")}
    for name, path in refs.items():
        _record(f"{name}.py", path)
    return refs


def _passed(proc, n: int, text: str) -> None:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for p in range(n):
        assert f"process {p} of {n}: " in proc.stdout and text in proc.stdout, proc.stdout


@pytest.mark.parametrize("n", [2, 4])
def test_collectives_across_processes_equal_one_process_bitwise(references, n):
    proc = _launch(n, str(SCRIPTS / "collectives.py"), "--check", str(references["collectives"]))
    _passed(proc, n, "shards equal bitwise")


def test_data_parallel_training_on_two_processes_equals_one_process(references):
    # 2 processes x 4 devices against 1 process x 8 devices: the parameters
    # after the steps (shard_map + psum, and sharded jit) are the same bits.
    proc = _launch(2, str(SCRIPTS / "data_parallel.py"), "--check", str(references["data_parallel"]))
    _passed(proc, 2, "trained values equal one process's bitwise")


def test_arrays_spanning_processes_and_multihost_utils():
    proc = _launch(2, str(SCRIPTS / "multihost.py"))
    _passed(proc, 2, "multihost checks passed")


def test_data_parallel_example_under_mpiexec():
    proc = _launch(2, str(ROOT / "examples" / "data_parallel.py"), "--steps", "3")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "2 process(es), 8 devices" in proc.stdout
    assert "curves agree: True" in proc.stdout and "parameters agree: True" in proc.stdout


def test_mpi4py_is_imported_by_initialize_only_and_its_absence_says_what_to_install():
    # (runs without MPI too)
    code = ("import sys, pyjax\n"
            "assert float(pyjax.numpy.ones(3).sum()) == 3.0\n"
            "assert 'mpi4py' not in sys.modules\n"
            "sys.modules['mpi4py'] = None  # (as if not installed)\n"
            "try:\n    pyjax.distributed.initialize()\n"
            "except ImportError as e:\n    print('ERROR', e)\n")
    proc = subprocess.run([sys.executable, "-c", code], env=_env(), capture_output=True, text=True, timeout=TIMEOUT)
    assert "ERROR" in proc.stdout and "pip install 'pyjax[mpi]'" in proc.stdout, proc.stdout + proc.stderr


def test_a_process_that_raises_ends_every_process():
    # Process 1 raises while process 0 waits in a psum: both end, promptly,
    # with a message naming the process and its exception.
    proc = _launch(2, str(SCRIPTS / "failures.py"), "raise", timeout=60)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "process 1 of 2 raised ValueError: process 1 fails on purpose; aborting all 2 processes" in out, out
    assert "reached the psum" not in out


def test_a_process_that_ends_early_ends_every_process():
    # Process 1 returns normally while process 0 waits in a psum: at exit it
    # waits shutdown_timeout_seconds (3 here) for the others, then ends all.
    proc = _launch(2, str(SCRIPTS / "failures.py"), "exit", timeout=60)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "process 1 of 2 is exiting, but the other processes did not reach the end within 3 s" in out, out
    assert "reached the psum" not in out


def test_different_programs_across_processes_raise_a_clear_error():
    proc = _launch(2, str(SCRIPTS / "failures.py"), "mismatch", timeout=60)
    assert proc.returncode != 0
    out = proc.stdout + proc.stderr
    assert "the processes reached different collectives" in out, out
    assert "process 0: psum over mesh axes ('d',) of a float32[2, 3] value per device" in out, out
    assert "process 1: psum over mesh axes ('d',) of a float32[2, 5] value per device" in out, out


def test_initialize_checks():
    # initialize's arguments checked against MPI, then a second call refused
    proc = _launch(2, str(SCRIPTS / "failures.py"), "initialize", timeout=60)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("arguments: ok") == 2 and proc.stdout.count("twice: ok") == 2, proc.stdout
