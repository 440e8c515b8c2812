//===- Pipelines.cpp - Registered pass pipelines of MixedPrec -------------===//
//
// The pass pipelines MixedPrec registers. `mp-cpu-pipeline` lowers a module of
// train steps (mp after the mixed-precision passes, or linalg on tensors) to
// the LLVM dialect for the CPU: convert-mp-to-linalg, tiling and
// vectorisation, one fill per destination of the constant fills CSE shared
// (mp-rematerialize-fills), one-shot bufferization across function
// boundaries with identity layouts, results turned into trailing
// out-parameters (the caller allocates every buffer, so no ownership crosses
// the boundary), C interfaces and recorded signatures for the public
// functions, and the conversions to LLVM. The exact roundings of bf16 and FP8 conversions are expanded into
// integer arithmetic (arith-expand, mp-expand-fp8-conversions) rather than
// left to the host CPU's instructions; no fast-math flags are introduced.
// With `threads` other than 1, the outermost parallel tile loops are
// scf.forall loops (mp-tile-and-vectorize's `parallel`; the other loop nests
// scf.parallel ones, mp-linalg-to-loops: the leading parallel loops of large
// nests only), which become OpenMP worksharing loops run by
// libomp: every output element is computed by one iteration, so the bits are
// those of one thread.
// `mp-gpu-pipeline` turns the matmul-likes into Tensor Core kernels first
// (convert-mp-to-nvvm), lowers the kernels to NVVM, runs mp-cpu-pipeline on
// the rest, and compiles the kernels to PTX/cubin (docs/GPU.md).
//
//===----------------------------------------------------------------------===//

#include "mp/Pipelines/Pipelines.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Transforms/Passes.h"
#include "mp/Conversion/Passes.h"
#include "mp/Dialect/MP/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

using namespace mlir;
using namespace mlir::mp;

void mlir::mp::buildMPToLinalgOnTensors(OpPassManager &pm) {
  // mp → linalg, tensor, arith, math and scf on tensors; arith and math on
  // tensors → linalg.generic.
  pm.addPass(createConvertMPToLinalg());
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  pm.addNestedPass<func::FuncOp>(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void mlir::mp::buildCallerAllocatedBuffers(
    OpPassManager &pm,
    llvm::function_ref<void(OpPassManager &)> afterBufferization) {
  // Fusion is over: convert-mp-to-linalg's fusion barriers would only be
  // copies now.
  pm.addNestedPass<func::FuncOp>(createMPDropFusionBarriers());
  pm.addPass(createMPExportEntryPoints());
  bufferization::OneShotBufferizePassOptions bufferization;
  bufferization.bufferizeFunctionBoundaries = true;
  bufferization.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferization));
  if (afterBufferization)
    afterBufferization(pm);
  // Folds the loop-carried buffers of tiled loops, so that results are
  // their allocations and become the out-parameters without a copy.
  pm.addPass(createCanonicalizerPass());
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  // Results returned as reshapes of allocations: computed in place too.
  pm.addNestedPass<func::FuncOp>(createMPFoldOutParamCopies());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCanonicalizerPass());
}

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
/// Runs vdpbf16ps on 1024 lanes of bf16 products exact in f32 and reports
/// whether every lane is (acc + odd product) + even product, each addition
/// rounded once: the order mp-bf16-dot-products relies on (measured on AMD
/// Zen 5; the Intel SDM describes the same). Only called where the host has
/// AVX512_BF16.
__attribute__((target("avx512f,avx512bf16"))) static bool
addsOddProductFirst() {
  uint32_t state = 12345;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  auto fromBits = [](uint32_t bits) {
    float value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
  };
  for (int trial = 0; trial < 64; ++trial) {
    uint16_t a[32], b[32];
    float acc[16], out[16];
    // Exponents near 1: every product exact, every sum normal.
    for (int i = 0; i < 32; ++i) {
      a[i] = static_cast<uint16_t>((next() % 0x0300 + 0x3E00) |
                                   ((next() & 1) << 15));
      b[i] = static_cast<uint16_t>((next() % 0x0300 + 0x3E00) |
                                   ((next() & 1) << 15));
    }
    for (int i = 0; i < 16; ++i)
      acc[i] = fromBits((next() % 0x03000000 + 0x3E000000) |
                        ((next() & 1u) << 31));
    __m512bh va, vb;
    std::memcpy(&va, a, sizeof va);
    std::memcpy(&vb, b, sizeof vb);
    _mm512_storeu_ps(out, _mm512_dpbf16_ps(_mm512_loadu_ps(acc), va, vb));
    for (int i = 0; i < 16; ++i) {
      volatile float odd = fromBits(uint32_t(a[2 * i + 1]) << 16) *
                           fromBits(uint32_t(b[2 * i + 1]) << 16);
      volatile float even = fromBits(uint32_t(a[2 * i]) << 16) *
                            fromBits(uint32_t(b[2 * i]) << 16);
      volatile float first = acc[i] + odd;
      volatile float expected = first + even;
      if (std::memcmp(&out[i], const_cast<float *>(&expected),
                      sizeof(float)) != 0)
        return false;
    }
  }
  return true;
}
#endif

