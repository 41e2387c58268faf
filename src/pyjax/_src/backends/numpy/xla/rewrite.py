"""Jaxpr rewrites the NumPy backend applies before compiling.

These are layout decisions XLA would make for itself; NumPy cannot, so the
backend makes them on the jaxpr:

- `transpose[(1, 0)](dot_general(a, b))` of matrices becomes one
  `dot_general(b, a)` with the contracting dimensions swapped: BLAS writes
  the transposed product directly, and later elementwise work sees a
  C-ordered array instead of a strided view (reverse-mode matmuls produce
  this pattern once per weight matrix).

- `div(x, y)` of floats (float16/32/64) whose divisor is broadcast (a
  scalar, size-1 axes, or the result of a `broadcast_in_dim`) or a
  constant becomes `mul(x, div(1, y'))`, with the reciprocal of the small
  operand `y'` rounded in the dtype and broadcast after: XLA's algebraic
  simplifier does the same (`A / broadcast(B) -> A * broadcast(1 / B)`,
  and with constants folded), so results match JAX's to the last bit.
  Eager division makes the same choice in the impl for the first case
  (impls.py `_div`); bfloat16 and complex numbers keep the division, as
  XLA does.

- Inside one computation, an add or subtract of a float32/float64 multiply
  that XLA fuses into it alone becomes one `fma` equation (fused
  multiply-add, rounded once: backends/numpy/xla/fma.py), as LLVM contracts it
  in XLA's fused loops (`_contract_multiply_adds`; the comment above it
  gives the rule). For that, nested `jit` bodies are spliced into the
  computation first, as XLA inlines them.

- A sum over a short last axis of a product XLA fuses into it becomes one
  `row_dot` equation, and a dot_general of tiny operands one `tiny_dot`
  equation: XLA's loops for those add each product into the accumulator
  with a fused multiply-add, in index order (`_small_reductions`,
  `_tiny_dots`; the shapes are the ones measured against JAX 0.11.0).

- `mul(convert(p), a)` of a boolean `p` converted to the product's
  float16/32/64 or complex type and shape becomes `select_n(p, 0, a)`:
  XLA's algebraic simplifier does the same, so a masked-out inf or nan
  gives 0 (`jnp.sum(mask * jnp.log(p))`); with the reciprocal above, so
  does `mask / 0`. jax.numpy's eager `mask * a` runs that pair compiled
  (numpy/ufuncs.py), as JAX's jitted `jnp.multiply` does.

Rewrites recurse into `jit` bodies, which the compiler inlines, and into
the bodies of `cond`, `while` and `scan`, which it compiles into the loop
(a reverse-mode scan's body is where such transposed products appear).
"""

from __future__ import annotations

import numpy as np

from pyjax._src.avals import ShapedArray
from pyjax._src.backends.numpy.xla.fma import fma_p, row_dot_p, tiny_dot_p
from pyjax._src.jaxpr import DropVar, Jaxpr, JaxprEqn, Literal, Var
from pyjax._src.lax import elementwise as ew
from pyjax._src.lax.dot import DotDimensionNumbers


def _use_counts(jaxpr: Jaxpr) -> dict:
    counts: dict = {}
    for eqn in jaxpr.eqns:
        for v in eqn.invars:
            if type(v) is not Literal:
                counts[v] = counts.get(v, 0) + 1
    for v in jaxpr.outvars:
        if type(v) is not Literal:
            counts[v] = counts.get(v, 0) + 2  # an output is never rewritten away
    return counts


def _swappable(eqn: JaxprEqn) -> bool:
    if eqn.primitive.name != "dot_general":
        return False
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    lhs, rhs = eqn.invars
    return not lb and len(lc) == 1 and lhs.aval.ndim == 2 and rhs.aval.ndim == 2


