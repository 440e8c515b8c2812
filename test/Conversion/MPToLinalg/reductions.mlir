// Reductions, softmax and normalisations: linalg.generic reductions into f32
// accumulators (narrow inputs extended in the payload), then one elementwise
// generic rounding once to the input type; keepdims by tensor.expand_shape.
// RUN: mp-opt %s --convert-mp-to-linalg | FileCheck %s

// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$MID:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-DAG: #[[$ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$LEAD:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$LAST:.*]] = affine_map<(d0, d1, d2) -> (d2)>

// CHECK-LABEL: func.func @reduce_sum_f16_keepdims(
// CHECK-SAME:    %[[X:.*]]: tensor<4x8x16xf16>)
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<8xf32>)
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$MID]]], iterator_types = ["reduction", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]] : tensor<4x8x16xf16>) outs(%[[ACC]] : tensor<8xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f16, %[[OUT:.*]]: f32):
// CHECK-NEXT:      %[[IN32:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT:      %[[ADD:.*]] = arith.addf %[[OUT]], %[[IN32]] : f32
// CHECK-NEXT:      linalg.yield %[[ADD]] : f32
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]}
// CHECK-SAME:      ins(%[[SUM]] : tensor<8xf32>) outs(%{{.*}} : tensor<8xf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[R]] {{\[}}[0, 1, 2]] output_shape [1, 8, 1] : tensor<8xf16> into tensor<1x8x1xf16>
// CHECK:         return %[[E]]
func.func @reduce_sum_f16_keepdims(%x: tensor<4x8x16xf16>) -> tensor<1x8x1xf16> {
  %0 = mp.reduce_sum %x dims [2, 0] keepdims : tensor<4x8x16xf16>
  return %0 : tensor<1x8x1xf16>
}

