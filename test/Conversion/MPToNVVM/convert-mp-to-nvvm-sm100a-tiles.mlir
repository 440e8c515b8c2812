// RUN: mp-opt %s --convert-mp-to-nvvm="chip=sm_100a block-n=48" | FileCheck %s

// block-n = 48 with tcgen05: 64 Tensor Memory columns (a power of two of at
// least 32), N 48 >> 3 << 17 in the instruction descriptor (135005328 =
// M 128 >> 4 << 24 | 6 << 17 | bf16 A, B | D f32), 3 loads of 16 columns;
// 4 stages of 22 KiB, 16 bytes and the 8 TMA mbarriers: 90192 bytes.
// CHECK:       gpu.func @mp_tc_sm100a_tcgen05_tma_bf16k_bf16k_accf32_outbf16_128x48x64_s4(
// CHECK-SAME:    shared_memory_bytes = 90192 : i64
// CHECK-SAME:    tensor_memory_columns = 64 : i64
// CHECK:         nvvm.tcgen05.alloc %{{.*}}, %c64_i32
// CHECK:         nvvm.tcgen05.mma {{.*}}, %c135005328_i32,
// CHECK-COUNT-3: nvvm.tcgen05.ld
// CHECK-NOT:     nvvm.tcgen05.ld
// CHECK:         nvvm.tcgen05.dealloc %{{.*}}, %c64_i32
func.func @bf16(%x: tensor<200x256xbf16>, %w: tensor<136x256xbf16>) -> tensor<200x136xbf16> {
  %y = mp.linear %x, %w acc(f32) : (tensor<200x256xbf16>, tensor<136x256xbf16>) -> tensor<200x136xbf16>
  return %y : tensor<200x136xbf16>
}
