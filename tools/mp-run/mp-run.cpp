//===- mp-run.cpp - Run mp train steps on the CPU or a GPU ----------------===//
//
// mp-run JIT-compiles a module with MLIR's ExecutionEngine and runs one of
// its train steps for N steps, binding arguments and results by the
// train-step contract (docs/TrainStep.md): parameters are initialised from a
// seed or loaded from .npy files, state from `mp.init` (zeros otherwise,
// 1 for bn.running_var as PyTorch's BatchNorm, working copies from their
// parameter), batch data from a seeded generator,
// .npy files or Fashion-MNIST; every `mp.updates = N` result becomes argument
// N of the next step. It prints the loss, the loss scale and whether the step
// was skipped, and can write the trajectory as JSON, evaluate a classifier's
// test accuracy (passing it the trained forward state, e.g. batch-norm
// running statistics) and save the final parameters and forward state.
//
// --device=cuda lowers with mp-gpu-pipeline instead and runs the kernels on
// an NVIDIA GPU through the in-tree CUDA runtime wrappers
// (mp/ExecutionEngine/CudaRuntime.h), the driver loaded at run time.
//
// Input is a module of mp train steps, of linalg on tensors, or one already
// lowered by mp-cpu-pipeline (LLVM dialect, with the `mp.signature` the
// pipeline records). See docs/MpRun.md.
//
// This file holds the driver (lowering, compilation, the step loop and the
// summary, mpirun); the other parts: Options (command line), EntryPoint
// (the contract), Invocation (buffers and the call), Library
// (--emit-library), Arguments (initial
// values), Batches (--data), Eval (--eval), Report (--json, --save), Data,
// Npy, Tensor and Distributed.
//
//===----------------------------------------------------------------------===//

#include "Arguments.h"
#include "Batches.h"
#include "Data.h"
#include "Device.h"
#include "Distributed.h"
#include "EntryPoint.h"
#include "Eval.h"
#include "HelpDefaults.h"
#include "Invocation.h"
#include "Library.h"
#include "Options.h"
#include "Report.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mp/Dialect/MP/IR/MPDialect.h"
#include "mp/ExecutionEngine/CudaRuntime.h"
#include "mp/ExecutionEngine/HostJIT.h"
#include "mp/ExecutionEngine/StepMemory.h"
#include "mp/InitAll.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <unistd.h>

using namespace mlir;
using namespace mp_run;
namespace cl = llvm::cl;

