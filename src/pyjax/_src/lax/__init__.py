"""The primitive families. Importing the package registers the autodiff and
batching rules kept beside the elementwise and gather/scatter families; the
convolution and linalg families' rules (convolution_ad.py, linalg_ad.py) are
imported by their family modules, so they exist whenever the primitives do."""

from pyjax._src.lax import elementwise_ad, gather_scatter_ad  # noqa: F401
