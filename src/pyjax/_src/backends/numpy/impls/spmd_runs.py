"""Runs of equations that exchange nothing, in a shard_map body, as compiled
per-device programs.

The lockstep runtime (spmd.py) walks a body equation by equation, every
device's call of one equation before the next equation. Between two
collectives that order is not needed: consecutive equations that exchange
nothing (no collective, no call or loop holding one, no effect) can run
device after device, each device through the whole run, which is what each
device would do on its own. Such a run is compiled once, by the backend's
compiler, into one program over per-device shapes, and each device calls it
on its own buffers: one call per device per run instead of one interpreted
impl call per device per equation.

Within a run, an equation whose operands are each one buffer every device
shares (literals, constants, a psum's result, a replicated input) is
computed once, before the per-device programs, and shared, as
`spmd._per_device` does; it reads only shared values, so computing it first
changes nothing. The program holds the other equations (one program per
such split of the run, compiled on first use). It is generated over the
impls without XLA's rewrites (jit's programs swap a transposed product's
operands, which rounds differently on some CPUs), so each equation computes
what its impl computes: the same bits as interpreting the run
(tests/test_spmd_runs.py).
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Callable, Iterator

import numpy as np

from pyjax._src.jaxpr import Jaxpr, Literal
from pyjax._src.rules import missing_rule_error

__all__ = ["COMPILE", "Run", "compiled_by", "plan", "run"]

# The backend's compiler of a per-device program, set by spmd.py:
# jaxpr -> fn(*arrays) -> list of arrays. None: runs are interpreted.
COMPILE: list = [None]
# Another platform's compiler of runs (backends/iree), for the calls inside
# `compiled_by`: its failures are raised, not interpreted around.
_PLATFORM_COMPILE: contextvars.ContextVar = contextvars.ContextVar("spmd_run_compiler", default=None)


@contextlib.contextmanager
def compiled_by(compile_fn: Callable) -> Iterator[None]:
    """Runs inside compile their per-device programs with `compile_fn`
    (jaxpr -> fn(*arrays) -> list of arrays) instead of the backend's."""
    token = _PLATFORM_COMPILE.set(compile_fn)
    try:
        yield
    finally:
        _PLATFORM_COMPILE.reset(token)


class Run:
    """Consecutive equations of a body that exchange nothing; `live` the
    vars read after it; `programs` its compiled per-device programs."""

    __slots__ = ("eqns", "live", "programs")

    def __init__(self, eqns: list):
        self.eqns = eqns
        self.live: set = set()
        self.programs: dict = {}


_PLANS: dict = {}  # id(jaxpr) -> (jaxpr, its steps); the jaxpr kept so that its id stays its own


def plan(jaxpr, ordinary: Callable) -> list:
    """The body's equations as steps: a `Run` of two or more consecutive
    equations `ordinary(eqn)` accepts, or one equation."""
    found = _PLANS.get(id(jaxpr))
    if found is not None and found[0] is jaxpr:
        return found[1]
    steps: list = []
    pending: list = []
    for eqn in jaxpr.eqns:
        if ordinary(eqn):
            pending.append(eqn)
            continue
        _flush(steps, pending)
        steps.append(eqn)
    _flush(steps, pending)
    read_later = {v for v in jaxpr.outvars if type(v) is not Literal}
    for step in reversed(steps):
        if type(step) is Run:
            step.live = set(read_later)
        for eqn in (step.eqns if type(step) is Run else [step]):
            read_later.update(v for v in eqn.invars if type(v) is not Literal)
    if len(_PLANS) > 512:
        _PLANS.clear()
    _PLANS[id(jaxpr)] = (jaxpr, steps)
    return steps


def _flush(steps: list, pending: list) -> None:
    if len(pending) > 1:
        steps.append(Run(list(pending)))
    else:
        steps.extend(pending)
    pending.clear()


def _literal(v: Literal):
    # A literal as a buffer of its type (a Python 0 in a loop's carry must stay int32).
    dtype = getattr(v.aval, "dtype", None)
    return np.asarray(v.val, dtype) if isinstance(dtype, np.dtype) else v.val


def run(step: Run, n: int, local: list, env: dict, impls: dict) -> bool:
    """Runs `step` on the devices `local` of `n`, reading and writing `env`
    (var -> one buffer per device; None in another process's slot). False
    (nothing run) where no compiler is installed."""
    if COMPILE[0] is None and _PLATFORM_COMPILE.get() is None:
        return False
    first = local[0]
    deferred: list = []
    later: set = set()  # vars the per-device programs make
    for eqn in step.eqns:
        impl = impls.get(eqn.primitive)
        if impl is None:
            raise missing_rule_error("impl", eqn.primitive.name)
        names = [v for v in eqn.invars if type(v) is not Literal]
        if len(local) > 1 and not any(v in later for v in names) \
                and all(all(env[v][d] is env[v][first] for d in local) for v in names):
            # One buffer every device shares in every operand: computed once.
            out = impl(*[_literal(v) if type(v) is Literal else env[v][first] for v in eqn.invars], **eqn.params)
            outs = list(out) if eqn.primitive.multiple_results else [out]
            env.update((v, [o] * n) for v, o in zip(eqn.outvars, outs, strict=True))
            continue
        deferred.append((eqn, impl))
        later.update(eqn.outvars)
    if deferred:
        program = _program(step, deferred)
        if program is None:
            _interpret(deferred, local, n, env)
        else:
            _run_program(program, local, n, env)
    return True


def _program(step: Run, deferred: list):
    """The compiled per-device program of the run's `deferred` equations,
    made on first use: (fn, input vars, output vars), or None where the
    backend cannot compile it."""
    platform_compile = _PLATFORM_COMPILE.get()
    key = tuple(step.eqns.index(e) for e, _ in deferred) if len(deferred) < len(step.eqns) else ()
    key = (platform_compile, key)
    if key in step.programs:
        return step.programs[key]
    made = {v for e, _ in deferred for v in e.outvars}
    inputs: list = []
    for e, _ in deferred:
        inputs.extend(v for v in e.invars if type(v) is not Literal and v not in made and v not in inputs)
    outputs = [v for e, _ in deferred for v in e.outvars if v in step.live]
    program = Jaxpr([], inputs, outputs, [e for e, _ in deferred], [])
    if platform_compile is not None:
        fn = platform_compile(program)
    else:
        try:
            fn = COMPILE[0](program)
        except Exception:  # noqa: BLE001  (interpreted instead: the same results)
            fn = None
    step.programs[key] = None if fn is None else (fn, inputs, outputs)
    return step.programs[key]


def _run_program(program, local: list, n: int, env: dict) -> None:
    fn, inputs, outputs = program
    columns = [env[v] for v in inputs]
    results = [[None] * n for _ in outputs]
    for d in local:
        for column, value in zip(results, fn(*[c[d] for c in columns]), strict=True):
            column[d] = value
    env.update(zip(outputs, results))


def _interpret(deferred: list, local: list, n: int, env: dict) -> None:
    # The equations one at a time on each device, device after device.
    for eqn, _ in deferred:
        for v in eqn.outvars:
            env[v] = [None] * n
    for d in local:
        for eqn, impl in deferred:
            r = impl(*[_literal(v) if type(v) is Literal else env[v][d] for v in eqn.invars], **eqn.params)
            for v, y in zip(eqn.outvars, r if eqn.primitive.multiple_results else [r]):
                env[v][d] = y
