"""Equations -> C: a jaxpr's body written over views (`_body`), one equation
at a time (`_emit`, which asks codegen/kernels.py which kernel it calls,
as the Python code generator does), and the whole functions of a scan, a
while and a straight-line program.
"""

from __future__ import annotations


import numpy as np

from pyjax._src.jaxpr import DropVar, Jaxpr, Literal
from pyjax._src.backends.numpy.codegen import kernels
from pyjax._src.backends.numpy.native.csource import (
    _C_SCALARS, _C_TYPES, _Source, _Unsupported, _View, _c_strides, _contiguous, _contiguous_view, _copy_lines,
    _element_lines, _nbytes, _ufunc_lines,
)
from pyjax._src.backends.numpy.native.discovery import _Blas, ufunc_loop
from pyjax._src.backends.numpy.native.fused import fused_run
from pyjax._src.backends.numpy.native.lapack import LAPACK_OPS
from pyjax._src.backends.numpy.native.points import POINT_OPS, iota_lines
from pyjax._src.backends.numpy.native.keys import (
    KEY_OPS, SHIFTS, check_key_eqn, key_lines, key_view_params, physical, shift_lines,
)
from pyjax._src.backends.numpy.native.ops import (
    _VIEWS, _clamp_lines, _concatenate_lines, _conversion, _dot_lines, _fma_lines, _integer_pow_lines, _minmax_lines,
    _row_dot_lines, _scatter_row_lines, _sign_lines, _single_row_scatter, _stack_lines, _update_slice_lines, _window,
    reshaped,
)
from pyjax._src.backends.numpy.native import threads
from pyjax._src.backends.numpy.native.settings import _MAX_SCRATCH_BYTES, _MAX_VALUE_BYTES, MAX_CONST_BYTES

from pyjax._src.backends.numpy.native.special import erf_inv_lines
from pyjax._src.backends.numpy.native.vectors import (
    _VECTOR_PRELUDE, _first_readers, _fused_extremum, _or_kernel, _private, _reduce_lines, _vector_binary,
)

def _check_values(jaxprs) -> None:
    # Inputs only lend their addresses; the values computed (each its own
    # scratch) must be small.
    for jaxpr in jaxprs:
        for v in jaxpr.invars:
            if not isinstance(physical(v.aval).dtype, np.dtype):
                raise _Unsupported(f"value {v.aval}")
        for v in (*jaxpr.outvars, *(w for e in jaxpr.eqns for w in e.outvars)):
            aval = physical(v.aval)  # (keys inside: their uint32 words)
            if not isinstance(aval.dtype, np.dtype) or _nbytes(aval) > _MAX_VALUE_BYTES:
                raise _Unsupported(f"value {v.aval}")


def _body(src: _Source, jaxpr: Jaxpr, in_views: list, impls: dict,
          last_into: _View | None = None, fuse: bool = False) -> tuple[list[str], list]:
    """C lines computing `jaxpr` from `in_views`; the views of its outputs.
    `last_into`: where the last equation may write its result, when it is
    an elementwise NumPy call (which reads each element before writing it,
    so the place may even be one of its operands). `fuse` (a row loop's
    chunk): runs of exact elementwise equations are one loop (fused.py)."""
    views = dict(zip(jaxpr.invars, in_views, strict=True))

    def view(v) -> _View:
        if type(v) is Literal:
            return _View(src.literal(v.val, v.aval.dtype), (), (), v.aval.dtype)
        return views[v]

    lines: list[str] = []
    eqns = jaxpr.eqns
    last = eqns[-1] if eqns else None
    done: set = set()  # equations emitted early (by index)
    readers = _first_readers(eqns)
    if fuse:
        last_read = {v: k for k, e in enumerate(eqns) for v in e.invars if type(v) is not Literal}
        outputs = {v for v in jaxpr.outvars if type(v) is not Literal}

        def later(v, stop: int) -> bool:
            return v in outputs or last_read.get(v, -1) >= stop

        def emit_one(eqn, ins, step):
            return _emit(src, eqn, ins, impls, step)

    skip_to = 0
    for k, eqn in enumerate(eqns):
        if k in done or k < skip_to:
            continue
        run = fused_run(src, eqns, k, view, later, done, impls, emit_one) if fuse and eqn is not last else None
        if run is not None:
            run_lines, stored, skip_to = run
            lines += run_lines
            views.update(stored)
            continue
        # An op whose result's first reader takes its max or min: both in
        # one pass, now (the reduction's operand is ready, and it is pure).
        reader = readers.get(eqn.outvars[0]) if len(eqn.outvars) == 1 else None
        if reader is not None:
            fused = _fused_extremum(src, eqn, eqns[reader], [view(v) for v in eqn.invars], impls, lines)
            if fused is not None:
                views[eqn.outvars[0]], views[eqns[reader].outvars[0]] = fused
                done.add(reader)
                continue
        outs = _emit(src, eqn, [view(v) for v in eqn.invars], impls, lines, last_into if eqn is last else None)
        for v, out in zip(eqn.outvars, outs, strict=True):
            if type(v) is not DropVar:
                views[v] = out
    return lines, [view(v) for v in jaxpr.outvars]


