// What the host's AVX512_BF16 `vdpbf16ps` computes, bit for bit, against
// candidate scalar definitions: the evidence for (or against) lowering the
// CPU path's bf16 x bf16 -> f32 contractions to it (docs/performance.md,
// "vdpbf16ps: what it computes"). mp's definition of such a contraction is
// today's: each product rounded to f32 (exact unless it leaves f32's normal
// range), added to the accumulator with one rounding, in ascending K.
//
//   clang-22 -O2 -mavx512bf16 -ffp-contract=off \
//     tools/bench/bf16_dot_semantics.c -lm -o bf16_dot_semantics
//   ./bf16_dot_semantics [ITERATIONS]   # 16 lanes each (default 1000000)
//
// For each of three input distributions (every bit pattern: NaN, inf and
// denormals included; tiny exponents, where products and sums underflow;
// exponents near 1, where every product is exact in f32) it prints how many
// lanes each candidate reproduces:
//   ftz-fma:  ftz(fma(daz a0, daz b0, ftz(fma(daz a1, daz b1, daz acc))))
//   mul-add:  (acc + a1*b1) + a0*b0, each operation rounded (no FTZ/DAZ)
//   mul-add even first: (acc + a0*b0) + a1*b1
// where a0/b0 are the even bf16 of a lane's pair and a1/b1 the odd one.
// NaNs count as equal whatever their payload. On an AMD Zen 5 (2026-12-03)
// ftz-fma matched every lane of all three; mul-add odd first matched every
// lane where products are exact, i.e. the instruction adds the odd product
// first, then the even one.
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static float fromBits(uint32_t u) {
  float f;
  memcpy(&f, &u, sizeof f);
  return f;
}

static uint32_t toBits(float f) {
  uint32_t u;
  memcpy(&u, &f, sizeof u);
  return u;
}

static float fromBF16(uint16_t h) { return fromBits((uint32_t)h << 16); }

/// Denormals are zero (inputs) and flushed to zero (results) alike.
static float flushDenormal(float x) {
  return fpclassify(x) == FP_SUBNORMAL ? copysignf(0.0f, x) : x;
}

static uint32_t random32(void) {
  return ((uint32_t)rand() << 16) ^ (uint32_t)rand();
}

enum Distribution { kEveryPattern, kTinyExponents, kExponentsNearOne };

static const char *const kDistributionNames[] = {
    "every bit pattern", "tiny exponents (underflow)",
    "exponents near 1 (exact products)"};

/// A bf16 bit pattern of the distribution.
static uint16_t randomBF16(enum Distribution distribution) {
  uint32_t r = random32();
  if (distribution == kEveryPattern)
    return (uint16_t)r;
  uint16_t base = distribution == kTinyExponents ? 0x0000 : 0x3800;
  return (uint16_t)(((r % 0x0300) + base) | (((r >> 20) & 1) << 15));
}

/// An f32 accumulator of the distribution.
static float randomF32(enum Distribution distribution) {
  uint32_t r = random32();
  if (distribution == kEveryPattern)
    return fromBits(r);
  uint32_t base = distribution == kTinyExponents ? 0 : 0x38000000;
  return fromBits(((r % 0x03000000) + base) | (random32() & 0x80000000u));
}

static int sameValue(float a, float b) {
  return toBits(a) == toBits(b) || (isnan(a) && isnan(b));
}

int main(int argc, char **argv) {
  long iterations = argc > 1 ? atol(argv[1]) : 1000000;
  srand(2);
  for (int d = kEveryPattern; d <= kExponentsNearOne; ++d) {
    long lanes = 0, ftzFma = 0, mulAdd = 0, mulAddEvenFirst = 0;
    for (long it = 0; it < iterations; ++it) {
      uint16_t a[32], b[32];
      float acc[16], out[16];
      for (int i = 0; i < 32; ++i) {
        a[i] = randomBF16(d);
        b[i] = randomBF16(d);
      }
      for (int i = 0; i < 16; ++i)
        acc[i] = randomF32(d);
      __m512bh va, vb;
      memcpy(&va, a, sizeof va);
      memcpy(&vb, b, sizeof vb);
      _mm512_storeu_ps(out, _mm512_dpbf16_ps(_mm512_loadu_ps(acc), va, vb));
      for (int i = 0; i < 16; ++i, ++lanes) {
        float a0 = fromBF16(a[2 * i]), b0 = fromBF16(b[2 * i]);
        float a1 = fromBF16(a[2 * i + 1]), b1 = fromBF16(b[2 * i + 1]);
        float odd = flushDenormal(fmaf(flushDenormal(a1), flushDenormal(b1),
                                       flushDenormal(acc[i])));
        float candidate = flushDenormal(
            fmaf(flushDenormal(a0), flushDenormal(b0), odd));
        ftzFma += sameValue(out[i], candidate);
        mulAdd += sameValue(out[i], (acc[i] + a1 * b1) + a0 * b0);
        mulAddEvenFirst += sameValue(out[i], (acc[i] + a0 * b0) + a1 * b1);
      }
    }
    printf("%-34s lanes %ld: ftz-fma %ld, mul-add %ld, mul-add even first "
           "%ld\n",
           kDistributionNames[d], lanes, ftzFma, mulAdd, mulAddEvenFirst);
  }
  return 0;
}
