// Elementwise ops: one parallel linalg.generic; NumPy broadcasting through
// the indexing maps (size-1 dimensions that broadcast are collapsed away);
// narrow floats extended to f32 in the payload, the f32 result rounded once.
// RUN: mp-opt %s --convert-mp-to-linalg | FileCheck %s

// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$D1:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$D0:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-DAG: #[[$ID1:.*]] = affine_map<(d0) -> (d0)>

// CHECK-LABEL: func.func @add_broadcast_f16(
// CHECK-SAME:    %[[A:.*]]: tensor<4x8xf16>, %[[B:.*]]: tensor<8xf16>)
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<4x8xf16>
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$D1]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[A]], %[[B]] : tensor<4x8xf16>, tensor<8xf16>) outs(%[[EMPTY]] : tensor<4x8xf16>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT:      %[[X32:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      %[[Y32:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[X32]], %[[Y32]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[T]] : f16
// CHECK:         return %[[R]]
func.func @add_broadcast_f16(%a: tensor<4x8xf16>, %b: tensor<8xf16>) -> tensor<4x8xf16> {
  %0 = mp.add %a, %b : tensor<4x8xf16>, tensor<8xf16>
  return %0 : tensor<4x8xf16>
}

// f32 operands: no conversion; the [4, 1] operand is collapsed to [4].
// CHECK-LABEL: func.func @sub_unit_dim(
// CHECK-SAME:    %[[C:.*]]: tensor<4x1xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK:         %[[COL:.*]] = tensor.collapse_shape %[[C]] {{\[}}[0, 1]] : tensor<4x1xf32> into tensor<4xf32>
// CHECK:         linalg.generic {indexing_maps = [#[[$D0]], #[[$D1]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[COL]], %[[B]] : tensor<4xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[D:.*]] = arith.subf %[[X]], %[[Y]] : f32
// CHECK-NEXT:      linalg.yield %[[D]] : f32
func.func @sub_unit_dim(%c: tensor<4x1xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = mp.sub %c, %b : tensor<4x1xf32>, tensor<8xf32>
  return %0 : tensor<4x8xf32>
}

// A 0-d operand is read with the map to ().
// CHECK-LABEL: func.func @mul_scalar_bf16(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID2]], #[[$SCALAR]], #[[$ID2]]]
// CHECK-SAME:      ins(%{{.*}}, %{{.*}} : tensor<4x8xbf16>, tensor<bf16>) outs(%{{.*}} : tensor<4x8xbf16>)
// CHECK:           arith.extf %{{.*}} : bf16 to f32
// CHECK:           arith.extf %{{.*}} : bf16 to f32
// CHECK:           arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
func.func @mul_scalar_bf16(%a: tensor<4x8xbf16>, %s: tensor<bf16>) -> tensor<4x8xbf16> {
  %0 = mp.mul %a, %s : tensor<4x8xbf16>, tensor<bf16>
  return %0 : tensor<4x8xbf16>
}

// FP8 is computed the same way: extend, compute in f32, round once.
// CHECK-LABEL: func.func @relu_fp8(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]}
// CHECK-SAME:      ins(%{{.*}} : tensor<16xf8E4M3FN>) outs(%{{.*}} : tensor<16xf8E4M3FN>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f8E4M3FN, %{{.*}}: f8E4M3FN):
// CHECK-NEXT:      %[[X32:.*]] = arith.extf %[[X]] : f8E4M3FN to f32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[M:.*]] = arith.maximumf %[[X32]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[M]] : f32 to f8E4M3FN
// CHECK-NEXT:      linalg.yield %[[T]] : f8E4M3FN
func.func @relu_fp8(%a: tensor<16xf8E4M3FN>) -> tensor<16xf8E4M3FN> {
  %0 = mp.relu %a : tensor<16xf8E4M3FN>
  return %0 : tensor<16xf8E4M3FN>
}

// A transcendental function is the f32 function, rounded once.
// CHECK-LABEL: func.func @sigmoid_f16(
// CHECK:         ^bb0(%[[X:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT:      %[[X32:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      %[[N:.*]] = arith.negf %[[X32]] : f32
// CHECK-NEXT:      %[[E:.*]] = math.exp %[[N]] : f32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[D:.*]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[ONE]], %[[D]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[Q]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[T]] : f16
func.func @sigmoid_f16(%a: tensor<4xf16>) -> tensor<4xf16> {
  %0 = mp.sigmoid %a : tensor<4xf16>
  return %0 : tensor<4xf16>
}

// The payload of every other elementwise op.
// CHECK-LABEL: func.func @payloads(
// CHECK:         arith.divf %{{.*}}, %{{.*}} : f32
// CHECK:         math.powf %{{.*}}, %{{.*}} : f32
// CHECK:         arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK:         arith.minimumf %{{.*}}, %{{.*}} : f32
// CHECK:         arith.negf %{{.*}} : f32
// CHECK:         math.tanh %{{.*}} : f32
// CHECK:         math.exp %{{.*}} : f32
// CHECK:         math.log %{{.*}} : f32
// CHECK:         math.sqrt %{{.*}} : f32
// CHECK:         math.rsqrt %{{.*}} : f32
// CHECK-NOT:     mp.
func.func @payloads(%a: tensor<4xf32>, %b: tensor<4xf32>) {
  %0 = mp.div %a, %b : tensor<4xf32>, tensor<4xf32>
  %1 = mp.pow %a, %b : tensor<4xf32>, tensor<4xf32>
  %2 = mp.maximum %a, %b : tensor<4xf32>, tensor<4xf32>
  %3 = mp.minimum %a, %b : tensor<4xf32>, tensor<4xf32>
  %4 = mp.neg %a : tensor<4xf32>
  %5 = mp.tanh %a : tensor<4xf32>
  %6 = mp.exp %a : tensor<4xf32>
  %7 = mp.log %a : tensor<4xf32>
  %8 = mp.sqrt %a : tensor<4xf32>
  %9 = mp.rsqrt %a : tensor<4xf32>
  return
}

// GELU: x·0.5·(1 + erf(x/√2)), or the tanh approximation.
// CHECK-LABEL: func.func @gelu(
// CHECK:         ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[HALF:.*]] = arith.constant 5.000000e-01 : f32
// CHECK:           %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK:           %[[RSQRT2:.*]] = arith.constant 0.707106769 : f32
// CHECK:           %[[S:.*]] = arith.mulf %[[X]], %[[RSQRT2]] : f32
// CHECK:           %[[E:.*]] = math.erf %[[S]] : f32
// CHECK:           %[[H:.*]] = arith.mulf %[[X]], %[[HALF]] : f32
// CHECK:           %[[P:.*]] = arith.addf %[[ONE]], %[[E]] : f32
// CHECK:           arith.mulf %[[H]], %[[P]] : f32
// CHECK:         linalg.generic
// CHECK:           arith.constant 4.471500e-02 : f32
// CHECK:           arith.constant 0.797884583 : f32
// CHECK:           math.tanh
func.func @gelu(%a: tensor<4xf32>) {
  %0 = mp.gelu %a : tensor<4xf32>
  %1 = mp.gelu %a approximate tanh : tensor<4xf32>
  return
}

// Elementwise gradients.
// CHECK-LABEL: func.func @relu_grad_bf16(
// CHECK:         ^bb0(%[[DY:.*]]: bf16, %[[X:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT:      %[[DY32:.*]] = arith.extf %[[DY]] : bf16 to f32
// CHECK-NEXT:      %[[X32:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[POS:.*]] = arith.cmpf ogt, %[[X32]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[SEL:.*]] = arith.select %[[POS]], %[[DY32]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[SEL]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[T]] : bf16
func.func @relu_grad_bf16(%dy: tensor<4xbf16>, %x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = mp.relu_grad %dy, %x : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// CHECK-LABEL: func.func @gelu_grad(
// CHECK:         linalg.generic
// CHECK:           math.erf
// CHECK:           math.exp
// CHECK:         linalg.generic
// CHECK:           math.tanh
// CHECK:           arith.constant 1.341450e-01 : f32
func.func @gelu_grad(%dy: tensor<4xf32>, %x: tensor<4xf32>) {
  %0 = mp.gelu_grad %dy, %x : tensor<4xf32>
  %1 = mp.gelu_grad %dy, %x approximate tanh : tensor<4xf32>
  return
}
