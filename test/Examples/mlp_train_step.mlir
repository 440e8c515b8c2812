// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir | FileCheck %s
// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir | mp-opt | FileCheck %s
// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir | FileCheck %s --check-prefix=COUNT
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME:   %arg0: tensor<256x784xf32> {mp.param},
// CHECK-SAME:   %arg1: tensor<256xf32> {mp.param},
// CHECK-SAME:   %arg2: tensor<10x256xf32> {mp.param},
// CHECK-SAME:   %arg3: tensor<10xf32> {mp.param},
// CHECK-SAME:   %arg4: tensor<256x784xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg5: tensor<256xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg6: tensor<10x256xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg7: tensor<10xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg8: tensor<256x784xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg9: tensor<256xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg10: tensor<10x256xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg11: tensor<10xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg12: tensor<i64> {mp.state = "step"},
// CHECK-SAME:   %arg13: tensor<64x784xf32>,
// CHECK-SAME:   %arg14: tensor<64xi64>)
// CHECK-SAME:   -> (tensor<f32> {mp.loss},
// CHECK-SAME:   tensor<256x784xf32> {mp.updates = 0 : i64},
// CHECK-SAME:   tensor<256xf32> {mp.updates = 1 : i64},
// CHECK-SAME:   tensor<10x256xf32> {mp.updates = 2 : i64},
// CHECK-SAME:   tensor<10xf32> {mp.updates = 3 : i64},
// CHECK-SAME:   tensor<256x784xf32> {mp.updates = 4 : i64},
// CHECK-SAME:   tensor<256xf32> {mp.updates = 5 : i64},
// CHECK-SAME:   tensor<10x256xf32> {mp.updates = 6 : i64},
// CHECK-SAME:   tensor<10xf32> {mp.updates = 7 : i64},
// CHECK-SAME:   tensor<256x784xf32> {mp.updates = 8 : i64},
// CHECK-SAME:   tensor<256xf32> {mp.updates = 9 : i64},
// CHECK-SAME:   tensor<10x256xf32> {mp.updates = 10 : i64},
// CHECK-SAME:   tensor<10xf32> {mp.updates = 11 : i64},
// CHECK-SAME:   tensor<i64> {mp.updates = 12 : i64}) {
// CHECK:        %[[H0:[a-z0-9_]+]] = mp.linear %arg13, %arg0, %arg1 acc(f32) : (tensor<64x784xf32>, tensor<256x784xf32>, tensor<256xf32>) -> tensor<64x256xf32>
// CHECK:        %[[H:[a-z0-9_]+]] = mp.relu %[[H0]] : tensor<64x256xf32>
// CHECK:        %[[LOGITS:[a-z0-9_]+]] = mp.linear %[[H]], %arg2, %arg3 acc(f32) : (tensor<64x256xf32>, tensor<10x256xf32>, tensor<10xf32>) -> tensor<64x10xf32>
// CHECK:        %[[LOSS:[a-z0-9_]+]] = mp.cross_entropy %[[LOGITS]], %arg14 : tensor<64x10xf32>, tensor<64xi64>
// CHECK:        %[[G:[a-z0-9_]+]]:4 = mp.grad %[[LOSS]] wrt %arg0, %arg1, %arg2, %arg3 : tensor<f32>, tensor<256x784xf32>, tensor<256xf32>, tensor<10x256xf32>, tensor<10xf32>
// CHECK:        %[[ONE:[a-z0-9_]+]] = arith.constant dense<1> : tensor<i64>
// CHECK:        %[[STEP:[a-z0-9_]+]] = arith.addi %arg12, %[[ONE]] : tensor<i64>
// CHECK:        %[[W1:[a-z0-9_]+]], %[[MW1:[a-z0-9_]+]], %[[VW1:[a-z0-9_]+]] = mp.adam %arg0, %[[G]]#0, %arg4, %arg8, %[[STEP]] {lr = 1.000000e-03 : f64} : tensor<256x784xf32>, tensor<i64>
// CHECK:        %[[B1:[a-z0-9_]+]], %[[MB1:[a-z0-9_]+]], %[[VB1:[a-z0-9_]+]] = mp.adam %arg1, %[[G]]#1, %arg5, %arg9, %[[STEP]] {lr = 1.000000e-03 : f64} : tensor<256xf32>, tensor<i64>
// CHECK:        %[[W2:[a-z0-9_]+]], %[[MW2:[a-z0-9_]+]], %[[VW2:[a-z0-9_]+]] = mp.adam %arg2, %[[G]]#2, %arg6, %arg10, %[[STEP]] {lr = 1.000000e-03 : f64} : tensor<10x256xf32>, tensor<i64>
// CHECK:        %[[B2:[a-z0-9_]+]], %[[MB2:[a-z0-9_]+]], %[[VB2:[a-z0-9_]+]] = mp.adam %arg3, %[[G]]#3, %arg7, %arg11, %[[STEP]] {lr = 1.000000e-03 : f64} : tensor<10xf32>, tensor<i64>
// CHECK-NOT:    mp.adam
// CHECK:        return %[[LOSS]], %[[W1]], %[[B1]], %[[W2]], %[[B2]], %[[MW1]], %[[MB1]], %[[MW2]], %[[MB2]], %[[VW1]], %[[VB1]], %[[VW2]], %[[VB2]], %[[STEP]]
// CHECK-SAME:   : tensor<f32>, tensor<256x784xf32>, tensor<256xf32>, tensor<10x256xf32>, tensor<10xf32>, tensor<256x784xf32>, tensor<256xf32>, tensor<10x256xf32>, tensor<10xf32>, tensor<256x784xf32>, tensor<256xf32>, tensor<10x256xf32>, tensor<10xf32>, tensor<i64>
// COUNT:        mp.grad
// COUNT-COUNT-4: {{= mp\.adam }}
// COUNT-NOT:    {{mp\.adamw? }}
// COUNT:        return
