//===- TensorCoreKernels.h - Tensor Core GEMM kernel generator --*- C++ -*-===//
//
// The description of one Tensor Core GEMM kernel (chip, formats, layouts,
// epilogue, tiles), its checks, its shared-memory geometry, and the builders
// of its device code (`gpu.func` in NVVM) and of its host launcher
// (`llvm.func` over the CUDA runtime wrappers). Used by convert-mp-to-nvvm.
//
// Kernel ABI, shared by the device code, the launcher and
// tools/bench/gpu/run_gpu_checks.py:
//
//   kernel(ptr A, ptr B, ptr C, [ptr bias,] i32 M, i32 N, i32 K,
//          i64 batchStrideA, i64 batchStrideB, i64 batchStrideC,
//          [ptr tensorMapA, ptr tensorMapB])
//
// The tensor maps (TMA kernels only, `useTma`) are 128-byte CUtensorMaps in
// device memory, made by cuTensorMapEncodeTiled (mgpuTensorMapEncodeTiled)
// for a 3-D tensor (contiguous dimension, other dimension, batch) of the
// operand with a box of 128 bytes × `SharedTileGeometry::rows` × 1, the
// 128-byte swizzle and zero fill out of bounds (docs/GPU.md).
//
// and, for the block-scaled kernels of mp.scaled_matmul (no bias, batch 1),
// `ptr scalesA, ptr scalesB` in place of the bias (one byte per scale).
//
// Split-K (`splitK`, a spec made by getSplitKPartialSpec): the kernel takes
// a trailing `i32 splits` S and its C is the f32 (s32) workspace
// [batch][S][M][N] with batchStrideC = M·N per split; block z = b·S + s
// computes the partial product of batch b over K slices [s·T, min((s+1)·T,
// ⌈K/blockK⌉)) with T = ⌈⌈K/blockK⌉ / S⌉, and stores it unrounded. The
// reduction kernel (buildSplitKReductionKernel)
//
//   reduce(ptr W, ptr C, [ptr bias,] i32 M, i32 N, i32 splits)
//
// with grid (⌈M·N/256⌉, batch) and 256 threads sums the S partials of each
// element in the order 0, 1, …, S−1 and applies the epilogue once.
//
// with grid (⌈N/blockN⌉, ⌈M/blockM⌉, batch), `numThreads()` threads and
// `sharedMemoryBytes()` bytes of dynamic shared memory. A is M×K (K-contiguous)
// or K×M (M-contiguous), B is N×K (K-contiguous) or K×N (N-contiguous), C is
// M×N row-major; strides are in elements.
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_MPTONVVM_TENSORCOREKERNELS_H
#define LIB_CONVERSION_MPTONVVM_TENSORCOREKERNELS_H

#include "mp/Conversion/MPToNVVM/MPToNVVM.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

#include <string>

