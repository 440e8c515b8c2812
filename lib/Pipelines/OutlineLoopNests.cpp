//===- OutlineLoopNests.cpp - One function per loop nest ------------------===//
//
// The step of mp-cpu-pipeline that keeps LLVM's cost linear in the number of
// operations: after bufferization, every top-level loop nest (scf.for,
// scf.parallel) and linalg operation of a function body with more than one of
// them, those in the branches of its scf.if operations included (the
// guarded kernels of mp-bf16-dot-products), becomes a private function of
// its own, marked noinline, called in
// its place with the values it uses from outside as arguments (constants are
// cloned into it). A train step of N layers thus reaches LLVM as some
// hundreds of small functions per layer instead of one function whose size
// grows with N, which several of LLVM's function passes handle in more than
// linear time. The computation is unchanged: the calls run in the order of
// the nests, on the same buffers.
//
// It assumes memrefs (after bufferization and buffer deallocation) and
// single-block function bodies; functions with other bodies are left alone.
// Vectors of i1 cross the calls as vectors of i8 (zero-extended by the
// callee, truncated by the caller, and the other way for arguments): LLVM
// 22's X86 back end cannot copy an i1 vector between a mask register and a
// general one, which a call passing or returning one needs on AVX-512 hosts
// ("Cannot emit physreg copy instruction").
//
//===----------------------------------------------------------------------===//

#include "mp/Pipelines/Pipelines.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/RegionUtils.h"

using namespace mlir;

namespace {

/// True for the top-level operations outlined: loop nests and linalg ops.
static bool isLoopNest(Operation &op) {
  return isa<scf::ForOp, scf::ParallelOp, linalg::LinalgOp>(op);
}

/// The type a value of type `type` crosses an outlined function's boundary
/// as: i1 vectors as i8 vectors (see the file comment), others unchanged.
static Type getBoundaryType(Type type) {
  auto vector = dyn_cast<VectorType>(type);
  if (vector && vector.getElementType().isInteger(1))
    return vector.clone(IntegerType::get(type.getContext(), 8));
  return type;
}

/// Appends to `nests` the loop nests of `block` in order, those of the
/// branches of its scf.if operations included (recursively).
static void collectLoopNests(Block &block,
                             SmallVectorImpl<Operation *> &nests) {
  for (Operation &op : block) {
    if (isLoopNest(op)) {
      nests.push_back(&op);
    } else if (auto branch = dyn_cast<scf::IfOp>(op)) {
      collectLoopNests(*branch.thenBlock(), nests);
      if (Block *otherwise = branch.elseBlock())
        collectLoopNests(*otherwise, nests);
    }
  }
}

struct OutlineLoopNests
    : public PassWrapper<OutlineLoopNests, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(OutlineLoopNests)

  StringRef getArgument() const override { return "mp-outline-loop-nests"; }
  StringRef getDescription() const override {
    return "Outline every top-level loop nest of a function into a private "
           "noinline function (mp-cpu-pipeline)";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, func::FuncDialect, scf::SCFDialect>();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    IRRewriter rewriter(&getContext());
    for (func::FuncOp function :
         llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (function.isExternal() || !function.getBody().hasOneBlock())
        continue;
      SmallVector<Operation *> nests;
      collectLoopNests(function.getBody().front(), nests);
      if (nests.size() < 2)
        continue;
      unsigned index = 0;
      for (Operation *nest : nests) {
        if (failed(outline(rewriter, symbols, function, nest, index)))
          return signalPassFailure();
      }
    }
  }

