// mp-gpu-pipeline{device-resident} fuses the loops of the step before they
// become kernels (mp-device-loops): loops over the same iteration space
// where each thread reads only what the same thread wrote (the fill of the
// row sums and the row sums: upstream scf-parallel-loop-fusion), and runs
// of adjacent loops on disjoint buffers, of any sizes, merged into one
// loop over the largest, each body guarded by its own size (the three
// casts of 32, 8 and 3 elements, and the row sums of 4). The division by
// the row sums reads other threads' sums: a kernel of its own. Six loops,
// two kernels; nothing is reordered within a thread, so the results are
// the unfused ones bit for bit.

// RUN: mp-opt %s --mp-gpu-pipeline="chip=sm_80 binary-format=isa" | FileCheck %s

// CHECK-LABEL: llvm.func @step(
// CHECK:         llvm.call @mgpuStreamCreate()
// CHECK-COUNT-2: gpu.launch_func
// CHECK-NOT:     gpu.launch_func
// CHECK:         llvm.call @mgpuStreamSynchronize(
// CHECK:       gpu.binary @step_kernel
// CHECK:       gpu.binary @step_kernel_0
// CHECK-NOT:   gpu.binary

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @step(%a: tensor<4x8xf32>, %w: tensor<8xf32>, %b: tensor<3xf32>)
    -> (tensor<4x8xbf16>, tensor<8xbf16>, tensor<3xbf16>, tensor<4x8xf32>) {
  %ab = arith.truncf %a : tensor<4x8xf32> to tensor<4x8xbf16>
  %wb = arith.truncf %w : tensor<8xf32> to tensor<8xbf16>
  %bb = arith.truncf %b : tensor<3xf32> to tensor<3xbf16>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %y = arith.addf %acc, %x : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %n = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sum : tensor<4x8xf32>, tensor<4xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%x: f32, %s: f32, %o: f32):
    %y = arith.divf %x, %s : f32
    linalg.yield %y : f32
  } -> tensor<4x8xf32>
  return %ab, %wb, %bb, %n : tensor<4x8xbf16>, tensor<8xbf16>, tensor<3xbf16>, tensor<4x8xf32>
}
