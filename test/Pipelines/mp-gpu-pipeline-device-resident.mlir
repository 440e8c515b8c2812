// mp-gpu-pipeline{device-resident=true} (the default) runs the whole MLP
// train step of docs/examples (f16 autocast, dynamic loss scaling, Adam) on
// the device: the five matmul-likes are Tensor Core kernels whose launchers
// take device pointers and the step's stream, every other op (casts, bias
// adds, ReLU, softmax cross entropy, its gradient, the column sums of the
// bias gradients, the all-finite check, Adam with its bias correction, the
// loss-scale update and the skip decision as a select) runs in 13 generated
// kernels (its loops fused: mp-gpu-pipeline-device-resident-fusion.mlir), each
// in its own gpu.module, and the host function only creates one stream, allocates
// and frees device buffers on it, launches, and synchronises once before it
// returns: no loop, load, store or float arithmetic over tensor data, no
// branch on the skipped flag, no host<->device copy. The module carries
// mp.device_resident (its buffers are device memory).

// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir --mp-mixed-precision-pipeline -o %t.mlir
// RUN: mp-opt %t.mlir --mp-gpu-pipeline="chip=sm_80 binary-format=isa" -o %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=HOST < %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=PURE < %t.gpu.mlir
// RUN: FileCheck %s --check-prefix=COUNT < %t.gpu.mlir
// RUN: %python %mp_src_root/tools/bench/ptxas_report.py extract %t.gpu.mlir | FileCheck %s --check-prefix=PTX

// HOST:       module attributes {gpu.container_module, mp.device_resident}
// HOST-LABEL: llvm.func @train_step(
// HOST:         %[[STREAM:.*]] = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
// HOST:         llvm.call @mgpuMemAlloc(%{{.*}}, %[[STREAM]], %{{.*}}) : (i64, !llvm.ptr, i8) -> !llvm.ptr
// HOST:         gpu.launch_func <%[[STREAM]] : !llvm.ptr> @train_step_kernel::@train_step_kernel blocks in
// HOST-SAME:      threads in (%[[T:.*]], %{{.*}}, %{{.*}}) : i64
// HOST:         llvm.call @mp_tc_sm80_mma_f16k_f16k_accf32_outf16_128x128x32_w64x32_s3_bias_launch({{.*}}, %[[STREAM]]) {mp.stream}
// HOST:         llvm.call @mp_tc_sm80_mma_f16k_f16k_accf32_outf32_128x128x32_w64x32_s3_bias_launch({{.*}}, %[[STREAM]]) {mp.stream}
// HOST:         llvm.call @mp_tc_sm80_mma_f16ku_f16n_accf32_outf16_128x128x32_w64x32_s3_launch({{.*}}, %[[STREAM]]) {mp.stream}
// HOST:         llvm.call @mp_tc_sm80_mma_f16mu_f16n_accf32_outf16_128x128x32_w64x32_s3_launch({{.*}}, %[[STREAM]]) {mp.stream}
// HOST:         llvm.call @mp_tc_sm80_mma_f16m_f16n_accf32_outf16_128x128x32_w64x32_s3_launch({{.*}}, %[[STREAM]]) {mp.stream}
// HOST:         llvm.call @mgpuMemFree(%{{.*}}, %[[STREAM]])
// HOST:         llvm.call @mgpuStreamSynchronize(%[[STREAM]])
// HOST-NEXT:    llvm.call @mgpuStreamDestroy(%[[STREAM]])
// HOST-NEXT:    llvm.return
// The kernels: one gpu.binary each, with the Tensor Core kernels' target.
// HOST:       gpu.binary @train_step_kernel  [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">
// HOST:       gpu.binary @mp_tensor_core_kernels  [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">
// The Tensor Core launcher only launches on the stream it is given.
// HOST-LABEL: llvm.func internal @mp_tc_sm80_mma_f16k_f16k_accf32_outf16_128x128x32_w64x32_s3_bias_launch(
// HOST-SAME:    %{{.*}}: i64, %[[S:.*]]: !llvm.ptr) {
// HOST:         gpu.launch_func <%[[S]] : !llvm.ptr> @mp_tensor_core_kernels::@mp_tc_sm80_mma_f16k_f16k_accf32_outf16_128x128x32_w64x32_s3_bias
// HOST-NEXT:    llvm.return

// COUNT-LABEL:   llvm.func @train_step(
// COUNT-COUNT-13: gpu.launch_func <%{{.*}} : !llvm.ptr> @train_step_kernel
// COUNT-NOT:      gpu.launch_func
// COUNT:          llvm.return

// PURE-LABEL: llvm.func @train_step(
// PURE-NOT:     llvm.load
// PURE-NOT:     llvm.store
// PURE-NOT:     llvm.br
// PURE-NOT:     llvm.cond_br
// PURE-NOT:     llvm.f{{add|sub|mul|div|cmp|ptrunc|pext}}
// PURE-NOT:     llvm.select
// PURE:         llvm.call @mgpuStreamSynchronize
// No launcher allocates, copies or waits.
// PURE-LABEL: llvm.func internal @mp_tc_sm80_mma_f16k_f16k_accf32_outf16_128x128x32_w64x32_s3_bias_launch(
// PURE-NOT:     llvm.call @mgpu
// PURE:       llvm.func @mgpuStreamCreate()

// The device code: f16 casts round once (cvt.rn), the loss scale is
// checked on the device (the skipped flag and the select of the kept
// values), Adam's bias correction runs in every thread from the step count
// in device memory, the exponentials are libdevice's, linked in (no
// unresolved `.extern .func`).
// PTX-NOT: .extern .func
// PTX:     .entry train_step_kernel(
// PTX-NOT: .extern .func
// PTX:     cvt.rn.f16.f32
// PTX-NOT: .extern .func
// PTX:     .entry mp_tc_sm80_mma_
// PTX-NOT: .extern .func
