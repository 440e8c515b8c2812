// Numerics 2, gradient underflow. The loss is c · mean(x · wᵀ), so the true
// gradient is dW = c/32 · Σₙ x[n, :] for every row of W: with x in [0.5, 1)
// it is about 0.09·c. The forward and backward run in f16 (mp-autocast), the
// weights stay f32 masters (mp-master-weights), and SGD with lr 1 from
// w = 0 leaves w = -dW after one step, so the saved masters are the
// gradients, compared with the f32 run:
// - c = 1e-7 (dW ≈ 1e-8): the gradient reaching the f16 backward, c/32 ≈
//   3e-9, is below 2^-25 (half the smallest f16 subnormal) and rounds to 0,
//   so without loss scaling every gradient is zero; with S = 65536 they are
//   non-zero and within 1% of the f32 ones;
// - c = 1e-5 (dW ≈ 1e-6): c/32 is an f16 subnormal and loses precision
//   (more than 1% off) without scaling; S = 65536 recovers it (within 1%).
// REQUIRES: numpy

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %s.py inputs %t
// RUN: for c in tiny small; do \
// RUN:   mp-run %s --function=$c --init=zeros --data=npy:%t --steps 1 --print-every 0 --save %t/$c/f32 && \
// RUN:   mp-run %s --function=$c --init=zeros --data=npy:%t --steps 1 --print-every 0 --save %t/$c/f16 \
// RUN:       --pipeline='mp-mixed-precision-pipeline{compute-type=f16 loss-scaling=none}' && \
// RUN:   mp-run %s --function=$c --init=zeros --data=npy:%t --steps 1 --print-every 0 --save %t/$c/scaled \
// RUN:       --pipeline='mp-mixed-precision-pipeline{compute-type=f16 loss-scaling=static init-scale=65536}' \
// RUN:   || exit 1; done
// RUN: %python %s.py check %t | FileCheck %s

// CHECK: c = 1e-07: f32 |dW| in [{{.*}}e-09, {{.*}}e-08]
// CHECK-NEXT: c = 1e-07: f16 without scaling: all zero True
// CHECK-NEXT: c = 1e-07: f16 with S = 65536: all non-zero True, max relative error {{.*}}, within 1% True
// CHECK-NEXT: c = 1e-05: f32 |dW| in [{{.*}}e-07, {{.*}}e-06]
// CHECK-NEXT: c = 1e-05: f16 without scaling: max relative error {{.*}}, above 1% True
// CHECK-NEXT: c = 1e-05: f16 with S = 65536: all non-zero True, max relative error {{.*}}, within 1% True

func.func @tiny(%w: tensor<8x16xf32> {mp.param}, %x: tensor<4x16xf32>)
    -> (tensor<f32> {mp.loss}, tensor<8x16xf32> {mp.updates = 0 : i64}) {
  %y = mp.linear %x, %w acc(f32)
      : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  %c = arith.constant dense<1.0e-07> : tensor<f32>
  %mean = mp.reduce_mean %y dims [0, 1] : tensor<4x8xf32>
  %loss = mp.mul %mean, %c : tensor<f32>, tensor<f32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<8x16xf32>
  %w1 = mp.sgd %w, %g {lr = 1.0 : f64} : tensor<8x16xf32>
  return %loss, %w1 : tensor<f32>, tensor<8x16xf32>
}

func.func @small(%w: tensor<8x16xf32> {mp.param}, %x: tensor<4x16xf32>)
    -> (tensor<f32> {mp.loss}, tensor<8x16xf32> {mp.updates = 0 : i64}) {
  %y = mp.linear %x, %w acc(f32)
      : (tensor<4x16xf32>, tensor<8x16xf32>) -> tensor<4x8xf32>
  %c = arith.constant dense<1.0e-05> : tensor<f32>
  %mean = mp.reduce_mean %y dims [0, 1] : tensor<4x8xf32>
  %loss = mp.mul %mean, %c : tensor<f32>, tensor<f32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<8x16xf32>
  %w1 = mp.sgd %w, %g {lr = 1.0 : f64} : tensor<8x16xf32>
  return %loss, %w1 : tensor<f32>, tensor<8x16xf32>
}