def simplify(jaxpr: Jaxpr, *, fused: bool = True) -> Jaxpr:
    """The jaxpr with the backend's rewrites applied (a new jaxpr).

    `fused=False`: the top-level equations are dispatched one by one (as
    JAX runs eager jax.numpy code), so a rewrite looking across equations
    (a division by a constant or by another equation's broadcast) applies
    only inside the bodies, each of which XLA compiles whole."""
    if fused:
        jaxpr = _inline_calls(jaxpr)
    counts = _use_counts(jaxpr)
    producers = {}
    for eqn in jaxpr.eqns:
        for v in eqn.outvars:
            producers[v] = eqn
    dropped, replaced = set(), {}
    for eqn in jaxpr.eqns:
        if eqn.primitive.name == "transpose" and eqn.params["permutation"] == (1, 0):
            (source,) = eqn.invars
            producer = producers.get(source) if type(source) is not Literal else None
            if producer is not None and counts.get(source) == 1 and _swappable(producer):
                (lc, rc), _ = producer.params["dimension_numbers"]
                params = dict(producer.params, dimension_numbers=DotDimensionNumbers(((rc, lc), ((), ()))))
                replaced[id(eqn)] = producer.replace(invars=producer.invars[::-1], outvars=eqn.outvars, params=params)
                dropped.add(id(producer))
    eqns = []
    constvars = set(jaxpr.constvars)
    for eqn in jaxpr.eqns:
        if id(eqn) in dropped:
            continue
        eqn = replaced.get(id(eqn), eqn)
        eqn = _simplify_bodies(eqn)
        reciprocal = _reciprocal_division(eqn, producers, constvars, fused)
        if reciprocal is None:
            eqns.append(eqn)
        else:
            eqns.extend(reciprocal)
    eqns = _masked_products(eqns)
    if fused:
        eqns = _contract_multiply_adds(eqns, jaxpr.outvars)
        eqns = _small_reductions(eqns, jaxpr.outvars)
    eqns = _tiny_dots(eqns)
    if fused:
        eqns = _common_subexpressions(eqns, jaxpr.outvars)
    if len(eqns) == len(jaxpr.eqns) and all(e is o for e, o in zip(eqns, jaxpr.eqns)):
        return jaxpr
    return jaxpr.replace(eqns=eqns)


def _reciprocal_division(eqn: JaxprEqn, producers: dict, constvars: set, fused: bool) -> list | None:
    """`div(x, y)` as XLA computes it when `y` is broadcast or constant:
    the equations of `x * broadcast(1 / b)` (see the module docstring), or
    None to keep the division. Outside a fused computation (`fused`) only
    a broadcast within the equation itself counts."""
    if eqn.primitive.name != "div":
        return None
    x, y = eqn.invars
    out = eqn.outvars[0].aval
    if not isinstance(out.dtype, np.dtype) or out.dtype.kind != "f":
        return None
    constant = fused and (type(y) is Literal or y in constvars)
    if not out.shape and not constant:
        return None  # a scalar by a scalar computed at run time: a division
    producer = producers.get(y) if fused and type(y) is not Literal else None
    if producer is not None and producer.primitive.name == "broadcast_in_dim" and y.aval.shape == out.shape:
        (small,) = producer.invars  # 1 / b, then the same broadcast
        if type(small) is Literal:
            return None
        inverse = _reciprocal_eqn(ew.div_p, small, out.dtype)
        broadcast = producer.replace(invars=[inverse.outvars[0]], outvars=[Var(y.aval)])
        product = JaxprEqn(ew.mul_p, [x, broadcast.outvars[0]], eqn.outvars, {}, eqn.effects, eqn.source_info)
        return [inverse, broadcast, product]
    if y.aval.shape == out.shape and not constant:
        return None  # an elementwise division
    inverse = _reciprocal_eqn(ew.div_p, y, out.dtype)
    product = JaxprEqn(ew.mul_p, [x, inverse.outvars[0]], eqn.outvars, {}, eqn.effects, eqn.source_info)
    return [inverse, product]


