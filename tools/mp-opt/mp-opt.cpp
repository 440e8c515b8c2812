//===- mp-opt.cpp - The MixedPrec optimizer driver ------------------------===//
//
// `mlir-opt` with the mp dialect and MixedPrec's passes and pipelines: every
// upstream dialect, extension and pass is registered as well, so upstream
// pipelines compose with ours and every standard flag works.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mp/InitAll.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::mp::registerAllPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary (mp-gpu-pipeline) translates gpu.module contents to
  // LLVM IR.
  mlir::registerAllGPUToLLVMIRTranslations(registry);
  mlir::mp::registerAllDialects(registry);

  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "MixedPrec optimizer driver\n", registry));
}
