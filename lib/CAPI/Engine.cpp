//===- Engine.cpp - Running compiled train steps in process ---------------===//
//
// The engine of mp-c/Engine.h: a module lowered with mp-cpu-pipeline and
// JIT-compiled by mp::compileForHost (the code path mp-run uses), with the
// packed C-interface entry point of every exported function looked up (and
// so compiled) when the engine is created.
// Calls run the native code directly on the caller's buffers.
//
//===----------------------------------------------------------------------===//

#include "mp-c/Engine.h"

#include "mlir/CAPI/Support.h"

#include "Session.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mp/Dialect/MP/IR/MPDialect.h"
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
};

Engine *unwrap(MpEngine engine) { return static_cast<Engine *>(engine.ptr); }

} // namespace

MpStatus mpSessionCreateEngine(MpSession mpSession, MlirModule module,
                               MlirStringRef cpuPipelineOptions,
                               unsigned optLevel, MpEngine *engine) {
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
  auto compiled = mp::compileForHost(moduleOp, {}, optLevel);
  if (!compiled)
    return session->finish(MP_STATUS_PASS_FAILURE,
                           "JIT compilation failed: " +
                               llvm::toString(compiled.takeError()));
  auto state = std::make_unique<Engine>();
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
  *engine = MpEngine{state.release()};
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
  it->second.function(packed.data());
  return session->finish(MP_STATUS_SUCCESS);
}

void mpEngineDestroy(MpEngine engine) { delete unwrap(engine); }
