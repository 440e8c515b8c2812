//===- EntryPoint.h - The train-step contract -------------------*- C++ -*-===//
//
// The train-step contract of docs/TrainStep.md as mp-run binds it: which
// arguments are parameters, state (with its kind, `mp.init` and `mp.copy_of`)
// or data, which results are the loss, the skipped flag and the updates of
// which argument, read from the `mp.signature` that mp-export-entry-points
// records on a lowered function.
//
//===----------------------------------------------------------------------===//

#ifndef MP_RUN_ENTRYPOINT_H
#define MP_RUN_ENTRYPOINT_H

#include "Tensor.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>
#include <vector>

namespace mp_run {

/// How an argument is bound.
enum class ArgumentRole { Param, State, Data };

struct ArgumentBinding {
  ArgumentRole role;
  TensorSpec spec;
  /// `mp.state` kind.
  std::string stateKind;
  /// `mp.init`, if any.
  mlir::Attribute init;
  /// `mp.copy_of`, or -1.
  int64_t copyOf = -1;
};

struct ResultBinding {
  TensorSpec spec;
  bool isLoss = false;
  bool isSkipped = false;
  /// `mp.updates`, or -1.
  int64_t updates = -1;
};

/// A function's signature and contract, read from `mp.signature`.
struct EntryPoint {
  std::string name;
  std::vector<ArgumentBinding> arguments;
  std::vector<ResultBinding> results;
  int lossResult = -1;
  int skippedResult = -1;
  int lossScaleArgument = -1;
};

/// The state kinds of dynamic loss scaling (they change on skipped steps).
inline bool isLossScaleState(llvm::StringRef kind) {
  return kind == "loss_scale" || kind == "growth_tracker" ||
         kind == "hysteresis_tracker";
}

/// Reads the signature recorded by mp-export-entry-points on `function`.
llvm::Expected<EntryPoint> readEntryPoint(mlir::LLVM::LLVMFuncOp function);

/// Checks that the C interface of `entry` in `module` takes one pointer per
/// argument and result, as the out-parameter convention gives.
llvm::Error checkCInterface(mlir::ModuleOp module, const EntryPoint &entry);

/// The public functions of `module` that have a recorded signature.
llvm::SmallVector<mlir::LLVM::LLVMFuncOp> getEntryPoints(mlir::ModuleOp module);

} // namespace mp_run

#endif // MP_RUN_ENTRYPOINT_H
