"""The NumPy backend's jaxpr compiler: compile time and dispatch overhead.

    python benchmarks/bench_compile.py

Prints, for elementwise chains of 1000, 2000 and 5000 equations, the time
`compile_jaxpr` takes (best of several runs, milliseconds) and per equation
(it should stay flat: compilation is linear); the call overhead of a
compiled one-equation function against calling the ufunc directly
(microseconds); a 200-equation chain run compiled against eval_jaxpr under
the eval trace; and the same chain on 4 MiB buffers with and without
in-place reuse of dead intermediates.
"""

from __future__ import annotations

import timeit

import numpy as np

from pyjax._src import core
from pyjax._src.avals import ShapedArray
from pyjax._src.backends.numpy.codegen.compile import compile_jaxpr
from pyjax._src.backends.numpy.impls import IMPLS
from pyjax._src.dispatch import EvalTrace
from pyjax._src.interpreters.staging import trace_to_jaxpr
from pyjax._src.jaxpr import eval_jaxpr
from pyjax._src.lax import elementwise as ew

F32 = np.dtype("float32")


def chain(num_eqns: int, shape=(4,)):
    def fn(x):
        for i in range(num_eqns // 2):
            x = ew.tanh(ew.add(x, 0.5)) if i % 2 else ew.mul(ew.sin(x), 0.5)
        return [x]

    jaxpr, _ = trace_to_jaxpr(fn, [ShapedArray(shape, F32)])
    return jaxpr


def best(fn, number: int, repeat: int = 5) -> float:
    return min(timeit.repeat(fn, number=number, repeat=repeat)) / number


def main() -> None:
    print("compile time (elementwise chain)")
    for n in (1000, 2000, 5000):
        jaxpr = chain(n)
        seconds = best(lambda jaxpr=jaxpr: compile_jaxpr(jaxpr, IMPLS), number=1, repeat=5)
        print(f"  {n:5d} eqns: {seconds * 1e3:7.2f} ms   ({seconds / n * 1e6:5.2f} us/eqn)")

    print("call overhead, one equation (add of two f32[4])")
    jaxpr, _ = trace_to_jaxpr(lambda x, y: [ew.add(x, y)], [ShapedArray((4,), F32)] * 2)
    compiled = compile_jaxpr(jaxpr, IMPLS)
    x = np.ones(4, F32)
    number = 200_000
    direct = best(lambda: np.add(x, x), number)
    called = best(lambda: compiled(x, x), number)
    fn = compiled.fn
    raw = best(lambda: fn(x, x), number)
    print(f"  np.add directly:        {direct * 1e6:6.3f} us")
    print(f"  compiled(x, y):         {called * 1e6:6.3f} us  (+{(called - direct) * 1e6:.3f})")
    print(f"  compiled.fn(x, y):      {raw * 1e6:6.3f} us  (+{(raw - direct) * 1e6:.3f})")

    print("200-equation chain, f32[4]: compiled vs eval_jaxpr")
    jaxpr = chain(200)
    compiled = compile_jaxpr(jaxpr, IMPLS)
    trace = EvalTrace(IMPLS)

    def interpret():
        with core.set_current_trace(trace):
            return eval_jaxpr(jaxpr, jaxpr.consts, x)

    fast = best(lambda: compiled(x), 2000)
    slow = best(interpret, 200)
    print(f"  compiled {fast * 1e6:8.1f} us   eval_jaxpr {slow * 1e6:8.1f} us   ({slow / fast:.1f}x)")

    print("200-equation chain, f32[1M]: in-place reuse of dead buffers")
    big = chain(200, shape=(1 << 20,))
    x_big = np.ones(1 << 20, F32)
    for reuse in (False, True):
        fn = compile_jaxpr(big, IMPLS, reuse_buffers=reuse)
        print(f"  reuse_buffers={reuse!s:5}: {best(lambda fn=fn: fn(x_big), 3, 3) * 1e3:7.1f} ms")


if __name__ == "__main__":
    main()
