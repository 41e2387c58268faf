"""The C of the equations that are not one ufunc call: views (reshape,
broadcast, transpose, slices, rev: no code), windows of dynamic slices, a
one-row scatter, conversions as the impl converts, max/min with XLA's
order of signed zeros, the rewrite's fused multiply-adds and row dots, and
products through the BLAS NumPy calls.
"""

from __future__ import annotations

import math

import numpy as np

from pyjax._src.avals import ShapedArray
from pyjax._src.backends.numpy.xla import fma as fma_impl
from pyjax._src.backends.numpy.xla import xla_math
from pyjax._src.backends.numpy.native.csource import (
    _C_SCALARS, _C_TYPES, ZERO_EXTREMUM, _Source, _Unsupported, _View, _c_strides, _contiguous, _copy_lines,
    _element_lines, _ufunc_lines,
)
from pyjax._src.backends.numpy.native.discovery import _Blas, ufunc_loop
from pyjax._src.backends.numpy.native.keys import bitcast_view, unstack_views
from pyjax._src.backends.numpy.native.level1 import outer_lines, rank_one_dot_lines

def _single_row_scatter(params, ins) -> bool:
    # scatter (replace) of one whole row at one index into the leading axis.
    x, index, update = ins
    dn = params["dimension_numbers"]
    return (params.get("update_jaxpr") is None and index.size == 1 and index.dtype.kind in "iu"
            and len(index.shape) == 1 and update.shape == x.shape[1:] and x.shape and x.shape[0] > 0
            and tuple(dn.update_window_dims) == tuple(range(len(update.shape)))
            and tuple(dn.inserted_window_dims) == (0,) and tuple(dn.scatter_dims_to_operand_dims) == (0,)
            and not tuple(dn.operand_batching_dims) and not tuple(dn.scatter_indices_batching_dims))


def _index(v: _View, limit: int) -> str:
    """C expression of the integer scalar `v` as an intptr_t; an unsigned
    value above `limit` reads as `limit + 1` (past it, as its true value is,
    where a cast could wrap it negative)."""
    value = f"(*({_C_SCALARS[v.dtype]} *){v.ptr})"
    if v.dtype.kind == "u":
        return f"({value} > {limit}u ? (intptr_t){limit + 1} : (intptr_t){value})"
    return f"(intptr_t){value}"


def _window(src: _Source, x: _View, starts: list, sizes, step: list) -> str:
    """A C variable holding the address of `x`'s window of `sizes` at the
    runtime `starts` (0-d integer views), each clamped into [0, dim - size]."""
    name = f"w{src.index()}"
    terms = []
    for k, (start, dim, size, stride) in enumerate(zip(starts, x.shape, sizes, x.strides, strict=True)):
        if start.shape or start.dtype.kind not in "iu":
            raise _Unsupported("a start index that is not an integer scalar")
        clamped = f"{name}_{k}"
        step.append(f"intptr_t {clamped} = {_index(start, dim - size)}; if ({clamped} < 0) {clamped} = 0; "
                    f"if ({clamped} > {dim - size}) {clamped} = {dim - size};")
        terms.append(f" + {clamped} * {stride}")
    step.append(f"char *{name} = {x.ptr}{''.join(terms)};")
    return name


def _conversion(source, dest):
    """The C statement of the impl's conversion (impls.py
    `_convert_element_type`): `!= 0` to bool; float to integer as XLA does
    it (truncated, saturated at the bounds compared in float64, NaN to 0);
    every other cast a C cast, which is what NumPy's astype does."""
    ctype = _C_SCALARS[dest]
    if dest == np.bool_:
        return lambda r: f"{r[1]} = ({r[0]} != 0);"
    if source.kind == "f" and dest.kind in "iu":
        info = np.iinfo(dest)
        big = repr(2.0 ** (info.bits - (1 if info.min < 0 else 0)))
        small = repr(float(info.min) - 1.0)
        lo = f"({ctype})({info.min + 1}LL - 1)" if info.min < 0 else "0"  # INT64_MIN has no literal
        hi = f"({ctype})({info.max}ULL)"
        return lambda r: (f"{{ double d = (double){r[0]}; {r[1]} = d >= {big} ? {hi} : d <= {small} ? {lo} : "
                          f"d != d ? 0 : ({ctype})trunc(d); }}")
    return lambda r: f"{r[1]} = ({ctype}){r[0]};"


