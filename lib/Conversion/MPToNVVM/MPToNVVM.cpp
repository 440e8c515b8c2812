//===- MPToNVVM.cpp - mp matmul-likes to Tensor Core kernels --------------===//
//
// `convert-mp-to-nvvm` replaces each mp.matmul, mp.batch_matmul and mp.linear
// of the module (with an mp.relu or mp.gelu that is the sole user of its
// result, when `fuse-epilogue` is set), and on sm_120a and sm_100a each
// mp.scaled_matmul (block-scaled mma.sync, block-scaled tcgen05.mma;
// elsewhere it stays for the CPU lowering, which emulates it exactly), by a
// Tensor Core GEMM kernel in
// `gpu.module @mp_tensor_core_kernels` and a call of that kernel's host
// launcher on the operands' buffers. Everything else in the functions stays
// as it is, on tensors, for the CPU lowering.
//
// It assumes the module's matmul-likes have static shapes (the dialect's
// verifier guarantees it) and formats Tensor Cores multiply after mp-autocast
// (f16, bf16, f32 with `compute tf32`, f8E4M3FN/f8E5M2 in any pairing, i8;
// FP8/FP6/FP4 with E8M0 or E4M3 block scales for mp.scaled_matmul) for sm_80,
// sm_86, sm_89, sm_90a, sm_100a or sm_120a.
// Every op is checked first: if one cannot be lowered (format, chip, tile or
// shape, or it is in a nested module), or a symbol the pass would create is
// taken, the pass reports each such op and changes nothing.
//
// The host side is deliberately plain tensor code (to_buffer, memref.alloc,
// llvm.call of an llvm.func, to_tensor) rather than gpu.alloc/memcpy ops:
// one-shot bufferization and ownership-based deallocation (mp-cpu-pipeline)
// reject gpu host ops, whose memory effects they do not know, while an
// llvm.func launcher is outside their scope.
//
//===----------------------------------------------------------------------===//

#include "mp/Conversion/MPToNVVM/MPToNVVM.h"
#include "mp/Conversion/Passes.h"

#include "TensorCoreKernels.h"

#include "mp/Dialect/MP/IR/MPDialect.h"
#include "mp/Dialect/MP/IR/MPOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Support/ScopedPrinter.h"

#include <set>

namespace mlir::mp {
#define GEN_PASS_DEF_CONVERTMPTONVVM
#include "mp/Conversion/Passes.h.inc"
} // namespace mlir::mp

using namespace mlir;
using namespace mlir::mp;

namespace {

/// One matmul-like op and the kernel call that replaces it.
struct MatmulLowering {
  Operation *op = nullptr;
  /// The mp.relu/mp.gelu fused into the epilogue, if any.
  Operation *activation = nullptr;
  /// Operands as analysed; rewrite() reads them from `op` again (operands 0,
  /// 1 and 2) because earlier rewrites can replace them.
  Value lhs, rhs, bias;
  int64_t batch = 1, m = 0, n = 0, k = 0;
  /// K splits (spec.splitK when above 1).
  int64_t splits = 1;
  TensorCoreKernelSpec spec;
};

struct ConvertMPToNVVMPass
    : public mlir::mp::impl::ConvertMPToNVVMBase<ConvertMPToNVVMPass> {
  using Base::Base;
  void runOnOperation() override;

private:
  /// Maps `op` onto a kernel, or reports why it cannot be and fails.
  FailureOr<MatmulLowering> analyze(Operation *op);
  /// Replaces the op of `lowering` by a call of its kernel's launcher.
  void rewrite(const MatmulLowering &lowering, gpu::GPUModuleOp kernels);

  /// The FP8 GEMMs of the backward (dgrad, wgrad), found before the K-major
  /// rewrite changes their layouts: their wgmma accumulator is promoted.
  llvm::DenseSet<Operation *> fp8BackwardOps;
};

} // namespace

