//===- Engine.cpp - Running compiled train steps in process ---------------===//
//
// The engine of mp-c/Engine.h: a module lowered with mp-cpu-pipeline and
// JIT-compiled by mp::compileForHost (the code path mp-run uses), with the
// packed C-interface entry point of every exported function looked up (and
// so compiled) when the engine is created.
// Calls run the native code directly on the caller's buffers. An engine on
// "cuda" lowers with mp-gpu-pipeline, registers the CUDA runtime wrappers
// with the JIT and owns one stream: its calls run with that stream as the
// step stream (CudaRuntime.h), so a device-resident step is enqueued there
// and returns without a host synchronisation, and its copies and events go
// on the same stream.
//
//===----------------------------------------------------------------------===//

#include "mp-c/Engine.h"

#include "mlir/CAPI/Support.h"

#include "Session.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mp/Dialect/MP/IR/MPDialect.h"
#include "mp/ExecutionEngine/CudaRuntime.h"
#include "mp/ExecutionEngine/HostJIT.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;
using namespace mlir::mp::capi;

namespace {

/// The state behind an MpEngine.
struct Engine {
  std::unique_ptr<ExecutionEngine> engine;
  /// A packed entry point and the number of parameters of the
  /// `_mlir_ciface_` function behind it.
  struct EntryPoint {
    void (*function)(void **) = nullptr;
    unsigned arity = 0;
  };
  /// The entry points, by the name of the function each wraps.
  llvm::StringMap<EntryPoint> entryPoints;
  /// "cpu" or "cuda".
  std::string device;
  /// The module carried mp.device_resident.
  bool deviceResident = false;
  /// A "cuda" engine's stream.
  MgpuStream stream = nullptr;

  ~Engine() {
    if (stream) {
      mgpuStreamDestroy(stream);
      llvm::consumeError(mp::takeCudaError());
    }
  }
};

Engine *unwrap(MpEngine engine) { return static_cast<Engine *>(engine.ptr); }

/// Ends a call on a "cuda" engine: MP_STATUS_DEVICE_ERROR with the first
/// driver error since the last call, else success.
MpStatus finishDeviceCall(Session *session) {
  if (llvm::Error error = mp::takeCudaError())
    return session->finish(MP_STATUS_DEVICE_ERROR,
                           llvm::toString(std::move(error)));
  return session->finish(MP_STATUS_SUCCESS);
}

/// beginCall for a call on `mpEngine`: a null engine is an invalid argument.
static MpStatus beginCall(MpSession mpSession, MpEngine mpEngine,
                          Session *&session, Engine *&engine) {
  if (MpStatus status = beginCall(mpSession, session))
    return status;
  engine = unwrap(mpEngine);
  if (!engine)
    return session->finish(MP_STATUS_INVALID_ARGUMENT, "null engine");
  return MP_STATUS_SUCCESS;
}

/// A call that needs a "cuda" engine: `body(engine)` returns what makes an
/// argument invalid, or null once it did its work; then any driver error
/// since the previous call (asynchronous ones of earlier work included) is
/// the call's.
template <typename Body>
MpStatus onDevice(MpSession mpSession, MpEngine mpEngine, Body body) {
  Session *session;
  Engine *engine;
  if (MpStatus status = beginCall(mpSession, mpEngine, session, engine))
    return status;
  if (!engine->stream)
    return session->finish(MP_STATUS_INVALID_ARGUMENT,
                           "the engine runs on the " + engine->device +
                               ", not on a CUDA device");
  if (const char *invalid = body(*engine))
    return session->finish(MP_STATUS_INVALID_ARGUMENT, invalid);
  return finishDeviceCall(session);
}

} // namespace