def _minmax_lines(src: _Source, name: str, a: _View, b: _View, out: _View) -> list[str]:
    # The impl (impls.py `_minmax`): NumPy's maximum/minimum, then XLA's
    # order of zeros (-0.0 below +0.0) where both operands are zeros.
    ufunc = np.maximum if name == "max" else np.minimum
    lines = _ufunc_lines(src, *ufunc_loop(ufunc, (out.dtype,) * 3), [a, b], out)
    if out.size == 1 and out.dtype in _C_TYPES and out.dtype.kind == "f":
        # One value (a row's max against a literal): in line unless a NaN
        # (whose payload is the kernel's choice); the kernel call on one
        # element costs more than the row's other work, and NumPy's
        # maximum clears the FP flags after each call.
        ctype, cmp = _C_TYPES[out.dtype], ">=" if name == "max" else "<="
        lines = [f"{{ const {ctype} pj_a = *(const {ctype} *){a.ptr}, pj_b = *(const {ctype} *){b.ptr}; "
                 f"if (pj_a == pj_a && pj_b == pj_b) *({ctype} *){out.ptr} = pj_a {cmp} pj_b ? pj_a : pj_b; "
                 f"else {{ {' '.join(lines)} }} }}"]
    if out.dtype.kind == "f":
        zero = ZERO_EXTREMUM[name]
        lines += _element_lines(src, out.shape, [a, b, out], lambda r: (
            f"if ({r[0]} == 0 && {r[1]} == 0) {r[2]} = {zero.format(r[0], r[1])};"))
    return lines


def _identity(ins, params, out_avals):
    return list(ins)


def _reshape(ins, params, out_avals):
    # reshape (without its transposing `dimensions`), squeeze, expand_dims:
    # the same bytes, when they are in order.
    (x,), (aval,) = ins, out_avals
    if not x.contiguous:
        raise _Unsupported("reshape of a strided view")
    return [_View(x.ptr, aval.shape, _c_strides(aval.shape, aval.dtype.itemsize), aval.dtype)]


def _reshape_only(ins, params, out_avals):
    if params.get("dimensions") is not None:
        raise _Unsupported("reshape with a transpose")
    return _reshape(ins, params, out_avals)


def _broadcast(ins, params, out_avals):
    (x,), (aval,) = ins, out_avals
    strides = [0] * len(aval.shape)
    for axis, d, st in zip(params["broadcast_dimensions"], x.shape, x.strides):
        strides[axis] = st if d == aval.shape[axis] and d != 1 else 0
    return [_View(x.ptr, aval.shape, strides, aval.dtype)]


def _transpose(ins, params, out_avals):
    (x,), (aval,) = ins, out_avals
    perm = params["permutation"]
    return [_View(x.ptr, aval.shape, [x.strides[p] for p in perm], aval.dtype)]


def _slice(ins, params, out_avals):
    (x,), (aval,) = ins, out_avals
    steps = params.get("strides") or (1,) * len(x.shape)
    offset = sum(b * st for b, st in zip(params["start_indices"], x.strides))
    return [_View(f"({x.ptr} + {offset})", aval.shape, [st * k for st, k in zip(x.strides, steps)], aval.dtype)]


def _split(ins, params, out_avals):
    (x,) = ins
    axis, start, outs = params["axis"], 0, []
    for size, aval in zip(params["sizes"], out_avals, strict=True):
        outs.append(_View(f"({x.ptr} + {start * x.strides[axis]})", aval.shape, x.strides, aval.dtype))
        start += int(size)
    return outs


def _rev(ins, params, out_avals):
    (x,), (aval,) = ins, out_avals
    dims = params["dimensions"]
    offset = sum((d - 1) * st for k, (d, st) in enumerate(zip(x.shape, x.strides)) if k in dims)
    strides = [-st if k in dims else st for k, st in enumerate(x.strides)]
    return [_View(f"({x.ptr} + {offset})", aval.shape, strides, aval.dtype)]


