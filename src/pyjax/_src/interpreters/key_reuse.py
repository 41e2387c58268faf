"""Key-reuse analysis: which typed PRNG keys a jaxpr consumes, creates and passes through.

A typed key (`random.key`) may feed one consuming operation (`random_bits`,
`random_split`, an unknown primitive, ...); feeding a second one draws the
same random bits twice. With `jax_debug_key_reuse` on, jit checks every
jaxpr it traces with `check_key_reuse_jaxpr`, and the eager checker
(random/key_reuse.py) tracks each key Array's consumption between calls.

A primitive says how it treats keys through its `key_reuse` property,
declared where it is defined: a `KeyReuseSignature` of

  Sink(i[, mask])     operand i is consumed (mask: which elements)
  Source(j[, mask])   result j is a fresh, unconsumed key
  Forward(i, j)       result j is operand i (it shares its consumption)

or a rule `eqn -> KeyReuseSignature` (slicing, calls, control flow). A
primitive that declares nothing consumes every key operand and returns
consumed keys; eager evaluation leaves it unchecked (JAX's conventions).
"""

from __future__ import annotations

from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterator, Sequence
from functools import reduce
from typing import Any, NamedTuple

import numpy as np

from pyjax._src import config, dtypes
from pyjax._src.array import Array
from pyjax._src.core import Tracer
from pyjax._src.errors import KeyReuseError
from pyjax._src.jaxpr import Jaxpr, JaxprEqn, Literal
from pyjax._src.interpreters.staging import format_source_info, user_source_info


def _frozen_mask(mask) -> bool | np.ndarray:
    # Masks are normalised so equal signatures compare and hash equal: an
    # all-True mask is True, an empty or all-False one False.
    if isinstance(mask, (bool, np.bool_)):
        return bool(mask)
    mask = np.asarray(mask)
    if mask.dtype != np.bool_:
        raise TypeError(f"a key-reuse mask must be boolean, got dtype {mask.dtype}")
    if not mask.any():
        return False
    if mask.all():
        return True
    mask = mask.copy()
    mask.flags.writeable = False
    return mask


class _Mark:
    """A consumed operand (Sink) or a fresh result (Source): its index and element mask."""

    __slots__ = ("idx", "mask")

    def __init__(self, idx: int, mask: Any = True):
        if not isinstance(idx, int):
            raise TypeError(f"{type(self).__name__} index must be an int, got {idx!r}")
        object.__setattr__(self, "idx", idx)
        object.__setattr__(self, "mask", _frozen_mask(mask))

    def __setattr__(self, name, value):
        raise ValueError(f"{type(self).__name__} is immutable")

    def _mask_key(self):
        m = self.mask
        return m if isinstance(m, bool) else (m.shape, tuple(m.ravel().tolist()))

    def __eq__(self, other):
        return type(self) is type(other) and self.idx == other.idx and self._mask_key() == other._mask_key()

    def __hash__(self):
        return hash((type(self), self.idx, self._mask_key()))

    def __repr__(self):
        name = type(self).__name__
        return f"{name}({self.idx})" if self.mask is True else f"{name}({self.idx}, {self.mask})"


class Sink(_Mark):
    """Operand `idx` (the elements where `mask` is True) is consumed."""


class Source(_Mark):
    """Result `idx` (the elements where `mask` is True) is a fresh key."""


class Forward(NamedTuple):
    """Result `out_idx` is operand `in_idx`, consumed exactly as far as it is."""

    in_idx: int
    out_idx: int

    def __repr__(self):
        return f"Forward({self.in_idx}, {self.out_idx})"


def _order(entry) -> tuple:
    # Marks before forwards; marks by kind then index (JAX's printed order).
    if isinstance(entry, Forward):
        return (1, "", entry.in_idx, entry.out_idx)
    return (0, type(entry).__name__, entry.idx, 0)


