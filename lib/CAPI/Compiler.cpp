//===- Compiler.cpp - Compiling train steps from C ------------------------===//
//
// The session of mp-c/Compiler.h: an MLIRContext with every dialect mp-opt
// knows and a diagnostic handler that collects diagnostics as text, plus the
// parse / run-pipeline / print / precision-report entry points. Failures are
// returned as an MpStatus with a one-line message; nothing is printed.
// Pipelines run under llvm::CrashRecoveryContext on the calling thread,
// so that a crashing pass fails the call instead of the host process.
//
//===----------------------------------------------------------------------===//

#include "Session.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <memory>
#include <mutex>
#include <string>

using namespace mlir;

namespace mlir::mp::capi {

Session *unwrap(MpSession session) {
  return static_cast<Session *>(session.ptr);
}

MlirStringRef toStringRef(const std::string &text) {
  return mlirStringRefCreate(text.c_str(), text.size());
}

namespace {

/// Parses `pipeline` into a pass manager on builtin.module. An enclosing
/// `builtin.module(...)` is dropped: parsing it into a pass manager already
/// anchored on the module would nest a second module pass manager.
LogicalResult parsePipeline(StringRef pipeline, PassManager &pm,
                            llvm::raw_ostream &errors) {
  pipeline = pipeline.trim();
  if (pipeline.consume_front("builtin.module(") && pipeline.consume_back(")"))
    pipeline = pipeline.trim();
  if (pipeline.empty())
    return success();
  return parsePassPipeline(pipeline, pm, errors);
}

/// Keeps llvm::CrashRecoveryContext's signal handlers installed while at
/// least one pipeline of any session runs; the host's handlers are back in
/// place in between.
class CrashContainment {
public:
  CrashContainment() {
    std::lock_guard<std::mutex> lock(getMutex());
    if (getUsers()++ == 0)
      llvm::CrashRecoveryContext::Enable();
  }
  ~CrashContainment() {
    std::lock_guard<std::mutex> lock(getMutex());
    if (--getUsers() == 0)
      llvm::CrashRecoveryContext::Disable();
  }

private:
  static std::mutex &getMutex() {
    static std::mutex mutex;
    return mutex;
  }
  static unsigned &getUsers() {
    static unsigned users = 0;
    return users;
  }
};

/// Runs `pm` on `module` under a crash recovery context on the calling thread
/// (a thread of its own, RunSafelyOnThread, makes AddressSanitizer fail to
/// unmap its stack): returns false when a pass crashed, with `signal` set.
bool runContained(PassManager &pm, ModuleOp module, LogicalResult &result,
                  int &signal) {
  CrashContainment containment;
  llvm::CrashRecoveryContext recovery;
  result = failure();
  if (recovery.RunSafely([&] { result = pm.run(module); }))
    return true;
  // The recovery context returns 128 + the signal number, as a shell does.
  signal = recovery.RetCode - 128;
  return false;
}

/// Runs `pipeline` on `module` for `session`; `name` is how the message of
/// a failure calls the pipeline.
MpStatus runPipeline(Session &session, ModuleOp module, StringRef pipeline,
                     const llvm::Twine &name) {
  PassManager pm(&session.context, ModuleOp::getOperationName());
  pm.enableVerifier(true);
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (failed(parsePipeline(pipeline, pm, errorStream))) {
    // The parser's explanation (several lines, with a caret) goes with the
    // diagnostics.
    session.diagnostics += StringRef(errors).trim().str() + "\n";
    return session.finish(MP_STATUS_INVALID_PIPELINE,
                          "invalid pass pipeline " + name);
  }
  // A pipeline that is empty still verifies the module.
  if (pm.size() == 0 && failed(verify(module)))
    return session.finish(MP_STATUS_VERIFY_ERROR, "the module does not verify");
  LogicalResult result = failure();
  int signal = 0;
  if (!runContained(pm, module, result, signal))
    return session.finish(MP_STATUS_PASS_CRASH,
                          "the pass pipeline " + name + " crashed (" +
                              strsignal(signal) +
                              "); the module is in an unknown state");
  if (failed(result))
    return session.finish(MP_STATUS_PASS_FAILURE,
                          "the pass pipeline " + name + " failed");
  return session.finish(MP_STATUS_SUCCESS);
}

} // namespace

MpStatus runPipeline(Session &session, ModuleOp module, StringRef pipeline) {
  return runPipeline(session, module, pipeline, "'" + pipeline.trim() + "'");
}

/// Starts a call of `mpSession`: sets `session` to its state, with the
/// previous call's output and errors forgotten. A null handle is an invalid
/// argument (with no message: there is no session to hold one).
MpStatus beginCall(MpSession mpSession, Session *&session) {
  session = unwrap(mpSession);
  if (!session)
    return MP_STATUS_INVALID_ARGUMENT;
  session->begin();
  return MP_STATUS_SUCCESS;
}

/// `beginCall` for a call on `module`, which must not be null.
MpStatus beginCall(MpSession mpSession, MlirModule module, Session *&session) {
  if (MpStatus status = beginCall(mpSession, session))
    return status;
  if (mlirModuleIsNull(module))
    return session->finish(MP_STATUS_INVALID_ARGUMENT, "null module");
  return MP_STATUS_SUCCESS;
}

} // namespace mlir::mp::capi

