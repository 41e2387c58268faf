"""The jaxpr printer: JAX 0.11's text, byte for byte.

Two layers. First a small document algebra (text, concat, break, group,
nest) with a strict, greedy layout: a group is printed flat when its flat
width fits in what is left of the line (only the group itself is measured,
not what follows it), otherwise its breaks become newlines at the current
nesting. Then the jaxpr-specific part:

- variables are named a, b, ..., z, ba, bb, ... in the order the printer
  first meets them, one naming context for a jaxpr and all its sub-jaxprs;
- an equation output that nothing reads is printed `_`;
- a sub-jaxpr that occurs more than once is printed once, up front, as
  `let name = { ... } in`, and referred to by name;
- a call-like primitive (jit) prints its inline body with the body's inputs
  and outputs named after the equation's operands and results.
"""

from __future__ import annotations

import re

from pyjax._src.jaxpr import DropVar, Jaxpr, JaxprEqn, Literal, format_literal, subjaxprs

WIDTH = 80

# ---------------------------------------------------------------------------
# Documents


class Doc:
    __slots__ = ()

    def __add__(self, other):
        return Concat([self, other])


class Text(Doc):
    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text


class Concat(Doc):
    __slots__ = ("children",)

    def __init__(self, children):
        self.children = list(children)


class Break(Doc):
    __slots__ = ("text",)

    def __init__(self, text: str = " "):
        self.text = text


class Group(Doc):
    __slots__ = ("child",)

    def __init__(self, child: Doc):
        self.child = child


class Nest(Doc):
    __slots__ = ("n", "child")

    def __init__(self, n: int, child: Doc):
        self.n = n
        self.child = child


NIL = Concat([])


def join(separator: Doc, docs) -> Doc:
    out = []
    for i, d in enumerate(docs):
        if i:
            out.append(separator)
        out.append(d)
    return Concat(out)


def _flat_fits(doc: Doc, room: int) -> bool:
    stack = [doc]
    while stack:
        if room < 0:
            return False
        d = stack.pop()
        kind = type(d)
        if kind is Text or kind is Break:
            room -= len(d.text)
        elif kind is Concat:
            stack.extend(reversed(d.children))
        else:  # Group, Nest: flat anyway
            stack.append(d.child)
    return room >= 0


def format_doc(doc: Doc, width: int = WIDTH) -> str:
    out: list[str] = []
    column = 0
    stack = [(0, False, doc)]  # (indent, flat, doc)
    while stack:
        indent, flat, d = stack.pop()
        kind = type(d)
        if kind is Text:
            out.append(d.text)
            column += len(d.text)
        elif kind is Concat:
            stack.extend((indent, flat, c) for c in reversed(d.children))
        elif kind is Break:
            if flat:
                out.append(d.text)
                column += len(d.text)
            else:
                out.append("\n" + " " * indent)
                column = indent
        elif kind is Group:
            stack.append((indent, flat or _flat_fits(d.child, width - column), d.child))
        else:  # Nest
            stack.append((indent + d.n, flat, d.child))
    return "".join(out)


# ---------------------------------------------------------------------------
# Naming


def _alphabetic_name(n: int) -> str:
    letters = []
    while True:
        n, digit = divmod(n, 26)
        letters.append(chr(ord("a") + digit))
        if n == 0:
            return "".join(reversed(letters))


class Context:
    """Names of variables and shared jaxprs, shared by a jaxpr and its bodies."""

    def __init__(self):
        self.names: dict = {}
        self.count = 0
        self.unused: set = set()
        self.shared_names: dict = {}  # id(jaxpr) -> name
        self.reserved: set = set()  # shared-jaxpr names, never used for variables
        self.print_effects = False  # Jaxpr.pretty_print(print_effects=True): ` : { IO }` after the outputs

    def fresh(self) -> str:
        while True:
            name = _alphabetic_name(self.count)
            self.count += 1
            if name not in self.reserved:
                return name

    def name(self, var) -> str:
        name = self.names.get(var)
        if name is None:
            name = "_" if (type(var) is DropVar or var in self.unused) else self.fresh()
            self.names[var] = name
        return name

    def note_unused(self, jaxpr: Jaxpr) -> None:
        read = {v for e in jaxpr.eqns for v in e.invars if type(v) is not Literal}
        read.update(v for v in jaxpr.outvars if type(v) is not Literal)
        self.unused.update(v for e in jaxpr.eqns for v in e.outvars if v not in read)


