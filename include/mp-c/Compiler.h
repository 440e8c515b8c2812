/*===- mp-c/Compiler.h - Compiling train steps from C -------------*- C -*-===*\
|*                                                                            *|
|* What a framework needs to compile mp train steps without MLIR's C++ API: a *|
|* session (an MLIR context with every dialect and pass registered, whose     *|
|* diagnostics are captured as text instead of printed), parsing a module     *|
|* from text, running a textual pass pipeline on it, printing it, and the     *|
|* precision report as JSON. Every entry point returns an MpStatus; on        *|
|* failure mpSessionGetMessage() says what failed in one line and             *|
|* mpSessionGetDiagnostics() holds the diagnostics the call produced.         *|
|* docs/CAPI.md is the guide.                                                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MP_C_COMPILER_H
#define MP_C_COMPILER_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

/// What an entry point of this header returns.
typedef enum MpStatus {
  MP_STATUS_SUCCESS = 0,
  /// The text is not valid MLIR syntax (or names unknown ops, types, ...).
  MP_STATUS_PARSE_ERROR = 1,
  /// The module parsed but does not verify.
  MP_STATUS_VERIFY_ERROR = 2,
  /// The pass pipeline string does not parse (unknown pass, bad option).
  MP_STATUS_INVALID_PIPELINE = 3,
  /// A pass failed (for example an unreadable policy file, or IR a pass
  /// does not support); the module may have been changed partially.
  MP_STATUS_PASS_FAILURE = 4,
  /// A file could not be written or read.
  MP_STATUS_IO_ERROR = 5,
  /// A null session, module or pointer was given (a null session gets no
  /// message: there is no session to hold it).
  MP_STATUS_INVALID_ARGUMENT = 6,
  /// A pass crashed (a signal such as SIGSEGV or SIGABRT, e.g. a failed
  /// assertion or llvm::report_fatal_error, was caught while the pipeline
  /// ran) and the call was abandoned instead of taking the process down.
  /// The module is in an unknown state: do not use or destroy it (it is
  /// leaked); destroy the session when convenient. Best effort: memory and
  /// locks the crashed pass held are not released.
  MP_STATUS_PASS_CRASH = 7,
  /// The device an engine runs on failed: no CUDA driver (libcuda.so.1 or
  /// $MP_CUDA_DRIVER cannot be loaded, lacks a function, or finds no
  /// device), or a driver call failed (the message names it and CUDA's
  /// error name).
  MP_STATUS_DEVICE_ERROR = 8,
} MpStatus;

/// A session: an MLIR context holding every dialect `mp-opt` knows, with
/// MixedPrec's and MLIR's passes registered and its diagnostics captured.
/// Not thread-safe: one thread at a time per session. Pipelines run on the
/// calling thread under llvm::CrashRecoveryContext, so that a crash in any
/// pass returns MP_STATUS_PASS_CRASH (the context's multithreading is off: a
/// crash on a worker thread could not be contained).
typedef struct MpSession {
  void *ptr;
} MpSession;

/// The name of `status` ("success", "parse error", ...), a static string.
MLIR_CAPI_EXPORTED const char *mpStatusGetName(MpStatus status);

/// Creates a session (registers the passes first, see mpRegisterAllPasses).
MLIR_CAPI_EXPORTED MpSession mpSessionCreate(void);

/// Destroys a session and its context. Modules of the session must be
/// destroyed (mlirModuleDestroy) before.
MLIR_CAPI_EXPORTED void mpSessionDestroy(MpSession session);

/// The session's context, for use with MLIR's C API.
MLIR_CAPI_EXPORTED MlirContext mpSessionGetContext(MpSession session);

/// Parses `source` as a module and verifies it. `sourceName` is the file
/// name locations carry. On success `*module` is a module owned by the caller
/// (mlirModuleDestroy); on failure it is null.
MLIR_CAPI_EXPORTED MpStatus mpSessionParseModule(MpSession session,
                                                 MlirStringRef source,
                                                 MlirStringRef sourceName,
                                                 MlirModule *module);

/// Runs the textual pass pipeline `pipeline` on `module`, verifying after
/// each pass. The pipeline is anchored on `builtin.module` and may be
/// written with or without an enclosing `builtin.module(...)`, e.g.
/// `mp-mixed-precision-pipeline{compute-type=bf16}` or
/// `mp-autocast,func.func(mp-autodiff)`. An empty pipeline only verifies.
MLIR_CAPI_EXPORTED MpStatus mpSessionRunPipeline(MpSession session,
                                                 MlirModule module,
                                                 MlirStringRef pipeline);

/// Prints `module` (the custom assembly form, without locations) into the
/// session's output buffer, see mpSessionGetOutput.
MLIR_CAPI_EXPORTED MpStatus mpSessionPrintModule(MpSession session,
                                                 MlirModule module);

/// Runs `mp-precision-report` on `module` (which it does not change) and
/// puts its JSON (docs/Autocast.md) into the session's output buffer.
/// `options` are extra options of the pass, space-separated as in a pass
/// pipeline, e.g. `policy-file=p.json deny=mp.gelu`; empty for none.
MLIR_CAPI_EXPORTED MpStatus mpSessionPrecisionReport(MpSession session,
                                                     MlirModule module,
                                                     MlirStringRef options);

/// The text the last successful mpSessionPrintModule,
/// mpSessionPrecisionReport or mpSessionCompile produced (empty after any
/// other call), owned by the session and valid until the next call on it
/// (null-terminated).
MLIR_CAPI_EXPORTED MlirStringRef mpSessionGetOutput(MpSession session);

/// One line saying what the last call on the session failed at (empty after
/// a success), owned by the session (null-terminated).
MLIR_CAPI_EXPORTED MlirStringRef mpSessionGetMessage(MpSession session);

/// The diagnostics the last call on the session produced, one per line as
/// `file:line:col: error: message` (notes follow their error as
/// `file:line:col: note: message`), owned by the session (null-terminated).
MLIR_CAPI_EXPORTED MlirStringRef mpSessionGetDiagnostics(MpSession session);

/// Parses `source`, runs `pipeline` on it and prints the result into the
/// session's output buffer, in one call (the module does not outlive it).
MLIR_CAPI_EXPORTED MpStatus mpSessionCompile(MpSession session,
                                             MlirStringRef source,
                                             MlirStringRef sourceName,
                                             MlirStringRef pipeline);

#ifdef __cplusplus
}
#endif

#endif // MP_C_COMPILER_H
