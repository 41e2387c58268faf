"""threefry2x32 in C: the hash kernel random/threefry.py calls.

NumPy runs the hash as ~120 passes of uint32 ufuncs over each chunk (~60M
words a second on one core, and ~100 us for even one word). The same
rounds in C, which the compiler vectorises (AVX-512 has a rotate), hash
~1G words a second. The hash is integer arithmetic, so the C code gives
NumPy's bits by construction; it is still compared with the NumPy rounds
on test words after its build, before any use, so the build verifies it
(tiering.py: BUILDING goes straight to LIVE), and re-checked on calls 2,
4, 8, ... It is built in the background at the first hash, like every
native tier (synchronously when PYJAX_NATIVE_LOOPS_AFTER=0), and the
NumPy rounds run until then, or for good without a C compiler or with
PYJAX_NATIVE_LOOPS=0. install() registers it with random/threefry.py.
"""

from __future__ import annotations

import ctypes

import numpy as np

from pyjax._src.backends.numpy.native import settings
from pyjax._src.backends.numpy.native.build import _build, available
from pyjax._src.backends.numpy.native.tiering import COLD, Rechecks, Tiering
from pyjax._src.random.threefry import _hash_in_place

__all__ = ["HASH_FUNCTION", "NativeHash", "native_hash"]

# The hash of one counter pair in place: also written into native loops
# that draw random bits (keys.py).
HASH_FUNCTION = r"""
#define PJ_ROUND(r) x0 += x1; x1 = (x1 << r) | (x1 >> (32 - r)); x1 ^= x0;
#define PJ_ROUNDS_A PJ_ROUND(13) PJ_ROUND(15) PJ_ROUND(26) PJ_ROUND(6)
#define PJ_ROUNDS_B PJ_ROUND(17) PJ_ROUND(29) PJ_ROUND(16) PJ_ROUND(24)
static inline void pj_hash(uint32_t k0, uint32_t k1, uint32_t *restrict p0, uint32_t *restrict p1) {
    uint32_t k2 = k0 ^ k1 ^ 0x1BD11BDAu, x0 = *p0 + k0, x1 = *p1 + k1;
    PJ_ROUNDS_A x0 += k1; x1 += k2 + 1u;
    PJ_ROUNDS_B x0 += k2; x1 += k0 + 2u;
    PJ_ROUNDS_A x0 += k0; x1 += k1 + 3u;
    PJ_ROUNDS_B x0 += k1; x1 += k2 + 4u;
    PJ_ROUNDS_A x0 += k2; x1 += k0 + 5u;
    *p0 = x0; *p1 = x1;
}
/* The hashes of counters (0, j), j < count, under one key, as random_split
   (both words) and 32-bit random_bits (their xor) lay them out: loops GCC
   vectorises (the vetted -O2 with the dynamic cost model: docs/performance.md
   on GCC 12's -O3), whatever the rest of the source is built at. */
#pragma GCC push_options
#pragma GCC optimize ("O2", "tree-vectorize", "vect-cost-model=dynamic")
static void pj_hash_pairs(uint32_t k0, uint32_t k1, uint32_t *out, intptr_t count) {
    for (intptr_t j = 0; j < count; j++) {
        uint32_t x0 = 0, x1 = (uint32_t)j; pj_hash(k0, k1, &x0, &x1); out[2 * j] = x0; out[2 * j + 1] = x1;
    }
}
static void pj_hash_xor(uint32_t k0, uint32_t k1, uint32_t *out, intptr_t count) {
    for (intptr_t j = 0; j < count; j++) { uint32_t x0 = 0, x1 = (uint32_t)j; pj_hash(k0, k1, &x0, &x1); out[j] = x0 ^ x1; }
}
#pragma GCC pop_options"""

_HASH_SOURCE = "#include <stdint.h>" + HASH_FUNCTION + r"""
void pyjax_threefry_scalar_keys(uint32_t k0, uint32_t k1, uint32_t *restrict x0, uint32_t *restrict x1, intptr_t n) {
    for (intptr_t i = 0; i < n; i++) pj_hash(k0, k1, x0 + i, x1 + i);
}
void pyjax_threefry(const uint32_t *restrict k0, const uint32_t *restrict k1, uint32_t *restrict x0,
                    uint32_t *restrict x1, intptr_t n) {
    for (intptr_t i = 0; i < n; i++) pj_hash(k0[i], k1[i], x0 + i, x1 + i);
}
"""


