// convert-mp-to-linalg on the pooling ops: window reductions with the input
// read by tensor.extract inside the input only (padding skipped), max
// pooling's order-independent selection, the gathers of the gradients with
// the kernel offsets reversed, and PyTorch's divisors as constants.
// RUN: mp-opt %s -convert-mp-to-linalg -split-input-file | FileCheck %s

// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[ACC:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @max_pool2d_f16(
// CHECK-SAME:    %[[X:.*]]: tensor<1x1x5x5xf16>)
// CHECK-DAG:     %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG:     %[[NONE:.*]] = arith.constant -1 : i64
// CHECK:         %[[WINDOW:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK:         %[[MAX0:.*]] = linalg.fill ins(%[[NEG_INF]] : f32) outs(%{{.*}} : tensor<1x1x3x3xf32>)
// CHECK:         %[[POS0:.*]] = linalg.fill ins(%[[NONE]] : i64) outs(%{{.*}} : tensor<1x1x3x3xi64>)
// CHECK:         %[[SEL:.*]]:2 = linalg.generic {indexing_maps = [#[[WIN]], #[[ACC]], #[[ACC]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[WINDOW]] : tensor<3x3xf32>) outs(%[[MAX0]], %[[POS0]] : tensor<1x1x3x3xf32>, tensor<1x1x3x3xi64>)
// CHECK:           %[[E:.*]] = tensor.extract %[[X]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<1x1x5x5xf16>
// CHECK-NEXT:      %[[V:.*]] = arith.extf %[[E]] : f16 to f32
// CHECK:           arith.cmpf uno, %[[V]], %[[V]] : f32
// CHECK:           arith.cmpf oeq, %[[V]], %{{.*}} : f32
// CHECK:           arith.cmpf ogt, %[[V]], %{{.*}} : f32
// CHECK-NEXT:      arith.ori
// CHECK-NEXT:      arith.andi
// CHECK-NEXT:      arith.select %{{.*}}, %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:      arith.ori
// CHECK-NEXT:      %[[TAKE:.*]] = arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-NEXT:      %[[NV:.*]] = arith.select %[[TAKE]], %[[V]], %{{.*}} : f32
// CHECK-NEXT:      %[[NP:.*]] = arith.select %[[TAKE]], %{{.*}}, %{{.*}} : i64
// CHECK-NEXT:      linalg.yield %[[NV]], %[[NP]] : f32, i64
// CHECK:         arith.truncf %{{.*}} : f32 to f16
func.func @max_pool2d_f16(%x: tensor<1x1x5x5xf16>) -> tensor<1x1x3x3xf16> {
  %0 = mp.max_pool2d %x kernel [3, 3] stride [2, 2] padding [1, 1] : tensor<1x1x5x5xf16>
  return %0 : tensor<1x1x3x3xf16>
}

// -----

// The gradient recomputes the selection, then each input element gathers
// the windows that selected it: kh = KH − 1 − r, oh = (ih + p − kh·d) / s
// where divisible and in range.
// CHECK-LABEL: func.func @max_pool2d_grad(
// CHECK-SAME:    %[[DY:.*]]: tensor<1x1x2x2xf32>, %[[X:.*]]: tensor<1x1x4x4xf32>)
// CHECK:         %[[SEL:.*]]:2 = linalg.generic
// CHECK:         %[[DX:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x4x4xf32>)
// CHECK:           %[[R:.*]] = linalg.index 4 : index
// CHECK:           %[[KH:.*]] = arith.subi %{{.*}}, %[[R]] : index
// CHECK:           arith.divui
// CHECK:           arith.remui
// CHECK:           %[[P:.*]] = tensor.extract %[[SEL]]#1[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<1x1x2x2xi64>
// CHECK:           %[[HIT:.*]] = arith.cmpi eq, %[[P]], %{{.*}} : i64
// CHECK:           %[[G:.*]] = tensor.extract %[[DY]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : tensor<1x1x2x2xf32>
// CHECK:           %[[T:.*]] = arith.select %[[HIT]], %[[G]], %{{.*}} : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %{{.*}}, %[[T]] : f32
// CHECK-NEXT:      %[[KEEP:.*]] = arith.select %{{.*}}, %[[S]], %{{.*}} : f32
// CHECK-NEXT:      linalg.yield %[[KEEP]] : f32
// CHECK:         return %[[DX]]
func.func @max_pool2d_grad(%dy: tensor<1x1x2x2xf32>, %x: tensor<1x1x4x4xf32>) -> tensor<1x1x4x4xf32> {
  %0 = mp.max_pool2d_grad %dy, %x kernel [2, 2] : tensor<1x1x2x2xf32>, tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// avg_pool2d: the f32 window sum, then division by PyTorch's divisors
// (ceil_mode clips the last window; count_include_pad false counts the
// elements inside the input).
// CHECK-DAG: #[[SPATIAL:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func.func @avg_pool2d(
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2x2xf32>) outs(%{{.*}} : tensor<1x1x2x2xf32>)
// CHECK:           tensor.extract
// CHECK:           arith.addf
// CHECK:         %[[DIV:.*]] = arith.constant dense<{{\[}}[4.000000e+00, 2.000000e+00], [2.000000e+00, 1.000000e+00]]> : tensor<2x2xf32>
// CHECK:         linalg.generic {indexing_maps = [#{{.*}}, #[[SPATIAL]], #{{.*}}], {{.*}} ins(%[[SUM]], %[[DIV]] : tensor<1x1x2x2xf32>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x1x2x2xbf16>)
// CHECK-NEXT:    ^bb0(%[[S:.*]]: f32, %[[D:.*]]: f32, %{{.*}}: bf16):
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[S]], %[[D]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[Q]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[T]] : bf16
func.func @avg_pool2d(%x: tensor<1x1x3x3xbf16>) -> tensor<1x1x2x2xbf16> {
  %0 = mp.avg_pool2d %x kernel [2, 2] ceil_mode count_include_pad false : tensor<1x1x3x3xbf16>
  return %0 : tensor<1x1x2x2xbf16>
}

