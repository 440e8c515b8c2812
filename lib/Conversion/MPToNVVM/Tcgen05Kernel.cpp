//===- Tcgen05Kernel.cpp - Blackwell tcgen05.mma GEMM main loop -----------===//
//
// The main loop and epilogue of the sm_100a kernels. A block of 128 threads
// (4 warps) computes a 128 × block-n tile of C with `tcgen05.mma.cta_group::1`
// (M = 128, N = block-n, 32 bytes of K per instruction: kind::f16 for f16 and
// bf16, kind::tf32, kind::f8f6f4 for e4m3 and e5m2 in any pairing, kind::i8
// for s8), whose accumulator lives in Tensor Memory: row r of the tile in
// lane r, column c in column c of the block's allocation (f32 or s32).
//
// - Prologue: warp 0 allocates `tensorMemoryColumns()` columns
//   (tcgen05.alloc writes the Tensor Memory address to shared memory) and
//   relinquishes the allocation permit; thread 0 initialises one mbarrier
//   (arrival count 1) behind the stages. A block barrier between
//   tcgen05.fence::before_thread_sync and ::after_thread_sync publishes both.
// - K loop with TMA (`useTma`: rows of A and B spanning a multiple of 16
//   bytes): the tiles of the wgmma kernels, loaded by thread 0 with
//   loadTileWithTma (WgmmaTmaKernel.cpp) into a ring of `stages` stages, each
//   with a "full" mbarrier (arrive.expect_tx by the stage's bytes; the TMA
//   transactions complete it) and an "empty" one (the tcgen05.commit of the
//   slice's MMAs completes it). Thread 0 loads the first `stages` slices,
//   then per slice k in stage s = k % stages: waits for phase k / stages of
//   full[s], issues the MMAs, commits them to empty[s], and once the MMAs of
//   slice k - 1 are done (empty[(k - 1) % stages]; slice k's stay queued)
//   refills their stage with slice k - 1 + stages. Kernels with per-slice
//   work for every thread (TF32 rounding in shared memory, block scaling)
//   run the loop in every thread: wait for full[s], do the work, barrier,
//   then thread 0 issues; otherwise threads 1..127 go straight to the
//   epilogue's wait. A last commit to the first mbarrier (phase 0) tells
//   every thread the accumulator is complete. One mbarrier phase is never
//   more than one behind a waiter, so the parity waits are exact.
// - K loop without TMA (emitPipelinedKLoop): the cp.async ring of the wgmma
//   kernels. Each slice: wait for its copies, round TF32 in place,
//   fence.proxy.async (the MMA reads through the async proxy), wait for the
//   MMA of the previous slice (mbarrier phase kTile - 1: the copy after the
//   barrier refills the stage it read), barrier, then thread 0 issues one
//   tcgen05.mma per K step (enable-input-d false on the very first) and
//   tcgen05.commit to the mbarrier. One MMA group is in flight while the
//   next slice's copies land.
// - Epilogue: wait for the last phase; warp w reads lanes 32w .. 32w + 31
//   (the quarter of Tensor Memory a warp may access) 16 columns at a time
//   with tcgen05.ld.32x32b.x16, thread t of the block holding row t, and
//   stores through emitEpilogueStore (bias, rounding, activation). K = 0
//   stores zeros (no MMA ran).
// - Teardown: barrier between the tcgen05 fences, warp 0 deallocates.
//
// Block-scaled kernels (mp.scaled_matmul): tcgen05.mma.cta_group::1
// .kind::mxf8f6f4.block_scale.block32 (FP8, FP6 and FP4 in any pairing but
// FP4 x FP4, K = 32 per instruction; FP6 and FP4 operands rewritten in place
// into the padded shared-memory form of the PTX ISA, 16 packed elements per
// 16-byte chunk, by packOwnedChunksForF8F6F4),
// .kind::mxf4.block_scale.block32 or .kind::mxf4nvf4.block_scale.block16
// (packed FP4, K = 64). The scale factors follow the layout of CUTLASS
// (include/cutlass/detail/sm100_blockscaled_layout.hpp, Sm1xxBlockScaledConfig
// and its SfKMajorAtom; include/cute/atom/mma_traits_sm100_frag.hpp,
// tmem_sf_frg) and Triton (lib/Dialect/TritonGPU/IR/LinearLayoutConversions.cpp,
// tensorMemoryScalesToLinearLayout; the scale-factor ids of
// third_party/nvidia/lib/TritonNVIDIAGPUToLLVM/DotOpToLLVM/MMAv5.cpp), which
// agree: per 128 rows of A (B) and 4 consecutive scale blocks along K, one
// 512-byte atom in shared memory holding the scale of row r, block j at
// byte 16 (r % 32) + 4 (r / 32) + j; `tcgen05.cp.cta_group::1.32x128b
// .warpx4` (CUTLASS SM100_UTCCP_4x32dp128bit) copies its 32 rows of 16 bytes
// to lanes 0..31 of 4 columns and replicates them in the other three lane
// quarters, so that row r's scale of block j is at lane r (and r % 32 + 32q),
// column (atom column) + r / 32, byte j. An instruction covering blocks j ..
// j + V - 1 of an atom (V = 1 for mxf8f6f4, 2 for mxf4, 4 for mxf4nvf4) names
// the atom's first column and scale-factor id j (instruction descriptor bits
// 29-30 for A, 4-5 for B).
// - Every K slice, after the wait for the previous slice's MMAs (which read
//   the same shared-memory atoms and packed tiles): thread t gathers the
//   scales of A's row t and of B's rows t, t + 128 from the row-major scale
//   tensors (1.0 outside the matrix), 4 blocks at a time, into the atoms;
//   packed-FP4 kernels also pack each 16-byte chunk the thread copied (16
//   elements, one per byte) into 8 bytes of the packed copy of the slice,
//   which has the stage's swizzled layout with half the row length; then
//   fence.proxy.async.
// - Thread 0 issues the tcgen05.cp of every atom into the scale columns
//   behind the accumulator (A's, then B's), then the MMAs: tcgen05.cp and
//   tcgen05.mma of one thread execute in order, and the commit covers both.
//
// Descriptors (PTX ISA, "tcgen05 Matrix Descriptors"): the shared-memory
// descriptors are the wgmma ones in the tcgen05 format (version 1 in bits
// 46-48, 128-byte swizzle = 2 in bits 61-63); the 32-bit instruction
// descriptor holds the D type (bits 4-5), A and B types (7-9, 10-12), the
// transpose bits of MN-major A and B (15, 16), N >> 3 (17-22) and M >> 4
// (24-28). The block-scaled descriptor (CUTLASS include/cute/arch/
// mma_sm100_desc.hpp, InstrDescriptorBlockScaled; Triton MMAv5.cpp) has B's
// scale-factor id in bits 4-5 instead of the D type (always f32), the scale
// type in bit 23 (E4M3 = 0, E8M0 = 1) and A's scale-factor id in bits 29-30;
// kind::mxf4 and mxf4nvf4 code E2M1 as 1. The scale atoms' descriptors for
// tcgen05.cp: no swizzle, 8-row core matrices 128 bytes apart (stride byte
// offset 128, leading byte offset 0), version 1.
//
//===----------------------------------------------------------------------===//

