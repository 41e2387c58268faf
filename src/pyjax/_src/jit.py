"""jit: stage a function out once per input signature, compile it, cache it.

The cache key is (function, input treedef, every leaf's aval, static
arguments, tracing-relevant config). On a miss the function is traced to a
jaxpr and compiled by the backend; on a hit the compiled function runs on the
flat NumPy buffers directly. Under another trace (inside make_jaxpr, grad,
or an outer jit) a jitted call is one `jit` equation holding the jaxpr.
"""

from __future__ import annotations

import functools
import inspect
import logging
import time
import traceback
import weakref
from typing import Any, Callable, Sequence

import numpy as np

from pyjax._src import cache_miss, config, core, dispatch, donation, dtypes, errors, monitoring, rules
from pyjax._src.distributed import gather_value
from pyjax._src.array import Array, guard_forwarded
from pyjax._src.avals import ShapeDtypeStruct, ShapedArray
from pyjax._src.ref_types import AbstractRef
from pyjax._src.tokens import AbstractToken, Token
from pyjax._src.cache_key import typed_key
from pyjax._src.core import Primitive
from pyjax._src.interpreters import batching, key_reuse
from pyjax._src.interpreters.dce import call_dce_rule
from pyjax._src.interpreters.partial_eval import call_partial_eval_custom_rule
from pyjax._src.interpreters.staging import DebugInfo, format_source_info, func_src_info, staging_caches, trace_to_jaxpr
from pyjax._src.jaxpr import Jaxpr, body_effects, eval_jaxpr
from pyjax._src.sharding import jit_params, placed_call, spmd_data
from pyjax._src.sharding.mesh import get_mesh
from pyjax._src.sharding.mesh import eager_mesh
from pyjax._src.sharding.sharded_array import place_typed, relayout_auto_jit, type_on_context_mesh
from pyjax._src.tree_util import keystr, tree_flatten, tree_flatten_with_path, tree_unflatten

# ---------------------------------------------------------------------------
# The jit primitive: a call of a closed jaxpr.

jit_p = Primitive("jit", multiple_results=True).declare(body_params=("jaxpr",), call_body="jaxpr")
jit_p.declare(sharding_reason=rules.SHARDING_OF_CALL)
jit_p.declare(effects_of=body_effects("jaxpr"), key_reuse=key_reuse.BodySignature("jaxpr", "jit-compiled function"))
jit_p.pp_param_order = ("name", "ctx_mesh", "donated_invars", "in_shardings", "jaxpr", "keep_unused", "out_shardings")
jit_p.pp_alias_body = "jaxpr"


def _jit_pp_hidden(key, value) -> bool:
    if key == "donated_invars":
        return not any(value)
    if key == "keep_unused":
        return not value
    return jit_params.hidden(key, value)


jit_p.pp_hidden = _jit_pp_hidden


@jit_p.def_abstract_eval
def _jit_abstract_eval(*avals, jaxpr: Jaxpr, **params):
    return jaxpr.out_avals


# ---------------------------------------------------------------------------
# Tracing with argument names (for error messages)


def _arg_names(fun: Callable, args: tuple, kwargs: dict, static_argnums: tuple) -> list[str]:
    try:
        signature = inspect.signature(fun)
        bound = signature.bind(*args, **kwargs)
        params = list(signature.parameters.values())
    except (TypeError, ValueError):
        bound, params = None, []
    names = []
    for i, arg in enumerate(args):
        if i in static_argnums:
            continue
        if bound is not None and i < len(params) and params[i].kind in (params[i].POSITIONAL_ONLY, params[i].POSITIONAL_OR_KEYWORD):
            base = params[i].name
        else:
            var_positional = next((p.name for p in params if p.kind is p.VAR_POSITIONAL), "args")
            first_var = next((k for k, p in enumerate(params) if p.kind is p.VAR_POSITIONAL), 0)
            base = f"{var_positional}[{i - first_var}]"
        for path, _ in tree_flatten_with_path(arg)[0]:
            names.append(base + keystr(path))
    for key in sorted(kwargs):
        for path, _ in tree_flatten_with_path(kwargs[key])[0]:
            names.append(key + keystr(path))
    return names


def abstractify(x) -> ShapedArray:
    aval = getattr(x, "aval", None)
    if aval is not None:
        return aval
    return core.concrete_aval(x)


def _abstractify_args(fun, flat_args, args, kwargs, static_argnums) -> tuple:
    """The avals of the flat arguments, or JAX's error naming the bad argument."""
    avals = []
    for i, x in enumerate(flat_args):
        try:
            avals.append(abstractify(x))
        except TypeError:
            names = _arg_names(fun, args, kwargs, static_argnums)
            path = names[i] if i < len(names) else f"args[{i}]"
            raise TypeError(
                f"Error interpreting argument to {fun!r} as an abstract array. The problematic value "
                f"is of type {type(x)} and was passed to the function at path {path}.\nThis typically "
                "means that a jit-wrapped function was called with a non-array argument, and this "
                "argument was not marked as static using the static_argnums or static_argnames "
                "parameters of jax.jit."
            ) from None
    return tuple(avals)


