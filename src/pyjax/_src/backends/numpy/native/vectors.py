"""The vector paths of native code, and reductions.

A NumPy kernel called on one short row spends much of its time in its own
prologue; a few operations have every result bit fixed by IEEE arithmetic,
so the C source computes them in line on GCC vector types, and hands what
IEEE leaves open (NaNs, zero extrema) back to NumPy's kernel on the spot.
Reductions call the ufunc's loop as `ufunc.reduce` does, with in-line
sums in NumPy's own pairwise order once checked against NumPy's kernel.
"""

from __future__ import annotations

import ctypes
import re

import numpy as np

from pyjax._src.jaxpr import Literal
from pyjax._src.backends.numpy.codegen import kernels
from pyjax._src.backends.numpy.native.csource import _C_TYPES, ZERO_EXTREMUM, _Source, _Unsupported, _View, _ufunc_lines
from pyjax._src.backends.numpy.native.discovery import ufunc_loop
from pyjax._src.backends.numpy.native.tiering import log as _log

def _reduce_lines(src: _Source, ufunc, x: _View, axes: tuple, out: _View, vector: bool = True) -> list[str]:
    # NumPy's calls of the ufunc's loop for `ufunc.reduce` on a C-contiguous
    # array, as measured bitwise (signed zeros and NaNs included): the
    # accumulator starts at the identity when the ufunc has one (add: +0.0,
    # so -0.0 sums to +0.0) and takes every element, else it starts at the
    # first element and takes the rest. Reducing the last axis, or every
    # axis, is one call in reduce form (stride 0 on the accumulator) per
    # result: the loop's own pairwise sum over the row. Reducing the leading
    # axis is one elementwise call per row, in row order.
    if not x.contiguous or x.size == 0 or out.dtype != x.dtype or not x.shape:
        raise _Unsupported("a reduction of this layout")
    loop = ufunc_loop(ufunc, (x.dtype,) * 3)
    if loop is None:
        raise _Unsupported(f"no {ufunc.__name__} loop for {x.dtype}")
    call = f"((loop_t){src.kernel(loop[0])})(args, n, st, {src.kernel(loop[1])});"
    # The impl (impls.py `_zero_extremum`) orders a float max/min's zeros as
    # XLA does (-0.0 below +0.0); NumPy's kernel keeps the first zero it met.
    zero_order = None
    if ufunc in (np.maximum, np.minimum) and x.dtype.kind in "fV":
        if x.dtype not in _C_TYPES:
            raise _Unsupported(f"a {ufunc.__name__} reduction of {x.dtype}")
        zero_order = ZERO_EXTREMUM["max" if ufunc is np.maximum else "min"].format
    isz, ndim = x.dtype.itemsize, len(x.shape)
    identity = src.literal(ufunc.identity, x.dtype) if ufunc.identity is not None else None
    if axes == tuple(range(ndim)) or axes == (ndim - 1,):
        rows, n = (1, x.size) if len(axes) == ndim else (out.size, x.shape[-1])
        first = (f"memcpy(acc, {identity}, {isz});", n, 0) if identity else (f"memcpy(acc, row, {isz});", n - 1, isz)
        kernel = (f"{first[0]} char *args[] = {{acc, row + {first[2]}, acc}}; static const intptr_t n[] = "
                  f"{{{first[1]}}}; static const intptr_t st[] = {{0, {isz}, 0}}; {call}")
        fast = _vector_reduction(src, ufunc, x.dtype) if vector else None
        if fast is not None:
            prepare = f"memcpy(acc, {identity}, {isz}); " if identity else ""
            kernel = f"{prepare}if ({fast}(row, {n}, acc)) {{ {kernel} }}"
        if zero_order:  # a zero result: fold the row's zeros in XLA's order
            ctype = _C_TYPES[x.dtype]
            kernel += (f" if (*({ctype} *)acc == 0) {{ const {ctype} *v = (const {ctype} *)row; for (intptr_t k = 0; "
                       f"k < {n}; k++) if (v[k] == 0) {{ {ctype} *pj_m = ({ctype} *)acc; *pj_m = {zero_order('*pj_m', 'v[k]')}; }} }}")
        return [(f"for (intptr_t r = 0; r < {rows}; r++) {{ char *acc = {out.ptr} + r * {isz}, *row = {x.ptr} + r * "
                 f"{n * isz}; {kernel} }}")]
    if axes == (0,) and ndim >= 2:
        rows, width = x.shape[0], x.size // x.shape[0]
        nbytes = width * isz
        if identity:
            init = [f"for (intptr_t j = 0; j < {width}; j++) memcpy({out.ptr} + j * {isz}, {identity}, {isz});"]
            start = 0
        else:
            init, start = [f"memcpy({out.ptr}, {x.ptr}, {nbytes});"], 1
        lines = init + [(f"for (intptr_t r = {start}; r < {rows}; r++) {{ char *args[] = {{{out.ptr}, {x.ptr} + r * "
                        f"{nbytes}, {out.ptr}}}; static const intptr_t n[] = {{{width}}}; static const intptr_t "
                        f"st[] = {{{isz}, {isz}, {isz}}}; {call} }}")]
        if zero_order:
            ctype = _C_TYPES[x.dtype]
            # (`pj_m`: the arguments' array is `a`.)
            lines.append(f"for (intptr_t j = 0; j < {width}; j++) {{ {ctype} *pj_m = ({ctype} *){out.ptr} + j; if "
                         f"(*pj_m == 0) for (intptr_t r = 0; r < {rows}; r++) {{ {ctype} v = (({ctype} *){x.ptr})"
                         f"[r * {width} + j]; if (v == 0) *pj_m = {zero_order('*pj_m', 'v')}; }} }}")
        return lines
    raise _Unsupported(f"a reduction over axes {axes}")


