//===- Engine.cpp - Running compiled train steps in process ---------------===//
//
// The engine of mp-c/Engine.h: a module lowered with mp-cpu-pipeline and
// JIT-compiled by mp::compileForHost (the code path mp-run uses), with the
// packed C-interface entry point of each called function looked up once.
// Calls run the native code directly on the caller's buffers.
//
//===----------------------------------------------------------------------===//

#include "mp-c/Engine.h"

#include "mlir/CAPI/Support.h"

#include "Session.h"

#include "mp/ExecutionEngine/HostJIT.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;
using namespace mlir::mp::capi;

namespace {

/// The state behind an MpEngine.
struct Engine {
  std::unique_ptr<ExecutionEngine> engine;
  /// The number of parameters of each `_mlir_ciface_` function, by the name
  /// of the function it wraps.
  llvm::StringMap<unsigned> arity;
  /// Packed entry points looked up so far, by function name.
  llvm::StringMap<void (*)(void **)> entryPoints;
};

Engine *unwrap(MpEngine engine) { return static_cast<Engine *>(engine.ptr); }

} // namespace

MpStatus mpSessionCreateEngine(MpSession mpSession, MlirModule module,
                               MlirStringRef cpuPipelineOptions,
                               MpEngine *engine) {
  Session *session;
  if (MpStatus status = beginCall(mpSession, module, session))
    return status;
  if (!engine)
    return session->finish(MP_STATUS_INVALID_ARGUMENT,
                           "null pointer for the engine");
  *engine = MpEngine{nullptr};
  ModuleOp moduleOp = ::unwrap(module);
  if (mp::needsHostLowering(moduleOp)) {
    mp::HostLowering lowering;
    lowering.cpuPipelineOptions = ::unwrap(cpuPipelineOptions).str();
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
  auto compiled = mp::compileForHost(moduleOp);
  if (!compiled)
    return session->finish(MP_STATUS_PASS_FAILURE,
                           "JIT compilation failed: " +
                               llvm::toString(compiled.takeError()));
  auto *state = new Engine{std::move(*compiled), {}, {}};
  for (auto function : moduleOp.getOps<LLVM::LLVMFuncOp>())
    if (function.getName().starts_with("_mlir_ciface_") &&
        !function.isExternal())
      state->arity[function.getName().drop_front(strlen("_mlir_ciface_"))] =
          function.getNumArguments();
  *engine = MpEngine{state};
  return session->finish(MP_STATUS_SUCCESS);
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
  auto arity = engine->arity.find(function);
  if (arity == engine->arity.end())
    return session->finish(MP_STATUS_INVALID_ARGUMENT,
                           "the engine has no function '" + function +
                               "' with a C interface (_mlir_ciface_" +
                               function + ")");
  auto [it, inserted] = engine->entryPoints.try_emplace(function, nullptr);
  if (inserted) {
    auto entry = engine->engine->lookupPacked(("_mlir_ciface_" + function).str());
    if (!entry) {
      llvm::consumeError(entry.takeError());
      engine->entryPoints.erase(it);
      return session->finish(MP_STATUS_INVALID_ARGUMENT,
                             "the engine has no function '" + function +
                                 "' with a C interface (_mlir_ciface_" +
                                 function + ")");
    }
    it->second = *entry;
  }
  // The packed interface takes a pointer to each argument; each argument of
  // the C interface is a descriptor pointer.
  llvm::SmallVector<void *> packed;
  packed.reserve(arity->second);
  for (unsigned i = 0; i < arity->second; ++i)
    packed.push_back(&descriptors[i]);
  it->second(packed.data());
  return session->finish(MP_STATUS_SUCCESS);
}

void mpEngineDestroy(MpEngine engine) { delete unwrap(engine); }
