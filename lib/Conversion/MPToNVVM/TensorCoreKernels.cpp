//===- TensorCoreKernels.cpp - Shared parts of the GEMM kernels -----------===//
//
// The parts of a Tensor Core GEMM kernel that do not depend on the
// instruction family: the kernel's signature and prologue (block coordinates,
// batch offsets of the operands, dynamic shared memory), the cp.async copies
// of K slices into a ring of shared-memory stages with zero fill past the
// matrix edges, the pipelined K loop, the epilogue (bias, rounding,
// activation, predicated stores), and the host launcher over MLIR's CUDA
// runtime wrappers. The instruction-specific main loops are in
// MmaSyncKernel.cpp, WgmmaKernel.cpp and Tcgen05Kernel.cpp.
//
// Assumes what the spec checks guarantee: the tiles divide as documented,
// rows of the operands start on 16-byte boundaries (the contiguous dimension
// of each operand spans a multiple of 16 bytes, checked by the pass), and the
// device buffers are 16-byte aligned (cudaMalloc gives 256).
//
//===----------------------------------------------------------------------===//

#include "KernelCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mp/Conversion/MPToLinalg/MPToLinalg.h"

using namespace mlir;
using namespace mlir::mp;

/// The dynamic shared memory every kernel of a gpu.module addresses.
static constexpr StringLiteral kSharedMemorySymbol = "mp_tensor_core_shared";
/// The attribute describing a kernel's configuration and launch needs. It has
/// no dialect prefix: the mp dialect verifies the `mp.` attributes it owns,
/// and this one is only a note for tools, dropped by the LLVM translation.
static constexpr StringLiteral kKernelDescriptionAttrName = "mp_tensor_core";

//===----------------------------------------------------------------------===//
// DeviceCodeBuilder
//===----------------------------------------------------------------------===//

DeviceCodeBuilder::DeviceCodeBuilder(OpBuilder &builder, Location loc)
    : b(builder), loc(loc), i8(builder.getI8Type()), i32(builder.getI32Type()),
      i64(builder.getI64Type()), f32(builder.getF32Type()),
      globalPtr(LLVM::LLVMPointerType::get(builder.getContext(), 1)),
      sharedPtr(LLVM::LLVMPointerType::get(builder.getContext(), 3)) {}

