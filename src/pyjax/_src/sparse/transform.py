"""sparsify: run a function written for dense arrays on sparse operands.

The function is traced to a jaxpr with a dense stand-in (shape and dtype)
for each sparse operand; the jaxpr is then evaluated with sparse values
flowing through it: an equation with a sparse operand runs its primitive's
sparse rule (`sparse_rules_bcoo`), one without runs the primitive. This is
JAX's interpreter-based `sparsify`; it runs under jit, grad and vmap like
any other function of arrays.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any, Callable

from pyjax._src import core, tree_util
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray
from pyjax._src.interpreters.staging import trace_to_jaxpr
from pyjax._src.jaxpr import Literal
from pyjax._src.lax import elementwise as lax_elementwise
from pyjax._src.sparse import bcoo_core, bcoo_dot, bcoo_ops
from pyjax._src.sparse.bcoo import BCOO
from pyjax._src.sparse.util import JAXSparse
import pyjax.numpy as jnp
from pyjax import lax

# primitive -> rule(*values, **params) -> value (or a list for multiple results);
# values are Arrays or sparse arrays.
sparse_rules_bcoo: dict[Any, Callable] = {}

_ZERO_PRESERVING = ("abs asin asinh atan atanh bessel_i1e expm1 log1p sign sin sinh sqrt square tan tanh "
                    "convert_element_type neg real imag conj copy").split()
_DENSIFYING = "acos acosh bessel_i0e cos cosh eq exp ge gt le lt log ne xor".split()


def _is_sparse(x) -> bool:
    return isinstance(x, JAXSparse)


def _unimplemented(primitive):
    if primitive.name in _DENSIFYING:
        return NotImplementedError(f"sparse rule for {primitive} is not implemented because it would result in "
                                   "dense output. If this is your intent, use sparse.todense() to convert your "
                                   "arguments to dense matrices.")
    return NotImplementedError(f"sparse rule for {primitive} is not implemented.")


def _with_data(mat: BCOO, data) -> BCOO:
    return BCOO((data, mat.indices), shape=mat.shape, indices_sorted=mat.indices_sorted,
                unique_indices=mat.unique_indices)


def eval_sparse(jaxpr, consts, spvalues) -> list:
    """Evaluates `jaxpr` on values that may be sparse (see the module docstring)."""
    env: dict = dict(zip(jaxpr.constvars, consts, strict=True))
    env.update(zip(jaxpr.invars, spvalues, strict=True))
    read = lambda v: v.val if type(v) is Literal else env[v]
    for eqn in jaxpr.eqns:
        outs = _apply_rule(eqn.primitive, [read(v) for v in eqn.invars], eqn.params)
        if eqn.primitive.multiple_results:
            env.update(zip(eqn.outvars, outs, strict=True))
        else:
            env[eqn.outvars[0]] = outs
    return [read(v) for v in jaxpr.outvars]


def _dense_standin(x):
    if _is_sparse(x):
        return ShapedArray(tuple(x.shape), x.dtype)
    return jnp.asarray(x).aval if not hasattr(x, "aval") else x.aval


def _apply_rule(prim, invals, params):
    """One equation on values that may be sparse: its sparse rule, or its body
    sparsified in place for a call, or the primitive itself."""
    if not any(_is_sparse(x) for x in invals):
        return prim.bind(*invals, **params)
    if prim in sparse_rules_bcoo:
        return sparse_rules_bcoo[prim](*invals, **params)
    if prim.call_body is not None:
        body = params[prim.call_body]
        outs = eval_sparse(getattr(body, "jaxpr", body), getattr(body, "consts", ()), invals)
        return outs if prim.multiple_results else outs[0]
    raise _unimplemented(prim)


class SparseTracer(core.Tracer):
    """A sparse value under `sparsify(f, use_tracer=True)`: it looks like a dense
    array of the sparse array's shape and dtype to the code it passes through."""
    __slots__ = ("_spvalue",)

    def __init__(self, trace: SparseTrace, spvalue):
        self._trace = trace
        self._spvalue = spvalue

    @property
    def aval(self) -> ShapedArray:
        return ShapedArray(tuple(self._spvalue.shape), self._spvalue.dtype)

    def __repr__(self):
        return f"SparseTracer<{self.aval}>"


