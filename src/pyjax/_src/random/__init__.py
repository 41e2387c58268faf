"""The machinery behind pyjax.random.

* ``prng``: PRNG implementations (``PRNGImpl``), the key dtype ``KeyTy``
  (printed ``key<fry>``) and the key primitives ``random_seed``,
  ``random_split``, ``random_fold_in``, ``random_bits``, ``random_wrap``,
  ``random_unwrap`` and ``random_clone``;
* ``threefry``: the threefry2x32 hash (primitive and vectorised NumPy
  kernel) and the threefry2x32 PRNG built on it, in both of JAX's bit
  layouts (``jax_threefry_partitionable`` on and off);
* ``rbg``: the rbg and unsafe_rbg PRNGs (``key<rbg>``, ``key<urbg>``),
  drawing through ``lax.rng_bit_generator``, whose CPU algorithms (Philox,
  ThreeFry) are in ``bit_generators``;
* ``keys``: the user-facing key functions (``key``, ``PRNGKey``, ``split``,
  ``fold_in``, ``bits`` ...);
* ``distributions`` (uniform, normal and their transformations),
  ``discrete`` (integer and boolean samplers, gumbel), ``gamma`` (the gamma
  family), ``loops`` (poisson, binomial, multinomial: while_loop/scan) and
  ``multivariate`` (multivariate_normal, orthogonal): the samplers;
* ``numpy_ops``: the few jax.numpy functions the samplers need that
  pyjax.numpy does not have yet.

Keys are arrays whose dtype is an extended dtype: a key array of shape
``(n,)`` holds ``n`` threefry keys, each two uint32 words. On the NumPy
backend its buffer is a NumPy array of shape ``(n,)`` whose structured
dtype packs the two words, so the shape primitives (slice, squeeze,
reshape, concatenate, select_n ...) move keys around unchanged.
"""
