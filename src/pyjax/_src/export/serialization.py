"""pyjax's serialization of `Exported`: a versioned, checksummed JSON document.

JAX serializes a flatbuffer holding MLIR bytecode, which pyjax cannot
produce; pyjax's format is its own and not interchangeable with JAX's:

    b"PYJAX-EXPORT 1 <sha256 of the body, hex>\\n" + body (UTF-8 JSON)

The body holds the function's name, pytree structures, avals (symbolic
dimensions as their text, re-parsed in one scope with the recorded
constraints), the StableHLO text, and the closed jaxpr as data: primitives
by name, params as tagged values. Nothing is pickled and no code is
serialized: classes are named only for pyjax's own enums, named tuples and
dataclasses (checked on reading), and custom_jvp/custom_vjp calls are
stored as plain calls of their primal body (their rules are code).
"""

from __future__ import annotations

import base64
import dataclasses
import enum
import hashlib
import importlib
import json
from typing import Any, Callable

import numpy as np

from pyjax._src import dtypes
from pyjax._src.avals import ShapedArray
from pyjax._src.shape_poly import DimExpr, SymbolicScope
from pyjax._src.shape_poly_parse import symbolic_shape
from pyjax._src.jaxpr import DropVar, Jaxpr, JaxprEqn, Literal, Var

MAGIC = b"PYJAX-EXPORT"
VERSION = 1
_INLINED = ("custom_jvp_call", "custom_vjp_call")  # stored as closed_call of their body
_NODE_TYPES: dict[str, tuple] = {}  # serialized name -> (type, serialize_auxdata, deserialize_auxdata)
_NODE_NAMES: dict[type, str] = {}


class SerializationError(ValueError):
    """A payload that is not a pyjax-serialized Exported, or is corrupt."""


def register_pytree_node_serialization(nodetype: type, *, serialized_name: str,
                                       serialize_auxdata: Callable[[Any], bytes],
                                       deserialize_auxdata: Callable[[bytes], Any]) -> type:
    """Lets a registered pytree node type appear in an exported function's
    input and output trees (JAX's API)."""
    if serialized_name in _NODE_TYPES:
        raise ValueError(f"Duplicate serialization registration for serialized_name='{serialized_name}'")
    if nodetype in _NODE_NAMES:
        raise ValueError(f"Duplicate serialization registration for type '{nodetype}'")
    _NODE_TYPES[serialized_name] = (nodetype, serialize_auxdata, deserialize_auxdata)
    _NODE_NAMES[nodetype] = serialized_name
    return nodetype


def register_namedtuple_serialization(nodetype: type, *, serialized_name: str) -> type:
    """Lets a namedtuple type appear in an exported function's trees."""
    if not (issubclass(nodetype, tuple) and hasattr(nodetype, "_fields")):
        raise ValueError(f"Cannot register serialization for type '{nodetype}' because it is not a namedtuple")
    return register_pytree_node_serialization(nodetype, serialized_name=serialized_name,
                                              serialize_auxdata=lambda _: b"", deserialize_auxdata=lambda _: None)


# -- writing ------------------------------------------------------------------------------------------

def serialize(exp, vjp_order: int = 0) -> bytearray:
    """`exp` as pyjax's serialized bytes."""
    from pyjax._src.tree_util import tree_unflatten

    doc = {
        "fun_name": exp.fun_name,
        "platforms": list(exp.platforms),
        "constraints": list(exp._constraints),
        "in_tree": _enc_tree(tree_unflatten(exp.in_tree, [_Leaf()] * exp.in_tree.num_leaves)),
        "out_tree": _enc_tree(tree_unflatten(exp.out_tree, [_Leaf()] * exp.out_tree.num_leaves)),
        "in_avals": [_enc_aval(a) for a in exp.in_avals],
        "out_avals": [_enc_aval(a) for a in exp.out_avals],
        "disabled_checks": [c._impl for c in exp.disabled_safety_checks],
        "jaxpr": _Writer().jaxpr(exp._jaxpr),
        "mlir": _mlir_or_none(exp),
        "vjp_order": vjp_order,
    }
    body = json.dumps(doc, separators=(",", ":")).encode()
    header = MAGIC + f" {VERSION} {hashlib.sha256(body).hexdigest()}\n".encode()
    return bytearray(header + body)


