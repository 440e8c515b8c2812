// bf16 arithmetic through convert-mp-to-linalg, executed on the CPU: each
// result is the f32 result rounded once to bf16 (nearest, ties to even),
// subnormals included. The host's vcvtneps2bf16 flushes f32 subnormals to
// zero; %lower_to_llvm expands bf16 truncf/extf to integer operations
// (arith-expand{include-bf16=true}), which this test checks. Results are
// printed as bf16 bit patterns (decimal) and values.
// RUN: mp-opt %s --convert-mp-to-linalg %lower_to_llvm | %mlir_runner | FileCheck %s

memref.global "public" @add_lhs : memref<4xf32> = dense<[1.0, 1.0, 9.18354961579912115e-41, 3.0e+38]>
memref.global "public" @add_rhs : memref<4xf32> = dense<[3.90625e-03, 5.859375e-03, 9.18354961579912115e-41, 3.0e+38]>
memref.global "public" @mul_lhs : memref<4xf32> = dense<[1.17549435e-38, 1.0e-38, 3.0, 65504.0]>
memref.global "public" @mul_rhs : memref<4xf32> = dense<[0.5, 1.0e-10, 0.333333343, 2.0]>
memref.global "public" @cast_in : memref<4xf32> = dense<[1.0e-40, 3.0e-39, 1.00390625, 1.01171875]>
memref.global "public" @sum_in : memref<3xf32> = dense<[1.0, 3.90625e-03, 3.90625e-03]>

func.func private @load(%name: memref<4xf32>) -> tensor<4xbf16> {
  %t = bufferization.to_tensor %name restrict : memref<4xf32> to tensor<4xf32>
  %h = mp.cast %t : tensor<4xf32> to tensor<4xbf16>
  return %h : tensor<4xbf16>
}

// Prints the bf16 bit patterns, then the values.
func.func private @print4(%h: tensor<4xbf16>) {
  %c0 = arith.constant 0 : index
  %bits16 = arith.bitcast %h : tensor<4xbf16> to tensor<4xi16>
  %bits = arith.extui %bits16 : tensor<4xi16> to tensor<4xi32>
  %zi = arith.constant 0 : i32
  %vb = vector.transfer_read %bits[%c0], %zi : tensor<4xi32>, vector<4xi32>
  vector.print %vb : vector<4xi32>
  %f = mp.cast %h : tensor<4xbf16> to tensor<4xf32>
  %zf = arith.constant 0.0 : f32
  %vf = vector.transfer_read %f[%c0], %zf : tensor<4xf32>, vector<4xf32>
  vector.print %vf : vector<4xf32>
  return
}

func.func @main() {
  // 1 + 2^-8 is the tie between 1 and 1 + 2^-7: even, 1 (0x3F80).
  // 1 + 3·2^-9 lies above the midpoint: 1 + 2^-7 = 1.0078125 (0x3F81).
  // 2^-133 + 2^-133 (the smallest subnormal): 2^-132 (0x0002).
  // bf16(3e38) = 1.765625·2^127, doubled: beyond 3.39e38, inf (0x7F80).
  %a0 = memref.get_global @add_lhs : memref<4xf32>
  %a1 = memref.get_global @add_rhs : memref<4xf32>
  %al = call @load(%a0) : (memref<4xf32>) -> tensor<4xbf16>
  %ar = call @load(%a1) : (memref<4xf32>) -> tensor<4xbf16>
  %sum = mp.add %al, %ar : tensor<4xbf16>, tensor<4xbf16>
  // CHECK: ( 16256, 16257, 2, 32640 )
  // CHECK-NEXT: ( 1, 1.00781, 1.83671e-40, inf )
  call @print4(%sum) : (tensor<4xbf16>) -> ()

  // 2^-126 · 0.5 = 2^-127, a subnormal (0x0040). 1e-38 · 1e-10 underflows
  // to 0. 3 · bf16(1/3) = 3 · 171/512 = 1.00195: 1. bf16(65504) = 65536,
  // doubled: 131072 (0x4800).
  %m0 = memref.get_global @mul_lhs : memref<4xf32>
  %m1 = memref.get_global @mul_rhs : memref<4xf32>
  %ml = call @load(%m0) : (memref<4xf32>) -> tensor<4xbf16>
  %mr = call @load(%m1) : (memref<4xf32>) -> tensor<4xbf16>
  %prod = mp.mul %ml, %mr : tensor<4xbf16>, tensor<4xbf16>
  // CHECK-NEXT: ( 64, 0, 16256, 18432 )
  // CHECK-NEXT: ( 5.87747e-39, 0, 1, 131072 )
  call @print4(%prod) : (tensor<4xbf16>) -> ()

  // Casts of f32 subnormals: 1e-40 = 1.09·2^-133: 0x0001 (vcvtneps2bf16
  // would give 0); 3e-39 = 32.67·2^-133: 33 (0x0021). 1 + 2^-8: tie, 1.
  // 1 + 3·2^-8: tie between 1 + 2^-7 (odd) and 1 + 2^-6: 1.015625 (0x3F82).
  %c = memref.get_global @cast_in : memref<4xf32>
  %ch = call @load(%c) : (memref<4xf32>) -> tensor<4xbf16>
  // CHECK-NEXT: ( 1, 33, 16256, 16258 )
  // CHECK-NEXT: ( 9.18355e-41, 3.03057e-39, 1, 1.01562 )
  call @print4(%ch) : (tensor<4xbf16>) -> ()

  // reduce_sum of [1, 2^-8, 2^-8] accumulates in f32: 1 + 2^-7, exact in
  // bf16 (0x3F81); bf16 accumulation would tie back to 1 twice. exp(1) in
  // f32 rounded once: 2.71828 → 174·2^-6 = 2.71875 (0x402E).
  %s = memref.get_global @sum_in : memref<3xf32>
  %st = bufferization.to_tensor %s restrict : memref<3xf32> to tensor<3xf32>
  %sh = mp.cast %st : tensor<3xf32> to tensor<3xbf16>
  %rs = mp.reduce_sum %sh dims [0] keepdims : tensor<3xbf16>
  %one = mp.slice %sh offsets [0] sizes [1] strides [1] : tensor<3xbf16>
  %e = mp.exp %one : tensor<1xbf16>
  %rest = mp.concat %rs, %e, %one, %one dim 0 : tensor<1xbf16>, tensor<1xbf16>, tensor<1xbf16>, tensor<1xbf16>
  // CHECK-NEXT: ( 16257, 16430, 16256, 16256 )
  // CHECK-NEXT: ( 1.00781, 2.71875, 1, 1 )
  call @print4(%rest) : (tensor<4xbf16>) -> ()
  return
}
