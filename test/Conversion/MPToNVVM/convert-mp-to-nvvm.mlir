// RUN: mp-opt %s -split-input-file --convert-mp-to-nvvm | FileCheck %s
// RUN: mp-opt %s -split-input-file --convert-mp-to-nvvm="fuse-epilogue=false" | FileCheck %s --check-prefix=NOFUSE

// The host side of a linear layer with bias and a fused ReLU on sm_80: the
// operands' buffers, the result buffer, one call of the launcher, the result
// as a tensor. The ReLU is gone (fused).

// CHECK-LABEL: func.func @linear_bias_relu
// CHECK-SAME:    (%[[X:.*]]: tensor<64x784xf16>, %[[W:.*]]: tensor<256x784xf16>, %[[B:.*]]: tensor<256xf16>)
// CHECK:         %[[XB:.*]] = bufferization.to_buffer %[[X]] read_only : tensor<64x784xf16> to memref<64x784xf16>
// CHECK:         %[[XI:.*]] = memref.extract_aligned_pointer_as_index %[[XB]]
// CHECK:         %[[XI64:.*]] = arith.index_cast %[[XI]] : index to i64
// CHECK:         %[[XP:.*]] = llvm.inttoptr %[[XI64]] : i64 to !llvm.ptr
// CHECK:         %[[WB:.*]] = bufferization.to_buffer %[[W]] read_only : tensor<256x784xf16> to memref<256x784xf16>
// CHECK:         %[[WP:.*]] = llvm.inttoptr
// CHECK:         %[[OUT:.*]] = memref.alloc() {alignment = 64 : i64} : memref<64x256xf16>
// CHECK:         %[[OUTP:.*]] = llvm.inttoptr
// CHECK:         %[[BB:.*]] = bufferization.to_buffer %[[B]] read_only : tensor<256xf16> to memref<256xf16>
// CHECK:         %[[BP:.*]] = llvm.inttoptr
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG:     %[[M:.*]] = arith.constant 64 : i64
// CHECK-DAG:     %[[N:.*]] = arith.constant 256 : i64
// CHECK-DAG:     %[[K:.*]] = arith.constant 784 : i64
// CHECK:         llvm.call @mp_tc_sm80_mma_f16k_f16k_accf32_outf16_128x128x32_w64x32_s3_bias_relu_launch(%[[XP]], %[[WP]], %[[OUTP]], %[[BP]], %[[ONE]], %[[M]], %[[N]], %[[K]])
// CHECK:         %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<64x256xf16> to tensor<64x256xf16>
// CHECK-NOT:     mp.relu
// CHECK:         return %[[R]] : tensor<64x256xf16>

// The kernels: one gpu.module with the chip's target, the extern shared
// memory, and a kernel taking (A, B, C, bias, M, N, K, batch strides).

