//===- Options.cpp - mp-run's command line --------------------------------===//
//
// The options of mp-run (llvm::cl globals, declared in Options.h) and the
// process group of an mpirun launch, read by every part of the runner.
//
//===----------------------------------------------------------------------===//

#include "Options.h"

#include "mp/ExecutionEngine/HostJIT.h"

#include "llvm/Support/Threading.h"

#include <cstdlib>

using namespace mp_run;
namespace cl = llvm::cl;

namespace mp_run {

cl::OptionCategory runCategory("mp-run options");

cl::opt<std::string> inputFilename(cl::Positional,
                                   cl::desc("<input .mlir file>"), cl::Required,
                                   cl::cat(runCategory));
cl::opt<std::string> functionName(
    "function",
    cl::desc("The train step to run (default: the only public function with "
             "an mp.loss result)"),
    cl::value_desc("name"), cl::cat(runCategory));
cl::opt<int64_t> numSteps("steps", cl::desc("Number of steps to run"),
                          cl::init(10), cl::cat(runCategory));
cl::opt<uint64_t>
    seed("seed",
         cl::desc("Seed of the parameter initialisation, of random data and "
                  "of the batch order"),
         cl::init(0), cl::cat(runCategory));
cl::opt<InitScheme> initScheme(
    "init", cl::desc("Initialisation of the mp.param arguments"),
    cl::values(clEnumValN(InitScheme::KaimingUniform, "kaiming-uniform",
                          "U(-1/sqrt(fan_in), 1/sqrt(fan_in)), PyTorch's "
                          "nn.Linear init (default)"),
               clEnumValN(InitScheme::Normal, "normal", "N(0, 1/fan_in)"),
               clEnumValN(InitScheme::Zeros, "zeros", "all zeros")),
    cl::init(InitScheme::KaimingUniform), cl::cat(runCategory));
cl::opt<std::string>
    loadDir("load",
            cl::desc("Load every mp.param argument N from DIR/argN.npy "
                     "instead of initialising it"),
            cl::value_desc("DIR"), cl::cat(runCategory));
cl::opt<std::string> dataSpec(
    "data",
    cl::desc("Batch data: 'random' (seeded N(0,1) floats, integers in "
             "[0, --num-classes)), 'npy:DIR' (argument N from DIR/argN.npy, "
             "samples along dimension 0), 'fashion-mnist[:DIR]' (default "
             "DIR: /usr/share/datasets/fashion-mnist) or 'text:FILE' (a "
             "character-level language model: byte tokens of FILE as [B, T] "
             "ids and next-token labels)"),
    cl::init("random"), cl::value_desc("source"), cl::cat(runCategory));
cl::opt<bool>
    shuffle("shuffle",
            cl::desc("Draw the samples of npy and fashion-mnist data in a "
                     "seeded random order, reshuffled every epoch (else in "
                     "file order)"),
            cl::init(true), cl::cat(runCategory));
cl::opt<int64_t>
    numClasses("num-classes",
               cl::desc("Integer data of --data=random is in [0, N) (at "
                        "most the rows or classes the step indexes with it; "
                        "by default 10, or that count where it is fewer)"),
               cl::init(10), cl::cat(runCategory));
cl::opt<std::string>
    jsonFile("json", cl::desc("Write the whole trajectory as JSON to FILE"),
             cl::value_desc("FILE"), cl::cat(runCategory));
cl::opt<bool>
    evaluate("eval",
             cl::desc("After training, report the test accuracy of the "
                      "classifier given by --eval-function"),
             cl::init(false), cl::cat(runCategory));
cl::opt<std::string> evalFunctionName(
    "eval-function",
    cl::desc("The function --eval calls: its mp.param arguments are the "
             "train step's parameters in order, its mp.state arguments "
             "(forward state only) the train step's state of the same kind "
             "in order, its one other argument a batch of inputs, its first "
             "result the logits [batch, classes]"),
    cl::init("predict"), cl::value_desc("name"), cl::cat(runCategory));
cl::opt<std::string>
    saveDir("save",
            cl::desc("Write the final mp.param and forward-state (bn.*, "
                     "rng, ...) arguments to DIR/argN.npy"),
            cl::value_desc("DIR"), cl::cat(runCategory));
cl::opt<std::string> prePipeline(
    "pipeline",
    cl::desc("Passes run on the input module before mp-cpu-pipeline: a "
             "textual pass pipeline on builtin.module, nested explicitly as "
             "for mlir-opt (e.g. 'mp-loss-scaling,func.func(mp-autodiff)'), "
             "'auto' (func.func(mp-autodiff) when the module holds mp.grad) "
             "or 'none'"),
    cl::init("auto"), cl::value_desc("pipeline"), cl::cat(runCategory));
cl::opt<std::string> cpuPipelineOptions(
    "cpu-pipeline-options",
    cl::desc("Options of mp-cpu-pipeline, e.g. 'vectorize=false' or "
             "'matmul-tile-sizes=4,16,1'"),
    cl::init(""), cl::value_desc("options"), cl::cat(runCategory));
cl::opt<unsigned> &getNumThreadsOption() {
  static cl::opt<unsigned> option(
      "threads",
      cl::desc("Threads the step's parallel loops run on (mp-cpu-pipeline's "
               "threads; OpenMP); 0: all cores (OMP_NUM_THREADS where set; "
               "divided among the processes of an mpirun launch); 1: one "
               "thread, no OpenMP. The bits do not depend on it"),
      cl::init(0), cl::cat(runCategory));
  return option;
}
unsigned getNumThreads() {
  if (unsigned requested = getNumThreadsOption())
    return requested;
  // OMP_NUM_THREADS's first number (that of the outermost level).
  if (const char *environment = std::getenv("OMP_NUM_THREADS")) {
    unsigned count = 0;
    if (!llvm::StringRef(environment)
             .split(',')
             .first.trim()
             .getAsInteger(10, count) &&
        count > 0)
      return count;
  }
  // The CPUs this process may run on, shared by the processes of a launch.
  unsigned cores = llvm::hardware_concurrency().compute_thread_count();
  return std::max(1u, cores / std::max(1, getLaunchSize()));
}
cl::opt<unsigned> optLevel(
    "opt-level",
    cl::desc("LLVM optimisation level (0-3) of the JIT-compiled step; no "
             "level changes a computed bit"),
    cl::init(mlir::mp::kDefaultHostOptLevel), cl::cat(runCategory));
cl::opt<bool>
    lowerOnly("lower-only",
              cl::desc("Print the lowered module (LLVM dialect, what mp-run "
                       "would run) and exit"),
              cl::init(false), cl::cat(runCategory));
cl::opt<std::string> emitLibraryDir(
    "emit-library",
    cl::desc("Instead of running the step, compile it ahead of time into "
             "DIR/step.so (needing neither MLIR nor LLVM to run; with "
             "--device=cuda the GPU binaries embedded and the CUDA runtime "
             "wrappers linked in, the driver loaded when it is opened) and "
             "describe its C interface in DIR/manifest.json"),
    cl::value_desc("DIR"), cl::cat(runCategory));
cl::opt<int64_t>
    printEvery("print-every",
               cl::desc("Print every N-th step (and the last); 0 prints "
                        "only the summary"),
               cl::init(1), cl::cat(runCategory));

cl::opt<Device> device(
    "device", cl::desc("Where the step runs"),
    cl::values(clEnumValN(Device::CPU, "cpu",
                          "the host CPU: mp-cpu-pipeline (default)"),
               clEnumValN(Device::CUDA, "cuda",
                          "an NVIDIA GPU: mp-gpu-pipeline, the CUDA driver "
                          "loaded at run time (docs/MpRun.md)")),
    cl::init(Device::CPU), cl::cat(runCategory));
cl::opt<std::string> gpuPipelineOptions(
    "gpu-pipeline",
    cl::desc("Options of mp-gpu-pipeline with --device=cuda, e.g. "
             "'chip=sm_90a' or 'chip=sm_80 binary-format=isa'"),
    cl::init(""), cl::value_desc("options"), cl::cat(runCategory));
cl::opt<std::string>
    cudaDriver("cuda-driver",
               cl::desc("The CUDA driver library --device=cuda loads (default: "
                        "$MP_CUDA_DRIVER, else libcuda.so.1)"),
               cl::init(""), cl::value_desc("path"), cl::cat(runCategory));
cl::opt<bool> cudaStats(
    "cuda-stats",
    cl::desc("With --device=cuda, print the caching allocator's counts (device "
             "allocations requested, and made by the driver) at the end"),
    cl::init(false), cl::cat(runCategory));

ProcessGroup processGroup;

} // namespace mp_run
