//===- Pipelines.h - Registered pass pipelines of MixedPrec ----*- C++ -*-===//
//
// Each pipeline has an options struct (PassPipelineOptions, so its options
// parse from the textual pipeline and show in `mp-opt --help`), a
// `build<Name>Pipeline` function for C++ users, and is registered by
// `registerPipelines()`.
//
//===----------------------------------------------------------------------===//

#ifndef MP_PIPELINES_PIPELINES_H
#define MP_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "mp/Conversion/MPToNVVM/MPToNVVM.h"

namespace mlir::mp {

//===----------------------------------------------------------------------===//
// mp-cpu-pipeline
//===----------------------------------------------------------------------===//

/// True when the host's CPU has AVX512_BF16 and its vdpbf16ps adds a
/// pair's odd product, then its even one, each exactly and rounded once (a
/// probe run once): mp-cpu-pipeline's default for `bf16-dot-products`.
bool hostHasInOrderBF16Dots();

/// Options of `mp-cpu-pipeline`.
struct CPUPipelineOptions : public PassPipelineOptions<CPUPipelineOptions> {
  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorise linalg operations "
                     "(mp-tile-and-vectorize); off: plain loop nests"
                     " (default: true)"),
      llvm::cl::init(true)};
  PassOptions::ListOption<int64_t> matmulTileSizes{
      *this, "matmul-tile-sizes",
      llvm::cl::desc("Tile sizes of the M, N and K loops of contractions "
                     "(default: the host's, 16,16,1 with AVX-512, else "
                     "4,16,1)")};
  PassOptions::ListOption<int64_t> tileSizes{
      *this, "tile-sizes",
      llvm::cl::desc("Tile sizes of other linalg operations: the vector "
                     "loop, after the parallel loops before it (default 16)")};
  PassOptions::Option<bool> bf16DotProducts{
      *this, "bf16-dot-products",
      llvm::cl::desc("bf16 x bf16 -> f32 contractions also on AVX512_BF16 "
                     "dot products, taken at run time where they give the "
                     "same bits (mp-bf16-dot-products; with vectorize) "
                     "(default: true where the host has AVX512_BF16 and its vdpbf16ps "
                     "adds in the order a probe checks at start-up)"),
      llvm::cl::init(hostHasInOrderBF16Dots())};
  PassOptions::Option<unsigned> threads{
      *this, "threads",
      llvm::cl::desc("Threads the outermost parallel tile loops run on "
                     "(scf.forall -> OpenMP; the JIT loads libomp); 1: one "
                     "thread, no OpenMP; 0: as many as the OpenMP runtime "
                     "chooses (all cores, or OMP_NUM_THREADS). The bits do "
                     "not depend on it (default: 1)"),
      llvm::cl::init(1)};
  PassOptions::Option<int64_t> gridSize{
      *this, "grid-size",
      llvm::cl::desc("Processes of a data-parallel grid of dynamic size "
                     "(mp-data-parallel's default; mp-run sets the number of "
                     "MPI processes); 0: none (default: 0)"),
      llvm::cl::init(0)};
};

/// Adds to `pm` (anchored on `builtin.module`) the passes that lower a
/// module of mp train steps (after the mixed-precision passes) or of linalg
/// on tensors to the LLVM dialect: convert-mp-to-linalg, tiling and
/// vectorisation, one-shot bufferization with results turned into trailing
/// out-parameters, C interfaces for the public functions, and the
/// conversions to LLVM.
void buildCPUPipeline(OpPassManager &pm, const CPUPipelineOptions &options);

/// The step of mp-cpu-pipeline that outlines every top-level loop nest of a
/// function (after bufferization) into a private noinline function, so
/// that LLVM sees many small functions (lib/Pipelines/OutlineLoopNests.cpp).
std::unique_ptr<Pass> createOutlineLoopNestsPass();

/// The step of mp-cpu-pipeline that marks each function behind a
/// `_mlir_ciface_` wrapper `always_inline`, so that LLVM never selects a call
/// with every memref descriptor field as an argument
/// (lib/Pipelines/InlineCInterfaceCallees.cpp).
std::unique_ptr<Pass> createInlineCInterfaceCalleesPass();

//===----------------------------------------------------------------------===//
// mp-gpu-pipeline
//===----------------------------------------------------------------------===//

