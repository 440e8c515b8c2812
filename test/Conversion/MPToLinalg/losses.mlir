// Losses: f32 statistics and sums, divided by the count and rounded once.
// RUN: mp-opt %s --convert-mp-to-linalg | FileCheck %s

// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$TO0D:.*]] = affine_map<(d0) -> ()>
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<() -> ()>
// CHECK-DAG: #[[$ALL:.*]] = affine_map<(d0, d1) -> ()>

// Per-row max and Σ exp(x − max), then Σ_n log Σ + max − x[n, label[n]]
// over the labels that are not ignore_index (the label's logit read by
// tensor.extract at a safe index), and their count; sum / count, rounded to
// f16.
// CHECK-LABEL: func.func @cross_entropy_f16(
// CHECK-SAME:    %[[LOGITS:.*]]: tensor<64x10xf16>, %[[LABELS:.*]]: tensor<64xi64>)
// CHECK:         %[[MAX:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:      ins(%[[LOGITS]] : tensor<64x10xf16>) outs(%{{.*}} : tensor<64xf32>)
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK:           math.exp
// CHECK:         %[[TOTAL:.*]]:2 = linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]], #[[$ID1]], #[[$TO0D]], #[[$TO0D]]], iterator_types = ["reduction"]}
// CHECK-SAME:      ins(%[[MAX]], %[[SUM]], %[[LABELS]] : tensor<64xf32>, tensor<64xf32>, tensor<64xi64>) outs(%{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>)
// CHECK-NEXT:    ^bb0(%[[M:.*]]: f32, %[[S:.*]]: f32, %[[L:.*]]: i64, %[[ACC:.*]]: f32, %[[CNT:.*]]: f32):
// CHECK-NEXT:      %[[N:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %[[IGN:.*]] = arith.constant -100 : i64
// CHECK-NEXT:      %[[KEPT:.*]] = arith.cmpi ne, %[[L]], %[[IGN]] : i64
// CHECK-NEXT:      %[[C:.*]] = arith.index_cast %[[L]] : i64 to index
// CHECK-NEXT:      %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[SAFE:.*]] = arith.select %[[KEPT]], %[[C]], %[[C0]] : index
// CHECK-NEXT:      %[[X:.*]] = tensor.extract %[[LOGITS]][%[[N]], %[[SAFE]]] : tensor<64x10xf16>
// CHECK-NEXT:      %[[X32:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      %[[LOG:.*]] = math.log %[[S]] : f32
// CHECK-NEXT:      %[[LSE:.*]] = arith.addf %[[LOG]], %[[M]] : f32
// CHECK-NEXT:      %[[TERM:.*]] = arith.subf %[[LSE]], %[[X32]] : f32
// CHECK-NEXT:      %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[KTERM:.*]] = arith.select %[[KEPT]], %[[TERM]], %[[Z]] : f32
// CHECK-NEXT:      %[[NEW:.*]] = arith.addf %[[ACC]], %[[KTERM]] : f32
// CHECK:           %[[ONE:.*]] = arith.select %[[KEPT]], %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      %[[NEWCNT:.*]] = arith.addf %[[CNT]], %[[ONE]] : f32
// CHECK-NEXT:      linalg.yield %[[NEW]], %[[NEWCNT]] : f32, f32
// CHECK:         %[[K:.*]] = tensor.extract %[[TOTAL]]#1[] : tensor<f32>
// CHECK:         %[[T:.*]] = tensor.extract %[[TOTAL]]#0[] : tensor<f32>
// CHECK:         %[[MEAN:.*]] = arith.divf %[[T]], %[[K]] : f32
// CHECK:         %[[H:.*]] = arith.truncf %[[MEAN]] : f32 to f16
// CHECK:         tensor.from_elements %[[H]] : tensor<f16>
func.func @cross_entropy_f16(%logits: tensor<64x10xf16>, %labels: tensor<64xi64>) -> tensor<f16> {
  %0 = mp.cross_entropy %logits, %labels : tensor<64x10xf16>, tensor<64xi64>
  return %0 : tensor<f16>
}