// CHECK:       gpu.module @mp_tensor_core_kernels [#nvvm.target<O = 3, chip = "sm_80", features = "+ptx70">]
// CHECK:         llvm.mlir.global external @mp_tensor_core_shared() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK:         gpu.func @mp_tc_sm80_mma_f16k_f16k_accf32_outf16_128x128x32_w64x32_s3_bias_relu(
// CHECK-SAME:      %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: i64, %{{.*}}: i64) kernel
// CHECK-SAME:      known_block_size = array<i32: 256, 1, 1>
// CHECK-SAME:      mp_tensor_core = {acc_type = f32, activation = "relu", bias = true, block = array<i64: 128, 128, 32>, chip = "sm_80", instruction = "mma.sync", lhs_format = "f16", lhs_k_contiguous = true, lhs_rows_aligned = true, result_type = f16, rhs_format = "f16", rhs_k_contiguous = true, rhs_rows_aligned = true, shared_memory_bytes = 61440 : i64, stages = 3 : i64, threads = 256 : i64, warp = array<i64: 64, 32>}
// CHECK:           %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK:           nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK:           nvvm.read.ptx.sreg.ctaid.y : i32
// CHECK:           nvvm.read.ptx.sreg.ctaid.z : i32
// CHECK:           llvm.addrspacecast %{{.*}} : !llvm.ptr to !llvm.ptr<1>
// CHECK:           %[[SMEM:.*]] = llvm.mlir.addressof @mp_tensor_core_shared : !llvm.ptr<3>
// Prologue: stages - 1 = 2 slices, one commit group each.
// CHECK:           scf.if
// CHECK-COUNT-4:     nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK:           }
// CHECK-NEXT:      nvvm.cp.async.commit.group
// CHECK:           scf.if
// CHECK:           nvvm.cp.async.commit.group
// The K loop: wait for the slice, barrier, copy the slice 2 ahead, compute.
// CHECK:           %[[ACC:.*]]:64 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (f32, f32, f32, f32,
// CHECK-NEXT:        nvvm.cp.async.wait.group 1
// CHECK:             nvvm.barrier0
// CHECK:             scf.if
// CHECK-COUNT-4:       nvvm.cp.async.shared.global
// CHECK:             nvvm.cp.async.commit.group
// Two K steps of 16 per slice, each 4 A fragments (4 m-tiles) and 2 ldmatrix
// for the 4 B n-tiles, then 4 × 4 mma.
// CHECK-COUNT-6:     nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK:             llvm.bitcast %{{.*}} : i32 to vector<2xf16>
// CHECK-COUNT-16:    nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-6:     nvvm.ldmatrix
// CHECK-COUNT-16:    nvvm.mma.sync
// CHECK:             scf.yield
// CHECK:           nvvm.cp.async.wait.group 0
// Epilogue: bias, rounding to f16, ReLU on the rounded value, f16 store,
// under a bounds check.
// CHECK:           scf.if
// CHECK:             %[[BIAS:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> f16
// CHECK:             %[[BIAS32:.*]] = arith.extf %[[BIAS]] : f16 to f32
// CHECK:             %[[SUM:.*]] = arith.addf %[[ACC]]#0, %[[BIAS32]] : f32
// CHECK:             %[[ROUNDED:.*]] = arith.truncf %[[SUM]] : f32 to f16
// CHECK:             %[[WIDE:.*]] = arith.extf %[[ROUNDED]] : f16 to f32
// CHECK:             %[[RELU:.*]] = arith.maximumf %[[WIDE]], %{{.*}} : f32
// CHECK:             %[[OUTV:.*]] = arith.truncf %[[RELU]] : f32 to f16
// CHECK:             llvm.store %[[OUTV]], %{{.*}} : f16, !llvm.ptr<1>
// CHECK:           gpu.return

// The launcher: a stream, device buffers, copies in (not of C), the launch on
// the stream with grid (⌈N/128⌉, ⌈M/128⌉, batch), 256 threads and 61440
// bytes of dynamic shared memory, the copy of C back, cleanup.

