// Explicit backward ops: f32 reductions for the statistics, one f32
// elementwise generic per result, rounded once.
// RUN: mp-opt %s --convert-mp-to-linalg | FileCheck %s

// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (d1)>

// Both results from one generic, the operands broadcast to the gradient's
// shape; ties halve.
// CHECK-LABEL: func.func @maximum_grad(
// CHECK:         %{{.*}}:2 = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$COL]], #[[$ID2]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-NEXT:    ^bb0(%[[DY:.*]]: f32, %[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK:           %[[HALF:.*]] = arith.mulf %[[DY]], %{{.*}} : f32
// CHECK:           %[[TIE:.*]] = arith.cmpf oeq, %[[A]], %[[B]] : f32
// CHECK:           %[[ALOSES:.*]] = arith.cmpf olt, %[[A]], %[[B]] : f32
// CHECK:           %[[AU:.*]] = arith.select %[[ALOSES]], %{{.*}}, %[[DY]] : f32
// CHECK:           %[[DA:.*]] = arith.select %[[TIE]], %[[HALF]], %[[AU]] : f32
// CHECK:           %[[BLOSES:.*]] = arith.cmpf ogt, %[[A]], %[[B]] : f32
// CHECK:           %[[BU:.*]] = arith.select %[[BLOSES]], %{{.*}}, %[[DY]] : f32
// CHECK:           %[[DB:.*]] = arith.select %[[TIE]], %[[HALF]], %[[BU]] : f32
// CHECK:           linalg.yield %[[DA]], %[[DB]] : f32, f32
// CHECK-LABEL: func.func @minimum_grad(
// CHECK:           arith.cmpf ogt
// CHECK:           arith.cmpf olt
func.func @maximum_grad(%dy: tensor<4x8xf32>, %a: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0:2 = mp.maximum_grad %dy, %a, %b : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>
  return %0#0, %0#1 : tensor<4x8xf32>, tensor<4x8xf32>
}
func.func @minimum_grad(%dy: tensor<4x8xf32>, %a: tensor<4x8xf32>, %b: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %0:2 = mp.minimum_grad %dy, %a, %b : tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>
  return %0#0, %0#1 : tensor<4x8xf32>, tensor<4x8xf32>
}

// keepdims operands are collapsed; the number of maxima per row is an f32
// sum; dy / count where x equals the maximum.
// CHECK-LABEL: func.func @reduce_max_grad(
// CHECK-SAME:    %[[DY:.*]]: tensor<4x1xf16>, %[[X:.*]]: tensor<4x8xf16>, %[[M:.*]]: tensor<4x1xf16>)
// CHECK:         %[[MC:.*]] = tensor.collapse_shape %[[M]] {{\[}}[0, 1]] : tensor<4x1xf16> into tensor<4xf16>
// CHECK:         %[[DYC:.*]] = tensor.collapse_shape %[[DY]] {{\[}}[0, 1]] : tensor<4x1xf16> into tensor<4xf16>
// CHECK:         %[[COUNT:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:      ins(%[[X]], %[[MC]] : tensor<4x8xf16>, tensor<4xf16>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:           arith.cmpf oeq
// CHECK:           arith.select
// CHECK:           arith.addf
// CHECK:         linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]], #[[$ROW]], #[[$ROW]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[X]], %[[MC]], %[[DYC]], %[[COUNT]] : tensor<4x8xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf32>) outs(%{{.*}} : tensor<4x8xf16>)
// CHECK:           %[[IS:.*]] = arith.cmpf oeq
// CHECK:           %[[SHARE:.*]] = arith.divf
// CHECK:           %[[R:.*]] = arith.select %[[IS]], %[[SHARE]], %{{.*}} : f32
// CHECK:           arith.truncf %[[R]] : f32 to f16
func.func @reduce_max_grad(%dy: tensor<4x1xf16>, %x: tensor<4x8xf16>, %m: tensor<4x1xf16>) -> tensor<4x8xf16> {
  %0 = mp.reduce_max_grad %dy, %x, %m dims [1] keepdims : tensor<4x1xf16>, tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}

