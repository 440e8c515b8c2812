//===- Passes.td - Conversions out of the mp dialect -------*- tablegen -*-===//
//
// Conversions are named `convert-X-to-Y`; each lives in its own folder under
// lib/Conversion/ and include/mp/Conversion/.
//
//===----------------------------------------------------------------------===//

#ifndef MP_CONVERSION_PASSES_TD
#define MP_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// MPToLinalg
//===----------------------------------------------------------------------===//

def ConvertMPToLinalg : Pass<"convert-mp-to-linalg"> {
  let summary = "Lower mp ops to linalg, tensor, arith, math and scf on tensors";
  let description = [{
    Rewrites every `mp` operation except `mp.grad` into upstream dialects on
    tensors (value semantics): named linalg ops where they exist
    (`linalg.matmul`, `linalg.batch_matmul`, `linalg.transpose`,
    `linalg.broadcast`, `linalg.fill`), `linalg.generic` for elementwise and
    reduction computations and for the im2col of convolutions (which become
    matrix products, the im2col written directly as the matrix), tensor ops for shapes (`tensor.collapse_shape`,
    `expand_shape`, `extract_slice`, `insert_slice`, `concat`, `pad`), `scf.for`
    for the scatter of `mp.embedding_grad`, and arith/math on scalars.
    Function signatures and their `mp.*` argument and result attributes are
    kept, so a driver still finds parameters and state.

    The numeric contract is explicit in the output: an elementwise op on
    f16, bf16 or FP8 extends its operands to f32 (`arith.extf`, exact),
    computes in f32 and rounds each result once with `arith.truncf` (round to
    nearest, ties to even); reductions, normalisations, softmax and losses of
    narrow types accumulate in f32 and round once; matmul-likes are one linalg
    op with inputs of the operand type and an accumulator of `acc_type`
    (`linalg.matmul ins(f16, f16) outs(f32)`), followed by one rounding to the
    result type; saturating FP8 casts clamp to the largest finite value before
    rounding. The rounding of `arith.truncf`/`extf` must then be lowered
    exactly: bf16 with `arith-expand{include-bf16=true}` and FP8 with
    `mp-expand-fp8-conversions` (both after linalg is lowered to loops or
    vectors, since named ops such as `linalg.matmul` carry their casts
    implicitly). See docs/Lowering.md for every op family.

    `mp.grad` is not lowered: `mp-autodiff` expands it first; a remaining one
    fails the pass with an error at the op.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def MPExpandFP8Conversions : Pass<"mp-expand-fp8-conversions"> {
  let summary = "Expand arith.extf/truncf of FP8, FP6, FP4 and E8M0 types into "
                "integer arithmetic";
  let description = [{
    Upstream lowerings to LLVM leave `arith.truncf` to and `arith.extf` from
    `f8E4M3FN`, `f8E5M2`, `f6E2M3FN`, `f6E3M2FN`, `f4E2M1FN` and `f8E8M0FNU`
    in the IR (LLVM has no such types). This pass rewrites them, on scalars,
    vectors and tensors, into bit-exact integer arithmetic on i32 and the
    format's width (`arith.bitcast`, shifts, masks, selects): truncation
    rounds to nearest, ties to even, with subnormals; NaN stays NaN (sign
    kept); overflow gives NaN for E4M3FN (which has no infinity), infinity
    for E5M2 and the largest finite value for FP6/FP4 (which have neither,
    and turn NaN into +max). Truncation to E8M0 must round upward (the
    scale rule of `mp.cast`): 2^⌈log2 x⌉, 2^-127 for values up to it and for
    negative values, NaN above 2^127. A saturating conversion is a truncation
    of a value clamped to the largest finite value first (what
    `convert-mp-to-linalg` emits for `mp.cast saturate`). Sources and
    targets of other widths go through f32, which is exact in both
    directions for f16 and bf16. A conversion it cannot expand (an f64
    source, another rounding mode) is an error at the op: LLVM could not
    lower it either. Run it after linalg is lowered to loops or vectors.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def MPExpandTanh : Pass<"mp-expand-tanh"> {
  let summary = "Expand f32 math.tanh into arithmetic that every target "
                "rounds the same way";
  let description = [{
    Rewrites each f32 `math.tanh` (scalar or vector) into additions,
    multiplications, one division, `math.fma`, compares, selects and integer
    bit operations, all correctly rounded on the CPU and in NVPTX, so that a
    tanh is vector code where its operand is a vector (instead of one libm
    `tanhf` call per element) and the vectorised, the scalar and the GPU
    lowerings give the same bits. With `a = |x|`: `a + a³·P(a²)` (P of
    degree 6) below 0.875, else `1 − 2/(e^(2a) + 1)` with `a` clamped to 9.5
    and `e^(2a)` computed as `2^k·e^r` (Taylor polynomial of degree 7); the
    sign of `x` is put back, NaN stays NaN. At most 1.03 ulp from the exact
    tanh over every f32 (docs/Lowering.md). Other element types are left
    alone: run `math-extend-to-supported-types` first for f16 and bf16.

    With `exp=true` (mp-cpu-pipeline sets it) every f32 `math.exp` without
    fast-math flags is rewritten too, into the same exponential evaluated in
    f64 and rounded once to f32 (`arith.extf`, the operand clamped to
    [−150, 100], `2^k·e^r` with a Taylor polynomial of degree 11,
    `arith.truncf`; NaN gives `x + x`): vector code instead of one libm
    `expf` call per element, the same bits in vectorised and scalar loops,
    correctly rounded for all but 2 of the f32 inputs (glibc's `expf`
    misrounds 170,648; docs/Lowering.md).
  }];
  let options = [
    Option<"exp", "exp", "bool", /*default=*/"false",
           "Also expand f32 math.exp (evaluated in f64, rounded once)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

//===----------------------------------------------------------------------===//
// MPToNVVM
//===----------------------------------------------------------------------===//

def ConvertMPToNVVM : Pass<"convert-mp-to-nvvm", "ModuleOp"> {
  let summary = "Lower mp matmul-likes to Tensor Core kernels (NVVM) and their launches";
  let description = [{
    Turns every `mp.matmul`, `mp.batch_matmul` and `mp.linear` of the module
    (after `mp-autocast`), and with `chip=sm_120a` or `sm_100a` every
    `mp.scaled_matmul`,
    into a call of a GPU kernel, and leaves every other
    operation as it is, so the rest of the function still goes through the
    CPU lowering (`convert-mp-to-linalg`, bufferization, LLVM). Matmul-likes
    with an empty result are left to that lowering too.

    Kernels are generated per (chip, operand formats, layouts, accumulator,
    result type, epilogue, tile) into one `gpu.module @mp_tensor_core_kernels`
    that carries an `#nvvm.target` with the chip and the PTX ISA it needs
    (`+ptx70` sm_80, `+ptx71` sm_86, `+ptx78` sm_89, `+ptx80` sm_90a, `+ptx84`
    as soon as an FP8 `mma.sync` is used). A kernel computes a block tile of
    `block-m` × `block-n` of the result for one batch index (the grid is
    `(⌈N/block-n⌉, ⌈M/block-m⌉, batch)`) and is written in NVVM ops, with
    control flow in `scf` and index arithmetic in `arith` (run
    `convert-scf-to-cf`, `convert-gpu-to-nvvm` and `convert-nvvm-to-llvm` on
    the `gpu.module` next, as `mp-gpu-pipeline` does):

    - The K loop stages `block-k` slices of both operands through shared
      memory with `cp.async` (16-byte copies, zero-filled past the edges of
      the matrices) in a ring of `stages` buffers, so that loads of the next
      slices overlap the Tensor Core work on the current one. An operand
      whose contiguous dimension does not span a multiple of 16 bytes (say
      K = 10 f16 elements) is copied element by element instead (predicated
      loads and stores), which is slower but handles any shape.
    - `mma.sync` (sm_80/sm_86/sm_89, and on sm_90a where wgmma cannot read
      the operands): each warp computes a `warp-m` × `warp-n` tile with
      `m16n8k16` (f16, bf16), `m16n8k8` (tf32) or `m16n8k32` (s8, e4m3,
      e5m2 in every pairing) instructions on fragments loaded with `ldmatrix`
      (`.trans` for 16-bit operands whose contiguous dimension is M or N) or,
      for 8- and 32-bit operands that are not K-contiguous, with scalar
      shared-memory loads. TF32 fragments are rounded with `cvt.rna.tf32.f32`
      (round to nearest, ties away from zero) before the products. FP8
      products use the `llvm.nvvm.mma.m16n8k32.row.col.f32.<a>.<b>.f32`
      intrinsics.
    - `wgmma.mma_async` (sm_90a): each warpgroup of 128 threads computes 64
      rows × `block-n` with `m64nNk16` (f16, bf16), `m64nNk8` (tf32) or
      `m64nNk32` (e4m3, e5m2, s8) on operands read from shared memory through
      matrix descriptors with the 128-byte swizzle (which the copies write),
      after `fence.proxy.async`, between `wgmma.fence` and
      `commit_group`/`wait_group`. TF32 slices are rounded with
      `cvt.rna.tf32.f32` in shared memory. wgmma reads tf32 and 8-bit operands
      only K-major; 16-bit operands may be M- or N-major (transposed
      descriptors).
    - `mainloop=tma-warp-specialized` (the default for wgmma where the rows
      of both operands span a multiple of 16 bytes and the format is not
      tf32; `mainloop=cp-async` keeps the kernel above): block-m / 64
      consumer warpgroups plus one producer warpgroup (`setmaxnreg` 40 for
      the producer, up to 232 for the consumers), 128 × 256 tiles by
      default. One producer thread loads each K slice with
      `cp.async.bulk.tensor` (TMA, 128-byte swizzle, zero fill past the
      edges) completing on the stage's "full" mbarrier
      (`mbarrier.arrive.expect_tx`); each consumer warpgroup waits on it,
      issues the slice's wgmma, keeps that group in flight
      (`wgmma.wait_group 1`) and hands the previous slice's stage back on
      its "empty" mbarrier. The launcher encodes the operands' tensor maps
      with `mgpuTensorMapEncodeTiled` and passes them in device memory.
    - `tcgen05.mma` (sm_100a): a block of 128 threads computes 128 ×
      `block-n` into Tensor Memory (`tcgen05.alloc`; `kind::f16` for f16 and
      bf16, `kind::tf32`, `kind::f8f6f4` for e4m3/e5m2, `kind::i8`), one
      thread issuing the MMAs of a K slice from the swizzled shared-memory
      tiles of the wgmma kernels and committing them to an mbarrier. With
      `mainloop=auto` or `tma-warp-specialized` (where the rows of both
      operands span a multiple of 16 bytes) that thread also loads the
      slices with TMA into a ring of `stages` stages, each with a "full"
      mbarrier (`expect_tx`) and an "empty" one that the slice's
      `tcgen05.commit` completes, refilling a stage once its MMAs are done;
      otherwise (`mainloop=cp-async`, unaligned rows) every thread copies
      with `cp.async` and the block waits for the previous slice's MMAs
      before refilling its stage. The epilogue reads the accumulator with
      `tcgen05.ld`. Operands as wgmma reads them; f16 accumulation and other
      layouts use `mma.sync`. sm_120a runs `mma.sync` (FP8 included).
    - Block-scaled `mma.sync` (sm_120a only): each `mp.scaled_matmul` (A
      M × K, B N × K) becomes a kernel of `m16n8k32 kind::mxf8f6f4
      scale_vec::1X ue8m0` (E8M0 scales on blocks of 32; FP8, FP6 and FP4
      data in any pairing but FP4 × FP4, in 8-bit containers), `m16n8k64
      kind::mxf4 scale_vec::2X ue8m0` (MXFP4) or `m16n8k64 kind::mxf4nvf4
      scale_vec::4X ue4m3` (NVFP4: E4M3 scales on FP4 blocks of 16), with
      1-D or 2-D scale blocks; other scale types, block lengths and layouts
      are errors.
    - Block-scaled `tcgen05.mma` (sm_100a): `kind::mxf8f6f4.block_scale
      .block32` (E8M0; FP8, FP6 and FP4 in any pairing but FP4 x FP4, FP6
      and FP4 in the 16-byte padded shared-memory form),
      `kind::mxf4.block_scale.block32` (MXFP4) or
      `kind::mxf4nvf4.block_scale.block16` (NVFP4, packed in shared
      memory), the scales gathered into 128 x 4 atoms and staged into Tensor
      Memory by `tcgen05.cp .32x128b.warpx4` every K slice (docs/GPU.md);
      `instruction=mma-sync` is an error. On the other chips
      `mp.scaled_matmul` stays for the CPU lowering.
    - The epilogue converts the accumulator (f32; f16 for `acc(f16)`; s32 for
      int8) to the result type, adds the bias of `mp.linear`, applies a fused
      `mp.relu` or `mp.gelu` (the sole user of the result, with
      `fuse-epilogue`) to the rounded value, and stores with predication on
      the matrix edges. GELU's erf and tanh are MLIR's f32 polynomial
      approximations, so the kernels need no libdevice. wgmma kernels with an
      f32 accumulator and an f16/bf16 result (`stmatrix-epilogue`) stage
      each warp's rounded rows through shared memory with `stmatrix` and
      store C in 16-byte rows.
    - FP8 wgmma kernels of the backward (dgrad, wgrad) add the wgmma
      accumulator into an f32 register accumulator every
      `fp8-promote-interval` instructions (CUTLASS's FP8 accumulation);
      `fp8-promote-fprop` extends it to the forward GEMMs.
    - Split-K (`split-k=auto` or a count; off by default; mma.sync and wgmma kernels with
      an f32 or s32 accumulator): a GEMM whose output tiles fill less than
      half of `sm-count` SMs (weight gradients: small M x N, large K) runs as
      S K splits, block z = batch x S + split, each storing its unrounded
      partial product into a workspace of batch x S x M x N, then a
      reduction kernel sums the partials of each element in the order
      0 .. S-1 and applies the epilogue once (bias, rounding, activation):
      deterministic, and within 2(K - 1) u sum|a b| of the unsplit sum
      (docs/GPU.md, "Split-K"). Device-resident, the workspace is a buffer
      of the step (`memref.alloc`, a `gpu.alloc` on the step's stream);
      otherwise the launcher allocates it with the operands.

    Each kernel carries an `mp_tensor_core` dictionary (formats, layouts,
    tiles, threads, dynamic shared memory) for tools that launch it without
    the host code (tools/bench/gpu/run_gpu_checks.py). docs/GPU.md describes
    the kernels and their ABI.

    On the host, each op becomes `bufferization.to_buffer` of its operands,
    a `memref.alloc` of the result, an `llvm.call` of an `llvm.func` launcher
    on the buffers' pointers and `bufferization.to_tensor` of the result. The
    launcher (one per kernel) creates a stream, allocates device buffers,
    copies the operands in, launches the kernel with `gpu.launch_func` on that
    stream, copies the result back and frees everything, through the CUDA
    runtime wrappers of MLIR (`mgpu*`, libmlir_cuda_runtime): the function
    stays ordinary tensor code that one-shot bufferization and ownership-based
    deallocation accept.

    FP8 operands that wgmma or tcgen05 cannot read (an M-contiguous A, an
    N-contiguous B: the backward of an FP8 linear layer) get, with
    `fp8-k-major` (the default), a transposed FP8 copy in the graph: an
    operand `mp.cast saturate (mp.scale %x by %s)` is quantised again from
    the transposed `%x` with the same scale (Transformer Engine's
    columnwise copy), any other is transposed; the op's transpose flag
    flips, and the kernel reads both operands K-major. The values are the
    same (per-tensor scaling is elementwise).

    Errors name the op, the chip and the format: FP8 before sm_89, wgmma on
    another chip than sm_90a (or on tf32/8-bit operands that are not
    K-major), tcgen05 on another chip than sm_100a (or on such operands, or
    with f16 accumulation), f32 operands without `compute tf32` (unless `format=tf32`),
    operands that do not match an explicit `format`, FP8 results, tile
    options that do not divide, shared memory beyond the chip's limit, and
    shapes the grid cannot hold (more than 65535 batches or row blocks, or
    batches x K splits), a `split-k` that is not `auto` or a positive
    integer, a negative `sm-count`, and `split-k` above 1 on a GEMM that
    cannot split (f16 accumulation, tcgen05, block-scaled).
    Also errors: a matmul in a nested module (or other nested symbol table),
    a symbol `@mp_tensor_core_kernels` or `@<kernel>_launch` the module
    already has, and an `mgpu*` wrapper declared with another type than the
    launchers call.
  }];
  let options = [
    Option<"chip", "chip", "::mlir::mp::TensorCoreChip",
           "::mlir::mp::TensorCoreChip::sm80",
           "Target GPU: sm_80, sm_86, sm_89, sm_90a, sm_100a or sm_120a"
           " (default: sm_80)",
           "::mlir::mp::getTensorCoreChipValues()">,
    Option<"format", "format", "::mlir::mp::TensorCoreFormat",
           "::mlir::mp::TensorCoreFormat::automatic",
           "Tensor Core format: auto (from the operand types), f16, bf16, "
           "tf32, e4m3, e5m2 or s8; an explicit format must match every "
           "matmul's operands (tf32 also accepts f32 operands with compute "
           "ieee, opting in to TF32 rounding)"
           " (default: auto)",
           "::mlir::mp::getTensorCoreFormatValues()">,
    Option<"instruction", "instruction", "::mlir::mp::TensorCoreInstruction",
           "::mlir::mp::TensorCoreInstruction::automatic",
           "auto (wgmma on sm_90a, tcgen05 on sm_100a where the operand "
           "layouts and accumulator allow it, else mma.sync), mma-sync, wgmma "
           "or tcgen05"
           " (default: auto)",
           "::mlir::mp::getTensorCoreInstructionValues()">,
    Option<"mainloop", "mainloop", "::mlir::mp::TensorCoreMainloop",
           "::mlir::mp::TensorCoreMainloop::automatic",
           "How wgmma and tcgen05 kernels load K slices: auto "
           "(tma-warp-specialized where it applies: 16-byte aligned rows, "
           "not tf32 with wgmma; else cp-async), tma-warp-specialized (TMA "
           "from one thread into an mbarrier ring) or cp-async"
           " (default: auto)",
           "::mlir::mp::getTensorCoreMainloopValues()">,
    Option<"fp8KMajor", "fp8-k-major", "bool", "true",
           "On sm_90a and sm_100a (wgmma, tcgen05), give FP8 operands that "
           "are not K-contiguous a transposed FP8 copy (quantised from the "
           "high-precision tensor where the graph has it) instead of "
           "falling back to mma.sync"
           " (default: true)">,
    Option<"fp8PromoteInterval", "fp8-promote-interval", "int64_t", "4",
           "FP8 wgmma kernels (sm_90a): add the wgmma accumulator into an f32 "
           "register accumulator, and restart it from zero, every N wgmma "
           "instructions (K steps of 32; a multiple of a K slice's, 4 by "
           "default), as CUTLASS's FP8 accumulation and DeepGEMM do; 0: off. "
           "Applies to the backward GEMMs (dgrad, wgrad: an FP8 matmul with "
           "an operand that is not K-major in the graph, or an E5M2 operand), "
           "and to the others with fp8-promote-fprop"
           " (default: 4)">,
    Option<"fp8PromoteFprop", "fp8-promote-fprop", "bool", "false",
           "Promote the FP8 accumulator of the forward GEMMs too (Transformer "
           "Engine: fast accumulation for fprop, split accumulation for "
           "dgrad and wgrad)"
           " (default: false)">,
    Option<"stmatrixEpilogue", "stmatrix-epilogue", "bool", "true",
           "wgmma kernels with an f32 accumulator and an f16/bf16 result "
           "(and block-n a multiple of 64, shared memory permitting): stage "
           "the rounded tile through shared memory with stmatrix and store "
           "C in 16-byte rows; off: one store per element"
           " (default: true)">,
    Option<"splitK", "split-k", "std::string", "\"1\"",
           "Split K of each GEMM into S parts computed by separate blocks "
           "into an f32 (s32) workspace, then summed in the fixed order "
           "0..S-1 by a reduction kernel that applies the epilogue once "
           "(deterministic; f32 sums within the bound of docs/GPU.md, "
           "\"Split-K\"): auto (S from M, N, K, the tiles and sm-count: "
           "enough blocks for one wave when the output tiles fill less than "
           "half the SMs, at least 8 K slices per split, at most 16), or a "
           "number S >= 1 (1: off; at most one split per K slice). mma.sync "
           "and wgmma kernels with an f32 or s32 accumulator; off by default "
           "so that every sum keeps the unsplit order"
           " (default: 1)">,
    Option<"smCount", "sm-count", "int64_t", "0",
           "SMs that split-k=auto fills (0: the chip's usual part: sm_80 "
           "108, sm_86 72, sm_89 58, sm_90a 132, sm_100a 148, sm_120a 170)"
           " (default: 0)">,
    Option<"blockM", "block-m", "int64_t", "0",
           "Rows of the result per thread block (0: 128)"
           " (default: 0)">,
    Option<"blockN", "block-n", "int64_t", "0",
           "Columns of the result per thread block (0: 128)"
           " (default: 0)">,
    Option<"blockK", "block-k", "int64_t", "0",
           "Depth of a K slice in elements (0: 64 bytes per row with mma.sync, "
           "128 bytes with wgmma)"
           " (default: 0)">,
    Option<"warpM", "warp-m", "int64_t", "0",
           "Rows of the result per warp with mma.sync (0: 64)"
           " (default: 0)">,
    Option<"warpN", "warp-n", "int64_t", "0",
           "Columns of the result per warp with mma.sync (0: 32)"
           " (default: 0)">,
    Option<"stages", "stages", "int64_t", "0",
           "Shared-memory buffers of the K loop, at least 2 (0: 3 with "
           "mma.sync, 4 with wgmma)"
           " (default: 0)">,
    Option<"fuseEpilogue", "fuse-epilogue", "bool", "true",
           "Fuse an mp.relu or mp.gelu that is the sole user of a matmul's "
           "result into the kernel's epilogue"
           " (default: true)">,
    Option<"ptxFeatures", "ptx-features", "std::string", "\"\"",
           "Features of the #nvvm.target attached to the kernels (empty: the "
           "PTX ISA that the chip and the formats need)"
           " (default: empty)">,
    Option<"deviceResident", "device-resident", "bool", "false",
           "The buffers are device memory (mp-gpu-pipeline's device-resident "
           "step): each launcher takes device pointers and the step's stream "
           "and only launches; off: host buffers, copied to and from the "
           "device around each launch"
           " (default: false)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::scf::SCFDialect",
  ];
}

//===----------------------------------------------------------------------===//
// ShardToMPI
//===----------------------------------------------------------------------===//

def MPLegalizeMPI : Pass<"mp-legalize-mpi", "ModuleOp"> {
  let summary = "Work around the gaps of upstream shard → mpi → LLVM lowering "
                "for OpenMPI";
  let description = [{
    Makes the output of `mp-data-parallel` lower through upstream
    `convert-shard-to-mpi` and the mpi dialect's LLVM lowering (MLIR 22.1)
    into calls that run under Debian's OpenMPI. It does whatever applies to
    the module at hand, so `mp-cpu-pipeline` runs it three times: before
    `convert-shard-to-mpi`, before the conversions to LLVM, and after them.

    - A 1-D `shard.grid` of dynamic size gets `grid-size` processes (an
      error when `grid-size` is 0), and `shard.grid_shape` of static grids
      becomes constants (`convert-shard-to-mpi` rejects dynamic grids).
    - A module with shard or mpi ops gets
      `dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">` unless it has
      a `dlti.map` (without it the MPICH ABI is used silently).
    - A symbol named like one that the mpi lowering to LLVM declares or
      refers to (`MPI_Init`, `MPI_Finalize`, `MPI_Comm_rank`,
      `MPI_Comm_split`, `MPI_Send`, `MPI_Recv`, `MPI_Allreduce`; for OpenMPI
      the globals `ompi_mpi_comm_world`, `ompi_mpi_<datatype>`,
      `ompi_mpi_<op>` and `ompi_mpi_op_<op>`) is an error unless it has the
      kind and type that the lowering gives it for the module's MPI
      implementation (an `llvm.func`, or a `func.func` of the same
      signature; an `llvm.mlir.global` of the opaque OpenMPI struct): the
      lowering reuses such a symbol whatever its type.
    - `mpi.comm_split` with a constant color (every process in one group,
      what `convert-shard-to-mpi` emits for a 1-D grid) is replaced by the
      communicator it splits: its LLVM lowering loads the new communicator
      as an i32 instead of a pointer.
    - An in-place `mpi.allreduce` (sum) of f16 or bf16 over
      `mpi.comm_world` becomes a call of the runtime shim
      `mp_mpi_allreduce_sum_f16`/`_bf16(i64 address, i64 count)` (MPI has no
      16-bit float datatypes; mp-run's shim sums with an MPI user op in the
      16-bit type, rounding each partial sum to nearest even). A symbol of
      the shim's name that is not a `func.func` of type `(i64, i64) -> ()`
      is an error.
    - A 0-d buffer is all-reduced as a 1-element one (`memref.expand_shape`):
      the mpi lowering of 0-d buffers fails outside a full
      `convert-to-llvm`.
    - Once no shard op but grids remain, the `shard.grid` ops are erased
      (they would reach the LLVM translation).
    - After the LLVM conversion, the globals `@ompi_mpi_<op>` that the
      lowering declares for reduction ops are renamed to the symbols
      libmpi exports, `@ompi_mpi_op_<op>`.

    See docs/DataParallel.md.
  }];
  let options = [
    Option<"gridSize", "grid-size", "int64_t", /*default=*/"0",
           "Number of processes given to 1-D grids of dynamic size (0: "
           "none; such a grid is an error)"
           " (default: 0)">
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::DLTIDialect",
    "::mlir::func::FuncDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::mpi::MPIDialect",
  ];
}

#endif // MP_CONVERSION_PASSES_TD
