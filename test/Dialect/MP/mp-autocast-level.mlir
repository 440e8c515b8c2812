// RUN: mp-opt %s --mp-autocast=level=tensor-cores-only | FileCheck %s
// RUN: mp-opt %s --mp-autocast=level=tensor-cores-only -o %t
// RUN: mp-opt %t --mp-autocast=level=tensor-cores-only | diff %t -

// level=tensor-cores-only: only allow ops change precision. The deny and
// promote ops keep the types they were written in (add stays f32 although
// both inputs are f16 matmul results; exp of an f16 input stays f16); clear
// ops still pass types through (relu between the matmuls stays f16). The
// second matmul only feeds f32 users: it returns its f32 accumulator.
// CHECK-LABEL: func.func @tensor_cores_only
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<4x4xf32>, %[[H:.*]]: tensor<8x4xf16>)
// CHECK-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[Y:.*]] = mp.matmul %[[XH]], %[[WH]] acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf16>
// CHECK-NEXT: %[[Y32:.*]] = mp.cast %[[Y]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[R:.*]] = mp.relu %[[Y]] : tensor<8x4xf16>
// CHECK-NEXT: %[[Z:.*]] = mp.matmul %[[R]], %[[WH]] acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf32>
// CHECK-NEXT: %[[P:.*]] = mp.softmax %[[Z]] dim 1 : tensor<8x4xf32>
// CHECK-NEXT: %[[S:.*]] = mp.add %[[Y32]], %[[Z]] : tensor<8x4xf32>, tensor<8x4xf32>
// CHECK-NEXT: %[[E:.*]] = mp.exp %[[H]] : tensor<8x4xf16>
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[P]], %[[S]] : tensor<8x4xf32>
// CHECK-NEXT: return %[[A]], %[[S]], %[[E]]
func.func @tensor_cores_only(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>, %h: tensor<8x4xf16>)
    -> (tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf16>) {
  %y = mp.matmul %x, %w acc(f32) : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %r = mp.relu %y : tensor<8x4xf32>
  %z = mp.matmul %r, %w acc(f32) : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
  %p = mp.softmax %z dim 1 : tensor<8x4xf32>
  %s = mp.add %y, %z : tensor<8x4xf32>, tensor<8x4xf32>
  %e = mp.exp %h : tensor<8x4xf16>
  %a = arith.addf %p, %s : tensor<8x4xf32>
  return %a, %s, %e : tensor<8x4xf32>, tensor<8x4xf32>, tensor<8x4xf16>
}
