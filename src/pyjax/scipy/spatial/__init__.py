"""pyjax.scipy.spatial: spatial transformations (JAX's jax.scipy.spatial);
``import pyjax.scipy.spatial.transform`` for Rotation and Slerp."""