namespace mlir::mp {

/// An elementwise function applied to the rounded result in the epilogue.
enum class EpilogueActivation { none, relu, geluErf, geluTanh };

/// The block-scaled MMA kind of an mp.scaled_matmul kernel (sm_120a
/// mma.sync ... .block_scale, sm_100a tcgen05.mma ... .block_scale), or none
/// for the other matmul-likes.
enum class BlockScaleKind {
  none,
  /// m16n8k32 kind::mxf8f6f4 scale_vec::1X ue8m0: FP8/FP6/FP4 operands in
  /// 8-bit containers, 32-element blocks. tcgen05: kind::mxf8f6f4
  /// .block_scale.block32 on FP8 operands (K = 32 per instruction).
  mxf8f6f4,
  /// m16n8k64 kind::mxf4 scale_vec::2X ue8m0: packed FP4, 32-element blocks.
  /// tcgen05: kind::mxf4.block_scale.block32 (K = 64).
  mxf4,
  /// m16n8k64 kind::mxf4nvf4 scale_vec::4X ue4m3: packed FP4, 16-element
  /// blocks (NVFP4). tcgen05: kind::mxf4nvf4.block_scale.block16 (K = 64).
  mxf4nvf4,
};

/// Everything that determines the code of one Tensor Core GEMM kernel. The
/// problem sizes (M, N, K, batch) are kernel arguments, so one kernel serves
/// every shape its checks accept.
struct TensorCoreKernelSpec {
  TensorCoreChip chip = TensorCoreChip::sm80;
  /// wgmma.mma_async (sm_90a) instead of mma.sync.
  bool useWgmma = false;
  /// wgmma and tcgen05: K slices loaded by TMA (cp.async.bulk.tensor) from
  /// one thread into an mbarrier ring; wgmma: a producer warpgroup and
  /// consumer warpgroups keeping two wgmma groups in flight
  /// (WgmmaTmaKernel.cpp); tcgen05: the MMA thread loads too, each stage
  /// freed by the tcgen05.commit of its MMAs (Tcgen05Kernel.cpp). Otherwise
  /// cp.async from every thread. The kernel then takes two tensor maps (see
  /// the ABI above).
  bool useTma = false;
  /// tcgen05.mma (sm_100a) instead of mma.sync: the accumulator lives in
  /// Tensor Memory.
  bool useTcgen05 = false;
  /// wgmma with FP8 operands only: the number of wgmma instructions (K steps
  /// of 32) whose products accumulate in the wgmma accumulator before it is
  /// added, in f32, into a second register accumulator and restarted from
  /// zero (CUTLASS's FP8 accumulation, DeepGEMM's promotion); a multiple of
  /// the instructions of one K slice. 0: one accumulator throughout (the
  /// Tensor Cores' reduced-precision FP8 accumulation over all of K).
  int64_t fp8PromoteInterval = 0;
  /// wgmma with an f32 accumulator and an f16/bf16 result: the epilogue
  /// rounds a warp's 16 rows × 64 columns at a time into a shared-memory
  /// staging tile with stmatrix and stores it to C in 16-byte rows
  /// (WgmmaKernel.cpp); otherwise each element is stored on its own.
  bool useStmatrixEpilogue = false;
  /// Split-K: the GEMM runs as S K splits whose partial products a reduction
  /// kernel sums in a fixed order (see the ABI above). On the spec of a
  /// matmul-like it selects the split-K launcher; on the spec of the GEMM
  /// kernel itself (getSplitKPartialSpec) it makes the kernel compute one
  /// split per block z and store its partial product.
  bool splitK = false;
  /// Formats of A and B (never `automatic`).
  TensorCoreFormat lhsFormat = TensorCoreFormat::f16;
  TensorCoreFormat rhsFormat = TensorCoreFormat::f16;
  /// Whether K is the contiguous dimension of A (M×K row-major) or of B (N×K
  /// row-major); otherwise A is K×M and B is K×N row-major.
  bool lhsKContiguous = true;
  bool rhsKContiguous = true;
  /// Whether every row of A (B) starts on a 16-byte boundary, i.e. its
  /// contiguous dimension spans a multiple of 16 bytes: then K slices are
  /// copied with 16-byte cp.async, otherwise element by element.
  bool lhsRowsAligned = true;
  bool rhsRowsAligned = true;
  /// Accumulator element type: f32, f16 (f16 operands) or i32 (s8).
  Type accType;
  /// Element type of C and of the bias: f32, f16, bf16 or i32.
  Type resultType;
  bool hasBias = false;
  EpilogueActivation activation = EpilogueActivation::none;
  /// Tiles; 0 selects the default in `completeTensorCoreKernelSpec`.
  int64_t blockM = 0, blockN = 0, blockK = 0;
  int64_t warpM = 0, warpN = 0; // mma.sync only
  int64_t stages = 0;
  /// Block scaling (mp.scaled_matmul): the kind, the scale element type (E8M0
  /// or E4M3), the block length along K, and the block length along M (N)
  /// of A's (B's) scales: 1 for 1-D blocks, the K length for 2-D tiles.
  /// Scales are row-major [M / lhsScaleRows, K / scaleBlockK] and
  /// [N / rhsScaleRows, K / scaleBlockK] bytes.
  BlockScaleKind blockScale = BlockScaleKind::none;
  bool scalesE4M3 = false;
  int64_t scaleBlockK = 0;
  int64_t lhsScaleRows = 1, rhsScaleRows = 1;

