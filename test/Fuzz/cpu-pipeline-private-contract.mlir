// Fuzzer finding 3 (mp-fuzz-passes, docs/Reliability.md): mp-cpu-pipeline
// succeeded with IR that does not verify when a private function carried
// train-step attributes (`mp.param` on an argument): one-shot-bufferize
// turned the argument into a memref, on which `mp.param` is invalid.
// mp-export-entry-points now drops the contract attributes of functions
// that are not entry points.
// RUN: mp-opt %s --mp-export-entry-points | FileCheck %s --check-prefix=EXPORT
// RUN: mp-opt %s --mp-cpu-pipeline | FileCheck %s --check-prefix=LOWERED

// EXPORT: func.func private @helper(%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// EXPORT: func.func private @declared(tensor<4xf32>) -> tensor<4xf32>
// LOWERED: llvm.func @step(
func.func private @helper(%a: tensor<4xf32> {mp.param}) -> (tensor<4xf32> {mp.updates = 0 : i64}) {
  return %a : tensor<4xf32>
}
func.func private @declared(tensor<4xf32> {mp.param}) -> tensor<4xf32>
func.func @step(%w: tensor<4xf32> {mp.param}) -> (tensor<4xf32> {mp.updates = 0 : i64}) {
  %0 = func.call @helper(%w) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
