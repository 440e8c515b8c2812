//===- Passes.h - Conversions out of the mp dialect -------------*- C++ -*-===//

#ifndef MP_CONVERSION_PASSES_H
#define MP_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"
#include "mp/Conversion/MPToNVVM/MPToNVVM.h"

namespace mlir::mp {

#define GEN_PASS_DECL
#include "mp/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mp/Conversion/Passes.h.inc"

} // namespace mlir::mp

#endif // MP_CONVERSION_PASSES_H
