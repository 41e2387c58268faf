"""dot_general: the one contraction primitive (matmul, dot, einsum, batched
products all lower to it).

dimension_numbers = ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch)).
The result's axes are: batch dims, then the lhs free dims, then the rhs free
dims. `preferred_element_type` asks for a wider accumulation/result dtype.
"""

from __future__ import annotations

import enum
from typing import Any, NamedTuple, Union



import numpy as np

from pyjax._src import dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.core import Primitive
from pyjax._src.lax._standard import BOOL_OR_NUMBER, check_same_dtypes, nary_dtype_check
from pyjax._src.lax import sharding_rules


class DotDimensionNumbers(tuple):
    """((lhs_contract, rhs_contract), (lhs_batch, rhs_batch)) as nested tuples
    (hashable), printed with lists inside as JAX prints them."""

    def __new__(cls, dimension_numbers):
        (lc, rc), (lb, rb) = dimension_numbers
        return super().__new__(cls, ((tuple(map(int, lc)), tuple(map(int, rc))), (tuple(map(int, lb)), tuple(map(int, rb)))))

    def __str__(self):
        (lc, rc), (lb, rb) = self
        return f"(({list(lc)}, {list(rc)}), ({list(lb)}, {list(rb)}))"

    __repr__ = __str__


dot_general_p = Primitive("dot_general")
dot_general_p.pp_hidden = lambda k, v: k == "out_sharding" or (k in ("precision", "preferred_element_type") and v is None)


@dot_general_p.def_abstract_eval
def _dot_general_abstract_eval(lhs: ShapedArray, rhs: ShapedArray, *, dimension_numbers, precision,
                               preferred_element_type, out_sharding) -> ShapedArray:
    (lc, rc), (lb, rb) = dimension_numbers
    nary_dtype_check("dot_general", (BOOL_OR_NUMBER, BOOL_OR_NUMBER), (lhs, rhs))
    for dims, aval, side in ((lc, lhs, "lhs"), (rc, rhs, "rhs"), (lb, lhs, "lhs"), (rb, rhs, "rhs")):
        if any(not 0 <= d < aval.ndim for d in dims):
            raise TypeError(
                f"dot_general requires contracting or batch dimension numbers to be in range "
                f"[0, {aval.ndim}) for {side}, got {dims} for {side} of shape {aval.shape}."
            )
    if len(lb) != len(rb):
        raise TypeError(f"dot_general requires equal numbers of lhs_batch and rhs_batch dimensions, got lhs_batch {lb} and rhs_batch {rb}.")
    lhs_batch_shape = tuple(lhs.shape[d] for d in lb)
    rhs_batch_shape = tuple(rhs.shape[d] for d in rb)
    if lhs_batch_shape != rhs_batch_shape:
        raise TypeError(
            "dot_general requires lhs batch dimensions and rhs batch dimensions to have the same "
            f"shape, got {lhs_batch_shape} and {rhs_batch_shape}."
        )
    lhs_contract_shape = tuple(lhs.shape[d] for d in lc)
    rhs_contract_shape = tuple(rhs.shape[d] for d in rc)
    if lhs_contract_shape != rhs_contract_shape:
        raise TypeError(
            "dot_general requires contracting dimensions to have the same shape, got "
            f"{lhs_contract_shape} and {rhs_contract_shape}."
        )
    lhs_free = tuple(d for i, d in enumerate(lhs.shape) if i not in lc and i not in lb)
    rhs_free = tuple(d for i, d in enumerate(rhs.shape) if i not in rc and i not in rb)
    if preferred_element_type is None:
        check_same_dtypes("dot_general", lhs, rhs)
        dtype = lhs.dtype
    else:
        dtype = preferred_element_type
    weak = lhs.weak_type and rhs.weak_type and preferred_element_type is None
    return ShapedArray(lhs_batch_shape + lhs_free + rhs_free, dtype, weak, out_sharding)


dot_general_p.def_sharding_rule(sharding_rules.dot_general_rule)


