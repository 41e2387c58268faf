"""Experimental random APIs: `stateful_rng` and `StatefulPRNG` (docs/random.md)."""

from pyjax._src.random.stateful import StatefulPRNG, stateful_rng  # noqa: F401

__all__ = ["StatefulPRNG", "stateful_rng"]
