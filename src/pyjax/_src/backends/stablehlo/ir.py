"""A small MLIR module model and its printer, for StableHLO's textual form.

What is modelled is what the text needs: values with types (and an optional
name hint, as ops such as `stablehlo.constant` give one: `%cst`, `%c`),
operations with their operands, results and regions, blocks with
arguments, functions and the module. Each op carries its own printer (its
custom assembly format), so the ops of the lowering rules print exactly as
MLIR's `AsmPrinter` prints them.

Value names follow MLIR's `SSANameState`: inside a function (isolated from
above) numbering starts again; a region's own operations are numbered
first, then each nested region starts from the state the enclosing region
ended in (siblings start from the same state); a hinted name is made unique
with MLIR's suffix counter (`cst`, `cst_0`, `c`, `cst_1` ...), shared by
the names of one scope and inherited by nested regions.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np

from pyjax._src import dtypes as _dtypes

# ---------------------------------------------------------------------------
# Types


def element_type(dtype) -> str:
    """MLIR's element type for a NumPy dtype: `f32`, `bf16`, `i1`, `ui8`, `complex<f32>`."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return "i1"
    if dtype.kind == "i":
        return f"i{dtype.itemsize * 8}"
    if dtype.kind == "u":
        return f"ui{dtype.itemsize * 8}"
    if dtype.kind == "c":
        return f"complex<f{dtype.itemsize * 4}>"
    name = dtype.name
    # (by name first: ml_dtypes gives some narrow types, float8_e5m2 among them, NumPy's kind "f")
    if dtype.kind == "f" and name not in _SPECIAL:
        return f"f{dtype.itemsize * 8}"
    if name in _SPECIAL:
        return _SPECIAL[name]
    raise NotImplementedError(f"StableHLO has no element type for dtype {dtype}")


_SPECIAL = {"bfloat16": "bf16", "float8_e4m3fn": "f8E4M3FN", "float8_e5m2": "f8E5M2",
            "float8_e4m3b11fnuz": "f8E4M3B11FNUZ", "float8_e4m3fnuz": "f8E4M3FNUZ",
            "float8_e5m2fnuz": "f8E5M2FNUZ", "float8_e4m3": "f8E4M3", "float8_e3m4": "f8E3M4",
            "float8_e8m0fnu": "f8E8M0FNU", "float4_e2m1fn": "f4E2M1FN", "int4": "i4", "uint4": "ui4",
            "int2": "i2", "uint2": "ui2"}


def tensor_type(shape: Sequence[int], dtype) -> str:
    """`tensor<4x8xf32>`; a 0-d tensor is `tensor<f32>`."""
    # A symbolic dimension (shape polymorphism, jax.export) is MLIR's dynamic `?`.
    dims = "".join(f"{d}x" if type(d) is int else ("?x" if hasattr(d, "get_vars") else f"{int(d)}x") for d in shape)
    return f"tensor<{dims}{element_type(dtype)}>"


class TensorType:
    """A ranked tensor type: shape and NumPy dtype (printed as MLIR prints it)."""

    __slots__ = ("shape", "dtype", "_text")

    def __init__(self, shape: Sequence[int], dtype):
        self.shape = tuple(d if hasattr(d, "get_vars") else int(d) for d in shape)  # (symbolic dims kept)
        self.dtype = np.dtype(dtype)
        self._text = tensor_type(self.shape, self.dtype)

    def __str__(self) -> str:
        return self._text

    def __eq__(self, other) -> bool:
        return isinstance(other, TensorType) and self._text == other._text

    def __hash__(self) -> int:
        return hash(self._text)

    def __repr__(self) -> str:
        return self._text


class TokenType:
    """`!stablehlo.token`: the type of the values that order side effects."""

    __slots__ = ()
    shape = ()
    dtype = None

    def __str__(self) -> str:
        return "!stablehlo.token"

    __repr__ = __str__

    def __eq__(self, other) -> bool:
        return isinstance(other, TokenType)

    def __hash__(self) -> int:
        return hash("!stablehlo.token")


TOKEN = TokenType()


# ---------------------------------------------------------------------------
# Values, ops, blocks


class Value:
    """An SSA value: its type, an optional name hint, and (for an op result)
    its op and result index."""

    __slots__ = ("type", "hint", "op", "index")

    def __init__(self, type_: TensorType, hint: str | None = None, op: Op | None = None, index: int = 0):
        self.type = type_
        self.hint = hint
        self.op = op
        self.index = index

    @property
    def shape(self) -> tuple:
        return self.type.shape

    @property
    def dtype(self) -> np.dtype:
        return self.type.dtype

    def __repr__(self) -> str:
        return f"Value({self.type})"


