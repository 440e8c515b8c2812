// mp-expand-fp8-conversions: FP8, FP6, FP4 and E8M0 truncf/extf as integer
// arithmetic (the execution tests in test/Integration/Numerics check every
// value).
// RUN: mp-opt %s --mp-expand-fp8-conversions | FileCheck %s

// f32 → E4M3FN: m = 3, bias 7. Normal: round at bit 20 (bias 2^19 − 1 plus
// the lowest kept bit), rebias by 120 << 3 = 960. Subnormal (|x| < 2^-6, i.e.
// bits < 121 << 23): significand >> min(141 − exponent, 25), same rounding.
// Above 0x7E (448): NaN 0x7F; NaN inputs: 0x7F; the sign byte is ORed in.
// CHECK-LABEL: func.func @trunc_e4m3(
// CHECK-SAME:    %[[X:.*]]: f32)
// CHECK-DAG:     %[[INF:.*]] = arith.constant 2139095040 : i32
// CHECK-DAG:     %[[NAN:.*]] = arith.constant 127 : i32
// CHECK-DAG:     %[[MAXF:.*]] = arith.constant 126 : i32
// CHECK-DAG:     %[[MINNORMAL:.*]] = arith.constant 1015021568 : i32
// CHECK-DAG:     %[[C25:.*]] = arith.constant 25 : i32
// CHECK-DAG:     %[[C141:.*]] = arith.constant 141 : i32
// CHECK-DAG:     %[[IMPLICIT:.*]] = arith.constant 8388608 : i32
// CHECK-DAG:     %[[MANT:.*]] = arith.constant 8388607 : i32
// CHECK-DAG:     %[[C23:.*]] = arith.constant 23 : i32
// CHECK-DAG:     %[[REBIAS:.*]] = arith.constant 960 : i32
// CHECK-DAG:     %[[HALF:.*]] = arith.constant 524287 : i32
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i32
// CHECK-DAG:     %[[C20:.*]] = arith.constant 20 : i32
// CHECK-DAG:     %[[ABSMASK:.*]] = arith.constant 2147483647 : i32
// CHECK-DAG:     %[[C24:.*]] = arith.constant 24 : i32
// CHECK-DAG:     %[[SIGNMASK:.*]] = arith.constant -2147483648 : i32
// CHECK:         %[[BITS:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK:         %[[SIGN:.*]] = arith.andi %[[BITS]], %[[SIGNMASK]] : i32
// CHECK:         %[[SIGNBYTE:.*]] = arith.shrui %[[SIGN]], %[[C24]] : i32
// CHECK:         %[[ABS:.*]] = arith.andi %[[BITS]], %[[ABSMASK]] : i32
// CHECK:         %[[KEPT:.*]] = arith.shrui %[[ABS]], %[[C20]] : i32
// CHECK:         %[[LSB:.*]] = arith.andi %[[KEPT]], %[[ONE]] : i32
// CHECK:         %[[BIAS:.*]] = arith.addi %[[LSB]], %[[HALF]] : i32
// CHECK:         %[[SUM:.*]] = arith.addi %[[ABS]], %[[BIAS]] : i32
// CHECK:         %[[SHIFTED:.*]] = arith.shrui %[[SUM]], %[[C20]] : i32
// CHECK:         %[[NORMAL:.*]] = arith.subi %[[SHIFTED]], %[[REBIAS]] : i32
// CHECK:         %[[EXP:.*]] = arith.shrui %[[ABS]], %[[C23]] : i32
// CHECK:         %[[M:.*]] = arith.andi %[[ABS]], %[[MANT]] : i32
// CHECK:         %[[SIG:.*]] = arith.ori %[[M]], %[[IMPLICIT]] : i32
// CHECK:         %[[S0:.*]] = arith.subi %[[C141]], %[[EXP]] : i32
// CHECK:         %[[S:.*]] = arith.minui %[[S0]], %[[C25]] : i32
// CHECK:         arith.shrui %[[SIG]], %[[S]] : i32
// CHECK:         %[[SUB:.*]] = arith.shrui %{{.*}}, %[[S]] : i32
// CHECK:         %[[ISSUB:.*]] = arith.cmpi ult, %[[ABS]], %[[MINNORMAL]] : i32
// CHECK:         %[[R0:.*]] = arith.select %[[ISSUB]], %[[SUB]], %[[NORMAL]] : i32
// CHECK:         %[[OVF:.*]] = arith.cmpi ugt, %[[R0]], %[[MAXF]] : i32
// CHECK:         %[[R1:.*]] = arith.select %[[OVF]], %[[NAN]], %[[R0]] : i32
// CHECK:         %[[ISNAN:.*]] = arith.cmpi ugt, %[[ABS]], %[[INF]] : i32
// CHECK:         %[[R2:.*]] = arith.select %[[ISNAN]], %[[NAN]], %[[R1]] : i32
// CHECK:         %[[R3:.*]] = arith.ori %[[R2]], %[[SIGNBYTE]] : i32
// CHECK:         %[[BYTE:.*]] = arith.trunci %[[R3]] : i32 to i8
// CHECK:         %[[R:.*]] = arith.bitcast %[[BYTE]] : i8 to f8E4M3FN
// CHECK:         return %[[R]]
func.func @trunc_e4m3(%x: f32) -> f8E4M3FN {
  %0 = arith.truncf %x : f32 to f8E4M3FN
  return %0 : f8E4M3FN
}

