//===- CudaRuntime.h - The CUDA runtime wrappers for the JIT ----*- C++ -*-===//
//
// The LLVM side of the in-tree CUDA runtime wrappers (CudaDriver.h, which
// this header includes): loading the driver with llvm::Error, and giving the
// mgpu* functions to MLIR's ExecutionEngine.
//
//===----------------------------------------------------------------------===//

#ifndef MP_EXECUTIONENGINE_CUDARUNTIME_H
#define MP_EXECUTIONENGINE_CUDARUNTIME_H

#include "mp/ExecutionEngine/CudaDriver.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

namespace mlir {
class ExecutionEngine;
} // namespace mlir

namespace mlir::mp {

/// loadCudaDriverLibrary, its message as an error.
llvm::Error loadCudaDriver(llvm::StringRef path = "");

/// The path of the loaded driver library (empty before loadCudaDriver).
llvm::StringRef getCudaDriverPath();

/// Adds the mgpu* functions to `engine`'s symbols (call before its
/// initialisation, which runs the module constructors that load the GPU
/// binaries).
void registerCudaRuntimeSymbols(ExecutionEngine &engine);

/// The first driver error since the last call, or success.
llvm::Error takeCudaError();

} // namespace mlir::mp

#endif // MP_EXECUTIONENGINE_CUDARUNTIME_H
