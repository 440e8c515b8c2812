//===- MPOps.cpp - Operations of the mp dialect ---------------------------===//
//
// Verifiers, result-type inference, folders and canonicalisation patterns of
// the `mp` operations. Every rule of an op is checked here with a message that
// names the offending operand, attribute or dimension; inference functions
// check the same rules so that the custom assembly format reports them while
// parsing.
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/IR/MPOps.h"

#include "mlir/Dialect/Traits.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::mp;

//===----------------------------------------------------------------------===//
// Diagnostics shared by verifiers and type inference
//===----------------------------------------------------------------------===//

namespace {
/// Reports errors the way `Operation::emitOpError` does ("'mp.x' op ..."),
/// both from verifiers (which have an op) and from type inference (which has
/// an optional location and the op name). Without a location it stays silent.
class Reporter {
public:
  explicit Reporter(Operation *op)
      : loc(op->getLoc()), opName(op->getName().getStringRef()) {}
  Reporter(std::optional<Location> loc, StringRef opName)
      : loc(loc), opName(opName) {}

  template <typename... Args>
  LogicalResult fail(const Args &...args) const {
    if (loc) {
      InFlightDiagnostic diag = mlir::emitError(*loc);
      diag << "'" << opName << "' op ";
      (diag << ... << args);
    }
    return failure();
  }

private:
  std::optional<Location> loc;
  StringRef opName;
};

/// Prints a shape as `[2, 3]` in diagnostics.
struct ShapeStr {
  ArrayRef<int64_t> shape;
};
Diagnostic &operator<<(Diagnostic &diag, const ShapeStr &s) {
  diag << "[";
  llvm::interleave(
      s.shape, [&](int64_t d) { diag << d; }, [&] { diag << ", "; });
  return diag << "]";
}
InFlightDiagnostic &operator<<(InFlightDiagnostic &diag, const ShapeStr &s) {
  if (Diagnostic *d = diag.getUnderlyingDiagnostic())
    *d << s;
  return diag;
}
} // namespace

/// Returns the statically shaped tensor type of `value`, or reports that
/// `what` must be one.
static FailureOr<RankedTensorType> getStaticTensor(const Reporter &reporter,
                                                   Value value,
                                                   StringRef what) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape())
    return reporter.fail(what, " must be a statically shaped tensor, got ",
                         value.getType());
  return type;
}

/// Infers the type of an op whose result has the element type of its
/// statically shaped `input` and the shape `inferShape` computes from the
/// input's type.
static LogicalResult inferFromInput(
    const Reporter &reporter, Value input,
    function_ref<FailureOr<SmallVector<int64_t>>(RankedTensorType)> inferShape,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  FailureOr<RankedTensorType> type = getStaticTensor(reporter, input, "input");
  if (failed(type))
    return failure();
  FailureOr<SmallVector<int64_t>> shape = inferShape(*type);
  if (failed(shape))
    return failure();
  inferredReturnTypes.push_back(
      RankedTensorType::get(*shape, type->getElementType()));
  return success();
}

/// Checks that `dim` indexes a dimension of a rank-`rank` tensor.
static LogicalResult checkDim(const Reporter &reporter, int64_t dim,
                              int64_t rank, StringRef what) {
  if (dim < 0 || dim >= rank)
    return reporter.fail(what, " ", dim, " is out of range for rank ", rank);
  return success();
}

/// True for the two 8-bit float formats.
static bool isFP8(Type type) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(type);
}

/// Checks that the operands of a matmul-like op agree on their element type
/// (any pairing of FP8 formats is allowed) and that `accType` suits them and
/// the result element type.
static LogicalResult checkContractionTypes(const Reporter &reporter,
                                           Type lhsElem, Type rhsElem,
                                           Type accType, Type resultElem) {
  bool bothFP8 = isFP8(lhsElem) && isFP8(rhsElem);
  if (lhsElem != rhsElem && !bothFP8)
    return reporter.fail("expects operands of one element type, got ", lhsElem,
                         " and ", rhsElem);
  if (lhsElem.isInteger(8)) {
    if (!accType.isInteger(32) || !resultElem.isInteger(32))
      return reporter.fail(
          "int8 operands require acc(i32) and an i32 result, got acc(",
          accType, ") and ", resultElem);
    return success();
  }
  if (resultElem.isInteger(32))
    return reporter.fail("an i32 result requires int8 operands, got ",
                         lhsElem);
  if (!accType.isF32() && !(accType.isF16() && lhsElem.isF16()))
    return reporter.fail("acc_type must be f32 (or f16 for f16 operands), got ",
                         accType, " for ", lhsElem, " operands");
  return success();
}

/// Checks a shape computed from the operands against the declared result.
static LogicalResult checkResultShape(const Reporter &reporter,
                                      ArrayRef<int64_t> expected,
                                      RankedTensorType result,
                                      StringRef what = "result") {
  if (result.getShape() != expected)
    return reporter.fail("expects ", what, " shape ", ShapeStr{expected},
                         ", got ", ShapeStr{result.getShape()});
  return success();
}

/// Checks that `result` has the element type of `source`, the operand whose
/// elements the op moves.
static LogicalResult checkResultElementType(const Reporter &reporter,
                                            ShapedType source,
                                            ShapedType result) {
  if (result.getElementType() != source.getElementType())
    return reporter.fail("expects the result element type ",
                         source.getElementType(), ", got ",
                         result.getElementType());
  return success();
}

