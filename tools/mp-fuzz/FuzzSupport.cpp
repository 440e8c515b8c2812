//===- FuzzSupport.cpp - Shared pieces of MixedPrec's fuzzers -------------===//

#include "FuzzSupport.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mp/InitAll.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

/// ASan's defaults for the fuzzers: LLVM's BumpPtrAllocator poisons its slabs
/// by hand in instrumented code but not inside the uninstrumented libMLIR,
/// which then trips over the poison (a false use-after-poison); see
/// docs/Reliability.md.
extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}

MLIRContext &mpfuzz::getContext() {
  static MLIRContext *context = [] {
    mlir::mp::registerAllPasses();
    // Upstream passes the fuzzed pipelines name directly (mp-opt registers
    // all of them).
    registerConvertShardToMPIPass();
    DialectRegistry registry;
    registerAllDialects(registry);
    registerAllExtensions(registry);
    mlir::mp::registerAllDialects(registry);
    auto *context = new MLIRContext(registry, MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
    return context;
  }();
  return *context;
}

mpfuzz::DiagnosticCounter::DiagnosticCounter(MLIRContext &context)
    : handler(&context, [this](Diagnostic &diagnostic) {
        if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
          ++numErrors;
        // MP_FUZZ_VERBOSE=1 prints them, to see what an input does.
        static const bool verbose = std::getenv("MP_FUZZ_VERBOSE");
        if (verbose)
          llvm::errs() << diagnostic.getLocation() << ": " << diagnostic
                       << "\n";
        return success();
      }) {}

OwningOpRef<ModuleOp> mpfuzz::parseModule(const uint8_t *data, size_t size) {
  // MLIR's lexer relies on the NUL after the buffer that files read through
  // MemoryBuffer have (mp-opt's case); libFuzzer's bytes have none, so copy.
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      llvm::MemoryBuffer::getMemBufferCopy(
          StringRef(reinterpret_cast<const char *>(data), size), "fuzz-input");
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  ParserConfig config(&getContext());
  return parseSourceFile<ModuleOp>(sourceMgr, config);
}

void mpfuzz::reportBug(StringRef message, Operation *op) {
  llvm::errs() << "mp-fuzz: BUG: " << message << "\n";
  if (op)
    op->print(llvm::errs(), OpPrintingFlags().printGenericOpForm());
  llvm::errs() << "\n";
  llvm::errs().flush();
  std::abort();
}