// CHECK:       llvm.func internal @mp_tc_sm80_mma_f16k_f16k_accf32_outf16_128x128x32_w64x32_s3_bias_relu_launch(
// CHECK-SAME:    %[[A:.*]]: !llvm.ptr, %[[B:.*]]: !llvm.ptr, %[[C:.*]]: !llvm.ptr, %[[BIAS:.*]]: !llvm.ptr, %[[BATCH:.*]]: i64, %[[M:.*]]: i64, %[[N:.*]]: i64, %[[K:.*]]: i64)
// CHECK:         %[[STREAM:.*]] = llvm.call @mgpuStreamCreate() : () -> !llvm.ptr
// CHECK:         %[[DA:.*]] = llvm.call @mgpuMemAlloc(%[[ABYTES:.*]], %[[STREAM]], %{{.*}}) : (i64, !llvm.ptr, i8) -> !llvm.ptr
// CHECK:         llvm.call @mgpuMemcpy(%[[DA]], %[[A]], %[[ABYTES]], %[[STREAM]])
// CHECK:         %[[DB:.*]] = llvm.call @mgpuMemAlloc
// CHECK:         llvm.call @mgpuMemcpy(%[[DB]], %[[B]],
// CHECK:         %[[DC:.*]] = llvm.call @mgpuMemAlloc(%[[CBYTES:.*]], %[[STREAM]],
// CHECK-NOT:     llvm.call @mgpuMemcpy(%[[DC]]
// CHECK:         %[[DBIAS:.*]] = llvm.call @mgpuMemAlloc
// CHECK:         llvm.call @mgpuMemcpy(%[[DBIAS]], %[[BIAS]],
// CHECK:         %[[GX:.*]] = llvm.udiv
// CHECK:         %[[GY:.*]] = llvm.udiv
// CHECK:         %[[THREADS:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK:         %[[SHARED:.*]] = llvm.mlir.constant(61440 : i32) : i32
// CHECK:         gpu.launch_func <%[[STREAM]] : !llvm.ptr> @mp_tensor_core_kernels::@mp_tc_sm80_mma_f16k_f16k_accf32_outf16_128x128x32_w64x32_s3_bias_relu
// CHECK-SAME:      blocks in (%[[GX]], %[[GY]], %[[BATCH]]) threads in (%[[THREADS]], %{{.*}}, %{{.*}}) : i64
// CHECK-SAME:      dynamic_shared_memory_size %[[SHARED]]
// CHECK-SAME:      args(%[[DA]] : !llvm.ptr, %[[DB]] : !llvm.ptr, %[[DC]] : !llvm.ptr, %[[DBIAS]] : !llvm.ptr, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i32, %{{.*}} : i64, %{{.*}} : i64, %{{.*}} : i64)
// CHECK:         llvm.call @mgpuMemcpy(%[[C]], %[[DC]], %[[CBYTES]], %[[STREAM]])
// CHECK:         llvm.call @mgpuStreamSynchronize(%[[STREAM]])
// CHECK-COUNT-4: llvm.call @mgpuMemFree
// CHECK:         llvm.call @mgpuStreamDestroy(%[[STREAM]])

// Without fusion the ReLU stays, and the kernel has no activation.
// NOFUSE-LABEL: func.func @linear_bias_relu
// NOFUSE:         llvm.call @mp_tc_sm80_mma_f16k_f16k_accf32_outf16_128x128x32_w64x32_s3_bias_launch
// NOFUSE:         %[[Y:.*]] = bufferization.to_tensor
// NOFUSE:         mp.relu %[[Y]] : tensor<64x256xf16>
// NOFUSE-NOT:   arith.maximumf
func.func @linear_bias_relu(%x: tensor<64x784xf16>, %w: tensor<256x784xf16>,
                            %b: tensor<256xf16>) -> tensor<64x256xf16> {
  %y = mp.linear %x, %w, %b acc(f32)
      : (tensor<64x784xf16>, tensor<256x784xf16>, tensor<256xf16>) -> tensor<64x256xf16>
  %r = mp.relu %y : tensor<64x256xf16>
  return %r : tensor<64x256xf16>
}

// -----

// bf16 with A transposed (K × M, M contiguous) and B plain (K × N, N
// contiguous): both fragments come from ldmatrix.trans.

// CHECK-LABEL: func.func @bf16_transposed
// CHECK:         llvm.call @mp_tc_sm80_mma_bf16m_bf16n_accf32_outbf16_128x128x32_w64x32_s3_launch
// CHECK:       gpu.func @mp_tc_sm80_mma_bf16m_bf16n_accf32_outbf16_128x128x32_w64x32_s3(
// CHECK:         scf.for
// CHECK-COUNT-6:   nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32, shape = #nvvm.ld_st_matrix_shape<m = 8, n = 8>}
// CHECK:           nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
// CHECK:         llvm.store %{{.*}}, %{{.*}} : bf16, !llvm.ptr<1>
func.func @bf16_transposed(%a: tensor<96x200xbf16>, %b: tensor<96x136xbf16>)
    -> tensor<200x136xbf16> {
  %y = mp.matmul %a, %b transpose_lhs acc(f32)
      : tensor<96x200xbf16>, tensor<96x136xbf16> -> tensor<200x136xbf16>
  return %y : tensor<200x136xbf16>
}

