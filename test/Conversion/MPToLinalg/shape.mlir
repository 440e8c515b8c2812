// Shape ops and their gradients: linalg.transpose/broadcast, tensor reshapes,
// concat and slices, the embedding gather and the scatter-add of its
// gradient (f32 accumulation, one rounding).
// RUN: mp-opt %s --convert-mp-to-linalg | FileCheck %s

// CHECK-DAG: #[[$IDX:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>

// CHECK-LABEL: func.func @transpose(
// CHECK-SAME:    %[[X:.*]]: tensor<2x16x4x16xf32>)
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<2x4x16x16xf32>
// CHECK:         %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<2x16x4x16xf32>) outs(%[[E]] : tensor<2x4x16x16xf32>) permutation = [0, 2, 1, 3]
// CHECK:         return %[[T]]
func.func @transpose(%x: tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32> {
  %0 = mp.transpose %x perm [0, 2, 1, 3] : tensor<2x16x4x16xf32>
  return %0 : tensor<2x4x16x16xf32>
}

// CHECK-LABEL: func.func @reshape_split(
// CHECK:         tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] output_shape [2, 16, 4, 16] : tensor<2x16x64xf16> into tensor<2x16x4x16xf16>
func.func @reshape_split(%x: tensor<2x16x64xf16>) -> tensor<2x16x4x16xf16> {
  %0 = mp.reshape %x : tensor<2x16x64xf16> to tensor<2x16x4x16xf16>
  return %0 : tensor<2x16x4x16xf16>
}

// CHECK-LABEL: func.func @reshape_merge(
// CHECK:         tensor.collapse_shape %{{.*}} {{\[}}[0, 1], [2]] : tensor<2x16x512xf32> into tensor<32x512xf32>
func.func @reshape_merge(%x: tensor<2x16x512xf32>) -> tensor<32x512xf32> {
  %0 = mp.reshape %x : tensor<2x16x512xf32> to tensor<32x512xf32>
  return %0 : tensor<32x512xf32>
}

// Neither a collapse nor an expand: through 1-d.
// CHECK-LABEL: func.func @reshape_general(
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK:         tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
func.func @reshape_general(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = mp.reshape %x : tensor<2x3xf32> to tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// The broadcasting size-1 dimension is collapsed away; dimensions 0 and 2
// are added.
// CHECK-LABEL: func.func @broadcast(
// CHECK-SAME:    %[[X:.*]]: tensor<4x1xbf16>)
// CHECK:         %[[C:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<4x1xbf16> into tensor<4xbf16>
// CHECK:         linalg.broadcast ins(%[[C]] : tensor<4xbf16>) outs(%{{.*}} : tensor<2x4x8xbf16>) dimensions = [0, 2]
func.func @broadcast(%x: tensor<4x1xbf16>) -> tensor<2x4x8xbf16> {
  %0 = mp.broadcast %x : tensor<4x1xbf16> to tensor<2x4x8xbf16>
  return %0 : tensor<2x4x8xbf16>
}

// CHECK-LABEL: func.func @concat(
// CHECK:         tensor.concat dim(1) %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<4x2xf32>) -> tensor<4x10xf32>
func.func @concat(%a: tensor<4x8xf32>, %b: tensor<4x2xf32>) -> tensor<4x10xf32> {
  %0 = mp.concat %a, %b dim 1 : tensor<4x8xf32>, tensor<4x2xf32>
  return %0 : tensor<4x10xf32>
}

// CHECK-LABEL: func.func @slice(
// CHECK:         tensor.extract_slice %{{.*}}[1, 2] [2, 3] [2, 2] : tensor<4x8xf32> to tensor<2x3xf32>
func.func @slice(%x: tensor<4x8xf32>) -> tensor<2x3xf32> {
  %0 = mp.slice %x offsets [1, 2] sizes [2, 3] strides [2, 2] : tensor<4x8xf32>
  return %0 : tensor<2x3xf32>
}

// The FP8 zero is an i8 bit pattern.
// CHECK-LABEL: func.func @slice_grad_fp8(
// CHECK-SAME:    %[[DY:.*]]: tensor<2x3xf8E5M2>)
// CHECK:         %[[BITS:.*]] = arith.constant 0 : i8
// CHECK:         %[[ZERO:.*]] = arith.bitcast %[[BITS]] : i8 to f8E5M2
// CHECK:         %[[ZEROS:.*]] = linalg.fill ins(%[[ZERO]] : f8E5M2) outs(%{{.*}} : tensor<4x8xf8E5M2>)
// CHECK:         tensor.insert_slice %[[DY]] into %[[ZEROS]][1, 2] [2, 3] [2, 2] : tensor<2x3xf8E5M2> into tensor<4x8xf8E5M2>
func.func @slice_grad_fp8(%dy: tensor<2x3xf8E5M2>) -> tensor<4x8xf8E5M2> {
  %0 = mp.slice_grad %dy offsets [1, 2] sizes [2, 3] strides [2, 2] : tensor<2x3xf8E5M2> to tensor<4x8xf8E5M2>
  return %0 : tensor<4x8xf8E5M2>
}

// Loops (s0, s1, d): the index read by the map, the row by tensor.extract.
// CHECK-LABEL: func.func @embedding(
// CHECK-SAME:    %[[TABLE:.*]]: tensor<1000x64xbf16>, %[[IDS:.*]]: tensor<2x16xi64>)
// CHECK:         linalg.generic {indexing_maps = [#[[$IDX]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME:      ins(%[[IDS]] : tensor<2x16xi64>) outs(%{{.*}} : tensor<2x16x64xbf16>)
// CHECK-NEXT:    ^bb0(%[[ID:.*]]: i64, %{{.*}}: bf16):
// CHECK-NEXT:      %[[ROW:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK-NEXT:      %[[COL:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[V:.*]] = tensor.extract %[[TABLE]][%[[ROW]], %[[COL]]] : tensor<1000x64xbf16>
// CHECK-NEXT:      linalg.yield %[[V]] : bf16
func.func @embedding(%t: tensor<1000x64xbf16>, %ids: tensor<2x16xi64>) -> tensor<2x16x64xbf16> {
  %0 = mp.embedding %t[%ids] : tensor<1000x64xbf16>, tensor<2x16xi64>
  return %0 : tensor<2x16x64xbf16>
}

// An scf.for over the 32 indices adds each gradient row into its row of an
// f32 table (in place), then one rounding to f16.
// CHECK-LABEL: func.func @embedding_grad(
// CHECK-SAME:    %[[DY:.*]]: tensor<2x16x64xf16>, %[[IDS:.*]]: tensor<2x16xi32>)
// CHECK:         %[[ROWS:.*]] = tensor.collapse_shape %[[DY]] {{\[}}[0, 1], [2]] : tensor<2x16x64xf16> into tensor<32x64xf16>
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %[[IDS]] {{\[}}[0, 1]] : tensor<2x16xi32> into tensor<32xi32>
// CHECK:         %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1000x64xf32>)
// CHECK:         %[[C0:.*]] = arith.constant 0 : index
// CHECK:         %[[C32:.*]] = arith.constant 32 : index
// CHECK:         %[[C1:.*]] = arith.constant 1 : index
// CHECK:         %[[TABLE:.*]] = scf.for %[[I:.*]] = %[[C0]] to %[[C32]] step %[[C1]] iter_args(%[[ACC:.*]] = %[[ZEROS]]) -> (tensor<1000x64xf32>) {
// CHECK:           %[[ID:.*]] = tensor.extract %[[FLAT]][%[[I]]] : tensor<32xi32>
// CHECK:           %[[ROW:.*]] = arith.index_cast %[[ID]] : i32 to index
// CHECK:           %[[CUR:.*]] = tensor.extract_slice %[[ACC]][%[[ROW]], 0] [1, 64] [1, 1] : tensor<1000x64xf32> to tensor<1x64xf32>
// CHECK:           %[[G:.*]] = tensor.extract_slice %[[ROWS]][%[[I]], 0] [1, 64] [1, 1] : tensor<32x64xf16> to tensor<1x64xf16>
// CHECK:           %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:        ins(%[[G]] : tensor<1x64xf16>) outs(%[[CUR]] : tensor<1x64xf32>)
// CHECK:             arith.extf %{{.*}} : f16 to f32
// CHECK:             arith.addf
// CHECK:           %[[NEW:.*]] = tensor.insert_slice %[[SUM]] into %[[ACC]][%[[ROW]], 0] [1, 64] [1, 1]
// CHECK:           scf.yield %[[NEW]] : tensor<1000x64xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[TABLE]] : tensor<1000x64xf32>) outs(%{{.*}} : tensor<1000x64xf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to f16
func.func @embedding_grad(%dy: tensor<2x16x64xf16>, %ids: tensor<2x16xi32>) -> tensor<1000x64xf16> {
  %0 = mp.embedding_grad %dy, %ids : (tensor<2x16x64xf16>, tensor<2x16xi32>) -> tensor<1000x64xf16>
  return %0 : tensor<1000x64xf16>
}