Value DeviceCodeBuilder::constI32(int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 32);
}
Value DeviceCodeBuilder::constI64(int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 64);
}
Value DeviceCodeBuilder::constF32(double value) {
  return arith::ConstantFloatOp::create(b, loc, f32, APFloat(float(value)));
}
Value DeviceCodeBuilder::add(Value lhs, Value rhs) {
  return arith::AddIOp::create(b, loc, lhs, rhs);
}
Value DeviceCodeBuilder::add(Value lhs, int64_t rhs) {
  if (rhs == 0)
    return lhs;
  return add(lhs, arith::ConstantIntOp::create(b, loc, lhs.getType(), rhs));
}
Value DeviceCodeBuilder::sub(Value lhs, Value rhs) {
  return arith::SubIOp::create(b, loc, lhs, rhs);
}
Value DeviceCodeBuilder::mul(Value lhs, Value rhs) {
  return arith::MulIOp::create(b, loc, lhs, rhs);
}
Value DeviceCodeBuilder::mul(Value lhs, int64_t rhs) {
  if (rhs == 1)
    return lhs;
  return mul(lhs, arith::ConstantIntOp::create(b, loc, lhs.getType(), rhs));
}
Value DeviceCodeBuilder::div(Value lhs, int64_t rhs) {
  if (rhs == 1)
    return lhs;
  return arith::DivUIOp::create(
      b, loc, lhs, arith::ConstantIntOp::create(b, loc, lhs.getType(), rhs));
}
Value DeviceCodeBuilder::rem(Value lhs, int64_t rhs) {
  return arith::RemUIOp::create(
      b, loc, lhs, arith::ConstantIntOp::create(b, loc, lhs.getType(), rhs));
}
Value DeviceCodeBuilder::bitXor(Value lhs, Value rhs) {
  return arith::XOrIOp::create(b, loc, lhs, rhs);
}
Value DeviceCodeBuilder::bitOr(Value lhs, Value rhs) {
  return arith::OrIOp::create(b, loc, lhs, rhs);
}
Value DeviceCodeBuilder::bitAnd(Value lhs, Value rhs) {
  return arith::AndIOp::create(b, loc, lhs, rhs);
}
Value DeviceCodeBuilder::shl(Value lhs, int64_t bits) {
  if (bits == 0)
    return lhs;
  return arith::ShLIOp::create(
      b, loc, lhs, arith::ConstantIntOp::create(b, loc, lhs.getType(), bits));
}
Value DeviceCodeBuilder::minSigned(Value lhs, Value rhs) {
  return arith::MinSIOp::create(b, loc, lhs, rhs);
}
Value DeviceCodeBuilder::maxSigned(Value lhs, Value rhs) {
  return arith::MaxSIOp::create(b, loc, lhs, rhs);
}
Value DeviceCodeBuilder::lessThan(Value lhs, Value rhs) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, lhs, rhs);
}
Value DeviceCodeBuilder::select(Value condition, Value ifTrue, Value ifFalse) {
  return arith::SelectOp::create(b, loc, condition, ifTrue, ifFalse);
}
Value DeviceCodeBuilder::toI64(Value value) {
  return arith::ExtUIOp::create(b, loc, i64, value);
}
Value DeviceCodeBuilder::offset(Value ptr, Value byteOffset) {
  return LLVM::GEPOp::create(b, loc, ptr.getType(), i8, ptr,
                             ArrayRef<LLVM::GEPArg>{byteOffset});
}
Value DeviceCodeBuilder::offset(Value ptr, int64_t byteOffset) {
  if (byteOffset == 0)
    return ptr;
  return LLVM::GEPOp::create(b, loc, ptr.getType(), i8, ptr,
                             ArrayRef<LLVM::GEPArg>{int32_t(byteOffset)});
}
Value DeviceCodeBuilder::load(Type type, Value ptr) {
  return LLVM::LoadOp::create(b, loc, type, ptr);
}
void DeviceCodeBuilder::store(Value value, Value ptr) {
  LLVM::StoreOp::create(b, loc, value, ptr);
}
Value DeviceCodeBuilder::extractValue(Value aggregate, int64_t position) {
  return LLVM::ExtractValueOp::create(b, loc, aggregate, position);
}
void DeviceCodeBuilder::ifThen(Value condition, function_ref<void()> body) {
  auto ifOp = scf::IfOp::create(b, loc, condition, /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(ifOp.thenBlock()->getTerminator());
  body();
}

//===----------------------------------------------------------------------===//
// Copies and the K loop
//===----------------------------------------------------------------------===//

Value mlir::mp::getKSliceOrigin(DeviceCodeBuilder &dc,
                                const KernelState &state, Value kTile) {
  if (state.kTileBegin)
    kTile = dc.add(kTile, state.kTileBegin);
  return dc.mul(kTile, state.spec.blockK);
}

void mlir::mp::forEachOwnedChunk(
    DeviceCodeBuilder &dc, const KernelState &state, bool lhs, Value kTile,
    function_ref<void(Value, Value, Value)> visit) {
  const TensorCoreKernelSpec &spec = state.spec;
  const SharedTileGeometry &tile = lhs ? state.lhsTile : state.rhsTile;
  int64_t elementBytes =
      getFormatByteWidth(lhs ? spec.lhsFormat : spec.rhsFormat);
  bool kContiguous = lhs ? spec.lhsKContiguous : spec.rhsKContiguous;
  Value mnOrigin = lhs ? state.blockRow : state.blockColumn;
  Value mnLimit = lhs ? state.m : state.n;
  Value kOrigin = getKSliceOrigin(dc, state, kTile);
  // Rows of the tile run along the operand's non-contiguous dimension.
  Value rowOrigin = kContiguous ? mnOrigin : kOrigin;
  Value rowLimit = kContiguous ? mnLimit : state.k;
  Value columnOrigin = kContiguous ? kOrigin : mnOrigin;
  Value columnLimit = kContiguous ? state.k : mnLimit;

  int64_t chunksPerRow = tile.rowBytes / 16;
  int64_t elementsPerChunk = 16 / elementBytes;
  int64_t totalChunks = tile.rows * chunksPerRow;
  int64_t threads = spec.numThreads();
  for (int64_t first = 0; first < totalChunks; first += threads) {
    Value chunk = dc.add(state.threadId, first);
    auto copyChunk = [&] {
      Value row = dc.div(chunk, chunksPerRow);
      Value column = dc.rem(chunk, chunksPerRow);
      Value globalRow = dc.add(rowOrigin, row);
      Value globalColumn =
          dc.add(columnOrigin, dc.mul(column, elementsPerChunk));
      Value validElements =
          dc.maxSigned(dc.minSigned(dc.sub(columnLimit, globalColumn),
                                    dc.constI32(elementsPerChunk)),
                       dc.constI32(0));
      Value validBytes =
          dc.select(dc.lessThan(globalRow, rowLimit),
                    dc.mul(validElements, elementBytes), dc.constI32(0));
      Value globalOffset =
          dc.mul(dc.add(dc.mul(dc.toI64(globalRow), dc.toI64(columnLimit)),
                        dc.toI64(globalColumn)),
                 elementBytes);
      globalOffset = dc.select(dc.lessThan(dc.constI32(0), validBytes),
                               globalOffset, dc.constI64(0));
      Value sharedOffset;
      if (tile.swizzled) {
        // 128-byte columns of `rows` rows; chunk c of row r at c ^ (r % 8).
        Value block = dc.div(column, 8);
        Value swizzledChunk = dc.bitXor(dc.rem(column, 8), dc.rem(row, 8));
        sharedOffset =
            dc.add(dc.add(dc.mul(block, tile.rows * 128), dc.mul(row, 128)),
                   dc.mul(swizzledChunk, 16));
      } else {
        sharedOffset = dc.add(dc.mul(row, tile.pitchBytes), dc.mul(column, 16));
      }
      visit(sharedOffset, globalOffset, validBytes);
    };
    if (first + threads > totalChunks)
      dc.ifThen(dc.lessThan(chunk, dc.constI32(totalChunks)), copyChunk);
    else
      copyChunk();
  }
}

/// Copies K slice `kTile` of A (`lhs`) or B into the tile at `tileBase`
/// element by element with ordinary loads and stores (zero past the matrix
/// edges), for operands whose rows are not 16-byte aligned. The elements are
/// in shared memory when the copy returns; the K loop's barrier publishes
/// them. TF32 elements read by wgmma are rounded (cvt.rna) on the way.
static void copyTileByElements(DeviceCodeBuilder &dc, const KernelState &state,
                               bool lhs, Value kTile, Value tileBase) {
  const TensorCoreKernelSpec &spec = state.spec;
  const SharedTileGeometry &tile = lhs ? state.lhsTile : state.rhsTile;
  TensorCoreFormat format = lhs ? spec.lhsFormat : spec.rhsFormat;
  int64_t elementBytes = getFormatByteWidth(format);
  bool kContiguous = lhs ? spec.lhsKContiguous : spec.rhsKContiguous;
  Value global = lhs ? state.lhs : state.rhs;
  Value mnOrigin = lhs ? state.blockRow : state.blockColumn;
  Value mnLimit = lhs ? state.m : state.n;
  Value kOrigin = getKSliceOrigin(dc, state, kTile);
  Value rowOrigin = kContiguous ? mnOrigin : kOrigin;
  Value rowLimit = kContiguous ? mnLimit : state.k;
  Value columnOrigin = kContiguous ? kOrigin : mnOrigin;
  Value columnLimit = kContiguous ? state.k : mnLimit;
  Type element = dc.b.getIntegerType(8 * elementBytes);
  int64_t columns = tile.rowBytes / elementBytes;
  int64_t total = tile.rows * columns;
  int64_t threads = spec.numThreads();
  Value zero = arith::ConstantIntOp::create(dc.b, dc.loc, element, 0);
  // A loop rather than unrolled code: tens of elements per thread would
  // otherwise all be live at once.
  int64_t iterations = llvm::divideCeil(total, threads);
  scf::ForOp::create(
      dc.b, dc.loc, dc.constI32(0), dc.constI32(iterations), dc.constI32(1),
      ValueRange{}, [&](OpBuilder &, Location, Value iteration, ValueRange) {
        Value index = dc.add(state.threadId, dc.mul(iteration, threads));
        auto copyElement = [&] {
          Value row = dc.div(index, columns);
          Value column = dc.rem(index, columns);
          Value globalRow = dc.add(rowOrigin, row);
          Value globalColumn = dc.add(columnOrigin, column);
          Value valid = dc.bitAnd(dc.lessThan(globalRow, rowLimit),
                                  dc.lessThan(globalColumn, columnLimit));
          Value globalOffset =
              dc.mul(dc.add(dc.mul(dc.toI64(globalRow), dc.toI64(columnLimit)),
                            dc.toI64(globalColumn)),
                     elementBytes);
          // Outside the matrix, read the first element instead and store
          // zero.
          Value address =
              dc.offset(global, dc.select(valid, globalOffset, dc.constI64(0)));
          Value value = dc.select(valid, dc.load(element, address), zero);
          if (tile.swizzled && format == TensorCoreFormat::tf32)
            value = NVVM::ConvertFloatToTF32Op::create(
                dc.b, dc.loc, dc.i32,
                arith::BitcastOp::create(dc.b, dc.loc, dc.f32, value),
                NVVM::FPRoundingMode::RNA);
          Value byte = dc.mul(column, elementBytes);
          Value sharedOffset;
          if (tile.swizzled) {
            // As the chunks of forEachOwnedChunk, plus the byte in the chunk.
            Value chunk = dc.div(byte, 16);
            Value swizzledChunk = dc.bitXor(dc.rem(chunk, 8), dc.rem(row, 8));
            sharedOffset =
                dc.add(dc.add(dc.mul(dc.div(chunk, 8), tile.rows * 128),
                              dc.mul(row, 128)),
                       dc.add(dc.mul(swizzledChunk, 16), dc.rem(byte, 16)));
          } else {
            sharedOffset = dc.add(dc.mul(row, tile.pitchBytes), byte);
          }
          dc.store(value, dc.offset(tileBase, sharedOffset));
        };
        if (total % threads != 0)
          dc.ifThen(dc.lessThan(index, dc.constI32(total)), copyElement);
        else
          copyElement();
        scf::YieldOp::create(dc.b, dc.loc);
      });
}

/// Copies K slice `kTile` of A and B into the stage whose tiles start at
/// `aStage` and `bStage`: 16-byte cp.async for operands with aligned rows,
/// element copies otherwise.
static void copyKTile(DeviceCodeBuilder &dc, const KernelState &state,
                      Value kTile, Value aStage, Value bStage) {
  for (bool lhs : {true, false}) {
    Value tileBase = lhs ? aStage : bStage;
    Value global = lhs ? state.lhs : state.rhs;
    if (!(lhs ? state.spec.lhsRowsAligned : state.spec.rhsRowsAligned)) {
      copyTileByElements(dc, state, lhs, kTile, tileBase);
      continue;
    }
    forEachOwnedChunk(
        dc, state, lhs, kTile,
        [&](Value sharedOffset, Value globalOffset, Value validBytes) {
          NVVM::CpAsyncOp::create(dc.b, dc.loc,
                                  dc.offset(tileBase, sharedOffset),
                                  dc.offset(global, globalOffset), 16,
                                  NVVM::LoadCacheModifierKind::CG, validBytes);
        });
  }
}

Value mlir::mp::loadScaleVector(DeviceCodeBuilder &dc, const KernelState &state,
                               bool lhs, Value index, Value firstBlock,
                               int64_t count) {
  const TensorCoreKernelSpec &spec = state.spec;
  Value scales = lhs ? state.lhsScales : state.rhsScales;
  Value limit = lhs ? state.m : state.n;
  Value row = dc.div(index, lhs ? spec.lhsScaleRows : spec.rhsScaleRows);
  Value rowLength = dc.div(state.k, spec.scaleBlockK);
  Value inside = dc.lessThan(index, limit);
  // 1.0: E8M0 127, E4M3 0x38.
  Value one = arith::ConstantIntOp::create(dc.b, dc.loc, dc.i8,
                                           spec.scalesE4M3 ? 0x38 : 127);
  Value vector;
  for (int64_t j = 0; j < count; ++j) {
    Value column = dc.add(firstBlock, j);
    Value valid = dc.bitAnd(inside, dc.lessThan(column, rowLength));
    Value offset =
        dc.add(dc.mul(dc.toI64(row), dc.toI64(rowLength)), dc.toI64(column));
    Value address = dc.offset(scales, dc.select(valid, offset, dc.constI64(0)));
    Value byte = dc.select(valid, dc.load(dc.i8, address), one);
    Value shifted =
        dc.shl(arith::ExtUIOp::create(dc.b, dc.loc, dc.i32, byte), 8 * j);
    vector = vector ? dc.bitOr(vector, shifted) : shifted;
  }
  return vector;
}

Value mlir::mp::packLowNibbles(DeviceCodeBuilder &dc, Value low, Value high) {
  auto nibbles = [&](Value word) {
    // Bytes n0..n3 (low nibbles) -> n0 | n1 << 4 | n2 << 8 | n3 << 12.
    Value x = dc.bitAnd(word, dc.constI32(0x0F0F0F0F));
    Value y =
        dc.bitOr(x, arith::ShRUIOp::create(dc.b, dc.loc, x, dc.constI32(4)));
    Value shifted = arith::ShRUIOp::create(dc.b, dc.loc, y, dc.constI32(8));
    return dc.bitOr(dc.bitAnd(y, dc.constI32(0xFF)),
                    dc.bitAnd(shifted, dc.constI32(0xFF00)));
  };
  return dc.bitOr(nibbles(low), dc.shl(nibbles(high), 16));
}

SmallVector<Value> mlir::mp::emitPipelinedKLoop(
    DeviceCodeBuilder &dc, const KernelState &state, ValueRange initial,
    function_ref<void(Value, Value, Value)> afterWait,
    function_ref<SmallVector<Value>(Value, Value, ValueRange)> compute) {
  int64_t stages = state.spec.stages;
  auto stagePointers = [&](Value stage) {
    Value aStage =
        dc.offset(state.sharedMemory, dc.mul(stage, state.stageBytes));
    return std::make_pair(aStage, dc.offset(aStage, state.lhsTile.bytes()));
  };

  // Prologue: slices 0 .. stages-2, one commit group each (possibly empty).
  for (int64_t slice = 0; slice + 1 < stages; ++slice) {
    Value kTile = dc.constI32(slice);
    dc.ifThen(dc.lessThan(kTile, state.numKTiles), [&] {
      auto [aStage, bStage] = stagePointers(kTile);
      copyKTile(dc, state, kTile, aStage, bStage);
    });
    NVVM::CpAsyncCommitGroupOp::create(dc.b, dc.loc);
  }

  auto loop = scf::ForOp::create(
      dc.b, dc.loc, dc.constI32(0), state.numKTiles, dc.constI32(1), initial,
      [&](OpBuilder &, Location, Value kTile, ValueRange accumulators) {
        // Slice kTile has landed once at most stages-2 younger groups are
        // pending; the barrier also tells every thread that the stage the
        // next copy overwrites (read in the previous iteration) is free.
        NVVM::CpAsyncWaitGroupOp::create(dc.b, dc.loc, stages - 2);
        auto [aStage, bStage] = stagePointers(dc.rem(kTile, stages));
        afterWait(aStage, bStage, kTile);
        NVVM::Barrier0Op::create(dc.b, dc.loc);
        Value next = dc.add(kTile, stages - 1);
        dc.ifThen(dc.lessThan(next, state.numKTiles), [&] {
          auto [aNext, bNext] = stagePointers(dc.rem(next, stages));
          copyKTile(dc, state, next, aNext, bNext);
        });
        NVVM::CpAsyncCommitGroupOp::create(dc.b, dc.loc);
        SmallVector<Value> results = compute(aStage, bStage, accumulators);
        scf::YieldOp::create(dc.b, dc.loc, results);
      });
  NVVM::CpAsyncWaitGroupOp::create(dc.b, dc.loc, 0);
  return SmallVector<Value>(loop.getResults());
}

//===----------------------------------------------------------------------===//
// Epilogue
//===----------------------------------------------------------------------===//

/// Applies `activation` to an f32 value.
static Value emitActivation(DeviceCodeBuilder &dc,
                            EpilogueActivation activation, Value x) {
  OpBuilder &b = dc.b;
  Location loc = dc.loc;
  switch (activation) {
  case EpilogueActivation::none:
    return x;
  case EpilogueActivation::relu:
    // max(x, 0) with NaN propagating, as mp.relu.
    return arith::MaximumFOp::create(b, loc, x, dc.constF32(0.0));
  case EpilogueActivation::geluErf: {
    // x · (1 + erf(x / √2)) / 2
    Value scaled = arith::MulFOp::create(b, loc, x, dc.constF32(M_SQRT1_2));
    Value erf = math::ErfOp::create(b, loc, scaled);
    Value onePlus = arith::AddFOp::create(b, loc, erf, dc.constF32(1.0));
    Value half = arith::MulFOp::create(b, loc, x, dc.constF32(0.5));
    return arith::MulFOp::create(b, loc, half, onePlus);
  }
  case EpilogueActivation::geluTanh: {
    // x · (1 + tanh(√(2/π) · (x + 0.044715 x³))) / 2
    Value cube =
        arith::MulFOp::create(b, loc, arith::MulFOp::create(b, loc, x, x), x);
    Value inner = arith::AddFOp::create(
        b, loc, x, arith::MulFOp::create(b, loc, cube, dc.constF32(0.044715)));
    Value tanh = math::TanhOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, inner, dc.constF32(0.7978845608028654)));
    Value onePlus = arith::AddFOp::create(b, loc, tanh, dc.constF32(1.0));
    Value half = arith::MulFOp::create(b, loc, x, dc.constF32(0.5));
    return arith::MulFOp::create(b, loc, half, onePlus);
  }
  }
  llvm_unreachable("unknown activation");
}