  /// Threads per block (with TMA: the consumer warpgroups, then the
  /// producer warpgroup).
  int64_t numThreads() const;
  /// With TMA: the registers per thread the producer warpgroup keeps and the
  /// consumer warpgroups take (setmaxnreg), within the 64K of an SM.
  int64_t producerRegisters() const;
  int64_t consumerRegisters() const;
  /// Bytes of one shared-memory stage (A tile then B tile).
  int64_t stageBytes() const;
  /// Tensor Memory columns a tcgen05 kernel allocates: block-n (the
  /// accumulator) plus, for block-scaled kernels, the scale factors of A and
  /// B (`scaleColumns`), rounded up to a power of two, at least 32.
  int64_t tensorMemoryColumns() const;
  /// Block-scaled tcgen05 kernels (Tcgen05Kernel.cpp): groups of 4 scale
  /// blocks along K per K slice (one 128-row x 4-byte scale-factor atom per
  /// 128 rows of A or B each), and the Tensor Memory columns of A's
  /// (`lhs`) or B's scale factors: 4 per group and 128 rows.
  int64_t scaleGroups() const;
  int64_t scaleColumns(bool lhs) const;
  /// Whether a block-scaled tcgen05 kernel multiplies packed FP4 (kind::mxf4,
  /// kind::mxf4nvf4): the stages hold one element per byte as memory does,
  /// and the MMA reads a packed copy (two per byte) of each slice.
  bool packsFP4() const;
  /// Shared memory of a block-scaled kernel behind the stages: with tcgen05
  /// the packed FP4 copy of A and B (packsFP4), then the scale-factor atoms
  /// of A and B of one slice; with mma.sync the scales of the block's rows
  /// of A, then of B, for two slices (MmaSyncKernel.cpp).
  int64_t packedTileBytes(bool lhs) const;
  int64_t scaleStagingBytes() const;
  /// Bytes of the stmatrix epilogue's staging tiles (one per consumer warp)
  /// and their offset in the dynamic shared memory (after the stages and
  /// mbarriers).
  int64_t epilogueStagingBytes() const;
  int64_t epilogueStagingOffset() const;
  /// Dynamic shared memory of one block in bytes.
  int64_t sharedMemoryBytes() const;
  /// The kernel's symbol, unique per spec.
  std::string kernelName() const;
  /// Whether an FP8 operand is involved.
  bool usesFP8() const;
  /// Whether the wgmma accumulator is promoted to f32 every
  /// `fp8PromoteInterval` instructions.
  bool promotesFP8Accumulator() const { return fp8PromoteInterval > 0; }
  /// wgmma: the instructions of one K slice (one per 32 bytes of K).
  int64_t wgmmaInstructionsPerSlice() const;
  /// Whether this is a block-scaled kernel (mp.scaled_matmul).
  bool isBlockScaled() const { return blockScale != BlockScaleKind::none; }
  /// K elements of one block-scaled mma.sync or tcgen05.mma: 32 (mxf8f6f4)
  /// or 64.
  int64_t blockScaledInstructionK() const;
};

/// The spec of the GEMM kernel of split-K `spec`: the same main loop, storing
/// its accumulator unrounded (result type = accumulator type, no bias, no
/// activation, no stmatrix epilogue) into the workspace.
TensorCoreKernelSpec getSplitKPartialSpec(const TensorCoreKernelSpec &spec);

/// Whether `spec` (completed) can run split-K, else sets `reason`: an f32 or
/// s32 accumulator, mma.sync or wgmma, not block-scaled.
bool canSplitK(const TensorCoreKernelSpec &spec, std::string &reason);

/// The number of K splits `split-k=auto` gives a GEMM of `tiles` output
/// tiles (⌈M/blockM⌉·⌈N/blockN⌉·batch) and `kSlices` K slices on a chip of
/// `smCount` SMs: as many splits as fill one wave of CTAs (⌊smCount /
/// tiles⌋), keeping at least kMinSlicesPerSplit slices per split, at most
/// kMaxSplits; 1 when the tiles alone fill the chip.
int64_t chooseSplitK(int64_t tiles, int64_t kSlices, int64_t smCount);

/// Clamps a requested split count to the K slices and drops empty splits:
/// returns ⌈kSlices / ⌈kSlices / S⌉⌉ for S = min(requested, kSlices).
int64_t normalizeSplitK(int64_t requested, int64_t kSlices);

/// split-k=auto's limits.
constexpr int64_t kMinSlicesPerSplit = 8;
constexpr int64_t kMaxSplits = 16;

/// The SMs of the usual part of `chip` (sm_80 A100: 108; sm_86 A10: 72;
/// sm_89 L4: 58; sm_90a H100/H200 SXM: 132; sm_100a B200: 148; sm_120a RTX
/// 5090: 170), which split-k=auto assumes unless told (sm-count).
int64_t getDefaultSMCount(TensorCoreChip chip);

/// Bytes from one row of a warp's stmatrix staging tile to the next: 64
/// 16-bit columns plus 16 bytes, so that the 8 rows of each stmatrix matrix
/// start in different banks.
constexpr int64_t kEpilogueStagingPitch = 144;

/// Returns the kernel descriptions' name of `activation` (`none`, `relu`,
/// `gelu`, `gelu_tanh`) or, with `nameSuffix`, the kernel-name suffix (``,
/// `_relu`, `_gelu`, `_gelutanh`).
llvm::StringRef stringifyEpilogueActivation(EpilogueActivation activation,
                                            bool nameSuffix = false);

/// Returns the PTX spelling of `kind` (`mxf8f6f4`, ...; `none`).
llvm::StringRef stringifyBlockScaleKind(BlockScaleKind kind);

/// Returns the size in bytes of one element of `format`.
int64_t getFormatByteWidth(TensorCoreFormat format);

/// How the K slice of one operand is laid out in a shared-memory stage: a
/// tile of `rows` rows (the operand's non-contiguous dimension) of `rowBytes`
/// bytes each (its contiguous dimension), copied in 16-byte chunks.
struct SharedTileGeometry {
  int64_t rows = 0;
  int64_t rowBytes = 0;
  /// mma.sync: bytes from one row to the next (`rowBytes` plus padding that
  /// keeps ldmatrix and the scalar fragment loads free of bank conflicts).
  /// wgmma: 128; the tile is split into columns of 128 bytes, each a stack
  /// of `rows` 128-byte rows with the 128-byte swizzle (16-byte chunk c of
  /// row r at chunk c ^ (r % 8)).
  int64_t pitchBytes = 0;
  bool swizzled = false;

