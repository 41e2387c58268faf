"""Differential fuzzing of the native tier (backends/numpy/native/).

Random straight-line programs and scan bodies over the operations the
native tier accepts, fed random and edge values (NaN of both signs, signed
zeros, infinities, subnormals, the float extremes, the int32 extremes,
indices out of range), run natively and as Python, compared bitwise. Many
programs share one jitted function, so that one C build serves them all.

    python -m pyjax.tools.fuzz_native --cases 5000 --seed 1

prints a summary, and for each difference the seed, the batch, the ops and
the input set that reproduce it; it exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

__all__ = ["FuzzReport", "fuzz", "main"]

SHAPE = (4, 8)
_WAIT_FOR_BUILDS_S = 600.0  # (a compiler is killed after build._BUILD_TIMEOUT_S)
I32 = np.iinfo(np.int32)


def _ops():
    # name -> (dtype kinds it takes, arity, fn(pool values..., index) -> a value of SHAPE and the operand dtype)
    import pyjax.numpy as jnp
    from pyjax import lax

    from pyjax import random

    def keep(x, like):  # a bool or converted value back to the operand dtype
        return x.astype(like.dtype)

    def key(k):  # a threefry key from the index operand (keys are values inside the program)
        return random.wrap_key_data(jnp.stack([k, -k]).astype(jnp.uint32))

    def flip_bits(a):  # through the other type of the same width and back
        other = {"float32": jnp.int32, "float64": jnp.int64, "int32": jnp.float32}[a.dtype.name]
        b = lax.bitcast_convert_type(a, other)
        b = jnp.abs(b) if a.dtype.kind == "i" else b ^ jnp.asarray(5, other)
        return lax.bitcast_convert_type(b, a.dtype)

    f, i, fi = "f", "i", "fi"
    return {
        "neg": (fi, 1, lambda a, k: -a),
        "abs": (fi, 1, lambda a, k: jnp.abs(a)),
        "sign": (fi, 1, lambda a, k: jnp.sign(a)),
        "sin": (f, 1, lambda a, k: jnp.sin(a)),
        "cos": (f, 1, lambda a, k: jnp.cos(a)),
        "tanh": (f, 1, lambda a, k: jnp.tanh(a)),
        "exp": (f, 1, lambda a, k: jnp.exp(a)),
        "log": (f, 1, lambda a, k: jnp.log(a)),
        "log1p": (f, 1, lambda a, k: jnp.log1p(a)),
        "expm1": (f, 1, lambda a, k: jnp.expm1(a)),
        "sqrt": (f, 1, lambda a, k: jnp.sqrt(a)),
        "floor": (f, 1, lambda a, k: jnp.floor(a)),
        "ceil": (f, 1, lambda a, k: jnp.ceil(a)),
        "logistic": (f, 1, lambda a, k: lax.logistic(a)),
        "square": (fi, 1, lambda a, k: lax.integer_pow(a, 2)),
        "cube": (fi, 1, lambda a, k: lax.integer_pow(a, 3)),
        "add": (fi, 2, lambda a, b, k: a + b),
        "sub": (fi, 2, lambda a, b, k: a - b),
        "mul": (fi, 2, lambda a, b, k: a * b),
        "div": (f, 2, lambda a, b, k: a / b),
        "muladd": (f, 3, lambda a, b, c, k: a * b + c),
        "max": (fi, 2, lambda a, b, k: jnp.maximum(a, b)),
        "min": (fi, 2, lambda a, b, k: jnp.minimum(a, b)),
        "clamp": (fi, 3, lambda a, b, c, k: lax.clamp(b, a, c)),
        "atan2": (f, 2, lambda a, b, k: jnp.arctan2(a, b)),
        "and": (i, 2, lambda a, b, k: a & b),
        "xor": (i, 2, lambda a, b, k: a ^ b),
        "lt": (fi, 2, lambda a, b, k: keep(a < b, a)),
        "eq": (fi, 2, lambda a, b, k: keep(a == b, a)),
        "where": (fi, 3, lambda a, b, c, k: jnp.where(a > b, b, c)),
        "to_int": (f, 1, lambda a, k: keep(a.astype(jnp.int32), a)),
        "to_bool": (fi, 1, lambda a, k: keep(a.astype(bool), a)),
        "to_other_float": (f, 1, lambda a, k: keep(a.astype(jnp.float64 if a.dtype == jnp.float32
                                                            else jnp.float32), a)),
        "to_float": (i, 1, lambda a, k: keep(a.astype(jnp.float32), a)),
        "sum_last": (fi, 1, lambda a, k: jnp.broadcast_to(jnp.sum(a, axis=-1, keepdims=True), SHAPE)),
        "max_last": (fi, 1, lambda a, k: jnp.broadcast_to(jnp.max(a, axis=-1, keepdims=True), SHAPE)),
        "min_first": (fi, 1, lambda a, k: jnp.broadcast_to(jnp.min(a, axis=0, keepdims=True), SHAPE)),
        "prod_all": (fi, 1, lambda a, k: jnp.broadcast_to(jnp.prod(a), SHAPE)),
        "sum_all": (fi, 1, lambda a, k: jnp.broadcast_to(jnp.sum(a), SHAPE)),
        "rev": (fi, 1, lambda a, k: a[::-1, ::-1]),
        "transpose": (fi, 1, lambda a, k: a.T.reshape(SHAPE)),
        "slice_concat": (fi, 2, lambda a, b, k: jnp.concatenate([a[:, 3:], b[:, :3]], axis=1)),
        "dynamic_slice": (fi, 1, lambda a, k: jnp.concatenate([lax.dynamic_slice(a, (k, 0 * k), (2, 8))] * 2)),
        "dynamic_update": (fi, 2, lambda a, b, k: lax.dynamic_update_slice(a, b[:2, :3], (k, k))),
        "set_row": (fi, 2, lambda a, b, k: a.at[k].set(b[0])),
        "set_row_clip": (fi, 2, lambda a, b, k: a.at[k].set(b[1], mode="clip")),
        "matmul": (f, 2, lambda a, b, k: (a @ b.T) @ b[:, :8]),
        "shift_left": (i, 2, lambda a, b, k: lax.shift_left(a, b)),
        "shift_right": (i, 2, lambda a, b, k: lax.shift_right_logical(a, b & 31) + lax.shift_right_arithmetic(b, a)),
        "bitcast": (fi, 1, lambda a, k: flip_bits(a)),
        "erf_inv": (f, 1, lambda a, k: lax.erf_inv(a)),
        "uniform": (f, 1, lambda a, k: a + random.uniform(key(k), SHAPE, a.dtype)),
        "normal": (f, 1, lambda a, k: a * random.normal(random.split(key(k))[1], SHAPE, a.dtype)),
        "bits": (i, 1, lambda a, k: a ^ lax.bitcast_convert_type(random.bits(random.fold_in(key(k), 7), SHAPE), jnp.int32)),
        "bits8": (i, 1, lambda a, k: a + random.bits(random.split(key(k), 3)[2], SHAPE, jnp.uint8).astype(a.dtype)),
    }


def _float_edges(dtype) -> np.ndarray:
    fi = np.finfo(dtype)
    nan = np.array(np.nan, dtype)
    neg_nan = -nan
    return np.array([nan, neg_nan, 0.0, -0.0, np.inf, -np.inf, fi.smallest_subnormal, -fi.smallest_subnormal,
                     fi.smallest_normal / 2, fi.max, -fi.max, fi.smallest_normal, 1.0, -1.0, 0.5, 2.0, -3.5, 1e-3],
                    dtype)


_INT_EDGES = np.array([I32.min, I32.max, 0, -1, 1, 2, 7, -8, 1 << 16, -(1 << 20)], np.int32)
_INDEX_EDGES = [-5, -1, 0, 1, 2, 3, 4, 100, int(I32.min), int(I32.max)]


def _inputs(rng: np.random.Generator, dtype, kind: str):
    dtype = np.dtype(dtype)
    if kind == "random":
        a = (rng.standard_normal((2, *SHAPE)) * 3).astype(dtype) if dtype.kind == "f" else \
            rng.integers(-100, 100, (2, *SHAPE), dtype=np.int32)
        return a[0], a[1], np.int32(rng.integers(0, 4))
    pool = _float_edges(dtype) if dtype.kind == "f" else _INT_EDGES
    vals = rng.choice(pool, (2, *SHAPE))
    if kind == "mixed":
        rand = (rng.standard_normal((2, *SHAPE))).astype(dtype) if dtype.kind == "f" else \
            rng.integers(-9, 9, (2, *SHAPE), dtype=np.int32)
        vals = np.where(rng.random((2, *SHAPE)) < 0.25, vals, rand)
    return vals[0].astype(dtype), vals[1].astype(dtype), np.int32(rng.choice(_INDEX_EDGES))


@dataclass
class FuzzReport:
    """What a fuzzing run did, and the differences it found."""

    seed: int
    programs: int = 0
    batches: int = 0
    live_batches: int = 0
    input_sets: int = 0
    comparisons: int = 0  # (program, input set) pairs compared
    float64_live: int = 0  # native batches that really ran in float64 (x64 on)
    unsupported: list = field(default_factory=list)  # ops the native tier took no program of
    failures: list = field(default_factory=list)  # (description) of each difference
    seconds: float = 0.0

    def summary(self) -> str:
        return (f"seed {self.seed}: {self.programs} programs in {self.batches} batches "
                f"({self.live_batches} native, {self.float64_live} of them float64), {self.input_sets} input sets, "
                f"{self.comparisons} comparisons, "
                f"{len(self.failures)} differences, {self.seconds:.1f} s")


def _natives():
    from pyjax._src.backends.numpy import native

    return [o for o in gc.get_objects() if isinstance(o, native.NativeLoop)]


def _build_program(ops: dict, names: list[str], n_ops: int, rng: np.random.Generator):
    # One program: `n_ops` random ops over a pool that starts as (a, b).
    steps = []
    pool = 2
    for _ in range(n_ops):
        name = names[rng.integers(len(names))]
        arity = ops[name][1]
        steps.append((name, [int(rng.integers(pool)) for _ in range(arity)]))
        pool += 1
    return steps


def _run_program(ops, steps, a, b, k):
    pool = [a, b]
    for name, args in steps:
        pool.append(ops[name][2](*[pool[j] for j in args], k))
    return pool[-1]


def _batch_fn(ops, programs, loop: bool) -> Callable:
    from pyjax import lax

    if not loop:
        return lambda a, b, k: tuple(_run_program(ops, p, a, b, k) for p in programs)

    def f(a, b, k):
        def body(carry, _):
            return tuple(_run_program(ops, p, c, b, k) for p, c in zip(programs, carry, strict=True)), None
        return lax.scan(body, (a,) * len(programs), None, length=3)[0]
    return f


def _same(x, y) -> bool:
    x, y = np.asarray(x), np.asarray(y)
    return x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()


def _x64(dtype):
    # float64 programs need x64 on: without it their inputs run as float32.
    import contextlib

    import pyjax

    return pyjax.enable_x64(True) if np.dtype(dtype) == np.float64 else contextlib.nullcontext()


def _supported(ops: dict, dtype, loop: bool) -> list[str]:
    # The ops a native tier takes alone (two of them in a row, one program).
    import pyjax

    kind = "f" if np.dtype(dtype).kind == "f" else "i"
    names = []
    a, b, k = _inputs(np.random.default_rng(0), dtype, "random")
    for name, (kinds, arity, _) in ops.items():
        if kind not in kinds:
            continue
        # (A max after it: an add after a multiply became one fused
        # multiply-add, a program too short for a tier, and float32 `mul`
        # and `square` were never drawn.)
        steps = [(name, [0] * arity), ("max" if name != "max" else "add", [2, 1])]
        held = _natives()  # alive during the call: a freed tier's id could be reused
        before = {id(o) for o in held}
        jf = pyjax.jit(_batch_fn(ops, [steps], loop))
        with _x64(dtype):
            jf(a, b, k)
        made = [o for o in _natives() if id(o) not in before]
        if made and all(o.live for o in made):
            names.append(name)
    return names


def fuzz(cases: int = 300, seed: int = 0, per_batch: int = 12, input_sets: int = 6,
         log: Callable[[str], None] | None = None, exclude: frozenset = frozenset()) -> FuzzReport:
    """Runs about `cases` random programs (`per_batch` to a jitted function,
    straight-line and as scan bodies, float32, float64 and int32) through
    the native tier and the Python code on `input_sets` input sets each,
    and reports every bitwise difference."""
    import pyjax
    from pyjax._src.backends.numpy.native import settings as native_settings

    start = time.perf_counter()
    report = FuzzReport(seed)
    saved = native_settings.AFTER_STEPS, native_settings._FIRST_CALL_WAIT_S
    native_settings.AFTER_STEPS = 0  # build at the first call: it is the checked one
    # ... and wait for every build, however loaded the machine: with the
    # 5 s cap, a slow build left the probe (`_supported`) finding some ops
    # without a tier, so the same seed drew other programs run to run.
    native_settings._FIRST_CALL_WAIT_S = _WAIT_FOR_BUILDS_S
    try:
        with np.errstate(all="ignore"):  # edge values overflow and divide by zero, on purpose
            _fuzz(report, cases, seed, per_batch, input_sets, log, exclude)
    finally:
        native_settings.AFTER_STEPS, native_settings._FIRST_CALL_WAIT_S = saved
    report.seconds = time.perf_counter() - start
    return report


def _fuzz(report: FuzzReport, cases: int, seed: int, per_batch: int, input_sets: int, log, exclude) -> None:
    ops = {name: op for name, op in _ops().items() if name not in exclude}
    rng = np.random.default_rng(seed)
    configs = [(d, loop) for d in (np.float32, np.float64, np.int32) for loop in (False, True)]
    supported = {}
    for d, loop in configs:
        supported[(d, loop)] = _supported(ops, d, loop)
    kinds_of = {"f": [n for n, o in ops.items() if "f" in o[0]], "i": [n for n, o in ops.items() if "i" in o[0]]}
    for d, loop in configs[:2] + configs[4:5]:
        kind = np.dtype(d).kind
        report.unsupported += [f"{n} ({np.dtype(d).name}{', scan' if loop else ''})"
                               for n in kinds_of[kind] if n not in supported[(d, loop)]]
    batch = 0
    if not any(supported.values()):  # (no native tier at all: nothing to draw)
        return
    while report.programs < cases:
        d, loop = configs[batch % len(configs)]
        names = supported[(d, loop)]
        batch += 1
        if not names:
            continue
        programs = [_build_program(ops, names, int(rng.integers(1, 7)), rng) for _ in range(per_batch)]
        report.programs += len(programs)
        report.batches += 1
        with _x64(d):
            _batch(report, ops, programs, loop, d, rng, input_sets, seed)
        if log is not None and report.batches % 10 == 0:
            log(report.summary())


def _batch(report: FuzzReport, ops, programs, loop: bool, d, rng, input_sets: int, seed: int) -> None:
    # One jitted function of `programs`, native and Python, on fresh input sets.
    import pyjax
    from pyjax._src.backends.numpy import fpenv
    from pyjax._src.backends.numpy.native import settings as native_settings

    fn = _batch_fn(ops, programs, loop)
    held = _natives()  # alive during the call: a freed tier's id could be reused
    before = {id(o) for o in held}
    jf = pyjax.jit(fn)
    native_settings.ENABLED = False
    try:
        ref = pyjax.jit(_batch_fn(ops, programs, loop))
        sets = [_inputs(rng, d, kind) for kind in (["random", "edge", "mixed"] * input_sets)[:input_sets]]
        wants = [ref(*s) for s in sets]
    finally:
        native_settings.ENABLED = True
    got = [jf(*s) for s in sets]
    made = [o for o in _natives() if id(o) not in before]
    live = [o for o in made if o.live]
    report.live_batches += bool(made) and len(live) == len(made)
    report.float64_live += bool(made) and len(live) == len(made) and np.dtype(d) == np.float64 and all(
        np.dtype(dt) == np.float64 for o in made for _, dt in o.in_specs if np.dtype(dt).kind == "f")
    report.input_sets += len(sets)
    dropped = [o.failure for o in made if o.dead]
    for j, (s, want, out) in enumerate(zip(sets, wants, got, strict=True)):
        raw = None
        if not loop and len(live) == 1 and live[0]._call is not None:
            raw = fpenv.run(live[0]._call, *s)  # the native code itself, never re-checked (in pyjax's FP mode)
        for p, prog in enumerate(programs):
            report.comparisons += 1
            bad = not _same(out[p], want[p]) or (raw is not None and not _same(raw[p], want[p]))
            if bad:
                report.failures.append(
                    f"seed {seed} batch {report.batches} ({np.dtype(d).name}{', scan' if loop else ''}) "
                    f"program {p} {prog} input set {j}: a={s[0].tolist()} b={s[1].tolist()} k={int(s[2])}; "
                    f"native {np.asarray(raw[p] if raw is not None else out[p]).tolist()} "
                    f"python {np.asarray(want[p]).tolist()}")
    for why in dropped:
        if "differ" in why or "wrote" in why:
            report.failures.append(f"seed {seed} batch {report.batches} ({np.dtype(d).name}"
                                   f"{', scan' if loop else ''}): tier dropped: {why}; programs {programs}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=5000, help="programs to run (default 5000)")
    parser.add_argument("--seed", type=int, default=None, help="the seed (default: a fresh one, printed)")
    parser.add_argument("--per-batch", type=int, default=12, help="programs per jitted function (one C build)")
    parser.add_argument("--inputs", type=int, default=9, help="input sets per batch")
    parser.add_argument("--exclude", default="", help="ops to leave out, comma-separated")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**32)
    print(f"fuzz_native: seed {seed}", flush=True)
    report = fuzz(args.cases, seed, args.per_batch, args.inputs, log=lambda s: print(s, flush=True),
                  exclude=frozenset(filter(None, args.exclude.split(","))))
    print(report.summary())
    if report.unsupported:
        print("ops without a native tier:", ", ".join(report.unsupported))
    for failure in report.failures:
        print("DIFFERENCE:", failure)
    return 1 if report.failures else 0


if __name__ == "__main__":
    sys.exit(main())