// Label smoothing 0.25 over 10 classes, ignore_index 3: a second reduction
// over [N, C] of log Σ exp − x on the kept rows; (1 − ε)·nll +
// (smooth / K)·(ε / C) with the coefficients in f32.
// CHECK-LABEL: func.func @cross_entropy_smoothing(
// CHECK-SAME:    %[[LOGITS:.*]]: tensor<8x10xf32>, %[[LABELS:.*]]: tensor<8xi32>)
// CHECK:         %[[TOTAL:.*]]:2 = linalg.generic
// CHECK:           %[[IGN:.*]] = arith.constant 3 : i32
// CHECK:           arith.cmpi ne, %{{.*}}, %[[IGN]] : i32
// CHECK:         %[[K:.*]] = tensor.extract %[[TOTAL]]#1[] : tensor<f32>
// CHECK:         %[[NLL:.*]] = arith.divf %{{.*}}, %[[K]] : f32
// CHECK:         %[[SMOOTH:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ROW]], #[[$ROW]], #[[$ALL]]], iterator_types = ["reduction", "reduction"]}
// CHECK-SAME:      ins(%[[LOGITS]], %{{.*}}, %{{.*}}, %[[LABELS]] : tensor<8x10xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xi32>)
// CHECK:           %[[LSE:.*]] = arith.addf
// CHECK-NEXT:      %[[TERM:.*]] = arith.subf %[[LSE]], %{{.*}} : f32
// CHECK:           arith.select %{{.*}}, %[[TERM]], %{{.*}} : f32
// CHECK:         %[[S:.*]] = tensor.extract %[[SMOOTH]][] : tensor<f32>
// CHECK:         %[[A:.*]] = arith.constant 7.500000e-01 : f32
// CHECK:         %[[AN:.*]] = arith.mulf %[[A]], %[[NLL]] : f32
// CHECK:         %[[SK:.*]] = arith.divf %[[S]], %[[K]] : f32
// CHECK:         %[[B:.*]] = arith.constant 2.500000e-02 : f32
// CHECK:         %[[BS:.*]] = arith.mulf %[[SK]], %[[B]] : f32
// CHECK:         %[[L:.*]] = arith.addf %[[AN]], %[[BS]] : f32
// CHECK:         tensor.from_elements %[[L]] : tensor<f32>
func.func @cross_entropy_smoothing(%logits: tensor<8x10xf32>, %labels: tensor<8xi32>) -> tensor<f32> {
  %0 = mp.cross_entropy %logits, %labels {ignore_index = 3 : i64, label_smoothing = 0.25 : f64} : tensor<8x10xf32>, tensor<8xi32>
  return %0 : tensor<f32>
}

// nll_loss (mean): Σ −input[n, t_n] over kept targets and their count.
// CHECK-LABEL: func.func @nll_loss_mean(
// CHECK-SAME:    %[[X:.*]]: tensor<8x10xbf16>, %[[T:.*]]: tensor<8xi64>)
// CHECK:         %[[R:.*]]:2 = linalg.generic {indexing_maps = [#[[$ID1]], #[[$TO0D]], #[[$TO0D]]], iterator_types = ["reduction"]}
// CHECK-SAME:      ins(%[[T]] : tensor<8xi64>)
// CHECK:           %[[V:.*]] = tensor.extract %[[X]][%{{.*}}, %{{.*}}] : tensor<8x10xbf16>
// CHECK-NEXT:      %[[V32:.*]] = arith.extf %[[V]] : bf16 to f32
// CHECK-NEXT:      %[[NEG:.*]] = arith.negf %[[V32]] : f32
// CHECK:         %[[MEAN:.*]] = arith.divf
// CHECK:         arith.truncf %[[MEAN]] : f32 to bf16
func.func @nll_loss_mean(%x: tensor<8x10xbf16>, %t: tensor<8xi64>) -> tensor<bf16> {
  %0 = mp.nll_loss %x, %t : tensor<8x10xbf16>, tensor<8xi64> -> tensor<bf16>
  return %0 : tensor<bf16>
}

