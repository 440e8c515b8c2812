// convert-mp-to-linalg of the block-scaled ops (BlockScaled.cpp) and of
// mp.cast to E8M0: blocks as the inner dimensions of an expand_shape, a
// NaN-ignoring max-|x| reduction per block, the scales and encode factors, the data, and
// mp.scaled_matmul as two dequantisations and an f32 matmul. The values are
// checked bit for bit in test/Integration/Numerics/block-scaled.test.
// RUN: mp-opt %s --convert-mp-to-linalg | FileCheck %s

// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[BLOCK3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[TILE4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2)>

// MXFP8: 1x32 blocks are dimension 2 of [4, 2, 32]. The E8M0 scale is
// amax · f32(1/448) rounded up (truncf upward of the magnitude, clamped to
// 2^127); the encode factor is its exact reciprocal.
// CHECK-LABEL: func.func @mxfp8(
// CHECK-SAME:    %[[X:.*]]: tensor<4x64xf32>)
// CHECK:         %[[XB:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1, 2]] output_shape [4, 2, 32] : tensor<4x64xf32> into tensor<4x2x32xf32>
// The amax ignores NaN (maxnumf from 0, Transformer Engine's fmaxf).
// CHECK:         %[[AMAX:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[BLOCK3]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[XB]] : tensor<4x2x32xf32>)
// CHECK:           %[[MAG:.*]] = math.absf
// CHECK:           arith.maxnumf %{{.*}}, %[[MAG]] : f32
// CHECK:         %[[S:.*]]:2 = linalg.generic {{.*}} ins(%[[AMAX]] : tensor<4x2xf32>) outs(%{{.*}}, %{{.*}} : tensor<4x2xf8E8M0FNU>, tensor<4x2xf32>)
// CHECK:           %[[RATIO:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           math.absf %[[RATIO]]
// CHECK:           %[[SC:.*]] = arith.truncf %{{.*}} upward : f32 to f8E8M0FNU
// CHECK:           %[[SF:.*]] = arith.extf %[[SC]] : f8E8M0FNU to f32
// CHECK:           %[[ENC:.*]] = arith.divf %{{.*}}, %[[SF]] : f32
// CHECK:           linalg.yield %[[SC]], %[[ENC]] : f8E8M0FNU, f32
// CHECK:         %[[Q:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[BLOCK3]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[XB]], %[[S]]#1 : tensor<4x2x32xf32>, tensor<4x2xf32>) outs(%{{.*}} : tensor<4x2x32xf8E4M3FN>)
// CHECK:           arith.mulf
// CHECK:           arith.maximumf
// CHECK:           arith.minimumf
// CHECK:           arith.truncf %{{.*}} : f32 to f8E4M3FN
// CHECK:         %[[QC:.*]] = tensor.collapse_shape %[[Q]] {{\[}}[0], [1, 2]] : tensor<4x2x32xf8E4M3FN> into tensor<4x64xf8E4M3FN>
// CHECK:         return %[[QC]], %[[S]]#0
func.func @mxfp8(%x: tensor<4x64xf32>) -> (tensor<4x64xf8E4M3FN>, tensor<4x2xf8E8M0FNU>) {
  %q, %s = mp.block_quantize %x : tensor<4x64xf32> -> tensor<4x64xf8E4M3FN>, tensor<4x2xf8E8M0FNU>
  return %q, %s : tensor<4x64xf8E4M3FN>, tensor<4x2xf8E8M0FNU>
}

// NVFP4 with stochastic rounding: the E4M3 scale of amax · f32(1/6) · g,
// the encode factor min(g / scale, FLT_MAX), the data rounded with the
// random bits (integer arithmetic on i64, to i4).
// CHECK-LABEL: func.func @nvfp4_stochastic(
// CHECK-SAME:    %[[X:.*]]: tensor<4x32xf32>, %[[G:.*]]: tensor<f32>, %[[R:.*]]: tensor<4x32xi32>)
// CHECK:         %[[GS:.*]] = tensor.extract %[[G]][] : tensor<f32>
// CHECK:         linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<4x2xf8E4M3FN>, tensor<4x2xf32>)
// CHECK:           %[[T0:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           %[[T:.*]] = arith.mulf %[[T0]], %[[GS]] : f32
// CHECK:           %[[SC:.*]] = arith.truncf %{{.*}} : f32 to f8E4M3FN
// CHECK:           %[[SF:.*]] = arith.extf %[[SC]] : f8E4M3FN to f32
// CHECK:           %[[E0:.*]] = arith.divf %[[GS]], %[[SF]] : f32
// CHECK:           %[[E:.*]] = arith.minimumf %[[E0]], %{{.*}} : f32
// CHECK:           linalg.yield %[[SC]], %[[E]]
// CHECK:         %[[RB:.*]] = tensor.expand_shape %[[R]] {{\[}}[0], [1, 2]] output_shape [4, 2, 16] : tensor<4x32xi32> into tensor<4x2x16xi32>
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %[[RB]] : tensor<4x2x16xf32>, tensor<4x2xf32>, tensor<4x2x16xi32>) outs(%{{.*}} : tensor<4x2x16xf4E2M1FN>)
// CHECK:           arith.extui %{{.*}} : i32 to i64
// CHECK:           arith.trunci %{{.*}} : i64 to i4
// CHECK:           arith.bitcast %{{.*}} : i4 to f4E2M1FN
func.func @nvfp4_stochastic(%x: tensor<4x32xf32>, %g: tensor<f32>, %r: tensor<4x32xi32>)
    -> (tensor<4x32xf4E2M1FN>, tensor<4x2xf8E4M3FN>) {
  %q, %s = mp.block_quantize %x global %g random(%r : tensor<4x32xi32>) : tensor<4x32xf32> -> tensor<4x32xf4E2M1FN>, tensor<4x2xf8E4M3FN>
  return %q, %s : tensor<4x32xf4E2M1FN>, tensor<4x2xf8E4M3FN>
}

