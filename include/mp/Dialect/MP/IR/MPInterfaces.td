//===- MPInterfaces.td - Interfaces of the mp dialect ------*- tablegen -*-===//
//
// Op interfaces of the `mp` dialect. `DifferentiableOpInterface` is how an op
// states its gradient: `mp-autodiff` asks each op on the path from the
// differentiated values to the loss to build the adjoints of its operands.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_IR_MPINTERFACES_TD
#define MP_DIALECT_MP_IR_MPINTERFACES_TD

include "mlir/IR/OpBase.td"

def MP_DifferentiableOpInterface : OpInterface<"DifferentiableOpInterface"> {
  let cppNamespace = "::mlir::mp";
  let description = [{
    An op that can be differentiated in reverse mode. Given the adjoints of
    its results (`∂loss/∂result`), the op builds the operations that compute
    the adjoints of its operands (`∂loss/∂operand`), as PyTorch's derivative
    formulas do. Each adjoint has exactly the type of its operand; the
    backward runs in the op's own precision (a low-precision op's backward is
    low-precision too).

    The implementations live in lib/Dialect/MP/IR/MPGradients.cpp, next to
    the op definitions, so a new op states its gradient where it is defined.
  }];
  let methods = [
    InterfaceMethod<[{
        Builds, at the insertion point of `builder`, the adjoints of this op's
        operands from `resultAdjoints` (one entry per result; a null entry is
        a result the loss does not depend on — at least one is non-null).
        `requested` has one entry per operand: the caller needs the adjoints
        of the operands marked true; the others may be left null, and their
        backward computation skipped. Returns one value per operand, null for
        an operand without a gradient (labels, indices, scale factors) or not
        requested. On failure (a configuration without a gradient, e.g. int8
        operands) an error has been emitted at the op and nothing needs to be
        undone beyond the ops already built.
      }],
      "::mlir::FailureOr<::llvm::SmallVector<::mlir::Value>>", "buildAdjoints",
      (ins "::mlir::OpBuilder &":$builder,
           "::llvm::ArrayRef<::mlir::Value>":$resultAdjoints,
           "::llvm::ArrayRef<bool>":$requested)>
  ];
}

#endif // MP_DIALECT_MP_IR_MPINTERFACES_TD
