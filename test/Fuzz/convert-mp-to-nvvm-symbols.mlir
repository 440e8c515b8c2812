// Found while adding convert-mp-to-nvvm to mp-fuzz-passes (review of the
// symbols it creates, docs/Reliability.md): the pass returned success with IR
// that does not verify when the module already had a symbol named like its
// kernel module, a launcher, or a CUDA runtime wrapper of another type (it
// created a second symbol, or called the wrapper with the wrong arguments),
// and when a matmul sat in a nested module (the call referenced a launcher
// the nested symbol table does not see). Each is now an error at the op, and
// nothing changes.
// RUN: mp-opt %s -split-input-file -verify-diagnostics --convert-mp-to-nvvm
// A wrapper declared with its own type is reused, not declared twice (the
// other cases fail and print nothing).
// RUN: not mp-opt %s -split-input-file --convert-mp-to-nvvm 2>/dev/null | FileCheck %s --implicit-check-not='llvm.func @mgpuMemFree('

// expected-error @+1 {{'func.func' op convert-mp-to-nvvm: symbol '@mp_tensor_core_kernels' is already defined; the pass creates it}}
func.func @mp_tensor_core_kernels() {
  return
}
func.func @f(%a: tensor<128x96xf16>, %b: tensor<96x48xf16>) -> tensor<128x48xf32> {
  %y = mp.matmul %a, %b acc(f32) : tensor<128x96xf16>, tensor<96x48xf16> -> tensor<128x48xf32>
  return %y : tensor<128x48xf32>
}

// -----

module {
  module @inner {
    func.func @f(%a: tensor<128x96xf16>, %b: tensor<96x48xf16>) -> tensor<128x48xf32> {
      // expected-error @+1 {{'mp.matmul' op convert-mp-to-nvvm lowers the matmuls of the module it runs on, not those of a nested symbol table}}
      %y = mp.matmul %a, %b acc(f32) : tensor<128x96xf16>, tensor<96x48xf16> -> tensor<128x48xf32>
      return %y : tensor<128x48xf32>
    }
  }
}

// -----

// expected-error @+1 {{'llvm.func' op convert-mp-to-nvvm: symbol '@mgpuMemAlloc' names a CUDA runtime wrapper the Tensor Core launchers call: it must be an llvm.func of type '!llvm.func<ptr (i64, ptr, i8)>'}}
llvm.func @mgpuMemAlloc(i64) -> !llvm.ptr
// expected-error @+1 {{'func.func' op convert-mp-to-nvvm: symbol '@mgpuMemcpy' names a CUDA runtime wrapper}}
func.func private @mgpuMemcpy()
func.func @f(%a: tensor<128x96xf16>, %b: tensor<96x48xf16>) -> tensor<128x48xf32> {
  %y = mp.matmul %a, %b acc(f32) : tensor<128x96xf16>, tensor<96x48xf16> -> tensor<128x48xf32>
  return %y : tensor<128x48xf32>
}

// -----

// expected-error @+1 {{symbol '@mp_tc_sm80_mma_f16k_f16n_accf32_outf32_128x128x32_w64x32_s3_launch' is already defined}}
func.func private @mp_tc_sm80_mma_f16k_f16n_accf32_outf32_128x128x32_w64x32_s3_launch()
func.func @f(%a: tensor<128x96xf16>, %b: tensor<96x48xf16>) -> tensor<128x48xf32> {
  %y = mp.matmul %a, %b acc(f32) : tensor<128x96xf16>, tensor<96x48xf16> -> tensor<128x48xf32>
  return %y : tensor<128x48xf32>
}

// -----

// CHECK-LABEL: module
// CHECK:         llvm.func @mgpuMemFree(!llvm.ptr, !llvm.ptr)
// CHECK:         func.func @g(
// CHECK:           llvm.call @mp_tc_
// CHECK:         llvm.func internal @mp_tc_{{.*}}_launch(
// CHECK:           llvm.call @mgpuMemFree(
llvm.func @mgpuMemFree(!llvm.ptr, !llvm.ptr)
func.func @g(%a: tensor<128x96xf16>, %b: tensor<96x48xf16>) -> tensor<128x48xf32> {
  %y = mp.matmul %a, %b acc(f32) : tensor<128x96xf16>, tensor<96x48xf16> -> tensor<128x48xf32>
  return %y : tensor<128x48xf32>
}
