//===- KernelCodegen.h - Device-code helpers of the GEMM kernels -*- C++
//-*-===//
//
// Internal to lib/Conversion/MPToNVVM: a builder of device code (i32/i64
// arithmetic, pointers, predication), the state every GEMM kernel shares
// (block coordinates, operand pointers, shared memory), the multi-stage
// cp.async K loop every instruction family runs, the epilogue, the matrix
// descriptors of the swizzled shared-memory tiles (wgmma, tcgen05), and the
// main-loop bodies (mma.sync, wgmma, tcgen05).
//
//===----------------------------------------------------------------------===//

#ifndef LIB_CONVERSION_MPTONVVM_KERNELCODEGEN_H
#define LIB_CONVERSION_MPTONVVM_KERNELCODEGEN_H

#include "TensorCoreKernels.h"

#include "mlir/Dialect/LLVMIR/NVVMDialect.h"

namespace mlir::mp {

/// Creates device code at an insertion point: integer arithmetic through
/// `arith` (i32 for indices inside a block, i64 for global offsets), LLVM
/// pointers and predicated regions through `scf.if`.
class DeviceCodeBuilder {
public:
  DeviceCodeBuilder(OpBuilder &builder, Location loc);

  OpBuilder &b;
  Location loc;
  IntegerType i8, i32, i64;
  FloatType f32;
  LLVM::LLVMPointerType globalPtr, sharedPtr;

  Value constI32(int64_t value);
  Value constI64(int64_t value);
  Value constF32(double value);
  Value add(Value lhs, Value rhs);
  Value add(Value lhs, int64_t rhs);
  Value sub(Value lhs, Value rhs);
  Value mul(Value lhs, Value rhs);
  Value mul(Value lhs, int64_t rhs);
  /// Unsigned division and remainder by a positive constant.
  Value div(Value lhs, int64_t rhs);
  Value rem(Value lhs, int64_t rhs);
  Value bitXor(Value lhs, Value rhs);
  Value bitOr(Value lhs, Value rhs);
  Value shl(Value lhs, int64_t bits);
  Value minSigned(Value lhs, Value rhs);
  Value maxSigned(Value lhs, Value rhs);
  /// Signed `lhs < rhs`.
  Value lessThan(Value lhs, Value rhs);
  Value bitAnd(Value lhs, Value rhs);
  Value select(Value condition, Value ifTrue, Value ifFalse);
  /// Zero-extends a non-negative i32 to i64.
  Value toI64(Value value);
  /// `ptr + byteOffset` (any integer offset).
  Value offset(Value ptr, Value byteOffset);
  Value offset(Value ptr, int64_t byteOffset);
  Value load(Type type, Value ptr);
  void store(Value value, Value ptr);
  Value extractValue(Value aggregate, int64_t position);
  /// Runs `body` under `scf.if condition`.
  void ifThen(Value condition, function_ref<void()> body);
};

/// What every GEMM kernel knows after its prologue.
struct KernelState {
  explicit KernelState(const TensorCoreKernelSpec &spec) : spec(spec) {}

