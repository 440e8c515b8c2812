//===- Passes.cpp - C API of MixedPrec's passes ---------------------------===//
//
// The generated per-pass entry points (`-gen-pass-capi-impl`) and the
// registration of everything.
//
//===----------------------------------------------------------------------===//

#include "mp-c/Passes.h"

#include "mlir/CAPI/Pass.h"
#include "mlir/InitAllPasses.h"
#include "mp/InitAll.h"

#include <mutex>

using namespace mlir;
using namespace mlir::mp;

#ifdef __cplusplus
extern "C" {
#endif

#include "mp/Conversion/Passes.capi.cpp.inc"
#include "mp/Dialect/MP/Transforms/Passes.capi.cpp.inc"

#ifdef __cplusplus
}
#endif

void mpRegisterAllPasses(void) {
  // Pipelines may be registered only once per process.
  static std::once_flag registered;
  std::call_once(registered, [] {
    mlir::registerAllPasses();
    mlir::mp::registerAllPasses();
  });
}
