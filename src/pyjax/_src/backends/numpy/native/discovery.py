"""NumPy's kernels as C function pointers: a ufunc's inner loop for given
dtypes (from the function table NumPy's ufunc object publishes in its C
struct), and the BLAS `gemv`/`gemm` NumPy's own `dot` calls.
"""

from __future__ import annotations

import ctypes
from typing import ClassVar

import numpy as np

# ---------------------------------------------------------------------------
# NumPy's kernels, as C function pointers


class _UfuncHead(ctypes.Structure):
    # The public prefix of NumPy's PyUFuncObject (numpy/ufuncobject.h), after
    # the object header (whose size `object.__basicsize__` gives).
    _fields_ = [
        ("header", ctypes.c_byte * object.__basicsize__),
        ("nin", ctypes.c_int), ("nout", ctypes.c_int), ("nargs", ctypes.c_int), ("identity", ctypes.c_int),
        ("functions", ctypes.POINTER(ctypes.c_void_p)), ("data", ctypes.POINTER(ctypes.c_void_p)),
        ("ntypes", ctypes.c_int), ("reserved1", ctypes.c_int),
        ("name", ctypes.c_char_p), ("types", ctypes.POINTER(ctypes.c_char)),
    ]


_loops: dict = {}


def ufunc_loop(ufunc: np.ufunc, dtypes: tuple) -> tuple[int, int] | None:
    """(inner loop, its data) that `ufunc` runs for operand and result
    `dtypes` (no casts), or None."""
    key = (ufunc, dtypes)
    if key not in _loops:
        _loops[key] = _find_loop(ufunc, dtypes)
    return _loops[key]


def _find_loop(ufunc, dtypes):
    if type(ufunc) is not np.ufunc or ufunc.nout != 1 or len(dtypes) != ufunc.nargs:
        return None
    head = _UfuncHead.from_address(id(ufunc))
    if ((head.nin, head.nout, head.nargs, head.ntypes) != (ufunc.nin, ufunc.nout, ufunc.nargs, ufunc.ntypes)
            or head.name != ufunc.__name__.encode()):
        return None  # not the layout this reads
    nums = [np.dtype(d).num for d in dtypes]
    if any(num >= 256 for num in nums):
        return None  # a user dtype (bfloat16, float8): its loops are not in this table
    wanted = bytes(nums)
    n = head.nargs
    for i in range(head.ntypes):
        if bytes(head.types[i * n + j][0] for j in range(n)) == wanted:
            fn = head.functions[i]
            return (fn, head.data[i] or 0) if fn else None
    return None


class _Blas:
    # NumPy's BLAS (the library its `ndarray.dot` calls): the addresses of
    # its gemv and gemm, and whether its integers are 64-bit.
    fns: ClassVar[dict] = {}  # "sgemv" -> its address, and so on
    int64 = False
    found = None

    @classmethod
    def find(cls) -> bool:
        if cls.found is None:
            cls.found = cls._find()
        return cls.found

    @classmethod
    def _find(cls) -> bool:
        # Only an OpenBLAS that NumPy's build config names: its symbol names
        # and integer width are then known (a wrong width would not give
        # wrong bits but a crash, which no check after the fact can catch).
        try:
            config = np.__config__.CONFIG["Build Dependencies"]["blas"]
            name, build = config["name"].lower(), config.get("openblas configuration", "")
        except (AttributeError, KeyError, TypeError):
            return False
        if "openblas" not in name:
            return False
        int64 = "USE64BITINT" in build
        prefix, suffix = ("scipy_" if name.startswith("scipy") else ""), ("64_" if int64 else "")
        names = {f: f"{prefix}cblas_{f}{suffix}" for f in ("sgemv", "dgemv", "sgemm", "dgemm")}
        try:
            with open("/proc/self/maps") as maps:
                paths = {line.split()[-1] for line in maps if "openblas" in line.lower() and ".so" in line}
        except OSError:
            return False
        # NumPy's wheels bundle their BLAS beside the package (numpy.libs);
        # SciPy loads another copy, which must not be the one picked.
        for path in sorted(paths, key=lambda p: ("numpy" not in p, p)):
            try:
                lib = ctypes.CDLL(path)
            except OSError:
                continue
            if all(hasattr(lib, n) for n in names.values()):
                cls.fns = {f: ctypes.cast(getattr(lib, n), ctypes.c_void_p).value for f, n in names.items()}
                # (the dot of two vectors, NumPy's `dotfunc`: optional)
                for f in ("sdot", "ddot"):
                    if hasattr(lib, f"{prefix}cblas_{f}{suffix}"):
                        cls.fns[f] = ctypes.cast(getattr(lib, f"{prefix}cblas_{f}{suffix}"), ctypes.c_void_p).value
                cls.int64 = int64
                return True
        return False
