// RUN: mp-opt %s -split-input-file -verify-diagnostics --mp-cpu-pipeline

// IR mp-cpu-pipeline does not lower: an error at the op and the pipeline
// fails (FP8 conversions it cannot expand:
// test/Conversion/MPToLinalg/mp-expand-fp8-conversions-invalid.mlir).

func.func @unexpanded_grad(%w: tensor<4xf32> {mp.param}, %t: tensor<4xf32>) -> tensor<4xf32> {
  %loss = mp.mse %w, %t : tensor<4xf32>
  // expected-error @+1 {{'mp.grad' op cannot be lowered to linalg: run mp-autodiff first to expand it into explicit backward ops}}
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4xf32>
  return %g : tensor<4xf32>
}

// -----

// expected-note @+1 {{defined here}}
func.func private @_mlir_ciface_step(%x: tensor<2xf32>)

// expected-error @+1 {{cannot be exported: the module already has a symbol '@_mlir_ciface_step'}}
func.func @step(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