// -----

// TF32: f32 operands with compute tf32. A is M-contiguous: 32-bit elements
// cannot be transposed by ldmatrix, so its fragments come from scalar loads;
// every fragment register is rounded with cvt.rna.tf32.f32.

// CHECK-LABEL: func.func @tf32
// CHECK:       gpu.func @mp_tc_sm80_mma_tf32m_tf32k_accf32_outf32_128x128x16_w64x32_s3(
// CHECK:         scf.for
// CHECK:           llvm.load %{{.*}} : !llvm.ptr<3> -> i32
// CHECK:           nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>
// CHECK:           %[[F:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK:           nvvm.convert.float.to.tf32 %[[F]] {rnd = #nvvm.fp_rnd_mode<rna>}
// CHECK:           nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<tf32>, multiplicandBPtxType = #nvvm.mma_type<tf32>, shape = #nvvm.shape<m = 16, n = 8, k = 8>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK:         llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<1>
func.func @tf32(%a: tensor<64x100xf32>, %b: tensor<60x64xf32>) -> tensor<100x60xf32> {
  %y = mp.matmul %a, %b transpose_lhs transpose_rhs acc(f32) compute tf32
      : tensor<64x100xf32>, tensor<60x64xf32> -> tensor<100x60xf32>
  return %y : tensor<100x60xf32>
}

// -----

// int8: m16n8k32 with wrapping i32 sums (as linalg.matmul on the CPU), K
// slices of 64 bytes; a K × N B is read byte by byte and packed.

// CHECK-LABEL: func.func @s8
// CHECK:       gpu.func @mp_tc_sm80_mma_s8k_s8n_acci32_outi32_128x128x64_w64x32_s3(
// CHECK:         scf.for
// CHECK:           llvm.load %{{.*}} : !llvm.ptr<3> -> i8
// CHECK:           nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {intOverflowBehavior = #nvvm.mma_int_overflow<wrapped>, layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<s8>, multiplicandBPtxType = #nvvm.mma_type<s8>, shape = #nvvm.shape<m = 16, n = 8, k = 32>} : (i32, i32, i32) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK:         llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr<1>
func.func @s8(%a: tensor<128x96xi8>, %b: tensor<96x48xi8>) -> tensor<128x48xi32> {
  %y = mp.matmul %a, %b acc(i32) : tensor<128x96xi8>, tensor<96x48xi8> -> tensor<128x48xi32>
  return %y : tensor<128x48xi32>
}

// -----

// f16 accumulation (acc(f16)): f16x2 accumulators, f16 mma.

// CHECK-LABEL: func.func @f16_accumulation
// CHECK:       gpu.func @mp_tc_sm80_mma_f16k_f16k_accf16_outf32_128x128x32_w64x32_s3(
// CHECK:         scf.for {{.*}} -> (vector<2xf16>, vector<2xf16>,
// CHECK:           nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, vector<2xf16>) -> !llvm.struct<(vector<2xf16>, vector<2xf16>)>
// CHECK:         %[[H:.*]] = llvm.extractelement %{{.*}}[%{{.*}} : i32] : vector<2xf16>
// CHECK:         arith.extf %[[H]] : f16 to f32
func.func @f16_accumulation(%a: tensor<32x64xf16>, %b: tensor<48x64xf16>) -> tensor<32x48xf32> {
  %y = mp.matmul %a, %b transpose_rhs acc(f16) : tensor<32x64xf16>, tensor<48x64xf16> -> tensor<32x48xf32>
  return %y : tensor<32x48xf32>
}

// -----

// GELU (erf and tanh) fused into the epilogue, computed in f32 on the value
// rounded to the result type. erf and tanh are MLIR's polynomial
// approximations, with no math op left (convert-gpu-to-nvvm would call
// libdevice for them).

