// RUN: mp-opt %s -split-input-file -verify-diagnostics

// Negative tests of the pooling ops (MPPoolingOps.td): every verifier and
// type-inference rule of the Pooling section of lib/Dialect/MP/IR/MPOps.cpp.

// -----

// max_pool2d: the input must be NCHW.
func.func @case0(%x: tensor<3x8x8xf32>) {
  // expected-error @+1 {{'mp.max_pool2d' op expects an NCHW input of rank 4, got rank 3}}
  %0 = mp.max_pool2d %x kernel [2, 2] : tensor<3x8x8xf32>
  return
}

// -----

// max_pool2d: two kernel sizes.
func.func @case1(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mp.max_pool2d' op expects 2 kernel_size values, got 1}}
  %0 = mp.max_pool2d %x kernel [2] : tensor<1x1x8x8xf32>
  return
}

// -----

// max_pool2d: kernel sizes are positive.
func.func @case2(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mp.max_pool2d' op expects kernel_size >= 1, got [0, 2]}}
  %0 = mp.max_pool2d %x kernel [0, 2] : tensor<1x1x8x8xf32>
  return
}

// -----

// max_pool2d: two strides.
func.func @case3(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mp.max_pool2d' op expects 2 stride values, got 3}}
  %0 = mp.max_pool2d %x kernel [2, 2] stride [1, 1, 1] : tensor<1x1x8x8xf32>
  return
}

// -----

// max_pool2d: strides are positive.
func.func @case4(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mp.max_pool2d' op expects stride >= 1, got [1, 0]}}
  %0 = mp.max_pool2d %x kernel [2, 2] stride [1, 0] : tensor<1x1x8x8xf32>
  return
}

// -----

// max_pool2d: padding is not negative.
func.func @case5(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mp.max_pool2d' op expects padding >= 0, got [-1, 0]}}
  %0 = mp.max_pool2d %x kernel [2, 2] padding [-1, 0] : tensor<1x1x8x8xf32>
  return
}

// -----

// max_pool2d: dilation is positive.
func.func @case6(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mp.max_pool2d' op expects dilation >= 1, got [0, 1]}}
  %0 = mp.max_pool2d %x kernel [2, 2] dilation [0, 1] : tensor<1x1x8x8xf32>
  return
}

// -----

// max_pool2d: padding at most half the kernel size (PyTorch's rule, with the
// undilated kernel even when dilated).
func.func @case7(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mp.max_pool2d' op expects padding at most half the kernel size, got padding [2, 1] for kernel_size [3, 3]}}
  %0 = mp.max_pool2d %x kernel [3, 3] padding [2, 1] dilation [2, 2] : tensor<1x1x8x8xf32>
  return
}

// -----

// max_pool2d: at least one window per dimension.
func.func @case8(%x: tensor<1x1x2x8xf32>) {
  // expected-error @+1 {{'mp.max_pool2d' op computed output size [0, 2] is too small for the input size [2, 8]}}
  %0 = mp.max_pool2d %x kernel [3, 3] stride [1, 3] : tensor<1x1x2x8xf32>
  return
}

// -----

// max_pool2d_grad: grad_output has the input's element type.
func.func @case9(%dy: tensor<1x1x4x4xf16>, %x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mp.max_pool2d_grad' op expects grad_output of the input element type 'f32', got 'f16'}}
  %0 = mp.max_pool2d_grad %dy, %x kernel [2, 2] : tensor<1x1x4x4xf16>, tensor<1x1x8x8xf32>
  return
}

// -----

// max_pool2d_grad: grad_output has the pooled shape.
func.func @case10(%dy: tensor<1x1x4x4xf32>, %x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mp.max_pool2d_grad' op expects grad_output shape [1, 1, 5, 5], got [1, 1, 4, 4]}}
  %0 = mp.max_pool2d_grad %dy, %x kernel [2, 2] padding [1, 1] : tensor<1x1x4x4xf32>, tensor<1x1x8x8xf32>
  return
}

// -----

// max_pool2d_grad: the window rules apply.
func.func @case11(%dy: tensor<1x1x4x4xf32>, %x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mp.max_pool2d_grad' op expects padding at most half the kernel size, got padding [2, 2] for kernel_size [2, 2]}}
  %0 = mp.max_pool2d_grad %dy, %x kernel [2, 2] padding [2, 2] : tensor<1x1x4x4xf32>, tensor<1x1x8x8xf32>
  return
}

// -----

// avg_pool2d: padding at most half the kernel size.
func.func @case12(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mp.avg_pool2d' op expects padding at most half the kernel size, got padding [0, 2] for kernel_size [3, 3]}}
  %0 = mp.avg_pool2d %x kernel [3, 3] padding [0, 2] : tensor<1x1x8x8xf32>
  return
}

// -----