def _masked_products(eqns: list) -> list:
    """`mul(convert(p), a)` of a boolean `p` converted to the product's shape
    and float/complex dtype becomes `select_n(p, 0, a)`, as XLA's algebraic
    simplifier rewrites it: a masked-out element is 0 even where `a` is inf
    or nan (`mask * log(p)`). bfloat16 products keep the multiply: XLA
    computes them in float32 between converts, which hides the pattern."""
    producers, out = {}, []
    for eqn in eqns:
        for v in eqn.outvars:
            producers[v] = eqn
        select = _masked_product(eqn, producers) if eqn.primitive is ew.mul_p else None
        if select is None:
            out.append(eqn)
        else:
            out.extend(select)
    return out


def _masked_product(eqn: JaxprEqn, producers: dict) -> list | None:
    result = eqn.outvars[0].aval
    if not isinstance(result.dtype, np.dtype) or result.dtype.kind not in "fc":
        return None
    for i, v in enumerate(eqn.invars):
        producer = producers.get(v) if type(v) is not Literal else None
        if (producer is None or producer.primitive is not ew.convert_element_type_p
                or v.aval.shape != result.shape or type(producer.invars[0]) is Literal
                or producer.invars[0].aval.dtype != np.bool_):
            continue
        mask, other = producer.invars[0], eqn.invars[1 - i]
        zero = Literal(np.zeros((), result.dtype)[()], ShapedArray((), result.dtype))
        zeros = _broadcast_eqn(zero, result)
        eqns = [zeros]
        other_aval = other.aval if type(other) is not Literal else ShapedArray((), result.dtype)
        if other_aval.shape != result.shape:
            eqns.append(_broadcast_eqn(other, result))
            other = eqns[-1].outvars[0]
        eqns.append(JaxprEqn(ew.select_n_p, [mask, zeros.outvars[0], other], eqn.outvars, {}, eqn.effects,
                             eqn.source_info))
        return eqns
    return None


def _broadcast_eqn(x, aval) -> JaxprEqn:
    from pyjax._src.lax import shapes

    ndim = len(getattr(x.aval, "shape", ())) if type(x) is not Literal else 0
    dims = tuple(range(len(aval.shape) - ndim, len(aval.shape)))
    return JaxprEqn(shapes.broadcast_in_dim_p, [x], [Var(ShapedArray(aval.shape, aval.dtype))],
                    {"shape": tuple(aval.shape), "broadcast_dimensions": dims, "sharding": None})


def _reciprocal_eqn(div_p, y, dtype) -> JaxprEqn:
    one = Literal(np.ones((), dtype)[()], ShapedArray((), dtype))
    aval = y.aval if type(y) is not Literal else ShapedArray((), dtype)
    return JaxprEqn(div_p, [one, y], [Var(ShapedArray(aval.shape, dtype))], {})


def _inline_calls(jaxpr: Jaxpr) -> Jaxpr:
    """`jaxpr` with the bodies of its `jit` equations spliced in (fresh
    variables per call), or `jaxpr` itself if it has none: XLA compiles a
    computation with its nested jits inlined, so its fusions (and the
    multiply-adds they contract) cross those boundaries. The compiler inlines
    the bodies anyway; a body with constants of its own stays a call."""
    if not any(_inlinable(e) for e in jaxpr.eqns):
        return jaxpr
    env: dict = {}
    eqns = _splice(jaxpr.eqns, env, fresh=False)
    return jaxpr.replace(eqns=eqns, outvars=[_atom(v, env) for v in jaxpr.outvars])


def _inlinable(eqn: JaxprEqn) -> bool:
    return eqn.primitive.name == "jit" and not eqn.params["jaxpr"].constvars


def _atom(v, env: dict):
    return v if type(v) is Literal else env.get(v, v)