/// Checks that a hyper-parameter is finite and at least `min`.
static LogicalResult checkAtLeast(const Reporter &reporter, StringRef name,
                                  double value, double min) {
  if (!std::isfinite(value) || value < min)
    return reporter.fail(name, " must be a finite number >= ", min, ", got ",
                         value);
  return success();
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

/// Shared verifier of matmul and batch_matmul: `minRank`/`maxRank` bound the
/// operand rank.
template <typename OpTy>
static LogicalResult verifyMatmulLike(OpTy op, int64_t minRank,
                                      int64_t maxRank) {
  Reporter reporter(op);
  auto lhs = cast<RankedTensorType>(op.getLhs().getType());
  auto rhs = cast<RankedTensorType>(op.getRhs().getType());
  auto result = cast<RankedTensorType>(op.getResult().getType());
  for (auto [name, type] : {std::pair<StringRef, RankedTensorType>{"lhs", lhs},
                            {"rhs", rhs}}) {
    if (type.getRank() < minRank || type.getRank() > maxRank) {
      if (minRank == maxRank)
        return reporter.fail("expects ", name, " of rank ", minRank,
                             ", got rank ", type.getRank());
      return reporter.fail("expects ", name, " of rank at least ", minRank,
                           ", got rank ", type.getRank());
    }
  }
  if (lhs.getRank() != rhs.getRank())
    return reporter.fail("expects operands of equal rank, got ",
                         lhs.getRank(), " and ", rhs.getRank());
  if (failed(checkContractionTypes(reporter, lhs.getElementType(),
                                   rhs.getElementType(), op.getAccType(),
                                   result.getElementType())))
    return failure();
  if (op.getCompute() == ComputeMode::tf32 && !lhs.getElementType().isF32())
    return reporter.fail("compute mode tf32 requires f32 operands, got ",
                         lhs.getElementType());

  int64_t rank = lhs.getRank();
  ArrayRef<int64_t> batchLhs = lhs.getShape().drop_back(2);
  ArrayRef<int64_t> batchRhs = rhs.getShape().drop_back(2);
  if (batchLhs != batchRhs)
    return reporter.fail("expects equal batch dimensions, got ",
                         ShapeStr{batchLhs}, " and ", ShapeStr{batchRhs});
  int64_t m = lhs.getDimSize(rank - (op.getTransposeLhs() ? 1 : 2));
  int64_t kLhs = lhs.getDimSize(rank - (op.getTransposeLhs() ? 2 : 1));
  int64_t kRhs = rhs.getDimSize(rank - (op.getTransposeRhs() ? 1 : 2));
  int64_t n = rhs.getDimSize(rank - (op.getTransposeRhs() ? 2 : 1));
  if (kLhs != kRhs)
    return reporter.fail("contraction dimensions differ: lhs has ", kLhs,
                         ", rhs has ", kRhs);
  SmallVector<int64_t> expected(batchLhs);
  expected.append({m, n});
  return checkResultShape(reporter, expected, result);
}

LogicalResult MatmulOp::verify() { return verifyMatmulLike(*this, 2, 2); }

LogicalResult BatchMatmulOp::verify() {
  return verifyMatmulLike(*this, 3, std::numeric_limits<int64_t>::max());
}

LogicalResult LinearOp::verify() {
  Reporter reporter(*this);
  auto input = cast<RankedTensorType>(getInput().getType());
  auto weight = cast<RankedTensorType>(getWeight().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  if (input.getRank() < 1)
    return reporter.fail("expects an input of rank at least 1");
  if (weight.getRank() != 2)
    return reporter.fail("expects a weight of rank 2, got rank ",
                         weight.getRank());
  if (failed(checkContractionTypes(reporter, input.getElementType(),
                                   weight.getElementType(), getAccType(),
                                   result.getElementType())))
    return failure();
  int64_t inFeatures = input.getShape().back();
  if (weight.getDimSize(1) != inFeatures)
    return reporter.fail("expects weight of shape [out, ", inFeatures,
                         "], got ", ShapeStr{weight.getShape()});
  int64_t outFeatures = weight.getDimSize(0);
  if (Value bias = getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getRank() != 1 || biasType.getDimSize(0) != outFeatures)
      return reporter.fail("expects bias of shape [", outFeatures, "], got ",
                           ShapeStr{biasType.getShape()});
    if (biasType.getElementType() != result.getElementType())
      return reporter.fail("expects bias of the result element type ",
                           result.getElementType(), ", got ",
                           biasType.getElementType());
  }
  SmallVector<int64_t> expected(input.getShape().drop_back());
  expected.push_back(outFeatures);
  return checkResultShape(reporter, expected, result);
}

/// Checks the convolution attributes and computes the NCHW output shape of a
/// convolution of `input` by `filter`.
static FailureOr<SmallVector<int64_t>>
inferConvShape(const Reporter &reporter, ArrayRef<int64_t> input,
               ArrayRef<int64_t> filter, ArrayRef<int64_t> strides,
               ArrayRef<int64_t> padding, ArrayRef<int64_t> dilation,
               int64_t groups) {
  if (input.size() != 4)
    return reporter.fail("expects an NCHW input of rank 4, got rank ",
                         input.size());
  if (filter.size() != 4)
    return reporter.fail("expects a filter of rank 4, got rank ",
                         filter.size());
  for (auto [name, values] : {std::pair<StringRef, ArrayRef<int64_t>>{
                                  "strides", strides},
                              {"padding", padding},
                              {"dilation", dilation}}) {
    if (values.size() != 2)
      return reporter.fail("expects 2 ", name, " values, got ", values.size());
    int64_t min = name == "padding" ? 0 : 1;
    if (values[0] < min || values[1] < min)
      return reporter.fail("expects ", name, " >= ", min, ", got ",
                           ShapeStr{values});
  }
  if (groups < 1)
    return reporter.fail("expects groups >= 1, got ", groups);
  int64_t channels = input[1], filters = filter[0];
  if (channels % groups != 0 || filters % groups != 0)
    return reporter.fail("expects input channels (", channels,
                         ") and filters (", filters, ") divisible by groups (",
                         groups, ")");
  if (filter[1] != channels / groups)
    return reporter.fail("expects filter dimension 1 to be channels / groups = ",
                         channels / groups, ", got ", filter[1]);
  SmallVector<int64_t> output{input[0], filters};
  for (int i = 0; i < 2; ++i) {
    int64_t extent = input[2 + i] + 2 * padding[i] -
                     dilation[i] * (filter[2 + i] - 1) - 1;
    if (extent < 0)
      return reporter.fail("expects the dilated filter (",
                           dilation[i] * (filter[2 + i] - 1) + 1,
                           ") to fit the padded input (",
                           input[2 + i] + 2 * padding[i], ") in dimension ",
                           2 + i);
    output.push_back(extent / strides[i] + 1);
  }
  return output;
}

/// Checks the element types of the two operands `lhs` and `rhs` that a
/// convolution op contracts (`checkContractionTypes`) and its attributes, and
/// returns the NCHW output shape of the convolution of `input` by `filter`.
template <typename OpTy>
static FailureOr<SmallVector<int64_t>>
checkConvolution(const Reporter &reporter, OpTy op, RankedTensorType lhs,
                 RankedTensorType rhs, ArrayRef<int64_t> input,
                 ArrayRef<int64_t> filter) {
  auto result = cast<RankedTensorType>(op.getResult().getType());
  if (failed(checkContractionTypes(reporter, lhs.getElementType(),
                                   rhs.getElementType(), op.getAccType(),
                                   result.getElementType())))
    return failure();
  return inferConvShape(reporter, input, filter, op.getStrides(),
                        op.getPadding(), op.getDilation(), op.getGroups());
}

LogicalResult Conv2DOp::verify() {
  Reporter reporter(*this);
  auto input = cast<RankedTensorType>(getInput().getType());
  auto filter = cast<RankedTensorType>(getFilter().getType());
  auto result = cast<RankedTensorType>(getResult().getType());
  FailureOr<SmallVector<int64_t>> shape = checkConvolution(
      reporter, *this, input, filter, input.getShape(), filter.getShape());
  if (failed(shape))
    return failure();
  if (Value bias = getBias()) {
    auto biasType = cast<RankedTensorType>(bias.getType());
    if (biasType.getRank() != 1 || biasType.getDimSize(0) != filter.getDimSize(0))
      return reporter.fail("expects bias of shape [", filter.getDimSize(0),
                           "], got ", ShapeStr{biasType.getShape()});
    if (biasType.getElementType() != result.getElementType())
      return reporter.fail("expects bias of the result element type ",
                           result.getElementType(), ", got ",
                           biasType.getElementType());
  }
  return checkResultShape(reporter, *shape, result);
}

/// Shared verifier of conv2d_grad_input and conv2d_grad_filter: grad_output
/// contracts with `operand` (the filter or the input), and has the shape of
/// the forward convolution of `input` by `filter`, one of which is the result.
template <typename OpTy>
static LogicalResult verifyConvGrad(OpTy op, RankedTensorType operand,
                                    RankedTensorType input,
                                    RankedTensorType filter) {
  Reporter reporter(op);
  auto gradOutput = cast<RankedTensorType>(op.getGradOutput().getType());
  FailureOr<SmallVector<int64_t>> shape = checkConvolution(
      reporter, op, gradOutput, operand, input.getShape(), filter.getShape());
  if (failed(shape))
    return failure();
  return checkResultShape(reporter, *shape, gradOutput, "grad_output");
}

LogicalResult Conv2DGradInputOp::verify() {
  auto filter = cast<RankedTensorType>(getFilter().getType());
  return verifyConvGrad(*this, filter,
                        cast<RankedTensorType>(getResult().getType()), filter);
}

LogicalResult Conv2DGradFilterOp::verify() {
  auto input = cast<RankedTensorType>(getInput().getType());
  return verifyConvGrad(*this, input, input,
                        cast<RankedTensorType>(getResult().getType()));
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

/// Computes the broadcast result type of two operands of one element type.
static FailureOr<RankedTensorType> inferBroadcast(const Reporter &reporter,
                                                  Value lhs, Value rhs) {
  FailureOr<RankedTensorType> lhsType = getStaticTensor(reporter, lhs, "lhs");
  if (failed(lhsType))
    return failure();
  FailureOr<RankedTensorType> rhsType = getStaticTensor(reporter, rhs, "rhs");
  if (failed(rhsType))
    return failure();
  if (lhsType->getElementType() != rhsType->getElementType())
    return reporter.fail("expects operands of one element type, got ",
                         lhsType->getElementType(), " and ",
                         rhsType->getElementType());
  SmallVector<int64_t> shape;
  if (!OpTrait::util::getBroadcastedShape(lhsType->getShape(),
                                          rhsType->getShape(), shape))
    return reporter.fail("operand shapes ", ShapeStr{lhsType->getShape()},
                         " and ", ShapeStr{rhsType->getShape()},
                         " do not broadcast");
  return RankedTensorType::get(shape, lhsType->getElementType());
}

template <typename OpTy>
static LogicalResult
inferBinary(std::optional<Location> loc, typename OpTy::Adaptor adaptor,
            SmallVectorImpl<Type> &inferredReturnTypes) {
  FailureOr<RankedTensorType> type =
      inferBroadcast(Reporter(loc, OpTy::getOperationName()), adaptor.getLhs(),
                     adaptor.getRhs());
  if (failed(type))
    return failure();
  inferredReturnTypes.push_back(*type);
  return success();
}

/// Defines `OP::inferReturnTypes` as the shared inference `INFER<OP>`.
#define MP_INFER_RETURN_TYPES(OP, INFER)                                       \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *, std::optional<Location> loc, Adaptor adaptor,             \
      SmallVectorImpl<Type> &types) {                                          \
    return INFER<OP>(loc, adaptor, types);                                     \
  }
MP_INFER_RETURN_TYPES(AddOp, inferBinary)
MP_INFER_RETURN_TYPES(SubOp, inferBinary)
MP_INFER_RETURN_TYPES(MulOp, inferBinary)
MP_INFER_RETURN_TYPES(DivOp, inferBinary)
MP_INFER_RETURN_TYPES(PowOp, inferBinary)
MP_INFER_RETURN_TYPES(MaximumOp, inferBinary)
MP_INFER_RETURN_TYPES(MinimumOp, inferBinary)

template <typename OpTy>
static LogicalResult
inferMinMaxGrad(std::optional<Location> loc, typename OpTy::Adaptor adaptor,
                SmallVectorImpl<Type> &inferredReturnTypes) {
  Reporter reporter(loc, OpTy::getOperationName());
  FailureOr<RankedTensorType> gradOutput =
      getStaticTensor(reporter, adaptor.getGradOutput(), "grad_output");
  if (failed(gradOutput))
    return failure();
  FailureOr<RankedTensorType> broadcast =
      inferBroadcast(reporter, adaptor.getLhs(), adaptor.getRhs());
  if (failed(broadcast))
    return failure();
  if (*broadcast != *gradOutput)
    return reporter.fail("expects grad_output of the broadcast type ",
                         *broadcast, ", got ", *gradOutput);
  inferredReturnTypes.append(2, *gradOutput);
  return success();
}

MP_INFER_RETURN_TYPES(MaximumGradOp, inferMinMaxGrad)
MP_INFER_RETURN_TYPES(MinimumGradOp, inferMinMaxGrad)

//===----------------------------------------------------------------------===//
// Reductions and normalisation
//===----------------------------------------------------------------------===//

/// Computes the shape of `input` reduced over `dims`.
static FailureOr<SmallVector<int64_t>>
inferReducedShape(const Reporter &reporter, RankedTensorType input,
                  ArrayRef<int64_t> dims, bool keepdims) {
  llvm::SmallSet<int64_t, 4> seen;
  for (int64_t dim : dims) {
    if (failed(checkDim(reporter, dim, input.getRank(), "reduction dimension")))
      return failure();
    if (!seen.insert(dim).second)
      return reporter.fail("reduction dimension ", dim, " is repeated");
  }
  SmallVector<int64_t> shape;
  for (auto [i, size] : llvm::enumerate(input.getShape())) {
    if (!seen.contains(i))
      shape.push_back(size);
    else if (keepdims)
      shape.push_back(1);
  }
  return shape;
}

template <typename OpTy>
static LogicalResult
inferReduce(std::optional<Location> loc, typename OpTy::Adaptor adaptor,
            SmallVectorImpl<Type> &inferredReturnTypes) {
  Reporter reporter(loc, OpTy::getOperationName());
  return inferFromInput(
      reporter, adaptor.getInput(),
      [&](RankedTensorType input) {
        return inferReducedShape(reporter, input, adaptor.getDims(),
                                 adaptor.getKeepdims());
      },
      inferredReturnTypes);
}

MP_INFER_RETURN_TYPES(ReduceSumOp, inferReduce)
MP_INFER_RETURN_TYPES(ReduceMeanOp, inferReduce)
MP_INFER_RETURN_TYPES(ReduceMaxOp, inferReduce)

LogicalResult ReduceMaxGradOp::verify() {
  Reporter reporter(*this);
  auto input = cast<RankedTensorType>(getInput().getType());
  auto output = cast<RankedTensorType>(getOutput().getType());
  if (output.getElementType() != input.getElementType())
    return reporter.fail("expects output of the input element type ",
                         input.getElementType(), ", got ",
                         output.getElementType());
  FailureOr<SmallVector<int64_t>> shape =
      inferReducedShape(reporter, input, getDims(), getKeepdims());
  if (failed(shape))
    return failure();
  return checkResultShape(reporter, *shape, output, "output");
}

LogicalResult SoftmaxOp::verify() {
  return checkDim(Reporter(*this), getDim(),
                  getInput().getType().getRank(), "dim");
}

LogicalResult LogSoftmaxOp::verify() {
  return checkDim(Reporter(*this), getDim(),
                  getInput().getType().getRank(), "dim");
}

LogicalResult SoftmaxGradOp::verify() {
  return checkDim(Reporter(*this), getDim(),
                  getOutput().getType().getRank(), "dim");
}

LogicalResult LogSoftmaxGradOp::verify() {
  return checkDim(Reporter(*this), getDim(),
                  getOutput().getType().getRank(), "dim");
}

/// Checks the `axis` and `eps` of a normalisation and returns the type of its
/// weight (the normalised trailing shape, in the input's element type).
static FailureOr<RankedTensorType>
checkNormalization(const Reporter &reporter, RankedTensorType input,
                   int64_t axis, double eps) {
  if (input.getRank() == 0)
    return reporter.fail("expects an input of rank at least 1");
  if (failed(checkDim(reporter, axis, input.getRank(), "axis")))
    return failure();
  if (failed(checkAtLeast(reporter, "eps", eps, 0.0)))
    return failure();
  return RankedTensorType::get(input.getShape().drop_front(axis),
                               input.getElementType());
}

/// Checks that an optional `value` (weight or bias) has `expected` type.
static LogicalResult checkOptionalOperand(const Reporter &reporter, Value value,
                                          RankedTensorType expected,
                                          StringRef what) {
  if (value && value.getType() != expected)
    return reporter.fail("expects ", what, " of type ", expected,
                         " (the normalised shape), got ", value.getType());
  return success();
}

/// Verifies a normalisation op: its axis and eps, and that each of `params`
/// (weight, bias or their gradients; null when absent) has the normalised
/// type.
static LogicalResult
verifyNormalization(Operation *op, RankedTensorType input, int64_t axis,
                    const APFloat &eps,
                    ArrayRef<std::pair<Value, StringRef>> params) {
  Reporter reporter(op);
  FailureOr<RankedTensorType> paramType =
      checkNormalization(reporter, input, axis, eps.convertToDouble());
  if (failed(paramType))
    return failure();
  for (auto [value, what] : params)
    if (failed(checkOptionalOperand(reporter, value, *paramType, what)))
      return failure();
  return success();
}

LogicalResult LayerNormOp::verify() {
  return verifyNormalization(*this, getInput().getType(), getAxis(), getEps(),
                             {{getWeight(), "weight"}, {getBias(), "bias"}});
}

LogicalResult RMSNormOp::verify() {
  return verifyNormalization(*this, getInput().getType(), getAxis(), getEps(),
                             {{getWeight(), "weight"}});
}

LogicalResult LayerNormGradOp::verify() {
  return verifyNormalization(*this, getInput().getType(), getAxis(), getEps(),
                             {{getWeight(), "weight"},
                              {getWeightGrad(), "weight_grad"},
                              {getBiasGrad(), "bias_grad"}});
}

LogicalResult RMSNormGradOp::verify() {
  return verifyNormalization(*this, getInput().getType(), getAxis(), getEps(),
                             {{getWeight(), "weight"},
                              {getWeightGrad(), "weight_grad"}});
}

/// Checks the operands shared by batch_norm and batch_norm_grad: an input of
/// rank 2 or 4 with C = dim 1, an optional `[C]` weight of the input's
/// element type or f32, `[C]` f32 running statistics and a non-negative
/// eps. Returns C.
static FailureOr<int64_t>
checkBatchNorm(const Reporter &reporter, RankedTensorType input,
               ArrayRef<std::pair<Value, StringRef>> params, Value runningMean,
               Value runningVar, BatchNormMode mode, double eps) {
  if (input.getRank() != 2 && input.getRank() != 4)
    return reporter.fail("expects an input of rank 2 ([N, C]) or 4 "
                         "([N, C, H, W]), got rank ",
                         input.getRank());
  int64_t channels = input.getDimSize(1);
  Type f32 = Float32Type::get(input.getContext());
  for (auto [value, what] : params) {
    if (!value)
      continue;
    auto type = cast<RankedTensorType>(value.getType());
    if (type.getShape() != ArrayRef<int64_t>{channels} ||
        (type.getElementType() != input.getElementType() &&
         type.getElementType() != f32))
      return reporter.fail("expects ", what, " of shape [", channels,
                           "] and element type ", input.getElementType(),
                           " or f32, got ", value.getType());
  }
  auto statType = RankedTensorType::get({channels}, f32);
  for (auto [value, what] :
       {std::pair<Value, StringRef>{runningMean, "running_mean"},
        {runningVar, "running_var"}})
    if (value.getType() != statType)
      return reporter.fail("expects ", what, " of type ", statType,
                           " (one f32 statistic per channel), got ",
                           value.getType());
  if (failed(checkAtLeast(reporter, "eps", eps, 0.0)))
    return failure();
  int64_t perChannel = input.getNumElements() / std::max<int64_t>(channels, 1);
  if (mode == BatchNormMode::training && perChannel <= 1)
    return reporter.fail("expects more than 1 value per channel in training "
                         "mode, got input shape ",
                         ShapeStr{input.getShape()});
  return channels;
}

/// The output has the input's type, the new statistics their operands'.
LogicalResult
BatchNormOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                              Adaptor adaptor,
                              SmallVectorImpl<Type> &inferredReturnTypes) {
  inferredReturnTypes.append({adaptor.getInput().getType(),
                              adaptor.getRunningMean().getType(),
                              adaptor.getRunningVar().getType(),
                              adaptor.getNumBatchesTracked().getType()});
  return success();
}

