// RUN: mp-opt %s --convert-mp-to-nvvm="chip=sm_80 split-k=auto" | FileCheck %s
// RUN: mp-opt %s --convert-mp-to-nvvm="chip=sm_80 split-k=auto sm-count=8" | FileCheck %s --check-prefix=SMS
// RUN: mp-opt %s --convert-mp-to-nvvm="chip=sm_80" | FileCheck %s --check-prefix=OFF
// RUN: mp-opt %s --convert-mp-to-nvvm="chip=sm_80 split-k=1" | FileCheck %s --check-prefix=OFF
// RUN: mp-opt %s --convert-mp-to-nvvm="chip=sm_90a split-k=auto device-resident=true" | FileCheck %s --check-prefix=RESIDENT

// split-k=auto on sm_80 (108 SMs): dW = dY^T X of 256 x 256 x 8192 is 4
// output tiles of 128 x 128 and 256 K slices of 32: S = min(108 / 4,
// 256 / 8, 16) = 16. With sm-count=8: 8 / 4 = 2. By default (split-k=1)
// nothing is split.
// CHECK-LABEL: func.func @dw(
// CHECK:         llvm.call @mp_tc_sm80_mma_bf16m_bf16n_accf32_outf32_128x128x32_w64x32_s3_splitk_launch(%{{.*}}, %{{.*}}, %{{.*}}, %c1_i64, %c256_i64, %c256_i64_{{.*}}, %c8192_i64, %c16_i64) {mp_split_k = 16 : i64}
// SMS-LABEL:   func.func @dw(
// SMS:           {mp_split_k = 2 : i64}
// OFF-NOT:       splitk
// OFF-NOT:       mp_split_k

// 2048 x 2048 is 256 tiles, more than half the SMs: not split.
// CHECK-LABEL: func.func @large(
// CHECK:         llvm.call @mp_tc_sm80_mma_bf16k_bf16k_accf32_outbf16_128x128x32_w64x32_s3_launch(
// CHECK-NOT:     mp_split_k
// CHECK-LABEL: func.func @linear(
// CHECK:         llvm.call @mp_tc_sm80_mma_bf16k_bf16k_accf32_outbf16_128x128x32_w64x32_s3_splitk_bias_gelutanh_launch({{.*}}) {mp_split_k = 16 : i64}

// The partial kernel: the unsplit main loop, a trailing split count; block
// z = b * S + s: A and B at batch z / S, the f32 partial at z * M * N; the
// split's slices from s * T, T = ceil(ceil(K / 32) / S), at most what is
// left of K.
// CHECK:       gpu.func @mp_tc_sm80_mma_bf16m_bf16n_accf32_outf32_128x128x32_w64x32_s3_splitk(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %[[K:.*]]: i32, %{{.*}}: i64, %{{.*}}: i64, %[[STRIDE:.*]]: i64, %[[S:.*]]: i32)
// CHECK-SAME:    split_k = true
// CHECK:         %[[Z:.*]] = nvvm.read.ptx.sreg.ctaid.z : i32
// CHECK-NEXT:    %[[BATCH:.*]] = arith.divui %[[Z]], %[[S]] : i32
// CHECK-NEXT:    arith.extui %[[BATCH]] : i32 to i64
// CHECK:         %[[Z64:.*]] = arith.extui %[[Z]] : i32 to i64
// CHECK:         arith.muli %[[Z64]], %[[STRIDE]] : i64
// CHECK:         %[[SPLIT:.*]] = arith.remui %[[Z]], %[[S]] : i32
// CHECK:         %[[PER:.*]] = arith.divui %{{.*}}, %[[S]] : i32
// CHECK-NEXT:    %[[BEGIN:.*]] = arith.muli %[[SPLIT]], %[[PER]] : i32
// CHECK-NEXT:    %[[LEFT:.*]] = arith.subi %{{.*}}, %[[BEGIN]] : i32
// CHECK-NEXT:    %[[COUNT:.*]] = arith.minsi %[[PER]], %[[LEFT]] : i32
// CHECK:         arith.maxsi %[[COUNT]], %{{.*}} : i32
// CHECK:         nvvm.mma.sync
// CHECK:         llvm.store %{{.*}} : f32, !llvm.ptr<1>

