// f16 arithmetic through convert-mp-to-linalg, executed on the CPU: every
// elementwise result is rounded once to f16 (nearest, ties to even,
// subnormals, overflow to infinity), matmuls accumulate in their acc_type and
// reductions in f32. Inputs come from public globals so that nothing folds at
// compile time. Each result is printed as f16 bit patterns (decimal) and as
// its value; the expected values are worked out in the comments.
// RUN: mp-opt %s --convert-mp-to-linalg %lower_to_llvm | %mlir_runner | FileCheck %s

memref.global "public" @add_lhs : memref<4xf32> = dense<[1.0, 65504.0, 65504.0, 1.0]>
memref.global "public" @add_rhs : memref<4xf32> = dense<[1.0e-06, 15.99, 16.0, 4.8828125e-04]>
memref.global "public" @mul_lhs : memref<4xf32> = dense<[65504.0, 5.9604644775390625e-08, 5.9604644775390625e-08, 3.0]>
memref.global "public" @mul_rhs : memref<4xf32> = dense<[2.0, 0.5, 1.5, 0.333333343]>
memref.global "public" @cast_in : memref<4xf32> = dense<[2049.0, 2051.0, 1.0e-06, 70000.0]>
memref.global "public" @unary_in : memref<3xf32> = dense<[1.0, 2.0, 3.0]>
memref.global "public" @sum_in : memref<1x3xf32> = dense<[[2048.0, 1.0, 1.0]]>
memref.global "public" @ones : memref<3x1xf32> = dense<1.0>

func.func private @load(%name: memref<4xf32>) -> tensor<4xf16> {
  %t = bufferization.to_tensor %name restrict : memref<4xf32> to tensor<4xf32>
  %h = mp.cast %t : tensor<4xf32> to tensor<4xf16>
  return %h : tensor<4xf16>
}

// Prints the f16 bit patterns, then the values.
func.func private @print4(%h: tensor<4xf16>) {
  %c0 = arith.constant 0 : index
  %bits16 = arith.bitcast %h : tensor<4xf16> to tensor<4xi16>
  %bits = arith.extui %bits16 : tensor<4xi16> to tensor<4xi32>
  %zi = arith.constant 0 : i32
  %vb = vector.transfer_read %bits[%c0], %zi : tensor<4xi32>, vector<4xi32>
  vector.print %vb : vector<4xi32>
  %f = mp.cast %h : tensor<4xf16> to tensor<4xf32>
  %zf = arith.constant 0.0 : f32
  %vf = vector.transfer_read %f[%c0], %zf : tensor<4xf32>, vector<4xf32>
  vector.print %vf : vector<4xf32>
  return
}