// CHECK-LABEL: func.func @gelu
// CHECK-NOT:     mp.gelu
// CHECK:       gpu.func @mp_tc_sm80_mma_bf16k_bf16k_accf32_outbf16_128x128x32_w64x32_s3_gelu(
// CHECK:         %[[R:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK:         %[[X:.*]] = arith.extf %[[R]] : bf16 to f32
// CHECK:         %[[S:.*]] = arith.mulf %[[X]], %{{.*}} : f32
// CHECK:         llvm.intr.fma
// CHECK-NOT:     math.
// CHECK:       gpu.func @mp_tc_sm80_mma_bf16k_bf16k_accf32_outbf16_128x128x32_w64x32_s3_gelutanh(
// CHECK:         llvm.intr.fma
// CHECK-NOT:     math.
func.func @gelu(%x: tensor<32x64xbf16>, %w: tensor<48x64xbf16>) -> (tensor<32x48xbf16>, tensor<32x48xbf16>) {
  %y = mp.linear %x, %w acc(f32) : (tensor<32x64xbf16>, tensor<48x64xbf16>) -> tensor<32x48xbf16>
  %g = mp.gelu %y : tensor<32x48xbf16>
  %z = mp.linear %x, %w acc(f32) : (tensor<32x64xbf16>, tensor<48x64xbf16>) -> tensor<32x48xbf16>
  %t = mp.gelu %z approximate tanh : tensor<32x48xbf16>
  return %g, %t : tensor<32x48xbf16>, tensor<32x48xbf16>
}

// -----

// Batched matmul: the batch is the grid's z dimension; the launcher gets the
// product of the batch dimensions. A linear layer on a 3-d input multiplies
// the flattened rows. Identical ops share one kernel and one launcher. A
// result with a second user is not fused with its ReLU.

// CHECK-LABEL: func.func @batch_and_reuse
// CHECK-DAG:     %[[SIX:.*]] = arith.constant 6 : i64
// CHECK-DAG:     %[[M:.*]] = arith.constant 16 : i64
// CHECK-DAG:     %[[N:.*]] = arith.constant 24 : i64
// CHECK-DAG:     %[[K:.*]] = arith.constant 32 : i64
// CHECK:         llvm.call @[[BMM:mp_tc_sm80_mma_f16k_f16k_accf32_outf16_128x128x32_w64x32_s3_launch]](%{{.*}}, %{{.*}}, %{{.*}}, %[[SIX]], %[[M]], %[[N]], %[[K]])
// CHECK-DAG:     %[[ONE:.*]] = arith.constant 1 : i64
// CHECK-DAG:     %[[ROWS:.*]] = arith.constant 12 : i64
// CHECK:         llvm.call @[[BMM]](%{{.*}}, %{{.*}}, %{{.*}}, %[[ONE]], %[[ROWS]], %{{.*}}, %{{.*}})
// CHECK:         llvm.call @[[BMM]](
// CHECK:         %[[Y:.*]] = bufferization.to_tensor
// CHECK:         mp.relu %[[Y]]
// CHECK:       gpu.module @mp_tensor_core_kernels
// CHECK-COUNT-1: gpu.func
// CHECK-NOT:     gpu.func
// CHECK:       llvm.func internal @[[BMM]](
// CHECK-NOT:   llvm.func internal
func.func @batch_and_reuse(%a: tensor<2x3x16x32xf16>, %b: tensor<2x3x24x32xf16>,
                           %x: tensor<3x4x32xf16>, %w: tensor<24x32xf16>)
    -> (tensor<2x3x16x24xf16>, tensor<3x4x24xf16>, tensor<3x4x24xf16>, tensor<3x4x24xf16>) {
  %y = mp.batch_matmul %a, %b transpose_rhs acc(f32)
      : tensor<2x3x16x32xf16>, tensor<2x3x24x32xf16> -> tensor<2x3x16x24xf16>
  %l = mp.linear %x, %w acc(f32) : (tensor<3x4x32xf16>, tensor<24x32xf16>) -> tensor<3x4x24xf16>
  %m = mp.linear %x, %w acc(f32) : (tensor<3x4x32xf16>, tensor<24x32xf16>) -> tensor<3x4x24xf16>
  %r = mp.relu %m : tensor<3x4x24xf16>
  return %y, %l, %m, %r : tensor<2x3x16x24xf16>, tensor<3x4x24xf16>, tensor<3x4x24xf16>, tensor<3x4x24xf16>
}