// FP8 block scaling (TE's compute_scale_from_amax): max / amax, FLT_MAX
// when infinite, 1 for a zero, infinite or NaN amax, the mantissa bits
// cleared; the scale is 1 / e.
// CHECK-LABEL: func.func @fp8_block(
// CHECK:         linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<2x1xf32>, tensor<2x1xf32>)
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: f32,
// CHECK:           %[[E0:.*]] = arith.divf %{{.*}}, %[[A]] : f32
// CHECK:           %[[INF:.*]] = arith.cmpf oeq, %[[E0]], %{{.*}} : f32
// CHECK:           %[[EF:.*]] = arith.select %[[INF]], %{{.*}}, %[[E0]] : f32
// CHECK:           %[[ZERO:.*]] = arith.cmpf oeq, %[[A]], %{{.*}} : f32
// CHECK:           %[[INFNAN:.*]] = arith.cmpf ueq, %[[A]], %{{.*}} : f32
// CHECK:           %[[UNIT:.*]] = arith.ori %[[ZERO]], %[[INFNAN]] : i1
// CHECK:           %[[E1:.*]] = arith.select %[[UNIT]], %{{.*}}, %[[EF]] : f32
// CHECK:           %[[BITS:.*]] = arith.bitcast %[[E1]] : f32 to i32
// CHECK:           %[[MASK:.*]] = arith.constant -8388608 : i32
// CHECK:           %[[MASKED:.*]] = arith.andi %[[BITS]], %[[MASK]] : i32
// CHECK:           %[[E:.*]] = arith.bitcast %[[MASKED]] : i32 to f32
// CHECK:           %[[SC:.*]] = arith.divf %{{.*}}, %[[E]] : f32
// CHECK:           linalg.yield %[[SC]], %[[E]] : f32, f32
func.func @fp8_block(%x: tensor<2x128xbf16>) -> (tensor<2x128xf8E4M3FN>, tensor<2x1xf32>) {
  %q, %s = mp.block_quantize %x : tensor<2x128xbf16> -> tensor<2x128xf8E4M3FN>, tensor<2x1xf32>
  return %q, %s : tensor<2x128xf8E4M3FN>, tensor<2x1xf32>
}

// With amax_epsilon (rounded to f32) a smaller amax is raised to it first;
// unrounded_scales keeps 448 / amax as it is (no mask).
// CHECK-LABEL: func.func @fp8_block_epsilon_unrounded(
// CHECK:         linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<2x1xf32>, tensor<2x1xf32>)
// CHECK-NEXT:    ^bb0(%[[A:[a-z0-9_]+]]: f32,
// CHECK:           %[[EPS:.*]] = arith.constant 9.99999997E-7 : f32
// CHECK:           %[[LT:.*]] = arith.cmpf olt, %[[A]], %[[EPS]] : f32
// CHECK:           %[[RAISED:.*]] = arith.select %[[LT]], %[[EPS]], %[[A]] : f32
// CHECK:           %[[E0:.*]] = arith.divf %{{.*}}, %[[RAISED]] : f32
// CHECK:           %[[UNIT:.*]] = arith.ori
// CHECK-NEXT:      %[[E1:.*]] = arith.select %[[UNIT]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[SC:.*]] = arith.divf %{{.*}}, %[[E1]] : f32
// CHECK-NEXT:      linalg.yield %[[SC]], %[[E1]] : f32, f32
func.func @fp8_block_epsilon_unrounded(%x: tensor<2x128xf32>) -> (tensor<2x128xf8E4M3FN>, tensor<2x1xf32>) {
  %q, %s = mp.block_quantize %x amax_epsilon(1.0e-6) unrounded_scales : tensor<2x128xf32> -> tensor<2x128xf8E4M3FN>, tensor<2x1xf32>
  return %q, %s : tensor<2x128xf8E4M3FN>, tensor<2x1xf32>
}

