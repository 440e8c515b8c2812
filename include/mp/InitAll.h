//===- InitAll.h - Register every MixedPrec dialect and pass ----*- C++ -*-===//
//
// One call each for embedders and drivers: the dialects MixedPrec defines and
// (passes and pipelines join here as they land).
//
//===----------------------------------------------------------------------===//

#ifndef MP_INITALL_H
#define MP_INITALL_H

#include "mlir/IR/DialectRegistry.h"
#include "mp/Dialect/MP/IR/MPDialect.h"

namespace mlir::mp {

/// Adds the dialects MixedPrec defines to `registry`.
inline void registerAllDialects(DialectRegistry &registry) {
  registry.insert<MPDialect>();
}

} // namespace mlir::mp

#endif // MP_INITALL_H
