//===- CudaRuntime.cpp - The CUDA runtime wrappers for the JIT ------------===//
//
// The LLVM side of the in-tree CUDA runtime wrappers (CudaRuntime.h): the
// driver's loading and errors as llvm::Error, and the mgpu* functions of
// CudaDriver.cpp given to MLIR's ExecutionEngine by name.
//
//===----------------------------------------------------------------------===//

#include "mp/ExecutionEngine/CudaRuntime.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"

using namespace mlir;

llvm::Error mp::loadCudaDriver(llvm::StringRef path) {
  std::string error = loadCudaDriverLibrary(path.str().c_str());
  if (!error.empty())
    return llvm::createStringError(error);
  return llvm::Error::success();
}

llvm::StringRef mp::getCudaDriverPath() { return getCudaDriverLibraryPath(); }

llvm::Error mp::takeCudaError() {
  std::string message = takeFirstCudaError();
  if (message.empty())
    return llvm::Error::success();
  return llvm::createStringError(message);
}

void mp::registerCudaRuntimeSymbols(ExecutionEngine &engine) {
  engine.registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto add = [&](const char *name, auto *function) {
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                                 llvm::JITSymbolFlags::Exported};
    };
    add("mgpuModuleLoad", &mgpuModuleLoad);
    add("mgpuModuleLoadJIT", &mgpuModuleLoadJIT);
    add("mgpuModuleUnload", &mgpuModuleUnload);
    add("mgpuModuleGetFunction", &mgpuModuleGetFunction);
    add("mgpuLaunchKernel", &mgpuLaunchKernel);
    add("mgpuStreamCreate", &mgpuStreamCreate);
    add("mgpuStreamDestroy", &mgpuStreamDestroy);
    add("mgpuStreamSynchronize", &mgpuStreamSynchronize);
    add("mgpuStreamWaitEvent", &mgpuStreamWaitEvent);
    add("mgpuEventCreate", &mgpuEventCreate);
    add("mgpuEventDestroy", &mgpuEventDestroy);
    add("mgpuEventSynchronize", &mgpuEventSynchronize);
    add("mgpuEventRecord", &mgpuEventRecord);
    add("mgpuMemAlloc", &mgpuMemAlloc);
    add("mgpuMemFree", &mgpuMemFree);
    add("mgpuMemcpy", &mgpuMemcpy);
    add("mgpuMemset32", &mgpuMemset32);
    add("mgpuMemset16", &mgpuMemset16);
    add("mgpuSetDefaultDevice", &mgpuSetDefaultDevice);
    add("mgpuTensorMapEncodeTiled", &mgpuTensorMapEncodeTiled);
    return symbols;
  });
}