class KeyReuseSignature:
    """What one operation does to the keys it takes and returns: a set of
    `Sink`, `Source` and `Forward` entries."""

    __slots__ = ("_args",)

    def __init__(self, *args: Sink | Source | Forward):
        self._args = frozenset(args)

    def __repr__(self):
        return f"KeyReuseSignature{tuple(sorted(self._args, key=_order))}"

    def __eq__(self, other):
        return isinstance(other, KeyReuseSignature) and self._args == other._args

    def __hash__(self):
        return hash(self._args)

    @property
    def sinks(self) -> Iterator[Sink]:
        return (a for a in self._args if isinstance(a, Sink))

    @property
    def sources(self) -> Iterator[Source]:
        return (a for a in self._args if isinstance(a, Source))

    @property
    def forwards(self) -> Iterator[Forward]:
        return (a for a in self._args if isinstance(a, Forward))

    def check_signature(self, *args, funcname: str = "function") -> None:
        """Raises KeyReuseError when an argument this signature consumes was consumed before."""
        for sink in self.sinks:
            key = args[sink.idx]
            consumed = getattr(key, "_consumed", None)
            if consumed is not None and np.any(np.logical_and(consumed, sink.mask)):
                raise _eager_reuse_error(f"Previously-consumed key passed to {funcname} at index {sink.idx}",
                                         getattr(key, "_source_info", None))

    def update_consumption(self, args_in, args_out, where=None) -> None:
        """Marks the eager key Arrays: consumed operands, fresh and forwarded results."""
        for sink in self.sinks:
            arg = args_in[sink.idx]
            if _tracks(arg):
                arg._consumed = np.logical_or(_consumed(arg), sink.mask)
                if np.any(sink.mask):
                    arg._source_info = where
        for arg in args_out:
            if _tracks(arg):
                arg._consumed = True
        for source in self.sources:
            if _tracks(args_out[source.idx]):
                args_out[source.idx]._consumed = np.logical_not(source.mask)
        for fwd in self.forwards:
            arg_in, arg_out = args_in[fwd.in_idx], args_out[fwd.out_idx]
            if _tracks(arg_in) and _tracks(arg_out):
                arg_out._consumed = _consumed(arg_in)


def _tracks(x) -> bool:
    # Only typed key Arrays carry a consumption state (raw uint32 keys do not).
    return isinstance(x, Array) and not isinstance(x, Tracer) and is_key_aval(x.aval)


def _consumed(x):
    return getattr(x, "_consumed", False)


def _eager_reuse_error(message: str, first_use) -> KeyReuseError:
    err = KeyReuseError(message)
    if first_use is not None:
        cause = KeyReuseError("PRNG key first used at the above location was subsequently reused at "
                              "the following location:")
        cause.add_note(f"key first consumed at {format_source_info(first_use)}")
        err.__cause__ = cause
    return err


def is_key_aval(aval) -> bool:
    dtype = getattr(aval, "dtype", None)
    return dtype is not None and dtypes.issubdtype(dtype, dtypes.prng_key)


def _is_key(var) -> bool:
    return is_key_aval(getattr(var, "aval", None))


class BodySignature:
    """The declared rule of a call primitive: its signature is that of the
    jaxpr held in param `param` (whose constvars follow the operands)."""

    __slots__ = ("param", "eager_name")

    def __init__(self, param: str, eager_name: str | None = None):
        self.param = param
        self.eager_name = eager_name  # (what an eager error calls the call)

    def __call__(self, eqn: JaxprEqn) -> KeyReuseSignature:
        return jaxpr_type_signature(eqn.params[self.param])


def unknown_signature(eqn: JaxprEqn) -> KeyReuseSignature:
    """An undeclared primitive consumes every key operand."""
    return KeyReuseSignature(*(Sink(i) for i, v in enumerate(eqn.invars) if _is_key(v)))


def signature_of_eqn(eqn: JaxprEqn) -> KeyReuseSignature:
    rule = eqn.primitive.key_reuse
    if rule is None:
        return unknown_signature(eqn)
    if isinstance(rule, KeyReuseSignature):
        return rule
    if callable(rule):
        return rule(eqn)
    raise TypeError(f"primitive {eqn.primitive}: key_reuse must be a KeyReuseSignature or a rule "
                    f"eqn -> KeyReuseSignature, got {type(rule).__name__}")


