//===- TrainSteps.cpp - Rewriting train steps in a module -----------------===//
//
// mp-master-weights, mp-loss-scaling and mp-fp8-scaling thread state through
// a train step's signature. A caller inside the module cannot supply that
// state, so these passes run on the module, rewrite its functions one by one
// and reject a module in which a function whose type changed is referenced:
// the caller of a train step is written (or generated) after them, or calls
// the compiled step through its exported entry point.
//
//===----------------------------------------------------------------------===//

#include "mp/Dialect/MP/Transforms/TrainSteps.h"

#include "mlir/IR/SymbolTable.h"

using namespace mlir;

LogicalResult mp::rewriteTrainSteps(
    ModuleOp module, StringRef passName,
    function_ref<LogicalResult(func::FuncOp)> rewriteFunction) {
  bool succeeded = true;
  for (func::FuncOp function :
       llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
    FunctionType oldType = function.getFunctionType();
    if (failed(rewriteFunction(function))) {
      succeeded = false;
      continue;
    }
    if (function.getFunctionType() == oldType)
      continue;
    std::optional<SymbolTable::UseRange> uses =
        SymbolTable::getSymbolUses(function, module);
    if (!uses)
      continue;
    for (const SymbolTable::SymbolUse &use : *uses) {
      InFlightDiagnostic diag = use.getUser()->emitOpError()
                                << "refers to @" << function.getSymName()
                                << ", whose signature " << passName
                                << " changes: a train step cannot be called "
                                   "from the module it is compiled in "
                                   "(write its caller after the pass)";
      diag.attachNote(function.getLoc())
          << "type changed from " << oldType << " to "
          << function.getFunctionType();
      succeeded = false;
    }
  }
  return success(succeeded);
}
