"""Tracer errors, with JAX's classes and message text.

Each error says what was attempted on which traced value, then where the
value came from: the traced function, its file and line, what it was traced
for, and which arguments the value depends on. Traces provide that context
through `tracer._trace.origin_message(tracer)`; a trace that cannot (an
inner transformation) gives an empty string.
"""

from __future__ import annotations

_DOCS = "https://docs.jax.dev/en/latest/errors.html"


class JAXTypeError(TypeError):
    """Base of the type errors JAX raises about traced values."""


class JAXIndexError(IndexError):
    """Base of the index errors JAX raises about traced values."""


def _origin(tracer) -> str:
    trace = getattr(tracer, "_trace", None)
    describe = getattr(trace, "origin_message", None)
    return describe(tracer) if describe is not None else ""


def _aval_str(tracer) -> str:
    return str(tracer.aval.strip_weak_type())


class ConcretizationTypeError(JAXTypeError):
    """A concrete Python value was needed from a traced array."""

    def __init__(self, tracer, context: str = ""):
        self.tracer = tracer
        suggestion = ""
        for name in ("int", "float", "complex"):
            if f"`{name}` function" in context:
                suggestion = (
                    f"If trying to convert the data type of a value, try using "
                    f"`x.astype({name})` or `jnp.array(x, {name})` instead."
                )
        super().__init__(
            "Abstract tracer value encountered where concrete value is expected: "
            f"traced array with shape {_aval_str(tracer)}\n{context}{suggestion}\n"
            f"{_origin(tracer)}\n\nSee {_DOCS}#jax.errors.ConcretizationTypeError"
        )


class TracerBoolConversionError(ConcretizationTypeError):
    """`bool()` (an `if`, `while`, `and`/`or`) was applied to a traced array."""

    def __init__(self, tracer):
        self.tracer = tracer
        JAXTypeError.__init__(
            self,
            f"Attempted boolean conversion of traced array with shape {_aval_str(tracer)}.\n"
            f"{_origin(tracer)}\nSee {_DOCS}#jax.errors.TracerBoolConversionError",
        )


class TracerIntegerConversionError(JAXTypeError):
    """`__index__` (an index, `range`, a shape) was applied to a traced array."""

    def __init__(self, tracer):
        self.tracer = tracer
        super().__init__(
            "The __index__() method was called on traced array with shape "
            f"{_aval_str(tracer)}\n{_origin(tracer)}\n"
            f"See {_DOCS}#jax.errors.TracerIntegerConversionError"
        )


class TracerArrayConversionError(JAXTypeError):
    """`numpy.asarray` (or another `__array__` consumer) met a traced array."""

    def __init__(self, tracer):
        self.tracer = tracer
        super().__init__(
            "The numpy.ndarray conversion method __array__() was called on traced array "
            f"with shape {_aval_str(tracer)}\n{_origin(tracer)}\n"
            f"See {_DOCS}#jax.errors.TracerArrayConversionError"
        )


class NonConcreteBooleanIndexError(JAXIndexError):
    """A boolean mask with a data-dependent number of True values, under a trace."""

    def __init__(self, tracer):
        self.tracer = tracer
        super().__init__(
            "Array boolean indices must be concrete; got "
            f"{tracer.aval}\n\nSee {_DOCS}#jax.errors.NonConcreteBooleanIndexError"
        )


class UnexpectedTracerError(Exception):
    """A tracer was used after the transformation that made it had finished."""

    def __init__(self, message: str):
        super().__init__(message)


def escaped_tracer_error(tracer, detail: str = "") -> UnexpectedTracerError:
    trace = getattr(tracer, "_trace", None)
    where = getattr(trace, "describe_function", lambda: "")()
    where_line = f"The function being traced when the value leaked was {where}.\n" if where else ""
    created = getattr(trace, "creation_message", lambda t: "")(tracer)
    return UnexpectedTracerError(
        "Encountered an unexpected tracer. A function transformed by JAX had a side effect, "
        "allowing for a reference to an intermediate value with type "
        f"{tracer.aval.strip_weak_type()} wrapped in a {type(tracer).__name__} "
        "to escape the scope of the transformation.\n"
        "JAX transformations require that functions explicitly return their outputs, and "
        "disallow saving intermediate values to global state.\n"
        f"{where_line}{created}{detail}"
        "To catch the leak earlier, try setting the environment variable "
        "JAX_CHECK_TRACER_LEAKS or using the `jax.checking_leaks` context manager.\n"
        f"See {_DOCS}#jax.errors.UnexpectedTracerError"
    )


class KeyReuseError(RuntimeError):
    """A PRNG key was consumed twice (raised only when key-reuse checking is on)."""


class JaxRuntimeError(RuntimeError):
    """A computation failed at run time (XLA's runtime errors: out of memory)."""


class ShardingTypeError(Exception):
    """A placement that does not type-check: operands whose shardings a
    primitive cannot combine, raised at trace time (JAX's
    ``jax._src.core.ShardingTypeError``)."""