# ---------------------------------------------------------------------------
# Vector paths
#
# A NumPy kernel called on one short row spends much of its time in its own
# prologue (a softmax row of 512 floats: ~40 ns a call). A few operations
# have every result bit fixed by IEEE arithmetic, so the C source computes
# them in line, on GCC vector types as wide as the build machine's widest
# registers: float add, subtract, multiply and divide; a float max or min
# over a row; a float sum over a row in NumPy's own pairwise order (NumPy's
# loops_utils.h: eight accumulators, halves cut at multiples of eight;
# checked against NumPy's kernel once per process, see `_enable_sums`).
# What IEEE leaves open goes to NumPy's kernel on the spot, so the bits are
# NumPy's in every case: a NaN anywhere in a result (its sign and payload
# follow the operand order a compiler picks) and a max or min of zero
# (which zero depends on the order of comparisons). So does everything when
# the build has no wide vectors (x86-64 without -march=native has only
# SSE2; NumPy's kernels pick AVX2 or AVX-512 at run time, and win) or is
# not optimized (a long straight-line program built at -O0).

_VECTOR_OPS = {np.add: ("+", "add"), np.subtract: ("-", "sub"), np.multiply: ("*", "mul"),
               np.true_divide: ("/", "div")}
# dtype -> (C type, name suffix)
_VECTOR_TYPES = {np.dtype(np.float32): ("float", "f32"), np.dtype(np.float64): ("double", "f64")}

_VECTOR_PRELUDE = """\
#if defined(__GNUC__) && defined(__OPTIMIZE__) && (defined(__AVX2__) || defined(__ARM_NEON))
#define PJ_VEC 1
#if defined(__AVX512F__)
#define PJ_BYTES 64
#elif defined(__AVX2__)
#define PJ_BYTES 32
#else
#define PJ_BYTES 16
#endif
typedef float pj_f32v __attribute__((vector_size(PJ_BYTES)));
typedef int32_t pj_f32m __attribute__((vector_size(PJ_BYTES)));
typedef double pj_f64v __attribute__((vector_size(PJ_BYTES)));
typedef int64_t pj_f64m __attribute__((vector_size(PJ_BYTES)));
typedef float pj_f32p __attribute__((vector_size(32)));
typedef double pj_f64p __attribute__((vector_size(64)));
#define PJ_f32_LANES (PJ_BYTES / 4)
#define PJ_f64_LANES (PJ_BYTES / 8)
#endif"""


_PRIVATE = re.compile(r"[\s()+\-\d]*(?:s|\(char \*\)lit\d+)[\s()+\-\d]*")


def _private(v: _View) -> bool:
    # Whether the view lies in the program's scratch (`s`) or its static
    # literals: memory no argument can share.
    return _PRIVATE.fullmatch(v.ptr) is not None


