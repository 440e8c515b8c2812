// convert-mp-to-linalg on select, compare, stop_gradient, clamp and the
// activation gradients, and on shape ops of integer tensors: one parallel
// generic each, f16/bf16 extended to f32 and rounded once, integers as they
// are.
// RUN: mp-opt %s -convert-mp-to-linalg | FileCheck %s

// Ordered predicates (false on NaN), `une` for ne, signed integers.
// CHECK-LABEL: func.func @compare(
// CHECK:         ^bb0(%[[A:.*]]: f16, %[[B:.*]]: f16, %{{.*}}: i1):
// CHECK-NEXT:      %[[A32:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK-NEXT:      %[[B32:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK-NEXT:      %[[NE:.*]] = arith.cmpf une, %[[A32]], %[[B32]] : f32
// CHECK-NEXT:      linalg.yield %[[NE]] : i1
// CHECK:           arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK:         ^bb0(%[[I:.*]]: i32, %[[J:.*]]: i32, %{{.*}}: i1):
// CHECK-NEXT:      %[[LE:.*]] = arith.cmpi sle, %[[I]], %[[J]] : i32
// CHECK-NEXT:      linalg.yield %[[LE]] : i1
func.func @compare(%a: tensor<4xf16>, %b: tensor<f16>, %i: tensor<4xi32>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = mp.compare ne, %a, %b : tensor<4xf16>, tensor<f16>
  %1 = mp.compare lt, %a, %b : tensor<4xf16>, tensor<f16>
  %2 = mp.compare le, %i, %i : tensor<4xi32>, tensor<4xi32>
  return %0, %1, %2 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// i1 compares unsigned: false < true.
// CHECK-LABEL: func.func @compare_i1(
// CHECK:         ^bb0(%[[P:.*]]: i1, %[[Q:.*]]: i1, %{{.*}}: i1):
// CHECK-NEXT:      %[[LT:.*]] = arith.cmpi ult, %[[P]], %[[Q]] : i1
// CHECK-NEXT:      linalg.yield %[[LT]] : i1
func.func @compare_i1(%p: tensor<4xi1>, %q: tensor<4xi1>) -> tensor<4xi1> {
  %0 = mp.compare lt, %p, %q : tensor<4xi1>, tensor<4xi1>
  return %0 : tensor<4xi1>
}

// CHECK-LABEL: func.func @select(
// CHECK:         ^bb0(%[[C:.*]]: i1, %[[X:.*]]: bf16, %[[Y:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT:      %[[X32:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT:      %[[Y32:.*]] = arith.extf %[[Y]] : bf16 to f32
// CHECK-NEXT:      %[[S:.*]] = arith.select %[[C]], %[[X32]], %[[Y32]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[T]] : bf16
// CHECK:         ^bb0(%[[C2:.*]]: i1, %[[I:.*]]: i64, %[[J:.*]]: i64, %{{.*}}: i64):
// CHECK-NEXT:      %[[SI:.*]] = arith.select %[[C2]], %[[I]], %[[J]] : i64
// CHECK-NEXT:      linalg.yield %[[SI]] : i64
func.func @select(%c: tensor<4xi1>, %x: tensor<4xbf16>, %y: tensor<bf16>, %i: tensor<4xi64>) -> (tensor<4xbf16>, tensor<4xi64>) {
  %0 = mp.select %c, %x, %y : tensor<4xi1>, tensor<4xbf16>, tensor<bf16>
  %1 = mp.select %c, %i, %i : tensor<4xi1>, tensor<4xi64>, tensor<4xi64>
  return %0, %1 : tensor<4xbf16>, tensor<4xi64>
}

// clamp: min > x ? min : x, then max < m ? max : m (NaN and the sign of zero
// kept); clamp_grad exclusive with hardtanh, inclusive without.
// CHECK-LABEL: func.func @clamp(
// CHECK:         ^bb0(%[[X:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT:      %[[X32:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      %[[MIN:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[BELOW:.*]] = arith.cmpf ogt, %[[MIN]], %[[X32]] : f32
// CHECK-NEXT:      %[[M:.*]] = arith.select %[[BELOW]], %[[MIN]], %[[X32]] : f32
// CHECK-NEXT:      %[[MAX:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT:      %[[ABOVE:.*]] = arith.cmpf olt, %[[MAX]], %[[M]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[ABOVE]], %[[MAX]], %[[M]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[R]] : f32 to f16
// CHECK:           %[[LO:.*]] = arith.cmpf ole, %[[GX:.*]], %{{.*}} : f32
// CHECK-NEXT:      %[[HI:.*]] = arith.cmpf oge, %[[GX]], %{{.*}} : f32
// CHECK-NEXT:      %[[OUT:.*]] = arith.ori %[[LO]], %[[HI]] : i1
// CHECK-NEXT:      arith.select %[[OUT]], %{{.*}}, %{{.*}} : f32
// CHECK:           %[[GE:.*]] = arith.cmpf oge, %[[IX:.*]], %{{.*}} : f32
// CHECK:           %[[LE:.*]] = arith.cmpf ole, %[[IX]], %{{.*}} : f32
// CHECK-NEXT:      %[[IN:.*]] = arith.andi %[[GE]], %[[LE]] : i1
// CHECK-NEXT:      arith.select %[[IN]], %{{.*}}, %{{.*}} : f32
func.func @clamp(%x: tensor<4xf16>, %dy: tensor<4xf16>) -> (tensor<4xf16>, tensor<4xf16>, tensor<4xf16>) {
  %0 = mp.clamp %x min 0.0 max 6.0 hardtanh : tensor<4xf16>
  %1 = mp.clamp_grad %dy, %x min 0.0 max 6.0 hardtanh : tensor<4xf16>
  %2 = mp.clamp_grad %dy, %x min 0.0 max 6.0 : tensor<4xf16>
  return %0, %1, %2 : tensor<4xf16>, tensor<4xf16>, tensor<4xf16>
}

// hardswish_grad: x < −3 ? 0 : x <= 3 ? dy·(x/3 + 0.5) : dy.
// CHECK-LABEL: func.func @hardswish_grad(
// CHECK:         ^bb0(%[[DY:.*]]: f32, %[[X:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[Q:.*]] = arith.divf %[[X]], %{{.*}} : f32
// CHECK:           %[[P:.*]] = arith.addf %[[Q]], %{{.*}} : f32
// CHECK-NEXT:      %[[G:.*]] = arith.mulf %[[DY]], %[[P]] : f32
// CHECK-NEXT:      %[[THREE:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT:      %[[LE:.*]] = arith.cmpf ole, %[[X]], %[[THREE]] : f32
// CHECK-NEXT:      %[[U:.*]] = arith.select %[[LE]], %[[G]], %[[DY]] : f32
// CHECK-NEXT:      %[[MTHREE:.*]] = arith.constant -3.000000e+00 : f32
// CHECK-NEXT:      %[[LT:.*]] = arith.cmpf olt, %[[X]], %[[MTHREE]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[LT]], %{{.*}}, %[[U]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
func.func @hardswish_grad(%dy: tensor<4xf32>, %x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = mp.hardswish_grad %dy, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// stop_gradient forwards its operand; an integer reshape is a collapse.
// CHECK-LABEL: func.func @stop_gradient(
// CHECK-SAME:    %[[X:.*]]: tensor<4xf32>, %[[L:.*]]: tensor<2x3xi64>)
// CHECK-NEXT:    %[[C:.*]] = tensor.collapse_shape %[[L]] {{\[}}[0, 1]] : tensor<2x3xi64> into tensor<6xi64>
// CHECK-NEXT:    return %[[X]], %[[C]]
func.func @stop_gradient(%x: tensor<4xf32>, %l: tensor<2x3xi64>) -> (tensor<4xf32>, tensor<6xi64>) {
  %0 = mp.stop_gradient %x : tensor<4xf32>
  %1 = mp.reshape %l : tensor<2x3xi64> to tensor<6xi64>
  return %0, %1 : tensor<4xf32>, tensor<6xi64>
}
