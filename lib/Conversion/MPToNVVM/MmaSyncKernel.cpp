//===- MmaSyncKernel.cpp - Warp-level mma.sync GEMM main loop -------------===//
//
// The main loop and epilogue of the mma.sync kernels (sm_80, sm_86, sm_89,
// and sm_90a where wgmma cannot read the operands). The block's warps form a
// (block-m / warp-m) × (block-n / warp-n) grid; each warp owns warp-m ×
// warp-n of C as (warp-m / 16) × (warp-n / 8) accumulator tiles of m16n8.
// Every 32 bytes of a K slice's rows is one instruction step (k16 for
// 16-bit, k8 for tf32, k32 for 8-bit formats), for which the warp loads its
// A fragments (one per 16 rows) and B fragments (one per 8 columns) from
// shared memory and issues one mma per accumulator tile.
//
// Fragment loads follow the PTX ISA fragment layouts (g = lane / 4,
// t = lane % 4): `ldmatrix.x4` for K-contiguous tiles of every format (the
// 32 bytes of K of a 16-row A fragment, or of two 8-column B fragments, are
// four 8×16-byte matrices, whichever the element width), `ldmatrix.x4.trans`
// for 16-bit tiles whose contiguous dimension is M or N, and scalar
// `ld.shared` for 8- and 32-bit tiles of that kind (ldmatrix transposes
// 16-bit elements only). TF32 fragments are rounded with cvt.rna.tf32.f32.
//
// Block-scaled kernels (mp.scaled_matmul, sm_120a) use `mma.sync ...
// .block_scale` on K-contiguous tiles of one byte per element (as FP4/FP6
// lie in memory): m16n8k32 kind::mxf8f6f4 takes the ldmatrix fragments of
// the 8-bit forms, with FP6 masked to the low 6 bits of each byte and FP4
// moved to bits 2..5 (the 8-bit containers PTX requires); m16n8k64
// kind::mxf4 / mxf4nvf4 take packed FP4 (two per byte, the lower K in the
// low nibble), packed from two 32-bit shared loads per register (register i
// of A: row g + 8 (i % 2), K 32 (i / 2) + 8t .. + 7; of B: column g, K 32 i +
// 8t .. + 7). The scales come from global memory once per instruction: the
// byte(s) of the 1X / 2X / 4X scale vector of A's row g + 8 (lane % 2) (the
// thread pair lane % 4 ∈ {0, 1} that thread-id-a 0 selects) and of B's
// column g (the thread lane % 4 = 0 that thread-id-b 0 selects), byte-id 0,
// consecutive K blocks in consecutive bytes; outside the matrix a scale of
// 1.0 stands in (the data there is zero). The scales come from shared memory:
// once per K slice, before the K loop's barrier, the block's threads copy
// the slice's scales of the block's rows of A and of B (row-major, one byte
// per block of the slice) from global memory into one of two buffers behind
// the stages (slice parity: a warp still computing the previous slice reads
// the other one, and a buffer is rewritten only after every warp has passed
// the barrier of the slice between).
//
//===----------------------------------------------------------------------===//

#include "KernelCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::mp;

namespace {

/// Builds the fragment loads and the mma instructions of one warp.
class MmaSyncWarp {
public:
  MmaSyncWarp(DeviceCodeBuilder &dc, const KernelState &state);