def _or_kernel(fast: str | None, kernel: list[str]) -> list[str]:
    # `kernel` alone, or run only when the vector path's call `fast` says so.
    if fast is None:
        return kernel
    return [f"if ({fast}) {{", *("    " + line for line in kernel), "}"]


def _vector_binary(src: _Source, ufunc, ins: list, out: _View) -> str | None:
    """The C call computing `out = ufunc(*ins)` in line (nonzero when NumPy's
    kernel must then compute it), or None when this op has no vector path:
    float operands of the result's dtype, each contiguous with the result's
    shape or a single element, none of them the result itself."""
    layout = _vector_layout(ufunc, ins, out)
    if layout is None:
        return None
    name = f"pj_{_VECTOR_OPS[ufunc][1]}_{_VECTOR_TYPES[out.dtype][1]}_{layout}"
    if name not in src.helpers:
        src.helpers[name] = _binary_source(name, _VECTOR_OPS[ufunc][0], layout, out.dtype)
    return f"{name}({out.ptr}, {ins[0].ptr}, {ins[1].ptr}, {out.size})"


def _vector_layout(ufunc, ins: list, out: _View) -> str | None:
    # "v" (a row) or "s" (a single value) per operand, where the op has a
    # vector path (see `_vector_binary`); else None.
    if (ufunc not in _VECTOR_OPS or out.dtype not in _VECTOR_TYPES or len(ins) != 2 or not out.contiguous
            or any(v.dtype != out.dtype or v.ptr == out.ptr or not (v.size == 1 or (v.shape == out.shape
                                                                                   and v.contiguous))
                   for v in ins)):
        return None
    return "".join("s" if v.size == 1 else "v" for v in ins)


def _binary_source(name: str, op: str, layout: str, dtype, cmp: str | None = None) -> str:
    # `z = x0 op x1` over n elements, each operand a row ("v") or a scalar
    # ("s"): 1 when a result is NaN (then NumPy's kernel must compute it).
    # With `cmp` (">" for a max, "<" a min) the pass also keeps the extreme
    # result and writes it to *acc: 3 when a result is NaN (the kernel then
    # computes both), 2 when only the extreme is (a zero).
    ctype, suffix = _VECTOR_TYPES[dtype]
    lanes = f"PJ_{suffix}_LANES"

    def operand(k, vector):
        return f"y{k}" if layout[k] == "s" else f"u{k}" if vector else f"x{k}[i]"

    decls = "; ".join(f"const {ctype} y{k} = *(const {ctype} *)p{k}" if c == "s" else
                      f"const {ctype} *x{k} = (const {ctype} *)p{k}" for k, c in enumerate(layout))
    loads = " ".join(f"pj_{suffix}v u{k}; memcpy(&u{k}, x{k} + i, sizeof u{k});" for k, c in enumerate(layout)
                     if c == "v")
    vector_r = f"{loads} pj_{suffix}v r = {operand(0, True)} {op} {operand(1, True)};"
    scalar_r = f"{ctype} r = {operand(0, False)} {op} {operand(1, False)};"
    if cmp is None:
        if layout == "ss":  # two scalars: plain C beats a kernel call on any machine
            vector = ""
        else:
            vector = f"""
#ifndef PJ_VEC
    return 1;
#else
    pj_{suffix}m bad = {{0}};
    for (; i + {lanes} <= n; i += {lanes}) {{
        {vector_r}
        bad |= r != r; memcpy(z + i, &r, sizeof r);
    }}
    for (int j = 0; j < {lanes}; j++) nan |= bad[j] != 0;
#endif"""
        return f"""\
static int {name}(char *o, const char *p0, const char *p1, intptr_t n) {{
    {ctype} *z = ({ctype} *)o; {decls};
    intptr_t i = 0; int nan = 0;{vector}
    for (; i < n; i++) {{ {scalar_r} nan |= r != r; z[i] = r; }}
    return nan;
}}"""
    return f"""\
static int {name}(char *o, const char *p0, const char *p1, intptr_t n, char *acc) {{
#ifndef PJ_VEC
    return 3;
#else
    {ctype} *z = ({ctype} *)o; {decls};
    intptr_t i = 0; int nan = 0;
    if (n < {lanes}) return 3;
    pj_{suffix}m bad = {{0}}, take; pj_{suffix}v best, best2;
    {{ {vector_r} best = best2 = r; }}
    for (; i + {lanes} <= n; i += {lanes}) {{
        {vector_r}
        bad |= r != r; memcpy(z + i, &r, sizeof r);
        {_keep_extremum("best", cmp, suffix)}
        if (i + 2 * {lanes} > n) continue; i += {lanes};
        {{ {vector_r} bad |= r != r; memcpy(z + i, &r, sizeof r); {_keep_extremum("best2", cmp, suffix)} }}
    }}
    {_keep_extremum("best", cmp, suffix, "best2")}
    {ctype} m = best[0];
    for (int j = 0; j < {lanes}; j++) {{ nan |= bad[j] != 0; m = best[j] {cmp} m ? best[j] : m; }}
    for (; i < n; i++) {{ {scalar_r} nan |= r != r; z[i] = r; m = r {cmp} m ? r : m; }}
    if (nan) return 3;
    if (m == 0) return 2;
    *({ctype} *)acc = m;
    return 0;
#endif
}}"""


