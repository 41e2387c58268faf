"""vmap against its definition, for the per-family batching tests.

`check_vmap(f, args, in_axes, out_axes)` asserts that `vmap(f)` — run
eagerly and under jit — equals running `f` on each example and stacking
the results along `out_axes`. An example of an argument mapped along axis
`a` is `np.take(x, i, a)`; an unmapped argument (`None`) is passed whole
to every example.
"""

from __future__ import annotations

import numpy as np

import pyjax
import pyjax.numpy as jnp

from helpers import check_close


def _example(x, axis, i):
    return x if axis is None else jnp.asarray(np.take(np.asarray(x), i, axis=axis))


def check_vmap(f, args, in_axes, out_axes=0, *, rtol=1e-5, atol=1e-5, jit=True):
    """vmap(f)(*args) == stack([f(*example_i) ...], out_axes), eagerly and
    under jit; returns the vmapped result."""
    in_axes = tuple(in_axes) if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
    sizes = {np.shape(x)[a] for x, a in zip(args, in_axes, strict=True) if a is not None}
    assert len(sizes) == 1, f"one mapped size expected, got {sizes}"
    (size,) = sizes
    per_example = [pyjax.tree_util.tree_leaves(f(*(_example(x, a, i) for x, a in zip(args, in_axes, strict=True))))
                   for i in range(size)]
    batched = pyjax.vmap(f, in_axes=in_axes, out_axes=out_axes)
    # (jit of a fresh function: jit(vmap(g)) for a jitted g currently picks up
    # g's own trace cache through functools' __dict__ copying.)
    runs = [("eager", batched)] + ([("jit", pyjax.jit(lambda *a: batched(*a)))] if jit else [])
    for how, run in runs:
        leaves = pyjax.tree_util.tree_leaves(run(*args))
        assert len(leaves) == len(per_example[0])
        for k, leaf in enumerate(leaves):
            want = np.stack([np.asarray(example[k]) for example in per_example], axis=out_axes)
            check_close(leaf, want, rtol=rtol, atol=atol, err_msg=f"{how} output {k}:")
    return leaves
