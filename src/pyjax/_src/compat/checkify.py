"""`jax._src.checkify` as the ecosystem reads it: pyjax's checkify
(`pyjax._src.checkify`, docs/debugging.md), so that error classes, `Error`
and the category sets are the same objects under both names."""

from pyjax._src.checkify import (  # noqa: F401
    DivisionByZeroError, Error, ErrorCategory, FailedCheckError, JaxException, JaxRuntimeError, NaNError, OOBError,
    all_checks, automatic_checks, check, check_error, checkify, debug_check, div_checks, float_checks,
    index_checks, init_error, nan_checks, user_checks,
)