_VIEWS = {"rev": _rev, "stop_gradient": _identity, "copy": _identity, "name": _identity,
          "reshape": _reshape_only, "squeeze": _reshape, "broadcast_in_dim": _broadcast,
          "transpose": _transpose, "slice": _slice, "split": _split, "unstack": unstack_views,
          "bitcast_convert_type": bitcast_view}


def _fma_lines(src: _Source, eqn, ins: list, out: _View) -> list[str]:
    # rewrite.py's fused multiply-add, `(±a) * b + (±c)` rounded once: C's
    # fmaf is that operation, correctly rounded, as is the impl's float32
    # path (fma.py); float64 follows the impl's emulation (see `value`).
    if out.dtype not in _C_TYPES or any(v.dtype != out.dtype for v in ins):
        raise _Unsupported("fma operands")
    fn = "fmaf"
    neg_a = "-" if eqn.params.get("negate_product") else ""
    neg_c = "-" if eqn.params.get("negate_addend") else ""
    # A NaN result: its sign and payload are those of the impl's NaN, which
    # NumPy's float64 multiply then add kernels give (fma.py), operands in
    # the impl's order (its large float32 path puts a single `a` second);
    # a hardware fma picks among NaN operands in another order.
    f64 = np.dtype(np.float64)
    mul, add = ufunc_loop(np.multiply, (f64,) * 3), ufunc_loop(np.add, (f64,) * 3)
    if mul is None or add is None:
        raise _Unsupported("fma without NumPy's float64 multiply and add loops")
    km, kmd, ka, kad = (src.kernel(p) for p in (*mul, *add))
    splitter = repr(float(xla_math._SPLITTER))

    swap = out.dtype == np.float32 and out.size > fma_impl._SMALL and ins[0].size == 1

    def value(a, b, c):
        if out.dtype == np.float32:
            return f"{fn}({a}, {b}, {c})"
        # float64: the impl's own error-free emulation (xla_math.fma_f64),
        # operation for operation (IEEE: the same bits), not C's fma, which
        # differs from it near ties and where a product underflows.
        return (f"({{ double pj_a = {a}, pj_b = {b}, pj_c = {c}, pj_p = pj_a * pj_b, pj_q = {splitter} * pj_a, "
                f"pj_r = {splitter} * pj_b, pj_ah = pj_q - (pj_q - pj_a), pj_bh = pj_r - (pj_r - pj_b), "
                "pj_al = pj_a - pj_ah, pj_bl = pj_b - pj_bh, "
                "pj_pe = (((pj_ah * pj_bh - pj_p) + pj_ah * pj_bl) + pj_al * pj_bh) + pj_al * pj_bl, "
                "pj_t = pj_p + pj_c, pj_cp = pj_t - pj_p, pj_se = (pj_p - (pj_t - pj_cp)) + (pj_c - pj_cp), "
                "pj_o = pj_t + (pj_se + pj_pe); (isfinite(pj_o) && (pj_o != 0 || pj_t != 0)) ? pj_o : pj_t; })")

    def statement(r):
        a, b, c = f"{neg_a}{r[0]}", r[1], f"{neg_c}{r[2]}"
        x, y = (b, a) if swap else (a, b)
        return (f"{{ {r[3]} = {value(a, b, c)}; if ({r[3]} != {r[3]}) {{ "
                f"double pj_x = (double)({x}), pj_y = (double)({y}), pj_z = (double)({c}), pj_p, pj_t; "
                "static const intptr_t pj_n[] = {1}, pj_st[] = {0, 0, 0}; "
                "char *pj_m[] = {(char *)&pj_x, (char *)&pj_y, (char *)&pj_p}; "
                f"((loop_t){km})(pj_m, pj_n, pj_st, {kmd}); "
                "char *pj_s[] = {(char *)&pj_p, (char *)&pj_z, (char *)&pj_t}; "
                f"((loop_t){ka})(pj_s, pj_n, pj_st, {kad}); {r[3]} = ({_C_TYPES[out.dtype]})pj_t; }} }}")

    return _element_lines(src, out.shape, [*ins, out], statement)