def trace_flat(fun: Callable, args: tuple, kwargs: dict, static_argnums: tuple, traced_for: str = "jit"):
    """Traces fun(*args, **kwargs) with the non-static arguments abstracted.

    Returns (jaxpr, in_tree, out_tree, flat_args)."""
    dyn_args = tuple(a for i, a in enumerate(args) if i not in static_argnums)
    flat_args, in_tree = tree_flatten((dyn_args, kwargs))
    avals = _abstractify_args(fun, flat_args, args, kwargs, static_argnums)
    debug = DebugInfo(traced_for, func_src_info(fun), _arg_names(fun, args, kwargs, static_argnums))
    if config.no_tracing.value:
        raise RuntimeError(f"re-tracing function {debug.func_src_info} for `jit`, but 'no_tracing' is set")
    start = time.perf_counter()
    out_tree_box = []

    def flat_fun(*flat):
        dyn, kw = tree_unflatten(in_tree, flat)
        it = iter(dyn)
        full = [a if i in static_argnums else next(it) for i, a in enumerate(args)]
        out = fun(*full, **kw)
        out_flat, out_tree = tree_flatten(out)
        out_tree_box.append(out_tree)
        return out_flat

    if any(type(a) is AbstractRef for a in avals):
        _check_ref_aliasing(flat_args, avals, debug)
    if monitoring.listening():
        with monitoring.timed_event(monitoring.JAXPR_TRACE_EVENT, getattr(fun, "__name__", debug.func_name)):
            jaxpr, _ = trace_to_jaxpr(flat_fun, avals, debug)
    else:
        jaxpr, _ = trace_to_jaxpr(flat_fun, avals, debug)
    if any(type(a) is AbstractRef for a in jaxpr.out_avals):
        _refuse_returned_ref(jaxpr, debug, out_tree_box[0])
    _log_stage(f"Finished tracing {debug.func_name} for {traced_for} in {time.perf_counter() - start:.9f} sec")
    return jaxpr, in_tree, out_tree_box[0], flat_args


def _check_ref_aliasing(flat_args, avals, debug: DebugInfo) -> None:
    """JAX's error for one mutable array reference passed as two arguments."""
    seen: dict = {}
    for i, (x, aval) in enumerate(zip(flat_args, avals)):
        if type(aval) is not AbstractRef:
            continue
        if id(x) in seen:
            names = debug.arg_names or ()
            name = lambda k: names[k] if k < len(names) else f"args[{k}]"  # noqa: E731
            raise ValueError(
                "only one reference to a mutable array may be passed as an argument to a function, but when "
                f"tracing {debug.func_src_info} for {debug.traced_for} the mutable array reference of type "
                f"{aval} appeared at both {name(seen[id(x)])} and {name(i)}.")
        seen[id(x)] = i


def _refuse_returned_ref(jaxpr: Jaxpr, debug: DebugInfo, out_tree=None) -> None:
    """JAX's error for a traced function that returns a mutable array reference."""
    for i, out in enumerate(jaxpr.outvars):
        if type(out.aval) is not AbstractRef:
            continue
        at = ""
        if out_tree is not None:  # (JAX names the output's place unless it is the whole result)
            from pyjax._src.tree_util import SENTINEL, tree_flatten_with_path
            from pyjax._src.tree_util_keys import keystr

            placeholders = tree_unflatten(out_tree, [SENTINEL] * out_tree.num_leaves)
            path = tree_flatten_with_path(placeholders, is_leaf=lambda x: x is SENTINEL)[0][i][0]
            at = f" at output tree path result{keystr(path)}" if path else ""
        where = ""
        if out in jaxpr.invars:
            k = jaxpr.invars.index(out)
            names = debug.arg_names or ()
            where = f"was passed in as the argument {names[k] if k < len(names) else f'args[{k}]'}."
        else:
            eqn = next((e for e in jaxpr.eqns if out in e.outvars), None)
            if eqn is not None and eqn.source_info is not None:
                where = f"was created on line {format_source_info(eqn.source_info, with_column=True)}."
        raise ValueError(
            f"function {debug.func_src_info} traced for {debug.traced_for} returned a mutable array reference "
            f"of type {out.aval}{at}, but mutable array references cannot be returned."
            + (f"\n\nThe returned mutable array {where}" if where else ""))


# ---------------------------------------------------------------------------
# jax_log_compiles: the stage timers, in JAX's words adapted to the backend

logger = logging.getLogger("pyjax._src.dispatch")


def _log_stage(message: str) -> None:
    level = logging.WARNING if config.log_compiles.value else logging.DEBUG
    if logger.isEnabledFor(level):
        logger.log(level, message)


