// The block-scaled ops and the narrow-format casts round-trip: custom form,
// generic form, and print -> parse -> print is a fixed point.
// RUN: mp-opt %s | mp-opt | FileCheck %s
// RUN: mp-opt %s -mlir-print-op-generic | mp-opt | FileCheck %s
// RUN: mp-opt %s > %t.1 && mp-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK-LABEL: func.func @casts
func.func @casts(%x: tensor<4x8xf32>, %h: tensor<4x8xbf16>, %bits: tensor<4x8xi32>)
    -> (tensor<4x8xf4E2M1FN>, tensor<4x8xf6E2M3FN>, tensor<4x8xf6E3M2FN>,
        tensor<4x8xf8E8M0FNU>, tensor<4x8xf32>, tensor<4x8xf8E4M3FN>,
        tensor<4x8xf4E2M1FN>, tensor<4x8xf6E3M2FN>) {
  // CHECK: mp.cast %{{.*}} saturate : tensor<4x8xf32> to tensor<4x8xf4E2M1FN>
  %a = mp.cast %x saturate : tensor<4x8xf32> to tensor<4x8xf4E2M1FN>
  // CHECK: mp.cast %{{.*}} saturate : tensor<4x8xbf16> to tensor<4x8xf6E2M3FN>
  %b = mp.cast %h saturate : tensor<4x8xbf16> to tensor<4x8xf6E2M3FN>
  // CHECK: mp.cast %{{.*}} saturate : tensor<4x8xf32> to tensor<4x8xf6E3M2FN>
  %c = mp.cast %x saturate : tensor<4x8xf32> to tensor<4x8xf6E3M2FN>
  // CHECK: mp.cast %{{.*}} saturate : tensor<4x8xf32> to tensor<4x8xf8E8M0FNU>
  %d = mp.cast %x saturate : tensor<4x8xf32> to tensor<4x8xf8E8M0FNU>
  // CHECK: mp.cast %{{.*}} : tensor<4x8xf8E8M0FNU> to tensor<4x8xf32>
  %e = mp.cast %d : tensor<4x8xf8E8M0FNU> to tensor<4x8xf32>
  // CHECK: mp.cast %{{.*}} : tensor<4x8xf4E2M1FN> to tensor<4x8xf8E4M3FN>
  %f = mp.cast %a : tensor<4x8xf4E2M1FN> to tensor<4x8xf8E4M3FN>
  // CHECK: mp.stochastic_cast %{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<4x8xi32> to tensor<4x8xf4E2M1FN>
  %g = mp.stochastic_cast %x, %bits : tensor<4x8xf32>, tensor<4x8xi32> to tensor<4x8xf4E2M1FN>
  // CHECK: mp.stochastic_cast %{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<4x8xi32> to tensor<4x8xf6E3M2FN>
  %k = mp.stochastic_cast %h, %bits : tensor<4x8xbf16>, tensor<4x8xi32> to tensor<4x8xf6E3M2FN>
  return %a, %b, %c, %d, %e, %f, %g, %k
      : tensor<4x8xf4E2M1FN>, tensor<4x8xf6E2M3FN>, tensor<4x8xf6E3M2FN>,
        tensor<4x8xf8E8M0FNU>, tensor<4x8xf32>, tensor<4x8xf8E4M3FN>,
        tensor<4x8xf4E2M1FN>, tensor<4x8xf6E3M2FN>
}