// reduction sum: no division; none: one elementwise generic over [N].
// CHECK-LABEL: func.func @nll_loss_sum_none(
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]
// CHECK-NOT:     arith.divf
// CHECK:         linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]}
// CHECK:           %[[IGN:.*]] = arith.constant 0 : i64
// CHECK:           arith.negf
func.func @nll_loss_sum_none(%x: tensor<8x10xf32>, %t: tensor<8xi64>) -> (tensor<f32>, tensor<8xf32>) {
  %0 = mp.nll_loss %x, %t reduction sum : tensor<8x10xf32>, tensor<8xi64> -> tensor<f32>
  %1 = mp.nll_loss %x, %t reduction none {ignore_index = 0 : i64} : tensor<8x10xf32>, tensor<8xi64> -> tensor<8xf32>
  return %0, %1 : tensor<f32>, tensor<8xf32>
}

// (softmax − (1 − ε + ε/C) at the label, ε/C off it) · dl / K on kept
// rows, 0 on ignored ones; K counted from the labels.
// CHECK-LABEL: func.func @cross_entropy_grad(
// CHECK-SAME:    %[[DL:.*]]: tensor<f32>, %[[LOGITS:.*]]: tensor<64x10xf32>, %[[LABELS:.*]]: tensor<64xi64>)
// CHECK:         %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:         %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK:         %[[KT:.*]] = linalg.generic {indexing_maps = [#[[$ID1]], #[[$TO0D]]], iterator_types = ["reduction"]}
// CHECK-SAME:      ins(%[[LABELS]] : tensor<64xi64>)
// CHECK:         %[[K:.*]] = tensor.extract %[[KT]][] : tensor<f32>
// CHECK:         linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ROW]], #[[$ROW]], #[[$ALL]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[LOGITS]], %[[MAX]], %[[SUM]], %[[LABELS]], %[[DL]] : tensor<64x10xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xi64>, tensor<f32>)
// CHECK:           %[[P:.*]] = arith.divf
// CHECK:           %[[C:.*]] = linalg.index 1 : index
// CHECK:           %[[C64:.*]] = arith.index_cast %[[C]] : index to i64
// CHECK:           %[[HIT:.*]] = arith.cmpi eq, %[[C64]], %{{.*}} : i64
// CHECK:           %[[ON:.*]] = arith.constant 9.100000e-01 : f32
// CHECK:           %[[OFF:.*]] = arith.constant 0.00999999977 : f32
// CHECK:           %[[TARGET:.*]] = arith.select %[[HIT]], %[[ON]], %[[OFF]] : f32
// CHECK:           %[[D:.*]] = arith.subf %[[P]], %[[TARGET]] : f32
// CHECK:           %[[S:.*]] = arith.mulf %[[D]], %{{.*}} : f32
// CHECK:           %[[G:.*]] = arith.divf %[[S]], %[[K]] : f32
// CHECK:           %[[KEPT:.*]] = arith.cmpi ne, %{{.*}}, %{{.*}} : i64
// CHECK:           arith.select %[[KEPT]], %[[G]], %{{.*}} : f32
func.func @cross_entropy_grad(%dl: tensor<f32>, %logits: tensor<64x10xf32>, %labels: tensor<64xi64>) -> tensor<64x10xf32> {
  %0 = mp.cross_entropy_grad %dl, %logits, %labels {label_smoothing = 0.1 : f64} : (tensor<f32>, tensor<64x10xf32>, tensor<64xi64>) -> tensor<64x10xf32>
  return %0 : tensor<64x10xf32>
}

