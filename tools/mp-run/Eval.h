//===- Eval.h - Test accuracy of a classifier -------------------*- C++ -*-===//
//
// --eval: runs the classifier --eval-function on the test split of the
// data (Fashion-MNIST t10k or npy eval_inputs/eval_labels) with the trained
// parameters and forward state, and counts correct argmaxes.
//
//===----------------------------------------------------------------------===//

#ifndef MP_RUN_EVAL_H
#define MP_RUN_EVAL_H

#include "Invocation.h"

namespace mp_run {

struct EvalResult {
  int64_t correct = 0, total = 0;
};

/// Runs the eval function over the test split and counts correct argmaxes.
llvm::Expected<EvalResult> evaluateClassifier(mlir::ExecutionEngine &engine,
                                              mlir::ModuleOp module,
                                              const EntryPoint &train,
                                              Invocation &trainCall);

} // namespace mp_run

#endif // MP_RUN_EVAL_H
