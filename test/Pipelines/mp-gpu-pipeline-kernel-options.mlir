// mp-gpu-pipeline forwards the kernel options of convert-mp-to-nvvm that
// came after it was written: fp8-promote-interval, fp8-promote-fprop,
// stmatrix-epilogue, split-k and sm-count each change the kernels in the
// PTX (names: `_p<N>` for a promoted FP8 accumulator, `_splitk` and the
// reduction kernel for split-K; stmatrix for the staged epilogue).
// RUN: mp-opt %s --mp-gpu-pipeline="chip=sm_90a device-resident=false binary-format=isa" | FileCheck %s --check-prefix=DEFAULT
// RUN: mp-opt %s --mp-gpu-pipeline="chip=sm_90a device-resident=false binary-format=isa fp8-promote-interval=8 fp8-promote-fprop=true stmatrix-epilogue=false split-k=1" | FileCheck %s --check-prefix=OPTIONS
// RUN: mp-opt %s --mp-gpu-pipeline="chip=sm_90a device-resident=false binary-format=isa split-k=auto" | FileCheck %s --check-prefix=AUTO
// RUN: mp-opt %s --mp-gpu-pipeline="chip=sm_90a device-resident=false binary-format=isa split-k=auto sm-count=400" | FileCheck %s --check-prefix=SMS
// RUN: not mp-opt %s --mp-gpu-pipeline="chip=sm_90a device-resident=false binary-format=isa split-k=zero" 2>&1 | FileCheck %s --check-prefix=INVALID

// Defaults: the backward FP8 GEMM promoted every 4 (`_p4`), the forward one
// not; the bf16 linear's epilogue through stmatrix; no split-K.
// DEFAULT-DAG: .entry mp_tc_sm90a_wgmma_tma_e5m2k_e4m3k_accf32_outf32_128x128x128_s4_p4(
// DEFAULT-DAG: .entry mp_tc_sm90a_wgmma_tma_e4m3k_e4m3k_accf32_outf32_128x256x128_s4(
// DEFAULT-DAG: .entry mp_tc_sm90a_wgmma_tma_bf16k_bf16k_accf32_outbf16_128x256x64_s4(
// DEFAULT-DAG: stmatrix.sync.aligned
// DEFAULT-DAG: .entry mp_tc_sm90a_wgmma_tma_bf16m_bf16n_accf32_outf32_128x256x64_s4(
// DEFAULT-NOT: splitk

// split-k=auto: the 256 x 256 x 8192 weight gradient split (2 tiles of
// 128 x 256 on 132 SMs: 16 splits), the 2048 x 2048 linear (128 tiles) not.
// AUTO-DAG: .entry mp_tc_sm90a_wgmma_tma_bf16m_bf16n_accf32_outf32_128x256x64_s4_splitk(
// AUTO-DAG: .entry mp_tc_splitk_reduce_accf32_outf32(
// AUTO-DAG: .entry mp_tc_sm90a_wgmma_tma_bf16k_bf16k_accf32_outbf16_128x256x64_s4(

// fp8-promote-interval=8, fp8-promote-fprop: both FP8 GEMMs promoted every
// 8; stmatrix-epilogue=false: per-element stores; split-k=1: no split.
// OPTIONS-DAG: .entry mp_tc_sm90a_wgmma_tma_e5m2k_e4m3k_accf32_outf32_128x128x128_s4_p8(
// OPTIONS-DAG: .entry mp_tc_sm90a_wgmma_tma_e4m3k_e4m3k_accf32_outf32_128x128x128_s4_p8(
// OPTIONS-DAG: .entry mp_tc_sm90a_wgmma_tma_bf16m_bf16n_accf32_outf32_128x256x64_s4(
// OPTIONS-NOT: stmatrix
// OPTIONS-NOT: splitk

// sm-count=400: the 2048 x 2048 linear (128 tiles, more than half of 132
// SMs, so not split by default) no longer fills half the SMs: 400 / 128 =
// 3, its 16 K slices allow 2 splits.
// SMS-DAG: .entry mp_tc_sm90a_wgmma_tma_bf16m_bf16n_accf32_outf32_128x256x64_s4_splitk(
// SMS-DAG: .entry mp_tc_sm90a_wgmma_tma_bf16k_bf16k_accf32_outf32_128x256x64_s4_splitk(
// SMS-DAG: .entry mp_tc_splitk_reduce_accf32_outbf16(

// INVALID: split-k must be auto or a positive number of K splits, got 'zero'

func.func @fp8_forward(%x: tensor<128x256xf8E4M3FN>, %w: tensor<128x256xf8E4M3FN>) -> tensor<128x128xf32> {
  %y = mp.matmul %x, %w transpose_rhs acc(f32) : tensor<128x256xf8E4M3FN>, tensor<128x256xf8E4M3FN> -> tensor<128x128xf32>
  return %y : tensor<128x128xf32>
}

func.func @fp8_backward(%dy: tensor<128x256xf8E5M2>, %w: tensor<128x256xf8E4M3FN>) -> tensor<128x128xf32> {
  %dx = mp.matmul %dy, %w transpose_rhs acc(f32) : tensor<128x256xf8E5M2>, tensor<128x256xf8E4M3FN> -> tensor<128x128xf32>
  return %dx : tensor<128x128xf32>
}

func.func @linear(%x: tensor<2048x1024xbf16>, %w: tensor<2048x1024xbf16>) -> tensor<2048x2048xbf16> {
  %y = mp.linear %x, %w acc(f32) : (tensor<2048x1024xbf16>, tensor<2048x1024xbf16>) -> tensor<2048x2048xbf16>
  return %y : tensor<2048x2048xbf16>
}

func.func @dw(%dy: tensor<8192x256xbf16>, %x: tensor<8192x256xbf16>) -> tensor<256x256xf32> {
  %dw = mp.matmul %dy, %x transpose_lhs acc(f32) : tensor<8192x256xbf16>, tensor<8192x256xbf16> -> tensor<256x256xf32>
  return %dw : tensor<256x256xf32>
}
