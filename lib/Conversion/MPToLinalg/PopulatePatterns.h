//===- PopulatePatterns.h - Op families of convert-mp-to-linalg -*- C++ -*-===//
//
// Internal to lib/Conversion/MPToLinalg: one populate function per op family,
// each defined in the file of that name (torch-mlir's TorchToLinalg layout).
//
//===----------------------------------------------------------------------===//

#ifndef MP_LIB_CONVERSION_MPTOLINALG_POPULATEPATTERNS_H
#define MP_LIB_CONVERSION_MPTOLINALG_POPULATEPATTERNS_H

#include "mlir/IR/PatternMatch.h"

namespace mlir::mp::lowering {

/// matmul, batch_matmul, linear, conv2d and the convolution gradients.
void populateLinearAlgebraPatterns(RewritePatternSet &patterns);
/// Unary and binary elementwise ops, gelu, select, compare, the activations
/// (clamp, silu, hardswish, ...) and the elementwise gradients (relu_grad,
/// gelu_grad, clamp_grad, ...).
void populateElementwisePatterns(RewritePatternSet &patterns);
/// reduce_*, softmax, log_softmax, layer_norm, rms_norm.
void populateReductionPatterns(RewritePatternSet &patterns);
/// batch_norm and batch_norm_grad.
void populateBatchNormPatterns(RewritePatternSet &patterns);
/// transpose, reshape, broadcast, concat, slice, embedding, stop_gradient and
/// the gradients slice_grad and embedding_grad.
void populateShapePatterns(RewritePatternSet &patterns);
/// max_pool2d, avg_pool2d, adaptive_avg_pool2d and their gradients.
void populatePoolingPatterns(RewritePatternSet &patterns);
/// cross_entropy and mse.
void populateLossPatterns(RewritePatternSet &patterns);
/// The remaining explicit backward ops: maximum/minimum_grad,
/// reduce_max_grad, softmax/log_softmax_grad, layer/rms_norm_grad,
/// cross_entropy_grad.
void populateBackwardPatterns(RewritePatternSet &patterns);
/// cast and scale.
void populatePrecisionPatterns(RewritePatternSet &patterns);
/// sgd, adam, adamw, update_loss_scale, all_finite, amax, amax_history_push,
/// fp8_scale.
void populateTrainingPatterns(RewritePatternSet &patterns);
/// dropout, dropout_grad, random_uniform, random_normal, random_bits
/// (Philox4x32-10 per element).
void populateRandomPatterns(RewritePatternSet &patterns);
/// mp.stochastic_cast, mp.block_quantize, mp.block_dequantize and
/// mp.scaled_matmul (BlockScaled.cpp).
void populateBlockScaledPatterns(RewritePatternSet &patterns);

} // namespace mlir::mp::lowering

#endif // MP_LIB_CONVERSION_MPTOLINALG_POPULATEPATTERNS_H
