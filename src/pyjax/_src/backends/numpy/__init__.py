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

`install()` is the one entry point, run once by importing this package:
it fills the eval trace's table (pyjax._src.backends.NUMPY_IMPLS), wires
the backend into the layers that must not import it (the floating-point
mode, BLAS's threads, the random hash) and registers the tiers. `import
pyjax` does not import it: the first eager call that finds no impl, the
first compilation or any import of one of its modules does
(pyjax._src.backends).
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


_installed: list = [False]


def install() -> None:
    """Makes this the backend pyjax runs on: run once, by importing this package."""
    if _installed[0]:
        return
    _installed[0] = True
    # (Imported here: the backend's modules import lax, which pyjax's top
    # level imports first; nothing below pyjax imports this package.)
    from pyjax._src import backends, core, dispatch
    from pyjax._src.backends.numpy import fpenv
    from pyjax._src.backends.numpy.parallel import blas, tile  # noqa: F401  (reads PYJAX_TILE_MIN_ELEMENTS)

    # A bad setting raises here, at the first computation, before anything is wired.
    limit = blas.configured_limit()
    dispatch.set_fp_mode(fpenv)  # XLA:CPU's denormal mode around each computation (first: a second thread may compute)
    early = dict(backends.NUMPY_IMPLS)  # def_impl's entries made before the backend loaded
    _wire(limit)
    _table_entries(backends.NUMPY_IMPLS, early, dispatch)
    core.clear_eager_plans()
    dispatch.set_backend_loader(None)  # (loaded: a missing impl is missing)


def _wire(limit: int | None) -> None:
    from pyjax._src.backends.numpy import fpenv, memory, tiers
    from pyjax._src.backends.numpy.codegen import compile as compile_lib
    from pyjax._src.backends.numpy.codegen import control_flow, kernels
    from pyjax._src.backends.numpy.impls import IMPLS, lazy_scipy
    from pyjax._src.backends.numpy import native
    from pyjax._src.backends.numpy.impls import convolution, slicing, standard, windowed
    from pyjax._src.backends.numpy.native import colsums as native_colsums
    from pyjax._src.backends.numpy.native import directconv as native_directconv
    from pyjax._src.backends.numpy.native import im2col as native_im2col
    from pyjax._src.backends.numpy.native import pooling as native_pooling
    from pyjax._src.backends.numpy.native import glue, rows, scatter as native_scatter, threefry as native_threefry
    from pyjax._src.backends.numpy.parallel import blas, split, tile
    from pyjax._src.random import threefry
    from pyjax._src.sharding import api as sharding_api

    # BLAS's threads inside pyjax's computations only; the split pool when BLAS runs one.
    controls = blas.thread_controls()
    fpenv.use_blas(limit, controls)
    split.configure(limit if controls else None)

    def more_blas():  # SciPy's OpenBLAS, loaded by its first use; appended (a call in flight restores by index)
        known = {blas.address(get) for get, _ in controls}
        new = [c for c in blas.thread_controls() if blas.address(c[0]) not in known]
        if limit is not None:
            # Limited at once: the call in flight that loaded it runs its
            # LAPACK with as many threads as later calls (OpenBLAS's sums
            # depend on them), though it saved no count to restore.
            for get, set_ in new:
                if get() != limit:
                    set_(limit)
        controls.extend(new)
        fpenv.use_blas(limit, controls)
        split.configure(limit if controls else None)

    lazy_scipy.after_import.append(more_blas)
    memory.keep_freed_memory()  # freed arrays reused, not page-faulted in again

    # The table: semantics, then control flow's eager impls (they compile their bodies).
    IMPLS.update(control_flow.IMPLS)
    kernels.register_backend_impls(IMPLS)
    compile_lib.EMITTERS.update(control_flow.EMITTERS)
    # Placement primitives are identities on the one host's buffers (the
    # placement itself is the Array's: sharded_array.place).
    IMPLS[sharding_api.reshard_p] = lambda x, **_: x
    IMPLS[sharding_api.sharding_constraint_p] = lambda x, **_: x

    # The tiers, in the order the code generator asks the region tiers.
    tiers.register(split=split.SplitTier())
    tiers.register(region=tile.TileTier())
    tiers.register(region=rows.RowsTier())
    tiers.register(region=glue.GlueTier())
    tiers.register(program=native.native_program, loop=native.native_loop)
    # threefry2x32's hash: large ranges on every core, in C once built.
    threefry.set_range_runner(split.run_ranges)
    threefry.set_hash_kernel(native_threefry.native_hash)
    # scatter-add's sums in C once built (np.add.at until then).
    slicing.set_add_kernel(native_scatter.rows_add)
    # a convolution's patch matrix in C once built (NumPy's copy until then).
    convolution.set_patch_kernel(native_im2col.im2col)
    # float32 convolutions straight from the input in C once built (the patches until then).
    convolution.set_direct_kernel(native_directconv.direct_conv)
    # max pooling over non-overlapping windows and its gradient in C once built.
    windowed.set_pool_kernel(native_pooling.pooling)
    # sums over leading axes (batch norm's statistics) in C once built (einsum until then).
    standard.set_column_sums(native_colsums.column_sums)


def _table_entries(table: dict, early: dict, dispatch) -> None:
    # An impl def_impl'd after `import pyjax` made the eval trace replaces
    # the backend's own, as it would have with the backend loaded; one made
    # before (the trace took it with setdefault) does not.
    for primitive, impl in early.items():
        pending = dispatch._pending_impls.get(primitive)
        if pending is not None and getattr(impl, "user_impl", None) is pending:
            table.setdefault(primitive, impl)
        else:
            table[primitive] = impl


install()