def _row_dot_lines(src: _Source, eqn, ins: list, out: _View) -> list[str]:
    # rewrite.py's short row sum of products (fma.py `row_dot`), as its impl:
    # from +0, one fused multiply-add per element of the row, in order (the
    # first two swapped for a square).
    a, b = ins
    if out.dtype not in _C_TYPES or a.dtype != out.dtype or b.dtype != out.dtype:
        raise _Unsupported("row_dot operands")
    shape = np.broadcast_shapes(a.shape, b.shape)
    order = list(range(shape[-1]))
    if eqn.params["square"] and len(order) >= 2:
        order[0], order[1] = 1, 0
    fn = "fmaf"
    steps = [(a, a.aligned(shape)), (b, b.aligned(shape))]
    lines = _element_lines(src, out.shape, [out], lambda r: f"{r[0]} = 0;")
    for k in order:
        a_k, b_k = (_View(f"({v.ptr} + {k * st[-1]})", shape[:-1], st[:-1], v.dtype) for v, st in steps)
        lines += _element_lines(src, out.shape, [a_k, b_k, out], lambda r: f"{r[2]} = {fn}({r[0]}, {r[1]}, {r[2]});")
    return lines


def _dot_lines(src: _Source, eqn, ins: list, out: _View) -> list[str]:
    # Compiled code calls `ndarray.dot` (compile.py `_direct_dot`), on
    # transposed views where the contracting axes ask for them; NumPy then
    # picks the BLAS call from the operands' layouts. The same choice is made
    # here on the operands' views: gemv for a matrix and a vector (row-major
    # if the matrix is C-contiguous, column-major if Fortran-contiguous; the
    # transposed form for a vector times a matrix), gemm for two matrices
    # (each transposed if Fortran-contiguous), a copy first for any other
    # layout. Shapes that take NumPy to its level-1 paths (a dimension of 1)
    # and its syrk case (a matrix times its own transpose) are left out.
    (lc, rc), (lb, _) = eqn.params["dimension_numbers"]
    lhs, rhs = ins
    if not lc and not lb and len(lhs.shape) <= 2 and len(rhs.shape) <= 2:
        return outer_lines(src, lhs, rhs, out)  # the impl's np.multiply.outer (level1.py)
    if lb or len(lc) != 1 or len(lhs.shape) > 2 or len(rhs.shape) > 2:
        return _batched_dot_lines(src, eqn, ins, out)
    dtype = out.dtype
    if (lb or not lhs.dtype == rhs.dtype == dtype or dtype not in _C_TYPES or not _Blas.find()
            or eqn.params.get("preferred_element_type") not in (None, dtype)
            or len(lc) != 1 or len(lhs.shape) not in (1, 2) or len(rhs.shape) not in (1, 2)):
        raise _Unsupported("dot_general")
    a = _transposed(lhs) if lc[0] != len(lhs.shape) - 1 else lhs
    b = _transposed(rhs) if rc[0] != 0 else rhs
    if any(d < 2 for d in (*lhs.shape, *rhs.shape)) or len(a.shape) == len(b.shape) == 1:
        return rank_one_dot_lines(src, a, b, out)  # NumPy's paths for vectors (level1.py)
    lines: list[str] = []
    t = "s" if dtype == np.float32 else "d"
    isz = dtype.itemsize

    def usable(v, matrix: bool):
        # NumPy copies an operand with a zero stride; a matrix it cannot hand
        # to BLAS as one segment, too.
        if any(st == 0 for st in v.strides) or (matrix and _layout(v) is None):
            copy, more = _contiguous(src, _View(v.ptr, v.shape, v.strides, v.dtype), force=True)
            lines.extend(more)
            return copy
        return v

    def gemv(matrix, vector, trans: int) -> list[str]:
        matrix, vector = usable(matrix, True), usable(vector, False)
        order, ld = (101, matrix.shape[1]) if _layout(matrix) == "C" else (102, matrix.shape[0])
        fn = src.kernel(_Blas.fns[t + "gemv"])
        return lines + [(f"(({t}gemv_t){fn})({order}, {trans}, {matrix.shape[0]}, {matrix.shape[1]}, 1.0, "
                         f"{matrix.ptr}, {ld}, {vector.ptr}, {vector.strides[0] // isz}, 0.0, {out.ptr}, 1);")]

    if len(a.shape) == 2 and len(b.shape) == 1:
        return gemv(a, b, 111)  # matrix times vector
    if len(a.shape) == 1 and len(b.shape) == 2:
        return gemv(b, a, 112)  # vector times matrix: the matrix transposed
    if len(a.shape) == 2 and len(b.shape) == 2:
        a, b = usable(a, True), usable(b, True)
        if a.ptr == b.ptr and a.shape == b.shape[::-1] and a.strides == b.strides[::-1]:
            raise _Unsupported("a matrix times its own transpose (NumPy's syrk)")
        (m, k), n = a.shape, b.shape[1]
        trans_a, lda = (111, k) if _layout(a) == "C" else (112, m)
        trans_b, ldb = (111, n) if _layout(b) == "C" else (112, k)
        fn = src.kernel(_Blas.fns[t + "gemm"])
        return lines + [(f"(({t}gemm_t){fn})(101, {trans_a}, {trans_b}, {m}, {n}, {k}, 1.0, {a.ptr}, {lda}, "
                        f"{b.ptr}, {ldb}, 0.0, {out.ptr}, {n});")]
    raise _Unsupported("dot_general of two vectors")


