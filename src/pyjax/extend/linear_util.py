"""pyjax.extend.linear_util: wrapped functions and their transformations."""

from pyjax._src.linear_util import (
    Callable, StoreException, WrappedFun, cache, merge_linear_aux, transformation, transformation2,
    transformation_with_aux, transformation_with_aux2, wrap_init,
)

__all__ = ["Callable", "StoreException", "WrappedFun", "cache", "merge_linear_aux", "transformation",
           "transformation2", "transformation_with_aux", "transformation_with_aux2", "wrap_init"]
