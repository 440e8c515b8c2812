//===- HostJIT.h - JIT-compiling lowered train steps for the host -*- C++ -*-===//
//
// The one place that turns a module lowered by mp-cpu-pipeline into native
// code for the host CPU: mp-run and the C API's in-process engine
// (mp-c/Engine.h) both compile through it, so a step computes the same bits
// in either.
//
//===----------------------------------------------------------------------===//

#ifndef MP_EXECUTIONENGINE_HOSTJIT_H
#define MP_EXECUTIONENGINE_HOSTJIT_H

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace mlir::mp {

/// What lowerForHost runs, and how its errors name the two pipelines.
struct HostLowering {
  /// A textual pass pipeline on builtin.module run first; empty for none.
  std::string prePipeline;
  /// The lowering pipeline: mp-cpu-pipeline, or mp-gpu-pipeline (which runs
  /// mp-cpu-pipeline on what stays on the host).
  std::string pipeline = "mp-cpu-pipeline";
  /// Options of `pipeline` given by the user.
  std::string cpuPipelineOptions;
  /// Options of mp-cpu-pipeline the caller adds (not shown in messages).
  std::string extraCpuPipelineOptions;
  /// How messages call the two, e.g. mp-run's flags `--pipeline` and
  /// `--cpu-pipeline-options`.
  std::string prePipelineName = "pipeline";
  std::string cpuPipelineOptionsName = "mp-cpu-pipeline options";
};

/// Runs `lowering.prePipeline`, then `lowering.pipeline` on `module`. `name`
/// says what is lowered in the error message.
llvm::Error lowerForHost(ModuleOp module, const HostLowering &lowering,
                         llvm::StringRef name);

/// True when `module` still holds functions on tensors to lower.
bool needsHostLowering(ModuleOp module);

/// The LLVM optimisation level compileForHost uses unless told otherwise.
/// -O2, not -O3: the lowered step is already tiled and vectorised by MLIR,
/// and LLVM's -O3 function passes (non-trivial loop unswitching, more
/// unrolling) made a ViT train step compile 5-6x slower without running it
/// faster (docs/performance.md).
constexpr unsigned kDefaultHostOptLevel = 2;

/// JIT-compiles the lowered `module` for the host CPU at LLVM -O`optLevel`
/// (0 to 3; code generation at the matching level, -O2 and -O3 both
/// aggressive), with MLIR's C runner utilities loaded (memref.copy of strided
/// memrefs calls them) and its `malloc` and `free` served by the caching
/// allocator of StepMemory.h. `registerSymbols`, when given, adds symbols
/// (e.g. an MPI shim) before the engine is initialised. No level changes a
/// computed bit: the lowered IR has no fast-math flags. The native target must
/// be initialised (llvm::InitializeNativeTarget and its asm printer).
llvm::Expected<std::unique_ptr<ExecutionEngine>> compileForHost(
    ModuleOp module,
    llvm::function_ref<void(ExecutionEngine &)> registerSymbols = {},
    unsigned optLevel = kDefaultHostOptLevel);

/// Compiles the lowered `module` ahead of time into the relocatable,
/// position-independent object file `path` for the host CPU: the LLVM IR
/// compileForHost would JIT-compile (the same translation, the same inlining
/// into the C interfaces and -O`optLevel` pipeline, the same code generation
/// level), so the object computes the same bits. Its GPU binaries are
/// embedded constants that its constructors load (the GPU dialect's LLVM IR
/// translation). The native target must be initialised.
llvm::Error compileForHostToObject(ModuleOp module, llvm::StringRef path,
                                   unsigned optLevel = kDefaultHostOptLevel);

} // namespace mlir::mp

#endif // MP_EXECUTIONENGINE_HOSTJIT_H