// -----

// Operands whose contiguous dimension does not span a multiple of 16 bytes
// (K = 100 f16 elements: 200 bytes) are copied element by element (a loop of
// predicated loads and shared-memory stores) instead of with cp.async.

// CHECK-LABEL: func.func @unaligned_rows
// CHECK:       gpu.func @mp_tc_sm80_mma_f16ku_f16ku_accf32_outf16_128x128x32_w64x32_s3(
// CHECK-SAME:    lhs_rows_aligned = false
// CHECK-NOT:     nvvm.cp.async.shared.global
// CHECK:         scf.for
// CHECK:           llvm.load %{{.*}} : !llvm.ptr<1> -> i16
// CHECK:           llvm.store %{{.*}}, %{{.*}} : i16, !llvm.ptr<3>
// CHECK-NOT:     nvvm.cp.async.shared.global
// CHECK:         gpu.return
func.func @unaligned_rows(%x: tensor<64x100xf16>, %w: tensor<32x100xf16>) -> tensor<64x32xf16> {
  %y = mp.linear %x, %w acc(f32) : (tensor<64x100xf16>, tensor<32x100xf16>) -> tensor<64x32xf16>
  return %y : tensor<64x32xf16>
}

// -----

// Functions without matmul-likes are left alone: no gpu.module. So are
// matmul-likes with an empty result (nothing to launch).

// CHECK-LABEL: func.func @no_matmul
// CHECK:         mp.matmul
// CHECK-NOT:   gpu.module
func.func @no_matmul(%x: tensor<4xf32>, %a: tensor<0x16xf16>, %b: tensor<16x8xf16>)
    -> (tensor<4xf32>, tensor<0x8xf16>) {
  %r = mp.relu %x : tensor<4xf32>
  %y = mp.matmul %a, %b acc(f32) : tensor<0x16xf16>, tensor<16x8xf16> -> tensor<0x8xf16>
  return %r, %y : tensor<4xf32>, tensor<0x8xf16>
}

// -----

// A linear whose fused ReLU feeds the next linear (an MLP's hidden layer):
// the second launch reads the first launch's buffer, not the erased ReLU.
// CHECK-LABEL: func.func @fused_activation_feeds_next_linear
// CHECK:         %[[H:.*]] = bufferization.to_tensor %{{.*}} restrict writable : memref<64x256xbf16> to tensor<64x256xbf16>
// CHECK-NOT:     mp.relu
// CHECK:         bufferization.to_buffer %[[H]] read_only : tensor<64x256xbf16> to memref<64x256xbf16>
// CHECK:         llvm.call @mp_tc_sm80_mma_bf16k_bf16k_accf32_outf32_{{.*}}_bias_launch(
// NOFUSE-LABEL: func.func @fused_activation_feeds_next_linear
// NOFUSE:         mp.relu
func.func @fused_activation_feeds_next_linear(
    %x: tensor<64x784xbf16>, %w1: tensor<256x784xbf16>, %b1: tensor<256xbf16>,
    %w2: tensor<10x256xbf16>, %b2: tensor<10xf32>) -> tensor<64x10xf32> {
  %h = mp.linear %x, %w1, %b1 acc(f32) : (tensor<64x784xbf16>, tensor<256x784xbf16>, tensor<256xbf16>) -> tensor<64x256xbf16>
  %r = mp.relu %h : tensor<64x256xbf16>
  %y = mp.linear %r, %w2, %b2 acc(f32) : (tensor<64x256xbf16>, tensor<10x256xbf16>, tensor<10xf32>) -> tensor<64x10xf32>
  return %y : tensor<64x10xf32>
}
