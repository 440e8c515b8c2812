//===- Passes.h - Passes of the mp dialect ----------------------*- C++ -*-===//

#ifndef MP_DIALECT_MP_TRANSFORMS_PASSES_H
#define MP_DIALECT_MP_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mp/Dialect/MP/IR/MPDialect.h"

namespace mlir::mp {

#define GEN_PASS_DECL
#include "mp/Dialect/MP/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mp/Dialect/MP/Transforms/Passes.h.inc"

} // namespace mlir::mp

#endif // MP_DIALECT_MP_TRANSFORMS_PASSES_H
