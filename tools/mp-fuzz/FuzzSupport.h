//===- FuzzSupport.h - Shared pieces of MixedPrec's fuzzers -----*- C++ -*-===//
//
// The context every fuzzer parses into (the dialects and passes mp-opt
// registers), a diagnostic handler that counts errors instead of printing
// them, and the checks whose failure is a bug: they print what went wrong
// and abort, so that libFuzzer records the input.
//
//===----------------------------------------------------------------------===//

#ifndef MP_TOOLS_MP_FUZZ_FUZZSUPPORT_H
#define MP_TOOLS_MP_FUZZ_FUZZSUPPORT_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <cstdint>

namespace mpfuzz {

/// The context shared by all inputs of one fuzzer process: every upstream
/// dialect and extension plus the mp dialect, single-threaded; MixedPrec's
/// passes and pipelines are registered as well.
mlir::MLIRContext &getContext();

/// Counts the error diagnostics emitted while it lives and prints none.
class DiagnosticCounter {
public:
  explicit DiagnosticCounter(mlir::MLIRContext &context);
  unsigned getNumErrors() const { return numErrors; }

private:
  unsigned numErrors = 0;
  mlir::ScopedDiagnosticHandler handler;
};

/// Parses `data` as a module; null when it does not parse or verify.
mlir::OwningOpRef<mlir::ModuleOp> parseModule(const uint8_t *data, size_t size);

/// Prints `message` (and `op`, when given) to stderr and aborts: the input
/// found a bug.
[[noreturn]] void reportBug(llvm::StringRef message,
                            mlir::Operation *op = nullptr);

} // namespace mpfuzz

#endif // MP_TOOLS_MP_FUZZ_FUZZSUPPORT_H