func.func @main() {
  // 1 + 1e-6: 1e-6 is the f16 subnormal 17·2^-24 ≈ 1.0133e-6, far below half
  // an ulp of 1 (2^-11): 1 (0x3C00). 65504 + 15.9921875 < 65520: 65504
  // (0x7BFF). 65504 + 16 = 65520 is the tie between 65504 (odd mantissa)
  // and 65536: even wins, overflow: inf (0x7C00). 1 + 2^-11 is the tie
  // between 1 and 1 + 2^-10: 1.
  %a0 = memref.get_global @add_lhs : memref<4xf32>
  %a1 = memref.get_global @add_rhs : memref<4xf32>
  %al = call @load(%a0) : (memref<4xf32>) -> tensor<4xf16>
  %ar = call @load(%a1) : (memref<4xf32>) -> tensor<4xf16>
  %sum = mp.add %al, %ar : tensor<4xf16>, tensor<4xf16>
  // CHECK: ( 15360, 31743, 31744, 15360 )
  // CHECK-NEXT: ( 1, 65504, inf, 1 )
  call @print4(%sum) : (tensor<4xf16>) -> ()

  // 65504 · 2 overflows: inf. 2^-24 · 0.5 = 2^-25, the tie between 0 and the
  // smallest subnormal: 0. 2^-24 · 1.5: tie between 1 and 2 units of 2^-24:
  // 2^-23 (0x0002). 3 · f16(1/3) = 3 · 1365/4096 = 4095/4096, the tie
  // between 2047/2048 (odd) and 1: 1.
  %m0 = memref.get_global @mul_lhs : memref<4xf32>
  %m1 = memref.get_global @mul_rhs : memref<4xf32>
  %ml = call @load(%m0) : (memref<4xf32>) -> tensor<4xf16>
  %mr = call @load(%m1) : (memref<4xf32>) -> tensor<4xf16>
  %prod = mp.mul %ml, %mr : tensor<4xf16>, tensor<4xf16>
  // CHECK-NEXT: ( 31744, 0, 2, 15360 )
  // CHECK-NEXT: ( inf, 0, 1.19209e-07, 1 )
  call @print4(%prod) : (tensor<4xf16>) -> ()

  // Casts: 2049 is the tie between 2048 and 2050: 2048 (0x6800); 2051 is the
  // tie between 2050 (odd) and 2052: 2052 (0x6802); 1e-6 / 2^-24 = 16.78:
  // 17 (0x0011); 70000 > 65520: inf.
  %c = memref.get_global @cast_in : memref<4xf32>
  %ch = call @load(%c) : (memref<4xf32>) -> tensor<4xf16>
  // CHECK-NEXT: ( 26624, 26626, 17, 31744 )
  // CHECK-NEXT: ( 2048, 2052, 1.01328e-06, inf )
  call @print4(%ch) : (tensor<4xf16>) -> ()

  // Division, sqrt and exp in f32 rounded once: 1/3 = 0x3555 (0.333252),
  // sqrt 2 = 1448/1024 = 0x3DA8, exp 1 = 2.71828 → 1392/512 = 2.71875
  // (0x4170), 1/1 = 1.
  %u = memref.get_global @unary_in : memref<3xf32>
  %ut = bufferization.to_tensor %u restrict : memref<3xf32> to tensor<3xf32>
  %uh = mp.cast %ut : tensor<3xf32> to tensor<3xf16>
  %one = mp.slice %uh offsets [0] sizes [1] strides [1] : tensor<3xf16>
  %two = mp.slice %uh offsets [1] sizes [1] strides [1] : tensor<3xf16>
  %three = mp.slice %uh offsets [2] sizes [1] strides [1] : tensor<3xf16>
  %third = mp.div %one, %three : tensor<1xf16>, tensor<1xf16>
  %root = mp.sqrt %two : tensor<1xf16>
  %e = mp.exp %one : tensor<1xf16>
  %unit = mp.div %one, %one : tensor<1xf16>, tensor<1xf16>
  %unary = mp.concat %third, %root, %e, %unit dim 0 : tensor<1xf16>, tensor<1xf16>, tensor<1xf16>, tensor<1xf16>
  // CHECK-NEXT: ( 13653, 15784, 16752, 15360 )
  // CHECK-NEXT: ( 0.333252, 1.41406, 2.71875, 1 )
  call @print4(%unary) : (tensor<4xf16>) -> ()

  // [2048, 1, 1] · [1, 1, 1]: accumulated in f32 the sum is 2050, rounded
  // once to f16 (0x6801); accumulated in f16 each 2048 + 1 ties back to 2048.
  // reduce_sum accumulates in f32: 2050.
  %s = memref.get_global @sum_in : memref<1x3xf32>
  %st = bufferization.to_tensor %s restrict : memref<1x3xf32> to tensor<1x3xf32>
  %sh = mp.cast %st : tensor<1x3xf32> to tensor<1x3xf16>
  %o = memref.get_global @ones : memref<3x1xf32>
  %ot = bufferization.to_tensor %o restrict : memref<3x1xf32> to tensor<3x1xf32>
  %oh = mp.cast %ot : tensor<3x1xf32> to tensor<3x1xf16>
  %mm32 = mp.matmul %sh, %oh acc(f32) : tensor<1x3xf16>, tensor<3x1xf16> -> tensor<1x1xf16>
  %mm16 = mp.matmul %sh, %oh acc(f16) : tensor<1x3xf16>, tensor<3x1xf16> -> tensor<1x1xf16>
  %rs = mp.reduce_sum %sh dims [1] keepdims : tensor<1x3xf16>
  %rs1 = mp.reshape %rs : tensor<1x1xf16> to tensor<1xf16>
  %mm32r = mp.reshape %mm32 : tensor<1x1xf16> to tensor<1xf16>
  %mm16r = mp.reshape %mm16 : tensor<1x1xf16> to tensor<1xf16>
  %sums = mp.concat %mm32r, %mm16r, %rs1, %unit dim 0 : tensor<1xf16>, tensor<1xf16>, tensor<1xf16>, tensor<1xf16>
  // CHECK-NEXT: ( 26625, 26624, 26625, 15360 )
  // CHECK-NEXT: ( 2050, 2048, 2050, 1 )
  call @print4(%sums) : (tensor<4xf16>) -> ()
  return
}
