//===- DeviceResident.cpp - The device-resident step of mp-gpu-pipeline ---===//
//
// The two steps of mp-gpu-pipeline{device-resident} that move everything of a
// train step that is not a Tensor Core GEMM onto the device. They assume a
// module after convert-mp-to-nvvm{device-resident}, convert-mp-to-linalg,
// bufferization with results as out-parameters and buffer deallocation: host
// functions of one block on memrefs of static shape.
//
// mp-device-loops turns every linalg op of a host function into an
// scf.parallel over its parallel dimensions, listed first (a generic whose
// reduction dimensions come first is interchanged), whose body runs the
// reduction dimensions as scf.for loops in ascending order: each output
// element is computed by one thread, in the order of the CPU lowering's loop
// nest, so a reduction rounds exactly as mp-cpu-pipeline{vectorize=false}
// does. What would be left on the host and touches tensor data is moved to
// the device too: a top-level scf.for/scf.if/memref.store (a reduction to a
// scalar, a 0-d update) becomes the body of a one-iteration scf.parallel, and
// the scalar computations a loop uses from outside (memref.load of a 0-d
// buffer, the arith and math on it: the step count of Adam's bias
// correction, the loss scale) are cloned into the loop, so that every thread
// recomputes them from device memory. Each loop is then collapsed to one
// dimension, which upstream's scf-parallel-loop-tiling, gpu-map-parallel-loops
// and convert-parallel-loops-to-gpu map onto blocks and threads. Constant
// globals (bufferized tensor constants) move too: a load of a splat one is
// its value, a loop reading another gets its own memref.get_global (a device
// global once outlining clones it into the kernel's gpu.module), a copy
// from one is a kernel, and a Tensor Core launcher given one gets a device
// buffer a copy kernel fills. It refuses, naming the op, a dynamic shape and
// any host op that would touch tensor data it cannot move (a call, an
// alloca, a global that is not constant).
//
// mp-device-buffers runs after gpu-kernel-outlining: every function's device
// work goes onto one stream in program order (the `gpu.wait async` at its
// entry): memref.alloc/dealloc/copy become gpu.alloc/dealloc/memcpy on it,
// the launches become async on it, the Tensor Core launcher calls get it as
// their stream operand, and the function waits for the stream before it
// returns (the step's one host synchronisation, at its end). The module gets
// `mp.device_resident`; gpu.modules without a target get `target`; the
// constant globals no host op reads any more are erased.
//
//===----------------------------------------------------------------------===//

#include "mp/Pipelines/Pipelines.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/Passes.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mp/Conversion/Passes.h"
#include "mp/Dialect/MP/IR/MPDialect.h"
#include "mp/Dialect/MP/Transforms/Passes.h"

#include <numeric>

using namespace mlir;
using namespace mlir::mp;

namespace {

/// The message every refusal of the device-resident lowering ends with.
constexpr StringLiteral kRefusal =
    " (mp-gpu-pipeline{device-resident=true} runs every op of the step on "
    "the device; device-resident=false runs it on the host)";

/// The buffer `value` is a view of: an allocation, a function argument
/// or a memref.get_global.
static Value getRootBuffer(Value value) {
  while (auto view = value.getDefiningOp<ViewLikeOpInterface>())
    value = view.getViewSource();
  return value;
}

/// The constant global with an initial value that `op` (a memref.get_global)
/// reads, if it is one: data the kernels can have in device memory.
static memref::GlobalOp getConstantGlobal(memref::GetGlobalOp op) {
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
      op, op.getNameAttr());
  if (!global || !global.getConstant() || !global.getInitialValue())
    return {};
  return global;
}

/// True for a view of a constant global (getConstantGlobal) or the
/// memref.get_global itself: a kernel that reads it gets its own
/// memref.get_global, which gpu-kernel-outlining clones with the global into
/// the kernel's gpu.module, a device global loaded with the module.
static bool isDeviceConstant(Operation *op) {
  while (op && !isa<memref::GetGlobalOp>(op)) {
    auto view = dyn_cast<ViewLikeOpInterface>(op);
    if (!view || !isa<memref::MemRefDialect>(op->getDialect()) || !isPure(op))
      return false;
    op = view.getViewSource().getDefiningOp();
  }
  return op && getConstantGlobal(cast<memref::GetGlobalOp>(op));
}

/// The splat value of the constant global `buffer` is a view of, if it is
/// a splat of an integer, index or float type.
static TypedAttr getSplatConstant(Value buffer) {
  auto get = getRootBuffer(buffer).getDefiningOp<memref::GetGlobalOp>();
  memref::GlobalOp global = get ? getConstantGlobal(get) : nullptr;
  auto elements = global ? dyn_cast<DenseElementsAttr>(*global.getInitialValue())
                         : nullptr;
  if (!elements || !elements.isSplat() ||
      !elements.getElementType().isIntOrIndexOrFloat())
    return {};
  return elements.getSplatValue<TypedAttr>();
}

/// True for an op whose result a kernel can recompute from device memory: a
/// load, a pure scalar op without regions, or a constant global or its view
/// (isDeviceConstant).
static bool isSinkable(Operation *op) {
  if (isa<memref::LoadOp>(op) || isDeviceConstant(op))
    return true;
  if (op->getNumRegions() || op->getNumResults() != 1 || !isPure(op))
    return false;
  return op->getResult(0).getType().isIntOrIndexOrFloat();
}

/// True for the host ops a device-resident function may keep: buffer
/// management, views, pointer and scalar arithmetic, the kernels' loops and
/// the Tensor Core launcher calls.
static bool isHostOp(Operation *op) {
  // A global is host memory: a constant one moves into the kernels that
  // read it (isDeviceConstant).
  if (isa<memref::GetGlobalOp>(op))
    return false;
  if (isa<scf::ParallelOp, memref::AllocOp, memref::DeallocOp, memref::CopyOp,
          memref::ExtractAlignedPointerAsIndexOp,
          memref::ExtractStridedMetadataOp, func::ReturnOp>(op))
    return true;
  if (isa<ViewLikeOpInterface>(op) &&
      isa<memref::MemRefDialect>(op->getDialect()))
    return true;
  if (auto call = dyn_cast<LLVM::CallOp>(op))
    return call->hasAttr(MPDialect::kDeviceStreamAttrName);
  return !isa<memref::LoadOp>(op) && !op->getNumRegions() && isPure(op);
}

