//===- Options.h - mp-run's command line ------------------------*- C++ -*-===//
//
// mp-run's options (defined in Options.cpp with their descriptions and
// defaults) and this process's place in an mpirun launch. The parts of the
// runner read them directly, as the single-file runner did.
//
//===----------------------------------------------------------------------===//

#ifndef MP_RUN_OPTIONS_H
#define MP_RUN_OPTIONS_H

#include "Data.h"
#include "Distributed.h"

#include "llvm/Support/CommandLine.h"

#include <string>

namespace mp_run {

/// Where --device runs the step.
enum class Device { CPU, CUDA };

extern llvm::cl::OptionCategory runCategory;
extern llvm::cl::opt<std::string> inputFilename;
extern llvm::cl::opt<std::string> functionName;
extern llvm::cl::opt<int64_t> numSteps;
extern llvm::cl::opt<unsigned> optLevel;
/// --threads, registered on first use (main): libLLVM registers an
/// undocumented global `threads` option of its own, which main unregisters
/// first.
llvm::cl::opt<unsigned> &getNumThreadsOption();
/// The threads the step runs on: --threads, or for its default (0) the
/// first number of OMP_NUM_THREADS where set, else the CPUs this process may
/// run on divided by the processes of the launch (at least 1). One thread
/// lowers the step without OpenMP.
unsigned getNumThreads();
extern llvm::cl::opt<uint64_t> seed;
extern llvm::cl::opt<InitScheme> initScheme;
extern llvm::cl::opt<std::string> loadDir;
extern llvm::cl::opt<std::string> dataSpec;
extern llvm::cl::opt<bool> shuffle;
extern llvm::cl::opt<int64_t> numClasses;
extern llvm::cl::opt<std::string> jsonFile;
extern llvm::cl::opt<bool> evaluate;
extern llvm::cl::opt<std::string> evalFunctionName;
extern llvm::cl::opt<std::string> saveDir;
extern llvm::cl::opt<std::string> prePipeline;
extern llvm::cl::opt<std::string> cpuPipelineOptions;
extern llvm::cl::opt<bool> lowerOnly;
extern llvm::cl::opt<std::string> emitLibraryDir;
extern llvm::cl::opt<int64_t> printEvery;
extern llvm::cl::opt<Device> device;
extern llvm::cl::opt<std::string> gpuPipelineOptions;
extern llvm::cl::opt<std::string> cudaDriver;
extern llvm::cl::opt<bool> cudaStats;

/// This process's place in an mpirun launch (rank 0 of 1 otherwise); see
/// Distributed.h.
extern ProcessGroup processGroup;

} // namespace mp_run

#endif // MP_RUN_OPTIONS_H
