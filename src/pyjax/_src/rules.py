"""The fixed set of rule slots a primitive carries, and their sentinels.

Every primitive has the same slots: abstract_eval, jvp, transpose, batch.
Each slot holds a rule, or a sentinel that says on purpose why there is none:

    NOT_LINEAR           transpose of a non-linear primitive (never needed)
    NOT_DIFFERENTIABLE   the JVP is zero by declaration (comparisons, iota, ...)
    unimplemented(why)   a known, listed gap; using it raises with the reason

An empty slot (None) is a silent hole: the coverage command and its test flag
it. Missing-rule errors use JAX's wording verbatim, since users search for it.
"""

from __future__ import annotations


class Sentinel:
    """A declared absence of a rule; shows up by name in the coverage table."""

    __slots__ = ("name", "why")

    def __init__(self, name: str, why: str = ""):
        self.name = name
        self.why = why

    def __repr__(self):
        return self.name if not self.why else f"{self.name}({self.why!r})"

    def __bool__(self):
        return False


NOT_LINEAR = Sentinel("NOT_LINEAR")
NOT_DIFFERENTIABLE = Sentinel("NOT_DIFFERENTIABLE")


# Why a primitive has no sharding rule (`Primitive.declare(sharding_reason=...)`),
# for the families that share one reason.
SHARDING_OF_CALL = "a call: its body's equations are typed by their own rules"
SHARDING_OF_REF = "a mutable reference, not an array value: the ref's type carries the placement"
SHARDING_OF_COLLECTIVE = "a collective over named (vmap/shard_map) axes: placement is per-device there"
SHARDING_OF_SPARSE = "a sparse format's buffers: results unplaced, as jax.experimental.sparse types them"


def unimplemented(why: str) -> Sentinel:
    """A known gap in a rule slot, with the reason shown to whoever hits it."""
    return Sentinel("unimplemented", why)


SLOTS = ("abstract_eval", "jvp", "transpose", "batch")

_MISSING_MESSAGES = {
    "abstract_eval": "Abstract evaluation for '{}' not implemented",
    "jvp": "Differentiation rule for '{}' not implemented",
    "transpose": "Transpose rule (for reverse-mode differentiation) for '{}' not implemented",
    "batch": "Batching rule for '{}' not implemented",
    "impl": "Evaluation rule for '{}' not implemented",
    "lower": "MLIR translation rule for primitive '{}' not found",
}


def missing_rule_error(slot: str, primitive_name: str, why: str = "") -> NotImplementedError:
    """The error raised when a transformation needs a rule a primitive lacks."""
    message = _MISSING_MESSAGES[slot].format(primitive_name)
    if why:
        message += f" ({why})"
    return NotImplementedError(message)