def lower_for_backend(jaxpr: Jaxpr, name: str):
    """Compiles `jaxpr` for the default backend, logging the stage timers."""
    _log_stage(
        f"Compiling jit({name}) with global shapes and types ({''.join(repr(a) + ', ' for a in jaxpr.in_avals).rstrip(', ')}"
        f"{',' if len(jaxpr.in_avals) == 1 else ''}). Argument mapping: "
        f"({', '.join('UnspecifiedValue' for _ in jaxpr.in_avals)}{',' if len(jaxpr.in_avals) == 1 else ''})."
    )
    start = time.time()
    compiled = compile_for_backend(jaxpr)
    if monitoring.listening():
        monitoring.record_compile_phases(f"jit({name})", start, getattr(compiled, "conversion_s", 0.0),
                                         getattr(compiled, "compilation_s", 0.0))
    _log_stage(f"Finished jaxpr to Python conversion jit({name}) in {getattr(compiled, 'conversion_s', 0.0):.9f} sec")
    _log_stage(f"Finished NumPy compilation of jit({name}) in {getattr(compiled, 'compilation_s', 0.0):.9f} sec")
    return compiled


# jax_no_execution, kept in a flag its change hook sets (read on every call).
_NO_EXECUTION = [False]
config.no_execution.add_change_hook(lambda: _NO_EXECUTION.__setitem__(0, config.no_execution.value))


# jax_debug_nans / jax_debug_infs: while either is on, debug_nans.py installs
# here its check of a compiled call's outputs, check(jaxpr, name, flat_args,
# outs); the compiled code itself is unchanged.
FLOAT_CHECKS: list = [None]
SPMD_PARTITIONED: list = [lambda jaxpr: None]  # (spmd_jit.py: per-device runs of sharded programs)


def _refuse_execution(name: str) -> None:
    raise RuntimeError(f"JAX tried to execute function jit({name}), but the no_execution config option is set")


# ---------------------------------------------------------------------------
# Other platforms (backends/iree): a compiler registered under a platform name
# runs the jitted calls that name it (`jit(f, backend=name)`) and, when it is
# the first of `jax_platforms`, every jitted call that names none.

_platforms: dict[str, Callable] = {}
_DEFAULT_PLATFORM: list = [None]  # (None: the NumPy backend)


def register_platform(name: str, compile_fn: Callable) -> None:
    """Registers `compile_fn(jaxpr, name, out_tree) -> executable`, with
    `executable(flat_args) -> list[Array]`, as platform `name`'s compiler."""
    _platforms[name] = compile_fn
    _update_default_platform()


def _update_default_platform() -> None:
    first = (config.jax_platforms.value or "").split(",")[0].strip()
    _DEFAULT_PLATFORM[0] = first if first in _platforms else None


config.jax_platforms.add_change_hook(_update_default_platform)


def platform_for(backend: str | None) -> str | None:
    """The registered platform a jitted call with this `backend=` runs on
    (None: the NumPy backend)."""
    if backend is None:
        return _DEFAULT_PLATFORM[0]
    return backend if backend in _platforms else None


def run_on_platform(platform: str, executables: dict, jaxpr: Jaxpr, name: str, out_tree, flat_args) -> list:
    """Runs `jaxpr` on a registered platform (the stage API's Compiled), its
    executable compiled on first use and kept in `executables`."""
    if _NO_EXECUTION[0]:
        _refuse_execution(name)
    executable = executables.get(platform)
    if executable is None:
        executable = executables[platform] = _platforms[platform](jaxpr, name, out_tree)
    return executable(flat_args)


def run_compiled(compiled, jaxpr: Jaxpr, flat_args) -> list:
    if _NO_EXECUTION[0]:
        _refuse_execution(getattr(compiled, "name", "computation"))
    fn = getattr(compiled, "fn", compiled)
    outs = dispatch.fp_mode.run(fn, *[x._value if type(x) is Array else _to_numpy(x) for x in flat_args])
    if _names_placement(jaxpr.out_avals):
        return [_typed_result(v, a) for v, a in zip(outs, jaxpr.out_avals)]
    return [Array(v, a) for v, a in zip(outs, jaxpr.out_avals)]


def hoist_tracer_consts(jaxpr: Jaxpr) -> tuple[Jaxpr, list]:
    """Constants that are tracers of an enclosing trace become leading inputs."""
    if not any(isinstance(c, core.Tracer) for c in jaxpr.consts):
        return jaxpr, []
    keep = [(v, c) for v, c in zip(jaxpr.constvars, jaxpr.consts, strict=True) if not isinstance(c, core.Tracer)]
    hoist = [(v, c) for v, c in zip(jaxpr.constvars, jaxpr.consts, strict=True) if isinstance(c, core.Tracer)]
    new = jaxpr.replace(
        constvars=[v for v, _ in keep], consts=[c for _, c in keep],
        invars=[v for v, _ in hoist] + jaxpr.invars,
    )
    return new, [c for _, c in hoist]


# ---------------------------------------------------------------------------
# The jit wrapper


def _normalize_argnums(argnums, name: str) -> tuple:
    if argnums is None:
        return ()
    if isinstance(argnums, int):
        return (argnums,)
    return tuple(int(a) for a in argnums)