/// Returns the Tensor Core format of an operand element type, if any; f32 is
/// tf32 only with `compute tf32` (or when `tf32Allowed`).
static std::optional<TensorCoreFormat> getOperandFormat(Type element,
                                                        bool tf32Allowed) {
  if (element.isF16())
    return TensorCoreFormat::f16;
  if (element.isBF16())
    return TensorCoreFormat::bf16;
  if (element.isF32() && tf32Allowed)
    return TensorCoreFormat::tf32;
  if (isa<Float8E4M3FNType>(element))
    return TensorCoreFormat::e4m3;
  if (isa<Float8E5M2Type>(element))
    return TensorCoreFormat::e5m2;
  if (element.isInteger(8))
    return TensorCoreFormat::s8;
  if (isa<Float6E2M3FNType>(element))
    return TensorCoreFormat::e2m3;
  if (isa<Float6E3M2FNType>(element))
    return TensorCoreFormat::e3m2;
  if (isa<Float4E2M1FNType>(element))
    return TensorCoreFormat::e2m1;
  return std::nullopt;
}

/// Whether `format` is FP6 or FP4, which only block-scaled MMAs multiply.
static bool isSubByteFormat(TensorCoreFormat format) {
  return format == TensorCoreFormat::e2m3 || format == TensorCoreFormat::e3m2 ||
         format == TensorCoreFormat::e2m1;
}

/// Spells the formats of A and B for diagnostics: `bf16`, `e4m3 x e5m2`.
static std::string describeFormats(TensorCoreFormat lhs, TensorCoreFormat rhs) {
  if (lhs == rhs)
    return stringifyTensorCoreFormat(lhs).str();
  return (stringifyTensorCoreFormat(lhs) + " x " +
          stringifyTensorCoreFormat(rhs))
      .str();
}

/// Chooses the block-scaled MMA for `op` (whose operand formats and layouts
/// `spec` holds): mma.sync on sm_120a, tcgen05.mma on sm_100a; records its
/// scale layout in `spec`; on failure returns the reason.
static std::optional<std::string>
selectBlockScaledMma(ScaledMatmulOp op, TensorCoreKernelSpec &spec) {
  bool tcgen05 = spec.chip == TensorCoreChip::sm100a;
  std::string instruction = tcgen05 ? "tcgen05.mma" : "mma.sync";
  if (!spec.lhsKContiguous || !spec.rhsKContiguous)
    return "block-scaled " + instruction +
           " reads A as M x K and B as N x K (K-contiguous, transpose_rhs), "
           "and " +
           (spec.lhsKContiguous ? "transpose_rhs is not set"
                                : "transpose_lhs is set");
  auto lhs = op.getLhs().getType(), lhsScales = op.getLhsScales().getType();
  auto rhs = op.getRhs().getType(), rhsScales = op.getRhsScales().getType();
  Type scaleType = lhsScales.getElementType();
  // K is dimension 1 of both operands here.
  int64_t blockK = lhs.getDimSize(1) / lhsScales.getDimSize(1);
  spec.scaleBlockK = blockK;
  spec.lhsScaleRows = lhs.getDimSize(0) / lhsScales.getDimSize(0);
  spec.rhsScaleRows = rhs.getDimSize(0) / rhsScales.getDimSize(0);
  bool fp4 = spec.lhsFormat == TensorCoreFormat::e2m1 &&
             spec.rhsFormat == TensorCoreFormat::e2m1;
  if (isa<Float8E8M0FNUType>(scaleType) && blockK == 32) {
    // FP4 x FP4 is kind::mxf4 (packed); every other pairing kind::mxf8f6f4,
    // whose FP6 and FP4 operands tcgen05 reads from shared memory in 16-byte
    // padded chunks (Tcgen05Kernel.cpp) and mma.sync in 8-bit containers.
    spec.blockScale = fp4 ? BlockScaleKind::mxf4 : BlockScaleKind::mxf8f6f4;
    return std::nullopt;
  }
  if (isa<Float8E4M3FNType>(scaleType) && blockK == 16 && fp4) {
    spec.blockScale = BlockScaleKind::mxf4nvf4;
    spec.scalesE4M3 = true;
    return std::nullopt;
  }
  return "block-scaled " + instruction +
         " multiplies blocks of 32 with E8M0 scales (kind::mxf8f6f4, "
         "kind::mxf4) or FP4 blocks of 16 with E4M3 scales (kind::mxf4nvf4), "
         "not blocks of " +
         std::to_string(blockK) + " with " + llvm::to_string(scaleType) +
         " scales";
}