namespace {

//===----------------------------------------------------------------------===//
// Lowering and compilation
//===----------------------------------------------------------------------===//

/// Runs --pipeline and mp-cpu-pipeline on `module`.
static llvm::Error lowerModule(ModuleOp module) {
  std::string pre = prePipeline;
  if (pre == "auto") {
    bool hasGrad = false;
    module.walk([&](Operation *op) {
      hasGrad |= op->getName().getStringRef() == "mp.grad";
    });
    pre = hasGrad ? "func.func(mp-autodiff)" : "";
  } else if (pre == "none") {
    pre = "";
  }
  mp::HostLowering lowering;
  lowering.prePipeline = pre;
  lowering.prePipelineName = "--pipeline";
  // A data-parallel step's grid gets the processes of the launch (on CUDA
  // the host's MPI calls of device-resident=false; the device-resident
  // lowering refuses collectives).
  auto gridSize = [](StringRef options) {
    return options.contains("grid-size")
               ? std::string()
               : "grid-size=" + std::to_string(getLaunchSize());
  };
  if (device == Device::CUDA) {
    lowering.pipeline = "mp-gpu-pipeline";
    lowering.cpuPipelineOptions = gpuPipelineOptions;
    lowering.extraCpuPipelineOptions = gridSize(gpuPipelineOptions);
    lowering.cpuPipelineOptionsName = "--gpu-pipeline";
    return mp::lowerForHost(module, lowering, "'" + inputFilename + "'");
  }
  lowering.cpuPipelineOptions = cpuPipelineOptions;
  lowering.extraCpuPipelineOptions = gridSize(cpuPipelineOptions);
  if (unsigned threads = getNumThreads(); threads != 1)
    lowering.extraCpuPipelineOptions += " threads=" + std::to_string(threads);
  lowering.cpuPipelineOptionsName = "--cpu-pipeline-options";
  return mp::lowerForHost(module, lowering, "'" + inputFilename + "'");
}

/// JIT-compiles `module` for the host CPU, with the MPI shim's symbols and,
/// with --device=cuda, the CUDA runtime wrappers.
static llvm::Expected<std::unique_ptr<ExecutionEngine>>
compileModule(ModuleOp module) {
  return mp::compileForHost(module, [](ExecutionEngine &engine) {
    registerDistributedSymbols(engine);
    if (device == Device::CUDA)
      mp::registerCudaRuntimeSymbols(engine);
  }, optLevel);
}

//===----------------------------------------------------------------------===//
// Under mpirun
//===----------------------------------------------------------------------===//

/// Initialises MPI when the launch has several processes or the lowered
/// step calls MPI; ranks other than 0 then print nothing on stdout.
static llvm::Error joinLaunch(ModuleOp module) {
  bool callsMPI = false;
  for (auto function : module.getOps<LLVM::LLVMFuncOp>())
    callsMPI |= function.getName().starts_with("MPI_") ||
                function.getName().starts_with("mp_mpi_");
  if (!callsMPI && getLaunchSize() == 1)
    return llvm::Error::success();
  llvm::Expected<ProcessGroup> group = initializeMPI();
  if (!group)
    return group.takeError();
  processGroup = *group;
  if (processGroup.size != getLaunchSize())
    return llvm::createStringError("MPI reports " +
                                   std::to_string(processGroup.size) +
                                   " processes, the launch environment " +
                                   std::to_string(getLaunchSize()));
  if (processGroup.rank != 0) {
    llvm::outs().flush();
    if (FILE *null = fopen("/dev/null", "w")) {
      dup2(fileno(null), STDOUT_FILENO);
      fclose(null);
    }
  }
  return llvm::Error::success();
}

/// Under mpirun: checks that every process ends with rank 0's parameters and
/// state other than forward state (FNV-1a of their bytes), and says so on
/// rank 0.
static llvm::Error checkParametersAgree(const EntryPoint &entry,
                                        Invocation &call) {
  if (processGroup.size == 1)
    return llvm::Error::success();
  uint64_t checksum = 0xcbf29ce484222325ULL;
  for (auto [i, argument] : llvm::enumerate(entry.arguments)) {
    // Forward state is per process: each updates the batch-norm statistics
    // from its own batch (DDP broadcasts rank 0's at the start of the next
    // step, so after the last one they differ, as in PyTorch).
    if (argument.role == ArgumentRole::Data ||
        mp::MPDialect::isForwardStateKind(argument.stateKind))
      continue;
    const HostTensor &tensor = call.argument(i);
    for (size_t b = 0, e = tensor.getNumBytes(); b < e; ++b)
      checksum = (checksum ^ static_cast<unsigned char>(tensor.data()[b])) *
                 0x100000001b3ULL;
  }
  if (llvm::Error error = checkSameOnAllRanks(
          processGroup, checksum, "parameters and state at the end"))
    return error;
  char line[160];
  snprintf(line, sizeof(line),
           "data-parallel: %d processes, parameters and state identical on "
           "every process (checksum %016llx)\n",
           processGroup.size, static_cast<unsigned long long>(checksum));
  llvm::outs() << line;
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Driver
//===----------------------------------------------------------------------===//

static llvm::Error run(MLIRContext &context) {
  if (numSteps < 0)
    return llvm::createStringError("--steps must not be negative");
  if (numClasses < 1)
    return llvm::createStringError("--num-classes must be positive");
  if (optLevel > 3)
    return llvm::createStringError("--opt-level must be 0, 1, 2 or 3, got " +
                                   llvm::Twine(optLevel));
  if (device == Device::CPU && !gpuPipelineOptions.empty())
    return llvm::createStringError("--gpu-pipeline needs --device=cuda");
  if (device == Device::CUDA && !cpuPipelineOptions.empty())
    return llvm::createStringError(
        "--cpu-pipeline-options applies to --device=cpu; with --device=cuda "
        "give mp-gpu-pipeline's options with --gpu-pipeline (host-vectorize "
        "is its vectorize)");
  // The driver is needed to run, not to lower: --lower-only works without.
  if (device == Device::CUDA && !lowerOnly && emitLibraryDir.empty())
    if (llvm::Error error = mp::loadCudaDriver(cudaDriver))
      return error;

  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputFilename, sourceMgr, &context);
  if (!module)
    return llvm::createStringError("cannot parse '" + inputFilename + "'");

  auto compileStart = std::chrono::steady_clock::now();
  recordIndexBounds(*module);
  std::clock_t compileCPUStart = std::clock();
  if (mp::needsHostLowering(*module))
    if (llvm::Error error = lowerModule(*module))
      return error;
  if (lowerOnly) {
    module->print(llvm::outs());
    llvm::outs() << "\n";
    return llvm::Error::success();
  }
  // The device-resident lowering makes every argument and out-parameter
  // device memory (Device.h).
  bool resident = (*module)->hasAttr("mp.device_resident");
  if (resident && device != Device::CUDA)
    return llvm::createStringError(
        "'" + inputFilename +
        "' is lowered device-resident (mp.device_resident): its arguments "
        "and results are device memory; run it with --device=cuda");
  if (resident && evaluate)
    return llvm::createStringError(
        "--eval runs the classifier on host buffers; '" + inputFilename +
        "' is lowered device-resident (mp.device_resident)");
  if (llvm::Error error = joinLaunch(*module))
    return error;

  // The train step.
  SmallVector<LLVM::LLVMFuncOp> candidates = getEntryPoints(*module);
  LLVM::LLVMFuncOp function;
  if (!functionName.empty()) {
    function = module->lookupSymbol<LLVM::LLVMFuncOp>(functionName);
    if (!function || function.isExternal())
      return llvm::createStringError("no function '@" + functionName +
                                     "' in '" + inputFilename + "'");
  } else {
    SmallVector<LLVM::LLVMFuncOp> steps;
    for (LLVM::LLVMFuncOp candidate : candidates) {
      llvm::Expected<EntryPoint> entry = readEntryPoint(candidate);
      if (entry && entry->lossResult >= 0)
        steps.push_back(candidate);
      else
        llvm::consumeError(entry.takeError());
    }
    if (steps.size() != 1) {
      std::string names;
      for (LLVM::LLVMFuncOp step : steps)
        names += " @" + step.getName().str();
      return llvm::createStringError(
          "'" + inputFilename + "' has " + std::to_string(steps.size()) +
          " train steps (public functions with an mp.loss result)" +
          (names.empty() ? "" : ":" + names) + "; choose one with --function");
    }
    function = steps.front();
  }
  llvm::Expected<EntryPoint> entry = readEntryPoint(function);
  if (!entry)
    return entry.takeError();
  if (entry->lossResult < 0)
    return llvm::createStringError(
        "'@" + entry->name +
        "' is not a train step: no result is marked mp.loss (see "
        "docs/TrainStep.md)");
  if (llvm::Error error = checkCInterface(*module, *entry))
    return error;
  if (!emitLibraryDir.empty())
    return emitLibrary(*module, *entry, emitLibraryDir);

  // Everything that can fail on user input is checked before compiling.
  llvm::Expected<std::unique_ptr<DataSource>> data = createDataSource(*entry);
  if (!data)
    return data.takeError();

  llvm::Expected<std::unique_ptr<ExecutionEngine>> engine =
      compileModule(*module);
  if (!engine)
    return engine.takeError();
  llvm::Expected<void (*)(void **)> pointer =
      lookupEntryPoint(**engine, *entry);
  if (!pointer)
    return pointer.takeError();
  Invocation call(*entry, *pointer);
  if (llvm::Error error = initializeArguments(*entry, call))
    return error;
  // Device-resident: per step only the loss, the skipped flag and the
  // loss-scale state come back, staged behind an event (Device.h).
  std::unique_ptr<DeviceBuffers> deviceBuffers;
  if (resident) {
    SmallVector<size_t> stagedResults = {size_t(entry->lossResult)};
    if (entry->skippedResult >= 0)
      stagedResults.push_back(entry->skippedResult);
    SmallVector<size_t> stagedArguments;
    SmallVector<size_t> batchArguments;
    for (auto [i, argument] : llvm::enumerate(entry->arguments)) {
      if (isLossScaleState(argument.stateKind))
        stagedArguments.push_back(i);
      if (argument.role == ArgumentRole::Data)
        batchArguments.push_back(i);
    }
    deviceBuffers = std::make_unique<DeviceBuffers>(
        call, stagedResults, stagedArguments, batchArguments);
  }
  double compileSeconds = std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - compileStart)
                              .count();
  // CPU time of this process: what a loaded machine does not inflate.
  double compileCPUSeconds =
      static_cast<double>(std::clock() - compileCPUStart) / CLOCKS_PER_SEC;

