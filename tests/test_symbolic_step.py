"""jax.numpy slicing with a symbolic step (shape polymorphism), pinned to
JAX 0.11.0's recorded shapes, jaxprs, errors and exported calls
(tests/golden/symbolic_step.json, recorded by
tests/golden/record_symbolic_step.py from cases_symbolic_step.py): a step
whose sign the constraints decide is a gather (a scatter under `.at[]`), one
they do not is JAX's InconclusiveDimensionOperation."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))

import case_set  # noqa: E402

CASES = case_set.load("symbolic_step")


namespace, test_recording_is_current, test_case_matches_jax = case_set.standard_tests(CASES)


def test_undecidable_step_is_jax_error_class_with_details(namespace):
    import pyjax as jax

    with pytest.raises(jax.errors.InconclusiveDimensionOperation,
                       match=r"(?s)step \(b - 1\) must be resolved statically.*Details: Symbolic dimension "
                             r"comparison 'b - 1' > '0' is inconclusive"):
        namespace["shape_of"](lambda x: x[::x.shape[1] - 1], namespace["a"], namespace["b"])