LogicalResult BatchNormOp::verify() {
  Reporter reporter(*this);
  if (failed(checkBatchNorm(reporter, getInput().getType(),
                            {{getWeight(), "weight"}, {getBias(), "bias"}},
                            getRunningMean(), getRunningVar(), getMode(),
                            getEps().convertToDouble())))
    return failure();
  double momentum = getMomentum().convertToDouble();
  if (!(momentum >= 0.0 && momentum <= 1.0))
    return reporter.fail("momentum must be in [0, 1], got ", momentum);
  if (getCumulativeAverage() && momentum != 0.1)
    return reporter.fail("cumulative_average (PyTorch's momentum=None) "
                         "replaces momentum; got momentum ",
                         momentum);
  return success();
}

LogicalResult BatchNormGradOp::verify() {
  Reporter reporter(*this);
  return checkBatchNorm(reporter, getInput().getType(),
                        {{getWeight(), "weight"},
                         {getWeightGrad(), "weight_grad"},
                         {getBiasGrad(), "bias_grad"}},
                        getRunningMean(), getRunningVar(), getMode(),
                        getEps().convertToDouble());
}

//===----------------------------------------------------------------------===//
// Shape
//===----------------------------------------------------------------------===//

LogicalResult
TransposeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                              Adaptor adaptor,
                              SmallVectorImpl<Type> &inferredReturnTypes) {
  Reporter reporter(loc, getOperationName());
  ArrayRef<int64_t> permutation = adaptor.getPermutation();
  auto inferShape =
      [&](RankedTensorType input) -> FailureOr<SmallVector<int64_t>> {
    if (static_cast<int64_t>(permutation.size()) != input.getRank())
      return reporter.fail("expects a permutation of ", input.getRank(),
                           " dimensions, got ", permutation.size());
    SmallVector<bool> seen(permutation.size(), false);
    SmallVector<int64_t> shape;
    for (int64_t dim : permutation) {
      if (dim < 0 || dim >= input.getRank() || seen[dim])
        return reporter.fail("permutation ", ShapeStr{permutation},
                             " is not a permutation of [0, ", input.getRank(),
                             ")");
      seen[dim] = true;
      shape.push_back(input.getDimSize(dim));
    }
    return shape;
  };
  return inferFromInput(reporter, adaptor.getInput(), inferShape,
                        inferredReturnTypes);
}

