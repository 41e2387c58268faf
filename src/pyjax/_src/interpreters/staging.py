"""Staging: the trace that records primitives into a jaxpr.

`trace_to_jaxpr(f, avals, debug_info)` runs `f` once on DynamicJaxprTracers
and returns the recorded Jaxpr with its constants. Values the function meets
that are not its own tracers become constants: Python scalars, NumPy scalars
and 0-d NumPy arrays are written inline as literals; anything else (Arrays,
larger NumPy arrays, tracers of an enclosing trace) becomes a constvar.
"""

from __future__ import annotations

import contextvars
import inspect
import os
import sys
from typing import Any, Callable, Sequence

import numpy as np

from pyjax._src import config, core, dtypes, errors
from pyjax._src.avals import ShapedArray
from pyjax._src.jaxpr import Jaxpr, JaxprEqn, Literal, Var


class DebugInfo:
    """Where a trace came from, for error messages: the function, what it was
    traced for (jit, make_jaxpr, ...), and the name of each flat argument."""

    __slots__ = ("traced_for", "func_src_info", "arg_names", "result_paths")

    def __init__(self, traced_for: str, func_src_info: str, arg_names: Sequence[str] | None, result_paths=None):
        self.traced_for = traced_for
        self.func_src_info = func_src_info
        self.arg_names = tuple(arg_names) if arg_names is not None else None
        self.result_paths = result_paths

    @property
    def func_name(self) -> str:
        return self.func_src_info.split(" ")[0]


def func_src_info(fun: Callable) -> str:
    """`name at file:line` for a function, as JAX's messages show it."""
    target = fun
    while hasattr(target, "__wrapped__"):
        target = target.__wrapped__
    target = getattr(target, "func", target)  # functools.partial
    name = getattr(target, "__name__", None) or type(target).__name__
    code = getattr(target, "__code__", None)
    if code is None:
        return name
    return f"{name} at {code.co_filename}:{code.co_firstlineno}"


# While a shard_map body is traced (check_vma): the rule that records an
# equation with its varying-manual-axes types, pvary inserted where operands
# differ. Context-local, so a body traced on one thread types nothing
# another thread stages.
_vma_rule: contextvars.ContextVar = contextvars.ContextVar("vma_rule", default=None)


def vma_rule() -> Callable | None:
    """The varying-axes typing rule of the shard_map body being traced, if any."""
    return _vma_rule.get()


def set_vma_rule(rule: Callable | None) -> contextvars.Token:
    """Installs `rule` for the body about to be traced; reset with the token."""
    return _vma_rule.set(rule)


def reset_vma_rule(token: contextvars.Token) -> None:
    _vma_rule.reset(token)


class DynamicJaxprTracer(core.Tracer):
    """A tracer being recorded into a jaxpr: an aval and the variable it is."""

    __slots__ = ("_aval", "_var")

    def __init__(self, trace: DynamicJaxprTrace, aval: ShapedArray, var: Var):
        self._trace = trace
        self._aval = aval
        self._var = var

    @property
    def aval(self) -> ShapedArray:
        return self._aval

    def __repr__(self):
        return f"JitTracer({self._aval})"

    __str__ = __repr__


_LITERAL_TYPES = (bool, int, float, complex)
_NO_EFFECTS: frozenset = frozenset()
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


_INTERNAL_CODE: dict = {}  # id(code) -> (code, is it pyjax's own?); the code is kept so its id stays unique
# The path prefixes of code that is not the user's (pyjax's own, and the
# libraries that register theirs, as JAX's source_info_util.register_exclusion).
_excluded_paths: list = [(_PACKAGE_DIR,)]


def register_exclusion(path: str) -> None:
    """Frames of files under `path` are not where an equation was made: the
    innermost frame outside every registered path is."""
    _excluded_paths[0] = (*_excluded_paths[0], str(path))
    _INTERNAL_CODE.clear()


def user_source_info():
    """(code, line, last instruction) of the innermost frame outside pyjax: where
    the user's program made the current equation. Kept for error messages."""
    frame = sys._getframe(2)
    internal = _INTERNAL_CODE
    while frame is not None:
        code = frame.f_code
        entry = internal.get(id(code))
        if entry is None:
            entry = internal[id(code)] = (code, code.co_filename.startswith(_excluded_paths[0]))
        if not entry[1]:
            break
        frame = frame.f_back
    if frame is None:
        return None
    return (frame.f_code, frame.f_lineno, frame.f_lasti)


def format_source_info(info, with_column: bool = False) -> str:
    code, line, lasti = info
    where = f"{code.co_filename}:{line}"
    if with_column:
        positions = list(code.co_positions())
        if 0 <= lasti // 2 < len(positions) and positions[lasti // 2][2] is not None:
            where += f":{positions[lasti // 2][2]}"
    return f"{where} ({code.co_name})"


