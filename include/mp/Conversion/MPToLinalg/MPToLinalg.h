//===- MPToLinalg.h - Lowering of mp to linalg on tensors -------*- C++ -*-===//
//
// Patterns of `convert-mp-to-linalg` (every mp op except mp.grad to linalg,
// tensor, arith, math and scf on tensors) and of `mp-expand-fp8-conversions`
// (bit-exact FP8 arith.extf/truncf as integer arithmetic) and of
// `mp-expand-tanh` (f32 tanh as arithmetic), for embedders
// that compose their own conversions.
//
//===----------------------------------------------------------------------===//

#ifndef MP_CONVERSION_MPTOLINALG_MPTOLINALG_H
#define MP_CONVERSION_MPTOLINALG_MPTOLINALG_H

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::mp {

/// Adds the conversion patterns of every mp op except mp.grad to `patterns`.
/// They create linalg, tensor, arith, math and scf ops; use them with a
/// ConversionTarget that makes the mp dialect illegal.
void populateMPToLinalgConversionPatterns(RewritePatternSet &patterns);

/// Adds patterns rewriting `arith.truncf` to and `arith.extf` from
/// f8E4M3FN/f8E5M2 (scalars or vectors) into integer arithmetic with the exact
/// IEEE-style rounding of the target: round to nearest even, subnormals,
/// NaN kept, overflow to NaN (E4M3FN) or infinity (E5M2).
void populateExpandFP8ConversionPatterns(RewritePatternSet &patterns);

/// Adds the pattern of `mp-expand-tanh`: f32 `math.tanh` (scalar or vector)
/// as correctly rounded arithmetic (an odd polynomial below 0.875,
/// 1 − 2/(e^(2a) + 1) above), the same bits on the CPU and the GPU, at most
/// 1.03 ulp from the exact tanh.
void populateExpandTanhPatterns(RewritePatternSet &patterns);

/// Adds the pattern of `mp-expand-tanh{exp=true}`: f32 `math.exp` (scalar or
/// vector, no fast-math flags) as the exponential of the tanh expansion
/// evaluated in f64 and rounded once to f32 (correctly rounded but for 2 of
/// the f32 inputs, within 0.500001 ulp: more accurate than glibc's expf),
/// vector code where the operand is a vector.
void populateExpandExpPatterns(RewritePatternSet &patterns);

} // namespace mlir::mp

#endif // MP_CONVERSION_MPTOLINALG_MPTOLINALG_H
