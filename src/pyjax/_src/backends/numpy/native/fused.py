"""Runs of exact elementwise equations in a row loop, written as one C loop.

A row loop (rows.py) calls a kernel per equation on each chunk of rows: a
batch norm's backward pass over a chunk is some thirty calls, each a pass
through the chunk's values. Where consecutive equations are operations
whose IEEE results are exact (add, subtract, multiply, divide, negate,
square, absolute value, compares, selects, max and min, float casts),
NumPy's kernels and plain C compute the same bits: the run becomes one
loop over the chunk, each value kept in a register from the operation that
makes it to those that read it, and only the values read after the run are
stored.

The bits that may differ are NaNs' (which operand's payload a kernel
keeps, or the sign of a NaN an operation makes), and NumPy's max and min
return a NaN operand that a C compare would not. A NaN made inside the run
either reaches a stored value or is dropped by a compare or a select,
which treat every NaN alike, or is read by a max or min: the loop notes any
NaN among its stored values and its max and min operands; for such a chunk
the run's equations are then computed again one kernel call each, as
without this module, and their stored values taken from there.

Transcendental functions (exp, tanh, log: NumPy's own SIMD
approximations) and square roots (a call into libm for errno) are not
written in line: they end a run.
"""

from __future__ import annotations

import numpy as np

from pyjax._src.backends.numpy.codegen import kernels
from pyjax._src.backends.numpy.native.csource import _C_TYPES, ZERO_EXTREMUM, _Source, _View, _copy_lines
from pyjax._src.backends.numpy.native.vectors import _VECTOR_OPS
from pyjax._src.jaxpr import DropVar, JaxprEqn, Literal

__all__ = ["fused_run"]

_BOOL = np.dtype(np.bool_)
_BINARY = {ufunc: op for ufunc, (op, _) in _VECTOR_OPS.items()}
_COMPARES = {np.equal: "==", np.not_equal: "!=", np.less: "<", np.less_equal: "<=", np.greater: ">",
             np.greater_equal: ">="}
_UNARY = {np.negative: "-{0}", np.square: "{0} * {0}"}
# The fewest equations a fused run takes (one alone gains nothing).
MIN_RUN = 2


def _op(eqn: JaxprEqn, impls: dict):
    """What `eqn` is written as (its primitive's name, or the ufunc its impl
    calls), or None where it is not one this module writes (or its impl is
    not the backend's own)."""
    if eqn.effects or len(eqn.outvars) != 1 or eqn.primitive.multiple_results:
        return None
    impl = kernels.backend_impl(impls, eqn.primitive)
    if impl is None:
        return None
    out = eqn.outvars[0].aval.dtype
    ins = [v.aval.dtype for v in eqn.invars]
    name = eqn.primitive.name
    if name == "broadcast_in_dim":  # (a single value spread over the chunk: the value itself)
        return name if eqn.invars[0].aval.size == 1 and ins[0] == out and (out in _C_TYPES or out == _BOOL) else None
    if name in ("max", "min"):
        return name if out in _C_TYPES and ins == [out, out] else None
    if name == "select_n":
        return name if len(ins) == 3 and ins[0] == _BOOL and out in _C_TYPES and ins[1:] == [out, out] else None
    if name == "convert_element_type":
        return name if out in _C_TYPES and (ins[0] in _C_TYPES or ins[0] == _BOOL) else None
    if name == "abs":
        return name if out in _C_TYPES and ins == [out] else None
    ufunc = kernels.c_ufunc_of(eqn, impl)
    if ufunc in _BINARY or ufunc in _UNARY:
        return ufunc if out in _C_TYPES and all(d == out for d in ins) else None
    if ufunc in _COMPARES:
        return ufunc if out == _BOOL and len(ins) == 2 and ins[0] == ins[1] and ins[0] in _C_TYPES else None
    return None


def _expression(eqn: JaxprEqn, op, args: list[str]) -> tuple[str, str]:
    """(the C expression of `eqn`'s result from its operands `args`, an
    expression that is nonzero where the chunk must be computed again);
    `op`: what `_op` found it is."""
    name = eqn.primitive.name
    out = eqn.outvars[0].aval.dtype
    if name == "broadcast_in_dim":
        return args[0], ""
    if name in ("max", "min"):
        a, b = args
        # The impl: NumPy's max (min), then XLA's order of zeros where both
        # are zeros; a NaN operand is NumPy's to pass on.
        pick = f"({a} > {b} ? {a} : {b})" if name == "max" else f"({a} < {b} ? {a} : {b})"
        zero = ZERO_EXTREMUM[name].format(a, b)
        return f"(({a} == 0 & {b} == 0) ? {zero} : {pick})", f"({a} != {a}) + ({b} != {b})"
    if name == "select_n":
        p, c0, c1 = args
        return f"({p} ? {c1} : {c0})", ""
    if name == "convert_element_type":
        return f"({_C_TYPES[out]})({args[0]})", ""
    if name == "abs":
        return f"{'fabsf' if out == np.float32 else 'fabs'}({args[0]})", ""
    if op in _BINARY:
        return f"({args[0]} {_BINARY[op]} {args[1]})", ""
    if op in _COMPARES:
        return f"({args[0]} {_COMPARES[op]} {args[1]})", ""
    return "(" + _UNARY[op].format(*args) + ")", ""


