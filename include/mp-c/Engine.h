/*===- mp-c/Engine.h - Running compiled train steps in process -----*- C -*-===*\
|*                                                                            *|
|* An engine holds the native code of a module lowered by mp-cpu-pipeline,    *|
|* JIT-compiled for the host CPU in the calling process (the same code        *|
|* mp-run runs), and calls its functions on buffers the caller owns: a train  *|
|* step's parameters and state stay in the caller's memory between calls and *|
|* nothing is copied. docs/CAPI.md is the guide.                              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MP_C_ENGINE_H
#define MP_C_ENGINE_H

#include "mp-c/Compiler.h"

#ifdef __cplusplus
extern "C" {
#endif

/// The native code of one module.
typedef struct MpEngine {
  void *ptr;
} MpEngine;

/// Lowers `module` in place with `mp-cpu-pipeline{cpuPipelineOptions}` (when
/// it still holds functions on tensors; empty options for the defaults) and
/// JIT-compiles it for the host CPU at LLVM -O`optLevel` (0 to 3; 2 is the
/// default of mp-run and Python, and no level changes a computed bit). On
/// success `*engine` holds the native
/// code of every function the lowering exported (`_mlir_ciface_<name>`, see
/// mp-export-entry-points); the module stays the caller's and may be
/// destroyed. The engine must be destroyed (mpEngineDestroy) before its
/// session. On failure `*engine` is null and the module may be partially
/// lowered.
MLIR_CAPI_EXPORTED MpStatus mpSessionCreateEngine(
    MpSession session, MlirModule module, MlirStringRef cpuPipelineOptions,
    unsigned optLevel, MpEngine *engine);

/// Calls function `name` of `engine` through its C interface:
/// `descriptors` holds one pointer per argument and then one per result of
/// the function's tensor signature (its `mp.signature`), each pointing to a
/// ranked memref descriptor `{allocated, aligned, offset, sizes[rank],
/// strides[rank]}` (pointers and int64_t). Result descriptors point to
/// buffers the caller allocated, which the call overwrites. The call does not
/// check the descriptors: they must match the signature. An unknown
/// function is MP_STATUS_INVALID_ARGUMENT, with the message on `session`.
MLIR_CAPI_EXPORTED MpStatus mpEngineInvoke(MpSession session, MpEngine engine,
                                           MlirStringRef name,
                                           void **descriptors);

/// Destroys an engine (a null one is ignored).
MLIR_CAPI_EXPORTED void mpEngineDestroy(MpEngine engine);

#ifdef __cplusplus
}
#endif

#endif // MP_C_ENGINE_H