Value mlir::mp::emitEpilogueValue(DeviceCodeBuilder &dc,
                                  const KernelState &state, Value biasColumn,
                                  Value accumulator) {
  const TensorCoreKernelSpec &spec = state.spec;
  OpBuilder &b = dc.b;
  Location loc = dc.loc;
  Type resultType = spec.resultType;
  int64_t resultBytes = resultType.getIntOrFloatBitWidth() / 8;
  Value value = accumulator;
  if (resultType.isInteger())
    return value;
  if (value.getType() != dc.f32)
    value = arith::ExtFOp::create(b, loc, dc.f32, value);
  if (spec.hasBias) {
    Value bias = dc.load(
        resultType,
        dc.offset(state.bias, dc.mul(dc.toI64(biasColumn), resultBytes)));
    if (resultType != dc.f32)
      bias = arith::ExtFOp::create(b, loc, dc.f32, bias);
    value = arith::AddFOp::create(b, loc, value, bias);
  }
  if (spec.activation != EpilogueActivation::none) {
    // The activation reads the result as rounded to its type.
    if (resultType != dc.f32) {
      Value rounded = arith::TruncFOp::create(b, loc, resultType, value);
      value = arith::ExtFOp::create(b, loc, dc.f32, rounded);
    }
    value = emitActivation(dc, spec.activation, value);
  }
  if (resultType != dc.f32)
    value = arith::TruncFOp::create(b, loc, resultType, value);
  return value;
}

