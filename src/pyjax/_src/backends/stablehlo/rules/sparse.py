"""The sparse formats' primitives (jax.experimental.sparse): each lowers as
the array program its evaluation rule is, traced on the operands' types —
what JAX's `mlir.lower_fun(impl)` registrations do on the CPU."""

from __future__ import annotations

from pyjax._src.backends.stablehlo.lowering import declare_not_lowered, lower_fun, register_lowering

_AS_ARRAY_PROGRAMS = (
    "bcoo_todense", "bcoo_fromdense", "bcoo_extract", "bcoo_transpose", "bcoo_sort_indices", "bcoo_sum_duplicates",
    "bcoo_dot_general", "bcoo_dot_general_sampled", "bcoo_spdot_general", "bcsr_todense", "bcsr_extract",
    "bcsr_fromdense", "bcsr_dot_general", "coo_todense", "coo_fromdense", "coo_matvec", "coo_matmat",
    "csr_todense", "csr_fromdense", "csr_matvec", "csr_matmat", "todense")


def register(prims: dict) -> None:
    for name in _AS_ARRAY_PROGRAMS:
        if name in prims:
            prim = prims[name]
            register_lowering(prim, lower_fun(prim.impl, prim.multiple_results))
    if "spsolve" in prims:
        declare_not_lowered("host call to SciPy's sparse solver (JAX's CPU lowering is a Python callback), "
                            "not produced", prims["spsolve"])