  /// The accumulators of every m16n8 tile of the warp, all zero.
  SmallVector<Value> zeroAccumulators();
  /// One K slice of the warp's tiles on the stage at `aStage`/`bStage`.
  SmallVector<Value> computeKTile(Value aStage, Value bStage,
                                  ValueRange accumulators);
  /// The slice of the current K-loop iteration (set before computeKTile).
  Value currentKTile;
  /// Stores the accumulators through the epilogue.
  void storeResults(ValueRange accumulators);
  /// Block-scaled kernels: copies the scales of slice `kTile` into its
  /// shared-memory buffer (every thread, before the K loop's barrier).
  void stageScales(Value kTile);

private:
  /// Values per accumulator tile: 4 f32/i32, or 2 f16x2 for f16 accumulation.
  int64_t valuesPerTile() const { return accumulateF16 ? 2 : 4; }
  /// The four A fragment registers of m-tile `mTile` at K step `kStep`.
  SmallVector<Value> loadA(Value aStage, int64_t mTile, int64_t kStep);
  /// The two B fragment registers of every n-tile at K step `kStep`.
  SmallVector<SmallVector<Value>> loadB(Value bStage, int64_t kStep);
  /// ldmatrix.x4 at `address` (transposed or not) as four i32.
  SmallVector<Value> ldmatrix(Value address, bool transpose);
  /// One i32 at byte (`row` · pitch + `columnByte`) of a tile.
  Value loadWord(Value tile, int64_t pitch, Value row, Value columnByte);
  /// Four bytes, at rows `row`..`row`+3 (consecutive K) of column
  /// `columnByte`, packed low to high.
  Value loadBytesDown(Value tile, int64_t pitch, Value row, Value columnByte);
  /// Turns a fragment register into an operand of the mma: f16 pairs become
  /// vector<2xf16>, f32 elements are rounded to TF32 (cvt.rna), other
  /// formats stay i32.
  Value toMmaOperand(Value word);
  /// One mma.sync on the tile's accumulators.
  SmallVector<Value> mma(ArrayRef<Value> a, ArrayRef<Value> b,
                         ValueRange accumulators);

  // Block-scaled kernels.
  /// One packed-FP4 fragment register: the low nibbles of bytes `byte` + 8t
  /// .. + 7 of row `row` of a K-contiguous tile (one FP4 per byte), the
  /// lowest K in the lowest nibble.
  Value loadPackedFP4(Value tile, int64_t pitch, Value row, int64_t byte);
  /// The fragment register `word` of 8-bit containers for `format`.
  Value toContainer(Value word, TensorCoreFormat format);
  /// The scale vector (byte j: K block j of the instruction) of row (A) or
  /// column (B) `index` at K step `kStep` of slice `kTile`, from its buffer.
  Value loadScales(bool lhs, Value index, Value kTile, int64_t kStep);
  /// The shared-memory buffer of slice `kTile`'s scales, and the scale
  /// blocks per slice.
  Value scaleBuffer(Value kTile);
  int64_t blocksPerSlice() const { return spec.blockK / spec.scaleBlockK; }
  /// One block-scaled mma.sync on the tile's accumulators.
  SmallVector<Value> mmaBlockScaled(ArrayRef<Value> a, ArrayRef<Value> b,
                                    ValueRange accumulators, Value scaleA,
                                    Value scaleB);
  /// computeKTile for block-scaled kernels.
  SmallVector<Value> computeBlockScaledKTile(Value aStage, Value bStage,
                                             Value kTile,
                                             ValueRange accumulators);

  DeviceCodeBuilder &dc;
  const KernelState &state;
  const TensorCoreKernelSpec &spec;
  int64_t elementBytes;
  int64_t mTiles, nTiles, kSteps;
  bool accumulateF16;
  Value lane, groupId, threadInGroup;
  /// First row (M) and column (N) of the warp's tile inside the block tile.
  Value warpRow, warpColumn;
};

} // namespace

MmaSyncWarp::MmaSyncWarp(DeviceCodeBuilder &dc, const KernelState &state)
    : dc(dc), state(state), spec(state.spec),
      elementBytes(getFormatByteWidth(state.spec.lhsFormat)),
      mTiles(state.spec.warpM / 16), nTiles(state.spec.warpN / 8),
      kSteps(state.spec.isBlockScaled()
                 ? state.spec.blockK / state.spec.blockScaledInstructionK()
                 : state.spec.blockK * elementBytes / 32),
      accumulateF16(state.spec.accType.isF16()) {
  lane = dc.rem(state.threadId, 32);
  groupId = dc.div(lane, 4);
  threadInGroup = dc.rem(lane, 4);
  Value warp = dc.div(state.threadId, 32);
  int64_t warpsN = spec.blockN / spec.warpN;
  warpRow = dc.mul(dc.div(warp, warpsN), spec.warpM);
  warpColumn = dc.mul(dc.rem(warp, warpsN), spec.warpN);
}

