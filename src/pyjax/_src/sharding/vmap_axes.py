"""vmap over arrays typed on Explicit mesh axes.

The mapped dimension of the inputs names (in their types) the mesh axes it
is split over; vmap takes that as the batch axis's placement, as JAX 0.11
does: the inputs must agree on it, an unmapped input may not use it,
`spmd_axis_name` may only repeat it, and a value broadcast to the batch
size (an unmapped output) is typed on it.
"""

from __future__ import annotations

from typing import Any, Sequence

from pyjax._src import core
from pyjax._src.sharding.mesh import get_abstract_mesh
from pyjax._src.sharding.named import abstract_sharding

__all__ = ["explicit_mesh_axis", "spmd_name_for", "with_batch_axis"]


def _spec_entry(x, dim: int):
    sharding = getattr(core.get_aval(x), "sharding", None)
    if sharding is None:
        return None
    spec = tuple(sharding.spec)
    return spec[dim] if dim < len(spec) else None


def _flat(entry) -> tuple:
    if entry is None:
        return ()
    return entry if isinstance(entry, tuple) else (entry,)


def explicit_mesh_axis(flat_args: Sequence, in_dims: Sequence, not_mapped: Any) -> tuple | None:
    """The mesh axes the mapped dimension is split over (None: not split),
    with JAX's errors for inputs that disagree or unmapped inputs split over
    them."""
    out, seen = None, False
    for x, d in zip(flat_args, in_dims, strict=True):
        if d is not_mapped:
            continue
        entry = _spec_entry(x, d)
        if seen and entry != out:
            raise ValueError("Mapped away dimension of inputs passed to vmap should be sharded the same. Got "
                             f"inconsistent axis specs: {out} vs {entry}")
        out, seen = entry, True
    if out is None:
        return None
    ema = _flat(out)
    for x, d in zip(flat_args, in_dims, strict=True):
        if d is not not_mapped:
            continue
        aval = core.get_aval(x)
        sharding = getattr(aval, "sharding", None)
        used = {a for e in (sharding.spec if sharding is not None else ()) for a in _flat(e)}
        if any(a in used for a in ema):
            raise ValueError("Unmapped values passed to vmap cannot be sharded along the mesh axis you are "
                             f"vmapping over. Got type: {aval.str_short(True)}, in_axes: None and vmapped mesh "
                             f"axis: {ema}")
    return ema


def spmd_name_for(spmd_axis_name: Any, ema: tuple | None) -> Any:
    """vmap's spmd_axis_name once the inputs' placement is known: dropped
    when it repeats it; JAX's error when it names other axes."""
    if spmd_axis_name is None or ema is None:
        return spmd_axis_name
    spmd = (spmd_axis_name,) if isinstance(spmd_axis_name, str) else tuple(spmd_axis_name)
    if spmd == ema:
        return None
    raise ValueError("Only one of spmd_axis_name or arrays sharded on `Explicit` mesh axis type is allowed. Got "
                     f"spmd_axis_name={spmd} and arrays sharded on explicit_mesh_axis={ema}")


def with_batch_axis(x, axis: int, ema: tuple | None):
    """The aval sharding of `x` broadcast to a new batch dimension at `axis`
    split over `ema` (None: no typing to do)."""
    aval = core.get_aval(x)
    # (the value's own mesh, as JAX's broadcast reads it; else the context's)
    mesh = aval.sharding.mesh if getattr(aval, "sharding", None) is not None else get_abstract_mesh()
    if ema is None or mesh.empty:
        return None
    entries = list(aval.sharding.spec) if aval.sharding is not None else [None] * aval.ndim
    entries.insert(axis, ema[0] if len(ema) == 1 else ema)
    return abstract_sharding(mesh, tuple(entries))
