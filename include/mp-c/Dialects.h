/*===- mp-c/Dialects.h - C API of the mp dialect ------------------*- C -*-===*\
|*                                                                            *|
|* Registration of the mp dialect with an MLIR context or registry, in the    *|
|* form of MLIR's C API (mlir-c/IR.h): `mlirGetDialectHandle__mp__()`.        *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef MP_C_DIALECTS_H
#define MP_C_DIALECTS_H

#include "mlir-c/IR.h"

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(MP, mp);

/// Adds to `registry` every dialect and extension `mp-opt` knows: MLIR's
/// upstream dialects and extensions, the GPU-to-LLVM-IR translations that
/// `mp-gpu-pipeline` needs, and the mp dialect.
MLIR_CAPI_EXPORTED void mpRegisterAllDialects(MlirDialectRegistry registry);

#ifdef __cplusplus
}
#endif

#endif // MP_C_DIALECTS_H