FailureOr<MatmulLowering> ConvertMPToNVVMPass::analyze(Operation *op) {
  MatmulLowering lowering;
  lowering.op = op;
  TensorCoreKernelSpec &spec = lowering.spec;
  spec.chip = chip;
  bool tf32Compute = false;
  Type accType;
  auto shapeOf = [](Value value) {
    return cast<RankedTensorType>(value.getType()).getShape();
  };
  auto product = [](ArrayRef<int64_t> dims) {
    int64_t result = 1;
    for (int64_t dim : dims)
      result *= dim;
    return result;
  };
  if (auto linear = dyn_cast<LinearOp>(op)) {
    lowering.lhs = linear.getInput();
    lowering.rhs = linear.getWeight();
    lowering.bias = linear.getBias();
    accType = linear.getAccType();
    ArrayRef<int64_t> input = shapeOf(lowering.lhs);
    lowering.m = product(input.drop_back());
    lowering.k = input.back();
    lowering.n = shapeOf(lowering.rhs).front();
    spec.lhsKContiguous = true;
    spec.rhsKContiguous = true; // weight is [out, in]
  } else {
    auto matmulLike = [&](auto matmul) {
      lowering.lhs = matmul.getLhs();
      lowering.rhs = matmul.getRhs();
      accType = matmul.getAccType();
      if constexpr (!std::is_same_v<decltype(matmul), ScaledMatmulOp>)
        tf32Compute = matmul.getCompute() == ComputeMode::tf32;
      ArrayRef<int64_t> lhsShape = shapeOf(lowering.lhs);
      ArrayRef<int64_t> rhsShape = shapeOf(lowering.rhs);
      int64_t rank = lhsShape.size();
      lowering.batch = product(lhsShape.drop_back(2));
      bool transposeLhs = matmul.getTransposeLhs();
      bool transposeRhs = matmul.getTransposeRhs();
      lowering.m = lhsShape[rank - (transposeLhs ? 1 : 2)];
      lowering.k = lhsShape[rank - (transposeLhs ? 2 : 1)];
      lowering.n = rhsShape[rank - (transposeRhs ? 2 : 1)];
      spec.lhsKContiguous = !transposeLhs;
      spec.rhsKContiguous = transposeRhs;
    };
    if (auto matmul = dyn_cast<MatmulOp>(op))
      matmulLike(matmul);
    else if (auto batchMatmul = dyn_cast<BatchMatmulOp>(op))
      matmulLike(batchMatmul);
    else
      matmulLike(cast<ScaledMatmulOp>(op));
  }

  // Formats.
  Type lhsElement = getElementTypeOrSelf(lowering.lhs.getType());
  Type rhsElement = getElementTypeOrSelf(lowering.rhs.getType());
  bool tf32Allowed = tf32Compute || format == TensorCoreFormat::tf32;
  std::optional<TensorCoreFormat> lhsFormat =
      getOperandFormat(lhsElement, tf32Allowed);
  std::optional<TensorCoreFormat> rhsFormat =
      getOperandFormat(rhsElement, tf32Allowed);
  StringRef chipName = stringifyTensorCoreChip(chip);
  if (!lhsFormat || !rhsFormat) {
    op->emitOpError() << "cannot be lowered to " << chipName
                      << " Tensor Cores (format " << llvm::to_string(lhsElement)
                      << "): f32 operands need `compute tf32` on the op (or "
                         "format=tf32, which opts in to TF32 rounding); no "
                         "Tensor Core instruction multiplies IEEE f32";
    return failure();
  }
  std::string formats = describeFormats(*lhsFormat, *rhsFormat);
  auto error = [&]() {
    return op->emitOpError() << "cannot be lowered to " << chipName
                             << " Tensor Cores (format " << formats << "): ";
  };
  if (format != TensorCoreFormat::automatic &&
      (*lhsFormat != format || *rhsFormat != format)) {
    error() << "its operands do not have the requested format "
            << stringifyTensorCoreFormat(format);
    return failure();
  }
  spec.lhsFormat = *lhsFormat;
  spec.rhsFormat = *rhsFormat;
  auto scaled = dyn_cast<ScaledMatmulOp>(op);
  if (scaled && chip == TensorCoreChip::sm100a &&
      instruction == TensorCoreInstruction::mmaSync) {
    // LLVM 22 aborts instruction selection on nvvm.mma.block_scale for
    // sm_100a.
    error() << "block-scaled mma.sync exists on sm_120a only; sm_100a "
               "multiplies block-scaled operands with tcgen05.mma (use "
               "instruction=tcgen05 or auto)";
    return failure();
  }
  if (scaled) {
    if (std::optional<std::string> reason =
            selectBlockScaledMma(scaled, spec)) {
      error() << *reason;
      return failure();
    }
  } else if (isSubByteFormat(spec.lhsFormat) ||
             isSubByteFormat(spec.rhsFormat)) {
    error() << "FP6 and FP4 operands are multiplied by block-scaled MMAs "
               "only (mp.scaled_matmul)";
    return failure();
  }
  if (spec.usesFP8() &&
      (chip == TensorCoreChip::sm80 || chip == TensorCoreChip::sm86)) {
    error() << "FP8 Tensor Core instructions need sm_89, sm_90a, sm_100a or "
               "sm_120a";
    return failure();
  }

  // Accumulator, result and epilogue.
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  spec.accType = accType;
  spec.resultType = resultType.getElementType();
  if (!spec.resultType.isF32() && !spec.resultType.isF16() &&
      !spec.resultType.isBF16() && !spec.resultType.isInteger(32)) {
    error() << "the epilogue stores f32, f16, bf16 or i32 results, not "
            << llvm::to_string(spec.resultType);
    return failure();
  }
  spec.hasBias = static_cast<bool>(lowering.bias);
  Value result = op->getResult(0);
  if (fuseEpilogue && result.hasOneUse()) {
    Operation *user = *result.getUsers().begin();
    if (isa<ReluOp>(user)) {
      spec.activation = EpilogueActivation::relu;
      lowering.activation = user;
    } else if (auto gelu = dyn_cast<GeluOp>(user)) {
      spec.activation = gelu.getApproximate() == GeluApproximation::tanh
                            ? EpilogueActivation::geluTanh
                            : EpilogueActivation::geluErf;
      lowering.activation = user;
    }
  }

  // Instruction family.
  if (instruction == TensorCoreInstruction::wgmma &&
      chip != TensorCoreChip::sm90a) {
    error() << "wgmma needs sm_90a";
    return failure();
  }
  if (instruction == TensorCoreInstruction::tcgen05 &&
      chip != TensorCoreChip::sm100a) {
    error() << "tcgen05 needs sm_100a";
    return failure();
  }
  if (chip == TensorCoreChip::sm100a &&
      instruction != TensorCoreInstruction::mmaSync) {
    // tcgen05 reads the operands as wgmma does and accumulates in f32 or
    // s32; f16 accumulation (`acc(f16)`) stays on mma.sync.
    bool readable = canWgmmaReadOperands(spec);
    spec.useTcgen05 = readable && !spec.accType.isF16();
    if (!spec.useTcgen05 && instruction == TensorCoreInstruction::tcgen05) {
      if (!readable)
        error() << "tcgen05 reads " << formats << " operands only K-major, and "
                << (spec.lhsKContiguous ? "B is N-contiguous"
                                        : "A is M-contiguous")
                << " here (use instruction=mma-sync or auto)";
      else
        error() << "tcgen05 accumulates in f32 or i32 here, not f16 (use "
                   "instruction=mma-sync or auto)";
      return failure();
    }
  }
  if (chip == TensorCoreChip::sm90a &&
      instruction != TensorCoreInstruction::mmaSync) {
    spec.useWgmma = canWgmmaReadOperands(spec);
    if (!spec.useWgmma && instruction == TensorCoreInstruction::wgmma) {
      error() << "wgmma reads " << formats << " operands only K-major, and "
              << (spec.lhsKContiguous ? "B is N-contiguous"
                                      : "A is M-contiguous")
              << " here (use instruction=mma-sync or auto)";
      return failure();
    }
  }

  // FP8 accumulation promoted to f32 (wgmma only: Hopper's Tensor Cores
  // accumulate FP8 products with fewer bits than f32; Transformer Engine's
  // split accumulator, on for dgrad and wgrad).
  if (fp8PromoteInterval < 0) {
    error() << "fp8-promote-interval must be 0 (off) or positive, got "
            << static_cast<int64_t>(fp8PromoteInterval);
    return failure();
  }
  if (spec.useWgmma && spec.usesFP8() &&
      (fp8PromoteFprop || fp8BackwardOps.contains(op)))
    spec.fp8PromoteInterval = fp8PromoteInterval;

  // The stmatrix epilogue: 16-bit results of an f32 wgmma accumulator (the
  // tile checks may still turn it off).
  spec.useStmatrixEpilogue =
      stmatrixEpilogue && spec.useWgmma && spec.accType.isF32() &&
      (spec.resultType.isF16() || spec.resultType.isBF16());

  // Rows of operands whose contiguous dimension spans a multiple of 16 bytes
  // start 16-byte aligned: they are copied with 16-byte cp.async.
  auto rowsAligned = [](int64_t contiguousSize, TensorCoreFormat format) {
    return contiguousSize * getFormatByteWidth(format) % 16 == 0;
  };
  spec.lhsRowsAligned = rowsAligned(
      spec.lhsKContiguous ? lowering.k : lowering.m, spec.lhsFormat);
  spec.rhsRowsAligned = rowsAligned(
      spec.rhsKContiguous ? lowering.k : lowering.n, spec.rhsFormat);

  // Main loop of the wgmma kernels. TMA needs 16-byte aligned global strides
  // (rows); tf32 slices are rounded in shared memory by the threads that
  // copied them, which TMA has none of.
  if (mainloop == TensorCoreMainloop::tmaWarpSpecialized && !spec.useWgmma &&
      !spec.useTcgen05) {
    error() << "mainloop=tma-warp-specialized needs wgmma (sm_90a) or tcgen05 "
               "(sm_100a) and operands they read";
    return failure();
  }
  // tcgen05 kernels round tf32 slices in shared memory after the TMA load
  // (Tcgen05Kernel.cpp); the warp-specialized wgmma kernel has no threads
  // for that.
  if ((spec.useWgmma || spec.useTcgen05) &&
      mainloop != TensorCoreMainloop::cpAsync) {
    bool tf32 = spec.lhsFormat == TensorCoreFormat::tf32 && spec.useWgmma;
    spec.useTma = !tf32 && spec.lhsRowsAligned && spec.rhsRowsAligned;
    if (!spec.useTma && mainloop == TensorCoreMainloop::tmaWarpSpecialized) {
      if (tf32)
        error() << "mainloop=tma-warp-specialized does not take tf32 "
                   "operands (they are rounded in shared memory; use "
                   "mainloop=cp-async or auto)";
      else
        error() << "mainloop=tma-warp-specialized needs rows of A and B "
                   "that span a multiple of 16 bytes (TMA strides), and "
                << (spec.lhsRowsAligned ? "B" : "A")
                << "'s do not here (use mainloop=cp-async or auto)";
      return failure();
    }
  }

  // Tiles.
  spec.blockM = blockM;
  spec.blockN = blockN;
  spec.blockK = blockK;
  spec.warpM = warpM;
  spec.warpN = warpN;
  spec.stages = stages;
  std::string reason;
  if (!completeTensorCoreKernelSpec(spec, reason)) {
    error() << "cannot be tiled: " << reason;
    return failure();
  }

  constexpr int64_t maxGridDim = 65535;
  int64_t int32Max = std::numeric_limits<int32_t>::max();
  if (lowering.m > int32Max || lowering.n > int32Max || lowering.k > int32Max) {
    error() << "cannot be tiled: M, N and K must fit in 32 bits";
    return failure();
  }
  if (lowering.batch > maxGridDim ||
      llvm::divideCeil(lowering.m, spec.blockM) > maxGridDim) {
    error() << "cannot be tiled: the grid (batch " << lowering.batch << ", "
            << llvm::divideCeil(lowering.m, spec.blockM)
            << " row blocks) exceeds 65535 blocks in y or z";
    return failure();
  }

  // Split-K: S parts of K into a workspace, summed in order by a reduction
  // kernel. The split count depends on the shape, not the kernel: S is a
  // launcher operand.
  int64_t kSlices = llvm::divideCeil(lowering.k, spec.blockK);
  int64_t requested = 0; // auto
  if (StringRef(splitK) != "auto" &&
      (StringRef(splitK).getAsInteger(10, requested) || requested < 1)) {
    error() << "split-k must be auto or a positive number of K splits, got '"
            << splitK << "'";
    return failure();
  }
  if (smCount < 0) {
    error() << "sm-count must be 0 (the chip's) or positive, got "
            << static_cast<int64_t>(smCount);
    return failure();
  }
  std::string splitReason;
  bool splittable = canSplitK(spec, splitReason);
  if (requested > 1 && !splittable) {
    error() << "split-k=" << requested << ": " << splitReason
            << " (use split-k=1 or auto)";
    return failure();
  }
  if (splittable) {
    int64_t tiles = llvm::divideCeil(lowering.m, spec.blockM) *
                    llvm::divideCeil(lowering.n, spec.blockN) * lowering.batch;
    lowering.splits =
        requested ? normalizeSplitK(requested, kSlices)
                  : chooseSplitK(tiles, kSlices,
                                 smCount ? smCount : getDefaultSMCount(chip));
  }
  if (lowering.batch * lowering.splits > maxGridDim) {
    error() << "cannot be tiled: the grid (batch " << lowering.batch << " x "
            << lowering.splits
            << " K splits) exceeds 65535 blocks in z (lower split-k)";
    return failure();
  }
  spec.splitK = lowering.splits > 1;
  return lowering;
}

