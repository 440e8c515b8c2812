//===- TrainSteps.h - Rewriting train steps in a module ---------*- C++ -*-===//
//
// The module-level driver of the passes that change a train step's
// signature (mp-master-weights, mp-loss-scaling, mp-fp8-scaling).
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_TRANSFORMS_TRAINSTEPS_H
#define MP_DIALECT_MP_TRANSFORMS_TRAINSTEPS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

namespace mlir::mp {

/// Calls `rewriteFunction` on each `func.func` directly in `module`, in
/// order, and fails when one of them fails or when a function whose type it
/// changed is referenced from `module` (a `func.call` of it would no longer
/// verify): each such reference gets an error naming `passName`, with a note
/// at the function giving its old and new type. Every function is visited
/// even after a failure, so that all errors are reported.
LogicalResult
rewriteTrainSteps(ModuleOp module, StringRef passName,
                  function_ref<LogicalResult(func::FuncOp)> rewriteFunction);

} // namespace mlir::mp

#endif // MP_DIALECT_MP_TRANSFORMS_TRAINSTEPS_H