// The scaled matmul: each operand dequantised in its blocked shape (16x16
// tiles of the rhs are dimensions 1 and 3 of [2, 16, 2, 16]), then an f32
// linalg.matmul rounded once to bf16.
// CHECK-LABEL: func.func @scaled_matmul(
// CHECK-SAME:    %[[A:.*]]: tensor<4x32xf4E2M1FN>, %[[SA:.*]]: tensor<4x2xf8E4M3FN>, %[[B:.*]]: tensor<32x32xf4E2M1FN>, %[[SB:.*]]: tensor<2x2xf8E4M3FN>)
// CHECK:         %[[AB:.*]] = tensor.expand_shape %[[A]] {{\[}}[0], [1, 2]] output_shape [4, 2, 16]
// CHECK:         linalg.generic {indexing_maps = [#[[ID3]], #[[BLOCK3]], #[[ID3]]], {{.*}} ins(%[[AB]], %[[SA]] : tensor<4x2x16xf4E2M1FN>, tensor<4x2xf8E4M3FN>) outs(%{{.*}} : tensor<4x2x16xf32>)
// CHECK:           %[[QA:.*]] = arith.extf %{{.*}} : f4E2M1FN to f32
// CHECK:           %[[SAF:.*]] = arith.extf %{{.*}} : f8E4M3FN to f32
// CHECK:           arith.mulf %[[QA]], %[[SAF]] : f32
// CHECK:         %[[DA:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<4x2x16xf32> into tensor<4x32xf32>
// CHECK:         %[[BB:.*]] = tensor.expand_shape %[[B]] {{\[}}[0, 1], [2, 3]] output_shape [2, 16, 2, 16]
// CHECK:         linalg.generic {indexing_maps = [#[[ID4]], #[[TILE4]], #[[ID4]]], {{.*}} ins(%[[BB]], %[[SB]] : tensor<2x16x2x16xf4E2M1FN>, tensor<2x2xf8E4M3FN>)
// CHECK:         %[[DB:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2, 3]] : tensor<2x16x2x16xf32> into tensor<32x32xf32>
// CHECK:         %[[Y:.*]] = linalg.matmul ins(%[[DA]], %[[DB]] : tensor<4x32xf32>, tensor<32x32xf32>)
// CHECK:         linalg.generic {{.*}} ins(%[[Y]] : tensor<4x32xf32>) outs(%{{.*}} : tensor<4x32xbf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
func.func @scaled_matmul(%a: tensor<4x32xf4E2M1FN>, %sa: tensor<4x2xf8E4M3FN>, %b: tensor<32x32xf4E2M1FN>, %sb: tensor<2x2xf8E4M3FN>) -> tensor<4x32xbf16> {
  %y = mp.scaled_matmul %a scales %sa, %b scales %sb acc(f32) : tensor<4x32xf4E2M1FN>, tensor<4x2xf8E4M3FN>, tensor<32x32xf4E2M1FN>, tensor<2x2xf8E4M3FN> -> tensor<4x32xbf16>
  return %y : tensor<4x32xbf16>
}

// Dequantisation with the tensor-level scale: q · s, then / g.
// CHECK-LABEL: func.func @dequantize_global(
// CHECK-SAME:    %{{.*}}: tensor<2x16xf4E2M1FN>, %{{.*}}: tensor<2x1xf8E4M3FN>, %[[G:.*]]: tensor<f32>)
// CHECK:         %[[GS:.*]] = tensor.extract %[[G]][] : tensor<f32>
// CHECK:         linalg.generic
// CHECK:           %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           %[[D:.*]] = arith.divf %[[P]], %[[GS]] : f32
// CHECK:           arith.truncf %[[D]] : f32 to f16
func.func @dequantize_global(%q: tensor<2x16xf4E2M1FN>, %s: tensor<2x1xf8E4M3FN>, %g: tensor<f32>) -> tensor<2x16xf16> {
  %x = mp.block_dequantize %q, %s global %g : tensor<2x16xf4E2M1FN>, tensor<2x1xf8E4M3FN> -> tensor<2x16xf16>
  return %x : tensor<2x16xf16>
}

// mp.cast to E8M0: the magnitude, clamped to 2^127, truncated upward.
// CHECK-LABEL: func.func @cast_e8m0(
// CHECK:           %[[M:.*]] = math.absf %{{.*}} : f32
// CHECK:           %[[LO:.*]] = arith.maximumf %[[M]], %{{.*}} : f32
// CHECK:           %[[C:.*]] = arith.minimumf %[[LO]], %{{.*}} : f32
// CHECK:           arith.truncf %[[C]] upward : f32 to f8E8M0FNU
func.func @cast_e8m0(%x: tensor<8xf16>) -> tensor<8xf8E8M0FNU> {
  %a = mp.cast %x saturate : tensor<8xf16> to tensor<8xf8E8M0FNU>
  return %a : tensor<8xf8E8M0FNU>
}