  // Results compared to their argument when no result says whether the step
  // was skipped: parameters and state other than the loss-scale state and
  // forward state (batch-norm statistics advance on a skipped step too).
  SmallVector<std::pair<unsigned, unsigned>> comparedUpdates;
  bool updatesParams = false;
  for (auto [r, result] : llvm::enumerate(entry->results)) {
    if (result.updates < 0)
      continue;
    const ArgumentBinding &argument = entry->arguments[result.updates];
    updatesParams |= argument.role == ArgumentRole::Param;
    if (!isLossScaleState(argument.stateKind) &&
        !mp::MPDialect::isForwardStateKind(argument.stateKind))
      comparedUpdates.emplace_back(r, result.updates);
  }

  llvm::outs() << "mp-run: @" << entry->name << " for " << numSteps
               << " steps, data " << dataSpec << ", seed " << seed;
  if (device == Device::CUDA)
    llvm::outs() << ", device cuda (" << mp::getCudaDriverPath() << ")";
  llvm::outs() << "\n";
  std::vector<StepRecord> records;
  int64_t skippedSteps = 0;
  auto runStart = std::chrono::steady_clock::now();
  // Time spent in the compiled step itself, without the data and the
  // bookkeeping around it.
  std::chrono::steady_clock::duration computeTime{};
  // Its CPU time, of every thread of the process.
  std::clock_t computeCPUTime = 0;
  // What is left of a step once its loss, skipped flag and loss scale are
  // known: its record, its line and the stop at the minimum loss scale. The
  // loss-scale state is that after the step (fed back).
  auto report = [&](int64_t step, std::optional<double> scale,
                    std::optional<bool> unchanged) -> llvm::Error {
    bool skipped = entry->skippedResult >= 0
                       ? call.result(entry->skippedResult).getBits(0) & 1
                       : unchanged.value_or(false);
    skippedSteps += skipped;
    double loss = call.result(entry->lossResult).get(0);
    records.push_back({step, loss, scale, skipped, unchanged, std::nullopt,
                       std::nullopt, std::nullopt});
    if (printEvery > 0 && (step % printEvery == 0 || step == numSteps)) {
      char line[160];
      snprintf(line, sizeof(line),
               "step %6lld  loss %-14.9g  scale %-12s  %s\n",
               static_cast<long long>(step), loss, formatScale(scale).c_str(),
               skipped ? "skipped" : "ok");
      llvm::outs() << line;
    }

    // A skipped step that left the loss scale where it was, although it
    // should have backed off, means the scale is at its minimum (min-scale,
    // or 0): every further step would be skipped. Stop with an error rather
    // than spin (docs/Reliability.md); nothing is written.
    if (skipped && scale && entry->lossScaleArgument >= 0 &&
        call.argument(entry->lossScaleArgument).get(0) >= *scale) {
      bool shouldBackOff = true;
      for (auto [i, argument] : llvm::enumerate(entry->arguments))
        if (argument.stateKind == "hysteresis_tracker")
          shouldBackOff = call.argument(i).get(0) <= 0;
      if (shouldBackOff)
        return llvm::createStringError(
            "step " + std::to_string(step) +
            ": the gradients are not finite and the loss scale cannot back "
            "off below its minimum " +
            formatScale(scale) +
            "; every further step would be skipped, so training stops here "
            "(the parameters are those before this step; nothing is "
            "written)");
    }
    return llvm::Error::success();
  };
  // Device-resident: the step whose staged values are not read yet, and the
  // loss scale before it.
  std::optional<int64_t> pendingStep;
  std::optional<double> pendingScale;
  auto finishPending = [&]() -> llvm::Error {
    auto waitStart = std::chrono::steady_clock::now();
    deviceBuffers->unstage(*pendingStep % 2);
    computeTime += std::chrono::steady_clock::now() - waitStart;
    if (llvm::Error error = mp::takeCudaError())
      return llvm::createStringError("step " + std::to_string(*pendingStep) +
                                     " on the GPU: " +
                                     llvm::toString(std::move(error)));
    int64_t step = *pendingStep;
    pendingStep.reset();
    return report(step, pendingScale, std::nullopt);
  };
  for (int64_t step = 1; step <= numSteps; ++step) {
    (*data)->fill(call);
    std::optional<double> scale;
    if (deviceBuffers) {
      // The batch goes on the stream of the step, behind the previous one,
      // from page-locked memory.
      deviceBuffers->copyBatchIn();
      auto callStart = std::chrono::steady_clock::now();
      std::clock_t callCPUStart = std::clock();
      {
        mp::CudaStepStreamScope stream(deviceBuffers->getStream());
        call.call();
      }
      computeCPUTime += std::clock() - callCPUStart;
      computeTime += std::chrono::steady_clock::now() - callStart;
      for (auto [r, result] : llvm::enumerate(entry->results))
        if (result.updates >= 0)
          deviceBuffers->feedBack(r, result.updates);
      deviceBuffers->stage(step % 2);
      // Step `step` is queued: now wait for the previous one's loss. The
      // loss scale before this step is the state after the previous one.
      if (pendingStep) {
        if (llvm::Error error = finishPending())
          return error;
      }
      if (entry->lossScaleArgument >= 0)
        scale = call.argument(entry->lossScaleArgument).get(0);
      pendingStep = step;
      pendingScale = scale;
      continue;
    }
    if (entry->lossScaleArgument >= 0)
      scale = call.argument(entry->lossScaleArgument).get(0);
    uint64_t libcAllocationsBefore =
        mp::getStepMemoryStatistics().libcAllocations;
    auto callStart = std::chrono::steady_clock::now();
    std::clock_t callCPUStart = std::clock();
    call.call();
    std::clock_t callCPUTime = std::clock() - callCPUStart;
    uint64_t libcAllocations =
        mp::getStepMemoryStatistics().libcAllocations - libcAllocationsBefore;
    std::chrono::steady_clock::duration callTime =
        std::chrono::steady_clock::now() - callStart;
    computeCPUTime += callCPUTime;
    computeTime += callTime;
    if (device == Device::CUDA)
      if (llvm::Error error = mp::takeCudaError())
        return llvm::createStringError(
            "step " + std::to_string(step) +
            " on the GPU: " + llvm::toString(std::move(error)));

    std::optional<bool> unchanged;
    if (entry->skippedResult < 0 || !jsonFile.empty()) {
      unchanged = updatesParams;
      for (auto [r, a] : comparedUpdates)
        *unchanged =
            *unchanged && call.result(r).bitwiseEqual(call.argument(a));
    }
    // (The loss and the skipped flag are no mp.updates results: feeding
    // back leaves them.)
    for (auto [r, result] : llvm::enumerate(entry->results))
      if (result.updates >= 0)
        call.feedBack(r, result.updates);
    if (llvm::Error error = report(step, scale, unchanged))
      return error;
    records.back().seconds = std::chrono::duration<double>(callTime).count();
    records.back().cpuSeconds =
        static_cast<double>(callCPUTime) / CLOCKS_PER_SEC;
    records.back().libcAllocations = libcAllocations;
  }
  if (pendingStep)
    if (llvm::Error error = finishPending())
      return error;
  double runSeconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart)
          .count();
  double computeSeconds = std::chrono::duration<double>(computeTime).count();
  if (deviceBuffers)
    deviceBuffers->copyAllToHost();
  std::optional<double> finalScale;
  if (entry->lossScaleArgument >= 0)
    finalScale = call.argument(entry->lossScaleArgument).get(0);

  std::optional<EvalResult> accuracy;
  if (evaluate) {
    llvm::Expected<EvalResult> result =
        evaluateClassifier(**engine, *module, *entry, call);
    if (!result)
      return result.takeError();
    accuracy = *result;
  }

  char summary[256];
  snprintf(summary, sizeof(summary),
           "final: loss %.9g  skipped %lld/%lld  scale %s  "
           "%.1f steps/s, %.3f ms in the step (compile %.2f s)\n",
           records.empty() ? NAN : records.back().loss,
           static_cast<long long>(skippedSteps),
           static_cast<long long>(numSteps), formatScale(finalScale).c_str(),
           runSeconds > 0 ? numSteps / runSeconds : 0.0,
           numSteps > 0 ? 1e3 * computeSeconds / numSteps : 0.0,
           compileSeconds);
  llvm::outs() << summary;
  if (accuracy) {
    snprintf(summary, sizeof(summary), "test accuracy: %.2f%% (%lld/%lld)\n",
             100.0 * accuracy->correct / std::max<int64_t>(accuracy->total, 1),
             static_cast<long long>(accuracy->correct),
             static_cast<long long>(accuracy->total));
    llvm::outs() << summary;
  }

  if (device == Device::CUDA && cudaStats) {
    mp::CudaAllocatorStats stats = mp::getCudaAllocatorStats();
    llvm::outs() << "cuda allocator: " << stats.requests
                 << " device allocations requested, " << stats.driverAllocations
                 << " made by the driver (" << stats.driverBytes << " bytes), "
                 << stats.live << " live\n";
    mp::CudaSyncStats syncs = mp::getCudaSyncStats();
    llvm::outs() << "cuda synchronisations: " << syncs.streamSynchronizes
                 << " of a stream, " << syncs.eventSynchronizes
                 << " of an event, " << syncs.deferredSynchronizes
                 << " deferred on the step stream\n";
  }

  if (llvm::Error error = checkParametersAgree(*entry, call))
    return error;

  if (!saveDir.empty() && processGroup.rank == 0)
    if (llvm::Error error = saveParameters(*entry, call))
      return error;

  if (!jsonFile.empty() && processGroup.rank == 0) {
    RunReport report{entry->name,
                     device == Device::CUDA ? "cuda" : "cpu",
                     mp::getCudaDriverPath().str(),
                     std::move(records),
                     skippedSteps,
                     finalScale,
                     accuracy,
                     compileSeconds,
                     compileCPUSeconds,
                     runSeconds,
                     computeSeconds,
                     static_cast<double>(computeCPUTime) / CLOCKS_PER_SEC};
    if (llvm::Error error = writeJsonReport(report))
      return error;
  }
  return llvm::Error::success();
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  registerAllPasses();
  mp::registerAllPasses();
  // libLLVM registers an undocumented global `threads` option of its own.
  if (cl::Option *other = cl::getRegisteredOptions().lookup("threads"))
    other->removeArgument();
  cl::opt<unsigned> &numThreads = getNumThreadsOption();
  cl::HideUnrelatedOptions(runCategory);
  appendDefaultsToHelp(numSteps, seed, loadDir, dataSpec, shuffle, numClasses,
                       jsonFile, evaluate, evalFunctionName, saveDir,
                       prePipeline, cpuPipelineOptions, numThreads, optLevel,
                       lowerOnly, emitLibraryDir, printEvery, gpuPipelineOptions, cudaDriver,
                       cudaStats);
  cl::ParseCommandLineOptions(
      argc, argv,
      "mp-run: JIT-compile a module and run one of its train steps on the "
      "CPU or an NVIDIA GPU (see docs/MpRun.md)\n");

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  mp::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();

  if (llvm::Error error = run(context)) {
    llvm::outs().flush();
    llvm::WithColor::error(llvm::errs(), "mp-run")
        << llvm::toString(std::move(error)) << "\n";
    // The other processes of a launch may wait in a collective.
    if (processGroup.size > 1)
      abortMPI();
    finalizeMPI(processGroup);
    return 1;
  }
  finalizeMPI(processGroup);
  return 0;
}