# Signatures of jaxprs, by identity (a jaxpr is immutable and kept alive by
# its entry, so its id is not reused while cached).
_SIGNATURES: OrderedDict[int, tuple[Jaxpr, KeyReuseSignature]] = OrderedDict()
_CACHE_SIZE = 4096


def jaxpr_type_signature(jaxpr: Jaxpr) -> KeyReuseSignature:
    """The key-reuse signature of a jaxpr (inputs: invars then constvars);
    raises KeyReuseError where it consumes a key twice."""
    hit = _SIGNATURES.get(id(jaxpr))
    if hit is not None and hit[0] is jaxpr:
        _SIGNATURES.move_to_end(id(jaxpr))
        return hit[1]
    signature = _Analysis(jaxpr).run()
    _SIGNATURES[id(jaxpr)] = (jaxpr, signature)
    if len(_SIGNATURES) > _CACHE_SIZE:
        _SIGNATURES.popitem(last=False)
    return signature


class _Analysis:
    """One walk over a jaxpr's equations, tracking each key variable's consumption."""

    def __init__(self, jaxpr: Jaxpr):
        self.jaxpr = jaxpr
        self.consumed: dict = {}  # var -> bool or element mask
        self.forwards: dict = {}  # result var -> the operand var it is

    def resolve(self, var):
        seen = 0
        while not isinstance(var, Literal) and var in self.forwards:
            var = self.forwards[var]
            seen += 1
            if seen > len(self.forwards):
                raise ValueError("key-reuse analysis: forwarding cycle")
        return var

    def sink(self, var, mask) -> bool:
        """Consumes `var` where `mask`; True when part of it was consumed already."""
        if not _is_key(var):
            return False
        var = self.resolve(var)
        before = self.consumed.get(var, False)
        if np.any(np.logical_and(before, mask)):
            return True
        self.consumed[var] = np.logical_or(before, mask)
        return False

    def source(self, var, mask=False) -> None:
        if _is_key(var):
            self.consumed[self.resolve(var)] = mask

    def is_consumed(self, var):
        var = self.resolve(var)
        return False if isinstance(var, Literal) else self.consumed.get(var, False)

    def run(self) -> KeyReuseSignature:
        for eqn in self.jaxpr.eqns:
            try:
                self.step(eqn)
            except KeyReuseError as err:
                if eqn.source_info is not None and not getattr(err, "_located", False):
                    err.add_note(f"at {format_source_info(eqn.source_info)}")
                    err._located = True
                raise
        return self.signature()

    def step(self, eqn: JaxprEqn) -> None:
        signature = signature_of_eqn(eqn)
        check = getattr(eqn.primitive, "check_consumed", None)
        if check is not None:  # (assert_consumed_value: an assertion about the analysis itself)
            check(eqn, self.is_consumed(eqn.invars[0]))
        for fwd in signature.forwards:
            self.forwards[eqn.outvars[fwd.out_idx]] = eqn.invars[fwd.in_idx]
        for snk in signature.sinks:
            if not 0 <= snk.idx < len(eqn.invars):
                raise KeyReuseError(f"In {eqn.primitive}, sink {snk.idx} out of range [0, {len(eqn.invars)}]")
            if self.sink(eqn.invars[snk.idx], snk.mask):
                raise KeyReuseError(f"In {eqn.primitive}, argument {snk.idx} is already consumed.")
        for var in eqn.outvars:
            if var not in self.forwards:
                self.source(var, True)  # results are consumed unless a Source says otherwise
        for src in signature.sources:
            if not 0 <= src.idx < len(eqn.outvars):
                raise KeyReuseError(f"In {eqn.primitive}, source {src.idx} out of range [0, {len(eqn.outvars)}]")
            self.source(eqn.outvars[src.idx])

    def signature(self) -> KeyReuseSignature:
        inputs = [*self.jaxpr.invars, *self.jaxpr.constvars]
        position = {v: i for i, v in enumerate(inputs)}
        entries: list = [Sink(i, self.consumed[v]) for i, v in enumerate(inputs)
                         if _is_key(v) and np.any(self.consumed.get(v, False))]
        for j, out in enumerate(self.jaxpr.outvars):
            if not _is_key(out):
                continue
            origin = self.resolve(out)
            if not isinstance(origin, Literal) and origin in position:
                entries.append(Forward(position[origin], j))
            elif not np.any(self.consumed.get(out, False)):
                entries.append(Source(j))
        return KeyReuseSignature(*entries)


