// Every mp op round-trips: custom form, generic form, and print -> parse ->
// print is a fixed point.
// RUN: mp-opt %s | mp-opt | FileCheck %s
// RUN: mp-opt %s -mlir-print-op-generic | mp-opt | FileCheck %s
// RUN: mp-opt %s -mlir-print-op-generic | mp-opt -mlir-print-op-generic > %t.generic
// RUN: mp-opt %s -mlir-print-op-generic | diff - %t.generic
// RUN: mp-opt %s > %t.1 && mp-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK-LABEL: func.func @linear_algebra
func.func @linear_algebra(%a: tensor<64x784xf16>, %w: tensor<256x784xf16>,
                          %b: tensor<256xf16>, %f: tensor<8x32xf32>,
                          %e4: tensor<16x32xf8E4M3FN>, %e5: tensor<32x8xf8E5M2>,
                          %i: tensor<16x32xi8>, %j: tensor<32x8xi8>,
                          %q: tensor<2x4x16x8xbf16>, %k: tensor<2x4x16x8xbf16>,
                          %x: tensor<8x3x32x32xf16>, %filt: tensor<16x3x3x3xf16>,
                          %cb: tensor<16xf32>) {
  // CHECK: mp.matmul %{{.*}}, %{{.*}} transpose_rhs acc(f32) : tensor<64x784xf16>, tensor<256x784xf16> -> tensor<64x256xf16>
  %0 = mp.matmul %a, %w transpose_rhs acc(f32) : tensor<64x784xf16>, tensor<256x784xf16> -> tensor<64x256xf16>
  // CHECK: mp.matmul %{{.*}}, %{{.*}} transpose_lhs acc(f16) : tensor<64x784xf16>, tensor<64x256xf16> -> tensor<784x256xf16>
  %1 = mp.matmul %a, %0 transpose_lhs acc(f16) : tensor<64x784xf16>, tensor<64x256xf16> -> tensor<784x256xf16>
  // CHECK: mp.matmul %{{.*}}, %{{.*}} transpose_lhs acc(f32) compute tf32 : tensor<8x32xf32>, tensor<8x32xf32> -> tensor<32x32xf32>
  %2 = mp.matmul %f, %f transpose_lhs acc(f32) compute tf32 : tensor<8x32xf32>, tensor<8x32xf32> -> tensor<32x32xf32>
  // CHECK: mp.matmul %{{.*}}, %{{.*}} acc(f32) : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E5M2> -> tensor<16x8xbf16>
  %3 = mp.matmul %e4, %e5 acc(f32) : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E5M2> -> tensor<16x8xbf16>
  // CHECK: mp.matmul %{{.*}}, %{{.*}} acc(i32) : tensor<16x32xi8>, tensor<32x8xi8> -> tensor<16x8xi32>
  %4 = mp.matmul %i, %j acc(i32) : tensor<16x32xi8>, tensor<32x8xi8> -> tensor<16x8xi32>
  // CHECK: mp.batch_matmul %{{.*}}, %{{.*}} transpose_rhs acc(f32) : tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16> -> tensor<2x4x16x16xf32>
  %5 = mp.batch_matmul %q, %k transpose_rhs acc(f32) : tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16> -> tensor<2x4x16x16xf32>
  // CHECK: mp.linear %{{.*}}, %{{.*}}, %{{.*}} acc(f32) : (tensor<64x784xf16>, tensor<256x784xf16>, tensor<256xf16>) -> tensor<64x256xf16>
  %6 = mp.linear %a, %w, %b acc(f32) : (tensor<64x784xf16>, tensor<256x784xf16>, tensor<256xf16>) -> tensor<64x256xf16>
  // CHECK: mp.linear %{{.*}}, %{{.*}} acc(f32) : (tensor<64x784xf16>, tensor<256x784xf16>) -> tensor<64x256xf32>
  %7 = mp.linear %a, %w acc(f32) : (tensor<64x784xf16>, tensor<256x784xf16>) -> tensor<64x256xf32>
  // CHECK: mp.conv2d %{{.*}}, %{{.*}} acc(f32) {padding = array<i64: 1, 1>} : (tensor<8x3x32x32xf16>, tensor<16x3x3x3xf16>) -> tensor<8x16x32x32xf16>
  %8 = mp.conv2d %x, %filt acc(f32) {padding = array<i64: 1, 1>} : (tensor<8x3x32x32xf16>, tensor<16x3x3x3xf16>) -> tensor<8x16x32x32xf16>
  // CHECK: mp.conv2d %{{.*}}, %{{.*}}, %{{.*}} acc(f32) {dilation = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<8x3x32x32xf16>, tensor<16x3x3x3xf16>, tensor<16xf32>) -> tensor<8x16x14x14xf32>
  %9 = mp.conv2d %x, %filt, %cb acc(f32) {strides = array<i64: 2, 2>, dilation = array<i64: 2, 2>, groups = 1 : i64} : (tensor<8x3x32x32xf16>, tensor<16x3x3x3xf16>, tensor<16xf32>) -> tensor<8x16x14x14xf32>
  return
}

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%a: tensor<4x8xf32>, %b: tensor<8xf32>, %c: tensor<4x1xf32>,
                       %s: tensor<f32>, %h: tensor<4x8xbf16>) {
  // CHECK: mp.add %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>
  %0 = mp.add %a, %b : tensor<4x8xf32>, tensor<8xf32>
  // CHECK: mp.sub %{{.*}}, %{{.*}} : tensor<4x1xf32>, tensor<8xf32>
  %1 = mp.sub %c, %b : tensor<4x1xf32>, tensor<8xf32>
  // CHECK: mp.mul %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<f32>
  %2 = mp.mul %a, %s : tensor<4x8xf32>, tensor<f32>
  // CHECK: mp.div %{{.*}}, %{{.*}} : tensor<f32>, tensor<4x8xf32>
  %3 = mp.div %s, %a : tensor<f32>, tensor<4x8xf32>
  // CHECK: mp.pow %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>
  %4 = mp.pow %a, %a : tensor<4x8xf32>, tensor<4x8xf32>
  // CHECK: mp.maximum %{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<4x8xbf16>
  %5 = mp.maximum %h, %h : tensor<4x8xbf16>, tensor<4x8xbf16>
  // CHECK: mp.minimum %{{.*}}, %{{.*}} : tensor<4x1xf32>, tensor<8xf32>
  %6 = mp.minimum %c, %b : tensor<4x1xf32>, tensor<8xf32>
  // CHECK: mp.neg %{{.*}} : tensor<4x8xf32>
  %7 = mp.neg %a : tensor<4x8xf32>
  // CHECK: mp.relu %{{.*}} : tensor<4x8xbf16>
  %8 = mp.relu %h : tensor<4x8xbf16>
  // CHECK: mp.tanh %{{.*}} : tensor<4x8xf32>
  %9 = mp.tanh %a : tensor<4x8xf32>
  // CHECK: mp.sigmoid %{{.*}} : tensor<4x8xf32>
  %10 = mp.sigmoid %a : tensor<4x8xf32>
  // CHECK: mp.exp %{{.*}} : tensor<4x8xf32>
  %11 = mp.exp %a : tensor<4x8xf32>
  // CHECK: mp.log %{{.*}} : tensor<4x8xf32>
  %12 = mp.log %a : tensor<4x8xf32>
  // CHECK: mp.sqrt %{{.*}} : tensor<4x8xf32>
  %13 = mp.sqrt %a : tensor<4x8xf32>
  // CHECK: mp.rsqrt %{{.*}} : tensor<4x8xf32>
  %14 = mp.rsqrt %a : tensor<4x8xf32>
  // CHECK: mp.gelu %{{.*}} : tensor<4x8xf32>
  %15 = mp.gelu %a : tensor<4x8xf32>
  // CHECK: mp.gelu %{{.*}} approximate tanh : tensor<4x8xbf16>
  %16 = mp.gelu %h approximate tanh : tensor<4x8xbf16>
  return
}

