"""One-sided collectives: `psend` and `precv` (JAX's `lax.psend`, `lax.precv`).

`psend(x, axis_name, perm)` sends each device's `x` to the device `perm`
pairs it with and returns a token; `precv(token, out_shape, axis_name,
perm)` receives, on each destination of `perm`, what its source sent
(zeros where no pair names the device). Both carry JAX 0.11's params and
its "one-sided communication" effect, so dead-code elimination keeps them.
Inside `shard_map(check_vma=True)` psend makes its operand varying over its
axes (a `pvary`, as every collective) and precv's result is typed as
`out_shape` says: invariant.

JAX 0.11 lowers them only for GPUs: on CPU a jitted call raises
`NotImplementedError: psend is currently only implemented on GPU` and an
eager shard_map fails while typing the token. pyjax runs them per device
(backends/numpy/impls/spmd_p2p.py: a precv takes the values of the
earliest psend over the same axes and permutation not yet received).

Their batching rule is ppermute's, as in JAX 0.11: under vmap a psend
becomes a ppermute (an array, not a token) and a precv is a TypeError.
Neither has a derivative.
"""

from __future__ import annotations

from typing import Any

from pyjax._src import core
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.interpreters.batching import BatchTrace
from pyjax._src.jaxpr import Effect
from pyjax._src.lax.parallel import check_axis_names, in_eager_mode
from pyjax._src.lax.parallel_comm import _ppermute_batch
from pyjax._src.rules import SHARDING_OF_COLLECTIVE, unimplemented
from pyjax._src.tokens import AbstractToken, abstract_token

__all__ = ["precv", "precv_p", "psend", "psend_p", "single_side_collective_effect"]


class SingleSideCollectiveEffect(Effect):
    """The effect of psend and precv: a send or a receive whose other side is
    another equation."""

    def __str__(self) -> str:
        return "one-sided communication"

    def __repr__(self) -> str:
        return "SingleSideCollectiveEffect()"

    def __eq__(self, other) -> bool:
        return isinstance(other, SingleSideCollectiveEffect)

    def __hash__(self) -> int:
        return hash(SingleSideCollectiveEffect)


single_side_collective_effect = SingleSideCollectiveEffect()
_EFFECTS = frozenset({single_side_collective_effect})


def _one_sided(name: str) -> Primitive:
    primitive = Primitive(name).declare(sharding_reason=SHARDING_OF_COLLECTIVE)
    primitive.is_collective = True  # (JAX's batcher runs on unbatched operands too)
    primitive.effects_of = lambda params: _EFFECTS
    primitive.def_jvp(unimplemented(""))  # (JAX 0.11 has no JVP rule for either)
    return primitive


psend_p = _one_sided("psend")
precv_p = _one_sided("precv")


@psend_p.def_abstract_eval
def _psend_abstract_eval(aval, *, axis_name: tuple, perm: tuple) -> AbstractToken:
    return abstract_token


@precv_p.def_abstract_eval
def _precv_abstract_eval(token, *, out_shape: ShapedArray, axis_name: tuple, perm: tuple) -> ShapedArray:
    # (JAX checks neither the token's type nor the names here.)
    return out_shape


def _psend_batch(axis_data, args, dims, *, axis_name, perm):
    # JAX 0.11 registers ppermute's batcher for psend: it binds a ppermute,
    # whose names it checks as ppermute's.
    remaining = tuple(n for n in axis_name if n != axis_data.name)
    if remaining:
        check_axis_names(remaining, "ppermute")
    return _ppermute_batch(axis_data, args, dims, axis_name=axis_name, perm=perm)


def _precv_batch(axis_data, args, dims, **params):
    raise TypeError("_ppermute_batcher() got an unexpected keyword argument 'out_shape'")


psend_p.def_batch(_psend_batch)
precv_p.def_batch(_precv_batch)


def _names(axis_name) -> tuple:
    return tuple(axis_name) if isinstance(axis_name, (list, tuple)) else (axis_name,)


def psend(x: Any, axis_name: Any, perm: Any) -> Any:
    """Perform a collective send according to the permutation ``perm``.

    If ``x`` is a pytree then the result is equivalent to mapping this function
    to each leaf in the tree.

    Args:
      x: array(s) with a mapped axis named ``axis_name``.
      axis_name: hashable Python object used to name a mapped axis.
      perm: list of ``(source_index, destination_index)`` pairs: the device at
        ``source_index`` of the axis sends its ``x`` to the one at
        ``destination_index``.

    Returns:
      A token (one per leaf of ``x``) that a matching :func:`precv` takes.
    """
    from pyjax._src.tree_util import tree_map

    names = _names(axis_name)
    perm = tuple(map(tuple, perm))
    if not isinstance(core.current_trace(), BatchTrace):
        check_axis_names(names, "psend")
    return tree_map(lambda leaf: psend_p.bind(leaf, axis_name=names, perm=perm), x)


def precv(token: Any, out_shape: Any, axis_name: Any, perm: Any) -> Any:
    """Perform a collective recv according to the permutation ``perm``.

    Args:
      token: a token, from a matching :func:`psend` or ``lax.create_token()``.
      out_shape: a ``ShapeDtypeStruct`` giving the shape and dtype received.
      axis_name: hashable Python object used to name a mapped axis.
      perm: list of ``(source_index, destination_index)`` pairs, as the
        matching :func:`psend`'s. A device no pair names as a destination
        receives zeros.

    Returns:
      An array of ``out_shape``'s shape and dtype.
    """
    names = _names(axis_name)
    aval = ShapedArray(tuple(out_shape.shape), out_shape.dtype)
    if in_eager_mode():
        raise NotImplementedError("Evaluation rule for 'precv' not implemented")
    return precv_p.bind(token, out_shape=aval, axis_name=names, perm=tuple(map(tuple, perm)))
