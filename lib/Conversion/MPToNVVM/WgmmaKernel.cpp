//===- WgmmaKernel.cpp - Warpgroup-level wgmma GEMM main loop -------------===//
//
// The main loop and epilogue of the sm_90a kernels. Warpgroup w (128
// threads) owns rows 64w .. 64w + 63 of the block tile and all block-n
// columns: one `wgmma.mma_async.m64n<block-n>k<16|8|32>` per 32 bytes of a K
// slice's rows, reading A and B from the shared-memory stage through matrix
// descriptors. The accumulator (block-n / 2 registers per thread) is carried
// through the K loop as one LLVM struct.
//
// Shared-memory layout (written by the copies in TensorCoreKernels.cpp): each
// operand tile is a stack of 128-byte columns of `rows` rows, with the
// 128-byte swizzle (16-byte chunk c of row r stored at chunk c ^ (r % 8)),
// and the tiles start on 1024-byte boundaries. In the terms of the PTX ISA
// ("Shared Memory Matrix Layout", canonical layouts with Swizzle<3,4,3>):
//   - K-major (rows are M or N, 128 bytes of K per row): 8-row groups are
//     1024 bytes apart (stride byte offset); the leading byte offset is
//     unused; a K step of 32 bytes advances the start address by 32 bytes
//     within the swizzle atom, and 128 bytes of K further by a whole column
//     (`rows` × 128 bytes).
//   - MN-major (16-bit only; rows are K, 64 elements of M or N per column):
//     8-row (K) groups are 1024 bytes apart (stride byte offset) and columns
//     of 64 elements are `rows` × 128 bytes apart (leading byte offset); a K
//     step of 16 rows advances by 2048 bytes.
// The descriptor is (address & 0x3FFFF) >> 4 | LBO >> 4 << 16 | SBO >> 4 << 32
// | 1 << 62 (128-byte swizzle), with a base offset of 0 (1024-byte aligned
// tiles).
//
// Each K slice: wait for its cp.async group, round TF32 slices in place
// (cvt.rna.tf32.f32 on the chunks this thread copied), `fence.proxy.async`
// (make the copies visible to the async proxy wgmma reads through), barrier,
// `wgmma.fence`, the wgmma instructions, `commit_group`, `wait_group 0`.
//
//===----------------------------------------------------------------------===//

#include "KernelCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::mp;

/// The wgmma type of an operand format.
static NVVM::WGMMATypes getWgmmaType(TensorCoreFormat format) {
  switch (format) {
  case TensorCoreFormat::f16:
    return NVVM::WGMMATypes::f16;
  case TensorCoreFormat::bf16:
    return NVVM::WGMMATypes::bf16;
  case TensorCoreFormat::tf32:
    return NVVM::WGMMATypes::tf32;
  case TensorCoreFormat::e4m3:
    return NVVM::WGMMATypes::e4m3;
  case TensorCoreFormat::e5m2:
    return NVVM::WGMMATypes::e5m2;
  case TensorCoreFormat::s8:
    return NVVM::WGMMATypes::s8;
  case TensorCoreFormat::e2m3: // block-scaled mma.sync only
  case TensorCoreFormat::e3m2:
  case TensorCoreFormat::e2m1:
  case TensorCoreFormat::automatic:
    break;
  }
  llvm_unreachable("format not resolved");
}

int64_t mlir::mp::getMatrixDescriptorFields(const SharedTileGeometry &tile,
                                            bool kContiguous, bool tcgen05) {
  int64_t leadingByteOffset = kContiguous ? 16 : tile.rows * 128;
  int64_t strideByteOffset = 1024;
  // wgmma: 128-byte swizzle = 1 in bits 62-63. tcgen05: the fixed version
  // 0b001 in bits 46-48, 128-byte swizzle = 2 in bits 61-63.
  int64_t mode =
      tcgen05 ? int64_t(1) << 46 | int64_t(2) << 61 : int64_t(1) << 62;
  return (leadingByteOffset >> 4) << 16 | (strideByteOffset >> 4) << 32 | mode;
}