def _precision_param(precision):
    if precision is None:
        return None
    if isinstance(precision, str) and precision in DotAlgorithmPreset.__members__:
        precision = DotAlgorithmPreset[precision]
    if isinstance(precision, (DotAlgorithm, DotAlgorithmPreset)):
        # XLA's CPU dot emitter takes only these algorithms; JAX refuses the
        # others when lowering, which for pyjax's backend is now.
        if not (isinstance(precision, DotAlgorithmPreset) and precision.name in _CPU_PRESETS):
            raise ValueError(f"The precision '{precision}' is not supported by dot_general on CPU")
        return precision
    if isinstance(precision, (tuple, list)):
        return tuple(precision)
    return (precision, precision)


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None, *, out_sharding=None):
    """General tensor contraction: contracts and batches the given dimensions."""
    if preferred_element_type is not None:
        preferred_element_type = dtypes.canonicalize_dtype(np.dtype(preferred_element_type))
    dimension_numbers = DotDimensionNumbers(dimension_numbers)
    if out_sharding is not None:
        (lc, _), (lb, _) = dimension_numbers
        ndim = np.ndim(lhs) + np.ndim(rhs) - 2 * len(lc) - len(lb)
        out_sharding = sharding_rules.canonicalize_sharding(out_sharding, "dot_general", ndim)
    return dot_general_p.bind(
        lhs, rhs, dimension_numbers=dimension_numbers,
        precision=_precision_param(precision), preferred_element_type=preferred_element_type,
        out_sharding=out_sharding,
    )


def dot(lhs, rhs, precision=None, preferred_element_type=None, *, out_sharding=None):
    """Vector/matrix product: contracts the last axis of lhs with the first of rhs."""
    lhs_ndim = lhs.aval.ndim if hasattr(lhs, "aval") else np.ndim(lhs)
    rhs_ndim = rhs.aval.ndim if hasattr(rhs, "aval") else np.ndim(rhs)
    if not 1 <= lhs_ndim <= 2 or not 1 <= rhs_ndim <= 2:
        raise TypeError(f"Incompatible shapes for dot: got {np.shape(lhs)} and {np.shape(rhs)}.")
    dims = (((lhs_ndim - 1,), (0,)), ((), ()))
    return dot_general(lhs, rhs, dims, precision, preferred_element_type, out_sharding=out_sharding)




class DotAlgorithm(NamedTuple):
    """Specify the algorithm used for computing dot products.

    Passed as the ``precision`` of :func:`~jax.lax.dot`,
    :func:`~jax.lax.dot_general` and the other dot product functions, it
    selects the storage types of the operands (``lhs_precision_type``,
    ``rhs_precision_type``), the accumulation type, how many components each
    operand is split into and how many primitive products are summed.
    XLA's CPU backend supports none of these explicit algorithms; use a
    :class:`DotAlgorithmPreset` instead.
    """

    lhs_precision_type: Any
    rhs_precision_type: Any
    accumulation_type: Any
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


class DotAlgorithmPreset(enum.Enum):
    """An enum of known algorithms for computing dot products.

    A member (or its name as a string) can be passed as the ``precision`` of
    :func:`~jax.lax.dot`, :func:`~jax.lax.dot_general` and the other dot
    product functions. ``DEFAULT`` uses the backend's default algorithm.
    """

    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}.{self.name}"

    def __str__(self) -> str:
        return self.name

    @property
    def supported_lhs_types(self) -> tuple | None:
        return _PRESET_TYPES[self.name][0]

    @property
    def supported_rhs_types(self) -> tuple | None:
        return _PRESET_TYPES[self.name][0]

    @property
    def supported_output_types(self) -> tuple | None:
        return _PRESET_TYPES[self.name][1]

    @property
    def accumulation_type(self) -> Any:
        return _PRESET_TYPES[self.name][2]


