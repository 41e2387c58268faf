"""`jax.experimental.serialize_executable`: a `Compiled` as bytes, and back.

`serialize(compiled)` returns `(payload, in_tree, out_tree)` as JAX does
(treedefs are not serializable; the caller keeps them). The payload is
pyjax's own, not JAX's pickled PJRT executable:

    b"PYJAX-EXECUTABLE 1 <sha256 of the body>\\n" + UTF-8 JSON

holding the function's name, the closed jaxpr as data (export's encoding:
primitives by name, params tagged; nothing pickled), each argument's aval
and donation, the platform the compiled function runs on, and what that
platform saved: for IREE the compiled module (vmfb, base64), its target and
the IREE compiler version, so that loading runs it without compiling. The
NumPy backend's "executable" is Python code generated from the jaxpr; it is
regenerated on load rather than executed from the payload.

`deserialize_and_load` refuses a payload that is not pyjax's, of another
version, whose checksum fails, or naming a class outside pyjax; an IREE
module saved by another compiler version or for another target is compiled
again from the jaxpr instead of being loaded.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any, Callable

MAGIC = b"PYJAX-EXECUTABLE"
VERSION = 1

# platform -> (save(compiled) -> dict, load(doc, jaxpr, name, out_tree) -> executable | None);
# a platform's backend registers them (the IREE backend does, on install).
_PLATFORM_CODECS: dict[str, tuple[Callable, Callable]] = {}


def register_platform_codec(platform: str, save: Callable, load: Callable) -> None:
    """How a platform's compiled executable is saved into a payload and loaded back."""
    _PLATFORM_CODECS[platform] = (save, load)


class _Wrapped:
    # What a deserialized Compiled reads off its jit wrapper.
    def __init__(self, backend: str | None, name: str):
        self._backend = backend
        self._keep_unused = False
        self.__name__ = name


def serialize(compiled) -> tuple[bytes, Any, Any]:
    """Serializes a compiled function: `(payload, in_tree, out_tree)`."""
    from pyjax._src.export.serialization import _enc_aval, _Writer
    from pyjax._src.jit import platform_for
    from pyjax._src.stages import Compiled
    from pyjax._src.tree_util import tree_flatten

    if not isinstance(compiled, Compiled):
        raise TypeError(f"serialize expects a jax.stages.Compiled (jit(f).lower(...).compile()), got {type(compiled)}")
    traced = compiled._traced
    args_info, in_tree = tree_flatten(compiled.args_info)
    platform = platform_for(getattr(traced._wrapped, "_backend", None))
    saved = None
    if platform is not None:
        codec = _PLATFORM_CODECS.get(platform)
        if codec is None:
            raise ValueError(f"Compilation does not support serialization (platform {platform!r})")
        saved = codec[0](compiled, platform)
    doc = {
        "fun_name": traced.fun_name,
        "args": [{"aval": _enc_aval(info._aval), "donated": bool(info.donated)} for info in args_info],
        "jaxpr": _Writer().jaxpr(traced.jaxpr),
        "platform": platform,
        "saved": saved,
    }
    body = json.dumps(doc, separators=(",", ":")).encode()
    return MAGIC + f" {VERSION} {hashlib.sha256(body).hexdigest()}\n".encode() + body, in_tree, compiled.out_tree


def deserialize_and_load(serialized, in_tree, out_tree, backend: str | None = None, execution_devices=None):
    """A `Compiled` from `serialize`'s payload and trees (loaded for its
    platform, or for `backend` when given)."""
    from pyjax._src.export.serialization import SerializationError, _Reader
    from pyjax._src.jit import lower_for_backend, platform_for
    from pyjax._src.shape_poly import SymbolicScope
    from pyjax._src.stage_types import ArgInfo
    from pyjax._src.stages import Compiled, Traced
    from pyjax._src.tree_util import tree_unflatten

    doc = _read(bytes(serialized))
    try:
        reader = _Reader(SymbolicScope(()))
        jaxpr = reader.jaxpr(doc["jaxpr"])
        infos = [ArgInfo(reader.aval(a["aval"]), bool(a["donated"])) for a in doc["args"]]
        name, platform, saved = doc["fun_name"], doc["platform"], doc["saved"]
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        raise SerializationError(f"Malformed pyjax executable: {type(e).__name__}: {e}") from None
    if in_tree.num_leaves != len(infos):
        raise ValueError(f"in_tree has {in_tree.num_leaves} leaves but the executable takes {len(infos)} arguments")
    if backend is not None:
        platform = platform_for(backend)
    wrapped = _Wrapped(platform, name)
    traced = Traced(wrapped, jaxpr, in_tree, out_tree, tree_unflatten(in_tree, infos), name)
    compiled = Compiled(traced, lower_for_backend(jaxpr, name))
    codec = _PLATFORM_CODECS.get(platform) if platform is not None else None
    if codec is not None and saved is not None and doc["platform"] == platform:
        executable = codec[1](saved, jaxpr, name, out_tree)
        if executable is not None:  # (None: saved for another compiler or target; compiled on first call)
            compiled._on_platforms[platform] = executable
    return compiled


def _read(blob: bytes) -> dict:
    from pyjax._src.export.serialization import SerializationError

    newline = blob.find(b"\n")
    header = blob[:newline].split(b" ") if newline > 0 else []
    if len(header) != 3 or header[0] != MAGIC:
        raise SerializationError("Not a pyjax-serialized executable: the payload does not start with pyjax's header "
                                 "(JAX's pickled executables cannot be read by pyjax)")
    if header[1] != str(VERSION).encode():
        raise SerializationError(f"Unsupported pyjax executable version {header[1].decode(errors='replace')} "
                                 f"(this pyjax reads version {VERSION})")
    body = blob[newline + 1:]
    if hashlib.sha256(body).hexdigest().encode() != header[2]:
        raise SerializationError("Corrupt pyjax executable: the payload's checksum does not match its contents")
    try:
        return json.loads(body)
    except ValueError as e:
        raise SerializationError(f"Malformed pyjax executable: {e}") from None


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unb64(text: str) -> bytes:
    return base64.b64decode(text.encode("ascii"), validate=True)
