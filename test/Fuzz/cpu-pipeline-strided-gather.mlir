// Generated-train-step finding 2 (tools/mp-fuzz/fuzz_train_steps.py,
// docs/Reliability.md "Generated train steps"): a cross entropy (or an
// embedding) reading a slice with a non-unit stride. mp-tile-and-vectorize
// vectorised its label lookup (a tensor.extract in a linalg.generic) into a
// vector.gather, which after bufferization reads a memref whose innermost
// stride is 2; convert-vector-to-llvm has no lowering for that, so
// mp-cpu-pipeline returned success with a vector.gather and
// unrealized_conversion_casts left in the module ("could not convert to
// LLVM IR" in mp-run). Such gathers now stay scalar loops; the result
// translates to LLVM IR.
// RUN: mp-opt %s --mp-cpu-pipeline | FileCheck %s --implicit-check-not=vector.gather --implicit-check-not=unrealized_conversion_cast
// RUN: mp-opt %s --mp-cpu-pipeline | mlir-translate --mlir-to-llvmir -o /dev/null
// RUN: mp-opt %s --convert-mp-to-linalg --mp-tile-and-vectorize | FileCheck %s --check-prefix=VEC

// CHECK: llvm.func @strided_logits
// CHECK: llvm.func @strided_table

// VEC-LABEL: func.func @strided_logits
// VEC:         tensor.extract_slice %{{.*}}[0, 0] [4, 8] [1, 2]
// VEC-NOT:     vector.gather
// VEC:         linalg.generic
// VEC:           tensor.extract
// VEC-LABEL: func.func @contiguous_logits
// VEC:         vector.gather
func.func @strided_logits(%x: tensor<4x16xf32>, %y: tensor<4xi64>) -> tensor<f32> {
  %s = mp.slice %x offsets [0, 0] sizes [4, 8] strides [1, 2] : tensor<4x16xf32>
  %l = mp.cross_entropy %s, %y : tensor<4x8xf32>, tensor<4xi64>
  return %l : tensor<f32>
}

// A unit-stride slice keeps its vectorised gather.
func.func @contiguous_logits(%x: tensor<4x16xf32>, %y: tensor<4xi64>) -> tensor<f32> {
  %s = mp.slice %x offsets [0, 8] sizes [4, 8] strides [1, 1] : tensor<4x16xf32>
  %l = mp.cross_entropy %s, %y : tensor<4x8xf32>, tensor<4xi64>
  return %l : tensor<f32>
}

// A reshaped strided slice of an embedding table.
func.func @strided_table(%t: tensor<8x3x4xf32>, %ids: tensor<2x5xi64>) -> tensor<2x5x6xf32> {
  %s = mp.slice %t offsets [0, 0, 1] sizes [8, 3, 2] strides [1, 1, 2] : tensor<8x3x4xf32>
  %r = mp.reshape %s : tensor<8x3x2xf32> to tensor<8x6xf32>
  %e = mp.embedding %r[%ids] : tensor<8x6xf32>, tensor<2x5xi64>
  return %e : tensor<2x5x6xf32>
}
