// The pooling ops and their gradients round-trip: custom form, generic form,
// and print -> parse -> print is a fixed point. Defaults (stride = kernel,
// padding 0, dilation 1, count_include_pad true) are elided.
// RUN: mp-opt %s | mp-opt | FileCheck %s
// RUN: mp-opt %s -mlir-print-op-generic | mp-opt | FileCheck %s
// RUN: mp-opt %s > %t.1 && mp-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK-LABEL: func.func @max_pool
func.func @max_pool(%x: tensor<2x3x9x9xf16>, %dy: tensor<2x3x5x5xf16>,
                    %e: tensor<2x3x8x8xf32>) {
  // CHECK: mp.max_pool2d %{{.*}} kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<2x3x9x9xf16>
  %0 = mp.max_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<2x3x9x9xf16>
  // CHECK: mp.max_pool2d %{{.*}} kernel [2, 2] stride [2, 2] : tensor<2x3x8x8xf32>
  %1 = mp.max_pool2d %e kernel [2, 2] stride [2, 2] : tensor<2x3x8x8xf32>
  // CHECK: mp.max_pool2d %{{.*}} kernel [3, 2] stride [2, 3] dilation [2, 1] ceil_mode : tensor<2x3x9x9xf16>
  %2 = mp.max_pool2d %x kernel [3, 2] stride [2, 3] dilation [2, 1] ceil_mode : tensor<2x3x9x9xf16>
  // CHECK: mp.max_pool2d_grad %{{.*}}, %{{.*}} kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<2x3x5x5xf16>, tensor<2x3x9x9xf16>
  %3 = mp.max_pool2d_grad %dy, %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<2x3x5x5xf16>, tensor<2x3x9x9xf16>
  return
}

// CHECK-LABEL: func.func @avg_pool
func.func @avg_pool(%x: tensor<1x2x7x7xbf16>, %dy: tensor<1x2x4x4xbf16>,
                    %dz: tensor<1x2x3x3xbf16>) {
  // CHECK: mp.avg_pool2d %{{.*}} kernel [2, 2] ceil_mode count_include_pad false : tensor<1x2x7x7xbf16>
  %0 = mp.avg_pool2d %x kernel [2, 2] ceil_mode count_include_pad false : tensor<1x2x7x7xbf16>
  // CHECK: mp.avg_pool2d %{{.*}} kernel [3, 3] stride [2, 2] padding [1, 1] divisor 4 : tensor<1x2x7x7xbf16>
  %1 = mp.avg_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] count_include_pad true divisor 4 : tensor<1x2x7x7xbf16>
  // CHECK: mp.avg_pool2d_grad %{{.*}} kernel [2, 2] ceil_mode count_include_pad false : tensor<1x2x4x4xbf16> to tensor<1x2x7x7xbf16>
  %2 = mp.avg_pool2d_grad %dy kernel [2, 2] ceil_mode count_include_pad false : tensor<1x2x4x4xbf16> to tensor<1x2x7x7xbf16>
  // CHECK: mp.avg_pool2d_grad %{{.*}} kernel [3, 3] stride [2, 2] padding [1, 1] divisor 4 : tensor<1x2x4x4xbf16> to tensor<1x2x7x7xbf16>
  %3 = mp.avg_pool2d_grad %1 kernel [3, 3] stride [2, 2] padding [1, 1] divisor 4 : tensor<1x2x4x4xbf16> to tensor<1x2x7x7xbf16>
  // CHECK: mp.avg_pool2d %{{.*}} kernel [3, 3] stride [2, 2] : tensor<1x2x7x7xbf16>
  %4 = mp.avg_pool2d %x kernel [3, 3] stride [2, 2] : tensor<1x2x7x7xbf16>
  return
}

// CHECK-LABEL: func.func @adaptive_avg_pool
func.func @adaptive_avg_pool(%x: tensor<2x4x7x5xf32>, %dy: tensor<2x4x3x1xf32>) {
  // CHECK: mp.adaptive_avg_pool2d %{{.*}} output_size [3, 1] : tensor<2x4x7x5xf32>
  %0 = mp.adaptive_avg_pool2d %x output_size [3, 1] : tensor<2x4x7x5xf32>
  // CHECK: mp.adaptive_avg_pool2d_grad %{{.*}} : tensor<2x4x3x1xf32> to tensor<2x4x7x5xf32>
  %1 = mp.adaptive_avg_pool2d_grad %dy : tensor<2x4x3x1xf32> to tensor<2x4x7x5xf32>
  return
}