class DynamicJaxprTrace(core.Trace):
    """Records every primitive bound under it as an equation."""

    # Where the user's program made each equation (for error messages and
    # print_saved_residuals); a trace whose jaxpr is only ever transformed,
    # never shown, may skip the frame walk.
    records_source_info = True

    def __init__(self, debug_info: DebugInfo | None = None):
        self.eqns: list[JaxprEqn] = []
        self.invars: list[Var] = []
        self.constvars: list[Var] = []
        self.consts: list[Any] = []
        self._const_ids: dict[int, Var] = {}
        self.debug_info = debug_info
        self.valid = True

    def is_valid(self) -> bool:
        return self.valid

    # --- values in
    def new_arg(self, aval: ShapedArray) -> DynamicJaxprTracer:
        var = Var(aval)
        self.invars.append(var)
        return DynamicJaxprTracer(self, aval, var)

    def to_atom(self, x) -> Var | Literal:
        if type(x) is DynamicJaxprTracer and x._trace is self:
            return x._var
        if isinstance(x, core.Tracer):
            if not x._trace.is_valid():
                raise errors.escaped_tracer_error(x)
            return self._constvar(x, x.aval)
        tx = type(x)
        if tx in _LITERAL_TYPES:
            return Literal(x, core.concrete_aval(x))
        if isinstance(x, (np.ndarray, np.generic)):
            if x.shape == ():
                aval = ShapedArray((), dtypes.canonicalize_dtype(x.dtype), False)
                return Literal(np.asarray(x, aval.dtype)[()], aval)
            return self._constvar(x, ShapedArray(x.shape, dtypes.canonicalize_dtype(x.dtype)))
        aval = getattr(x, "aval", None)
        if aval is None:
            if hasattr(x, "get_vars"):  # a symbolic dimension: its value (dim_as_value), as JAX stages it
                from pyjax._src.dim_as_value import dim_as_value_p

                return self.to_atom(dim_as_value_p.bind_with_trace(self, (), {"dim": x}))
            raise TypeError(f"Value {x!r} of type {tx} is not a valid JAX type")
        return self._constvar(x, aval)

    def lift_constant(self, value, aval: ShapedArray) -> DynamicJaxprTracer:
        """A constant made inside the trace (jnp.array(2.0)): scalars become
        literals, larger values constvars."""
        if aval.shape == ():
            return DynamicJaxprTracer(self, aval, Literal(np.asarray(value)[()], aval))
        return DynamicJaxprTracer(self, aval, self._constvar(value, aval))

    def _constvar(self, value, aval: ShapedArray) -> Var:
        var = self._const_ids.get(id(value))
        if var is None:
            var = Var(aval)
            self._const_ids[id(value)] = var
            self.constvars.append(var)
            self.consts.append(value)
        return var

    # --- primitives
    def process_primitive(self, primitive, args, params):
        rule = _vma_rule.get()
        if rule is not None:  # tracing a shard_map body: manual-axis types (_src/shard_map.py)
            return rule(self, primitive, args, params)
        atoms = [x._var if type(x) is DynamicJaxprTracer and x._trace is self else self.to_atom(x) for x in args]
        out = primitive.out_avals(tuple([a.aval for a in atoms]), params)
        source_info = user_source_info() if self.records_source_info else None
        effects = _NO_EFFECTS if primitive.effects_of is None else primitive.effects_of(params)
        if primitive.multiple_results:
            outvars = [Var(a) for a in out]
            self.eqns.append(JaxprEqn(primitive, atoms, outvars, params, effects, source_info))
            return [DynamicJaxprTracer(self, v.aval, v) for v in outvars]
        var = Var(out)
        self.eqns.append(JaxprEqn(primitive, atoms, [var], params, effects, source_info))
        return DynamicJaxprTracer(self, out, var)

    def add_eqn(self, primitive, atoms, out_avals, params) -> list[DynamicJaxprTracer]:
        """Records an equation whose output types the caller already knows."""
        outvars = [Var(a) for a in out_avals]
        self.eqns.append(JaxprEqn(primitive, atoms, outvars, params))
        return [DynamicJaxprTracer(self, v.aval, v) for v in outvars]

    # --- result
    def to_jaxpr(self, outs: Sequence[Any]) -> Jaxpr:
        outvars = [self.to_atom(x) for x in outs]
        effects = frozenset().union(*[e.effects for e in self.eqns if e.effects])
        return Jaxpr(self.constvars, self.invars, outvars, self.eqns, self.consts, effects=effects,
                     debug_info=self.debug_info)

    # --- error context
    def describe_function(self) -> str:
        info = self.debug_info
        return f"{info.func_src_info} traced for {info.traced_for}" if info else ""

    def origin_message(self, tracer: DynamicJaxprTracer) -> str:
        info = self.debug_info
        if info is None:
            return ""
        head = f"The error occurred while tracing the function {info.func_src_info} for {info.traced_for}. "
        names = self._progenitor_arg_names(tracer)
        if names:
            if len(names) == 1:
                return head + f"This concrete value was not available in Python because it depends on the value of the argument {names[0]}."
            listed = " and ".join(names) if len(names) == 2 else ", ".join(names[:-1]) + f", and {names[-1]}"
            return head + f"This concrete value was not available in Python because it depends on the values of the arguments {listed}."
        return head + "This value became a tracer due to JAX operations on these lines:\n\n" + self._operation_lines(tracer)

    def creation_message(self, tracer) -> str:
        eqn = next((e for e in reversed(self.eqns) if tracer._var in e.outvars), None)
        if eqn is None or eqn.source_info is None:
            return ""
        where = format_source_info(eqn.source_info)
        rule = "-" * 30 + "\n"
        return (
            f"{rule}The leaked intermediate value was created on line {where}. \n{rule}"
            "When the value was created, the final 5 stack frames (most recent last) excluding "
            f"JAX-internal frames were:\n{rule}{where}\n{rule}\n"
        )

    def _progenitors(self, tracer: DynamicJaxprTracer) -> tuple[set, list]:
        needed = {tracer._var}
        eqns = []
        for eqn in reversed(self.eqns):
            if any(v in needed for v in eqn.outvars):
                eqns.append(eqn)
                needed.update(v for v in eqn.invars if type(v) is Var)
        return needed, eqns[::-1]

    def _progenitor_arg_names(self, tracer) -> list[str]:
        needed, _ = self._progenitors(tracer)
        arg_names = self.debug_info.arg_names
        return [
            arg_names[i] if arg_names and i < len(arg_names) else f"args[{i}]"
            for i, v in enumerate(self.invars)
            if v in needed
        ]

    def _operation_lines(self, tracer) -> str:
        from pyjax._src.pretty import pp_eqn_str

        _, eqns = self._progenitors(tracer)
        lines = []
        for e in eqns[-1:]:
            lines.append(f"  operation {pp_eqn_str(e)}")
            if e.source_info is not None:
                lines.append(f"    from line {format_source_info(e.source_info, with_column=True)}")
        return "\n".join(lines)