def _batched_dot_lines(src: _Source, eqn, ins: list, out: _View) -> list[str]:
    # The impl's general case (impls/standard.py `_dot_general`): the
    # operands transposed to (batch, free, contracting) and (batch,
    # contracting, free), reshaped to three axes (a view where NumPy's
    # reshape makes one, else a C-ordered copy) and multiplied by np.matmul,
    # whose loop makes one gemm a batch entry with the transposes and leading
    # dimensions it reads off each entry's strides. Entries NumPy would not
    # hand to BLAS (its own loop, its vector paths, syrk) are left out.
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    lhs, rhs = ins
    dtype = out.dtype
    if (not lhs.dtype == rhs.dtype == dtype or dtype not in _C_TYPES or not _Blas.find()
            or eqn.params.get("preferred_element_type") not in (None, dtype)):
        raise _Unsupported("dot_general")
    lfree = [d for d in range(len(lhs.shape)) if d not in lc and d not in lb]
    rfree = [d for d in range(len(rhs.shape)) if d not in rc and d not in rb]
    batch = math.prod(lhs.shape[d] for d in lb)
    m, k, n = (math.prod(lhs.shape[d] for d in lfree), math.prod(lhs.shape[d] for d in lc),
               math.prod(rhs.shape[d] for d in rfree))
    if batch < 1 or min(m, k, n) < 2:
        raise _Unsupported("dot_general with a dimension of 1")
    lines: list[str] = []
    a = _three_axes(src, lhs, [*lb, *lfree, *lc], (batch, m, k), lines)
    b = _three_axes(src, rhs, [*rb, *rc, *rfree], (batch, k, n), lines)
    isz = dtype.itemsize

    def blas(v: _View, rows: int, cols: int) -> tuple[int, int]:
        # NumPy's is_blasable2d, row-major first: (transpose flag, leading dimension).
        s0, s1 = v.strides[1], v.strides[2]
        if s1 == isz and s0 % isz == 0 and s0 // isz >= cols:
            return 111, s0 // isz
        if s0 == isz and s1 % isz == 0 and s1 // isz >= rows:
            return 112, s1 // isz
        raise _Unsupported("dot_general of operands BLAS cannot read (NumPy's own loop)")

    (trans_a, lda), (trans_b, ldb) = blas(a, m, k), blas(b, k, n)
    if a.ptr == b.ptr and a.strides[0] == b.strides[0] and m == n and a.strides[1:] == b.strides[:0:-1]:
        raise _Unsupported("a matrix times its own transpose (NumPy's syrk)")
    t = "s" if dtype == np.float32 else "d"
    fn = src.kernel(_Blas.fns[t + "gemm"])
    i = src.index()
    return lines + [f"for (intptr_t {i} = 0; {i} < {batch}; {i}++) "
                    f"(({t}gemm_t){fn})(101, {trans_a}, {trans_b}, {m}, {n}, {k}, 1.0, {a.ptr} + {i} * {a.strides[0]}, "
                    f"{lda}, {b.ptr} + {i} * {b.strides[0]}, {ldb}, 0.0, {out.ptr} + {i} * {m * n * isz}, {n});"]