SmallVector<Value> MmaSyncWarp::zeroAccumulators() {
  Type type = accumulateF16 ? Type(VectorType::get({2}, dc.b.getF16Type()))
                            : spec.accType;
  Value zero = arith::ConstantOp::create(dc.b, dc.loc, dc.b.getZeroAttr(type));
  return SmallVector<Value>(mTiles * nTiles * valuesPerTile(), zero);
}

SmallVector<Value> MmaSyncWarp::ldmatrix(Value address, bool transpose) {
  MLIRContext *context = dc.b.getContext();
  auto resultType =
      LLVM::LLVMStructType::getLiteral(context, SmallVector<Type>(4, dc.i32));
  Value matrices = NVVM::LdMatrixOp::create(
      dc.b, dc.loc, resultType, address, 4,
      transpose ? NVVM::MMALayout::col : NVVM::MMALayout::row,
      NVVM::LdStMatrixShapeAttr::get(context, 8, 8),
      NVVM::LdStMatrixEltType::B16);
  SmallVector<Value> words;
  for (int64_t i = 0; i < 4; ++i)
    words.push_back(dc.extractValue(matrices, i));
  return words;
}

Value MmaSyncWarp::loadWord(Value tile, int64_t pitch, Value row,
                            Value columnByte) {
  return dc.load(dc.i32,
                 dc.offset(tile, dc.add(dc.mul(row, pitch), columnByte)));
}

Value MmaSyncWarp::loadBytesDown(Value tile, int64_t pitch, Value row,
                                 Value columnByte) {
  Value word;
  for (int64_t i = 0; i < 4; ++i) {
    Value byte = dc.load(
        dc.i8,
        dc.offset(tile, dc.add(dc.mul(dc.add(row, i), pitch), columnByte)));
    Value shifted =
        dc.shl(arith::ExtUIOp::create(dc.b, dc.loc, dc.i32, byte), 8 * i);
    word = word ? dc.bitOr(word, shifted) : shifted;
  }
  return word;
}

Value MmaSyncWarp::toMmaOperand(Value word) {
  if (spec.lhsFormat == TensorCoreFormat::f16)
    return LLVM::BitcastOp::create(
        dc.b, dc.loc, VectorType::get({2}, dc.b.getF16Type()), word);
  if (spec.lhsFormat != TensorCoreFormat::tf32)
    return word;
  Value value = arith::BitcastOp::create(dc.b, dc.loc, dc.f32, word);
  return NVVM::ConvertFloatToTF32Op::create(dc.b, dc.loc, dc.i32, value,
                                            NVVM::FPRoundingMode::RNA);
}

SmallVector<Value> MmaSyncWarp::loadA(Value aStage, int64_t mTile,
                                      int64_t kStep) {
  const SharedTileGeometry &tile = state.lhsTile;
  Value mBase = dc.add(warpRow, mTile * 16);
  if (spec.lhsKContiguous) {
    // Matrix q = lane / 8 holds rows (q % 2) * 8 .. +8 and K bytes
    // (q / 2) * 16 .. +16 of the fragment: a0, a1, a2, a3.
    Value row = dc.add(mBase, dc.rem(lane, 16));
    Value columnByte = dc.add(dc.mul(dc.div(lane, 16), 16), kStep * 32);
    return ldmatrix(
        dc.offset(aStage, dc.add(dc.mul(row, tile.pitchBytes), columnByte)),
        /*transpose=*/false);
  }
  if (elementBytes == 2) {
    // K × M tile: matrix q covers K rows (q / 2) * 8 and M columns
    // (q % 2) * 8; .trans hands out M-major pairs.
    Value row = dc.add(dc.add(dc.mul(dc.div(lane, 16), 8), dc.rem(lane, 8)),
                       kStep * 16);
    Value column = dc.add(mBase, dc.mul(dc.rem(dc.div(lane, 8), 2), 8));
    return ldmatrix(dc.offset(aStage, dc.add(dc.mul(row, tile.pitchBytes),
                                             dc.mul(column, 2))),
                    /*transpose=*/true);
  }
  SmallVector<Value> words;
  if (elementBytes == 4) {
    // tf32 m16n8k8: a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4).
    for (int64_t i = 0; i < 4; ++i) {
      Value kRow = dc.add(threadInGroup, kStep * 8 + (i / 2) * 4);
      Value m = dc.add(dc.add(mBase, groupId), (i % 2) * 8);
      words.push_back(loadWord(aStage, tile.pitchBytes, kRow, dc.mul(m, 4)));
    }
    return words;
  }
  // 8-bit m16n8k32: register i holds row g + 8 (i % 2), K 16 (i / 2) + 4t ..
  // + 3.
  for (int64_t i = 0; i < 4; ++i) {
    Value kRow = dc.add(dc.mul(threadInGroup, 4), kStep * 32 + (i / 2) * 16);
    Value m = dc.add(dc.add(mBase, groupId), (i % 2) * 8);
    words.push_back(loadBytesDown(aStage, tile.pitchBytes, kRow, m));
  }
  return words;
}