def _keep_extremum(best: str, cmp: str, suffix: str, value: str = "r") -> str:
    # `best` = `value` where `value` is beyond it, lane by lane. A max (min)
    # is the same whatever the order its values are met in, but for NaNs
    # and zeros, which the callers hand to NumPy's kernel: the rows keep two
    # running extrema, each a chain of compares half as long.
    mask = f"pj_{suffix}m"
    return (f"take = {value} {cmp} {best}; "
            f"{best} = (pj_{suffix}v)((take & ({mask}){value}) | (~take & ({mask}){best}));")


def _vector_reduction(src: _Source, ufunc, dtype) -> str | None:
    """A C expression `f(row, n, acc)` reducing a contiguous row into `*acc`
    in line (the sum starting from `*acc`), nonzero when NumPy's kernel must
    then do it; or None."""
    types = _VECTOR_TYPES.get(dtype)
    if types is None:
        return None
    ctype, suffix = types
    lanes = f"PJ_{suffix}_LANES"
    if ufunc in (np.maximum, np.minimum):
        word, cmp = ("max", ">") if ufunc is np.maximum else ("min", "<")
        name = f"pj_{word}_{suffix}"
        src.helpers.setdefault(name, f"""\
static int {name}(const char *p, intptr_t n, char *acc) {{
#ifndef PJ_VEC
    return 1;
#else
    const {ctype} *x = (const {ctype} *)p;
    {ctype} m = x[0]; int bad = m != m; intptr_t i = 1;
    if (n >= 2 * {lanes}) {{
        pj_{suffix}v best, best2, v; pj_{suffix}m nan, take;
        memcpy(&best, x, sizeof best); nan = best != best; best2 = best;
        for (i = {lanes}; i + {lanes} <= n; i += {lanes}) {{
            memcpy(&v, x + i, sizeof v); nan |= v != v;
            {_keep_extremum("best", cmp, suffix, "v")}
            if (i + 2 * {lanes} > n) continue; i += {lanes};
            memcpy(&v, x + i, sizeof v); nan |= v != v; {_keep_extremum("best2", cmp, suffix, "v")}
        }}
        {_keep_extremum("best", cmp, suffix, "best2")}
        for (int j = 0; j < {lanes}; j++) {{ bad |= nan[j] != 0; m = best[j] {cmp} m ? best[j] : m; }}
    }}
    for (; i < n; i++) {{ {ctype} v = x[i]; bad |= v != v; m = v {cmp} m ? v : m; }}
    if (bad || m == 0) return 1;
    *({ctype} *)acc = m;
    return 0;
#endif
}}""")
        return name
    if ufunc is np.add:
        src.helpers.setdefault(f"pj_sum_{suffix}", _pairwise_source(dtype))
        return f"pj_sum_{suffix}"
    return None


def _first_readers(eqns: list) -> dict:
    # Each variable -> the index of the first equation reading it.
    first: dict = {}
    for j, eqn in enumerate(eqns):
        for v in eqn.invars:
            if type(v) is not Literal and v not in first:
                first[v] = j
    return first


