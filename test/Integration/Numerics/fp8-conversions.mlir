// FP8 casts through convert-mp-to-linalg, executed on the CPU with the
// bit-exact expansion of mp-expand-fp8-conversions: E4M3FN (largest value
// 448, no infinity: overflow gives NaN) and E5M2 (largest 57344, overflow to
// infinity), round to nearest even with subnormals, saturating casts clamping
// to the largest value (infinities too, NaN kept), decoding of a table of
// encodings, a cast between the two formats, and a matmul extending FP8
// operands exactly to its f32 accumulator. Printed: the FP8 encodings
// (decimal), then the values.
// RUN: mp-opt %s --convert-mp-to-linalg %lower_to_llvm | %mlir_runner | FileCheck %s

memref.global "public" @e4m3_in : memref<8xf32> = dense<[448.0, 464.0, 465.0, 500.0, 1.953125e-03, 9.765625e-04, 2.9296875e-03, 1.1875]>
memref.global "public" @e4m3_sat_in : memref<8xf32> = dense<[500.0, 0x7F800000, 0xFF800000, 0x7FC00000, -1000.0, 448.0, -464.0, 1.0e-03]>
memref.global "public" @e5m2_in : memref<8xf32> = dense<[57344.0, 61439.0, 61440.0, 1.52587890625e-05, 4.57763671875e-05, 6.103515625e-05, 7.62939453125e-06, 1.0]>
memref.global "public" @e5m2_sat_in : memref<8xf32> = dense<[1.0e+06, 0x7F800000, 0xFF800000, 0x7FC00000, 61440.0, -61440.0, 57344.0, 2.0]>
memref.global "public" @e4m3_codes : memref<8xi8> = dense<[1, 7, 8, 126, 127, -128, -2, 56]>
memref.global "public" @e5m2_codes : memref<8xi8> = dense<[1, 3, 4, 123, 124, 125, -4, 60]>
memref.global "public" @cross_in : memref<4xf32> = dense<[448.0, 1.953125e-03, 1.125, -1.5625e-02]>
memref.global "public" @mm_lhs : memref<1x2xf32> = dense<[[448.0, 1.953125e-03]]>
memref.global "public" @mm_rhs : memref<2x1xf32> = dense<[[2.0], [1.0]]>

func.func private @input8(%m: memref<8xf32>) -> tensor<8xf32> {
  %t = bufferization.to_tensor %m restrict : memref<8xf32> to tensor<8xf32>
  return %t : tensor<8xf32>
}

func.func private @print_e4m3(%q: tensor<8xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %b8 = arith.bitcast %q : tensor<8xf8E4M3FN> to tensor<8xi8>
  %b = arith.extui %b8 : tensor<8xi8> to tensor<8xi32>
  %zi = arith.constant 0 : i32
  %vb = vector.transfer_read %b[%c0], %zi : tensor<8xi32>, vector<8xi32>
  vector.print %vb : vector<8xi32>
  %f = mp.cast %q : tensor<8xf8E4M3FN> to tensor<8xf32>
  %zf = arith.constant 0.0 : f32
  %vf = vector.transfer_read %f[%c0], %zf : tensor<8xf32>, vector<8xf32>
  vector.print %vf : vector<8xf32>
  return
}

func.func private @print_e5m2(%q: tensor<8xf8E5M2>) {
  %c0 = arith.constant 0 : index
  %b8 = arith.bitcast %q : tensor<8xf8E5M2> to tensor<8xi8>
  %b = arith.extui %b8 : tensor<8xi8> to tensor<8xi32>
  %zi = arith.constant 0 : i32
  %vb = vector.transfer_read %b[%c0], %zi : tensor<8xi32>, vector<8xi32>
  vector.print %vb : vector<8xi32>
  %f = mp.cast %q : tensor<8xf8E5M2> to tensor<8xf32>
  %zf = arith.constant 0.0 : f32
  %vf = vector.transfer_read %f[%c0], %zf : tensor<8xf32>, vector<8xf32>
  vector.print %vf : vector<8xf32>
  return
}

