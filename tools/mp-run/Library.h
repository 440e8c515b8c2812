//===- Library.h - Ahead-of-time step libraries -----------------*- C++ -*-===//
//
// mp-run --emit-library=DIR: the lowered module compiled into DIR/step.so, a
// shared library that needs neither MLIR nor LLVM at run time, and its
// contract in DIR/manifest.json (docs/MpRun.md, "Step libraries").
//
//===----------------------------------------------------------------------===//

#ifndef MP_RUN_LIBRARY_H
#define MP_RUN_LIBRARY_H

#include "EntryPoint.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

namespace mp_run {

/// Writes `dir`/manifest.json for `entry` and compiles the lowered `module`
/// into `dir`/step.o, linked into `dir`/step.so with the CUDA runtime
/// wrappers. Fails for a module that calls MLIR's C runner utilities or
/// OpenMP, which the library does not link.
llvm::Error emitLibrary(mlir::ModuleOp module, const EntryPoint &entry,
                        llvm::StringRef dir);

} // namespace mp_run

#endif // MP_RUN_LIBRARY_H