bool mlir::mp::hostHasInOrderBF16Dots() {
#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
  static const bool inOrder =
      llvm::sys::getHostCPUFeatures().lookup("avx512bf16") &&
      addsOddProductFirst();
  return inOrder;
#else
  return false;
#endif
}

void mlir::mp::buildCPUPipeline(OpPassManager &pm,
                                const CPUPipelineOptions &options) {
  buildMPToLinalgOnTensors(pm);

  // Tiles and vectors, still on tensors.
  if (options.vectorize) {
    if (options.bf16DotProducts) {
      MPBF16DotProductsOptions dotProducts;
      dotProducts.parallel = options.threads != 1;
      pm.addNestedPass<func::FuncOp>(createMPBF16DotProducts(dotProducts));
    }
    MPTileAndVectorizeOptions tiling;
    tiling.matmulTileSizes.assign(options.matmulTileSizes.begin(),
                                  options.matmulTileSizes.end());
    tiling.tileSizes.assign(options.tileSizes.begin(), options.tileSizes.end());
    tiling.parallel = options.threads != 1;
    pm.addNestedPass<func::FuncOp>(createMPTileAndVectorize(tiling));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }

  // Collectives (mp-data-parallel's shard.all_reduce) → mpi, with the
  // fixes of mp-legalize-mpi around the upstream lowering; nothing happens
  // in a module without shard or mpi ops.
  MPLegalizeMPIOptions mpi;
  mpi.gridSize = options.gridSize;
  pm.addPass(createMPLegalizeMPI(mpi));
  pm.addPass(createConvertShardToMPIPass());
  pm.addPass(createMPLegalizeMPI(mpi));

  // Buffers: the caller passes every argument and result buffer. Fills that
  // CSE shared are filled again per destination rather than copied.
  pm.addNestedPass<func::FuncOp>(createMPRematerializeFills());
  // A fill (or other side-effect-free op) that only one branch of an scf.if
  // reads moves into that branch: the zero accumulators that only a bf16
  // kernel's fallback reads (CSE shared them among products of one shape,
  // so mp-bf16-dot-products could not sink them; mp-rematerialize-fills
  // gave each its own clone) are no longer filled on the kernel's path.
  pm.addNestedPass<func::FuncOp>(createControlFlowSinkPass());
  buildCallerAllocatedBuffers(pm, [&](OpPassManager &pm) {
    if (options.threads != 1)
      pm.addNestedPass<func::FuncOp>(createForallToParallelLoopPass());
  });
  // One function per loop nest: LLVM's cost stays linear in the ops.
  pm.addPass(createOutlineLoopNestsPass());

  // Loops and 1-d vectors.
  MPLinalgToLoopsOptions loops;
  loops.parallel = options.threads != 1;
  loops.vectorCopies = options.vectorize;
  pm.addNestedPass<func::FuncOp>(createMPLinalgToLoops(loops));
  pm.addNestedPass<func::FuncOp>(vector::createLowerVectorMultiReductionPass());
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass(
      VectorTransferToSCFOptions().enableFullUnroll()));
  if (options.threads != 1) {
    ConvertSCFToOpenMPPassOptions openMP;
    openMP.numThreads = options.threads;
    pm.addPass(createConvertSCFToOpenMPPass(openMP));
    // Inlines the memref.alloca_scope of each iteration (the loop bodies
    // allocate nothing), which scf-to-cf would split into several blocks.
    pm.addPass(createCanonicalizerPass());
  }
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());

  // Exact roundings as integer arithmetic, math on narrow floats in f32;
  // f32 tanh as arithmetic (vector code, the GPU's bits), f32 exp as f64
  // arithmetic rounded once (vector code).
  pm.addNestedPass<func::FuncOp>(math::createMathExtendToSupportedTypes());
  MPExpandTanhOptions transcendentals;
  transcendentals.exp = true;
  pm.addPass(createMPExpandTanh(transcendentals));
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addNestedPass<func::FuncOp>(arith::createArithExpandOpsPass(expand));
  pm.addPass(createMPExpandFP8Conversions());

  // LLVM.
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.vectorContractLowering =
      vector::VectorContractLowering::OuterProduct;
  vectorToLLVM.vectorTransposeLowering =
      vector::VectorTransposeLowering::Shuffle16x16;
  // mp-bf16-dot-products' x86vector.avx512.dot.
  vectorToLLVM.x86Vector = true;
  // Math first: what has no LLVM intrinsic (erf) becomes libm calls, which
  // unrolls vectors into vector.extract/from_elements for the vector
  // conversion to lower.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  buildStandardToLLVM(pm);
  // mpi has no conversion pass of its own, only convert-to-llvm's interface.
  ConvertToLLVMPassOptions mpiToLLVM;
  mpiToLLVM.filterDialects = {"mpi"};
  pm.addPass(createConvertToLLVMPass(mpiToLLVM));
  if (options.threads != 1)
    pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createMPLegalizeMPI(mpi));
  pm.addPass(createCanonicalizerPass());
}

