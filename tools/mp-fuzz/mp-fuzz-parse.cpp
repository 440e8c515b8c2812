//===- mp-fuzz-parse.cpp - Fuzz the parser and verifiers of mp IR ---------===//
//
// libFuzzer target (a): the input is the text of a module. It is parsed and
// verified (the verifiers of the mp ops run on whatever parses); a module
// that verifies is printed, in the custom and the generic form, and each
// print must parse and verify again. A crash, a sanitizer report, or a
// printed module that does not read back is a bug.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// Prints `module` with `flags` and parses the print back; reports a bug when
/// it does not parse and verify.
static void checkRoundTrip(ModuleOp module, OpPrintingFlags flags,
                           StringRef form) {
  std::string printed;
  llvm::raw_string_ostream os(printed);
  module->print(os, flags);
  mpfuzz::DiagnosticCounter diagnostics(mpfuzz::getContext());
  ParserConfig config(&mpfuzz::getContext());
  // `printed` is NUL-terminated (std::string), as the lexer expects.
  OwningOpRef<ModuleOp> reparsed =
      parseSourceString<ModuleOp>(printed, config, "printed");
  if (!reparsed)
    mpfuzz::reportBug(("the " + form +
                       " print of a valid module does not "
                       "parse back:\n" +
                       printed)
                          .str());
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = mpfuzz::getContext();
  OwningOpRef<ModuleOp> module;
  {
    mpfuzz::DiagnosticCounter diagnostics(context);
    module = mpfuzz::parseModule(data, size);
    if (!module) {
      if (diagnostics.getNumErrors() == 0)
        mpfuzz::reportBug("the parser rejected an input without an error");
      return 0;
    }
  }
  checkRoundTrip(*module, OpPrintingFlags(), "custom");
  checkRoundTrip(*module, OpPrintingFlags().printGenericOpForm(), "generic");
  return 0;
}
