"""PRNG keys and bit operations in native code: threefry keys as their
uint32 words (`physical`), the key primitives (wrap, unwrap, split,
fold_in, random_bits, threefry2x32) as loops over threefry.py's hash, and
XLA's shifts.

A key value is a view of its uint32 data, shape `(*shape, 2)`, as the
impls (impls/random.py) see it through `prng.physical_keys`. Only the
partitionable threefry layout is written (the default; plans.py refuses the
other): a draw's counter is its row-major index, its high word 0.
"""

from __future__ import annotations

import math

import numpy as np

from pyjax._src import dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.backends.numpy.native.csource import (
    _C_SCALARS, _Source, _Unsupported, _View, _contiguous, _element_lines,
)
from pyjax._src.backends.numpy.native.threefry import HASH_FUNCTION

_U32 = np.dtype(np.uint32)

# Primitives on keys written here; plans.py lets them in.
KEY_OPS = frozenset({"random_wrap", "random_unwrap", "random_clone", "random_split", "random_fold_in",
                     "random_bits", "threefry2x32"})
SHIFTS = frozenset({"shift_left", "shift_right_logical", "shift_right_arithmetic"})
# Shape ops whose views (ops.py, emit.py) move whole keys: they read the
# physical shapes of the operand and result (unstack's, rev's and
# dynamic_slice's axes are leading ones), or params `key_view_params`
# extends over the key's words.
_KEY_SAFE = frozenset({"stop_gradient", "copy", "name", "random_clone", "unstack", "reshape", "squeeze", "rev",
                       "slice", "broadcast_in_dim", "transpose", "dynamic_slice"})


def is_key(aval) -> bool:
    return isinstance(aval.dtype, dtypes.ExtendedDType)


def physical(aval):
    """The aval of a value's storage in native code: a threefry key array's
    uint32 words; any other aval itself."""
    if not is_key(aval):
        return aval
    impl = getattr(aval.dtype, "_impl", None)
    if impl is None or impl.name != "threefry2x32":
        raise _Unsupported(f"keys of {aval.dtype}")
    return ShapedArray(tuple(aval.shape) + tuple(impl.key_shape), _U32)


def check_key_eqn(eqn) -> None:
    """Raises _Unsupported for an equation touching keys that is not written
    here (a slice or broadcast of keys would read logical shapes)."""
    name = eqn.primitive.name
    if name in KEY_OPS or name in _KEY_SAFE or eqn.primitive.call_body is not None or name == "cond":
        return
    if any(is_key(v.aval) for v in (*eqn.invars, *eqn.outvars)):
        raise _Unsupported(f"{name} of keys")


def key_view_params(eqn) -> dict:
    """A view's params over the physical value: a key array's words are one
    more, whole, trailing axis."""
    params, name = eqn.params, eqn.primitive.name
    if name not in ("slice", "broadcast_in_dim", "transpose") or not is_key(eqn.outvars[0].aval):
        return params
    out_ndim = len(eqn.outvars[0].aval.shape)
    if name == "slice":
        strides = params.get("strides")
        return {**params, "start_indices": (*params["start_indices"], 0),
                "strides": None if strides is None else (*strides, 1)}
    if name == "broadcast_in_dim":
        return {**params, "broadcast_dimensions": (*params["broadcast_dimensions"], out_ndim)}
    return {**params, "permutation": (*params["permutation"], out_ndim)}


def _hash(src: _Source) -> None:
    src.helpers.setdefault("pj_hash", HASH_FUNCTION)


def _words(src: _Source, keys: _View, step: list) -> tuple[_View, int]:
    # The keys' words contiguous, and how many keys.
    keys, lines = _contiguous(src, keys)
    step += lines
    return keys, math.prod(keys.shape[:-1])


def key_lines(src: _Source, name: str, params: dict, ins: list, out_avals: list, step: list) -> list:
    """The outputs' views of key primitive `name` (its lines appended to `step`)."""
    if name in ("random_wrap", "random_unwrap", "random_clone"):
        (x,), (aval,) = ins, out_avals
        if x.dtype != _U32 or x.shape != aval.shape:
            raise _Unsupported(f"{name} of {x.dtype}{list(x.shape)}")
        return [x]
    if name == "threefry2x32":
        return _threefry_lines(src, ins, out_avals, step)
    if name == "random_fold_in":
        return [_fold_in_lines(src, ins, out_avals[0], step)]
    keys, n_keys = _words(src, ins[0], step)
    _hash(src)
    out = src.temp(out_avals[0])
    count = math.prod(params["shape"])
    i, j = src.index(), src.index()
    head = (f"{{ const uint32_t *pj_k = (const uint32_t *){keys.ptr}; for (intptr_t {i} = 0; {i} < {n_keys}; {i}++) "
            f"for (intptr_t {j} = 0; {j} < {count}; {j}++) {{ uint32_t x0 = 0, x1 = (uint32_t){j}; "
            f"pj_hash(pj_k[2 * {i}], pj_k[2 * {i} + 1], &x0, &x1); ")
    at = f"{i} * {count} + {j}"
    each_key = lambda kind, words: (  # noqa: E731  (threefry.py's vectorised loops over one key's counters)
        f"{{ const uint32_t *pj_k = (const uint32_t *){keys.ptr}; for (intptr_t {i} = 0; {i} < {n_keys}; {i}++) "
        f"pj_hash_{kind}(pj_k[2 * {i}], pj_k[2 * {i} + 1], (uint32_t *){out.ptr} + {words} * {i} * {count}, {count}); }}")
    if name == "random_split":  # impls: threefry_split, partitionable
        step.append(each_key("pairs", 2))
        return [out]
    if name == "random_bits":  # impls: threefry_random_bits, partitionable
        width = params["bit_width"]
        ctype = _C_SCALARS[out.dtype]
        if out.dtype.kind != "u" or out.dtype.itemsize * 8 != width:
            raise _Unsupported(f"random_bits of {width} bits as {out.dtype}")
        value = "((uint64_t)x0 << 32) | x1" if width == 64 else f"({ctype})(x0 ^ x1)"
        step.append(each_key("xor", 1) if width == 32 else f"{head}(({ctype} *){out.ptr})[{at}] = {value}; }} }}")
        return [out]
    raise _Unsupported(name)