MpStatus mpSessionCreateEngineOnDevice(MpSession mpSession, MlirModule module,
                                       MlirStringRef mpDevice,
                                       MlirStringRef pipelineOptions,
                                       unsigned optLevel, MpEngine *engine) {
  Session *session;
  if (MpStatus status = beginCall(mpSession, module, session))
    return status;
  if (!engine)
    return session->finish(MP_STATUS_INVALID_ARGUMENT,
                           "null pointer for the engine");
  *engine = MpEngine{nullptr};
  StringRef device = ::unwrap(mpDevice);
  bool cuda = device == "cuda";
  if (!cuda && device != "cpu")
    return session->finish(MP_STATUS_INVALID_ARGUMENT,
                           "unknown device '" + device +
                               "' (expected cpu or cuda)");
  // The driver first: without it nothing is lowered.
  if (cuda)
    if (llvm::Error error = mp::loadCudaDriver())
      return session->finish(MP_STATUS_DEVICE_ERROR,
                             llvm::toString(std::move(error)));
  ModuleOp moduleOp = ::unwrap(module);
  if (mp::needsHostLowering(moduleOp)) {
    mp::HostLowering lowering;
    if (cuda) {
      lowering.pipeline = "mp-gpu-pipeline";
      lowering.cpuPipelineOptionsName = "mp-gpu-pipeline options";
    }
    lowering.cpuPipelineOptions = ::unwrap(pipelineOptions).str();
    if (llvm::Error error = mp::lowerForHost(moduleOp, lowering, "the module"))
      return session->finish(MP_STATUS_PASS_FAILURE,
                             llvm::toString(std::move(error)));
  }
  static bool targetInitialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)targetInitialized;
  auto compiled = mp::compileForHost(
      moduleOp,
      [&](ExecutionEngine &jit) {
        if (cuda)
          mp::registerCudaRuntimeSymbols(jit);
      },
      optLevel);
  if (!compiled)
    return session->finish(MP_STATUS_PASS_FAILURE,
                           "JIT compilation failed: " +
                               llvm::toString(compiled.takeError()));
  auto state = std::make_unique<Engine>();
  state->device = device.str();
  state->deviceResident = moduleOp->hasAttr("mp.device_resident");
  if (cuda) {
    // Nothing of the step runs yet; the stream is the engine's, never the
    // step's own.
    mp::CudaStepStreamScope none(nullptr);
    state->stream = mgpuStreamCreate();
  }
  state->engine = std::move(*compiled);
  // Looking every entry point up now makes the JIT generate their code here
  // rather than in the first call.
  for (auto function : moduleOp.getOps<LLVM::LLVMFuncOp>()) {
    StringRef name = function.getName();
    if (!name.consume_front(mp::MPDialect::kCInterfacePrefix) ||
        function.isExternal())
      continue;
    auto entry = state->engine->lookupPacked(function.getName());
    if (!entry)
      return session->finish(MP_STATUS_PASS_FAILURE,
                             "JIT compilation of '" + name + "' failed: " +
                                 llvm::toString(entry.takeError()));
    state->entryPoints[name] = {*entry, function.getNumArguments()};
  }
  // The module constructors loaded the kernels.
  if (cuda)
    if (MpStatus status = finishDeviceCall(session))
      return status;
  *engine = MpEngine{state.release()};
  return session->finish(MP_STATUS_SUCCESS);
}

MpStatus mpSessionCreateEngine(MpSession session, MlirModule module,
                               MlirStringRef cpuPipelineOptions,
                               unsigned optLevel, MpEngine *engine) {
  return mpSessionCreateEngineOnDevice(session, module,
                                       mlirStringRefCreateFromCString("cpu"),
                                       cpuPipelineOptions, optLevel, engine);
}

MlirStringRef mpEngineGetDevice(MpEngine mpEngine) {
  Engine *engine = unwrap(mpEngine);
  if (!engine)
    return mlirStringRefCreate(nullptr, 0);
  return mlirStringRefCreate(engine->device.data(), engine->device.size());
}

bool mpEngineIsDeviceResident(MpEngine engine) {
  return unwrap(engine) && unwrap(engine)->deviceResident;
}

MpStatus mpEngineInvoke(MpSession mpSession, MpEngine mpEngine,
                        MlirStringRef name, void **descriptors) {
  Session *session;
  if (MpStatus status = beginCall(mpSession, session))
    return status;
  Engine *engine = unwrap(mpEngine);
  if (!engine || !descriptors)
    return session->finish(MP_STATUS_INVALID_ARGUMENT,
                           !engine ? "null engine" : "null descriptors");
  StringRef function = ::unwrap(name);
  auto it = engine->entryPoints.find(function);
  if (it == engine->entryPoints.end())
    return session->finish(
        MP_STATUS_INVALID_ARGUMENT,
        "the engine has no function '" + function + "' with a C interface (" +
            mp::MPDialect::kCInterfacePrefix + function + ")");
  // The packed interface takes a pointer to each argument; each argument of
  // the C interface is a descriptor pointer.
  llvm::SmallVector<void *> packed;
  packed.reserve(it->second.arity);
  for (unsigned i = 0; i < it->second.arity; ++i)
    packed.push_back(&descriptors[i]);
  if (!engine->stream) {
    it->second.function(packed.data());
    return session->finish(MP_STATUS_SUCCESS);
  }
  {
    mp::CudaStepStreamScope scope(engine->stream);
    it->second.function(packed.data());
  }
  return finishDeviceCall(session);
}

MpStatus mpEngineDeviceAlloc(MpSession session, MpEngine engine,
                             uint64_t bytes, void **pointer) {
  return onDevice(session, engine, [&](Engine &state) -> const char * {
    if (!pointer)
      return "null pointer";
    *pointer = mgpuMemAlloc(bytes, state.stream, /*isHostShared=*/false);
    return nullptr;
  });
}

MpStatus mpEngineDeviceFree(MpSession session, MpEngine engine,
                            void *pointer) {
  return onDevice(session, engine, [&](Engine &state) -> const char * {
    mgpuMemFree(pointer, state.stream);
    return nullptr;
  });
}

