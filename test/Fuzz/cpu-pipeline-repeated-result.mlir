// Fuzzer finding 5 (mp-fuzz-passes, docs/Reliability.md): mp-cpu-pipeline
// crashed (SEGV in upstream buffer-results-to-out-params) on a function
// returning one value twice, here after CSE merged two identical
// mp.linear ops. mp-export-entry-points now returns a copy from the second
// occurrence on, so every result gets its own out-parameter.
// RUN: mp-opt %s --mp-export-entry-points | FileCheck %s --check-prefix=EXPORT
// RUN: mp-opt %s --mp-cpu-pipeline | FileCheck %s --check-prefix=LOWERED

// EXPORT-LABEL: func.func @twice
// EXPORT:         %[[L:.*]] = mp.linear
// EXPORT:         %[[C:.*]] = bufferization.alloc_tensor() copy(%[[L]])
// EXPORT:         return %[[L]], %{{.*}}, %[[C]], %{{.*}} :
// LOWERED-LABEL: llvm.func @twice(
// LOWERED:       llvm.return
func.func @twice(%x: tensor<3x4x32xf32>, %w: tensor<24x32xf32>)
    -> (tensor<3x4x24xf32>, tensor<3x4x24xf32>, tensor<3x4x24xf32>, tensor<3x4x24xf32>) {
  %l = mp.linear %x, %w acc(f32) : (tensor<3x4x32xf32>, tensor<24x32xf32>) -> tensor<3x4x24xf32>
  %m = mp.linear %x, %w acc(f32) : (tensor<3x4x32xf32>, tensor<24x32xf32>) -> tensor<3x4x24xf32>
  %r = mp.relu %m : tensor<3x4x24xf32>
  return %l, %m, %l, %r : tensor<3x4x24xf32>, tensor<3x4x24xf32>, tensor<3x4x24xf32>, tensor<3x4x24xf32>
}