using namespace mlir::mp::capi;

const char *mpStatusGetName(MpStatus status) {
  switch (status) {
  case MP_STATUS_SUCCESS:
    return "success";
  case MP_STATUS_PARSE_ERROR:
    return "parse error";
  case MP_STATUS_VERIFY_ERROR:
    return "verify error";
  case MP_STATUS_INVALID_PIPELINE:
    return "invalid pipeline";
  case MP_STATUS_PASS_FAILURE:
    return "pass failure";
  case MP_STATUS_IO_ERROR:
    return "I/O error";
  case MP_STATUS_INVALID_ARGUMENT:
    return "invalid argument";
  case MP_STATUS_PASS_CRASH:
    return "pass crash";
  case MP_STATUS_DEVICE_ERROR:
    return "device error";
  }
  return "unknown status";
}

MpSession mpSessionCreate(void) { return MpSession{new Session()}; }

void mpSessionDestroy(MpSession session) { delete unwrap(session); }

MlirContext mpSessionGetContext(MpSession session) {
  return wrap(&unwrap(session)->context);
}

MpStatus mpSessionParseModule(MpSession mpSession, MlirStringRef source,
                              MlirStringRef sourceName, MlirModule *module) {
  Session *session;
  if (MpStatus status = beginCall(mpSession, session))
    return status;
  if (!module)
    return session->finish(MP_STATUS_INVALID_ARGUMENT,
                           "null pointer for the parsed module");
  *module = MlirModule{nullptr};
  // Parse without verifying first, so that a verifier failure has a status
  // of its own.
  ParserConfig config(&session->context, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> parsed =
      parseSourceString<ModuleOp>(unwrap(source), config, unwrap(sourceName));
  if (!parsed)
    return session->finish(MP_STATUS_PARSE_ERROR,
                           "cannot parse '" + unwrap(sourceName) + "'");
  if (failed(verify(*parsed)))
    return session->finish(MP_STATUS_VERIFY_ERROR,
                           "'" + unwrap(sourceName) + "' does not verify");
  *module = wrap(parsed.release());
  return session->finish(MP_STATUS_SUCCESS);
}

MpStatus mpSessionRunPipeline(MpSession mpSession, MlirModule module,
                              MlirStringRef pipeline) {
  Session *session;
  if (MpStatus status = beginCall(mpSession, module, session))
    return status;
  return runPipeline(*session, unwrap(module), unwrap(pipeline));
}

MpStatus mpSessionPrintModule(MpSession mpSession, MlirModule module) {
  Session *session;
  if (MpStatus status = beginCall(mpSession, module, session))
    return status;
  llvm::raw_string_ostream os(session->output);
  unwrap(module)->print(os);
  return session->finish(MP_STATUS_SUCCESS);
}

MpStatus mpSessionPrecisionReport(MpSession mpSession, MlirModule module,
                                  MlirStringRef options) {
  Session *session;
  if (MpStatus status = beginCall(mpSession, module, session))
    return status;

  // The pass writes its JSON to a file: a temporary one, read back.
  llvm::SmallString<128> path;
  if (std::error_code error = llvm::sys::fs::createTemporaryFile(
          "mp-precision-report", "json", path))
    return session->finish(MP_STATUS_IO_ERROR,
                           "cannot create a temporary file: " +
                               error.message());
  llvm::FileRemover remover(path);
  std::string pipeline =
      "mp-precision-report{output=" + path.str().str() + " table-output=''";
  if (!StringRef(unwrap(options)).trim().empty())
    pipeline += " " + unwrap(options).str();
  pipeline += "}";
  if (MpStatus status =
          runPipeline(*session, unwrap(module), pipeline,
                      "mp-precision-report{" + unwrap(options).trim() + "}"))
    return status;

  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> json =
      llvm::MemoryBuffer::getFile(path);
  if (!json)
    return session->finish(MP_STATUS_IO_ERROR,
                           "cannot read the report back from '" + path +
                               "': " + json.getError().message());
  session->output = (*json)->getBuffer().str();
  return session->finish(MP_STATUS_SUCCESS);
}

MlirStringRef mpSessionGetOutput(MpSession session) {
  return toStringRef(unwrap(session)->output);
}

MlirStringRef mpSessionGetMessage(MpSession session) {
  return toStringRef(unwrap(session)->message);
}

MlirStringRef mpSessionGetDiagnostics(MpSession session) {
  return toStringRef(unwrap(session)->diagnostics);
}

MpStatus mpSessionCompile(MpSession mpSession, MlirStringRef source,
                          MlirStringRef sourceName, MlirStringRef pipeline) {
  MlirModule module;
  if (MpStatus status =
          mpSessionParseModule(mpSession, source, sourceName, &module))
    return status;
  Session *session = unwrap(mpSession);
  OwningOpRef<ModuleOp> owner(unwrap(module));
  if (MpStatus status = runPipeline(*session, *owner, unwrap(pipeline)))
    return status;
  llvm::raw_string_ostream os(session->output);
  owner->print(os);
  return session->finish(MP_STATUS_SUCCESS);
}
