// mp.cast and mp.scale: elementwise generics; conversions between formats of
// one width and every FP8 conversion go through f32 (the first step exact);
// saturating casts clamp in f32 before the single rounding.
// RUN: mp-opt %s --convert-mp-to-linalg | FileCheck %s

// CHECK-DAG: #[[$ID1:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$ALL:.*]] = affine_map<(d0, d1) -> ()>

// CHECK-LABEL: func.func @cast_f32_to_f16(
// CHECK:         linalg.generic {indexing_maps = [#[[$ID1]], #[[$ID1]]], iterator_types = ["parallel"]}
// CHECK-SAME:      ins(%{{.*}} : tensor<4xf32>) outs(%{{.*}} : tensor<4xf16>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %{{.*}}: f16):
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[X]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[T]] : f16
func.func @cast_f32_to_f16(%x: tensor<4xf32>) -> tensor<4xf16> {
  %0 = mp.cast %x : tensor<4xf32> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// CHECK-LABEL: func.func @cast_bf16_to_f16(
// CHECK:         ^bb0(%[[X:.*]]: bf16, %{{.*}}: f16):
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[W]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[T]] : f16
func.func @cast_bf16_to_f16(%x: tensor<4xbf16>) -> tensor<4xf16> {
  %0 = mp.cast %x : tensor<4xbf16> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// CHECK-LABEL: func.func @cast_f16_to_f32(
// CHECK:         ^bb0(%[[X:.*]]: f16, %{{.*}}: f32):
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      linalg.yield %[[W]] : f32
func.func @cast_f16_to_f32(%x: tensor<4xf16>) -> tensor<4xf32> {
  %0 = mp.cast %x : tensor<4xf16> to tensor<4xf32>
  return %0 : tensor<4xf32>
}

// CHECK-LABEL: func.func @cast_saturate_e4m3(
// CHECK:         ^bb0(%[[X:.*]]: f32, %{{.*}}: f8E4M3FN):
// CHECK-NEXT:      %[[HI:.*]] = arith.constant 4.480000e+02 : f32
// CHECK-NEXT:      %[[LO:.*]] = arith.constant -4.480000e+02 : f32
// CHECK-NEXT:      %[[A:.*]] = arith.maximumf %[[X]], %[[LO]] : f32
// CHECK-NEXT:      %[[B:.*]] = arith.minimumf %[[A]], %[[HI]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[B]] : f32 to f8E4M3FN
// CHECK-NEXT:      linalg.yield %[[T]] : f8E4M3FN
func.func @cast_saturate_e4m3(%x: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  %0 = mp.cast %x saturate : tensor<4xf32> to tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// CHECK-LABEL: func.func @cast_saturate_e5m2_from_bf16(
// CHECK:         ^bb0(%[[X:.*]]: bf16, %{{.*}}: f8E5M2):
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK-NEXT:      %[[HI:.*]] = arith.constant 5.734400e+04 : f32
// CHECK-NEXT:      %[[LO:.*]] = arith.constant -5.734400e+04 : f32
// CHECK-NEXT:      %[[A:.*]] = arith.maximumf %[[W]], %[[LO]] : f32
// CHECK-NEXT:      %[[B:.*]] = arith.minimumf %[[A]], %[[HI]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[B]] : f32 to f8E5M2
func.func @cast_saturate_e5m2_from_bf16(%x: tensor<4xbf16>) -> tensor<4xf8E5M2> {
  %0 = mp.cast %x saturate : tensor<4xbf16> to tensor<4xf8E5M2>
  return %0 : tensor<4xf8E5M2>
}

// CHECK-LABEL: func.func @cast_e4m3_to_e5m2(
// CHECK:         ^bb0(%[[X:.*]]: f8E4M3FN, %{{.*}}: f8E5M2):
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[X]] : f8E4M3FN to f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[W]] : f32 to f8E5M2
// CHECK-NEXT:      linalg.yield %[[T]] : f8E5M2
func.func @cast_e4m3_to_e5m2(%x: tensor<4xf8E4M3FN>) -> tensor<4xf8E5M2> {
  %0 = mp.cast %x : tensor<4xf8E4M3FN> to tensor<4xf8E5M2>
  return %0 : tensor<4xf8E5M2>
}

// CHECK-LABEL: func.func @cast_e5m2_to_f16(
// CHECK:         ^bb0(%[[X:.*]]: f8E5M2, %{{.*}}: f16):
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[X]] : f8E5M2 to f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[W]] : f32 to f16
func.func @cast_e5m2_to_f16(%x: tensor<4xf8E5M2>) -> tensor<4xf16> {
  %0 = mp.cast %x : tensor<4xf8E5M2> to tensor<4xf16>
  return %0 : tensor<4xf16>
}

// The product in f32, rounded once to the input's type.
// CHECK-LABEL: func.func @scale_f16(
// CHECK-SAME:    %[[G:.*]]: tensor<4x8xf16>, %[[S:.*]]: tensor<f32>)
// CHECK:         linalg.generic {indexing_maps = [#[[$ID2]], #[[$ALL]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]}
// CHECK-SAME:      ins(%[[G]], %[[S]] : tensor<4x8xf16>, tensor<f32>) outs(%{{.*}} : tensor<4x8xf16>)
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f16, %[[F:.*]]: f32, %{{.*}}: f16):
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[W]], %[[F]] : f32
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[P]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[T]] : f16
func.func @scale_f16(%g: tensor<4x8xf16>, %s: tensor<f32>) -> tensor<4x8xf16> {
  %0 = mp.scale %g by %s : tensor<4x8xf16>
  return %0 : tensor<4x8xf16>
}
