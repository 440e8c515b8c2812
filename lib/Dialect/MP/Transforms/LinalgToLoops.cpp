//===- LinalgToLoops.cpp - linalg to loops for the CPU pipeline -----------===//
//
// mp-linalg-to-loops lowers the linalg operations on buffers that are left
// after bufferization (those mp-tile-and-vectorize did not take, such as the
// im2col copies of convolutions, and the tiles it left as linalg operations)
// to the scf.for nests of convert-linalg-to-loops, with two changes:
//
// - `vector-copies`: an operation that only copies, along an innermost loop
//   both memrefs walk at unit stride, copies rows of that loop with
//   vector.transfer_read/transfer_write (the scalar loop's loads and stores
//   may alias as far as LLVM knows, so it keeps them scalar); so does a
//   memref.copy between memrefs that are not both contiguous (otherwise
//   the runtime's memrefCopy, element by element), and an elementwise map
//   of arith ops (the widening interior of a convolution's padding, which
//   mp-rematerialize-fills leaves on buffers): its payload applied to
//   vectors of the rows, lane by lane the same operations.
// - `parallel`: the leading parallel loops of a large operation are one
//   scf.parallel (OpenMP after convert-scf-to-openmp): as many as make
//   kMinParallelTiles iterations, the loops inside them sequential, so that
//   each thread runs whole inner loops (no collapsed index arithmetic per
//   element), and small operations do not start the threads at all.
//
// Every output element is computed by one iteration of the scf.parallel,
// its reductions in their order inside it, copies move values without
// computing them and a vector map computes each lane as the scalar loop
// does, so the bits are those of convert-linalg-to-loops on one thread. It
// assumes buffer semantics (after bufferization); an operation already
// inside an scf.parallel or scf.forall stays sequential.
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/Transforms/Passes.h"
#include "mp/Dialect/MP/Transforms/Threading.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/AffineExprVisitor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::mp {
#define GEN_PASS_DEF_MPLINALGTOLOOPS
#include "mp/Dialect/MP/Transforms/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

namespace {

/// Rows of a vector copy up to this many elements are copied whole.
static constexpr int64_t kMaxCopyVector = 64;

/// How many leading loops of `op` become one scf.parallel: none for an
/// operation with dynamic or fewer than kMinParallelIterations iterations,
/// else the leading parallel loops up to kMinParallelTiles iterations (none
/// when they have a single one).
static unsigned getNumThreadedLoops(linalg::LinalgOp op) {
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(extents))
    return 0;
  int64_t iterations = 1;
  for (int64_t extent : extents)
    iterations *= extent;
  if (iterations < kMinParallelIterations)
    return 0;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned count = 0;
  int64_t parallelIterations = 1;
  while (count < iterators.size() &&
         iterators[count] == utils::IteratorType::parallel &&
         parallelIterations < kMinParallelTiles)
    parallelIterations *= extents[count++];
  return parallelIterations > 1 ? count : 0;
}