Value mlir::mp::emitMatrixDescriptor(DeviceCodeBuilder &dc, Value address,
                                     int64_t fields) {
  Value integer = LLVM::PtrToIntOp::create(dc.b, dc.loc, dc.i64, address);
  Value encoded = arith::ShRUIOp::create(
      dc.b, dc.loc, dc.bitAnd(integer, dc.constI64(0x3FFFF)), dc.constI64(4));
  return dc.bitOr(encoded, dc.constI64(fields));
}

int64_t mlir::mp::getKStepOffset(const SharedTileGeometry &tile,
                                 bool kContiguous, int64_t kStep) {
  if (!kContiguous)
    return kStep * 16 * 128;
  int64_t kByte = kStep * 32;
  return (kByte / 128) * tile.rows * 128 + kByte % 128;
}

void mlir::mp::roundOwnedChunksToTF32(DeviceCodeBuilder &dc,
                                      const KernelState &state, bool lhs,
                                      Value tileBase, Value kTile) {
  auto vectorType = VectorType::get({4}, dc.i32);
  forEachOwnedChunk(
      dc, state, lhs, kTile, [&](Value sharedOffset, Value, Value) {
        Value address = dc.offset(tileBase, sharedOffset);
        Value words =
            LLVM::LoadOp::create(dc.b, dc.loc, vectorType, address, 16);
        for (int64_t i = 0; i < 4; ++i) {
          Value index = dc.constI32(i);
          Value word =
              LLVM::ExtractElementOp::create(dc.b, dc.loc, words, index);
          Value rounded = NVVM::ConvertFloatToTF32Op::create(
              dc.b, dc.loc, dc.i32,
              arith::BitcastOp::create(dc.b, dc.loc, dc.f32, word),
              NVVM::FPRoundingMode::RNA);
          words = LLVM::InsertElementOp::create(dc.b, dc.loc, words, rounded,
                                                index);
        }
        LLVM::StoreOp::create(dc.b, dc.loc, words, address, 16);
      });
}

Type mlir::mp::getWgmmaAccumulatorType(DeviceCodeBuilder &dc,
                                       const TensorCoreKernelSpec &spec) {
  // block-n / 2 f32 or s32 registers, or block-n / 4 f16x2.
  bool accumulateF16 = spec.accType.isF16();
  Type element = accumulateF16 ? Type(VectorType::get({2}, dc.b.getF16Type()))
                               : spec.accType;
  int64_t numValues = spec.blockN / (accumulateF16 ? 4 : 2);
  return LLVM::LLVMStructType::getLiteral(
      dc.b.getContext(), SmallVector<Type>(numValues, element));
}

