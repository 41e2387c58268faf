"""Parsing JAX's symbolic shape specifications: `symbolic_shape("b, 2*b + 1")`.

The grammar (JAX's): a tuple of comma-separated dimension expressions, the
parentheses optional; an expression is built of integers, variables
(alphanumeric, starting with a letter), `+ - *`, `^` with an integer
exponent, `floordiv(e1, e2)`, `mod(e1, e2)`, `max(e1, e2)`, `min(e1, e2)`;
`_` and `...` are placeholders filled from `like`.
"""

from __future__ import annotations

import io
import tokenize
from typing import Sequence

from pyjax._src.shape_poly import DimExpr, DimSize, SymbolicScope, dim_max, dim_min, _divmod

_OPS = {"floordiv", "mod", "max", "min"}


class _Parser:
    """A recursive-descent parser over Python's tokenizer, as JAX's is."""

    def __init__(self, spec: str, like: Sequence | None, spec_repr: str, scope: SymbolicScope):
        self.spec, self.like, self.spec_repr, self.scope = spec, like, spec_repr, scope
        self.dimensions: list = []
        try:
            self.tokens = [t for t in tokenize.generate_tokens(io.StringIO(spec).readline)
                           if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT)]
        except (tokenize.TokenError, IndentationError) as e:
            raise ValueError(f"syntax error in symbolic shape {spec_repr}: {e}") from None
        self.pos = 0

    # -- errors
    def _error(self, detail: str):
        tok = self.tokens[min(self.pos, len(self.tokens) - 1)]
        col = tok.start[1] if tok.type != tokenize.ENDMARKER else len(self.spec)
        start = self.tokens[self.pos_dim].start[1] if self.pos_dim < len(self.tokens) else len(self.spec)
        parsed = self.spec[:start]  # JAX's: the dimensions parsed before this one
        raise ValueError(f"syntax error in symbolic shape {self.spec_repr} in dimension "
                         f"{len(self.dimensions)}: {detail}. Parsed '{parsed}', remaining '{self.spec[col:]}'.")

    def _expecting(self, *names: str):
        tok = self.tokens[self.pos]
        found = tokenize.tok_name[tok.type] if tok.type != tokenize.OP else tokenize.tok_name[tok.exact_type]
        self._error(f"expecting one of {{{', '.join(names)}}} but found {found}")

    # -- tokens
    def _peek(self):
        return self.tokens[self.pos]

    def _is_op(self, s: str) -> bool:
        t = self._peek()
        return t.type == tokenize.OP and t.string == s

    def _consume_op(self, s: str):
        if not self._is_op(s):
            names = {",": "COMMA", ")": "RPAR", "(": "LPAR"}
            self._expecting(names.get(s, s))
        self.pos += 1

    # -- grammar
    def parse(self) -> tuple:
        self.pos_dim = 0
        if self._is_op("(") and self._balanced_outer():
            self.pos += 1
            self._shape(end=")")
            self._consume_op(")")
        else:
            self._shape(end=None)
        if self._peek().type != tokenize.ENDMARKER:
            self._expecting("COMMA", "ENDMARKER")
        return tuple(self.dimensions)

    def _balanced_outer(self) -> bool:
        # Whether the leading '(' closes at the end (the tuple's parentheses).
        depth = 0
        for i, t in enumerate(self.tokens):
            if t.type == tokenize.OP and t.string == "(":
                depth += 1
            elif t.type == tokenize.OP and t.string == ")":
                depth -= 1
                if depth == 0:
                    return self.tokens[i + 1].type == tokenize.ENDMARKER
        return False

    def _at_end(self, end) -> bool:
        t = self._peek()
        return t.type == tokenize.ENDMARKER or (end is not None and self._is_op(end))

    def _shape(self, end):
        while not self._at_end(end):
            self.pos_dim = self.pos
            if self._is_op("..."):
                self.pos += 1
                self._ellipsis()
            elif self._peek().type == tokenize.NAME and self._peek().string == "_":
                self.pos += 1
                self._placeholder()
            else:
                self.dimensions.append(self._expr())
            if self._at_end(end):
                break
            self._consume_op(",")

    def _placeholder(self):
        i = len(self.dimensions)
        if self.like is None:
            self._error("spec contains _ but no 'like' shape was given")
        if i >= len(self.like) or self.like[i] is None:
            self._error(f"dimension {i} must be known in the 'like' shape {tuple(self.like)}")
        self.dimensions.append(self.like[i])

    def _ellipsis(self):
        if self.like is None:
            self.pos -= 1
            self._error("spec contains ... but no 'like' shape was given")
        if not self._at_end(None):
            self._error("... may only appear at the end of a spec")
        for d in self.like[len(self.dimensions):]:
            if d is None:
                self._error(f"the 'like' shape {tuple(self.like)} has unknown dimensions")
            self.dimensions.append(d)

    def _expr(self) -> DimSize:
        acc = self._term()
        while self._is_op("+") or self._is_op("-"):
            sign = self._peek().string
            self.pos += 1
            t = self._term()
            acc = acc + t if sign == "+" else acc - t
        return acc

    def _term(self) -> DimSize:
        acc = self._power()
        while self._is_op("*"):
            self.pos += 1
            acc = acc * self._power()
        return acc

    def _power(self) -> DimSize:
        base = self._factor()
        if self._is_op("^") or self._is_op("**"):
            self.pos += 1
            t = self._peek()
            if t.type != tokenize.NUMBER:
                self._expecting("NUMBER")
            self.pos += 1
            return base ** int(t.string)
        return base

    def _factor(self) -> DimSize:
        t = self._peek()
        if t.type == tokenize.OP and t.string == "-":
            self.pos += 1
            return -self._factor()
        if t.type == tokenize.NUMBER:
            self.pos += 1
            try:
                return int(t.string)
            except ValueError:
                self.pos -= 1
                self._error(f"expecting integer, found {t.string}")
        if t.type == tokenize.OP and t.string == "(":
            self.pos += 1
            e = self._expr()
            self._consume_op(")")
            return e
        if t.type == tokenize.NAME and t.string != "_":
            self.pos += 1
            if t.string in _OPS and self._is_op("("):
                self.pos += 1
                e1 = self._expr()
                self._consume_op(",")
                e2 = self._expr()
                self._consume_op(")")
                return _operation(t.string, e1, e2, self.scope)
            return DimExpr.from_var(t.string, self.scope)
        self._expecting("NAME", "MINUS", "NUMBER")