/// Replaces the outermost `count` loops of the perfect scf.for nest `loops`
/// (outermost first, no iteration arguments, bounds defined outside the
/// nest) by one scf.parallel over them. Leaves a nest of another form alone.
static void makeParallel(RewriterBase &rewriter, ArrayRef<Operation *> loops,
                         unsigned count) {
  SmallVector<scf::ForOp> nest;
  for (Operation *loop : loops.take_front(count)) {
    auto forOp = dyn_cast<scf::ForOp>(loop);
    if (!forOp || forOp.getNumRegionIterArgs() != 0)
      return;
    nest.push_back(forOp);
  }
  scf::ForOp outer = nest.front(), inner = nest.back();
  SmallVector<Value> lowerBounds, upperBounds, steps;
  for (auto [i, forOp] : llvm::enumerate(nest)) {
    // Perfectly nested: the loop and its terminator only.
    if (i + 1 < nest.size() &&
        (forOp.getBody()->getOperations().size() != 2 ||
         &forOp.getBody()->front() != nest[i + 1].getOperation()))
      return;
    for (Value bound :
         {forOp.getLowerBound(), forOp.getUpperBound(), forOp.getStep()})
      if (outer->isAncestor(bound.getParentBlock()->getParentOp()))
        return;
    lowerBounds.push_back(forOp.getLowerBound());
    upperBounds.push_back(forOp.getUpperBound());
    steps.push_back(forOp.getStep());
  }

  rewriter.setInsertionPoint(outer);
  auto parallel = scf::ParallelOp::create(rewriter, outer.getLoc(), lowerBounds,
                                          upperBounds, steps);
  SmallVector<Value> ivs(parallel.getInductionVars());
  for (unsigned i = 0; i + 1 < nest.size(); ++i)
    rewriter.replaceAllUsesWith(nest[i].getInductionVar(), ivs[i]);
  Block *body = inner.getBody();
  rewriter.eraseOp(body->getTerminator());
  rewriter.inlineBlockBefore(body, parallel.getBody()->getTerminator(),
                             ValueRange{ivs.back()});
  rewriter.eraseOp(outer);
}

/// True when `map` indexes a memref of type `type` at unit stride along loop
/// `loop`: its last result is that loop plus a function of the other loops,
/// its other results do not depend on it, and the memref's innermost stride
/// is 1.
static bool walksAtUnitStride(AffineMap map, MemRefType type, unsigned loop) {
  if (map.getNumResults() == 0 || map.getNumSymbols() != 0)
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) || strides.back() != 1)
    return false;
  MLIRContext *context = map.getContext();
  AffineExpr dim = getAffineDimExpr(loop, context);
  for (AffineExpr result : map.getResults().drop_back())
    if (result.isFunctionOfDim(loop))
      return false;
  AffineExpr last = map.getResults().back();
  AffineExpr step = simplifyAffineExpr(
      last.replace(dim, dim + 1) - last, map.getNumDims(), /*numSymbols=*/0);
  auto constant = dyn_cast<AffineConstantExpr>(step);
  return constant && constant.getValue() == 1;
}

/// True for the types of the values a row of an elementwise payload
/// computes as vectors: floats of at least 16 bits (the FP8 conversions are
/// expanded for scalars), integers and i1 (compares).
static bool isRowElementType(Type type) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return floatType.getWidth() >= 16;
  return type.isSignlessInteger();
}

/// The inputs `op` reads, if it only copies or maps them elementwise into
/// its one output: all its loops parallel, its body ops elementwise
/// (arith, no regions) on the values of the read inputs and of constants,
/// its output's value not read. Other inputs (the window tensor that gives
/// an im2col its loops) are not read. Empty for any other operation.
static SmallVector<OpOperand *> getMappedInputs(linalg::LinalgOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumLoops() == 0 ||
      op->getNumRegions() != 1 || op.getNumReductionLoops() != 0 ||
      op.payloadUsesValueFromOperand(op.getDpsInitOperand(0)))
    return {};
  Block *body = op.getBlock();
  auto yield = dyn_cast<linalg::YieldOp>(body->getTerminator());
  if (!yield || yield.getNumOperands() != 1)
    return {};
  for (Operation &nested : body->without_terminator())
    if (!OpTrait::hasElementwiseMappableTraits(&nested) ||
        nested.getNumRegions() != 0 ||
        !isa<arith::ArithDialect>(nested.getDialect()) ||
        !llvm::all_of(nested.getResultTypes(), isRowElementType))
      return {};
  if (!isRowElementType(yield.getOperand(0).getType()))
    return {};
  SmallVector<OpOperand *> inputs;
  for (OpOperand *input : op.getDpsInputOperands())
    if (op.payloadUsesValueFromOperand(input))
      inputs.push_back(input);
  return inputs;
}