class _Leaf:
    pass


def _enc_tree(node) -> Any:
    if isinstance(node, _Leaf):
        return "*"
    if node is None:
        return {"none": 1}
    t = type(node)
    if t is tuple:
        return {"tuple": [_enc_tree(c) for c in node]}
    if t is list:
        return {"list": [_enc_tree(c) for c in node]}
    if t is dict:
        return {"dict": [[_enc_key(k), _enc_tree(v)] for k, v in node.items()]}
    name = _NODE_NAMES.get(t)
    if name is None:
        raise ValueError(f"Cannot serialize PyTreeDef containing an unregistered type '{t}'. Use "
                         "`export.register_pytree_node_serialization` or "
                         "`export.register_namedtuple_serialization`.")
    from pyjax._src.tree_util_registry import flatten_one_level

    _, serialize_aux, _ = _NODE_TYPES[name]
    children, aux = flatten_one_level(node)
    if isinstance(node, tuple) and hasattr(node, "_fields"):
        aux = None
    return {"node": name, "aux": base64.b64encode(serialize_aux(aux)).decode(),
            "children": [_enc_tree(c) for c in children]}


def _enc_key(k):
    if type(k) in (str, int):
        return k
    raise ValueError(f"Cannot serialize a dictionary key {k!r} (only str and int keys)")


def _enc_aval(a: ShapedArray) -> dict:
    if not isinstance(a.dtype, np.dtype):
        raise ValueError(f"Cannot serialize an aval of extended dtype {a.dtype}")
    if a.sharding is not None or a.memory_space is not None or a.vma:
        raise ValueError(f"Cannot serialize a placed aval {a} (pyjax exports unplaced arrays only)")
    return {"shape": [d if type(d) is int else str(d) for d in a.shape], "dtype": a.dtype.name,
            "weak": a.weak_type}


def _enc_array(x) -> dict:
    x = np.asarray(x)
    if x.dtype == object:
        raise ValueError("Cannot serialize an object array")
    return {"nd": x.dtype.name, "shape": list(x.shape), "b64": base64.b64encode(np.ascontiguousarray(x).tobytes()).decode()}


