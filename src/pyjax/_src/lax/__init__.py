"""The primitive families. Importing the package registers the autodiff and
batching rules kept beside the elementwise and linalg families."""

from pyjax._src.lax import elementwise_ad, gather_scatter_ad, linalg_ad  # noqa: F401
