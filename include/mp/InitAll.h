//===- InitAll.h - Register every MixedPrec dialect and pass ----*- C++ -*-===//
//
// One call each for embedders and drivers: the dialects MixedPrec defines, and
// its passes, conversions and pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef MP_INITALL_H
#define MP_INITALL_H

#include "mlir/IR/DialectRegistry.h"
#include "mp/Conversion/Passes.h"
#include "mp/Conversion/ShardToMPI/MPIMemoryEffects.h"
#include "mp/Dialect/MP/IR/MPDialect.h"
#include "mp/Dialect/MP/Transforms/Passes.h"
#include "mp/Pipelines/Pipelines.h"

namespace mlir::mp {

/// Adds the dialects MixedPrec defines to `registry`.
inline void registerAllDialects(DialectRegistry &registry) {
  registry.insert<MPDialect>();
  registerMPIMemoryEffects(registry);
}

/// Registers MixedPrec's passes, conversions and pipelines with the global
/// registry.
inline void registerAllPasses() {
  registerMPPasses();
  registerMPConversionPasses();
  registerPipelines();
}

} // namespace mlir::mp

#endif // MP_INITALL_H
