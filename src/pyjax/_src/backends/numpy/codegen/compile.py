"""The NumPy backend's compiler: a jaxpr becomes one straight-line Python function.

`compile_jaxpr(jaxpr, impls)` writes Python source with one line per
equation, compiles it with `compile()` and `exec()`s it in a namespace that
holds the impls, the constants and the literals:

    def jaxpr_fn(a, b):
        c = _np_add(a, b)
        del a, b                        # a buffer is released after its last use
        d = _np_multiply(c, _lit0, c)   # a dead intermediate is reused in place (out)
        e = _reduce_sum(d, axes=(0,), out_sharding=None)
        del d
        return [e]

Three passes, each linear in the number of equations:

1. *flatten* walks the jaxpr and turns each equation into an instruction over
   `_Value`s. Equations with a code emitter (`EMITTERS`, keyed by primitive
   name) are handled by it: `jit` splices its body in (renamed values, consts
   hoisted); control flow (control_flow.py) writes Python `if`/`while`/`for`
   whose bodies are *blocks*: jaxprs flattened by a child builder that shares
   this one's namespace and names, run through passes 2 and 3 on their own,
   and spliced into the loop as straight-line code. Everything else calls
   `impls[primitive]`, except hot elementwise primitives, which call their
   NumPy ufunc directly (float `div`/`rem` too), and matrix/vector
   `dot_general`s without casts, which call `ndarray.dot`.
2. *liveness* records each value's last use, so the code can `del` it there.
3. *buffer reuse* lets a ufunc write into a dead intermediate of the same
   shape and dtype (its positional `out` argument), when that buffer is
   provably ours and unaliased (a ufunc's or `ndarray.dot`'s fresh result,
   or that of an impl declaring `fresh_result`, such as dot_general's).

Nothing is caught: an error raised by an impl propagates unchanged, and its
traceback shows the generated line (the source is registered in linecache).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import keyword
import linecache
import time
import weakref
from typing import Any, Callable, Sequence

import numpy as np

from pyjax._src import config as config_lib
from pyjax._src import dtypes
from pyjax._src.array import Array
from pyjax._src.avals import ShapedArray
from pyjax._src.backends.numpy import tiers as tiers_lib
from pyjax._src.backends.numpy.codegen import dots
from pyjax._src.backends.numpy.codegen.columns import column_spread, column_ufunc
from pyjax._src.backends.numpy.codegen.eager import fill_eager_program
from pyjax._src.backends.numpy.codegen.kernels import IDENTITIES, backend_impl, ufunc_of
from pyjax._src.dispatch import check_outputs
from pyjax._src.jaxpr import DropVar, Jaxpr, JaxprEqn, JaxprTypeError, Literal, Var, subjaxprs
from pyjax._src.rules import missing_rule_error

__all__ = ["EMITTERS", "Block", "CompiledFunction", "ProgramBuilder", "compile_jaxpr"]


# ---------------------------------------------------------------------------
# Direct NumPy calls for hot elementwise primitives: which ufunc an equation
# calls is codegen/kernels.py's answer (the C code generator asks it too).
# It is asked only for the backend's own impls (a caller with a custom
# table keeps its impls); tests/backends/test_numpy_compile.py checks every
# such ufunc against its impl.


# 0-d operations written as Python operators: on NumPy scalars they run
# NumPy's scalar math (~40 ns) instead of the ufunc machinery (~450 ns), the
# same IEEE operation in the same dtype (on 0-d arrays the operator calls the
# ufunc). Arithmetic only for float32/float64: integer scalar math warns on
# the wrap-around XLA's integers do silently. (primitive -> (operator, kinds))
_SCALAR_OPERATORS: dict[str, tuple[str, str]] = {
    "add": ("+", "F"), "sub": ("-", "F"), "mul": ("*", "F"), "div": ("/", "F"), "neg": ("-", "F"),
    "lt": ("<", "fiub"), "le": ("<=", "fiub"), "gt": (">", "fiub"), "ge": (">=", "fiub"),
    "eq": ("==", "fiub"), "ne": ("!=", "fiub"), "and": ("&", "b"), "or": ("|", "b"), "xor": ("^", "b"),
}
_SCALAR_FLOATS = frozenset({np.dtype(np.float32), np.dtype(np.float64)})


def _scalar_operator(name: str, ins: list, out_aval: ShapedArray):
    """A render writing `name` on 0-d operands as a Python operator, or None."""
    entry = _SCALAR_OPERATORS.get(name)
    if entry is None or out_aval.shape or any(v.aval.shape for v in ins):
        return None
    symbol, kinds = entry
    dtype = ins[0].aval.dtype
    if not (dtype in _SCALAR_FLOATS if kinds == "F" else dtype.kind in kinds):
        return None
    if any(v.aval.dtype != dtype for v in ins):
        return None

    def render(in_names, out_names):
        expr = f"{symbol}{in_names[0]}" if len(in_names) == 1 else f" {symbol} ".join(in_names)
        return [f"{out_names[0]} = {expr}"]

    return render


# ---------------------------------------------------------------------------
# The compiled function


class CompiledFunction(functools.partial):
    """A compiled jaxpr: `compiled(*flat_input_buffers) -> list of outputs`.

    A `functools.partial` subclass because partial's C `__call__` adds less
    dispatch overhead than a Python `__call__` method; `.fn` is the generated
    function itself. `.source` is its Python source (`Lowered.as_text()`),
    `.num_eqns` the number of equations it executes after `jit` inlining.
    """

    source: str
    num_eqns: int
    native: object

    @property
    def fn(self) -> Callable:
        return self.func

    def __repr__(self):
        return f"<CompiledFunction {self.func.__name__} ({self.num_eqns} eqns)>"

    def eager_program(self, closed: Jaxpr, buffers: list, program) -> None:
        """Fills dispatch.py's `program` (an eager call's, whose jaxpr
        `closed` this compiled op by op) with its one-output `run`: direct
        NumPy calls where small, tiering up by itself (codegen/eager.py)."""
        fill_eager_program(program, closed, self, buffers)


def compile_jaxpr(
    jaxpr: Jaxpr, impls: dict, *, name: str = "jaxpr_fn", reuse_buffers: bool = True,
    tiers: tiers_lib.Tiers | None = None,
) -> CompiledFunction:
    """Compiles a closed jaxpr into a Python function over NumPy buffers.

    Args:
      jaxpr: a closed Jaxpr (its `consts` are the values of its constvars;
        they are hoisted into the function's namespace once, here).
      impls: the execution table, Primitive -> `impl(*values, **params)`.
      name: the generated function's name (shown in `.source` and tracebacks).
      reuse_buffers: let ufuncs write into dead intermediates (`out=`).
      tiers: the tiers that may run parts of it (tiers.py); by default every
        registered one, `Tiers()` for none.

    Returns:
      A CompiledFunction: `compiled(*flat_inputs)` returns the list of outputs.

    Example:
      >>> compiled = compile_jaxpr(jaxpr, IMPLS)   # doctest: +SKIP
      >>> compiled(np.ones(3, np.float32))          # doctest: +SKIP
    """
    start = time.perf_counter()
    tiers = tiers_lib.registered() if tiers is None else tiers
    builder = ProgramBuilder(impls, tiers)
    if builder.checks:
        _check_jaxpr_deep(jaxpr)
    in_values = [builder.new_value(v.aval, _INPUT) for v in jaxpr.invars]
    out_values = builder.inline(jaxpr, in_values)
    native = tiers.program(jaxpr, impls) if tiers.program is not None else None  # a long straight-line program
    native_name = builder.constant(native, "native_program") if native is not None else None
    fn, source = builder.build(name, in_values, out_values, reuse_buffers=reuse_buffers, native=native_name,
                               native_steps=native.steps_per_call if native is not None else 0)
    compiled = CompiledFunction(fn)
    compiled.source = source
    compiled.num_eqns = len(builder.instrs)
    compiled.native = native  # its program tier (native/), or None
    if native is not None:
        native.python = compiled  # (its live one-output call re-checks against this)
    # The two stage timers jax_log_compiles reports: jaxpr -> Python source, source -> code.
    compiled.conversion_s = builder.conversion_done - start
    compiled.compilation_s = time.perf_counter() - builder.conversion_done
    return compiled


def _check_jaxpr_deep(jaxpr: Jaxpr) -> None:
    """jax_enable_checks: the jaxpr and every body it holds re-typechecked
    before it is compiled, as JAX checks traced jaxprs. Shapes and dtypes
    only: this is the backend's jaxpr, after rewrite.py inlined jits and
    folded literals, which may leave a weak type declared where the rule
    now gives a strong one (a weak type does not change a buffer)."""
    defined = set(jaxpr.constvars) | set(jaxpr.invars)
    for i, eqn in enumerate(jaxpr.eqns):
        for v in eqn.invars:
            if type(v) is not Literal and v not in defined:
                raise JaxprTypeError(f"Variable {v} used before definition in equation {i}: {eqn}")
        out = eqn.primitive.out_avals(tuple(v.aval for v in eqn.invars), eqn.params)
        expected = list(out) if eqn.primitive.multiple_results else [out]
        declared = [v.aval for v in eqn.outvars]
        if [(a.shape, a.dtype) for a in expected] != [(a.shape, a.dtype) for a in declared]:
            raise JaxprTypeError(f"Equation {i} ({eqn.primitive.name}) declares outputs {declared} "
                                 f"but its abstract evaluation gives {expected}")
        defined.update(eqn.outvars)
        # A body typed in a context (shard_map's named mesh axes) is checked in it.
        context = getattr(eqn.primitive, "body_context", None)
        with context(eqn.params) if context is not None else contextlib.nullcontext():
            for sub in subjaxprs(eqn.params):
                _check_jaxpr_deep(sub)
    for v in jaxpr.outvars:
        if type(v) is not Literal and v not in defined:
            raise JaxprTypeError(f"Output variable {v} is not defined")


# ---------------------------------------------------------------------------
# Values and instructions

_INPUT, _CONST, _LITERAL, _TEMP, _OUTER = range(5)
# _OUTER: a local of the enclosing code that an inlined block reads; the block
# never deletes it nor writes into it (the enclosing code owns it).
_NEVER = -1  # last_use of a value nobody reads


class _Value:
    """One value of the flattened program: a local (input or temporary) or a
    namespace global (const or literal). `root` is the buffer a ufunc result
    lives in (None when we do not own the buffer); `aliases` the owned buffers
    a value may share memory with; `alias_last_use` (on a root) the last use
    of any value that may share its memory."""

    __slots__ = ("name", "aval", "kind", "last_use", "root", "aliases", "alias_last_use")

    def __init__(self, name: str, aval: ShapedArray, kind: int):
        self.name = name
        self.aval = aval
        self.kind = kind
        self.last_use = _NEVER
        self.root: _Value | None = None
        self.aliases: tuple = ()
        self.alias_last_use = _NEVER

    @property
    def is_local(self) -> bool:
        return self.kind == _INPUT or self.kind == _TEMP


class _Instr:
    """One emitted statement: a call `fn(ins..., kwargs)` binding `outs`
    (`ufunc` set when `fn` is a ufunc called directly), or custom lines from
    `render(in_names, out_names)`."""

    __slots__ = ("fn", "ins", "outs", "kwargs", "multiple_results", "ufunc", "render", "out_buffer",
                 "out_target", "fresh", "writes_input", "pure")

    def __init__(self, fn, ins, outs, kwargs="", multiple_results=False, ufunc=None, render=None,
                 fresh=False, writes_input=False):
        self.fn = fn
        self.ins = ins
        self.outs = outs
        self.kwargs = kwargs
        self.multiple_results = multiple_results
        self.ufunc = ufunc
        self.render = render
        self.out_buffer: _Value | None = None
        self.out_target: str | None = None  # an expression the ufunc writes into (a row of a loop's ys)
        # `fresh`: fn always returns a newly allocated array (ndarray.dot of
        # operands with at least one dimension), which later ufuncs may reuse.
        self.fresh = fresh
        # `writes_input`: a custom statement that may write its first output
        # into a dead input buffer (`render(..., out_buffer=name)`).
        self.writes_input = writes_input
        self.pure = False  # (raises nothing at run time: left out when its result is unused)


def _local_names() -> Callable[[], str]:
    """a, b, ..., z, ba, bb, ... (JAX's variable names), skipping keywords."""
    counter = itertools.count()
    letters = "abcdefghijklmnopqrstuvwxyz"

    def next_name() -> str:
        while True:
            i = next(counter)
            chars = [letters[i % 26]]
            i //= 26
            while i:
                chars.append(letters[i % 26])
                i //= 26
            name = "".join(reversed(chars))
            if not keyword.iskeyword(name):
                return name

    return next_name


# Param values written into the source as Python literals (exact round trip).
_SOURCE_SCALARS = (type(None), bool, int, str)


def _is_source_literal(value) -> bool:
    if type(value) in _SOURCE_SCALARS:
        return True
    return type(value) is tuple and all(_is_source_literal(v) for v in value)


# ---------------------------------------------------------------------------
# Pass 1: flatten the jaxpr into instructions


class ProgramBuilder:
    """Accumulates the flattened program; the interface code emitters use.

    An emitter, `EMITTERS[primitive_name](builder, eqn, in_values)`, returns
    one `_Value` (or None) per `eqn.outvars`, built with `inline`, `call`,
    `statement`, `constant` and `compile_sub`.
    """

    def __init__(self, impls: dict, tiers: tiers_lib.Tiers, parent: ProgramBuilder | None = None):
        self.impls = impls
        self.tiers = tiers
        self.instrs: list[_Instr] = []
        self._spreads: dict[_Value, _Value] = {}  # a row broadcast along leading axes -> the row
        self.parent = parent  # (a block's builder: the function's)
        if parent is not None:
            self.checks = parent.checks
            # A block inlined into `parent`'s function: one namespace, one
            # supply of local names, consts and literals hoisted once.
            self.namespace = parent.namespace
            self._local_name = parent._local_name
            self._counter = parent._counter
            self._const_values = parent._const_values
            self._literal_values = parent._literal_values
            self._fn_names = parent._fn_names
            return
        # jax_enable_checks: a check line after each equation (read once, at
        # compile time; the jit cache key holds the option).
        self.checks: bool = config_lib.enable_checks.value
        self.namespace: dict[str, Any] = {"__name__": "pyjax._src.backends.numpy.compiled"}
        self._local_name = _local_names()
        self._counter = itertools.count()
        self._const_values: dict[tuple, _Value] = {}  # (id(const), aval) -> hoisted value
        self._literal_values: dict[int, _Value] = {}  # id(Literal) -> value
        self._fn_names: dict[int, str] = {}  # id(callable) -> namespace name

    # --- values
    def new_value(self, aval: ShapedArray, kind: int = _TEMP) -> _Value:
        return _Value(self._local_name(), aval, kind)

    def constant(self, value: Any, hint: str = "c") -> str:
        """Puts `value` in the namespace; returns the name the source uses."""
        name = f"_{hint}{next(self._counter)}"
        self.namespace[name] = value
        return name

    def _function(self, fn: Callable, hint: str) -> str:
        name = self._fn_names.get(id(fn))
        if name is None:
            name = self._fn_names[id(fn)] = self.constant(fn, _identifier(hint) + "_")
        return name

    def const_value(self, value: Any, aval: ShapedArray) -> _Value:
        """A jaxpr const, hoisted once per distinct object."""
        key = (id(value), aval)
        hoisted = self._const_values.get(key)
        if hoisted is None:
            name = self.constant(_const_buffer(value, aval), "const")
            hoisted = self._const_values[key] = _Value(name, aval, _CONST)
        return hoisted

    def literal_value(self, literal: Literal) -> _Value:
        # The literal's own object (a Python or NumPy scalar) goes in the
        # namespace: impls see exactly what eval_jaxpr hands them, and no
        # float32 repr has to round-trip through the source.
        value = self._literal_values.get(id(literal))
        if value is None:
            literal_value = literal.val
            if type(literal_value) in (bool, int, float, complex):
                # A Python scalar becomes a NumPy scalar of the literal's dtype:
                # an equation whose operands are all literals must not compute
                # in float64/int64 (dtypes are already resolved in a jaxpr).
                literal_value = np.asarray(literal_value, literal.aval.dtype)[()]
            name = self.constant(literal_value, "lit")
            value = self._literal_values[id(literal)] = _Value(name, literal.aval, _LITERAL)
        return value

    # --- equations
    def inline(self, jaxpr: Jaxpr, in_values: Sequence[_Value]) -> list[_Value]:
        """Splices `jaxpr`'s equations into the program; returns its outputs.

        Its consts are hoisted; its variables get fresh names, so one jaxpr
        may be inlined any number of times."""
        if len(jaxpr.consts) != len(jaxpr.constvars):
            raise ValueError(
                f"compile_jaxpr needs a closed jaxpr: {len(jaxpr.constvars)} constvars "
                f"but {len(jaxpr.consts)} consts"
            )
        env: dict[Var, _Value] = {}
        for var, const in zip(jaxpr.constvars, jaxpr.consts, strict=True):
            env[var] = self.const_value(const, var.aval)
        for var, value in zip(jaxpr.invars, in_values, strict=True):
            env[var] = value
        # The region tiers replace runs of equations by regions they run
        # (tiers.py): block by block on the cores, row by row as C. A tier
        # may first rewrite the equations for its regions (`prepare`).
        for tier in self.tiers.regions:
            prepare = getattr(tier, "prepare", None)
            if prepare is not None:
                jaxpr = prepare(self, jaxpr)
        items: list = list(range(len(jaxpr.eqns)))
        for tier in self.tiers.regions:
            items = tier.plan(self, jaxpr, items) or items
        for item in items:
            if type(item) is not int:
                tier, region = item
                tier.emit(self, region, env)
                continue
            eqn = jaxpr.eqns[item]
            ins = [self.literal_value(v) if type(v) is Literal else env[v] for v in eqn.invars]
            outs = self.emit_eqn(eqn, ins)
            for var, value in zip(eqn.outvars, outs, strict=True):
                if value is not None and type(var) is not DropVar:
                    env[var] = value
        return [self._output_value(v) if type(v) is Literal else env[v] for v in jaxpr.outvars]

    def emit_region_call(self, runner: Callable, invars: list, outvars: list, env: dict, what: str) -> None:
        """Emits one call of `runner` computing every value a region exports."""
        out_avals = [v.aval for v in outvars]
        outs = self.call(runner, [env[v] for v in invars], out_avals, multiple_results=True,
                         hint=what.replace(" ", "_"))
        if self.checks:
            self._emit_check(what, {}, out_avals, outs)
        for var, value in zip(outvars, outs, strict=True):
            env[var] = value

    def compile_block(self, jaxpr: Jaxpr, tiled_outputs: Sequence[bool]) -> tuple[Callable, set[int]]:
        """A tiled region's block, compiled with the block's tiers (see `_compile_block`)."""
        return _compile_block(self.impls, self.tiers.for_block(), jaxpr, tiled_outputs)

    def _output_value(self, literal: Literal) -> _Value:
        # A literal output is returned as a NumPy value of its aval's dtype,
        # read-only because every call returns the same object.
        buffer = np.array(literal.val, dtype=literal.aval.dtype)
        buffer.flags.writeable = False
        return _Value(self.constant(buffer, "out"), literal.aval, _LITERAL)

    def emit_eqn(self, eqn: JaxprEqn, ins: list[_Value]) -> list[_Value | None]:
        outs = self._emit_eqn(eqn, ins)
        if self.checks:
            self._emit_check(eqn.primitive.name, eqn.params, [v.aval for v in eqn.outvars], outs)
        return outs

    def _emit_check(self, name: str, params: dict, avals: list, outs: Sequence[_Value | None]) -> None:
        # jax_enable_checks: the outputs checked against their avals where
        # they are computed (dispatch.check_outputs names the primitive).
        present = [(o, a) for o, a in zip(outs, avals, strict=True) if o is not None]
        if not present:
            return
        check = self.constant(functools.partial(check_outputs, name, params, [a for _, a in present]), "check")
        self.instrs.append(_Instr(None, [o for o, _ in present], [],
                                  render=lambda in_names, _: [f"{check}({', '.join(in_names)})"]))

    def _emit_eqn(self, eqn: JaxprEqn, ins: list[_Value]) -> list[_Value | None]:
        primitive = eqn.primitive
        emitter = EMITTERS.get(primitive.name)
        if emitter is not None:
            return emitter(self, eqn, ins)
        impl = self.impls.get(primitive)
        if impl is None:
            raise missing_rule_error("impl", primitive.name)
        is_default = backend_impl(self.impls, primitive) is not None
        if is_default and primitive.name in IDENTITIES:
            return list(ins)
        out_avals = [v.aval for v in eqn.outvars]
        ufunc = ufunc_of(eqn, impl, is_default)
        if ufunc is not None:
            outs = [self.new_value(out_avals[0])]
            operator = _scalar_operator(primitive.name, ins, out_avals[0])
            if operator is not None:
                self.instrs.append(_Instr(None, list(ins), outs, render=operator))
                return outs
            split = self.tiers.split.ufunc(ufunc, out_avals[0].shape, out_avals[0].dtype) if self.tiers.split else None
            column = None
            for operands in ([self._spreads.get(v, v) for v in ins], ins) if split is None else ():
                # (an operand spread from a row is read as the row itself where that makes a wide op)
                column = column_ufunc(ufunc, tuple(v.aval.shape for v in operands), tuple(out_avals[0].shape))
                if column is not None:
                    ins = operands
                    break
            if split is not None:
                # A large elementwise op runs by blocks on every core (parallel/split.py).
                fn = self._function(split, "split_" + ufunc.__name__)
            elif column is not None:
                # Short rows and one row broadcast along them: by wide rows (columns.py).
                fn = self._function(column, column.__name__)
            else:
                fn = self._function(ufunc, "np_" + ufunc.__name__)
            self.instrs.append(_Instr(fn, ins, outs, ufunc=ufunc))
            return outs
        if is_default and primitive.name == "convert_element_type":
            outs = self._direct_convert(eqn, ins)
            if outs is not None:
                return outs
        if is_default and primitive.name == "dot_general":
            outs = self._direct_dot(eqn, ins)
            if outs is not None:
                return outs
        if is_default and primitive.name == "slice" and ins[0].aval.shape:
            # A basic-index view with the index tuple built once (the impl
            # builds it on every call: ~2 us of an unrolled roll's ~3).
            p = eqn.params
            index = self.constant(tuple(map(slice, p["start_indices"], p["limit_indices"],
                                            p["strides"] or (1,) * len(p["start_indices"]))), "index")
            return self.statement(lambda ins_, outs_: [f"{outs_[0]} = {ins_[0]}[{index}]"], ins, out_avals)
        outs = self.call(impl, ins, out_avals, eqn.params, primitive.multiple_results, hint=primitive.name)
        if is_default and column_spread(eqn):
            self._spreads[outs[0]] = ins[0]
            self.instrs[-1].pure = True
        if getattr(impl, "fresh_result", False) and not primitive.multiple_results and out_avals[0].shape:
            # The impl declares it always returns a new buffer of its own:
            # later ufuncs may write into it once it is dead.
            self.instrs[-1].fresh = True
        return outs

    def _direct_convert(self, eqn: JaxprEqn, ins: list[_Value]) -> list[_Value] | None:
        """A cast NumPy does exactly and silently, without the impl's checks
        (~3 us, paid by every `cond`'s bool -> int32 index): bool to a number,
        a widening of an integer within its signedness, float32 to float64.
        Other casts keep the impl (XLA's saturating float -> int, complex ->
        real, float0, `!= 0` for bool targets, warnings on overflow)."""
        (x,) = ins
        src, dst = x.aval.dtype, eqn.outvars[0].aval.dtype
        if not (isinstance(src, np.dtype) and isinstance(dst, np.dtype)):
            return None  # extended dtypes (PRNG keys)
        exact = (
            (src.kind == "b" and dst.kind in "iu" or src.kind == "b" and dst in _SCALAR_FLOATS)
            or (src.kind == dst.kind and src.kind in "iu" and dst.itemsize >= src.itemsize)
            or (src == np.float32 and dst == np.float64)
        )
        if not exact:
            return None
        outs = [self.new_value(eqn.outvars[0].aval)]
        if x.aval.shape:  # an ndarray: astype returns a fresh buffer
            dtype = self.constant(dst, "dtype")
            render = lambda ins_, outs_: [f"{outs_[0]} = {ins_[0]}.astype({dtype})"]
        else:  # a NumPy (or Python) scalar or a 0-d array: the scalar type converts it
            scalar = self.constant(dst.type, "np_" + dst.name + "_")
            render = lambda ins_, outs_: [f"{outs_[0]} = {scalar}({ins_[0]})"]
        self.instrs.append(_Instr(None, list(ins), outs, render=render, fresh=bool(x.aval.shape)))
        return outs

    def _direct_dot(self, eqn: JaxprEqn, ins: list[_Value]) -> list[_Value] | None:
        """A product as a direct BLAS call where its layout allows (dots.py):
        bitwise the impl's, without its ~15 us of Python."""
        render = dots.direct_dot(self, eqn, [v.aval for v in ins])
        if render is None:
            return None
        out_aval = eqn.outvars[0].aval
        outs = [self.new_value(out_aval)]
        self.instrs.append(_Instr(None, list(ins), outs, render=render, fresh=bool(out_aval.shape)))
        return outs

    def call(
        self, fn: Callable, ins: Sequence[_Value], out_avals: Sequence[ShapedArray],
        params: dict | None = None, multiple_results: bool = False, hint: str = "fn",
    ) -> list[_Value]:
        """Emits `outs = fn(*ins, **params)`; params are static."""
        outs = [self.new_value(a) for a in out_avals]
        kwargs = self._kwargs_source(params or {})
        self.instrs.append(_Instr(self._function(fn, hint), list(ins), outs, kwargs, multiple_results))
        return outs

    def statement(
        self, render: Callable[..., list[str]], ins: Sequence[_Value],
        out_avals: Sequence[ShapedArray], *, writes_input: bool = False,
    ) -> list[_Value]:
        """Emits custom source: `render(in_names, out_names)` returns lines
        (relative indentation allowed) that read only `ins` and bind every
        output name. Outputs are assumed to possibly alias the inputs.

        With `writes_input`, where an input of the first output's shape and
        dtype is a buffer this function owns and reads nowhere after, the
        call is `render(in_names, out_names, out_buffer=its name)` and the
        lines may compute the first output into it."""
        outs = [self.new_value(a) for a in out_avals]
        self.instrs.append(_Instr(None, list(ins), outs, render=render, writes_input=writes_input))
        return outs

    def block(self, jaxpr: Jaxpr, outer_names: Sequence[str | None],
              out_targets: Sequence[str | None] | None = None, tiers: tiers_lib.Tiers | None = None) -> Block:
        """Compiles `jaxpr` into lines to splice into this function (a loop or
        branch body run in place: no call per iteration).

        `outer_names[k]` is the name of a value of the enclosing code that the
        block reads as its k-th input (a loop-invariant const, or a loop
        variable owned by the caller), or None for an input the caller binds
        before running the lines (the block may `del` such a name). The block
        releases and reuses its own temporaries like a function body does; it
        never writes into its inputs.

        `out_targets[k]`, when given and not None, is an expression naming
        an array slot of the k-th output's shape and dtype (a loop's
        `ys[i]`): where the output is a ufunc result that no other output
        shares memory with, the ufunc writes straight into it, and
        `Block.written` holds k (the caller then skips its copy). `tiers`:
        the block's own, when not this function's."""
        sub = ProgramBuilder(self.impls, self.tiers if tiers is None else tiers, parent=self)
        ins = [
            sub.new_value(v.aval, _INPUT) if name is None else _Value(name, v.aval, _OUTER)
            for name, v in zip(outer_names, jaxpr.invars, strict=True)
        ]
        outs = sub.inline(jaxpr, ins)
        _mark_last_uses(sub.instrs, outs)
        _assign_out_buffers(sub.instrs)
        written = _write_outputs_in_place(sub.instrs, outs, out_targets) if out_targets else set()
        return Block([v.name for v in ins], _body_lines(sub.instrs), [v.name for v in outs], written)

    def compile_sub(self, jaxpr: Jaxpr, hint: str = "body") -> str:
        """Compiles `jaxpr` separately (a loop or branch body); returns its
        namespace name. The body is called as `name(*values) -> list`."""
        compiled = compile_jaxpr(jaxpr, self.impls, name=_identifier(hint), tiers=self.tiers)
        return self.constant(compiled.func, hint)

    def _kwargs_source(self, params: dict) -> str:
        parts = []
        for key, value in params.items():
            if not (key.isidentifier() and not keyword.iskeyword(key)):
                return "**" + self.constant(dict(params), "params")
            if _is_source_literal(value):
                parts.append(f"{key}={value!r}")
            else:
                parts.append(f"{key}={self.constant(value, 'p')}")
        return ", ".join(parts)

    # --- passes 2 and 3, and code generation
    def build(
        self, name: str, in_values: list[_Value], out_values: list[_Value], *, reuse_buffers: bool = True,
        native: str | None = None, native_steps: int = 0,
    ) -> tuple[Callable, str]:
        _mark_last_uses(self.instrs, out_values)
        if reuse_buffers:
            _assign_out_buffers(self.instrs)
        name = _identifier(name)
        name = name + "_" if keyword.iskeyword(name) else name
        source = _generate_source(name, self.instrs, in_values, out_values, native, native_steps)
        self.conversion_done = time.perf_counter()
        return self.define(name, source), source

    def define(self, name: str, source: str) -> Callable:
        """Executes generated `source` defining function `name` in this
        builder's namespace; tracebacks show its lines."""
        filename = f"<pyjax compiled {name} #{next(_compile_ids)}>"
        exec(compile(source, filename, "exec"), self.namespace)  # noqa: S102 (our own source)
        fn = self.namespace[name]
        _register_source(fn, filename, source)
        return fn


class Block:
    """Inlined code of a jaxpr (`ProgramBuilder.block`): `lines` (unindented)
    read the names `in_names` and bind `out_names` (which may be input names,
    or namespace globals for literal and const outputs)."""

    __slots__ = ("in_names", "lines", "out_names", "written")

    def __init__(self, in_names: list[str], lines: list[str], out_names: list[str], written: set[int]):
        self.in_names = in_names
        self.lines = lines
        self.out_names = out_names
        self.written = written  # outputs already stored in their out_targets


def _compile_block(impls: dict, tiers: tiers_lib.Tiers, jaxpr: Jaxpr,
                   tiled_outputs: Sequence[bool]) -> tuple[Callable, set[int]]:
    """A tiled region's block (tile.py) as `fn(*inputs, *targets) -> list`:
    `targets` are the slices of the region's tiled outputs this block
    fills, one per True in `tiled_outputs`; ufunc results are written
    straight into them (their indices are returned in the set), other
    outputs are returned for the caller to store."""
    builder = ProgramBuilder(impls, tiers)
    targets = [f"target__{k}" if tiled else None for k, tiled in enumerate(tiled_outputs)]
    block = builder.block(jaxpr, [None] * len(jaxpr.invars), targets)
    params = [*block.in_names, *(t for t in targets if t is not None)]
    lines = [f"def tiled_block({', '.join(params)}):", *("    " + line for line in block.lines),
             f"    return [{', '.join(block.out_names)}]"]
    return builder.define("tiled_block", "\n".join(lines) + "\n"), block.written



def _identifier(hint: str) -> str:
    cleaned = "".join(c if c.isalnum() or c == "_" else "_" for c in hint)
    return cleaned if cleaned and not cleaned[0].isdigit() else "f" + cleaned


def _const_buffer(value: Any, aval: ShapedArray) -> Any:
    """A const as the buffer the impls receive, cast to its aval's dtype the
    way the eval trace would cast it (e.g. a float64 NumPy array, x64 off)."""
    if isinstance(value, Array):
        return value._value
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype != aval.dtype:
        return value.astype(aval.dtype)
    return value


# ---------------------------------------------------------------------------
# Pass 2: liveness


def _mark_last_uses(instrs: list[_Instr], out_values: list[_Value]) -> None:
    for i, instr in enumerate(instrs):
        for value in instr.ins:
            value.last_use = i
    end = len(instrs)
    for value in out_values:
        value.last_use = end  # returned: never released


# ---------------------------------------------------------------------------
# Pass 3: in-place reuse of dead intermediates


def _assign_out_buffers(instrs: list[_Instr]) -> None:
    """Chooses, for each ufunc, a dead input buffer to write its result into.

    A buffer qualifies only if this function allocated it (a ufunc result
    with at least one dimension, hence a fresh writeable ndarray, or the
    result of an impl that declares `fresh_result` — never an input, const,
    literal, view or other impl result), its shape and dtype equal
    the output's, and no value that may share its memory is read after this
    instruction. Sharing is tracked conservatively: the result of anything
    but a ufunc (a reshape, a broadcast, an identity, a custom statement) may
    alias every owned buffer among its inputs.
    """
    for i, instr in enumerate(instrs):
        if instr.ufunc is not None and instr.outs[0].aval.shape:
            out = instr.outs[0]
            candidate = _dead_buffer(instr, i)
            if candidate is not None:
                instr.out_buffer = candidate
                out.root = candidate.root
            else:
                out.root = out
            out.aliases = (out.root,)
            _note_aliases(out)
        elif instr.writes_input and instr.outs[0].aval.shape:
            # It may write into a dead buffer, or return views of its
            # inputs: its outputs own nothing and may alias every input.
            instr.out_buffer = _dead_buffer(instr, i)
            aliases = _union_aliases(instr.ins)
            for out in instr.outs:
                out.aliases = aliases
                _note_aliases(out)
        elif instr.fresh:
            out = instr.outs[0]
            out.root = out
            out.aliases = (out,)
            _note_aliases(out)
        else:
            aliases = _union_aliases(instr.ins)
            for out in instr.outs:
                out.aliases = aliases
                _note_aliases(out)


def _dead_buffer(instr: _Instr, i: int) -> _Value | None:
    # An input of instruction i that owns its buffer, of the first output's
    # shape and dtype, with nothing sharing the buffer read after i.
    out = instr.outs[0]
    for candidate in instr.ins:
        root = candidate.root
        if (root is not None and root.alias_last_use == i and candidate.aval.shape == out.aval.shape
                and candidate.aval.dtype == out.aval.dtype):
            return candidate
    return None


def _write_outputs_in_place(instrs: list[_Instr], outs: list[_Value], targets: Sequence[str | None]) -> set[int]:
    """Redirects the ufuncs (and direct products, dots.py) computing outputs
    into their targets (see `ProgramBuilder.block`); returns the indices of
    the outputs redirected.

    Only a ufunc result with at least one dimension qualifies (a 0-d ufunc
    result is a NumPy scalar), returned once, whose buffer no other output
    may share: otherwise a carry could end up a view of the stacked ys."""
    producers = {id(out): instr for instr in instrs for out in instr.outs
                 if instr.ufunc is not None or getattr(instr.render, "writes_target", False)}
    written = set()
    for k, (value, target) in enumerate(zip(outs, targets, strict=True)):
        instr = producers.get(id(value))
        if target is None or instr is None or not value.aval.shape:
            continue
        others = [o for j, o in enumerate(outs) if j != k]
        if any(o is value or value.root in o.aliases for o in others):
            continue
        instr.out_buffer = None  # a dead buffer it would have reused simply stays dead
        instr.out_target = target
        written.add(k)
    return written


def _union_aliases(values: list[_Value]) -> tuple:
    found: dict[int, _Value] = {}
    for value in values:
        for root in value.aliases:
            found[id(root)] = root
    return tuple(found.values())


def _note_aliases(value: _Value) -> None:
    for root in value.aliases:
        root.alias_last_use = max(root.alias_last_use, value.last_use)


# ---------------------------------------------------------------------------
# Code generation


_compile_ids = itertools.count()


def _generate_source(name: str, instrs: list[_Instr], in_values: list[_Value],
                     out_values: list[_Value], native: str | None = None, native_steps: int = 0) -> str:
    args = ", ".join(v.name for v in in_values)
    outs = ", ".join(v.name for v in out_values)
    lines = [f"def {name}({args}):"]
    if native is not None:
        # The native tier (native.py): its outputs, or None and the Python code.
        lines += [f"    _nr = {native}.run({args})", "    if _nr is not None:", "        return _nr"]
    lines.extend("    " + line for line in _body_lines(instrs))
    if native is not None:
        lines.append(f"    {native}.check({native_steps}, {outs})")
    lines.append(f"    return [{outs}]")
    return "\n".join(lines) + "\n"


def _body_lines(instrs: list[_Instr]) -> list[str]:
    """The statements of `instrs` (unindented), each local deleted after its last use."""
    lines = []
    for i, instr in enumerate(instrs):
        lines.extend(_instr_lines(instr))
        dead: dict[str, None] = {}
        for value in instr.ins:
            if value.last_use == i and value.is_local:
                dead[value.name] = None
        if instr.render is not None:  # custom code binds every output name
            for value in instr.outs:
                if value.last_use == _NEVER:
                    dead[value.name] = None
        if dead:
            lines.append(f"del {', '.join(dead)}")
    return lines


def _instr_lines(instr: _Instr) -> list[str]:
    if instr.render is not None:
        names = [v.name for v in instr.ins], [v.name for v in instr.outs]
        if instr.out_buffer is not None:
            return list(instr.render(*names, out_buffer=instr.out_buffer.name))
        if instr.out_target is not None:  # (a direct product: dots.py)
            return list(instr.render(*names, out_target=instr.out_target))
        return list(instr.render(*names))
    args = [v.name for v in instr.ins]
    if instr.out_target is not None:
        args.append(instr.out_target)
    elif instr.out_buffer is not None:
        # Positional: a ufunc parses it ~60 ns faster than `out=` (it matters in loop bodies).
        args.append(instr.out_buffer.name)
    elif instr.kwargs:
        args.append(instr.kwargs)
    call = f"{instr.fn}({', '.join(args)})"
    used = [v.last_use != _NEVER for v in instr.outs]
    if not any(used):
        return [] if instr.pure else [call]  # run for its errors; the result is dropped at once
    if not instr.multiple_results:
        return [f"{instr.outs[0].name} = {call}"]
    targets = [v.name if u else "_" for v, u in zip(instr.outs, used, strict=True)]
    line = f"{', '.join(targets)}{',' if len(targets) == 1 else ''} = {call}"
    return [line, "del _"] if not all(used) else [line]


def _register_source(fn: Callable, filename: str, source: str) -> None:
    # Tracebacks through generated code show its lines; the entry goes when
    # the function does.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    weakref.finalize(fn, linecache.cache.pop, filename, None)


# ---------------------------------------------------------------------------
# Code emitters: primitives compiled by rewriting instead of an impl call.


def _inline_jit(builder: ProgramBuilder, eqn: JaxprEqn, ins: list[_Value]) -> list[_Value]:
    # jit's body runs in the caller's frame: no call, and its buffers are
    # released and reused like the caller's own.
    return builder.inline(eqn.params["jaxpr"], ins)


EMITTERS: dict[str, Callable[[ProgramBuilder, JaxprEqn, list[_Value]], list[_Value | None]]] = {
    "jit": _inline_jit,
    "remat2": _inline_jit,  # a checkpoint's body runs inline too (rematerialisation is a partial-eval matter)
    "name": lambda builder, eqn, ins: list(ins),  # checkpoint_name: no code
}
# Control flow's emitters (codegen/control_flow.py) register themselves here.
