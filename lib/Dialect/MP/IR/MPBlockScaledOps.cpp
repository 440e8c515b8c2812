//===- MPBlockScaledOps.cpp - Verifiers of MPBlockScaledOps.td ops --------===//
//
// Verifiers of block_quantize, block_dequantize and scaled_matmul (their ODS
// is MPBlockScaledOps.td; the op classes are defined with the rest in
// MPOps.cpp): the block-shape rule (block = data shape / scales shape, 1-D
// blocks of 16, 32 or 128 elements or square 2-D tiles over the last two
// dimensions), the pairing of E4M3 scales with a tensor-level scale, and
// the contraction rules of the block-scaled matmul.
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/IR/MPOps.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::mp;

namespace {
/// Prints a shape as `[2, 3]` in diagnostics.
struct Shape {
  ArrayRef<int64_t> dims;
};
Diagnostic &operator<<(Diagnostic &diag, const Shape &s) {
  diag << "[";
  llvm::interleave(
      s.dims, [&](int64_t d) { diag << d; }, [&] { diag << ", "; });
  return diag << "]";
}
} // namespace

static bool isBlockLength(int64_t length) {
  return length == 16 || length == 32 || length == 128;
}

/// `data` / `scales`, elementwise (the shapes are verified).
static SmallVector<int64_t> divideShapes(ArrayRef<int64_t> data,
                                         ArrayRef<int64_t> scales) {
  SmallVector<int64_t> block;
  for (auto [d, s] : llvm::zip_equal(data, scales))
    block.push_back(s == 0 ? 0 : d / s);
  return block;
}

LogicalResult BlockDequantizeOp::verifyBlockShape(Operation *op,
                                                  ArrayRef<int64_t> data,
                                                  ArrayRef<int64_t> scales,
                                                  StringRef dataName,
                                                  StringRef scalesName) {
  if (data.empty())
    return op->emitOpError("expects ") << dataName << " of rank >= 1";
  if (scales.size() != data.size())
    return op->emitOpError("expects ")
           << scalesName << " of rank " << data.size() << " (the rank of "
           << dataName << "), got rank " << scales.size();
  for (auto [k, d, s] : llvm::enumerate(data, scales)) {
    if (s < 1 || d % s != 0)
      return op->emitOpError()
             << dataName << " dimension " << k << " (" << d
             << ") is not a multiple of " << scalesName << " dimension " << k
             << " (" << s << ")";
  }
  SmallVector<int64_t> block = divideShapes(data, scales);
  SmallVector<int64_t> blocked;
  for (auto [k, b] : llvm::enumerate(block))
    if (b > 1)
      blocked.push_back(k);
  int64_t rank = data.size();
  if (blocked.empty())
    return op->emitOpError("expects blocks of 16, 32 or 128 elements, got "
                           "block ")
           << Shape{block} << " (" << scalesName << " of " << dataName
           << "'s shape)";
  if (blocked.size() == 1) {
    int64_t b = block[blocked[0]];
    if (!isBlockLength(b))
      return op->emitOpError("expects a block length of 16, 32 or 128, got ")
             << b << " along dimension " << blocked[0] << " (block "
             << Shape{block} << ")";
    return success();
  }
  if (blocked.size() > 2 || blocked[0] != rank - 2 || blocked[1] != rank - 1)
    return op->emitOpError("expects blocks along one dimension or 2-D tiles "
                           "over the last two dimensions, got block ")
           << Shape{block};
  int64_t rows = block[rank - 2], cols = block[rank - 1];
  if (rows != cols || !isBlockLength(rows))
    return op->emitOpError("expects 2-D tiles of 16x16, 32x32 or 128x128, "
                           "got ")
           << rows << "x" << cols;
  return success();
}

/// Checks that a tensor-level scale is given exactly for E4M3 scales.
static LogicalResult verifyGlobalScale(Operation *op, Type scaleElem,
                                       bool hasGlobal) {
  bool e4m3 = isa<Float8E4M3FNType>(scaleElem);
  if (e4m3 && !hasGlobal)
    return op->emitOpError("f8E4M3FN scales need a 'global' tensor-level "
                           "f32 scale");
  if (!e4m3 && hasGlobal)
    return op->emitOpError("'global' is only for f8E4M3FN scales, got scales "
                           "of ")
           << scaleElem;
  return success();
}

