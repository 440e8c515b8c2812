// The accuracy of mp-expand-tanh{exp=true}'s f32 exp over every f32 in
// (-105, 89), against glibc's expf, with glibc's expl (64-bit long double)
// as the exact value: a C transcription of the operations the pattern
// writes (lib/Conversion/MPToLinalg/Tanh.cpp, ExpandExp and
// TanhBuilder::exp: f64 arithmetic, fma, one rounding to f32; no
// contraction of the separate multiplications and additions).
//
//   clang -O2 -ffp-contract=off tools/bench/exp_accuracy.c -lm -o exp_accuracy
//   ./exp_accuracy [STEP]     # every STEP-th bit pattern (default 1: all)
//
// Prints how many inputs each misrounds (error above 0.5 ulp of the
// nearest f32 to the exact value) and the largest error. docs/Lowering.md
// quotes its figures; test/python/exp.py checks the JIT's bits on a sample.
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kDegree = 11 };

static float expandedExp(float xf) {
  double x = (double)xf;
  x = x > -150.0 ? x : -150.0; // NaN: -150, the result replaced below
  x = x < 100.0 ? x : 100.0;
  const double shift = 0x1.8p52;
  double k = (x * 0x1.71547652b82fep+0 + shift) - shift;
  double r = fma(k, -0x1.62e42fefa39efp-1, x);
  r = fma(k, -0x1.abc9e3b39803fp-56, r);
  double taylor[kDegree + 1], factorial = 1.0;
  taylor[0] = 1.0;
  for (int i = 1; i <= kDegree; ++i) {
    factorial *= i;
    taylor[i] = 1.0 / factorial;
  }
  double p = taylor[kDegree];
  for (int i = kDegree - 1; i >= 0; --i)
    p = fma(r, p, taylor[i]);
  uint64_t bits = (uint64_t)((int64_t)k + 1023) << 52;
  double power;
  memcpy(&power, &bits, sizeof power);
  float result = (float)(p * power);
  return xf != xf ? xf + xf : result;
}

/// |y - exact| in ulps of the f32 nearest to `exact`.
static double ulpError(float y, long double exact) {
  float nearest = (float)exact;
  long double ulp = (long double)nextafterf(fabsf(nearest), INFINITY) -
                    fabsf(nearest);
  if (fabsf(nearest) < 0x1p-126f)
    ulp = 0x1p-149L;
  if (isinf(nearest))
    return isinf(y) ? 0.0 : INFINITY;
  return (double)(fabsl((long double)y - exact) / ulp);
}

int main(int argc, char **argv) {
  uint64_t step = argc > 1 ? strtoull(argv[1], 0, 10) : 1;
  uint64_t count = 0, differ = 0, oursWrong = 0, glibcWrong = 0;
  double oursMax = 0, glibcMax = 0;
  float oursWorst = 0, glibcWorst = 0;
  for (uint64_t pattern = 0; pattern < (1ull << 32); pattern += step) {
    uint32_t bits = (uint32_t)pattern;
    float x;
    memcpy(&x, &bits, sizeof x);
    if (!(x > -105.0f && x < 89.0f))
      continue;
    ++count;
    float ours = expandedExp(x), glibc = expf(x);
    long double exact = expl((long double)x);
    double oursError = ulpError(ours, exact);
    double glibcError = ours == glibc ? oursError : ulpError(glibc, exact);
    differ += ours != glibc;
    oursWrong += oursError > 0.5;
    glibcWrong += glibcError > 0.5;
    if (oursError > oursMax)
      oursMax = oursError, oursWorst = x;
    if (glibcError > glibcMax)
      glibcMax = glibcError, glibcWorst = x;
  }
  printf("inputs %llu, differing %llu\n", (unsigned long long)count,
         (unsigned long long)differ);
  printf("expanded exp: %llu misrounded, at most %.6f ulp (at %a)\n",
         (unsigned long long)oursWrong, oursMax, oursWorst);
  printf("glibc expf:   %llu misrounded, at most %.6f ulp (at %a)\n",
         (unsigned long long)glibcWrong, glibcMax, glibcWorst);
  return 0;
}
