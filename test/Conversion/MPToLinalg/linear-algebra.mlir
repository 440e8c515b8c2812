// Matmul-likes and convolutions: one named linalg op with inputs in their
// storage type and the accumulator in acc_type, then one rounding generic
// (convolutions: im2col first, and the rounding generic reads NCHW).
// RUN: mp-opt %s --convert-mp-to-linalg -split-input-file | FileCheck %s

// CHECK-DAG: #[[$MK:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$NK:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$MN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_f16_acc_f32(
// CHECK-SAME:    %[[A:.*]]: tensor<64x784xf16>, %[[W:.*]]: tensor<256x784xf16>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<64x256xf32>
// CHECK:         %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<64x256xf32>)
// CHECK:         %[[MM:.*]] = linalg.matmul indexing_maps = [#[[$MK]], #[[$NK]], #[[$MN]]]
// CHECK-SAME:      ins(%[[A]], %[[W]] : tensor<64x784xf16>, tensor<256x784xf16>) outs(%[[ACC]] : tensor<64x256xf32>) -> tensor<64x256xf32>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[MM]] : tensor<64x256xf32>) outs(%{{.*}} : tensor<64x256xf16>)
// CHECK:         ^bb0(%[[IN:.*]]: f32, %{{.*}}: f16):
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[IN]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[T]] : f16
// CHECK:         return %[[R]] : tensor<64x256xf16>
func.func @matmul_f16_acc_f32(%a: tensor<64x784xf16>, %w: tensor<256x784xf16>) -> tensor<64x256xf16> {
  %0 = mp.matmul %a, %w transpose_rhs acc(f32) : tensor<64x784xf16>, tensor<256x784xf16> -> tensor<64x256xf16>
  return %0 : tensor<64x256xf16>
}

// -----

// An f32 result is the accumulator itself: no rounding generic.
// CHECK-DAG: #[[$KM:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$KN:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$MN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @matmul_transpose_lhs_f32_result(
// CHECK:         %[[MM:.*]] = linalg.matmul indexing_maps = [#[[$KM]], #[[$KN]], #[[$MN]]]
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<8x4xbf16>, tensor<8x3xbf16>) outs(%{{.*}} : tensor<4x3xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         return %[[MM]] : tensor<4x3xf32>
func.func @matmul_transpose_lhs_f32_result(%a: tensor<8x4xbf16>, %b: tensor<8x3xbf16>) -> tensor<4x3xf32> {
  %0 = mp.matmul %a, %b transpose_lhs acc(f32) : tensor<8x4xbf16>, tensor<8x3xbf16> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// acc(f16): the accumulator is f16 (native f16 multiply-add in linalg.matmul).
// CHECK-LABEL: func.func @matmul_f16_acc_f16(
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK:         %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f16) outs(%{{.*}} : tensor<4x3xf16>)
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x8xf16>, tensor<8x3xf16>) outs(%[[ACC]] : tensor<4x3xf16>)
// CHECK-NEXT:    return %[[MM]]
func.func @matmul_f16_acc_f16(%a: tensor<4x8xf16>, %b: tensor<8x3xf16>) -> tensor<4x3xf16> {
  %0 = mp.matmul %a, %b acc(f16) : tensor<4x8xf16>, tensor<8x3xf16> -> tensor<4x3xf16>
  return %0 : tensor<4x3xf16>
}

// -----

