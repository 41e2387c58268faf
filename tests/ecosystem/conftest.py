"""The JAX ecosystem on pyjax: each test runs an example of
examples/ecosystem/ in a fresh interpreter under `pyjax.install_as_jax()`.

The libraries are not pyjax's dependencies (they declare real JAX as
theirs): `.ci/install-ecosystem` installs them without it. A test module
whose library is missing is skipped with the reason, unless
PYJAX_REQUIRE_ECOSYSTEM=1 (CI's ecosystem step), which makes it a failure.
"""
