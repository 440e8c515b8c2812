//===- Passes.td - Passes of the mp dialect ----------------*- tablegen -*-===//
//
// The mixed-precision passes over mp train steps. Flags are prefixed `mp-`;
// options are generated (no `let constructor`): each pass gets a
// `create<Name>()` / `create<Name>(const <Name>Options &)` pair.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_TRANSFORMS_PASSES_TD
#define MP_DIALECT_MP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

#endif // MP_DIALECT_MP_TRANSFORMS_PASSES_TD
