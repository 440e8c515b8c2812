//===- FP8KMajor.cpp - K-major FP8 operands for wgmma and tcgen05 ---------===//
//
// wgmma (sm_90a) and tcgen05 (sm_100a) read 8-bit operands only K-major, so
// an FP8 matmul whose A is M-contiguous (`transpose_lhs`) or whose B is
// N-contiguous (no `transpose_rhs`) would fall back to mma.sync, which Hopper
// emulates. The backward of an FP8 linear layer has exactly those layouts:
// dX = dY · W reads W (out × in) N-contiguous and dW = dYᵀ · X reads both
// operands transposed, because mp-fp8-scaling reuses the forward's
// row-major FP8 copies. This rewrite gives such an operand a transposed
// ("columnwise", as Transformer Engine calls it) FP8 copy and flips the
// transpose flag, so that every operand is K-major:
//   - an operand quantised from a high-precision tensor in the graph,
//     `mp.cast saturate (mp.scale %x by %s)`, is quantised again from the
//     transposed `%x` with the same scale (the copy TE's cast kernel writes
//     next to the rowwise one);
//   - any other FP8 operand is transposed as it is (a byte permutation).
// Both are exact: per-tensor scaling and rounding are elementwise, so the
// copy holds the same values as the transpose of the original, and the
// matmul's result is unchanged. One copy per value serves every matmul.
//
//===----------------------------------------------------------------------===//

#include "TensorCoreKernels.h"

#include "mp/Dialect/MP/IR/MPOps.h"

#include "llvm/ADT/DenseMap.h"

using namespace mlir;
using namespace mlir::mp;

static bool isFP8(Value value) {
  Type element = cast<RankedTensorType>(value.getType()).getElementType();
  return isa<Float8E4M3FNType, Float8E5M2Type>(element);
}

/// The transposed FP8 copy of `value` (last two dimensions swapped), created
/// once per value.
static Value getColumnwiseCopy(OpBuilder &builder, Value value,
                               llvm::DenseMap<Value, Value> &copies) {
  if (Value existing = copies.lookup(value))
    return existing;
  OpBuilder::InsertionGuard guard(builder);
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> permutation(rank);
  for (int64_t i = 0; i < rank; ++i)
    permutation[i] = i;
  std::swap(permutation[rank - 2], permutation[rank - 1]);
  auto transpose = [&](Value input) -> Value {
    return TransposeOp::create(builder, input.getLoc(), input,
                               builder.getDenseI64ArrayAttr(permutation));
  };
  Value copy;
  auto quantise = value.getDefiningOp<CastOp>();
  auto scale = quantise && quantise.getSaturate()
                   ? quantise.getInput().getDefiningOp<ScaleOp>()
                   : ScaleOp();
  if (scale) {
    builder.setInsertionPointAfter(quantise);
    Location loc = quantise.getLoc();
    Value scaled =
        ScaleOp::create(builder, loc, transpose(scale.getInput()),
                        scale.getFactor());
    auto scaledType = cast<RankedTensorType>(scaled.getType());
    copy = CastOp::create(builder, loc,
                          scaledType.clone(type.getElementType()), scaled,
                          /*saturate=*/true);
  } else {
    builder.setInsertionPointAfterValue(value);
    copy = transpose(value);
  }
  copies[value] = copy;
  return copy;
}

void mlir::mp::makeFP8OperandsKMajor(ModuleOp module) {
  OpBuilder builder(module.getContext());
  llvm::DenseMap<Value, Value> copies;
  auto rewrite = [&](auto op) {
    if (!cast<RankedTensorType>(op.getResult().getType()).getNumElements())
      return;
    if (op.getTransposeLhs() && isFP8(op.getLhs())) {
      op.getLhsMutable().set(getColumnwiseCopy(builder, op.getLhs(), copies));
      op.setTransposeLhs(false);
    }
    if (!op.getTransposeRhs() && isFP8(op.getRhs())) {
      op.getRhsMutable().set(getColumnwiseCopy(builder, op.getRhs(), copies));
      op.setTransposeRhs(true);
    }
  };
  module.walk([&](Operation *op) {
    if (auto matmul = dyn_cast<MatmulOp>(op))
      rewrite(matmul);
    else if (auto batchMatmul = dyn_cast<BatchMatmulOp>(op))
      rewrite(batchMatmul);
  });
}
