// recipe=fp8-block on dimensions that are not multiples of 128: each operand
// ends in a partial block, as in Transformer Engine's Float8BlockScaling
// (its kernels read the missing elements as zeros and keep ceil(n / 128)
// scales): it is padded with zeros to whole blocks, quantised, and the
// GEMM's result is sliced back to the layer's shape. The hidden layer is
// 48 -> 40 on a batch of 32: x is padded along K (forward) and along the
// batch (wgrad), the weight's one 128x128 tile along both dimensions (one
// copy for the forward and dgrad GEMMs), dy along N (dgrad) and along the
// batch (wgrad). mxfp8 and nvfp4 still leave such a layer alone
// (mp-fp8-scaling-block-shapes.mlir).
// RUN: mp-opt %s --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{recipe=fp8-block})' | FileCheck %s
// RUN: mp-opt %s --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{recipe=fp8-block weight-blocks=1d})' | FileCheck %s --check-prefix=W1D

func.func @mlp3(%w1: tensor<48x8xf32> {mp.param}, %w2: tensor<40x48xf32> {mp.param},
                %w3: tensor<16x40xf32> {mp.param}, %x: tensor<32x8xf32>, %y: tensor<32xi64>)
    -> (tensor<f32> {mp.loss}, tensor<48x8xf32> {mp.updates = 0 : i64},
        tensor<40x48xf32> {mp.updates = 1 : i64}, tensor<16x40xf32> {mp.updates = 2 : i64}) {
  %h1 = mp.linear %x, %w1 acc(f32) : (tensor<32x8xf32>, tensor<48x8xf32>) -> tensor<32x48xf32>
  %h2 = mp.linear %h1, %w2 acc(f32) : (tensor<32x48xf32>, tensor<40x48xf32>) -> tensor<32x40xf32>
  %l = mp.linear %h2, %w3 acc(f32) : (tensor<32x40xf32>, tensor<16x40xf32>) -> tensor<32x16xf32>
  %loss = mp.cross_entropy %l, %y : tensor<32x16xf32>, tensor<32xi64>
  %g1, %g2, %g3 = mp.grad %loss wrt %w1, %w2, %w3
      : tensor<f32>, tensor<48x8xf32>, tensor<40x48xf32>, tensor<16x40xf32>
  %n1 = mp.sgd %w1, %g1 {lr = 0.1 : f64} : tensor<48x8xf32>
  %n2 = mp.sgd %w2, %g2 {lr = 0.1 : f64} : tensor<40x48xf32>
  %n3 = mp.sgd %w3, %g3 {lr = 0.1 : f64} : tensor<16x40xf32>
  return %loss, %n1, %n2, %n3 : tensor<f32>, tensor<48x8xf32>, tensor<40x48xf32>, tensor<16x40xf32>
}
// CHECK-LABEL: func.func @mlp3(
// CHECK-SAME:  %[[W2:[a-z0-9]+]]: tensor<40x48xf32> {mp.param}
// CHECK:       %[[A1:.*]] = mp.linear {{.*}} -> tensor<32x48xf32>
// Forward: x 1x128 along K (48 of 128), W one 128x128 tile (40x48 of it).
// CHECK-NEXT:  %[[Z1:.*]] = arith.constant dense<0.000000e+00> : tensor<32x80xf32>
// CHECK-NEXT:  %[[XP:.*]] = mp.concat %[[A1]], %[[Z1]] dim 1 : tensor<32x48xf32>, tensor<32x80xf32>
// CHECK-NEXT:  %[[XQ:.*]], %[[XS:.*]] = mp.block_quantize %[[XP]] : tensor<32x128xf32> -> tensor<32x128xf8E4M3FN>, tensor<32x1xf32>
// CHECK-NEXT:  %[[Z2:.*]] = arith.constant dense<0.000000e+00> : tensor<88x48xf32>
// CHECK-NEXT:  %[[WP0:.*]] = mp.concat %[[W2]], %[[Z2]] dim 0 : tensor<40x48xf32>, tensor<88x48xf32>
// CHECK-NEXT:  %[[Z3:.*]] = arith.constant dense<0.000000e+00> : tensor<128x80xf32>
// CHECK-NEXT:  %[[WP:.*]] = mp.concat %[[WP0]], %[[Z3]] dim 1 : tensor<128x48xf32>, tensor<128x80xf32>
// CHECK-NEXT:  %[[WQ:.*]], %[[WS:.*]] = mp.block_quantize %[[WP]] : tensor<128x128xf32> -> tensor<128x128xf8E4M3FN>, tensor<1x1xf32>
// CHECK-NEXT:  %[[Y:.*]] = mp.scaled_matmul %[[XQ]] scales %[[XS]], %[[WQ]] scales %[[WS]] transpose_rhs acc(f32) : tensor<32x128xf8E4M3FN>, tensor<32x1xf32>, tensor<128x128xf8E4M3FN>, tensor<1x1xf32> -> tensor<32x128xf32>
// CHECK-NEXT:  %[[H2:.*]] = mp.slice %[[Y]] offsets [0, 0] sizes [32, 40] strides [1, 1] : tensor<32x128xf32>
// CHECK-NEXT:  mp.linear %[[H2]]
// CHECK:       %[[DY:.*]] = mp.matmul {{.*}} -> tensor<32x40xf32>
// Dgrad: dy 1x128 along N (40 of 128), the same weight copy.
// CHECK:       %[[Z4:.*]] = arith.constant dense<0.000000e+00> : tensor<32x88xf32>
// CHECK-NEXT:  %[[DYP:.*]] = mp.concat %[[DY]], %[[Z4]] dim 1 : tensor<32x40xf32>, tensor<32x88xf32>
// CHECK-NEXT:  %[[GQ:.*]], %[[GS:.*]] = mp.block_quantize %[[DYP]] : tensor<32x128xf32> -> tensor<32x128xf8E4M3FN>, tensor<32x1xf32>
// CHECK-NEXT:  %[[DX:.*]] = mp.scaled_matmul %[[GQ]] scales %[[GS]], %[[WQ]] scales %[[WS]] acc(f32) : tensor<32x128xf8E4M3FN>, tensor<32x1xf32>, tensor<128x128xf8E4M3FN>, tensor<1x1xf32> -> tensor<32x128xf32>
// CHECK-NEXT:  %[[DXS:.*]] = mp.slice %[[DX]] offsets [0, 0] sizes [32, 48] strides [1, 1] : tensor<32x128xf32>
// Wgrad: dy and x 128x1 along the batch (32 of 128); dW needs no slice.
// CHECK-NEXT:  %[[Z5:.*]] = arith.constant dense<0.000000e+00> : tensor<96x40xf32>
// CHECK-NEXT:  %[[DYC:.*]] = mp.concat %[[DY]], %[[Z5]] dim 0 : tensor<32x40xf32>, tensor<96x40xf32>
// CHECK-NEXT:  %[[GCQ:.*]], %[[GCS:.*]] = mp.block_quantize %[[DYC]] : tensor<128x40xf32> -> tensor<128x40xf8E4M3FN>, tensor<1x40xf32>
// CHECK-NEXT:  %[[Z6:.*]] = arith.constant dense<0.000000e+00> : tensor<96x48xf32>
// CHECK-NEXT:  %[[XC:.*]] = mp.concat %[[A1]], %[[Z6]] dim 0 : tensor<32x48xf32>, tensor<96x48xf32>
// CHECK-NEXT:  %[[XCQ:.*]], %[[XCS:.*]] = mp.block_quantize %[[XC]] : tensor<128x48xf32> -> tensor<128x48xf8E4M3FN>, tensor<1x48xf32>
// CHECK-NEXT:  %[[DW:.*]] = mp.scaled_matmul %[[GCQ]] scales %[[GCS]], %[[XCQ]] scales %[[XCS]] transpose_lhs acc(f32) : tensor<128x40xf8E4M3FN>, tensor<1x40xf32>, tensor<128x48xf8E4M3FN>, tensor<1x48xf32> -> tensor<40x48xf32>
// CHECK-NEXT:  mp.matmul %[[DXS]], %{{.*}} transpose_lhs
// CHECK:       mp.sgd %[[W2]], %[[DW]]
// CHECK-NOT:   mp.scaled_matmul

// 1x128 weight blocks: W is padded along K only (forward), along N only
// (dgrad, 128x1 blocks).
// W1D-LABEL: func.func @mlp3(
// W1D:       mp.block_quantize %{{.*}} : tensor<40x128xf32> -> tensor<40x128xf8E4M3FN>, tensor<40x1xf32>
// W1D:       mp.scaled_matmul {{.*}} -> tensor<32x40xf32>
// W1D:       mp.block_quantize %{{.*}} : tensor<128x48xf32> -> tensor<128x48xf8E4M3FN>, tensor<1x48xf32>
// W1D:       mp.scaled_matmul {{.*}} -> tensor<32x48xf32>
// W1D:       mp.scaled_matmul {{.*}} -> tensor<40x48xf32>
// W1D-NOT:   mp.scaled_matmul