class NativeHash(Tiering):
    """The hash kernel threefry.py calls (`set_hash_kernel`): `kernel(keys,
    y0, y1, start, stop)` hashes words [start, stop) in place and returns
    True, or returns False (the NumPy rounds hash them)."""

    verified_by_build = True
    thread_name = "pyjax-native-threefry"

    def __init__(self):
        super().__init__("threefry")
        self.lib = None
        self._rechecks = Rechecks(calls=0)  # (its first call is not a checked one: calls 2, 4, 8, ... are)

    def _recheck(self, k0, k1, x0: np.ndarray, x1: np.ndarray) -> bool:
        # The kernel against the NumPy rounds on copies of a call's own first
        # words (and keys): on a difference it is dropped, and this call and
        # all later ones hash with NumPy.
        if _agrees(self.lib, k0, k1, x0.copy(), x1.copy()):
            return True
        self.drop("its hashes differed from the NumPy rounds' on a re-check")
        return False

    def __call__(self, keys, y0: np.ndarray, y1: np.ndarray, start: int, stop: int) -> bool:
        lib = self.lib
        if lib is None:
            if self.state == COLD:
                self.start(wait=settings.AFTER_STEPS == 0)  # (never long: a hung compiler leaves NumPy's rounds)
                lib = self.lib
            if lib is None:
                return False
        start, stop = int(start), int(stop)  # (split.py's ranges are NumPy integers)
        n, at = stop - start, 4 * start
        k0, k1 = keys
        if self._rechecks.due():  # calls 2, 4, 8, ...: this range's first words re-checked
            stop_at = min(stop, start + _RECHECK_WORDS)
            keys_at = (k0, k1) if np.ndim(k0) == 0 and np.ndim(k1) == 0 else (
                np.ascontiguousarray(np.broadcast_to(k, y0.shape)[start:stop_at], np.uint32) for k in (k0, k1))
            if not self._recheck(*keys_at, y0[start:stop_at], y1[start:stop_at]):
                return False
        if np.ndim(k0) == 0 and np.ndim(k1) == 0:
            lib.pyjax_threefry_scalar_keys(int(k0), int(k1), y0.ctypes.data + at, y1.ctypes.data + at, n)
        else:
            k0, k1 = (np.ascontiguousarray(np.broadcast_to(k, y0.shape)[start:stop], np.uint32) for k in (k0, k1))
            lib.pyjax_threefry(k0.ctypes.data, k1.ctypes.data, y0.ctypes.data + at, y1.ctypes.data + at, n)
        return True

    def prepare(self) -> str | None:
        return None if available() else "native code is off or there is no C compiler"

    def build(self) -> None:
        lib = _build(_HASH_SOURCE, opt="-O3")
        lib.pyjax_threefry_scalar_keys.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_void_p,
                                                   ctypes.c_void_p, ctypes.c_ssize_t]
        lib.pyjax_threefry.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_ssize_t]
        for fn in (lib.pyjax_threefry_scalar_keys, lib.pyjax_threefry):
            fn.restype = None
        if not _same_hashes(lib):
            raise RuntimeError("its hashes differ from the NumPy rounds'")
        self.lib = lib

    def dropped(self) -> None:
        self.lib = None


# Words of a call's range re-checked on calls 2, 4, 8, ... of the kernel.
_RECHECK_WORDS = 64


def _agrees(lib, k0, k1, x0: np.ndarray, x1: np.ndarray) -> bool:
    # One entry point (scalar keys or a key per word) against the NumPy rounds.
    want0, want1 = x0.copy(), x1.copy()
    _hash_in_place(k0, k1, want0, want1, np.empty_like(want0))
    got0, got1 = np.ascontiguousarray(x0, np.uint32).copy(), np.ascontiguousarray(x1, np.uint32).copy()
    if np.ndim(k0) == 0:
        lib.pyjax_threefry_scalar_keys(int(k0), int(k1), got0.ctypes.data, got1.ctypes.data, got0.size)
    else:
        lib.pyjax_threefry(k0.ctypes.data, k1.ctypes.data, got0.ctypes.data, got1.ctypes.data, got0.size)
    return bool(np.array_equal(got0, want0) and np.array_equal(got1, want1))


def _same_hashes(lib, seed: int | None = None) -> bool:
    # Both entry points against the NumPy rounds, on words and keys of every
    # bit pattern the rounds could treat differently (carries, top bits):
    # fixed words (seed 0), then fresh random ones (a kernel wrong only on
    # some words must not pass on the same test words every time).
    for s in (0, seed):
        rng = np.random.default_rng(s)
        words = [rng.integers(0, 2**32, 1031, dtype=np.uint32) for _ in range(4)]
        words[0][:4] = words[1][:4] = [0, 1, 0xFFFFFFFF, 0x80000000]
        for k0, k1 in ((words[2], words[3]), (words[2][7], words[3][9])):
            if not _agrees(lib, k0, k1, words[0], words[1]):
                return False
    return True


native_hash = NativeHash()
