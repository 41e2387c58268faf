"""Symbolic dimensions: JAX's dimension expressions for shape polymorphism.

A symbolic dimension is a polynomial with integer coefficients over
*factors*: dimension variables (`b`) and the operations `floordiv`, `mod`,
`max`, `min` of expressions. Expressions are kept normalised (a constant
expression is a Python int), so equality is syntactic, as in JAX:

    b + b == 2*b        b * b -> b^2        (2*b + 1) // 2 -> b

Every variable is assumed >= 1, and a `SymbolicScope` adds the user's
constraints (`a >= b`, `b <= 64`, `c == 2*a`). An order comparison that the
bounds cannot decide raises `InconclusiveDimensionOperation` with JAX's text;
`==` never raises (it is syntactic, as JAX's `__eq__`).

This module sits in the core layer (beside avals, not in the export package) (avals accept its dimensions) and imports
nothing from pyjax.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Iterable, Sequence

_INF = math.inf


class InconclusiveDimensionOperation(Exception):
    """Signals that an operation on symbolic dimensions has no definite answer."""

    __module__ = "pyjax.errors"


_HELP_MSG = """
This error arises for comparison operations with shapes that
are non-constant, and the result of the operation cannot be represented as
a boolean value for all values of the symbolic dimensions involved.

Please see https://docs.jax.dev/en/latest/export/shape_poly.html#comparison-of-symbolic-dimensions-is-partially-supported
for more details.
"""


def _poly_init(self, message: str):
    Exception.__init__(self, f"{message}{_HELP_MSG}")


# The shape-polymorphism module's form of the error (JAX's subclass of the
# same name): its message carries JAX's help text.
ShapePolyInconclusive = type("InconclusiveDimensionOperation", (InconclusiveDimensionOperation,), {
    "__module__": __name__, "__init__": _poly_init,
    "__doc__": "Signals that an operation on symbolic dimensions has no definite answer."})


class SymbolicScope:
    """Identifies a scope for symbolic expressions and holds its constraints.

    Expressions that interact must share one scope (JAX's rule). Constraints
    are strings `e1 >= e2`, `e1 <= e2` or `e1 == e2`.
    """

    def __init__(self, constraints_str: Sequence[str] = ()):
        if isinstance(constraints_str, str):
            raise ValueError("The symbolic constraints should be a sequence of strings. "
                             f"Got {constraints_str!r}")
        self._location = _user_location()
        self._constraints: list[tuple[str, Any]] = []  # (debug string, e >= 0 expression)
        self._bounds_cache: dict = {}
        from pyjax._src.shape_poly_parse import parse_constraint  # (the parser imports this module)

        for c in constraints_str:
            for diff in parse_constraint(c, self):
                if not is_symbolic_dim(diff):
                    if diff < 0:
                        raise ValueError(f"Unsatisfiable explicit constraint: {c}")
                    continue
                self._constraints.append((c, diff))
        self.constraints_str = tuple(constraints_str)

    def __str__(self):
        extras = "".join(f"\n  {c}" for c in self.constraints_str)
        return f"{id(self)} created at {self._location}" + (f" with constraints:{extras}" if extras else "")

    __repr__ = __str__

    def _check_same_scope(self, other: DimExpr, when: str = "", self_descr: str = " ",
                          other_descr: str = "unknown") -> None:
        if self is not other.scope:
            raise ValueError(
                f"Invalid mixing of symbolic scopes {when}.\n"
                f"Expected {self_descr}scope {self}\n"
                f"and found for '{other}' ({other_descr}) scope {other.scope}\n"
                "See https://docs.jax.dev/en/latest/export/shape_poly.html#user-specified-symbolic-constraints.")


def _user_location() -> str:
    # JAX's "file:line:col (function)" of the first frame outside pyjax.
    import sys

    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("pyjax."):
        frame = frame.f_back
    if frame is None:
        return "unknown"
    positions = list(frame.f_code.co_positions())
    _, _, col, _ = positions[frame.f_lasti // 2] if frame.f_lasti // 2 < len(positions) else (0, 0, 0, 0)
    return f"{frame.f_code.co_filename}:{frame.f_lineno}:{col or 0} ({frame.f_code.co_qualname})"


# -- factors, terms, expressions ------------------------------------------------------------------
# A factor is ("var", name) or (operation, expr1, expr2); a term is a tuple of
# (factor, exponent) pairs sorted by factor; an expression a tuple of
# (term, coefficient) pairs sorted largest term first (JAX's syntactic order,
# which is also its printing order: the constant last).

def _factor_size(f) -> int:
    return 1 if f[0] == "var" else 1 + sum(_expr_size(o) for o in f[1:])


def _term_size(t) -> int:
    return sum(1 + e * _factor_size(f) for f, e in t)


def _expr_size(e) -> int:
    return e._size if isinstance(e, DimExpr) else 0


def _factor_key(f):
    if f[0] == "var":
        return (1, f[1])
    return (_factor_size(f), f[0], tuple(_expr_key(o) for o in f[1:]))


def _term_key(t):
    return (_term_size(t), tuple((_factor_key(f), e) for f, e in t))


def _expr_key(e):
    if not isinstance(e, DimExpr):
        return (0, ((( 0, ()), e),))
    return (e._size, tuple((_term_key(t), c) for t, c in e.terms))


def _factor_str(f) -> str:
    return f[1] if f[0] == "var" else f"{f[0]}({', '.join(map(str, f[1:]))})"


def _term_str(t) -> str:
    return "*".join(f"{_factor_str(f)}^{e}" if e != 1 else _factor_str(f) for f, e in t)


class DimExpr:
    """A symbolic dimension: a normalised polynomial over dimension factors."""

    __slots__ = ("terms", "scope", "_size", "_hash")
    __array_priority__ = 1000  # NumPy scalars defer to our operators

    def __init__(self, terms, scope: SymbolicScope):
        self.terms = terms
        self.scope = scope
        self._size = sum(1 + abs(c) * _term_size(t) for t, c in terms)
        self._hash = None

    # -- construction and normalisation
    @staticmethod
    def _normalize(coeffs: dict, scope) -> DimSize:
        """The expression with `coeffs` ({term: coefficient}); an int when constant."""
        items = [(t, c) for t, c in coeffs.items() if c != 0]
        if all(t == () for t, _ in items):
            return sum(c for _, c in items)
        items.sort(key=lambda tc: _term_key(tc[0]), reverse=True)
        return DimExpr(tuple(items), scope)

    @staticmethod
    def from_var(name: str, scope: SymbolicScope) -> DimExpr:
        return DimExpr(((((("var", name), 1),), 1),), scope)

    @staticmethod
    def from_operation(op: str, e1: DimSize, e2: DimSize, scope) -> DimExpr:
        return DimExpr((((((op, e1, e2), 1),), 1),), scope)

    def _coeffs(self) -> dict:
        return dict(self.terms)

    # -- identity
    def __hash__(self):
        if self._hash is None:
            self._hash = hash((self.terms, id(self.scope)))
        return self._hash

    def __eq__(self, other):
        # Syntactic, as JAX's: __eq__ cannot raise (it is used by hashing).
        if isinstance(other, DimExpr):
            return self.scope is other.scope and self.terms == other.terms
        if isinstance(other, (int,)) or _is_int_like(other):
            return False  # a normalised expression is never a constant
        return NotImplemented

    def __ne__(self, other):
        r = self.__eq__(other)
        return r if r is NotImplemented else not r

    def __str__(self):
        parts = []
        for t, c in self.terms:
            sign, k = ("+" if c > 0 else "-"), abs(c)
            if t == ():
                parts.append(f"{sign} {k}")
            elif k == 1:
                parts.append(f"{sign} {_term_str(t)}")
            else:
                parts.append(f"{sign} {k}*{_term_str(t)}")
        res = " ".join(parts)
        return res[2:] if res.startswith("+ ") else res

    __repr__ = __str__

    # -- arithmetic
    def _other(self, other, op: str | None):
        # (`+`, `-`: _lin checks the scopes, "for linear combination"; JAX names
        # `*` "mul" and `//`, `%` "floordiv")
        if isinstance(other, DimExpr):
            if op is not None and other.scope is not self.scope:
                self.scope._check_same_scope(other, f"for operation {op}")
            return other
        if _is_int_like(other):
            return operator.index(other)
        return None

    def __add__(self, other):
        o = self._other(other, None)
        if o is None:
            return self._array_op("__add__", other)
        return _lin(self, 1, o, 1, self.scope)

    def __radd__(self, other):
        o = self._other(other, None)
        if o is None:
            return self._array_op("__radd__", other)
        return _lin(self, 1, o, 1, self.scope)

    def __sub__(self, other):
        o = self._other(other, None)
        if o is None:
            return self._array_op("__sub__", other)
        return _lin(self, 1, o, -1, self.scope)

    def __rsub__(self, other):
        o = self._other(other, None)
        if o is None:
            return self._array_op("__rsub__", other)
        return _lin(o, 1, self, -1, self.scope)

    def __neg__(self):
        return _lin(self, -1, 0, 0, self.scope)

    def __pos__(self):
        return self

    def __mul__(self, other):
        o = self._other(other, "mul")
        if o is None:
            return self._array_op("__mul__", other)
        if not isinstance(o, DimExpr):
            return _lin(self, o, 0, 0, self.scope)
        coeffs: dict = {}
        for t1, c1 in self.terms:
            for t2, c2 in o.terms:
                t = _term_mul(t1, t2)
                coeffs[t] = coeffs.get(t, 0) + c1 * c2
        return DimExpr._normalize(coeffs, self.scope)

    def __rmul__(self, other):
        if self._other(other, "mul") is None:
            return self._array_op("__rmul__", other)
        return self.__mul__(other)

    def _array_op(self, method: str, other):
        # An operand that is no dimension (an array, a tracer, a float): the
        # dimension computes as an array (`dim_as_value`), as JAX's does.
        if isinstance(other, (str, bytes)) or other is None:
            return NotImplemented
        return getattr(self.__jax_array__(), method)(other)

    def __jax_array__(self):
        from pyjax._src.dim_as_value import dim_as_value_p

        return dim_as_value_p.bind(dim=self)

    def __pow__(self, power, modulo=None):
        if not _is_int_like(power):
            raise ValueError(f"Symbolic dimension cannot be raised to non-integer powers: '{self}' ** '{power}'")
        power = operator.index(power)
        if power < 0:
            raise ValueError(f"Symbolic dimension cannot be raised to negative powers: '{self}' ** '{power}'")
        result: DimSize = 1
        for _ in range(power):
            result = result * self
        return result

    def __floordiv__(self, divisor):
        o = self._other(divisor, "floordiv")
        if o is None:
            return self._array_op("__floordiv__", divisor)
        return _divmod(self, o, self.scope)[0]

    def __rfloordiv__(self, other):
        o = self._other(other, "floordiv")
        if o is None:
            return self._array_op("__rfloordiv__", other)
        return _divmod(o, self, self.scope)[0]

    def __mod__(self, divisor):
        o = self._other(divisor, "floordiv")
        if o is None:
            return self._array_op("__mod__", divisor)
        return _divmod(self, o, self.scope)[1]

    def __rmod__(self, other):
        o = self._other(other, "floordiv")
        if o is None:
            return self._array_op("__rmod__", other)
        return _divmod(o, self, self.scope)[1]

    def __divmod__(self, divisor):
        return self // divisor, self % divisor

    def __truediv__(self, divisor):
        if self._other(divisor, "floordiv") is None:
            return self._array_op("__truediv__", divisor)
        # Exact division only (JAX's behaviour for `/` on dimensions).
        q, r = _divmod(self, divisor, self.scope)
        if not (isinstance(r, int) and r == 0):
            raise ShapePolyInconclusive(f"Symbolic dimension '{self}' cannot be divided exactly by '{divisor}'")
        return q

    # -- comparisons (decided by bounds; JAX's InconclusiveDimensionOperation otherwise)
    def __ge__(self, other):
        return _geq_decision(self, other, lambda: _cmp_text(self, ">=", other))

    def __le__(self, other):
        return _geq_decision(other, self, lambda: _cmp_text(self, "<=", other))

    def __gt__(self, other):
        return not _geq_decision(other, self, lambda: _cmp_text(self, ">", other))

    def __lt__(self, other):
        return not _geq_decision(self, other, lambda: _cmp_text(self, "<", other))

    # -- conversions
    def __int__(self):
        raise ShapePolyInconclusive(f"Symbolic dimension '{self}' used in a context that requires a constant")

    def __bool__(self):
        return True  # every dimension variable is >= 1: a nonzero size

    # -- queries
    def get_vars(self) -> set[str]:
        """The dimension variables appearing in the expression."""
        acc: set[str] = set()
        for t, _ in self.terms:
            for f, _ in t:
                acc |= _factor_vars(f)
        return acc

    def evaluate(self, env: dict[str, int]) -> int:
        """The value of the expression with the variables bound by `env`."""
        total = 0
        for t, c in self.terms:
            v = c
            for f, e in t:
                v *= _eval_factor(f, env) ** e
            total += v
        return total

    def bounds(self) -> tuple[float, float]:
        """(lower, upper) bounds, possibly infinite, under the scope's constraints."""
        return _bounds(self)

    def to_var(self) -> str | None:
        """The variable name when the expression is exactly one variable."""
        if len(self.terms) == 1:
            (t, c), = self.terms
            if c == 1 and len(t) == 1 and t[0][1] == 1 and t[0][0][0] == "var":
                return t[0][0][1]
        return None

    def __reduce__(self):
        raise TypeError("symbolic dimensions are serialized by pyjax.export, not pickled")


DimSize = Any  # int | DimExpr


def is_symbolic_dim(p: Any) -> bool:
    """Whether `p` is a symbolic dimension (not a constant)."""
    return type(p) is DimExpr


def is_constant_dim(p: Any) -> bool:
    """Whether `p` is an integer dimension."""
    return not is_symbolic_dim(p) and _is_int_like(p)


def is_polymorphic_shape(shape: Iterable) -> bool:
    """Whether some dimension of `shape` is symbolic."""
    return any(type(d) is DimExpr for d in shape)


def _is_int_like(x) -> bool:
    if isinstance(x, bool):
        return False
    try:
        operator.index(x)
        return True
    except TypeError:
        return False


def _factor_vars(f) -> set[str]:
    if f[0] == "var":
        return {f[1]}
    acc: set[str] = set()
    for o in f[1:]:
        if isinstance(o, DimExpr):
            acc |= o.get_vars()
    return acc


def _ev(e, env):
    return e.evaluate(env) if isinstance(e, DimExpr) else e


def _eval_factor(f, env) -> int:
    if f[0] == "var":
        try:
            return env[f[1]]
        except KeyError:
            raise KeyError(f"Encountered dimension variable '{f[1]}' that is not appearing in the shapes "
                           "of the function arguments") from None
    a, b = _ev(f[1], env), _ev(f[2], env)
    return {"floordiv": operator.floordiv, "mod": operator.mod, "max": max, "min": min}[f[0]](a, b)


def _term_mul(t1, t2):
    exps: dict = {}
    for f, e in t1 + t2:
        exps[f] = exps.get(f, 0) + e
    return tuple(sorted(exps.items(), key=lambda fe: _factor_key(fe[0])))


def _as_coeffs(e) -> dict:
    return e._coeffs() if isinstance(e, DimExpr) else ({(): e} if e else {})


def _lin(e1, k1, e2, k2, scope) -> DimSize:
    """e1 * k1 + e2 * k2, normalised."""
    if isinstance(e1, DimExpr) and isinstance(e2, DimExpr) and e1.scope is not e2.scope:
        e1.scope._check_same_scope(e2, when="for linear combination")
    coeffs: dict = {}
    for e, k in ((e1, k1), (e2, k2)):
        if k == 0:
            continue
        for t, c in _as_coeffs(e).items():
            coeffs[t] = coeffs.get(t, 0) + c * k
    return DimExpr._normalize(coeffs, scope)


def _divmod(e1, e2, scope) -> tuple[DimSize, DimSize]:
    """(e1 // e2, e1 % e2) with JAX's simplifications: exact polynomial
    division, and the multiples of a constant divisor taken out."""
    if not isinstance(e2, DimExpr):
        if e2 == 0:
            raise ZeroDivisionError("integer division or modulo by zero")
        if not isinstance(e1, DimExpr):
            return divmod(e1, e2)
        q: dict = {}
        rest: dict = {}
        for t, c in e1.terms:
            if c % e2 == 0:
                q[t] = c // e2
            else:
                rest[t] = c
        if rest and all(t == () for t in rest):
            qc, r = divmod(rest[()], e2)
            q[()] = q.get((), 0) + qc
            return DimExpr._normalize(q, scope), r
        quotient = DimExpr._normalize(q, scope)
        if not rest:
            return quotient, 0
        rem_expr = DimExpr._normalize(rest, scope)
        return (quotient + DimExpr.from_operation("floordiv", rem_expr, e2, scope),
                DimExpr.from_operation("mod", rem_expr, e2, scope))
    exact = _exact_div(e1, e2, scope)
    if exact is not None:
        return exact, 0
    return (DimExpr.from_operation("floordiv", e1, e2, scope), DimExpr.from_operation("mod", e1, e2, scope))


def _exact_div(e1, e2: DimExpr, scope) -> DimSize | None:
    """e1 / e2 when e2 divides e1 as polynomials with an integer quotient, else None."""
    if e1 == 0:
        return 0
    if not isinstance(e1, DimExpr):
        return None
    # Long division by the leading term of the divisor.
    (lead_t, lead_c) = e2.terms[0]
    quotient: DimSize = 0
    rem: DimSize = e1
    for _ in range(64):
        if rem == 0 or not isinstance(rem, DimExpr):
            break
        t, c = rem.terms[0]
        exps = dict(t)
        for f, e in lead_t:
            if exps.get(f, 0) < e:
                return None
            exps[f] -= e
        if c % lead_c:
            return None
        qt = tuple(sorted(((f, e) for f, e in exps.items() if e), key=lambda fe: _factor_key(fe[0])))
        q = DimExpr._normalize({qt: c // lead_c}, scope)
        quotient = quotient + q
        rem = rem - q * e2
    return quotient if rem == 0 else None


# -- bounds and decisions ---------------------------------------------------------------------------

def _imul(a: tuple, b: tuple) -> tuple:
    def m(x, y):
        return 0 if x == 0 or y == 0 else x * y
    prods = [m(x, y) for x in a for y in b]
    return min(prods), max(prods)


def _factor_bounds(f, scope) -> tuple:
    if f[0] == "var":
        return (1, _INF)
    b1 = _bounds_of(f[1], scope)
    b2 = _bounds_of(f[2], scope)
    if f[0] == "max":
        return max(b1[0], b2[0]), max(b1[1], b2[1])
    if f[0] == "min":
        return min(b1[0], b2[0]), min(b1[1], b2[1])
    if b2[0] == b2[1] and b2[0] > 0:  # a positive constant divisor
        k = b2[0]
        if f[0] == "mod":
            return 0, k - 1
        lo = b1[0] // k if b1[0] != -_INF else -_INF
        hi = b1[1] // k if b1[1] != _INF else _INF
        return lo, hi
    if b2[0] > 0 and f[0] == "mod":
        return 0, b2[1] - 1 if b2[1] != _INF else _INF
    if b2[0] > 0 and b1[0] >= 0:
        return 0, b1[1]
    return -_INF, _INF


def _interval(e, scope) -> tuple:
    if not isinstance(e, DimExpr):
        return e, e
    lo, hi = 0, 0
    for t, c in e.terms:
        tb = (1, 1)
        for f, ex in t:
            fb = _factor_bounds(f, scope)
            for _ in range(ex):
                tb = _imul(tb, fb)
        cb = _imul(tb, (c, c))
        lo, hi = lo + cb[0], hi + cb[1]
    return lo, hi


def _bounds_of(e, scope) -> tuple:
    if not isinstance(e, DimExpr):
        return e, e
    cache = scope._bounds_cache if scope is not None else {}
    key = e.terms
    if key in cache:
        return cache[key]
    lo, hi = _interval(e, scope)
    # A constraint c >= 0 tightens: e - c >= lb(e - c) gives e >= lb(e - c),
    # and c - e... the constraint's own bound bounds e from above when e = -c + d.
    for _, c in (scope._constraints if scope is not None else ()):
        for k in (1, 2, 3):
            d = _lin(e, 1, c, -k, scope)
            dl, _ = _interval(d, scope)
            lo = max(lo, dl)  # e = d + k*c >= d
            d2 = _lin(e, 1, c, k, scope)
            _, du = _interval(d2, scope)
            hi = min(hi, du)  # e = d2 - k*c <= d2
    for lo2, hi2 in _extremum_splits(e, scope):
        lo, hi = max(lo, lo2), min(hi, hi2)
    cache[key] = (lo, hi)
    return lo, hi


def _extremum_splits(e, scope):
    # For each term c*max(x, y) (or min) of `e`: e is the larger (or smaller)
    # of e with x and e with y in its place, so its bounds are those of that
    # max (min) of the two: `b - max(0, b - 5)` is >= min(b, 5) >= 1.
    for t, c in e.terms:
        if len(t) != 1 or t[0][1] != 1 or t[0][0][0] not in ("max", "min"):
            continue
        f = t[0][0]
        rest = _lin(e, 1, DimExpr.from_operation(f[0], f[1], f[2], scope), -c, scope)
        b1, b2 = (_bounds_of(_lin(rest, 1, x, c, scope), scope) for x in (f[1], f[2]))
        if (f[0] == "max") == (c > 0):
            yield max(b1[0], b2[0]), max(b1[1], b2[1])
        else:
            yield min(b1[0], b2[0]), min(b1[1], b2[1])


def _bounds(e) -> tuple:
    return _bounds_of(e, e.scope if isinstance(e, DimExpr) else None)


def _cmp_text(lhs, op: str, rhs) -> str:
    return "'%s' %s '%s'" % (lhs, op, rhs)


def _geq_decision(e1, e2, cmp_str) -> bool:
    """Whether e1 >= e2 for every value of the variables; raises JAX's
    InconclusiveDimensionOperation when the bounds cannot decide."""
    if isinstance(e1, DimExpr):
        scope = e1.scope
        if isinstance(e2, DimExpr):
            scope._check_same_scope(e2, "when comparing " + cmp_str())
        elif not _is_int_like(e2):
            return NotImplemented
    elif isinstance(e2, DimExpr):
        scope = e2.scope
        if not _is_int_like(e1):
            return NotImplemented
    else:
        return int(e1) >= int(e2)
    lo, hi = _bounds_of(_lin(e1, 1, e2, -1, scope), scope)
    if lo >= 0:
        return True
    if hi < 0:
        return False
    describe = f"\nUsing symbolic scope {scope}" if scope._constraints else ""
    raise ShapePolyInconclusive(f"Symbolic dimension comparison {cmp_str()} is inconclusive.{describe}")


def step_is_positive(step: DimSize, where: str) -> bool:
    """Whether a (possibly symbolic) step is positive, decided statically;
    JAX's error names `where` ("arange with non-constant arguments", ...)
    when the sign depends on the dimension variables."""
    try:
        return step > 0
    except InconclusiveDimensionOperation as e:
        raise InconclusiveDimensionOperation(
            f"In {where} the step ({step}) must be resolved statically if it is > 0 or < 0.\nDetails: {e}") from None


def dim_max(e1: DimSize, e2: DimSize) -> DimSize:
    """max(e1, e2): decided when the bounds of `e1 - e2` allow, else a `max` factor."""
    order = _order(e1, e2)
    if order is None:
        return _minmax("max", e1, e2)
    return e1 if order >= 0 else e2


def dim_min(e1: DimSize, e2: DimSize) -> DimSize:
    """min(e1, e2): decided when the bounds of `e1 - e2` allow, else a `min` factor."""
    order = _order(e1, e2)
    if order is None:
        return _minmax("min", e1, e2)
    return e2 if order >= 0 else e1


def _order(e1, e2) -> int | None:
    # 1 when e1 >= e2 always, -1 when e1 <= e2 always (0 - both), None when undecided.
    if not isinstance(e1, DimExpr) and not isinstance(e2, DimExpr):
        return (e1 > e2) - (e1 < e2)
    scope = e1.scope if isinstance(e1, DimExpr) else e2.scope
    lo, hi = _bounds_of(_lin(e1, 1, e2, -1, scope), scope)
    if lo >= 0:
        return 1
    if hi <= 0:
        return -1
    return None


def _geq(e1, e2) -> bool:
    return _geq_decision(e1, e2, lambda: f"'{e1}' >= '{e2}'")


def _minmax(op, e1, e2) -> DimExpr:
    scope = e1.scope if isinstance(e1, DimExpr) else e2.scope
    # (the operands in the order given, as JAX keeps them: max(b, a) is not max(a, b))
    return DimExpr.from_operation(op, e1, e2, scope)


def evaluate_shape(shape: Sequence[DimSize], env: dict[str, int]) -> tuple[int, ...]:
    """`shape` with every symbolic dimension evaluated in `env`."""
    return tuple(d.evaluate(env) if type(d) is DimExpr else d for d in shape)


def broadcast_shapes(*shapes: Sequence[DimSize]) -> tuple:
    """NumPy's broadcast of `shapes`, accepting symbolic dimensions (a size
    1 broadcasts; other sizes must be equal). ValueError when they do not
    broadcast, as np.broadcast_shapes."""
    import numpy as np

    if not any(is_polymorphic_shape(s) for s in shapes):
        return np.broadcast_shapes(*shapes)
    rank = max(len(s) for s in shapes)
    out = []
    for i in range(rank):
        dims = [s[len(s) - rank + i] for s in shapes if len(s) - rank + i >= 0]
        sizes = [d for d in dims if not (type(d) is int and d == 1)]
        if not sizes:
            out.append(1)
            continue
        if any(d != sizes[0] for d in sizes[1:]):
            raise ValueError(f"shape mismatch: objects cannot be broadcast to a single shape: {shapes}")
        out.append(sizes[0])
    return tuple(out)
