// RUN: mp-opt %s --mp-autocast | FileCheck %s
// RUN: mp-opt %s --mp-autocast -o %t
// RUN: mp-opt %t --mp-autocast | diff %t -

// `mp.precision` pins an op's execution type whatever its category: a matmul
// stays f32 or runs in bf16 (the compute type being f16), a softmax (deny)
// runs in f16, a relu (clear) in f16, and an op of no list (arith.negf) in
// bf16. The pinned f32 matmul result gets one cast per type its users need.
// CHECK-LABEL: func.func @pinned
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<4x4xf32>)
// CHECK-NEXT: %[[XB:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xbf16>
// CHECK-NEXT: %[[WB:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xbf16>
// CHECK-NEXT: %[[A:.*]] = mp.matmul %[[X]], %[[W]] acc(f32) {mp.precision = "f32"} : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: %[[AH:.*]] = mp.cast %[[A]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[AB:.*]] = mp.cast %[[A]] : tensor<8x4xf32> to tensor<8x4xbf16>
// CHECK-NEXT: %[[B:.*]] = mp.matmul %[[XB]], %[[WB]] acc(f32) {mp.precision = "bf16"} : tensor<8x4xbf16>, tensor<4x4xbf16> -> tensor<8x4xbf16>
// CHECK-NEXT: %[[BH:.*]] = mp.cast %[[B]] : tensor<8x4xbf16> to tensor<8x4xf16>
// CHECK-NEXT: %[[B32:.*]] = mp.cast %[[B]] : tensor<8x4xbf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[S:.*]] = mp.softmax %[[BH]] dim 1 {mp.precision = "f16"} : tensor<8x4xf16>
// CHECK-NEXT: %[[S32:.*]] = mp.cast %[[S]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[R:.*]] = mp.relu %[[AH]] {mp.precision = "f16"} : tensor<8x4xf16>
// CHECK-NEXT: %[[R32:.*]] = mp.cast %[[R]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[AB]] {mp.precision = "bf16"} : tensor<8x4xbf16>
// CHECK-NEXT: %[[N32:.*]] = mp.cast %[[N]] : tensor<8x4xbf16> to tensor<8x4xf32>
// CHECK-NEXT: return %[[S32]], %[[R32]], %[[N32]], %[[B32]]
func.func @pinned(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>)
    -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>) {
  %a = mp.matmul %x, %w acc(f32) {mp.precision = "f32"} : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %b = mp.matmul %x, %w acc(f32) {mp.precision = "bf16"} : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %s = mp.softmax %b dim 1 {mp.precision = "f16"} : tensor<8x4xf32>
  %r = mp.relu %a {mp.precision = "f16"} : tensor<8x4xf32>
  %n = arith.negf %a {mp.precision = "bf16"} : tensor<8x4xf32>
  return %s, %r, %n, %b : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>
}
