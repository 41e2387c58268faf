"""vmap of fft: for every transform type and one to three transformed axes,
vmap(f) equals transforming each example and stacking, wherever the batch
axis sits (before or among the transformed trailing axes). Without the rule
vmap raises "Batching rule for 'fft' not implemented"."""

from __future__ import annotations

import numpy as np
import pytest

from pyjax import lax

from vmap_oracle import check_vmap

B = 3
rng = np.random.default_rng(4)


def _complex(shape):
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)


CASES = [
    # type, example shape, lengths, input maker
    ("fft", (2, 4), (4,), _complex),
    ("ifft", (3, 4), (3, 4), _complex),
    ("rfft", (5, 6), (6,), lambda s: rng.standard_normal(s).astype(np.float32)),
    ("rfft", (2, 3, 4), (2, 3, 4), lambda s: rng.standard_normal(s).astype(np.float32)),
    ("irfft", (2, 5), (8,), _complex),
    ("irfft", (3, 3), (3, 4), _complex),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}{len(c[2])}d")
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_fft(case, axis):
    # x: example shape with B inserted at `axis` -> the transform of each example
    fft_type, shape, lengths, make = case
    x = np.moveaxis(make((B,) + shape), 0, axis)
    check_vmap(lambda x: lax.fft(x, fft_type, lengths), (x,), axis, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("out_axes", [1, -1])
def test_fft_out_axes(out_axes):
    check_vmap(lambda x: lax.fft(x, "fft", (4,)), (_complex((4, B)),), 1, out_axes, rtol=1e-4, atol=1e-4)