void mlir::mp::emitEpilogueStore(DeviceCodeBuilder &dc,
                                 const KernelState &state, Value row,
                                 Value column, Value accumulator) {
  const TensorCoreKernelSpec &spec = state.spec;
  Value inside =
      dc.bitAnd(dc.lessThan(row, state.m), dc.lessThan(column, state.n));
  dc.ifThen(inside, [&] {
    int64_t resultBytes = spec.resultType.getIntOrFloatBitWidth() / 8;
    Value value = emitEpilogueValue(dc, state, column, accumulator);
    Value index =
        dc.add(dc.mul(dc.toI64(row), dc.toI64(state.n)), dc.toI64(column));
    dc.store(value, dc.offset(state.result, dc.mul(index, resultBytes)));
  });
}

//===----------------------------------------------------------------------===//
// The kernel
//===----------------------------------------------------------------------===//

/// Records what a launch of the kernel needs to know (and what it computes)
/// for tools that load the binary without the host code, such as
/// tools/bench/gpu/run_gpu_checks.py.
static DictionaryAttr describeKernel(OpBuilder &builder,
                                     const TensorCoreKernelSpec &spec) {
  auto formatName = [&](TensorCoreFormat format) {
    return builder.getStringAttr(stringifyTensorCoreFormat(format));
  };
  SmallVector<NamedAttribute> entries = {
      builder.getNamedAttr(
          "chip", builder.getStringAttr(stringifyTensorCoreChip(spec.chip))),
      builder.getNamedAttr("instruction",
                           builder.getStringAttr(spec.useTcgen05 ? "tcgen05.mma"
                                                 : spec.useWgmma ? "wgmma"
                                                                 : "mma.sync")),
      builder.getNamedAttr("lhs_format", formatName(spec.lhsFormat)),
      builder.getNamedAttr("rhs_format", formatName(spec.rhsFormat)),
      builder.getNamedAttr("lhs_k_contiguous",
                           builder.getBoolAttr(spec.lhsKContiguous)),
      builder.getNamedAttr("rhs_k_contiguous",
                           builder.getBoolAttr(spec.rhsKContiguous)),
      builder.getNamedAttr("lhs_rows_aligned",
                           builder.getBoolAttr(spec.lhsRowsAligned)),
      builder.getNamedAttr("rhs_rows_aligned",
                           builder.getBoolAttr(spec.rhsRowsAligned)),
      builder.getNamedAttr("acc_type", TypeAttr::get(spec.accType)),
      builder.getNamedAttr("result_type", TypeAttr::get(spec.resultType)),
      builder.getNamedAttr("bias", builder.getBoolAttr(spec.hasBias)),
      builder.getNamedAttr(
          "activation",
          builder.getStringAttr(stringifyEpilogueActivation(spec.activation))),
      builder.getNamedAttr("block",
                           builder.getDenseI64ArrayAttr(
                               {spec.blockM, spec.blockN, spec.blockK})),
      builder.getNamedAttr("stages", builder.getI64IntegerAttr(spec.stages)),
      builder.getNamedAttr("threads",
                           builder.getI64IntegerAttr(spec.numThreads())),
      builder.getNamedAttr("shared_memory_bytes",
                           builder.getI64IntegerAttr(spec.sharedMemoryBytes())),
  };
  if (!spec.useWgmma && !spec.useTcgen05)
    entries.push_back(builder.getNamedAttr(
        "warp", builder.getDenseI64ArrayAttr({spec.warpM, spec.warpN})));
  if (spec.isBlockScaled()) {
    entries.push_back(builder.getNamedAttr(
        "block_scale",
        builder.getStringAttr(stringifyBlockScaleKind(spec.blockScale))));
    entries.push_back(builder.getNamedAttr(
        "scale_format",
        builder.getStringAttr(spec.scalesE4M3 ? "ue4m3" : "ue8m0")));
    entries.push_back(builder.getNamedAttr(
        "scale_block",
        builder.getDenseI64ArrayAttr(
            {spec.lhsScaleRows, spec.rhsScaleRows, spec.scaleBlockK})));
  }
  if (spec.useWgmma || spec.useTcgen05)
    entries.push_back(builder.getNamedAttr(
        "mainloop",
        builder.getStringAttr(!spec.useTma     ? "cp-async"
                              : spec.useWgmma ? "tma-warp-specialized"
                                              : "tma")));
  if (spec.useWgmma)
    entries.push_back(builder.getNamedAttr(
        "epilogue",
        builder.getStringAttr(spec.useStmatrixEpilogue ? "stmatrix"
                                                       : "per-element")));
  if (spec.splitK)
    entries.push_back(
        builder.getNamedAttr("split_k", builder.getBoolAttr(true)));
  if (spec.promotesFP8Accumulator())
    entries.push_back(builder.getNamedAttr(
        "fp8_promote_interval",
        builder.getI64IntegerAttr(spec.fp8PromoteInterval)));
  if (spec.useTma) {
    // The box of each operand's tensor map: 128 bytes of the contiguous
    // dimension (in elements) x the tile's rows.
    for (bool lhs : {true, false}) {
      SharedTileGeometry tile = getSharedTileGeometry(spec, lhs);
      int64_t elementBytes =
          getFormatByteWidth(lhs ? spec.lhsFormat : spec.rhsFormat);
      entries.push_back(builder.getNamedAttr(
          lhs ? "lhs_tma_box" : "rhs_tma_box",
          builder.getDenseI64ArrayAttr({128 / elementBytes, tile.rows})));
    }
    if (spec.useWgmma)
      entries.push_back(builder.getNamedAttr(
          "registers",
          builder.getDenseI64ArrayAttr(
              {spec.consumerRegisters(), spec.producerRegisters()})));
  }
  if (spec.useTcgen05)
    entries.push_back(builder.getNamedAttr(
        "tensor_memory_columns",
        builder.getI64IntegerAttr(spec.tensorMemoryColumns())));
  return builder.getDictionaryAttr(entries);
}

/// Returns the extern shared array of `module`, creating it if needed.
static void getOrCreateSharedMemory(OpBuilder &builder,
                                    gpu::GPUModuleOp module) {
  if (module.lookupSymbol(kSharedMemorySymbol))
    return;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  // 1024-byte alignment: wgmma's 128-byte swizzle repeats every 1024 bytes.
  LLVM::GlobalOp::create(builder, module.getLoc(),
                         LLVM::LLVMArrayType::get(builder.getI8Type(), 0),
                         /*isConstant=*/false, LLVM::Linkage::External,
                         kSharedMemorySymbol, Attribute(), /*alignment=*/1024,
                         /*addrSpace=*/3);
}

