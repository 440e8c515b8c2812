// The random ops: one parallel linalg.generic each, whose payload computes
// Philox4x32-10 of the element's own counter (state offset + row-major
// linear index from linalg.index), so the bits do not depend on tiling; the
// f32 value is rounded once to the storage type; the new state is
// [seed, offset + 4·ceil(N/4)]. Bit-exact execution: test/Integration/
// Numerics/random-stream.test.
// RUN: mp-opt %s --convert-mp-to-linalg | FileCheck %s
// RUN: mp-opt %s --convert-mp-to-linalg | FileCheck %s --check-prefix=ROUNDS

// CHECK-LABEL: func.func @dropout_f16(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<2x3xf16>, %[[S:[a-z0-9]+]]: tensor<2xi64>
// CHECK-DAG:     %[[SEED:.*]] = tensor.extract %[[S]][%{{.*}}] : tensor<2xi64>
// CHECK-DAG:     %[[OFF:.*]] = tensor.extract %[[S]][%{{.*}}] : tensor<2xi64>
// The key: k0 = seed[31:0], k1 = seed[63:32].
// CHECK:         %[[K0:.*]] = arith.trunci %[[SEED]] : i64 to i32
// CHECK:         %[[HI:.*]] = arith.shrui %[[SEED]], %{{.*}} : i64
// CHECK:         %[[K1:.*]] = arith.trunci %[[HI]] : i64 to i32
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[X]] : tensor<2x3xf16>) outs(%{{.*}} : tensor<2x3xf16>)
// CHECK:         ^bb0(%[[IN:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT:      %[[XF:.*]] = arith.extf %[[IN]] : f16 to f32
// Linear index i = i0·3 + i1; draw d = offset + i; block n = d >> 2.
// CHECK:           %[[I0:.*]] = linalg.index 0 : index
// CHECK:           %[[I1:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[LIN:.*]] = arith.addi %{{.*}}, %[[I1]] : index
// CHECK-NEXT:      %[[LIN64:.*]] = arith.index_castui %[[LIN]] : index to i64
// CHECK-NEXT:      %[[D:.*]] = arith.addi %[[OFF]], %[[LIN64]] : i64
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2 : i64
// CHECK-NEXT:      %[[N:.*]] = arith.shrui %[[D]], %[[TWO]] : i64
// The multipliers 0xD2511F53, 0xCD9E8D57 and Weyl constants 0x9E3779B9,
// 0xBB67AE85 (as signed i32).
// CHECK:           arith.constant -766435501 : i32
// CHECK-NEXT:      arith.constant -845247145 : i32
// CHECK-NEXT:      arith.constant -1640531527 : i32
// CHECK-NEXT:      arith.constant -1150833019 : i32
// The first round uses the key itself.
// CHECK:           arith.xori %{{.*}}, %[[K0]] : i32
// CHECK:           arith.xori %{{.*}}, %[[K1]] : i32
// CHECK:           %[[WORD:.*]] = arith.andi %[[D]], %{{.*}} : i64
// u = (x >> 8)·2^-24; keep when u < f32(1 − p) = 0.75; PyTorch's
// x · mask · scale with scale = f32(1/(1 − p)).
// CHECK:           %[[SH:.*]] = arith.shrui %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:      %[[UF:.*]] = arith.uitofp %[[SH]] : i32 to f32
// CHECK-NEXT:      %[[EXP:.*]] = arith.constant 5.96046448E-8 : f32
// CHECK-NEXT:      %[[U:.*]] = arith.mulf %[[UF]], %[[EXP]] : f32
// CHECK-NEXT:      %[[Q:.*]] = arith.constant 7.500000e-01 : f32
// CHECK-NEXT:      %[[KEEP:.*]] = arith.cmpf olt, %[[U]], %[[Q]] : f32
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT:      %[[MASK:.*]] = arith.select %[[KEEP]], %[[ONE]], %[[ZERO]] : f32
// CHECK-NEXT:      %[[XM:.*]] = arith.mulf %[[XF]], %[[MASK]] : f32
// CHECK-NEXT:      %[[SC:.*]] = arith.constant 1.33333337 : f32
// CHECK-NEXT:      %[[Y:.*]] = arith.mulf %[[XM]], %[[SC]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.truncf %[[Y]] : f32 to f16
// CHECK-NEXT:      linalg.yield %[[R]] : f16
// 6 elements: the offset advances by 8.
// CHECK:         %[[EIGHT:.*]] = arith.constant 8 : i64
// CHECK-NEXT:    %[[NEWOFF:.*]] = arith.addi %[[OFF]], %[[EIGHT]] : i64
// CHECK-NEXT:    %[[NEW:.*]] = tensor.from_elements %[[SEED]], %[[NEWOFF]] : tensor<2xi64>
// CHECK-NEXT:    return %{{.*}}, %[[NEW]]
// Ten rounds: two 32x32 -> 64-bit products each.
// ROUNDS-LABEL: func.func @dropout_f16(
// ROUNDS-COUNT-20: arith.muli %{{.*}}, %{{.*}} : i64
// ROUNDS-NOT:      arith.muli %{{.*}}, %{{.*}} : i64
// ROUNDS:          linalg.yield
func.func @dropout_f16(%x: tensor<2x3xf16>, %s: tensor<2xi64>) -> (tensor<2x3xf16>, tensor<2xi64>) {
  %y, %s1 = mp.dropout %x, %s p(0.25) : tensor<2x3xf16>
  return %y, %s1 : tensor<2x3xf16>, tensor<2xi64>
}