def call_checked(signature: KeyReuseSignature, funcname: str, args: Sequence[Any], consts: Sequence[Any],
                 run: Callable[[], Any], multiple_results: bool = True) -> Any:
    """Runs `run()` eagerly after checking that no key it consumes was
    consumed before, then marks the keys it consumed, made and passed through."""
    operands = [*args, *consts]
    signature.check_signature(*operands, funcname=funcname)
    result = run()
    where = user_source_info() if any(True for _ in signature.sinks) else None
    signature.update_consumption(operands, list(result) if multiple_results else [result], where)
    return result


def signature_if_checked(jaxpr: Jaxpr) -> KeyReuseSignature | None:
    """For jit's cache entries: under jax_debug_key_reuse, the signature of a
    jaxpr just traced (which raises KeyReuseError where it reuses a key);
    None when the option is off."""
    return jaxpr_type_signature(jaxpr) if config.debug_key_reuse.value else None


def run_entry_checked(entry, flat_args: Sequence[Any], backend) -> list:
    """Runs one of jit's cache entries eagerly between the key checks of its
    signature (`entry.key_reuse`), over its arguments and constants."""
    return call_checked(entry.key_reuse, "jit-compiled function", flat_args, entry.jaxpr.consts,
                        lambda: entry.run(flat_args, backend, True))


def check_key_reuse_jaxpr(jaxpr: Jaxpr) -> None:
    """Raises KeyReuseError where `jaxpr` consumes a typed PRNG key twice."""
    jaxpr_type_signature(jaxpr)


# --- the rules of control flow, declared by cond, scan and while_loop

def cond_signature(eqn: JaxprEqn) -> KeyReuseSignature:
    """cond (operand 0 is the branch index): a key is consumed where any
    branch consumes it, fresh where every branch makes it fresh, forwarded
    where every branch forwards it."""
    signatures = [jaxpr_type_signature(branch) for branch in eqn.params["branches"]]
    sinks, sources = defaultdict(list), defaultdict(list)
    for sig in signatures:
        for s in sig.sinks:
            sinks[s.idx].append(s.mask)
        for s in sig.sources:
            sources[s.idx].append(s.mask)
    forwards = set.intersection(*(set(sig.forwards) for sig in signatures))
    return KeyReuseSignature(*(Sink(i + 1, reduce(np.logical_or, m)) for i, m in sinks.items()),
                             *(Source(i, reduce(np.logical_and, m)) for i, m in sources.items()),
                             *(Forward(f.in_idx + 1, f.out_idx) for f in forwards))


def scan_signature(eqn: JaxprEqn, num_consts: int, num_carry: int) -> KeyReuseSignature:
    """scan: its body runs many times, so it may not consume a constant key,
    and may consume a carried key only when it returns a fresh one in its place."""
    jaxpr = eqn.params["jaxpr"]
    signature = jaxpr_type_signature(jaxpr)
    consumed = [s.idx for s in signature.sinks if np.any(s.mask)]
    if min(consumed, default=num_consts) < num_consts:
        raise KeyReuseError("scan body function leads to key reuse when repeatedly executed, because key "
                            f"constants are repeatedly consumed:\n  signature={signature!r}\n  eqn={eqn!r}\n"
                            f"  jaxpr={jaxpr!r}")
    carry_sinks = {i - num_consts for i in consumed if num_consts <= i < num_consts + num_carry}
    carry_sources = {s.idx for s in signature.sources if 0 <= s.idx < num_carry and np.any(s.mask)}
    if not carry_sinks <= carry_sources:
        raise KeyReuseError("scan body function leads to key reuse when repeatedly executed, because consumed "
                            f"inputs don't match sourced outputs:\n  signature={signature!r}\n  eqn={eqn!r}\n"
                            f"  jaxpr={jaxpr!r}")
    return signature


