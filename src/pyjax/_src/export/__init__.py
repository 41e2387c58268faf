"""jax.export: exporting staged functions, with shape polymorphism (docs/export.md)."""