// The reduction: element e of batch y, partials 0 .. S-1 in order, then the
// epilogue (f32 here: the sum itself).
// CHECK:       gpu.func @mp_tc_splitk_reduce_accf32_outf32(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %[[RS:.*]]: i32)
// CHECK-SAME:    known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME:    kind = "split_k_reduction"
// CHECK:         %[[FIRST:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK:         %[[SUM:.*]] = scf.for %{{.*}} = %c1_i32 to %[[RS]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[FIRST]]) -> (f32)
// CHECK:           %[[NEXT:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> f32
// CHECK-NEXT:      %[[ADD:.*]] = arith.addf %[[ACC]], %[[NEXT]] : f32
// CHECK-NEXT:      scf.yield %[[ADD]] : f32
// CHECK:         llvm.store %[[SUM]], %{{.*}} : f32, !llvm.ptr<1>

// The bias, the rounding to bf16 and the GELU in the reduction kernel only.
// CHECK:       gpu.func @mp_tc_sm80_mma_bf16k_bf16k_accf32_outf32_128x128x32_w64x32_s3_splitk(
// CHECK-NOT:     arith.truncf
// CHECK:       gpu.func @mp_tc_splitk_reduce_accf32_outbf16_bias_gelutanh(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// CHECK:         scf.for
// CHECK:           arith.addf
// CHECK:         arith.addf
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
// CHECK:         llvm.store %{{.*}} : bf16, !llvm.ptr<1>

// The launcher (host buffers): the workspace of batch * S * M * N f32 from
// mgpuMemAlloc with the operands, the partial kernel on a grid of z =
// batch * S, the reduction on (ceil(M * N / 256), batch), on one stream.
// CHECK:       llvm.func internal @mp_tc_sm80_mma_bf16m_bf16n_accf32_outf32_128x128x32_w64x32_s3_splitk_launch(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[LB:.*]]: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %[[LS:.*]]: i64)
// CHECK:         %[[STREAM:.*]] = llvm.call @mgpuStreamCreate()
// CHECK:         llvm.call @mgpuMemAlloc
// CHECK:         llvm.call @mgpuMemAlloc
// CHECK:         %[[C:.*]] = llvm.call @mgpuMemAlloc
// CHECK:         %[[W:.*]] = llvm.call @mgpuMemAlloc
// CHECK:         %[[GZ:.*]] = llvm.mul %[[LB]], %[[LS]] : i64
// CHECK:         gpu.launch_func <%[[STREAM]] : !llvm.ptr> @mp_tensor_core_kernels::@mp_tc_sm80_mma_bf16m_bf16n_accf32_outf32_128x128x32_w64x32_s3_splitk blocks in (%{{.*}}, %{{.*}}, %[[GZ]]) {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %[[W]] : !llvm.ptr,
// CHECK:         gpu.launch_func <%[[STREAM]] : !llvm.ptr> @mp_tensor_core_kernels::@mp_tc_splitk_reduce_accf32_outf32 blocks in (%{{.*}}, %[[LB]], %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) : i64 dynamic_shared_memory_size %{{.*}} args(%[[W]] : !llvm.ptr, %[[C]] : !llvm.ptr,
// CHECK:         llvm.call @mgpuMemFree(%[[W]], %[[STREAM]])