  const TensorCoreKernelSpec &spec;
  SharedTileGeometry lhsTile, rhsTile;
  /// Bytes of one stage (A tile then B tile).
  int64_t stageBytes = 0;
  /// %tid.x.
  Value threadId;
  /// Problem sizes (i32).
  Value m, n, k;
  /// First row and column of the block's C tile (i32).
  Value blockRow, blockColumn;
  /// Number of K slices of this block (i32): all of K's, or those of its
  /// split.
  Value numKTiles;
  /// Split-K: the first K slice of the block's split (i32); null otherwise
  /// (slice 0). Loops count slices from 0; getKSliceOrigin adds it.
  Value kTileBegin;
  /// The batch index of A and B (i32): block z, or z / splits with split-K.
  Value batchIndex;
  /// Global pointers (addrspace 1) to this batch's A, B, C and the bias,
  /// and to the block scales of A and B (block-scaled kernels).
  Value lhs, rhs, result, bias, lhsScales, rhsScales;
  /// Start of the dynamic shared memory (addrspace 3).
  Value sharedMemory;
};

/// The first K element (i32) of the block's K slice `kTile` (counted from
/// the first slice of its split).
Value getKSliceOrigin(DeviceCodeBuilder &dc, const KernelState &state,
                      Value kTile);

/// Calls `visit(sharedOffset, globalByteOffset, validBytes)` for each 16-byte
/// chunk of K slice `kTile` of A (`lhs`) or B that this thread copies: the
/// chunk's byte offset in the stage's tile (i32), its byte offset from the
/// operand's base (i64; 0 where nothing is valid) and how many of its bytes
/// lie inside the matrix (i32, 0 to 16). Every thread of the block takes the
/// same share in every K slice.
void forEachOwnedChunk(
    DeviceCodeBuilder &dc, const KernelState &state, bool lhs, Value kTile,
    function_ref<void(Value sharedOffset, Value globalOffset, Value validBytes)>
        visit);

/// Emits the K loop: the first `stages - 1` slices are copied in a prologue;
/// each iteration waits for its slice, calls `afterWait(aStage, bStage, kTile)`
/// (before the barrier), starts the copy of slice `kTile + stages - 1`, and
/// calls `compute(aStage, bStage, accumulators)` which returns the new
/// accumulators. Returns the final accumulators.
SmallVector<Value> emitPipelinedKLoop(
    DeviceCodeBuilder &dc, const KernelState &state, ValueRange initial,
    function_ref<void(Value aStage, Value bStage, Value kTile)> afterWait,
    function_ref<SmallVector<Value>(Value aStage, Value bStage,
                                    ValueRange accumulators)>
        compute);

/// Returns one accumulator element (f32, f16 or i32) of column
/// `biasColumn` after the bias (read at that column, which must lie inside
/// the matrix), the rounding to the result type and the activation.
Value emitEpilogueValue(DeviceCodeBuilder &dc, const KernelState &state,
                        Value biasColumn, Value accumulator);

/// Stores one accumulator element (f32, f16 or i32) at (`row`, `column`) of C
/// if it lies inside the matrix, after the bias, the rounding to the result
/// type and the activation.
void emitEpilogueStore(DeviceCodeBuilder &dc, const KernelState &state,
                       Value row, Value column, Value accumulator);

/// The constant fields of a shared-memory matrix descriptor of the swizzled
/// `tile` (leading and stride byte offsets, 128-byte swizzle mode): in the
/// wgmma format, or in the tcgen05 format (version 1, swizzle mode 2).
int64_t getMatrixDescriptorFields(const SharedTileGeometry &tile,
                                  bool kContiguous, bool tcgen05);

/// Byte offset, within a swizzled operand tile, of the operand of K step
/// `kStep` (32 bytes of K when K-major, 16 K rows when MN-major).
int64_t getKStepOffset(const SharedTileGeometry &tile, bool kContiguous,
                       int64_t kStep);

/// The matrix descriptor of the tile at shared `address` with constant
/// `fields` (getMatrixDescriptorFields).
Value emitMatrixDescriptor(DeviceCodeBuilder &dc, Value address,
                           int64_t fields);

/// Rounds, in shared memory, the f32 chunks of K slice `kTile` that this
/// thread copied into the tile at `tileBase` to TF32 (cvt.rna), for the
/// instructions that read tf32 operands from shared memory.
void roundOwnedChunksToTF32(DeviceCodeBuilder &dc, const KernelState &state,
                            bool lhs, Value tileBase, Value kTile);

/// Block-scaled kernels: the `count` (at most 4) scales of row (A, `lhs`) or
/// column (B) `index` of the operand from K block `firstBlock` on, from the
/// row-major scale tensor in global memory, byte j of the i32 holding block
/// `firstBlock + j`; 1.0 outside the matrix and past K (the data is zero
/// there).
Value loadScaleVector(DeviceCodeBuilder &dc, const KernelState &state,
                      bool lhs, Value index, Value firstBlock, int64_t count);

/// Packs the low nibbles of the 8 bytes of `low` and `high` (one FP4 element
/// per byte, lowest K first) into one i32 of 8 packed FP4 (lowest K in the
/// lowest nibble).
Value packLowNibbles(DeviceCodeBuilder &dc, Value low, Value high);

/// The LLVM struct of a warpgroup's wgmma accumulator registers.
Type getWgmmaAccumulatorType(DeviceCodeBuilder &dc,
                             const TensorCoreKernelSpec &spec);

/// Issues the wgmma instructions of one K slice (`wgmma.fence`, one
/// mma_async per 32 bytes of K, `commit_group`) of this thread's warpgroup
/// (`threadId / 128`) on the stage tiles at `aStage` and `bStage`; returns
/// the accumulator, which is in flight until a `wgmma.wait_group` retires it.
Value issueWgmmaSlice(DeviceCodeBuilder &dc, const KernelState &state,
                      Value aStage, Value bStage, Value accumulator);

/// Returns `sum + addend`, element by element, for two retired f32 wgmma
/// accumulators (the promotion of an FP8 accumulator, add.f32 per register).
Value addWgmmaAccumulators(DeviceCodeBuilder &dc, Value sum, Value addend);

/// Stores a warpgroup's retired wgmma accumulator (its D fragment) through
/// emitEpilogueStore.
void emitWgmmaEpilogue(DeviceCodeBuilder &dc, const KernelState &state,
                       Value accumulator);

/// Spins on `mbarrier.try_wait.parity` until phase number `phase` (i32) of
/// the mbarrier at shared `barrier` has completed (parity `phase % 2`).
void emitMBarrierWait(DeviceCodeBuilder &dc, Value barrier, Value phase);

/// Issues the TMA loads (cp.async.bulk.tensor.3d, tile mode) of K slice
/// `kTile` of A (`lhs`) or B of batch `batch` into the swizzled tile at
/// `tileBase`, completing on the mbarrier `full`: one box of 128 bytes ×
/// `rows` per 128-byte column of the tile (the tensor maps of
/// TensorCoreKernels.h).
void loadTileWithTma(DeviceCodeBuilder &dc, const KernelState &state, bool lhs,
                     Value tensorMap, Value kTile, Value tileBase, Value full,
                     Value batch);

/// Emits the mma.sync main loop and epilogue of `state.spec`.
void emitMmaSyncGemm(DeviceCodeBuilder &dc, const KernelState &state);

/// Emits the wgmma main loop and epilogue of `state.spec`.
void emitWgmmaGemm(DeviceCodeBuilder &dc, const KernelState &state);

/// Emits the warp-specialized TMA main loop (WgmmaTmaKernel.cpp) and the
/// wgmma epilogue of `state.spec` (`useTma`), reading the tensor maps at
/// `lhsTensorMap` and `rhsTensorMap`.
void emitWgmmaTmaGemm(DeviceCodeBuilder &dc, const KernelState &state,
                      Value lhsTensorMap, Value rhsTensorMap);

/// Emits the tcgen05 Tensor Memory allocation, main loop, epilogue and
/// deallocation of `state.spec`; with `useTma` its K slices are loaded by
/// TMA from the tensor maps at `lhsTensorMap` and `rhsTensorMap`.
void emitTcgen05Gemm(DeviceCodeBuilder &dc, const KernelState &state,
                     Value lhsTensorMap, Value rhsTensorMap);

} // namespace mlir::mp

#endif // LIB_CONVERSION_MPTONVVM_KERNELCODEGEN_H
