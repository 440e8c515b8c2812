// convert-mp-to-linalg replaces mp ops only: function signatures keep their
// mp.* argument and result attributes, and ops of other dialects (here the
// step increment on tensors) stay as they are.
// RUN: mp-opt %s --convert-mp-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @train_step(
// CHECK-SAME:    %{{.*}}: tensor<4x8xf32> {mp.param},
// CHECK-SAME:    %{{.*}}: tensor<4x8xf32> {mp.state = "sgd.momentum_buffer"},
// CHECK-SAME:    %{{.*}}: tensor<i64> {mp.state = "step"},
// CHECK-SAME:    -> (tensor<4x8xf32> {mp.updates = 0 : i64}, tensor<4x8xf32> {mp.updates = 1 : i64}, tensor<i64> {mp.updates = 2 : i64})
// CHECK:         arith.addi %{{.*}}, %{{.*}} : tensor<i64>
// CHECK-NOT:     mp.sgd
// CHECK:         linalg.generic
func.func @train_step(%w: tensor<4x8xf32> {mp.param},
                      %buf: tensor<4x8xf32> {mp.state = "sgd.momentum_buffer"},
                      %step: tensor<i64> {mp.state = "step"},
                      %g: tensor<4x8xf32>)
    -> (tensor<4x8xf32> {mp.updates = 0 : i64}, tensor<4x8xf32> {mp.updates = 1 : i64},
        tensor<i64> {mp.updates = 2 : i64}) {
  %one = arith.constant dense<1> : tensor<i64>
  %step1 = arith.addi %step, %one : tensor<i64>
  %w1, %buf1 = mp.sgd %w, %g momentum_buffer %buf {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  return %w1, %buf1, %step1 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<i64>
}