SmallVector<SmallVector<Value>> MmaSyncWarp::loadB(Value bStage,
                                                   int64_t kStep) {
  const SharedTileGeometry &tile = state.rhsTile;
  SmallVector<SmallVector<Value>> fragments;
  if (spec.rhsKContiguous || elementBytes == 2) {
    // One ldmatrix.x4 per pair of n-tiles: matrices b0, b1 of n-tile 2p and
    // b0, b1 of n-tile 2p + 1.
    for (int64_t pair = 0; pair < nTiles / 2; ++pair) {
      Value nBase = dc.add(warpColumn, pair * 16);
      SmallVector<Value> words;
      if (spec.rhsKContiguous) {
        Value row =
            dc.add(nBase, dc.add(dc.mul(dc.div(lane, 16), 8), dc.rem(lane, 8)));
        Value columnByte =
            dc.add(dc.mul(dc.rem(dc.div(lane, 8), 2), 16), kStep * 32);
        words = ldmatrix(
            dc.offset(bStage, dc.add(dc.mul(row, tile.pitchBytes), columnByte)),
            /*transpose=*/false);
      } else {
        Value row = dc.add(
            dc.add(dc.mul(dc.rem(dc.div(lane, 8), 2), 8), dc.rem(lane, 8)),
            kStep * 16);
        Value column = dc.add(nBase, dc.mul(dc.div(lane, 16), 8));
        words = ldmatrix(dc.offset(bStage, dc.add(dc.mul(row, tile.pitchBytes),
                                                  dc.mul(column, 2))),
                         /*transpose=*/true);
      }
      fragments.push_back({words[0], words[1]});
      fragments.push_back({words[2], words[3]});
    }
    return fragments;
  }
  for (int64_t nTile = 0; nTile < nTiles; ++nTile) {
    Value n = dc.add(dc.add(warpColumn, nTile * 8), groupId);
    SmallVector<Value> words;
    for (int64_t i = 0; i < 2; ++i) {
      if (elementBytes == 4) {
        // tf32: b0 (k t, n g), b1 (k t + 4, n g).
        Value kRow = dc.add(threadInGroup, kStep * 8 + i * 4);
        words.push_back(loadWord(bStage, tile.pitchBytes, kRow, dc.mul(n, 4)));
      } else {
        // 8-bit: b_i holds K 16 i + 4t .. + 3 of column g.
        Value kRow = dc.add(dc.mul(threadInGroup, 4), kStep * 32 + i * 16);
        words.push_back(loadBytesDown(bStage, tile.pitchBytes, kRow, n));
      }
    }
    fragments.push_back(words);
  }
  return fragments;
}

/// The PTX name of an 8-bit float format in mma intrinsics.
static StringRef getFP8Name(TensorCoreFormat format) {
  return format == TensorCoreFormat::e4m3 ? "e4m3" : "e5m2";
}