// E5M2 from f16 (extended to f32 first): round at bit 21, rebias by
// 112 << 2 = 448; above 0x7B (57344) overflow is infinity 0x7C; NaN is 0x7E.
// CHECK-LABEL: func.func @trunc_e5m2_from_f16(
// CHECK-DAG:     %[[QNAN:.*]] = arith.constant 126 : i32
// CHECK-DAG:     %[[INF8:.*]] = arith.constant 124 : i32
// CHECK-DAG:     %[[MAXF:.*]] = arith.constant 123 : i32
// CHECK-DAG:     arith.constant 448 : i32
// CHECK-DAG:     arith.constant 134 : i32
// CHECK:         %[[W:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK:         arith.bitcast %[[W]] : f32 to i32
// CHECK:         %[[OVF:.*]] = arith.cmpi ugt, %{{.*}}, %[[MAXF]] : i32
// CHECK:         arith.select %[[OVF]], %[[INF8]], %{{.*}} : i32
// CHECK:         arith.select %{{.*}}, %[[QNAN]], %{{.*}} : i32
// CHECK:         arith.bitcast %{{.*}} : i8 to f8E5M2
func.func @trunc_e5m2_from_f16(%x: f16) -> f8E5M2 {
  %0 = arith.truncf %x : f16 to f8E5M2
  return %0 : f8E5M2
}

