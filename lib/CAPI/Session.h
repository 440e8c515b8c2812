//===- Session.h - The state behind an MpSession ----------------*- C++ -*-===//
//
// Internal to lib/CAPI: the session of mp-c/Compiler.h (an MLIRContext with
// every dialect mp-opt knows and the diagnostics of the last call as text),
// shared by the compiler (Compiler.cpp) and the in-process engine
// (Engine.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef MP_LIB_CAPI_SESSION_H
#define MP_LIB_CAPI_SESSION_H

#include "mp-c/Compiler.h"
#include "mp-c/Dialects.h"
#include "mp-c/Passes.h"

#include "mlir/CAPI/IR.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>
#include <string>

namespace mlir::mp::capi {

/// The state behind an MpSession.
struct Session {
  // No worker threads: a crash on one could not be contained (runPipeline).
  Session() : context(makeRegistry(), MLIRContext::Threading::DISABLED) {
    // Diagnostics stay one line each: no dump of the op they are about.
    context.printOpOnDiagnostic(false);
    context.getDiagEngine().registerHandler(
        [this](Diagnostic &diagnostic) { record(diagnostic); });
  }

  /// Starts a call: forgets the previous call's output and errors.
  void begin() {
    diagnostics.clear();
    message.clear();
    output.clear();
  }

  /// Ends a call with `status`, and `what` as the message when it failed.
  MpStatus finish(MpStatus status, const llvm::Twine &what = "") {
    if (status != MP_STATUS_SUCCESS)
      message = what.str();
    return status;
  }

  /// Appends `diagnostic` and its notes to the captured text (passes on
  /// functions may run in parallel).
  void record(Diagnostic &diagnostic) {
    std::lock_guard<std::mutex> lock(diagnosticsMutex);
    llvm::raw_string_ostream os(diagnostics);
    print(os, diagnostic.getLocation(), diagnostic.getSeverity(),
          diagnostic.str());
    for (Diagnostic &note : diagnostic.getNotes())
      print(os, note.getLocation(), DiagnosticSeverity::Note, note.str());
  }

  MLIRContext context;
  std::mutex diagnosticsMutex;
  std::string diagnostics;
  std::string message;
  std::string output;

private:
  static DialectRegistry makeRegistry() {
    mpRegisterAllPasses();
    DialectRegistry registry;
    mpRegisterAllDialects(wrap(&registry));
    return registry;
  }

  /// Prints one diagnostic as `file:line:col: severity: message`.
  static void print(llvm::raw_ostream &os, Location location,
                    DiagnosticSeverity severity, StringRef text) {
    if (auto fileLocation = location->findInstanceOf<FileLineColLoc>())
      os << fileLocation.getFilename().getValue() << ':'
         << fileLocation.getLine() << ':' << fileLocation.getColumn() << ": ";
    switch (severity) {
    case DiagnosticSeverity::Error:
      os << "error: ";
      break;
    case DiagnosticSeverity::Warning:
      os << "warning: ";
      break;
    case DiagnosticSeverity::Note:
      os << "note: ";
      break;
    case DiagnosticSeverity::Remark:
      os << "remark: ";
      break;
    }
    os << text << '\n';
  }
};

/// The Session of a handle (null for a null handle).
Session *unwrap(MpSession session);

/// `text` as an MlirStringRef (valid while `text` is).
MlirStringRef toStringRef(const std::string &text);

/// Starts a call of `mpSession`: sets `session` to its state, with the
/// previous call's output and errors forgotten. A null handle is an invalid
/// argument (with no message: there is no session to hold one).
MpStatus beginCall(MpSession mpSession, Session *&session);

/// `beginCall` for a call on `module`, which must not be null.
MpStatus beginCall(MpSession mpSession, MlirModule module, Session *&session);

/// Runs the user's textual `pipeline` on `module` for `session`, containing
/// crashes (the status says what failed).
MpStatus runPipeline(Session &session, ModuleOp module, StringRef pipeline);

} // namespace mlir::mp::capi

#endif // MP_LIB_CAPI_SESSION_H
