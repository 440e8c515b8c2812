// The register tiles of mp-tile-and-vectorize's contraction kernels as C
// intrinsics, timed by CPU time on panels in L1: what a tile shape can do on
// this host (docs/performance.md, "Zen 4: folded broadcasts"). Products and
// sums stay separate (no FMA), as in the generated code.
//
//   clang -O2 -march=native -ffp-contract=off tools/bench/register_tiles.c \
//       -o /tmp/register_tiles && /tmp/register_tiles
//
// Needs AVX-512 F (and AVX512_BF16 for the bf16 rows). Prints GFLOP/s per
// loop; asserts nothing.
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define K 256 /* K steps of each tile call */

static double cpuSeconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

/// 12 independent chains of zmm products and 12 of sums, no loads: the
/// vector pipes' bound.
static double chains(long n) {
  __m512 m[12], a[12], b = _mm512_set1_ps(1.0000001f), c = _mm512_set1_ps(1e-8f);
  for (int i = 0; i < 12; i++)
    m[i] = a[i] = _mm512_set1_ps(i);
  double t = cpuSeconds();
  for (long k = 0; k < n; k++) {
    for (int i = 0; i < 12; i++) {
      m[i] = _mm512_mul_ps(m[i], b);
      a[i] = _mm512_add_ps(a[i], c);
    }
    __asm__ volatile("" ::"v"(m[0]), "v"(a[0]));
  }
  t = cpuSeconds() - t;
  float sink = 0;
  for (int i = 0; i < 12; i++)
    sink += _mm512_reduce_add_ps(m[i]) + _mm512_reduce_add_ps(a[i]);
  if (sink == 1)
    puts("");
  return n * 12.0 * 32 / t * 1e-9;
}

/// 8 x 32: per K step 8 broadcasts (each feeding two products), 2 B loads.
__attribute__((noinline)) static void tile8x32(const float *a, const float *b,
                                               float *c) {
  __m512 acc[16];
  for (int i = 0; i < 16; i++)
    acc[i] = _mm512_setzero_ps();
  for (int k = 0; k < K; k++) {
    __m512 b0 = _mm512_loadu_ps(b + k * 32), b1 = _mm512_loadu_ps(b + k * 32 + 16);
#pragma clang loop unroll(full)
    for (int r = 0; r < 8; r++) {
      __m512 x = _mm512_set1_ps(a[r * K + k]);
      acc[2 * r] = _mm512_add_ps(acc[2 * r], _mm512_mul_ps(x, b0));
      acc[2 * r + 1] = _mm512_add_ps(acc[2 * r + 1], _mm512_mul_ps(x, b1));
    }
  }
  for (int i = 0; i < 16; i++)
    _mm512_storeu_ps(c + 16 * i, acc[i]);
}

/// 16 x 16: per K step 16 broadcasts, each feeding one product (folded into
/// vmulps m32{1to16}), 1 B load; A rows `stride` floats apart.
__attribute__((noinline)) static void tile16x16(const float *a, long stride,
                                                const float *b, float *c) {
  __m512 acc[16];
  for (int i = 0; i < 16; i++)
    acc[i] = _mm512_setzero_ps();
  for (int k = 0; k < K; k++) {
    __m512 b0 = _mm512_loadu_ps(b + k * 16);
#pragma clang loop unroll(full)
    for (int r = 0; r < 16; r++)
      acc[r] = _mm512_add_ps(acc[r],
                             _mm512_mul_ps(_mm512_set1_ps(a[r * stride + k]), b0));
  }
  for (int i = 0; i < 16; i++)
    _mm512_storeu_ps(c + 16 * i, acc[i]);
}