// FP8 operands (mixed formats) are extended to f32 once, before the matmul.
// CHECK-LABEL: func.func @matmul_fp8(
// CHECK:         %[[A:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<16x32xf8E4M3FN>) outs(%{{.*}} : tensor<16x32xf32>)
// CHECK:           arith.extf %{{.*}} : f8E4M3FN to f32
// CHECK:         %[[B:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<32x8xf8E5M2>) outs(%{{.*}} : tensor<32x8xf32>)
// CHECK:           arith.extf %{{.*}} : f8E5M2 to f32
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<16x32xf32>, tensor<32x8xf32>) outs(%{{.*}} : tensor<16x8xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[MM]] : tensor<16x8xf32>) outs(%{{.*}} : tensor<16x8xbf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
func.func @matmul_fp8(%a: tensor<16x32xf8E4M3FN>, %b: tensor<32x8xf8E5M2>) -> tensor<16x8xbf16> {
  %0 = mp.matmul %a, %b acc(f32) : tensor<16x32xf8E4M3FN>, tensor<32x8xf8E5M2> -> tensor<16x8xbf16>
  return %0 : tensor<16x8xbf16>
}

// -----

// CHECK-LABEL: func.func @matmul_i8(
// CHECK:         %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK:         %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : i32) outs(%{{.*}} : tensor<16x8xi32>)
// CHECK:         %[[MM:.*]] = linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<16x32xi8>, tensor<32x8xi8>) outs(%[[ACC]] : tensor<16x8xi32>)
// CHECK-NEXT:    return %[[MM]]
func.func @matmul_i8(%a: tensor<16x32xi8>, %b: tensor<32x8xi8>) -> tensor<16x8xi32> {
  %0 = mp.matmul %a, %b acc(i32) : tensor<16x32xi8>, tensor<32x8xi8> -> tensor<16x8xi32>
  return %0 : tensor<16x8xi32>
}

// -----

// compute tf32: each operand is rounded to TF32 in integer arithmetic first
// (add half of the 13 dropped bits, mask them; NaN kept).
// CHECK-LABEL: func.func @matmul_tf32(
// CHECK-SAME:    %[[A:.*]]: tensor<8x32xf32>, %[[B:.*]]: tensor<32x16xf32>)
// CHECK:         %[[RA:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[A]] : tensor<8x32xf32>)
// CHECK:           %[[BITS:.*]] = arith.bitcast %[[X:.*]] : f32 to i32
// CHECK:           %[[HALF:.*]] = arith.constant 4096 : i32
// CHECK:           %[[MASK:.*]] = arith.constant -8192 : i32
// CHECK:           %[[SUM:.*]] = arith.addi %[[BITS]], %[[HALF]] : i32
// CHECK:           %[[KEPT:.*]] = arith.andi %[[SUM]], %[[MASK]] : i32
// CHECK:           %[[ROUNDED:.*]] = arith.bitcast %[[KEPT]] : i32 to f32
// CHECK:           %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK:           arith.select %[[NAN]], %[[X]], %[[ROUNDED]] : f32
// CHECK:         %[[RB:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[B]] : tensor<32x16xf32>)
// CHECK:         linalg.matmul ins(%[[RA]], %[[RB]] : tensor<8x32xf32>, tensor<32x16xf32>) outs(%{{.*}} : tensor<8x16xf32>)
func.func @matmul_tf32(%a: tensor<8x32xf32>, %b: tensor<32x16xf32>) -> tensor<8x16xf32> {
  %0 = mp.matmul %a, %b acc(f32) compute tf32 : tensor<8x32xf32>, tensor<32x16xf32> -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// Batch dimensions collapse into one for linalg.batch_matmul and expand back.
// CHECK-DAG: #[[$BMK:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$BNK:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[$BMN:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @batch_matmul(
// CHECK-SAME:    %[[Q:.*]]: tensor<2x4x16x8xbf16>, %[[K:.*]]: tensor<2x4x16x8xbf16>)
// CHECK:         %[[CQ:.*]] = tensor.collapse_shape %[[Q]] {{\[}}[0, 1], [2], [3]] : tensor<2x4x16x8xbf16> into tensor<8x16x8xbf16>
// CHECK:         %[[CK:.*]] = tensor.collapse_shape %[[K]] {{\[}}[0, 1], [2], [3]] : tensor<2x4x16x8xbf16> into tensor<8x16x8xbf16>
// CHECK:         %[[BMM:.*]] = linalg.batch_matmul indexing_maps = [#[[$BMK]], #[[$BNK]], #[[$BMN]]]
// CHECK-SAME:      ins(%[[CQ]], %[[CK]] : tensor<8x16x8xbf16>, tensor<8x16x8xbf16>) outs(%{{.*}} : tensor<8x16x16xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[BMM]] : tensor<8x16x16xf32>) outs(%{{.*}} : tensor<8x16x16xbf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:         tensor.expand_shape %[[R]] {{\[}}[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xbf16> into tensor<2x4x16x16xbf16>
func.func @batch_matmul(%q: tensor<2x4x16x8xbf16>, %k: tensor<2x4x16x8xbf16>) -> tensor<2x4x16x16xbf16> {
  %0 = mp.batch_matmul %q, %k transpose_rhs acc(f32) : tensor<2x4x16x8xbf16>, tensor<2x4x16x8xbf16> -> tensor<2x4x16x16xbf16>
  return %0 : tensor<2x4x16x16xbf16>
}

// -----

// linear: leading dimensions collapse, weight transposed by the map; the bias
// is added to the f32 accumulator and the sum rounded once.
// CHECK-DAG: #[[$MK:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$NK:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$MN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @linear(
// CHECK-SAME:    %[[X:.*]]: tensor<2x16x64xf16>, %[[W:.*]]: tensor<256x64xf16>, %[[B:.*]]: tensor<256xf16>)
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1], [2]] : tensor<2x16x64xf16> into tensor<32x64xf16>
// CHECK:         %[[MM:.*]] = linalg.matmul indexing_maps = [#[[$MK]], #[[$NK]], #[[$MN]]]
// CHECK-SAME:      ins(%[[FLAT]], %[[W]] : tensor<32x64xf16>, tensor<256x64xf16>) outs(%{{.*}} : tensor<32x256xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$COL]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[MM]], %[[B]] : tensor<32x256xf32>, tensor<256xf16>) outs(%{{.*}} : tensor<32x256xf16>)
// CHECK:         ^bb0(%[[ACC:.*]]: f32, %[[BIAS:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT:      %[[BIAS32:.*]] = arith.extf %[[BIAS]] : f16 to f32
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[ACC]], %[[BIAS32]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[SUM]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[T]] : f16
// CHECK:         tensor.expand_shape %[[R]] {{\[}}[0, 1], [2]] output_shape [2, 16, 256] : tensor<32x256xf16> into tensor<2x16x256xf16>
func.func @linear(%x: tensor<2x16x64xf16>, %w: tensor<256x64xf16>, %b: tensor<256xf16>) -> tensor<2x16x256xf16> {
  %0 = mp.linear %x, %w, %b acc(f32) : (tensor<2x16x64xf16>, tensor<256x64xf16>, tensor<256xf16>) -> tensor<2x16x256xf16>
  return %0 : tensor<2x16x256xf16>
}

// -----

// CHECK-LABEL: func.func @linear_f32_no_bias(
// CHECK:         %[[MM:.*]] = linalg.matmul
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<64x784xf32>, tensor<256x784xf32>) outs(%{{.*}} : tensor<64x256xf32>)
// CHECK-NEXT:    return %[[MM]] : tensor<64x256xf32>
func.func @linear_f32_no_bias(%x: tensor<64x784xf32>, %w: tensor<256x784xf32>) -> tensor<64x256xf32> {
  %0 = mp.linear %x, %w acc(f32) : (tensor<64x784xf32>, tensor<256x784xf32>) -> tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}

// -----

