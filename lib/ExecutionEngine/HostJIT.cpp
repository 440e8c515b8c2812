//===- HostJIT.cpp - JIT-compiling lowered train steps for the host -------===//
//
// Lowers a module of train steps with mp-cpu-pipeline (after an optional
// pipeline of the caller's) and compiles it with MLIR's ExecutionEngine for
// the host CPU at -O2 (the caller's level). It assumes the module's
// functions are meant to be called through their C interface
// (mp-export-entry-points, which mp-cpu-pipeline runs), and loads libomp when
// the lowered module has OpenMP operations (mp-cpu-pipeline's `threads`).
// The compiled module's `malloc` and `free` are the caching allocator of
// StepMemory.h.
//
// compileForHostToObject compiles the same LLVM IR through the same
// pipeline ahead of time into an object file (mp-run --emit-library).
//
// Before LLVM's optimisation pipeline, each function behind a C interface
// (always_inline, mp-inline-c-interface-callees) is inlined into its
// `_mlir_ciface_` wrapper and dropped, with the ExecutionEngine's packed
// wrappers of all but the C interfaces (`_mlir_F`; everything here calls
// `_mlir__mlir_ciface_F`): otherwise LLVM optimises and compiles the step's
// body three times (the function and both wrappers, into which -O2's inliner
// copies it), one more wrapper per outlined loop nest, and the module
// passes that run before the inliner (CalledValuePropagation) see the
// step's giant call.
//
//===----------------------------------------------------------------------===//

#include "mp/ExecutionEngine/HostJIT.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mp/Dialect/MP/IR/MPDialect.h"
#include "mp/ExecutionEngine/StepMemory.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/IPO/AlwaysInliner.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

using namespace mlir;

/// A compiled step allocates its intermediate buffers (megabytes for a
/// convolution's im2col matrices) and frees them on every call. With
/// glibc's defaults, freed memory at the top of the heap is given back to
/// the system and the next call page-faults it in again, which cost more
/// than the arithmetic of a small CNN's step (measured: a 32x8x28x28
/// convolution 7.5 ms against 2.3 ms). Blocks up to 32 MB (glibc's maximum
/// mmap threshold) therefore come from the heap, and freed memory stays in
/// the process for the next step. (Since the step allocator of StepMemory.h
/// keeps the step's blocks itself, this matters for its first step and for
/// the blocks beyond its bound.)
static void keepFreedMemoryForNextStep() {
#if defined(__GLIBC__)
  static bool done = [] {
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 1 << 30);
    return true;
  }();
  (void)done;
#endif
}

/// Prefixes of the C interface wrapper (func-to-llvm) and of the packed
/// wrapper (the ExecutionEngine's) of a function.
constexpr llvm::StringLiteral kCInterfacePrefix = mp::MPDialect::kCInterfacePrefix;
constexpr llvm::StringLiteral kPackedPrefix = "_mlir_";

/// Prepares the translated module for LLVM's pipeline, calls aside: erases
/// the ExecutionEngine's packed wrappers `_mlir_F` of every function `F` but
/// the C interfaces (their callers look up `_mlir__mlir_ciface_F`; the
/// others would keep a copy of each step and a wrapper per outlined loop
/// nest alive), makes each always_inline function behind a C interface
/// internal when its wrapper is then its only caller, and inlines those into
/// their wrappers (AlwaysInliner, which erases them). The instructions are
/// the same, so are the results.
static void inlineIntoCInterfaces(llvm::Module &module,
                                  llvm::TargetMachine *machine) {
  SmallVector<llvm::Function *> unusedWrappers;
  for (llvm::Function &function : module) {
    if (function.isDeclaration() ||
        function.getName().starts_with(kCInterfacePrefix))
      continue;
    llvm::Function *packed =
        module.getFunction((kPackedPrefix + function.getName()).str());
    if (packed && packed != &function && !packed->isDeclaration() &&
        packed->use_empty())
      unusedWrappers.push_back(packed);
  }
  for (llvm::Function *packed : unusedWrappers)
    packed->eraseFromParent();

  bool inlined = false;
  for (llvm::Function &wrapper : module) {
    llvm::StringRef name = wrapper.getName();
    if (wrapper.isDeclaration() || !name.consume_front(kCInterfacePrefix))
      continue;
    llvm::Function *callee = module.getFunction(name);
    if (!callee || callee->isDeclaration() ||
        !callee->hasFnAttribute(llvm::Attribute::AlwaysInline) ||
        !llvm::all_of(callee->users(), [&](llvm::User *user) {
          auto *call = llvm::dyn_cast<llvm::CallBase>(user);
          return call && call->getCalledFunction() == callee &&
                 call->getFunction() == &wrapper;
        }))
      continue;
    callee->setLinkage(llvm::GlobalValue::InternalLinkage);
    inlined = true;
  }
  if (!inlined)
    return;
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager passes;
  passes.addPass(llvm::AlwaysInlinerPass(/*InsertLifetimeIntrinsics=*/false));
  passes.run(module, modules);
}

bool mp::needsHostLowering(ModuleOp module) {
  auto functions = module.getOps<func::FuncOp>();
  return functions.begin() != functions.end();
}

