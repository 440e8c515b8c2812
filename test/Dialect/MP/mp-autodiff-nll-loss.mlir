// RUN: mp-opt %s --mp-autodiff | FileCheck %s

// nll_loss's adjoint is mp.nll_loss_grad with its reduction and ignore_index
// (derivatives.yaml: nll_loss_backward); the targets get no gradient.
// CHECK-LABEL: func.func @nll(
// CHECK-SAME:    %[[X:.*]]: tensor<4x10xf32>, %[[T:.*]]: tensor<4xi64>)
// CHECK:         %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CHECK:         %[[G:.*]] = mp.nll_loss_grad %[[ONE]], %[[T]] reduction sum {ignore_index = 2 : i64} : (tensor<f32>, tensor<4xi64>) -> tensor<4x10xf32>
// CHECK:         return %[[G]]
func.func @nll(%x: tensor<4x10xf32>, %t: tensor<4xi64>) -> tensor<4x10xf32> {
  %l = mp.nll_loss %x, %t reduction sum {ignore_index = 2 : i64} : tensor<4x10xf32>, tensor<4xi64> -> tensor<f32>
  %g = mp.grad %l wrt %x : tensor<f32>, tensor<4x10xf32>
  return %g : tensor<4x10xf32>
}

// cross_entropy's adjoint keeps ignore_index and label_smoothing.
// CHECK-LABEL: func.func @ce(
// CHECK:         mp.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} {ignore_index = 0 : i64, label_smoothing = 1.000000e-01 : f64}
func.func @ce(%x: tensor<4x10xf32>, %t: tensor<4xi64>) -> tensor<4x10xf32> {
  %l = mp.cross_entropy %x, %t {ignore_index = 0 : i64, label_smoothing = 0.1 : f64} : tensor<4x10xf32>, tensor<4xi64>
  %g = mp.grad %l wrt %x : tensor<f32>, tensor<4x10xf32>
  return %g : tensor<4x10xf32>
}
