// The gradient of mp.pow with respect to its exponent at the edges of log:
// PyTorch's pow_backward_exponent gives 0 where the base is 0 and the
// exponent >= 0 (y · log(l) would be 0 · −inf, or 1 · −inf at r = 0), −inf
// for a 0 base with a negative exponent, NaN for a negative base, and
// y · log(l) elsewhere (8 · ln 2 = 5.54518 for 2^3).
// RUN: mp-opt %s --mp-autodiff --convert-mp-to-linalg %lower_to_llvm | %mlir_runner | FileCheck %s

// CHECK: ( 0, 0, -inf, {{-?}}nan, 5.54518 )

func.func private @exponent_gradient(%a: tensor<5xf32>, %e: tensor<5xf32>) -> tensor<5xf32> {
  %p = mp.pow %a, %e : tensor<5xf32>, tensor<5xf32>
  %l = mp.reduce_sum %p dims [0] : tensor<5xf32>
  %de = mp.grad %l wrt %e : tensor<f32>, tensor<5xf32>
  return %de : tensor<5xf32>
}

func.func @main() {
  %a = arith.constant dense<[0.0, 0.0, 0.0, -1.0, 2.0]> : tensor<5xf32>
  %e = arith.constant dense<[2.0, 0.0, -1.0, 0.5, 3.0]> : tensor<5xf32>
  %g = call @exponent_gradient(%a, %e) : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xf32>
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %v = vector.transfer_read %g[%c0], %z : tensor<5xf32>, vector<5xf32>
  vector.print %v : vector<5xf32>
  return
}