/// The number of elements of each vector that copies or maps `op`'s rows
/// (getMappedInputs), or nothing when `op` is not such an operation along a
/// unit-stride innermost loop.
static std::optional<int64_t> getRowVectorSize(linalg::LinalgOp op) {
  SmallVector<OpOperand *> inputs = getMappedInputs(op);
  if (inputs.empty())
    return std::nullopt;
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(extents))
    return std::nullopt;
  unsigned loop = op.getNumLoops() - 1;
  bool copy = op.getBlock()->getOperations().size() == 1;
  inputs.push_back(op.getDpsInitOperand(0));
  for (OpOperand *operand : inputs) {
    auto type = dyn_cast<MemRefType>(operand->get().getType());
    if (!type ||
        !walksAtUnitStride(op.getMatchingIndexingMap(operand), type, loop))
      return std::nullopt;
    // Vectors of i1 would be bit-packed in memory; memrefs of i1 are not. A
    // copy moves any other element (FP8 too).
    Type element = type.getElementType();
    if (copy ? !isa<FloatType>(element) &&
                   !(element.isInteger() &&
                     element.getIntOrFloatBitWidth() % 8 == 0)
             : !isRowElementType(element) || element.isInteger(1))
      return std::nullopt;
  }
  int64_t extent = extents[loop];
  if (extent < 2)
    return std::nullopt;
  if (extent <= kMaxCopyVector)
    return extent;
  for (int64_t size = kMaxCopyVector; size >= 8; --size)
    if (extent % size == 0)
      return size;
  return std::nullopt;
}

/// The scf.for nest of `op`, a copy or elementwise map (getRowVectorSize),
/// its innermost loop by `size` elements a vector each: the rows of the
/// inputs read, the payload's ops on vectors of them (the same ops, lane by
/// lane), the row written (a loop of one iteration is left for
/// canonicalisation).
static linalg::LinalgLoops
lowerRowsToVectors(RewriterBase &rewriter, linalg::LinalgOp op, int64_t size) {
  Location loc = op.getLoc();
  SmallVector<int64_t> extents = op.getStaticLoopRanges();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  SmallVector<Value> lowerBounds, upperBounds, steps;
  for (auto [i, extent] : llvm::enumerate(extents)) {
    lowerBounds.push_back(constant(0));
    upperBounds.push_back(constant(extent));
    steps.push_back(constant(i + 1 == extents.size() ? size : 1));
  }
  SmallVector<OpOperand *> inputs = getMappedInputs(op);
  OpOperand *output = op.getDpsInitOperand(0);
  Block *body = op.getBlock();
  auto vectorOf = [&](Type type) { return VectorType::get({size}, type); };
  auto indices = [&](OpBuilder &builder, AffineMap map, ValueRange ivs) {
    SmallVector<Value> values;
    for (AffineExpr result : map.getResults())
      values.push_back(affine::AffineApplyOp::create(
          builder, loc, AffineMap::get(map.getNumDims(), 0, result), ivs));
    return values;
  };
  scf::LoopNest nest = scf::buildLoopNest(
      rewriter, loc, lowerBounds, upperBounds, steps,
      [&](OpBuilder &builder, Location loc, ValueRange ivs) {
        IRMapping mapping;
        for (OpOperand *input : inputs) {
          Value source = input->get();
          mapping.map(
              body->getArgument(input->getOperandNumber()),
              vector::TransferReadOp::create(
                  builder, loc,
                  vectorOf(cast<MemRefType>(source.getType()).getElementType()),
                  source,
                  indices(builder, op.getMatchingIndexingMap(input), ivs),
                  /*padding=*/std::nullopt, ArrayRef<bool>{true}));
        }
        // Values from outside the payload, broadcast.
        auto vectorValue = [&](Value value) -> Value {
          if (Value mapped = mapping.lookupOrNull(value))
            return mapped;
          Value broadcast = vector::BroadcastOp::create(
              builder, loc, vectorOf(value.getType()), value);
          mapping.map(value, broadcast);
          return broadcast;
        };
        for (Operation &nested : body->without_terminator()) {
          Attribute value;
          if (matchPattern(&nested, m_Constant(&value))) {
            mapping.map(
                nested.getResult(0),
                arith::ConstantOp::create(
                    builder, loc,
                    DenseElementsAttr::get(
                        vectorOf(nested.getResult(0).getType()), value)));
            continue;
          }
          for (Value operand : nested.getOperands())
            vectorValue(operand);
          Operation *clone = builder.clone(nested, mapping);
          for (Value result : clone->getResults())
            result.setType(vectorOf(result.getType()));
        }
        vector::TransferWriteOp::create(
            builder, loc, vectorValue(body->getTerminator()->getOperand(0)),
            output->get(),
            indices(builder, op.getMatchingIndexingMap(output), ivs),
            ArrayRef<bool>{true});
      });
  linalg::LinalgLoops loops;
  for (scf::ForOp loop : nest.loops)
    loops.push_back(loop);
  return loops;
}

