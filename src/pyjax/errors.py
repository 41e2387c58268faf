"""pyjax.errors: the error classes JAX raises about traced values."""

from pyjax._src.errors import (
    ConcretizationTypeError,
    JAXIndexError,
    JAXTypeError,
    JaxRuntimeError,
    KeyReuseError,
    NonConcreteBooleanIndexError,
    TracerArrayConversionError,
    TracerBoolConversionError,
    TracerIntegerConversionError,
    UnexpectedTracerError,
)
from pyjax._src.jaxpr import JaxprTypeError
from pyjax._src.shape_poly import InconclusiveDimensionOperation