# Caches of traced jaxprs kept below jit (control-flow bodies, reduction
# computations): registered here so that jax.clear_caches empties them
# without jit importing the modules that keep them.
staging_caches: list = []


def register_staging_cache(cache):
    """Adds `cache` (anything with `.clear()`) to those clear_caches empties;
    returns it."""
    staging_caches.append(cache)
    return cache


def trace_to_jaxpr(
    fun: Callable, in_avals: Sequence[ShapedArray], debug_info: DebugInfo | None = None
) -> tuple[Jaxpr, list]:
    """Traces `fun` on tracers of `in_avals`; returns the jaxpr and the flat
    outputs as `fun` returned them (the caller flattens/validates them)."""
    trace = DynamicJaxprTrace(debug_info)
    args = [trace.new_arg(a) for a in in_avals]
    try:
        with core.set_current_trace(trace):
            outs = fun(*args)
        jaxpr = trace.to_jaxpr(outs)
    finally:
        trace.valid = False
    if config.check_tracer_leaks.value:
        _check_leaks(trace, args, outs)
    return jaxpr, outs


def _check_leaks(trace: DynamicJaxprTrace, *ours: Sequence) -> None:
    """jax_check_tracer_leaks: raise if a tracer of the finished `trace` is still
    referenced from outside it (a global list, a closure, an object's field)."""
    import gc

    gc.collect()
    heap = gc.get_objects()
    # The outputs are handed on (in the caller's pytrees too): not leaks.
    outputs = {id(x) for x in ours[-1]}
    mine = [obj for obj in heap if type(obj) is DynamicJaxprTracer and obj._trace is trace and id(obj) not in outputs]
    del heap
    # References from the tracing machinery's own lists and from frames still
    # running do not count.
    own = {id(group) for group in ours} | {id(mine)}
    leaked = [t for t in mine
              if any(id(r) not in own and not inspect.isframe(r) for r in gc.get_referrers(t))]
    if leaked:
        from pyjax._src.interpreters.leaks import why_alive

        # (What made each tracer, then the chain of objects holding it, as JAX.)
        ignored = own | {id(leaked), id(ours)}
        reports = []
        for t in leaked:  # (a loop, not a generator: a generator would hold the tracer too)
            reports.append(f"{t!r}\n{trace.origin_message(t)}\n{why_alive(t, ignored | {id(reports)})}")
        raise Exception("Leaked trace DynamicJaxprTrace. Leaked tracer(s):\n\n" + "\n\n".join(reports))
