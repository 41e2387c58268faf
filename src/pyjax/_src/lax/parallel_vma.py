"""The varying-manual-axes casts of shard_map bodies: `pvary` and `psum_invariant`.

Inside `jax.shard_map(..., check_vma=True)` a value's type says over which
manual mesh axes it may differ between devices (`f32[2,8]{V:(x,y)}`, the
aval's `vma`). `pvary` is the no-op cast from invariant to varying that JAX
inserts where operands disagree; `psum_invariant` is psum as JAX 0.11 binds
it under check_vma (varying in, invariant out over the summed axes). Both
are linear and transpose into each other.
"""

from __future__ import annotations

from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters.jvp import deflinear
from pyjax._src.rules import SHARDING_OF_COLLECTIVE

__all__ = ["pcast", "pvary_p", "psum_invariant_p"]


def _pvary_abstract_eval(aval: ShapedArray, *, axes: tuple) -> ShapedArray:
    if set(axes) & set(aval.vma):
        raise ValueError(
            "pvary is a invariant->variant collective. This means that the axis names mentioned in `axes` "
            f"passed to `pvary` must not be present in `jax.typeof(inp).mat.varying`. Got axes={axes} and "
            f"jax.typeof(inp)={aval}")
    # (The vma union is ordered by the shard_map trace, which knows the mesh.)
    return aval


def _psum_invariant_abstract_eval(aval: ShapedArray, *, axes: tuple) -> ShapedArray:
    if aval.vma and not set(axes) & set(aval.vma):
        raise ValueError(
            "psum is a variant->invariant collective. This means that the axis names mentioned in `axes` "
            "passed to `psum` must be present in `jax.typeof(inp).mat.varying`. Got "
            f"axes={axes} and jax.typeof(inp).mat.varying={frozenset(aval.vma)}")
    if any(isinstance(a, int) for a in axes):
        raise ValueError(f"psum_invariant does not accept integer axes. Got {axes}")
    return aval.update(vma=tuple(a for a in aval.vma if a not in axes))


pvary_p = Primitive("pvary")
pvary_p.declare(sharding_reason=SHARDING_OF_COLLECTIVE)
pvary_p.def_abstract_eval(_pvary_abstract_eval)
pvary_p.is_collective = True

psum_invariant_p = Primitive("psum_invariant")
psum_invariant_p.declare(sharding_reason=SHARDING_OF_COLLECTIVE)
psum_invariant_p.def_abstract_eval(_psum_invariant_abstract_eval)
psum_invariant_p.is_collective = True


def _pvary_transpose(ct, operand, *, axes):
    from pyjax._src.ad_util import Zero

    if type(ct) is Zero:
        return [Zero(operand.aval)]
    return [psum_invariant_p.bind(ct, axes=axes)]


def _psum_invariant_transpose(ct, operand, *, axes):
    from pyjax._src.ad_util import Zero

    if type(ct) is Zero:
        return [Zero(operand.aval)]
    return [pvary_p.bind(ct, axes=axes)]


deflinear(pvary_p, _pvary_transpose)
deflinear(psum_invariant_p, _psum_invariant_transpose)


def _batch_keeping_axis(primitive: Primitive):
    # Under a vmap (whose axis is not a manual mesh axis) the cast or the sum
    # over mesh axes applies to the batched value as it is.
    def rule(axis_data, args, dims, *, axes):
        return primitive.bind(args[0], axes=axes), dims[0]

    return rule


pvary_p.def_batch(_batch_keeping_axis(pvary_p))
psum_invariant_p.def_batch(_batch_keeping_axis(psum_invariant_p))


def pcast(x, axis_name, *, to: str):
    """Casts `x`'s type across manual mesh axes (JAX's `lax.pcast`): with
    `to='varying'`, a device-invariant value becomes typed as varying over
    `axis_name` (the `pvary` cast; no data moves)."""
    from pyjax._src import core
    from pyjax._src.tree_util import tree_map

    if to not in ("varying", "reduced", "unreduced"):
        raise ValueError("Got unexpected `to` value. Allowed `to` values are: {'reduced', 'varying', 'unreduced'}")
    axes = tuple(axis_name) if isinstance(axis_name, (tuple, list)) else (axis_name,)

    def cast(leaf):
        vma = getattr(core.get_aval(leaf), "vma", ())
        source = "varying" if set(axes) & set(vma) else "invarying"
        if to != "varying" or source == "varying":
            if to != "varying" and source == "invarying" and to == "reduced":
                raise NotImplementedError("pcast(..., to='reduced'): pyjax has no reduced types yet")
            raise ValueError(f"Unsupported pcast from={source}, to={to!r}")
        return pvary_p.bind(leaf, axes=axes)

    return tree_map(cast, x)
