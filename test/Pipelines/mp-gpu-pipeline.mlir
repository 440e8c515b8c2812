// The CPU path and the GPU path start from the same mp IR: the MLP train step
// of docs/examples after mp-autocast (f16 compute) and mp-autodiff goes
// through mp-cpu-pipeline and through mp-gpu-pipeline, which give the same
// entry point; on the GPU path the five matmul-likes of the step (two linear
// layers forward, three matmuls of the backward pass, with transposed and
// 10-wide operands) are Tensor Core kernels in one gpu.binary, launched from
// llvm.func launchers, and everything else is the CPU lowering. The first
// linear stores f16, the second (the logits, which autocast leaves as the f32
// accumulator for the cross entropy) f32.

// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir --mp-autocast --mp-autodiff -o %t.mlir
// RUN: mp-opt %t.mlir --mp-cpu-pipeline | FileCheck %s --check-prefixes=BOTH,CPU
// RUN: mp-opt %t.mlir --mp-gpu-pipeline="chip=sm_80 binary-format=isa device-resident=false" | FileCheck %s --check-prefixes=BOTH,GPU

// CPU-NOT:     gpu.
// BOTH:        llvm.func @train_step(
// GPU:           llvm.call @[[LINEAR:mp_tc_sm80_mma_f16k_f16k_accf32_outf16_128x128x32_w64x32_s3_bias]]_launch
// GPU:           llvm.call @[[LOGITS:mp_tc_sm80_mma_f16k_f16k_accf32_outf32_128x128x32_w64x32_s3_bias]]_launch
// GPU-DAG:       llvm.call @mp_tc_sm80_mma_f16ku_f16n_accf32_outf16_128x128x32_w64x32_s3_launch
// GPU-DAG:       llvm.call @mp_tc_sm80_mma_f16mu_f16n_accf32_outf16_128x128x32_w64x32_s3_launch
// GPU-DAG:       llvm.call @mp_tc_sm80_mma_f16m_f16n_accf32_outf16_128x128x32_w64x32_s3_launch
// BOTH:        llvm.func @_mlir_ciface_train_step(%arg0: !llvm.ptr, {{.*}}, %arg28: !llvm.ptr)
// BOTH-SAME:     mp.signature
// GPU:         gpu.binary @mp_tensor_core_kernels  [#gpu.object<#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">, properties = {{{.*}}}, assembly = "{{.*}}.entry [[LINEAR]](
// GPU:         llvm.func internal @[[LINEAR]]_launch(
// GPU:           gpu.launch_func <%{{.*}} : !llvm.ptr> @mp_tensor_core_kernels::@[[LINEAR]] blocks in
// GPU:         llvm.func internal @[[LOGITS]]_launch(
// GPU:           gpu.launch_func <%{{.*}} : !llvm.ptr> @mp_tensor_core_kernels::@[[LOGITS]] blocks in
// GPU-NOT:     mp.
