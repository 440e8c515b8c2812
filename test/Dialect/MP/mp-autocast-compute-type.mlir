// RUN: mp-opt %s --mp-autocast=compute-type=bf16 | FileCheck %s
// RUN: mp-opt %s --mp-autocast=compute-type=f16 | FileCheck %s --check-prefix=F16
// RUN: mp-opt %s --mp-autocast=compute-type=bf16 -o %t
// RUN: mp-opt %t --mp-autocast=compute-type=bf16 | diff %t -

// compute-type=bf16: allow ops run in bf16 (still accumulating in f32), low
// precision flows through relu and add, deny ops run in f32. An f16 input is
// cast to f32 for exp and its result back to f16 for the return.
// CHECK-LABEL: func.func @compute_type
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<4x4xf32>, %[[H:.*]]: tensor<8x4xf16>)
// CHECK-NEXT: %[[XB:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xbf16>
// CHECK-NEXT: %[[WB:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xbf16>
// CHECK-NEXT: %[[H32:.*]] = mp.cast %[[H]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[Y:.*]] = mp.matmul %[[XB]], %[[WB]] acc(f32) : tensor<8x4xbf16>, tensor<4x4xbf16> -> tensor<8x4xbf16>
// CHECK-NEXT: %[[R:.*]] = mp.relu %[[Y]] : tensor<8x4xbf16>
// CHECK-NEXT: %[[Z:.*]] = mp.matmul %[[R]], %[[WB]] acc(f32) : tensor<8x4xbf16>, tensor<4x4xbf16> -> tensor<8x4xbf16>
// CHECK-NEXT: %[[Z32:.*]] = mp.cast %[[Z]] : tensor<8x4xbf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[P:.*]] = mp.softmax %[[Z32]] dim 1 : tensor<8x4xf32>
// CHECK-NEXT: %[[S:.*]] = mp.add %[[Y]], %[[Z]] : tensor<8x4xbf16>, tensor<8x4xbf16>
// CHECK-NEXT: %[[S32:.*]] = mp.cast %[[S]] : tensor<8x4xbf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[E:.*]] = mp.exp %[[H32]] : tensor<8x4xf32>
// CHECK-NEXT: %[[E16:.*]] = mp.cast %[[E]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[P]], %[[S32]] : tensor<8x4xf32>
// CHECK-NEXT: return %[[A]], %[[S32]], %[[E16]]

// F16-LABEL: func.func @compute_type
// F16: mp.matmul %{{.*}}, %{{.*}} acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf16>
// F16-NOT: bf16
func.func @compute_type(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>, %h: tensor<8x4xf16>)
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
