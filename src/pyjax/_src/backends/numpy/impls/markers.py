"""NumPy impls of the primitives that mark, lift or tag values: `dce_sink`
computes nothing (it only keeps its operand alive), `stage` and
`xla_metadata_value` are the identity (metadata change nothing on the CPU),
and `xla_metadata_call` runs its body."""

from __future__ import annotations

import numpy as np

from pyjax._src import xla_metadata
from pyjax._src.backends.numpy.impls.interpreter import run_jaxpr
from pyjax._src.lax import markers


def _call(*args, jaxpr, xla_metadata, ad_metadata):
    from pyjax._src.backends.numpy.impls import IMPLS as table  # the merged table (it imports this module)

    return run_jaxpr(jaxpr, table, args)


IMPLS: dict = {
    markers.dce_sink_p: lambda x, *, prevent_mlir_dce: [],
    markers.stage_p: lambda x: np.asarray(x),
    xla_metadata.xla_metadata_value_p: lambda x, *, xla_metadata_kvs: x,
    xla_metadata.xla_metadata_call_p: _call,
}