/// Options of `mp-gpu-pipeline`: those of convert-mp-to-nvvm, the binary to
/// produce, and the host lowering's.
struct GPUPipelineOptions : public PassPipelineOptions<GPUPipelineOptions> {
  PassOptions::Option<TensorCoreChip> chip{
      *this, "chip",
      llvm::cl::desc("Target GPU: sm_80, sm_86, sm_89, sm_90a, sm_100a or "
                     "sm_120a (default: sm_80)"),
      llvm::cl::init(TensorCoreChip::sm80), getTensorCoreChipValues()};
  PassOptions::Option<TensorCoreFormat> format{
      *this, "format",
      llvm::cl::desc("Tensor Core format: auto (from the operand types), f16, "
                     "bf16, tf32, e4m3, e5m2 or s8"
                     " (default: auto)"),
      llvm::cl::init(TensorCoreFormat::automatic), getTensorCoreFormatValues()};
  PassOptions::Option<TensorCoreInstruction> instruction{
      *this, "instruction",
      llvm::cl::desc("auto (wgmma on sm_90a, tcgen05 on sm_100a where "
                     "possible, else mma.sync), mma-sync, wgmma or tcgen05"
                     " (default: auto)"),
      llvm::cl::init(TensorCoreInstruction::automatic),
      getTensorCoreInstructionValues()};
  PassOptions::Option<bool> fp8KMajor{
      *this, "fp8-k-major",
      llvm::cl::desc("Transposed FP8 copies for the operands wgmma/tcgen05 "
                     "cannot read (default: true)"),
      llvm::cl::init(true)};
  PassOptions::Option<TensorCoreMainloop> mainloop{
      *this, "mainloop",
      llvm::cl::desc("How wgmma and tcgen05 kernels load K slices: auto "
                     "(tma-warp-specialized where it applies), "
                     "tma-warp-specialized or cp-async (default: auto)"),
      llvm::cl::init(TensorCoreMainloop::automatic),
      getTensorCoreMainloopValues()};
  PassOptions::Option<int64_t> fp8PromoteInterval{
      *this, "fp8-promote-interval",
      llvm::cl::desc("FP8 wgmma kernels (sm_90a): promote the wgmma "
                     "accumulator into an f32 one every N wgmma instructions "
                     "in the backward GEMMs (dgrad, wgrad; the forward ones "
                     "too with fp8-promote-fprop); 0: off (default: 4)"),
      llvm::cl::init(4)};
  PassOptions::Option<bool> fp8PromoteFprop{
      *this, "fp8-promote-fprop",
      llvm::cl::desc("Promote the FP8 accumulator of the forward GEMMs too "
                     "(default: false)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> stmatrixEpilogue{
      *this, "stmatrix-epilogue",
      llvm::cl::desc("wgmma kernels with an f32 accumulator and an f16/bf16 "
                     "result: stage the tile through shared memory with "
                     "stmatrix, store C in 16-byte rows (default: true)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> splitK{
      *this, "split-k",
      llvm::cl::desc("K splits per GEMM, summed in a fixed order by a "
                     "reduction kernel: auto (from M, N, K and sm-count) or "
                     "a number >= 1 (1: off; docs/GPU.md, \"Split-K\") "
                     "(default: 1)"),
      llvm::cl::init("1")};
  PassOptions::Option<int64_t> smCount{
      *this, "sm-count",
      llvm::cl::desc("SMs that split-k=auto fills (0: the chip's usual "
                     "part, e.g. 132 on sm_90a, 108 on sm_80) (default: 0)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> blockM{
      *this, "block-m",
      llvm::cl::desc("Rows of the result per thread block (0: 128)"
                     " (default: 0)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> blockN{
      *this, "block-n",
      llvm::cl::desc("Columns of the result per thread block (0: 128)"
                     " (default: 0)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> blockK{
      *this, "block-k",
      llvm::cl::desc("Depth of a K slice in elements (0: 64 bytes per row "
                     "with mma.sync, 128 with wgmma)"
                     " (default: 0)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> warpM{
      *this, "warp-m",
      llvm::cl::desc("Rows of the result per warp with mma.sync (0: 64)"
                     " (default: 0)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> warpN{
      *this, "warp-n",
      llvm::cl::desc("Columns of the result per warp with mma.sync (0: 32)"
                     " (default: 0)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> stages{
      *this, "stages",
      llvm::cl::desc("Shared-memory buffers of the K loop (0: 3 with "
                     "mma.sync, 4 with wgmma)"
                     " (default: 0)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> fuseEpilogue{
      *this, "fuse-epilogue",
      llvm::cl::desc("Fuse an mp.relu or mp.gelu that is the sole user of a "
                     "matmul's result into the kernel's epilogue"
                     " (default: true)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> ptxFeatures{
      *this, "ptx-features",
      llvm::cl::desc("Features of the kernels' #nvvm.target (empty: the PTX "
                     "ISA the chip and formats need)"
                     " (default: empty)"),
      llvm::cl::init("")};
  PassOptions::Option<GPUBinaryFormat> binaryFormat{
      *this, "binary-format",
      llvm::cl::desc("What gpu-module-to-binary makes of the kernels: isa "
                     "(PTX; needs no CUDA toolkit), bin (cubin) or fatbin "
                     "(PTX and cubin)"
                     " (default: fatbin)"),
      llvm::cl::init(GPUBinaryFormat::fatbin), getGPUBinaryFormatValues()};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit with ptxas and fatbinary for bin and "
                     "fatbin (empty: CUDA_ROOT or /usr/local/cuda)"
                     " (default: empty)"),
      llvm::cl::init("")};
  PassOptions::Option<bool> deviceResident{
      *this, "device-resident",
      llvm::cl::desc("Run every op of the step on the device, on device "
                     "buffers (GPU kernels for the non-matmul ops, one stream, "
                     "module attribute mp.device_resident; docs/GPU.md); off: "
                     "only the matmul-likes, the rest on the host"
                     " (default: true)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> sequentialReductions{
      *this, "sequential-reductions",
      llvm::cl::desc("device-resident: full reductions (the loss, the "
                     "all-finite check, amax, norms) in one thread in the "
                     "CPU's order (bit for bit mp-cpu-pipeline{vectorize="
                     "false}); off: a fixed two-level tree (docs/GPU.md)"
                     " (default: false)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> hostVectorize{
      *this, "host-vectorize",
      llvm::cl::desc("Tile and vectorise the host's linalg operations (the "
                     "vectorize option of mp-cpu-pipeline)"
                     " (default: true)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> gridSize{
      *this, "grid-size",
      llvm::cl::desc("device-resident=false: the processes of a "
                     "data-parallel grid of dynamic size, for the host's "
                     "MPI calls (mp-cpu-pipeline's grid-size; mp-run sets "
                     "the number of MPI processes); 0: none (default: 0)"),
      llvm::cl::init(0)};
};

/// Adds to `pm` (anchored on `builtin.module`) the passes that lower a
/// module of mp train steps for NVIDIA GPUs: convert-mp-to-nvvm (matmul-likes
/// to Tensor Core kernels and their launchers), the kernels to NVVM/LLVM,
/// the rest of the functions through mp-cpu-pipeline, gpu-to-llvm, and
/// gpu-module-to-binary.
void buildGPUPipeline(OpPassManager &pm, const GPUPipelineOptions &options);

/// The first steps mp-cpu-pipeline and mp-gpu-pipeline{device-resident}
/// share: mp to linalg (and arith/math on tensors to linalg.generic) on
/// tensors, elementwise ops fused, canonicalized.
void buildMPToLinalgOnTensors(OpPassManager &pm);

/// The buffers both pipelines make: fusion barriers dropped, entry points
/// exported, one-shot bufferization across function boundaries with identity
/// layouts, results turned into trailing out-parameters (the caller allocates
/// every buffer), ownership-based deallocation, bufferization ops to memref.
/// `afterBufferization`, when given, adds passes right after one-shot
/// bufferization.
void buildCallerAllocatedBuffers(
    OpPassManager &pm,
    llvm::function_ref<void(OpPassManager &)> afterBufferization = {});

/// The standard conversions to the LLVM dialect both pipelines' host code
/// ends with: finalize-memref-to-llvm, arith, index, func, cf and ub to LLVM
/// (what precedes them lowers vectors, math and affine), then the functions
/// behind C interfaces marked always_inline.
void buildStandardToLLVM(OpPassManager &pm);

/// The part of mp-gpu-pipeline{device-resident} after convert-mp-to-nvvm:
/// the rest of the step to linalg, bufferized, as GPU kernels (linalg to
/// parallel loops, mapped onto blocks and threads, outlined) on device
/// buffers and one stream, the kernels to NVVM and the host to LLVM
/// (lib/Pipelines/DeviceResident.cpp).
void buildDeviceResidentStep(OpPassManager &pm,
                             const GPUPipelineOptions &options);

/// The step of mp-gpu-pipeline{device-resident} that turns the linalg ops and
/// the host scalar code of a bufferized step into one-dimensional
/// scf.parallel loops, fused, and refuses what cannot run on the device; a
/// full reduction is a two-level tree unless `sequentialReductions`.
std::unique_ptr<Pass> createDeviceLoopsPass(bool sequentialReductions = false);

/// The step of mp-gpu-pipeline{device-resident} that puts each function's
/// buffers and launches on one stream of device memory and marks the module
/// `mp.device_resident`; gpu.modules without a target get `target`'s.
std::unique_ptr<Pass>
createDeviceBuffersPass(std::function<Attribute(MLIRContext *)> target = {});

//===----------------------------------------------------------------------===//
// mp-mixed-precision-pipeline
//===----------------------------------------------------------------------===//

/// Options of `mp-mixed-precision-pipeline`.
struct MixedPrecisionPipelineOptions
    : public PassPipelineOptions<MixedPrecisionPipelineOptions> {
  PassOptions::Option<std::string> computeType{
      *this, "compute-type",
      llvm::cl::desc("Low-precision compute type: f16, bf16, or f32 (no "
                     "autocast: an f32 train step)"
                     " (default: f16)"),
      llvm::cl::init("f16")};
  PassOptions::Option<std::string> lossScaling{
      *this, "loss-scaling",
      llvm::cl::desc("Loss scaling: dynamic, static, none, or auto (dynamic "
                     "for f16, none for bf16 and f32)"
                     " (default: auto)"),
      llvm::cl::init("auto")};
  PassOptions::Option<std::string> masterWeights{
      *this, "master-weights",
      llvm::cl::desc("Master-weight style: cast-per-step (PyTorch AMP) or "
                     "stored-copy (Apex O2)"
                     " (default: cast-per-step)"),
      llvm::cl::init("cast-per-step")};
  PassOptions::Option<std::string> policyFile{
      *this, "policy-file",
      llvm::cl::desc("Autocast policy file (JSON, docs/Autocast.md)"
                     " (default: empty)"),
      llvm::cl::init("")};
  PassOptions::Option<double> initScale{
      *this, "init-scale",
      llvm::cl::desc("Initial (dynamic) or fixed (static) loss scale"
                     " (default: 65536.0)"),
      llvm::cl::init(65536.0)};
  PassOptions::Option<int64_t> growthInterval{
      *this, "growth-interval",
      llvm::cl::desc("Finite steps between two growths of the loss scale"
                     " (default: 2000)"),
      llvm::cl::init(2000)};
  PassOptions::Option<int64_t> hysteresis{
      *this, "hysteresis",
      llvm::cl::desc("Non-finite steps tolerated before backing off (1 = "
                     "GradScaler, 2 = Megatron-LM)"
                     " (default: 1)"),
      llvm::cl::init(1)};
  PassOptions::Option<bool> dataParallel{
      *this, "data-parallel",
      llvm::cl::desc("All-reduce the gradients across the processes of an "
                     "MPI launch (mp-data-parallel, after mp-loss-scaling)"
                     " (default: false)"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> reduceType{
      *this, "reduce-type",
      llvm::cl::desc("With data-parallel: the type gradients are all-reduced "
                     "in (f32, bf16 or f16)"
                     " (default: f32)"),
      llvm::cl::init("f32")};
  PassOptions::Option<int64_t> gridSize{
      *this, "grid-size",
      llvm::cl::desc("With data-parallel: the number of processes (0: set "
                     "at run time)"
                     " (default: 0)"),
      llvm::cl::init(0)};
  PassOptions::Option<std::string> fp8{
      *this, "fp8",
      llvm::cl::desc("FP8/FP4 matmuls (mp-fp8-scaling after mp-autodiff): "
                     "none, or the recipe delayed, current, mxfp8, fp8-block "
                     "or nvfp4"
                     " (default: none)"),
      llvm::cl::init("none")};
  PassOptions::Option<std::string> fp8Format{
      *this, "fp8-format",
      llvm::cl::desc("FP8 formats with fp8 != none: hybrid (E4M3 forward, "
                     "E5M2 gradients), e4m3, or default (the recipe's: "
                     "hybrid for delayed and current, e4m3 for mxfp8 and "
                     "fp8-block)"
                     " (default: default)"),
      llvm::cl::init("default")};
  PassOptions::Option<int64_t> fp8AmaxHistoryLen{
      *this, "fp8-amax-history-len",
      llvm::cl::desc("Amax history length of fp8=delayed"
                     " (default: 1024)"),
      llvm::cl::init(1024)};
  PassOptions::Option<bool> fp8IncludeFirstLast{
      *this, "fp8-include-first-last",
      llvm::cl::desc("With fp8 != none, also run the first and last layers "
                     "in FP8"
                     " (default: false)"),
      llvm::cl::init(false)};
  // The other options of mp-fp8-scaling, forwarded as they are (their
  // meaning and checks are the pass's: docs/MPPasses.md#mp-fp8-scaling).
  PassOptions::Option<std::string> fp8AmaxCompute{
      *this, "fp8-amax-compute",
      llvm::cl::desc("Amax from the history of fp8=delayed: max or "
                     "most-recent (mp-fp8-scaling's amax-compute)"
                     " (default: max)"),
      llvm::cl::init("max")};
  PassOptions::Option<int64_t> fp8Margin{
      *this, "fp8-margin",
      llvm::cl::desc("fp8=delayed and current: the scale is (fp8_max / "
                     "amax) / 2^margin (mp-fp8-scaling's margin)"
                     " (default: 0)"),
      llvm::cl::init(0)};
  PassOptions::Option<bool> fp8Power2Scale{
      *this, "fp8-power-2-scale",
      llvm::cl::desc("fp8=current: scales rounded down to powers of two "
                     "(mp-fp8-scaling's power-2-scale)"
                     " (default: false)"),
      llvm::cl::init(false)};
  PassOptions::Option<double> fp8AmaxEpsilon{
      *this, "fp8-amax-epsilon",
      llvm::cl::desc("fp8=current and fp8-block: a smaller amax is raised "
                     "to this value first (mp-fp8-scaling's amax-epsilon)"
                     " (default: 0)"),
      llvm::cl::init(0.0)};
  PassOptions::Option<bool> fp8Fp32Scales{
      *this, "fp8-fp32-scales",
      llvm::cl::desc("fp8=fp8-block: f32 block scales not rounded to powers "
                     "of two (mp-fp8-scaling's fp32-scales)"
                     " (default: false)"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> fp8WeightBlocks{
      *this, "fp8-weight-blocks",
      llvm::cl::desc("Block-scaled recipes: weight blocks 1d, 2d or default "
                     "(mp-fp8-scaling's weight-blocks)"
                     " (default: default)"),
      llvm::cl::init("default")};
  PassOptions::Option<bool> fp8DisableStochasticRounding{
      *this, "fp8-disable-stochastic-rounding",
      llvm::cl::desc("fp8=nvfp4: gradients rounded to nearest "
                     "(mp-fp8-scaling's disable-stochastic-rounding)"
                     " (default: false)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> fp8DisableRht{
      *this, "fp8-disable-rht",
      llvm::cl::desc("fp8=nvfp4: no random Hadamard transform on the wgrad "
                     "path (mp-fp8-scaling's disable-rht)"
                     " (default: false)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> fp8ReduceAmax{
      *this, "fp8-reduce-amax",
      llvm::cl::desc("fp8=delayed with data-parallel: all-reduce each amax "
                     "over the processes (mp-fp8-scaling's reduce-amax)"
                     " (default: true)"),
      llvm::cl::init(true)};
  PassOptions::ListOption<std::string> fp8Ops{
      *this, "fp8-ops",
      llvm::cl::desc("Kinds of forward ops that go to FP8: matmul, linear, "
                     "batch_matmul (mp-fp8-scaling's ops; default "
                     "matmul,linear)")};
};

/// Adds to `pm` (anchored on `builtin.module`) mp-autocast (unless the
/// compute type is f32), mp-master-weights, mp-loss-scaling (unless none),
/// mp-autodiff, mp-fp8-scaling (unless fp8=none), canonicalize and cse.
void buildMixedPrecisionPipeline(OpPassManager &pm,
                                 const MixedPrecisionPipelineOptions &options);

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// Registers every pipeline of MixedPrec with the global registry.
void registerPipelines();

} // namespace mlir::mp

#endif // MP_PIPELINES_PIPELINES_H