/// True for a buffer of its own: an allocation, an argument of a function
/// (the mp.device_resident contract: the caller passes a buffer per argument
/// and result, none aliasing another) or a constant global.
static bool isBuffer(Value root) {
  if (root.getDefiningOp<memref::AllocOp>())
    return true;
  // A constant global: read only, so distinct from every buffer written.
  if (auto get = root.getDefiningOp<memref::GetGlobalOp>())
    return static_cast<bool>(getConstantGlobal(get));
  auto argument = dyn_cast<BlockArgument>(root);
  return argument && isa<func::FuncOp>(argument.getOwner()->getParentOp());
}

/// The buffer whose aligned pointer `pointer` is (through index_cast and
/// inttoptr, as convert-mp-to-nvvm passes buffers to launchers), if any.
static Value getPointerBuffer(Value pointer) {
  if (auto cast = pointer.getDefiningOp<LLVM::IntToPtrOp>())
    pointer = cast.getArg();
  if (auto cast = pointer.getDefiningOp<arith::IndexCastOp>())
    pointer = cast.getIn();
  if (auto base =
          pointer.getDefiningOp<memref::ExtractAlignedPointerAsIndexOp>())
    return getRootBuffer(base.getSource());
  return {};
}

/// True if `op` (with its regions) may write a view of `root`: a write
/// effect on it, or a call given its pointer.
static bool writesBuffer(Operation *op, Value root) {
  WalkResult result = op->walk([&](Operation *nested) {
    if (isa<LLVM::CallOp>(nested)) {
      for (Value operand : nested->getOperands())
        if (getPointerBuffer(operand) == root)
          return WalkResult::interrupt();
      return WalkResult::advance();
    }
    auto memory = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!memory)
      return nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                 ? WalkResult::advance()
                 : WalkResult::interrupt();
    SmallVector<MemoryEffects::EffectInstance> effects;
    memory.getEffects(effects);
    for (const MemoryEffects::EffectInstance &effect : effects) {
      if (!isa<MemoryEffects::Write>(effect.getEffect()))
        continue;
      Value value = effect.getValue();
      if (!value || getRootBuffer(value) == root)
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

struct DeviceLoops : public PassWrapper<DeviceLoops, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DeviceLoops)

  DeviceLoops() = default;
  DeviceLoops(const DeviceLoops &other) : PassWrapper(other) {
    sequentialReductions = other.sequentialReductions;
  }
  explicit DeviceLoops(bool sequentialReductions)
      : sequentialReductions(sequentialReductions) {}

  /// Full reductions in one thread in the CPU lowering's order, instead of
  /// lowerTreeReduction's tree.
  bool sequentialReductions = false;

  StringRef getArgument() const override { return "mp-device-loops"; }
  StringRef getDescription() const override {
    return "Turn the linalg ops and host scalar code of a bufferized step "
           "into one-dimensional scf.parallel loops to map onto the GPU "
           "(mp-gpu-pipeline{device-resident})";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry
        .insert<arith::ArithDialect, memref::MemRefDialect, scf::SCFDialect>();
  }

  void runOnOperation() override {
    bool valid = true;
    for (func::FuncOp function : getOperation().getOps<func::FuncOp>())
      if (!function.isExternal() && failed(lowerFunction(function)))
        valid = false;
    if (!valid)
      signalPassFailure();
  }

  /// Reports the first argument or op of `function` with a dynamic shape.
  LogicalResult checkStaticShapes(func::FuncOp function) {
    auto isDynamic = [](Type type) {
      auto memref = dyn_cast<MemRefType>(type);
      return memref && !memref.hasStaticShape();
    };
    for (Type type : function.getArgumentTypes())
      if (isDynamic(type))
        return function.emitOpError()
               << "cannot run on the device: argument of dynamic shape " << type
               << kRefusal;
    WalkResult result = function.walk([&](Operation *op) {
      for (Type type :
           llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes())) {
        if (!isDynamic(type))
          continue;
        op->emitOpError() << "cannot run on the device: dynamic shape " << type
                          << kRefusal;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return failure(result.wasInterrupted());
  }

  /// Turns each memref.copy of `function` whose source or target is not a
  /// contiguous buffer at offset 0 (a subview: amax_history_push's shift
  /// writes a history from its second element on) into a linalg.copy, a
  /// kernel once lowered: the gpu.memcpy that mp-device-buffers makes of a
  /// copy is lowered by gpu-to-llvm to mgpuMemcpy of the descriptors'
  /// aligned pointers, without their offsets or strides. A copy from a
  /// constant global becomes a kernel too, which reads the device global
  /// (a linalg.fill if the global is a splat), not a host-to-device copy of
  /// host memory in every step.
  static void copyViewsWithKernels(func::FuncOp function,
                                   IRRewriter &rewriter) {
    auto isWholeBuffer = [](Type type) {
      auto memref = cast<MemRefType>(type);
      SmallVector<int64_t> strides;
      int64_t offset;
      return memref::isStaticShapeAndContiguousRowMajor(memref) &&
             succeeded(memref.getStridesAndOffset(strides, offset)) &&
             offset == 0;
    };
    SmallVector<memref::CopyOp> copies;
    function.walk([&](memref::CopyOp copy) {
      if (!isWholeBuffer(copy.getSource().getType()) ||
          !isWholeBuffer(copy.getTarget().getType()) ||
          isDeviceConstant(copy.getSource().getDefiningOp()))
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      rewriter.setInsertionPoint(copy);
      if (TypedAttr splat = getSplatConstant(copy.getSource())) {
        Value value =
            arith::ConstantOp::create(rewriter, copy.getLoc(), splat);
        linalg::FillOp::create(rewriter, copy.getLoc(), value,
                               copy.getTarget());
      } else {
        linalg::CopyOp::create(rewriter, copy.getLoc(), copy.getSource(),
                               copy.getTarget());
      }
      rewriter.eraseOp(copy);
    }
  }

  /// Lowers every linalg op of `function` to an scf.parallel over its
  /// parallel dimensions around scf.for loops over its reductions (a full
  /// reduction to two loops, lowerTreeReduction, unless
  /// sequentialReductions).
  LogicalResult lowerLinalg(func::FuncOp function, IRRewriter &rewriter) {
    SmallVector<linalg::LinalgOp> ops;
    function.walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          return op->emitOpError() << "cannot run on the device: it has no "
                                      "linalg.generic form"
                                   << kRefusal;
        generic = *generalized;
      }
      if (!sequentialReductions &&
          succeeded(lowerTreeReduction(generic, rewriter))) {
        rewriter.eraseOp(generic);
        continue;
      }
      // Parallel dimensions first, each group in its order.
      SmallVector<unsigned> order, reductions;
      for (auto [loop, iterator] :
           llvm::enumerate(generic.getIteratorTypesArray()))
        (iterator == utils::IteratorType::parallel ? order : reductions)
            .push_back(loop);
      llvm::append_range(order, reductions);
      if (!llvm::is_sorted(order)) {
        FailureOr<linalg::GenericOp> interchanged =
            linalg::interchangeGenericOp(rewriter, generic, order);
        if (failed(interchanged))
          return generic->emitOpError()
                 << "cannot run on the device: its parallel loops cannot be "
                    "moved outside its reductions"
                 << kRefusal;
        generic = *interchanged;
      }
      if (failed(linalg::linalgOpToParallelLoops(rewriter, generic)))
        return generic->emitOpError()
               << "cannot run on the device: no loop nest" << kRefusal;
      rewriter.eraseOp(generic);
    }
    return success();
  }

  /// For each result of a full reduction (`generic`: no parallel dimension,
  /// static sizes, 0-d outputs), the op of its payload that combines the
  /// accumulator with a value computed from the inputs alone (`acc ⊕ v` or
  /// `v ⊕ acc`, ⊕ associative and commutative up to rounding); empty if the
  /// payload has another form.
  static SmallVector<Operation *> getCombiners(linalg::GenericOp generic) {
    if (generic.getNumParallelLoops() || !generic.getNumLoops() ||
        !generic.hasPureBufferSemantics())
      return {};
    for (OpOperand &init : generic.getDpsInitsMutable())
      if (generic.getMatchingIndexingMap(&init).getNumResults())
        return {};
    for (int64_t size : generic.getStaticLoopRanges())
      if (ShapedType::isDynamic(size))
        return {};
    Block &payload = generic.getRegion().front();
    auto yield = cast<linalg::YieldOp>(payload.getTerminator());
    SmallVector<Operation *> combiners;
    for (OpOperand &init : generic.getDpsInitsMutable()) {
      BlockArgument accumulator = generic.getMatchingBlockArgument(&init);
      Operation *combiner =
          yield.getOperand(init.getOperandNumber() - generic.getNumDpsInputs())
              .getDefiningOp();
      if (!combiner || combiner->getBlock() != &payload ||
          !isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp,
               arith::MinimumFOp, arith::MaxNumFOp, arith::MinNumFOp,
               arith::AddIOp, arith::MulIOp, arith::AndIOp, arith::OrIOp,
               arith::XOrIOp, arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp,
               arith::MinUIOp>(combiner) ||
          !combiner->hasOneUse() || !accumulator.hasOneUse() ||
          !llvm::is_contained(combiner->getOperands(), accumulator))
        return {};
      combiners.push_back(combiner);
    }
    // The values combined must not depend on an accumulator.
    for (Operation *combiner : combiners)
      for (Value operand : combiner->getOperands()) {
        SetVector<Operation *> slice;
        BackwardSliceOptions options;
        options.inclusive = true;
        options.filter = [&](Operation *op) {
          return op->getBlock() == &payload;
        };
        if (Operation *def = operand.getDefiningOp())
          (void)getBackwardSlice(def, &slice, options);
        for (Operation *op : slice)
          for (Value used : op->getOperands())
            if (auto argument = dyn_cast<BlockArgument>(used))
              if (argument.getOwner() == &payload &&
                  argument.getArgNumber() >= generic.getNumDpsInputs())
                return {};
      }
    return combiners;
  }

  /// Lowers a full reduction of N elements (getCombiners) to a fixed tree
  /// of two loops, a function of N alone: P = ceil(N / ceil(sqrt(N)))
  /// threads, thread p combining the elements p, p + P, p + 2P, ... (row-
  /// major order of the reduction indices) in that order into partial p,
  /// then one thread combining the initial value and partials 0 .. P-1 in
  /// that order. Fails, changing nothing, where getCombiners fails.
  LogicalResult lowerTreeReduction(linalg::GenericOp generic,
                                   IRRewriter &rewriter) {
    SmallVector<Operation *> combiners = getCombiners(generic);
    if (combiners.empty())
      return failure();
    SmallVector<int64_t> sizes = generic.getStaticLoopRanges();
    int64_t total = 1;
    for (int64_t size : sizes)
      total *= size;
    if (total < 2)
      return failure();
    int64_t chunk = 1;
    while (chunk * chunk < total)
      ++chunk;
    int64_t partials = llvm::divideCeil(total, chunk);

    Location loc = generic.getLoc();
    rewriter.setInsertionPoint(generic);
    auto index = [&](int64_t value) -> Value {
      return arith::ConstantIndexOp::create(rewriter, loc, value);
    };
    Block &payload = generic.getRegion().front();
    unsigned numInputs = generic.getNumDpsInputs();
    // The payload at flat element `element`: the value each combiner
    // combines with its accumulator.
    auto combined = [&](Value element) {
      SmallVector<Value> loops(sizes.size());
      for (int64_t d = sizes.size() - 1; d >= 0; --d) {
        if (d == 0) {
          loops[d] = element;
          break;
        }
        Value size = index(sizes[d]);
        loops[d] = arith::RemUIOp::create(rewriter, loc, element, size);
        element = arith::DivUIOp::create(rewriter, loc, element, size);
      }
      IRMapping mapping;
      for (OpOperand *input : generic.getDpsInputOperands()) {
        AffineMap map = generic.getMatchingIndexingMap(input);
        SmallVector<Value> indices;
        for (unsigned r = 0; r < map.getNumResults(); ++r)
          indices.push_back(affine::AffineApplyOp::create(
              rewriter, loc, map.getSubMap({r}), loops));
        Value value = input->get();
        if (isa<MemRefType>(value.getType()))
          value = memref::LoadOp::create(rewriter, loc, value, indices);
        mapping.map(generic.getMatchingBlockArgument(input), value);
      }
      for (Operation &op : payload.without_terminator()) {
        if (llvm::is_contained(combiners, &op))
          continue;
        if (auto dimension = dyn_cast<linalg::IndexOp>(op)) {
          mapping.map(dimension.getResult(), loops[dimension.getDim()]);
          continue;
        }
        rewriter.clone(op, mapping);
      }
      SmallVector<Value> values;
      for (auto [i, combiner] : llvm::enumerate(combiners)) {
        BlockArgument accumulator = payload.getArgument(numInputs + i);
        Value other = combiner->getOperand(0) == accumulator
                          ? combiner->getOperand(1)
                          : combiner->getOperand(0);
        values.push_back(mapping.lookupOrDefault(other));
      }
      return values;
    };
    // `accumulator ⊕ value` as the payload's combiner `i` writes it.
    auto combine = [&](unsigned i, Value accumulator, Value value) -> Value {
      Operation *combiner = combiners[i];
      BlockArgument argument = payload.getArgument(numInputs + i);
      IRMapping mapping;
      mapping.map(argument, accumulator);
      for (Value operand : combiner->getOperands())
        if (operand != argument)
          mapping.map(operand, value);
      return rewriter.clone(*combiner, mapping)->getResult(0);
    };

    SmallVector<Value> buffers;
    for (auto [i, combiner] : llvm::enumerate(combiners))
      buffers.push_back(memref::AllocOp::create(
          rewriter, loc,
          MemRefType::get({partials}, combiner->getResult(0).getType())));
    Value zero = index(0), one = index(1);
    auto first =
        scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                ValueRange{index(partials)}, ValueRange{one});
    rewriter.setInsertionPoint(first.getBody()->getTerminator());
    Value thread = first.getInductionVars()[0];
    // Elements of partial `thread`: ceil((N - thread) / P).
    Value count = arith::DivUIOp::create(
        rewriter, loc,
        arith::SubIOp::create(rewriter, loc, index(total + partials - 1),
                              thread),
        index(partials));
    auto elements =
        scf::ForOp::create(rewriter, loc, one, count, one, combined(thread));
    rewriter.setInsertionPointToStart(elements.getBody());
    Value element = arith::AddIOp::create(
        rewriter, loc, thread,
        arith::MulIOp::create(rewriter, loc, elements.getInductionVar(),
                              index(partials)));
    SmallVector<Value> values = combined(element), updated;
    for (auto [i, value] : llvm::enumerate(values))
      updated.push_back(combine(i, elements.getRegionIterArg(i), value));
    scf::YieldOp::create(rewriter, loc, updated);
    rewriter.setInsertionPointAfter(elements);
    for (auto [i, buffer] : llvm::enumerate(buffers))
      memref::StoreOp::create(rewriter, loc, elements.getResult(i), buffer,
                              ValueRange{thread});

    rewriter.setInsertionPoint(generic);
    auto second = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                          ValueRange{one}, ValueRange{one});
    rewriter.setInsertionPoint(second.getBody()->getTerminator());
    SmallVector<Value> initial;
    for (Value init : generic.getDpsInits())
      initial.push_back(memref::LoadOp::create(rewriter, loc, init));
    auto sums =
        scf::ForOp::create(rewriter, loc, zero, index(partials), one, initial);
    rewriter.setInsertionPointToStart(sums.getBody());
    updated.clear();
    for (auto [i, buffer] : llvm::enumerate(buffers))
      updated.push_back(
          combine(i, sums.getRegionIterArg(i),
                  memref::LoadOp::create(rewriter, loc, buffer,
                                         ValueRange{sums.getInductionVar()})));
    scf::YieldOp::create(rewriter, loc, updated);
    rewriter.setInsertionPointAfter(sums);
    for (auto [i, init] : llvm::enumerate(generic.getDpsInits()))
      memref::StoreOp::create(rewriter, loc, sums.getResult(i), init);
    rewriter.setInsertionPoint(generic);
    for (Value buffer : buffers)
      memref::DeallocOp::create(rewriter, loc, buffer);
    return success();
  }

  /// Clones into `loop` the scalar computations it uses from its block;
  /// fails if a load would then read a buffer written in between.
  LogicalResult sinkScalars(scf::ParallelOp loop, IRRewriter &rewriter) {
    llvm::SetVector<Value> usedAbove;
    getUsedValuesDefinedAbove(loop.getRegion(), usedAbove);
    IRMapping mapping;
    rewriter.setInsertionPointToStart(loop.getBody());
    std::function<LogicalResult(Value)> sink =
        [&](Value value) -> LogicalResult {
      Operation *def = value.getDefiningOp();
      if (mapping.contains(value) || !def ||
          def->getBlock() != loop->getBlock() || !isSinkable(def))
        return success();
      for (Value operand : def->getOperands())
        if (failed(sink(operand)))
          return failure();
      auto load = dyn_cast<memref::LoadOp>(def);
      if (load && !isDeviceConstant(load.getMemRef().getDefiningOp())) {
        Value root = getRootBuffer(load.getMemRef());
        for (Operation *between = load->getNextNode(); between != loop;
             between = between->getNextNode()) {
          if (writesBuffer(between, root))
            return load->emitOpError()
                   << "cannot run on the device: its value, used by a loop, "
                      "is read before "
                   << between->getName() << " may write the buffer" << kRefusal;
        }
      }
      rewriter.clone(*def, mapping);
      return success();
    };
    for (Value value : usedAbove) {
      if (failed(sink(value)))
        return failure();
      if (Value clone = mapping.lookupOrNull(value))
        replaceAllUsesInRegionWith(value, clone, loop.getRegion());
    }
    return success();
  }

  /// Fuses adjacent loops of `function` with the same iteration space where
  /// each thread of the second reads only the elements the same thread of
  /// the first wrote (upstream's scf-parallel-loop-fusion): a producer and
  /// its elementwise consumers, a reduction and the normalisation that reads
  /// its row, independent loops over the same shape. The buffers of a run of
  /// loops are allocated before it and freed after it, so that allocations
  /// do not separate the loops, and equal bounds become the same constants.
  void fuseLoops(func::FuncOp function, IRRewriter &rewriter) {
    Block &body = function.getBody().front();
    // Identity affine.apply (each loop index of linalgOpToParallelLoops):
    // the index itself, so that stores and loads name the same value.
    function.walk([&](affine::AffineApplyOp apply) {
      if (apply.getAffineMap().isIdentity() && apply->getNumOperands() == 1) {
        rewriter.replaceAllUsesWith(apply.getResult(), apply->getOperand(0));
        rewriter.eraseOp(apply);
      }
    });
    // Runs of loops, buffer allocations and deallocations, and pure ops.
    auto inRun = [](Operation &op) {
      if (op.hasTrait<OpTrait::IsTerminator>())
        return false;
      return isa<scf::ParallelOp, memref::AllocOp, memref::DeallocOp>(op) ||
             (isMemoryEffectFree(&op) && !op.getNumRegions());
    };
    for (auto it = body.begin(); it != body.end();) {
      if (!inRun(*it)) {
        ++it;
        continue;
      }
      Operation *first = &*it;
      SmallVector<Operation *> deallocs;
      for (; it != body.end() && inRun(*it); ++it) {
        if (isa<memref::DeallocOp>(*it))
          deallocs.push_back(&*it);
      }
      // `it` ends the run: an op with effects, or the terminator.
      for (Operation &op : llvm::make_early_inc_range(
               llvm::make_range(first->getIterator(), it)))
        if (isa<memref::AllocOp>(op) && &op != first)
          op.moveBefore(first);
      for (Operation *dealloc : deallocs)
        dealloc->moveBefore(&*it);
    }
    // The same constants for the same bounds.
    DenseMap<int64_t, Value> constants;
    rewriter.setInsertionPointToStart(&body);
    for (auto loop : body.getOps<scf::ParallelOp>())
      for (OpOperand &bound : loop->getOpOperands()) {
        std::optional<int64_t> value = getConstantIntValue(bound.get());
        if (!value || !bound.get().getType().isIndex())
          continue;
        Value &constant = constants[*value];
        if (!constant)
          constant =
              arith::ConstantIndexOp::create(rewriter, loop.getLoc(), *value);
        bound.set(constant);
      }
    // Distinct buffers do not alias (isBuffer); views of one buffer do.
    auto mayAlias = [](Value a, Value b) {
      Value rootA = getRootBuffer(a), rootB = getRootBuffer(b);
      return rootA == rootB || !isBuffer(rootA) || !isBuffer(rootB);
    };
    scf::naivelyFuseParallelOps(function.getBody(), mayAlias);
    // Then the loops of each run in the order of their dependence levels
    // (scheduleLoops), which makes the independent halves of interleaved
    // chains adjacent (the first levels of several full reductions, the
    // second levels that chain through one flag), and fuse again.
    scheduleLoops(body, /*iterations=*/nullptr, rewriter);
    scf::naivelyFuseParallelOps(function.getBody(), mayAlias);
  }

  /// True if the host takes the address of a view of `value` (a launcher's
  /// pointer operand).
  static bool hasHostAddress(Value value) {
    for (Operation *user : value.getUsers()) {
      if (isa<memref::ExtractAlignedPointerAsIndexOp,
              memref::ExtractStridedMetadataOp>(user))
        return true;
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == value &&
            hasHostAddress(user->getResult(0)))
          return true;
    }
    return false;
  }

  /// Gives the Tensor Core launchers a device buffer for each constant
  /// global whose address they take (a constant weight): a buffer allocated
  /// at the step's start and filled by a copy kernel from the device global,
  /// freed before it returns (the launchers take raw device pointers, and
  /// the device global's address is the kernels' alone).
  static void bufferLauncherConstants(func::FuncOp function,
                                      IRRewriter &rewriter) {
    Block &body = function.getBody().front();
    for (auto get :
         llvm::make_early_inc_range(body.getOps<memref::GetGlobalOp>())) {
      if (!getConstantGlobal(get) || !hasHostAddress(get.getResult()))
        continue;
      rewriter.setInsertionPointAfter(get);
      Location loc = get.getLoc();
      Value buffer = memref::AllocOp::create(rewriter, loc, get.getType());
      rewriter.replaceAllUsesWith(get.getResult(), buffer);
      linalg::CopyOp::create(rewriter, loc, get.getResult(), buffer);
      rewriter.setInsertionPoint(body.getTerminator());
      memref::DeallocOp::create(rewriter, loc, buffer);
    }
  }

  /// Replaces each load of a splat constant global (or its view) by the
  /// splat value: a broadcast of a splat constant reads no memory.
  static void foldSplatLoads(func::FuncOp function, IRRewriter &rewriter) {
    SmallVector<memref::LoadOp> loads;
    function.walk([&](memref::LoadOp load) {
      if (getSplatConstant(load.getMemRef()))
        loads.push_back(load);
    });
    for (memref::LoadOp load : loads) {
      rewriter.setInsertionPoint(load);
      rewriter.replaceOpWithNewOp<arith::ConstantOp>(
          load, getSplatConstant(load.getMemRef()));
    }
  }

  LogicalResult lowerFunction(func::FuncOp function) {
    if (failed(checkStaticShapes(function)))
      return failure();
    if (!function.getBody().hasOneBlock())
      return function.emitOpError()
             << "cannot run on the device: its body has several blocks"
             << kRefusal;
    IRRewriter rewriter(function.getContext());
    bufferLauncherConstants(function, rewriter);
    copyViewsWithKernels(function, rewriter);
    if (failed(lowerLinalg(function, rewriter)))
      return failure();
    foldSplatLoads(function, rewriter);

    // Host loops and stores over tensor data: one device thread each.
    Block &body = function.getBody().front();
    for (Operation &op : llvm::make_early_inc_range(body)) {
      if (!isa<scf::ForOp, scf::IfOp, scf::WhileOp, memref::StoreOp>(op))
        continue;
      rewriter.setInsertionPoint(&op);
      Location loc = op.getLoc();
      Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
      Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
      auto single = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                            ValueRange{one}, ValueRange{one});
      op.moveBefore(single.getBody()->getTerminator());
    }

    SmallVector<scf::ParallelOp> loops(body.getOps<scf::ParallelOp>());
    for (scf::ParallelOp loop : loops)
      if (failed(sinkScalars(loop, rewriter)))
        return failure();
    // What the loops recompute is dead on the host now.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (isSinkable(&op) && op.use_empty())
        rewriter.eraseOp(&op);

    bool valid = true;
    for (Operation &op : body) {
      if (isHostOp(&op))
        continue;
      valid = false;
      auto get = dyn_cast<memref::GetGlobalOp>(op);
      if (get && !getConstantGlobal(get)) {
        get.emitOpError() << "cannot run on the device: a global that is not "
                             "a constant with an initial value is host memory"
                          << kRefusal;
        continue;
      }
      op.emitOpError() << "cannot run on the device: mp-gpu-pipeline maps "
                          "loops, buffers and Tensor Core launches onto the "
                          "device, not this op"
                       << kRefusal;
    }
    if (!valid)
      return failure();

    fuseLoops(function, rewriter);
    // Each loop collapsed to one dimension [0, iterations).
    DenseMap<Operation *, int64_t> iterations;
    for (scf::ParallelOp loop :
         llvm::make_early_inc_range(body.getOps<scf::ParallelOp>())) {
      int64_t count = 1;
      for (auto [lower, upper, step] : llvm::zip(
               loop.getLowerBound(), loop.getUpperBound(), loop.getStep())) {
        std::optional<int64_t> l = getConstantIntValue(lower),
                               u = getConstantIntValue(upper),
                               s = getConstantIntValue(step);
        // Static shapes (checked) give constant bounds.
        count =
            l && u && s && *s > 0
                ? count * llvm::divideCeil(std::max<int64_t>(*u - *l, 0), *s)
                : -1;
        if (count < 0)
          break;
      }
      unsigned rank = loop.getNumLoops();
      if (rank >= 2) {
        Operation *next = loop->getNextNode();
        std::vector<unsigned> all(rank);
        std::iota(all.begin(), all.end(), 0);
        collapseParallelLoops(rewriter, loop, {all});
        loop = cast<scf::ParallelOp>(next->getPrevNode());
      }
      iterations[loop] = count;
    }
    scheduleLoops(body, &iterations, rewriter);
    return success();
  }

  /// Collects the buffers (allocations and arguments) `loop` reads and
  /// writes; false if it has an effect on anything else or an unknown
  /// effect.
  static bool getAccessedBuffers(scf::ParallelOp loop,
                                 llvm::SmallDenseSet<Value> &reads,
                                 llvm::SmallDenseSet<Value> &writes) {
    WalkResult result = loop.getBody()->walk([&](Operation *op) {
      auto memory = dyn_cast<MemoryEffectOpInterface>(op);
      if (!memory)
        return op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()
                   ? WalkResult::advance()
                   : WalkResult::interrupt();
      SmallVector<MemoryEffects::EffectInstance> effects;
      memory.getEffects(effects);
      for (const MemoryEffects::EffectInstance &effect : effects) {
        bool read = isa<MemoryEffects::Read>(effect.getEffect());
        if (!read && !isa<MemoryEffects::Write>(effect.getEffect()))
          return WalkResult::interrupt();
        Value root =
            effect.getValue() ? getRootBuffer(effect.getValue()) : Value();
        if (!root || !isBuffer(root))
          return WalkResult::interrupt();
        (read ? reads : writes).insert(root);
      }
      return WalkResult::advance();
    });
    return !result.wasInterrupted();
  }

  /// True if `a` and `b` touch disjoint buffers but for reads of the same.
  static bool areIndependent(scf::ParallelOp a, scf::ParallelOp b) {
    llvm::SmallDenseSet<Value> readsA, writesA, readsB, writesB;
    if (!getAccessedBuffers(a, readsA, writesA) ||
        !getAccessedBuffers(b, readsB, writesB))
      return false;
    return conflictFree(readsA, writesA, readsB, writesB);
  }

  /// True if the buffers written on either side are not touched on the
  /// other.
  static bool conflictFree(const llvm::SmallDenseSet<Value> &readsA,
                           const llvm::SmallDenseSet<Value> &writesA,
                           const llvm::SmallDenseSet<Value> &readsB,
                           const llvm::SmallDenseSet<Value> &writesB) {
    return llvm::none_of(writesB,
                         [&](Value buffer) {
                           return readsA.contains(buffer) ||
                                  writesA.contains(buffer);
                         }) &&
           llvm::none_of(
               readsB, [&](Value buffer) { return writesA.contains(buffer); });
  }

  /// Reorders the loops of each run of `body` (loops with only pure ops
  /// between them) by dependence level: a loop's level is one more than
  /// that of the latest level of the earlier loops of the run it conflicts
  /// with (a buffer one writes and the other touches), 0 if none, so the
  /// loops of a level are independent, and moving each loop after the loops
  /// of lower levels keeps every dependence. With `iterations` (the count of
  /// each one-dimensional loop, [0, count) step 1), the loops of a level
  /// become one (mergeLoops: the casts of all parameters, the optimizer
  /// updates of all parameters, the first levels of several reductions),
  /// in chunks whose kernel parameters fit kParameterBudget.
  void scheduleLoops(Block &body,
                     const DenseMap<Operation *, int64_t> *iterations,
                     IRRewriter &rewriter) {
    SmallVector<scf::ParallelOp> run;
    SmallVector<
        std::pair<llvm::SmallDenseSet<Value>, llvm::SmallDenseSet<Value>>>
        accesses;
    auto flush = [&](Operation *end) {
      SmallVector<unsigned> levels;
      unsigned numLevels = 0;
      for (unsigned i = 0; i < run.size(); ++i) {
        unsigned level = 0;
        for (unsigned j = 0; j < i; ++j)
          if (!conflictFree(accesses[j].first, accesses[j].second,
                            accesses[i].first, accesses[i].second))
            level = std::max(level, levels[j] + 1);
        levels.push_back(level);
        numLevels = std::max(numLevels, level + 1);
      }
      for (unsigned level = 0; level < numLevels; ++level) {
        SmallVector<std::pair<scf::ParallelOp, int64_t>> group;
        for (unsigned i = 0; i < run.size(); ++i)
          if (levels[i] == level)
            group.emplace_back(run[i],
                               iterations ? iterations->lookup(run[i]) : 0);
        if (!iterations) {
          for (auto [loop, count] : group)
            loop->moveBefore(end);
          continue;
        }
        // Merged in chunks whose kernels' parameters fit (a chunk of one
        // loop is that loop).
        SmallVector<std::pair<scf::ParallelOp, int64_t>> chunk;
        llvm::SetVector<Value> captured;
        auto emit = [&]() {
          if (chunk.size() > 1)
            mergeLoops(chunk, end, rewriter);
          else
            for (auto [loop, count] : chunk)
              loop->moveBefore(end);
          chunk.clear();
          captured.clear();
        };
        for (auto entry : group) {
          llvm::SetVector<Value> more = captured;
          getUsedValuesDefinedAbove(entry.first.getRegion(), more);
          if (!chunk.empty() && getParameterBytes(more) > kParameterBudget)
            emit();
          getUsedValuesDefinedAbove(entry.first.getRegion(), captured);
          chunk.push_back(entry);
        }
        emit();
      }
      run.clear();
      accesses.clear();
    };
    for (Operation &op : llvm::make_early_inc_range(body)) {
      auto loop = dyn_cast<scf::ParallelOp>(op);
      llvm::SmallDenseSet<Value> reads, writes;
      if (loop && (!iterations || iterations->lookup(loop) > 0) &&
          getAccessedBuffers(loop, reads, writes)) {
        run.push_back(loop);
        accesses.emplace_back(std::move(reads), std::move(writes));
        continue;
      }
      if (isMemoryEffectFree(&op) && !op.getNumRegions() &&
          !op.hasTrait<OpTrait::IsTerminator>())
        continue;
      flush(&op);
    }
  }

  /// The kernel parameter bytes PTX allows below ISA 8.1 (4352), less room
  /// for the launch bounds that outlining adds: merged loops whose kernel
  /// would take more stay apart (a transformer block's optimizer updates
  /// of every parameter would pass some 5.7 KB of memref descriptors).
  static constexpr int64_t kParameterBudget = 4352 - 64;

  /// The bytes of the kernel parameters that `values` (defined outside a
  /// loop and used in it) become once outlined: a memref descriptor (two
  /// pointers, the offset, the sizes and strides) or one scalar of at most
  /// 8 bytes each.
  static int64_t getParameterBytes(const llvm::SetVector<Value> &values) {
    int64_t bytes = 0;
    for (Value value : values) {
      auto memref = dyn_cast<MemRefType>(value.getType());
      bytes += memref ? 8 * (3 + 2 * memref.getRank()) : 8;
    }
    return bytes;
  }

  /// Replaces the loops of `group` (one-dimensional, [0, iterations), step
  /// 1) by one loop over the largest count before `end`, each body in order
  /// under `index < iterations` where its count is smaller.
  void mergeLoops(ArrayRef<std::pair<scf::ParallelOp, int64_t>> group,
                  Operation *end, IRRewriter &rewriter) {
    int64_t iterations = 0;
    for (auto [loop, count] : group)
      iterations = std::max(iterations, count);
    Location loc = group.back().first->getLoc();
    rewriter.setInsertionPoint(end);
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    Value upper = arith::ConstantIndexOp::create(rewriter, loc, iterations);
    auto merged = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                          ValueRange{upper}, ValueRange{one});
    Value index = merged.getInductionVars()[0];
    for (auto [loop, count] : group) {
      rewriter.setInsertionPoint(merged.getBody()->getTerminator());
      if (count < iterations) {
        Value bound = arith::ConstantIndexOp::create(rewriter, loc, count);
        Value inside = arith::CmpIOp::create(
            rewriter, loc, arith::CmpIPredicate::ult, index, bound);
        auto guard = scf::IfOp::create(rewriter, loc, inside,
                                       /*withElseRegion=*/false);
        rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
      }
      IRMapping mapping;
      mapping.map(loop.getInductionVars()[0], index);
      for (Operation &op : loop.getBody()->without_terminator())
        rewriter.clone(op, mapping);
      rewriter.eraseOp(loop);
    }
  }
};

