/*===- mp-c/Passes.h - C API of MixedPrec's passes ----------------*- C -*-===*\
|*                                                                            *|
|* Per-pass entry points generated from the pass definitions                  *|
|* (`mlir-tblgen -gen-pass-capi-header`): `mlirCreateMP<Def>()` and           *|
|* `mlirRegisterMP<Def>()` for the passes of the mp dialect (for example      *|
|* `mlirCreateMPMPAutocast`), `mlirCreateMPConversion<Def>()` for the         *|
|* conversions (`mlirCreateMPConversionConvertMPToLinalg`), and one call that *|
|* registers everything, pipelines included.                                  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MP_C_PASSES_H
#define MP_C_PASSES_H

#include "mlir-c/Pass.h"

#include "mp/Conversion/Passes.capi.h.inc"
#include "mp/Dialect/MP/Transforms/Passes.capi.h.inc"

#ifdef __cplusplus
extern "C" {
#endif

/// Registers with MLIR's global registry (once; later calls do nothing)
/// MLIR's upstream passes and MixedPrec's passes, conversions and pipelines
/// (`mp-mixed-precision-pipeline`, `mp-cpu-pipeline`, `mp-gpu-pipeline`), so
/// that textual pipelines such as `mlirParsePassPipeline` find them.
MLIR_CAPI_EXPORTED void mpRegisterAllPasses(void);

#ifdef __cplusplus
}
#endif

#endif // MP_C_PASSES_H