// avg_pool2d: a divisor_override is positive.
func.func @case13(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mp.avg_pool2d' op expects divisor_override >= 1, got 0}}
  %0 = mp.avg_pool2d %x kernel [2, 2] divisor 0 : tensor<1x1x8x8xf32>
  return
}

// -----

// avg_pool2d: the input must be NCHW.
func.func @case14(%x: tensor<8x8xf32>) {
  // expected-error @+1 {{'mp.avg_pool2d' op expects an NCHW input of rank 4, got rank 2}}
  %0 = mp.avg_pool2d %x kernel [2, 2] : tensor<8x8xf32>
  return
}

// -----

// avg_pool2d_grad: the result has grad_output's element type.
func.func @case15(%dy: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'mp.avg_pool2d_grad' op expects the result element type 'f32', got 'bf16'}}
  %0 = mp.avg_pool2d_grad %dy kernel [2, 2] : tensor<1x1x4x4xf32> to tensor<1x1x8x8xbf16>
  return
}

// -----

// avg_pool2d_grad: grad_output has the pooled shape (ceil_mode adds a window).
func.func @case16(%dy: tensor<1x1x3x3xf32>) {
  // expected-error @+1 {{'mp.avg_pool2d_grad' op expects grad_output shape [1, 1, 4, 4], got [1, 1, 3, 3]}}
  %0 = mp.avg_pool2d_grad %dy kernel [2, 2] ceil_mode : tensor<1x1x3x3xf32> to tensor<1x1x7x7xf32>
  return
}

// -----

// avg_pool2d_grad: a divisor_override is positive.
func.func @case17(%dy: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'mp.avg_pool2d_grad' op expects divisor_override >= 1, got -2}}
  %0 = mp.avg_pool2d_grad %dy kernel [2, 2] divisor -2 : tensor<1x1x4x4xf32> to tensor<1x1x8x8xf32>
  return
}

// -----

// adaptive_avg_pool2d: the input must be NCHW.
func.func @case18(%x: tensor<2x8x8x8x8xf32>) {
  // expected-error @+1 {{'mp.adaptive_avg_pool2d' op expects an NCHW input of rank 4, got rank 5}}
  %0 = mp.adaptive_avg_pool2d %x output_size [1, 1] : tensor<2x8x8x8x8xf32>
  return
}

// -----

// adaptive_avg_pool2d: two output sizes.
func.func @case19(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mp.adaptive_avg_pool2d' op expects 2 output_size values, got 1}}
  %0 = mp.adaptive_avg_pool2d %x output_size [1] : tensor<1x1x8x8xf32>
  return
}

// -----

// adaptive_avg_pool2d: output sizes are positive.
func.func @case20(%x: tensor<1x1x8x8xf32>) {
  // expected-error @+1 {{'mp.adaptive_avg_pool2d' op expects output_size >= 1, got [0, 1]}}
  %0 = mp.adaptive_avg_pool2d %x output_size [0, 1] : tensor<1x1x8x8xf32>
  return
}

// -----

// adaptive_avg_pool2d_grad: grad_output is NCHW.
func.func @case21(%dy: tensor<1x3x3xf32>) {
  // expected-error @+1 {{'mp.adaptive_avg_pool2d_grad' op expects an NCHW grad_output of rank 4, got rank 3}}
  %0 = mp.adaptive_avg_pool2d_grad %dy : tensor<1x3x3xf32> to tensor<1x1x8x8xf32>
  return
}

// -----

// adaptive_avg_pool2d_grad: the result is NCHW.
func.func @case22(%dy: tensor<1x1x3x3xf32>) {
  // expected-error @+1 {{'mp.adaptive_avg_pool2d_grad' op expects an NCHW input of rank 4, got rank 3}}
  %0 = mp.adaptive_avg_pool2d_grad %dy : tensor<1x1x3x3xf32> to tensor<1x8x8xf32>
  return
}

// -----

// adaptive_avg_pool2d_grad: batch and channels agree.
func.func @case23(%dy: tensor<1x2x3x3xf32>) {
  // expected-error @+1 {{'mp.adaptive_avg_pool2d_grad' op expects grad_output shape [1, 4, 3, 3], got [1, 2, 3, 3]}}
  %0 = mp.adaptive_avg_pool2d_grad %dy : tensor<1x2x3x3xf32> to tensor<1x4x8x8xf32>
  return
}

// -----

// adaptive_avg_pool2d_grad: the result has grad_output's element type.
func.func @case24(%dy: tensor<1x1x3x3xf16>) {
  // expected-error @+1 {{'mp.adaptive_avg_pool2d_grad' op expects the result element type 'f16', got 'f32'}}
  %0 = mp.adaptive_avg_pool2d_grad %dy : tensor<1x1x3x3xf16> to tensor<1x1x8x8xf32>
  return
}
