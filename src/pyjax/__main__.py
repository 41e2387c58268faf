"""`python -m pyjax run script.py [args...]`: runs a JAX program on pyjax.

`import jax` in the script (and in every library it imports) resolves to
pyjax (`pyjax.install_as_jax()`); `python -m pyjax run -m module [args...]`
runs a module as `python -m` would.
"""

from __future__ import annotations

import runpy
import sys

USAGE = "usage: python -m pyjax run script.py [args...]\n       python -m pyjax run -m module [args...]"


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    if argv[0] != "run" or len(argv) < 2 or (argv[1] == "-m" and len(argv) < 3):
        print(USAGE, file=sys.stderr)
        return 2
    from pyjax._src.install import install_as_jax

    install_as_jax()
    if argv[1] == "-m":
        sys.argv = [argv[2], *argv[3:]]
        runpy.run_module(argv[2], run_name="__main__", alter_sys=True)
    else:
        sys.argv = argv[1:]
        # As `python script.py` does: the script's folder leads sys.path.
        import os

        sys.path.insert(0, os.path.dirname(os.path.abspath(argv[1])))
        runpy.run_path(argv[1], run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