def _splice(eqns: list, env: dict, *, fresh: bool) -> list:
    # `env` maps a variable to the atom that replaces it: a call's outputs to
    # what its body computes them as and, in a spliced body (`fresh`), each
    # variable to a new one (a body called twice defines its values twice).
    out = []
    for eqn in eqns:
        invars = [_atom(v, env) for v in eqn.invars]
        if _inlinable(eqn):
            body = eqn.params["jaxpr"]
            inner = dict(zip(body.invars, invars, strict=True))
            out.extend(_splice(body.eqns, inner, fresh=True))
            for v, b in zip(eqn.outvars, body.outvars, strict=True):
                env[v] = _atom(b, inner)
            continue
        outvars = eqn.outvars
        if fresh:
            outvars = [(DropVar if type(v) is DropVar else Var)(v.aval) for v in eqn.outvars]
            env.update(zip(eqn.outvars, outvars, strict=True))
        if fresh or any(a is not b for a, b in zip(invars, eqn.invars, strict=True)):
            eqn = eqn.replace(invars=invars, outvars=outvars)
        out.append(eqn)
    return out


# The primitives whose bodies are simplified with the program (the params
# holding them are declared: `primitive.body_params`). A checkpoint's and the
# custom derivative calls' bodies are compiled as they are.
_SIMPLIFIED_BODIES = frozenset({"jit", "scan", "while", "cond"})


def _simplify_bodies(eqn: JaxprEqn) -> JaxprEqn:
    changed = {}
    for name in eqn.primitive.body_params if eqn.primitive.name in _SIMPLIFIED_BODIES else ():
        value = eqn.params[name]
        if type(value) is tuple:  # cond's branches
            new = tuple(simplify(b) for b in value)
            if all(n is v for n, v in zip(new, value, strict=True)):
                continue
        else:
            new = simplify(value)
            if new is value:
                continue
        changed[name] = new
    return eqn.replace(params=dict(eqn.params, **changed)) if changed else eqn


# --- multiply-add contraction -------------------------------------------------
#
# XLA's CPU backend compiles each loop fusion with LLVM's floating-point
# contraction allowed: inside one fused loop, an add or subtract of a multiply
# whose only use there is that add becomes one fused multiply-add (one rounding
# instead of two). Which multiplies qualify depends on XLA's fusion: a cheap
# elementwise producer is copied into every consumer when all its consumers
# can fuse it (an elementwise or layout operation) and it is not an output;
# then each copy counts its uses within its own fusion only. A product that is
# an output, or read by a reduction, a dot, a sort, a loop ... is computed on
# its own and read back rounded. Fusions are identified here by their roots:
# the values that are materialised (outputs, values read by an operation that
# does not fuse, expensive values read twice); a fusible value belongs to
# every fusion one of its users belongs to.

# Which consumers XLA's CPU fusion fuses a producer into (elementwise and
# layout ops) and which of those it will not copy into several consumers
# (HloInstruction::IsExpensive) are declared on each primitive, where it is
# defined: `primitive.fusible` and `primitive.cost` (core.Primitive).


def _expensive(primitive) -> bool:
    """A fusible primitive XLA will not duplicate into several fusions."""
    return primitive.cost == "expensive" and primitive.fusible is True


# A value fused into more fusions than this counts as materialised (keeps the
# analysis linear; XLA bounds such duplication too).
_MAX_COPIES = 16
# Producers that are one multiply in XLA: mul, and x * x.
_SQUARES = frozenset({"square"})


def _contract_multiply_adds(eqns: list, outvars: list) -> list:
    """`eqns` with each add/sub that XLA's CPU compiler contracts with a
    multiply replaced by one `fma` equation (backends/numpy/xla/fma.py), and the
    multiplies no longer read removed. See the comment above for the rule;
    float16/bfloat16 (computed in float32 and rounded after each operation)
    and complex numbers are left alone."""
    if not any(_contraction_candidate(e) for e in eqns):
        return eqns
    fusion = _Fusions(eqns, outvars)
    from_blas = _from_blas(eqns)
    out, rewritten = [], False
    for eqn in eqns:
        contracted = None
        if _contraction_candidate(eqn) and not any(type(v) is Var and v in from_blas for v in eqn.invars):
            contracted = _contract(eqn, fusion)
        if contracted is None:
            out.append(eqn)
        else:
            out.append(contracted)
            rewritten = True
    return _drop_unread(out, outvars) if rewritten else eqns