// Vectors: the same ops on vector<4xi32> with splat constants. E5M2 → f32:
// exponent + 112 and mantissa << 21; subnormals mantissa · 2^-16; exponent
// 31 gives infinity or (mantissa ≠ 0) a quiet NaN.
// CHECK-LABEL: func.func @ext_e5m2_vector(
// CHECK-SAME:    %[[X:.*]]: vector<4xf8E5M2>)
// CHECK-DAG:     %[[QUIET:.*]] = arith.constant dense<4194304> : vector<4xi32>
// CHECK-DAG:     %[[EXPINF:.*]] = arith.constant dense<2139095040> : vector<4xi32>
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant dense<0> : vector<4xi32>
// CHECK-DAG:     %[[ULP:.*]] = arith.constant dense<1.52587891E-5> : vector<4xf32>
// CHECK-DAG:     %[[C21:.*]] = arith.constant dense<21> : vector<4xi32>
// CHECK-DAG:     %[[C23:.*]] = arith.constant dense<23> : vector<4xi32>
// CHECK-DAG:     %[[REBIAS:.*]] = arith.constant dense<112> : vector<4xi32>
// CHECK-DAG:     %[[MMASK:.*]] = arith.constant dense<3> : vector<4xi32>
// CHECK-DAG:     %[[EMASK:.*]] = arith.constant dense<31> : vector<4xi32>
// CHECK-DAG:     %[[C2:.*]] = arith.constant dense<2> : vector<4xi32>
// CHECK-DAG:     %[[C24:.*]] = arith.constant dense<24> : vector<4xi32>
// CHECK-DAG:     %[[SMASK:.*]] = arith.constant dense<128> : vector<4xi32>
// CHECK:         %[[BYTE:.*]] = arith.bitcast %[[X]] : vector<4xf8E5M2> to vector<4xi8>
// CHECK:         %[[B:.*]] = arith.extui %[[BYTE]] : vector<4xi8> to vector<4xi32>
// CHECK:         %[[S:.*]] = arith.andi %[[B]], %[[SMASK]] : vector<4xi32>
// CHECK:         %[[SIGN:.*]] = arith.shli %[[S]], %[[C24]] : vector<4xi32>
// CHECK:         %[[E0:.*]] = arith.shrui %[[B]], %[[C2]] : vector<4xi32>
// CHECK:         %[[E:.*]] = arith.andi %[[E0]], %[[EMASK]] : vector<4xi32>
// CHECK:         %[[M:.*]] = arith.andi %[[B]], %[[MMASK]] : vector<4xi32>
// CHECK:         %[[EB:.*]] = arith.addi %[[E]], %[[REBIAS]] : vector<4xi32>
// CHECK:         %[[EF:.*]] = arith.shli %[[EB]], %[[C23]] : vector<4xi32>
// CHECK:         %[[MF:.*]] = arith.shli %[[M]], %[[C21]] : vector<4xi32>
// CHECK:         %[[NORMAL:.*]] = arith.ori %[[EF]], %[[MF]] : vector<4xi32>
// CHECK:         %[[MFLT:.*]] = arith.uitofp %[[M]] : vector<4xi32> to vector<4xf32>
// CHECK:         %[[SUBF:.*]] = arith.mulf %[[MFLT]], %[[ULP]] : vector<4xf32>
// CHECK:         %[[SUB:.*]] = arith.bitcast %[[SUBF]] : vector<4xf32> to vector<4xi32>
// CHECK:         %[[ISSUB:.*]] = arith.cmpi eq, %[[E]], %[[ZERO]] : vector<4xi32>
// CHECK:         %[[MAG:.*]] = arith.select %[[ISSUB]], %[[SUB]], %[[NORMAL]] : vector<4xi1>, vector<4xi32>
// CHECK:         %[[ISSPECIAL:.*]] = arith.cmpi eq, %[[E]], %[[EMASK]] : vector<4xi32>
// CHECK:         %[[SPECIAL:.*]] = arith.select %{{.*}} : vector<4xi1>, vector<4xi32>
// CHECK:         %[[MAG2:.*]] = arith.select %[[ISSPECIAL]], %[[SPECIAL]], %[[MAG]] : vector<4xi1>, vector<4xi32>
// CHECK:         %[[R:.*]] = arith.ori %[[MAG2]], %[[SIGN]] : vector<4xi32>
// CHECK:         arith.bitcast %[[R]] : vector<4xi32> to vector<4xf32>
func.func @ext_e5m2_vector(%x: vector<4xf8E5M2>) -> vector<4xf32> {
  %0 = arith.extf %x : vector<4xf8E5M2> to vector<4xf32>
  return %0 : vector<4xf32>
}

// E4M3FN → bf16: decoded to f32 (S.1111.111 is NaN, subnormals m · 2^-9),
// then an exact truncf to bf16.
// CHECK-LABEL: func.func @ext_e4m3_to_bf16(
// CHECK-DAG:     %[[QNAN:.*]] = arith.constant 2143289344 : i32
// CHECK-DAG:     %[[ULP:.*]] = arith.constant 0.001953125 : f32
// CHECK-DAG:     %[[LOW7:.*]] = arith.constant 127 : i32
// CHECK-DAG:     arith.constant 120 : i32
// CHECK:         arith.mulf %{{.*}}, %[[ULP]] : f32
// CHECK:         %[[MAG:.*]] = arith.andi %{{.*}}, %[[LOW7]] : i32
// CHECK:         %[[ISNAN:.*]] = arith.cmpi eq, %[[MAG]], %[[LOW7]] : i32
// CHECK:         arith.select %[[ISNAN]], %[[QNAN]], %{{.*}} : i32
// CHECK:         %[[F:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK:         arith.truncf %[[F]] : f32 to bf16
func.func @ext_e4m3_to_bf16(%x: f8E4M3FN) -> bf16 {
  %0 = arith.extf %x : f8E4M3FN to bf16
  return %0 : bf16
}