def _normalize_argnames(argnames) -> tuple:
    if argnames is None:
        return ()
    return (argnames,) if isinstance(argnames, str) else tuple(argnames)


class JitWrapped:
    """A jitted function: call it, or inspect its stages (trace/lower)."""

    def __init__(self, fun: Callable, static_argnums=(), static_argnames=(), donate_argnums=(),
                 donate_argnames=(), keep_unused=False, inline=False, backend=None, device=None,
                 in_shardings=None, out_shardings=None, max_traces=None, **unused):
        if not callable(fun):
            raise TypeError(f"Expected a callable value, got {fun}")
        self._fun = fun
        self._max_traces = max_traces  # (a pyjax extension: docs/debugging.md)
        self._static_argnums = _normalize_argnums(static_argnums, "static_argnums")
        self._static_argnames = _normalize_argnames(static_argnames)
        self._donate_argnums = _normalize_argnums(donate_argnums, "donate_argnums")
        self._donate_argnames = _normalize_argnames(donate_argnames)
        self._max_positional = None
        self._infer_from_signature(fun)
        self._keep_unused = keep_unused
        self._inline = inline
        self._backend = backend
        self._donates = bool(self._donate_argnums or self._donate_argnames)
        # The trace cache is shared by every jit of the same function with the
        # same options (as in JAX: `jax.jit(f)(x)` in a loop traces once).
        self._cache, self._seen_keys = _shared_cache(fun, (self._static_argnums, self._static_argnames,
                                                           self._donate_argnums, self._donate_argnames,
                                                           keep_unused, inline))
        # Cache hits of plain calls (positional arguments, nothing static) skip
        # the general key computation: (treedef of args, avals, config id) -> entry.
        self._fast_cache: dict = {}
        self._plain = not self._static_argnums and not self._static_argnames and not self._donates
        # Name and docs only: merging fun.__dict__ would copy another jitted
        # function's cache onto this one (fun may wrap a jitted function).
        functools.update_wrapper(self, fun, updated=())
        _all_jitted.add(self)
        self.__name__ = getattr(fun, "__name__", type(fun).__name__)

    def _infer_from_signature(self, fun) -> None:
        # As in JAX, a static (or donated) argument may be named or numbered
        # either way: argnames cover it passed by position, argnums by keyword.
        # Names and numbers the function cannot take are errors here, at jit time.
        try:
            params = list(inspect.signature(fun).parameters.values())
        except (TypeError, ValueError):
            return
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        if not any(p.kind is p.VAR_POSITIONAL for p in params):
            self._max_positional = limit = len(positional)
            for what in ("static_argnums", "donate_argnums"):
                nums = getattr(self, "_" + what)
                if any(not -limit <= i < limit for i in nums):
                    raise ValueError(f"Jitted function has {what}={nums}, but only accepts {limit} "
                                     "positional arguments.")
        by_keyword = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        positional_only = {p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL)}
        takes_kwargs = any(p.kind is p.VAR_KEYWORD for p in params)
        for what in ("static_argnames", "donate_argnames"):
            names = set(getattr(self, "_" + what))
            if not takes_kwargs and names - by_keyword - positional_only:
                raise ValueError(f"Jitted function has invalid argnames {names - by_keyword - positional_only} "
                                 f"in {what}. Function does not take these args.")
            if names & positional_only:
                raise ValueError(f"Jitted function has invalid argnames {names & positional_only} in {what}. "
                                 "These are positional-only")
        for nums_attr, names_attr in (("_static_argnums", "_static_argnames"), ("_donate_argnums", "_donate_argnames")):
            names = set(getattr(self, names_attr))
            nums = set(getattr(self, nums_attr))
            for i, p in enumerate(positional):
                if p.name in names:
                    nums.add(i)
                if i in nums and p.kind is p.POSITIONAL_OR_KEYWORD:
                    names.add(p.name)
            setattr(self, nums_attr, tuple(sorted(nums)))
            setattr(self, names_attr, tuple(sorted(names)))
        both = set(self._static_argnames) & set(self._donate_argnames)
        if both:
            raise ValueError("static_argnames and donate_argnames cannot intersect. Argument names "
                             f"{both} appear in both static_argnames and donate_argnames")

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        return functools.partial(self, instance)

    def _resolve_static(self, args: tuple, kwargs: dict):
        # A static argument not passed positionally is found by name (or takes its default).
        static_argnums = tuple(i % len(args) if i < 0 else i for i in self._static_argnums if -len(args) <= i < len(args))
        statics = [args[i] for i in static_argnums]
        static_kwargs = {k: kwargs[k] for k in self._static_argnames if k in kwargs}
        if static_kwargs:
            kwargs = {k: v for k, v in kwargs.items() if k not in static_kwargs}
        # Typed: `f(x, 1)` and `f(x, True)` (or 2 and 2.0, 0.0 and -0.0) are
        # different calls, though Python finds their values equal.
        key = (tuple(map(typed_key, statics)), tuple([(k, typed_key(static_kwargs[k])) for k in sorted(static_kwargs)]))
        try:
            hash(key)
        except TypeError as e:  # (anything else a __hash__ raises reaches the caller as it is, as in JAX)
            bad = next(s for s in list(statics) + list(static_kwargs.values()) if not _hashable(s))
            raise ValueError(
                "Non-hashable static arguments are not supported. An error occurred while trying to "
                f"hash an object of type {type(bad)}, {bad!r}. The error was:\nTypeError: {e}\n"
            ) from None
        return static_argnums, static_kwargs, kwargs, key

    def _lookup(self, key):
        # The cache entry under `key`; a static argument's __eq__ may raise
        # when its hash meets another's.
        try:
            return self._cache.get(key)
        except Exception as e:  # noqa: BLE001  (whatever the user's __eq__ raised, named as JAX does)
            raise _static_eq_error(key, self._cache, e) from None

    def _get_jaxpr(self, args: tuple, kwargs: dict):
        static_argnums, static_kwargs, dyn_kwargs, static_key = self._resolve_static(args, kwargs)
        dyn_args = tuple(a for i, a in enumerate(args) if i not in static_argnums)
        flat_args, in_tree = tree_flatten((dyn_args, dyn_kwargs))
        avals = _abstractify_args(self._fun, flat_args, args, kwargs, static_argnums)
        # A body traced inside a named vmap may use its axis names and sizes
        # (psum(1, 'i') is the size): the axis environment is part of the key.
        # (In the tracing context, as in JAX: a miss explains itself as one.)
        env = batching.axis_env_key()
        context = config.trace_context() + (env,) if env else config.trace_context()
        key = (in_tree, avals, static_key, context)
        entry = self._lookup(key)
        if entry is None:
            if config.explain_cache_misses.value:
                cache_miss.explain(self._fun, key, self._seen_keys, _arg_names(self._fun, args, dyn_kwargs, static_argnums))
            if self._max_traces is not None and len(self._seen_keys) >= self._max_traces:
                self._too_many_traces(key, args, dyn_kwargs, static_argnums)
            fun = functools.partial(self._fun, **static_kwargs) if static_kwargs else self._fun
            if static_kwargs:
                functools.update_wrapper(fun, self._fun)
            jaxpr, _, out_tree, _ = trace_flat(fun, args, dyn_kwargs, static_argnums)
            # (Stored once traced: a trace that raised leaves nothing behind.)
            entry = self._cache[key] = _CacheEntry(jaxpr, out_tree, self.__name__)
            self._seen_keys.append(key)
            cache_miss.note_traced(self._fun)
        if self._donates:
            donated_names = self._donate_argnames
            self._last_donated = tuple(
                i in self._donate_argnums
                for i, a in enumerate(args) if i not in static_argnums
                for _ in tree_flatten(a)[0]
            ) + tuple(k in donated_names for k in sorted(dyn_kwargs) for _ in tree_flatten(dyn_kwargs[k])[0])
        return entry, flat_args

    def _too_many_traces(self, key, args, dyn_kwargs, static_argnums) -> None:
        why = cache_miss.explanation(self._fun, key, self._seen_keys,
                                     _arg_names(self._fun, args, dyn_kwargs, static_argnums))
        raise RuntimeError(f"jit({self.__name__}) was about to be traced {len(self._seen_keys) + 1} times, "
                           f"more than max_traces={self._max_traces}.\n{why}")

    def __call__(self, *args, **kwargs):
        fast_key = None
        if self._plain and not kwargs:
            # One flatten and one aval per leaf: the whole key of a cache hit.
            flat_args, in_tree = tree_flatten(args)
            try:
                fast_key = (in_tree, tuple([x.aval if type(x) is Array else abstractify(x) for x in flat_args]),
                            config.trace_context_id())
            except TypeError:  # a non-array argument: the general path names it
                pass
            if fast_key is not None and core._trace_ctx.get() is None:
                entry = self._fast_cache.get(fast_key)
                if entry is not None and not config.disable_jit.value:
                    return tree_unflatten(entry.out_tree, entry.run(flat_args, self._backend))
        if config.disable_jit.value:
            return self._fun(*args, **kwargs)
        entry, flat_args = self._get_jaxpr(args, kwargs)
        if fast_key is not None and not batching.axis_env():
            self._fast_cache[fast_key] = entry
        trace = core.current_trace()
        if trace is core._default_trace[0]:
            if self._donates:  # (what the call takes, as JAX 0.11 on CPU: donation.py)
                donation.check_donated_once(entry, flat_args, self._last_donated, self._keep_unused)
            outs = entry.run(flat_args, self._backend)
            if self._donates:
                donation.delete_donated(entry, flat_args, outs, self._last_donated, self._keep_unused)
        else:
            placement = self._placement(args, kwargs, entry.out_tree) if self._placement is not None else {}
            outs = self._bind(entry, flat_args, placement)
        return tree_unflatten(entry.out_tree, outs)

    # --- stages
    def trace(self, *args, **kwargs):
        """Traces for these arguments: a `Traced` stage (`.jaxpr`, `.lower()`)."""
        from pyjax._src.stage_types import make_args_info
        from pyjax._src.stages import Traced

        entry, flat_args = self._get_jaxpr(args, kwargs)
        static_argnums, _, dyn_kwargs, _ = self._resolve_static(args, kwargs)
        dyn_args = tuple(a for i, a in enumerate(args) if i not in static_argnums)
        _, in_tree = tree_flatten((dyn_args, dyn_kwargs))
        args_info = make_args_info(in_tree, entry.jaxpr.in_avals, self._donated_flags(flat_args))
        traced = Traced(self, entry.jaxpr, in_tree, entry.out_tree, args_info, self.__name__)
        if len(flat_args) == len(entry.jaxpr.invars):
            from pyjax._src.stages import entry_shardings

            traced.entry_shardings = entry_shardings(self, args, kwargs, entry.out_tree, flat_args)
        return traced

    def lower(self, *args, **kwargs):
        """Traces and lowers for these arguments: a `Lowered` stage."""
        traced = self.trace(*args, **kwargs)
        if self._donates:  # (JAX warns about unusable donations when it lowers)
            donation.for_call(*self._get_jaxpr(args, kwargs), None, self._last_donated, self._keep_unused)
        return traced.lower()

    # in_shardings / out_shardings as params: set by sharding.api.PlacedJit.
    _placement: Callable | None = None

    def _bind(self, entry, flat_args, placement: dict | None = None):
        jaxpr, hoisted = hoist_tracer_consts(entry.jaxpr)
        if self._inline:
            return eval_jaxpr(jaxpr, jaxpr.consts, *hoisted, *flat_args)
        donated = tuple(False for _ in hoisted) + self._donated_flags(flat_args)
        return jit_p.bind(*hoisted, *flat_args, jaxpr=jaxpr, name=self.__name__,
                          donated_invars=donated, keep_unused=self._keep_unused, inline=self._inline,
                          **_mesh_param(), **jit_params.with_hoisted(placement, len(hoisted)))

    def _donated_flags(self, flat_args) -> tuple:
        # One flag per flat argument; a donated positional argument donates all its leaves.
        return self._last_donated if self._donates else tuple(False for _ in flat_args)

    def _cache_size(self) -> int:
        return len(self._cache)

    def clear_cache(self) -> None:
        self._cache.clear()
        self._fast_cache.clear()

    def eval_shape(self, *args, **kwargs):
        entry, _ = self._get_jaxpr(args, kwargs)
        return tree_unflatten(entry.out_tree, [ShapeDtypeStruct(a.shape, a.dtype, weak_type=a.weak_type) for a in entry.jaxpr.out_avals])


