//===- MPDialect.h - The mp training-graph dialect --------------*- C++ -*-===//
//
// Declares the `mp` dialect, its enums and attributes.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_IR_MPDIALECT_H
#define MP_DIALECT_MP_IR_MPDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"

#include "mp/Dialect/MP/IR/MPOpsDialect.h.inc"

#include "mp/Dialect/MP/IR/MPEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "mp/Dialect/MP/IR/MPAttrs.h.inc"

#endif // MP_DIALECT_MP_IR_MPDIALECT_H
