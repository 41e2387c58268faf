"""The primitive families. Importing the package registers the autodiff and
batching rules kept beside the elementwise, linalg, convolution and gather/scatter families."""

from pyjax._src.lax import convolution_ad, elementwise_ad, gather_scatter_ad, linalg_ad  # noqa: F401