def pp_atom(atom, ctx: Context) -> str:
    if type(atom) is Literal:
        return f"{format_literal(atom.val, atom.aval.dtype)}:{atom.aval.str_short()}"
    return ctx.name(atom)


def pp_binder(var, ctx: Context) -> str:
    return f"{ctx.name(var)}:{var.aval.str_short()}"


def pp_vars(docs: list[str], separator: str = "") -> Doc:
    # Each separator break is its own group: a fill layout that wraps only
    # once a line is full.
    return Nest(2, Group(join(Text(separator) + Group(Break()), [Text(d) for d in docs])))


# ---------------------------------------------------------------------------
# Equations and jaxprs


def pp_params(eqn: JaxprEqn, ctx: Context) -> Doc:
    items = param_items(eqn.primitive, eqn.params)
    if not items:
        return NIL
    pairs = [pp_param(k, v, ctx) for k, v in items]
    return Group(
        Concat([Nest(2, Concat([Text("["), Break(""), join(Break(), pairs)])), Break(""), Text("]")])
    )


def param_items(primitive, params: dict) -> list:
    order = getattr(primitive, "pp_param_order", None)
    items = [(k, params[k]) for k in order if k in params] if order else sorted(params.items())
    hidden = primitive.pp_hidden
    if hidden is not None:
        items = [(k, v) for k, v in items if not hidden(k, v)]
    return items


def pp_param(key: str, value, ctx: Context) -> Doc:
    if type(value) is Jaxpr:
        return Text(f"{key}=") + pp_jaxpr_value(value, ctx)
    if type(value) is tuple and value and all(type(v) is Jaxpr for v in value):
        return Text(f"{key}=") + Group(
            Concat(
                [
                    Nest(2, Concat([Text("("), Break(""), join(Break(), [pp_jaxpr_value(j, ctx) for j in value])])),
                    Break(""),
                    Text(")"),
                ]
            )
        )
    return Text(f"{key}={format_param(value)}")


_ADDRESS = re.compile(r" at 0x([0-9a-fA-F]+)")


def format_param(value) -> str:
    # Memory addresses in a param's text are masked (same width), as JAX does,
    # so printing is deterministic.
    return _ADDRESS.sub(lambda m: " at 0x" + "X" * len(m.group(1)), str(value))


def pp_jaxpr_value(jaxpr: Jaxpr, ctx: Context) -> Doc:
    name = ctx.shared_names.get(id(jaxpr))
    return Text(name) if name is not None else pp_jaxpr(jaxpr, ctx)


def pp_eqn(eqn: JaxprEqn, ctx: Context) -> Doc:
    rule = getattr(eqn.primitive, "pp_rule", None)
    if rule is not None:  # a primitive with a notation of its own (jax.ref's `b[...] <- c`)
        return rule(eqn, ctx)
    alias = getattr(eqn.primitive, "pp_alias_body", None)
    if alias is not None:
        _alias_body_names(eqn, eqn.params[alias], ctx)
    lhs = pp_vars([pp_binder(v, ctx) for v in eqn.outvars])
    params = pp_params(eqn, ctx)
    args = pp_vars([pp_atom(v, ctx) for v in eqn.invars])
    rhs = [Text(eqn.primitive.name), params, Text(" ") + args]
    if not eqn.outvars:  # an equation kept for its effect: no `lhs =`
        return Concat(rhs)
    return Concat([lhs, Text(" = "), *rhs])


