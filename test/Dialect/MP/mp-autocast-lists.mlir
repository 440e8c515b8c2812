// RUN: mp-opt %s --mp-autocast="allow=mp.softmax deny=mp.relu promote=arith.addf clear=mp.exp,mp.add" | FileCheck %s
// RUN: mp-opt %s --mp-autocast="allow=mp.softmax deny=mp.relu promote=arith.addf clear=mp.exp,mp.add" -o %t
// RUN: mp-opt %t --mp-autocast="allow=mp.softmax deny=mp.relu promote=arith.addf clear=mp.exp,mp.add" | diff %t -

// The allow/deny/promote/clear options move ops between lists and add ops of
// other dialects: softmax runs in f16 (allow), relu in f32 (deny), add and
// exp pass their input types through (clear), and arith.addf runs in the
// widest type of its inputs (promote: both f16 here, so f16).
// CHECK-LABEL: func.func @moved
// CHECK-SAME: (%[[X:.*]]: tensor<8x4xf32>, %[[W:.*]]: tensor<4x4xf32>, %[[H:.*]]: tensor<8x4xf16>)
// CHECK-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x4xf32> to tensor<4x4xf16>
// CHECK-NEXT: %[[Y:.*]] = mp.matmul %[[XH]], %[[WH]] acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf16>
// CHECK-NEXT: %[[Y32:.*]] = mp.cast %[[Y]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[R:.*]] = mp.relu %[[Y32]] : tensor<8x4xf32>
// CHECK-NEXT: %[[RH:.*]] = mp.cast %[[R]] : tensor<8x4xf32> to tensor<8x4xf16>
// CHECK-NEXT: %[[Z:.*]] = mp.matmul %[[RH]], %[[WH]] acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf16>
// CHECK-NEXT: %[[P:.*]] = mp.softmax %[[Z]] dim 1 : tensor<8x4xf16>
// CHECK-NEXT: %[[S:.*]] = mp.add %[[Y]], %[[Z]] : tensor<8x4xf16>, tensor<8x4xf16>
// CHECK-NEXT: %[[S32:.*]] = mp.cast %[[S]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: %[[E:.*]] = mp.exp %[[H]] : tensor<8x4xf16>
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[P]], %[[S]] : tensor<8x4xf16>
// CHECK-NEXT: %[[A32:.*]] = mp.cast %[[A]] : tensor<8x4xf16> to tensor<8x4xf32>
// CHECK-NEXT: return %[[A32]], %[[S32]], %[[E]]
func.func @moved(%x: tensor<8x4xf32>, %w: tensor<4x4xf32>, %h: tensor<8x4xf16>)
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
