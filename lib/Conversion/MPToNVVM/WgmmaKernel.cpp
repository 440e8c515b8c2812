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
// FP8 promotion (`fp8PromoteInterval`): the loop carries the wgmma
// accumulator and an f32 sum; after the last slice of each window of
// interval / (instructions per slice) slices, or of K, the sum adds the
// (retired) accumulator with add.f32 and the accumulator restarts from zero.
//
// The epilogue stores the D fragment element by element, or with
// `useStmatrixEpilogue` through per-warp shared-memory staging tiles written
// with stmatrix and stored in 16-byte rows (emitWgmmaStmatrixEpilogue).
//
//===----------------------------------------------------------------------===//

#include "KernelCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

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

Value mlir::mp::addWgmmaAccumulators(DeviceCodeBuilder &dc, Value sum,
                                     Value addend) {
  auto type = cast<LLVM::LLVMStructType>(sum.getType());
  for (int64_t i = 0, e = type.getBody().size(); i < e; ++i) {
    Value total = arith::AddFOp::create(dc.b, dc.loc, dc.extractValue(sum, i),
                                        dc.extractValue(addend, i));
    sum = LLVM::InsertValueOp::create(dc.b, dc.loc, sum, total, i);
  }
  return sum;
}

/// The stmatrix epilogue (`useStmatrixEpilogue`: f32 accumulator, 16-bit
/// result). Each consumer warp owns rows 16w .. 16w + 15 of the block tile
/// (w = thread / 32) and a staging tile of 16 rows × 64 columns in shared
/// memory (pitch kEpilogueStagingPitch). Per 64 columns: the warp rounds its
/// accumulator values (bias, result type, activation: emitEpilogueValue),
/// packs pairs of columns into 32-bit words, which is the stmatrix fragment
/// (lane l: row l / 4, columns 2 (l % 4), + 1 of each 8×8 matrix), and
/// writes them with 4 `stmatrix.m8n8.x4` (16 rows × 16 columns each: the
/// matrices are rows 0-7 and 8-15 of two 8-column blocks; lane l gives the
/// address of row l % 8 of matrix l / 8); `bar.warp.sync`; then each lane
/// reads 4 chunks of 16 bytes (row 4i + l / 8, columns 8 (l % 8) ..) and
/// stores each as one 16-byte `st.global.v4` where the 8 columns lie inside
/// C and N is a multiple of 8 (16-byte aligned rows), element by element
/// otherwise, rows past M skipped; `bar.warp.sync` before the next 64
/// columns reuse the tile.
static void emitWgmmaStmatrixEpilogue(DeviceCodeBuilder &dc,
                                      const KernelState &state,
                                      Value accumulator) {
  const TensorCoreKernelSpec &spec = state.spec;
  OpBuilder &b = dc.b;
  Location loc = dc.loc;
  MLIRContext *context = b.getContext();
  constexpr int64_t pitch = kEpilogueStagingPitch;
  Value warp = dc.div(state.threadId, 32);
  Value lane = dc.rem(state.threadId, 32);
  Value staging =
      dc.offset(state.sharedMemory,
                dc.add(dc.mul(warp, 16 * pitch), spec.epilogueStagingOffset()));
  Value warpRow = dc.add(state.blockRow, dc.mul(warp, 16));
  Value pairColumn = dc.mul(dc.rem(lane, 4), 2);
  Value matrix = dc.div(lane, 8);
  Value storeAddress = dc.offset(
      staging,
      dc.add(
          dc.mul(dc.add(dc.mul(dc.rem(matrix, 2), 8), dc.rem(lane, 8)), pitch),
          dc.mul(dc.div(matrix, 2), 16)));
  Value lastColumn = dc.sub(state.n, dc.constI32(1));
  Value rowsAligned = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            dc.rem(state.n, 8), dc.constI32(0));
  Type i16 = b.getIntegerType(16);
  auto pack = [&](Value column, int64_t index) {
    Value word;
    for (int64_t h = 0; h < 2; ++h) {
      Value biasColumn = dc.minSigned(dc.add(column, h), lastColumn);
      Value value = emitEpilogueValue(dc, state, biasColumn,
                                      dc.extractValue(accumulator, index + h));
      Value bits = arith::ExtUIOp::create(
          b, loc, dc.i32, arith::BitcastOp::create(b, loc, i16, value));
      word = h == 0 ? bits : dc.bitOr(word, dc.shl(bits, 16));
    }
    return word;
  };
  Value fullMask = dc.constI32(-1);
  auto vectorType = VectorType::get({4}, dc.i32);
  int64_t resultBytes = 2;
  for (int64_t chunk = 0; chunk < spec.blockN / 64; ++chunk) {
    for (int64_t pair = 0; pair < 4; ++pair) {
      SmallVector<Value> words;
      for (int64_t q = 0; q < 4; ++q) {
        // Column block j of the tile, rows 8 (q % 2) ..: registers 4j + 2h.
        int64_t block = chunk * 8 + 2 * pair + q / 2;
        Value column = dc.add(dc.add(state.blockColumn, 8 * block), pairColumn);
        words.push_back(pack(column, 4 * block + 2 * (q % 2)));
      }
      NVVM::StMatrixOp::create(b, loc, dc.offset(storeAddress, pair * 32),
                               words, NVVM::MMALayout::row,
                               NVVM::LdStMatrixShapeAttr::get(context, 8, 8),
                               NVVM::LdStMatrixEltType::B16);
    }
    NVVM::SyncWarpOp::create(b, loc, fullMask);
    for (int64_t i = 0; i < 4; ++i) {
      Value row = dc.add(dc.div(lane, 8), 4 * i);
      Value chunkColumn = dc.mul(dc.rem(lane, 8), 8);
      Value data = LLVM::LoadOp::create(
          b, loc, vectorType,
          dc.offset(staging,
                    dc.add(dc.mul(row, pitch), dc.mul(chunkColumn, 2))),
          16);
      Value globalRow = dc.add(warpRow, row);
      Value column = dc.add(dc.add(state.blockColumn, chunk * 64), chunkColumn);
      Value rowStart = dc.mul(dc.toI64(globalRow), dc.toI64(state.n));
      auto address = [&](Value elementColumn) {
        return dc.offset(
            state.result,
            dc.mul(dc.add(rowStart, dc.toI64(elementColumn)), resultBytes));
      };
      Value whole =
          dc.bitAnd(rowsAligned, dc.lessThan(dc.add(column, 7), state.n));
      dc.ifThen(dc.lessThan(globalRow, state.m), [&] {
        dc.ifThen(whole, [&] {
          LLVM::StoreOp::create(b, loc, data, address(column), 16);
        });
        Value partial = arith::XOrIOp::create(
            b, loc, whole, arith::ConstantIntOp::create(b, loc, 1, 1));
        dc.ifThen(partial, [&] {
          for (int64_t e = 0; e < 8; ++e) {
            Value elementColumn = dc.add(column, e);
            dc.ifThen(dc.lessThan(elementColumn, state.n), [&] {
              Value word = LLVM::ExtractElementOp::create(b, loc, data,
                                                          dc.constI32(e / 2));
              Value bits = arith::TruncIOp::create(
                  b, loc, i16,
                  arith::ShRUIOp::create(b, loc, word,
                                         dc.constI32(16 * (e % 2))));
              dc.store(bits, address(elementColumn));
            });
          }
        });
      });
    }
    NVVM::SyncWarpOp::create(b, loc, fullMask);
  }
}