def _next_carries(src: _Source, outs: list) -> list[str]:
    # Double-buffered: a carry may be another's old value.
    lines = []
    for j, v in enumerate(outs):
        dst = _View(f"nxt[{j}]", v.shape, _c_strides(v.shape, v.dtype.itemsize), v.dtype)
        lines += _copy_lines(src, dst, v)
    if outs:
        lines.append("for (int j = 0; j < NC; j++) { char *held = cur[j]; cur[j] = nxt[j]; nxt[j] = held; }")
    return lines


def _prelude(src: _Source) -> list[str]:
    """The includes, types, literals and helpers a function's source starts with."""
    blas = "int64_t" if _Blas.int64 else "int"
    return ["#include <math.h>", "#include <stdint.h>", "#include <string.h>",
            "typedef void (*loop_t)(char **, const intptr_t *, const intptr_t *, void *);",
            f"typedef {blas} blasint;",
            *(f"typedef void (*{p}gemv_t)(int, int, blasint, blasint, {t}, const void *, blasint, "
              f"const void *, blasint, {t}, void *, blasint);" for p, t in (("s", "float"), ("d", "double"))),
            *(f"typedef void (*{p}gemm_t)(int, int, int, blasint, blasint, blasint, {t}, const void *, "
              f"blasint, const void *, blasint, {t}, void *, blasint);" for p, t in (("s", "float"), ("d", "double"))),
            *src.statics,
            *((_VECTOR_PRELUDE, *src.helpers.values()) if src.helpers else ())]


