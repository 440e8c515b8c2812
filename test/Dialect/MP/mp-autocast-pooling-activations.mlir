// mp-autocast's defaults for the ops of MPPoolingOps.td and
// MPActivationOps.td: pooling, clamp, the activations, erf and stop_gradient
// are clear (in none of PyTorch's CUDA autocast lists: they run in the type
// that arrives), select and compare promote their float operands to the
// widest type (as torch.where and comparisons do), and the backward ops
// follow their forwards.
// RUN: mp-opt %s --mp-autocast | FileCheck %s
// RUN: mp-opt %s --mp-precision-report 2>&1 | FileCheck %s --check-prefix=REPORT

// REPORT-LABEL: mp-precision-report @clear
// REPORT-NEXT: op
// REPORT-NEXT: mp.clamp                 clear    f16
// REPORT-NEXT: mp.max_pool2d            clear    f16
// REPORT-NEXT: mp.avg_pool2d            clear    f16
// REPORT-NEXT: mp.adaptive_avg_pool2d   clear    f16
// REPORT-NEXT: mp.silu                  clear    f16
// REPORT-NEXT: mp.hardswish             clear    f16
// REPORT-NEXT: mp.hardsigmoid           clear    f16
// REPORT-NEXT: mp.leaky_relu            clear    f16
// REPORT-NEXT: mp.erf                   clear    f16
// REPORT-NEXT: mp.abs                   clear    f16
// REPORT-NEXT: mp.stop_gradient         clear    f16
// CHECK-LABEL: func.func @clear
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8x8xf16>)
// CHECK-NEXT: %[[C:.*]] = mp.clamp %[[X]] min 0.000000e+00 max 6.000000e+00 hardtanh : tensor<2x4x8x8xf16>
// CHECK-NEXT: %[[M:.*]] = mp.max_pool2d %[[C]] kernel [2, 2] : tensor<2x4x8x8xf16>
// CHECK-NEXT: %[[A:.*]] = mp.avg_pool2d %[[M]] kernel [2, 2] : tensor<2x4x4x4xf16>
// CHECK-NEXT: %[[P:.*]] = mp.adaptive_avg_pool2d %[[A]] output_size [1, 1] : tensor<2x4x2x2xf16>
// CHECK-NEXT: %[[S:.*]] = mp.silu %[[P]] : tensor<2x4x1x1xf16>
// CHECK-NEXT: %[[H:.*]] = mp.hardswish %[[S]] : tensor<2x4x1x1xf16>
// CHECK-NEXT: %[[HS:.*]] = mp.hardsigmoid %[[H]] : tensor<2x4x1x1xf16>
// CHECK-NEXT: %[[L:.*]] = mp.leaky_relu %[[HS]] : tensor<2x4x1x1xf16>
// CHECK-NEXT: %[[E:.*]] = mp.erf %[[L]] : tensor<2x4x1x1xf16>
// CHECK-NEXT: %[[B:.*]] = mp.abs %[[E]] : tensor<2x4x1x1xf16>
// CHECK-NEXT: %[[G:.*]] = mp.stop_gradient %[[B]] : tensor<2x4x1x1xf16>
// CHECK-NEXT: return %[[G]]
func.func @clear(%x: tensor<2x4x8x8xf16>) -> tensor<2x4x1x1xf16> {
  %c = mp.clamp %x min 0.0 max 6.0 hardtanh : tensor<2x4x8x8xf16>
  %m = mp.max_pool2d %c kernel [2, 2] : tensor<2x4x8x8xf16>
  %a = mp.avg_pool2d %m kernel [2, 2] : tensor<2x4x4x4xf16>
  %p = mp.adaptive_avg_pool2d %a output_size [1, 1] : tensor<2x4x2x2xf16>
  %s = mp.silu %p : tensor<2x4x1x1xf16>
  %h = mp.hardswish %s : tensor<2x4x1x1xf16>
  %hs = mp.hardsigmoid %h : tensor<2x4x1x1xf16>
  %l = mp.leaky_relu %hs : tensor<2x4x1x1xf16>
  %e = mp.erf %l : tensor<2x4x1x1xf16>
  %b = mp.abs %e : tensor<2x4x1x1xf16>
  %g = mp.stop_gradient %b : tensor<2x4x1x1xf16>
  return %g : tensor<2x4x1x1xf16>
}

// Every new op's default category, as mp-precision-report lists them.
// REPORT-LABEL: mp-precision-report @categories
// REPORT:      mp.compare               promote
// REPORT-NEXT: mp.select                promote
// REPORT-NEXT: mp.max_pool2d_grad       clear
// REPORT-NEXT: mp.avg_pool2d_grad       clear
// REPORT-NEXT: mp.adaptive_avg_pool2d_grad clear
// REPORT-NEXT: mp.clamp_grad            clear
// REPORT-NEXT: mp.silu_grad             clear
// REPORT-NEXT: mp.hardswish_grad        clear
// REPORT-NEXT: mp.hardsigmoid_grad      clear
// REPORT-NEXT: mp.leaky_relu_grad       clear
// REPORT-NEXT: mp.erf_grad              clear
// REPORT-NEXT: mp.abs_grad              clear
func.func @categories(%x: tensor<1x1x4x4xf32>, %dy: tensor<1x1x2x2xf32>, %c: tensor<1x1x4x4xi1>) {
  %g = mp.compare gt, %x, %x : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>
  %s = mp.select %c, %x, %x : tensor<1x1x4x4xi1>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>
  %0 = mp.max_pool2d_grad %dy, %x kernel [2, 2] : tensor<1x1x2x2xf32>, tensor<1x1x4x4xf32>
  %1 = mp.avg_pool2d_grad %dy kernel [2, 2] : tensor<1x1x2x2xf32> to tensor<1x1x4x4xf32>
  %2 = mp.adaptive_avg_pool2d_grad %dy : tensor<1x1x2x2xf32> to tensor<1x1x4x4xf32>
  %3 = mp.clamp_grad %x, %x min 0.0 : tensor<1x1x4x4xf32>
  %4 = mp.silu_grad %x, %x : tensor<1x1x4x4xf32>
  %5 = mp.hardswish_grad %x, %x : tensor<1x1x4x4xf32>
  %6 = mp.hardsigmoid_grad %x, %x : tensor<1x1x4x4xf32>
  %7 = mp.leaky_relu_grad %x, %x : tensor<1x1x4x4xf32>
  %8 = mp.erf_grad %x, %x : tensor<1x1x4x4xf32>
  %9 = mp.abs_grad %x, %x : tensor<1x1x4x4xf32>
  return
}