#ifdef __AVX512BF16__
/// bf16 8 x 32 as mp-bf16-dot-products' kernel: per K pair 8 rotated
/// broadcast pairs (vprold m32{1to16}), 2 B loads, 16 vdpbf16ps.
__attribute__((noinline)) static void dot8x32(const int *a, const int *b,
                                              float *c) {
  __m512 acc[16];
  for (int i = 0; i < 16; i++)
    acc[i] = _mm512_setzero_ps();
  for (int p = 0; p < K / 2; p++) {
    __m512bh b0 = (__m512bh)_mm512_loadu_si512(b + p * 32);
    __m512bh b1 = (__m512bh)_mm512_loadu_si512(b + p * 32 + 16);
#pragma clang loop unroll(full)
    for (int r = 0; r < 8; r++) {
      __m512bh x = (__m512bh)_mm512_rol_epi32(_mm512_set1_epi32(a[r * K + p]), 16);
      acc[2 * r] = _mm512_dpbf16_ps(acc[2 * r], x, b0);
      acc[2 * r + 1] = _mm512_dpbf16_ps(acc[2 * r + 1], x, b1);
    }
  }
  for (int i = 0; i < 16; i++)
    _mm512_storeu_ps(c + 16 * i, acc[i]);
}

/// bf16 16 x 16: one broadcast pair per row and K pair, 1 B load.
__attribute__((noinline)) static void dot16x16(const int *a, const int *b,
                                               float *c) {
  __m512 acc[16];
  for (int i = 0; i < 16; i++)
    acc[i] = _mm512_setzero_ps();
  for (int p = 0; p < K / 2; p++) {
    __m512bh b0 = (__m512bh)_mm512_loadu_si512(b + p * 16);
#pragma clang loop unroll(full)
    for (int r = 0; r < 16; r++)
      acc[r] = _mm512_dpbf16_ps(acc[r], (__m512bh)_mm512_set1_epi32(a[r * K + p]), b0);
  }
  for (int i = 0; i < 16; i++)
    _mm512_storeu_ps(c + 16 * i, acc[i]);
}
#endif

int main(void) {
  long calls = 200000;
  float *a = aligned_alloc(64, 16L * 1024 * 4), *b = aligned_alloc(64, K * 64 * 4),
        *c = aligned_alloc(64, 64 * 64 * 4);
  for (long i = 0; i < 16L * 1024; i++)
    a[i] = 1e-3f * (i % 13);
  for (int i = 0; i < K * 64; i++)
    b[i] = 1e-3f * (i % 7);
  double t, flops;
  printf("no loads: 12 zmm mul + 12 zmm add chains: %.1f GFLOP/s\n",
         chains(100000000L));
  t = cpuSeconds();
  for (long i = 0; i < calls; i++)
    tile8x32(a, b, c);
  flops = 2.0 * 8 * 32 * K * calls;
  printf("8 x 32, vbroadcastss feeding two products: %.1f GFLOP/s\n",
         flops / (cpuSeconds() - t) * 1e-9);
  t = cpuSeconds();
  for (long i = 0; i < calls; i++)
    tile16x16(a, K, b, c);
  flops = 2.0 * 16 * 16 * K * calls;
  printf("16 x 16, folded broadcasts, A rows %d floats apart: %.1f GFLOP/s\n", K,
         flops / (cpuSeconds() - t) * 1e-9);
  t = cpuSeconds();
  for (long i = 0; i < calls / 4; i++)
    tile16x16(a, 1024, b, c);
  printf("16 x 16, folded broadcasts, A rows 4 KiB apart: %.1f GFLOP/s\n",
         flops / 4 / (cpuSeconds() - t) * 1e-9);
#ifdef __AVX512BF16__
  int *wa = (int *)a, *wb = (int *)b;
  for (long i = 0; i < 16L * 1024; i++)
    wa[i] = 0x3f803f80;
  for (int i = 0; i < K * 32; i++)
    wb[i] = 0x3f803f80;
  t = cpuSeconds();
  for (long i = 0; i < calls; i++)
    dot8x32(wa, wb, c);
  printf("bf16 8 x 32, vprold + vdpbf16ps: %.1f GFLOP/s\n",
         2.0 * 8 * 32 * K * calls / (cpuSeconds() - t) * 1e-9);
  t = cpuSeconds();
  for (long i = 0; i < calls; i++)
    dot16x16(wa, wb, c);
  printf("bf16 16 x 16, vdpbf16ps: %.1f GFLOP/s\n",
         2.0 * 16 * 16 * K * calls / (cpuSeconds() - t) * 1e-9);
#endif
  return 0;
}
