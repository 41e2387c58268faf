"""Records checkpoint_residuals.json: for each case of SAVED_RESIDUAL_CASES,
the residuals JAX 0.11.0's `print_saved_residuals` reports (aval and origin, source
locations normalised). tests/test_checkpoint.py runs the same cases on pyjax.

    /tmp/jax-ref/bin/python tests/golden/record_saved_residuals.py

A case is source text run with `jax`, `jnp` and `ad` (jax.ad_checkpoint)
bound; it defines `f` and `args`.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

_MLP = """
def mlp(w1, w2, x):
  h = jnp.tanh(jnp.dot(w1, x))
  h = ad.checkpoint_name(h, "hidden")
  b = jnp.einsum('bi,bi->b', h[None], h[None])
  return jnp.sum(jnp.sin(jnp.dot(w2, h)) * b)
args = (jnp.ones((4, 3)), jnp.ones((2, 4)), jnp.ones(3))
"""

_POLICIES = {
    "no_checkpoint": None,
    "default": "None",
    "everything_saveable": "jax.checkpoint_policies.everything_saveable",
    "nothing_saveable": "jax.checkpoint_policies.nothing_saveable",
    "dots_saveable": "jax.checkpoint_policies.dots_saveable",
    "checkpoint_dots": "jax.checkpoint_policies.checkpoint_dots",
    "dots_with_no_batch_dims_saveable": "jax.checkpoint_policies.dots_with_no_batch_dims_saveable",
    "save_only_these_names": "jax.checkpoint_policies.save_only_these_names('hidden')",
    "save_any_names_but_these": "jax.checkpoint_policies.save_any_names_but_these('other')",
    "save_any_names_but_hidden": "jax.checkpoint_policies.save_any_names_but_these('hidden')",
    "save_from_both_policies": ("jax.checkpoint_policies.save_from_both_policies("
                                "jax.checkpoint_policies.dots_with_no_batch_dims_saveable, "
                                "jax.checkpoint_policies.save_only_these_names('hidden'))"),
    "save_and_offload_only_these_names": (
        "jax.checkpoint_policies.save_and_offload_only_these_names(names_which_can_be_saved=(), "
        "names_which_can_be_offloaded=('hidden',), offload_src='device', offload_dst='pinned_host')"),
    "offload_dot_with_no_batch_dims": "jax.checkpoint_policies.offload_dot_with_no_batch_dims('device', 'pinned_host')",
}

SAVED_RESIDUAL_CASES = {
    f"mlp_{name}": _MLP + ("f = mlp\n" if policy is None else f"f = jax.checkpoint(mlp, policy={policy})\n")
    for name, policy in _POLICIES.items()
}
SAVED_RESIDUAL_CASES["jit_inside_checkpoint"] = """
inner = jax.jit(lambda x: jnp.sin(jnp.sin(x)))
f = jax.checkpoint(lambda x: inner(x) * x, policy=jax.checkpoint_policies.everything_saveable)
args = (1.0,)
"""
SAVED_RESIDUAL_CASES["jit_inside_plain"] = """
inner = jax.jit(lambda x: jnp.sin(jnp.sin(x)))
f = lambda x: inner(x) * x
args = (2.0,)
"""
SAVED_RESIDUAL_CASES["pytree_args_static"] = """
def g(p, n):
  y = p['a'] * p['b']
  for _ in range(n):
    y = jnp.sin(y)
  return y
f = lambda p: jax.checkpoint(g, static_argnums=(1,))(p, 2)
args = ({'a': jnp.ones(2), 'b': jnp.ones(2)},)
"""


def run_case(source: str, jax_module, jnp_module, ad_module) -> list[list[str]]:
    from programs_core import normalise_message

    namespace = {"jax": jax_module, "jnp": jnp_module, "ad": ad_module}
    exec(compile(source, "<residual-case>", "exec"), namespace)
    # saved_residuals is private in JAX: its public print_saved_residuals
    # writes one "aval origin" line per residual.
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ad_module.print_saved_residuals(namespace["f"], *namespace["args"])
    return [line.split(" ", 1) for line in normalise_message(out.getvalue()).splitlines()]


def main() -> int:
    os.environ["JAX_PLATFORMS"] = "cpu"
    import jax
    import jax.ad_checkpoint as ad
    import jax.numpy as jnp

    if jax.__version__ != "0.11.0":
        print(f"refusing to record: jax {jax.__version__}", file=sys.stderr)
        return 1
    records = {name: {"source": src, "residuals": run_case(src, jax, jnp, ad)}
               for name, src in SAVED_RESIDUAL_CASES.items()}
    (HERE / "checkpoint_residuals.json").write_text(json.dumps(records, indent=1, sort_keys=True) + "\n")
    print(f"recorded {len(records)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
