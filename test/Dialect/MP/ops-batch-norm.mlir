// mp.batch_norm and mp.batch_norm_grad round-trip: custom form, generic form,
// and print -> parse -> print is a fixed point.
// RUN: mp-opt %s | mp-opt | FileCheck %s
// RUN: mp-opt %s -mlir-print-op-generic | mp-opt | FileCheck %s
// RUN: mp-opt %s > %t.1 && mp-opt %t.1 > %t.2 && diff %t.1 %t.2

// CHECK-LABEL: func.func @batch_norm
func.func @batch_norm(%x: tensor<8x4x5x5xf16>, %g: tensor<4xf32>, %b: tensor<4xf32>,
                      %rm: tensor<4xf32>, %rv: tensor<4xf32>, %n: tensor<i64>,
                      %x2: tensor<16x6xbf16>, %g2: tensor<6xbf16>,
                      %rm2: tensor<6xf32>, %rv2: tensor<6xf32>) {
  // CHECK: mp.batch_norm %{{.*}} weight %{{.*}} bias %{{.*}} stats(%{{.*}}, %{{.*}}, %{{.*}}) training : (tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> (tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  %y, %rm1, %rv1, %n1 = mp.batch_norm %x weight %g bias %b stats(%rm, %rv, %n) training
      : (tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
      -> (tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  // CHECK: mp.batch_norm %{{.*}} stats(%{{.*}}, %{{.*}}, %{{.*}}) eval eps 1.000000e-03 : (tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  %y2:4 = mp.batch_norm %x stats(%rm, %rv, %n) eval eps 1.0e-3
      : (tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
      -> (tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  // CHECK: mp.batch_norm %{{.*}} weight %{{.*}} stats(%{{.*}}, %{{.*}}, %{{.*}}) training momentum 2.000000e-01 : (tensor<16x6xbf16>, tensor<6xbf16>, tensor<6xf32>, tensor<6xf32>, tensor<i64>)
  %y3:4 = mp.batch_norm %x2 weight %g2 stats(%rm2, %rv2, %n) training momentum 0.2
      : (tensor<16x6xbf16>, tensor<6xbf16>, tensor<6xf32>, tensor<6xf32>, tensor<i64>)
      -> (tensor<16x6xbf16>, tensor<6xf32>, tensor<6xf32>, tensor<i64>)
  // CHECK: mp.batch_norm %{{.*}} bias %{{.*}} stats(%{{.*}}, %{{.*}}, %{{.*}}) training cumulative_average : (tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  %y4:4 = mp.batch_norm %x bias %b stats(%rm, %rv, %n) training cumulative_average
      : (tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
      -> (tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  // CHECK: mp.batch_norm_grad %{{.*}}, %{{.*}} weight %{{.*}} stats(%{{.*}}, %{{.*}}) training : (tensor<8x4x5x5xf16>, tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>)
  %dx, %dg, %db = mp.batch_norm_grad %y, %x weight %g stats(%rm, %rv) training
      : (tensor<8x4x5x5xf16>, tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
      -> (tensor<8x4x5x5xf16>, tensor<4xf32>, tensor<4xf32>)
  // CHECK: mp.batch_norm_grad %{{.*}}, %{{.*}} stats(%{{.*}}, %{{.*}}) eval eps 1.000000e-03 : (tensor<16x6xbf16>, tensor<16x6xbf16>, tensor<6xf32>, tensor<6xf32>) -> (tensor<16x6xbf16>, tensor<6xbf16>, tensor<6xf32>)
  %dx2:3 = mp.batch_norm_grad %x2, %x2 stats(%rm2, %rv2) eval eps 1.0e-3
      : (tensor<16x6xbf16>, tensor<16x6xbf16>, tensor<6xf32>, tensor<6xf32>)
      -> (tensor<16x6xbf16>, tensor<6xbf16>, tensor<6xf32>)
  return
}