LogicalResult ReshapeOp::verify() {
  Reporter reporter(*this);
  auto input = getInput().getType();
  auto result = getResult().getType();
  if (failed(checkResultElementType(reporter, input, result)))
    return failure();
  if (input.getNumElements() != result.getNumElements())
    return reporter.fail("cannot reshape ", input.getNumElements(),
                         " elements into ", result.getNumElements());
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  // reshape(reshape(x)) reads x's elements in the same row-major order.
  if (auto inner = getInput().getDefiningOp<ReshapeOp>()) {
    getInputMutable().assign(inner.getInput());
    return getResult();
  }
  return {};
}

LogicalResult BroadcastOp::verify() {
  Reporter reporter(*this);
  auto input = getInput().getType();
  auto result = getResult().getType();
  if (failed(checkResultElementType(reporter, input, result)))
    return failure();
  SmallVector<int64_t> shape;
  if (input.getRank() > result.getRank() ||
      !OpTrait::util::getBroadcastedShape(input.getShape(), result.getShape(),
                                          shape) ||
      ArrayRef<int64_t>(shape) != result.getShape())
    return reporter.fail("cannot broadcast shape ",
                         ShapeStr{input.getShape()}, " to ",
                         ShapeStr{result.getShape()});
  return success();
}

OpFoldResult BroadcastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  return {};
}

LogicalResult
ConcatOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                           Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  Reporter reporter(loc, getOperationName());
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return reporter.fail("expects at least one input");
  FailureOr<RankedTensorType> first =
      getStaticTensor(reporter, inputs.front(), "input 0");
  if (failed(first))
    return failure();
  int64_t dim = adaptor.getDim();
  if (failed(checkDim(reporter, dim, first->getRank(), "dim")))
    return failure();
  SmallVector<int64_t> shape(first->getShape());
  for (auto [i, value] : llvm::enumerate(inputs.drop_front())) {
    std::string what = "input " + std::to_string(i + 1);
    FailureOr<RankedTensorType> type = getStaticTensor(reporter, value, what);
    if (failed(type))
      return failure();
    if (type->getElementType() != first->getElementType())
      return reporter.fail("expects inputs of one element type, got ",
                           first->getElementType(), " and ",
                           type->getElementType());
    if (type->getRank() != first->getRank())
      return reporter.fail("expects inputs of one rank, got ",
                           first->getRank(), " and ", type->getRank());
    for (int64_t d = 0; d < first->getRank(); ++d) {
      if (d == dim)
        continue;
      if (type->getDimSize(d) != first->getDimSize(d))
        return reporter.fail("expects inputs to agree outside dim ", dim,
                             ", got ", ShapeStr{first->getShape()}, " and ",
                             ShapeStr{type->getShape()});
    }
    shape[dim] += type->getDimSize(dim);
  }
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, first->getElementType()));
  return success();
}