/// The CUDA toolkit of the `toolkit` option: itself, else $CUDA_ROOT,
/// $CUDA_HOME or $CUDA_PATH, else /usr/local/cuda where it exists (where
/// gpu-module-to-binary finds ptxas, fatbinary and libdevice, which the
/// device-resident kernels' transcendental functions link).
static std::string getCUDAToolkit(StringRef toolkit) {
  if (!toolkit.empty())
    return toolkit.str();
  for (const char *variable : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"})
    if (const char *value = std::getenv(variable); value && *value)
      return value;
  if (llvm::sys::fs::is_directory("/usr/local/cuda"))
    return "/usr/local/cuda";
  return "";
}

void mlir::mp::buildStandardToLLVM(OpPassManager &pm) {
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createInlineCInterfaceCalleesPass());
}

void mlir::mp::buildGPUPipeline(OpPassManager &pm,
                                const GPUPipelineOptions &options) {
  // Matmul-likes → Tensor Core kernels in a gpu.module, launched from the
  // functions through llvm.func launchers.
  ConvertMPToNVVMOptions conversion;
  conversion.chip = options.chip;
  conversion.format = options.format;
  conversion.instruction = options.instruction;
  conversion.mainloop = options.mainloop;
  conversion.fp8KMajor = options.fp8KMajor;
  conversion.fp8PromoteInterval = options.fp8PromoteInterval;
  conversion.fp8PromoteFprop = options.fp8PromoteFprop;
  conversion.stmatrixEpilogue = options.stmatrixEpilogue;
  conversion.splitK = options.splitK;
  conversion.smCount = options.smCount;
  conversion.blockM = options.blockM;
  conversion.blockN = options.blockN;
  conversion.blockK = options.blockK;
  conversion.warpM = options.warpM;
  conversion.warpN = options.warpN;
  conversion.stages = options.stages;
  conversion.fuseEpilogue = options.fuseEpilogue;
  conversion.ptxFeatures = options.ptxFeatures;
  conversion.deviceResident = options.deviceResident;
  pm.addPass(createConvertMPToNVVM(conversion));

  // The kernels to NVVM and LLVM first, so that the host lowering below
  // (math to libm, say) finds nothing left to do in them.
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());

  if (options.deviceResident) {
    // The rest of the step as GPU kernels on device buffers.
    buildDeviceResidentStep(pm, options);
  } else {
    // The rest of the functions, as on the CPU; then the launches.
    CPUPipelineOptions host;
    host.vectorize = options.hostVectorize;
    host.gridSize = options.gridSize;
    buildCPUPipeline(pm, host);
    pm.addPass(createGpuToLLVMConversionPass());
    pm.addPass(createReconcileUnrealizedCastsPass());
  }

  GpuModuleToBinaryPassOptions binary;
  switch (options.binaryFormat) {
  case GPUBinaryFormat::isa:
    binary.compilationTarget = "isa";
    break;
  case GPUBinaryFormat::bin:
    binary.compilationTarget = "bin";
    break;
  case GPUBinaryFormat::fatbin:
    binary.compilationTarget = "fatbin";
    break;
  }
  binary.toolkitPath = getCUDAToolkit(options.toolkit);
  pm.addPass(createGpuModuleToBinaryPass(binary));
}