def _threefry_lines(src: _Source, ins: list, out_avals: list, step: list) -> list:
    # The primitive: four uint32 operands broadcast together, two results.
    if any(v.dtype != _U32 for v in ins):
        raise _Unsupported("threefry2x32 operands")
    _hash(src)
    outs = [src.temp(a) for a in out_avals]
    step += _element_lines(src, outs[0].shape, [*ins, *outs], lambda r: (
        f"{{ uint32_t x0 = {r[2]}, x1 = {r[3]}; pj_hash({r[0]}, {r[1]}, &x0, &x1); {r[4]} = x0; {r[5]} = x1; }}"), writes=2)
    return outs


def _fold_in_lines(src: _Source, ins: list, out_aval, step: list) -> _View:
    # impls: the keys and messages broadcast; each key hashes (0, msg).
    keys, msgs = ins
    if msgs.dtype != _U32:
        raise _Unsupported(f"fold_in messages of {msgs.dtype}")
    _hash(src)
    out = src.temp(out_aval)
    shape = out.shape[:-1]
    word = keys.strides[-1]
    k0, k1 = (_View(f"({keys.ptr} + {w * word})", keys.shape[:-1], keys.strides[:-1], _U32) for w in (0, 1))
    o0, o1 = (_View(f"({out.ptr} + {4 * w})", shape, out.strides[:-1], _U32) for w in (0, 1))
    step += _element_lines(src, shape, [k0, k1, msgs, o0, o1], lambda r: (
        f"{{ uint32_t x0 = 0, x1 = {r[2]}; pj_hash({r[0]}, {r[1]}, &x0, &x1); {r[3]} = x0; {r[4]} = x1; }}"), writes=2)
    return out


def shift_lines(src: _Source, name: str, ins: list, out: _View) -> list[str]:
    """XLA's shifts (impls/standard.py `_shift`): a shift by a negative
    amount or by the bit width or more gives 0 (the sign fill for an
    arithmetic right shift); in range, NumPy's shift of the same bits."""
    x, y = ins
    if out.dtype.kind not in "iu" or x.dtype != out.dtype or y.dtype != out.dtype:
        raise _Unsupported(f"{name} of {x.dtype}")
    bits = out.dtype.itemsize * 8
    unsigned, signed = f"uint{bits}_t", f"int{bits}_t"
    ctype = _C_SCALARS[out.dtype]
    out_of_range = f"((int64_t){{1}} < 0 || (int64_t){{1}} >= {bits})"

    def statement(r):
        bad = out_of_range.format(r[0], r[1])
        if name == "shift_left":
            value, fill = f"({ctype})(({unsigned}){r[0]} << ({unsigned}){r[1]})", "0"
        elif name == "shift_right_logical":
            value, fill = f"({ctype})(({unsigned}){r[0]} >> ({unsigned}){r[1]})", "0"
        else:  # (GCC's signed right shift is arithmetic)
            value = f"({ctype})(({signed}){r[0]} >> ({unsigned}){r[1]})"
            fill = f"(({signed}){r[0]} < 0 ? ({ctype})-1 : ({ctype})0)"
        return f"{r[2]} = {bad} ? {fill} : {value};"

    return _element_lines(src, out.shape, [x, y, out], statement)


def unstack_views(ins, params, out_avals):
    (x,), axis = ins, params["axis"]
    shape, strides = x.shape[:axis] + x.shape[axis + 1:], x.strides[:axis] + x.strides[axis + 1:]
    return [_View(f"({x.ptr} + {k * x.strides[axis]})", shape, strides, aval.dtype)
            for k, aval in enumerate(out_avals)]


def bitcast_view(ins, params, out_avals):
    # Same width: the same bytes read as the new dtype (the impl's `view`).
    (x,), (aval,) = ins, out_avals
    if x.dtype.itemsize != aval.dtype.itemsize:
        raise _Unsupported("a bitcast that changes widths")
    return [_View(x.ptr, x.shape, x.strides, aval.dtype)]
