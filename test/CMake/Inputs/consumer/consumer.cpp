//===- consumer.cpp - Embeds MixedPrec from its installed package ---------===//
//
// Registers the mp dialect and MixedPrec's passes in its own context, parses
// the train step given on the command line, runs
// mp-mixed-precision-pipeline and prints the result.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mp/InitAll.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    llvm::errs() << "usage: consumer FILE.mlir\n";
    return 2;
  }
  mlir::mp::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::mp::registerAllDialects(registry);
  mlir::MLIRContext context(registry);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(argv[1], &context);
  if (!module)
    return 1;
  mlir::PassManager pm(&context);
  if (mlir::failed(mlir::parsePassPipeline(
          "mp-mixed-precision-pipeline{compute-type=bf16}", pm)) ||
      mlir::failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  return 0;
}
