//===- mp-fuzz-policy.cpp - Fuzz the autocast policy-file reader ----------===//
//
// libFuzzer target (c): the input is the contents of an autocast policy file
// (docs/Autocast.md). It is written to a file of this process and read with
// AutocastPolicy::build, which must either fail with a message or build a
// policy; a policy that builds is then used by mp-autocast and
// mp-precision-report (policy-file=...) on a small train step, and the
// result must verify. A crash, a sanitizer report, a failure without a
// message, or invalid IR is a bug.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "mp/Dialect/MP/Transforms/AutocastPolicy.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// A train step with ops of every autocast category.
static constexpr const char *kTrainStep = R"mlir(
func.func @step(%w: tensor<4x8xf32> {mp.param}, %x: tensor<2x8xf32>,
                %t: tensor<2x4xf32>) -> (tensor<f32> {mp.loss},
                tensor<4x8xf32> {mp.updates = 0 : i64}) {
  %y = mp.linear %x, %w acc(f32)
      : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
  %r = mp.relu %y : tensor<2x4xf32>
  %e = mp.exp %r : tensor<2x4xf32>
  %s = mp.add %e, %y : tensor<2x4xf32>, tensor<2x4xf32>
  %loss = mp.mse %s, %t : tensor<2x4xf32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4x8xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<4x8xf32>
  return %loss, %w1 : tensor<f32>, tensor<4x8xf32>
}
)mlir";

/// The file this process writes each input to.
static const std::string &getPolicyPath() {
  static std::string path = [] {
    SmallString<128> result;
    llvm::sys::fs::createUniquePath("mp-fuzz-policy-%%%%%%%%.json", result,
                                    /*MakeAbsolute=*/true);
    return std::string(result);
  }();
  return path;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = mpfuzz::getContext();
  const std::string &path = getPolicyPath();
  {
    std::error_code error;
    llvm::raw_fd_ostream os(path, error);
    if (error) {
      llvm::errs() << "mp-fuzz-policy: cannot write '" << path
                   << "': " << error.message() << "\n";
      std::abort();
    }
    os.write(reinterpret_cast<const char *>(data), size);
  }

  mlir::mp::AutocastPolicySettings settings;
  settings.policyFile = path;
  std::string message;
  FailureOr<mlir::mp::AutocastPolicy> policy =
      mlir::mp::AutocastPolicy::build(&context, settings, message);
  if (failed(policy)) {
    if (message.empty())
      mpfuzz::reportBug("AutocastPolicy::build failed without a message");
    return 0;
  }

  mpfuzz::DiagnosticCounter diagnostics(context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(
      kTrainStep, ParserConfig(&context), "train-step");
  if (!module)
    mpfuzz::reportBug("the fixed train step does not parse");
  PassManager pm(&context, ModuleOp::getOperationName());
  std::string pipeline = "mp-autocast{policy-file=" + path +
                         "},mp-precision-report{policy-file=" + path +
                         " table-output=}";
  if (failed(parsePassPipeline(pipeline, pm)))
    mpfuzz::reportBug("bad pipeline: " + pipeline);
  if (failed(pm.run(*module))) {
    if (diagnostics.getNumErrors() == 0)
      mpfuzz::reportBug("mp-autocast failed without an error diagnostic");
    return 0;
  }
  if (failed(verify(*module)))
    mpfuzz::reportBug("mp-autocast left IR that does not verify", *module);
  return 0;
}
