//===- mp-fuzz-passes.cpp - Fuzz MixedPrec's passes -----------------------===//
//
// libFuzzer target (b): the input is the text of a module. When it parses
// and verifies, each pipeline of kPipelines runs on its own copy: every
// mixed-precision pass alone and as mp-mixed-precision-pipeline, the CPU
// lowering (convert-mp-to-linalg, mp-cpu-pipeline, and both pipelines in a
// row as mp-run does, also with FP8 scaling and data parallelism),
// mp-fp8-scaling, mp-data-parallel, mp-legalize-mpi, convert-mp-to-nvvm on
// each Tensor Core chip, and the remaining passes of the project. The pass
// manager's own verifier is off; instead the IR is verified after every pass
// that succeeds. A bug is:
// - a crash, an assert or a sanitizer report (libFuzzer catches them);
// - a pass that succeeds and leaves IR that does not verify;
// - a pipeline that fails without emitting an error.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "mlir/IR/Verifier.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

/// The pipelines every valid input goes through (textual pass pipelines).
static constexpr const char *kPipelines[] = {
    "builtin.module(mp-autocast)",
    "builtin.module(mp-autocast{compute-type=bf16 level=tensor-cores-only})",
    "builtin.module(func.func(mp-autodiff))",
    "builtin.module(mp-loss-scaling)",
    "builtin.module(mp-loss-scaling{mode=static})",
    "builtin.module(mp-loss-scaling{hysteresis=2 min-scale=1 "
    "max-scale=65536})",
    "builtin.module(mp-master-weights)",
    "builtin.module(mp-master-weights{style=stored-copy})",
    "builtin.module(mp-precision-report{table-output=})",
    "builtin.module(mp-mixed-precision-pipeline)",
    "builtin.module(mp-mixed-precision-pipeline{compute-type=bf16 "
    "master-weights=stored-copy loss-scaling=static})",
    "builtin.module(convert-mp-to-linalg)",
    "builtin.module(mp-expand-fp8-conversions)",
    "builtin.module(mp-expand-tanh)",
    "builtin.module(func.func(mp-tile-and-vectorize))",
    "builtin.module(mp-export-entry-points)",
    "builtin.module(mp-cpu-pipeline)",
    "builtin.module(mp-mixed-precision-pipeline,mp-cpu-pipeline)",
    "builtin.module(convert-mp-to-nvvm)",
    // FP8 scaling, data parallelism and its MPI lowering.
    "builtin.module(mp-fp8-scaling)",
    "builtin.module(mp-fp8-scaling{recipe=current format=e4m3 "
    "include-first-last=true})",
    "builtin.module(mp-fp8-scaling{amax-history-len=4 "
    "amax-compute=most-recent margin=1 ops=matmul,linear,batch_matmul})",
    "builtin.module(func.func(mp-autodiff),mp-fp8-scaling)",
    "builtin.module(mp-data-parallel{grid-size=2})",
    "builtin.module(mp-data-parallel{reduce-type=f16 average=false})",
    "builtin.module(mp-loss-scaling,mp-data-parallel{reduce-type="
    "bf16})",
    "builtin.module(mp-legalize-mpi{grid-size=2})",
    "builtin.module(mp-legalize-mpi{grid-size=2},convert-shard-to-mpi,"
    "mp-legalize-mpi)",
    "builtin.module(mp-mixed-precision-pipeline{fp8=delayed})",
    "builtin.module(mp-mixed-precision-pipeline{fp8=current fp8-format=e4m3})",
    "builtin.module(mp-mixed-precision-pipeline{data-parallel=true "
    "reduce-type=bf16})",
    "builtin.module(mp-mixed-precision-pipeline{fp8=delayed},mp-cpu-pipeline)",
    "builtin.module(mp-mixed-precision-pipeline{fp8=current},mp-cpu-pipeline)",
    "builtin.module(mp-mixed-precision-pipeline{data-parallel=true "
    "reduce-type=bf16},mp-cpu-pipeline{grid-size=2})",
    "builtin.module(convert-mp-to-nvvm{chip=sm_80})",
    "builtin.module(convert-mp-to-nvvm{chip=sm_89})",
    "builtin.module(convert-mp-to-nvvm{chip=sm_90a})",
};

namespace {
/// Verifies the IR after each pass that succeeds, naming the pass when it
/// does not verify.
struct VerifyAfterEachPass : public PassInstrumentation {
  void runAfterPass(Pass *pass, Operation *op) override {
    if (failed(verify(op)))
      mpfuzz::reportBug(("pass '" + pass->getArgument() +
                         "' succeeded but left IR that does not verify")
                            .str(),
                        op);
  }
};
} // namespace

/// The pass managers of kPipelines, built once.
static SmallVector<std::unique_ptr<PassManager>> &getPassManagers() {
  static SmallVector<std::unique_ptr<PassManager>> passManagers = [] {
    SmallVector<std::unique_ptr<PassManager>> result;
    for (const char *pipeline : kPipelines) {
      // Anchored on the module: the pipeline text is the list inside
      // `builtin.module(...)`.
      auto pm = std::make_unique<PassManager>(&mpfuzz::getContext(),
                                              ModuleOp::getOperationName());
      StringRef passes = pipeline;
      if (!passes.consume_front("builtin.module(") ||
          !passes.consume_back(")")) {
        llvm::errs() << "mp-fuzz-passes: '" << pipeline
                     << "' is not of the form builtin.module(...)\n";
        std::abort();
      }
      std::string error;
      llvm::raw_string_ostream errorStream(error);
      if (failed(parsePassPipeline(passes, *pm, errorStream))) {
        llvm::errs() << "mp-fuzz-passes: bad pipeline '" << pipeline
                     << "': " << error << "\n";
        std::abort();
      }
      pm->enableVerifier(false);
      pm->addInstrumentation(std::make_unique<VerifyAfterEachPass>());
      result.push_back(std::move(pm));
    }
    return result;
  }();
  return passManagers;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = mpfuzz::getContext();
  SmallVector<std::unique_ptr<PassManager>> &passManagers = getPassManagers();
  mpfuzz::DiagnosticCounter diagnostics(context);
  OwningOpRef<ModuleOp> module = mpfuzz::parseModule(data, size);
  if (!module)
    return 0;
  for (auto [pipeline, pm] : llvm::zip_equal(kPipelines, passManagers)) {
    OwningOpRef<ModuleOp> copy = module->clone();
    unsigned errorsBefore = diagnostics.getNumErrors();
    LogicalResult result = pm->run(*copy);
    static const bool verbose = std::getenv("MP_FUZZ_VERBOSE");
    if (verbose)
      llvm::errs() << pipeline << ": "
                   << (succeeded(result) ? "success" : "failure") << "\n";
    if (failed(result) && diagnostics.getNumErrors() == errorsBefore)
      mpfuzz::reportBug(
          ("'" + StringRef(pipeline) + "' failed without an error diagnostic")
              .str(),
          *module);
  }
  return 0;
}