#include "KernelCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::mp;

/// The tcgen05.mma kind that multiplies `format`.
static NVVM::Tcgen05MMAKind getTcgen05Kind(TensorCoreFormat format) {
  switch (format) {
  case TensorCoreFormat::f16:
  case TensorCoreFormat::bf16:
    return NVVM::Tcgen05MMAKind::F16;
  case TensorCoreFormat::tf32:
    return NVVM::Tcgen05MMAKind::TF32;
  case TensorCoreFormat::e4m3:
  case TensorCoreFormat::e5m2:
    return NVVM::Tcgen05MMAKind::F8F6F4;
  case TensorCoreFormat::s8:
    return NVVM::Tcgen05MMAKind::I8;
  case TensorCoreFormat::e2m3: // block-scaled mma.sync only
  case TensorCoreFormat::e3m2:
  case TensorCoreFormat::e2m1:
  case TensorCoreFormat::automatic:
    break;
  }
  llvm_unreachable("format not resolved");
}

/// The A/B type code of `format` in an instruction descriptor of its kind.
static uint32_t getTcgen05TypeCode(TensorCoreFormat format) {
  switch (format) {
  case TensorCoreFormat::f16:  // kind::f16: F16 = 0
  case TensorCoreFormat::e4m3: // kind::f8f6f4: E4M3 = 0
    return 0;
  case TensorCoreFormat::bf16: // kind::f16: BF16 = 1
  case TensorCoreFormat::e5m2: // kind::f8f6f4: E5M2 = 1
  case TensorCoreFormat::s8:   // kind::i8: signed = 1
    return 1;
  case TensorCoreFormat::tf32: // kind::tf32: TF32 = 2
    return 2;
  case TensorCoreFormat::e2m3: // kind::(mx)f8f6f4: E2M3 = 3
    return 3;
  case TensorCoreFormat::e3m2: // E3M2 = 4
    return 4;
  case TensorCoreFormat::e2m1: // E2M1 = 5 (kind::mxf4, mxf4nvf4: see below)
    return 5;
  case TensorCoreFormat::automatic:
    break;
  }
  llvm_unreachable("format not resolved");
}

