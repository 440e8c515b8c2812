//===- Dialects.cpp - C API of the mp dialect -----------------------------===//
//
// Registration of the mp dialect (and of everything mp-opt registers) through
// MLIR's C API types.
//
//===----------------------------------------------------------------------===//

#include "mp-c/Dialects.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mp/InitAll.h"

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(MP, mp, mlir::mp::MPDialect)

void mpRegisterAllDialects(MlirDialectRegistry registry) {
  mlir::DialectRegistry &cppRegistry = *unwrap(registry);
  mlir::registerAllDialects(cppRegistry);
  mlir::registerAllExtensions(cppRegistry);
  mlir::registerAllGPUToLLVMIRTranslations(cppRegistry);
  mlir::mp::registerAllDialects(cppRegistry);
}