def _operation(op: str, e1, e2, scope) -> DimSize:
    if op == "max":
        return dim_max(e1, e2)
    if op == "min":
        return dim_min(e1, e2)
    q, r = _divmod(e1, e2, scope)
    return q if op == "floordiv" else r


def parse_constraint(c: str, scope: SymbolicScope) -> list:
    """The `e >= 0` expressions a constraint string stands for (two for `==`)."""
    if not isinstance(c, str):
        raise ValueError(f"SymbolicScope constraint must be a string: got {c!r}")
    for sym, kind in (("==", "eq"), (">=", "ge"), ("<=", "le")):
        pos = c.find(sym)
        if pos >= 0:
            break
    else:
        raise ValueError("Constraint parsing error: must contain one of '==' or '>=' or '<='")
    e1, = _Parser(c[:pos], None, repr(c[:pos]), scope).parse()
    e2, = _Parser(c[pos + 2:], None, repr(c[pos + 2:]), scope).parse()
    diff = e1 - e2
    if kind == "eq":
        return [diff, -diff]
    return [diff if kind == "ge" else -diff]


def symbolic_shape(shape_spec: str | None, *, constraints: Sequence[str] = (),
                   scope: SymbolicScope | None = None, like: Sequence[int | None] | None = None) -> tuple:
    """A symbolic shape from its string form, e.g. `symbolic_shape("b, 4")`.

    `constraints` (strings `e1 >= e2`, `e1 <= e2`, `e1 == e2`) make a new
    scope; `scope` reuses one (not both); `like` fills the `_` and `...`
    placeholders.
    """
    spec_repr = repr(shape_spec)
    if shape_spec is None:
        shape_spec = "..."
    elif not isinstance(shape_spec, str):
        raise ValueError(f"polymorphic shape spec should be None or a string. Found {spec_repr}.")
    if scope is None:
        scope = SymbolicScope(constraints)
    elif constraints:
        raise ValueError("Cannot specify both a `scope` and `constraints`.")
    return _Parser(shape_spec, like, spec_repr, scope).parse()