/// Registers `builder` as the pipeline `argument`, as
/// PassPipelineRegistration does, except that an option that does not parse
/// is reported through the pipeline parser's error handler (so mp-opt shows
/// it as an error and the C API captures it) rather than on llvm::errs().
template <typename Options>
static void registerPipeline(StringRef argument, StringRef description,
                             void (*builder)(OpPassManager &,
                                             const Options &)) {
  registerPassPipeline(
      argument, description,
      [builder, argument = argument.str()](
          OpPassManager &pm, StringRef text,
          function_ref<LogicalResult(const Twine &)> errorHandler) {
        Options options;
        std::string message;
        llvm::raw_string_ostream stream(message);
        if (failed(options.parseFromString(text, stream))) {
          // A value that does not parse is reported by llvm::cl on stderr
          // only; say at least which options were rejected.
          StringRef reason = StringRef(message).trim();
          if (reason.empty())
            return errorHandler("invalid value in the options `" + text +
                                "` of " + argument);
          return errorHandler(reason);
        }
        builder(pm, options);
        return success();
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optionHandler) {
        optionHandler(Options());
      });
}

void mlir::mp::registerPipelines() {
  registerPipeline<MixedPrecisionPipelineOptions>(
      "mp-mixed-precision-pipeline",
      "Make an f32 mp train step mixed-precision: mp-autocast, "
      "mp-master-weights, mp-loss-scaling, mp-data-parallel (with "
      "data-parallel), mp-autodiff, mp-fp8-scaling (with fp8), canonicalize, "
      "cse",
      buildMixedPrecisionPipeline);
  registerPipeline<CPUPipelineOptions>(
      "mp-cpu-pipeline",
      "Lower mp train steps (after the mixed-precision passes) or linalg on "
      "tensors to the LLVM dialect for the CPU: convert-mp-to-linalg, "
      "tiling and vectorisation, one-shot bufferization with results as "
      "trailing out-parameters, C interfaces, LLVM",
      buildCPUPipeline);
  registerPipeline<GPUPipelineOptions>(
      "mp-gpu-pipeline",
      "Lower mp train steps (after the mixed-precision passes) for NVIDIA "
      "GPUs: matmul-likes to Tensor Core kernels (convert-mp-to-nvvm) "
      "compiled to PTX and cubin, everything else as mp-cpu-pipeline does",
      buildGPUPipeline);
}