/// Returns `buffer`'s aligned base pointer as an `!llvm.ptr`.
static Value getBufferPointer(OpBuilder &builder, Location loc, Value buffer) {
  Value index =
      memref::ExtractAlignedPointerAsIndexOp::create(builder, loc, buffer);
  Value integer =
      arith::IndexCastOp::create(builder, loc, builder.getI64Type(), index);
  return LLVM::IntToPtrOp::create(
      builder, loc, LLVM::LLVMPointerType::get(builder.getContext()), integer);
}

void ConvertMPToNVVMPass::rewrite(const MatmulLowering &lowering,
                                  gpu::GPUModuleOp kernels) {
  const TensorCoreKernelSpec &spec = lowering.spec;
  ModuleOp module = getOperation();
  OpBuilder builder(module.getContext());
  // Split-K: the partial kernel, the reduction kernel, one launcher for both.
  TensorCoreKernelSpec kernelSpec =
      spec.splitK ? getSplitKPartialSpec(spec) : spec;
  std::string kernelName = kernelSpec.kernelName();
  auto kernel = kernels.lookupSymbol<gpu::GPUFuncOp>(kernelName);
  if (!kernel)
    kernel = buildTensorCoreKernel(builder, kernels, kernelSpec);
  gpu::GPUFuncOp reduction;
  if (spec.splitK)
    reduction = buildSplitKReductionKernel(builder, kernels, spec);
  auto launcher =
      module.lookupSymbol<LLVM::LLVMFuncOp>(spec.kernelName() + "_launch");
  if (!launcher)
    launcher = buildTensorCoreLauncher(builder, module, kernel, spec,
                                       deviceResident, reduction);

  Operation *op = lowering.op;
  Location loc = op->getLoc();
  builder.setInsertionPoint(op);
  auto bufferOf = [&](Value tensor) {
    auto type = cast<RankedTensorType>(tensor.getType());
    Value buffer = bufferization::ToBufferOp::create(
        builder, loc, MemRefType::get(type.getShape(), type.getElementType()),
        tensor, /*read_only=*/true);
    return getBufferPointer(builder, loc, buffer);
  };
  // Read the operands from the op now: an earlier rewrite may have replaced
  // them (a fused activation feeding this op is erased with its producer).
  // mp.scaled_matmul: (lhs, lhs_scales, rhs, rhs_scales); the kernel takes
  // A, B, C, then the scales of A and B.
  bool scaled = spec.isBlockScaled();
  SmallVector<Value> args = {bufferOf(op->getOperand(0)),
                             bufferOf(op->getOperand(scaled ? 2 : 1))};
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Value resultBuffer = memref::AllocOp::create(
      builder, loc,
      MemRefType::get(resultType.getShape(), resultType.getElementType()),
      builder.getI64IntegerAttr(64));
  args.push_back(getBufferPointer(builder, loc, resultBuffer));
  if (lowering.bias)
    args.push_back(bufferOf(op->getOperand(2)));
  if (scaled) {
    args.push_back(bufferOf(op->getOperand(1)));
    args.push_back(bufferOf(op->getOperand(3)));
  }
  for (int64_t size : {lowering.batch, lowering.m, lowering.n, lowering.k})
    args.push_back(arith::ConstantIntOp::create(builder, loc, size, 64));
  if (spec.splitK) {
    args.push_back(
        arith::ConstantIntOp::create(builder, loc, lowering.splits, 64));
    // Device-resident: the workspace is a buffer of the step (a gpu.alloc on
    // its stream after mp-device-buffers, from the runtime's caching
    // allocator), freed by the deallocation pipeline after the call.
    if (deviceResident) {
      Value workspace = memref::AllocOp::create(
          builder, loc,
          MemRefType::get({lowering.batch * lowering.splits * lowering.m *
                           lowering.n},
                          spec.accType),
          builder.getI64IntegerAttr(256));
      args.push_back(getBufferPointer(builder, loc, workspace));
    }
  }
  // Device-resident: the stream operand is a placeholder until
  // mp-gpu-pipeline puts the step on one stream
  // (MPDialect::kDeviceStreamAttrName).
  if (deviceResident)
    args.push_back(LLVM::ZeroOp::create(
        builder, loc, LLVM::LLVMPointerType::get(builder.getContext())));
  auto call = LLVM::CallOp::create(builder, loc, launcher, args);
  if (deviceResident)
    call->setAttr(MPDialect::kDeviceStreamAttrName, builder.getUnitAttr());
  if (spec.splitK)
    call->setAttr(kSplitKAttrName, builder.getI64IntegerAttr(lowering.splits));
  Value result = bufferization::ToTensorOp::create(
      builder, loc, resultType, resultBuffer, /*restrict=*/true,
      /*writable=*/true);

  if (Operation *activation = lowering.activation) {
    activation->getResult(0).replaceAllUsesWith(result);
    activation->erase();
  }
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
}