def _static_eq_error(key, cache: dict, error: Exception) -> ValueError:
    # JAX's error for a static argument whose __eq__ raised, naming the two
    # objects' types (found again by comparing the statics one by one).
    mine = [*key[2][0], *[v for _, v in key[2][1]]]
    pair = None
    for other in list(cache):
        theirs = [*other[2][0], *[v for _, v in other[2][1]]]
        for a, b in zip(mine, theirs):
            try:
                a == b  # noqa: B015  (only whether it raises)
            except Exception:  # noqa: BLE001
                pair = (a, b)
                break
        if pair:
            break
    a, b = pair or (mine[0] if mine else None,) * 2
    a, b = (v[1] if type(v) is tuple and len(v) == 2 and isinstance(v[0], type) else v for v in (a, b))
    tb = error.__traceback__
    tb = tb.tb_next if tb is not None and tb.tb_next is not None else tb  # from the user's __eq__ on
    trace = "".join(traceback.format_exception(type(error), error, tb)).rstrip("\n")
    return ValueError(
        "static arguments should be comparable using __eq__.The following error was raised when comparing "
        f"two objects of types {type(a)} and {type(b)}. The error was:\n{trace}"
    )


def _hashable(x) -> bool:
    try:
        hash(x)
        return True
    except TypeError:
        return False


