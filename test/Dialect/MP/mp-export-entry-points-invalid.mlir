// RUN: mp-opt %s -split-input-file -verify-diagnostics -mp-export-entry-points

// IR mp-export-entry-points does not support: a public function whose C
// interface name, `_mlir_ciface_<name>`, is already a symbol of the module
// (the LLVM lowering would define it twice). The pass fails at the function
// and leaves the module as it was.

// expected-note @+1 {{defined here}}
func.func private @_mlir_ciface_step(%x: tensor<2xf32>)

// expected-error @+1 {{'func.func' op cannot be exported: the module already has a symbol '@_mlir_ciface_step', the name of its C interface}}
func.func @step(%x: tensor<2xf32> {mp.param}) -> (tensor<2xf32> {mp.updates = 0 : i64}) {
  return %x : tensor<2xf32>
}

// -----

// The same clash with a function that is not a func.func.

// expected-note @+1 {{defined here}}
llvm.func @_mlir_ciface_train() 

// expected-error @+1 {{cannot be exported}}
func.func @train(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