void mlir::mp::emitWgmmaEpilogue(DeviceCodeBuilder &dc,
                                 const KernelState &state, Value accumulator) {
  const TensorCoreKernelSpec &spec = state.spec;
  if (spec.useStmatrixEpilogue)
    return emitWgmmaStmatrixEpilogue(dc, state, accumulator);
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
  Type accumulatorType = getWgmmaAccumulatorType(dc, spec);
  Value zero = LLVM::ZeroOp::create(dc.b, dc.loc, accumulatorType);
  // FP8 promotion: the accumulators are (wgmma accumulator, f32 sum); after
  // the last slice of each window of `slicesPerWindow` slices (or of K),
  // the sum takes the wgmma accumulator, which restarts from zero.
  bool promote = spec.promotesFP8Accumulator();
  int64_t slicesPerWindow =
      promote ? spec.fp8PromoteInterval / spec.wgmmaInstructionsPerSlice() : 0;
  SmallVector<Value> initial = {zero};
  if (promote)
    initial.push_back(zero);
  Value currentKTile;
  SmallVector<Value> results = emitPipelinedKLoop(
      dc, state, initial,
      [&](Value aStage, Value bStage, Value kTile) {
        currentKTile = kTile;
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
        if (!promote)
          return SmallVector<Value>{accumulator};
        Value next = dc.add(currentKTile, 1);
        Value windowEnd = dc.bitOr(
            arith::CmpIOp::create(dc.b, dc.loc, arith::CmpIPredicate::eq,
                                  dc.rem(next, slicesPerWindow),
                                  dc.constI32(0)),
            arith::CmpIOp::create(dc.b, dc.loc, arith::CmpIPredicate::eq, next,
                                  state.numKTiles));
        auto ifOp = scf::IfOp::create(
            dc.b, dc.loc, TypeRange{accumulatorType, accumulatorType},
            windowEnd, /*withElseRegion=*/true);
        {
          OpBuilder::InsertionGuard guard(dc.b);
          dc.b.setInsertionPointToStart(&ifOp.getThenRegion().front());
          Value restarted = LLVM::ZeroOp::create(dc.b, dc.loc, accumulatorType);
          Value sum = addWgmmaAccumulators(dc, accumulators[1], accumulator);
          scf::YieldOp::create(dc.b, dc.loc, ValueRange{restarted, sum});
          dc.b.setInsertionPointToStart(&ifOp.getElseRegion().front());
          scf::YieldOp::create(dc.b, dc.loc,
                               ValueRange{accumulator, accumulators[1]});
        }
        return SmallVector<Value>(ifOp.getResults());
      });
  emitWgmmaEpilogue(dc, state, results.back());
}
