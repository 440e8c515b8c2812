// The initial value of a low-precision optimizer state that mp-master-weights
// widens to f32 must be convertible: a float scalar or dense float elements
// (master-weights-state-init.mlir). Another form, such as a dense resource,
// is an error at the optimizer, before anything changes.
// RUN: mp-opt %s -verify-diagnostics --mp-master-weights

func.func @resource_init(%w: tensor<2xf16> {mp.param},
                         %buf: tensor<2xf16> {mp.init = dense_resource<init> : tensor<2xf16>, mp.state = "sgd.momentum_buffer"},
                         %t: tensor<2xf16>)
    -> (tensor<f16> {mp.loss}, tensor<2xf16> {mp.updates = 0 : i64},
        tensor<2xf16> {mp.updates = 1 : i64}) {
  %loss = mp.mse %w, %t : tensor<2xf16>
  %g = mp.grad %loss wrt %w : tensor<f16>, tensor<2xf16>
  // expected-error @+1 {{mp-master-weights cannot convert the initial value of state argument 1 to f32}}
  %w1, %buf1 = mp.sgd %w, %g momentum_buffer %buf
      {lr = 1.0e-01 : f64, momentum = 9.0e-01 : f64} : tensor<2xf16>, tensor<2xf16>
  return %loss, %w1, %buf1 : tensor<f16>, tensor<2xf16>, tensor<2xf16>
}

{-#
  dialect_resources: {
    builtin: {
      init: "0x02000000003C003C"
    }
  }
#-}
