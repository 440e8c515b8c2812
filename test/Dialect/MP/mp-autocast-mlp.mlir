// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir --mp-autocast | FileCheck %s
// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir --mp-autocast | grep "mp.cast" | count 4
// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir --mp-autocast -o %t
// RUN: mp-opt %t --mp-autocast | diff %t -

// The example MLP train step (docs/examples/mlp_train_step.mlir): 4 casts.
// The input and three parameters are cast to f16 once, at entry; both
// linears run in f16 accumulating in f32, relu stays f16 between them; the
// logits only feed the cross entropy (deny), so the second linear returns its
// f32 accumulator, with its bias in f32 (no cast of b2, no widening of the
// logits); mp.grad, the Adam updates and the signature keep f32.
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[W1:[^:]*]]: tensor<256x784xf32> {mp.param}, %[[B1:[^:]*]]: tensor<256xf32> {mp.param}, %[[W2:[^:]*]]: tensor<10x256xf32> {mp.param}, %[[B2:[^:]*]]: tensor<10xf32> {mp.param},
// CHECK-SAME: %[[STEP:[^:]*]]: tensor<i64> {mp.state = "step"}, %[[X:[^:]*]]: tensor<64x784xf32>, %[[LABELS:[^:]*]]: tensor<64xi64>)
// CHECK-SAME: -> (tensor<f32> {mp.loss}, tensor<256x784xf32> {mp.updates = 0 : i64},
// CHECK-NEXT: %[[XH:.*]] = mp.cast %[[X]] : tensor<64x784xf32> to tensor<64x784xf16>
// CHECK-NEXT: %[[W1H:.*]] = mp.cast %[[W1]] : tensor<256x784xf32> to tensor<256x784xf16>
// CHECK-NEXT: %[[B1H:.*]] = mp.cast %[[B1]] : tensor<256xf32> to tensor<256xf16>
// CHECK-NEXT: %[[W2H:.*]] = mp.cast %[[W2]] : tensor<10x256xf32> to tensor<10x256xf16>
// CHECK-NEXT: %[[H:.*]] = mp.linear %[[XH]], %[[W1H]], %[[B1H]] acc(f32) : (tensor<64x784xf16>, tensor<256x784xf16>, tensor<256xf16>) -> tensor<64x256xf16>
// CHECK-NEXT: %[[R:.*]] = mp.relu %[[H]] : tensor<64x256xf16>
// CHECK-NEXT: %[[LOGITS:.*]] = mp.linear %[[R]], %[[W2H]], %[[B2]] acc(f32) : (tensor<64x256xf16>, tensor<10x256xf16>, tensor<10xf32>) -> tensor<64x10xf32>
// CHECK-NEXT: %[[LOSS:.*]] = mp.cross_entropy %[[LOGITS]], %[[LABELS]] : tensor<64x10xf32>, tensor<64xi64>
// CHECK-NEXT: %[[G:.*]]:4 = mp.grad %[[LOSS]] wrt %[[W1]], %[[B1]], %[[W2]], %[[B2]] : tensor<f32>, tensor<256x784xf32>, tensor<256xf32>, tensor<10x256xf32>, tensor<10xf32>
// CHECK-NEXT: %[[ONE:.*]] = arith.constant dense<1> : tensor<i64>
// CHECK-NEXT: %[[STEP1:.*]] = arith.addi %[[STEP]], %[[ONE]] : tensor<i64>
// CHECK-NEXT: mp.adam %[[W1]], %[[G]]#0, %{{.*}}, %{{.*}}, %[[STEP1]] {{.*}}: tensor<256x784xf32>, tensor<i64>
// CHECK-NEXT: mp.adam %[[B1]], %[[G]]#1, %{{.*}}, %{{.*}}, %[[STEP1]] {{.*}}: tensor<256xf32>, tensor<i64>
// CHECK-NEXT: mp.adam %[[W2]], %[[G]]#2, %{{.*}}, %{{.*}}, %[[STEP1]] {{.*}}: tensor<10x256xf32>, tensor<i64>
// CHECK-NEXT: mp.adam %[[B2]], %[[G]]#3, %{{.*}}, %{{.*}}, %[[STEP1]] {{.*}}: tensor<10xf32>, tensor<i64>
// CHECK-NEXT: return %[[LOSS]],
// CHECK-SAME: : tensor<f32>, tensor<256x784xf32>, tensor<256xf32>, tensor<10x256xf32>, tensor<10xf32>, tensor<256x784xf32>, tensor<256xf32>, tensor<10x256xf32>, tensor<10xf32>, tensor<256x784xf32>, tensor<256xf32>, tensor<10x256xf32>, tensor<10xf32>, tensor<i64>