// p = 0 (if not folded before): the identity, the state unchanged.
// CHECK-LABEL: func.func @dropout_p_zero(
// CHECK-SAME:    %[[X:[a-z0-9]+]]: tensor<4xf32>, %[[S:[a-z0-9]+]]: tensor<2xi64>
// CHECK-NEXT:    return %[[X]], %[[S]]
func.func @dropout_p_zero(%x: tensor<4xf32>, %s: tensor<2xi64>) -> (tensor<4xf32>, tensor<2xi64>) {
  %y, %s1 = mp.dropout %x, %s p(0.0) : tensor<4xf32>
  return %y, %s1 : tensor<4xf32>, tensor<2xi64>
}

// The gradient: the same mask and scale on dy; no state result.
// CHECK-LABEL: func.func @dropout_grad_bf16(
// CHECK:         linalg.generic
// CHECK:           arith.cmpf olt, %{{.*}}, %{{.*}} : f32
// CHECK:           arith.select
// CHECK-NEXT:      arith.mulf
// CHECK:           arith.mulf
// CHECK-NEXT:      arith.truncf %{{.*}} : f32 to bf16
// CHECK-NOT:     tensor.from_elements
// CHECK:         return
func.func @dropout_grad_bf16(%dy: tensor<8xbf16>, %s: tensor<2xi64>) -> tensor<8xbf16> {
  %dx = mp.dropout_grad %dy, %s p(0.5) : tensor<8xbf16>
  return %dx : tensor<8xbf16>
}

// Box-Muller: two draws (offset + 2j, offset + 2j + 1) per element, cos for
// even and sin for odd indices, rounded once to f16; 5 elements advance 8.
// CHECK-LABEL: func.func @normal_f16(
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<5xf16>)
// CHECK:           math.log %{{.*}} : f32
// CHECK:           math.sqrt %{{.*}} : f32
// CHECK:           %[[SIN:.*]] = math.sin %{{.*}} : f32
// CHECK-NEXT:      %[[COS:.*]] = math.cos %{{.*}} : f32
// CHECK-NEXT:      arith.select %{{.*}}, %[[SIN]], %[[COS]] : f32
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK:         arith.constant 8 : i64
func.func @normal_f16(%s: tensor<2xi64>) -> (tensor<5xf16>, tensor<2xi64>) {
  %n, %s1 = mp.random_normal %s mean(1.0) std(2.0) : tensor<5xf16>
  return %n, %s1 : tensor<5xf16>, tensor<2xi64>
}

// Raw bits: the selected word itself; 16 elements advance 16.
// CHECK-LABEL: func.func @bits(
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<4x4xi32>)
// CHECK:           arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK:           arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK:           arith.constant 0 : i32
// CHECK-NEXT:      %[[W0:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:      %[[W:.*]] = arith.select %[[W0]], %{{.*}}, %{{.*}} : i32
// CHECK-NEXT:      linalg.yield %[[W]] : i32
// CHECK:         arith.constant 16 : i64
func.func @bits(%s: tensor<2xi64>) -> (tensor<4x4xi32>, tensor<2xi64>) {
  %b, %s1 = mp.random_bits %s : tensor<4x4xi32>
  return %b, %s1 : tensor<4x4xi32>, tensor<2xi64>
}
