"""einsum and einsum_path: Einstein summation lowered to dot_general.

opt_einsum chooses the order of pairwise contractions (`optimize`: 'auto'
by default, True for the optimal path, False for left to right, or an
explicit path). Each step then becomes: sums over indices only one operand
has, diagonals of repeated indices (a mask and a sum), and one
`dot_general` whose batch dimensions are the indices both operands and the
result share; a transpose puts the result's axes in order.
"""

from __future__ import annotations

import collections
import functools
import itertools

import numpy as np

from pyjax._src import dtypes
from pyjax._src.lax import dot as lax_dot
from pyjax._src.lax import elementwise as lax_ew
from pyjax._src.lax import reduce as lax_reduce
from pyjax._src.lax import shapes as lax_shapes
from pyjax._src.numpy.util import (
    aval_of,
    convert_element_type,
    ensure_arraylike,
    full_like,
)


def _opt_einsum():
    import opt_einsum  # (by the first einsum, not by `import pyjax`: a share of its time)
    return opt_einsum


@functools.cache
def _unoptimized():
    class _Unoptimized(_opt_einsum().paths.PathOptimizer):
        """Contracts the operands left to right (optimize=False)."""

        def __call__(self, inputs, *args, **kwargs):
            return [(0, 1)] * (len(inputs) - 1)

    return _Unoptimized


def _path_type(optimize):
    if optimize is True:
        return "optimal"
    if optimize is False:
        return _unoptimized()()
    return optimize


def einsum(subscripts, /, *operands, out=None, optimize="auto", precision=None, preferred_element_type=None,
           _dot_general=None, out_sharding=None):
    """Einstein summation: `einsum('ij,jk->ik', a, b)` is a matrix product.

    Args:
      subscripts: the index string (or, NumPy's other form, operands
        interleaved with lists of axis labels).
      operands: the arrays.
      optimize: the contraction order: 'auto', True ('optimal'), False (left
        to right), an opt_einsum strategy name or an explicit path.
      precision, preferred_element_type: passed to dot_general.

    Example:
      >>> jnp.einsum('ij,j->i', jnp.ones((2, 3)), jnp.arange(3.0))
      Array([3., 3.], dtype=float32)
    """
    operands = (subscripts, *operands)
    if out is not None:
        raise NotImplementedError("The 'out' argument to jnp.einsum is not supported.")
    operands = tuple(op.__jax_array__() if hasattr(op, "__jax_array__") and not hasattr(op, "aval") else op
                     for op in operands)
    # opt_einsum reads only shapes: it gets stand-ins, so tracers stay here.
    # In the interleaved form (array, labels, array, labels, ...[, out]) the
    # label lists pass through.
    spec = operands[0] if isinstance(operands[0], str) else None
    stand_ins, originals = [], {}
    for position, op in enumerate(operands):
        is_label = (spec is not None and position == 0) or (spec is None and (position % 2 == 1 or (
            position == len(operands) - 1 and isinstance(op, (list, tuple)))))
        if is_label:
            stand_ins.append(op)
        else:
            shaped = _Shaped(op)
            originals[id(shaped)] = op
            stand_ins.append(shaped)
    contract_operands, contractions = _opt_einsum().contract_path(*stand_ins, einsum_call=True, use_blas=True,
                                                                   optimize=_path_type(optimize))
    contract_operands = [originals[id(o)] for o in contract_operands]
    contractions = tuple((a, frozenset(b), c) for a, b, c, *_ in contractions)
    arrays = list(ensure_arraylike("einsum", *contract_operands)) if len(contract_operands) != 1 \
        else [ensure_arraylike("einsum", *contract_operands)]
    return _einsum(arrays, contractions, precision, preferred_element_type)


class _Shaped:
    """A shape-and-dtype stand-in that opt_einsum can plan with."""

    def __init__(self, x):
        aval = aval_of(x) if hasattr(x, "aval") or not isinstance(x, (list, tuple)) else aval_of(np.asarray(x))
        self.shape = aval.shape
        self.dtype = aval.dtype
        self.ndim = len(aval.shape)


def einsum_path(subscripts, /, *operands, optimize="auto"):
    """The contraction path einsum would use (opt_einsum's contract_path):
    (path, printable description)."""
    optimize = _path_type(optimize) if isinstance(optimize, bool) else optimize
    shaped = [op if isinstance(op, (str, list, tuple)) else _Shaped(op) for op in operands]
    return _opt_einsum().contract_path(subscripts, *shaped, optimize=optimize)


def _removechars(s: str, chars: str) -> str:
    return s.translate(str.maketrans(dict.fromkeys(chars)))


def _delta(shape, axes):
    # True on the diagonal of `axes` (a boolean mask broadcast to `shape`).
    axes = [int(a) for a in axes]
    base_shape = tuple(np.take(shape, axes))
    iotas = [lax_shapes.broadcasted_iota(np.uint32, base_shape, i) for i in range(len(base_shape))]
    eyes = [lax_ew.eq(a, b) for a, b in itertools.pairwise(iotas)]
    result = eyes[0]
    for e in eyes[1:]:
        result = lax_ew.bitwise_and(result, e)
    return lax_shapes.broadcast_in_dim(result, shape, axes)