// CHECK-LABEL: func.func @softmax_grad(
// CHECK-SAME:    %[[DY:.*]]: tensor<4x10xf32>, %[[Y:.*]]: tensor<4x10xf32>)
// CHECK:         %[[S:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:      ins(%[[DY]], %[[Y]] : tensor<4x10xf32>, tensor<4x10xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ROW]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[DY]], %[[Y]], %[[S]] : tensor<4x10xf32>, tensor<4x10xf32>, tensor<4xf32>)
// CHECK-NEXT:    ^bb0(%[[G:.*]]: f32, %[[YV:.*]]: f32, %[[SV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[G]], %[[SV]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.mulf %[[YV]], %[[D]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
func.func @softmax_grad(%dy: tensor<4x10xf32>, %y: tensor<4x10xf32>) -> tensor<4x10xf32> {
  %0 = mp.softmax_grad %dy, %y dim 1 : tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// CHECK-LABEL: func.func @log_softmax_grad_bf16(
// CHECK-SAME:    %[[DY:.*]]: tensor<4x10xbf16>, %[[Y:.*]]: tensor<4x10xbf16>)
// CHECK:         %[[S:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:      ins(%[[DY]] : tensor<4x10xbf16>) outs(%{{.*}} : tensor<4xf32>)
// CHECK:         linalg.generic
// CHECK-SAME:      ins(%[[DY]], %[[Y]], %[[S]] : tensor<4x10xbf16>, tensor<4x10xbf16>, tensor<4xf32>) outs(%{{.*}} : tensor<4x10xbf16>)
// CHECK:           %[[G:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK:           %[[YV:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK:           %[[E:.*]] = math.exp %[[YV]] : f32
// CHECK:           %[[P:.*]] = arith.mulf %[[E]], %{{.*}} : f32
// CHECK:           %[[D:.*]] = arith.subf %[[G]], %[[P]] : f32
// CHECK:           arith.truncf %[[D]] : f32 to bf16
func.func @log_softmax_grad_bf16(%dy: tensor<4x10xbf16>, %y: tensor<4x10xbf16>) -> tensor<4x10xbf16> {
  %0 = mp.log_softmax_grad %dy, %y dim 1 : tensor<4x10xbf16>
  return %0 : tensor<4x10xbf16>
}

// layer_norm_grad: the statistics again, row sums Σ g·x̂ and Σ g (one
// generic, two accumulators), dx, then Σ dy·x̂ and Σ dy over the rows.
// CHECK-LABEL: func.func @layer_norm_grad_f16(
// CHECK-SAME:    %[[DY:.*]]: tensor<8x64xf16>, %[[X:.*]]: tensor<8x64xf16>, %[[W:.*]]: tensor<64xf16>)
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<8xf32>)
// CHECK:         %[[RSTD:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<8xf32>)
// CHECK:           math.rsqrt
// CHECK:         %[[ROWS:.*]]:2 = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ROW]], #[[$ROW]], #[[$COL]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:      ins(%[[DY]], %[[X]], %[[MEAN]], %[[RSTD]], %[[W]] : {{.*}}) outs(%{{.*}}, %{{.*}} : tensor<8xf32>, tensor<8xf32>)
// CHECK:         %[[DX:.*]] = linalg.generic
// CHECK-SAME:      ins(%[[DY]], %[[X]], %[[MEAN]], %[[RSTD]], %[[W]], %[[ROWS]]#0, %[[ROWS]]#1 : {{.*}}) outs(%{{.*}} : tensor<8x64xf16>)
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK:         %[[PARAMS:.*]]:2 = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ROW]], #[[$ROW]], #[[$COL]], #[[$COL]]], iterator_types = ["reduction", "parallel"]}
// CHECK-SAME:      ins(%[[DY]], %[[X]], %[[MEAN]], %[[RSTD]] : {{.*}}) outs(%{{.*}}, %{{.*}} : tensor<64xf32>, tensor<64xf32>)
// CHECK:         %[[DW:.*]] = linalg.generic {{.*}} ins(%[[PARAMS]]#0 : tensor<64xf32>) outs(%{{.*}} : tensor<64xf16>)
// CHECK:         %[[DB:.*]] = linalg.generic {{.*}} ins(%[[PARAMS]]#1 : tensor<64xf32>) outs(%{{.*}} : tensor<64xf16>)
// CHECK:         return %[[DX]], %[[DW]], %[[DB]]
func.func @layer_norm_grad_f16(%dy: tensor<8x64xf16>, %x: tensor<8x64xf16>, %w: tensor<64xf16>) -> (tensor<8x64xf16>, tensor<64xf16>, tensor<64xf16>) {
  %0:3 = mp.layer_norm_grad %dy, %x weight %w axis 1 eps 1.0e-05 : (tensor<8x64xf16>, tensor<8x64xf16>, tensor<64xf16>) -> (tensor<8x64xf16>, tensor<64xf16>, tensor<64xf16>)
  return %0#0, %0#1, %0#2 : tensor<8x64xf16>, tensor<64xf16>, tensor<64xf16>
}

// rms_norm_grad without weight: dx = rstd·(dy − x̂·mean(dy·x̂)).
// CHECK-LABEL: func.func @rms_norm_grad(
// CHECK-SAME:    %[[DY:.*]]: tensor<8x64xf32>, %[[X:.*]]: tensor<8x64xf32>)
// CHECK:         %[[RSTD:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<8xf32>) outs(%{{.*}} : tensor<8xf32>)
// CHECK:         %[[ROWS:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ROW]], #[[$ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK:         %[[DX:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$ID2]], #[[$ROW]], #[[$ROW]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[DY]], %[[X]], %[[RSTD]], %[[ROWS]] : {{.*}})
// CHECK-NEXT:    ^bb0(%[[G:.*]]: f32, %[[XV:.*]]: f32, %[[R:.*]]: f32, %[[SGX:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[N:.*]] = arith.constant 6.400000e+01 : f32
// CHECK-NEXT:      %[[MGX:.*]] = arith.divf %[[SGX]], %[[N]] : f32
// CHECK-NEXT:      %[[XHAT:.*]] = arith.mulf %[[XV]], %[[R]] : f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[XHAT]], %[[MGX]] : f32
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[G]], %[[P]] : f32
// CHECK-NEXT:      %[[RES:.*]] = arith.mulf %[[R]], %[[D]] : f32
// CHECK-NEXT:      linalg.yield %[[RES]] : f32
// CHECK:         %[[DW:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK:         return %[[DX]], %[[DW]]
func.func @rms_norm_grad(%dy: tensor<8x64xf32>, %x: tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<64xf32>) {
  %0:2 = mp.rms_norm_grad %dy, %x axis 1 eps 1.0e-06 : (tensor<8x64xf32>, tensor<8x64xf32>) -> (tensor<8x64xf32>, tensor<64xf32>)
  return %0#0, %0#1 : tensor<8x64xf32>, tensor<64xf32>
}