# A trade of fidelity for speed: values computed from a matmul or a
# convolution never take XLA's bits (BLAS orders a product's additions
# otherwise than XLA's kernels), so contracting arithmetic on them buys no
# fidelity, and the exact float32 fma costs ~5x a multiply and an add (the
# SGD update `p - lr * g` of a training step: +0.9 ms in 4; the row sums of
# its loss, `row_dot`, +0.2 ms). Such values are multiplied and added with
# two roundings, and reduced by NumPy.
_BLAS = frozenset({"dot_general", "conv_general_dilated"})


def _from_blas(eqns: list) -> set:
    """The values of `eqns` that depend on a matmul or convolution result."""
    derived: set = set()
    for eqn in eqns:
        if eqn.primitive.name in _BLAS or any(type(v) is Var and v in derived for v in eqn.invars):
            derived.update(eqn.outvars)
    return derived


def _float_kind(aval) -> bool:
    dtype = aval.dtype
    return isinstance(dtype, np.dtype) and dtype.kind == "f" and dtype.itemsize in (4, 8)


def _contraction_candidate(eqn: JaxprEqn) -> bool:
    return eqn.primitive.name in ("add", "sub") and _float_kind(eqn.outvars[0].aval)


class _Fusions:
    """Which fusions (by root) each value of one computation belongs to.

    XLA first merges equal computations (common-subexpression elimination:
    `a * b` traced twice is one multiply with two uses), so the analysis
    runs on one representative per distinct equation (`canon`)."""

    def __init__(self, eqns: list, outvars: list):
        self.canon: dict = {}
        self.producers: dict = {}
        self.users: dict = {}  # var -> [eqn, ...], once per read
        seen: dict = {}
        for eqn in eqns:
            key = self._key(eqn)
            if key is not None and key in seen:
                for v, first in zip(eqn.outvars, seen[key].outvars, strict=True):
                    self.canon[v] = first
                continue
            if key is not None:
                seen[key] = eqn
            for v in eqn.invars:
                if type(v) is Var:
                    self.users.setdefault(self.var(v), []).append(eqn)
            for v in eqn.outvars:
                self.producers[v] = eqn
        self.outputs = {self.var(v) for v in outvars if type(v) is Var}
        self._materialised: dict = {}
        self._roots: dict = {}

    def var(self, v):
        return self.canon.get(v, v)

    def _key(self, eqn: JaxprEqn):
        if eqn.effects or len(eqn.outvars) != 1:
            return None
        args = tuple(("literal", repr(v.val), str(v.aval)) if type(v) is Literal else self.var(v) for v in eqn.invars)
        try:
            key = (eqn.primitive, args, tuple(sorted(eqn.params.items())))
            hash(key)
        except TypeError:  # unhashable params (a jaxpr, an array): never merged
            return None
        return key

    def materialised(self, v) -> bool:
        """Whether XLA computes `v` (a representative) into a buffer of its
        own, fusing it into none of its readers: an output, a value read by
        an operation that does not fuse, an expensive value read twice."""
        known = self._materialised.get(v)
        if known is None:
            producer, users = self.producers[v], self.users.get(v, ())
            primitive = producer.primitive
            known = (v in self.outputs or not users or not primitive.fusible or len(producer.outvars) != 1
                     or (_expensive(primitive) and len(users) > 1)
                     or any(not u.primitive.fusible for u in users))
            self._materialised[v] = known
        return known

    def roots(self, v) -> frozenset:
        """The fusions `v` (a representative) is computed in, by their roots:
        itself if materialised, else every fusion one of its readers is in.
        (Iterative: chains of fused values can be long.)"""
        stack = [v]
        while stack:
            top = stack[-1]
            if top in self._roots:
                stack.pop()
                continue
            if self.materialised(top):
                self._roots[top] = frozenset((top,))
                stack.pop()
                continue
            later = [w for u in self.users[top] for w in map(self.var, u.outvars) if w not in self._roots]
            if later:
                stack.extend(later)
                continue
            roots = frozenset().union(*(self.eqn_roots(u) for u in self.users[top]))
            if len(roots) > _MAX_COPIES:  # XLA would not copy it into so many fusions either
                self._materialised[top], roots = True, frozenset((top,))
            self._roots[top] = roots
            stack.pop()
        return self._roots[v]

    def eqn_roots(self, eqn: JaxprEqn) -> frozenset:
        return frozenset().union(*(self.roots(self.var(v)) for v in eqn.outvars))

    def only_use(self, v, eqn: JaxprEqn) -> bool:
        """Whether `eqn` reads `v` once and is its only reader in each fusion
        `eqn` belongs to (`v` being fused into them, not read back)."""
        if type(v) is not Var:
            return False
        v = self.var(v)
        if v not in self.producers or self.materialised(v):  # an input of the computation, or materialised
            return False
        reads = self.users[v]
        if all(u is eqn for u in reads):  # the common case: no fusion to look at
            return len(reads) == 1
        for root in self.eqn_roots(eqn):
            if sum(1 for u in reads if root in self.eqn_roots(u)) != 1:
                return False
        return True

    def product(self, v, eqn: JaxprEqn):
        """(a, b, negated) when `v`, read by `eqn`, is a multiply XLA fuses
        into `eqn` alone (possibly under a negation), else None."""
        if not self.only_use(v, eqn):
            return None
        producer = self.producers[self.var(v)]
        negated = False
        if producer.primitive.name == "neg":
            (inner,) = producer.invars
            if not self.only_use(inner, producer):
                return None
            producer, negated = self.producers[self.var(inner)], True
        if producer.outvars[0].aval.shape != eqn.outvars[0].aval.shape:
            return None  # a product broadcast into the add: computed once, outside the loop
        name = producer.primitive.name
        if name == "mul":
            a, b = producer.invars
        elif name in _SQUARES or (name == "integer_pow" and producer.params["y"] == 2):
            a = b = producer.invars[0]
        else:
            return None
        return a, b, negated


