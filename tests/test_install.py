"""pyjax.install_as_jax() and `python -m pyjax run`: `import jax` resolves
to pyjax, and no real jax is ever consulted. Each case runs in a fresh
interpreter (the alias lasts for the process)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(code: str, *, env_path: str | None = None, args: list[str] | None = None) -> subprocess.CompletedProcess:
    import os

    env = dict(os.environ)
    if env_path:
        env["PYTHONPATH"] = env_path + os.pathsep + env.get("PYTHONPATH", "")
    return subprocess.run(args or [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=300, env=env, cwd=ROOT)


@pytest.fixture
def fake_jax(tmp_path):
    """A `jax` and `jaxlib` on the path that fail loudly if imported."""
    for name in ("jax", "jaxlib"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text(f"raise ImportError('the real {name} was imported')\n")
        (tmp_path / name / "numpy.py").write_text(f"raise ImportError('the real {name}.numpy was imported')\n")
    return str(tmp_path)


def test_modules_are_pyjax_modules():
    proc = run("""
        import pyjax
        pyjax.install_as_jax()
        import jax, jax.numpy as jnp, jax.lax, jax.tree_util, jax.nn.initializers, jax.scipy.special
        from jax import random
        assert jnp is pyjax.numpy and jax.lax is pyjax.lax and random is pyjax.random
        assert jax.nn.initializers is pyjax.nn.initializers
        assert jax.numpy.__spec__.name == "pyjax.numpy"  # pyjax's own spec is kept
        assert jax.jit is pyjax.jit and jax.Array is pyjax.Array
        print(jax.__version__, jax.__version_info__, jax.version.__version_info__)
        import jaxlib, jax._src.tree_util
        print(jaxlib.__version__, jaxlib.version.__version__)
        print(float(jax.jit(lambda x: jnp.sin(x) * 2)(0.5)))
        pyjax.install_as_jax()  # again: nothing happens
    """)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "0.11.0 (0, 11, 0) (0, 11, 0)"
    assert lines[1] == "0.11.0 0.11.0"
    assert float(lines[2]) == pytest.approx(0.958851077208406, rel=1e-6)


def test_alias_wins_over_an_installed_jax(fake_jax):
    proc = run("""
        import pyjax
        pyjax.install_as_jax()
        import jax, jax.numpy, jaxlib
        print(jax.numpy.asarray([1, 2]).sum())
    """, env_path=fake_jax)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "3"


def test_refuses_when_real_jax_is_already_imported(tmp_path):
    (tmp_path / "jax").mkdir()
    (tmp_path / "jax" / "__init__.py").write_text("")
    proc = run("""
        import jax
        import pyjax
        try:
            pyjax.install_as_jax()
        except RuntimeError as e:
            print(e)
    """, env_path=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert "pyjax.install_as_jax(): the real jax is already imported (from " in proc.stdout
    assert "before anything imports jax" in proc.stdout


def test_missing_module_names_the_alias(fake_jax):
    proc = run("""
        import pyjax
        pyjax.install_as_jax()
        try:
            import jax.no_such_module
        except ModuleNotFoundError as e:
            print(e.name, "|", e)
    """, env_path=fake_jax)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ("jax.no_such_module | No module named 'jax.no_such_module': pyjax (standing in "
                                   "for jax 0.11.0 through pyjax.install_as_jax()) has no module for it")


def test_python_m_pyjax_run(tmp_path, fake_jax):
    script = tmp_path / "prog.py"
    (tmp_path / "helper_mod.py").write_text("VALUE = 41\n")
    script.write_text(textwrap.dedent("""
        import sys
        import jax, jax.numpy as jnp
        import helper_mod  # the script's folder is on sys.path, as with `python prog.py`
        print(__name__, sys.argv[1:], jax.__version__, int(jnp.add(helper_mod.VALUE, 1)))
    """))
    proc = run("", env_path=fake_jax, args=[sys.executable, "-m", "pyjax", "run", str(script), "a", "--b"])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "__main__ ['a', '--b'] 0.11.0 42"
    usage = run("", args=[sys.executable, "-m", "pyjax", "frobnicate"])
    assert usage.returncode == 2 and "usage: python -m pyjax run script.py" in usage.stderr


def test_import_pyjax_imports_no_scipy():
    # SciPy (special functions, LAPACK, FFT) is imported on first use, not
    # by `import pyjax`; a special function then works as before.
    code = ("import sys, pyjax\n"
            "assert not [m for m in sys.modules if m == 'scipy' or m.startswith('scipy.')], 'scipy imported'\n"
            "import pyjax.numpy as jnp\n"
            "from pyjax import lax\n"
            "print(float(lax.erfc(jnp.float64(0.5))), float(jnp.linalg.det(jnp.eye(2) * 2.0)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    erfc, det = map(float, out.stdout.split())
    assert abs(erfc - 0.4795001221869535) < 1e-6 and det == 4.0