def _einsum(operands, contractions, precision, preferred_element_type):
    if preferred_element_type is None:
        preferred_element_type, weak = dtypes.result_type(*operands, return_weak_type_flag=True)
    else:
        preferred_element_type = dtypes.check_and_canonicalize_user_dtype(preferred_element_type, "einsum")
        weak = False

    def total(x, axes):
        if dtypes.result_type(x, preferred_element_type) != aval_of(x).dtype:
            x = x.astype(preferred_element_type)
        dtype = aval_of(x).dtype
        return lax_reduce.reduce(x, np.array(0, dtype), lax_ew.add if dtype != np.bool_ else lax_ew.bitwise_or,
                                 axes)

    def sum_uniques(operand, names, uniques):
        if uniques:
            operand = total(operand, [names.index(n) for n in uniques])
            names = _removechars(names, uniques)
        return operand, names

    def sum_repeats(operand, names, counts, keep_names):
        for name, count in counts.items():
            if count > 1:
                axes = [i for i, n in enumerate(names) if n == name]
                eye = _delta(aval_of(operand).shape, axes)
                operand = lax_ew.select(eye, operand, full_like(operand, 0))
                if name not in keep_names:
                    operand = total(operand, axes)
                    names = names.replace(name, "")
                else:
                    operand = total(operand, axes[:-1])
                    names = names.replace(name, "", count - 1)
        return operand, names

    def filter_singleton_dims(operand, names, other_shape, other_names):
        shape = aval_of(operand).shape
        keep = [shape[i] != 1 or j == -1 or other_shape[j] == 1 for i, j in enumerate(map(other_names.find, names))]
        squeezed = [i for i, k in enumerate(keep) if not k]
        kept = [i for i, k in enumerate(keep) if k]
        return lax_shapes.squeeze(operand, squeezed), "".join(names[i] for i in kept)

    for operand_indices, contracted_set, einstr in contractions:
        contracted = sorted(contracted_set)
        input_str, result_names = einstr.split("->")
        input_names = input_str.split(",")
        if len(operand_indices) == 1:
            operand = operands.pop(operand_indices[0])
            (names,) = input_names
            counts = collections.Counter(names)
            operand, names = sum_uniques(operand, names, [n for n in contracted if counts[n] == 1])
            operand, names = sum_repeats(operand, names, counts, result_names)
        elif len(operand_indices) == 2:
            lhs, rhs = map(operands.pop, operand_indices)
            lhs_names, rhs_names = input_names
            # Length-1 axes the other side broadcasts against are squeezed:
            # dot_general does not broadcast.
            lhs, lhs_names = filter_singleton_dims(lhs, lhs_names, aval_of(rhs).shape, rhs_names)
            rhs, rhs_names = filter_singleton_dims(rhs, rhs_names, aval_of(lhs).shape, lhs_names)
            lhs_counts, rhs_counts = collections.Counter(lhs_names), collections.Counter(rhs_names)
            lhs, lhs_names = sum_uniques(lhs, lhs_names,
                                         [n for n in contracted if lhs_counts[n] == 1 and rhs_counts[n] == 0])
            rhs, rhs_names = sum_uniques(rhs, rhs_names,
                                         [n for n in contracted if rhs_counts[n] == 1 and lhs_counts[n] == 0])
            lhs, lhs_names = sum_repeats(lhs, lhs_names, lhs_counts, result_names + rhs_names)
            rhs, rhs_names = sum_repeats(rhs, rhs_names, rhs_counts, result_names + lhs_names)
            either = set(lhs_names) | set(rhs_names)
            contracted = [n for n in contracted if n in either]
            both = set(lhs_names) & set(rhs_names)
            batch_names = [n for n in result_names if n in both]
            lhs_batch = tuple(lhs_names.find(n) for n in batch_names)
            rhs_batch = tuple(rhs_names.find(n) for n in batch_names)
            batch_str = "".join(batch_names)
            lhs_cont = tuple(lhs_names.index(n) for n in contracted)
            rhs_cont = tuple(rhs_names.index(n) for n in contracted)
            deleted = batch_str + "".join(contracted)
            rest_lhs, rest_rhs = _removechars(lhs_names, deleted), _removechars(rhs_names, deleted)
            # Put rhs first when that already gives the result's order.
            names = batch_str + rest_rhs + rest_lhs
            if names == result_names:
                operand = lax_dot.dot_general(rhs, lhs, ((rhs_cont, lhs_cont), (rhs_batch, lhs_batch)), precision,
                                              preferred_element_type)
            else:
                names = batch_str + rest_lhs + rest_rhs
                operand = lax_dot.dot_general(lhs, rhs, ((lhs_cont, rhs_cont), (lhs_batch, rhs_batch)), precision,
                                              preferred_element_type)
        else:
            raise NotImplementedError("jax.numpy.einsum does not support simultaneous contraction of 3 or more "
                                      "operands. Typically this means you've passed an unsupported path to the "
                                      "einsum optimize parameter.")
        if names != result_names:
            operand = lax_shapes.transpose(operand, tuple(names.index(n) for n in result_names))
        operands.append(operand)
    return convert_element_type(operands[0], preferred_element_type, weak)