/// The instruction descriptor of the kernel's tcgen05.mma.
static uint32_t getInstructionDescriptor(const TensorCoreKernelSpec &spec) {
  uint32_t dType = spec.accType.isInteger() ? 2 : 1; // S32 = 2, F32 = 1
  return dType << 4 | getTcgen05TypeCode(spec.lhsFormat) << 7 |
         getTcgen05TypeCode(spec.rhsFormat) << 10 |
         uint32_t(!spec.lhsKContiguous) << 15 |
         uint32_t(!spec.rhsKContiguous) << 16 |
         uint32_t(spec.blockN >> 3) << 17 | uint32_t(spec.blockM >> 4) << 24;
}

/// The instruction descriptor of a block-scaled tcgen05.mma whose
/// instruction reads scale blocks `lhsFactor` / `rhsFactor` (the
/// scale-factor ids, bytes of a Tensor Memory column) of A's and B's atoms.
static uint32_t getBlockScaledInstructionDescriptor(
    const TensorCoreKernelSpec &spec, uint32_t lhsFactor, uint32_t rhsFactor) {
  auto typeCode = [&](TensorCoreFormat format) -> uint32_t {
    if (spec.packsFP4())
      return 1; // kind::mxf4, mxf4nvf4: E2M1 = 1
    return getTcgen05TypeCode(format);
  };
  return rhsFactor << 4 | typeCode(spec.lhsFormat) << 7 |
         typeCode(spec.rhsFormat) << 10 | uint32_t(spec.blockN >> 3) << 17 |
         uint32_t(!spec.scalesE4M3) << 23 | uint32_t(spec.blockM >> 4) << 24 |
         lhsFactor << 29;
}

/// The byte offset, in a tile of `rows` rows laid out as the stages are
/// (columns of 128-byte rows, 16-byte chunk c of row r at c ^ (r % 8)), of
/// byte `byte` (i32) of row `row` (i32).
static Value getSwizzledOffset(DeviceCodeBuilder &dc, int64_t rows, Value row,
                               Value byte) {
  Value chunk = dc.div(byte, 16);
  Value swizzled = dc.bitXor(dc.rem(chunk, 8), dc.rem(row, 8));
  return dc.add(dc.add(dc.mul(dc.div(chunk, 8), rows * 128), dc.mul(row, 128)),
                dc.add(dc.mul(swizzled, 16), dc.rem(byte, 16)));
}

/// Packs the chunks of K slice `kTile` of A (`lhs`) or B that this thread
/// copied into the stage tile at `stageTile` (16 FP4 elements, one per byte)
/// into 8 bytes each of the packed tile at `packedTile`.
static void packOwnedChunksToFP4(DeviceCodeBuilder &dc,
                                 const KernelState &state, bool lhs,
                                 Value stageTile, Value packedTile,
                                 Value kTile) {
  const SharedTileGeometry &tile = lhs ? state.lhsTile : state.rhsTile;
  auto wordsType = VectorType::get({4}, dc.i32);
  auto packedType = VectorType::get({2}, dc.i32);
  forEachOwnedChunk(
      dc, state, lhs, kTile, [&](Value sharedOffset, Value, Value) {
        // Undo the swizzle: the chunk's row and its index in the row.
        Value inColumn = dc.rem(sharedOffset, tile.rows * 128);
        Value row = dc.div(inColumn, 128);
        Value chunk = dc.add(
            dc.mul(dc.div(sharedOffset, tile.rows * 128), 8),
            dc.bitXor(dc.div(dc.rem(inColumn, 128), 16), dc.rem(row, 8)));
        Value words = LLVM::LoadOp::create(
            dc.b, dc.loc, wordsType, dc.offset(stageTile, sharedOffset), 16);
        auto word = [&](int64_t i) {
          return LLVM::ExtractElementOp::create(dc.b, dc.loc, words,
                                                dc.constI32(i));
        };
        Value packed = LLVM::UndefOp::create(dc.b, dc.loc, packedType);
        for (int64_t i = 0; i < 2; ++i)
          packed = LLVM::InsertElementOp::create(
              dc.b, dc.loc, packed,
              packLowNibbles(dc, word(2 * i), word(2 * i + 1)),
              dc.constI32(i));
        Value offset =
            getSwizzledOffset(dc, tile.rows, row, dc.mul(chunk, 8));
        LLVM::StoreOp::create(dc.b, dc.loc, packed,
                              dc.offset(packedTile, offset), 8);
      });
}