def _contract(eqn: JaxprEqn, fusion: _Fusions) -> JaxprEqn | None:
    x, y = eqn.invars
    subtract = eqn.primitive.name == "sub"
    left, right = fusion.product(x, eqn), fusion.product(y, eqn)
    # LLVM tries the add's first operand first; XLA has already turned
    # `-(a*b) + c` into `c - a*b`, which puts c first.
    if left is not None and not (left[2] and right is not None and not subtract):
        (a, b, negated), addend = left, y
        negate_product, negate_addend = negated, subtract
    elif right is not None:
        (a, b, negated), addend = right, x
        negate_product, negate_addend = negated != subtract, False
    else:
        return None
    dtype = eqn.outvars[0].aval.dtype
    operands = [_typed_literal(v, dtype) for v in (a, b, addend)]
    params = {"negate_product": negate_product, "negate_addend": negate_addend}
    return JaxprEqn(fma_p, operands, eqn.outvars, params, eqn.effects, eqn.source_info)


def _typed_literal(v, dtype):
    # The impl reads the dtype off its operands: a weak Python-scalar literal
    # becomes a NumPy scalar of the result's dtype (lax would round it so too).
    if type(v) is Literal:
        return Literal(np.asarray(v.val, dtype)[()], ShapedArray((), dtype))
    return v


def _drop_unread(eqns: list, outvars: list) -> list:
    # The multiplies (and negations) contracted away in every fusion.
    read = {v for v in outvars if type(v) is Var}
    kept = []
    for eqn in reversed(eqns):
        if eqn.primitive.name in ("mul", "neg", "square", "integer_pow") and not any(v in read for v in eqn.outvars):
            continue
        kept.append(eqn)
        read.update(v for v in eqn.invars if type(v) is Var)
    return kept[::-1]