def _three_axes(src: _Source, v: _View, perm: list, shape: tuple, lines: list) -> _View:
    v = _View(v.ptr, [v.shape[p] for p in perm], [v.strides[p] for p in perm], v.dtype)
    return reshaped(src, v, shape, lines)


def reshaped(src: _Source, v: _View, shape: tuple, lines: list) -> _View:
    """`v` reshaped as np.reshape does it: a view when the strides allow
    one, else a copy in C order (its lines appended to `lines`)."""
    strides = _reshape_strides(v.shape, v.strides, tuple(shape), v.dtype.itemsize)
    if strides is None:
        v, more = _contiguous(src, v, force=True)
        lines.extend(more)
        strides = _c_strides(tuple(shape), v.dtype.itemsize)
    return _View(v.ptr, shape, strides, v.dtype)


def _reshape_strides(shape: tuple, strides: tuple, new: tuple, itemsize: int) -> list | None:
    # NumPy's test for a reshape without a copy (C order): the old axes,
    # size-1 ones left out, and the new ones are matched in groups of equal
    # products; a group's old axes must be laid out one inside the other,
    # and its new axes get strides nested from the group's innermost one.
    old = [(d, st) for d, st in zip(shape, strides) if d != 1]
    dims, steps = [d for d, _ in old], [st for _, st in old]
    if math.prod(dims) != math.prod(new) or not all(new):
        return None
    out = [0] * len(new)
    oi, oj, ni, nj = 0, 1, 0, 1
    while ni < len(new) and oi < len(dims):
        np_, op = new[ni], dims[oi]
        while np_ != op:
            if np_ < op:
                np_ *= new[nj]
                nj += 1
            else:
                op *= dims[oj]
                oj += 1
        if any(steps[o] != dims[o + 1] * steps[o + 1] for o in range(oi, oj - 1)):
            return None
        out[nj - 1] = steps[oj - 1]
        for nk in range(nj - 1, ni, -1):
            out[nk - 1] = out[nk] * new[nk]
        ni, nj, oi, oj = nj, nj + 1, oj, oj + 1
    last = out[ni - 1] if ni >= 1 else itemsize
    for nk in range(ni, len(new)):
        out[nk] = last
    return out


def _transposed(v: _View) -> _View:
    if len(v.shape) != 2:
        raise _Unsupported("dot_general contracting a middle axis")
    return _View(v.ptr, v.shape[::-1], v.strides[::-1], v.dtype)


def _layout(v: _View) -> str | None:
    """'C' or 'F' for a matrix BLAS can read in place, else None."""
    isz = v.dtype.itemsize
    if v.strides == (v.shape[1] * isz, isz):
        return "C"
    if v.strides == (isz, v.shape[0] * isz):
        return "F"
    return None


def _clamp_lines(src: _Source, ins: list, out: _View, out_aval) -> list[str]:
    # The impl (impls/special.py): min(max(x, lo), hi) with max's and min's
    # rules. The max goes to its own scratch for floats: the min's zero
    # fix-up reads its operands after NumPy's min wrote the result.
    lo, x, hi = ins
    low = src.temp(out_aval) if out.dtype.kind == "f" else out
    return _minmax_lines(src, "max", x, lo, low) + _minmax_lines(src, "min", low, hi, out)


def _sign_lines(src: _Source, ins: list, out: _View) -> list[str]:
    # The impl: np.sign, then for floats np.copysign(that, x) (XLA keeps -0.0).
    lines = _ufunc_lines(src, *ufunc_loop(np.sign, (out.dtype,) * 2), ins, out)
    if out.dtype.kind == "f":
        lines += _ufunc_lines(src, *ufunc_loop(np.copysign, (out.dtype,) * 3), [out, ins[0]], out)
    return lines


def _update_slice_lines(src: _Source, ins: list, out: _View) -> list[str]:
    # The impl: a copy of the operand, the update written at clamped starts.
    x, update, starts = ins[0], ins[1], ins[2:]
    lines = _copy_lines(src, out, x)
    ptr = _window(src, out, starts, update.shape, lines)
    return lines + _copy_lines(src, _View(ptr, update.shape, out.strides, out.dtype), update)