// conv2d: the zero padding by one generic that scatters the input into a
// zero tensor (output map (n, c, h + 1, w + 1); the payload reads the zero
// it replaces, so the fill stays); 16 filters (at least 8): pixel-major,
// the padded input in f32 (the f16 elements extended while scattered, so
// that the im2col is a plain copy), with panels of 8 pixels (the largest
// divisor of OW = 16 up to 8) at width stride 2: the
// im2col [N·OH·OW/8, C·KH·KW, 8] by one copying generic over (n, oh, owb,
// c, kh, kw, r), the pixel (n, oh, 8·owb + r), with an affine input map, an
// empty window [OH, OW/8, KH, KW, 8] giving the extents of oh, owb, kh, kw,
// r, and an output map linearising the panel and the patch element (no
// reshape, no copy); one linalg.contract into f32 over (p, r, f, k) reading
// the panel at (p, k, r) and the filter as [C·KH·KW, F] (its copy extends
// the f16 elements to f32 once), collapsed to [N·OH·OW, F]; then one
// generic reading it transposed to NCHW, adding the bias and rounding once.
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d3, d1 * 2 + d4, (d2 * 8 + d6) * 2 + d5)>
// CHECK-DAG: #[[$WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d2, d4, d5, d6)>
// CHECK-DAG: #[[$COLM:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> ((d0 * 16 + d1) * 2 + d2, (d3 * 3 + d4) * 3 + d5, d6)>
// CHECK-DAG: #[[$FMAT:.*]] = affine_map<(d0, d1) -> (d1, d0 floordiv 9, (d0 floordiv 3) mod 3, d0 mod 3)>
// CHECK-DAG: #[[$PKR:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-DAG: #[[$KF:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-DAG: #[[$PRF:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[$NCHW:.*]] = affine_map<(d0, d1, d2, d3) -> ((d0 * 16 + d2) * 16 + d3, d1)>
// CHECK-DAG: #[[$CHAN:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[$ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$SCATTER:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 + 1, d3 + 1)>
// CHECK-LABEL: func.func @conv2d(
// CHECK-SAME:    %[[X:.*]]: tensor<8x3x32x32xf16>, %[[W:.*]]: tensor<16x3x3x3xf16>, %[[B:.*]]: tensor<16xf16>)
// CHECK:         %[[ZEROS:.*]] = linalg.fill {{.*}} -> tensor<8x3x34x34xf32>
// CHECK:         %[[PAD:.*]] = linalg.generic {indexing_maps = [#[[$ID4]], #[[$SCATTER]]]
// CHECK-SAME:      ins(%[[X]] : tensor<8x3x32x32xf16>) outs(%[[ZEROS]] : tensor<8x3x34x34xf32>)
// CHECK:           ^bb0(%[[IN:.*]]: f16, %[[OUT:.*]]: f32):
// CHECK-NEXT:        %[[WIDE:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT:        %[[SUM:.*]] = arith.addf %[[WIDE]], %[[OUT]] : f32
// CHECK-NEXT:        %[[ORD:.*]] = arith.cmpf ord, %[[WIDE]], %[[WIDE]] : f32
// CHECK-NEXT:        %[[V:.*]] = arith.select %[[ORD]], %[[WIDE]], %[[SUM]] : f32
// CHECK-NEXT:        linalg.yield %[[V]] : f32
// CHECK:         %[[WINDOW:.*]] = tensor.empty() : tensor<16x2x3x3x8xf32>
// CHECK:         %[[COL:.*]] = linalg.generic {indexing_maps = [#[[$COL]], #[[$WIN]], #[[$COLM]]]
// CHECK-SAME:      ins(%[[PAD]], %[[WINDOW]] : tensor<8x3x34x34xf32>, tensor<16x2x3x3x8xf32>) outs(%{{.*}} : tensor<256x27x8xf32>)
// CHECK:           ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:        linalg.yield %[[IN]] : f32
// CHECK:         %[[FILTER:.*]] = linalg.generic {indexing_maps = [#[[$FMAT]], {{.*}}]
// CHECK-SAME:      ins(%[[W]] : tensor<16x3x3x3xf16>) outs(%{{.*}} : tensor<27x16xf32>)
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:         %[[ACC:.*]] = linalg.fill {{.*}} -> tensor<256x8x16xf32>
// CHECK:         %[[MM:.*]] = linalg.contract indexing_maps = [#[[$PKR]], #[[$KF]], #[[$PRF]]] ins(%[[COL]], %[[FILTER]] : tensor<256x27x8xf32>, tensor<27x16xf32>) outs(%[[ACC]] : tensor<256x8x16xf32>)
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[MM]] {{\[}}[0, 1], [2]] : tensor<256x8x16xf32> into tensor<2048x16xf32>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$NCHW]], #[[$CHAN]], {{.*}}]
// CHECK-SAME:      ins(%[[FLAT]], %[[B]] : tensor<2048x16xf32>, tensor<16xf16>) outs(%{{.*}} : tensor<8x16x16x16xf16>)
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:           arith.addf
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK:         return %[[R]]
func.func @conv2d(%x: tensor<8x3x32x32xf16>, %w: tensor<16x3x3x3xf16>, %b: tensor<16xf16>) -> tensor<8x16x16x16xf16> {
  %0 = mp.conv2d %x, %w, %b acc(f32) {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<8x3x32x32xf16>, tensor<16x3x3x3xf16>, tensor<16xf16>) -> tensor<8x16x16x16xf16>
  return %0 : tensor<8x16x16x16xf16>
}

// -----

// Pixel-major with an output width (3) that has no divisor from 8 down to
// 4: no panels; the im2col [C·KH·KW, N·OH·OW] is written in rows of pixels
// and read transposed by linalg.matmul.
// CHECK-DAG: #[[$TCOLM:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> ((d0 * 3 + d1) * 3 + d2, (d3 * 3 + d4) * 3 + d5)>
// CHECK-DAG: #[[$TKM:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-LABEL: func.func @conv2d_transposed_col(
// CHECK:         %[[COL:.*]] = linalg.generic {indexing_maps = [{{.*}}, {{.*}}, #[[$TCOLM]]]
// CHECK-SAME:      outs(%{{.*}} : tensor<18x18xf32>)
// CHECK:         %[[FILTER:.*]] = linalg.generic
// CHECK-SAME:      outs(%{{.*}} : tensor<18x8xf32>)
// CHECK:         linalg.matmul indexing_maps = [#[[$TKM]], {{.*}}, {{.*}}] ins(%[[COL]], %[[FILTER]] : tensor<18x18xf32>, tensor<18x8xf32>) outs(%{{.*}} : tensor<18x8xf32>)
// CHECK-NOT:     linalg.contract
func.func @conv2d_transposed_col(%x: tensor<2x2x3x3xf32>, %w: tensor<8x2x3x3xf32>) -> tensor<2x8x3x3xf32> {
  %0 = mp.conv2d %x, %w acc(f32) {padding = array<i64: 1, 1>} : (tensor<2x2x3x3xf32>, tensor<8x2x3x3xf32>) -> tensor<2x8x3x3xf32>
  return %0 : tensor<2x8x3x3xf32>
}

// -----

