"""Primitives without a StableHLO rule, each with the reason.

JAX lowers the linear-algebra primitives on the CPU to `stablehlo.custom_call`s
of LAPACK kernels (`lapack_sgetrf_ffi` ...) whose names, layouts and
operand conventions belong to jaxlib; host callbacks to custom calls that
hold a Python function. Until pyjax produces those, a program using one of
these primitives raises `LoweringError` naming it, never a wrong module.
"""

from __future__ import annotations

from pyjax._src.backends.stablehlo.lowering import declare_not_lowered, register_lowering

_REASONS = {
    "LAPACK custom call on CPU (jaxlib's kernel names and layouts), not produced": (
        "cholesky", "cholesky_update", "eig", "eigh", "geqp3", "geqrf", "hessenberg", "householder_product", "lu",
        "lu_pivots_to_permutation", "ormqr", "qr", "schur", "svd", "symmetric_product", "triangular_solve",
        "tridiagonal", "tridiagonal_solve"),
    "collective over named mesh axes: not lowered yet (rules/collectives.py lowers the others inside shard_map)": (
        "ragged_all_to_all", "all_gather_invariant"),
    "not lowered yet": ("random_gamma",),
    "Pallas kernels: run by the NumPy backend's interpreter (JAX lowers them to Mosaic/Triton or, in interpret "
    "mode, to a while loop); not lowered yet": ("pallas_call", "program_id", "num_programs", "multiple_of",
                                               "reciprocal"),
    "checkify's checks: JAX discharges them (checkify) before lowering; not produced": ("float_check", "check"),
    "mutable array references: JAX discharges them into functional updates before lowering; not yet": (
        "addupdate", "empty_ref", "free_ref", "freeze", "get", "new_ref", "swap"),
    "multi-process array conversions: not lowered yet": (
        "global_array_to_host_local_array", "host_local_array_to_global_array"),
    "pyjax's markers (dce_sink, stage, xla_metadata): not lowered yet": (
        "dce_sink", "stage", "xla_metadata_call", "xla_metadata_value"),
    "custom_partitioning: a custom call holding the user's partitioner callbacks, not produced": (
        "custom_partitioning",),
}


def register(prims: dict) -> None:
    for reason, names in _REASONS.items():
        declare_not_lowered(reason, *[prims[n] for n in names if n in prims])
    for name in ("psend", "precv"):
        if name in prims:
            register_lowering(prims[name], _gpu_only(name))
    if "custom_lin" in prims:  # JAX's rule raises its jvp-of-custom_vjp error (custom_derivatives.py)
        register_lowering(prims["custom_lin"], _custom_lin)
    if "name" in prims:  # checkpoint_name: the identity (ad_checkpoint.py's rule)
        register_lowering(prims["name"], lambda ctx, x, **params: [x])


def _custom_lin(ctx, *args, **params):
    from pyjax._src.custom_vjp import _JVP_ERROR

    raise TypeError(_JVP_ERROR)


def _gpu_only(name: str):
    # JAX 0.11 lowers psend/precv for GPUs only; for CPU its rule raises this.
    def rule(ctx, *args, **params):
        raise NotImplementedError(f"{name} is currently only implemented on GPU")

    return rule