def _program(src: _Source, carry_avals: list, init_at: int, out_at: int, loop: list[str]) -> str:
    """The C function: carries copied in from `a[init_at:]`, `loop`, and
    copied out to `a[out_at:]`."""
    lines = [*_prelude(src),
             f"#define NC {max(len(carry_avals), 1)}",
             "void pyjax_loop(char **a, void **k, char *s) {"]
    # Two banks for the carries, in scratch after the temporaries.
    banks = [(src.temp(aval).ptr, src.temp(aval).ptr) for aval in carry_avals]
    lines.append(f"    char *cur[NC] = {{{', '.join(b[0] for b in banks) or '0'}}};")
    lines.append(f"    char *nxt[NC] = {{{', '.join(b[1] for b in banks) or '0'}}};")
    for j, aval in enumerate(carry_avals):
        lines.append(f"    memcpy(cur[{j}], a[{init_at + j}], {_nbytes(aval)});")
    lines += ["    " + line for line in loop]
    for j, aval in enumerate(carry_avals):
        lines.append(f"    memcpy(a[{out_at + j}], cur[{j}], {_nbytes(aval)});")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _scan_source(body: Jaxpr, consts_n: int, carry_n: int, length: int, reverse: bool, impls: dict,
                 parallel: bool = False, tiles: dict | None = None, sums: int = 0, sum_rows: int = 1,
                 fuse: bool = False):
    """(C source, kernel pointers, scratch bytes) of the scan of `body`;
    raises _Unsupported. Arguments `a`: consts, initial carries, xs, final
    carries, ys, then `sums` column sums, then native_call.c's `Watch`: the
    loop reports the classes of its float inputs' values as it reads them
    (`_watch_lines`). `parallel` (a scan without carries
    or sums: a row loop) shares its steps among the cores (threads.py).

    A row loop's extras (rows.py): `tiles` maps a const's index to how many
    times its value repeats in the body's (a column spread over a chunk of
    rows), and the body's last `sums` outputs, `sum_rows` rows each, are
    not stored: their rows are added in order into column sums that start
    at +0, each column's running sum rounded after every row. `fuse`:
    runs of exact elementwise equations are one loop (fused.py)."""
    src = _Source()
    _check_values([body])
    invars, outvars = body.invars, body.outvars
    xs_n = len(invars) - consts_n - carry_n
    ys_n = len(outvars) - carry_n - sums
    tiles = tiles or {}
    prologue, const_views = [], []
    for j, v in enumerate(invars[:consts_n]):
        if j in tiles:
            # A column spread over the chunk's rows: copied once a call.
            view, piece = src.temp(v.aval), _nbytes(v.aval) // tiles[j]
            prologue.append(f"for (int64_t q = 0; q < {tiles[j]}; q++) memcpy({view.ptr} + q * {piece}, a[{j}], {piece});")
            const_views.append(view)
        else:
            const_views.append(_contiguous_view(f"a[{j}]", v.aval))
    in_views = (const_views
                + [_contiguous_view(f"cur[{j}]", v.aval) for j, v in enumerate(invars[consts_n:consts_n + carry_n])]
                + [_contiguous_view(f"x{j}", v.aval) for j, v in enumerate(invars[consts_n + carry_n:])])
    ys_at = consts_n + 2 * carry_n + xs_n
    rows = [_contiguous_view(f"(a[{ys_at + j}] + r * {_nbytes(v.aval)})", v.aval)
            for j, v in enumerate(outvars[carry_n:carry_n + ys_n])]
    # The body's last equation may write its y row in place (a row loop's
    # softmax: its final multiply), when that y is not also a carry.
    last = body.eqns[-1].outvars if body.eqns else []
    into = next((row for v, row in zip(outvars[carry_n:], rows) if len(last) == 1 and v is last[0]
                 and v not in outvars[:carry_n]), None)
    step, outs = _body(src, body, in_views, impls, into, fuse)
    # ys rows first: a y may be a carry's old value.
    for row, y in zip(rows, outs[carry_n:carry_n + ys_n], strict=True):
        if y is not row:
            step += _copy_lines(src, row, y)
    for j, x in enumerate(outs[carry_n + ys_n:]):
        prologue.append(f"memset(a[{ys_at + ys_n + j}], 0, {x.size // sum_rows * x.dtype.itemsize});")
        step += _column_sum_lines(src, x, sum_rows, f"a[{ys_at + ys_n + j}]")
    step += _next_carries(src, outs[:carry_n])
    xs = [f"char *x{j} = a[{consts_n + carry_n + j}] + r * {_nbytes(v.aval)};"
          for j, v in enumerate(invars[consts_n + carry_n:])]
    watch_at = consts_n + 2 * carry_n + xs_n + ys_n + sums
    whole = [(f"a[{j}]", v.aval) for j, v in enumerate(invars[:consts_n + carry_n])]
    per_row = [(f"x{j}", v.aval) for j, v in enumerate(invars[consts_n + carry_n:])]
    # The xs are scanned a block of rows at a time (a row of 16 features is
    # not worth a call), each block just before the loop reads it; a
    # reversed scan's, a step at a time.
    block = 1 if reverse else max(1, _WATCH_BLOCK // max(1, max((aval.size for _, aval in per_row), default=1)))
    start, scan_rows, end = _watch_lines(watch_at, per_row, block)
    scan_whole = _watch_lines(watch_at, whole)[1]
    src.statics.append(_WATCH_TYPEDEF)
    if parallel and not carry_n and not sums:
        elements = max(v.aval.size for v in (*invars[consts_n:], *outvars))
        source = _parallel_rows(src, length, elements, ["int64_t r = t;", *xs, *scan_rows, *step],
                                [*start, *prologue], end, [*start, *scan_whole, *end] if scan_whole else [])
        return source, src.kernels, src.scratch
    loop = [*prologue, *start, *scan_whole, f"const int64_t lo = 0, hi = {length};",
            f"for (int64_t t = 0; t < {length}; t++) {{",
            f"    int64_t r = {f'{length - 1} - t' if reverse else 't'};",
            *("    " + line for line in (*xs, *scan_rows, *step)),
            "}", *end]
    carry_avals = [v.aval for v in invars[consts_n:consts_n + carry_n]]
    source = _program(src, carry_avals, consts_n, consts_n + carry_n + xs_n, loop)
    return source, src.kernels, src.scratch


# native_call.c's `Watch`, the last argument of a scan's or a row loop's
# function.
_WATCH_TYPEDEF = ("typedef struct { unsigned want, seen; unsigned (*f16)(const void *, intptr_t, unsigned), "
                  "(*f32)(const void *, intptr_t, unsigned), (*f64)(const void *, intptr_t, unsigned); } pj_watch_t;")
_SCANNERS = {np.dtype(np.float16): "f16", np.dtype(np.float32): "f32", np.dtype(np.float64): "f64"}
# The elements of a row input scanned at a time (16 KB of float32: in L1
# still when the loop reads them).
_WATCH_BLOCK = 4096


def _watch_lines(at: int, values: list, block: int = 1) -> tuple[list[str], list[str], list[str]]:
    """(the lines that start a loop's, or a chunk's, report of the classes of
    its inputs' values; those that scan `values`, (pointer, aval) pairs:
    values read whole, or with `block` > 1 a row's, then scanned for the
    next `block` rows of the chunk `[lo, hi)` at every `block`-th row `t`,
    each pass over a few KB just before the loop reads them; those that
    hand the classes seen to the caller's `Watch`, `a[at]`). NumPy's float
    types only, as native_call.c scans them."""
    start = [f"pj_watch_t *const pj_w = (pj_watch_t *)a[{at}];",
             "const unsigned pj_want = pj_w->want;",
             "unsigned pj_seen = 0;"]
    count = f"pj_rows * {{}}" if block > 1 else "{}"
    scans = [f"pj_seen |= pj_w->{_SCANNERS[aval.dtype]}({ptr}, {count.format(aval.size)}, pj_want);"
             for ptr, aval in values if aval.dtype in _SCANNERS and aval.size]
    if scans and block > 1:
        scans.insert(0, f"const int64_t pj_rows = hi - t < {block} ? hi - t : {block};")
    when = f" && (t - lo) % {block} == 0" if block > 1 else ""
    scan = [f"if (pj_want{when}) {{ {' '.join(scans)} }}"] if scans else []
    end = ["if (pj_seen) __atomic_fetch_or(&pj_w->seen, pj_seen, __ATOMIC_RELAXED);"]
    return start, scan, end


def _column_sum_lines(src: _Source, x: _View, rows: int, out: str) -> list[str]:
    """C lines adding the `rows` rows of `x` in order into the column sums
    at `out` (the impl's `np.einsum("ij->j")` order, as native/colsums.py's
    kernel adds them; that kernel starts its sums at +0 each call, these go
    on from the chunk before)."""
    if x.dtype not in _C_TYPES:
        raise _Unsupported(f"a column sum of {x.dtype}")
    x, lines = _contiguous(src, x)
    ctype, cols = _C_TYPES[x.dtype], x.size // rows
    lines = [*lines,
             f"{{ {ctype} *restrict pj_acc = ({ctype} *){out}; const {ctype} *restrict pj_x = (const {ctype} *){x.ptr};",
             f"  for (int64_t q = 0; q < {rows}; q++, pj_x += {cols})",
             f"    for (int64_t c = 0; c < {cols}; c++) pj_acc[c] += pj_x[c]; }}"]
    return lines


# A parallel row loop's chunks hold at least this many elements (a hand-off
# to a worker costs about as much as a few thousand elements' work).
_CHUNK_ELEMENTS = 1 << 14


def _parallel_rows(src: _Source, length: int, elements: int, step: list[str], prologue: list[str] = (),
                   epilogue: list[str] = (), once: list[str] = ()) -> str:
    """The C function of a row loop (`step`: one row `t`'s lines, after
    `prologue` and before `epilogue` in each chunk) whose rows the runtime
    of threads.py shares among the cores, each thread with its own scratch;
    on one thread when the runtime is not there. `once`: lines before the
    chunks, in a block of their own."""
    slots = threads.slots()
    run = src.kernel(threads.address())
    slot_bytes = -(-max(src.scratch, 1) // 64) * 64
    if slot_bytes * slots > _MAX_SCRATCH_BYTES:
        raise _Unsupported("more scratch than a native program may take")
    src.scratch = slot_bytes * slots
    chunk = threads.chunk(length, least=-(-_CHUNK_ELEMENTS // max(elements, 1)))
    lines = [*_prelude(src), threads.PARALLEL_FOR_TYPEDEF,
             "struct pj_rows { char **a; void **k; char *s; };",
             "static void pyjax_rows(void *c, int64_t lo, int64_t hi, int slot) {",
             "    char **a = ((struct pj_rows *)c)->a;",
             "    void **k = ((struct pj_rows *)c)->k;",
             f"    char *s = ((struct pj_rows *)c)->s + (int64_t)slot * {slot_bytes};",
             "    (void)a; (void)k; (void)s;",
             *("    " + line for line in prologue),
             "    for (int64_t t = lo; t < hi; t++) {",
             *("        " + line for line in step),
             "    }",
             *("    " + line for line in epilogue),
             "}",
             "void pyjax_loop(char **a, void **k, char *s) {",
             "    struct pj_rows c = {a, k, s};",
             *(("    {", *("        " + line for line in once), "    }") if once else ()),
             f"    if ({run}) ((pyjax_parallel_for_t){run})(pyjax_rows, &c, {length}, {chunk});",
             f"    else pyjax_rows(&c, 0, {length}, 0);",
             "}"]
    return "\n".join(lines) + "\n"


def _while_source(cond: Jaxpr, body: Jaxpr, cond_n: int, body_n: int, impls: dict):
    """(C source, kernel pointers, scratch bytes) of a while loop; raises
    _Unsupported. Arguments `a`: cond consts, body consts, initial carries,
    final carries."""
    src = _Source()
    _check_values([cond, body])
    carry_avals = [v.aval for v in body.invars[body_n:]]
    carries = [_contiguous_view(f"cur[{j}]", a) for j, a in enumerate(carry_avals)]
    cond_lines, (pred,) = _body(src, cond, [_contiguous_view(f"a[{j}]", v.aval)
                                            for j, v in enumerate(cond.invars[:cond_n])] + carries, impls)
    body_lines, outs = _body(src, body, [_contiguous_view(f"a[{cond_n + j}]", v.aval)
                                         for j, v in enumerate(body.invars[:body_n])] + carries, impls)
    if pred.dtype != np.bool_ or pred.shape:
        raise _Unsupported("a predicate that is not a boolean scalar")
    loop = ["for (;;) {",
            *("    " + line for line in cond_lines),
            f"    if (!*(unsigned char *){pred.ptr}) break;",
            *("    " + line for line in body_lines + _next_carries(src, outs)),
            "}"]
    start = cond_n + body_n
    source = _program(src, carry_avals, start, start + len(carry_avals), loop)
    return source, src.kernels, src.scratch


def _program_source(jaxpr: Jaxpr, impls: dict):
    """(C source, kernel pointers, scratch bytes) of a straight-line
    program; raises _Unsupported. Arguments `a`: inputs, then outputs."""
    src = _Source()
    _check_values([jaxpr])
    n = len(jaxpr.invars)
    # Constants (plans.py `_small_consts`): their values, as the source's own.
    consts = [np.asarray(c) for c in jaxpr.consts]
    views = [_View(src.literal(c, c.dtype), c.shape, _c_strides(c.shape, c.itemsize), c.dtype) for c in consts]
    views += [_contiguous_view(f"a[{j}]", v.aval) for j, v in enumerate(jaxpr.invars)]
    body = Jaxpr([], [*jaxpr.constvars, *jaxpr.invars], jaxpr.outvars, jaxpr.eqns)
    lines, outs = _body(src, body, views, impls)
    for j, (v, out) in enumerate(zip(jaxpr.outvars, outs, strict=True)):
        lines += _copy_lines(src, _contiguous_view(f"a[{n + j}]", v.aval), out)
    return _program(src, [], 0, 0, lines), src.kernels, src.scratch


def _emit(src: _Source, eqn, ins: list, impls: dict, step: list, into: _View | None = None) -> list:
    """Appends `eqn`'s C lines to `step`; returns its outputs' views (`into`,
    when given and the equation is one elementwise NumPy call)."""
    name, params = eqn.primitive.name, eqn.params
    if eqn.effects:
        raise _Unsupported(f"{name} with effects")
    check_key_eqn(eqn)
    out_avals = [physical(v.aval) for v in eqn.outvars]
    impl = kernels.backend_impl(impls, eqn.primitive)
    if impl is None:
        raise _Unsupported(f"{name}: not the default impl")
    if name in KEY_OPS:
        return key_lines(src, name, params, ins, out_avals, step)
    if name in _OWN_OUTPUTS:  # (each places its outputs itself)
        return _OWN_OUTPUTS[name](src, eqn, ins, out_avals, step)
    placed = _placement(src, name, params, ins, out_avals, impl, step)
    if placed is not None:
        return placed
    # Views: no code.
    if name in _VIEWS:
        return _VIEWS[name](ins, key_view_params(eqn), out_avals)
    if name == "cond":
        return _cond_lines(src, params["branches"], ins, out_avals, impls, step)
    inner = _inner_jaxpr(eqn)
    if inner is not None:
        # jit, remat and custom_jvp/vjp calls run their jaxpr's equations
        # with the same impls (impls.py `_jit_impl`): written in line.
        lines, outs = _body(src, inner, ins, impls)
        step += lines
        return outs
    if name == "convert_element_type" and ins[0].dtype == out_avals[0].dtype:
        return [ins[0]]  # only the weak type changes: the same values
    if eqn.primitive.multiple_results:
        raise _Unsupported(name)
    out_aval = out_avals[0]
    ufunc = kernels.c_ufunc_of(eqn, impl)
    elementwise = ufunc is not None and all(v.size == 1 or (v.shape == out_aval.shape and v.contiguous) for v in ins)
    if (into is not None and elementwise and into.contiguous and into.shape == out_aval.shape
            and into.dtype == out_aval.dtype):
        out = into
    else:
        out = src.temp(out_aval)
    if ufunc is not None:
        loop = ufunc_loop(ufunc, tuple(v.dtype for v in ins) + (out_aval.dtype,))
        if loop is None:
            raise _Unsupported(f"no {ufunc.__name__} loop for {[str(v.dtype) for v in ins]}")
        # Written in place (`into`), an operand may be the very row written: a
        # vector pass that stored its results before finding a NaN would
        # leave NumPy's kernel a clobbered operand. Then only operands of this
        # program's own scratch or literals allow it.
        fast = _vector_binary(src, ufunc, ins, out) if out is not into or all(map(_private, ins)) else None
        step += _or_kernel(fast, _ufunc_lines(src, *loop, ins, out))
    elif name == "dot_general":
        step += _dot_lines(src, eqn, ins, out)
    elif name == "fma":
        step += _fma_lines(src, eqn, ins, out)
    elif name == "row_dot":
        step += _row_dot_lines(src, eqn, ins, out)
    elif name in ("max", "min") and out.dtype in _C_SCALARS and all(v.dtype == out.dtype for v in ins):
        step += _minmax_lines(src, name, ins[0], ins[1], out)
    elif name == "clamp" and out.dtype in _C_SCALARS and all(v.dtype == out.dtype for v in ins):
        step += _clamp_lines(src, ins, out, out_aval)
    elif name == "sign" and out.dtype.kind in "fiu" and ufunc_loop(np.sign, (out.dtype,) * 2) is not None:
        step += _sign_lines(src, ins, out)
    elif name in SHIFTS:
        step += shift_lines(src, name, ins, out)
    elif name == "erf_inv":
        step += erf_inv_lines(src, ins, out)
    elif name == "dynamic_slice":
        # The impl: starts clamped so the window fits (XLA's rule), a view.
        x, starts = ins[0], ins[1:]
        n = len(starts)  # (a key array's words are a trailing axis no start names)
        ptr = _window(src, _View(x.ptr, x.shape[:n], x.strides[:n], x.dtype), starts, params["slice_sizes"], step)
        return [_View(ptr, out_aval.shape, x.strides, x.dtype)]
    elif name == "dynamic_update_slice":
        step += _update_slice_lines(src, ins, out)
    elif name == "scatter" and _single_row_scatter(params, ins):
        step += _scatter_row_lines(src, params, ins, out)
    elif name == "concatenate":
        step += _concatenate_lines(src, params["dimension"], ins, out)
    elif name == "stack" and all(v.dtype == out.dtype for v in ins):
        step += _stack_lines(src, params["axis"], ins, out)
    elif getattr(impl, "reduce_ufunc", None) is not None:  # the impl is `ufunc.reduce` (impls/standard.py)
        step += _reduce_lines(src, impl.reduce_ufunc, ins[0], tuple(params["axes"]), out)
    elif name == "integer_pow" and params["y"] != 0 and (
            out.dtype.kind in "fc" or ufunc_loop(np.power, (out.dtype,) * 3) is not None):
        step += _integer_pow_lines(src, params["y"], ins, out)
    elif name == "select_n" and len(ins) == 3 and ins[0].dtype == np.bool_ and out.dtype in _C_SCALARS:
        # np.where(which, cases[1], cases[0]): a choice of bytes.
        step += _element_lines(src, out.shape, [*ins, out], lambda r: f"{r[3]} = {r[0]} ? {r[2]} : {r[1]};")
    elif name == "convert_element_type" and ins[0].dtype in _C_SCALARS and out.dtype in _C_SCALARS:
        step += _element_lines(src, out.shape, [ins[0], out], _conversion(ins[0].dtype, out.dtype))
    else:
        raise _Unsupported(name)
    return [out]


_OWN_OUTPUTS = {**LAPACK_OPS, **POINT_OPS}


def _placement(src: _Source, name: str, params: dict, ins: list, out_avals: list, impl, step: list) -> list | None:
    """The outputs of equations that only place values (a reshape of a
    strided view, an iota, a pad), or None for any other."""
    if (name == "squeeze" or (name == "reshape" and params.get("dimensions") is None)) and ins[0].size \
            and not ins[0].contiguous:
        return [reshaped(src, ins[0], out_avals[0].shape, step)]  # a view if NumPy's is one, else a copy
    if name == "iota":
        # No operands: the impl's values, once, as a constant of the source.
        value = np.asarray(impl(**params))
        filled = iota_lines(src, value, params["dimension"], step) if value.nbytes > MAX_CONST_BYTES else None
        if filled is not None and value.dtype == out_avals[0].dtype:
            return [filled]
        if value.nbytes > MAX_CONST_BYTES or value.dtype != out_avals[0].dtype:
            raise _Unsupported("iota")
        return [_View(src.literal(value, value.dtype), value.shape, _c_strides(value.shape, value.itemsize),
                      value.dtype)]
    if name == "pad":
        return [_pad_lines(src, params["padding_config"], ins, out_avals[0], step)]
    return None


def _pad_lines(src: _Source, config, ins: list, out_aval, step: list) -> _View:
    # The impl (impls/slicing.py `_pad`) without negative edges: the result
    # filled with the padding value, the operand copied in at every
    # (interior + 1)-th place after the low edge. Bytes only.
    x, value = ins
    if not x.size or any(low < 0 or high < 0 or interior < 0 for low, high, interior in config):
        raise _Unsupported("pad with negative edges")
    out = src.temp(out_aval)
    step += _copy_lines(src, out, value)
    offset = sum(low * st for (low, _, _), st in zip(config, out.strides))
    placed = _View(f"({out.ptr} + {offset})", x.shape,
                   [st * (interior + 1) for (_, _, interior), st in zip(config, out.strides)], x.dtype)
    step += _copy_lines(src, placed, x)
    return out


def _cond_lines(src: _Source, branches, ins: list, out_avals: list, impls: dict, step: list) -> list:
    # As compiled code runs a cond (control_flow.py): the branch the index
    # names, the last one for an index out of range; each branch writes its
    # results into the cond's own storage.
    index, operands = ins[0], ins[1:]
    if index.shape or index.dtype.kind not in "iu" or any(b.consts for b in branches):
        raise _Unsupported("cond")
    outs = [src.temp(a) for a in out_avals]
    k = f"w{src.index()}"
    n = len(branches)
    step.append(f"intptr_t {k} = (intptr_t)(*({_C_SCALARS[index.dtype]} *){index.ptr}); "
                f"if ({k} < 0 || {k} >= {n}) {k} = {n - 1};")
    for i, branch in enumerate(branches):
        lines, results = _body(src, branch.jaxpr, operands, impls)
        for out, result in zip(outs, results, strict=True):
            lines += _copy_lines(src, out, result)
        step.append(("if" if i == 0 else "else if") + f" ({k} == {i}) {{")
        step += ["    " + line for line in lines]
        step.append("}")
    return outs


# Equations whose impl runs a jaxpr of theirs (call primitives: jit, remat,
# custom_jvp/vjp calls) declare the param holding it: `primitive.call_body`.


def _inner_jaxpr(eqn) -> Jaxpr | None:
    key = eqn.primitive.call_body
    if key is None:
        return None
    closed = eqn.params[key]
    if closed.consts:
        raise _Unsupported(f"{eqn.primitive.name} with constants")
    return closed.jaxpr