MpStatus mpEngineHostAlloc(MpSession session, MpEngine engine, uint64_t bytes,
                           void **pointer) {
  return onDevice(session, engine, [&](Engine &) -> const char * {
    if (!pointer)
      return "null pointer";
    *pointer = mp::allocatePinnedHost(bytes);
    return nullptr;
  });
}

MpStatus mpEngineHostFree(MpSession session, MpEngine engine, void *pointer) {
  return onDevice(session, engine, [&](Engine &) -> const char * {
    mp::freePinnedHost(pointer);
    return nullptr;
  });
}

MpStatus mpEngineCopy(MpSession session, MpEngine engine, void *destination,
                      const void *source, uint64_t bytes) {
  return onDevice(session, engine, [&](Engine &state) -> const char * {
    if (bytes && (!destination || !source))
      return "null pointer";
    if (bytes)
      mgpuMemcpy(destination, const_cast<void *>(source), bytes, state.stream);
    return nullptr;
  });
}

MpStatus mpEngineEventCreate(MpSession session, MpEngine engine,
                             MpEngineEvent *event) {
  return onDevice(session, engine, [&](Engine &) -> const char * {
    if (!event)
      return "null pointer";
    *event = MpEngineEvent{mgpuEventCreate()};
    return nullptr;
  });
}

MpStatus mpEngineEventRecord(MpSession session, MpEngine engine,
                             MpEngineEvent event) {
  return onDevice(session, engine, [&](Engine &state) -> const char * {
    if (!event.ptr)
      return "null event";
    mgpuEventRecord(static_cast<MgpuEvent>(event.ptr), state.stream);
    return nullptr;
  });
}

MpStatus mpEngineEventSynchronize(MpSession session, MpEngine engine,
                                  MpEngineEvent event) {
  return onDevice(session, engine, [&](Engine &) -> const char * {
    if (!event.ptr)
      return "null event";
    mgpuEventSynchronize(static_cast<MgpuEvent>(event.ptr));
    return nullptr;
  });
}

void mpEngineEventDestroy(MpEngineEvent event) {
  if (event.ptr)
    mgpuEventDestroy(static_cast<MgpuEvent>(event.ptr));
}

static mp::PinnedStaging *unwrap(MpEngineStaging staging) {
  return static_cast<mp::PinnedStaging *>(staging.ptr);
}

MpStatus mpEngineStagingCreate(MpSession session, MpEngine engine,
                               uint64_t bytes, MpEngineStaging *staging) {
  return onDevice(session, engine, [&](Engine &state) -> const char * {
    if (!staging)
      return "null pointer";
    *staging = MpEngineStaging{new mp::PinnedStaging(state.stream, bytes)};
    return nullptr;
  });
}

MpStatus mpEngineStagingAcquire(MpSession session, MpEngine engine,
                                MpEngineStaging staging, void **slot) {
  return onDevice(session, engine, [&](Engine &) -> const char * {
    if (!staging.ptr || !slot)
      return "null staging or pointer";
    if (unwrap(staging)->isAcquired())
      return "the staging's slot is acquired and not released";
    *slot = unwrap(staging)->acquire();
    return nullptr;
  });
}

MpStatus mpEngineStagingCopy(MpSession session, MpEngine engine,
                             MpEngineStaging staging, void *destination,
                             uint64_t offset, uint64_t bytes) {
  return onDevice(session, engine, [&](Engine &) -> const char * {
    mp::PinnedStaging *state = unwrap(staging);
    if (!state || (bytes && !destination))
      return "null staging or pointer";
    if (!state->isAcquired())
      return "no slot of the staging is acquired";
    if (offset > state->getSlotBytes() ||
        bytes > state->getSlotBytes() - offset)
      return "the range is outside the staging's slot";
    state->copyToDevice(destination, offset, bytes);
    return nullptr;
  });
}

MpStatus mpEngineStagingRelease(MpSession session, MpEngine engine,
                                MpEngineStaging staging) {
  return onDevice(session, engine, [&](Engine &) -> const char * {
    if (!staging.ptr)
      return "null staging";
    if (!unwrap(staging)->isAcquired())
      return "no slot of the staging is acquired";
    unwrap(staging)->release();
    return nullptr;
  });
}

void mpEngineStagingDestroy(MpEngineStaging staging) { delete unwrap(staging); }

MpStatus mpEngineSynchronize(MpSession mpSession, MpEngine mpEngine) {
  Session *session;
  Engine *engine;
  if (MpStatus status = beginCall(mpSession, mpEngine, session, engine))
    return status;
  if (!engine->stream)
    return session->finish(MP_STATUS_SUCCESS);
  mgpuStreamSynchronize(engine->stream);
  return finishDeviceCall(session);
}

void mpEngineDestroy(MpEngine engine) { delete unwrap(engine); }