class Block:
    """A block: arguments (an op may name them, `arg_hint`) and operations."""

    __slots__ = ("args", "ops")

    def __init__(self, arg_types: Sequence[TensorType] = (), arg_hint: str | None = None):
        self.args = [Value(t, arg_hint) for t in arg_types]
        self.ops: list[Op] = []


class Op:
    """An operation. `printer(op, p, indent, in_func)` returns its text after `%r = `
    (it prints the regions through `p.region`)."""

    __slots__ = ("name", "operands", "results", "regions", "printer", "attrs")

    def __init__(self, name: str, operands: Sequence[Value], result_types: Sequence[TensorType],
                 printer: Callable, regions: Sequence[Block] = (), hint: str | None = None, **attrs):
        self.name = name
        self.operands = list(operands)
        self.results = [Value(t, hint, self, i) for i, t in enumerate(result_types)]
        self.regions = list(regions)
        self.printer = printer
        self.attrs = attrs


class Func:
    """A `func.func`: public `@main` or a private function called from others."""

    def __init__(self, name: str, arg_types: Sequence[TensorType], public: bool = False):
        self.name = name
        self.public = public
        self.body = Block(arg_types)
        self.arg_attrs: list[str | None] = [None] * len(arg_types)
        self.result_types: list[TensorType] = []
        self.result_attrs: list[str | None] = []

    @property
    def args(self) -> list[Value]:
        return self.body.args


class Module:
    """A `module @name` holding functions; symbol names are made unique as
    MLIR's symbol table does (`name`, `name_0`, `name_1`, one counter)."""

    def __init__(self, name: str):
        self.name = name
        self.funcs: list[Func] = []
        self._symbols: set[str] = set()
        self._counter = 0
        self.attributes = "mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32"
        self.preamble: list[str] = []  # module-level ops before the functions (`sdy.mesh`)
        self.head = 0  # functions kept ahead of one inserted at the module's beginning (export's @main)

    def unique_symbol(self, name: str) -> str:
        if name in self._symbols:
            while True:
                candidate = f"{name}_{self._counter}"
                self._counter += 1
                if candidate not in self._symbols:
                    name = candidate
                    break
        self._symbols.add(name)
        return name

    def add_func(self, name: str, arg_types: Sequence[TensorType], public: bool = False) -> Func:
        func = Func(self.unique_symbol(name), arg_types, public)
        self.funcs.append(func)
        return func

    def __str__(self) -> str:
        return print_module(self)


# ---------------------------------------------------------------------------
# Naming (MLIR's SSANameState)


class _Scope:
    __slots__ = ("names", "parent")

    def __init__(self, parent: _Scope | None):
        self.names: set[str] = set()
        self.parent = parent

    def used(self, name: str) -> bool:
        scope = self
        while scope is not None:
            if name in scope.names:
                return True
            scope = scope.parent
        return False


class _Namer:
    """Assigns every value of one function its printed name."""

    def __init__(self):
        self.names: dict[int, str] = {}

    def _unique(self, hint: str, scope: _Scope, state: list) -> str:
        name = hint
        if scope.used(name):
            while True:
                candidate = f"{hint}_{state[2]}"
                state[2] += 1
                if not scope.used(candidate):
                    name = candidate
                    break
        scope.names.add(name)
        return name

    def number_block(self, block: Block, state: list, scope: _Scope) -> None:
        # state = [next value id, next argument id, next conflict id]
        for arg in block.args:
            if arg.hint is not None:
                self.names[id(arg)] = "%" + self._unique(arg.hint, scope, state)
            else:
                self.names[id(arg)] = f"%arg{state[1]}"
                state[1] += 1
        nested = []
        for op in block.ops:
            hints = op.attrs.get("result_hints")
            if hints:  # each result named on its own (`%values, %indices`)
                for r, h in zip(op.results, hints):
                    self.names[id(r)] = "%" + self._unique(h, scope, state)
                self.names[("count", id(op))] = ", ".join(self.names[id(r)] for r in op.results)
            elif op.results:
                first = op.results[0]
                if first.hint is not None:
                    base = "%" + self._unique(first.hint, scope, state)
                else:
                    base = f"%{state[0]}"
                    state[0] += 1
                if len(op.results) == 1:
                    self.names[id(first)] = base
                else:
                    for i, r in enumerate(op.results):
                        self.names[id(r)] = f"{base}#{i}"
                    self.names[("count", id(op))] = f"{base}:{len(op.results)}"
            nested.extend(op.regions)
        end = list(state)
        for region in nested:
            self.number_block(region, list(end), _Scope(scope))

    def result_list(self, op: Op) -> str:
        if len(op.results) == 1 and not op.attrs.get("result_hints"):
            return self.names[id(op.results[0])]
        return self.names[("count", id(op))]


# ---------------------------------------------------------------------------
# Printing


