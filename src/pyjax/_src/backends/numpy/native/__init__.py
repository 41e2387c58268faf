"""Native code: a hot `scan` or `while` of small steps, or a long
straight-line jitted program on small values, run as C that calls NumPy's
own kernels.

A scan body of a few small equations costs what its NumPy calls cost in
dispatch, ~0.3-0.5 us each, however little they compute: the seed's RNN
step `tanh(W @ h + x)` on 32 floats is 1.2 us in the compiled Python loop,
where XLA's loop takes 0.19 us. This module writes such a body as a C
loop over the same kernels the Python loop reaches through NumPy:

- an elementwise equation calls the ufunc's inner loop for its dtypes (the
  function pointer NumPy's ufunc object publishes in its C struct): over
  the whole value when its operands are contiguous or single elements,
  else along the last axis with the operands' strides (0 where broadcast),
  as NumPy's own iterator calls it;
- `dot_general` calls the BLAS `gemv` or `gemm` that `ndarray.dot` calls,
  chosen as NumPy chooses it from the operands' layouts (transposed
  operands included), with the same arguments;
- a reduction calls the ufunc's loop as `ufunc.reduce` does: from the
  identity (or the first element) over each row in reduce form, or over
  every element, or row by row along the leading axis;
- broadcasts, reshapes, transposes, slices and splits are views (a pointer,
  a shape and byte strides), as in NumPy; a `where` is a choice of bytes,
  a conversion what the impl does (XLA's saturating float-to-int, `!= 0`
  to bool, else the C cast NumPy's astype is), the rewrite's fused
  multiply-add C's `fmaf` (float32) or the impl's float64 emulation, `max`,
  `min` and `clamp` NumPy's loop then XLA's order of signed zeros (as the
  impl does), a `cond` an `if` on its index; ys rows
  and carries are copies.

A jitted program of at least `MIN_PROGRAM_EQNS` such equations (a chain of
1000 elementwise ops on 16 floats: 0.7 ms of NumPy dispatch, 27 us native),
or a single reduction, is written the same way, without the loop; so is an
eager jax.numpy call's small program (codegen/eager.py). A run of row-wise
equations over a large array (a softmax) is written as a scan over its
rows (`native_rows`, found by rows.py).

Native code is called through native_call.c's `NativeCall`, a CPython
callable built once per process against this Python's and this NumPy's
headers: it checks the inputs, allocates the outputs and calls the C
function in ~0.2 us. Without those headers it is called through ctypes
(~5 us), and only programs of `MIN_CTYPES_PROGRAM_EQNS` get a tier.

So the native code computes bit for bit what the Python code computes:
every operation is the kernel NumPy runs, or (fma, conversions, XLA's
zeros) the impl's own arithmetic, operation for operation. That is checked
rather than assumed: the native code is used only after one call on which
both ran and every output agreed bitwise; on any difference it is dropped
for good and the Python code stays.

Tiering, as a JIT does it (tiering.py: the one state machine, shared by
programs, loops, row loops and the threefry kernel): a loop runs as Python until it has executed
`AFTER_STEPS` iterations (summed over calls; a program counts its
equations); then its C source is written and compiled on a background
thread with the system C compiler (`$CC`, else `cc`) while calls go on in
Python, and the next call after the build is the checked one. First calls
never wait for a compiler; without one (or with `PYJAX_NATIVE_LOOPS=0`)
nothing changes. `PYJAX_NATIVE_LOOPS_AFTER` sets the threshold (0: build at
the first call, and wait for it).

Supported: elementwise equations whose compiled code is one ufunc call
(and `logistic`, SciPy's `expit` for floats; `integer_pow`, XLA's products
by repeated squaring for floats, NumPy's power for integers),
matrix-vector, vector-matrix and matrix-matrix products of float32/float64
(no dimension of 1), batched and N-d products as np.matmul makes them (one
gemm a batch entry), reshapes of strided views (a view where NumPy makes
one, else a copy), small iotas (constants of the source), sums, products, maxima and minima over the last axis,
the leading axis or every axis, the views above (and `rev`),
`dynamic_slice`, `dynamic_update_slice`, `concatenate`, the one-row scatter
of `x.at[i].set(v)`, `select_n` with a boolean predicate, conversions,
`sign`, `max`, `min`, `clamp` and `fma`, real `cholesky` and
`triangular_solve` (SciPy's LAPACK/BLAS routines through their
cython_lapack/cython_blas pointers, lapack.py), one-element gathers and
scatter-adds (points.py), the dot of two vectors and a column times a row
(level1.py), `cond`/`switch` over such
branches, and jit/remat/custom_jvp/custom_vjp calls of these, written in
line: an RNN, LSTM or GRU cell, an ODE step, a small network's whole
training step, a Gaussian process's likelihood and gradient. Anything else
(other gathers, general scatters, sorts, random
bits, callbacks, values over 64 KB) keeps the Python code, as does a call
whose inputs do not have the expected dtypes and shapes.


The package, by job:

    settings.py   the knobs (PYJAX_NATIVE_LOOPS, PYJAX_NATIVE_LOOPS_AFTER) and size limits
    discovery.py  NumPy's kernels as C function pointers (ufunc loops, BLAS)
    csource.py    the C source builder: values as views, kernel calls
    emit.py       equations -> C (bodies, loops, programs)
    ops.py        the C of views, conversions, extrema, fma and dots
    vectors.py    the in-line vector paths IEEE fixes bitwise, and reductions
    build.py      the one builder: the system C compiler, native_call.c
    tiering.py    the one tiering state machine (cold, building, built, live, dead)
    loop.py       NativeLoop: a program's, loop's or row loop's native tier
    plans.py      which programs, loops and row regions get a native tier
    threefry.py   threefry2x32 in C, tiering like the rest
    scatter.py    scatter-add's sums in C (the kernel impls/slicing.py calls), tiering likewise
    rows.py       row regions: runs of row-wise equations as native row loops
    glue.py       runs of small-value equations amid a large program as native programs
    lapack.py     cholesky and triangular_solve: SciPy's potrf/trsm by pointer
    points.py     one-element gathers and scatter-adds, large integer iotas
    level1.py     ndarray.dot's vector paths (sdot, a column times a row), outer products
    im2col.py, directconv.py   convolutions' patches and direct float32 convolutions (impls call them)
    pooling.py    window sums, max pooling and its gradient (impls/windowed.py calls them)
    colsums.py    sums over leading axes, einsum's order (impls/standard.py calls it)
    threads.py    a parallel for-loop over the cores: row loops, direct convolutions
                  and split.py's float32 products share their work through it
    cache.py      built libraries kept across processes (~/.cache/pyjax/native)
"""

from __future__ import annotations

from pyjax._src.backends.numpy.native.build import available, compiler, compiler_command
from pyjax._src.backends.numpy.native.loop import NativeLoop
from pyjax._src.backends.numpy.native.plans import (
    native_loop, native_program, native_rows, native_scan, native_while, plausible_eqn,
)

__all__ = ["NativeLoop", "available", "compiler", "compiler_command", "native_loop", "native_program", "native_rows",
           "native_scan", "native_while", "plausible_eqn"]