def _fits(x: _View, size: int) -> bool:
    # An operand the loop reads: a single value, or one a chunk long in order.
    return _single(x) or (x.size == size and x.contiguous)


def _single(x: _View) -> bool:
    # One value (a scalar, or one spread over the chunk: strides of 0).
    return x.size == 1 or not any(x.strides)


def _c_type(dtype) -> str:
    return "unsigned char" if dtype == _BOOL else _C_TYPES[dtype]


def fused_run(src: _Source, eqns: list, start: int, view, later, done: set, impls: dict,
              emit) -> tuple[list[str], dict, int] | None:
    """(C lines, the views of the values read after it, the index after it)
    of the fused run of `eqns` from `start`, or None when fewer than
    `MIN_RUN` equations qualify. `view(v)`: the view of an operand from
    before the run; `later(v, stop)`: whether a value is read by an equation
    from index `stop` on or is an output; `emit(eqn, ins, lines)` appends an
    equation's own C lines (a kernel call) and returns its outputs' views."""
    first = eqns[start].outvars[0].aval if eqns[start].outvars else None
    if first is None or not first.shape:
        return None
    size = first.size
    run, ops, defined = [], [], set()
    for k in range(start, len(eqns)):
        eqn = eqns[k]
        op = None if k in done else _op(eqn, impls)
        if op is None or eqn.outvars[0].aval.size != size:
            break
        if not all(type(v) is Literal or v in defined or _fits(view(v), size) for v in eqn.invars):
            break
        run.append(eqn)
        ops.append(op)
        defined.update(v for v in eqn.outvars if type(v) is not DropVar)
    if len(run) < MIN_RUN:
        return None
    stop = start + len(run)
    stored = [eqn.outvars[0] for eqn in run if type(eqn.outvars[0]) is not DropVar and later(eqn.outvars[0], stop)]
    if not stored:
        return None

    # The loop is a function of its own: GCC honours `restrict` on a
    # function's parameters (on a block's pointers it proves nothing, and
    # the loop may stay scalar). Operands from
    # before the run: arrays through restrict pointers, single values passed.
    params, args, names, arrays = [], [], {}, {}

    def operand(v) -> str:
        if type(v) is not Literal and v in names:
            return names[v]
        x = view(v)
        ctype = _c_type(x.dtype)
        if _single(x):
            name = f"pj_s{len(params)}"
            params.append(f"const {ctype} {name}")
            args.append(f"*(const {ctype} *){x.ptr}")
            if type(v) is not Literal:
                names[v] = name
            return name
        if x.ptr not in arrays:
            arrays[x.ptr] = f"pj_p{len(params)}"
            params.append(f"const {ctype} *restrict {arrays[x.ptr]}")
            args.append(f"(const {ctype} *){x.ptr}")
        names[v] = f"{arrays[x.ptr]}[i]"
        return names[v]

    body, checks, outs = [], [], {}
    for j, (eqn, op) in enumerate(zip(run, ops)):
        expr, check = _expression(eqn, op, [operand(v) for v in eqn.invars])
        out = eqn.outvars[0]
        local = f"pj_t{j}"
        body.append(f"const {_c_type(out.aval.dtype)} {local} = {expr};")
        if check:
            checks.append(check)
        if type(out) is not DropVar:
            names[out] = local
    for j, v in enumerate(stored):
        outs[v] = src.temp(v.aval)
        ctype = _c_type(v.aval.dtype)
        params.append(f"{ctype} *restrict pj_o{j}")
        args.append(f"({ctype} *){outs[v].ptr}")
        body.append(f"pj_o{j}[i] = {names[v]};")
        if v.aval.dtype != _BOOL:
            checks.append(f"({names[v]} != {names[v]})")
    name = f"pj_fused_{len(src.helpers)}"
    src.helpers[name] = "\n".join([
        f"__attribute__((noinline)) static int {name}({', '.join(params)}) {{",
        "    int pj_nan = 0;",
        f"    for (intptr_t i = 0; i < {size}; i++) {{",
        *("        " + line for line in body),
        # (a count, not an or: GCC vectorises the loop with an int sum)
        f"        pj_nan += {' + '.join(dict.fromkeys(checks)) or '0'};",
        "    }",
        "    return pj_nan;",
        "}"])
    # The chunk again, a kernel call an equation: its stored values are
    # the run's where a NaN is made or read.
    again: list[str] = []
    mine: dict = {}
    for eqn in run:
        results = emit(eqn, [mine[v] if v in mine else view(v) for v in eqn.invars], again)
        for v, r in zip(eqn.outvars, results, strict=True):
            if type(v) is not DropVar:
                mine[v] = r
    for v in stored:
        again += _copy_lines(src, outs[v], mine[v])
    lines = [f"if ({name}({', '.join(args)})) {{", *("    " + line for line in again), "}"]
    return lines, outs, stop
