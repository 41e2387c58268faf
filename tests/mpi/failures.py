"""Failure behaviour under `mpiexec -n 2 python3 tests/mpi/failures.py MODE`
(tests/test_mpi.py): MODE raise (one process raises while the other waits
in a collective), mismatch (the processes pass different shapes to a
collective), exit (one process ends normally while the other waits in a
collective), initialize (its arguments checked against MPI, then a second
call refused)."""

import os
import sys

import numpy as np

import pyjax as jax
from pyjax import lax
from pyjax.sharding import AxisType, PartitionSpec as P

mode = sys.argv[1]
if mode == "initialize":
    # explicit arguments must agree with MPI; the right ones are accepted
    for kwargs in ({"num_processes": 3}, {"process_id": 7}):
        try:
            jax.distributed.initialize(**kwargs)
        except ValueError as e:
            assert "does not match MPI" in str(e), e
        else:
            raise AssertionError(kwargs)
    assert not jax.distributed.is_initialized()
    jax.distributed.initialize("localhost:1234", num_processes=2, process_id=int(os.environ["PMI_RANK"]))
    assert jax.distributed.is_initialized() and jax.process_index() == int(os.environ["PMI_RANK"])
    print("arguments: ok", flush=True)
    try:
        jax.distributed.initialize()
    except RuntimeError as e:
        assert "should only be called once" in str(e)
        print("twice: ok", flush=True)
    sys.exit(0)
jax.distributed.initialize(shutdown_timeout_seconds=3)
me = jax.process_index()

jax.config.update("jax_num_cpu_devices", 2)
mesh = jax.make_mesh((4,), ("d",), axis_types=(AxisType.Auto,))
f = jax.shard_map(lambda a: lax.psum(a, "d"), mesh=mesh, in_specs=P("d"), out_specs=P("d"), check_vma=False)
if mode == "raise":
    if me == 1:
        raise ValueError("process 1 fails on purpose")
    f(np.ones((8, 3), np.float32))
    print("reached the psum", flush=True)
elif mode == "exit":
    if me == 1:
        sys.exit(0)  # (no exception: the barrier at exit finds process 0 stuck in the psum)
    f(np.ones((8, 3), np.float32))
    print("reached the psum", flush=True)
elif mode == "mismatch":
    f(np.ones((8, 3 if me == 0 else 5), np.float32))