// CHECK-LABEL: func.func @reductions_and_normalization
func.func @reductions_and_normalization(%x: tensor<2x8x64xf32>, %g: tensor<64xf32>,
                                        %b: tensor<64xf32>, %g2: tensor<8x64xf32>) {
  // CHECK: mp.reduce_sum %{{.*}} dims [1] keepdims : tensor<2x8x64xf32>
  %0 = mp.reduce_sum %x dims [1] keepdims : tensor<2x8x64xf32>
  // CHECK: mp.reduce_mean %{{.*}} dims [2, 0] : tensor<2x8x64xf32>
  %1 = mp.reduce_mean %x dims [2, 0] : tensor<2x8x64xf32>
  // CHECK: mp.reduce_max %{{.*}} dims [] : tensor<2x8x64xf32>
  %2 = mp.reduce_max %x dims [] : tensor<2x8x64xf32>
  // CHECK: mp.softmax %{{.*}} dim 2 : tensor<2x8x64xf32>
  %3 = mp.softmax %x dim 2 : tensor<2x8x64xf32>
  // CHECK: mp.log_softmax %{{.*}} dim 0 : tensor<2x8x64xf32>
  %4 = mp.log_softmax %x dim 0 : tensor<2x8x64xf32>
  // CHECK: mp.layer_norm %{{.*}} weight %{{.*}} bias %{{.*}} axis 2 eps 1.000000e-05 : (tensor<2x8x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x8x64xf32>
  %5 = mp.layer_norm %x weight %g bias %b axis 2 eps 1.0e-05 : (tensor<2x8x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x8x64xf32>
  // CHECK: mp.layer_norm %{{.*}} axis 1 eps 1.000000e-03 : (tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  %6 = mp.layer_norm %x axis 1 eps 1.0e-03 : (tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  // CHECK: mp.layer_norm %{{.*}} bias %{{.*}} axis 1 eps 1.000000e-03 : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  %7 = mp.layer_norm %x bias %g2 axis 1 eps 1.0e-03 : (tensor<2x8x64xf32>, tensor<8x64xf32>) -> tensor<2x8x64xf32>
  // CHECK: mp.rms_norm %{{.*}} weight %{{.*}} axis 2 eps 9.9999999999999995E-7 : (tensor<2x8x64xf32>, tensor<64xf32>) -> tensor<2x8x64xf32>
  %8 = mp.rms_norm %x weight %g axis 2 eps 1.0e-06 : (tensor<2x8x64xf32>, tensor<64xf32>) -> tensor<2x8x64xf32>
  // CHECK: mp.rms_norm %{{.*}} axis 0 eps 0.000000e+00 : (tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  %9 = mp.rms_norm %x axis 0 eps 0.0 : (tensor<2x8x64xf32>) -> tensor<2x8x64xf32>
  return
}

// CHECK-LABEL: func.func @shape
func.func @shape(%x: tensor<4x8xf32>, %y: tensor<4x2xf32>, %t: tensor<1000x64xbf16>,
                 %ids: tensor<2x16xi64>, %ids32: tensor<7xi32>) {
  // CHECK: mp.transpose %{{.*}} perm [1, 0] : tensor<4x8xf32>
  %0 = mp.transpose %x perm [1, 0] : tensor<4x8xf32>
  // CHECK: mp.reshape %{{.*}} : tensor<4x8xf32> to tensor<2x16xf32>
  %1 = mp.reshape %x : tensor<4x8xf32> to tensor<2x16xf32>
  // CHECK: mp.broadcast %{{.*}} : tensor<4x8xf32> to tensor<3x4x8xf32>
  %2 = mp.broadcast %x : tensor<4x8xf32> to tensor<3x4x8xf32>
  // CHECK: mp.concat %{{.*}}, %{{.*}}, %{{.*}} dim 1 : tensor<4x8xf32>, tensor<4x2xf32>, tensor<4x8xf32>
  %3 = mp.concat %x, %y, %x dim 1 : tensor<4x8xf32>, tensor<4x2xf32>, tensor<4x8xf32>
  // CHECK: mp.slice %{{.*}} offsets [0, 2] sizes [4, 3] strides [1, 2] : tensor<4x8xf32>
  %4 = mp.slice %x offsets [0, 2] sizes [4, 3] strides [1, 2] : tensor<4x8xf32>
  // CHECK: mp.embedding %{{.*}}[%{{.*}}] : tensor<1000x64xbf16>, tensor<2x16xi64>
  %5 = mp.embedding %t[%ids] : tensor<1000x64xbf16>, tensor<2x16xi64>
  // CHECK: mp.embedding %{{.*}}[%{{.*}}] : tensor<1000x64xbf16>, tensor<7xi32>
  %6 = mp.embedding %t[%ids32] : tensor<1000x64xbf16>, tensor<7xi32>
  return
}

// CHECK-LABEL: func.func @losses
func.func @losses(%logits: tensor<64x10xf32>, %labels: tensor<64xi64>,
                  %p: tensor<64x1xf16>) -> (tensor<f32>, tensor<f16>) {
  // CHECK: mp.cross_entropy %{{.*}}, %{{.*}} : tensor<64x10xf32>, tensor<64xi64>
  %0 = mp.cross_entropy %logits, %labels : tensor<64x10xf32>, tensor<64xi64>
  // CHECK: mp.mse %{{.*}}, %{{.*}} : tensor<64x1xf16>
  %1 = mp.mse %p, %p : tensor<64x1xf16>
  return %0, %1 : tensor<f32>, tensor<f16>
}

// CHECK-LABEL: func.func @backward
func.func @backward(%dy: tensor<4x8xf32>, %x: tensor<4x8xf32>, %b: tensor<8xf32>,
                    %r: tensor<4xf32>, %n: tensor<8x64xf32>, %g: tensor<64xf32>,
                    %dl: tensor<f32>, %logits: tensor<64x10xf32>, %labels: tensor<64xi64>,
                    %cdy: tensor<8x16x32x32xf32>, %cw: tensor<16x3x3x3xf32>,
                    %cx: tensor<8x3x32x32xf32>, %sdy: tensor<4x3xf32>,
                    %edy: tensor<2x16x64xf32>, %ids: tensor<2x16xi64>) {
  // CHECK: mp.relu_grad %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %0 = mp.relu_grad %dy, %x : tensor<4x8xf32>
  // CHECK: mp.gelu_grad %{{.*}}, %{{.*}} : tensor<4x8xf32>
  %1 = mp.gelu_grad %dy, %x : tensor<4x8xf32>
  // CHECK: mp.gelu_grad %{{.*}}, %{{.*}} approximate tanh : tensor<4x8xf32>
  %2 = mp.gelu_grad %dy, %x approximate tanh : tensor<4x8xf32>
  // CHECK: mp.maximum_grad %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>
  %3:2 = mp.maximum_grad %dy, %x, %b : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>
  // CHECK: mp.minimum_grad %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>
  %4:2 = mp.minimum_grad %dy, %b, %x : tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>
  // CHECK: mp.reduce_max_grad %{{.*}}, %{{.*}}, %{{.*}} dims [1] : tensor<4xf32>, tensor<4x8xf32>
  %5 = mp.reduce_max_grad %r, %x, %r dims [1] : tensor<4xf32>, tensor<4x8xf32>
  // CHECK: mp.softmax_grad %{{.*}}, %{{.*}} dim 1 : tensor<4x8xf32>
  %6 = mp.softmax_grad %dy, %x dim 1 : tensor<4x8xf32>
  // CHECK: mp.log_softmax_grad %{{.*}}, %{{.*}} dim 1 : tensor<4x8xf32>
  %7 = mp.log_softmax_grad %dy, %x dim 1 : tensor<4x8xf32>
  // CHECK: mp.layer_norm_grad %{{.*}}, %{{.*}} weight %{{.*}} axis 1 eps 1.000000e-05 : (tensor<8x64xf32>, tensor<8x64xf32>, tensor<64xf32>) -> (tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>)
  %8:3 = mp.layer_norm_grad %n, %n weight %g axis 1 eps 1.0e-05 : (tensor<8x64xf32>, tensor<8x64xf32>, tensor<64xf32>) -> (tensor<8x64xf32>, tensor<64xf32>, tensor<64xf32>)
  // CHECK: mp.rms_norm_grad %{{.*}}, %{{.*}} axis 1 eps 9.9999999999999995E-7 : (tensor<8x64xf32>, tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<64xf32>)
  %9:2 = mp.rms_norm_grad %n, %n axis 1 eps 1.0e-06 : (tensor<8x64xf32>, tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<64xf32>)
  // CHECK: mp.cross_entropy_grad %{{.*}}, %{{.*}}, %{{.*}} : (tensor<f32>, tensor<64x10xf32>, tensor<64xi64>) -> tensor<64x10xf32>
  %10 = mp.cross_entropy_grad %dl, %logits, %labels : (tensor<f32>, tensor<64x10xf32>, tensor<64xi64>) -> tensor<64x10xf32>
  // CHECK: mp.conv2d_grad_input %{{.*}}, %{{.*}} acc(f32) {padding = array<i64: 1, 1>} : (tensor<8x16x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x3x32x32xf32>
  %11 = mp.conv2d_grad_input %cdy, %cw acc(f32) {padding = array<i64: 1, 1>} : (tensor<8x16x32x32xf32>, tensor<16x3x3x3xf32>) -> tensor<8x3x32x32xf32>
  // CHECK: mp.conv2d_grad_filter %{{.*}}, %{{.*}} acc(f32) {padding = array<i64: 1, 1>} : (tensor<8x16x32x32xf32>, tensor<8x3x32x32xf32>) -> tensor<16x3x3x3xf32>
  %12 = mp.conv2d_grad_filter %cdy, %cx acc(f32) {padding = array<i64: 1, 1>} : (tensor<8x16x32x32xf32>, tensor<8x3x32x32xf32>) -> tensor<16x3x3x3xf32>
  // CHECK: mp.slice_grad %{{.*}} offsets [0, 2] sizes [4, 3] strides [1, 2] : tensor<4x3xf32> to tensor<4x8xf32>
  %13 = mp.slice_grad %sdy offsets [0, 2] sizes [4, 3] strides [1, 2] : tensor<4x3xf32> to tensor<4x8xf32>
  // CHECK: mp.embedding_grad %{{.*}}, %{{.*}} : (tensor<2x16x64xf32>, tensor<2x16xi64>) -> tensor<1000x64xf32>
  %14 = mp.embedding_grad %edy, %ids : (tensor<2x16x64xf32>, tensor<2x16xi64>) -> tensor<1000x64xf32>
  return
}

// CHECK-LABEL: func.func @precision
func.func @precision(%x: tensor<4x8xf32>, %s: tensor<f32>, %t: tensor<i32>,
                     %inf: tensor<i1>, %hist: tensor<1024xf32>, %h: tensor<4x8xbf16>) {
  // CHECK: mp.cast %{{.*}} : tensor<4x8xf32> to tensor<4x8xf16>
  %0 = mp.cast %x : tensor<4x8xf32> to tensor<4x8xf16>
  // CHECK: mp.cast %{{.*}} saturate : tensor<4x8xf32> to tensor<4x8xf8E4M3FN>
  %1 = mp.cast %x saturate : tensor<4x8xf32> to tensor<4x8xf8E4M3FN>
  // CHECK: mp.cast %{{.*}} : tensor<4x8xf16> to tensor<4x8xf8E5M2>
  %2 = mp.cast %0 : tensor<4x8xf16> to tensor<4x8xf8E5M2>
  // CHECK: mp.scale %{{.*}} by %{{.*}} : tensor<4x8xbf16>
  %3 = mp.scale %h by %s : tensor<4x8xbf16>
  // CHECK: mp.all_finite %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xbf16>
  %4 = mp.all_finite %x, %h : tensor<4x8xf32>, tensor<4x8xbf16>
  // CHECK: mp.update_loss_scale %{{.*}}, %{{.*}}, %{{.*}}{{$}}
  %5:2 = mp.update_loss_scale %s, %t, %inf
  // CHECK: mp.update_loss_scale %{{.*}}, %{{.*}}, %{{.*}} hysteresis_tracker %{{.*}} {growth_interval = 100 : i64, hysteresis = 2 : i64, max_scale = 1.677720e+07 : f64, min_scale = 1.000000e+00 : f64}
  %6:3 = mp.update_loss_scale %s, %t, %inf hysteresis_tracker %t {growth_interval = 100 : i64, hysteresis = 2 : i64, min_scale = 1.0 : f64, max_scale = 16777200.0 : f64}
  // CHECK: mp.update_loss_scale %{{.*}}, %{{.*}}, %{{.*}} {backoff_factor = 2.500000e-01 : f64, growth_factor = 4.000000e+00 : f64}
  %7:2 = mp.update_loss_scale %s, %t, %inf {growth_factor = 4.0 : f64, backoff_factor = 0.25 : f64}
  // CHECK: mp.amax %{{.*}} : tensor<4x8xbf16>
  %8 = mp.amax %h : tensor<4x8xbf16>
  // CHECK: mp.amax_history_push %{{.*}}, %{{.*}} : tensor<1024xf32>
  %9 = mp.amax_history_push %hist, %8 : tensor<1024xf32>
  // CHECK: mp.fp8_scale %{{.*}}, %{{.*}} format e4m3 : tensor<1024xf32>
  %10 = mp.fp8_scale %9, %s format e4m3 : tensor<1024xf32>
  // CHECK: mp.fp8_scale %{{.*}}, %{{.*}} format e5m2 amax_compute most_recent {margin = 1 : i64} : tensor<1024xf32>
  %11 = mp.fp8_scale %9, %s format e5m2 amax_compute most_recent {margin = 1 : i64} : tensor<1024xf32>
  // CHECK: mp.fp8_scale %{{.*}}, %{{.*}} format e4m3 amax_epsilon(9.9999999999999998E-13) power_of_two : tensor<1024xf32>
  %fp8_current = mp.fp8_scale %9, %s format e4m3 amax_epsilon(1.0e-12) power_of_two : tensor<1024xf32>
  return
}

// CHECK-LABEL: func.func @training
func.func @training(%w: tensor<256x784xf32> {mp.param}, %b: tensor<256xf32> {mp.param},
                    %m: tensor<256xf32> {mp.state = "adam.exp_avg"},
                    %v: tensor<256xf32> {mp.state = "adam.exp_avg_sq"},
                    %step: tensor<i64> {mp.state = "step"}, %x: tensor<64x784xf32>,
                    %labels: tensor<64xi64>)
    -> (tensor<f32> {mp.loss}, tensor<256xf32> {mp.updates = 1 : i64}) {
  %h = mp.linear %x, %w, %b acc(f32) : (tensor<64x784xf32>, tensor<256x784xf32>, tensor<256xf32>) -> tensor<64x256xf32>
  %s = mp.slice %h offsets [0, 0] sizes [64, 10] strides [1, 1] : tensor<64x256xf32>
  %loss = mp.cross_entropy %s, %labels : tensor<64x10xf32>, tensor<64xi64>
  // CHECK: %[[G:.*]]:2 = mp.grad %{{.*}} wrt %{{.*}}, %{{.*}} : tensor<f32>, tensor<256x784xf32>, tensor<256xf32>
  %dw, %db = mp.grad %loss wrt %w, %b : tensor<f32>, tensor<256x784xf32>, tensor<256xf32>
  // CHECK: mp.sgd %{{.*}}, %[[G]]#0 {lr = 1.000000e-01 : f64} : tensor<256x784xf32>
  %w1 = mp.sgd %w, %dw {lr = 0.1 : f64} : tensor<256x784xf32>
  // CHECK: mp.sgd %{{.*}}, %[[G]]#1 momentum_buffer %{{.*}} {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64, nesterov, weight_decay = 1.000000e-04 : f64} : tensor<256xf32>, tensor<256xf32>
  %b1, %buf = mp.sgd %b, %db momentum_buffer %m {lr = 0.1 : f64, momentum = 0.9 : f64, nesterov, weight_decay = 1.0e-4 : f64} : tensor<256xf32>, tensor<256xf32>
  // CHECK: mp.adam %{{.*}}, %[[G]]#1, %{{.*}}, %{{.*}}, %{{.*}} : tensor<256xf32>, tensor<i64>
  %b2, %m2, %v2 = mp.adam %b, %db, %m, %v, %step : tensor<256xf32>, tensor<i64>
  // CHECK: mp.adamw %{{.*}}, %[[G]]#1, %{{.*}}, %{{.*}}, %{{.*}} {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64} : tensor<256xf32>, tensor<i64>
  %b3, %m3, %v3 = mp.adamw %b, %db, %m, %v, %step {lr = 3.0e-4 : f64, beta2 = 0.95 : f64} : tensor<256xf32>, tensor<i64>
  // CHECK: mp.adamw {{.*}} {weight_decay = 0.000000e+00 : f64}
  %b4, %m4, %v4 = mp.adamw %b, %db, %m, %v, %step {weight_decay = 0.0 : f64} : tensor<256xf32>, tensor<i64>
  // CHECK: return
  return %loss, %b2 : tensor<f32>, tensor<256xf32>
}