class _CacheEntry:
    """A traced jaxpr, its output structure and, once run eagerly, its executable."""

    __slots__ = ("jaxpr", "out_tree", "executable", "out_avals", "name", "placed", "on_platforms", "whole", "key_reuse",
                 "donations")

    def __init__(self, jaxpr: Jaxpr, out_tree, name: str):
        self.jaxpr, self.out_tree, self.out_avals, self.name = jaxpr, out_tree, jaxpr.out_avals, name
        self.executable = None
        # Whether an output's type names a placement (its results are then
        # split over their devices; the common, unplaced case pays nothing).
        self.placed = _names_placement(self.out_avals)
        self.on_platforms: dict = {}  # registered platform -> its executable
        self.whole = _whole_program_call(jaxpr)  # (a lone shard_map: run per device, on the shards)
        self.key_reuse = key_reuse.signature_if_checked(jaxpr)  # (jax_debug_key_reuse: checked when traced, and run)
        self.donations: dict = {}  # donated flags -> donation.Plan (JAX warns once per compilation)

    def run(self, flat_args: Sequence[Any], backend: str | None = None, _keys_checked: bool = False) -> list:
        if _NO_EXECUTION[0]:
            _refuse_execution(self.name)
        if self.key_reuse is not None and not _keys_checked:
            return key_reuse.run_entry_checked(self, flat_args, backend)
        if (backend is not None or _DEFAULT_PLATFORM[0] is not None) and (platform := platform_for(backend)) is not None:
            return run_on_platform(platform, self.on_platforms, self.jaxpr, self.name, self.out_tree, flat_args)
        if self.whole is not None and FLOAT_CHECKS[0] is None \
                and (args := spmd_data.whole_program_args(flat_args, getattr(self.whole, "lone", False))):
            return self.whole(args)
        try:  # (an Array placed over several devices: run per device, spmd_eager.py)
            buffers = [x._value if type(x) is Array else placed_call.buffer(x, _to_numpy) for x in flat_args]
        except placed_call.Placed as placed:
            return placed.run(self, flat_args)
        if (executable := self.executable) is None:
            compiled = lower_for_backend(self.jaxpr, self.name)
            executable = self.executable = guard_forwarded(getattr(compiled, "fn", compiled), self.jaxpr)
        outs = dispatch.fp_mode.run(executable, *buffers)
        if FLOAT_CHECKS[0] is not None:
            FLOAT_CHECKS[0](self.jaxpr, self.name, flat_args, outs)
        if self.placed:
            outs = [_typed_result(v, a) for v, a in zip(outs, self.out_avals)]
            outs = relayout_auto_jit(outs, self.jaxpr, flat_args)  # (Auto-placed arguments: XLA's layouts)
        else:
            outs = [Array(v, a) for v, a in zip(outs, self.out_avals)]
        if eager_mesh[0] is not None:  # (under set_mesh: results on no mesh live replicated on it, P())
            return type_on_context_mesh(outs, replicated=True)
        return outs