Value mlir::mp::issueWgmmaSlice(DeviceCodeBuilder &dc, const KernelState &state,
                                Value aStage, Value bStage,
                                Value accumulator) {
  const TensorCoreKernelSpec &spec = state.spec;
  MLIRContext *context = dc.b.getContext();
  int64_t elementBytes = getFormatByteWidth(spec.lhsFormat);
  int64_t kSteps = spec.blockK * elementBytes / 32;
  int64_t instructionK = 32 / elementBytes;
  NVVM::WGMMATypes accumulatorKind = spec.accType.isF16()
                                         ? NVVM::WGMMATypes::f16
                                     : spec.accType.isInteger()
                                         ? NVVM::WGMMATypes::s32
                                         : NVVM::WGMMATypes::f32;
  NVVM::WgmmaFenceAlignedOp::create(dc.b, dc.loc);
  // Warpgroup w reads A from row 64w (K-major) or column block w (M-major).
  Value warpgroup = dc.div(state.threadId, 128);
  Value lhsWarpgroupOffset = dc.mul(
      warpgroup, spec.lhsKContiguous ? 64 * 128 : state.lhsTile.rows * 128);
  int64_t lhsFields = getMatrixDescriptorFields(
      state.lhsTile, spec.lhsKContiguous, /*tcgen05=*/false);
  int64_t rhsFields = getMatrixDescriptorFields(
      state.rhsTile, spec.rhsKContiguous, /*tcgen05=*/false);

  Value aWarpgroup = dc.offset(aStage, lhsWarpgroupOffset);
  for (int64_t kStep = 0; kStep < kSteps; ++kStep) {
    Value aDescriptor = emitMatrixDescriptor(
        dc,
        dc.offset(aWarpgroup,
                  getKStepOffset(state.lhsTile, spec.lhsKContiguous, kStep)),
        lhsFields);
    Value bDescriptor = emitMatrixDescriptor(
        dc,
        dc.offset(bStage,
                  getKStepOffset(state.rhsTile, spec.rhsKContiguous, kStep)),
        rhsFields);
    accumulator = NVVM::WgmmaMmaAsyncOp::create(
        dc.b, dc.loc, accumulator.getType(), accumulator, aDescriptor,
        bDescriptor,
        NVVM::MMAShapeAttr::get(context, 64, spec.blockN, instructionK),
        getWgmmaType(spec.lhsFormat), getWgmmaType(spec.rhsFormat),
        accumulatorKind, NVVM::WGMMAScaleOut::one, NVVM::WGMMAScaleIn::one,
        NVVM::WGMMAScaleIn::one,
        spec.lhsKContiguous ? NVVM::MMALayout::row : NVVM::MMALayout::col,
        spec.rhsKContiguous ? NVVM::MMALayout::col : NVVM::MMALayout::row,
        /*satfinite=*/nullptr);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(dc.b, dc.loc);
  return accumulator;
}

void mlir::mp::emitWgmmaEpilogue(DeviceCodeBuilder &dc,
                                 const KernelState &state, Value accumulator) {
  const TensorCoreKernelSpec &spec = state.spec;
  bool accumulateF16 = spec.accType.isF16();
  // D fragment of m64nN: warp i of the warpgroup holds rows 16i + g and
  // 16i + g + 8; register 4j + r holds column 8j + 2t + r % 2 of row
  // + 8 (r / 2) (f16: register 2j + h holds columns 8j + 2t, + 1 of row
  // + 8h).
  Value warpgroup = dc.div(state.threadId, 128);
  Value lane = dc.rem(state.threadId, 32);
  Value warpInGroup = dc.rem(dc.div(state.threadId, 32), 4);
  Value rowBase = dc.add(dc.add(state.blockRow, dc.mul(warpgroup, 64)),
                         dc.add(dc.mul(warpInGroup, 16), dc.div(lane, 4)));
  Value columnBase = dc.add(state.blockColumn, dc.mul(dc.rem(lane, 4), 2));
  for (int64_t j = 0; j < spec.blockN / 8; ++j) {
    for (int64_t r = 0; r < 4; ++r) {
      Value row = dc.add(rowBase, (r / 2) * 8);
      Value column = dc.add(columnBase, 8 * j + r % 2);
      Value value;
      if (accumulateF16)
        value = LLVM::ExtractElementOp::create(
            dc.b, dc.loc, dc.extractValue(accumulator, 2 * j + r / 2),
            dc.constI32(r % 2));
      else
        value = dc.extractValue(accumulator, 4 * j + r);
      emitEpilogueStore(dc, state, row, column, value);
    }
  }
}

void mlir::mp::emitWgmmaGemm(DeviceCodeBuilder &dc, const KernelState &state) {
  const TensorCoreKernelSpec &spec = state.spec;
  MLIRContext *context = dc.b.getContext();
  bool tf32 = spec.lhsFormat == TensorCoreFormat::tf32;
  Value zero = LLVM::ZeroOp::create(dc.b, dc.loc,
                                    getWgmmaAccumulatorType(dc, spec));
  SmallVector<Value> results = emitPipelinedKLoop(
      dc, state, zero,
      [&](Value aStage, Value bStage, Value kTile) {
        // (Element copies round as they copy.)
        if (tf32 && spec.lhsRowsAligned)
          roundOwnedChunksToTF32(dc, state, /*lhs=*/true, aStage, kTile);
        if (tf32 && spec.rhsRowsAligned)
          roundOwnedChunksToTF32(dc, state, /*lhs=*/false, bStage, kTile);
        NVVM::FenceProxyOp::create(
            dc.b, dc.loc, NVVM::ProxyKind::async_shared,
            NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
      },
      [&](Value aStage, Value bStage, ValueRange accumulators) {
        Value accumulator =
            issueWgmmaSlice(dc, state, aStage, bStage, accumulators.front());
        NVVM::WgmmaWaitGroupSyncOp::create(dc.b, dc.loc, 0);
        return SmallVector<Value>{accumulator};
      });
  emitWgmmaEpilogue(dc, state, results.front());
}