/// Rewrites the erf of a fused GELU in `kernel` as MLIR's f32 polynomial
/// approximation and its tanh as the CPU lowering's arithmetic
/// (mp-expand-tanh: the same bits as on the CPU), so that the kernel needs no
/// libdevice (the CUDA toolkit) to be compiled.
static void approximateEpilogueMath(OpBuilder &builder, gpu::GPUFuncOp kernel) {
  MLIRContext *context = builder.getContext();
  SmallVector<Operation *> mathOps;
  kernel.walk([&](Operation *op) {
    if (isa<math::ErfOp, math::TanhOp>(op))
      mathOps.push_back(op);
  });
  if (!mathOps.empty()) {
    RewritePatternSet patterns(context);
    populatePolynomialApproximateErfPattern(patterns);
    populateExpandTanhPatterns(patterns);
    (void)applyOpPatternsGreedily(mathOps, std::move(patterns));
    // The approximations' absf (as a mask of the sign bit) and fma (as the
    // LLVM intrinsic): convert-gpu-to-nvvm would call libdevice for both.
    kernel.walk([&](Operation *op) {
      builder.setInsertionPoint(op);
      Location opLoc = op->getLoc();
      Value replacement;
      if (auto abs = dyn_cast<math::AbsFOp>(op)) {
        Value bits = arith::BitcastOp::create(
            builder, opLoc, builder.getI32Type(), abs.getOperand());
        Value magnitude = arith::AndIOp::create(
            builder, opLoc, bits,
            arith::ConstantIntOp::create(builder, opLoc, 0x7FFFFFFF, 32));
        replacement = arith::BitcastOp::create(builder, opLoc,
                                               builder.getF32Type(), magnitude);
      } else if (auto fma = dyn_cast<math::FmaOp>(op)) {
        replacement = LLVM::FMAOp::create(builder, opLoc, fma.getA(),
                                          fma.getB(), fma.getC());
      }
      if (!replacement)
        return;
      op->getResult(0).replaceAllUsesWith(replacement);
      op->erase();
    });
  }
}

