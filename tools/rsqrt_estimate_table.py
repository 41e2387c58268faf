"""Dumps this CPU's float32 ``rsqrtss`` estimates as the table xla_math.py reads.

XLA's CPU ``rsqrt`` (float32) starts from the hardware estimate of
``1 / sqrt(x)`` (the SSE/AVX ``rsqrtss``/``rsqrtps`` instructions) and refines
it with one Newton-Raphson step, so its last bit depends on the estimate.
The estimate is not specified by the ISA (only its error bound, 1.5 * 2**-12):
each CPU family has its own. This script compiles a small C probe (gcc, x86-64
with AVX), reads the estimate for every float32 in [1, 4) and checks that
on this CPU it is a function of the exponent's parity and the 12 leading
mantissa bits alone, scaled by the exponent: for every positive normal x
(all 2**31 - 2**24 of them, about 3 seconds),

    estimate(x * 4**k) == estimate(x) * 2**-k.

Then it prints the 8192 entries (their 12-bit mantissas, exponent fixed) as
the compressed blob ``xla_math._RSQRT_ESTIMATE`` holds.

Run from the repository root on the machine whose JAX the goldens came from:

    python tools/rsqrt_estimate_table.py

(The recorded table is an AMD EPYC's (Zen 4) ``rsqrtps``; an Intel CPU gives
a different table, and JAX's own float32 rsqrt bits differ there as well.)
"""

from __future__ import annotations

import base64
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

import numpy as np

PROBE = r"""
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static uint32_t estimate(uint32_t w) {
  float x, e;
  memcpy(&x, &w, 4);
  e = _mm_cvtss_f32(_mm_rsqrt_ss(_mm_set_ss(x)));
  uint32_t out;
  memcpy(&out, &e, 4);
  return out;
}

int main(void) {
  static uint32_t table[8192];
  /* Index: exponent parity (x in [1, 2) or [2, 4)), then 12 mantissa bits. */
  for (uint32_t i = 0; i < 8192; i++) table[i] = estimate(0x3f800000u + (i << 11));
  /* 8-wide rsqrtps must agree with scalar rsqrtss (XLA uses both). */
  for (uint32_t i = 0; i < 8192; i += 8) {
    float in[8], out[8];
    for (int j = 0; j < 8; j++) { uint32_t w = 0x3f800000u + ((i + j) << 11); memcpy(&in[j], &w, 4); }
    _mm256_storeu_ps(out, _mm256_rsqrt_ps(_mm256_loadu_ps(in)));
    for (int j = 0; j < 8; j++) {
      uint32_t o; memcpy(&o, &out[j], 4);
      if (o != table[i + j]) { printf("MISMATCH rsqrtps %08x\n", 0x3f800000u + ((i + j) << 11)); return 1; }
    }
  }
  uint64_t bad = 0;
  for (uint32_t w = 0x00800000u; w < 0x7f800000u; w++) {
    int e = (int)(w >> 23) - 127, parity = e & 1;
    uint32_t predicted = table[((uint32_t)parity << 12) | ((w >> 11) & 0xfffu)] - ((uint32_t)((e - parity) / 2) << 23);
    if (estimate(w) != predicted) bad++;
  }
  if (bad) { printf("MISMATCH %llu inputs\n", (unsigned long long)bad); return 1; }
  for (int i = 0; i < 8192; i++) printf("%08x\n", table[i]);
  return 0;
}
"""


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        source, binary = Path(tmp) / "probe.c", Path(tmp) / "probe"
        source.write_text(PROBE)
        subprocess.run(["gcc", "-O2", "-mavx", str(source), "-o", str(binary)], check=True)
        result = subprocess.run([str(binary)], capture_output=True, text=True)
    if result.returncode:
        print(result.stdout, file=sys.stderr)
        print("the estimate is not a table of 12 mantissa bits on this CPU", file=sys.stderr)
        return 1
    words = np.array([int(line, 16) for line in result.stdout.split()], np.uint32)
    assert words.size == 8192 and ((words >> 23) == 126).all() and not (words & 0x7FF).any()
    mantissas = (words >> 11) & 0xFFF
    # Descending, in steps of 0, 1 or 2: the first value, then the steps, as bytes.
    steps = np.concatenate([[mantissas[0] >> 4, mantissas[0] & 15], -np.diff(mantissas.astype(np.int64))])
    print(base64.b64encode(zlib.compress(steps.astype(np.uint8).tobytes(), 9)).decode())
    return 0


if __name__ == "__main__":
    sys.exit(main())