SmallVector<Value> MmaSyncWarp::mma(ArrayRef<Value> a, ArrayRef<Value> b,
                                    ValueRange accumulators) {
  MLIRContext *context = dc.b.getContext();
  Type accElement = accumulateF16
                        ? Type(VectorType::get({2}, dc.b.getF16Type()))
                        : spec.accType;
  auto resultType = LLVM::LLVMStructType::getLiteral(
      context, SmallVector<Type>(valuesPerTile(), accElement));
  std::array<NVVM::MMALayout, 2> layouts = {NVVM::MMALayout::row,
                                            NVVM::MMALayout::col};
  Value result;
  switch (spec.lhsFormat) {
  case TensorCoreFormat::f16:
    result = NVVM::MmaOp::create(dc.b, dc.loc, resultType, a, b, accumulators,
                                 {16, 8, 16}, std::nullopt, std::nullopt,
                                 std::nullopt, layouts);
    break;
  case TensorCoreFormat::bf16:
    result =
        NVVM::MmaOp::create(dc.b, dc.loc, resultType, a, b, accumulators,
                            {16, 8, 16}, std::nullopt, std::nullopt,
                            std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16,
                                                          NVVM::MMATypes::bf16},
                            layouts);
    break;
  case TensorCoreFormat::tf32:
    result =
        NVVM::MmaOp::create(dc.b, dc.loc, resultType, a, b, accumulators,
                            {16, 8, 8}, std::nullopt, std::nullopt,
                            std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::tf32,
                                                          NVVM::MMATypes::tf32},
                            layouts);
    break;
  case TensorCoreFormat::s8:
    // Wrapping i32 sums, as the CPU lowering's linalg.matmul.
    result = NVVM::MmaOp::create(
        dc.b, dc.loc, resultType, a, b, accumulators, {16, 8, 32}, std::nullopt,
        NVVM::MMAIntOverflow::wrapped,
        std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::s8, NVVM::MMATypes::s8},
        layouts);
    break;
  case TensorCoreFormat::e4m3:
  case TensorCoreFormat::e5m2: {
    // nvvm.mma.sync rejects FP8 in MLIR 22; the intrinsic works (+ptx84).
    std::string intrinsic =
        ("llvm.nvvm.mma.m16n8k32.row.col.f32." + getFP8Name(spec.lhsFormat) +
         "." + getFP8Name(spec.rhsFormat) + ".f32")
            .str();
    SmallVector<Value> operands(a);
    llvm::append_range(operands, b);
    llvm::append_range(operands, accumulators);
    result =
        LLVM::CallIntrinsicOp::create(dc.b, dc.loc, resultType,
                                      dc.b.getStringAttr(intrinsic), operands)
            .getResult(0);
    break;
  }
  case TensorCoreFormat::e2m3: // computeBlockScaledKTile
  case TensorCoreFormat::e3m2:
  case TensorCoreFormat::e2m1:
  case TensorCoreFormat::automatic:
    llvm_unreachable("format not resolved");
  }
  SmallVector<Value> values;
  for (int64_t i = 0; i < valuesPerTile(); ++i)
    values.push_back(dc.extractValue(result, i));
  return values;
}

SmallVector<Value> MmaSyncWarp::computeKTile(Value aStage, Value bStage,
                                             ValueRange accumulators) {
  if (spec.isBlockScaled())
    return computeBlockScaledKTile(aStage, bStage, currentKTile, accumulators);
  SmallVector<Value> current(accumulators);
  for (int64_t kStep = 0; kStep < kSteps; ++kStep) {
    SmallVector<SmallVector<Value>> aFragments;
    for (int64_t mTile = 0; mTile < mTiles; ++mTile)
      aFragments.push_back(loadA(aStage, mTile, kStep));
    SmallVector<SmallVector<Value>> bFragments = loadB(bStage, kStep);
    for (auto *fragments : {&aFragments, &bFragments})
      for (SmallVector<Value> &fragment : *fragments)
        for (Value &word : fragment)
          word = toMmaOperand(word);
    for (int64_t mTile = 0; mTile < mTiles; ++mTile) {
      for (int64_t nTile = 0; nTile < nTiles; ++nTile) {
        int64_t first = (mTile * nTiles + nTile) * valuesPerTile();
        SmallVector<Value> updated =
            mma(aFragments[mTile], bFragments[nTile],
                ValueRange(current).slice(first, valuesPerTile()));
        llvm::copy(updated, current.begin() + first);
      }
    }
  }
  return current;
}

