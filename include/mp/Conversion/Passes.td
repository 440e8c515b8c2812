//===- Passes.td - Conversions out of the mp dialect -------*- tablegen -*-===//
//
// Conversions are named `convert-X-to-Y`; each lives in its own folder under
// lib/Conversion/ and include/mp/Conversion/.
//
//===----------------------------------------------------------------------===//

#ifndef MP_CONVERSION_PASSES_TD
#define MP_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

#endif // MP_CONVERSION_PASSES_TD
