// mp.scaled_matmul through the whole of mp-gpu-pipeline: on sm_120a the
// block-scaled kernel (PTX with the kind::mxf4nvf4 mma.sync) and the host
// code that calls its launcher on the FP4 and E4M3 buffers; on sm_100a the
// block-scaled tcgen05 kernel (PTX ISA 8.8, tcgen05.cp of the scale atoms,
// kind::mxf4nvf4.block_scale.block16), host-side and device-resident (the
// launcher takes the step's stream); on sm_90a the op's exact emulation: on
// the host with device-resident=false (no GPU code at all), else as
// generated elementwise/reduction kernels of the device-resident step.
//
// RUN: mp-opt %s --mp-gpu-pipeline="chip=sm_120a binary-format=isa" | FileCheck %s --check-prefix=SM120
// RUN: mp-opt %s --mp-gpu-pipeline="chip=sm_100a binary-format=isa device-resident=false" \
// RUN:   | FileCheck %s --check-prefixes=SM100,SM100-HOST
// RUN: mp-opt %s --mp-gpu-pipeline="chip=sm_100a binary-format=isa" \
// RUN:   | FileCheck %s --check-prefixes=SM100,SM100-RESIDENT
// RUN: mp-opt %s --mp-gpu-pipeline="chip=sm_90a binary-format=isa device-resident=false" \
// RUN:   | FileCheck %s --check-prefix=CPU --implicit-check-not=gpu.binary --implicit-check-not=@mp_tc_
// RUN: mp-opt %s --mp-gpu-pipeline="chip=sm_90a binary-format=isa" \
// RUN:   | FileCheck %s --check-prefix=RESIDENT --implicit-check-not=@mp_tc_

// SM120-LABEL: llvm.func @nvfp4(
// SM120:         llvm.call @mp_tc_sm120a_mma_e2m1k_e2m1k_accf32_outbf16_128x128x64_w64x32_s3_mxf4nvf4_ue4m3x16_launch(
// SM120:       gpu.binary @mp_tensor_core_kernels  [#gpu.object<#nvvm.target<O = 3, chip = "sm_120a", features = "+ptx87">, {{.*}}mma.sync.aligned.m16n8k64.row.col.kind::mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3

// SM100-LABEL:         llvm.func @nvfp4(
// SM100-HOST:            llvm.call @mp_tc_sm100a_tcgen05_tma_e2m1k_e2m1k_accf32_outbf16_128x128x256_s2_mxf4nvf4_ue4m3x16_launch({{[^)]*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64) -> ()
// SM100-RESIDENT:        llvm.call @mp_tc_sm100a_tcgen05_tma_e2m1k_e2m1k_accf32_outbf16_128x128x256_s2_mxf4nvf4_ue4m3x16_launch({{[^)]*}}) {mp.stream} : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, !llvm.ptr) -> ()
// SM100:               gpu.binary @mp_tensor_core_kernels  [#gpu.object<#nvvm.target<O = 3, chip = "sm_100a", features = "+ptx88">, {{.*}}tcgen05.cp.cta_group::1.32x128b.warpx4{{.*}}tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.block16

// CPU: llvm.fmul

// RESIDENT: module attributes {gpu.container_module, mp.device_resident}
// RESIDENT: llvm.func @nvfp4(
// RESIDENT: llvm.call @mgpuStreamCreate()
// RESIDENT: gpu.binary @nvfp4_kernel
// CPU: llvm.func @nvfp4(
func.func @nvfp4(%x: tensor<64x128xf4E2M1FN>, %xs: tensor<64x8xf8E4M3FN>,
                 %w: tensor<96x128xf4E2M1FN>, %ws: tensor<96x8xf8E4M3FN>) -> tensor<64x96xbf16> {
  %y = mp.scaled_matmul %x scales %xs, %w scales %ws transpose_rhs acc(f32)
      : tensor<64x128xf4E2M1FN>, tensor<64x8xf8E4M3FN>, tensor<96x128xf4E2M1FN>, tensor<96x8xf8E4M3FN> -> tensor<64x96xbf16>
  return %y : tensor<64x96xbf16>
}