// f32 → f4E2M1FN: m = 1, bias 1: round at bit 22, rebias by 126 << 1 = 252;
// subnormal below 1.0 (bits < 127 << 23); the largest finite code 7 (6.0)
// is also the overflow value, and NaN (no NaN in the format) becomes +max:
// the sign (bit 31 >> 28) is ORed in before the NaN select.
// CHECK-LABEL: func.func @trunc_f4(
// CHECK-DAG:     %[[INF:.*]] = arith.constant 2139095040 : i32
// CHECK-DAG:     %[[MAX:.*]] = arith.constant 7 : i32
// CHECK-DAG:     %[[MINNORMAL:.*]] = arith.constant 1065353216 : i32
// CHECK-DAG:     %[[REBIAS:.*]] = arith.constant 252 : i32
// CHECK-DAG:     %[[C28:.*]] = arith.constant 28 : i32
// CHECK:         %[[SIGN:.*]] = arith.shrui %{{.*}}, %[[C28]] : i32
// CHECK:         %[[ABS:.*]] = arith.andi
// CHECK:         arith.subi %{{.*}}, %[[REBIAS]] : i32
// CHECK:         arith.cmpi ult, %[[ABS]], %[[MINNORMAL]] : i32
// CHECK:         %[[OVF:.*]] = arith.cmpi ugt, %{{.*}}, %[[MAX]] : i32
// CHECK:         %[[R1:.*]] = arith.select %[[OVF]], %[[MAX]], %{{.*}} : i32
// CHECK:         %[[ISNAN:.*]] = arith.cmpi ugt, %[[ABS]], %[[INF]] : i32
// CHECK:         %[[R2:.*]] = arith.ori %[[R1]], %[[SIGN]] : i32
// CHECK:         %[[R3:.*]] = arith.select %[[ISNAN]], %[[MAX]], %[[R2]] : i32
// CHECK:         %[[NIBBLE:.*]] = arith.trunci %[[R3]] : i32 to i4
// CHECK:         arith.bitcast %[[NIBBLE]] : i4 to f4E2M1FN
func.func @trunc_f4(%x: f32) -> f4E2M1FN {
  %0 = arith.truncf %x : f32 to f4E2M1FN
  return %0 : f4E2M1FN
}

// f32 → f8E8M0FNU rounding upward: the exponent field, plus one for a
// non-zero mantissa; 0 for magnitudes up to 2^-127 (0x00400000) and for
// negative inputs; beyond 254, and NaN inputs, 0xFF.
// CHECK-LABEL: func.func @trunc_e8m0(
// CHECK-DAG:     %[[NAN:.*]] = arith.constant 255 : i32
// CHECK-DAG:     %[[TOP:.*]] = arith.constant 254 : i32
// CHECK-DAG:     %[[TINY:.*]] = arith.constant 4194304 : i32
// CHECK:         %[[BITS:.*]] = arith.bitcast %{{.*}} : f32 to i32
// CHECK:         %[[ABS:.*]] = arith.andi %[[BITS]], %{{.*}} : i32
// CHECK:         %[[EXP:.*]] = arith.shrui %[[ABS]], %{{.*}} : i32
// CHECK:         %[[MANT:.*]] = arith.andi %[[ABS]], %{{.*}} : i32
// CHECK:         %[[EXACT:.*]] = arith.cmpi eq, %[[MANT]], %{{.*}} : i32
// CHECK:         %[[UP:.*]] = arith.addi %[[EXP]], %{{.*}} : i32
// CHECK:         %[[C0:.*]] = arith.select %[[EXACT]], %[[EXP]], %[[UP]] : i32
// CHECK:         %[[ISTINY:.*]] = arith.cmpi ule, %[[ABS]], %[[TINY]] : i32
// CHECK:         %[[C1:.*]] = arith.select %[[ISTINY]], %{{.*}}, %[[C0]] : i32
// CHECK:         %[[OVF:.*]] = arith.cmpi ugt, %[[C1]], %[[TOP]] : i32
// CHECK:         %[[C2:.*]] = arith.select %[[OVF]], %[[NAN]], %[[C1]] : i32
// CHECK:         arith.cmpi ne
// CHECK:         %[[C3:.*]] = arith.select
// CHECK:         %[[ISNAN:.*]] = arith.cmpi ugt, %[[ABS]], %{{.*}} : i32
// CHECK:         %[[C4:.*]] = arith.select %[[ISNAN]], %[[NAN]], %[[C3]] : i32
// CHECK:         %[[BYTE:.*]] = arith.trunci %[[C4]] : i32 to i8
// CHECK:         arith.bitcast %[[BYTE]] : i8 to f8E8M0FNU
func.func @trunc_e8m0(%x: f32) -> f8E8M0FNU {
  %0 = arith.truncf %x upward : f32 to f8E8M0FNU
  return %0 : f8E8M0FNU
}