def _preset_types() -> dict:
    import ml_dtypes

    bf16, f16, f32, f64 = ml_dtypes.bfloat16, np.float16, np.float32, np.float64
    f8 = (ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e5m2, ml_dtypes.float8_e5m2fnuz, ml_dtypes.float8_e4m3fnuz,
          ml_dtypes.float8_e4m3b11fnuz)
    # name -> (operand types, output types, accumulation type); None: any.
    return {
        "DEFAULT": (None, None, None),
        "ANY_F8_ANY_F8_F32": (f8, (f32, bf16), f32), "ANY_F8_ANY_F8_F32_FAST_ACCUM": (f8, (f32, bf16), f32),
        "ANY_F8_ANY_F8_ANY": (f8, None, None), "ANY_F8_ANY_F8_ANY_FAST_ACCUM": (f8, None, None),
        "F16_F16_F16": ((f16,), None, f16), "F16_F16_F32": ((f16,), (f16, f32), f32),
        "BF16_BF16_BF16": ((bf16,), None, bf16),
        "BF16_BF16_F32": ((bf16, f32), (bf16, f32), f32), "BF16_BF16_F32_X3": ((f32,), None, f32),
        "BF16_BF16_F32_X6": ((f32,), None, f32), "BF16_BF16_F32_X9": ((f32,), None, f32),
        "TF32_TF32_F32": ((f32,), None, f32), "TF32_TF32_F32_X3": ((f32,), None, f32),
        "F32_F32_F32": ((f32,), None, f32), "F64_F64_F64": ((f64,), None, f64),
    }


_PRESET_TYPES = _preset_types()
# The presets XLA's CPU backend accepts (the others are refused when lowering).
_CPU_PRESETS = frozenset({"DEFAULT", "F16_F16_F16", "BF16_BF16_F32", "BF16_BF16_F32_X3", "BF16_BF16_F32_X6",
                          "F32_F32_F32", "F64_F64_F64"})