// −dl / K at [n, t_n] for kept targets (mean); −dl[n] for none.
// CHECK-LABEL: func.func @nll_loss_grad(
// CHECK-SAME:    %[[DL:.*]]: tensor<f32>, %[[DN:.*]]: tensor<8xf32>, %[[T:.*]]: tensor<8xi64>)
// CHECK:         %[[K:.*]] = tensor.extract %{{.*}}[] : tensor<f32>
// CHECK:         linalg.generic {indexing_maps = [#[[$ROW]], #[[$ALL]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[T]], %[[DL]] : tensor<8xi64>, tensor<f32>)
// CHECK:           %[[HIT:.*]] = arith.andi
// CHECK:           %[[NEG:.*]] = arith.negf
// CHECK:           %[[G:.*]] = arith.divf %[[NEG]], %[[K]] : f32
// CHECK:           arith.select %[[HIT]], %[[G]], %{{.*}} : f32
// CHECK:         linalg.generic {indexing_maps = [#[[$ROW]], #[[$ROW]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[T]], %[[DN]] : tensor<8xi64>, tensor<8xf32>)
// CHECK-NOT:       arith.divf
// CHECK:           linalg.yield
func.func @nll_loss_grad(%dl: tensor<f32>, %dn: tensor<8xf32>, %t: tensor<8xi64>) -> (tensor<8x10xf32>, tensor<8x10xf32>) {
  %0 = mp.nll_loss_grad %dl, %t : (tensor<f32>, tensor<8xi64>) -> tensor<8x10xf32>
  %1 = mp.nll_loss_grad %dn, %t reduction none : (tensor<8xf32>, tensor<8xi64>) -> tensor<8x10xf32>
  return %0, %1 : tensor<8x10xf32>, tensor<8x10xf32>
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

// The K-dimensional form: [N, C, d] logits are transposed to [N, d, C] and
// collapsed to [N·d, C], the labels collapsed to [N·d]; the gradient comes
// back through the inverse expand and transpose.
// CHECK-LABEL: func.func @cross_entropy_kdim(
// CHECK-SAME:    %[[LOGITS:.*]]: tensor<2x10x3xf32>, %[[LABELS:.*]]: tensor<2x3xi64>, %[[DL:.*]]: tensor<f32>)
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[LOGITS]] : tensor<2x10x3xf32>) outs(%{{.*}} : tensor<2x3x10xf32>) permutation = [0, 2, 1]
// CHECK-NEXT:    %[[FLAT:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0, 1], [2]] : tensor<2x3x10xf32> into tensor<6x10xf32>
// CHECK-NEXT:    %[[FLABELS:.*]] = tensor.collapse_shape %[[LABELS]] {{\[\[}}0, 1]] : tensor<2x3xi64> into tensor<6xi64>
// CHECK:         linalg.generic {{.*}} ins(%[[FLAT]] : tensor<6x10xf32>)
// CHECK:         %[[G:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<6x10xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xi64>, tensor<f32>)
// CHECK:         %[[E:.*]] = tensor.expand_shape %[[G]] {{\[\[}}0, 1], [2]] output_shape [2, 3, 10] : tensor<6x10xf32> into tensor<2x3x10xf32>
// CHECK:         %{{.*}} = linalg.transpose ins(%[[E]] : tensor<2x3x10xf32>) outs(%{{.*}} : tensor<2x10x3xf32>) permutation = [0, 2, 1]
func.func @cross_entropy_kdim(%logits: tensor<2x10x3xf32>, %labels: tensor<2x3xi64>, %dl: tensor<f32>) -> (tensor<f32>, tensor<2x10x3xf32>) {
  %0 = mp.cross_entropy %logits, %labels : tensor<2x10x3xf32>, tensor<2x3xi64>
  %1 = mp.cross_entropy_grad %dl, %logits, %labels : (tensor<f32>, tensor<2x10x3xf32>, tensor<2x3xi64>) -> tensor<2x10x3xf32>
  return %0, %1 : tensor<f32>, tensor<2x10x3xf32>
}