gpu::GPUFuncOp
mlir::mp::buildTensorCoreKernel(OpBuilder &builder, gpu::GPUModuleOp module,
                                const TensorCoreKernelSpec &spec) {
  OpBuilder::InsertionGuard guard(builder);
  MLIRContext *context = builder.getContext();
  Location loc = module.getLoc();
  getOrCreateSharedMemory(builder, module);

  auto ptr = LLVM::LLVMPointerType::get(context);
  SmallVector<Type> argTypes(spec.isBlockScaled() ? 5
                             : spec.hasBias       ? 4
                                                  : 3,
                             ptr);
  argTypes.append(3, builder.getI32Type());
  argTypes.append(3, builder.getI64Type());
  if (spec.useTma)
    argTypes.append(2, ptr); // the tensor maps of A and B
  if (spec.splitK)
    argTypes.push_back(builder.getI32Type()); // the number of splits
  builder.setInsertionPointToEnd(module.getBody());
  auto kernel = gpu::GPUFuncOp::create(builder, loc, spec.kernelName(),
                                       builder.getFunctionType(argTypes, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                  builder.getUnitAttr());
  kernel.setKnownBlockSizeAttr(
      builder.getDenseI32ArrayAttr({int32_t(spec.numThreads()), 1, 1}));
  kernel->setAttr(kKernelDescriptionAttrName, describeKernel(builder, spec));

  Block &entry = kernel.getBody().front();
  builder.setInsertionPointToStart(&entry);
  DeviceCodeBuilder dc(builder, loc);
  KernelState state(spec);
  state.lhsTile = getSharedTileGeometry(spec, /*lhs=*/true);
  state.rhsTile = getSharedTileGeometry(spec, /*lhs=*/false);
  state.stageBytes = spec.stageBytes();
  state.threadId = NVVM::ThreadIdXOp::create(builder, loc, dc.i32);
  Value blockX = NVVM::BlockIdXOp::create(builder, loc, dc.i32);
  Value blockY = NVVM::BlockIdYOp::create(builder, loc, dc.i32);
  Value blockZ = NVVM::BlockIdZOp::create(builder, loc, dc.i32);

  unsigned next = 0;
  Value lhsArg = entry.getArgument(next++);
  Value rhsArg = entry.getArgument(next++);
  Value resultArg = entry.getArgument(next++);
  Value biasArg = spec.hasBias ? entry.getArgument(next++) : Value();
  Value lhsScalesArg, rhsScalesArg;
  if (spec.isBlockScaled()) {
    lhsScalesArg = entry.getArgument(next++);
    rhsScalesArg = entry.getArgument(next++);
  }
  state.m = entry.getArgument(next++);
  state.n = entry.getArgument(next++);
  state.k = entry.getArgument(next++);
  Value lhsStride = entry.getArgument(next++);
  Value rhsStride = entry.getArgument(next++);
  Value resultStride = entry.getArgument(next++);
  Value lhsTensorMap = spec.useTma ? entry.getArgument(next++) : Value();
  Value rhsTensorMap = spec.useTma ? entry.getArgument(next++) : Value();
  Value splits = spec.splitK ? entry.getArgument(next++) : Value();

  // Split-K: block z = b * splits + s; C is the workspace, one M x N
  // partial per (b, s), i.e. indexed by z.
  state.batchIndex =
      splits ? arith::DivUIOp::create(builder, loc, blockZ, splits).getResult()
             : blockZ;
  Value batch = dc.toI64(state.batchIndex);
  auto batchPointer = [&](Value arg, Value stride, int64_t elementBytes,
                          Value index) {
    Value global =
        LLVM::AddrSpaceCastOp::create(builder, loc, dc.globalPtr, arg);
    return dc.offset(global, dc.mul(dc.mul(index, stride), elementBytes));
  };
  state.lhs = batchPointer(lhsArg, lhsStride,
                           getFormatByteWidth(spec.lhsFormat), batch);
  state.rhs = batchPointer(rhsArg, rhsStride,
                           getFormatByteWidth(spec.rhsFormat), batch);
  int64_t resultBytes = spec.resultType.getIntOrFloatBitWidth() / 8;
  state.result = batchPointer(resultArg, resultStride, resultBytes,
                              splits ? dc.toI64(blockZ) : batch);
  if (biasArg)
    state.bias =
        LLVM::AddrSpaceCastOp::create(builder, loc, dc.globalPtr, biasArg);
  if (spec.isBlockScaled()) {
    state.lhsScales =
        LLVM::AddrSpaceCastOp::create(builder, loc, dc.globalPtr, lhsScalesArg);
    state.rhsScales =
        LLVM::AddrSpaceCastOp::create(builder, loc, dc.globalPtr, rhsScalesArg);
  }
  state.blockRow = dc.mul(blockY, spec.blockM);
  state.blockColumn = dc.mul(blockX, spec.blockN);
  state.numKTiles = dc.div(dc.add(state.k, spec.blockK - 1), spec.blockK);
  if (splits) {
    // Split s: slices [s * T, min((s + 1) * T, total)), T = ceil(total / S);
    // empty (0 slices) past the end.
    Value split = arith::RemUIOp::create(builder, loc, blockZ, splits);
    Value perSplit = arith::DivUIOp::create(
        builder, loc, dc.add(state.numKTiles, dc.sub(splits, dc.constI32(1))),
        splits);
    state.kTileBegin = dc.mul(split, perSplit);
    state.numKTiles = dc.maxSigned(
        dc.minSigned(perSplit, dc.sub(state.numKTiles, state.kTileBegin)),
        dc.constI32(0));
  }
  state.sharedMemory = LLVM::AddressOfOp::create(builder, loc, dc.sharedPtr,
                                                 kSharedMemorySymbol);

  if (spec.useTcgen05)
    emitTcgen05Gemm(dc, state, lhsTensorMap, rhsTensorMap);
  else if (spec.useTma)
    emitWgmmaTmaGemm(dc, state, lhsTensorMap, rhsTensorMap);
  else if (spec.useWgmma)
    emitWgmmaGemm(dc, state);
  else
    emitMmaSyncGemm(dc, state);
  gpu::ReturnOp::create(builder, loc);

  approximateEpilogueMath(builder, kernel);
  return kernel;
}

gpu::GPUFuncOp
mlir::mp::buildSplitKReductionKernel(OpBuilder &builder,
                                     gpu::GPUModuleOp module,
                                     const TensorCoreKernelSpec &spec) {
  std::string name = getSplitKReductionName(spec);
  if (auto existing = module.lookupSymbol<gpu::GPUFuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(builder);
  Location loc = module.getLoc();
  auto ptr = LLVM::LLVMPointerType::get(builder.getContext());
  SmallVector<Type> argTypes(spec.hasBias ? 3 : 2, ptr);
  argTypes.append(3, builder.getI32Type());
  builder.setInsertionPointToEnd(module.getBody());
  auto kernel = gpu::GPUFuncOp::create(builder, loc, name,
                                       builder.getFunctionType(argTypes, {}));
  kernel->setAttr(gpu::GPUDialect::getKernelFuncAttrName(),
                  builder.getUnitAttr());
  kernel.setKnownBlockSizeAttr(builder.getDenseI32ArrayAttr(
      {int32_t(kSplitKReductionThreads), 1, 1}));
  kernel->setAttr(
      kKernelDescriptionAttrName,
      builder.getDictionaryAttr({
          builder.getNamedAttr("kind",
                               builder.getStringAttr("split_k_reduction")),
          builder.getNamedAttr("acc_type", TypeAttr::get(spec.accType)),
          builder.getNamedAttr("result_type", TypeAttr::get(spec.resultType)),
          builder.getNamedAttr("bias", builder.getBoolAttr(spec.hasBias)),
          builder.getNamedAttr(
              "activation",
              builder.getStringAttr(
                  stringifyEpilogueActivation(spec.activation))),
          builder.getNamedAttr(
              "threads", builder.getI64IntegerAttr(kSplitKReductionThreads)),
          builder.getNamedAttr("shared_memory_bytes",
                               builder.getI64IntegerAttr(0)),
      }));

  Block &entry = kernel.getBody().front();
  builder.setInsertionPointToStart(&entry);
  DeviceCodeBuilder dc(builder, loc);
  KernelState state(spec);
  unsigned next = 0;
  auto global = [&](Value arg) -> Value {
    return LLVM::AddrSpaceCastOp::create(builder, loc, dc.globalPtr, arg);
  };
  Value workspace = global(entry.getArgument(next++));
  Value result = global(entry.getArgument(next++));
  if (spec.hasBias)
    state.bias = global(entry.getArgument(next++));
  state.m = entry.getArgument(next++);
  state.n = entry.getArgument(next++);
  Value splits = entry.getArgument(next++);

  // Element e = blockIdx.x * 256 + tid of batch blockIdx.y, in i64 (M·N
  // may exceed 2^31).
  Value threadId = NVVM::ThreadIdXOp::create(builder, loc, dc.i32);
  Value blockX = NVVM::BlockIdXOp::create(builder, loc, dc.i32);
  Value batch = dc.toI64(NVVM::BlockIdYOp::create(builder, loc, dc.i32));
  Value element = dc.add(dc.mul(dc.toI64(blockX), kSplitKReductionThreads),
                         dc.toI64(threadId));
  Value n64 = dc.toI64(state.n);
  Value elements = dc.mul(dc.toI64(state.m), n64);
  int64_t resultBytes = spec.resultType.getIntOrFloatBitWidth() / 8;
  state.result = dc.offset(result, dc.mul(dc.mul(batch, elements),
                                          resultBytes));
  dc.ifThen(dc.lessThan(element, elements), [&] {
    // The partials of (b, s) at W + ((b * S + s) * M·N + e) * 4.
    Value splits64 = dc.toI64(splits);
    Value first = dc.offset(
        workspace,
        dc.mul(dc.add(dc.mul(dc.mul(batch, splits64), elements), element), 4));
    Value splitBytes = dc.mul(elements, 4);
    Type accType = spec.accType;
    Value initial = dc.load(accType, first);
    // Splits 1 .. S-1 in order: the sum is the same on every launch.
    auto loop = scf::ForOp::create(
        builder, loc, dc.constI32(1), splits, dc.constI32(1),
        ValueRange{initial},
        [&](OpBuilder &, Location, Value split, ValueRange sum) {
          Value partial = dc.load(
              accType,
              dc.offset(first, dc.mul(dc.toI64(split), splitBytes)));
          Value total =
              accType.isInteger()
                  ? arith::AddIOp::create(builder, loc, sum.front(), partial)
                        .getResult()
                  : arith::AddFOp::create(builder, loc, sum.front(), partial)
                        .getResult();
          scf::YieldOp::create(builder, loc, total);
        });
    Value row = arith::TruncIOp::create(
        builder, loc, dc.i32,
        arith::DivUIOp::create(builder, loc, element, n64));
    Value column = arith::TruncIOp::create(
        builder, loc, dc.i32,
        arith::RemUIOp::create(builder, loc, element, n64));
    emitEpilogueStore(dc, state, row, column, loop.getResult(0));
  });
  gpu::ReturnOp::create(builder, loc);
  approximateEpilogueMath(builder, kernel);
  return kernel;
}

//===----------------------------------------------------------------------===//
// The host launcher
//===----------------------------------------------------------------------===//

/// MLIR's CUDA runtime wrappers (libmlir_cuda_runtime) the launchers call,
/// with their types as gpu-to-llvm declares them.
enum class RuntimeFunction {
  StreamCreate,
  StreamSynchronize,
  StreamDestroy,
  MemAlloc,
  MemFree,
  Memcpy,
  TensorMapEncodeTiled,
};
static constexpr int kNumRuntimeFunctions = 7;
static constexpr StringLiteral kRuntimeFunctionNames[kNumRuntimeFunctions] = {
    "mgpuStreamCreate", "mgpuStreamSynchronize", "mgpuStreamDestroy",
    "mgpuMemAlloc",     "mgpuMemFree",           "mgpuMemcpy",
    "mgpuTensorMapEncodeTiled"};

/// The type of runtime wrapper `function`.
static LLVM::LLVMFunctionType getRuntimeFunctionType(MLIRContext *context,
                                                     RuntimeFunction function) {
  auto ptr = LLVM::LLVMPointerType::get(context);
  Type i8 = IntegerType::get(context, 8), i64 = IntegerType::get(context, 64);
  Type voidType = LLVM::LLVMVoidType::get(context);
  switch (function) {
  case RuntimeFunction::StreamCreate:
    return LLVM::LLVMFunctionType::get(ptr, {});
  case RuntimeFunction::StreamSynchronize:
  case RuntimeFunction::StreamDestroy:
    return LLVM::LLVMFunctionType::get(voidType, {ptr});
  case RuntimeFunction::MemAlloc:
    return LLVM::LLVMFunctionType::get(ptr, {i64, ptr, i8});
  case RuntimeFunction::MemFree:
    return LLVM::LLVMFunctionType::get(voidType, {ptr, ptr});
  case RuntimeFunction::Memcpy:
    return LLVM::LLVMFunctionType::get(voidType, {ptr, ptr, i64, ptr});
  case RuntimeFunction::TensorMapEncodeTiled:
    break;
  }
  // (CUtensorMap *map, CUtensorMapDataType, cuuint32_t rank, void *address,
  //  const cuuint64_t *dims, const cuuint64_t *strides, const cuuint32_t
  //  *box, const cuuint32_t *elementStrides, interleave, swizzle,
  //  l2Promotion, oobFill), the enums as 32-bit integers.
  Type i32 = IntegerType::get(context, 32);
  return LLVM::LLVMFunctionType::get(
      voidType, {ptr, i32, i32, ptr, ptr, ptr, ptr, ptr, i32, i32, i32, i32});
}

LogicalResult mlir::mp::checkTensorCoreRuntimeSymbols(ModuleOp module) {
  bool valid = true;
  for (int function = 0; function < kNumRuntimeFunctions; ++function) {
    StringRef name = kRuntimeFunctionNames[function];
    Operation *existing = module.lookupSymbol(name);
    if (!existing)
      continue;
    LLVM::LLVMFunctionType type = getRuntimeFunctionType(
        module.getContext(), static_cast<RuntimeFunction>(function));
    auto func = dyn_cast<LLVM::LLVMFuncOp>(existing);
    if (func && func.getFunctionType() == type)
      continue;
    existing->emitOpError()
        << "convert-mp-to-nvvm: symbol '@" << name
        << "' names a CUDA runtime wrapper the Tensor Core launchers call: it "
           "must be an llvm.func of type "
        << type;
    valid = false;
  }
  return success(valid);
}

/// Returns the declaration of runtime wrapper `function`, creating it
/// (checkTensorCoreRuntimeSymbols checked an existing one).
static LLVM::LLVMFuncOp getOrDeclareRuntimeFunction(OpBuilder &builder,
                                                    ModuleOp module,
                                                    RuntimeFunction function) {
  StringRef name = kRuntimeFunctionNames[static_cast<int>(function)];
  if (auto existing = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
    return existing;
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(module.getBody());
  return LLVM::LLVMFuncOp::create(
      builder, module.getLoc(), name,
      getRuntimeFunctionType(builder.getContext(), function));
}

/// CUtensorMapDataType of `format` (cuda.h): bytes for the 8-bit formats.
static int64_t getTensorMapDataType(TensorCoreFormat format) {
  switch (format) {
  case TensorCoreFormat::f16:
    return 6; // CU_TENSOR_MAP_DATA_TYPE_FLOAT16
  case TensorCoreFormat::bf16:
    return 9; // CU_TENSOR_MAP_DATA_TYPE_BFLOAT16
  case TensorCoreFormat::tf32:
    return 7; // CU_TENSOR_MAP_DATA_TYPE_FLOAT32 (tcgen05: rounded in shared
              // memory after the load)
  case TensorCoreFormat::e4m3:
  case TensorCoreFormat::e5m2:
  case TensorCoreFormat::s8:
  case TensorCoreFormat::e2m3: // one element per byte in memory
  case TensorCoreFormat::e3m2:
  case TensorCoreFormat::e2m1:
    return 0; // CU_TENSOR_MAP_DATA_TYPE_UINT8
  case TensorCoreFormat::automatic:
    break;
  }
  llvm_unreachable("format not resolved");
}

/// For a TMA kernel: builds the tensor maps of the device operands
/// `lhsDevice` and `rhsDevice` (TensorCoreKernels.h) on the host with
/// mgpuTensorMapEncodeTiled and copies each into 128 bytes of device memory
/// allocated on `stream`; returns the two device pointers (the caller frees
/// them after the launch).
static SmallVector<Value> buildTensorMaps(OpBuilder &builder, ModuleOp module,
                                          Location loc,
                                          const TensorCoreKernelSpec &spec,
                                          Value lhsDevice, Value rhsDevice,
                                          Value batch, Value m, Value n,
                                          Value k, Value stream) {
  MLIRContext *context = builder.getContext();
  auto ptr = LLVM::LLVMPointerType::get(context);
  Type i8 = builder.getI8Type(), i32 = builder.getI32Type(),
       i64 = builder.getI64Type();
  auto encode = getOrDeclareRuntimeFunction(
      builder, module, RuntimeFunction::TensorMapEncodeTiled);
  auto memAlloc =
      getOrDeclareRuntimeFunction(builder, module, RuntimeFunction::MemAlloc);
  auto memcpy =
      getOrDeclareRuntimeFunction(builder, module, RuntimeFunction::Memcpy);
  auto constant = [&](Type type, int64_t value) -> Value {
    return LLVM::ConstantOp::create(builder, loc, type, value);
  };
  auto mul = [&](Value lhs, Value rhs) -> Value {
    return LLVM::MulOp::create(builder, loc, lhs, rhs);
  };
  // A host array of `values` (i64 or i32).
  auto array = [&](Type element, ArrayRef<Value> values) -> Value {
    Value memory = LLVM::AllocaOp::create(
        builder, loc, ptr, element, constant(i64, values.size()), 8);
    for (auto [index, value] : llvm::enumerate(values)) {
      Value slot = LLVM::GEPOp::create(builder, loc, ptr, element, memory,
                                       ArrayRef<LLVM::GEPArg>{int32_t(index)});
      LLVM::StoreOp::create(builder, loc, value, slot);
    }
    return memory;
  };

  SmallVector<Value> maps;
  for (bool lhs : {true, false}) {
    TensorCoreFormat format = lhs ? spec.lhsFormat : spec.rhsFormat;
    bool kContiguous = lhs ? spec.lhsKContiguous : spec.rhsKContiguous;
    Value mn = lhs ? m : n;
    Value elementBytes = constant(i64, getFormatByteWidth(format));
    // (contiguous dimension, other dimension, batch), innermost first.
    Value inner = kContiguous ? k : mn, outer = kContiguous ? mn : k;
    Value dims = array(i64, {inner, outer, batch});
    Value rowStride = mul(inner, elementBytes);
    Value strides = array(i64, {rowStride, mul(rowStride, outer)});
    SharedTileGeometry tile = getSharedTileGeometry(spec, lhs);
    Value box =
        array(i32, {constant(i32, 128 / getFormatByteWidth(format)),
                    constant(i32, tile.rows), constant(i32, 1)});
    Value one = constant(i32, 1);
    Value elementStrides = array(i32, {one, one, one});
    Value hostMap = LLVM::AllocaOp::create(
        builder, loc, ptr, LLVM::LLVMArrayType::get(i8, 128),
        constant(i64, 1), 64);
    LLVM::CallOp::create(
        builder, loc, encode,
        ValueRange{hostMap, constant(i32, getTensorMapDataType(format)),
                   constant(i32, 3), lhs ? lhsDevice : rhsDevice, dims,
                   strides, box, elementStrides,
                   constant(i32, 0),  // CU_TENSOR_MAP_INTERLEAVE_NONE
                   constant(i32, 3),  // CU_TENSOR_MAP_SWIZZLE_128B
                   constant(i32, 3),  // CU_TENSOR_MAP_L2_PROMOTION_L2_256B
                   constant(i32, 0)}); // CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
    Value bytes = constant(i64, 128);
    Value device = LLVM::CallOp::create(builder, loc, memAlloc,
                                        ValueRange{bytes, stream,
                                                   constant(i8, 0)})
                       .getResult();
    LLVM::CallOp::create(builder, loc, memcpy,
                         ValueRange{device, hostMap, bytes, stream});
    maps.push_back(device);
  }
  return maps;
}

LLVM::LLVMFuncOp mlir::mp::buildTensorCoreLauncher(
    OpBuilder &builder, ModuleOp module, gpu::GPUFuncOp kernel,
    const TensorCoreKernelSpec &spec, bool deviceResident,
    gpu::GPUFuncOp reduction) {
  OpBuilder::InsertionGuard guard(builder);
  MLIRContext *context = builder.getContext();
  Location loc = kernel.getLoc();
  auto ptr = LLVM::LLVMPointerType::get(context);
  Type i8 = builder.getI8Type(), i32 = builder.getI32Type(),
       i64 = builder.getI64Type();
  Type voidType = LLVM::LLVMVoidType::get(context);

  // A device-resident launcher calls none of them.
  LLVM::LLVMFuncOp streamCreate, streamSynchronize, streamDestroy, memAlloc,
      memFree, memcpy;
  if (!deviceResident) {
    streamCreate = getOrDeclareRuntimeFunction(builder, module,
                                               RuntimeFunction::StreamCreate);
    streamSynchronize = getOrDeclareRuntimeFunction(
        builder, module, RuntimeFunction::StreamSynchronize);
    streamDestroy = getOrDeclareRuntimeFunction(builder, module,
                                                RuntimeFunction::StreamDestroy);
    memAlloc =
        getOrDeclareRuntimeFunction(builder, module, RuntimeFunction::MemAlloc);
    memFree =
        getOrDeclareRuntimeFunction(builder, module, RuntimeFunction::MemFree);
    memcpy =
        getOrDeclareRuntimeFunction(builder, module, RuntimeFunction::Memcpy);
  }

  unsigned numBuffers = spec.isBlockScaled() ? 5 : spec.hasBias ? 4 : 3;
  bool splitK = spec.splitK;
  SmallVector<Type> argTypes(numBuffers, ptr);
  argTypes.append(4, i64);
  if (splitK)
    argTypes.push_back(i64); // the number of splits
  if (deviceResident && splitK)
    argTypes.push_back(ptr); // the workspace
  if (deviceResident)
    argTypes.push_back(ptr); // the stream
  builder.setInsertionPointToEnd(module.getBody());
  auto launcher = LLVM::LLVMFuncOp::create(
      builder, loc, spec.kernelName() + "_launch",
      LLVM::LLVMFunctionType::get(voidType, argTypes), LLVM::Linkage::Internal);
  Block *body = launcher.addEntryBlock(builder);
  builder.setInsertionPointToStart(body);

  auto constant = [&](Type type, int64_t value) -> Value {
    return LLVM::ConstantOp::create(builder, loc, type, value);
  };
  auto mul = [&](Value lhs, Value rhs) -> Value {
    return LLVM::MulOp::create(builder, loc, lhs, rhs);
  };
  auto ceilDiv = [&](Value value, int64_t divisor) -> Value {
    Value sum =
        LLVM::AddOp::create(builder, loc, value, constant(i64, divisor - 1));
    return LLVM::UDivOp::create(builder, loc, sum, constant(i64, divisor));
  };
  Value batch = body->getArgument(numBuffers);
  Value m = body->getArgument(numBuffers + 1);
  Value n = body->getArgument(numBuffers + 2);
  Value k = body->getArgument(numBuffers + 3);
  Value splits = splitK ? body->getArgument(numBuffers + 4) : Value();
  Value lhsElements = mul(batch, mul(m, k));
  Value rhsElements = mul(batch, mul(k, n));
  Value resultElements = mul(batch, mul(m, n));
  int64_t resultBytes = spec.resultType.getIntOrFloatBitWidth() / 8;
  SmallVector<std::pair<Value, Value>> buffers = {
      {body->getArgument(0),
       mul(lhsElements, constant(i64, getFormatByteWidth(spec.lhsFormat)))},
      {body->getArgument(1),
       mul(rhsElements, constant(i64, getFormatByteWidth(spec.rhsFormat)))},
      {body->getArgument(2), mul(resultElements, constant(i64, resultBytes))}};
  if (spec.hasBias)
    buffers.push_back(
        {body->getArgument(3), mul(n, constant(i64, resultBytes))});
  if (spec.isBlockScaled()) {
    // One byte per scale: [M / rows, K / block] and [N / rows, K / block].
    auto udiv = [&](Value value, int64_t divisor) -> Value {
      return LLVM::UDivOp::create(builder, loc, value, constant(i64, divisor));
    };
    Value kBlocks = udiv(k, spec.scaleBlockK);
    buffers.push_back(
        {body->getArgument(3), mul(udiv(m, spec.lhsScaleRows), kBlocks)});
    buffers.push_back(
        {body->getArgument(4), mul(udiv(n, spec.rhsScaleRows), kBlocks)});
  }

  // Device-resident: the operands are device memory already, and the
  // kernel joins the step's stream; nothing is allocated, copied or waited
  // for here.
  Value stream =
      deviceResident
          ? body->getArguments().back()
          : LLVM::CallOp::create(builder, loc, streamCreate, ValueRange{})
                .getResult();
  SmallVector<Value> devicePointers;
  if (deviceResident)
    for (auto buffer : buffers)
      devicePointers.push_back(buffer.first);
  for (auto [index, buffer] : llvm::enumerate(buffers)) {
    if (deviceResident)
      break;
    auto [host, bytes] = buffer;
    Value device =
        LLVM::CallOp::create(builder, loc, memAlloc,
                             ValueRange{bytes, stream, constant(i8, 0)})
            .getResult();
    devicePointers.push_back(device);
    if (index != 2) // C is only written
      LLVM::CallOp::create(builder, loc, memcpy,
                           ValueRange{device, host, bytes, stream});
  }

  // Split-K: the f32/s32 partials of every (batch, split), the caller's
  // (device-resident) or the launcher's own.
  Value workspace;
  if (splitK)
    workspace =
        deviceResident
            ? body->getArgument(numBuffers + 5)
            : LLVM::CallOp::create(
                  builder, loc, memAlloc,
                  ValueRange{mul(mul(resultElements, splits), constant(i64, 4)),
                             stream, constant(i8, 0)})
                  .getResult();

  // The GEMM kernel: C, or the partials into the workspace.
  TensorCoreKernelSpec kernelSpec =
      splitK ? getSplitKPartialSpec(spec) : spec;
  SmallVector<Value> kernelArgs(devicePointers);
  if (splitK)
    kernelArgs = {devicePointers[0], devicePointers[1], workspace};
  auto trunc = [&](Value value) -> Value {
    return LLVM::TruncOp::create(builder, loc, i32, value);
  };
  for (Value size : {m, n, k})
    kernelArgs.push_back(trunc(size));
  kernelArgs.append({mul(m, k), mul(k, n), mul(m, n)});
  SmallVector<Value> tensorMaps;
  if (spec.useTma)
    tensorMaps = buildTensorMaps(builder, module, loc, spec, devicePointers[0],
                                 devicePointers[1], batch, m, n, k, stream);
  kernelArgs.append(tensorMaps);
  if (splitK)
    kernelArgs.push_back(trunc(splits));
  auto symbolOf = [](gpu::GPUFuncOp function) {
    auto kernelModule = function->getParentOfType<gpu::GPUModuleOp>();
    return SymbolRefAttr::get(kernelModule.getNameAttr(),
                              {FlatSymbolRefAttr::get(function.getNameAttr())});
  };
  Value one = constant(i64, 1);
  gpu::LaunchFuncOp::create(
      builder, loc, symbolOf(kernel),
      gpu::KernelDim3{ceilDiv(n, kernelSpec.blockN),
                      ceilDiv(m, kernelSpec.blockM),
                      splitK ? mul(batch, splits) : batch},
      gpu::KernelDim3{constant(i64, kernelSpec.numThreads()), one, one},
      constant(i32, kernelSpec.sharedMemoryBytes()), kernelArgs,
      /*asyncObject=*/stream);
  if (splitK) {
    // The reduction, after the partials on the same stream.
    SmallVector<Value> reductionArgs = {workspace, devicePointers[2]};
    if (spec.hasBias)
      reductionArgs.push_back(devicePointers[3]);
    reductionArgs.append({trunc(m), trunc(n), trunc(splits)});
    gpu::LaunchFuncOp::create(
        builder, loc, symbolOf(reduction),
        gpu::KernelDim3{ceilDiv(mul(m, n), kSplitKReductionThreads), batch,
                        one},
        gpu::KernelDim3{constant(i64, kSplitKReductionThreads), one, one},
        constant(i32, 0), reductionArgs, /*asyncObject=*/stream);
  }
  if (deviceResident) {
    // The tensor maps are the launcher's own: freed in stream order.
    if (!tensorMaps.empty()) {
      auto streamFree = getOrDeclareRuntimeFunction(builder, module,
                                                    RuntimeFunction::MemFree);
      for (Value map : tensorMaps)
        LLVM::CallOp::create(builder, loc, streamFree, ValueRange{map, stream});
    }
    LLVM::ReturnOp::create(builder, loc, ValueRange{});
    return launcher;
  }

  LLVM::CallOp::create(builder, loc, memcpy,
                       ValueRange{buffers[2].first, devicePointers[2],
                                  buffers[2].second, stream});
  LLVM::CallOp::create(builder, loc, streamSynchronize, ValueRange{stream});
  for (Value device : llvm::concat<Value>(devicePointers, tensorMaps))
    LLVM::CallOp::create(builder, loc, memFree, ValueRange{device, stream});
  if (workspace)
    LLVM::CallOp::create(builder, loc, memFree, ValueRange{workspace, stream});
  LLVM::CallOp::create(builder, loc, streamDestroy, ValueRange{stream});
  LLVM::ReturnOp::create(builder, loc, ValueRange{});
  return launcher;
}