class _Writer:
    """Encodes a closed jaxpr: variables numbered as they are defined."""

    def __init__(self):
        self.ids: dict = {}

    def _def(self, v) -> Any:
        if type(v) is DropVar:
            return {"drop": _enc_aval(v.aval)}
        self.ids[v] = len(self.ids)
        return _enc_aval(v.aval)

    def _atom(self, v) -> dict:
        if type(v) is Literal:
            return {"lit": self.value(v.val, "literal"), "aval": _enc_aval(v.aval)}
        return {"v": self.ids[v]}

    def jaxpr(self, j: Jaxpr) -> dict:
        outer = self.ids
        self.ids = {}
        try:
            doc = {"constvars": [self._def(v) for v in j.constvars],
                   "consts": [_enc_array(c) for c in j.consts],
                   "invars": [self._def(v) for v in j.invars],
                   "eqns": [self.eqn(e) for e in j.eqns],
                   "outvars": [self._atom(v) for v in j.outvars]}
        finally:
            self.ids = outer
        return doc

    def eqn(self, e: JaxprEqn) -> dict:
        name = e.primitive.name
        if e.effects:
            raise ValueError(f"Cannot serialize primitive {name} with effects {set(e.effects)}")
        ins = [self._atom(v) for v in e.invars]
        if name in _INLINED:  # the rules are Python code: keep the primal body as a plain call
            params = {"call_jaxpr": self.value(e.params["call_jaxpr"], name)}
            name = "closed_call"
        else:
            params = {k: self.value(p, f"{name}'s parameter {k}") for k, p in e.params.items()}
        return {"p": name, "in": ins, "params": params, "out": [self._def(v) for v in e.outvars]}

    def value(self, x, where: str) -> Any:
        t = type(x)
        if x is None or t in (bool, int, str):
            return x
        if t is float:
            return {"f": float.hex(x)}
        if t is complex:
            return {"c": [float.hex(x.real), float.hex(x.imag)]}
        if t is tuple:
            return {"t": [self.value(y, where) for y in x]}
        if t is list:
            return {"l": [self.value(y, where) for y in x]}
        if t is dict:
            return {"d": [[self.value(k, where), self.value(v, where)] for k, v in x.items()]}
        if t is DimExpr:
            return {"dim": str(x)}
        if isinstance(x, np.dtype):
            return {"dtype": x.name}
        if isinstance(x, (np.ndarray, np.generic)):
            return {"scalar" if isinstance(x, np.generic) else "array": _enc_array(x)}
        if isinstance(x, Jaxpr):
            return {"jaxpr": self.jaxpr(x)}
        if hasattr(x, "aval") and hasattr(x, "_value"):  # a pyjax Array
            return {"array": _enc_array(np.asarray(x))}
        cls = _class_name(t)
        if cls is not None and isinstance(x, enum.Enum):
            return {"enum": cls, "v": x.name}
        if cls is not None and isinstance(x, tuple) and hasattr(x, "_fields"):
            return {"nt": cls, "f": [self.value(y, where) for y in x]}
        if cls is not None and isinstance(x, tuple):  # a tuple subclass built from one tuple
            return {"ts": cls, "f": self.value(tuple(x), where)}
        if cls is not None and dataclasses.is_dataclass(x):
            return {"dc": cls, "f": {f.name: self.value(getattr(x, f.name), where)
                                     for f in dataclasses.fields(x) if f.init}}
        if t.__name__ == "PyTreeDef":  # (scan's flat trees hold treedefs)
            from pyjax._src.tree_util import tree_unflatten

            return {"treedef": _enc_tree(tree_unflatten(x, [_Leaf()] * x.num_leaves))}
        if cls is not None and _slots(t):  # a plain pyjax value class (scan's FlatTrees): its slots
            return {"slots": cls, "f": {name: self.value(getattr(x, name), where) for name in _slots(t)}}
        raise ValueError(f"Cannot serialize {where}: {x!r} (of type {t.__qualname__}); pyjax serializes "
                         "data, never code")


def _class_name(t: type) -> str | None:
    # Only pyjax's own classes are named (and only those are accepted when reading).
    module = getattr(t, "__module__", "")
    if module.startswith("pyjax."):
        return f"{module}:{t.__qualname__}"
    return None


# -- reading ------------------------------------------------------------------------------------------

def deserialize(blob: bytes | bytearray) -> Any:
    """The `Exported` that `Exported.serialize()` wrote. Refuses, with a
    ValueError, a payload that is not pyjax's, of another version, or corrupt."""
    from pyjax._src.export._export import DisabledSafetyCheck, Exported
    from pyjax._src.tree_util import tree_flatten

    blob = bytes(blob)
    newline = blob.find(b"\n")
    header = blob[:newline].split(b" ") if newline > 0 else []
    if len(header) != 3 or header[0] != MAGIC:
        raise SerializationError("Not a pyjax-serialized Exported: the payload does not start with pyjax's header "
                                 "(JAX's flatbuffer serializations cannot be read by pyjax; see docs/export.md)")
    if header[1] != str(VERSION).encode():
        raise SerializationError(f"Unsupported pyjax serialization version {header[1].decode(errors='replace')} "
                                 f"(this pyjax reads version {VERSION})")
    body = blob[newline + 1:]
    if hashlib.sha256(body).hexdigest().encode() != header[2]:
        raise SerializationError("Corrupt pyjax serialization: the payload's checksum does not match its contents")
    try:
        doc = json.loads(body)
        scope = SymbolicScope(tuple(doc["constraints"]))
        reader = _Reader(scope)
        in_tree = tree_flatten(_dec_tree(doc["in_tree"]))[1]
        out_tree = tree_flatten(_dec_tree(doc["out_tree"]))[1]
        return Exported(fun_name=doc["fun_name"], in_tree=in_tree,
                        in_avals=tuple(reader.aval(a) for a in doc["in_avals"]), out_tree=out_tree,
                        out_avals=tuple(reader.aval(a) for a in doc["out_avals"]),
                        jaxpr=reader.jaxpr(doc["jaxpr"]), platforms=tuple(doc["platforms"]),
                        disabled_safety_checks=tuple(DisabledSafetyCheck(c) for c in doc["disabled_checks"]),
                        constraints=tuple(doc["constraints"]), mlir_text=doc["mlir"])
    except SerializationError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as e:
        raise SerializationError(f"Malformed pyjax serialization: {type(e).__name__}: {e}") from None


