// RUN: mp-opt %s --mp-autocast="compute-type=f16" | FileCheck %s

// nll_loss follows PyTorch's CUDA autocast fp32 list (as cross_entropy): an
// f16 input is cast to f32 first (its f16 result type is restored by a cast
// of the f32 result, which the canonicalizer keeps). clip_grad_norm is exempt: autocast leaves
// it in the type its gradients arrive in.
// CHECK-LABEL: func.func @f(
// CHECK-SAME:    %[[LP:.*]]: tensor<4x10xf16>, %[[T:.*]]: tensor<4xi64>, %[[G:.*]]: tensor<10x8xf16>)
// CHECK:         %[[W:.*]] = mp.cast %[[LP]] : tensor<4x10xf16> to tensor<4x10xf32>
// CHECK-NEXT:    %[[N:.*]] = mp.nll_loss %[[W]], %[[T]] : tensor<4x10xf32>, tensor<4xi64> -> tensor<f32>
// CHECK-NEXT:    %{{.*}} = mp.cast %[[N]] : tensor<f32> to tensor<f16>
// CHECK:         %{{.*}}, %{{.*}} = mp.clip_grad_norm %[[G]] max_norm 1.000000e+00 : tensor<10x8xf16>
func.func @f(%lp: tensor<4x10xf16>, %t: tensor<4xi64>, %g: tensor<10x8xf16>) -> (tensor<f32>, tensor<10x8xf16>, tensor<f32>) {
  %n = mp.nll_loss %lp, %t : tensor<4x10xf16>, tensor<4xi64> -> tensor<f16>
  %n32 = mp.cast %n : tensor<f16> to tensor<f32>
  %c, %norm = mp.clip_grad_norm %g max_norm 1.0 : tensor<10x8xf16>
  return %n32, %c, %norm : tensor<f32>, tensor<10x8xf16>, tensor<f32>
}
