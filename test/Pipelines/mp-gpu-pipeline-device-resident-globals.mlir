// Constant tensors that bufferization makes into memref.globals, on the
// device (mp-device-loops): a kernel that reads a non-splat constant gets
// its own memref.get_global, which gpu-kernel-outlining clones with the
// global into the kernel's gpu.module: a device global (`.global` in the
// PTX, initialised when the driver loads the module) read with
// ld.global.nc; a copy from a constant global (a returned constant) is a
// copy kernel reading it; a splat global is its value: its loads are the
// constant, a copy from it is a fill. The host keeps no global and copies
// nothing from host memory in the step.

// RUN: mp-opt %s --mp-gpu-pipeline="chip=sm_80 binary-format=isa" -o %t.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.mlir
// RUN: %python %mp_src_root/tools/bench/ptxas_report.py extract %t.mlir \
// RUN:   | FileCheck %s --check-prefix=PTX

// HOST:       module attributes {gpu.container_module, mp.device_resident}
// HOST-NOT:   {{llvm.mlir.global|memref.global|addressof}}
// HOST-NOT:   mgpuMemcpy
// HOST-LABEL: llvm.func @table(
// HOST:         gpu.launch_func <%{{.*}} : !llvm.ptr> @table_kernel::@table_kernel
// HOST-NOT:   {{llvm.mlir.global|memref.global|addressof}}
// HOST-NOT:   mgpuMemcpy
// HOST-LABEL: llvm.func @returned(
// HOST:         gpu.launch_func <%{{.*}} : !llvm.ptr> @returned_kernel::@returned_kernel
// HOST-NOT:   {{llvm.mlir.global|memref.global|addressof}}
// HOST-NOT:   mgpuMemcpy
// HOST-LABEL: llvm.func @broadcast(
// HOST:         gpu.launch_func <%{{.*}} : !llvm.ptr> @broadcast_kernel::@broadcast_kernel
// HOST-NOT:   {{llvm.mlir.global|memref.global|addressof}}
// HOST-NOT:   mgpuMemcpy
// A constant GEMM operand: a device buffer that a copy kernel fills from
// the device global, for the Tensor Core launcher's pointer.
// HOST-LABEL: llvm.func @weights(
// HOST:         %[[STREAM:.*]] = llvm.call @mgpuStreamCreate()
// HOST:         %[[W:.*]] = llvm.call @mgpuMemAlloc(%{{.*}}, %[[STREAM]], %{{.*}})
// HOST:         gpu.launch_func <%[[STREAM]] : !llvm.ptr> @weights_kernel::@weights_kernel {{.*}} args({{.*}}%[[W]] : !llvm.ptr
// HOST:         llvm.call @mp_tc_sm80_mma_{{.*}}_launch(%{{.*}}, %[[STREAM]]) {mp.stream}
// HOST:         llvm.call @mgpuMemFree(%[[W]], %[[STREAM]])
// HOST-NOT:   {{llvm.mlir.global|memref.global|addressof}}
// HOST-NOT:   mgpuMemcpy
// HOST:       gpu.binary @weights_kernel
// HOST-NOT:   {{llvm.mlir.global|memref.global|addressof}}
// HOST-NOT:   mgpuMemcpy

// The table [1, 2, 3, 4] as little-endian f32 bytes in the kernel's module.
// PTX:       .global .align 64 .b8 __constant_4xf32[16] = {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, 128, 64};
// PTX-LABEL: .entry table_kernel(
// PTX:         mov.b64 [[TABLE:%rd[0-9]+]], __constant_4xf32;
// PTX:         add.s64 [[ELEMENT:%rd[0-9]+]], [[TABLE]], %rd{{[0-9]+}};
// PTX:         ld.global.nc.b32 %r{{[0-9]+}}, [[[ELEMENT]]];
// PTX:         mul.rn.f32
func.func @table(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %y = arith.mulf %x, %c : tensor<4xf32>
  return %y : tensor<4xf32>
}

// A returned table: a copy kernel from the device global; a returned
// splat: a fill (2.5 = 0x40200000 = 1075838976), no global; both in one
// kernel.
// PTX:       .global .align 64 .b8 __constant_4xi32[16] = {7, 0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 0, 1};
// PTX-NOT:   .global .align
// PTX-LABEL: .entry returned_kernel(
// PTX:         mov.b64 [[TABLE:%rd[0-9]+]], __constant_4xi32;
// PTX:         add.s64 [[ELEMENT:%rd[0-9]+]], [[TABLE]], %rd{{[0-9]+}};
// PTX:         ld.global.nc.b32 [[VALUE:%r[0-9]+]], [[[ELEMENT]]];
// PTX:         st.global.b32 [%rd{{[0-9]+}}], [[VALUE]];
// PTX:         st.global.b32 [%rd{{[0-9]+}}], 1075838976;
func.func @returned() -> (tensor<4xi32>, tensor<3xf32>) {
  %c = arith.constant dense<[7, -1, 0, 1]> : tensor<4xi32>
  %s = arith.constant dense<2.5> : tensor<3xf32>
  return %c, %s : tensor<4xi32>, tensor<3xf32>
}

// The broadcast of a splat (a gradient seed's, as mp-autodiff makes it):
// the constant 1.0 (1065353216) stored by each thread, no global read.
// PTX-NOT:   .global .align
// PTX-LABEL: .entry broadcast_kernel(
// PTX-NOT:     __constant
// PTX:         st.global.b32 [%rd{{[0-9]+}}], 1065353216;
func.func @broadcast(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %c = arith.constant dense<1.0> : tensor<f32>
  %r = mp.reshape %c : tensor<f32> to tensor<1x1xf32>
  %b = mp.broadcast %r : tensor<1x1xf32> to tensor<2x4xf32>
  %y = mp.mul %b, %x : tensor<2x4xf32>, tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

// PTX:       .global .align 64 .b8 __constant_4x4xf16[32] = {0, 60, 0, 64, 0, 66, 0, 68, 0, 188, 0, 56, 0, 52, 0, 64, 0, 0, 0, 60, 0, 0, 0, 60, 0, 66, 0, 192, 0, 60};
// PTX-LABEL: .entry weights_kernel(
// PTX:         mov.b64 %rd{{[0-9]+}}, __constant_4x4xf16;
// PTX:         ld.global.nc.b16
func.func @weights(%x: tensor<8x4xf16>) -> tensor<8x4xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 0.25, 2.0],
                             [0.0, 1.0, 0.0, 1.0], [3.0, -2.0, 1.0, 0.0]]> : tensor<4x4xf16>
  %y = mp.matmul %x, %w acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf32>
  return %y : tensor<8x4xf32>
}
