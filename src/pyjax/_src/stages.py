"""The stages of jit as objects: Traced -> Lowered -> Compiled.

    traced = jit(f).trace(x)      # .jaxpr, .out_info, .lower()
    lowered = traced.lower()      # .as_text(), .cost_analysis(), .compile()
    compiled = lowered.compile()  # callable; .as_text(), .cost_analysis(), .memory_analysis()

`Lowered.as_text()` is the StableHLO module JAX 0.11 prints for the
function (`dialect='stablehlo'`, the default; backends/stablehlo), and
`Lowered.compiler_ir('stablehlo')` the same module as an object whose `str`
is that text. On the NumPy backend "compilation" translates the jaxpr to
Python source and turns it into a code object: `Compiled.as_text()` shows
that generated Python (and `Lowered.as_text('python')` too). Cost and memory figures are estimated from the jaxpr
before any optimisation (they count every equation's flops and the bytes it
reads and writes), as JAX's Lowered.cost_analysis does.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from pyjax._src.avals import ShapeDtypeStruct
from pyjax._src.jaxpr import Jaxpr, Literal, subjaxprs
from pyjax._src.tree_util import tree_flatten, tree_unflatten

DIALECTS = ("stablehlo", "python", "jaxpr")

# jaxpr, name, out_tree, donated, keep_unused -> module: the StableHLO
# lowering, wired in by the backend (this layer does not import backends).
_stablehlo_lowering = None


def set_stablehlo_lowering(lower) -> None:
    """Installs the function `Lowered.compiler_ir('stablehlo')` calls."""
    global _stablehlo_lowering
    _stablehlo_lowering = lower


def _nbytes(aval) -> int:
    return int(aval.size) * aval.dtype.itemsize


def _eqn_flops(eqn) -> float:
    name = eqn.primitive.name
    out_size = sum(v.aval.size for v in eqn.outvars)
    if name == "dot_general":
        (lc, _), _ = eqn.params["dimension_numbers"]
        contract = int(np.prod([eqn.invars[0].aval.shape[d] for d in lc], dtype=np.int64))
        return 2.0 * out_size * contract
    if name.startswith("reduce_") or name in ("argmax", "argmin"):
        return float(eqn.invars[0].aval.size)
    if name in ("broadcast_in_dim", "reshape", "transpose", "squeeze", "convert_element_type", "iota",
                "slice", "concatenate", "rev", "copy", "stop_gradient", "select_n"):
        return 0.0
    return float(out_size)


def cost_analysis(jaxpr: Jaxpr) -> dict[str, float]:
    """Flops and bytes accessed of every equation (sub-jaxprs included)."""
    flops = 0.0
    bytes_accessed = 0.0
    for eqn in jaxpr.eqns:
        inner = list(subjaxprs(eqn.params))
        if inner:
            for sub in inner:
                sub_cost = cost_analysis(sub)
                flops += sub_cost["flops"]
                bytes_accessed += sub_cost["bytes accessed"]
            continue
        flops += _eqn_flops(eqn)
        bytes_accessed += sum(_nbytes(v.aval) for v in eqn.invars) + sum(_nbytes(v.aval) for v in eqn.outvars)
    return {"flops": flops, "bytes accessed": bytes_accessed}


class CompiledMemoryStats(NamedTuple):
    """Memory a compiled computation needs, in bytes."""

    generated_code_size_in_bytes: int
    argument_size_in_bytes: int
    output_size_in_bytes: int
    alias_size_in_bytes: int
    temp_size_in_bytes: int
    host_generated_code_size_in_bytes: int = 0
    host_argument_size_in_bytes: int = 0
    host_output_size_in_bytes: int = 0
    host_alias_size_in_bytes: int = 0
    host_temp_size_in_bytes: int = 0


def memory_analysis(jaxpr: Jaxpr, source: str) -> CompiledMemoryStats:
    """Arguments, outputs, and the peak of live intermediates (buffers are
    released after their last use, as the generated code does)."""
    last_use: dict = {}
    for i, eqn in enumerate(jaxpr.eqns):
        for v in eqn.invars:
            if type(v) is not Literal:
                last_use[v] = i
    outs = {v for v in jaxpr.outvars if type(v) is not Literal}
    live = peak = 0
    for i, eqn in enumerate(jaxpr.eqns):
        for v in eqn.outvars:
            live += _nbytes(v.aval)
        peak = max(peak, live)
        for v in {v for v in eqn.invars if type(v) is not Literal}:
            if last_use.get(v) == i and v not in outs and v not in jaxpr.invars and v not in jaxpr.constvars:
                live -= _nbytes(v.aval)
    output_size = sum(_nbytes(v.aval) for v in jaxpr.outvars)
    return CompiledMemoryStats(
        generated_code_size_in_bytes=len(source.encode()),
        argument_size_in_bytes=sum(_nbytes(v.aval) for v in jaxpr.invars),
        output_size_in_bytes=output_size,
        alias_size_in_bytes=0,
        temp_size_in_bytes=max(0, peak - output_size),
    )


def entry_shardings(jitted, args: tuple, kwargs: dict, out_tree, flat_args) -> tuple[list, list] | None:
    """Per flat argument and result of a jitted call, the sharding JAX prints
    on `@main` beyond the types': jit's `in_shardings`/`out_shardings`
    entries, else an argument's own NamedSharding (on an Auto mesh too).
    None when there is none."""
    from pyjax._src.sharding.named import NamedSharding

    placement = jitted._placement(args, kwargs, out_tree) if getattr(jitted, "_placement", None) else {}
    given_in = list(placement.get("in_shardings", ())) or [None] * len(flat_args)
    ins = [s if isinstance(s, NamedSharding) else getattr(a, "sharding", None)
           for s, a in zip(given_in, flat_args)]
    ins = [s if isinstance(s, NamedSharding) else None for s in ins]
    outs = [s if isinstance(s, NamedSharding) else None for s in placement.get("out_shardings", ())]
    return (ins, outs) if any(ins) or any(outs) else None


class Traced:
    """A function traced for given argument types: its jaxpr and output types."""

    def __init__(self, wrapped, jaxpr: Jaxpr, in_tree, out_tree, args_info, fun_name: str):
        self._wrapped = wrapped
        self.jaxpr = jaxpr
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.args_info = args_info
        self.fun_name = fun_name
        self.entry_shardings = None  # (per flat argument, per result: the call's own shardings, for StableHLO)

    in_avals = property(lambda self: self.jaxpr.in_avals)
    out_avals = property(lambda self: self.jaxpr.out_avals)

    @property
    def out_info(self):
        return tree_unflatten(self.out_tree, [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in self.jaxpr.out_avals])

    def eqn_count_by_line(self) -> dict[str, int]:
        """(A pyjax extension.) How many equations each line of the user's
        source staged, loop, branch and call bodies included:
        ``{"model.py:42 (loss)": 7, ...}``, most equations first. Equations
        with no recorded line count under ``"<unknown>"``."""
        from pyjax._src.interpreters.staging import format_source_info
        from pyjax._src.jaxpr import subjaxprs

        counts: dict[str, int] = {}

        def visit(jaxpr) -> None:
            for eqn in jaxpr.eqns:
                where = "<unknown>" if eqn.source_info is None else format_source_info(eqn.source_info)
                counts[where] = counts.get(where, 0) + 1
                for body in subjaxprs(eqn.params):
                    visit(body)

        visit(self.jaxpr)
        return dict(sorted(counts.items(), key=lambda item: -item[1]))

    def lower(self) -> Lowered:
        from pyjax._src.jit import lower_for_backend

        return Lowered(self, lower_for_backend(self.jaxpr, self.fun_name))


class Lowered:
    """A traced function translated for the backend (Python source on NumPy)."""

    def __init__(self, traced: Traced, lowering):
        self._traced = traced
        self._lowering = lowering

    in_tree = property(lambda self: self._traced.in_tree)
    out_tree = property(lambda self: self._traced.out_tree)
    out_info = property(lambda self: self._traced.out_info)
    args_info = property(lambda self: self._traced.args_info)

    def as_text(self, dialect: str | None = None, *, debug_info: bool = False) -> str:
        """The lowered module as text: StableHLO by default (`dialect=
        'stablehlo'`), or `'python'` (the NumPy backend's generated source)
        or `'jaxpr'`. pyjax prints no location information, so `debug_info`
        changes nothing."""
        if dialect is None or dialect == "stablehlo":
            return str(self.compiler_ir("stablehlo"))
        return _as_text(self._traced.jaxpr, self._lowering.source, dialect)

    def compiler_ir(self, dialect: str | None = None):
        """The lowered module: for `'stablehlo'` (the default) a module
        object whose `str` is its MLIR text."""
        if dialect not in (None, "stablehlo"):
            _unsupported_dialect(dialect)
        module = getattr(self, "_stablehlo", None)
        if module is None:
            if _stablehlo_lowering is None:
                raise NotImplementedError("no StableHLO lowering is installed (pyjax's backends/stablehlo wires it)")
            traced = self._traced
            donated = [bool(getattr(info, "donated", False)) for info in tree_flatten(traced.args_info)[0]]
            keep_unused = bool(getattr(traced._wrapped, "_keep_unused", False))
            extra = {"entry_shardings": traced.entry_shardings} if traced.entry_shardings is not None else {}
            module = self._stablehlo = _stablehlo_lowering(traced.jaxpr, traced.fun_name, traced.out_tree,
                                                             donated, keep_unused, **extra)
        return module

    def cost_analysis(self) -> dict[str, float]:
        return cost_analysis(self._traced.jaxpr)

    def compile(self, compiler_options: dict | None = None) -> Compiled:
        return Compiled(self._traced, self._lowering)


# The text of a sharded program's per-device form (spmd_jit.py installs it).
PER_DEVICE_TEXT: list = [lambda jaxpr: None]


class Compiled:
    """A compiled function: call it with arguments of the traced types."""

    def __init__(self, traced: Traced, lowering):
        self._traced = traced
        self._executable = lowering
        self._on_platforms: dict = {}  # (jit(backend='iree') or jax_platforms: compiled there on first call)

    in_tree = property(lambda self: self._traced.in_tree)
    out_tree = property(lambda self: self._traced.out_tree)
    out_info = property(lambda self: self._traced.out_info)
    args_info = property(lambda self: self._traced.args_info)

    def __call__(self, *args, **kwargs) -> Any:
        from pyjax._src.jit import abstractify, platform_for, run_compiled, run_on_platform

        flat, in_tree = tree_flatten((args, kwargs))
        if in_tree != self._traced.in_tree:
            raise TypeError(
                f"Function compiled with input pytree does not match the input pytree it was called with: "
                f"expected {self._traced.in_tree}, got {in_tree}"
            )
        avals = [abstractify(x) for x in flat]
        for i, (got, want) in enumerate(zip(avals, self._traced.jaxpr.in_avals, strict=True)):
            if (got.shape, got.dtype) != (want.shape, want.dtype):
                raise TypeError(
                    f"Argument types differ from the types for which this computation was compiled. "
                    f"The mismatches are:\nArgument {i} compiled with {want.str_short()} and called with {got.str_short()}"
                )
        traced = self._traced
        platform = platform_for(getattr(traced._wrapped, "_backend", None))
        if platform is not None:
            outs = run_on_platform(platform, self._on_platforms, traced.jaxpr, traced.fun_name, traced.out_tree, flat)
        else:
            outs = run_compiled(self._executable, traced.jaxpr, flat)
        return tree_unflatten(traced.out_tree, outs)

    def as_text(self, dialect: str | None = None) -> str:
        if dialect in (None, "python"):  # a sharded program: the per-device program each device runs
            text = PER_DEVICE_TEXT[0](self._traced.jaxpr)
            if text is not None:
                return text
        return _as_text(self._traced.jaxpr, self._executable.source, dialect)

    def cost_analysis(self) -> dict[str, float]:
        return cost_analysis(self._traced.jaxpr)

    def memory_analysis(self) -> CompiledMemoryStats:
        return memory_analysis(self._traced.jaxpr, self._executable.source)


def _unsupported_dialect(dialect) -> None:
    if dialect == "hlo":
        raise ValueError("pyjax lowers to StableHLO only: dialect 'hlo' (XLA's HloModule text) is not produced; "
                         "use dialect='stablehlo'")
    raise ValueError(f"unknown dialect: {dialect} (pyjax accepts {', '.join(map(repr, DIALECTS))})")


def _as_text(jaxpr: Jaxpr, source: str, dialect: str | None) -> str:
    if dialect is None or dialect == "python":
        return source
    if dialect == "jaxpr":
        return str(jaxpr)
    _unsupported_dialect(dialect)