/// A linalg operation on buffers → its scf.for nest (rows of a copy as
/// vectors), the leading loops of a large one outside any parallel loop as
/// one scf.parallel.
struct LowerToLoops : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  LowerToLoops(MLIRContext *context, bool parallel, bool vectorCopies)
      : OpInterfaceRewritePattern(context), parallel(parallel),
        vectorCopies(vectorCopies) {}

  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureBufferSemantics())
      return failure();
    unsigned count = 0;
    if (parallel && !op->getParentOfType<scf::ParallelOp>() &&
        !op->getParentOfType<scf::ForallOp>())
      count = getNumThreadedLoops(op);
    unsigned numLoops = op.getNumLoops();
    linalg::LinalgLoops loops;
    if (std::optional<int64_t> size =
            vectorCopies ? getRowVectorSize(op) : std::nullopt) {
      loops = lowerRowsToVectors(rewriter, op, *size);
    } else {
      FailureOr<linalg::LinalgLoops> lowered =
          linalg::linalgOpToLoops(rewriter, op);
      if (failed(lowered))
        return failure();
      loops = *lowered;
    }
    rewriter.eraseOp(op);
    if (count > 0 && loops.size() == numLoops)
      makeParallel(rewriter, loops, count);
    return success();
  }

private:
  bool parallel, vectorCopies;
};

/// With `vector-copies`, a memref.copy between statically shaped memrefs
/// that are not both contiguous (which the memref lowering would leave to
/// the runtime's element-by-element memrefCopy) → the equivalent
/// linalg.copy, for LowerToLoops to copy as vector rows.
struct CopyToLinalg : public OpRewritePattern<memref::CopyOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(memref::CopyOp copy,
                                PatternRewriter &rewriter) const override {
    auto source = dyn_cast<MemRefType>(copy.getSource().getType());
    auto target = dyn_cast<MemRefType>(copy.getTarget().getType());
    if (!source || !target || !source.hasStaticShape() ||
        !target.hasStaticShape() || source.getRank() == 0 ||
        (memref::isStaticShapeAndContiguousRowMajor(source) &&
         memref::isStaticShapeAndContiguousRowMajor(target)))
      return failure();
    linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(),
                           copy.getTarget());
    rewriter.eraseOp(copy);
    return success();
  }
};

struct LinalgToLoops
    : public mp::impl::MPLinalgToLoopsBase<LinalgToLoops> {
  using MPLinalgToLoopsBase::MPLinalgToLoopsBase;

  void runOnOperation() override {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    patterns.add<LowerToLoops>(context, parallel, vectorCopies);
    if (vectorCopies)
      patterns.add<CopyToLinalg>(context);
    // As convert-linalg-to-loops: the loops' bounds and indices folded.
    memref::DimOp::getCanonicalizationPatterns(patterns, context);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, context);
    scf::ForOp::getCanonicalizationPatterns(patterns, context);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
