//===- MPInterfaces.h - Interfaces of the mp dialect ------------*- C++ -*-===//
//
// Declares the op interfaces of the `mp` dialect (differentiation).
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_IR_MPINTERFACES_H
#define MP_DIALECT_MP_IR_MPINTERFACES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallVector.h"

#include "mp/Dialect/MP/IR/MPInterfaces.h.inc"

#endif // MP_DIALECT_MP_IR_MPINTERFACES_H