//===----------------------------------------------------------------------===//
// Block-scaled mma.sync (sm_120a)
//===----------------------------------------------------------------------===//

Value MmaSyncWarp::loadPackedFP4(Value tile, int64_t pitch, Value row,
                                 int64_t byte) {
  Value columnByte = dc.add(dc.mul(threadInGroup, 8), byte);
  return packLowNibbles(dc, loadWord(tile, pitch, row, columnByte),
                        loadWord(tile, pitch, row, dc.add(columnByte, 4)));
}

Value MmaSyncWarp::toContainer(Value word, TensorCoreFormat format) {
  switch (format) {
  case TensorCoreFormat::e2m1: // E2M1 in bits 2..5 of each byte
    return dc.shl(dc.bitAnd(word, dc.constI32(0x0F0F0F0F)), 2);
  case TensorCoreFormat::e2m3: // FP6 in bits 0..5
  case TensorCoreFormat::e3m2:
    return dc.bitAnd(word, dc.constI32(0x3F3F3F3F));
  default:
    return word;
  }
}

Value MmaSyncWarp::scaleBuffer(Value kTile) {
  Value first =
      dc.offset(state.sharedMemory, spec.stages * state.stageBytes);
  return dc.offset(first, dc.mul(dc.rem(kTile, 2),
                                 spec.scaleStagingBytes() / 2));
}

void MmaSyncWarp::stageScales(Value kTile) {
  int64_t blocks = blocksPerSlice();
  int64_t rows = spec.blockM + spec.blockN;
  int64_t threads = spec.numThreads();
  Value buffer = scaleBuffer(kTile);
  Value firstBlock = dc.mul(kTile, blocks);
  for (int64_t first = 0; first < rows; first += threads) {
    Value row = dc.add(state.threadId, first);
    auto copyRow = [&](bool lhs) {
      Value index = lhs ? dc.add(state.blockRow, row)
                        : dc.add(state.blockColumn,
                                 dc.sub(row, dc.constI32(spec.blockM)));
      for (int64_t group = 0; group < blocks; group += 4) {
        int64_t count = std::min<int64_t>(4, blocks - group);
        Value word = loadScaleVector(dc, state, lhs, index,
                                     dc.add(firstBlock, group), count);
        for (int64_t j = 0; j < count; ++j) {
          Value byte = arith::TruncIOp::create(
              dc.b, dc.loc, dc.i8,
              arith::ShRUIOp::create(dc.b, dc.loc, word, dc.constI32(8 * j)));
          dc.store(byte, dc.offset(buffer, dc.add(dc.mul(row, blocks),
                                                  group + j)));
        }
      }
    };
    Value isLhs = dc.lessThan(row, dc.constI32(spec.blockM));
    Value isRhs = dc.bitAnd(dc.lessThan(row, dc.constI32(rows)),
                            arith::XOrIOp::create(
                                dc.b, dc.loc, isLhs,
                                arith::ConstantIntOp::create(dc.b, dc.loc, 1,
                                                             1)));
    dc.ifThen(isLhs, [&] { copyRow(/*lhs=*/true); });
    dc.ifThen(isRhs, [&] { copyRow(/*lhs=*/false); });
  }
}