llvm::Error mp::lowerForHost(ModuleOp module, const HostLowering &lowering,
                             StringRef name) {
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  pm.enableVerifier(true);
  pm.setNesting(OpPassManager::Nesting::Implicit);
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  // The passes are added to a pass manager on the module: drop an explicit
  // `builtin.module(...)` around them.
  StringRef pre = StringRef(lowering.prePipeline).trim();
  if (pre.consume_front("builtin.module(") && pre.consume_back(")"))
    pre = pre.trim();
  if (!pre.empty() && failed(parsePassPipeline(pre, pm, errorStream)))
    return llvm::createStringError("invalid " + lowering.prePipelineName +
                                   " '" + pre.str() + "': " + errors);
  std::string options = lowering.cpuPipelineOptions;
  if (!lowering.extraCpuPipelineOptions.empty())
    options += (options.empty() ? "" : " ") + lowering.extraCpuPipelineOptions;
  if (failed(parsePassPipeline(lowering.pipeline + "{" + options + "}", pm,
                               errorStream)))
    return llvm::createStringError(
        "invalid " + lowering.cpuPipelineOptionsName + " '" +
        lowering.cpuPipelineOptions + "': " + errors);
  std::string cpu = lowering.pipeline;
  if (!lowering.cpuPipelineOptions.empty())
    cpu += "{" + lowering.cpuPipelineOptions + "}";
  if (failed(pm.run(module)))
    return llvm::createStringError(
        "lowering " + name.str() +
        " failed (the diagnostics above say where; passes: " +
        (pre.empty() ? "" : pre.str() + ", ") + cpu + ")");
  return llvm::Error::success();
}

/// The code generation level of the LLVM level `optLevel`.
static llvm::CodeGenOptLevel getCodeGenLevel(unsigned optLevel) {
  return optLevel == 0   ? llvm::CodeGenOptLevel::None
         : optLevel == 1 ? llvm::CodeGenOptLevel::Less
                         : llvm::CodeGenOptLevel::Aggressive;
}

/// The host's target machine for `optLevel` (checked: 0 to 3), with the
/// relocation model `pic` or the default; registers the translations to
/// LLVM IR of `module`'s dialects.
static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createHostMachine(ModuleOp module, unsigned optLevel, bool pic) {
  if (optLevel > 3)
    return llvm::createStringError("optimisation level " +
                                   llvm::Twine(optLevel) +
                                   " is not one of 0, 1, 2, 3");
  // The translation to LLVM IR needs the dialects' interfaces.
  DialectRegistry registry;
  registerAllToLLVMIRTranslations(registry);
  module.getContext()->appendDialectRegistry(registry);

  auto machineBuilder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!machineBuilder)
    return machineBuilder.takeError();
  machineBuilder->setCodeGenOptLevel(getCodeGenLevel(optLevel));
  if (pic)
    machineBuilder->setRelocationModel(llvm::Reloc::PIC_);
  return machineBuilder->createTargetMachine();
}

/// What runs on the translated module before code generation: the inlining
/// into the C interfaces, then LLVM's -O`optLevel` pipeline.
static std::function<llvm::Error(llvm::Module *)>
makeHostTransformer(unsigned optLevel, llvm::TargetMachine *target) {
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(optLevel, /*sizeLevel=*/0, target);
  return [optimize, target](llvm::Module *module) -> llvm::Error {
    inlineIntoCInterfaces(*module, target);
    return optimize(module);
  };
}

llvm::Error mp::compileForHostToObject(ModuleOp module, StringRef path,
                                       unsigned optLevel) {
  auto machine = createHostMachine(module, optLevel, /*pic=*/true);
  if (!machine)
    return machine.takeError();
  llvm::TargetMachine *target = machine->get();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return llvm::createStringError(
        "cannot translate the lowered module to LLVM IR");
  // What ExecutionEngine::setupTargetTripleAndDataLayout does.
  llvmModule->setDataLayout(target->createDataLayout());
  llvmModule->setTargetTriple(target->getTargetTriple());
  if (llvm::Error error = makeHostTransformer(optLevel, target)(
          llvmModule.get()))
    return error;
  std::error_code code;
  llvm::ToolOutputFile out(path, code, llvm::sys::fs::OF_None);
  if (code)
    return llvm::createStringError("cannot write '" + path.str() +
                                   "': " + code.message());
  llvm::legacy::PassManager passes;
  if (target->addPassesToEmitFile(passes, out.os(), nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    return llvm::createStringError(
        "the host's target machine cannot emit an object file");
  passes.run(*llvmModule);
  out.keep();
  return llvm::Error::success();
}

llvm::Expected<std::unique_ptr<ExecutionEngine>> mp::compileForHost(
    ModuleOp module,
    llvm::function_ref<void(ExecutionEngine &)> registerSymbols,
    unsigned optLevel) {
  auto machine = createHostMachine(module, optLevel, /*pic=*/false);
  if (!machine)
    return machine.takeError();
  llvm::CodeGenOptLevel codeGenLevel = getCodeGenLevel(optLevel);
  std::function<llvm::Error(llvm::Module *)> transformer =
      makeHostTransformer(optLevel, machine->get());

  SmallVector<StringRef> libraries;
  if (llvm::sys::fs::exists(MP_C_RUNNER_UTILS))
    libraries.push_back(MP_C_RUNNER_UTILS);
  // Parallel loops (mp-cpu-pipeline's `threads`) call the OpenMP runtime.
  bool usesOpenMP = false;
  module.walk([&](Operation *op) {
    if (isa<omp::OpenMPDialect>(op->getDialect())) {
      usesOpenMP = true;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (usesOpenMP) {
    if (!llvm::sys::fs::exists(MP_LIBOMP))
      return llvm::createStringError(
          "the module runs loops on threads (mp-cpu-pipeline's threads), "
          "which needs the OpenMP runtime " MP_LIBOMP
          " (Debian package libomp-22-dev)");
    libraries.push_back(MP_LIBOMP);
  }
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = codeGenLevel;
  options.sharedLibPaths = libraries;
  keepFreedMemoryForNextStep();
  auto engine = ExecutionEngine::create(module, options, std::move(*machine));
  if (!engine)
    return engine.takeError();
  mp::registerStepMemorySymbols(**engine);
  if (registerSymbols)
    registerSymbols(**engine);
  (*engine)->initialize();
  return engine;
}
