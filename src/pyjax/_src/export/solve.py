"""Solving the dimension variables of an exported function from its
arguments' shapes, as JAX does: the shared step of `export` (which refuses
a specification it cannot solve) and of the exported module's `@main`
(backends/stablehlo/export_module.py), which computes the solution and
asserts the constraints it finds."""

from __future__ import annotations


def dimension_equations(in_avals, arg_name) -> tuple[list, str]:
    """(equations `(where, dimension)` for every symbolic dimension of every
    argument, the specifications' text for the messages)."""
    from pyjax._src.export._export import _spec_str

    eqns = [(f"{arg_name(i)}.shape[{j}]", d) for i, a in enumerate(in_avals) for j, d in enumerate(a.shape)
            if hasattr(d, "get_vars")]
    specs = ",".join(f"{arg_name(i)}.shape = {_spec_str(a.shape)}"
                     for i, a in enumerate(in_avals) if any(hasattr(d, "get_vars") for d in a.shape))
    return eqns, specs


def unsolvable_error(solution: dict, pending: list, specs: str) -> ValueError:
    """JAX's error for equations left unsolved (its set of variables printed
    sorted: JAX's order is its set's)."""
    names = sorted({v for _, d in pending for v in d.get_vars()} - set(solution))
    unprocessed = ", ".join(f"'{d}' for dimension size {where}" for where, d in pending)
    return ValueError(
        f"Cannot solve for values of dimension variables {{{', '.join(repr(n) for n in names)}}}. We can only solve "
        f"linear uni-variate constraints. Using the following polymorphic shapes specifications: {specs}. "
        f"Unprocessed specifications: {unprocessed}. Please see https://docs.jax.dev/en/latest/export/"
        "shape_poly.html#dimension-variables-must-be-solvable-from-the-input-shapes for more details.")


_TRAILER = ". Please see https://docs.jax.dev/en/latest/export/shape_poly.html#shape-assertion-errors for more details."
_HEAD = "Input shapes do not match the polymorphic shapes specification. "


def solve(eqns, specs: str):
    """JAX's solution of the dimension variables: each dimension size is a
    variable named by where it is (`args[0].shape[1]`); an equation whose
    specification has one unknown variable `k*v + rest` gives
    `v = (size - rest) // k` (with a remainder check when k != 1), one with
    none a consistency check; repeated until nothing more is solved.
    Returns the solution (variable -> expression over the sizes), the
    constraints `(comparison, left, right, message pieces)` in order, and the
    equations left unsolved."""
    from pyjax._src.shape_poly import DimExpr, SymbolicScope

    scope = SymbolicScope(())
    env: dict = {}
    constraints: list = []
    found: list = [" Obtained dimension variables: "]
    tail = f" Using the following polymorphic shapes specifications: {specs}."

    def value_of(term):
        try:
            return _term_value(term, env)
        except KeyError:  # (a variable of the term is not solved yet)
            return None

    def process(where, d) -> bool:
        size = DimExpr.from_var(where, scope)
        value, var, var_k = size, None, None
        for term, k in d.terms:
            known = value_of(term) if term else 1
            if known is not None:
                value = value + (-1) * known * k
                continue
            if len(term) == 1 and term[0][1] == 1 and term[0][0][0] == "var" and var is None:
                var, var_k = term[0][0][1], k
                continue
            return False
        if var is None:
            expected = _substitute(d, env)
            constraints.append(("EQ", size, expected, [
                _HEAD + f"Found inconsistency between dimension size {where} (= ", size,
                f") and the specification '{d}' (= ", expected, ")." + tail, *found, _TRAILER]))
            return True
        if var_k != 1:
            value, remainder = divmod(value, var_k)
            constraints.append(("EQ", remainder, 0, [
                _HEAD + "Division had remainder ", remainder, f" when computing the value of '{var}'." + tail,
                *found, _TRAILER]))
        env[var] = value
        found.extend([f"'{var}' = ", value, f" from specification '{d}' for dimension {where} (= ", size, "), "])
        constraints.append(("GE", value, 1, [
            _HEAD + f"Expected value >= 1 for dimension variable '{var}'." + tail, *found, _TRAILER]))
        return True

    pending = list(eqns)
    while pending:
        left = [eq for eq in pending if not process(*eq)]
        if len(left) == len(pending):
            break
        pending = left
    if not pending and eqns:  # the scope's symbolic constraints, `diff >= 0` each, checked last
        for text, diff in eqns[0][1].scope._constraints:
            value = _expr_value(diff, env)
            constraints.append(("GE", value, 0, [
                f"Input shapes do not match the symbolic shape constraint {text}. Expected '{diff}' to be greater "
                "or equal to 0, but found ", value, ". " + tail, *found, _TRAILER]))
    return env, constraints, pending


def _substitute(d, env):
    # `d` with each variable replaced by its solution (an expression over the sizes)
    total = 0
    for term, k in d.terms:
        total = total + _term_value(term, env) * k
    return total


def _term_value(term, env):
    """The value of a term (a product of factors) with each variable replaced
    by its solution; KeyError when one is not solved yet. A `max`/`min`
    factor stays a factor of its operands' values, never decided from
    bounds: JAX evaluates it as `lax.max` of the traced values, so the
    module computes it (and a mismatching call fails its assertion)."""
    out = 1
    for f, e in term:
        out = out * _factor_value(f, env) ** e
    return out


def _factor_value(f, env):
    from pyjax._src.shape_poly import DimExpr

    if f[0] == "var":
        return env[f[1]]
    x, y = (_expr_value(o, env) for o in f[1:])
    if f[0] in ("floordiv", "mod"):
        q, r = divmod(x, y)
        return q if f[0] == "floordiv" else r
    if not isinstance(x, DimExpr) and not isinstance(y, DimExpr):
        return max(x, y) if f[0] == "max" else min(x, y)
    return DimExpr.from_operation(f[0], x, y, (x if isinstance(x, DimExpr) else y).scope)


def _expr_value(d, env):
    from pyjax._src.shape_poly import DimExpr

    if not isinstance(d, DimExpr):
        return d
    total = 0
    for term, k in d.terms:
        total = total + _term_value(term, env) * k
    return total
