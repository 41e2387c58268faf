"""jit's `in_shardings` / `out_shardings` as params of the jit equation.

A jit given shardings stages its equation with one entry per operand and
per result (a Sharding, or `UnspecifiedValue` where none was given), as JAX
0.11 prints them; a jit given none has neither param, so every other
program prints as before. The transformations of a jit equation (JVP,
partial evaluation, transposition, vmap, DCE, remat's split) move the
entries with the operands and results they belong to, as JAX's pjit rules
do; these helpers are what jit.py's rules call.
"""

from __future__ import annotations

from typing import Any

from pyjax._src.sharding.mesh import get_mesh
from pyjax._src.sharding.named import NamedSharding, Sharding
from pyjax._src.sharding.partition_spec import PartitionSpec
from pyjax._src.tree_util import tree_flatten, tree_unflatten

__all__ = ["UNSPECIFIED", "UnspecifiedValue", "batch_params", "dce_params", "jvp_params", "partial_eval_params",
           "pe_custom_params", "placement_params", "transpose_params"]


class UnspecifiedValue:
    """No sharding given for this operand or result (JAX's marker)."""

    def __repr__(self) -> str:
        return "UnspecifiedValue"

    def __reduce__(self):
        return (_unspecified, ())


def _unspecified() -> UnspecifiedValue:
    return UNSPECIFIED


UNSPECIFIED = UnspecifiedValue()


def hidden(key: str, value: Any) -> bool:
    """Whether the printer leaves the param out: all entries unspecified."""
    return key in ("in_shardings", "out_shardings") and all(s is UNSPECIFIED for s in value)


# ---------------------------------------------------------------------------
# From the user's in_shardings / out_shardings to one entry per leaf


def _is_leaf(s: Any) -> bool:
    return s is None or isinstance(s, (Sharding, PartitionSpec))


def _entry(s: Any, what: str):
    if s is None:
        return UNSPECIFIED
    if isinstance(s, PartitionSpec):
        mesh = get_mesh()
        if mesh.empty:
            raise RuntimeError(
                f"jit requires a non-empty mesh in context if you are passing `PartitionSpec`s to {what}. You can "
                "define a context mesh via `jax.set_mesh(mesh)`. Alternatively, provide `Sharding`s to "
                f"{what} and then the mesh context manager is not required.")
        return NamedSharding(mesh, s)
    return s


def per_leaf(spec: Any, tree: Any, what: str) -> list:
    """One entry per leaf of `tree`: `spec` is one sharding for all, or a
    pytree prefix of `tree` of them (None: unspecified)."""
    leaves, _ = tree_flatten(tree)
    if _is_leaf(spec):
        return [_entry(spec, what)] * len(leaves)
    if isinstance(spec, list):
        spec = tuple(spec)
    if what == "in_shardings" and isinstance(spec, tuple) and isinstance(tree, tuple) and len(spec) != len(tree):
        raise ValueError(
            "pjit in_shardings specification must be a tree prefix of the positional arguments tuple. In "
            "particular, pjit in_shardings must either be a Sharding, a PartitionSpec, or a tuple of length "
            "equal to the number of positional arguments. But pjit in_shardings is the wrong length: got a "
            f"tuple or list of length {len(spec)} for an args tuple of length {len(tree)}.")
    spec_leaves, spec_def = tree_flatten(spec, is_leaf=_is_leaf)
    subtrees = spec_def.flatten_up_to(tree)
    out = []
    for s, sub in zip(spec_leaves, subtrees, strict=True):
        out.extend([_entry(s, what)] * len(tree_flatten(sub)[0]))
    return out


def placement_params(in_spec: Any, out_spec: Any, dyn_args: tuple, n_kwarg_leaves: int, out_tree) -> dict:
    """The params of a jit equation given `in_spec` / `out_spec`: entries for
    the positional arguments' leaves (keyword ones are unspecified), and for
    the results (`out_tree`)."""
    ins = per_leaf(in_spec, dyn_args, "in_shardings") if in_spec is not None else \
        [UNSPECIFIED] * len(tree_flatten(dyn_args)[0])
    ins += [UNSPECIFIED] * n_kwarg_leaves
    n_out = out_tree.num_leaves
    if out_spec is None:
        outs = [UNSPECIFIED] * n_out
    else:
        outs = per_leaf(out_spec, tree_unflatten(out_tree, [0] * n_out), "out_shardings")
    return {"in_shardings": tuple(ins), "out_shardings": tuple(outs)}