// Grouped and pixel-major (8 filters per group), stride 2 along the width:
// panels of the 4 pixels of each output row: the im2col per group [G,
// N·OH·OW/4, C/G·KH·KW, 4] over (g, n, oh, owb, c, kh, kw, r), the window
// [G, C/G, OH, OW/4, KH, KW, 4], and one linalg.contract with the group as
// its batch loop, collapsed to [G, N·OH·OW, F/G].
// CHECK-DAG: #[[$PGCOL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d0 * 2 + d4, d2 + d5, (d3 * 4 + d7) * 2 + d6)>
// CHECK-DAG: #[[$PGWIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d4, d2, d3, d5, d6, d7)>
// CHECK-DAG: #[[$PGCOLM:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1 * 4 + d2 + d3, d4 * 3 + d5 + d6, d7)>
// CHECK-DAG: #[[$GPKR:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d2)>
// CHECK-DAG: #[[$GKF:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d4, d3)>
// CHECK-DAG: #[[$GPRF:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @conv2d_grouped_panels(
// CHECK-SAME:    %[[X:.*]]: tensor<1x4x6x8xf32>, %[[W:.*]]: tensor<16x2x3x1xf32>)
// CHECK:         %[[WINDOW:.*]] = tensor.empty() : tensor<2x2x4x1x3x1x4xf32>
// CHECK:         %[[COL:.*]] = linalg.generic {indexing_maps = [#[[$PGCOL]], #[[$PGWIN]], #[[$PGCOLM]]]
// CHECK-SAME:      ins(%[[X]], %[[WINDOW]] : tensor<1x4x6x8xf32>, tensor<2x2x4x1x3x1x4xf32>) outs(%{{.*}} : tensor<2x4x6x4xf32>)
// CHECK:         %[[FILTER:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[W]] : tensor<16x2x3x1xf32>) outs(%{{.*}} : tensor<2x6x8xf32>)
// CHECK:         %[[MM:.*]] = linalg.contract indexing_maps = [#[[$GPKR]], #[[$GKF]], #[[$GPRF]]] ins(%[[COL]], %[[FILTER]] : tensor<2x4x6x4xf32>, tensor<2x6x8xf32>) outs(%{{.*}} : tensor<2x4x4x8xf32>)
// CHECK:         tensor.collapse_shape %[[MM]] {{\[}}[0], [1, 2], [3]] : tensor<2x4x4x8xf32> into tensor<2x16x8xf32>
func.func @conv2d_grouped_panels(%x: tensor<1x4x6x8xf32>, %w: tensor<16x2x3x1xf32>) -> tensor<1x16x4x4xf32> {
  %0 = mp.conv2d %x, %w acc(f32) {groups = 2 : i64, strides = array<i64: 1, 2>} : (tensor<1x4x6x8xf32>, tensor<16x2x3x1xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// Pixel-major at unit width stride: no im2col (an implicit GEMM). The
// filter copied to [C, KH, KW, F] in f32 behind a fusion barrier, and one
// generic over (n, oh, owb, r, f, c, kh, kw), c, kh, kw the reductions in
// that order, reading the padded input (extended to f32 while padded) at
// (n, c, oh + kh, 8·owb + r + kw) and adding out + a·b into the zero
// accumulator [N, OH, OW/8, 8, F], collapsed to [N·OH·OW, F].
// CHECK-DAG: #[[$IFILT:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d0, d1, d2)>
// CHECK-DAG: #[[$IIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d1 + d6, d2 * 8 + d3 + d7)>
// CHECK-DAG: #[[$IW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7, d4)>
// CHECK-DAG: #[[$IACC:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-LABEL: func.func @conv2d_implicit(
// CHECK-SAME:    %[[X:.*]]: tensor<2x16x6x8xbf16>, %[[W:.*]]: tensor<16x16x3x3xbf16>)
// CHECK:         %[[PAD:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<2x16x6x8xbf16>) outs(%{{.*}} : tensor<2x16x8x10xf32>)
// CHECK:         %[[FILTER:.*]] = linalg.generic {indexing_maps = [#[[$IFILT]], {{.*}}]
// CHECK-SAME:      ins(%[[W]] : tensor<16x16x3x3xbf16>) outs(%{{.*}} : tensor<16x3x3x16xf32>)
// CHECK:         %[[WB:.*]] = bufferization.alloc_tensor() copy(%[[FILTER]]) {mp.fusion_barrier} : tensor<16x3x3x16xf32>
// CHECK:         %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<2x6x1x8x16xf32>
// CHECK:         %[[ACC:.*]] = linalg.generic {indexing_maps = [#[[$IIN]], #[[$IW]], #[[$IACC]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME:      ins(%[[PAD]], %[[WB]] : tensor<2x16x8x10xf32>, tensor<16x3x3x16xf32>) outs(%[[ZERO]] : tensor<2x6x1x8x16xf32>)
// CHECK:           ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT:        %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[OUT]], %[[P]] : f32
// CHECK-NEXT:        linalg.yield %[[S]] : f32
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[ACC]] {{\[}}[0, 1, 2, 3], [4]] : tensor<2x6x1x8x16xf32> into tensor<96x16xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[FLAT]] : tensor<96x16xf32>) outs(%{{.*}} : tensor<2x16x6x8xbf16>)
// CHECK-NOT:     linalg.contract
func.func @conv2d_implicit(%x: tensor<2x16x6x8xbf16>, %w: tensor<16x16x3x3xbf16>) -> tensor<2x16x6x8xbf16> {
  %0 = mp.conv2d %x, %w acc(f32) {padding = array<i64: 1, 1>} : (tensor<2x16x6x8xbf16>, tensor<16x16x3x3xbf16>) -> tensor<2x16x6x8xbf16>
  return %0 : tensor<2x16x6x8xbf16>
}

// -----