class Precision(enum.Enum):
    """Precision of a contraction on backends that can trade it for speed."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    def __repr__(self):
        return f"Precision.{self.name}"

    __str__ = __repr__


# What a `precision=` argument may be (JAX's alias, for annotations).
PrecisionLike = Union[None, str, Precision, tuple[str, str], tuple[Precision, Precision], DotAlgorithm,
                      DotAlgorithmPreset]


# ---------------------------------------------------------------------------
# Autodiff rules: dot_general is bilinear.

from pyjax._src.interpreters.jvp import defjvp  # noqa: E402
from pyjax._src.interpreters.transpose import is_undefined_primal  # noqa: E402


def _ranges_like(*lengths):
    start = 0
    for n in lengths:
        yield list(range(start, start + n))
        start += n


def _others(n, *excluded):
    return [i for i in range(n) if all(i not in e for e in excluded)]


def _dot_transpose_lhs(ct, x_aval, y, *, dimension_numbers, precision, preferred_element_type, out_sharding, swap_ans=False):
    # x_bar[x_batch, x_kept, x_contract] = ct[batch, x_kept, y_kept] . y[y_batch, y_contract, y_kept]
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    y_ndim = y.aval.ndim if hasattr(y, "aval") else np.ndim(y)
    x_kept = _others(x_aval.ndim, x_contract, x_batch)
    y_kept = _others(y_ndim, y_contract, y_batch)
    if swap_ans:
        ans_batch, ans_y, _ = _ranges_like(len(x_batch), len(y_kept), len(x_kept))
    else:
        ans_batch, _, ans_y = _ranges_like(len(x_batch), len(x_kept), len(y_kept))
    dims = ((tuple(ans_y), tuple(y_kept)), (tuple(ans_batch), tuple(y_batch)))
    x_contract_by_y = [x_contract[i] for i in np.argsort(y_contract)]
    unsorted = list(x_batch) + x_kept + x_contract_by_y
    out_axes = tuple(int(i) for i in np.argsort(unsorted))
    # The cotangent is placed as the primal was (its spec in the product's order).
    placed = None
    if getattr(x_aval, "sharding", None) is not None:
        spec = tuple(x_aval.sharding.spec)
        placed = sharding_rules.abstract_sharding(x_aval.sharding.mesh, tuple(spec[int(o)] for o in unsorted))
    out = dot_general_p.bind(ct, y, dimension_numbers=DotDimensionNumbers(dims), precision=precision,
                             preferred_element_type=preferred_element_type, out_sharding=placed)
    from pyjax._src.lax.shapes import transpose

    out = transpose(out, out_axes)
    if out.aval.dtype != x_aval.dtype:
        from pyjax._src.lax.elementwise import _convert_element_type

        out = _convert_element_type(out, x_aval.dtype, x_aval.weak_type)
    return out


def _dot_transpose_rhs(ct, x, y_aval, *, dimension_numbers, **params):
    (x_contract, y_contract), (x_batch, y_batch) = dimension_numbers
    swapped = ((y_contract, x_contract), (y_batch, x_batch))
    return _dot_transpose_lhs(ct, y_aval, x, dimension_numbers=swapped, swap_ans=True, **params)


def _dot_general_transpose(ct, x, y, **params):
    if is_undefined_primal(x):
        return [_dot_transpose_lhs(ct, x.aval, y, **params), None]
    return [None, _dot_transpose_rhs(ct, x, y.aval, **params)]


defjvp(dot_general_p,
       lambda g, x, y, **params: dot_general_p.bind(g, y, **params),
       lambda g, x, y, **params: dot_general_p.bind(x, g, **params))
dot_general_p.def_transpose(_dot_general_transpose)


# ---------------------------------------------------------------------------
# Batching rule: a batched operand's batch axis becomes a new batch dimension
# of the contraction (both batched) or a free dimension (one batched).

from pyjax._src.interpreters import batching as _batching  # noqa: E402


def _shift(dims, bdim):
    return tuple(d + 1 if d >= bdim else d for d in dims)


def _dot_general_batch(axis_data, args, dims, *, dimension_numbers, precision, preferred_element_type, out_sharding):
    lhs, rhs = args
    lbd, rbd = dims
    (lc, rc), (lb, rb) = dimension_numbers
    not_mapped = _batching.not_mapped
    if lbd is not not_mapped and rbd is not not_mapped:
        new = ((_shift(lc, lbd), _shift(rc, rbd)), ((lbd,) + _shift(lb, lbd), (rbd,) + _shift(rb, rbd)))
        out_dim = 0
    elif lbd is not not_mapped:
        new = ((_shift(lc, lbd), rc), (_shift(lb, lbd), rb))
        lhs_ndim = lhs.aval.ndim if hasattr(lhs, "aval") else np.ndim(lhs)
        free = [i for i in range(lhs_ndim) if i not in new[0][0] and i not in new[1][0]]
        out_dim = len(lb) + free.index(lbd)
    else:
        new = ((lc, _shift(rc, rbd)), (lb, _shift(rb, rbd)))
        lhs_ndim = lhs.aval.ndim if hasattr(lhs, "aval") else np.ndim(lhs)
        rhs_ndim = rhs.aval.ndim if hasattr(rhs, "aval") else np.ndim(rhs)
        lhs_free = lhs_ndim - len(lc) - len(lb)
        free = [i for i in range(rhs_ndim) if i not in new[0][1] and i not in new[1][1]]
        out_dim = len(lb) + lhs_free + free.index(rbd)
    if out_sharding is not None:  # (the named placement gains the batch dimension's, as JAX's vmap types it)
        out_sharding = _with_batch_entry(out_sharding, out_dim, axis_data)
    out = dot_general_p.bind(lhs, rhs, dimension_numbers=DotDimensionNumbers(new), precision=precision,
                             preferred_element_type=preferred_element_type, out_sharding=out_sharding)
    return out, out_dim


def _with_batch_entry(sharding, dim: int, axis_data):
    axes = axis_data.explicit_mesh_axis or axis_data.spmd_name
    if isinstance(axes, (tuple, list)):
        axes = axes[0] if len(axes) == 1 else tuple(axes)
    spec = list(sharding.spec) + [None] * max(0, dim - len(sharding.spec))
    spec.insert(dim, axes)
    return type(sharding)(sharding.mesh, type(sharding.spec)(*spec))


dot_general_p.def_batch(_dot_general_batch)