// -----

// With count_include_pad (the default) the divisor is the window clipped to
// the padded input; divisor_override replaces it.
// CHECK-LABEL: func.func @avg_pool2d_divisors(
// CHECK:         arith.constant dense<4.000000e+00> : tensor<2x2xf32>
// CHECK:         arith.constant dense<3.000000e+00> : tensor<2x2xf32>
func.func @avg_pool2d_divisors(%x: tensor<1x1x3x3xf32>) -> (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) {
  %0 = mp.avg_pool2d %x kernel [2, 2] padding [1, 1] : tensor<1x1x3x3xf32>
  %1 = mp.avg_pool2d %x kernel [2, 2] stride [1, 1] divisor 3 : tensor<1x1x3x3xf32>
  return %0, %1 : tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>
}

// -----

// avg_pool2d_grad: dy / divisor in f32, gathered over the windows.
// CHECK-LABEL: func.func @avg_pool2d_grad(
// CHECK-SAME:    %[[DY:.*]]: tensor<1x1x2x2xf16>)
// CHECK:         %[[DELTA:.*]] = linalg.generic {{.*}} ins(%[[DY]], %{{.*}} : tensor<1x1x2x2xf16>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x1x2x2xf32>)
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x4x4xf32>)
// CHECK:           tensor.extract %[[DELTA]]
// CHECK:         arith.truncf %{{.*}} : f32 to f16
func.func @avg_pool2d_grad(%dy: tensor<1x1x2x2xf16>) -> tensor<1x1x4x4xf16> {
  %0 = mp.avg_pool2d_grad %dy kernel [2, 2] : tensor<1x1x2x2xf16> to tensor<1x1x4x4xf16>
  return %0 : tensor<1x1x4x4xf16>
}

// -----

// adaptive_avg_pool2d: windows [⌊o·in/out⌋, ⌈(o+1)·in/out⌉) computed in the
// payload, loops over the largest window (3 rows of 5, 2 columns of 3), the
// sum divided by the height, then the width.
// CHECK-LABEL: func.func @adaptive_avg_pool2d(
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<3x2xf32>) outs(%{{.*}} : tensor<1x1x2x2xf32>)
// CHECK:           arith.divui
// CHECK:           arith.cmpi ult
// CHECK:         %[[ROWS:.*]] = arith.constant dense<3.000000e+00> : tensor<2x2xf32>
// CHECK-NEXT:    %[[COLUMNS:.*]] = arith.constant dense<2.000000e+00> : tensor<2x2xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[SUM]], %[[ROWS]], %[[COLUMNS]] : tensor<1x1x2x2xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
// CHECK-NEXT:    ^bb0(%[[S:.*]]: f32, %[[H:.*]]: f32, %[[W:.*]]: f32, %{{.*}}: bf16):
// CHECK-NEXT:      %[[Q1:.*]] = arith.divf %[[S]], %[[H]] : f32
// CHECK-NEXT:      %[[Q2:.*]] = arith.divf %[[Q1]], %[[W]] : f32
// CHECK-NEXT:      arith.truncf %[[Q2]] : f32 to bf16
func.func @adaptive_avg_pool2d(%x: tensor<1x1x5x3xbf16>) -> tensor<1x1x2x2xbf16> {
  %0 = mp.adaptive_avg_pool2d %x output_size [2, 2] : tensor<1x1x5x3xbf16>
  return %0 : tensor<1x1x2x2xbf16>
}

// -----

// The global pool divides once by H·W, as PyTorch's mean; its gradient
// loops over every output window.
// CHECK-DAG: #[[DELTA_MAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5)>
// CHECK-LABEL: func.func @adaptive_avg_pool2d_global(
// CHECK:         arith.constant dense<1.500000e+01> : tensor<1x1xf32>
// CHECK-NEXT:    arith.constant dense<1.000000e+00> : tensor<1x1xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[DELTA_MAP]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}} : tensor<1x2x1x1xf32>) outs(%{{.*}} : tensor<1x2x5x3xf32>)
func.func @adaptive_avg_pool2d_global(%x: tensor<1x2x5x3xf32>, %dy: tensor<1x2x1x1xf32>) -> (tensor<1x2x1x1xf32>, tensor<1x2x5x3xf32>) {
  %0 = mp.adaptive_avg_pool2d %x output_size [1, 1] : tensor<1x2x5x3xf32>
  %1 = mp.adaptive_avg_pool2d_grad %dy : tensor<1x2x1x1xf32> to tensor<1x2x5x3xf32>
  return %0, %1 : tensor<1x2x1x1xf32>, tensor<1x2x5x3xf32>
}
