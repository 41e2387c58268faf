"""The key-reuse checker's internals, under JAX's module path: signatures
(`KeyReuseSignature`, `Sink`, `Source`, `Forward`), the jaxpr analysis and
`check_key_reuse(fun, *args)`, and the `consume`/`assert_consumed` helpers."""

from pyjax._src.interpreters.key_reuse import (  # noqa: F401
    BodySignature,
    Forward,
    KeyReuseSignature,
    Sink,
    Source,
    check_key_reuse_jaxpr,
    jaxpr_type_signature,
    unknown_signature,
)
from pyjax._src.random.key_reuse import (  # noqa: F401
    assert_consumed,
    assert_unconsumed,
    check_key_reuse,
    consume,
    function_type_signature,
)