class _LeafMarker:
    pass


def _dec_tree(doc) -> Any:
    if doc == "*":
        return _LeafMarker()
    if "none" in doc:
        return None
    if "tuple" in doc:
        return tuple(_dec_tree(c) for c in doc["tuple"])
    if "list" in doc:
        return [_dec_tree(c) for c in doc["list"]]
    if "dict" in doc:
        return {k: _dec_tree(v) for k, v in doc["dict"]}
    name = doc["node"]
    if name not in _NODE_TYPES:
        raise SerializationError(f"Cannot deserialize a PyTreeDef with the unregistered type '{name}'")
    nodetype, _, deserialize_aux = _NODE_TYPES[name]
    children = [_dec_tree(c) for c in doc["children"]]
    if issubclass(nodetype, tuple) and hasattr(nodetype, "_fields"):
        return nodetype(*children)
    from pyjax._src.tree_util_registry import build_node, token_for

    aux = deserialize_aux(base64.b64decode(doc["aux"]))
    return build_node(token_for((nodetype, aux), len(children)), children)


def _primitives() -> dict:
    from pyjax._src import closed_call, dispatch  # noqa: F401  (closed_call_p, which custom calls are stored as)
    from pyjax._src.core import _all_primitives

    dispatch.load_backend()  # (the default backend's families import rarely used primitives' modules: Pallas, ...)

    table: dict = {}
    for p in _all_primitives:
        table.setdefault(p.name, p)
    return table


def _resolve_class(path: str, kind: str) -> type:
    module, _, qualname = path.partition(":")
    if not module.startswith("pyjax."):
        raise SerializationError(f"Refusing to load the class {path!r}: not one of pyjax's")
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    ok = {"enum": lambda c: isinstance(c, type) and issubclass(c, enum.Enum),
          "nt": lambda c: isinstance(c, type) and issubclass(c, tuple) and hasattr(c, "_fields"),
          "ts": lambda c: isinstance(c, type) and issubclass(c, tuple),
          "dc": lambda c: isinstance(c, type) and dataclasses.is_dataclass(c),
          "slots": lambda c: isinstance(c, type) and bool(_slots(c)) and not issubclass(c, tuple)}[kind]
    if not ok(obj):
        raise SerializationError(f"Refusing to load {path!r}: not a pyjax {kind}")
    return obj


def _slots(cls: type) -> tuple:
    """The names in the `__slots__` of `cls` and its bases (a class that
    holds nothing else: no `__dict__`)."""
    if "__dict__" in dir(cls) or not isinstance(cls, type):
        return ()
    names: list = []
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ())
        names.extend([slots] if isinstance(slots, str) else slots)
    return tuple(names)


def _dec_array(doc) -> np.ndarray:
    dtype = np.dtype(doc["nd"])
    if dtype == object:
        raise SerializationError("Refusing an object array")
    return np.frombuffer(base64.b64decode(doc["b64"]), dtype).reshape(doc["shape"]).copy()


