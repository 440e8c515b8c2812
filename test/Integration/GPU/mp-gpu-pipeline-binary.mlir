// REQUIRES: ptxas
// mp-gpu-pipeline down to binaries: by default a fat binary (PTX and cubin,
// from ptxas and fatbinary), with binary-format=bin a cubin (an ELF file).
//
// RUN: mp-opt %s --mp-gpu-pipeline="chip=sm_90a device-resident=false" | FileCheck %s --check-prefix=FATBIN
// RUN: mp-opt %s --mp-gpu-pipeline="chip=sm_89 binary-format=bin device-resident=false" | FileCheck %s --check-prefix=CUBIN

// FATBIN: gpu.binary @mp_tensor_core_kernels  [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, properties = {{{.*}}}, "P\EDU\BA
// CUBIN:  gpu.binary @mp_tensor_core_kernels  [#gpu.object<#nvvm.target<O = 3, chip = "sm_89", features = "+ptx84">, properties = {{{.*}}}, bin = "\7FELF
func.func @forward(%x: tensor<64x128xf8E4M3FN>, %w: tensor<96x128xf8E4M3FN>, %b: tensor<96xbf16>) -> tensor<64x96xbf16> {
  %y = mp.linear %x, %w, %b acc(f32)
      : (tensor<64x128xf8E4M3FN>, tensor<96x128xf8E4M3FN>, tensor<96xbf16>) -> tensor<64x96xbf16>
  %r = mp.relu %y : tensor<64x96xbf16>
  return %r : tensor<64x96xbf16>
}