// CHECK-LABEL: func.func @reduce_mean(
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK:           arith.addf
// CHECK:         linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]}
// CHECK-SAME:      ins(%[[SUM]] : tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:           %[[N:.*]] = arith.constant 8.000000e+00 : f32
// CHECK:           arith.divf %{{.*}}, %[[N]] : f32
func.func @reduce_mean(%x: tensor<4x8xf32>) -> tensor<4xf32> {
  %0 = mp.reduce_mean %x dims [1] : tensor<4x8xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @reduce_max_bf16(
// CHECK:         %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:         %[[ACC:.*]] = linalg.fill ins(%[[NEGINF]] : f32) outs(%{{.*}} : tensor<8xf32>)
// CHECK:         linalg.generic {indexing_maps = [#[[$ID2]], #[[$COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK-SAME:      ins(%{{.*}} : tensor<4x8xbf16>) outs(%[[ACC]] : tensor<8xf32>)
// CHECK:           arith.extf %{{.*}} : bf16 to f32
// CHECK:           arith.maximumf
// CHECK:         linalg.generic
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
func.func @reduce_max_bf16(%x: tensor<4x8xbf16>) -> tensor<8xbf16> {
  %0 = mp.reduce_max %x dims [0] : tensor<4x8xbf16>
  return %0 : tensor<8xbf16>
}

// softmax: max and Σ exp(x − max) in f32, then exp(x − max) / Σ rounded once.
// CHECK-LABEL: func.func @softmax_f16(
// CHECK-SAME:    %[[X:.*]]: tensor<4x10xf16>)
// CHECK:         %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]] : tensor<4x10xf16>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:           arith.maximumf
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[MAX]] : tensor<4x10xf16>, tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:           arith.extf %{{.*}} : f16 to f32
// CHECK:           arith.subf
// CHECK:           math.exp
// CHECK:           arith.addf
// CHECK:         linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ROW]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[X]], %[[MAX]], %[[SUM]] : tensor<4x10xf16>, tensor<4xf32>, tensor<4xf32>) outs(%{{.*}} : tensor<4x10xf16>)
// CHECK:           %[[X32:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK:           %[[D:.*]] = arith.subf %[[X32]], %{{.*}} : f32
// CHECK:           %[[E:.*]] = math.exp %[[D]] : f32
// CHECK:           %[[Q:.*]] = arith.divf %[[E]], %{{.*}} : f32
// CHECK:           arith.truncf %[[Q]] : f32 to f16
func.func @softmax_f16(%x: tensor<4x10xf16>) -> tensor<4x10xf16> {
  %0 = mp.softmax %x dim 1 : tensor<4x10xf16>
  return %0 : tensor<4x10xf16>
}

// log_softmax along dimension 0: x − max − log Σ.
// CHECK-LABEL: func.func @log_softmax_dim0(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID2]], #[[$COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK:         linalg.generic {indexing_maps = [#[[$ID2]], #[[$COL]], #[[$COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK:         linalg.generic {indexing_maps = [#[[$ID2]], #[[$COL]], #[[$COL]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK:           %[[D:.*]] = arith.subf
// CHECK:           %[[L:.*]] = math.log
// CHECK:           arith.subf %[[D]], %[[L]] : f32
func.func @log_softmax_dim0(%x: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %0 = mp.log_softmax %x dim 0 : tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// layer_norm: mean, biased variance and 1/sqrt(var + eps) in f32, then
// (x − mean)·rstd·w + b in f32 rounded once.
// CHECK-LABEL: func.func @layer_norm_bf16(
// CHECK-SAME:    %[[X:.*]]: tensor<2x8x64xbf16>, %[[W:.*]]: tensor<64xbf16>, %[[B:.*]]: tensor<64xbf16>)
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$LEAD]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<2x8xf32>)
// CHECK:           arith.constant 6.400000e+01 : f32
// CHECK:         %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[$ID3]], #[[$LEAD]], #[[$LEAD]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[MEAN]] : tensor<2x8x64xbf16>, tensor<2x8xf32>)
// CHECK:           arith.subf
// CHECK:           arith.mulf
// CHECK:         %[[RSTD:.*]] = linalg.generic {{.*}} ins(%[[SQ]] : tensor<2x8xf32>)
// CHECK:           arith.constant 9.99999974E-6 : f32
// CHECK:           math.rsqrt
// CHECK:         linalg.generic {indexing_maps = [#[[$ID3]], #[[$LEAD]], #[[$LEAD]], #[[$LAST]], #[[$LAST]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[X]], %[[MEAN]], %[[RSTD]], %[[W]], %[[B]] : tensor<2x8x64xbf16>, tensor<2x8xf32>, tensor<2x8xf32>, tensor<64xbf16>, tensor<64xbf16>) outs(%{{.*}} : tensor<2x8x64xbf16>)
// CHECK:         ^bb0(%[[XV:.*]]: bf16, %[[M:.*]]: f32, %[[R:.*]]: f32, %[[WV:.*]]: bf16, %[[BV:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT:      %[[X32:.*]] = arith.extf %[[XV]] : bf16 to f32
// CHECK-NEXT:      %[[W32:.*]] = arith.extf %[[WV]] : bf16 to f32
// CHECK-NEXT:      %[[B32:.*]] = arith.extf %[[BV]] : bf16 to f32
// CHECK-NEXT:      %[[C:.*]] = arith.subf %[[X32]], %[[M]] : f32
// CHECK-NEXT:      %[[N:.*]] = arith.mulf %[[C]], %[[R]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.mulf %[[N]], %[[W32]] : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.addf %[[S]], %[[B32]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[Y]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[T]] : bf16
func.func @layer_norm_bf16(%x: tensor<2x8x64xbf16>, %w: tensor<64xbf16>, %b: tensor<64xbf16>) -> tensor<2x8x64xbf16> {
  %0 = mp.layer_norm %x weight %w bias %b axis 2 eps 1.0e-05 : (tensor<2x8x64xbf16>, tensor<64xbf16>, tensor<64xbf16>) -> tensor<2x8x64xbf16>
  return %0 : tensor<2x8x64xbf16>
}

// rms_norm: Σ x² in f32, rsqrt(mean + eps), x·rstd.
// CHECK-LABEL: func.func @rms_norm(
// CHECK-SAME:    %[[X:.*]]: tensor<8x64xf32>)
// CHECK:         %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK:           %[[P:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           arith.addf %{{.*}}, %[[P]] : f32
// CHECK:         %[[RSTD:.*]] = linalg.generic {{.*}} ins(%[[SQ]] : tensor<8xf32>)
// CHECK:           math.rsqrt
// CHECK:         linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[X]], %[[RSTD]] : tensor<8x64xf32>, tensor<8xf32>)
// CHECK-NEXT:    ^bb0(%[[XV:.*]]: f32, %[[R:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[Y:.*]] = arith.mulf %[[XV]], %[[R]] : f32
// CHECK-NEXT:      linalg.yield %[[Y]] : f32
func.func @rms_norm(%x: tensor<8x64xf32>) -> tensor<8x64xf32> {
  %0 = mp.rms_norm %x axis 1 eps 1.0e-06 : (tensor<8x64xf32>) -> tensor<8x64xf32>
  return %0 : tensor<8x64xf32>
}