/// Checks a strided box against `source` and returns the box's shape.
static FailureOr<SmallVector<int64_t>>
checkSliceBox(const Reporter &reporter, ArrayRef<int64_t> source,
              ArrayRef<int64_t> offsets, ArrayRef<int64_t> sizes,
              ArrayRef<int64_t> strides) {
  size_t rank = source.size();
  if (offsets.size() != rank || sizes.size() != rank || strides.size() != rank)
    return reporter.fail("expects ", rank,
                         " offsets, sizes and strides, got ", offsets.size(),
                         ", ", sizes.size(), " and ", strides.size());
  for (size_t d = 0; d < rank; ++d) {
    if (offsets[d] < 0 || sizes[d] < 0 || strides[d] < 1)
      return reporter.fail("expects offsets >= 0, sizes >= 0 and strides >= "
                           "1, got offset ",
                           offsets[d], ", size ", sizes[d], ", stride ",
                           strides[d], " in dimension ", d);
    if (sizes[d] > 0 && offsets[d] + (sizes[d] - 1) * strides[d] >= source[d])
      return reporter.fail("slice in dimension ", d, " (offset ", offsets[d],
                           ", size ", sizes[d], ", stride ", strides[d],
                           ") exceeds the size ", source[d]);
  }
  return SmallVector<int64_t>(sizes);
}

LogicalResult
SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                          Adaptor adaptor,
                          SmallVectorImpl<Type> &inferredReturnTypes) {
  Reporter reporter(loc, getOperationName());
  return inferFromInput(
      reporter, adaptor.getInput(),
      [&](RankedTensorType input) {
        return checkSliceBox(reporter, input.getShape(), adaptor.getOffsets(),
                             adaptor.getSizes(), adaptor.getStrides());
      },
      inferredReturnTypes);
}

LogicalResult SliceGradOp::verify() {
  Reporter reporter(*this);
  auto gradOutput = getGradOutput().getType();
  auto result = getResult().getType();
  if (failed(checkResultElementType(reporter, gradOutput, result)))
    return failure();
  FailureOr<SmallVector<int64_t>> shape =
      checkSliceBox(reporter, result.getShape(), getOffsets(), getSizes(),
                    getStrides());
  if (failed(shape))
    return failure();
  return checkResultShape(reporter, *shape, gradOutput, "grad_output");
}

LogicalResult
EmbeddingOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                              Adaptor adaptor,
                              SmallVectorImpl<Type> &inferredReturnTypes) {
  Reporter reporter(loc, getOperationName());
  FailureOr<RankedTensorType> table =
      getStaticTensor(reporter, adaptor.getTable(), "table");
  if (failed(table))
    return failure();
  FailureOr<RankedTensorType> indices =
      getStaticTensor(reporter, adaptor.getIndices(), "indices");
  if (failed(indices))
    return failure();
  if (table->getRank() != 2)
    return reporter.fail("expects a table of rank 2, got rank ",
                         table->getRank());
  SmallVector<int64_t> shape(indices->getShape());
  shape.push_back(table->getDimSize(1));
  inferredReturnTypes.push_back(
      RankedTensorType::get(shape, table->getElementType()));
  return success();
}

LogicalResult EmbeddingGradOp::verify() {
  Reporter reporter(*this);
  auto gradOutput = getGradOutput().getType();
  auto indices = getIndices().getType();
  auto result = getResult().getType();
  if (result.getRank() != 2)
    return reporter.fail("expects a result table of rank 2, got rank ",
                         result.getRank());
  if (failed(checkResultElementType(reporter, gradOutput, result)))
    return failure();
  SmallVector<int64_t> expected(indices.getShape());
  expected.push_back(result.getDimSize(1));
  return checkResultShape(reporter, expected, gradOutput, "grad_output");
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

/// Checks `[N, C, d...]` logits against `[N, d...]` labels (PyTorch's
/// K-dimensional form; `[N, C]` and `[N]` without `d`).
static LogicalResult checkLogitsAndLabels(const Reporter &reporter,
                                          RankedTensorType logits,
                                          RankedTensorType labels) {
  if (logits.getRank() < 2)
    return reporter.fail("expects logits of rank >= 2 ([batch, classes, "
                         "d...]), got rank ",
                         logits.getRank());
  SmallVector<int64_t> expected{logits.getDimSize(0)};
  llvm::append_range(expected, logits.getShape().drop_front(2));
  if (labels.getShape() != ArrayRef<int64_t>(expected))
    return reporter.fail("expects labels of shape ", ShapeStr{expected},
                         ", got ", ShapeStr{labels.getShape()});
  return success();
}

LogicalResult
CrossEntropyOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                 Adaptor adaptor,
                                 SmallVectorImpl<Type> &inferredReturnTypes) {
  Reporter reporter(loc, getOperationName());
  FailureOr<RankedTensorType> logits =
      getStaticTensor(reporter, adaptor.getLogits(), "logits");
  if (failed(logits))
    return failure();
  FailureOr<RankedTensorType> labels =
      getStaticTensor(reporter, adaptor.getLabels(), "labels");
  if (failed(labels) || failed(checkLogitsAndLabels(reporter, *logits, *labels)))
    return failure();
  inferredReturnTypes.push_back(
      RankedTensorType::get({}, logits->getElementType()));
  return success();
}

/// Checks that `label_smoothing` lies in [0, 1], as PyTorch requires.
static LogicalResult checkLabelSmoothing(const Reporter &reporter,
                                         double smoothing) {
  if (!(smoothing >= 0.0 && smoothing <= 1.0))
    return reporter.fail("label_smoothing must be in [0, 1], got ", smoothing);
  return success();
}

LogicalResult CrossEntropyOp::verify() {
  return checkLabelSmoothing(Reporter(*this),
                             getLabelSmoothing().convertToDouble());
}

LogicalResult CrossEntropyGradOp::verify() {
  Reporter reporter(*this);
  auto logits = getLogits().getType();
  auto expected = RankedTensorType::get({}, logits.getElementType());
  if (getGradOutput().getType() != expected)
    return reporter.fail("expects grad_output of type ", expected, ", got ",
                         getGradOutput().getType());
  if (failed(checkLabelSmoothing(reporter,
                                 getLabelSmoothing().convertToDouble())))
    return failure();
  return checkLogitsAndLabels(reporter, logits, getLabels().getType());
}

LogicalResult MSEOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> loc,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &types) {
  FailureOr<RankedTensorType> input = getStaticTensor(
      Reporter(loc, getOperationName()), adaptor.getInput(), "input");
  if (failed(input))
    return failure();
  types.push_back(RankedTensorType::get({}, input->getElementType()));
  return success();
}

//===----------------------------------------------------------------------===//
// Precision
//===----------------------------------------------------------------------===//

bool CastOp::isExactConversion(Type from, Type to) {
  auto fromFloat = dyn_cast<FloatType>(from);
  auto toFloat = dyn_cast<FloatType>(to);
  return fromFloat && toFloat &&
         llvm::APFloatBase::isRepresentableBy(fromFloat.getFloatSemantics(),
                                              toFloat.getFloatSemantics());
}