def while_signature(eqn: JaxprEqn) -> KeyReuseSignature:
    """while_loop: as scan, for both the condition and the body."""
    p = eqn.params
    cond_sig, body_sig = jaxpr_type_signature(p["cond_jaxpr"]), jaxpr_type_signature(p["body_jaxpr"])
    cond_n, body_n = p["cond_nconsts"], p["body_nconsts"]
    repeated = "function leads to key reuse when repeatedly executed:  "
    cond_msg = f"while_loop cond {repeated} cond_signature={cond_sig!r}\n  eqn={eqn!r}"
    body_msg = f"while_loop body {repeated} body_signature={body_sig!r}\n  eqn={eqn!r}"
    if any(np.any(s.mask) for s in cond_sig.sinks if s.idx < cond_n):
        raise KeyReuseError(cond_msg)
    if any(np.any(s.mask) for s in body_sig.sinks if s.idx < body_n):
        raise KeyReuseError(body_msg)
    body_carry = {s.idx - body_n for s in body_sig.sinks if s.idx >= body_n}
    cond_carry = {s.idx - cond_n for s in cond_sig.sinks if s.idx >= cond_n}
    fresh = {s.idx for s in body_sig.sources}
    if not cond_carry <= fresh:
        raise KeyReuseError(cond_msg)
    if not body_carry <= fresh:
        raise KeyReuseError(body_msg)
    if body_carry & cond_carry:
        raise KeyReuseError("while_loop cond and body functions both use the same key: "
                            f"  cond_signature={cond_sig!r}\n  body_signature={body_sig!r}\n  eqn={eqn!r}")
    return body_sig


def slice_signature(eqn: JaxprEqn) -> KeyReuseSignature:
    """slice of a key array: the sliced elements are consumed, the result is fresh."""
    aval = eqn.invars[0].aval
    if not is_key_aval(aval) or not all(isinstance(d, int) for d in aval.shape):
        return KeyReuseSignature(Forward(0, 0))
    p = eqn.params
    strides = p["strides"] or (1,) * len(p["start_indices"])
    mask = np.zeros(aval.shape, dtype=bool)
    mask[tuple(slice(*t) for t in zip(p["start_indices"], p["limit_indices"], strides, strict=True))] = True
    return KeyReuseSignature(Sink(0, mask), Source(0))


def consume_all_fresh_outputs(eqn: JaxprEqn) -> KeyReuseSignature:
    """unstack: the operand is consumed, each piece is a fresh key."""
    return KeyReuseSignature(Sink(0), *(Source(i) for i in range(len(eqn.outvars))))


def concatenate_signature(eqn: JaxprEqn) -> KeyReuseSignature:
    """concatenate: one operand is forwarded; several are consumed into a fresh result."""
    if len(eqn.invars) == 1:
        return KeyReuseSignature(Forward(0, 0))
    return KeyReuseSignature(*(Sink(i) for i in range(len(eqn.invars))), Source(0))


def forward_each(eqn: JaxprEqn) -> KeyReuseSignature:
    """device_put: each operand is its result."""
    return KeyReuseSignature(*(Forward(i, i) for i in range(len(eqn.invars))))


def remat_signature(eqn: JaxprEqn) -> KeyReuseSignature:
    """checkpoint: the body's signature; the differentiated copy re-runs work
    whose keys the primal copy already accounted for."""
    if eqn.params["differentiated"]:
        return KeyReuseSignature()
    return jaxpr_type_signature(eqn.params["jaxpr"])


FORWARD = KeyReuseSignature(Forward(0, 0))
NO_KEYS = KeyReuseSignature()  # (equality tests, unwrapping, callbacks: nothing consumed)
