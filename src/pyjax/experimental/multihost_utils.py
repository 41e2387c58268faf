"""jax.experimental.multihost_utils: process-level helpers, on one process
(pyjax runs one process; see docs/shard_map.md)."""

from __future__ import annotations

from functools import lru_cache, partial  # noqa: F401  (names JAX's module has)
from typing import Any  # noqa: F401

from pyjax._src.multihost_utils import (  # noqa: F401
    ProcessFailureError,
    assert_equal,
    broadcast_one_to_all,
    global_array_to_host_local_array,
    global_array_to_host_local_array_impl,
    global_array_to_host_local_array_p,
    gtl_abstract_eval,
    host_local_array_to_global_array,
    host_local_array_to_global_array_impl,
    host_local_array_to_global_array_p,
    live_devices,
    ltg_abstract_eval,
    ltg_batcher,
    process_allgather,
    reached_preemption_sync_point,
    sync_global_devices,
)
from pyjax._src.sharding.partition_spec import PartitionSpec as P  # noqa: F401
from pyjax._src.tree_util import tree_flatten, tree_unflatten  # noqa: F401


def safe_zip(*args):
    """zip that insists on equal lengths."""
    return list(zip(*args, strict=True))
