"""`jax.export.export` and `Exported`: a jitted function staged once for
(possibly symbolic) argument types, callable on every shape it stands for.

An `Exported` holds the closed jaxpr traced with the symbolic avals. Calling
it solves the dimension variables from the actual argument shapes (JAX's
shape assertions, with JAX's messages), substitutes them into the jaxpr's
avals and params, and binds the equations again, inside a `jit` named after
the function: so a call composes with jit, grad, vmap like any staged code.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from pyjax._src.avals import ShapedArray
from pyjax._src import dim_as_value as _dim_as_value  # noqa: F401  (the primitive exists once pyjax is imported)
from pyjax._src import dtypes, shape_poly
from pyjax._src.shape_poly import DimExpr, evaluate_shape, is_polymorphic_shape
from pyjax._src.jaxpr import Jaxpr, Literal
from pyjax._src.tree_util import tree_flatten, tree_unflatten

CALLING_CONVENTION_VERSION = 10  # JAX 0.11's current version (what `Exported` reports)
MIN_CALLING_CONVENTION_VERSION = 9


class DisabledSafetyCheck:
    """A safety check that `export(..., disabled_checks=...)` should skip."""

    def __init__(self, name: str):
        self._impl = name

    @classmethod
    def platform(cls) -> DisabledSafetyCheck:
        """Allows calling on a platform the module was not exported for."""
        return cls("platform")

    @classmethod
    def custom_call(cls, target_name: str) -> DisabledSafetyCheck:
        """Allows a custom call target not known to be stable."""
        return cls(f"custom_call:{target_name}")

    @classmethod
    def shape_assertions(cls) -> DisabledSafetyCheck:
        """(Deprecated in JAX, no effect.)"""
        return cls("shape_assertions")

    def is_custom_call(self) -> str | None:
        return self._impl[len("custom_call:"):] if self._impl.startswith("custom_call:") else None

    def __eq__(self, other):
        if not isinstance(other, DisabledSafetyCheck):
            return False
        return other._impl == self._impl

    def __hash__(self):
        return hash(self._impl)

    def __repr__(self):
        return f"DisabledSafetyCheck({self._impl!r})"


def default_export_platform() -> str:
    """The platform `export` targets by default: pyjax runs on the CPU."""
    return "cpu"


class Exported:
    """A function exported for given argument types (JAX's `jax.export.Exported`)."""

    def __init__(self, *, fun_name: str, in_tree, in_avals: tuple, out_tree, out_avals: tuple,
                 jaxpr: Jaxpr, platforms: tuple = ("cpu",), disabled_safety_checks: tuple = (),
                 constraints: tuple = (), mlir_text: str | None = None):
        self.fun_name = fun_name
        self.in_tree, self.in_avals = in_tree, tuple(in_avals)
        self.out_tree, self.out_avals = out_tree, tuple(out_avals)
        self.platforms = tuple(platforms)
        self.disabled_safety_checks = tuple(disabled_safety_checks)
        self.nr_devices = 1
        self.ordered_effects = ()
        self.unordered_effects = ()
        self.in_shardings_hlo = tuple(None for _ in self.in_avals)
        self.out_shardings_hlo = tuple(None for _ in self.out_avals)
        self.calling_convention_version = CALLING_CONVENTION_VERSION
        self.module_kept_var_idx = tuple(range(len(self.in_avals)))
        self.uses_global_constants = any(is_polymorphic_shape(a.shape) for a in self.in_avals)
        self._jaxpr = jaxpr
        self._constraints = tuple(constraints)
        self._mlir_text = mlir_text
        self._callable: Callable | None = None

    def __repr__(self):
        return (f"Exported(fun_name={self.fun_name!r}, in_tree={self.in_tree}, in_avals={self.in_avals}, "
                f"out_tree={self.out_tree}, out_avals={self.out_avals}, platforms={self.platforms})")

    def in_shardings_jax(self, mesh) -> tuple:
        """The input shardings as JAX shardings on `mesh` (None: unspecified)."""
        return self.in_shardings_hlo

    def out_shardings_jax(self, mesh) -> tuple:
        """The output shardings as JAX shardings on `mesh` (None: unspecified)."""
        return self.out_shardings_hlo

    def has_vjp(self) -> bool:
        """Whether a VJP can be taken: pyjax differentiates the stored jaxpr."""
        return True

    def mlir_module(self) -> str:
        """The StableHLO module's text (see docs/export.md for what it follows)."""
        if self._mlir_text is None:
            from pyjax._src.export.mlir_text import export_module_text

            self._mlir_text = export_module_text(self)
        return self._mlir_text

    @property
    def mlir_module_serialized(self) -> bytes:
        """The module as bytes: pyjax's text, UTF-8 (not JAX's MLIR bytecode)."""
        return self.mlir_module().encode()

    def serialize(self, vjp_order: int = 0) -> bytearray:
        """pyjax's versioned serialization (docs/export.md; not JAX's flatbuffer)."""
        from pyjax._src.export.serialization import serialize

        return serialize(self, vjp_order=vjp_order)

    def call(self, *args, **kwargs):
        """Calls the exported function on arguments of any shape its
        symbolic input types stand for."""
        if self._callable is None:
            self._callable = _make_callable(self)
        return self._callable(*args, **kwargs)


# -- export ------------------------------------------------------------------------------------------

def _check_one_scope(fun_jit, arg_specs, kwarg_specs) -> None:
    """JAX's check, before tracing, that every symbolic dimension of the
    specifications comes from one SymbolicScope (the first one met)."""
    from pyjax._src import shape_poly, tree_util
    from pyjax._src.linear_util import fun_name

    def where(path) -> str:
        return ("args" if path[0] == tree_util.SequenceKey(0) else "kwargs") + tree_util.keystr(path[1:])

    first = None
    for path, spec in tree_util.tree_flatten_with_path((arg_specs, kwarg_specs))[0]:
        for d in getattr(spec, "shape", ()):  # (a static argument may have no shape)
            if not isinstance(d, shape_poly.DimExpr):
                continue
            if first is None:
                first = (d.scope, path)
                continue
            first[0]._check_same_scope(d, when=f"when exporting {fun_name(fun_jit)}",
                                       self_descr=f"current (from {where(first[1])}) ", other_descr=where(path))


def export(fun_jit, *, platforms: Sequence[str] | None = None,
           disabled_checks: Sequence[DisabledSafetyCheck] = ()) -> Callable[..., Exported]:
    """Exports a `jit`-wrapped function: `export(jit(f))(*arg_specs)` -> `Exported`.

    The specs are arrays or `ShapeDtypeStruct`s whose shapes may hold
    symbolic dimensions (`symbolic_shape`)."""
    from pyjax._src.jit import JitWrapped

    if not isinstance(fun_jit, JitWrapped):
        raise ValueError(f"Function to be exported must be the result of `jit` but is: {fun_jit}")
    plats = tuple(p.lower() for p in platforms) if platforms is not None else (default_export_platform(),)

    def do_export(*arg_specs, **kwarg_specs) -> Exported:
        _check_one_scope(fun_jit, arg_specs, kwarg_specs)
        traced = fun_jit.trace(*arg_specs, **kwarg_specs)
        jaxpr = traced.jaxpr
        if _has_host_callback(jaxpr):  # (JAX refuses them when exporting: no callback survives serialization)
            raise NotImplementedError("serialization of host_callbacks is not yet implemented")
        in_avals = tuple(jaxpr.in_avals)
        scope = _scope_of(in_avals)
        kept = tuple(range(len(in_avals)))
        if scope is None:  # (the module takes the used arguments only; all of them under shape polymorphism)
            from pyjax._src.interpreters.dce import dce_jaxpr

            kept = tuple(i for i, u in enumerate(dce_jaxpr(jaxpr, prune_invars=True)[1]) if u)
        exported = Exported(fun_name=traced.fun_name, in_tree=traced.in_tree, in_avals=in_avals,
                            out_tree=traced.out_tree, out_avals=tuple(jaxpr.out_avals), jaxpr=jaxpr,
                            platforms=plats, disabled_safety_checks=tuple(disabled_checks),
                            constraints=scope.constraints_str if scope is not None else ())
        exported.module_kept_var_idx = kept
        if scope is not None:  # (JAX refuses, when exporting, a specification it cannot solve)
            from pyjax._src.export.solve import dimension_equations, solve, unsolvable_error

            eqns, specs = dimension_equations(in_avals, lambda i: _arg_name(i, exported))
            solution, _, pending = solve(eqns, specs)
            if pending:
                raise unsolvable_error(solution, pending, specs)
        return exported

    return do_export


_HOST_CALLBACKS = frozenset({"pure_callback", "io_callback", "debug_callback", "debug_print"})


def _has_host_callback(jaxpr: Jaxpr) -> bool:
    from pyjax._src.jaxpr import subjaxprs

    return any(eqn.primitive.name in _HOST_CALLBACKS or any(_has_host_callback(j) for j in subjaxprs(eqn.params))
               for eqn in jaxpr.eqns)


def _scope_of(avals) -> shape_poly.SymbolicScope | None:
    for a in avals:
        for d in a.shape:
            if type(d) is DimExpr:
                return d.scope
    return None


# -- calling -----------------------------------------------------------------------------------------

def _make_callable(exp: Exported) -> Callable:
    from pyjax._src.jit import jit

    def flat_fun(*flat):
        env = solve_dimension_vars(exp, [np.shape(x) if not hasattr(x, "aval") else x.aval.shape for x in flat])
        return eval_with_env(exp._jaxpr, exp._jaxpr.consts, env, flat)

    flat_fun.__name__ = flat_fun.__qualname__ = exp.fun_name
    jitted = jit(flat_fun)

    def call(*args, **kwargs):
        flat, tree = tree_flatten((args, kwargs))
        if tree != exp.in_tree:
            _raise_tree_mismatch(exp, (args, kwargs))
        _check_types(exp, flat)
        outs = jitted(*flat)
        return tree_unflatten(exp.out_tree, outs)

    return call


def _raise_tree_mismatch(exp: Exported, invocation) -> None:
    from pyjax._src.tree_util_errors import equality_errors

    exported = tree_unflatten(exp.in_tree, [0] * exp.in_tree.num_leaves)
    diffs = "\n".join(f"   - {_path_str('args' if not kw else 'kwargs', path)} is a {thing1} in the invocation and "
                      f"a {thing2} when exported, so {explanation}."
                      for (path, thing1, thing2, explanation), kw in _equality_errors(equality_errors, invocation, exported))
    raise ValueError(f"The invocation args and kwargs must have the same pytree structure as when the function "
                     f"'{exp.fun_name}' was exported, but they have the following structural differences:\n{diffs}\n")


def _equality_errors(equality_errors, invocation, exported):
    # Compare args and kwargs separately, as JAX words the paths: args[0], kwargs['x'].
    for i in (0, 1):
        for err in equality_errors(invocation[i], exported[i]):
            yield err, i == 1


def _path_str(root: str, path) -> str:
    from pyjax._src.tree_util_keys import keystr

    return root + keystr(tuple(path))


def _arg_name(i: int, exp: Exported) -> str:
    from pyjax._src.tree_util import tree_flatten_with_path
    from pyjax._src.tree_util_keys import keystr

    leaves, _ = tree_flatten_with_path(tree_unflatten(exp.in_tree, [0] * exp.in_tree.num_leaves))
    path = leaves[i][0]
    if path and getattr(path[0], "idx", None) == 0:
        return "args" + keystr(tuple(path[1:]))
    return "kwargs" + keystr(tuple(path[1:]))


def _spec_str(shape) -> str:
    # (a Python tuple's text: `(b,)` for one dimension)
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


def _check_types(exp: Exported, flat) -> None:
    for i, (x, aval) in enumerate(zip(flat, exp.in_avals)):
        shape = x.aval.shape if hasattr(x, "aval") else np.shape(x)
        # (a NumPy argument is taken in its canonical dtype, as jit takes it: float64 is float32 without x64)
        dtype = x.aval.dtype if hasattr(x, "aval") else dtypes.canonicalize_dtype(np.result_type(x))
        if len(shape) != len(aval.shape):
            raise ValueError(f"Rank mismatch for {_arg_name(i, exp)}: expected {_spec_str(aval.shape)} and "
                             f"called with {tuple(shape)}")
        if np.dtype(dtype) != aval.dtype and not (type(x) in (int, float, bool, complex)):
            raise ValueError(f"Dtype mismatch for {_arg_name(i, exp)}: expected {aval.dtype} and called with {dtype}")
        for j, (d, actual) in enumerate(zip(aval.shape, shape)):
            if type(d) is int and d != actual:
                raise ValueError(f"Shape mismatch for {_arg_name(i, exp)}.shape[{j}] (expected same constant): "
                                 f"expected {_spec_str(aval.shape)} and called with {tuple(shape)}")


def solve_dimension_vars(exp: Exported, shapes: Sequence[tuple]) -> dict[str, int]:
    """The dimension variables' values from the actual shapes, checked as
    JAX's shape assertions check them: the exported module's assertions
    (export/solve.py) evaluated in order, the first failing one raising its
    message (the scope's constraints last)."""
    import operator

    from pyjax._src.export.solve import dimension_equations, solve, unsolvable_error

    eqns, specs = dimension_equations(exp.in_avals, lambda i: _arg_name(i, exp))
    solution, constraints, pending = solve(eqns, specs)
    if pending:
        raise unsolvable_error(solution, pending, specs)
    sizes = {f"{_arg_name(i, exp)}.shape[{j}]": s[j] for i, (a, s) in enumerate(zip(exp.in_avals, shapes))
             for j, d in enumerate(a.shape) if type(d) is DimExpr}

    def value(e):
        return e.evaluate(sizes) if type(e) is DimExpr else e

    for cmp, left, right, pieces in constraints:
        if not {"EQ": operator.eq, "GE": operator.ge}[cmp](value(left), value(right)):
            raise ValueError("".join(p if isinstance(p, str) else str(value(p)) for p in pieces))
    env = {v: value(e) for v, e in solution.items()}
    return env


# -- evaluation with the dimension variables bound --------------------------------------------------------

def substitute(x: Any, env: dict[str, int]) -> Any:
    """`x` (a param value) with every symbolic dimension evaluated in `env`."""
    t = type(x)
    if t is DimExpr:
        return x.evaluate(env)
    if t is tuple or t is list:
        return t(substitute(y, env) for y in x)
    if t is ShapedArray:
        return x.update(shape=evaluate_shape(x.shape, env)) if is_polymorphic_shape(x.shape) else x
    if isinstance(x, Jaxpr):
        return concrete_jaxpr(x, env)
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return t(*(substitute(y, env) for y in x))
    return x


def concrete_jaxpr(jaxpr: Jaxpr, env: dict[str, int]) -> Jaxpr:
    """The jaxpr re-traced on the concrete avals `env` gives its symbolic ones."""
    from pyjax._src.interpreters.staging import trace_to_jaxpr

    in_avals = [substitute(v.aval, env) for v in jaxpr.invars]
    traced, _ = trace_to_jaxpr(lambda *args: eval_with_env(jaxpr, jaxpr.consts, env, args), in_avals)
    return traced


def eval_with_env(jaxpr: Jaxpr, consts: Sequence, env: dict[str, int], args: Sequence) -> list:
    """`eval_jaxpr` with the dimension variables bound by `env`: each
    equation's params made concrete, `dim_as_value` a constant."""
    values: dict = dict(zip(jaxpr.constvars, consts, strict=True))
    values.update(zip(jaxpr.invars, args, strict=True))

    def read(v):
        return v.val if type(v) is Literal else values[v]

    for eqn in jaxpr.eqns:
        ins = [read(v) for v in eqn.invars]
        if eqn.primitive.name == "dim_as_value":
            out = np.array(substitute(eqn.params["dim"], env), eqn.outvars[0].aval.dtype)
            values[eqn.outvars[0]] = out
            continue
        params = {k: substitute(p, env) for k, p in eqn.params.items()}
        outs = eqn.primitive.bind(*ins, **params)
        if eqn.primitive.multiple_results:
            values.update(zip(eqn.outvars, outs, strict=True))
        else:
            values[eqn.outvars[0]] = outs
    return [read(v) for v in jaxpr.outvars]


def symbolic_args_specs(args, shapes_specs, constraints: Sequence[str] = (),
                        scope: shape_poly.SymbolicScope | None = None):
    """`ShapeDtypeStruct`s for `args` with the shapes `shapes_specs` gives
    (None, one spec string for all, or a pytree prefix of `args`), all in
    one symbolic scope; placeholders are filled from the arguments' shapes."""
    from pyjax._src.avals import ShapeDtypeStruct
    from pyjax._src.shape_poly_parse import symbolic_shape
    from pyjax._src.tree_util import broadcast_prefix

    flat, tree = tree_flatten(args)
    specs = tuple(shapes_specs) if isinstance(args, tuple) and isinstance(shapes_specs, list) else shapes_specs
    try:
        specs_flat = broadcast_prefix(specs, args, is_leaf=lambda x: x is None)
    except ValueError as e:
        raise ValueError(f"export.symbolic_args_specs shapes_specs must be a pytree prefix of the arguments: {e}") from None
    if scope is None:
        scope = shape_poly.SymbolicScope(constraints)
    elif constraints:
        raise ValueError("Cannot use both `scope` and `constraints`")
    out = []
    for x, spec in zip(flat, specs_flat, strict=True):
        shape = x.shape if hasattr(x, "shape") else np.shape(x)
        dtype = x.dtype if hasattr(x, "dtype") else np.result_type(x)
        out.append(ShapeDtypeStruct(symbolic_shape(spec, like=shape, scope=scope), dtype))
    return tree_unflatten(tree, out)
