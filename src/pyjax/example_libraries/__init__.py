"""Example libraries written on pyjax's public API: stax (neural network
layers as (init_fun, apply_fun) pairs) and optimizers (optimizers as
(init, update, get_params) triples), with JAX's example_libraries' names and
behaviour."""