# --- short reductions of products, tiny dots ----------------------------------
#
# XLA's CPU loop for `reduce_sum(x * y)` over the last axis of a small array
# runs along each row with one fused multiply-add per element (fma.py
# `row_dot`). Measured against JAX 0.11.0 (float32 and float64, `x * y`,
# `x * x`, `x ** 2`, 1 to 1500 rows): rows of 2-4 and 9-12 elements do so
# while the array holds at most 3075 elements (at 4096 and more the loop is
# vectorised and its order changes); rows of 5-8 are vectorised across rows
# from 4 rows on, with the products rounded, and are left alone.
_ROW_LENGTHS = frozenset({2, 3, 4, 9, 10, 11, 12})
_MAX_ROW_ELEMENTS = 3072


def _small_reductions(eqns: list, outvars: list) -> list:
    """`eqns` with each `reduce_sum` of a product over a short last axis (see
    above) replaced by one `row_dot` equation, and the products no longer
    read removed."""
    if not any(eqn.primitive.name == "reduce_sum" for eqn in eqns):
        return eqns
    fusion = _Fusions(eqns, outvars)  # merges equal products, as XLA's CSE does
    from_blas = _from_blas(eqns)  # (no fidelity to gain there: see `_from_blas`)
    out, rewritten = [], False
    for eqn in eqns:
        row = None if any(v in from_blas for v in eqn.invars) else _row_dot(eqn, fusion)
        out.append(eqn if row is None else row)
        rewritten = rewritten or row is not None
    return _drop_unread(out, outvars) if rewritten else eqns


def _row_dot(eqn: JaxprEqn, fusion: _Fusions) -> JaxprEqn | None:
    if eqn.primitive.name != "reduce_sum":
        return None
    (x,) = eqn.invars
    if type(x) is not Var or not _float_kind(x.aval) or not x.aval.ndim:
        return None
    shape = x.aval.shape
    if eqn.params["axes"] != (len(shape) - 1,) or shape[-1] not in _ROW_LENGTHS or x.aval.size > _MAX_ROW_ELEMENTS:
        return None
    product = fusion.var(x)
    producers = fusion.producers
    producer = producers.get(product)
    if producer is None or len(fusion.users.get(product, ())) != 1 or product in fusion.outputs:
        return None  # the product is computed on its own and read back rounded
    name = producer.primitive.name
    if name == "mul":
        a, b = producer.invars
        square = type(a) is Var and a is b
    elif name == "square" or (name == "integer_pow" and producer.params["y"] == 2):
        a = b = producer.invars[0]
        square = True
    else:
        return None
    dtype = x.aval.dtype
    if not all(_plain_factor(v, producers, dtype) for v in (a, b)):
        return None
    operands = [_typed_literal(v, dtype) for v in (a, b)]
    return JaxprEqn(row_dot_p, operands, eqn.outvars, {"square": square}, eqn.effects, eqn.source_info)


# Factors computed in the same fusion by a transcendental are computed there
# otherwise than on their own (measured: `jnp.exp(u)` squared and summed
# matches neither the chain nor rounded products, nor does float64 erf_inv);
# float32 erf_inv, the normal sampler's, keeps its bits.
_KEEPS_BITS_IN_FUSION = frozenset({("erf_inv", np.dtype(np.float32))})


def _plain_factor(v, producers: dict, dtype, depth: int = 3) -> bool:
    """Whether factor `v` has its own bits inside the reduction's fusion:
    not (through up to `depth` scalings) a transcendental that changes there."""
    producer = producers.get(v) if type(v) is Var else None
    if producer is None or depth == 0:
        return True
    name = producer.primitive.name
    if _expensive(producer.primitive):
        return (name, np.dtype(dtype)) in _KEEPS_BITS_IN_FUSION
    if name not in ("mul", "neg"):
        return True
    return all(_plain_factor(w, producers, dtype, depth - 1) for w in producer.invars)