class SparseTrace(core.Trace):
    """Runs each primitive's sparse rule on the sparse values its tracers hold."""

    def __init__(self, parent: core.Trace):
        self.parent = parent
        self.valid = True

    def process_primitive(self, primitive, args, params):
        vals = [x._spvalue if type(x) is SparseTracer and x._trace is self else x for x in args]
        with core.set_current_trace(self.parent):
            out = _apply_rule(primitive, vals, params)
        wrap = lambda v: SparseTracer(self, v) if _is_sparse(v) else v
        return [wrap(v) for v in out] if primitive.multiple_results else wrap(out)

    def lift_constant(self, value, aval):
        lift = getattr(self.parent, "lift_constant", None)
        return lift(value, aval) if lift is not None else Array(value, aval)


def _sparsify_with_tracer(f, args, kwargs):
    trace = SparseTrace(core.current_trace())
    leaves, tree = tree_util.tree_flatten((args, kwargs), is_leaf=_is_sparse)
    leaves = [SparseTracer(trace, x) if _is_sparse(x) else x for x in leaves]
    a, k = tree_util.tree_unflatten(tree, leaves)
    try:
        with core.set_current_trace(trace):
            out = f(*a, **k)
    finally:
        trace.valid = False
    out_leaves, out_tree = tree_util.tree_flatten(out)
    out_leaves = [x._spvalue if type(x) is SparseTracer and x._trace is trace else x for x in out_leaves]
    return tree_util.tree_unflatten(out_tree, out_leaves)


def sparsify(f: Callable, use_tracer: bool = False) -> Callable:
    """Transform ``f`` so that it accepts sparse arrays (experimental).

    Inside the returned function, operations on :class:`BCOO` inputs are
    carried out with sparse-aware rules instead of densifying them.

    Examples:

      >>> from jax.experimental import sparse
      >>> @sparse.sparsify
      ... def scaled_tmatvec(M, v):
      ...   return 2 * M.T @ v
      >>> M = sparse.BCOO.fromdense(jnp.arange(12).reshape((3, 4)))
      >>> scaled_tmatvec(M, jnp.array([3, 4, 2]))
      Array([ 64,  82, 100, 118], dtype=int32)
    """
    @functools.wraps(f)
    def wrapped(*args, **kwargs):
        if use_tracer:
            return _sparsify_with_tracer(f, args, kwargs)
        leaves, in_tree = tree_util.tree_flatten((args, kwargs), is_leaf=_is_sparse)
        out_tree = []

        def flat_fun(*flat):
            a, k = tree_util.tree_unflatten(in_tree, flat)
            out_leaves, treedef = tree_util.tree_flatten(f(*a, **k))
            out_tree.append(treedef)
            return out_leaves

        jaxpr, _ = trace_to_jaxpr(flat_fun, [_dense_standin(x) for x in leaves])
        values = [x if _is_sparse(x) else jnp.asarray(x) for x in leaves]
        outs = eval_sparse(jaxpr, jaxpr.consts, values)
        return tree_util.tree_unflatten(out_tree[0], outs)

    return wrapped


# ---------------------------------------------------------------------------
# The rules


def _zero_preserving_rule(primitive):
    def rule(x, **params):
        return _with_data(x, primitive.bind(x.data, **params))
    return rule


def _register_elementwise():
    for name in _ZERO_PRESERVING:
        prim = getattr(lax_elementwise, f"{name}_p", None)
        if prim is not None:
            sparse_rules_bcoo[prim] = _zero_preserving_rule(prim)


def _integer_pow_rule(x, *, y):
    if y <= 0:
        raise NotImplementedError(f"sparse rule for integer_pow with non-positive exponent {y} is not implemented "
                                  "because it would result in dense output. If this is your intent, use "
                                  "sparse.todense() to convert your argument to a dense array.")
    return _with_data(x, lax_elementwise.integer_pow_p.bind(x.data, y=y))


def _add_rule(x, y):
    out_shape = tuple(jnp.broadcast_shapes(x.shape, y.shape))
    if _is_sparse(x) and _is_sparse(y):
        if x.shape != y.shape:
            raise NotImplementedError("Addition between sparse matrices of different shapes.")
        if x.indices is y.indices:
            return BCOO((lax.add(x.data, y.data), x.indices), shape=x.shape, indices_sorted=x.indices_sorted,
                        unique_indices=x.unique_indices)
        if x.indices.ndim != y.indices.ndim or x.data.ndim != y.data.ndim:
            raise NotImplementedError("Addition between sparse matrices with different batch/dense dimensions.")
        axis = x.indices.ndim - 2
        return BCOO((lax.concatenate([x.data, y.data], axis), lax.concatenate([x.indices, y.indices], axis)),
                    shape=x.shape)
    if _is_sparse(y):
        x, y = y, x
    if tuple(y.shape) != out_shape:
        raise NotImplementedError(
            "Addition between a sparse array X and a dense array Y is not implemented when the output shape is "
            "larger than Y.shape. This is to prevent silent densification of a large sparse array. If this is "
            "your intent, you can explicitly cast the sparse array to a dense matrix.")
    return x.todense() + y


