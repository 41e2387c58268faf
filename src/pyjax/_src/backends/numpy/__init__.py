"""The NumPy backend: jaxprs run as Python over NumPy, with faster tiers.

    impls/     semantics: primitive -> NumPy function (the eager path's table)
    xla/       XLA's arithmetic: the rewrites XLA makes before running a
               computation, and its float functions bit for bit
    codegen/   a jaxpr -> one Python function; control flow as Python loops;
               kernels.py: which kernel an equation calls (both generators)
    parallel/  the cores: split calls, tiled regions, BLAS threads
    native/    the native tier: C over NumPy's own kernels, tiering up once
               bitwise equal to the Python code
    tiers.py   the registry the code generator asks for plans
    fpenv.py   XLA:CPU's floating-point environment around each computation
    memory.py  allocations a computation may not make

`install()` is the one entry point: pyjax's top level calls it once, and it
wires the backend into the layers that must not import it (the eval trace's
table, jit's compiler, the floating-point mode) and registers the tiers.
"""

from __future__ import annotations

__all__ = ["compile_jaxpr", "install"]


def compile_jaxpr(jaxpr, fused: bool = True):
    """jit's compiler: XLA's rewrites (`fused`: across equations too), then
    Python code over the backend's impls, with every registered tier."""
    from pyjax._src.backends.numpy import memory
    from pyjax._src.backends.numpy.codegen import compile as compile_lib
    from pyjax._src.backends.numpy.impls import IMPLS
    from pyjax._src.backends.numpy.xla import rewrite

    return compile_lib.compile_jaxpr(rewrite.simplify(memory.check_jaxpr(jaxpr), fused=fused), IMPLS)


def install() -> None:
    """Makes this the backend pyjax runs on: called once, by `import pyjax`."""
    # (Imported here: the backend's modules import lax, which pyjax's top
    # level imports first; nothing below pyjax imports this package.)
    from pyjax._src import core, dispatch
    from pyjax._src import jit as jit_lib
    from pyjax._src.backends.numpy import fpenv, memory, tiers
    from pyjax._src.backends.numpy.codegen import compile as compile_lib
    from pyjax._src.backends.numpy.codegen import control_flow, kernels
    from pyjax._src.backends.numpy.impls import IMPLS, lazy_scipy
    from pyjax._src.backends.numpy import native
    from pyjax._src.backends.numpy.impls import slicing
    from pyjax._src.backends.numpy.native import rows, scatter as native_scatter, threefry as native_threefry
    from pyjax._src.backends.numpy.parallel import blas, split, tile
    from pyjax._src.random import threefry

    # BLAS's threads inside pyjax's computations only; the split pool when BLAS runs one.
    limit, controls = blas.configured_limit(), blas.thread_controls()
    fpenv.use_blas(limit, controls)
    split.configure(limit if controls else None)

    def more_blas():  # SciPy's OpenBLAS, loaded by its first use; appended (a call in flight restores by index)
        known = {blas.address(get) for get, _ in controls}
        controls.extend(c for c in blas.thread_controls() if blas.address(c[0]) not in known)
        fpenv.use_blas(limit, controls)
        split.configure(limit if controls else None)

    lazy_scipy.after_import.append(more_blas)
    dispatch.set_fp_mode(fpenv)  # XLA:CPU's denormal mode around each computation
    memory.keep_freed_memory()  # freed arrays reused, not page-faulted in again

    # The table: semantics, then control flow's eager impls (they compile their bodies).
    IMPLS.update(control_flow.IMPLS)
    kernels.register_backend_impls(IMPLS)
    compile_lib.EMITTERS.update(control_flow.EMITTERS)

    # The tiers, in the order the code generator asks the region tiers.
    tiers.register(split=split.SplitTier())
    tiers.register(region=tile.TileTier())
    tiers.register(region=rows.RowsTier())
    tiers.register(program=native.native_program, loop=native.native_loop)
    # threefry2x32's hash: large ranges on every core, in C once built.
    threefry.set_range_runner(split.run_ranges)
    threefry.set_hash_kernel(native_threefry.native_hash)
    # scatter-add's sums in C once built (np.add.at until then).
    slicing.set_add_kernel(native_scatter.rows_add)

    core.set_default_trace(dispatch.EvalTrace(IMPLS))
    jit_lib.set_compiler(compile_jaxpr)
