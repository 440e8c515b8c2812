// mp-expand-tanh{exp=true}: f32 math.exp (scalar and vector) as the tanh
// expansion's exponential in f64, rounded once to f32; without the option,
// and for other element types or fast-math exps, math.exp is left alone.
// test/python/exp.py executes it (identical vectorised and scalar,
// correctly rounded on its sample).
// RUN: mp-opt %s --mp-expand-tanh=exp=true | FileCheck %s
// RUN: mp-opt %s --mp-expand-tanh | FileCheck %s --check-prefix=OFF

// x widened to f64, clamped to [-150, 100] (NaN to -150), e^x = 2^k·e^r (k
// rounded by adding and subtracting 1.5·2^52, r in two fma steps, Taylor
// degree 11: 11 fma, 2^k in the exponent field of an i64), rounded to f32;
// NaN gives x + x.
// CHECK-LABEL: func.func @scalar(
// CHECK-SAME:    %[[X:.*]]: f32) -> f32
// CHECK-DAG:     %[[C52:.*]] = arith.constant 52 : i64
// CHECK-DAG:     %[[BIAS:.*]] = arith.constant 1023 : i64
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK-DAG:     %[[P11:.*]] = arith.constant 2.505210838544172E-8 : f64
// CHECK-DAG:     %[[P10:.*]] = arith.constant 2.7557319223985888E-7 : f64
// CHECK-DAG:     %[[LN2LO:.*]] = arith.constant -2.3190468138462996E-17 : f64
// CHECK-DAG:     %[[LN2HI:.*]] = arith.constant -0.69314718055994529 : f64
// CHECK-DAG:     %[[LOG2E:.*]] = arith.constant 1.4426950408889634 : f64
// CHECK-DAG:     %[[SHIFT:.*]] = arith.constant 0x4338000000000000 : f64
// CHECK-DAG:     %[[HIGH:.*]] = arith.constant 1.000000e+02 : f64
// CHECK-DAG:     %[[LOW:.*]] = arith.constant -1.500000e+02 : f64
// CHECK:         %[[W:.*]] = arith.extf %[[X]] : f32 to f64
// CHECK:         %[[ABOVE:.*]] = arith.cmpf ogt, %[[W]], %[[LOW]] : f64
// CHECK:         %[[C0:.*]] = arith.select %[[ABOVE]], %[[W]], %[[LOW]] : f64
// CHECK:         %[[BELOW:.*]] = arith.cmpf olt, %[[C0]], %[[HIGH]] : f64
// CHECK:         %[[C:.*]] = arith.select %[[BELOW]], %[[C0]], %[[HIGH]] : f64
// CHECK:         %[[YL:.*]] = arith.mulf %[[C]], %[[LOG2E]] : f64
// CHECK:         %[[YS:.*]] = arith.addf %[[YL]], %[[SHIFT]] : f64
// CHECK:         %[[K:.*]] = arith.subf %[[YS]], %[[SHIFT]] : f64
// CHECK:         %[[R0:.*]] = math.fma %[[K]], %[[LN2HI]], %[[C]] : f64
// CHECK:         %[[R:.*]] = math.fma %[[K]], %[[LN2LO]], %[[R0]] : f64
// CHECK:         math.fma %[[R]], %[[P11]], %[[P10]] : f64
// CHECK-COUNT-9: math.fma %[[R]]
// CHECK:         %[[P:.*]] = math.fma %[[R]], %{{.*}}, %[[ONE]] : f64
// CHECK:         %[[KI:.*]] = arith.fptosi %[[K]] : f64 to i64
// CHECK:         %[[E:.*]] = arith.addi %[[KI]], %[[BIAS]] : i64
// CHECK:         %[[EB:.*]] = arith.shli %[[E]], %[[C52]] : i64
// CHECK:         %[[POW:.*]] = arith.bitcast %[[EB]] : i64 to f64
// CHECK:         %[[EXP:.*]] = arith.mulf %[[P]], %[[POW]] : f64
// CHECK:         %[[F:.*]] = arith.truncf %[[EXP]] : f64 to f32
// CHECK:         %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK:         %[[Q:.*]] = arith.addf %[[X]], %[[X]] : f32
// CHECK:         %[[RES:.*]] = arith.select %[[NAN]], %[[Q]], %[[F]] : f32
// CHECK:         return %[[RES]] : f32
// OFF-LABEL: func.func @scalar(
// OFF:         math.exp %{{.*}} : f32
func.func @scalar(%x: f32) -> f32 {
  %e = math.exp %x : f32
  return %e : f32
}

// Vectors: the same operations on vectors of f64 and i64.
// CHECK-LABEL: func.func @vector(
// CHECK:         arith.extf %{{.*}} : vector<16xf32> to vector<16xf64>
// CHECK:         arith.fptosi %{{.*}} : vector<16xf64> to vector<16xi64>
// CHECK:         arith.truncf %{{.*}} : vector<16xf64> to vector<16xf32>
// CHECK:         arith.cmpf uno, %{{.*}}, %{{.*}} : vector<16xf32>
// CHECK-NOT:     math.exp
func.func @vector(%x: vector<16xf32>) -> vector<16xf32> {
  %e = math.exp %x : vector<16xf32>
  return %e : vector<16xf32>
}

// f16, f64 and exps with fast-math flags are left alone.
// CHECK-LABEL: func.func @others(
// CHECK:         math.exp %{{.*}} : f16
// CHECK:         math.exp %{{.*}} : f64
// CHECK:         math.exp %{{.*}} fastmath<afn> : f32
func.func @others(%h: f16, %d: f64, %x: f32) -> (f16, f64, f32) {
  %a = math.exp %h : f16
  %b = math.exp %d : f64
  %c = math.exp %x fastmath<afn> : f32
  return %a, %b, %c : f16, f64, f32
}