// Device-resident (sm_90a, the TMA kernel; 128 x 256 tiles: 2 tiles, S =
// min(66, 128 / 8, 16) = 16): the workspace is a buffer of the step,
// passed before the stream; the launcher allocates nothing but the tensor
// maps.
// RESIDENT-LABEL: func.func @dw(
// RESIDENT:         %[[WS:.*]] = memref.alloc() {alignment = 256 : i64} : memref<1048576xf32>
// RESIDENT:         %[[WSI:.*]] = memref.extract_aligned_pointer_as_index %[[WS]]
// RESIDENT:         %[[WSP:.*]] = llvm.inttoptr %{{.*}} : i64 to !llvm.ptr
// RESIDENT:         llvm.call @mp_tc_sm90a_wgmma_tma_bf16m_bf16n_accf32_outf32_128x256x64_s4_splitk_launch({{.*}}, %c16_i64, %[[WSP]], %{{.*}}) {mp.stream, mp_split_k = 16 : i64}
// RESIDENT:       gpu.func @mp_tc_sm90a_wgmma_tma_bf16m_bf16n_accf32_outf32_128x256x64_s4_splitk(
// RESIDENT-SAME:    mainloop = "tma-warp-specialized"
// RESIDENT-SAME:    split_k = true
// RESIDENT:         %[[Z:.*]] = nvvm.read.ptx.sreg.ctaid.z : i32
// RESIDENT-NEXT:    %[[BATCH:.*]] = arith.divui %[[Z]], %{{.*}} : i32
// RESIDENT:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, box[%{{.*}}, %{{.*}}, %[[BATCH]]]
// RESIDENT:       llvm.func internal @mp_tc_sm90a_wgmma_tma_bf16m_bf16n_accf32_outf32_128x256x64_s4_splitk_launch(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %[[RC:.*]]: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64, %[[RW:.*]]: !llvm.ptr, %[[RSTREAM:.*]]: !llvm.ptr)
// RESIDENT-NOT:     llvm.call @mgpuStreamCreate
// RESIDENT:         gpu.launch_func <%[[RSTREAM]] : !llvm.ptr> @mp_tensor_core_kernels::@mp_tc_sm90a_wgmma_tma_bf16m_bf16n_accf32_outf32_128x256x64_s4_splitk {{.*}} args(%{{.*}} : !llvm.ptr, %{{.*}} : !llvm.ptr, %[[RW]] : !llvm.ptr,
// RESIDENT-NEXT:    llvm.trunc
// RESIDENT:         gpu.launch_func <%[[RSTREAM]] : !llvm.ptr> @mp_tensor_core_kernels::@mp_tc_splitk_reduce_accf32_outf32 {{.*}} args(%[[RW]] : !llvm.ptr, %[[RC]] : !llvm.ptr,
// RESIDENT-NOT:     mgpuMemFree(%[[RW]]

func.func @dw(%dy: tensor<8192x256xbf16>, %x: tensor<8192x256xbf16>) -> tensor<256x256xf32> {
  %dw = mp.matmul %dy, %x transpose_lhs acc(f32) : tensor<8192x256xbf16>, tensor<8192x256xbf16> -> tensor<256x256xf32>
  return %dw : tensor<256x256xf32>
}

func.func @large(%a: tensor<2048x8192xbf16>, %b: tensor<2048x8192xbf16>) -> tensor<2048x2048xbf16> {
  %c = mp.matmul %a, %b transpose_rhs acc(f32) : tensor<2048x8192xbf16>, tensor<2048x8192xbf16> -> tensor<2048x2048xbf16>
  return %c : tensor<2048x2048xbf16>
}

func.func @linear(%x: tensor<128x4096xbf16>, %w: tensor<256x4096xbf16>, %b: tensor<256xbf16>) -> tensor<128x256xbf16> {
  %y = mp.linear %x, %w, %b acc(f32) : (tensor<128x4096xbf16>, tensor<256x4096xbf16>, tensor<256xbf16>) -> tensor<128x256xbf16>
  %g = mp.gelu %y approximate tanh : tensor<128x256xbf16>
  return %g : tensor<128x256xbf16>
}
