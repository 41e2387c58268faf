"""The native tier's builder (native/build.py) and native_call.c, where they
meet the platform: free-threaded Python (native_call.c declares that it
needs the GIL) and systems where a loaded library cannot be deleted
(Windows): every build goes to one private directory kept for the process
and removed at exit."""

import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from pyjax._src.backends.numpy import native
from pyjax._src.backends.numpy.native import build as native_build
from pyjax._src.backends.numpy.native import settings as native_settings

SRC = Path(native_build.__file__).with_name("native_call.c")
needs_cc = pytest.mark.skipif(native.compiler() is None or not native_settings.ENABLED, reason="no C compiler")


def test_native_call_declares_the_gil_slot_with_multi_phase_init():
    c = SRC.read_text()
    assert "PyModuleDef_Init(&module)" in c and "PyModule_Create" not in c
    assert re.search(r"#ifdef Py_mod_gil\s*\n(\s*/\*.*?\*/\s*\n)?\s*\{Py_mod_gil, Py_MOD_GIL_USED\},\s*\n#endif", c, re.S)
    assert re.search(r"\{Py_mod_exec, module_exec\}", c)


@needs_cc
@pytest.mark.skipif(native_build._headers() is None, reason="native_call.c needs Python's headers")
def test_native_call_builds_and_loads():
    assert native_build._native_call_type() is not None  # (its exec slot added the type)
    assert list(Path(native_build.build_dir()).glob("_pyjax_native_call_*.so"))


@needs_cc
def test_a_loaded_librarys_directory_stays_private_and_in_place():
    lib = native_build._build("int pyjax_build_dir_probe(void) { return 42; }\n")
    assert lib.pyjax_build_dir_probe() == 42
    path = Path(lib._name)
    assert path.exists() and path.parent == Path(native_build.build_dir())  # still there while loaded
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    # its source goes once built (other sources may be there: background builds of earlier tests' programs)
    assert not path.with_suffix(".c").exists()


@needs_cc
def test_the_build_directory_is_removed_at_exit():
    code = ("from pyjax._src.backends.numpy.native import build\n"
            "lib = build._build('int pyjax_exit_probe(void) { return 7; }\\n')\n"
            "assert lib.pyjax_exit_probe() == 7\n"
            "print(build.build_dir())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert out.returncode == 0, out.stderr
    directory = out.stdout.strip().splitlines()[-1]
    assert directory and not os.path.exists(directory)