# XLA's dot for tiny operands is a naive loop, not a library call: one fused
# multiply-add per contracting index, in order (fma.py `tiny_dot`). Measured
# against JAX 0.11.0 for `einsum('ij,...j->...i', F, z)` (a matrix times a
# vector or times rows): contracting size 2-3 (float32: 2-5) with a square
# F, and up to 6 rows of float32 (8 and more are vectorised, the products
# rounded) or 16 of float64.
_TINY_CONTRACTING = frozenset({2, 3})
_TINY_ROWS = {np.dtype(np.float32): 6, np.dtype(np.float64): 16}


def _tiny_dots(eqns: list) -> list:
    if not any(eqn.primitive.name == "dot_general" for eqn in eqns):
        return eqns
    from_blas = _from_blas(eqns)
    out = [eqn if any(v in from_blas for v in eqn.invars) else _tiny_dot(eqn) or eqn for eqn in eqns]
    return out if any(a is not b for a, b in zip(out, eqns, strict=True)) else eqns


def _tiny_dot(eqn: JaxprEqn) -> JaxprEqn | None:
    if eqn.primitive.name != "dot_general":
        return None
    (lc, rc), (lb, _) = eqn.params["dimension_numbers"]
    lc, rc = tuple(lc), tuple(rc)
    lhs, rhs = eqn.invars
    dtype = eqn.outvars[0].aval.dtype
    if lb or len(lc) != 1 or dtype not in _TINY_ROWS or lhs.aval.dtype != dtype or rhs.aval.dtype != dtype:
        return None
    k = lhs.aval.shape[lc[0]]
    if k not in _TINY_CONTRACTING:
        return None
    # One operand is the k x k matrix; the other holds at most the measured rows.
    lhs_free, rhs_free = lhs.aval.size // k, rhs.aval.size // k
    if not ((lhs.aval.shape == (k, k) and lc == (1,) and rhs_free == 1)
            or (rhs.aval.shape == (k, k) and rc == (1,) and lc == (lhs.aval.ndim - 1,) and lhs_free <= _TINY_ROWS[dtype])):
        return None
    params = {"dimension_numbers": ((lc, rc), ((), ()))}
    return JaxprEqn(tiny_dot_p, [lhs, rhs], eqn.outvars, params, eqn.effects, eqn.source_info)


# --- common subexpressions ------------------------------------------------------
#
# XLA's CSE: an equation equal to an earlier one (primitive, params, operands)
# is computed once. Autodiff repeats masks (iota, compare) and solves; run
# last, after the rewrites above, so that every value keeps its bits. An
# equation with effects, a copy, a stateful primitive's (each draws anew), one
# holding a body (which may hold such a primitive), or one writing a program
# output (outputs must stay distinct buffers) is kept.
_NOT_MERGED = frozenset({"copy", "copy_p", "device_put"})


def _common_subexpressions(eqns: list, outvars: list) -> list:
    outputs = {v for v in outvars if type(v) is Var}
    seen: dict = {}
    env: dict = {}
    kept = []
    for eqn in eqns:
        invars = [env.get(v, v) if type(v) is Var else v for v in eqn.invars]
        if any(a is not b for a, b in zip(invars, eqn.invars)):
            eqn = eqn.replace(invars=invars)
        key = _cse_key(eqn)
        first = seen.get(key) if key is not None else None
        if first is not None and not any(v in outputs for v in eqn.outvars):
            env.update((v, w) for v, w in zip(eqn.outvars, first.outvars) if type(v) is Var)
            continue
        if key is not None:
            seen[key] = eqn
        kept.append(eqn)
    return kept


def _cse_key(eqn: JaxprEqn):
    prim = eqn.primitive
    if (eqn.effects or getattr(prim, "stateful", False) or getattr(prim, "body_params", ()) or prim.name in _NOT_MERGED
            or any(type(v) is not Var for v in eqn.outvars)
            or any(type(v) is not Var and np.ndim(v.val) for v in eqn.invars)):  # (keyed by repr: scalars only)
        return None
    operands = tuple(v if type(v) is Var else (type(v.val), repr(v.val), v.aval) for v in eqn.invars)
    try:
        key = (eqn.primitive, operands, tuple(sorted(eqn.params.items())))
        hash(key)
    except TypeError:
        return None
    return key