LogicalResult CastOp::verify() {
  Type resultElem = getResult().getType().getElementType();
  bool scaleType = isa<Float8E8M0FNUType>(resultElem);
  bool narrow = scaleType || isa<Float4E2M1FNType, Float6E2M3FNType,
                                 Float6E3M2FNType>(resultElem);
  if (getSaturate() && !isFP8(resultElem) && !narrow)
    return emitOpError("'saturate' requires an FP8, FP6, FP4 or E8M0 result "
                       "element type, got ")
           << resultElem;
  if (narrow && !getSaturate())
    return emitOpError("a cast to ")
           << resultElem << " requires 'saturate' ("
           << (scaleType ? "it rounds up and clamps to [2^-127, 2^127]"
                         : "the format has no infinity or NaN")
           << ")";
  return success();
}

OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getResult().getType())
    return getInput();
  // cast(cast(x : A -> B) -> A) is x only when A -> B loses nothing.
  if (auto inner = getInput().getDefiningOp<CastOp>()) {
    Type original = inner.getInput().getType();
    if (original == getResult().getType() &&
        isExactConversion(getElementTypeOrSelf(original),
                          getElementTypeOrSelf(inner.getResult().getType())))
      return inner.getInput();
  }
  return {};
}

namespace {
/// cast(cast(x : A -> B) -> C) with an exact A -> B rounds x once either way:
/// cast x directly from A to C.
struct FoldExactCastChain : OpRewritePattern<CastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<CastOp>();
    if (!inner ||
        !CastOp::isExactConversion(
            inner.getInput().getType().getElementType(),
            inner.getResult().getType().getElementType()))
      return failure();
    rewriter.modifyOpInPlace(
        op, [&] { op.getInputMutable().assign(inner.getInput()); });
    return success();
  }
};
} // namespace

void CastOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<FoldExactCastChain>(context);
}

OpFoldResult ScaleOp::fold(FoldAdaptor adaptor) {
  auto factor = dyn_cast_if_present<SplatElementsAttr>(adaptor.getFactor());
  if (factor && factor.getSplatValue<APFloat>().isExactlyValue(1.0))
    return getInput();
  return {};
}

LogicalResult AllFiniteOp::verify() {
  if (getInputs().empty())
    return emitOpError("expects at least one operand");
  return success();
}

LogicalResult UpdateLossScaleOp::verify() {
  Reporter reporter(*this);
  double growth = getGrowthFactor().convertToDouble();
  double backoff = getBackoffFactor().convertToDouble();
  if (!std::isfinite(growth) || growth <= 1.0)
    return reporter.fail("growth_factor must be a finite number > 1, got ",
                         growth);
  if (!(backoff > 0.0 && backoff < 1.0))
    return reporter.fail("backoff_factor must be in (0, 1), got ", backoff);
  // I64Attr getters are unsigned: read the signed values.
  int64_t growthInterval = getGrowthIntervalAttr().getInt();
  int64_t hysteresis = getHysteresisAttr().getInt();
  if (growthInterval < 1)
    return reporter.fail("growth_interval must be >= 1, got ", growthInterval);
  if (hysteresis < 1)
    return reporter.fail("hysteresis must be >= 1, got ", hysteresis);
  if (hysteresis > 1 && !getHysteresisTracker())
    return reporter.fail("hysteresis ", hysteresis,
                         " requires a hysteresis_tracker operand");
  if (hysteresis == 1 && getHysteresisTracker())
    return reporter.fail("a hysteresis_tracker operand requires hysteresis > 1");
  std::optional<double> minScale, maxScale;
  if (auto attr = getMinScaleAttr())
    minScale = attr.getValueAsDouble();
  if (auto attr = getMaxScaleAttr())
    maxScale = attr.getValueAsDouble();
  if (minScale && !(*minScale > 0.0 && std::isfinite(*minScale)))
    return reporter.fail("min_scale must be a finite number > 0, got ",
                         *minScale);
  if (maxScale && !(*maxScale > 0.0 && std::isfinite(*maxScale)))
    return reporter.fail("max_scale must be a finite number > 0, got ",
                         *maxScale);
  if (minScale && maxScale && *minScale > *maxScale)
    return reporter.fail("min_scale (", *minScale,
                         ") must not exceed max_scale (", *maxScale, ")");
  return success();
}

LogicalResult UpdateLossScaleOp::inferReturnTypes(
    MLIRContext *context, std::optional<Location>, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  Builder builder(context);
  auto i32 = RankedTensorType::get({}, builder.getI32Type());
  inferredReturnTypes.push_back(
      RankedTensorType::get({}, builder.getF32Type()));
  inferredReturnTypes.push_back(i32);
  if (adaptor.getHysteresisTracker())
    inferredReturnTypes.push_back(i32);
  return success();
}

LogicalResult AmaxHistoryPushOp::verify() {
  if (getHistory().getType().getNumElements() < 1)
    return emitOpError("expects a history of at least one entry");
  return success();
}

LogicalResult FP8ScaleOp::verify() {
  if (getHistory().getType().getNumElements() < 1)
    return emitOpError("expects a history of at least one entry");
  if (int64_t margin = getMarginAttr().getInt(); margin < 0)
    return emitOpError("margin must be >= 0, got ") << margin;
  double eps = getAmaxEpsilon().convertToDouble();
  if (!std::isfinite(eps) || eps < 0.0)
    return emitOpError("amax_epsilon must be finite and >= 0, got ") << eps;
  return success();
}

//===----------------------------------------------------------------------===//
// Training
//===----------------------------------------------------------------------===//

LogicalResult
GradOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                         Adaptor adaptor,
                         SmallVectorImpl<Type> &inferredReturnTypes) {
  Reporter reporter(loc, getOperationName());
  auto loss = dyn_cast<RankedTensorType>(adaptor.getLoss().getType());
  if (!loss || loss.getRank() != 0 || !isa<FloatType>(loss.getElementType()))
    return reporter.fail("expects a 0-d float loss, got ",
                         adaptor.getLoss().getType());
  if (adaptor.getValues().empty())
    return reporter.fail("expects at least one value to differentiate with "
                         "respect to");
  llvm::append_range(inferredReturnTypes, adaptor.getValues().getTypes());
  return success();
}

/// Checks the learning rate of an optimizer: the `lr` attribute (finite,
/// >= 0) or the `learning_rate` operand, not both; `required` when the op has
/// no default.
static LogicalResult checkLearningRate(const Reporter &reporter,
                                       FloatAttr attr, Value operand,
                                       bool required) {
  if (attr && operand)
    return reporter.fail("expects either an lr attribute or an lr operand, "
                         "got both");
  if (required && !attr && !operand)
    return reporter.fail("expects a learning rate: an lr attribute or an lr "
                         "operand");
  if (attr)
    return checkAtLeast(reporter, "lr", attr.getValueAsDouble(), 0.0);
  return success();
}

LogicalResult SGDOp::verify() {
  Reporter reporter(*this);
  double momentum = getMomentum().convertToDouble();
  double dampening = getDampening().convertToDouble();
  if (failed(checkLearningRate(reporter, getLrAttr(), getLearningRate(),
                               /*required=*/true)) ||
      failed(checkAtLeast(reporter, "momentum", momentum, 0.0)) ||
      failed(checkAtLeast(reporter, "weight_decay",
                          getWeightDecay().convertToDouble(), 0.0)))
    return failure();
  if (!(dampening >= 0.0 && dampening <= 1.0))
    return reporter.fail("dampening must be in [0, 1], got ", dampening);
  if (getNesterov() && (momentum <= 0.0 || dampening != 0.0))
    return reporter.fail("nesterov requires momentum > 0 and dampening 0");
  if (momentum != 0.0 && !getMomentumBuffer())
    return reporter.fail("momentum ", momentum,
                         " requires a momentum_buffer operand");
  if (momentum == 0.0 && getMomentumBuffer())
    return reporter.fail("a momentum_buffer operand requires momentum > 0");
  if (Value buffer = getMomentumBuffer();
      buffer && buffer.getType() != getParam().getType())
    return reporter.fail("expects momentum_buffer of the parameter type ",
                         getParam().getType(), ", got ", buffer.getType());
  if (getStep() && momentum == 0.0)
    return reporter.fail("a step operand requires momentum > 0 (it selects "
                         "the first step's buffer rule)");
  if (!getStep() && momentum != 0.0 && dampening != 0.0)
    return reporter.fail("dampening ", dampening,
                         " requires a step operand: the first step sets the "
                         "buffer to the gradient undampened");
  return success();
}

