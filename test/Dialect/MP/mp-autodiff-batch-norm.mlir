// RUN: mp-opt %s --mp-autodiff -split-input-file | FileCheck %s

// mp.batch_norm's adjoint is one mp.batch_norm_grad (same mode and eps, the
// forward's weight and running statistics); the weight and bias gradients
// have their parameters' types, and the running statistics and the count
// have no gradient (their results feed only the state updates).
// CHECK-LABEL: func.func @batch_norm_training
// CHECK-SAME: (%[[X:[^:]*]]: tensor<8x4x5x5xf16>, %[[G:[^:]*]]: tensor<4xf32> {mp.param}, %[[B:[^:]*]]: tensor<4xf32> {mp.param}, %[[RM:[^:]*]]: tensor<4xf32> {mp.state = "bn.running_mean"}, %[[RV:[^:]*]]: tensor<4xf32> {mp.state = "bn.running_var"}, %[[N:[^:]*]]: tensor<i64> {mp.state = "bn.num_batches_tracked"})
// CHECK-NEXT: %[[Y:.*]], %[[RM1:.*]], %[[RV1:.*]], %[[N1:.*]] = mp.batch_norm %[[X]] weight %[[G]] bias %[[B]] stats(%[[RM]], %[[RV]], %[[N]]) training eps 1.000000e-03
// CHECK-NEXT: %[[L:.*]] = mp.reduce_sum %[[Y]]
// CHECK:      %[[DY:.*]] = mp.broadcast {{.*}} to tensor<8x4x5x5xf16>
// CHECK-NEXT: %{{.*}}, %[[DG:.*]], %[[DB:.*]] = mp.batch_norm_grad %[[DY]], %[[X]] weight %[[G]] stats(%[[RM]], %[[RV]]) training eps 1.000000e-03 : (tensor<8x4x5x5xf16>, tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: return %[[L]], %[[DG]], %[[DB]], %[[RM1]], %[[RV1]], %[[N1]]
func.func @batch_norm_training(%x: tensor<8x4x5x5xf16>, %g: tensor<4xf32> {mp.param}, %b: tensor<4xf32> {mp.param},
                               %rm: tensor<4xf32> {mp.state = "bn.running_mean"},
                               %rv: tensor<4xf32> {mp.state = "bn.running_var"},
                               %n: tensor<i64> {mp.state = "bn.num_batches_tracked"})
    -> (tensor<f16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>) {
  %y, %rm1, %rv1, %n1 = mp.batch_norm %x weight %g bias %b stats(%rm, %rv, %n) training eps 1.0e-3
      : (tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
      -> (tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  %l = mp.reduce_sum %y dims [0, 1, 2, 3] : tensor<8x4x5x5xf16>
  %dg, %db = mp.grad %l wrt %g, %b : tensor<f16>, tensor<4xf32>, tensor<4xf32>
  return %l, %dg, %db, %rm1, %rv1, %n1 : tensor<f16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>
}

// -----

// Eval mode without affine parameters: the input gradient only.
// CHECK-LABEL: func.func @batch_norm_eval
// CHECK-SAME: (%[[X:[^:]*]]: tensor<16x6xf32>, %[[RM:[^:]*]]: tensor<6xf32>, %[[RV:[^:]*]]: tensor<6xf32>, %[[N:[^:]*]]: tensor<i64>)
// CHECK:      %[[DX:.*]], %{{.*}}, %{{.*}} = mp.batch_norm_grad %{{.*}}, %[[X]] stats(%[[RM]], %[[RV]]) eval : (tensor<16x6xf32>, tensor<16x6xf32>, tensor<6xf32>, tensor<6xf32>) -> (tensor<16x6xf32>, tensor<6xf32>, tensor<6xf32>)
// CHECK-NEXT: return %[[DX]]
func.func @batch_norm_eval(%x: tensor<16x6xf32>, %rm: tensor<6xf32>, %rv: tensor<6xf32>, %n: tensor<i64>) -> tensor<16x6xf32> {
  %y:4 = mp.batch_norm %x stats(%rm, %rv, %n) eval
      : (tensor<16x6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<i64>)
      -> (tensor<16x6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<i64>)
  %l = mp.reduce_sum %y#0 dims [0, 1] : tensor<16x6xf32>
  %dx = mp.grad %l wrt %x : tensor<f32>, tensor<16x6xf32>
  return %dx : tensor<16x6xf32>
}

// -----

// A loss that depends on a running statistic gets no gradient through it
// (PyTorch updates the statistics under no_grad): the input gradient comes
// from the output only.
// CHECK-LABEL: func.func @statistics_no_gradient
// CHECK:      mp.batch_norm_grad
// CHECK-NOT:  mp.batch_norm_grad
func.func @statistics_no_gradient(%x: tensor<16x6xf32>, %rm: tensor<6xf32>, %rv: tensor<6xf32>, %n: tensor<i64>) -> tensor<16x6xf32> {
  %y, %rm1, %rv1, %n1 = mp.batch_norm %x stats(%rm, %rv, %n) training
      : (tensor<16x6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<i64>)
      -> (tensor<16x6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<i64>)
  %s = mp.reduce_sum %y dims [0, 1] : tensor<16x6xf32>
  %t = mp.reduce_sum %rm1 dims [0] : tensor<6xf32>
  %l = mp.add %s, %t : tensor<f32>, tensor<f32>
  %dx = mp.grad %l wrt %x : tensor<f32>, tensor<16x6xf32>
  return %dx : tensor<16x6xf32>
}
