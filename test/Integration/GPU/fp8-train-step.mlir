// REQUIRES: ptxas
// An FP8 train step (a 3-layer MLP through mp-mixed-precision-pipeline with
// compute-type=bf16 fp8=delayed: the hidden layer in FP8, E4M3 forward, E5M2
// output gradient) through mp-gpu-pipeline: its Tensor Core kernels are the
// FP8 ones for the hidden layer (forward e4m3 x e4m3, dx and dW e5m2 x e4m3,
// f32 results that the step dequantises), bf16 for the others, and the
// module assembles with ptxas for sm_89 (mma.sync m16n8k32), sm_90a (all
// three with wgmma: fp8-k-major gives the backward's M/N-contiguous FP8
// operands transposed copies), sm_100a (all three with tcgen05.mma
// kind::f8f6f4, likewise) and sm_120a (mma.sync).
//
// RUN: mp-opt %s --mp-mixed-precision-pipeline="compute-type=bf16 fp8=delayed" -o %t.fp8.mlir
// RUN: mp-opt %t.fp8.mlir --mp-gpu-pipeline="chip=sm_89 binary-format=isa device-resident=false" | FileCheck %s --check-prefix=SM89
// RUN: mp-opt %t.fp8.mlir --mp-gpu-pipeline="chip=sm_89 binary-format=bin device-resident=false" | FileCheck %s --check-prefix=BIN89
// RUN: mp-opt %t.fp8.mlir --mp-gpu-pipeline="chip=sm_90a binary-format=isa device-resident=false" | FileCheck %s --check-prefix=SM90
// RUN: mp-opt %t.fp8.mlir --mp-gpu-pipeline="chip=sm_90a binary-format=bin device-resident=false" | FileCheck %s --check-prefix=BIN90
// RUN: mp-opt %t.fp8.mlir --mp-gpu-pipeline="chip=sm_100a binary-format=isa device-resident=false" | FileCheck %s --check-prefix=SM100
// RUN: mp-opt %t.fp8.mlir --mp-gpu-pipeline="chip=sm_100a binary-format=bin device-resident=false" | FileCheck %s --check-prefix=BIN100
// RUN: mp-opt %t.fp8.mlir --mp-gpu-pipeline="chip=sm_120a binary-format=bin device-resident=false" | FileCheck %s --check-prefix=BIN120

// SM89-DAG: @mp_tc_sm89_mma_e4m3k_e4m3k_accf32_outf32_{{[0-9a-z_]*}}_launch
// SM89-DAG: @mp_tc_sm89_mma_e5m2k_e4m3n_accf32_outf32_{{[0-9a-z_]*}}_launch
// SM89-DAG: @mp_tc_sm89_mma_e5m2m_e4m3n_accf32_outf32_{{[0-9a-z_]*}}_launch
// SM89-DAG: mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32
// SM89-DAG: mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e4m3.f32
// BIN89: gpu.binary @mp_tensor_core_kernels  [#gpu.object<#nvvm.target<O = 3, chip = "sm_89", features = "+ptx84">, properties = {{{.*}}}, bin = "\7FELF

// SM90-DAG: @mp_tc_sm90a_wgmma_tma_e4m3k_e4m3k_accf32_outf32_{{[0-9a-z_]*}}_launch
// SM90-DAG: @mp_tc_sm90a_wgmma_tma_e5m2k_e4m3k_accf32_outf32_{{[0-9a-z_]*}}_launch
// SM90-DAG: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k32.f32.e4m3.e4m3
// SM90-DAG: wgmma.mma_async.sync.aligned.m64n{{[0-9]+}}k32.f32.e5m2.e4m3
// SM90-NOT: mma.sync.aligned.m16n8k32
// BIN90: gpu.binary @mp_tensor_core_kernels  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx{{[0-9]+}}">, properties = {{{.*}}}, bin = "\7FELF

// SM100-DAG: @mp_tc_sm100a_tcgen05_{{(tma_)?}}e4m3k_e4m3k_accf32_outf32_{{[0-9a-z_]*}}_launch
// SM100-DAG: @mp_tc_sm100a_tcgen05_{{(tma_)?}}e5m2k_e4m3k_accf32_outf32_{{[0-9a-z_]*}}_launch
// SM100-DAG: tcgen05.mma.cta_group::1.kind::f8f6f4.collector::a::discard
// SM100-NOT: mma.sync.aligned.m16n8k32
// BIN100: gpu.binary @mp_tensor_core_kernels  [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx86">, properties = {{{.*}}}, bin = "\7FELF
// BIN120: gpu.binary @mp_tensor_core_kernels  [#gpu.object<#nvvm.target<O = 3, chip = "sm_120a", features = "+ptx87">, properties = {{{.*}}}, bin = "\7FELF

func.func @train_step(%w1: tensor<256x128xf32> {mp.param}, %w2: tensor<128x256xf32> {mp.param},
                      %b2: tensor<128xf32> {mp.param}, %w3: tensor<64x128xf32> {mp.param},
                      %x: tensor<128x128xf32>, %labels: tensor<128xi64>)
    -> (tensor<f32> {mp.loss}, tensor<256x128xf32> {mp.updates = 0 : i64},
        tensor<128x256xf32> {mp.updates = 1 : i64}, tensor<128xf32> {mp.updates = 2 : i64},
        tensor<64x128xf32> {mp.updates = 3 : i64}) {
  %z1 = mp.linear %x, %w1 acc(f32) : (tensor<128x128xf32>, tensor<256x128xf32>) -> tensor<128x256xf32>
  %h1 = mp.relu %z1 : tensor<128x256xf32>
  %z2 = mp.linear %h1, %w2, %b2 acc(f32)
      : (tensor<128x256xf32>, tensor<128x256xf32>, tensor<128xf32>) -> tensor<128x128xf32>
  %h2 = mp.relu %z2 : tensor<128x128xf32>
  %z3 = mp.linear %h2, %w3 acc(f32) : (tensor<128x128xf32>, tensor<64x128xf32>) -> tensor<128x64xf32>
  %loss = mp.cross_entropy %z3, %labels : tensor<128x64xf32>, tensor<128xi64>
  %g1, %g2, %gb2, %g3 = mp.grad %loss wrt %w1, %w2, %b2, %w3
      : tensor<f32>, tensor<256x128xf32>, tensor<128x256xf32>, tensor<128xf32>, tensor<64x128xf32>
  %n1 = mp.sgd %w1, %g1 {lr = 0.01 : f64} : tensor<256x128xf32>
  %n2 = mp.sgd %w2, %g2 {lr = 0.01 : f64} : tensor<128x256xf32>
  %nb2 = mp.sgd %b2, %gb2 {lr = 0.01 : f64} : tensor<128xf32>
  %n3 = mp.sgd %w3, %g3 {lr = 0.01 : f64} : tensor<64x128xf32>
  return %loss, %n1, %n2, %nb2, %n3
      : tensor<f32>, tensor<256x128xf32>, tensor<128x256xf32>, tensor<128xf32>, tensor<64x128xf32>
}