LogicalResult
SGDOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                        Adaptor adaptor,
                        SmallVectorImpl<Type> &inferredReturnTypes) {
  inferredReturnTypes.push_back(adaptor.getParam().getType());
  if (adaptor.getMomentumBuffer())
    inferredReturnTypes.push_back(adaptor.getParam().getType());
  return success();
}

/// Shared verifier of adam and adamw.
template <typename OpTy>
static LogicalResult verifyAdamLike(OpTy op) {
  Reporter reporter(op);
  if (failed(checkLearningRate(reporter, op.getLrAttr(), op.getLearningRate(),
                               /*required=*/false)) ||
      failed(checkAtLeast(reporter, "eps", op.getEps().convertToDouble(),
                          0.0)) ||
      failed(checkAtLeast(reporter, "weight_decay",
                          op.getWeightDecay().convertToDouble(), 0.0)))
    return failure();
  for (auto [name, beta] :
       {std::pair<StringRef, double>{"beta1", op.getBeta1().convertToDouble()},
        {"beta2", op.getBeta2().convertToDouble()}})
    if (!(beta >= 0.0 && beta < 1.0))
      return reporter.fail(name, " must be in [0, 1), got ", beta);
  if (Value maxExpAvgSq = op.getMaxExpAvgSq();
      maxExpAvgSq && maxExpAvgSq.getType() != op.getParam().getType())
    return reporter.fail("expects max_exp_avg_sq (amsgrad) of the parameter "
                         "type ",
                         op.getParam().getType(), ", got ",
                         maxExpAvgSq.getType());
  return success();
}

LogicalResult AdamOp::verify() { return verifyAdamLike(*this); }
LogicalResult AdamWOp::verify() { return verifyAdamLike(*this); }

template <typename OpTy>
static LogicalResult inferAdamLike(std::optional<Location>,
                                   typename OpTy::Adaptor adaptor,
                                   SmallVectorImpl<Type> &inferredReturnTypes) {
  inferredReturnTypes.append(adaptor.getMaxExpAvgSq() ? 4 : 3,
                             adaptor.getParam().getType());
  return success();
}

MP_INFER_RETURN_TYPES(AdamOp, inferAdamLike)
MP_INFER_RETURN_TYPES(AdamWOp, inferAdamLike)
//===----------------------------------------------------------------------===//
// Selection and comparison
//===----------------------------------------------------------------------===//

/// Computes the broadcast shape of the operand types `types` (named by
/// `names` in diagnostics), reporting the first that does not broadcast.
static FailureOr<SmallVector<int64_t>>
inferBroadcastShape(const Reporter &reporter, ArrayRef<RankedTensorType> types,
                    ArrayRef<StringRef> names) {
  SmallVector<int64_t> shape(types.front().getShape());
  for (auto [type, name] : llvm::zip(types.drop_front(), names.drop_front())) {
    SmallVector<int64_t> next;
    if (!OpTrait::util::getBroadcastedShape(shape, type.getShape(), next))
      return reporter.fail("shape ", ShapeStr{type.getShape()}, " of ", name,
                           " does not broadcast with ", ShapeStr{shape});
    shape = std::move(next);
  }
  return shape;
}

LogicalResult
SelectOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                           Adaptor adaptor,
                           SmallVectorImpl<Type> &inferredReturnTypes) {
  Reporter reporter(loc, getOperationName());
  SmallVector<RankedTensorType> types;
  StringRef names[] = {"condition", "true_value", "false_value"};
  Value values[] = {adaptor.getCondition(), adaptor.getTrueValue(),
                    adaptor.getFalseValue()};
  for (auto [value, name] : llvm::zip(values, names)) {
    FailureOr<RankedTensorType> type = getStaticTensor(reporter, value, name);
    if (failed(type))
      return failure();
    types.push_back(*type);
  }
  if (types[1].getElementType() != types[2].getElementType())
    return reporter.fail("expects true_value and false_value of one element "
                         "type, got ",
                         types[1].getElementType(), " and ",
                         types[2].getElementType());
  FailureOr<SmallVector<int64_t>> shape =
      inferBroadcastShape(reporter, types, names);
  if (failed(shape))
    return failure();
  inferredReturnTypes.push_back(
      RankedTensorType::get(*shape, types[1].getElementType()));
  return success();
}

OpFoldResult SelectOp::fold(FoldAdaptor adaptor) {
  auto condition =
      dyn_cast_if_present<SplatElementsAttr>(adaptor.getCondition());
  if (!condition)
    return {};
  Value chosen =
      condition.getSplatValue<bool>() ? getTrueValue() : getFalseValue();
  if (chosen.getType() != getResult().getType())
    return {};
  return chosen;
}

LogicalResult
CompareOp::inferReturnTypes(MLIRContext *context, std::optional<Location> loc,
                            Adaptor adaptor,
                            SmallVectorImpl<Type> &inferredReturnTypes) {
  FailureOr<RankedTensorType> type = inferBroadcast(
      Reporter(loc, getOperationName()), adaptor.getLhs(), adaptor.getRhs());
  if (failed(type))
    return failure();
  inferredReturnTypes.push_back(
      RankedTensorType::get(type->getShape(), IntegerType::get(context, 1)));
  return success();
}

//===----------------------------------------------------------------------===//
// Activations and math
//===----------------------------------------------------------------------===//

/// Checks the optional bounds of clamp and clamp_grad.
static LogicalResult checkClampBounds(const Reporter &reporter,
                                      std::optional<APFloat> min,
                                      std::optional<APFloat> max,
                                      bool hardtanh) {
  if (!min && !max)
    return reporter.fail("expects at least one of min and max");
  for (auto [name, bound] :
       {std::pair<StringRef, std::optional<APFloat>>{"min", min}, {"max", max}})
    if (bound && bound->isNaN())
      return reporter.fail(name, " must not be NaN");
  if (hardtanh) {
    if (!min || !max)
      return reporter.fail("hardtanh requires both min and max");
    if (min->convertToDouble() > max->convertToDouble())
      return reporter.fail("hardtanh requires min <= max, got min ",
                           min->convertToDouble(), " and max ",
                           max->convertToDouble());
  }
  return success();
}

LogicalResult ClampOp::verify() {
  return checkClampBounds(Reporter(*this), getMin(), getMax(), getHardtanh());
}

LogicalResult ClampGradOp::verify() {
  return checkClampBounds(Reporter(*this), getMin(), getMax(), getHardtanh());
}

/// Checks that a leaky_relu slope is a finite number.
static LogicalResult checkNegativeSlope(const Reporter &reporter,
                                        const APFloat &slope) {
  if (!slope.isFinite())
    return reporter.fail("negative_slope must be finite, got ",
                         slope.convertToDouble());
  return success();
}

LogicalResult LeakyReluOp::verify() {
  return checkNegativeSlope(Reporter(*this), getNegativeSlope());
}

