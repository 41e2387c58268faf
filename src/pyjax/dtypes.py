"""Public face of pyjax's dtypes: the names ``jax.dtypes`` exports in JAX 0.11."""

from pyjax._src.dtypes import (
    TypePromotionError,
    bfloat16,
    canonicalize_dtype,
    extended,
    finfo,
    float0,
    iinfo,
    issubdtype,
    itemsize_bits,
    prng_key,
    result_type,
    scalar_type_of,
)

__all__ = [
    "TypePromotionError",
    "bfloat16",
    "canonicalize_dtype",
    "extended",
    "finfo",
    "float0",
    "iinfo",
    "issubdtype",
    "itemsize_bits",
    "prng_key",
    "result_type",
    "scalar_type_of",
]
