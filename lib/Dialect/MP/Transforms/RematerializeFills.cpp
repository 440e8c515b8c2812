//===- RematerializeFills.cpp - One constant fill per destination use -----===//
//
// mp-rematerialize-fills undoes, just before bufferization, what CSE does to
// constant fills: identical fills (the zero accumulators of contractions of
// one shape, the zero tensors that padding scatters into) become one value
// with several uses, and one-shot bufferization allocates and copies that
// buffer for every further use that writes into it. Each use that may write
// (a destination operand: a DPS init, an scf.for or scf.forall initial
// value, directly or through reshapes, which CSE may share too) gets a
// clone of the fill (and of the reshapes) instead, placed right after the
// original (outside any loop of its users): writing a constant again costs
// half a copy, and the values are the same. Reshapes and fills left without
// a use go (a dead reshape of the original would keep it where it is, and
// the pipeline's control-flow-sink from moving it into the one branch that
// reads it).
//
// The same holds for a tensor.empty shared as the destination of several
// ops (the trivial fill): one-shot bufferization's analysis then compares
// every pair of its writers, quadratic in their number, for the allocations
// a clone per use gives directly.
//
// First, a generic that scatters into a constant fill (the zero padding of
// a convolution, convert-mp-to-linalg's buildPadded: an output map of
// distinct loops plus constants, (d0, d1, d2 + 1, d3 + 1), alone or fused
// with its producer) writes each element of that tensor once: the generic
// writes its box in place (an extract_slice of a tensor.empty of its own,
// inserted back; its payload reads the fill's constant where it read the
// fill, so its values are the same), then one linalg.fill per slab around
// the box writes the constant there (per dimension, the parts before and
// after the box, one strided slab when both are one element wide). The full
// fill (a memset of the whole padded tensor) goes when nothing else uses it.
//
// A fill is a tensor.empty, a linalg.fill of a constant into a
// tensor.empty (or a reshape of one), or its tiled form after
// mp-tile-and-vectorize: scf.for/scf.forall loops, starting from such a
// tensor.empty, whose bodies only write
// constants (vector.transfer_write of a constant, linalg.fill of a
// constant), take slices, yield and compute indices. It assumes tensors
// (before bufferization) and runs after the last CSE (which would merge the
// clones again).
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "llvm/ADT/SmallBitVector.h"