class _Reader:
    def __init__(self, scope: SymbolicScope):
        self.scope = scope
        self.prims = _primitives()
        self.vars: list = []

    def dim(self, s):
        return s if type(s) is int else symbolic_shape(s, scope=self.scope)[0]

    def aval(self, doc) -> ShapedArray:
        dtype = dtypes.canonicalize_dtype(np.dtype(doc["dtype"])) if doc["dtype"] != "float0" else dtypes.float0
        return ShapedArray(tuple(self.dim(d) for d in doc["shape"]), np.dtype(doc["dtype"]) if dtype is None else dtype,
                           bool(doc["weak"]))

    def _def(self, doc) -> Var:
        if isinstance(doc, dict) and "drop" in doc:
            return DropVar(self.aval(doc["drop"]))
        v = Var(self.aval(doc))
        self.vars.append(v)
        return v

    def _atom(self, doc):
        if "lit" in doc:
            return Literal(self.value(doc["lit"]), self.aval(doc["aval"]))
        return self.vars[doc["v"]]

    def jaxpr(self, doc) -> Jaxpr:
        outer = self.vars
        self.vars = []
        try:
            constvars = [self._def(v) for v in doc["constvars"]]
            consts = [_dec_array(c) for c in doc["consts"]]
            invars = [self._def(v) for v in doc["invars"]]
            eqns = [self.eqn(e) for e in doc["eqns"]]
            outvars = [self._atom(v) for v in doc["outvars"]]
        finally:
            self.vars = outer
        return Jaxpr(constvars, invars, outvars, eqns, consts)

    def eqn(self, doc) -> JaxprEqn:
        try:
            prim = self.prims[doc["p"]]
        except KeyError:
            raise SerializationError(f"Unknown primitive {doc['p']!r} in the serialized jaxpr") from None
        ins = [self._atom(a) for a in doc["in"]]
        params = {k: self.value(v) for k, v in doc["params"].items()}
        outs = [self._def(o) for o in doc["out"]]
        return JaxprEqn(prim, ins, outs, params)

    def value(self, doc) -> Any:
        if doc is None or type(doc) in (bool, int, str):
            return doc
        (tag, body), *rest = doc.items()
        if tag == "f":
            return float.fromhex(body)
        if tag == "c":
            return complex(float.fromhex(body[0]), float.fromhex(body[1]))
        if tag == "t":
            return tuple(self.value(y) for y in body)
        if tag == "l":
            return [self.value(y) for y in body]
        if tag == "d":
            return {self.value(k): self.value(v) for k, v in body}
        if tag == "dim":
            return self.dim(body)
        if tag == "dtype":
            return np.dtype(body)
        if tag == "array":
            return _dec_array(body)
        if tag == "scalar":
            return _dec_array(body)[()]
        if tag == "jaxpr":
            return self.jaxpr(body)
        if tag == "enum":
            return _resolve_class(body, "enum")[rest[0][1]]
        if tag == "nt":
            return _resolve_class(body, "nt")(*(self.value(y) for y in rest[0][1]))
        if tag == "ts":
            return _resolve_class(body, "ts")(self.value(rest[0][1]))
        if tag == "dc":
            return _resolve_class(body, "dc")(**{k: self.value(v) for k, v in rest[0][1].items()})
        if tag == "treedef":
            from pyjax._src.tree_util import tree_flatten

            return tree_flatten(_dec_tree(body))[1]
        if tag == "slots":
            cls = _resolve_class(body, "slots")
            obj = cls.__new__(cls)
            for name, v in rest[0][1].items():
                if name not in _slots(cls):
                    raise SerializationError(f"{body} has no slot {name!r}")
                object.__setattr__(obj, name, self.value(v))
            return obj
        raise SerializationError(f"Unknown tag {tag!r} in the serialized jaxpr")


def _mlir_or_none(exp):
    # A module pyjax cannot lower yet (docs/export.md) does not stop the
    # serialization: the stored jaxpr is what a deserialized call runs.
    try:
        return exp.mlir_module()
    except NotImplementedError:
        return None