// Grouped at unit width stride: the implicit GEMM with the group as its
// first loop, reading channel 2·g + c.
// CHECK-DAG: #[[$GIIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d1, d0 * 2 + d6, d2 + d7, d3 * 4 + d4 + d8)>
// CHECK-DAG: #[[$GIW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d6, d7, d8, d5)>
// CHECK-DAG: #[[$GIACC:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-LABEL: func.func @conv2d_implicit_grouped(
// CHECK:         %[[WB:.*]] = bufferization.alloc_tensor() copy(%{{.*}}) {mp.fusion_barrier} : tensor<2x2x3x1x8xf32>
// CHECK:         %[[ACC:.*]] = linalg.generic {indexing_maps = [#[[$GIIN]], #[[$GIW]], #[[$GIACC]]]
// CHECK-SAME:      ins(%{{.*}}, %[[WB]] : tensor<1x4x6x4xf32>, tensor<2x2x3x1x8xf32>) outs(%{{.*}} : tensor<2x1x4x1x4x8xf32>)
// CHECK:         tensor.collapse_shape %[[ACC]] {{\[}}[0], [1, 2, 3, 4], [5]] : tensor<2x1x4x1x4x8xf32> into tensor<2x16x8xf32>
func.func @conv2d_implicit_grouped(%x: tensor<1x4x6x4xf32>, %w: tensor<16x2x3x1xf32>) -> tensor<1x16x4x4xf32> {
  %0 = mp.conv2d %x, %w acc(f32) {groups = 2 : i64} : (tensor<1x4x6x4xf32>, tensor<16x2x3x1xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// -----

// Grouped (dilation 2, no padding: no padding generic), 3 filters per
// group (fewer than 8): im2col per group [G, C/G·KH·KW, N·OH·OW] (loops
// (g, c, kh, kw, n, oh, ow), the window [G, C/G, KH, KW, OH, OW]), the
// filter [G, F/G, C/G·KH·KW], one
// linalg.batch_matmul over the groups, the result [N, G, F/G, OH, OW]
// collapsed to NCHW.
// CHECK-DAG: #[[$GCOL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0 * 2 + d1, d5 + d2 * 2, d6 + d3 * 2)>
// CHECK-DAG: #[[$GWIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d5, d6)>
// CHECK-DAG: #[[$GCOLM:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, (d1 * 3 + d2) * 3 + d3, (d4 * 4 + d5) * 4 + d6)>
// CHECK-DAG: #[[$GFMAT:.*]] = affine_map<(d0, d1, d2) -> (d0 * 3 + d1, d2 floordiv 9, (d2 floordiv 3) mod 3, d2 mod 3)>
// CHECK-DAG: #[[$GOUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, (d0 * 4 + d3) * 4 + d4)>
// CHECK-LABEL: func.func @conv2d_grouped(
// CHECK-SAME:    %[[X:.*]]: tensor<1x4x8x8xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>)
// CHECK:         %[[COL:.*]] = linalg.generic {indexing_maps = [#[[$GCOL]], #[[$GWIN]], #[[$GCOLM]]]
// CHECK-SAME:      ins(%[[X]], %{{.*}} : tensor<1x4x8x8xf32>, tensor<2x2x3x3x4x4xf32>) outs(%{{.*}} : tensor<2x18x16xf32>)
// CHECK:         %[[FILTER:.*]] = linalg.generic {indexing_maps = [#[[$GFMAT]], {{.*}}]
// CHECK-SAME:      outs(%{{.*}} : tensor<2x3x18xf32>)
// CHECK:         %[[MM:.*]] = linalg.batch_matmul ins(%[[FILTER]], %[[COL]] : tensor<2x3x18xf32>, tensor<2x18x16xf32>) outs(%{{.*}} : tensor<2x3x16xf32>)
// CHECK:         %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[$GOUT]], {{.*}}]
// CHECK-SAME:      ins(%[[MM]] : tensor<2x3x16xf32>) outs(%{{.*}} : tensor<1x2x3x4x4xf32>)
// CHECK:         %[[R:.*]] = tensor.collapse_shape %[[OUT]] {{\[}}[0], [1, 2], [3], [4]] : tensor<1x2x3x4x4xf32> into tensor<1x6x4x4xf32>
// CHECK:         return %[[R]]
func.func @conv2d_grouped(%x: tensor<1x4x8x8xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<1x6x4x4xf32> {
  %0 = mp.conv2d %x, %w acc(f32) {dilation = array<i64: 2, 2>, groups = 2 : i64} : (tensor<1x4x8x8xf32>, tensor<6x2x3x3xf32>) -> tensor<1x6x4x4xf32>
  return %0 : tensor<1x6x4x4xf32>
}

// -----

// The transposed convolution at stride 2, per phase (input positions ≡
// (rh, rw) mod 2): a stride-1 convolution of the gradient with the taps of
// the flipped filter that reach gradient elements (phase (0, 0): tap
// (1, 1); (0, 1): kh = 1, kw ∈ {0, 2}; (1, 0); (1, 1): all four corners),
// the gradient padded by one after (one more before, cropped) where two taps
// read it, then one generic scattering the product into the zero result at
// (n, c, 2·h + rh, 2·w + rw), reading the element it replaces (its extents
// from an empty tensor of the phase's shape). The dilated gradient's zeros
// are never multiplied.
// CHECK-DAG: #[[$TAP00:.*]] = affine_map<(d0, d1) -> (d1, d0, 1, 1)>
// CHECK-DAG: #[[$TAP01:.*]] = affine_map<(d0, d1) -> (d1 floordiv 2, d0, 1, (d1 mod 2) * -2 + 2)>
// CHECK-DAG: #[[$TAP11:.*]] = affine_map<(d0, d1) -> (d1 floordiv 4, d0, ((d1 floordiv 2) mod 2) * -2 + 2, (d1 mod 2) * -2 + 2)>
// CHECK-DAG: #[[$ACC:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, (d0 * 16 + d2) * 16 + d3)>
// CHECK-DAG: #[[$PHASE00:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2, d3 * 2)>
// CHECK-DAG: #[[$PHASE01:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2, d3 * 2 + 1)>
// CHECK-DAG: #[[$PHASE10:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2 + 1, d3 * 2)>
// CHECK-DAG: #[[$PHASE11:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 2 + 1, d3 * 2 + 1)>
// CHECK-DAG: #[[$PADW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3 + 1)>
// CHECK-LABEL: func.func @conv2d_grad_input(
// CHECK-SAME:    %[[DY:.*]]: tensor<8x16x16x16xf32>, %[[W:.*]]: tensor<16x3x3x3xf32>)
// CHECK:         %[[ZEROS:.*]] = linalg.fill {{.*}} -> tensor<8x3x32x32xf32>
// CHECK:         %[[COL0:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[DY]], %{{.*}} : tensor<8x16x16x16xf32>, tensor<1x1x16x16xf32>) outs(%{{.*}} : tensor<16x2048xf32>)
// CHECK:         %[[F0:.*]] = linalg.generic {indexing_maps = [#[[$TAP00]], {{.*}}]
// CHECK-SAME:      ins(%[[W]] : tensor<16x3x3x3xf32>) outs(%{{.*}} : tensor<3x16xf32>)
// CHECK:         %[[MM0:.*]] = linalg.matmul ins(%[[F0]], %[[COL0]] : tensor<3x16xf32>, tensor<16x2048xf32>)
// CHECK:         %[[R0:.*]] = linalg.generic {indexing_maps = [#[[$ACC]], {{.*}}, #[[$PHASE00]]]
// CHECK-SAME:      ins(%[[MM0]], %{{.*}} : tensor<3x2048xf32>, tensor<8x3x16x16xf32>) outs(%[[ZEROS]] : tensor<8x3x32x32xf32>)
// CHECK:           ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT:        %[[SUM:.*]] = arith.addf %[[IN]], %[[OUT]] : f32
// CHECK-NEXT:        %[[ORD:.*]] = arith.cmpf ord, %[[IN]], %[[IN]] : f32
// CHECK-NEXT:        %[[V:.*]] = arith.select %[[ORD]], %[[IN]], %[[SUM]] : f32
// CHECK-NEXT:        linalg.yield %[[V]] : f32
// CHECK:         %[[PAD1:.*]] = linalg.generic {indexing_maps = [{{.*}}, #[[$PADW]]]
// CHECK-SAME:      ins(%[[DY]] : tensor<8x16x16x16xf32>) outs(%{{.*}} : tensor<8x16x16x18xf32>)
// CHECK:         %[[CROP1:.*]] = tensor.extract_slice %[[PAD1]][0, 0, 0, 1] [8, 16, 16, 17] [1, 1, 1, 1]
// CHECK:         %[[COL1:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[CROP1]], %{{.*}} : tensor<8x16x16x17xf32>, tensor<1x2x16x16xf32>) outs(%{{.*}} : tensor<32x2048xf32>)
// CHECK:         linalg.generic {indexing_maps = [#[[$TAP01]], {{.*}}]
// CHECK:         linalg.matmul
// CHECK:         %[[R1:.*]] = linalg.generic {indexing_maps = [#[[$ACC]], {{.*}}, #[[$PHASE01]]]
// CHECK-SAME:      outs(%[[R0]] : tensor<8x3x32x32xf32>)
// CHECK:         %[[R2:.*]] = linalg.generic {indexing_maps = [#[[$ACC]], {{.*}}, #[[$PHASE10]]]
// CHECK-SAME:      outs(%[[R1]] : tensor<8x3x32x32xf32>)
// CHECK:         linalg.generic {indexing_maps = [#[[$TAP11]], {{.*}}]
// CHECK-SAME:      outs(%{{.*}} : tensor<3x64xf32>)
// CHECK:         %[[R3:.*]] = linalg.generic {indexing_maps = [#[[$ACC]], {{.*}}, #[[$PHASE11]]]
// CHECK-SAME:      outs(%[[R2]] : tensor<8x3x32x32xf32>)
// CHECK:         return %[[R3]]
func.func @conv2d_grad_input(%dy: tensor<8x16x16x16xf32>, %w: tensor<16x3x3x3xf32>) -> tensor<8x3x32x32xf32> {
  %0 = mp.conv2d_grad_input %dy, %w acc(f32) {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>} : (tensor<8x16x16x16xf32>, tensor<16x3x3x3xf32>) -> tensor<8x3x32x32xf32>
  return %0 : tensor<8x3x32x32xf32>
}

// -----

// Grouped: row co of group g of the transposed filter reads filter
// g·F/G + f, channel co, flipped.
// CHECK-DAG: #[[$GFLIP:.*]] = affine_map<(d0, d1, d2) -> ((d0 + d1 floordiv 2) * 3 + d2 floordiv 3, d1 mod 2, -(d2 mod 3) + 2, 0)>
// CHECK-LABEL: func.func @conv2d_grad_input_grouped(
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<1x6x10x8xf32>)
// CHECK:         linalg.generic {indexing_maps = [#[[$GFLIP]], {{.*}}]
// CHECK-SAME:      ins(%{{.*}} : tensor<6x2x3x1xf32>) outs(%{{.*}} : tensor<2x2x9xf32>)
// CHECK:         linalg.batch_matmul
// CHECK-SAME:      tensor<2x2x9xf32>, tensor<2x9x64xf32>) outs(%{{.*}} : tensor<2x2x64xf32>)
func.func @conv2d_grad_input_grouped(%dy: tensor<1x6x8x8xf32>, %w: tensor<6x2x3x1xf32>) -> tensor<1x4x8x8xf32> {
  %0 = mp.conv2d_grad_input %dy, %w acc(f32) {padding = array<i64: 1, 0>, groups = 2 : i64} : (tensor<1x6x8x8xf32>, tensor<6x2x3x1xf32>) -> tensor<1x4x8x8xf32>
  return %0 : tensor<1x4x8x8xf32>
}

// -----

// Filter gradient with 8 filters but 2 channels per group (fewer than 8,
// the channels would not fill the CPU tile's rows): the padded input's im2col [G,
// C/G·KH·KW, N·OH·OW] and the gradient transposed to [G, N·OH·OW, F/G]
// (reshaped behind a barrier), one linalg.batch_matmul col · dYᵀ reducing over the
// pixels into f32 [G, C/G·KH·KW, F/G] (the copies extend the f16
// elements to f32), then one generic over the FCHW result reading it at
// (f floordiv 8, (c·3 + kh)·3 + kw, f mod 8) and rounding once.
// CHECK-DAG: #[[$GCOL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d0 * 2 + d1, d5 * 2 + d2, d6 * 2 + d3)>
// CHECK-DAG: #[[$DYT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d0 * 8 + d4, d2, d3)>
// CHECK-DAG: #[[$FCHW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0 floordiv 8, (d1 * 3 + d2) * 3 + d3, d0 mod 8)>
// CHECK-LABEL: func.func @conv2d_grad_filter(
// CHECK-SAME:    %[[DY:.*]]: tensor<8x16x16x16xf16>, %[[X:.*]]: tensor<8x4x32x32xf16>)
// CHECK:         %[[PAD:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<8x4x34x34xf32>)
// CHECK:         %[[COL:.*]] = linalg.generic {indexing_maps = [#[[$GCOL]], {{.*}}]
// CHECK-SAME:      ins(%[[PAD]], %{{.*}} : tensor<8x4x34x34xf32>, tensor<2x2x3x3x16x16xf32>) outs(%{{.*}} : tensor<2x18x2048xf32>)
// CHECK:         %[[DYT:.*]] = linalg.generic {indexing_maps = [#[[$DYT]], {{.*}}]
// CHECK-SAME:      ins(%[[DY]] : tensor<8x16x16x16xf16>) outs(%{{.*}} : tensor<2x8x16x16x8xf32>)
// CHECK:         %[[DYB:.*]] = bufferization.alloc_tensor() copy(%{{.*}}) {mp.fusion_barrier} : tensor<2x2048x8xf32>
// CHECK:         %[[DW:.*]] = linalg.batch_matmul ins(%[[COL]], %[[DYB]] : tensor<2x18x2048xf32>, tensor<2x2048x8xf32>) outs(%{{.*}} : tensor<2x18x8xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$FCHW]], {{.*}}]
// CHECK-SAME:      ins(%[[DW]] : tensor<2x18x8xf32>) outs(%{{.*}} : tensor<16x2x3x3xf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK:         return %[[R]]
func.func @conv2d_grad_filter(%dy: tensor<8x16x16x16xf16>, %x: tensor<8x4x32x32xf16>) -> tensor<16x2x3x3xf16> {
  %0 = mp.conv2d_grad_filter %dy, %x acc(f32) {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>, groups = 2 : i64} : (tensor<8x16x16x16xf16>, tensor<8x4x32x32xf16>) -> tensor<16x2x3x3xf16>
  return %0 : tensor<16x2x3x3xf16>
}

// -----

// Filter gradient with 8 filters and 8 channels per group: no im2col. The
// padded input (its f16 elements extended to f32 by the padding generic)
// is read in place by one generic over (g, kh, kw, c, f, n, oh, ow) at (n,
// 8·g + c, 2·oh + kh, 2·ow + kw), times the gradient transposed to [G, N,
// OH, OW, F/G] (behind a barrier, no reshape), reducing over (n, oh, ow)
// in that order into f32 [G, KH, KW, C/G, F/G], the product and the sum
// separate; then one generic over the FCHW result reads it at (f floordiv
// 8, kh, kw, c, f mod 8) and rounds once.
// CHECK-DAG: #[[$IGX:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d0 * 8 + d3, d6 * 2 + d1, d7 * 2 + d2)>
// CHECK-DAG: #[[$IGDY:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d5, d6, d7, d4)>
// CHECK-DAG: #[[$IGACC:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[$IGDYT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d1, d0 * 8 + d4, d2, d3)>
// CHECK-DAG: #[[$IGFCHW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0 floordiv 8, d2, d3, d1, d0 mod 8)>
// CHECK-LABEL: func.func @conv2d_grad_filter_implicit(
// CHECK-SAME:    %[[DY:.*]]: tensor<2x16x4x4xf16>, %[[X:.*]]: tensor<2x16x8x8xf16>)
// CHECK:         %[[PAD:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x16x10x10xf32>)
// CHECK:         %[[DYT:.*]] = linalg.generic {indexing_maps = [#[[$IGDYT]], {{.*}}]
// CHECK-SAME:      ins(%[[DY]] : tensor<2x16x4x4xf16>) outs(%{{.*}} : tensor<2x2x4x4x8xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.extf
// CHECK-NEXT:      linalg.yield
// CHECK-NEXT:    } -> tensor<2x2x4x4x8xf32>
// CHECK-NEXT:    %[[DYB:.*]] = bufferization.alloc_tensor() copy(%[[DYT]]) {mp.fusion_barrier} : tensor<2x2x4x4x8xf32>
// CHECK:         %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<2x3x3x8x8xf32>
// CHECK:         %[[DW:.*]] = linalg.generic {indexing_maps = [#[[$IGX]], #[[$IGDY]], #[[$IGACC]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
// CHECK-SAME:      ins(%[[PAD]], %[[DYB]] : tensor<2x16x10x10xf32>, tensor<2x2x4x4x8xf32>) outs(%[[ZERO]] : tensor<2x3x3x8x8xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[OUT]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$IGFCHW]], {{.*}}]
// CHECK-SAME:      ins(%[[DW]] : tensor<2x3x3x8x8xf32>) outs(%{{.*}} : tensor<16x8x3x3xf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK:         return %[[R]]
// CHECK-NOT:     linalg.batch_matmul
func.func @conv2d_grad_filter_implicit(%dy: tensor<2x16x4x4xf16>, %x: tensor<2x16x8x8xf16>) -> tensor<16x8x3x3xf16> {
  %0 = mp.conv2d_grad_filter %dy, %x acc(f32) {padding = array<i64: 1, 1>, strides = array<i64: 2, 2>, groups = 2 : i64} : (tensor<2x16x4x4xf16>, tensor<2x16x8x8xf16>) -> tensor<16x8x3x3xf16>
  return %0 : tensor<16x8x3x3xf16>
}

// -----

// One group, a 1x1 filter, no padding: the bf16 input is read in place by
// the implicit product (no G loop), extended exactly in its payload; the
// gradient transposed to [N, OH, OW, F].
// CHECK-DAG: #[[$I1X:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d2, d5 * 2 + d0, d6 * 2 + d1)>
// CHECK-DAG: #[[$I1DY:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d4, d5, d6, d3)>
// CHECK-DAG: #[[$I1ACC:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[$I1FCHW:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1, d0)>
// CHECK-LABEL: func.func @conv2d_grad_filter_implicit_1x1(
// CHECK-SAME:    %[[DY:.*]]: tensor<2x8x4x4xbf16>, %[[X:.*]]: tensor<2x8x8x8xbf16>)
// CHECK:         %[[DYB:.*]] = bufferization.alloc_tensor() copy(%{{.*}}) {mp.fusion_barrier} : tensor<2x4x4x8xf32>
// CHECK:         %[[DW:.*]] = linalg.generic {indexing_maps = [#[[$I1X]], #[[$I1DY]], #[[$I1ACC]]]
// CHECK-SAME:      ins(%[[X]], %[[DYB]] : tensor<2x8x8x8xbf16>, tensor<2x4x4x8xf32>) outs(%{{.*}} : tensor<1x1x8x8xf32>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: bf16, %[[B:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT:      %[[AW:.*]] = arith.extf %[[A]] : bf16 to f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[AW]], %[[B]] : f32
// CHECK-NEXT:      arith.addf %[[OUT]], %[[P]] : f32
// CHECK:         linalg.generic {indexing_maps = [#[[$I1FCHW]], {{.*}}]
// CHECK-SAME:      ins(%[[DW]] : tensor<1x1x8x8xf32>) outs(%{{.*}} : tensor<8x8x1x1xf32>)
func.func @conv2d_grad_filter_implicit_1x1(%dy: tensor<2x8x4x4xbf16>, %x: tensor<2x8x8x8xbf16>) -> tensor<8x8x1x1xf32> {
  %0 = mp.conv2d_grad_filter %dy, %x acc(f32) {strides = array<i64: 2, 2>} : (tensor<2x8x4x4xbf16>, tensor<2x8x8x8xbf16>) -> tensor<8x8x1x1xf32>
  return %0 : tensor<8x8x1x1xf32>
}

// -----

// FP8 operands of the implicit filter gradient are widened to f32 once, each
// behind a fusion barrier (the transposed gradient's copy already is one):
// fused into the product, the widenings would make it an FP8 generic, which
// the CPU pipeline leaves scalar.
// CHECK-LABEL: func.func @conv2d_grad_filter_implicit_fp8(
// CHECK:         %[[DYW:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2x6x8x16xf8E5M2>) outs(%{{.*}} : tensor<2x6x8x16xf32>)
// CHECK:         %[[DYB:.*]] = bufferization.alloc_tensor() copy(%[[DYW]]) {mp.fusion_barrier} : tensor<2x6x8x16xf32>
// CHECK:         %[[XW:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2x8x8x10xf8E4M3FN>) outs(%{{.*}} : tensor<2x8x8x10xf32>)
// CHECK:         %[[XB:.*]] = bufferization.alloc_tensor() copy(%[[XW]]) {mp.fusion_barrier} : tensor<2x8x8x10xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[XB]], %[[DYB]] : tensor<2x8x8x10xf32>, tensor<2x6x8x16xf32>) outs(%{{.*}} : tensor<3x3x8x16xf32>)
func.func @conv2d_grad_filter_implicit_fp8(%dy: tensor<2x16x6x8xf8E5M2>, %x: tensor<2x8x6x8xf8E4M3FN>) -> tensor<16x8x3x3xf32> {
  %0 = mp.conv2d_grad_filter %dy, %x acc(f32) {padding = array<i64: 1, 1>} : (tensor<2x16x6x8xf8E5M2>, tensor<2x8x6x8xf8E4M3FN>) -> tensor<16x8x3x3xf32>
  return %0 : tensor<16x8x3x3xf32>
}

// -----

// So is the FP8 input of the implicit forward product (its filter is widened
// in its copy, behind its barrier).
// CHECK-LABEL: func.func @conv2d_implicit_fp8(
// CHECK:         %[[XW:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2x16x10x10xf8E4M3FN>) outs(%{{.*}} : tensor<2x16x10x10xf32>)
// CHECK:         %[[XB:.*]] = bufferization.alloc_tensor() copy(%[[XW]]) {mp.fusion_barrier} : tensor<2x16x10x10xf32>
// CHECK:         %[[WB:.*]] = bufferization.alloc_tensor() copy(%{{.*}}) {mp.fusion_barrier} : tensor<16x3x3x16xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[XB]], %[[WB]] : tensor<2x16x10x10xf32>, tensor<16x3x3x16xf32>) outs(%{{.*}} : tensor<2x8x1x8x16xf32>)
func.func @conv2d_implicit_fp8(%x: tensor<2x16x8x8xf8E4M3FN>, %w: tensor<16x16x3x3xf8E4M3FN>) -> tensor<2x16x8x8xf32> {
  %0 = mp.conv2d %x, %w acc(f32) {padding = array<i64: 1, 1>} : (tensor<2x16x8x8xf8E4M3FN>, tensor<16x16x3x3xf8E4M3FN>) -> tensor<2x16x8x8xf32>
  return %0 : tensor<2x16x8x8xf32>
}

// -----

// Filter gradient with fewer than 8 filters per group (depthwise): the
// gradient times the transposed im2col [G, N·OH·OW, C/G·KH·KW] (dYᵀᵀ·colᵀ,
// reducing over the pixels), the FCHW result read at (f, 0, k).
// CHECK-DAG: #[[$DTCOL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d1, d0 + d4, d2 + d5, d3 + d6)>
// CHECK-DAG: #[[$DKM:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>
// CHECK-DAG: #[[$DKN:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>
// CHECK-DAG: #[[$DFCHW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, 0, (d1 * 3 + d2) * 3 + d3)>
// CHECK-LABEL: func.func @conv2d_grad_filter_depthwise(
// CHECK-SAME:    %[[DY:.*]]: tensor<2x4x8x8xf32>, %[[X:.*]]: tensor<2x4x8x8xf32>)
// CHECK:         %[[COL:.*]] = linalg.generic {indexing_maps = [#[[$DTCOL]], {{.*}}]
// CHECK-SAME:      outs(%{{.*}} : tensor<4x128x9xf32>)
// CHECK:         %[[DYB:.*]] = bufferization.alloc_tensor() copy(%{{.*}}) {mp.fusion_barrier} : tensor<4x128x1xf32>
// CHECK:         %[[DW:.*]] = linalg.batch_matmul indexing_maps = [#[[$DKM]], #[[$DKN]], {{.*}}]
// CHECK-SAME:      ins(%[[DYB]], %[[COL]] : tensor<4x128x1xf32>, tensor<4x128x9xf32>) outs(%{{.*}} : tensor<4x1x9xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$DFCHW]], {{.*}}]
// CHECK-SAME:      ins(%[[DW]] : tensor<4x1x9xf32>) outs(%{{.*}} : tensor<4x1x3x3xf32>)
// CHECK:         return %[[R]]
func.func @conv2d_grad_filter_depthwise(%dy: tensor<2x4x8x8xf32>, %x: tensor<2x4x8x8xf32>) -> tensor<4x1x3x3xf32> {
  %0 = mp.conv2d_grad_filter %dy, %x acc(f32) {padding = array<i64: 1, 1>, groups = 4 : i64} : (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<4x1x3x3xf32>
  return %0 : tensor<4x1x3x3xf32>
}