/// kind::mxf8f6f4 with FP6 or FP4 operands: rewrites, in place, each 16-byte
/// chunk of K slice `kTile` of A (`lhs`) or B that this thread owns in the
/// stage tile at `stageTile` (16 elements, one per byte, as memory holds
/// them) into the padded shared-memory form the MMA reads (PTX ISA, "Packing
/// formats of elements in Tensor and Shared memory"; the `.b4x16_p64` /
/// `.b6x16_p32` layouts of TMA's sub-byte types): the 16 elements packed
/// contiguously from the chunk's first bit (element e at bits 4e or 6e,
/// little-endian), then 64 (FP4) or 32 (FP6) bits of padding, written as
/// zeros.
static void packOwnedChunksForF8F6F4(DeviceCodeBuilder &dc,
                                     const KernelState &state, bool lhs,
                                     Value stageTile, Value kTile) {
  TensorCoreFormat format = lhs ? state.spec.lhsFormat : state.spec.rhsFormat;
  int64_t bits = format == TensorCoreFormat::e2m1   ? 4
                 : format == TensorCoreFormat::e2m3 ? 6
                 : format == TensorCoreFormat::e3m2 ? 6
                                                    : 8;
  if (bits == 8)
    return;
  auto wordsType = VectorType::get({4}, dc.i32);
  forEachOwnedChunk(dc, state, lhs, kTile, [&](Value sharedOffset, Value,
                                               Value) {
    Value address = dc.offset(stageTile, sharedOffset);
    Value words =
        LLVM::LoadOp::create(dc.b, dc.loc, wordsType, address, 16);
    auto word = [&](int64_t i) -> Value {
      return LLVM::ExtractElementOp::create(dc.b, dc.loc, words,
                                            dc.constI32(i));
    };
    SmallVector<Value, 4> packed(4, dc.constI32(0));
    if (bits == 4) {
      packed[0] = packLowNibbles(dc, word(0), word(1));
      packed[1] = packLowNibbles(dc, word(2), word(3));
    } else {
      for (int64_t e = 0; e < 16; ++e) {
        Value element = dc.bitAnd(
            arith::ShRUIOp::create(dc.b, dc.loc, word(e / 4),
                                   dc.constI32(8 * (e % 4))),
            dc.constI32(0x3F));
        int64_t first = 6 * e, index = first / 32, shift = first % 32;
        packed[index] = dc.bitOr(packed[index], dc.shl(element, shift));
        if (shift > 26) // the element continues in the next word
          packed[index + 1] = dc.bitOr(
              packed[index + 1],
              arith::ShRUIOp::create(dc.b, dc.loc, element,
                                     dc.constI32(32 - shift)));
      }
    }
    Value result = LLVM::UndefOp::create(dc.b, dc.loc, wordsType);
    for (int64_t i = 0; i < 4; ++i)
      result = LLVM::InsertElementOp::create(dc.b, dc.loc, result, packed[i],
                                             dc.constI32(i));
    LLVM::StoreOp::create(dc.b, dc.loc, result, address, 16);
  });
}

/// Gathers the scales of K slice `kTile` of A (`lhs`) or B into the 512-byte
/// atoms at `atoms` (see the file comment): thread t writes the 4 scales of
/// each group for rows t, t + 128, ... of the block's tile.
static void stageScaleAtoms(DeviceCodeBuilder &dc, const KernelState &state,
                            bool lhs, Value atoms, Value kTile) {
  const TensorCoreKernelSpec &spec = state.spec;
  int64_t rowAtoms = llvm::divideCeil(lhs ? spec.blockM : spec.blockN, 128);
  Value origin = lhs ? state.blockRow : state.blockColumn;
  Value t = state.threadId;
  Value inAtom = dc.add(dc.mul(dc.rem(t, 32), 16), dc.mul(dc.div(t, 32), 4));
  Value firstBlock = dc.mul(kTile, spec.blockK / spec.scaleBlockK);
  for (int64_t group = 0; group < spec.scaleGroups(); ++group) {
    for (int64_t atom = 0; atom < rowAtoms; ++atom) {
      Value word =
          loadScaleVector(dc, state, lhs, dc.add(origin, dc.add(t, 128 * atom)),
                          dc.add(firstBlock, 4 * group), 4);
      dc.store(word, dc.offset(atoms, dc.add(inAtom, (group * rowAtoms + atom) *
                                                         512)));
    }
  }
}

/// Issues one block-scaled tcgen05.mma of `spec`'s kind.
static void emitTcgen05BlockScaledMma(DeviceCodeBuilder &dc,
                                      const TensorCoreKernelSpec &spec,
                                      Value accumulator, Value aDescriptor,
                                      Value bDescriptor, Value idesc,
                                      Value enableInputD, Value lhsScales,
                                      Value rhsScales) {
  NVVM::MMABlockScaleKind kind = NVVM::MMABlockScaleKind::MXF8F6F4;
  NVVM::Tcgen05MMABlockScale block = NVVM::Tcgen05MMABlockScale::BLOCK32;
  switch (spec.blockScale) {
  case BlockScaleKind::mxf8f6f4:
    break;
  case BlockScaleKind::mxf4:
    kind = NVVM::MMABlockScaleKind::MXF4;
    break;
  case BlockScaleKind::mxf4nvf4:
    kind = NVVM::MMABlockScaleKind::MXF4NVF4;
    block = NVVM::Tcgen05MMABlockScale::BLOCK16;
    break;
  case BlockScaleKind::none:
    llvm_unreachable("not a block-scaled kernel");
  }
  NVVM::Tcgen05MMABlockScaleOp::create(
      dc.b, dc.loc, kind, NVVM::CTAGroupKind::CTA_1, block,
      NVVM::Tcgen05MMACollectorOp::DISCARD, accumulator, aDescriptor,
      bDescriptor, idesc, enableInputD, lhsScales, rhsScales);
}