LogicalResult BlockQuantizeOp::verify() {
  ArrayRef<int64_t> input = getInput().getType().getShape();
  ArrayRef<int64_t> data = getData().getType().getShape();
  if (data != input)
    return emitOpError("expects data of the input's shape ")
           << Shape{input} << ", got " << Shape{data};
  if (Value bits = getRandomBits()) {
    ArrayRef<int64_t> shape = cast<RankedTensorType>(bits.getType()).getShape();
    if (shape != input)
      return emitOpError("expects random bits of the input's shape ")
             << Shape{input} << ", got " << Shape{shape};
  }
  if (failed(BlockDequantizeOp::verifyBlockShape(
          *this, input, getScales().getType().getShape(), "input", "scales")))
    return failure();
  Type scaleElem = getScales().getType().getElementType();
  double eps = getAmaxEpsilon().convertToDouble();
  if (!std::isfinite(eps) || eps < 0.0)
    return emitOpError("amax_epsilon must be finite and >= 0, got ") << eps;
  if (!scaleElem.isF32() && (eps != 0.0 || getUnroundedScales()))
    return emitOpError("amax_epsilon and unrounded_scales apply to f32 "
                       "scales only, got scales of ")
           << scaleElem;
  return verifyGlobalScale(*this, scaleElem,
                           static_cast<bool>(getGlobalScale()));
}

SmallVector<int64_t> BlockQuantizeOp::getBlockShape() {
  return divideShapes(getInput().getType().getShape(),
                      getScales().getType().getShape());
}

LogicalResult BlockDequantizeOp::verify() {
  ArrayRef<int64_t> data = getData().getType().getShape();
  ArrayRef<int64_t> result = getResult().getType().getShape();
  if (result != data)
    return emitOpError("expects a result of the data's shape ")
           << Shape{data} << ", got " << Shape{result};
  if (failed(verifyBlockShape(*this, data, getScales().getType().getShape(),
                              "data", "scales")))
    return failure();
  return verifyGlobalScale(*this, getScales().getType().getElementType(),
                           static_cast<bool>(getGlobalScale()));
}

SmallVector<int64_t> BlockDequantizeOp::getBlockShape() {
  return divideShapes(getData().getType().getShape(),
                      getScales().getType().getShape());
}

LogicalResult ScaledMatmulOp::verify() {
  auto lhs = getLhs().getType(), rhs = getRhs().getType();
  auto lhsScales = getLhsScales().getType(), rhsScales = getRhsScales().getType();
  auto result = getResult().getType();
  for (auto [name, type] :
       {std::pair<StringRef, RankedTensorType>{"lhs", lhs},
        {"lhs_scales", lhsScales},
        {"rhs", rhs},
        {"rhs_scales", rhsScales},
        {"result", result}})
    if (type.getRank() != 2)
      return emitOpError("expects ")
             << name << " of rank 2, got " << type;
  if (!getAccType().isF32())
    return emitOpError("expects acc(f32), got acc(") << getAccType() << ")";
  if (lhsScales.getElementType() != rhsScales.getElementType())
    return emitOpError("expects lhs_scales and rhs_scales of one element "
                       "type, got ")
           << lhsScales.getElementType() << " and "
           << rhsScales.getElementType();
  // The dimension of each operand that is contracted.
  int64_t lhsK = getTransposeLhs() ? 0 : 1, rhsK = getTransposeRhs() ? 1 : 0;
  int64_t m = lhs.getDimSize(1 - lhsK), n = rhs.getDimSize(1 - rhsK);
  if (lhs.getDimSize(lhsK) != rhs.getDimSize(rhsK))
    return emitOpError("expects the contraction dimensions to agree, got K = ")
           << lhs.getDimSize(lhsK) << " (lhs) and " << rhs.getDimSize(rhsK)
           << " (rhs)";
  if (result.getShape() != ArrayRef<int64_t>{m, n})
    return emitOpError("expects a result of shape ")
           << Shape{{m, n}} << ", got " << Shape{result.getShape()};
  if (failed(BlockDequantizeOp::verifyBlockShape(*this, lhs.getShape(),
                                                 lhsScales.getShape(), "lhs",
                                                 "lhs_scales")) ||
      failed(BlockDequantizeOp::verifyBlockShape(*this, rhs.getShape(),
                                                 rhsScales.getShape(), "rhs",
                                                 "rhs_scales")))
    return failure();
  SmallVector<int64_t> lhsBlock =
      divideShapes(lhs.getShape(), lhsScales.getShape());
  SmallVector<int64_t> rhsBlock =
      divideShapes(rhs.getShape(), rhsScales.getShape());
  if (lhsBlock[lhsK] == 1)
    return emitOpError("expects lhs blocks along the contraction dimension "
                       "(dimension ")
           << lhsK << "), got block " << Shape{lhsBlock};
  if (rhsBlock[rhsK] == 1)
    return emitOpError("expects rhs blocks along the contraction dimension "
                       "(dimension ")
           << rhsK << "), got block " << Shape{rhsBlock};
  if (lhsBlock[lhsK] != rhsBlock[rhsK])
    return emitOpError("expects one block length along K for both operands, "
                       "got ")
           << lhsBlock[lhsK] << " (lhs) and " << rhsBlock[rhsK] << " (rhs)";
  return success();
}