class Printer:
    """Prints one function's ops; `v(value)` is a value's name."""

    def __init__(self, namer: _Namer):
        self.namer = namer

    def v(self, value: Value) -> str:
        return self.namer.names[id(value)]

    def vs(self, values: Sequence[Value]) -> str:
        return ", ".join(self.v(x) for x in values)

    def op_lines(self, op: Op, indent: int, in_func: bool) -> str:
        text = op.printer(op, self, indent, in_func)
        if op.results:
            return " " * indent + f"{self.namer.result_list(op)} = {text}"
        return " " * indent + text

    def block_body(self, block: Block, indent: int, in_func: bool = False) -> list[str]:
        return [self.op_lines(op, indent, in_func) for op in block.ops]

    def region(self, block: Block, indent: int, header: bool = False) -> str:
        """`{` ops `}` for a region of the op printed at `indent`; `header`
        prints the block's arguments (`^bb0(%arg1: tensor<f32>, ...):`)."""
        lines = ["{"]
        if header:
            args = ", ".join(f"{self.v(a)}: {a.type}" for a in block.args)
            lines.append(" " * indent + f"^bb0({args}):")
        lines += self.block_body(block, indent + 2)
        lines.append(" " * indent + "}")
        return "\n".join(lines)


def _symbol(name: str) -> str:
    """`@name`, quoted when it is not a bare identifier (`@"<lambda>"`)."""
    import re

    if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_$.]*", name):
        return "@" + name
    escaped = name.replace("\\", "\\5C").replace('"', '\\22')
    return f'@"{escaped}"'


def print_func(func: Func) -> list[str]:
    namer = _Namer()
    namer.number_block(func.body, [0, 0, 0], _Scope(None))
    p = Printer(namer)
    args = []
    for a, attr in zip(func.args, func.arg_attrs):
        args.append(f"{p.v(a)}: {a.type}" + (f" {{{attr}}}" if attr else ""))
    results = [f"{t}" + (f" {{{attr}}}" if attr else "") for t, attr in zip(func.result_types, func.result_attrs)]
    if len(results) == 1 and not func.result_attrs[0]:
        res = f" -> {results[0]}"
    elif results:
        res = f" -> ({', '.join(results)})"
    else:
        res = ""
    visibility = "" if func.public is None else "public " if func.public else "private "
    lines = [f"  func.func {visibility}{_symbol(func.name)}({', '.join(args)}){res} {{"]
    lines += p.block_body(func.body, 4, in_func=True)
    lines.append("  }")
    return lines


def print_module(module: Module) -> str:
    lines = [f"module {_symbol(module.name)} attributes {{{module.attributes}}} {{"]
    lines += ["  " + op for op in module.preamble]
    for func in module.funcs:
        lines += print_func(func)
    lines.append("}")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Attribute text: MLIR's float formatting and dense elements


def _float_bits(value, dtype) -> int:
    arr = np.asarray(value, dtype=dtype).reshape(1)
    return int(arr.view(np.dtype(f"u{arr.dtype.itemsize}"))[0])


def _bits_value(bits: int, dtype) -> float:
    return float(np.array([bits], dtype=np.dtype(f"u{np.dtype(dtype).itemsize}")).view(dtype)[0])


def _precision_bits(dtype) -> int:
    return int(_dtypes.finfo(dtype).nmant) + 1


def _digits(value: Fraction, precision: int) -> tuple[str, int]:
    """The decimal digits of a positive dyadic rational and its power of
    ten, as APFloat computes them: exact, then truncated (by a conservative
    count of tens) to a little more than `precision` digits, trailing
    zeros dropped."""
    num, den = value.numerator, value.denominator
    exp = 0
    if den != 1:  # den is a power of two: num/2^k = num*5^k/10^k
        k = den.bit_length() - 1
        num *= 5 ** k
        exp -= k
    required = (precision * 196 + 58) // 59  # bits for `precision` digits (196/59 > log2(10))
    bits = num.bit_length()
    if bits > required:
        tens = (bits - required) * 59 // 196
        if tens:
            num //= 10 ** tens
            exp += tens
    s = str(num)
    stripped = s.rstrip("0")
    exp += len(s) - len(stripped)
    return stripped, exp


def _adjust_to_precision(digits: str, exp: int, precision: int) -> tuple[str, int]:
    n = len(digits)
    if n <= precision:
        return digits, exp
    if digits[precision] < "5":
        kept = digits[:precision]
        stripped = kept.rstrip("0")
        return stripped, exp + (n - precision) + (len(kept) - len(stripped))
    bumped = str(int(digits[:precision]) + 1)
    if len(bumped) > precision:
        return "1", exp + n
    stripped = bumped.rstrip("0")
    return stripped, exp + (n - precision) + (len(bumped) - len(stripped))