  /// The tile's size in bytes.
  int64_t bytes() const;
};

/// Returns the shared-memory geometry of A (`lhs`) or B in `spec`, whose tiles
/// must be complete.
SharedTileGeometry getSharedTileGeometry(const TensorCoreKernelSpec &spec,
                                         bool lhs);

/// Whether wgmma (and tcgen05) can read both operands of `spec` from shared
/// memory: tf32 and 8-bit operands must be K-contiguous.
bool canWgmmaReadOperands(const TensorCoreKernelSpec &spec);

/// Replaces the zero tiles of `spec` by the defaults of its instruction and
/// checks the tiles; on failure returns false and sets `reason`.
bool completeTensorCoreKernelSpec(TensorCoreKernelSpec &spec,
                                  std::string &reason);

/// Returns the PTX ISA feature (`+ptx70`, ...) kernels for `chip` need,
/// at least `+ptx84` where FP8 mma.sync is used, `+ptx88` where a
/// block-scaled tcgen05.mma is (LLVM selects its .block16 / .block32 forms
/// from PTX ISA 8.8 on only).
llvm::StringRef getRequiredPTXFeature(TensorCoreChip chip, bool usesFP8MmaSync,
                                      bool usesBlockScaledTcgen05 = false);

/// Builds the kernel of `spec` at the end of `module` (a `gpu.func` named
/// `spec.kernelName()`, in NVVM, scf and arith).
gpu::GPUFuncOp buildTensorCoreKernel(OpBuilder &builder,
                                     gpu::GPUModuleOp module,
                                     const TensorCoreKernelSpec &spec);

/// Builds at the end of `module` the split-K reduction kernel of `spec` (the
/// matmul-like's spec: accumulator, result type, bias, activation), named
/// getSplitKReductionName(spec), unless it exists; returns it.
gpu::GPUFuncOp buildSplitKReductionKernel(OpBuilder &builder,
                                          gpu::GPUModuleOp module,
                                          const TensorCoreKernelSpec &spec);

/// The reduction kernel's symbol: `mp_tc_splitk_reduce_acc<acc>_out<result>`
/// with the epilogue's `_bias` and activation suffixes.
std::string getSplitKReductionName(const TensorCoreKernelSpec &spec);

/// The attribute on a split-K launcher call giving its split count (a note
/// for FileCheck and tools; no dialect prefix, like `mp_tensor_core`).
inline constexpr llvm::StringLiteral kSplitKAttrName = "mp_split_k";

/// Threads per block of the reduction kernel (one element each).
constexpr int64_t kSplitKReductionThreads = 256;

/// Gives every FP8 operand of an mp.matmul / mp.batch_matmul of `module`
/// that is not K-contiguous a transposed FP8 copy (quantised again from the
/// high-precision tensor where the graph has it) and flips the op's
/// transpose flag, so that wgmma and tcgen05 can read it (FP8KMajor.cpp).
void makeFP8OperandsKMajor(ModuleOp module);

/// Checks that the module-level symbols the launchers need can be declared
/// or reused: a symbol named like one of MLIR's CUDA runtime wrappers
/// (mgpuMemAlloc, ...) must be an `llvm.func` of that wrapper's type. Emits
/// an error at each op that is not and returns failure.
LogicalResult checkTensorCoreRuntimeSymbols(ModuleOp module);

/// Builds at the end of `module` the host launcher of `kernel`: an
/// `llvm.func` taking (ptr A, ptr B, ptr C, [ptr bias | ptr scalesA, ptr
/// scalesB,] i64 batch, i64 M, i64 N, i64 K) host pointers, which copies the
/// operands to the device, launches the kernel and copies C back before
/// returning. With `deviceResident`, the pointers are device memory and a
/// trailing `ptr` operand is the stream: the launcher only launches the
/// kernel on it.
///
/// Split-K (`spec.splitK`; `kernel` is the partial kernel and `reduction`
/// the reduction kernel): an `i64 splits` operand follows K, and with
/// `deviceResident` a `ptr workspace` of batch·splits·M·N 4-byte elements
/// (device memory the caller allocates) precedes the stream; otherwise the
/// launcher allocates the workspace with the operands (mgpuMemAlloc on its
/// stream). It launches the partial kernel, then the reduction kernel, on
/// the same stream. The launcher is named `spec.kernelName() + "_launch"`.
LLVM::LLVMFuncOp buildTensorCoreLauncher(OpBuilder &builder, ModuleOp module,
                                         gpu::GPUFuncOp kernel,
                                         const TensorCoreKernelSpec &spec,
                                         bool deviceResident = false,
                                         gpu::GPUFuncOp reduction = {});

} // namespace mlir::mp

#endif // LIB_CONVERSION_MPTONVVM_TENSORCOREKERNELS_H