namespace mlir::mp {
#define GEN_PASS_DEF_MPREMATERIALIZEFILLS
#include "mp/Dialect/MP/Transforms/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

namespace {

/// True for the reshapes a destination may be reached through.
static bool isReshape(Operation *op) {
  return isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op);
}

/// True when `value` is the result of a tensor.empty, or a reshape of one.
static bool isEmptyTensor(Value value) {
  Operation *def = value.getDefiningOp();
  while (def && isReshape(def))
    def = def->getOperand(0).getDefiningOp();
  return isa_and_nonnull<tensor::EmptyOp>(def);
}

/// Clones at the insertion point of `builder` the tensor.empty `value` is,
/// with the reshapes of it that `value` is (isEmptyTensor); returns the
/// clone of `value`.
static Value cloneEmptyTensor(OpBuilder &builder, Value value) {
  Operation *def = value.getDefiningOp();
  if (isa<tensor::EmptyOp>(def))
    return builder.clone(*def)->getResult(0);
  IRMapping mapping;
  mapping.map(def->getOperand(0),
              cloneEmptyTensor(builder, def->getOperand(0)));
  return builder.clone(*def, mapping)->getResult(0);
}

/// True when `op`, nested in a fill, only writes constants, takes slices,
/// yields or computes indices.
static bool isFillBodyOp(Operation *op) {
  if (auto write = dyn_cast<vector::TransferWriteOp>(op))
    return matchPattern(write.getVector(), m_Constant());
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return matchPattern(fill.value(), m_Constant());
  if (isa<scf::ForOp, scf::ForallOp, scf::YieldOp, scf::InParallelOp,
          tensor::ExtractSliceOp, tensor::InsertSliceOp,
          tensor::ParallelInsertSliceOp, tensor::EmptyOp, arith::ConstantOp,
          affine::AffineApplyOp, affine::AffineMinOp, affine::AffineMaxOp>(
          op))
    return true;
  return op->getDialect() && isa<arith::ArithDialect>(op->getDialect()) &&
         llvm::all_of(op->getResultTypes(),
                      [](Type type) { return type.isIntOrIndex(); });
}

/// True when `op` computes a constant fill of a tensor.empty (see the file
/// comment): what a clone recomputes exactly.
static bool isFill(Operation *op) {
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()))
    return false;
  // A tensor.empty is the trivial fill: CSE shares the empties of one shape
  // among hundreds of loops (the [64] destinations of every bias and norm
  // gradient of a model), and one-shot bufferization's analysis then checks
  // every pair of those writers for conflicts, quadratic in the model's size.
  if (isa<tensor::EmptyOp>(op))
    return true;
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return matchPattern(fill.value(), m_Constant()) &&
           isEmptyTensor(fill.getDpsInitOperand(0)->get());
  if (!isa<scf::ForOp, scf::ForallOp>(op))
    return false;
  // Tensor operands: the tensor.empty it starts from; the other operands
  // are bounds and steps.
  for (Value operand : op->getOperands())
    if (isa<TensorType>(operand.getType()) && !isEmptyTensor(operand))
      return false;
  WalkResult result = op->walk([&](Operation *nested) {
    if (nested != op && !isFillBodyOp(nested))
      return WalkResult::interrupt();
    // No tensor from outside the fill is read.
    for (Value operand : nested->getOperands())
      if (isa<TensorType>(operand.getType()) &&
          !op->isAncestor(operand.getParentRegion()->getParentOp()) &&
          !isEmptyTensor(operand))
        return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// True when `use` may be written into in place by its owner: a
/// destination operand or a loop's initial value.
static bool isDestination(OpOperand &use) {
  Operation *owner = use.getOwner();
  if (auto dps = dyn_cast<DestinationStyleOpInterface>(owner))
    return dps.isDpsInit(&use);
  if (auto loop = dyn_cast<scf::ForOp>(owner))
    return llvm::is_contained(loop.getInitArgsMutable(), use);
  if (auto forall = dyn_cast<scf::ForallOp>(owner))
    return llvm::is_contained(forall.getOutputsMutable(), use);
  return false;
}

/// A destination use of a fill and the reshapes between the fill and it.
struct Destination {
  OpOperand *use;
  SmallVector<Operation *> reshapes;
};

/// Appends to `destinations` the destination uses of `value`, directly or
/// through reshapes (a packed contraction writes its accumulator through
/// tensor.expand_shape, and CSE shares one reshape of a fill among several
/// contractions), in the order of their creation (use lists are newest
/// first). Clears `onlyDestinations` when a use only reads.
static void collectDestinations(Value value, SmallVectorImpl<Operation *> &path,
                                SmallVectorImpl<Destination> &destinations,
                                bool &onlyDestinations) {
  SmallVector<OpOperand *> uses = llvm::to_vector(
      llvm::map_range(value.getUses(), [](OpOperand &use) { return &use; }));
  for (OpOperand *use : llvm::reverse(uses)) {
    Operation *owner = use->getOwner();
    if (isReshape(owner)) {
      path.push_back(owner);
      collectDestinations(owner->getResult(0), path, destinations,
                          onlyDestinations);
      path.pop_back();
    } else if (isDestination(*use)) {
      destinations.push_back({use, llvm::to_vector(path)});
    } else {
      onlyDestinations = false;
    }
  }
}

/// The constant every element of the fill `op` (isFill) is, or null for a
/// tensor.empty or when its writes disagree.
static TypedAttr getFillValue(Operation *op) {
  TypedAttr value;
  bool uniform = true;
  auto record = [&](Attribute attr) {
    auto typed = dyn_cast_or_null<TypedAttr>(attr);
    if (!typed || (value && value != typed))
      uniform = false;
    value = typed;
  };
  op->walk([&](Operation *nested) {
    if (auto fill = dyn_cast<linalg::FillOp>(nested)) {
      Attribute attr;
      matchPattern(fill.value(), m_Constant(&attr));
      record(attr);
    } else if (auto write = dyn_cast<vector::TransferWriteOp>(nested)) {
      DenseElementsAttr attr;
      if (matchPattern(write.getVector(), m_Constant(&attr)) && attr.isSplat())
        record(attr.getSplatValue<Attribute>());
      else
        uniform = false;
    }
  });
  return uniform ? value : TypedAttr();
}

/// The box an init of a parallel generic writes, when its output `map`
/// has distinct loops plus constants as results, (d0, d1, d2 + 1, d3 + 1):
/// the offset of each dimension into `offsets` and the extent (the loop's,
/// `ranges`) into `extents`. False for any other map.
static bool getWrittenBox(AffineMap map, ArrayRef<int64_t> ranges,
                          SmallVectorImpl<int64_t> &offsets,
                          SmallVectorImpl<int64_t> &extents) {
  if (map.getNumResults() != map.getNumDims() || map.getNumSymbols() != 0)
    return false;
  llvm::SmallBitVector seen(map.getNumDims());
  for (AffineExpr result : map.getResults()) {
    int64_t offset = 0;
    if (auto sum = dyn_cast<AffineBinaryOpExpr>(result);
        sum && sum.getKind() == AffineExprKind::Add) {
      auto constant = dyn_cast<AffineConstantExpr>(sum.getRHS());
      if (!constant)
        return false;
      offset = constant.getValue();
      result = sum.getLHS();
    }
    auto dim = dyn_cast<AffineDimExpr>(result);
    if (!dim || seen.test(dim.getPosition()) || offset < 0 ||
        ShapedType::isDynamic(ranges[dim.getPosition()]))
      return false;
    seen.set(dim.getPosition());
    offsets.push_back(offset);
    extents.push_back(ranges[dim.getPosition()]);
  }
  return true;
}

/// An init of a scattering generic that writes only a box of it
/// (getWrittenBox), into a constant fill.
struct ScatteredInit {
  unsigned index;
  TypedAttr value;
  SmallVector<int64_t> offsets, extents;
};

/// The inits of the parallel generic `op` that scatter into a box of a
/// constant fill (isFill, getFillValue): the padding of a convolution
/// (convert-mp-to-linalg's buildPadded), alone or fused with its producer
/// (whose other inits its output maps cover). Empty when an init writes
/// anything else but all of its tensor through such a map.
static SmallVector<ScatteredInit> getScatteredInits(linalg::GenericOp op) {
  if (op.getNumReductionLoops() != 0 || !op.hasPureTensorSemantics())
    return {};
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<ScatteredInit> scattered;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    ScatteredInit box;
    box.index = init.getOperandNumber() - op.getNumDpsInputs();
    if (!getWrittenBox(op.getMatchingIndexingMap(&init), ranges, box.offsets,
                       box.extents))
      return {};
    auto type = cast<RankedTensorType>(init.get().getType());
    if (!type.hasStaticShape())
      return {};
    ArrayRef<int64_t> shape = type.getShape();
    if (llvm::all_of(box.offsets, [](int64_t offset) { return offset == 0; }) &&
        ArrayRef<int64_t>(box.extents) == shape)
      continue;
    Operation *fill = init.get().getDefiningOp();
    if (!fill || !isFill(fill))
      return {};
    box.value = getFillValue(fill);
    if (!box.value)
      return {};
    scattered.push_back(std::move(box));
  }
  return scattered;
}

/// Rewrites the generic `op` so that each of its `scattered` inits
/// (getScatteredInits) is written once per element: `op` writes the box in
/// place (an extract_slice of a new tensor.empty, inserted back), its map
/// without the constants and its payload reading the fill's constant where
/// it read the fill; then one linalg.fill of the constant per slab of the
/// rest of the tensor (per dimension, the part before and after the box,
/// within the box in the dimensions before it; one strided slab for both
/// when each is one element wide). Other operands stay.
static void fillOnlyBorders(linalg::GenericOp op,
                            ArrayRef<ScatteredInit> scattered) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  MLIRContext *context = op.getContext();
  SmallVector<Value> inits = op.getDpsInits();
  SmallVector<Type> resultTypes(op->getResultTypes());
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  SmallVector<Value> constants, empties;
  for (const ScatteredInit &box : scattered) {
    auto type = cast<RankedTensorType>(inits[box.index].getType());
    constants.push_back(arith::ConstantOp::create(b, loc, box.value));
    empties.push_back(tensor::EmptyOp::create(b, loc, type.getShape(),
                                              type.getElementType()));
    auto sliceType = RankedTensorType::get(box.extents, type.getElementType());
    inits[box.index] = tensor::ExtractSliceOp::create(
        b, loc, sliceType, empties.back(), ValueRange{}, ValueRange{},
        ValueRange{}, box.offsets, box.extents,
        SmallVector<int64_t>(type.getRank(), 1));
    resultTypes[box.index] = sliceType;
    AffineMap &map = maps[op.getNumDpsInputs() + box.index];
    SmallVector<AffineExpr> loops;
    for (auto [expr, offset] : llvm::zip(map.getResults(), box.offsets))
      loops.push_back(expr - offset);
    map = AffineMap::get(map.getNumDims(), 0, loops, context);
  }
  auto boxed =
      linalg::GenericOp::create(b, loc, resultTypes, op.getDpsInputs(), inits,
                                maps, op.getIteratorTypesArray());
  Block *body = op.getBody();
  Block *block =
      b.createBlock(&boxed.getRegion(), {}, body->getArgumentTypes(),
                    SmallVector<Location>(body->getNumArguments(), loc));
  IRMapping mapping;
  mapping.map(body->getArguments(), block->getArguments());
  for (auto [box, constant] : llvm::zip(scattered, constants))
    mapping.map(body->getArgument(op.getNumDpsInputs() + box.index), constant);
  for (Operation &nested : *body)
    b.clone(nested, mapping);
  b.setInsertionPointAfter(boxed);

  SmallVector<Value> results(boxed->getResults());
  for (auto [box, constant, empty] : llvm::zip(scattered, constants, empties)) {
    auto type = cast<RankedTensorType>(empty.getType());
    ArrayRef<int64_t> shape = type.getShape();
    int64_t rank = type.getRank();
    SmallVector<int64_t> ones(rank, 1);
    Value result = tensor::InsertSliceOp::create(
        b, loc, results[box.index], empty, ValueRange{}, ValueRange{},
        ValueRange{}, box.offsets, box.extents, ones);
    // The slabs around the box: per dimension, the part before it and the
    // part after it, or both as one strided slab when each is one element
    // wide (the left and right columns of a padding: one pass, the
    // neighbours in memory of each row's end written together).
    SmallVector<int64_t> slabOffsets(rank, 0), slabSizes(shape),
        slabStrides(ones);
    for (int64_t i = 0; i < rank; ++i) {
      int64_t end = box.offsets[i] + box.extents[i];
      SmallVector<std::array<int64_t, 3>, 2> slabs;
      if (box.offsets[i] == 1 && shape[i] - end == 1)
        slabs.push_back({0, 2, shape[i] - 1});
      else
        slabs.append({{0, box.offsets[i], 1}, {end, shape[i] - end, 1}});
      for (auto [begin, size, stride] : slabs) {
        if (size <= 0)
          continue;
        slabOffsets[i] = begin;
        slabSizes[i] = size;
        slabStrides[i] = stride;
        auto slabType = RankedTensorType::get(slabSizes, type.getElementType());
        Value slab = tensor::ExtractSliceOp::create(
            b, loc, slabType, result, ValueRange{}, ValueRange{}, ValueRange{},
            slabOffsets, slabSizes, slabStrides);
        Value filled =
            linalg::FillOp::create(b, loc, constant, slab).getResult(0);
        result = tensor::InsertSliceOp::create(
            b, loc, filled, result, ValueRange{}, ValueRange{}, ValueRange{},
            slabOffsets, slabSizes, slabStrides);
      }
      slabOffsets[i] = box.offsets[i];
      slabSizes[i] = box.extents[i];
      slabStrides[i] = 1;
    }
    results[box.index] = result;
  }
  op->replaceAllUsesWith(results);
  op->erase();
}

