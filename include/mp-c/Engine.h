/*===- mp-c/Engine.h - Running compiled train steps in process -----*- C -*-===*\
|*                                                                            *|
|* An engine holds the native code of a module lowered by mp-cpu-pipeline,    *|
|* JIT-compiled for the host CPU in the calling process (the same code        *|
|* mp-run runs), and calls its functions on buffers the caller owns: a train  *|
|* step's parameters and state stay in the caller's memory between calls and *|
|* nothing is copied. An engine on "cuda" runs a module lowered by            *|
|* mp-gpu-pipeline on an NVIDIA GPU: device-resident steps take device        *|
|* buffers (mpEngineDeviceAlloc) and are enqueued on the engine's stream.     *|
|* docs/CAPI.md is the guide.                                                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MP_C_ENGINE_H
#define MP_C_ENGINE_H

#include "mp-c/Compiler.h"

#include <stdbool.h>
#include <stdint.h>

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

/// Like mpSessionCreateEngine on a device: `device` "cpu" (exactly
/// mpSessionCreateEngine, `pipelineOptions` being mp-cpu-pipeline's) or
/// "cuda": loads the CUDA driver ($MP_CUDA_DRIVER when set, else
/// libcuda.so.1) and initialises device 0, lowers `module` with
/// `mp-gpu-pipeline{pipelineOptions}` when it still holds functions on
/// tensors (device-resident by default: every op on the GPU) and
/// JIT-compiles the host code with MixedPrec's CUDA runtime wrappers
/// (include/mp/ExecutionEngine/CudaRuntime.h), as `mp-run --device=cuda`
/// does. An unknown device is MP_STATUS_INVALID_ARGUMENT; no driver, or none
/// that initialises, MP_STATUS_DEVICE_ERROR with the reason (the module is
/// then untouched).
MLIR_CAPI_EXPORTED MpStatus mpSessionCreateEngineOnDevice(
    MpSession session, MlirModule module, MlirStringRef device,
    MlirStringRef pipelineOptions, unsigned optLevel, MpEngine *engine);

/// The device of `engine`: "cpu" or "cuda" (empty for a null engine).
MLIR_CAPI_EXPORTED MlirStringRef mpEngineGetDevice(MpEngine engine);

/// True when `engine`'s module was lowered device-resident (its
/// `mp.device_resident` attribute): every memref argument and result of its
/// functions is device memory.
MLIR_CAPI_EXPORTED bool mpEngineIsDeviceResident(MpEngine engine);

/// Calls function `name` of `engine` through its C interface:
/// `descriptors` holds one pointer per argument and then one per result of
/// the function's tensor signature (its `mp.signature`), each pointing to a
/// ranked memref descriptor `{allocated, aligned, offset, sizes[rank],
/// strides[rank]}` (pointers and int64_t). Result descriptors point to
/// buffers the caller allocated, which the call overwrites. The call does not
/// check the descriptors: they must match the signature. An unknown
/// function is MP_STATUS_INVALID_ARGUMENT, with the message on `session`.
/// On a "cuda" engine the function's device work is enqueued on the engine's
/// stream and the call returns without waiting for it (a device-resident
/// step makes no host synchronisation); read its results after
/// mpEngineSynchronize or an event recorded after the call. A driver error
/// is MP_STATUS_DEVICE_ERROR.
MLIR_CAPI_EXPORTED MpStatus mpEngineInvoke(MpSession session, MpEngine engine,
                                           MlirStringRef name,
                                           void **descriptors);

/// Memory and ordering of a "cuda" engine (MP_STATUS_INVALID_ARGUMENT on a
/// "cpu" engine; MP_STATUS_DEVICE_ERROR when the driver call fails). Device
/// blocks come from the caching allocator of the CUDA runtime wrappers.
/// Copies and events are enqueued on the engine's stream, in order with its
/// calls; `bytes` may be 0.
///
/// `*pointer` = `bytes` of device memory.
MLIR_CAPI_EXPORTED MpStatus mpEngineDeviceAlloc(MpSession session,
                                                MpEngine engine, uint64_t bytes,
                                                void **pointer);
/// Frees device memory once the engine's queued work is done with it.
MLIR_CAPI_EXPORTED MpStatus mpEngineDeviceFree(MpSession session,
                                               MpEngine engine, void *pointer);
/// `*pointer` = `bytes` of page-locked host memory (cuMemHostAlloc), into
/// which a device-to-host copy is asynchronous.
MLIR_CAPI_EXPORTED MpStatus mpEngineHostAlloc(MpSession session,
                                              MpEngine engine, uint64_t bytes,
                                              void **pointer);
MLIR_CAPI_EXPORTED MpStatus mpEngineHostFree(MpSession session,
                                             MpEngine engine, void *pointer);
/// Enqueues a copy of `bytes` from `source` to `destination` (device or host
/// memory, either way; unified addressing tells which). From pageable host
/// memory the call returns once the source was read (the driver may first
/// wait for the stream); to pageable host memory the copy is synchronous;
/// from and to page-locked memory it is not.
MLIR_CAPI_EXPORTED MpStatus mpEngineCopy(MpSession session, MpEngine engine,
                                         void *destination, const void *source,
                                         uint64_t bytes);

/// An event of a "cuda" engine's stream.
typedef struct MpEngineEvent {
  void *ptr;
} MpEngineEvent;

MLIR_CAPI_EXPORTED MpStatus mpEngineEventCreate(MpSession session,
                                                MpEngine engine,
                                                MpEngineEvent *event);
/// Records `event` after the work queued so far.
MLIR_CAPI_EXPORTED MpStatus mpEngineEventRecord(MpSession session,
                                                MpEngine engine,
                                                MpEngineEvent event);
/// Waits (on the host) for the work queued before `event`'s last record.
MLIR_CAPI_EXPORTED MpStatus mpEngineEventSynchronize(MpSession session,
                                                     MpEngine engine,
                                                     MpEngineEvent event);
MLIR_CAPI_EXPORTED void mpEngineEventDestroy(MpEngineEvent event);

/// Double-buffered page-locked staging of a "cuda" engine's inputs, such as
/// each train step's batch (mp::PinnedStaging of CudaRuntime.h, what mp-run
/// uses): two slots of `bytes` page-locked bytes, allocated once. Per call,
/// write the inputs into the slot mpEngineStagingAcquire returns, queue
/// their copies to device memory with mpEngineStagingCopy (asynchronous:
/// the driver does not wait for the stream, as it may from pageable
/// memory), and mpEngineStagingRelease the slot, which records its event
/// after the copies. The next acquire returns the other slot, so the next
/// batch is written while the copies out of this one may be in flight; a
/// slot is returned only once the copies out of it have completed (a host
/// wait only where they have not).
typedef struct MpEngineStaging {
  void *ptr;
} MpEngineStaging;

/// `*staging` = two page-locked slots of `bytes` bytes on `engine`'s stream.
MLIR_CAPI_EXPORTED MpStatus mpEngineStagingCreate(MpSession session,
                                                  MpEngine engine,
                                                  uint64_t bytes,
                                                  MpEngineStaging *staging);
/// `*slot` = the next slot to write, once the copies out of it are done. An
/// acquired slot not yet released is MP_STATUS_INVALID_ARGUMENT.
MLIR_CAPI_EXPORTED MpStatus mpEngineStagingAcquire(MpSession session,
                                                   MpEngine engine,
                                                   MpEngineStaging staging,
                                                   void **slot);
/// Enqueues the copy of `bytes` at `offset` of the acquired slot to the
/// device memory `destination`. No acquired slot, or a range past the
/// slot's end, is MP_STATUS_INVALID_ARGUMENT.
MLIR_CAPI_EXPORTED MpStatus
mpEngineStagingCopy(MpSession session, MpEngine engine, MpEngineStaging staging,
                    void *destination, uint64_t offset, uint64_t bytes);
/// Records the acquired slot's event after its copies; the other slot is
/// the next one. No acquired slot is MP_STATUS_INVALID_ARGUMENT.
MLIR_CAPI_EXPORTED MpStatus mpEngineStagingRelease(MpSession session,
                                                   MpEngine engine,
                                                   MpEngineStaging staging);
/// Frees the slots once the copies out of them are done (null is ignored).
/// Destroy every staging of an engine before the engine.
MLIR_CAPI_EXPORTED void mpEngineStagingDestroy(MpEngineStaging staging);

/// Waits for all work queued on the engine's stream (MP_STATUS_SUCCESS at
/// once on a "cpu" engine).
MLIR_CAPI_EXPORTED MpStatus mpEngineSynchronize(MpSession session,
                                                MpEngine engine);

/// Destroys an engine (a null one is ignored); a "cuda" engine waits for its
/// stream first. Free its device and host blocks before.
MLIR_CAPI_EXPORTED void mpEngineDestroy(MpEngine engine);

#ifdef __cplusplus
}
#endif

#endif // MP_C_ENGINE_H