struct DeviceBuffers
    : public PassWrapper<DeviceBuffers, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(DeviceBuffers)

  DeviceBuffers() = default;
  DeviceBuffers(const DeviceBuffers &other) : PassWrapper(other) {
    target = other.target;
  }
  DeviceBuffers(std::function<Attribute(MLIRContext *)> target)
      : target(std::move(target)) {}

  StringRef getArgument() const override { return "mp-device-buffers"; }
  StringRef getDescription() const override {
    return "Put the buffers and launches of each function on one stream of "
           "device memory (mp-gpu-pipeline{device-resident})";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<gpu::GPUDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = &getContext();
    nameKernelsAfterModules(module);
    for (func::FuncOp function : module.getOps<func::FuncOp>())
      if (!function.isExternal())
        onStream(function);
    eraseHostGlobals(module);
    module->setAttr(MPDialect::kDeviceResidentAttrName, UnitAttr::get(context));
    // The kernels' target: that of the Tensor Core kernels, else `target`.
    ArrayAttr targets;
    for (auto kernels : module.getOps<gpu::GPUModuleOp>())
      if (!targets && kernels.getTargetsAttr())
        targets = kernels.getTargetsAttr();
    if (!targets && target)
      targets = ArrayAttr::get(context, {target(context)});
    for (auto kernels : module.getOps<gpu::GPUModuleOp>())
      if (!kernels.getTargetsAttr() && targets)
        kernels.setTargetsAttr(targets);
  }

  /// Erases the private constant globals of `module` that no host op reads any
  /// more: gpu-kernel-outlining cloned each into the gpu.modules of the
  /// kernels that read it.
  static void eraseHostGlobals(ModuleOp module) {
    llvm::SmallDenseSet<StringAttr> used;
    for (Operation &op : *module.getBody())
      if (!isa<gpu::GPUModuleOp>(op))
        op.walk([&](memref::GetGlobalOp get) {
          used.insert(get.getNameAttr().getAttr());
        });
    for (auto global :
         llvm::make_early_inc_range(module.getOps<memref::GlobalOp>()))
      if (global.getConstant() && global.isPrivate() &&
          !used.contains(global.getSymNameAttr()))
        global.erase();
  }

  /// Gives each outlined kernel its gpu.module's name (gpu-kernel-outlining
  /// names them all after their function: `train_step_kernel`), so that the
  /// names in PTX, ptxas reports and profiles tell the kernels apart.
  void nameKernelsAfterModules(ModuleOp module) {
    module.walk([&](gpu::LaunchFuncOp launch) {
      StringAttr moduleName = launch.getKernelModuleName();
      StringAttr kernelName = launch.getKernelName();
      if (moduleName == kernelName)
        return;
      auto kernels = module.lookupSymbol<gpu::GPUModuleOp>(moduleName);
      auto kernel =
          kernels ? kernels.lookupSymbol<gpu::GPUFuncOp>(kernelName) : nullptr;
      // Only a kernel of its own module (as outlining makes them).
      if (!kernel || !llvm::hasSingleElement(kernels.getOps<gpu::GPUFuncOp>()))
        return;
      kernel.setName(moduleName);
      launch.setKernelAttr(
          SymbolRefAttr::get(moduleName, {FlatSymbolRefAttr::get(moduleName)}));
    });
  }

  /// Puts the device work of `function` (one block) on one stream.
  void onStream(func::FuncOp function) {
    Block &body = function.getBody().front();
    Location loc = function.getLoc();
    OpBuilder builder = OpBuilder::atBlockBegin(&body);
    Type tokenType = gpu::AsyncTokenType::get(function.getContext());
    Value stream =
        gpu::WaitOp::create(builder, loc, tokenType, ValueRange{}).getResult(0);
    for (Operation &op : llvm::make_early_inc_range(body)) {
      builder.setInsertionPoint(&op);
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        auto device = gpu::AllocOp::create(
            builder, op.getLoc(), alloc.getType(), tokenType,
            ValueRange{stream}, alloc.getDynamicSizes(),
            alloc.getSymbolOperands(), /*hostShared=*/false);
        alloc.replaceAllUsesWith(device.getMemref());
        stream = device.getAsyncToken();
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        stream = gpu::DeallocOp::create(builder, op.getLoc(), tokenType,
                                        ValueRange{stream}, dealloc.getMemref())
                     .getAsyncToken();
      } else if (auto copy = dyn_cast<memref::CopyOp>(op)) {
        stream = gpu::MemcpyOp::create(builder, op.getLoc(), tokenType,
                                       ValueRange{stream}, copy.getTarget(),
                                       copy.getSource())
                     .getAsyncToken();
      } else if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
        if (launch.getAsyncToken())
          continue;
        stream = gpu::LaunchFuncOp::create(
                     builder, op.getLoc(), launch.getKernel(),
                     launch.getGridSizeOperandValues(),
                     launch.getBlockSizeOperandValues(),
                     launch.getDynamicSharedMemorySize(),
                     launch.getKernelOperands(), tokenType, ValueRange{stream})
                     .getAsyncToken();
      } else if (op.hasAttr(MPDialect::kDeviceStreamAttrName)) {
        // The launcher's stream: the token is the stream after gpu-to-llvm.
        Value pointer =
            UnrealizedConversionCastOp::create(
                builder, op.getLoc(),
                LLVM::LLVMPointerType::get(builder.getContext()), stream)
                .getResult(0);
        op.setOperand(op.getNumOperands() - 1, pointer);
        continue;
      } else if (isa<func::ReturnOp>(op)) {
        gpu::WaitOp::create(builder, op.getLoc(), Type(), ValueRange{stream});
        continue;
      } else {
        continue;
      }
      op.erase();
    }
  }

  std::function<Attribute(MLIRContext *)> target;
};

} // namespace

