//===- MPTrainingOps.cpp - Verifiers of MPTrainingOps.td ops --------------===//
//
// Result-type inference and verifiers of nll_loss, nll_loss_grad and
// clip_grad_norm (their ODS is MPTrainingOps.td; the op classes are defined
// with the rest in MPOps.cpp). Inference reports its errors at the location
// it is given so that the custom assembly format names them while parsing.
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/IR/MPOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mlir::mp;

/// Checks `[N, C, d...]` log-probabilities against `[N, d...]` targets
/// (PyTorch's K-dimensional form); reports at `loc` (when given) as
/// "'<opName>' op ...".
static LogicalResult checkInputAndTargets(std::optional<Location> loc,
                                          StringRef opName, Type inputType,
                                          Type targetsType) {
  auto fail = [&](auto &&...args) -> LogicalResult {
    if (loc) {
      InFlightDiagnostic diag = emitError(*loc);
      diag << "'" << opName << "' op ";
      (diag << ... << args);
    }
    return failure();
  };
  auto input = dyn_cast<RankedTensorType>(inputType);
  auto targets = dyn_cast<RankedTensorType>(targetsType);
  if (!input || input.getRank() < 2)
    return fail("expects an input of rank >= 2 ([batch, classes, d...]), "
                "got ",
                inputType);
  SmallVector<int64_t> expected{input.getDimSize(0)};
  llvm::append_range(expected, input.getShape().drop_front(2));
  if (!targets || targets.getShape() != ArrayRef<int64_t>(expected)) {
    std::string shape;
    llvm::raw_string_ostream os(shape);
    os << "[";
    llvm::interleaveComma(expected, os);
    os << "]";
    return fail("expects targets of shape ", shape, ", got ", targetsType);
  }
  return success();
}

/// The per-sample shape `[N, d...]` of an `[N, C, d...]` input.
static SmallVector<int64_t> sampleShape(RankedTensorType input) {
  SmallVector<int64_t> shape{input.getDimSize(0)};
  llvm::append_range(shape, input.getShape().drop_front(2));
  return shape;
}

LogicalResult
NLLLossOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                            Adaptor adaptor,
                            SmallVectorImpl<Type> &inferredReturnTypes) {
  if (failed(checkInputAndTargets(loc, getOperationName(),
                                  adaptor.getInput().getType(),
                                  adaptor.getTargets().getType())))
    return failure();
  auto input = cast<RankedTensorType>(adaptor.getInput().getType());
  SmallVector<int64_t> shape;
  if (adaptor.getReduction() == LossReduction::none)
    shape = sampleShape(input);
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, input.getElementType()));
  return success();
}

LogicalResult NLLLossGradOp::verify() {
  auto result = getResult().getType();
  if (failed(checkInputAndTargets(getLoc(), getOperationName(), result,
                                  getTargets().getType())))
    return failure();
  SmallVector<int64_t> shape;
  if (getReduction() == LossReduction::none)
    shape = sampleShape(result);
  auto expected = RankedTensorType::get(shape, result.getElementType());
  if (getGradOutput().getType() != expected)
    return emitOpError("expects grad_output of type ")
           << expected << " for reduction " << stringifyLossReduction(getReduction())
           << ", got "
           << getGradOutput().getType();
  return success();
}

LogicalResult ClipGradNormOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location>, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  llvm::append_range(inferredReturnTypes, adaptor.getGradients().getTypes());
  inferredReturnTypes.push_back(
      RankedTensorType::get({}, Float32Type::get(context)));
  return success();
}

LogicalResult ClipGradNormOp::verify() {
  if (getGradients().empty())
    return emitOpError("expects at least one gradient");
  double maxNorm = getMaxNorm().convertToDouble();
  if (!std::isfinite(maxNorm) || maxNorm < 0.0)
    return emitOpError("max_norm must be a finite number >= 0, got ")
           << maxNorm;
  return success();
}