LogicalResult LeakyReluGradOp::verify() {
  return checkNegativeSlope(Reporter(*this), getNegativeSlope());
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

int64_t mp::getPooledSize(int64_t size, int64_t kernel, int64_t stride,
                          int64_t padding, int64_t dilation, bool ceilMode) {
  int64_t extent = size + 2 * padding - dilation * (kernel - 1) - 1 +
                   (ceilMode ? stride - 1 : 0);
  int64_t pooled = llvm::divideFloorSigned(extent, stride) + 1;
  // The last window must start inside the input or the left padding.
  if (ceilMode && (pooled - 1) * stride >= size + padding)
    --pooled;
  return pooled;
}

/// Checks the window attributes of a 2-d pooling of an NCHW `input` and
/// returns the output shape (PyTorch's pool2d_shape_check and
/// pooling_output_shape). `stride` is empty when it defaults to the kernel.
static FailureOr<SmallVector<int64_t>> inferPool2DShape(
    const Reporter &reporter, ArrayRef<int64_t> input, ArrayRef<int64_t> kernel,
    std::optional<ArrayRef<int64_t>> stride, ArrayRef<int64_t> padding,
    ArrayRef<int64_t> dilation, bool ceilMode) {
  if (input.size() != 4)
    return reporter.fail("expects an NCHW input of rank 4, got rank ",
                         input.size());
  ArrayRef<int64_t> strides = stride ? *stride : kernel;
  for (auto [name, values, min] :
       {std::tuple<StringRef, ArrayRef<int64_t>, int64_t>{"kernel_size", kernel,
                                                          1},
        {"stride", strides, 1},
        {"padding", padding, 0},
        {"dilation", dilation, 1}}) {
    if (values.size() != 2)
      return reporter.fail("expects 2 ", name, " values, got ", values.size());
    if (values[0] < min || values[1] < min)
      return reporter.fail("expects ", name, " >= ", min, ", got ",
                           ShapeStr{values});
  }
  if (padding[0] > kernel[0] / 2 || padding[1] > kernel[1] / 2)
    return reporter.fail("expects padding at most half the kernel size, got "
                         "padding ",
                         ShapeStr{padding}, " for kernel_size ",
                         ShapeStr{kernel});
  SmallVector<int64_t> output{input[0], input[1]};
  for (int i = 0; i < 2; ++i)
    output.push_back(getPooledSize(input[2 + i], kernel[i], strides[i],
                                   padding[i], dilation[i], ceilMode));
  if (output[2] < 1 || output[3] < 1)
    return reporter.fail(
        "computed output size ", ShapeStr{ArrayRef(output).drop_front(2)},
        " is too small for the input size ", ShapeStr{input.drop_front(2)});
  return output;
}

/// The value of a default-valued array attribute during type inference,
/// where the adaptor does not supply the default of an absent attribute.
static ArrayRef<int64_t> arrayOrDefault(DenseI64ArrayAttr attr,
                                        ArrayRef<int64_t> fallback) {
  return attr ? attr.asArrayRef() : fallback;
}
static constexpr int64_t kZeroPair[] = {0, 0};
static constexpr int64_t kOnePair[] = {1, 1};

/// Checks a divisor_override (when present).
static LogicalResult checkDivisor(const Reporter &reporter,
                                  IntegerAttr divisor) {
  // I64Attr getters are unsigned: read the signed value.
  if (divisor && divisor.getInt() < 1)
    return reporter.fail("expects divisor_override >= 1, got ",
                         divisor.getInt());
  return success();
}

LogicalResult
MaxPool2DOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                              Adaptor adaptor,
                              SmallVectorImpl<Type> &inferredReturnTypes) {
  Reporter reporter(loc, getOperationName());
  return inferFromInput(
      reporter, adaptor.getInput(),
      [&](RankedTensorType input) {
        return inferPool2DShape(
            reporter, input.getShape(), adaptor.getKernelSize(),
            adaptor.getStride(),
            arrayOrDefault(adaptor.getPaddingAttr(), kZeroPair),
            arrayOrDefault(adaptor.getDilationAttr(), kOnePair),
            adaptor.getCeilMode());
      },
      inferredReturnTypes);
}

LogicalResult MaxPool2DGradOp::verify() {
  Reporter reporter(*this);
  auto gradOutput = getGradOutput().getType();
  auto input = getInput().getType();
  if (gradOutput.getElementType() != input.getElementType())
    return reporter.fail("expects grad_output of the input element type ",
                         input.getElementType(), ", got ",
                         gradOutput.getElementType());
  FailureOr<SmallVector<int64_t>> shape =
      inferPool2DShape(reporter, input.getShape(), getKernelSize(), getStride(),
                       getPadding(), getDilation(), getCeilMode());
  if (failed(shape))
    return failure();
  return checkResultShape(reporter, *shape, gradOutput, "grad_output");
}

LogicalResult
AvgPool2DOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                              Adaptor adaptor,
                              SmallVectorImpl<Type> &inferredReturnTypes) {
  Reporter reporter(loc, getOperationName());
  if (failed(checkDivisor(reporter, adaptor.getDivisorOverrideAttr())))
    return failure();
  return inferFromInput(
      reporter, adaptor.getInput(),
      [&](RankedTensorType input) {
        return inferPool2DShape(
            reporter, input.getShape(), adaptor.getKernelSize(),
            adaptor.getStride(),
            arrayOrDefault(adaptor.getPaddingAttr(), kZeroPair), kOnePair,
            adaptor.getCeilMode());
      },
      inferredReturnTypes);
}

LogicalResult AvgPool2DGradOp::verify() {
  Reporter reporter(*this);
  auto gradOutput = getGradOutput().getType();
  auto result = getResult().getType();
  if (failed(checkResultElementType(reporter, gradOutput, result)) ||
      failed(checkDivisor(reporter, getDivisorOverrideAttr())))
    return failure();
  FailureOr<SmallVector<int64_t>> shape =
      inferPool2DShape(reporter, result.getShape(), getKernelSize(),
                       getStride(), getPadding(), kOnePair, getCeilMode());
  if (failed(shape))
    return failure();
  return checkResultShape(reporter, *shape, gradOutput, "grad_output");
}

/// Checks an adaptive pooling of an NCHW `input` to `outputSize` and returns
/// the output shape.
static FailureOr<SmallVector<int64_t>>
inferAdaptivePool2DShape(const Reporter &reporter, ArrayRef<int64_t> input,
                         ArrayRef<int64_t> outputSize) {
  if (input.size() != 4)
    return reporter.fail("expects an NCHW input of rank 4, got rank ",
                         input.size());
  if (outputSize.size() != 2)
    return reporter.fail("expects 2 output_size values, got ",
                         outputSize.size());
  if (outputSize[0] < 1 || outputSize[1] < 1)
    return reporter.fail("expects output_size >= 1, got ",
                         ShapeStr{outputSize});
  return SmallVector<int64_t>{input[0], input[1], outputSize[0], outputSize[1]};
}

LogicalResult AdaptiveAvgPool2DOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> loc, Adaptor adaptor,
    SmallVectorImpl<Type> &inferredReturnTypes) {
  Reporter reporter(loc, getOperationName());
  return inferFromInput(
      reporter, adaptor.getInput(),
      [&](RankedTensorType input) {
        return inferAdaptivePool2DShape(reporter, input.getShape(),
                                        adaptor.getOutputSize());
      },
      inferredReturnTypes);
}

LogicalResult AdaptiveAvgPool2DGradOp::verify() {
  Reporter reporter(*this);
  auto gradOutput = getGradOutput().getType();
  auto result = getResult().getType();
  if (failed(checkResultElementType(reporter, gradOutput, result)))
    return failure();
  if (gradOutput.getRank() != 4)
    return reporter.fail("expects an NCHW grad_output of rank 4, got rank ",
                         gradOutput.getRank());
  FailureOr<SmallVector<int64_t>> shape = inferAdaptivePool2DShape(
      reporter, result.getShape(), gradOutput.getShape().drop_front(2));
  if (failed(shape))
    return failure();
  return checkResultShape(reporter, *shape, gradOutput, "grad_output");
}

#undef MP_INFER_RETURN_TYPES

#define GET_OP_CLASSES
#include "mp/Dialect/MP/IR/MPOps.cpp.inc"
