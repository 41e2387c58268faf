"""The primitive families. Importing the package registers the autodiff rules
kept beside the elementwise family."""

from pyjax._src.lax import elementwise_ad  # noqa: F401
