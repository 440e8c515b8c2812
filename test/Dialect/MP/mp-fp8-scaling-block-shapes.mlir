// A layer whose GEMMs do not fit a block-scaled recipe's blocks stays in its
// precision with a warning naming the operand, the dimension and the block;
// the other layers are rewritten.
// RUN: mp-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{recipe=mxfp8 include-first-last=true})' | FileCheck %s

// The first layer's K (8) is not a multiple of 32; the second layer fits
// (K = 32, batch 32); the last one's dgrad contracts over N = 16.
func.func @mlp3(%w1: tensor<32x8xf32> {mp.param}, %w2: tensor<32x32xf32> {mp.param},
                %w3: tensor<16x32xf32> {mp.param}, %x: tensor<32x8xf32>, %y: tensor<32xi64>)
    -> (tensor<f32> {mp.loss}, tensor<32x8xf32> {mp.updates = 0 : i64},
        tensor<32x32xf32> {mp.updates = 1 : i64}, tensor<16x32xf32> {mp.updates = 2 : i64}) {
  // expected-warning @+1 {{mp-fp8-scaling: recipe=mxfp8 leaves this layer in its precision: the lhs of mp.linear dimension 1 (8) is not a multiple of the block 1x32}}
  %h1 = mp.linear %x, %w1 acc(f32) : (tensor<32x8xf32>, tensor<32x8xf32>) -> tensor<32x32xf32>
  %h2 = mp.linear %h1, %w2 acc(f32) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  // expected-warning @+1 {{mp-fp8-scaling: recipe=mxfp8 leaves this layer in its precision: the lhs of mp.matmul dimension 1 (16) is not a multiple of the block 1x32}}
  %l = mp.linear %h2, %w3 acc(f32) : (tensor<32x32xf32>, tensor<16x32xf32>) -> tensor<32x16xf32>
  %loss = mp.cross_entropy %l, %y : tensor<32x16xf32>, tensor<32xi64>
  %g1, %g2, %g3 = mp.grad %loss wrt %w1, %w2, %w3
      : tensor<f32>, tensor<32x8xf32>, tensor<32x32xf32>, tensor<16x32xf32>
  %n1 = mp.sgd %w1, %g1 {lr = 0.1 : f64} : tensor<32x8xf32>
  %n2 = mp.sgd %w2, %g2 {lr = 0.1 : f64} : tensor<32x32xf32>
  %n3 = mp.sgd %w3, %g3 {lr = 0.1 : f64} : tensor<16x32xf32>
  return %loss, %n1, %n2, %n3 : tensor<f32>, tensor<32x8xf32>, tensor<32x32xf32>, tensor<16x32xf32>
}
// CHECK-LABEL: func.func @mlp3(
// CHECK:       mp.linear %{{.*}} acc(f32) : (tensor<32x8xf32>, tensor<32x8xf32>) -> tensor<32x32xf32>
// CHECK-NEXT:  mp.block_quantize %{{.*}} : tensor<32x32xf32> -> tensor<32x32xf8E4M3FN>, tensor<32x1xf8E8M0FNU>
// CHECK:       mp.scaled_matmul
// CHECK:       mp.linear %{{.*}} acc(f32) : (tensor<32x32xf32>, tensor<16x32xf32>) -> tensor<32x16xf32>
// CHECK-COUNT-2: mp.scaled_matmul
// CHECK-NOT:   mp.scaled_matmul
// CHECK:       return
