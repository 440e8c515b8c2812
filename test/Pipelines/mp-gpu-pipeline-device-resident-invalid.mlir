// RUN: mp-opt %s --mp-gpu-pipeline="chip=sm_80 binary-format=isa" -split-input-file -verify-diagnostics

// A dynamic shape: the kernels' grids and buffers are static.
// expected-error @+1 {{'func.func' op cannot run on the device: argument of dynamic shape 'memref<?xf32>' (mp-gpu-pipeline{device-resident=true} runs every op of the step on the device; device-resident=false runs it on the host)}}
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  %y = arith.negf %x : tensor<?xf32>
  return %y : tensor<?xf32>
}

// -----

// A global that is not constant is host memory (a constant global is a
// device global of the kernels that read it:
// mp-gpu-pipeline-device-resident-globals.mlir).
memref.global "private" @counter : memref<4xf32> = dense<0.0>
func.func @mutable(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'memref.get_global' op cannot run on the device: a global that is not a constant with an initial value is host memory (mp-gpu-pipeline{device-resident=true} runs every op of the step on the device; device-resident=false runs it on the host)}}
  %m = memref.get_global @counter : memref<4xf32>
  %t = bufferization.to_tensor %m restrict : memref<4xf32> to tensor<4xf32>
  %y = arith.addf %x, %t : tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// A call runs host code on the buffers.
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.negf %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func @caller(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'func.call' op cannot run on the device: mp-gpu-pipeline maps loops, buffers and Tensor Core launches onto the device, not this op}}
  %y = func.call @helper(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// mp-data-parallel's all-reduce: no device collective (NCCL, CUDA-aware MPI).
shard.grid @mp_data_parallel(shape = 2)
func.func @all_reduce(%g: tensor<10xf32>) -> tensor<10xf32> {
  // expected-error @+1 {{'shard.all_reduce' op cannot run on the device: a data-parallel collective of device buffers needs a stream-ordered all-reduce (NCCL) or a CUDA-aware MPI, which the device-resident step does not have (mp-gpu-pipeline{device-resident=true}}}
  %r = shard.all_reduce %g on @mp_data_parallel grid_axes = [0] : tensor<10xf32> -> tensor<10xf32>
  return %r : tensor<10xf32>
}