def _whole_program_call(jaxpr: Jaxpr):
    # A program that is one equation of a primitive offering `run_whole`
    # (shard_map: each device's body on that device's shards, results
    # placed) runs through it rather than on assembled global buffers.
    eqn = jaxpr.eqns[0] if len(jaxpr.eqns) == 1 and not jaxpr.consts else None
    run_whole = getattr(getattr(eqn, "primitive", None), "run_whole", None)
    if run_whole is None or list(eqn.invars) != list(jaxpr.invars) or list(eqn.outvars) != list(jaxpr.outvars) \
            or len(set(jaxpr.outvars)) != len(jaxpr.outvars):
        return SPMD_PARTITIONED[0](jaxpr)  # (Explicit-sharded programs run per device: spmd_jit.py)

    def whole(flat_args):
        return run_whole(list(flat_args), eqn.params)

    whole.lone = True  # (host arguments run per device too: spmd_data.whole_program_args)
    return whole


def _names_placement(avals) -> bool:
    return any(getattr(a, "sharding", None) is not None or getattr(a, "memory_space", None) is not None
               or type(a) is AbstractToken for a in avals)


def _typed_result(value, aval):
    # A token result is a Token; a placed one an Array on its devices.
    return Token(value) if type(aval) is AbstractToken else place_typed(Array(value, aval))


def _to_numpy(x):
    t = type(x)
    if t in _PY_SCALARS:  # a weak Python scalar: a 0-d array of its canonical dtype
        return np.asarray(x, core.python_scalar_aval(t).dtype)
    if isinstance(x, (Array, Token)):  # (an Array spanning processes: each process computes on the whole value)
        return x._value if getattr(x, "is_fully_addressable", True) or x.is_fully_replicated else gather_value(x)
    if isinstance(x, core.Tracer):
        raise errors.escaped_tracer_error(x)
    return np.asarray(x, dtypes.canonicalize_dtype(core.concrete_aval(x).dtype))


_PY_SCALARS = frozenset({bool, int, float, complex})


_all_jitted: weakref.WeakSet = weakref.WeakSet()
_shared_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _shared_cache(fun, options) -> tuple[dict, list]:
    """(entries, keys seen in order) for `fun` jitted with `options`."""
    try:
        per_function = _shared_caches.setdefault(fun, {})
    except TypeError:  # not weak-referenceable: a private cache
        return {}, []
    return per_function.setdefault(options, ({}, []))


def clear_caches() -> None:
    """Clears all compilation and staging caches: every jitted function's traces and
    compilations, the eager operations' programs and the memoised abstract evaluations."""
    for wrapped in list(_all_jitted):
        wrapped.clear_cache()
    for entries, keys in [c for per_function in list(_shared_caches.values()) for c in per_function.values()]:
        entries.clear(), keys.clear()  # (also the caches no live wrapper holds)
    core.clear_eager_plans()
    core.clear_abstract_eval_memos()
    # The traces of control-flow bodies and reduction computations, as JAX
    # drops its staging caches.
    for cache in staging_caches:
        cache.clear()