def _fused_extremum(src: _Source, eqn, nxt, ins: list, impls: dict, step: list) -> tuple | None:
    """`eqn`, a vector-path op, and `nxt`, the max or min of its whole result
    (a row), in one pass: (the op's view, the extremum's view), or None."""
    impl, reducer_impl = kernels.backend_impl(impls, eqn.primitive), kernels.backend_impl(impls, nxt.primitive)
    if (eqn.effects or nxt.effects or impl is None or reducer_impl is None
            or len(eqn.outvars) != 1 or nxt.invars[0] is not eqn.outvars[0]):
        return None
    reducer = getattr(reducer_impl, "reduce_ufunc", None)
    ufunc = kernels.ufunc_of(eqn, impl, True)
    t_aval, m_aval = eqn.outvars[0].aval, nxt.outvars[0].aval
    ndim, axes = len(t_aval.shape), tuple(nxt.params.get("axes", ()))
    if (reducer not in (np.maximum, np.minimum) or ufunc not in _VECTOR_OPS or m_aval.dtype != t_aval.dtype
            or m_aval.size != 1 or t_aval.size < 2 or not (axes == tuple(range(ndim)) or axes == (ndim - 1,))):
        return None
    loop = ufunc_loop(ufunc, tuple(v.dtype for v in ins) + (t_aval.dtype,))
    out = src.temp(t_aval)
    layout = _vector_layout(ufunc, ins, out)
    if loop is None or layout is None:
        return None
    extremum = src.temp(m_aval)
    word, cmp = ("max", ">") if reducer is np.maximum else ("min", "<")
    (op, op_word), suffix = _VECTOR_OPS[ufunc], _VECTOR_TYPES[t_aval.dtype][1]
    name = f"pj_{op_word}_{suffix}_{layout}_{word}"
    if name not in src.helpers:
        src.helpers[name] = _binary_source(name, op, layout, t_aval.dtype, cmp)
    step.append(f"{{ int fused = {name}({out.ptr}, {ins[0].ptr}, {ins[1].ptr}, {out.size}, {extremum.ptr});")
    step += ["    if (fused & 1) {", *("        " + line for line in _ufunc_lines(src, *loop, ins, out)), "    }"]
    step += ["    if (fused) {", *("        " + line for line in _reduce_lines(src, reducer, out, axes, extremum,
                                                                             vector=False)), "    }", "}"]
    return out, extremum


