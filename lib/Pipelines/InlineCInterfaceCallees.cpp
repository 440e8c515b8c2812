//===- InlineCInterfaceCallees.cpp - C interfaces without a giant call ----===//
//
// The step of mp-cpu-pipeline (and of the device-resident host code) that
// keeps LLVM's instruction selection linear in the size of a train step:
// func-to-llvm gives every public function `F` a C interface
// `_mlir_ciface_F` that loads each memref descriptor and calls `F` with all
// descriptor fields as scalar arguments (1226 of them for a 2-layer
// transformer step). X86's SelectionDAG lowers such a call in more than
// linear time in its argument count: the wrapper of a 2-layer step took 39%
// of llc's time, more than all of the step's other functions together. This
// pass marks every function behind a C interface `always_inline`, so the
// wrapper becomes the function's body reading the descriptors directly, and
// the call disappears. The function itself stays (others may call it or
// look it up). The computation is unchanged.
//
// It assumes the LLVM dialect after func-to-llvm with C interfaces.
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/IR/MPDialect.h"
#include "mp/Pipelines/Pipelines.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

using namespace mlir;

namespace {

struct InlineCInterfaceCallees
    : public PassWrapper<InlineCInterfaceCallees, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(InlineCInterfaceCallees)

  StringRef getArgument() const override {
    return "mp-inline-c-interface-callees";
  }
  StringRef getDescription() const override {
    return "Mark the functions behind _mlir_ciface_ wrappers always_inline "
           "(mp-cpu-pipeline)";
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto wrapper : module.getOps<LLVM::LLVMFuncOp>()) {
      StringRef name = wrapper.getName();
      if (!name.consume_front(mp::MPDialect::kCInterfacePrefix))
        continue;
      auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
      if (!callee || callee.isExternal() || callee.getNoInline())
        continue;
      callee.setAlwaysInline(true);
    }
  }
};

} // namespace

std::unique_ptr<Pass> mlir::mp::createInlineCInterfaceCalleesPass() {
  return std::make_unique<InlineCInterfaceCallees>();
}