_compilers: list = []


def set_compiler(compile_fn: Callable) -> None:
    """Installs the default backend's jaxpr compiler (done once by pyjax/__init__)."""
    _compilers[:] = [compile_fn]


def compile_for_backend(jaxpr: Jaxpr, *, fused: bool = True) -> Callable:
    """`jaxpr` compiled by the default backend. `fused=False` compiles a
    program whose top-level equations JAX would dispatch one by one (an
    eager jax.numpy call): the backend then skips the rewrites XLA makes
    only across equations of one computation (rewrite.py)."""
    return _compilers[0](jaxpr, fused)


_NOT_GIVEN = object()  # jit(static_argnums=...) without a function: a decorator


def _inline_flag(inline) -> bool:
    # jax.Inline: only JAX_EARLY inlines while tracing (the others are lowering choices).
    value = getattr(inline, "value", None)
    return inline if value is None else value == "jax_early"


def jit(fun: Callable = _NOT_GIVEN, /, *, static_argnums=None, static_argnames=None, donate_argnums=None,
        donate_argnames=None, keep_unused: bool = False, device=None, backend=None, inline: bool = False,
        in_shardings=None, out_shardings=None, abstracted_axes=None, compiler_options=None,
        max_traces: int | None = None):
    """Sets up `fun` for just-in-time compilation.

    The function is traced once per distinct input signature (treedef, avals,
    static arguments) into a jaxpr, compiled by the backend, and the compiled
    function is reused on later calls with the same signature.

    Args:
      fun: the function to compile; must be pure.
      static_argnums: positional arguments treated as compile-time constants
        (must be hashable; a new value retraces).
      static_argnames: keyword arguments treated as compile-time constants.
      donate_argnums: arguments whose buffers the computation may reuse.
      keep_unused: keep unused arguments in the staged program.
      inline: inline the traced jaxpr into an enclosing trace.
      max_traces: (a pyjax extension) the most times `fun` may be traced; the
        next trace raises RuntimeError with jax_explain_cache_misses' text.

    Returns:
      A wrapped function with the same signature, plus `.trace`, `.lower`,
      `.eval_shape` and cache helpers.
    """
    kwargs = dict(static_argnums=static_argnums, static_argnames=static_argnames,
                  donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                  keep_unused=keep_unused, inline=_inline_flag(inline), backend=backend, device=device)
    if max_traces is not None:  # (a pyjax extension: the (N+1)-th trace raises)
        kwargs["max_traces"] = max_traces
    if in_shardings is not None or out_shardings is not None:
        # (Placed arguments and results: a wrapper, so that plain jit's call path is unchanged.)
        from pyjax._src.sharding.api import PlacedJit

        if fun is _NOT_GIVEN:
            return lambda f: PlacedJit(JitWrapped(f, **kwargs), in_shardings, out_shardings)
        return PlacedJit(JitWrapped(fun, **kwargs), in_shardings, out_shardings)
    if fun is _NOT_GIVEN:
        return lambda f: JitWrapped(f, **kwargs)
    return JitWrapped(fun, **kwargs)




# ---------------------------------------------------------------------------
# Autodiff of a jit call: differentiate its body. (The body is inlined into
# the JVP; the resulting equations are staged or run by the enclosing trace.)


def _jit_dce(eqn, used_outputs: list):
    new = call_dce_rule(eqn, used_outputs)
    if "in_shardings" not in eqn.params:
        return new
    kept = set(map(id, new.params["jaxpr"].invars))
    used_inputs = [id(v) in kept for v in eqn.params["jaxpr"].invars]
    return new.replace(params=dict(new.params, **jit_params.dce_params(eqn.params, used_inputs, used_outputs)))


def _jit_pe_custom(saveable, unks_in, inst_in, eqn, **staged_params):
    known, staged, unks_out, inst_out, residuals = call_partial_eval_custom_rule(saveable, unks_in, inst_in, eqn,
                                                                                 **staged_params)
    if "in_shardings" in eqn.params:
        num_res = len(known.outvars) - sum(not u for u in unks_out)
        known_p, staged_p = jit_params.pe_custom_params(eqn.params, unks_in, inst_in, unks_out, inst_out, num_res)
        known = known.replace(params=dict(known.params, **known_p))
        staged = staged.replace(params=dict(staged.params, **staged_p))
    return known, staged, unks_out, inst_out, residuals


jit_p.dce_rule = _jit_dce
jit_p.partial_eval_custom = _jit_pe_custom


def _mesh_param() -> dict:
    # Under a mesh set with jax.set_mesh, a jit equation names it (JAX's
    # ctx_mesh param); otherwise the param is absent.
    mesh = get_mesh()
    return {} if mesh.empty else {"ctx_mesh": mesh}


# The autodiff and batching rules of the jit primitive.
from pyjax._src import jit_ad  # noqa: E402,F401