void ConvertMPToNVVMPass::runOnOperation() {
  ModuleOp module = getOperation();
  // The backward GEMMs of FP8 layers, as the graph has them: dX = dY · W
  // reads B N-contiguous, dW = dYᵀ · X reads A M-contiguous (the forward
  // X · Wᵀ reads both K-major), and gradients are E5M2 in the hybrid format.
  fp8BackwardOps.clear();
  module.walk([&](Operation *op) {
    auto classify = [&](auto matmul) {
      auto isFP8 = [](Value value) {
        return isa<Float8E4M3FNType, Float8E5M2Type>(
            getElementTypeOrSelf(value.getType()));
      };
      auto isE5M2 = [](Value value) {
        return isa<Float8E5M2Type>(getElementTypeOrSelf(value.getType()));
      };
      Value lhs = matmul.getLhs(), rhs = matmul.getRhs();
      if ((isFP8(lhs) || isFP8(rhs)) &&
          (matmul.getTransposeLhs() || !matmul.getTransposeRhs() ||
           isE5M2(lhs) || isE5M2(rhs)))
        fp8BackwardOps.insert(op);
    };
    if (auto matmul = dyn_cast<MatmulOp>(op))
      classify(matmul);
    else if (auto batchMatmul = dyn_cast<BatchMatmulOp>(op))
      classify(batchMatmul);
  });
  // wgmma and tcgen05 read FP8 operands only K-major.
  if (fp8KMajor &&
      (chip == TensorCoreChip::sm90a || chip == TensorCoreChip::sm100a) &&
      instruction != TensorCoreInstruction::mmaSync)
    makeFP8OperandsKMajor(module);
  SmallVector<Operation *> ops;
  // Ops with an empty result stay for the CPU lowering: there is nothing to
  // launch (and a grid cannot be empty).
  // mp.scaled_matmul: sm_120a has a block-scaled mma.sync, sm_100a a
  // block-scaled tcgen05.mma (elsewhere it stays for the CPU lowering, which
  // emulates it exactly).
  bool blockScaledMma =
      chip == TensorCoreChip::sm120a || chip == TensorCoreChip::sm100a;
  module.walk([&](Operation *op) {
    if ((isa<MatmulOp, BatchMatmulOp, LinearOp>(op) ||
         (blockScaledMma && isa<ScaledMatmulOp>(op))) &&
        cast<RankedTensorType>(op->getResult(0).getType()).getNumElements())
      ops.push_back(op);
  });
  if (ops.empty())
    return;

  // Check everything before changing anything.
  SmallVector<MatmulLowering> lowerings;
  bool failed = false;
  for (Operation *op : ops) {
    // The launchers and kernels are symbols of the module the pass runs on:
    // a call from a nested symbol table (a nested module, a gpu.module)
    // could not reference them.
    if (SymbolTable::getNearestSymbolTable(op->getParentOp()) != module) {
      op->emitOpError() << "convert-mp-to-nvvm lowers the matmuls of the "
                           "module it runs on, not those of a nested symbol "
                           "table (run it on that module)";
      failed = true;
      continue;
    }
    FailureOr<MatmulLowering> lowering = analyze(op);
    if (::mlir::failed(lowering))
      failed = true;
    else
      lowerings.push_back(*lowering);
  }
  // The symbols the pass creates must be free, and the runtime wrappers it
  // declares, if declared already, of the right type.
  constexpr StringLiteral kernelsName = "mp_tensor_core_kernels";
  std::set<std::string> createdSymbols = {kernelsName.str()};
  for (const MatmulLowering &lowering : lowerings)
    createdSymbols.insert(lowering.spec.kernelName() + "_launch");
  for (const std::string &name : createdSymbols) {
    if (Operation *existing = module.lookupSymbol(name)) {
      existing->emitOpError()
          << "convert-mp-to-nvvm: symbol '@" << name
          << "' is already defined; the pass creates it (run the pass once, "
             "before anything else defines it)";
      failed = true;
    }
  }
  if (::mlir::failed(checkTensorCoreRuntimeSymbols(module)))
    failed = true;
  if (failed)
    return signalPassFailure();

  MLIRContext *context = &getContext();
  OpBuilder builder(context);
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  builder.getUnitAttr());
  auto kernels = module.lookupSymbol<gpu::GPUModuleOp>(kernelsName);
  if (!kernels) {
    builder.setInsertionPointToEnd(module.getBody());
    kernels = gpu::GPUModuleOp::create(builder, module.getLoc(), kernelsName);
  }
  bool fp8MmaSync = llvm::any_of(lowerings, [](const MatmulLowering &lowering) {
    return lowering.spec.usesFP8() && !lowering.spec.useWgmma &&
           !lowering.spec.useTcgen05;
  });
  bool blockScaledTcgen05 =
      llvm::any_of(lowerings, [](const MatmulLowering &lowering) {
        return lowering.spec.useTcgen05 && lowering.spec.isBlockScaled();
      });
  std::string features =
      ptxFeatures.empty()
          ? getRequiredPTXFeature(chip, fp8MmaSync, blockScaledTcgen05).str()
          : std::string(ptxFeatures);
  kernels.setTargetsAttr(builder.getArrayAttr(
      {NVVM::NVVMTargetAttr::get(context, /*optLevel=*/3, "nvptx64-nvidia-cuda",
                                 stringifyTensorCoreChip(chip), features)}));

  for (const MatmulLowering &lowering : lowerings)
    rewrite(lowering, kernels);
}