func.func @main() {
  // E4M3FN: 448 = 1.110b·2^8 (0x7E) is the largest value. 464 is the tie
  // between 448 (even) and the would-be 480: 448. 465 and 500 round past
  // it: NaN (0x7F). 2^-9 is the smallest subnormal (0x01); 2^-10 is the tie
  // between 0 and it: 0; 1.5·2^-9 the tie between 1 and 2 units: 2 (0x02).
  // 1.1875 is the tie between 1.125 (odd) and 1.25: 1.25 (0x3A).
  %a = memref.get_global @e4m3_in : memref<8xf32>
  %at = call @input8(%a) : (memref<8xf32>) -> tensor<8xf32>
  %aq = mp.cast %at : tensor<8xf32> to tensor<8xf8E4M3FN>
  // CHECK: ( 126, 126, 127, 127, 1, 0, 2, 58 )
  // CHECK-NEXT: ( 448, 448, nan, nan, 0.00195312, 0, 0.00390625, 1.25 )
  call @print_e4m3(%aq) : (tensor<8xf8E4M3FN>) -> ()

  // Saturating E4M3FN: 500, inf → 448; -inf, -1000, -464 → -448 (0xFE);
  // NaN stays NaN; 1e-3 = 0.512·2^-9: 2^-9.
  %b = memref.get_global @e4m3_sat_in : memref<8xf32>
  %bt = call @input8(%b) : (memref<8xf32>) -> tensor<8xf32>
  %bq = mp.cast %bt saturate : tensor<8xf32> to tensor<8xf8E4M3FN>
  // CHECK-NEXT: ( 126, 126, 254, 127, 254, 126, 254, 1 )
  // CHECK-NEXT: ( 448, 448, -448, nan, -448, 448, -448, 0.00195312 )
  call @print_e4m3(%bq) : (tensor<8xf8E4M3FN>) -> ()

  // E5M2: 57344 = 1.11b·2^15 (0x7B) is the largest value; 61439 rounds to
  // it; 61440 is the tie between 57344 (odd) and 65536: overflow, inf
  // (0x7C). Subnormals: 2^-16 (0x01), 3·2^-16 (0x03); 2^-14 is the smallest
  // normal (0x04); 2^-17 ties to 0. 1.0 is 0x3C.
  %c = memref.get_global @e5m2_in : memref<8xf32>
  %ct = call @input8(%c) : (memref<8xf32>) -> tensor<8xf32>
  %cq = mp.cast %ct : tensor<8xf32> to tensor<8xf8E5M2>
  // CHECK-NEXT: ( 123, 123, 124, 1, 3, 4, 0, 60 )
  // CHECK-NEXT: ( 57344, 57344, inf, 1.52588e-05, 4.57764e-05, 6.10352e-05, 0, 1 )
  call @print_e5m2(%cq) : (tensor<8xf8E5M2>) -> ()

  // Saturating E5M2: 1e6, inf, 61440 → 57344; -inf, -61440 → -57344
  // (0xFB); NaN stays NaN (0x7E); 2.0 is 0x40.
  %d = memref.get_global @e5m2_sat_in : memref<8xf32>
  %dt = call @input8(%d) : (memref<8xf32>) -> tensor<8xf32>
  %dq = mp.cast %dt saturate : tensor<8xf32> to tensor<8xf8E5M2>
  // CHECK-NEXT: ( 123, 123, 251, 126, 123, 251, 123, 64 )
  // CHECK-NEXT: ( 57344, 57344, -57344, nan, 57344, -57344, 57344, 2 )
  call @print_e5m2(%dq) : (tensor<8xf8E5M2>) -> ()

  // Decoding E4M3FN: 0x01 = 2^-9, 0x07 = 7·2^-9 (largest subnormal), 0x08 =
  // 2^-6, 0x7E = 448, 0x7F = NaN, 0x80 = -0, 0xFE = -448, 0x38 = 1.
  %e = memref.get_global @e4m3_codes : memref<8xi8>
  %et = bufferization.to_tensor %e restrict : memref<8xi8> to tensor<8xi8>
  %eq = arith.bitcast %et : tensor<8xi8> to tensor<8xf8E4M3FN>
  // CHECK-NEXT: ( 1, 7, 8, 126, 127, 128, 254, 56 )
  // CHECK-NEXT: ( 0.00195312, 0.0136719, 0.015625, 448, nan, -0, -448, 1 )
  call @print_e4m3(%eq) : (tensor<8xf8E4M3FN>) -> ()

  // Decoding E5M2: 0x01 = 2^-16, 0x03 = 3·2^-16, 0x04 = 2^-14, 0x7B =
  // 57344, 0x7C = inf, 0x7D = NaN, 0xFC = -inf, 0x3C = 1.
  %f = memref.get_global @e5m2_codes : memref<8xi8>
  %ft = bufferization.to_tensor %f restrict : memref<8xi8> to tensor<8xi8>
  %fq = arith.bitcast %ft : tensor<8xi8> to tensor<8xf8E5M2>
  // CHECK-NEXT: ( 1, 3, 4, 123, 124, 125, 252, 60 )
  // CHECK-NEXT: ( 1.52588e-05, 4.57764e-05, 6.10352e-05, 57344, inf, nan, -inf, 1 )
  call @print_e5m2(%fq) : (tensor<8xf8E5M2>) -> ()

  // E4M3FN → E5M2 (through f32): 448 = 1.11b·2^8 is exact (0x5F); 2^-9 is
  // normal in E5M2 (0x18); 1.125 = 1.001b is the tie between 1 and 1.25: 1
  // (0x3C); -2^-6: 0xA4.
  %g = memref.get_global @cross_in : memref<4xf32>
  %gt = bufferization.to_tensor %g restrict : memref<4xf32> to tensor<4xf32>
  %g4 = mp.cast %gt : tensor<4xf32> to tensor<4xf8E4M3FN>
  %g5 = mp.cast %g4 : tensor<4xf8E4M3FN> to tensor<4xf8E5M2>
  %g5b = arith.bitcast %g5 : tensor<4xf8E5M2> to tensor<4xi8>
  %g5i = arith.extui %g5b : tensor<4xi8> to tensor<4xi32>
  %g5f = mp.cast %g5 : tensor<4xf8E5M2> to tensor<4xf32>
  %c0 = arith.constant 0 : index
  %zi = arith.constant 0 : i32
  %zf = arith.constant 0.0 : f32
  %vgi = vector.transfer_read %g5i[%c0], %zi : tensor<4xi32>, vector<4xi32>
  %vgf = vector.transfer_read %g5f[%c0], %zf : tensor<4xf32>, vector<4xf32>
  // CHECK-NEXT: ( 95, 24, 60, 164 )
  // CHECK-NEXT: ( 448, 0.00195312, 1, -0.015625 )
  vector.print %vgi : vector<4xi32>
  vector.print %vgf : vector<4xf32>

  // [448, 2^-9] (E4M3FN) · [2, 1] (E5M2), accumulated in f32: the operands
  // are extended exactly, 896 + 2^-9 = 896.001953125 (0x44600020).
  %l = memref.get_global @mm_lhs : memref<1x2xf32>
  %lt = bufferization.to_tensor %l restrict : memref<1x2xf32> to tensor<1x2xf32>
  %lq = mp.cast %lt : tensor<1x2xf32> to tensor<1x2xf8E4M3FN>
  %r = memref.get_global @mm_rhs : memref<2x1xf32>
  %rt = bufferization.to_tensor %r restrict : memref<2x1xf32> to tensor<2x1xf32>
  %rq = mp.cast %rt : tensor<2x1xf32> to tensor<2x1xf8E5M2>
  %mm = mp.matmul %lq, %rq acc(f32) : tensor<1x2xf8E4M3FN>, tensor<2x1xf8E5M2> -> tensor<1x1xf32>
  %mmb = arith.bitcast %mm : tensor<1x1xf32> to tensor<1x1xi32>
  %mmi = tensor.extract %mmb[%c0, %c0] : tensor<1x1xi32>
  // CHECK-NEXT: 1147142176
  vector.print %mmi : i32
  return
}