Value MmaSyncWarp::loadScales(bool lhs, Value index, Value kTile,
                              int64_t kStep) {
  // Rows of A, then of B; `count` consecutive bytes (1, 2 or 4), aligned to
  // their size (the slice's blocks are a multiple of the count).
  int64_t count = spec.blockScaledInstructionK() / spec.scaleBlockK;
  Value row = lhs ? dc.sub(index, state.blockRow)
                  : dc.add(dc.sub(index, state.blockColumn), spec.blockM);
  Value address = dc.offset(
      scaleBuffer(kTile),
      dc.add(dc.mul(row, blocksPerSlice()), kStep * count));
  Value vector = dc.load(dc.b.getIntegerType(8 * count), address);
  return count == 4 ? vector
                    : arith::ExtUIOp::create(dc.b, dc.loc, dc.i32, vector);
}

/// The mma operand type of a block-scaled format.
static NVVM::MMATypes getBlockScaledType(TensorCoreFormat format) {
  switch (format) {
  case TensorCoreFormat::e4m3:
    return NVVM::MMATypes::e4m3;
  case TensorCoreFormat::e5m2:
    return NVVM::MMATypes::e5m2;
  case TensorCoreFormat::e2m3:
    return NVVM::MMATypes::e2m3;
  case TensorCoreFormat::e3m2:
    return NVVM::MMATypes::e3m2;
  case TensorCoreFormat::e2m1:
    return NVVM::MMATypes::e2m1;
  default:
    llvm_unreachable("not a block-scaled operand format");
  }
}

SmallVector<Value> MmaSyncWarp::mmaBlockScaled(ArrayRef<Value> a,
                                               ArrayRef<Value> b,
                                               ValueRange accumulators,
                                               Value scaleA, Value scaleB) {
  MLIRContext *context = dc.b.getContext();
  auto resultType =
      LLVM::LLVMStructType::getLiteral(context, SmallVector<Type>(4, dc.f32));
  Value zero = arith::ConstantIntOp::create(dc.b, dc.loc, dc.b.getI16Type(), 0);
  NVVM::MMABlockScaleKind kind;
  NVVM::ScaleVecSize vectorSize;
  switch (spec.blockScale) {
  case BlockScaleKind::mxf8f6f4:
    kind = NVVM::MMABlockScaleKind::MXF8F6F4;
    vectorSize = NVVM::ScaleVecSize::X1;
    break;
  case BlockScaleKind::mxf4:
    kind = NVVM::MMABlockScaleKind::MXF4;
    vectorSize = NVVM::ScaleVecSize::X2;
    break;
  case BlockScaleKind::mxf4nvf4:
    kind = NVVM::MMABlockScaleKind::MXF4NVF4;
    vectorSize = NVVM::ScaleVecSize::X4;
    break;
  case BlockScaleKind::none:
    llvm_unreachable("not a block-scaled kernel");
  }
  Value result = NVVM::MmaBlockScaleOp::create(
      dc.b, dc.loc, resultType, a, b, accumulators, scaleA, zero, zero, scaleB,
      zero, zero, {16, 8, spec.blockScaledInstructionK()},
      std::array<NVVM::MMATypes, 2>{getBlockScaledType(spec.lhsFormat),
                                    getBlockScaledType(spec.rhsFormat)},
      vectorSize,
      spec.scalesE4M3 ? NVVM::BlockScaleFormat::UE4M3
                      : NVVM::BlockScaleFormat::UE8M0,
      kind);
  SmallVector<Value> values;
  for (int64_t i = 0; i < 4; ++i)
    values.push_back(dc.extractValue(result, i));
  return values;
}