std::unique_ptr<Pass>
mlir::mp::createDeviceLoopsPass(bool sequentialReductions) {
  return std::make_unique<DeviceLoops>(sequentialReductions);
}

std::unique_ptr<Pass> mlir::mp::createDeviceBuffersPass(
    std::function<Attribute(MLIRContext *)> target) {
  return std::make_unique<DeviceBuffers>(std::move(target));
}

namespace {

/// Refuses, before bufferization, the collectives of mp-data-parallel
/// (`shard` ops): an all-reduce of device buffers needs a stream-ordered
/// collective (NCCL) or a CUDA-aware MPI, and the device-resident step has
/// neither (on the host, mp-cpu-pipeline lowers them to MPI).
struct RefuseCollectives
    : public PassWrapper<RefuseCollectives, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RefuseCollectives)
  StringRef getArgument() const override {
    return "mp-device-refuse-collectives";
  }
  void runOnOperation() override {
    WalkResult result = getOperation().walk([](Operation *op) {
      if (op->getDialect() && op->getDialect()->getNamespace() == "shard" &&
          !isa<SymbolOpInterface>(op)) {
        op->emitOpError()
            << "cannot run on the device: a data-parallel collective of "
               "device buffers needs a stream-ordered all-reduce (NCCL) or a "
               "CUDA-aware MPI, which the device-resident step does not have"
            << kRefusal;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

/// Rewrites the kernels' f32 math.sqrt to the intrinsic llvm.nvvm.sqrt.rn.f,
/// the correctly rounded sqrt.rn.f32 (the CPU's sqrtss): convert-gpu-to-nvvm
/// would call libdevice's __nv_sqrtf, whose __nvvm_reflect("__CUDA_PREC_SQRT")
/// the NVVM target leaves 0, which selects sqrt.approx.f32 (and it refuses
/// llvm.intr.sqrt). libdevice's f64 __nv_sqrt is sqrt.rn.f64 already. A
/// math.rsqrt (layer_norm's) becomes 1 / sqrt first, as convert-math-to-llvm
/// lowers it on the CPU: libdevice's __nv_rsqrtf is rsqrt.approx.f32.
struct PreciseSqrt
    : public PassWrapper<PreciseSqrt, OperationPass<gpu::GPUModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(PreciseSqrt)
  StringRef getArgument() const override { return "mp-device-precise-sqrt"; }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<LLVM::LLVMDialect>();
  }
  void runOnOperation() override {
    getOperation().walk([](math::RsqrtOp op) {
      OpBuilder builder(op);
      Location loc = op.getLoc();
      Value one = arith::ConstantOp::create(
          builder, loc, builder.getFloatAttr(op.getType(), 1.0));
      Value root = math::SqrtOp::create(builder, loc, op.getOperand());
      op.replaceAllUsesWith(
          arith::DivFOp::create(builder, loc, one, root).getResult());
      op.erase();
    });
    getOperation().walk([](math::SqrtOp op) {
      if (!op.getType().isF32())
        return;
      OpBuilder builder(op);
      op.replaceAllUsesWith(LLVM::CallIntrinsicOp::create(
                                builder, op.getLoc(), op.getType(),
                                builder.getStringAttr("llvm.nvvm.sqrt.rn.f"),
                                ValueRange{op.getOperand()})
                                .getResult(0));
      op.erase();
    });
  }
};

} // namespace

void mlir::mp::buildDeviceResidentStep(OpPassManager &pm,
                                       const GPUPipelineOptions &options) {
  // mp → linalg on tensors, fused as on the CPU.
  pm.addPass(std::make_unique<RefuseCollectives>());
  buildMPToLinalgOnTensors(pm);

  // Buffers as mp-cpu-pipeline makes them: the caller passes every argument
  // and result buffer (device memory, by the mp.device_resident contract).
  buildCallerAllocatedBuffers(pm);

  // Loops → kernels: 256 threads per block, one element per thread.
  // No canonicalization until the loops are kernels: it would inline the
  // one-iteration loops of the scalar code back into the host function.
  pm.addPass(createDeviceLoopsPass(options.sequentialReductions));
  pm.addNestedPass<func::FuncOp>(
      createParallelLoopTilingPass({256}, /*noMinMaxBounds=*/true));
  pm.addNestedPass<func::FuncOp>(createGpuMapParallelLoopsPass());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  pm.addPass(createGpuKernelOutliningPass());
  std::string chip = stringifyTensorCoreChip(options.chip).str();
  std::string features = options.ptxFeatures;
  pm.addPass(createDeviceBuffersPass([chip, features](MLIRContext *context) {
    return NVVM::NVVMTargetAttr::get(context, /*optLevel=*/3,
                                     "nvptx64-nvidia-cuda", chip, features);
  }));

  // The kernels: the same exact roundings as the CPU lowering (integer
  // expansions of bf16 and FP8 conversions, math on narrow floats in f32,
  // f32 tanh as the CPU's arithmetic); convert-gpu-to-nvvm lowers the
  // remaining math to libdevice, but for sqrt (PreciseSqrt).
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(math::createMathExtendToSupportedTypes());
  kernels.addPass(createMPExpandTanh());
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  kernels.addPass(arith::createArithExpandOpsPass(expand));
  kernels.addPass(createMPExpandFP8Conversions());
  kernels.addPass(std::make_unique<PreciseSqrt>());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());

  // The host: buffer management and launches only.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  buildStandardToLLVM(pm);
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}