/// Blocks until phase `index` (i32) of the mbarrier at `barrier` has
/// completed (try_wait on its parity, in a loop).
void mlir::mp::emitMBarrierWait(DeviceCodeBuilder &dc, Value barrier,
                                Value index) {
  Value parity = dc.rem(index, 2);
  MLIRContext *context = dc.b.getContext();
  scf::WhileOp::create(
      dc.b, dc.loc, TypeRange{}, ValueRange{},
      [&](OpBuilder &b, Location loc, ValueRange) {
        Value done = NVVM::MBarrierTryWaitOp::create(
            b, loc, b.getI1Type(), barrier, parity, /*ticks=*/Value(),
            NVVM::MemScopeKindAttr::get(context, NVVM::MemScopeKind::CTA));
        Value pending = arith::XOrIOp::create(
            b, loc, done, arith::ConstantIntOp::create(b, loc, 1, 1));
        scf::ConditionOp::create(b, loc, pending, ValueRange{});
      },
      [&](OpBuilder &b, Location loc, ValueRange) {
        scf::YieldOp::create(b, loc);
      });
}

void mlir::mp::emitTcgen05Gemm(DeviceCodeBuilder &dc, const KernelState &state,
                               Value lhsTensorMap, Value rhsTensorMap) {
  const TensorCoreKernelSpec &spec = state.spec;
  MLIRContext *context = dc.b.getContext();
  OpBuilder &b = dc.b;
  Location loc = dc.loc;
  int64_t elementBytes = getFormatByteWidth(spec.lhsFormat);
  int64_t kSteps = spec.blockK * elementBytes / 32;
  int64_t stages = spec.stages;
  auto ctaGroup =
      NVVM::CTAGroupKindAttr::get(context, NVVM::CTAGroupKind::CTA_1);
  auto fence = [&](NVVM::Tcgen05FenceKind kind) {
    NVVM::Tcgen05FenceOp::create(
        b, loc, NVVM::Tcgen05FenceKindAttr::get(context, kind));
  };
  auto fenceProxyAsync = [&] {
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
  };
  auto tensorPointer = [&](Value address) -> Value {
    return LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(context, 6), address);
  };

  // Behind the stages: (block-scaled) the packed FP4 tiles of A and B and the
  // scale atoms of A and B, then the mbarrier (8 bytes) and the Tensor Memory
  // address; with TMA then a "full" and an "empty" mbarrier per stage.
  bool blockScaled = spec.isBlockScaled();
  Value lhsPacked =
      dc.offset(state.sharedMemory, stages * state.stageBytes);
  Value rhsPacked = dc.offset(lhsPacked, spec.packedTileBytes(/*lhs=*/true));
  Value lhsAtoms = dc.offset(rhsPacked, spec.packedTileBytes(/*lhs=*/false));
  int64_t lhsAtomBytes = blockScaled ? spec.scaleColumns(/*lhs=*/true) / 4 * 512
                                     : 0;
  Value rhsAtoms = dc.offset(lhsAtoms, lhsAtomBytes);
  Value barrier = dc.offset(
      lhsAtoms, blockScaled ? spec.scaleStagingBytes() : int64_t(0));
  Value addressSlot = dc.offset(barrier, 8);
  auto fullBarrier = [&](Value stage) {
    return dc.offset(barrier, dc.add(dc.mul(stage, 8), 16));
  };
  auto emptyBarrier = [&](Value stage) {
    return dc.offset(barrier, dc.add(dc.mul(stage, 8), 16 + 8 * stages));
  };
  Value columns = dc.constI32(spec.tensorMemoryColumns());
  Value firstWarp = dc.lessThan(state.threadId, dc.constI32(32));
  Value firstThread = dc.lessThan(state.threadId, dc.constI32(1));
  dc.ifThen(firstWarp, [&] {
    NVVM::Tcgen05AllocOp::create(b, loc, addressSlot, columns, ctaGroup);
    NVVM::Tcgen05RelinquishAllocPermitOp::create(b, loc, ctaGroup);
  });
  dc.ifThen(firstThread, [&] {
    NVVM::MBarrierInitOp::create(b, loc, barrier, dc.constI32(1),
                                 /*predicate=*/Value());
    for (int64_t stage = 0; spec.useTma && stage < stages; ++stage)
      for (Value stageBarrier : {fullBarrier(dc.constI32(stage)),
                                 emptyBarrier(dc.constI32(stage))})
        NVVM::MBarrierInitOp::create(b, loc, stageBarrier, dc.constI32(1),
                                     /*predicate=*/Value());
    NVVM::FenceMbarrierInitOp::create(b, loc);
  });
  fence(NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  NVVM::Barrier0Op::create(b, loc);
  fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  Value tensorBase = dc.load(dc.i32, addressSlot);
  Value accumulator = tensorPointer(tensorBase);

  // The tiles the MMA reads: the stage's, or their packed FP4 copies (half
  // the row length).
  bool packed = spec.packsFP4();
  SharedTileGeometry lhsTile = state.lhsTile, rhsTile = state.rhsTile;
  if (packed) {
    lhsTile.rowBytes /= 2;
    rhsTile.rowBytes /= 2;
  }
  int64_t lhsFields = getMatrixDescriptorFields(lhsTile, spec.lhsKContiguous,
                                                /*tcgen05=*/true);
  int64_t rhsFields = getMatrixDescriptorFields(rhsTile, spec.rhsKContiguous,
                                                /*tcgen05=*/true);
  auto collector = NVVM::Tcgen05MMACollectorOpAttr::get(
      context, NVVM::Tcgen05MMACollectorOp::DISCARD);
  bool tf32 = spec.lhsFormat == TensorCoreFormat::tf32;
  if (blockScaled)
    kSteps = spec.blockK / spec.blockScaledInstructionK();
  // Block-scaled: the scale columns behind the accumulator's block-n, and
  // the scale blocks one instruction reads.
  Value lhsScaleColumns = dc.add(tensorBase, spec.blockN);
  Value rhsScaleColumns =
      dc.add(lhsScaleColumns, blockScaled ? spec.scaleColumns(true) : 0);
  int64_t lhsRowAtoms = llvm::divideCeil(spec.blockM, 128);
  int64_t rhsRowAtoms = llvm::divideCeil(spec.blockN, 128);
  int64_t blocksPerInstruction =
      blockScaled ? spec.blockScaledInstructionK() / spec.scaleBlockK : 0;

  // Every thread, once slice `kTile` is in the stage tiles: TF32 rounding
  // in place (element copies round as they copy).
  auto roundSlice = [&](Value aStage, Value bStage, Value kTile) {
    if (tf32 && spec.lhsRowsAligned)
      roundOwnedChunksToTF32(dc, state, /*lhs=*/true, aStage, kTile);
    if (tf32 && spec.rhsRowsAligned)
      roundOwnedChunksToTF32(dc, state, /*lhs=*/false, bStage, kTile);
  };
  // Every thread, block-scaled, once the MMAs of the previous slice (which
  // read the packed tiles and the scale atoms) have completed: packs the FP4
  // chunks it owns and gathers its scales into the atoms.
  auto stageBlockScaling = [&](Value aStage, Value bStage, Value kTile) {
    if (packed) {
      packOwnedChunksToFP4(dc, state, /*lhs=*/true, aStage, lhsPacked, kTile);
      packOwnedChunksToFP4(dc, state, /*lhs=*/false, bStage, rhsPacked, kTile);
    } else {
      packOwnedChunksForF8F6F4(dc, state, /*lhs=*/true, aStage, kTile);
      packOwnedChunksForF8F6F4(dc, state, /*lhs=*/false, bStage, kTile);
    }
    stageScaleAtoms(dc, state, /*lhs=*/true, lhsAtoms, kTile);
    stageScaleAtoms(dc, state, /*lhs=*/false, rhsAtoms, kTile);
    fenceProxyAsync();
  };
  // Thread 0: the tcgen05.cp of the slice's scale atoms, its MMAs, and the
  // commit of both to `commitBarrier`.
  auto issueSlice = [&](Value aStage, Value bStage, Value kTile,
                        Value commitBarrier) {
    if (packed) {
      aStage = lhsPacked;
      bStage = rhsPacked;
    }
    fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    if (blockScaled) {
      // Every atom of the slice into its 4 columns.
      int64_t atomFields = int64_t(128 >> 4) << 32 | int64_t(1) << 46;
      auto copyAtoms = [&](Value atoms, Value columns, int64_t count) {
        for (int64_t atom = 0; atom < count; ++atom)
          NVVM::Tcgen05CpOp::create(
              b, loc, NVVM::Tcgen05CpShape::SHAPE_32x128b,
              NVVM::CTAGroupKind::CTA_1, NVVM::Tcgen05CpMulticast::WARPX4,
              /*srcFormat=*/nullptr, tensorPointer(dc.add(columns, 4 * atom)),
              emitMatrixDescriptor(dc, dc.offset(atoms, 512 * atom),
                                   atomFields));
      };
      copyAtoms(lhsAtoms, lhsScaleColumns, spec.scaleColumns(true) / 4);
      copyAtoms(rhsAtoms, rhsScaleColumns, spec.scaleColumns(false) / 4);
    }
    Value notFirstSlice = dc.lessThan(dc.constI32(0), kTile);
    Value always = arith::ConstantIntOp::create(b, loc, 1, 1);
    for (int64_t kStep = 0; kStep < kSteps; ++kStep) {
      Value aDescriptor = emitMatrixDescriptor(
          dc,
          dc.offset(aStage,
                    getKStepOffset(lhsTile, spec.lhsKContiguous, kStep)),
          lhsFields);
      Value bDescriptor = emitMatrixDescriptor(
          dc,
          dc.offset(bStage,
                    getKStepOffset(rhsTile, spec.rhsKContiguous, kStep)),
          rhsFields);
      Value enableInputD = kStep == 0 ? notFirstSlice : always;
      if (!blockScaled) {
        NVVM::Tcgen05MMAOp::create(
            b, loc,
            NVVM::Tcgen05MMAKindAttr::get(context,
                                          getTcgen05Kind(spec.lhsFormat)),
            ctaGroup, collector, /*aShift=*/nullptr, accumulator, aDescriptor,
            bDescriptor, dc.constI32(getInstructionDescriptor(spec)),
            enableInputD,
            /*scaleInputD=*/Value(), /*disableOutputLane=*/Value());
        continue;
      }
      // Scale block `first` of the slice: group first / 4 (the atoms
      // of its 4 columns), scale-factor id first % 4.
      int64_t first = kStep * blocksPerInstruction;
      int64_t group = first / 4;
      uint32_t factor = first % 4;
      emitTcgen05BlockScaledMma(
          dc, spec, accumulator, aDescriptor, bDescriptor,
          dc.constI32(getBlockScaledInstructionDescriptor(spec, factor, factor)),
          enableInputD,
          tensorPointer(dc.add(lhsScaleColumns, group * lhsRowAtoms * 4)),
          tensorPointer(dc.add(rhsScaleColumns, group * rhsRowAtoms * 4)));
    }
    NVVM::Tcgen05CommitOp::create(b, loc, commitBarrier,
                                  /*multicastMask=*/Value(), ctaGroup);
  };

  if (!spec.useTma) {
    // The slice of the current iteration (afterWait runs before compute).
    Value currentKTile;
    emitPipelinedKLoop(
        dc, state, ValueRange{},
        [&](Value aStage, Value bStage, Value kTile) {
          currentKTile = kTile;
          roundSlice(aStage, bStage, kTile);
          fenceProxyAsync();
          // The copy issued after the barrier refills the stage that the
          // MMA of the previous slice reads (which also read the packed
          // tiles and the scale atoms rewritten next).
          dc.ifThen(dc.lessThan(dc.constI32(0), kTile), [&] {
            emitMBarrierWait(dc, barrier, dc.sub(kTile, dc.constI32(1)));
          });
          if (blockScaled)
            stageBlockScaling(aStage, bStage, kTile);
        },
        [&](Value aStage, Value bStage, ValueRange) {
          dc.ifThen(firstThread, [&] {
            issueSlice(aStage, bStage, currentKTile, barrier);
          });
          return SmallVector<Value>{};
        });
    dc.ifThen(dc.lessThan(dc.constI32(0), state.numKTiles), [&] {
      emitMBarrierWait(dc, barrier, dc.sub(state.numKTiles, dc.constI32(1)));
    });
  } else {
    // TMA ring: slice k in stage s = k % stages, round r = k / stages;
    // full[s] completes phase r when its bytes have landed, empty[s] when
    // the MMAs that read it have (their tcgen05.commit). Thread 0 loads and
    // issues; with per-slice work (TF32 rounding, block scaling) every
    // thread runs the loop, otherwise only thread 0 does and the others wait
    // for the accumulator.
    Value batch = NVVM::BlockIdZOp::create(b, loc, dc.i32);
    auto stagePointers = [&](Value stage) {
      Value aStage =
          dc.offset(state.sharedMemory, dc.mul(stage, state.stageBytes));
      return std::make_pair(aStage, dc.offset(aStage, state.lhsTile.bytes()));
    };
    auto loadSlice = [&](Value kTile, Value stage) {
      Value full = fullBarrier(stage);
      NVVM::MBarrierArriveExpectTxOp::create(
          b, loc, /*res=*/Type(), full, dc.constI32(state.stageBytes),
          NVVM::MemScopeKind::CTA, /*relaxed=*/false, /*predicate=*/Value());
      auto [aStage, bStage] = stagePointers(stage);
      loadTileWithTma(dc, state, /*lhs=*/true, lhsTensorMap, kTile, aStage,
                      full, batch);
      loadTileWithTma(dc, state, /*lhs=*/false, rhsTensorMap, kTile, bStage,
                      full, batch);
    };
    // Waits until the MMAs of slice `kTile` have completed.
    auto waitForSlice = [&](Value kTile) {
      emitMBarrierWait(dc, emptyBarrier(dc.rem(kTile, stages)),
                       dc.div(kTile, stages));
    };
    bool everyThread = tf32 || blockScaled;
    auto kLoop = [&] {
      scf::ForOp::create(
          b, loc, dc.constI32(0), state.numKTiles, dc.constI32(1),
          ValueRange{}, [&](OpBuilder &, Location, Value kTile, ValueRange) {
            Value stage = dc.rem(kTile, stages);
            emitMBarrierWait(dc, fullBarrier(stage), dc.div(kTile, stages));
            Value aStage, bStage;
            std::tie(aStage, bStage) = stagePointers(stage);
            Value notFirst = dc.lessThan(dc.constI32(0), kTile);
            Value previous = dc.sub(kTile, dc.constI32(1));
            if (everyThread) {
              roundSlice(aStage, bStage, kTile);
              if (blockScaled) {
                dc.ifThen(notFirst, [&] { waitForSlice(previous); });
                stageBlockScaling(aStage, bStage, kTile);
              } else {
                fenceProxyAsync();
              }
              NVVM::Barrier0Op::create(b, loc);
            }
            dc.ifThen(firstThread, [&] {
              issueSlice(aStage, bStage, kTile, emptyBarrier(stage));
              // Refill the stage of the previous slice once its MMAs are
              // done (this slice's stay queued behind them).
              Value refill = dc.add(previous, dc.constI32(stages));
              dc.ifThen(dc.bitAnd(notFirst,
                                  dc.lessThan(refill, state.numKTiles)),
                        [&] {
                          waitForSlice(previous);
                          loadSlice(refill, dc.rem(previous, stages));
                        });
            });
            scf::YieldOp::create(b, loc);
          });
    };
    dc.ifThen(firstThread, [&] {
      for (int64_t stage = 0; stage < stages; ++stage)
        dc.ifThen(dc.lessThan(dc.constI32(stage), state.numKTiles), [&] {
          loadSlice(dc.constI32(stage), dc.constI32(stage));
        });
      if (!everyThread)
        kLoop();
    });
    if (everyThread)
      kLoop();
    // The accumulator is complete once every MMA has: a last commit, to
    // the barrier nobody else uses, whose phase 0 every thread waits for.
    Value anySlice = dc.lessThan(dc.constI32(0), state.numKTiles);
    dc.ifThen(dc.bitAnd(firstThread, anySlice), [&] {
      NVVM::Tcgen05CommitOp::create(b, loc, barrier,
                                    /*multicastMask=*/Value(), ctaGroup);
    });
    dc.ifThen(anySlice, [&] { emitMBarrierWait(dc, barrier, dc.constI32(0)); });
  }
  fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);

  // Epilogue: thread t holds row t; warp w reads lanes 32w .. 32w + 31.
  Value warp = dc.div(state.threadId, 32);
  Value warpLanes = dc.add(tensorBase, dc.shl(dc.mul(warp, 32), 16));
  Value row = dc.add(state.blockRow, state.threadId);
  Value anyProduct = dc.lessThan(dc.constI32(0), state.numKTiles);
  bool integer = spec.accType.isInteger();
  Value zero = integer ? dc.constI32(0) : dc.constF32(0.0);
  constexpr int64_t chunk = 16;
  auto chunkType = VectorType::get({chunk}, dc.i32);
  auto shape = NVVM::Tcgen05LdStShapeAttr::get(
      context, NVVM::Tcgen05LdStShape::SHAPE_32X32B);
  for (int64_t first = 0; first < spec.blockN; first += chunk) {
    Value words = NVVM::Tcgen05LdOp::create(
        b, loc, chunkType, /*pack=*/nullptr, shape,
        tensorPointer(dc.add(warpLanes, first)), /*offset=*/Value());
    NVVM::Tcgen05WaitOp::create(
        b, loc,
        NVVM::Tcgen05WaitKindAttr::get(context, NVVM::Tcgen05WaitKind::LOAD));
    for (int64_t j = 0; j < chunk; ++j) {
      Value word =
          LLVM::ExtractElementOp::create(b, loc, words, dc.constI32(j));
      Value value =
          integer ? word : arith::BitcastOp::create(b, loc, dc.f32, word);
      value = dc.select(anyProduct, value, zero);
      emitEpilogueStore(dc, state, row, dc.add(state.blockColumn, first + j),
                        value);
    }
  }

  // Every warp has read its lanes before warp 0 frees the columns.
  fence(NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  NVVM::Barrier0Op::create(b, loc);
  dc.ifThen(firstWarp, [&] {
    fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
    NVVM::Tcgen05DeallocOp::create(b, loc, accumulator, columns, ctaGroup);
  });
}
