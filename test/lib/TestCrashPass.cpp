//===- TestCrashPass.cpp - A pass that crashes on purpose -----------------===//
//
// mp-test-crash crashes the process the way a broken pass would: a
// segmentation fault (`kind=segv`), an abort such as a failed assertion
// (`kind=abort`) or llvm::report_fatal_error (`kind=fatal-error`). It exists
// to test that the C API session contains crashes (test/CAPI/compiler.c);
// it is never installed.
//
//===----------------------------------------------------------------------===//

#include "TestPasses.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/ErrorHandling.h"

#include <csignal>
#include <cstdlib>

using namespace mlir;

namespace {

struct TestCrashPass
    : public PassWrapper<TestCrashPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestCrashPass)

  TestCrashPass() = default;
  TestCrashPass(const TestCrashPass &other) : PassWrapper(other) {}

  StringRef getArgument() const final { return "mp-test-crash"; }
  StringRef getDescription() const final {
    return "Crash the process (test-only)";
  }

  void runOnOperation() override {
    if (kind == "segv")
      std::raise(SIGSEGV);
    else if (kind == "abort")
      std::abort();
    else if (kind == "fatal-error")
      llvm::report_fatal_error("mp-test-crash: fatal error on purpose");
    getOperation().emitError("mp-test-crash: unknown kind '") << kind << "'";
    signalPassFailure();
  }

  Option<std::string> kind{*this, "kind",
                           llvm::cl::desc("segv, abort or fatal-error"),
                           llvm::cl::init("segv")};
};

} // namespace

void mpTestRegisterPasses(void) { PassRegistration<TestCrashPass>(); }