def with_hoisted(params: dict, n_hoisted: int) -> dict:
    """Constants hoisted into operands have no sharding."""
    if not params or not n_hoisted:
        return params
    return dict(params, in_shardings=(UNSPECIFIED,) * n_hoisted + params["in_shardings"])


# ---------------------------------------------------------------------------
# The transformations


def _pick(entries: tuple, mask) -> list:
    return [s for s, keep in zip(entries, mask, strict=True) if keep]


def jvp_params(params: dict, tangent_nonzero: list, out_nonzero: list) -> dict:
    """A tangent has its primal's sharding (operands, then results)."""
    if "in_shardings" not in params:
        return {}
    ins, outs = params["in_shardings"], params["out_shardings"]
    return {"in_shardings": (*ins, *_pick(ins, tangent_nonzero)),
            "out_shardings": (*outs, *_pick(outs, out_nonzero))}


def partial_eval_params(params: dict, unknowns: list, out_unknowns: list, n_known_outs: int,
                        n_residuals: int) -> tuple[dict, dict]:
    """(known, unknown) params: the known call returns its residuals
    unspecified after its outputs; the unknown one takes them first."""
    if "in_shardings" not in params:
        return {}, {}
    ins, outs = params["in_shardings"], params["out_shardings"]
    known_outs = _pick(outs, [not u for u in out_unknowns])
    known = {"in_shardings": tuple(_pick(ins, [not u for u in unknowns])),
             "out_shardings": (*known_outs, *[UNSPECIFIED] * (n_known_outs - len(known_outs)))}
    unknown = {"in_shardings": (*[UNSPECIFIED] * n_residuals, *_pick(ins, unknowns)),
               "out_shardings": tuple(_pick(outs, out_unknowns))}
    return known, unknown


def pe_custom_params(params: dict, unks_in: list, inst_in: list, unks_out: list, inst_out: list,
                     num_res: int) -> tuple[dict, dict]:
    """remat's split of a jit equation: (known, staged) params."""
    if "in_shardings" not in params:
        return {}, {}
    ins, outs = params["in_shardings"], params["out_shardings"]
    known = {"in_shardings": tuple(_pick(ins, [not u for u in unks_in])),
             "out_shardings": (*_pick(outs, [not u for u in unks_out]), *[UNSPECIFIED] * num_res)}
    staged = {"in_shardings": (*[UNSPECIFIED] * num_res, *_pick(ins, inst_in)),
              "out_shardings": tuple(_pick(outs, inst_out))}
    return known, staged


def transpose_params(params: dict, undefined: list, ct_nonzero: list) -> dict:
    """The transposed call takes the residuals and the cotangents (placed as
    the results were) and returns the linear operands' cotangents (placed
    as those operands)."""
    if "in_shardings" not in params:
        return {}
    ins, outs = params["in_shardings"], params["out_shardings"]
    return {"in_shardings": (*_pick(ins, [not u for u in undefined]), *_pick(outs, ct_nonzero)),
            "out_shardings": tuple(_pick(ins, undefined))}


def dce_params(params: dict, used_inputs: list, used_outputs: list) -> dict:
    if "in_shardings" not in params:
        return {}
    return {"in_shardings": tuple(_pick(params["in_shardings"], used_inputs)),
            "out_shardings": tuple(_pick(params["out_shardings"], used_outputs))}


def _batched(s: Any, dim: int | None, spmd_name: Any) -> Any:
    # A batched operand's sharding gains the new dimension: unsharded, or
    # over vmap's spmd_axis_name. (A replicated sharding without a spmd
    # name is kept as it is, as JAX keeps it.)
    if dim is None or s is UNSPECIFIED or not isinstance(s, NamedSharding):
        return s
    entries = list(s.spec)
    if spmd_name is None and all(e is None for e in entries):
        return s
    while entries and entries[-1] is None:
        entries.pop()
    entries += [None] * (dim - len(entries))
    entries.insert(dim, spmd_name if spmd_name is None or isinstance(spmd_name, str) or len(spmd_name) != 1
                   else spmd_name[0])
    while entries and entries[-1] is None:
        entries.pop()
    return NamedSharding(s.mesh, PartitionSpec(*entries), memory_kind=s._memory_kind)


def batch_params(params: dict, dims: list, out_dims: list, spmd_name: Any) -> dict:
    if "in_shardings" not in params:
        return {}
    return {"in_shardings": tuple(_batched(s, d, spmd_name) for s, d in zip(params["in_shardings"], dims, strict=True)),
            "out_shardings": tuple(_batched(s, d, spmd_name)
                                   for s, d in zip(params["out_shardings"], out_dims, strict=True))}