def _pairwise_source(dtype) -> str:
    # NumPy's pairwise sum of a contiguous row. pj_sum_* adds it to *acc once
    # `pyjax_sums_*(1)` said it is NumPy's (`_enable_sums`, after
    # `pyjax_sums_agree_*` compared it with NumPy's kernel).
    # Rows of 136 to 512 that NumPy cuts into two or four equal blocks of at
    # most 128 (attention's 512) sum their blocks side by side: the same
    # additions, in independent chains the core overlaps.
    ctype, suffix = _VECTOR_TYPES[dtype]
    return f"""\
#ifdef PJ_VEC
static inline {ctype} pj_fold_{suffix}(pj_{suffix}p r) {{ return ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7])); }}
static {ctype} pj_psum_blocks_{suffix}(const {ctype} *x, intptr_t n, int k) {{  /* k = 2 or 4 blocks of n / k */
    intptr_t q = n / k; pj_{suffix}p r[4], u; for (int b = 0; b < k; b++) memcpy(&r[b], x + b * q, sizeof u);
    for (intptr_t i = 8; i < q; i += 8) for (int b = 0; b < k; b++) {{ memcpy(&u, x + b * q + i, sizeof u); r[b] += u; }}
    {ctype} lo = pj_fold_{suffix}(r[0]) + pj_fold_{suffix}(r[1]);
    return k == 2 ? lo : lo + (pj_fold_{suffix}(r[2]) + pj_fold_{suffix}(r[3]));
}}
#endif
static {ctype} pj_psum_{suffix}(const {ctype} *x, intptr_t n) {{
    if (n < 8) {{ {ctype} res = 0; for (intptr_t i = 0; i < n; i++) res += x[i]; return res; }}
#ifdef PJ_VEC
    if (n > 128 && n <= 512 && n % (n > 256 ? 32 : 16) == 0) return pj_psum_blocks_{suffix}(x, n, n > 256 ? 4 : 2);
#endif
    if (n <= 128) {{
        intptr_t i, end = n - n % 8;
#ifdef PJ_VEC
        pj_{suffix}p r, u; memcpy(&r, x, sizeof r);
        for (i = 8; i < end; i += 8) {{ memcpy(&u, x + i, sizeof u); r += u; }}
#else
        {ctype} r[8]; for (int j = 0; j < 8; j++) r[j] = x[j];
        for (i = 8; i < end; i += 8) for (int j = 0; j < 8; j++) r[j] += x[i + j];
#endif
        {ctype} res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++) res += x[i];
        return res;
    }}
    intptr_t half = n / 2; half -= half % 8;
    return pj_psum_{suffix}(x, half) + pj_psum_{suffix}(x + half, n - half);
}}
static int pj_sums_{suffix};
void pyjax_sums_{suffix}(int on) {{ pj_sums_{suffix} = on; }}
static int pj_sum_{suffix}(const char *p, intptr_t n, char *acc) {{
#ifndef PJ_VEC
    return 1;
#else
    if (!pj_sums_{suffix}) return 1;
    {ctype} r = *({ctype} *)acc + pj_psum_{suffix}((const {ctype} *)p, n);
    if (r != r) return 1;
    *({ctype} *)acc = r;
    return 0;
#endif
}}
int pyjax_sums_agree_{suffix}(void *kernel, void *data, const char *values) {{
    /* pj_psum against NumPy's add kernel called as the code calls it: the
       accumulator at +0.0 (stride 0), then the row. */
    static const intptr_t lengths[] = {{{_CHECK_LENGTHS}}};
    for (size_t j = 0; j < sizeof lengths / sizeof lengths[0]; j++) {{
        intptr_t n = lengths[j], st[] = {{0, sizeof({ctype}), 0}};
        {ctype} mine = ({ctype})0 + pj_psum_{suffix}((const {ctype} *)values, n), theirs = 0;
        char *args[] = {{(char *)&theirs, (char *)values, (char *)&theirs}};
        ((void (*)(char **, const intptr_t *, const intptr_t *, void *))kernel)(args, &n, st, data);
        if (memcmp(&mine, &theirs, sizeof mine)) return 0;
    }}
    return 1;
}}"""


_pairwise_checked: dict = {}  # dtype -> whether pj_psum is NumPy's sum


def _enable_sums(lib: ctypes.CDLL, source: str) -> None:
    """Turns on the in-line sums of a built library whose pairwise sum is
    NumPy's own, bit for bit, on this NumPy (tried once per process and
    dtype, on rows of many lengths, against NumPy's add kernel)."""
    for dtype, (_, suffix) in _VECTOR_TYPES.items():
        if f"void pyjax_sums_{suffix}(" not in source:
            continue
        if dtype not in _pairwise_checked:
            try:
                _pairwise_checked[dtype] = _same_sums(getattr(lib, f"pyjax_sums_agree_{suffix}"), dtype)
            except Exception as e:  # noqa: BLE001  (then sums call NumPy's kernel)
                _log(f"Native sums call NumPy's kernel: {e}", False)
                _pairwise_checked[dtype] = False
        getattr(lib, f"pyjax_sums_{suffix}")(ctypes.c_int(int(_pairwise_checked[dtype])))


def _same_sums(agree, dtype) -> bool:
    loop = ufunc_loop(np.add, (dtype,) * 3)
    if loop is None:
        return False
    # Values over eight decades, of both signs: the order of additions shows.
    rng = np.random.default_rng(0)
    values = (rng.standard_normal(_CHECK_VALUES) * 10.0 ** rng.uniform(-4, 4, _CHECK_VALUES)).astype(dtype)
    agree.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    agree.restype = ctypes.c_int
    return bool(agree(loop[0], loop[1], values.ctypes.data))


# The row lengths the in-line sum is checked on: every short one, and
# around NumPy's blocks of 8 and 128 and its halvings.
_CHECK_VALUES = 4099
_CHECK_LENGTHS = ", ".join(map(str, (*range(1, 40), 63, 64, 65, 127, 128, 129, 130, 136, 144, 160, 192, 240, 255,
                                     256, 257, 288, 320, 383, 384, 416, 448, 480, 511,
                                     512, 513, 1000, 1024, 1031, _CHECK_VALUES)))