SmallVector<Value>
MmaSyncWarp::computeBlockScaledKTile(Value aStage, Value bStage, Value kTile,
                                     ValueRange accumulators) {
  SmallVector<Value> current(accumulators);
  bool packed = spec.blockScale != BlockScaleKind::mxf8f6f4;
  Value scaleRow = dc.add(dc.add(dc.add(state.blockRow, warpRow), groupId),
                          dc.mul(dc.rem(lane, 2), 8));
  Value scaleColumn = dc.add(dc.add(state.blockColumn, warpColumn), groupId);
  for (int64_t kStep = 0; kStep < kSteps; ++kStep) {
    SmallVector<SmallVector<Value>> aFragments;
    SmallVector<Value> aScales, bScales;
    for (int64_t mTile = 0; mTile < mTiles; ++mTile) {
      SmallVector<Value> words;
      if (packed) {
        Value row = dc.add(dc.add(warpRow, mTile * 16), groupId);
        for (int64_t i = 0; i < 4; ++i)
          words.push_back(loadPackedFP4(aStage, state.lhsTile.pitchBytes,
                                        dc.add(row, (i % 2) * 8),
                                        kStep * 64 + (i / 2) * 32));
      } else {
        // The 8-bit m16n8k32 fragments: 32 bytes of K per step.
        for (Value word : loadA(aStage, mTile, kStep))
          words.push_back(toContainer(word, spec.lhsFormat));
      }
      aFragments.push_back(words);
      aScales.push_back(
          loadScales(/*lhs=*/true, dc.add(scaleRow, mTile * 16), kTile, kStep));
    }
    SmallVector<SmallVector<Value>> bFragments;
    if (packed) {
      for (int64_t nTile = 0; nTile < nTiles; ++nTile) {
        Value row = dc.add(dc.add(warpColumn, nTile * 8), groupId);
        SmallVector<Value> words;
        for (int64_t i = 0; i < 2; ++i)
          words.push_back(loadPackedFP4(bStage, state.rhsTile.pitchBytes, row,
                                        kStep * 64 + i * 32));
        bFragments.push_back(words);
      }
    } else {
      bFragments = loadB(bStage, kStep);
      for (SmallVector<Value> &fragment : bFragments)
        for (Value &word : fragment)
          word = toContainer(word, spec.rhsFormat);
    }
    for (int64_t nTile = 0; nTile < nTiles; ++nTile)
      bScales.push_back(loadScales(
          /*lhs=*/false, dc.add(scaleColumn, nTile * 8), kTile, kStep));
    for (int64_t mTile = 0; mTile < mTiles; ++mTile) {
      for (int64_t nTile = 0; nTile < nTiles; ++nTile) {
        int64_t first = (mTile * nTiles + nTile) * 4;
        SmallVector<Value> updated =
            mmaBlockScaled(aFragments[mTile], bFragments[nTile],
                           ValueRange(current).slice(first, 4), aScales[mTile],
                           bScales[nTile]);
        llvm::copy(updated, current.begin() + first);
      }
    }
  }
  return current;
}

void MmaSyncWarp::storeResults(ValueRange accumulators) {
  // C fragment: (g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1); with f16
  // accumulation the pairs are packed in two f16x2.
  Value rowBase = dc.add(dc.add(state.blockRow, warpRow), groupId);
  Value columnBase =
      dc.add(dc.add(state.blockColumn, warpColumn), dc.mul(threadInGroup, 2));
  for (int64_t mTile = 0; mTile < mTiles; ++mTile) {
    for (int64_t nTile = 0; nTile < nTiles; ++nTile) {
      int64_t first = (mTile * nTiles + nTile) * valuesPerTile();
      for (int64_t i = 0; i < 4; ++i) {
        Value row = dc.add(rowBase, mTile * 16 + (i / 2) * 8);
        Value column = dc.add(columnBase, nTile * 8 + i % 2);
        Value value;
        if (accumulateF16)
          value = LLVM::ExtractElementOp::create(
              dc.b, dc.loc, accumulators[first + i / 2], dc.constI32(i % 2));
        else
          value = accumulators[first + i];
        emitEpilogueStore(dc, state, row, column, value);
      }
    }
  }
}

void mlir::mp::emitMmaSyncGemm(DeviceCodeBuilder &dc,
                               const KernelState &state) {
  MmaSyncWarp warp(dc, state);
  SmallVector<Value> results = emitPipelinedKLoop(
      dc, state, warp.zeroAccumulators(),
      /*afterWait=*/
      [&](Value, Value, Value kTile) {
        warp.currentKTile = kTile;
        if (state.spec.isBlockScaled())
          warp.stageScales(kTile);
      },
      [&](Value aStage, Value bStage, ValueRange accumulators) {
        return warp.computeKTile(aStage, bStage, accumulators);
      });
  warp.storeResults(results);
}
