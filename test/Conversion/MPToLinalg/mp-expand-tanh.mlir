// mp-expand-tanh: f32 math.tanh (scalar and vector) as arithmetic; other
// element types are left alone. test/python/tanh.py executes it (identical
// vectorised and scalar, within 1.03 ulp), tanh_torch.py against PyTorch.
// RUN: mp-opt %s --mp-expand-tanh | FileCheck %s

// With a = |x| (the sign bit masked off): a < 0.875 (or NaN) takes
// a + a³·P(a²), P of degree 6 in Horner form; otherwise 1 − 2/(e^(2a) + 1)
// with a clamped to 9.5 and e^y = 2^k·e^r (k rounded by adding and
// subtracting 1.5·2^23, r in two fma steps, Taylor degree 7, 2^k in the
// exponent field); the sign bit is or-ed back.
// CHECK-LABEL: func.func @scalar(
// CHECK-SAME:    %[[X:.*]]: f32) -> f32
// CHECK-DAG:     %[[SIGNMASK:.*]] = arith.constant -2147483648 : i32
// CHECK-DAG:     %[[ABSMASK:.*]] = arith.constant 2147483647 : i32
// CHECK-DAG:     %[[P6:.*]] = arith.constant -4.90012288E-4 : f32
// CHECK-DAG:     %[[P5:.*]] = arith.constant 0.00267040031 : f32
// CHECK-DAG:     %[[P0:.*]] = arith.constant -0.333333254 : f32
// CHECK-DAG:     %[[SAT:.*]] = arith.constant 9.500000e+00 : f32
// CHECK-DAG:     %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK-DAG:     %[[SHIFT:.*]] = arith.constant 0x4B400000 : f32
// CHECK-DAG:     %[[LN2HI:.*]] = arith.constant -0.693145751 : f32
// CHECK-DAG:     %[[C127:.*]] = arith.constant 127 : i32
// CHECK-DAG:     %[[C23:.*]] = arith.constant 23 : i32
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-DAG:     %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG:     %[[LIMIT:.*]] = arith.constant 8.750000e-01 : f32
// CHECK:         %[[BITS:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK:         %[[SIGN:.*]] = arith.andi %[[BITS]], %[[SIGNMASK]] : i32
// CHECK:         %[[ABSBITS:.*]] = arith.andi %[[BITS]], %[[ABSMASK]] : i32
// CHECK:         %[[A:.*]] = arith.bitcast %[[ABSBITS]] : i32 to f32
// CHECK:         %[[S:.*]] = arith.mulf %[[A]], %[[A]] : f32
// CHECK:         %[[CUBE:.*]] = arith.mulf %[[S]], %[[A]] : f32
// CHECK:         %[[H:.*]] = math.fma %[[S]], %[[P6]], %[[P5]] : f32
// CHECK-COUNT-4: math.fma %[[S]]
// CHECK:         %[[P:.*]] = math.fma %[[S]], %{{.*}}, %[[P0]] : f32
// CHECK:         %[[ODD:.*]] = math.fma %[[CUBE]], %[[P]], %[[A]] : f32
// CHECK:         %[[BELOW:.*]] = arith.cmpf olt, %[[A]], %[[SAT]] : f32
// CHECK:         %[[C:.*]] = arith.select %[[BELOW]], %[[A]], %[[SAT]] : f32
// CHECK:         %[[Y:.*]] = arith.addf %[[C]], %[[C]] : f32
// CHECK:         %[[YL:.*]] = arith.mulf %[[Y]], %[[LOG2E]] : f32
// CHECK:         %[[UP:.*]] = arith.addf %[[YL]], %[[SHIFT]] : f32
// CHECK:         %[[K:.*]] = arith.subf %[[UP]], %[[SHIFT]] : f32
// CHECK:         %[[R0:.*]] = math.fma %[[K]], %[[LN2HI]], %[[Y]] : f32
// CHECK:         %[[R:.*]] = math.fma %[[K]], %{{.*}}, %[[R0]] : f32
// CHECK-COUNT-7: math.fma %[[R]]
// CHECK:         %[[KI:.*]] = arith.fptosi %[[K]] : f32 to i32
// CHECK:         %[[EXP:.*]] = arith.addi %[[KI]], %[[C127]] : i32
// CHECK:         %[[POWBITS:.*]] = arith.shli %[[EXP]], %[[C23]] : i32
// CHECK:         %[[POW:.*]] = arith.bitcast %[[POWBITS]] : i32 to f32
// CHECK:         %[[E:.*]] = arith.mulf %{{.*}}, %[[POW]] : f32
// CHECK:         %[[D:.*]] = arith.addf %[[E]], %[[ONE]] : f32
// CHECK:         %[[Q:.*]] = arith.divf %[[TWO]], %[[D]] : f32
// CHECK:         %[[SATURATING:.*]] = arith.subf %[[ONE]], %[[Q]] : f32
// CHECK:         %[[SMALL:.*]] = arith.cmpf ult, %[[A]], %[[LIMIT]] : f32
// CHECK:         %[[M:.*]] = arith.select %[[SMALL]], %[[ODD]], %[[SATURATING]] : f32
// CHECK:         %[[MBITS:.*]] = arith.bitcast %[[M]] : f32 to i32
// CHECK:         %[[RBITS:.*]] = arith.ori %[[MBITS]], %[[SIGN]] : i32
// CHECK:         %[[RESULT:.*]] = arith.bitcast %[[RBITS]] : i32 to f32
// CHECK:         return %[[RESULT]] : f32
// CHECK-NOT:     math.tanh
func.func @scalar(%x: f32) -> f32 {
  %t = math.tanh %x : f32
  return %t : f32
}

// Vectors: the same operations on vectors, splat constants.
// CHECK-LABEL: func.func @vector(
// CHECK-DAG:     arith.constant dense<8.750000e-01> : vector<16xf32>
// CHECK-DAG:     arith.constant dense<-2147483648> : vector<16xi32>
// CHECK:         arith.bitcast %{{.*}} : vector<16xf32> to vector<16xi32>
// CHECK:         arith.fptosi %{{.*}} : vector<16xf32> to vector<16xi32>
// CHECK:         arith.divf %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK:         arith.cmpf ult, %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NOT:     math.tanh
func.func @vector(%x: vector<16xf32>) -> vector<16xf32> {
  %t = math.tanh %x : vector<16xf32>
  return %t : vector<16xf32>
}

// f16 and f64 are left alone (math-extend-to-supported-types extends f16
// first in the pipelines; f64 stays libm's).
// CHECK-LABEL: func.func @others(
// CHECK:         math.tanh %{{.*}} : f16
// CHECK:         math.tanh %{{.*}} : f64
func.func @others(%h: f16, %d: f64) -> (f16, f64) {
  %a = math.tanh %h : f16
  %b = math.tanh %d : f64
  return %a, %b : f16, f64
}
