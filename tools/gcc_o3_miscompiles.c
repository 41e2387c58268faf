/* Two wrong-code bugs of GCC 12.2 at -O3 in C that pyjax's native tier
   generated (docs/performance.md, "Short native sources vectorised").

       cc -O3 -march=native tools/gcc_o3_miscompiles.c -o /tmp/m && /tmp/m

   prints each wrong element and exits 1 when a bug shows; with
   `-O2 -fvect-cost-model=dynamic` (what short sources are built with) it
   exits 0. Try it before building native sources at -O3 again. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1: a select over a 4x8 block (bool condition, 4-byte values) becomes
   masked loads that use row 0's mask for all four rows (AVX2, AVX-512). */
__attribute__((noinline)) static void select_rows(char *s) {
    for (intptr_t i = 0; i < 4; i++)
        for (intptr_t j = 0; j < 8; j++)
            *(int32_t *)(s + 1024 + i * 32 + j * 4) = *(unsigned char *)(s + 960 + i * 8 + j)
                ? *(int32_t *)(s + 704 + i * 32 + j * 4) : *(int32_t *)(s + 576 + i * 32 + j * 4);
}

/* 2: float64 -> float32 -> float64, then a copy of columns 3-7 (and 0-2 of
   another input) in a loop of one step: row 3's first two copies are the
   float64 inputs, their float32 rounding dropped (also plain -O3). */
__attribute__((noinline)) static void round_trip(char **a, char *s) {
    char *cur[1] = {s + 1152};
    memcpy(cur[0], a[1], 256);
    for (int64_t t = 0; t < 1; t++) {
        for (intptr_t i = 0; i < 4; i++)
            for (intptr_t j = 0; j < 8; j++) {
                const double e = *(double *)(cur[0] + i * 64 + j * 8);
                *(float *)(s + i * 32 + j * 4) = (float)e;
            }
        for (intptr_t i = 0; i < 4; i++)
            for (intptr_t j = 0; j < 8; j++) {
                const float e = *(float *)(s + i * 32 + j * 4);
                *(double *)(s + 128 + i * 64 + j * 8) = (double)e;
            }
        for (intptr_t i = 0; i < 4; i++)
            for (intptr_t j = 0; j < 5; j++) {
                const double e = *(double *)(s + 152 + i * 64 + j * 8);
                *(double *)(s + 384 + i * 64 + j * 8) = e;
            }
        for (intptr_t i = 0; i < 4; i++)
            for (intptr_t j = 0; j < 3; j++) {
                const double e = *(double *)(a[0] + i * 64 + j * 8);
                *(double *)(s + 424 + i * 64 + j * 8) = e;
            }
    }
}

int main(void) {
    int bad = 0;
    char *s = aligned_alloc(64, 4096);
    memset(s, 0, 4096);
    for (int i = 0; i < 32; i++) {
        ((int32_t *)(s + 704))[i] = 1000 + i;
        ((int32_t *)(s + 576))[i] = -i;
        s[960 + i] = i % 3 == 0;
    }
    select_rows(s);
    for (int i = 0; i < 32; i++) {
        int32_t want = s[960 + i] ? 1000 + i : -i, got = ((int32_t *)(s + 1024))[i];
        if (got != want) bad++, printf("select element %d: %d, not %d\n", i, got, want);
    }
    double *b = aligned_alloc(64, 256), *c = aligned_alloc(64, 256);
    for (int i = 0; i < 32; i++) c[i] = 1.0 + i / 3.0 + 1e-9 * i, b[i] = -i;
    char *a[2] = {(char *)b, (char *)c};
    memset(s, 0, 4096);
    round_trip(a, s);
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++) {
            double want = j < 5 ? (double)(float)c[i * 8 + 3 + j] : b[i * 8 + j - 5];
            double got = ((double *)(s + 384))[i * 8 + j];
            if (memcmp(&want, &got, 8)) bad++, printf("round trip [%d][%d]: %.17g, not %.17g\n", i, j, got, want);
        }
    return bad != 0;
}
