//===- MPOps.h - Operations of the mp dialect -------------------*- C++ -*-===//
//
// Declares the operations of the `mp` dialect.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_IR_MPOPS_H
#define MP_DIALECT_MP_IR_MPOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mp/Dialect/MP/IR/MPDialect.h"
#include "mp/Dialect/MP/IR/MPInterfaces.h"

#define GET_OP_CLASSES
#include "mp/Dialect/MP/IR/MPOps.h.inc"

namespace mlir {
class OpBuilder;
class FunctionOpInterface;
namespace mp {
/// Appends an argument of `type` to `function` marked as threaded state of
/// `kind` (`mp.state`), with `init` as its `mp.init` when given and any
/// `otherAttributes`; returns it. The caller adds the result that updates it.
BlockArgument
appendStateArgument(FunctionOpInterface function, Type type, StringRef kind,
                    Attribute init = {},
                    ArrayRef<NamedAttribute> otherAttributes = {});

/// Whether argument `index` of `function` is forward state
/// (`MPDialect::isForwardStateKind` of its `mp.state`).
bool isForwardStateArgument(FunctionOpInterface function, unsigned index);

/// Whether `type` is the generator state of the random ops: `tensor<2xi64>`
/// holding [seed, offset] (MPRandomOps.td, docs/Random.md).
bool isRngStateType(Type type);

/// A 0-d tensor `arith.constant` of `elementType` holding `value` (an
/// attribute of that element type). Passes use it for scales and flags.
Value createScalarTensor(OpBuilder &builder, Location loc, Type elementType,
                         Attribute value);

/// `value` (a ranked tensor) with its elements converted to `elementType` by
/// `mp.cast`, or `value` itself when it already has that element type.
Value castElements(OpBuilder &builder, Location loc, Value value,
                   Type elementType);

/// The number of windows of a pooling along one dimension of `size`
/// elements: PyTorch's pooling_output_shape, including ceil_mode's rule that
/// the last window starts inside the input or the left padding.
int64_t getPooledSize(int64_t size, int64_t kernel, int64_t stride,
                      int64_t padding, int64_t dilation, bool ceilMode);
} // namespace mp
} // namespace mlir

#endif // MP_DIALECT_MP_IR_MPOPS_H