def apfloat_to_string(value: float, dtype, precision: int = 0, max_padding: int = 3,
                      truncate_zero: bool = True) -> str:
    """LLVM's `APFloat::toString` for a finite value of the given format."""
    negative = bool(np.signbit(np.asarray(value, dtype)))
    sign = "-" if negative else ""
    if value == 0:
        if not max_padding:
            if truncate_zero:
                return sign + "0.0E+0"
            return sign + "0.0" + "0" * max(precision - 1, 0) + "e+00"
        return sign + "0"
    if not precision:
        precision = 2 + _precision_bits(dtype) * 59 // 196
    digits, exp = _digits(abs(Fraction(float(value))), precision)
    digits, exp = _adjust_to_precision(digits, exp, precision)
    n = len(digits)
    if not max_padding:
        scientific = True
    elif exp >= 0:
        scientific = exp > max_padding or n + exp > precision
    else:
        msd = exp + n - 1
        scientific = False if msd >= 0 else -msd > max_padding
    if scientific:
        e = exp + n - 1
        mantissa = digits[0] + "." + ("0" if n == 1 and truncate_zero else digits[1:])
        if not truncate_zero and precision > n - 1:
            mantissa += "0" * (precision - n + 1)
        e_digits = str(abs(e))
        if not truncate_zero and len(e_digits) < 2:
            e_digits = "0" + e_digits
        return sign + mantissa + ("E" if truncate_zero else "e") + ("+" if e >= 0 else "-") + e_digits
    if exp >= 0:
        return sign + digits + "0" * exp
    whole = exp + n
    if whole > 0:
        return sign + digits[:whole] + "." + digits[whole:]
    return sign + "0." + "0" * (-whole) + digits


def _round_trips(text: str, value: float, dtype) -> bool:
    """Whether the decimal `text` parses back (round to nearest, ties to
    even) to exactly `value` in `dtype`."""
    d = abs(Fraction(text))
    v = abs(Fraction(float(value)))
    bits = _float_bits(abs(value), dtype)
    below = Fraction(_bits_value(bits - 1, dtype)) if bits > 0 else -v
    above_f = _bits_value(bits + 1, dtype)
    above = Fraction(above_f) if np.isfinite(above_f) else v + (v - below)
    lo, hi = (v + below) / 2, (v + above) / 2
    if lo < d < hi:
        return True
    return (d == lo or d == hi) and bits % 2 == 0


def format_float(value, dtype) -> str:
    """A float as MLIR prints it in an attribute: `1.000000e-01` when six
    significant digits read back exactly, else APFloat's shortest form
    (`3.14159274`) when it has a point, else hexadecimal (`0x7FC00000`)."""
    dtype = np.dtype(dtype)
    with np.errstate(over="ignore"):
        x = np.asarray(value, dtype).reshape(())[()]
    if np.isfinite(x):
        text = apfloat_to_string(x, dtype, precision=6, max_padding=0, truncate_zero=False)
        if _round_trips(text, x, dtype):
            return text
        text = apfloat_to_string(x, dtype)
        if "." in text:
            return text
    width = dtype.itemsize * 2
    return f"0x{_float_bits(x, dtype):0{width}X}"


def format_element(value, dtype) -> str:
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return "true" if bool(value) else "false"
    if dtype.kind in "iu":
        return str(int(value))
    if dtype.kind == "c":
        part = np.dtype(f"f{dtype.itemsize // 2}")
        return f"({format_float(np.real(value), part)},{format_float(np.imag(value), part)})"
    return format_float(value, dtype)


def dense_attr(array: np.ndarray) -> str:
    """`dense<...>`: a splat when every element is bitwise the same, else
    nested brackets; more than 100 elements print as hexadecimal bytes."""
    a = np.asarray(array)
    if a.size == 0:
        return "dense<>"
    flat = a.reshape(-1)
    raw = flat.view(np.uint8).reshape(flat.size, -1) if a.dtype != np.bool_ else flat.astype(np.uint8).reshape(-1, 1)
    if a.ndim == 0 or (raw == raw[0]).all():
        return f"dense<{format_element(flat[0], a.dtype)}>"
    if a.size > 100:
        data = a.astype(np.uint8) if a.dtype == np.bool_ else a
        return f'dense<"0x{np.ascontiguousarray(data).tobytes().hex().upper()}">'

    def nest(x):
        if x.ndim == 1:
            return "[" + ", ".join(format_element(e, a.dtype) for e in x) + "]"
        return "[" + ", ".join(nest(s) for s in x) + "]"

    return f"dense<{nest(a)}>"


def i64_array(values: Sequence[int]) -> str:
    """`array<i64: 1, 2>` (`array<i64>` when empty)."""
    values = list(values)
    return "array<i64" + (": " + ", ".join(str(int(v)) for v in values) if values else "") + ">"


def int_list(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(int(v)) for v in values) + "]"