def _scatter_row_lines(src: _Source, params: dict, ins: list, out: _View) -> list[str]:
    # x.at[i].set(v): one index into the leading axis, a whole row. The impl
    # (impls/slicing.py): a copy of the operand; the row written when the
    # index is in bounds (CLIP clamps it, the other modes drop it).
    x, index, update = ins
    lines = _copy_lines(src, out, x)
    rows = x.shape[0]
    i = f"w{src.index()}"
    lines.append(f"intptr_t {i} = {_index(index, rows)};")
    if str(params["mode"]).endswith("CLIP"):
        lines.append(f"if ({i} < 0) {i} = 0; if ({i} > {rows - 1}) {i} = {rows - 1};")
    row = _View(f"({out.ptr} + {i} * {out.strides[0]})", update.shape, out.strides[1:], out.dtype)
    lines.append(f"if ({i} >= 0 && {i} < {rows}) {{")
    lines += ["    " + line for line in _copy_lines(src, row, update)]
    lines.append("}")
    return lines


def _concatenate_lines(src: _Source, axis: int, ins: list, out: _View) -> list[str]:
    lines, offset = [], 0
    for v in ins:
        part = _View(f"({out.ptr} + {offset * out.strides[axis]})", v.shape, out.strides, out.dtype)
        lines += _copy_lines(src, part, v)
        offset += v.shape[axis]
    return lines


def _stack_lines(src: _Source, axis: int, ins: list, out: _View) -> list[str]:
    # The impl (impls/misc.py): np.stack, each operand copied to its index of the new axis.
    lines = []
    strides = out.strides[:axis] + out.strides[axis + 1:]
    for k, v in enumerate(ins):
        lines += _copy_lines(src, _View(f"({out.ptr} + {k * out.strides[axis]})", v.shape, strides, out.dtype), v)
    return lines


def _integer_pow_lines(src: _Source, y: int, ins: list, out: _View) -> list[str]:
    # The impl (impls/standard.py `_integer_pow`): for floats XLA's products
    # by repeated squaring (`power_by_squaring`, NumPy's multiply loop), for
    # integers np.power(x, |y|, dtype=x.dtype) (|y| cast to the dtype, as a
    # broadcast scalar); then np.reciprocal for y < 0.
    if out.size == 1 and out.dtype in _C_TYPES and out.dtype.kind == "f":
        # One value (a row's 1 / sum ** 2): the same products and division in line.
        return [f"{{ {_C_TYPES[out.dtype]} pj_x = *(const {_C_TYPES[out.dtype]} *){ins[0].ptr}; "
                f"*({_C_TYPES[out.dtype]} *){out.ptr} = {_squaring_expression('pj_x', abs(y), y < 0)}; }}"]
    if out.dtype.kind in "fc":
        lines = _squaring_lines(src, abs(y), ins[0], out)
    else:
        power = _View(src.literal(abs(y), out.dtype), (), (), out.dtype)
        lines = _ufunc_lines(src, *ufunc_loop(np.power, (out.dtype,) * 3), [ins[0], power], out)
    if y < 0:
        loop = ufunc_loop(np.reciprocal, (out.dtype,) * 2)
        if loop is None:
            raise _Unsupported("reciprocal loop")
        lines += _ufunc_lines(src, *loop, [out], out)
    return lines


def _squaring_expression(x: str, n: int, reciprocal: bool) -> str:
    # The impl's products as one C expression, in its order (each product
    # rounded: native code is built with -ffp-contract=off).
    acc = fma_impl.by_squaring(x, n, lambda a, b: f"({a} * {b})")
    return f"(1 / {acc})" if reciprocal else acc


def _squaring_lines(src: _Source, n: int, x: _View, out: _View) -> list[str]:
    loop = ufunc_loop(np.multiply, (out.dtype,) * 3)
    if loop is None:
        raise _Unsupported("multiply loop")
    lines: list[str] = []
    if x.shape != out.shape or not x.contiguous:
        x, lines = _contiguous(src, _View(x.ptr, out.shape, x.aligned(out.shape), x.dtype), force=True)
    aval = ShapedArray(out.shape, out.dtype)

    def multiply(a: _View, b: _View) -> _View:
        product = src.temp(aval)
        lines.extend(_ufunc_lines(src, *loop, [a, b], product))
        return product

    acc = fma_impl.by_squaring(x, n, multiply)
    return lines + _copy_lines(src, out, acc)