/// Gives each generic that scatters into a constant fill
/// (getScatteredInits) its own fill of only the elements it does not write
/// (fillOnlyBorders); erases the fills left without uses.
static void fillScatterBorders(func::FuncOp function) {
  SmallVector<linalg::GenericOp> generics;
  function.walk([&](linalg::GenericOp op) { generics.push_back(op); });
  for (linalg::GenericOp op : generics) {
    SmallVector<ScatteredInit> scattered = getScatteredInits(op);
    if (scattered.empty())
      continue;
    SmallVector<Operation *> fills;
    for (const ScatteredInit &box : scattered)
      fills.push_back(op.getDpsInits()[box.index].getDefiningOp());
    fillOnlyBorders(op, scattered);
    // The fills and the tensor.empty ops they started from, once unused.
    for (Operation *fill : fills) {
      if (!fill->use_empty())
        continue;
      llvm::SmallSetVector<Operation *, 2> empties;
      for (Value operand : fill->getOperands())
        if (isa<TensorType>(operand.getType()))
          empties.insert(operand.getDefiningOp());
      fill->erase();
      for (Operation *empty : empties)
        if (empty->use_empty())
          empty->erase();
    }
  }
}

struct RematerializeFills
    : public mp::impl::MPRematerializeFillsBase<RematerializeFills> {
  using Base::Base;

  void runOnOperation() override {
    fillScatterBorders(getOperation());
    size_t runLength = std::max<unsigned>(destinationsPerEmpty, 1);
    SmallVector<Operation *> fills;
    getOperation().walk([&](Operation *op) {
      if (isFill(op))
        fills.push_back(op);
    });
    for (Operation *fill : fills) {
      SmallVector<Operation *> path;
      SmallVector<Destination> destinations;
      bool onlyDestinations = true;
      collectDestinations(fill->getResult(0), path, destinations,
                          onlyDestinations);
      // One destination keeps the fill when nothing else reads it. An empty
      // tensor is shared by runs of `destinations-per-empty` consecutive
      // destinations instead: bufferization may still write several of a
      // run into one buffer where their values do not overlap in time
      // (reusing it; an allocation per destination made the bench block's
      // step 15-25% slower), and compares at most that many writers with
      // each other.
      bool empty = isa<tensor::EmptyOp>(fill);
      ArrayRef<Destination> cloned = destinations;
      if (empty)
        cloned = cloned.drop_front(
            std::min(runLength, cloned.size()));
      else if (onlyDestinations && !cloned.empty())
        cloned = cloned.drop_front();
      // The clones in the order of their uses, the fills right after the
      // original, each reshape right after the one it copies (where its other
      // operands are defined) and the earlier copies of it.
      OpBuilder builder(fill->getContext());
      builder.setInsertionPointAfter(fill);
      DenseMap<Operation *, Operation *> lastCopy;
      Value emptyClone;
      for (auto [position, destination] : llvm::enumerate(cloned)) {
        Value value;
        if (empty) {
          if (position % runLength == 0)
            emptyClone = builder.clone(*fill)->getResult(0);
          value = emptyClone;
        } else {
          IRMapping mapping;
          for (Value operand : fill->getOperands())
            if (isa<TensorType>(operand.getType()) &&
                isEmptyTensor(operand) && !mapping.contains(operand))
              mapping.map(operand, cloneEmptyTensor(builder, operand));
          value = builder.clone(*fill, mapping)->getResult(0);
        }
        for (Operation *reshape : destination.reshapes) {
          Operation *&last = lastCopy[reshape];
          OpBuilder reshapeBuilder(fill->getContext());
          reshapeBuilder.setInsertionPointAfter(last ? last : reshape);
          IRMapping reshapeMapping;
          reshapeMapping.map(reshape->getOperand(0), value);
          last = reshapeBuilder.clone(*reshape, reshapeMapping);
          value = last->getResult(0);
        }
        destination.use->set(value);
      }
      // The reshapes (innermost first) and the fill that no use reads any
      // more: left in place, they would keep the fill where it was (a
      // tensor-level reshape nobody reads is erased by no pass before
      // bufferization, which would then fill the buffer for nothing).
      // (CSE may share a reshape among destinations: each is visited once.)
      llvm::SmallSetVector<Operation *, 4> reshapes;
      for (const Destination &destination : destinations)
        reshapes.insert(destination.reshapes.begin(),
                        destination.reshapes.end());
      for (Operation *reshape : llvm::reverse(reshapes))
        if (reshape->use_empty())
          reshape->erase();
      if (fill->use_empty()) {
        SmallVector<Value> operands(fill->getOperands());
        fill->erase();
        for (Value operand : operands)
          if (Operation *def = operand.getDefiningOp();
              def && isa<tensor::EmptyOp>(def) && def->use_empty())
            def->erase();
      }
    }
  }
};

} // namespace