// f8E8M0FNU → f32: code << 23, 0 is the f32 subnormal 2^-127, 0xFF NaN.
// CHECK-LABEL: func.func @ext_e8m0(
// CHECK:         %[[B:.*]] = arith.bitcast %{{.*}} : f8E8M0FNU to i8
// CHECK:         %[[C:.*]] = arith.extui %[[B]] : i8 to i32
// CHECK:         %[[P:.*]] = arith.shli %[[C]], %{{.*}} : i32
// CHECK:         arith.cmpi eq, %[[C]], %{{.*}} : i32
// CHECK:         arith.select %{{.*}}, %{{.*}}, %[[P]] : i32
// CHECK:         arith.cmpi eq, %[[C]], %{{.*}} : i32
// CHECK:         %[[R:.*]] = arith.select
// CHECK:         arith.bitcast %[[R]] : i32 to f32
func.func @ext_e8m0(%x: f8E8M0FNU) -> f32 {
  %0 = arith.extf %x : f8E8M0FNU to f32
  return %0 : f32
}

// f6E3M2FN → f32 on vectors: the sign is bit 5 (<< 26), exponent + 124,
// subnormals mantissa · 2^-4; no special values.
// CHECK-LABEL: func.func @ext_f6_vector(
// CHECK-DAG:     %[[ULP:.*]] = arith.constant dense<6.250000e-02> : vector<2xf32>
// CHECK-DAG:     %[[REBIAS:.*]] = arith.constant dense<124> : vector<2xi32>
// CHECK-DAG:     %[[C26:.*]] = arith.constant dense<26> : vector<2xi32>
// CHECK-DAG:     %[[SIGNBIT:.*]] = arith.constant dense<32> : vector<2xi32>
// CHECK:         %[[B:.*]] = arith.bitcast %{{.*}} : vector<2xf6E3M2FN> to vector<2xi6>
// CHECK:         %[[C:.*]] = arith.extui %[[B]] : vector<2xi6> to vector<2xi32>
// CHECK:         %[[S:.*]] = arith.andi %[[C]], %[[SIGNBIT]] : vector<2xi32>
// CHECK:         %[[SIGN:.*]] = arith.shli %[[S]], %[[C26]] : vector<2xi32>
// CHECK:         arith.addi %{{.*}}, %[[REBIAS]] : vector<2xi32>
// CHECK:         arith.mulf %{{.*}}, %[[ULP]] : vector<2xf32>
// CHECK:         %[[MAG:.*]] = arith.select
// CHECK-NEXT:    %[[R:.*]] = arith.ori %[[MAG]], %[[SIGN]] : vector<2xi32>
// CHECK-NEXT:    arith.bitcast %[[R]] : vector<2xi32> to vector<2xf32>
func.func @ext_f6_vector(%x: vector<2xf6E3M2FN>) -> vector<2xf32> {
  %0 = arith.extf %x : vector<2xf6E3M2FN> to vector<2xf32>
  return %0 : vector<2xf32>
}

// Not FP8: left as it is (FP8 conversions the pass cannot expand are errors,
// mp-expand-fp8-conversions-invalid.mlir).
// CHECK-LABEL: func.func @untouched(
// CHECK-NEXT:    arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT:    return
func.func @untouched(%x: f32) -> f16 {
  %0 = arith.truncf %x : f32 to f16
  return %0 : f16
}
