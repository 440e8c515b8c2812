//===- MPEnums.td - Enumerations and attributes of mp ------*- tablegen -*-===//

#ifndef MP_DIALECT_MP_IR_MPENUMS_TD
#define MP_DIALECT_MP_IR_MPENUMS_TD

include "mp/Dialect/MP/IR/MPDialect.td"
include "mlir/IR/EnumAttr.td"

def MP_ComputeMode : I32EnumAttr<"ComputeMode",
    "how a matrix multiplication rounds its operands", [
      I32EnumAttrCase<"ieee", 0>,
      I32EnumAttrCase<"tf32", 1>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::mp";
  let description = [{
    `ieee`: the operands are used as they are stored. `tf32`: f32 operands are
    rounded to TF32 (8-bit exponent, 10-bit mantissa, round to nearest with
    ties away from zero as `cvt.rna.tf32.f32` does) before the products,
    which accumulate in f32 — the compute mode of Ampere and later Tensor
    Cores. Only valid with f32 operands.
  }];
}
def MP_ComputeModeAttr : EnumAttr<MP_Dialect, MP_ComputeMode, "compute_mode">;

def MP_GeluApproximation : I32EnumAttr<"GeluApproximation",
    "the formula a GELU uses", [
      I32EnumAttrCase<"none", 0>,
      I32EnumAttrCase<"tanh", 1>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::mp";
  let description = [{
    `none`: x·Φ(x) with the exact normal CDF, Φ(x) = (1 + erf(x/√2))/2.
    `tanh`: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))), as PyTorch's
    `approximate="tanh"`.
  }];
}
def MP_GeluApproximationAttr
    : EnumAttr<MP_Dialect, MP_GeluApproximation, "gelu_approximation">;

def MP_FP8Format : I32EnumAttr<"FP8Format", "an 8-bit float format", [
      I32EnumAttrCase<"e4m3", 0>,
      I32EnumAttrCase<"e5m2", 1>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::mp";
  let description = [{
    `e4m3`: f8E4M3FN (largest finite value 448, no infinity). `e5m2`: f8E5M2
    (largest finite value 57344).
  }];
}
def MP_FP8FormatAttr : EnumAttr<MP_Dialect, MP_FP8Format, "fp8_format">;

def MP_AmaxCompute : I32EnumAttr<"AmaxCompute",
    "how an amax history is reduced to one amax", [
      I32EnumAttrCase<"max", 0>,
      I32EnumAttrCase<"most_recent", 1>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::mp";
  let description = [{
    `max`: the largest entry of the whole history. `most_recent`: the entry
    recorded last (index 0). Transformer Engine's `amax_compute_algo`.
  }];
}
def MP_AmaxComputeAttr : EnumAttr<MP_Dialect, MP_AmaxCompute, "amax_compute">;

def MP_ComparePredicate : I32EnumAttr<"ComparePredicate",
    "the relation mp.compare tests", [
      I32EnumAttrCase<"eq", 0>,
      I32EnumAttrCase<"ne", 1>,
      I32EnumAttrCase<"lt", 2>,
      I32EnumAttrCase<"le", 3>,
      I32EnumAttrCase<"gt", 4>,
      I32EnumAttrCase<"ge", 5>
    ]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::mlir::mp";
  let description = [{
    `eq`, `ne`, `lt`, `le`, `gt`, `ge`: PyTorch's `torch.eq` ... `torch.ge`.
    On floats every predicate but `ne` is false when an operand is NaN (IEEE
    ordered comparisons) and `ne` is true (unordered); i32 and i64 compare
    signed, i1 unsigned (false < true).
  }];
}
def MP_ComparePredicateAttr
    : EnumAttr<MP_Dialect, MP_ComparePredicate, "compare_predicate">;

#endif // MP_DIALECT_MP_IR_MPENUMS_TD
