// Losses: f32 statistics and sums, divided by the count and rounded once.
// RUN: mp-opt %s --convert-mp-to-linalg | FileCheck %s

// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$TO0D:.*]] = affine_map<(d0) -> ()>
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<() -> ()>
// CHECK-DAG: #[[$ALL:.*]] = affine_map<(d0, d1) -> ()>

// Per-row max and Σ exp(x − max), then Σ_n log Σ + max − x[n, label[n]]
// with the label's logit read by tensor.extract, / N, rounded to f16.
// CHECK-LABEL: func.func @cross_entropy_f16(
// CHECK-SAME:    %[[LOGITS:.*]]: tensor<64x10xf16>, %[[LABELS:.*]]: tensor<64xi64>)
// CHECK:         %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:      ins(%[[LOGITS]] : tensor<64x10xf16>) outs(%{{.*}} : tensor<64xf32>)
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK:           math.exp
// CHECK:         %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<f32>
// CHECK:         %[[TOTAL:.*]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]], #[[$ID1]], #[[$TO0D]]], iterator_types = ["reduction"]}
// CHECK-SAME:      ins(%[[MAX]], %[[SUM]], %[[LABELS]] : tensor<64xf32>, tensor<64xf32>, tensor<64xi64>) outs(%[[ZERO]] : tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[M:.*]]: f32, %[[S:.*]]: f32, %[[L:.*]]: i64, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[N:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[C:.*]] = arith.index_cast %[[L]] : i64 to index
// CHECK-NEXT:      %[[X:.*]] = tensor.extract %[[LOGITS]][%[[N]], %[[C]]] : tensor<64x10xf16>
// CHECK-NEXT:      %[[X32:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      %[[LOG:.*]] = math.log %[[S]] : f32
// CHECK-NEXT:      %[[LSE:.*]] = arith.addf %[[LOG]], %[[M]] : f32
// CHECK-NEXT:      %[[TERM:.*]] = arith.subf %[[LSE]], %[[X32]] : f32
// CHECK-NEXT:      %[[NEW:.*]] = arith.addf %[[ACC]], %[[TERM]] : f32
// CHECK-NEXT:      linalg.yield %[[NEW]] : f32
// CHECK:         linalg.generic {indexing_maps = [#[[$SCALAR]], #[[$SCALAR]]], iterator_types = []}
// CHECK-SAME:      ins(%[[TOTAL]] : tensor<f32>) outs(%{{.*}} : tensor<f16>)
// CHECK:           %[[B:.*]] = arith.constant 6.400000e+01 : f32
// CHECK:           %[[MEAN:.*]] = arith.divf %{{.*}}, %[[B]] : f32
// CHECK:           arith.truncf %[[MEAN]] : f32 to f16
func.func @cross_entropy_f16(%logits: tensor<64x10xf16>, %labels: tensor<64xi64>) -> tensor<f16> {
  %0 = mp.cross_entropy %logits, %labels : tensor<64x10xf16>, tensor<64xi64>
  return %0 : tensor<f16>
}

// CHECK-LABEL: func.func @mse(
// CHECK-SAME:    %[[X:.*]]: tensor<64x1xf32>, %[[T:.*]]: tensor<64x1xf32>)
// CHECK:         %[[TOTAL:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ALL]]], iterator_types = ["reduction", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[T]] : tensor<64x1xf32>, tensor<64x1xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[A]], %[[B]] : f32
// CHECK-NEXT:      %[[SQ:.*]] = arith.mulf %[[D]], %[[D]] : f32
// CHECK-NEXT:      %[[NEW:.*]] = arith.addf %[[ACC]], %[[SQ]] : f32
// CHECK-NEXT:      linalg.yield %[[NEW]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[TOTAL]] : tensor<f32>) outs(%{{.*}} : tensor<f32>)
// CHECK:           arith.divf
func.func @mse(%x: tensor<64x1xf32>, %t: tensor<64x1xf32>) -> tensor<f32> {
  %0 = mp.mse %x, %t : tensor<64x1xf32>
  return %0 : tensor<f32>
}