def _alias_body_names(eqn: JaxprEqn, body: Jaxpr, ctx: Context) -> None:
    """Name a call's inline body after the call: operands, then results."""
    if id(body) in ctx.shared_names:
        return
    used_outer = set()
    for inner, outer in zip(body.invars, eqn.invars, strict=True):
        if type(outer) is not Literal and outer not in used_outer and inner not in ctx.names:
            ctx.names[inner] = ctx.name(outer)
            used_outer.add(outer)
    for inner, outer in zip(body.outvars, eqn.outvars, strict=True):
        if type(inner) is not Literal and inner not in ctx.names:
            ctx.names[inner] = ctx.name(outer)


def pp_jaxpr(jaxpr: Jaxpr, ctx: Context) -> Doc:
    constvars = pp_vars([pp_binder(v, ctx) for v in jaxpr.constvars])
    invars = pp_vars([pp_binder(v, ctx) for v in jaxpr.invars])
    eqns = join(Break("; "), [pp_eqn(e, ctx) for e in jaxpr.eqns])
    outvars = Concat(
        [
            Text("("),
            pp_vars([pp_atom(v, ctx) for v in jaxpr.outvars], separator=","),
            Text(",)" if len(jaxpr.outvars) == 1 else ")"),
        ]
    )
    body = Concat(
        [
            Text("{ "),
            Text("lambda "),
            constvars,
            Text("; "),
            invars,
            Text(". "),
            Text("let"),
            Nest(2, Break() + eqns),
            Break(),
            Text("in "),
            outvars,
            *_pp_effects(jaxpr, ctx),
        ]
    )
    return Group(Concat([Nest(2, body), Text(" }")]))


def _pp_effects(jaxpr: Jaxpr, ctx: Context) -> list[Doc]:
    # JAX lists the jaxpr's effect set in its iteration order; pyjax orders
    # them by name, ordered effects first (deterministically).
    if not ctx.print_effects:
        return []
    names = sorted(map(str, jaxpr.effects), reverse=True)
    return [Text(" : { " + ", ".join(names) + " }")]


INLINE_MAX_EQNS = 10


def _shared_jaxprs(root: Jaxpr) -> list[tuple[Jaxpr, str]]:
    """Sub-jaxprs printed once, up front: those met more than once and those
    longer than INLINE_MAX_EQNS, in breadth-first order of discovery, each
    with the name it is declared under (the holding call's `name`)."""
    counts: dict = {}
    order: list = []
    queue = [root]
    while queue:
        jaxpr = queue.pop(0)
        for eqn in jaxpr.eqns:
            for sub in subjaxprs(eqn.params):
                key = id(sub)
                if key not in counts:
                    counts[key] = 0
                    # Only a jit's body is declared under its function's name.
                    order.append((sub, eqn.params.get("name") if eqn.primitive.name == "jit" else None))
                    queue.append(sub)
                counts[key] += 1
    shared, used_names = [], set()
    for sub, hint in order:
        if counts[id(sub)] > 1 or len(sub.eqns) > INLINE_MAX_EQNS:
            base = str(hint).replace("<", "").replace(">", "") if hint is not None else "jaxpr"
            name, n = base, 0
            while name in used_names:
                n += 1
                name = f"{base}{n}"
            used_names.add(name)
            shared.append((sub, name))
    return shared


def pp_toplevel(jaxpr: Jaxpr, ctx: Context) -> list[Doc]:
    """The shared-jaxpr declarations, then the jaxpr: one document per line group."""
    shared = _shared_jaxprs(jaxpr)
    for sub, name in shared:
        ctx.shared_names[id(sub)] = name
        ctx.reserved.add(name)
    decls = [Text(f"let {name} = ") + pp_jaxpr(sub, ctx) + Text(" in") for sub, name in shared]
    ctx.note_unused(jaxpr)  # `_` is a top-level notion
    return [*decls, pp_jaxpr(jaxpr, ctx)]


def pp_jaxpr_str(jaxpr: Jaxpr, width: int = WIDTH, print_effects: bool = False) -> str:
    ctx = Context()
    ctx.print_effects = print_effects
    return "\n".join(format_doc(d, width) for d in pp_toplevel(jaxpr, ctx))


def pp_eqn_str(eqn: JaxprEqn) -> str:
    return format_doc(pp_eqn(eqn, Context()))
