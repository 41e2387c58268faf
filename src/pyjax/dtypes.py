"""Public face of pyjax's dtypes: the names ``jax.dtypes`` exports in JAX 0.11."""

from pyjax._src.dtypes import (
    TypePromotionError as TypePromotionError,
    bfloat16 as bfloat16,
    canonicalize_dtype as canonicalize_dtype,
    extended as extended,
    finfo as finfo,
    float0 as float0,
    iinfo as iinfo,
    issubdtype as issubdtype,
    itemsize_bits as itemsize_bits,
    prng_key as prng_key,
    result_type as result_type,
    scalar_type_of as scalar_type_of,
)

__all__ = [
    "TypePromotionError", "bfloat16", "canonicalize_dtype", "extended", "finfo",
    "float0", "iinfo", "issubdtype", "itemsize_bits", "prng_key", "result_type",
    "scalar_type_of",
]