def _sub_rule(x, y):
    if _is_sparse(x) and _is_sparse(y):
        return _add_rule(x, _with_data(y, lax.neg(y.data)))
    raise NotImplementedError("Subtraction between sparse and dense array.")


def _mul_rule(x, y):
    if _is_sparse(x) and _is_sparse(y):
        if x.indices is y.indices:  # one sparsity pattern: multiply the stored values
            return _with_data(x, lax.mul(x.data, y.data))
        return bcoo_ops.bcoo_multiply_sparse(x, y)
    if _is_sparse(y):
        x, y = y, x
    if jnp.ndim(y) == 0:
        return _with_data(x, lax.mul(x.data, y))
    return _with_data(x, bcoo_ops.bcoo_multiply_dense(x, y))


def _div_rule(x, y):
    if _is_sparse(y):
        raise NotImplementedError("Division by a sparse array is not implemented because it would result in dense "
                                  "output. If this is your intent, use sparse.todense() to convert your arguments "
                                  "to a dense array.")
    if jnp.ndim(y) == 0:
        return _with_data(x, lax.div(x.data, y))
    y = jnp.broadcast_to(y, x.shape)
    return _with_data(x, lax.div(x.data, bcoo_core.bcoo_extract_p.bind(x.indices, y, assume_unique=True)))


def _reduce_sum_rule(x, *, axes, **_):
    out = bcoo_ops.bcoo_reduce_sum(x, axes=axes)
    return out.todense() if out.ndim == 0 else out


def _transpose_rule(x, *, permutation):
    return bcoo_core.bcoo_transpose(x, permutation=permutation)


def _todense_rule(*args, tree=None):
    return args[0].todense()


def _standard(fun, adapt=None):
    """A rule calling a bcoo_* function with the params it takes."""
    names = set(inspect.signature(fun).parameters)

    def rule(*args, **params):
        kwargs = {k: v for k, v in params.items() if k in names}
        return fun(*args, **kwargs) if adapt is None else adapt(fun, args, kwargs)
    return rule


def _dot_rule(lhs, rhs, *, dimension_numbers, precision=None, preferred_element_type=None, **_):
    return bcoo_dot.bcoo_dot_general(lhs, rhs, preferred_element_type=preferred_element_type,
                                     dimension_numbers=dimension_numbers)


def _register_standard():
    from pyjax._src.lax import shapes, slicing

    sparse_rules_bcoo[lax_elementwise.add_p] = _add_rule
    sparse_rules_bcoo[lax_elementwise.sub_p] = _sub_rule
    sparse_rules_bcoo[lax_elementwise.mul_p] = _mul_rule
    sparse_rules_bcoo[lax_elementwise.div_p] = _div_rule
    sparse_rules_bcoo[lax_elementwise.integer_pow_p] = _integer_pow_rule
    from pyjax._src.lax import dot, reductions
    sparse_rules_bcoo[dot.dot_general_p] = _dot_rule
    sparse_rules_bcoo[reductions.reduce_sum_p] = _reduce_sum_rule
    sparse_rules_bcoo[shapes.transpose_p] = _transpose_rule
    sparse_rules_bcoo[shapes.broadcast_in_dim_p] = _standard(bcoo_ops.bcoo_broadcast_in_dim)
    sparse_rules_bcoo[shapes.reshape_p] = _standard(bcoo_ops.bcoo_reshape)
    sparse_rules_bcoo[shapes.squeeze_p] = _standard(bcoo_ops.bcoo_squeeze)
    sparse_rules_bcoo[shapes.rev_p] = _standard(bcoo_ops.bcoo_rev)
    sparse_rules_bcoo[shapes.concatenate_p] = lambda *a, dimension: bcoo_ops.bcoo_concatenate(a, dimension=dimension)
    sparse_rules_bcoo[shapes.slice_p] = _standard(bcoo_ops.bcoo_slice)
    from pyjax._src.lax import convolution
    sparse_rules_bcoo[convolution.conv_general_dilated_p] = _standard(bcoo_ops.bcoo_conv_general_dilated)
    sparse_rules_bcoo[slicing.gather_p] = lambda x, idx, **params: bcoo_ops.bcoo_gather(x, idx, **params)
    sparse_rules_bcoo[slicing.dynamic_slice_p] = lambda x, *starts, slice_sizes: bcoo_ops.bcoo_dynamic_slice(
        x, starts, slice_sizes)


_register_elementwise()
_register_standard()