// CHECK-LABEL: func.func @quantize
// CHECK-SAME: (%[[X:[a-z0-9]+]]: tensor<64x128xf32>, %[[W:[a-z0-9]+]]: tensor<256x128xbf16>, %[[G:[a-z0-9]+]]: tensor<f32>, %[[B:[a-z0-9]+]]: tensor<64x128xi32>
func.func @quantize(%x: tensor<64x128xf32>, %w: tensor<256x128xbf16>,
                    %g: tensor<f32>, %bits: tensor<64x128xi32>) {
  // MXFP8, 1x32 along K.
  // CHECK: %{{.*}}, %{{.*}} = mp.block_quantize %[[X]] : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  %q0, %s0 = mp.block_quantize %x : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
  // MXFP8 column-wise copy: 32x1 along M.
  // CHECK: mp.block_quantize %[[X]] : tensor<64x128xf32> -> tensor<64x128xf8E5M2>, tensor<2x128xf8E8M0FNU>
  %q1, %s1 = mp.block_quantize %x : tensor<64x128xf32> -> tensor<64x128xf8E5M2>, tensor<2x128xf8E8M0FNU>
  // NVFP4 weights: 16x16 tiles, E4M3 scales and the tensor-level scale.
  // CHECK: mp.block_quantize %[[W]] global %[[G]] : tensor<256x128xbf16> -> tensor<256x128xf4E2M1FN>, tensor<16x8xf8E4M3FN>
  %q2, %s2 = mp.block_quantize %w global %g : tensor<256x128xbf16> -> tensor<256x128xf4E2M1FN>, tensor<16x8xf8E4M3FN>
  // NVFP4 gradients: 1x16, stochastic rounding.
  // CHECK: mp.block_quantize %[[X]] global %[[G]] random(%[[B]] : tensor<64x128xi32>) : tensor<64x128xf32> -> tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>
  %q3, %s3 = mp.block_quantize %x global %g random(%bits : tensor<64x128xi32>) : tensor<64x128xf32> -> tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>
  // FP8 block scaling: 128x128 weights, 1x128 inputs, f32 scales.
  // CHECK: mp.block_quantize %[[W]] : tensor<256x128xbf16> -> tensor<256x128xf8E4M3FN>, tensor<2x1xf32>
  %q4, %s4 = mp.block_quantize %w : tensor<256x128xbf16> -> tensor<256x128xf8E4M3FN>, tensor<2x1xf32>
  // CHECK: mp.block_quantize %[[X]] : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  %q5, %s5 = mp.block_quantize %x : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  // The same with TE's QParams: amax_epsilon and scales not rounded to
  // powers of two.
  // CHECK: mp.block_quantize %[[X]] amax_epsilon(9.9999999999999995E-7) unrounded_scales : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  %q5u, %s5u = mp.block_quantize %x amax_epsilon(1.0e-6) unrounded_scales : tensor<64x128xf32> -> tensor<64x128xf8E4M3FN>, tensor<64x1xf32>
  // MXFP6 with stochastic rounding, rank 3, blocks along the middle dimension.
  // CHECK: mp.block_quantize %{{.*}} random(%{{.*}} : tensor<2x32x4xi32>) : tensor<2x32x4xf32> -> tensor<2x32x4xf6E3M2FN>, tensor<2x1x4xf8E8M0FNU>
  %x3 = tensor.empty() : tensor<2x32x4xf32>
  %b3 = tensor.empty() : tensor<2x32x4xi32>
  %q6, %s6 = mp.block_quantize %x3 random(%b3 : tensor<2x32x4xi32>) : tensor<2x32x4xf32> -> tensor<2x32x4xf6E3M2FN>, tensor<2x1x4xf8E8M0FNU>

  // CHECK: mp.block_dequantize %{{.*}}, %{{.*}} : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU> -> tensor<64x128xf32>
  %d0 = mp.block_dequantize %q0, %s0 : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU> -> tensor<64x128xf32>
  // CHECK: mp.block_dequantize %{{.*}}, %{{.*}} global %[[G]] : tensor<256x128xf4E2M1FN>, tensor<16x8xf8E4M3FN> -> tensor<256x128xbf16>
  %d2 = mp.block_dequantize %q2, %s2 global %g : tensor<256x128xf4E2M1FN>, tensor<16x8xf8E4M3FN> -> tensor<256x128xbf16>

  // y = x . W^T with MXFP8 operands (W quantised along K: 1x32).
  %wx = tensor.empty() : tensor<256x128xf32>
  %wq, %ws = mp.block_quantize %wx : tensor<256x128xf32> -> tensor<256x128xf8E4M3FN>, tensor<256x4xf8E8M0FNU>
  // CHECK: mp.scaled_matmul %{{.*}} scales %{{.*}}, %{{.*}} scales %{{.*}} transpose_rhs acc(f32) : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<256x128xf8E4M3FN>, tensor<256x4xf8E8M0FNU> -> tensor<64x256xbf16>
  %y0 = mp.scaled_matmul %q0 scales %s0, %wq scales %ws transpose_rhs acc(f32)
      : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>, tensor<256x128xf8E4M3FN>, tensor<256x4xf8E8M0FNU> -> tensor<64x256xbf16>
  // dW = dY^T . X with the column-wise copies (blocks along M).
  // CHECK: mp.scaled_matmul %{{.*}} scales %{{.*}}, %{{.*}} scales %{{.*}} transpose_lhs acc(f32) : tensor<64x128xf8E5M2>, tensor<2x128xf8E8M0FNU>, tensor<64x128xf8E5M2>, tensor<2x128xf8E8M0FNU> -> tensor<128x128xf32>
  %y1 = mp.scaled_matmul %q1 scales %s1, %q1 scales %s1 transpose_lhs acc(f32)
      : tensor<64x128xf8E5M2>, tensor<2x128xf8E8M0FNU>, tensor<64x128xf8E5M2>, tensor<2x128xf8E8M0FNU> -> tensor<128x128xf32>
  // FP8 block scaling: 1x128 input times 128x128 weight, f32 scales.
  // CHECK: mp.scaled_matmul %{{.*}} scales %{{.*}}, %{{.*}} scales %{{.*}} transpose_rhs acc(f32) : tensor<64x128xf8E4M3FN>, tensor<64x1xf32>, tensor<256x128xf8E4M3FN>, tensor<2x1xf32> -> tensor<64x256xf32>
  %y2 = mp.scaled_matmul %q5 scales %s5, %q4 scales %s4 transpose_rhs acc(f32)
      : tensor<64x128xf8E4M3FN>, tensor<64x1xf32>, tensor<256x128xf8E4M3FN>, tensor<2x1xf32> -> tensor<64x256xf32>
  return
}