  /// Outlines `nest` of `function` into a new function.
  LogicalResult outline(IRRewriter &rewriter, SymbolTable &symbols,
                        func::FuncOp function, Operation *nest,
                        unsigned &index) {
    Location loc = nest->getLoc();
    rewriter.setInsertionPoint(nest);
    auto boundaryTypes =
        llvm::map_to_vector(nest->getResultTypes(), getBoundaryType);
    auto wrapper = scf::ExecuteRegionOp::create(rewriter, loc, boundaryTypes);
    Block *block = rewriter.createBlock(&wrapper.getRegion());
    rewriter.setInsertionPointAfter(wrapper);
    SmallVector<Value> results;
    for (auto [result, type] :
         llvm::zip_equal(wrapper.getResults(), nest->getResultTypes()))
      results.push_back(
          result.getType() == type
              ? result
              : arith::TruncIOp::create(rewriter, loc, type, result)
                    .getResult());
    rewriter.replaceAllUsesWith(nest->getResults(), results);
    nest->moveBefore(block, block->end());
    rewriter.setInsertionPointToEnd(block);
    SmallVector<Value> yielded;
    for (auto [result, type] :
         llvm::zip_equal(nest->getResults(), boundaryTypes))
      yielded.push_back(
          result.getType() == type
              ? result
              : arith::ExtUIOp::create(rewriter, loc, type, result)
                    .getResult());
    scf::YieldOp::create(rewriter, loc, yielded);

    // Constants are cloned rather than passed; captured i1 vectors are
    // passed as i8 vectors. The uses inside the nest are rewritten by one
    // walk of the nest: a constant shared by the whole function has uses in
    // every nest, so visiting its uses per nest would make the pass
    // quadratic in the function's size.
    llvm::SetVector<Value> captured;
    getUsedValuesDefinedAbove(wrapper.getRegion(), captured);
    rewriter.setInsertionPointToStart(block);
    DenseMap<Value, Value> replacements;
    for (Value value : captured) {
      Operation *def = value.getDefiningOp();
      if (!def || !matchPattern(value, m_Constant()))
        continue;
      replacements[value] = rewriter.clone(*def)->getResult(
          cast<OpResult>(value).getResultNumber());
    }
    for (Value value : captured) {
      Type type = getBoundaryType(value.getType());
      if (type == value.getType() || matchPattern(value, m_Constant()))
        continue;
      rewriter.setInsertionPoint(wrapper);
      Value extended = arith::ExtUIOp::create(rewriter, loc, type, value);
      rewriter.setInsertionPointToStart(block);
      replacements[value] =
          arith::TruncIOp::create(rewriter, loc, value.getType(), extended);
    }
    wrapper.getRegion().walk([&](Operation *op) {
      for (OpOperand &operand : op->getOpOperands()) {
        auto replacement = replacements.find(operand.get());
        if (replacement != replacements.end() &&
            replacement->second.getDefiningOp() != op)
          rewriter.modifyOpInPlace(op,
                                   [&] { operand.set(replacement->second); });
      }
    });

    std::string name;
    do {
      name = ("__mp_" + function.getName() + "_" + Twine(index++)).str();
    } while (symbols.lookup(name));
    func::CallOp call;
    FailureOr<func::FuncOp> outlined = outlineSingleBlockRegion(
        rewriter, loc, wrapper.getRegion(), name, &call);
    if (failed(outlined))
      return nest->emitError("mp-outline-loop-nests: cannot outline");
    outlined->setPrivate();
    // func-to-llvm keeps `passthrough` (LLVM function attributes).
    (*outlined)->setAttr("passthrough",
                         rewriter.getArrayAttr(rewriter.getStringAttr("noinline")));
    symbols.insert(*outlined);
    // The wrapper now holds the call only.
    rewriter.inlineBlockBefore(&wrapper.getRegion().front(), wrapper);
    auto yield = cast<scf::YieldOp>(std::prev(Block::iterator(wrapper)));
    rewriter.replaceOp(wrapper, yield.getOperands());
    rewriter.eraseOp(yield);
    return success();
  }
};

} // namespace

std::unique_ptr<Pass> mlir::mp::createOutlineLoopNestsPass() {
  return std::make_unique<OutlineLoopNests>();
}
