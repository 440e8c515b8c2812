//===- MPToLinalg.cpp - The convert-mp-to-linalg pass ---------------------===//
//
// Lowers every mp op except mp.grad to linalg, tensor, arith, math and scf on
// tensors, with the rounding of narrow float formats explicit as
// arith.extf/truncf (see docs/Lowering.md). The mp dialect already works on
// builtin tensors, so no type conversion is involved: each pattern replaces
// an op by upstream ops on the same tensor types, and function signatures
// (with their mp.* attributes) stay as they are. The pass assumes mp-autodiff
// has expanded mp.grad; a remaining mp.grad is reported at the op and the IR
// is left unchanged.
//
//===----------------------------------------------------------------------===//

#include "mp/Conversion/MPToLinalg/MPToLinalg.h"

#include "PopulatePatterns.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mp/Conversion/Passes.h"
#include "mp/Dialect/MP/IR/MPOps.h"

namespace mlir::mp {
#define GEN_PASS_DEF_CONVERTMPTOLINALG
#include "mp/Conversion/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

void mp::populateMPToLinalgConversionPatterns(RewritePatternSet &patterns) {
  lowering::populateLinearAlgebraPatterns(patterns);
  lowering::populateElementwisePatterns(patterns);
  lowering::populateReductionPatterns(patterns);
  lowering::populateBatchNormPatterns(patterns);
  lowering::populateShapePatterns(patterns);
  lowering::populatePoolingPatterns(patterns);
  lowering::populateLossPatterns(patterns);
  lowering::populateBackwardPatterns(patterns);
  lowering::populatePrecisionPatterns(patterns);
  lowering::populateTrainingPatterns(patterns);
  lowering::populateRandomPatterns(patterns);
  lowering::populateBlockScaledPatterns(patterns);
}

namespace {
struct ConvertMPToLinalgPass
    : mp::impl::ConvertMPToLinalgBase<ConvertMPToLinalgPass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    bool hasGrad = false;
    root->walk([&](GradOp op) {
      op.emitOpError("cannot be lowered to linalg: run mp-autodiff first to "
                     "expand it into explicit backward ops");
      hasGrad = true;
    });
    if (hasGrad)
      return signalPassFailure();

    ConversionTarget target(getContext());
    target.addIllegalDialect<MPDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    populateMPToLinalgConversionPatterns(patterns);
    if (failed(applyPartialConversion(root, target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
