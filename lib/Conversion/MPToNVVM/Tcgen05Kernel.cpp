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
// - K loop (emitPipelinedKLoop): the cp.async ring of the wgmma kernels, with
//   the same 128-byte-swizzled tiles (K-major; MN-major for 16-bit operands).
//   Each slice: wait for its copies, round TF32 in place, fence.proxy.async
//   (the MMA reads through the async proxy), wait for the MMA of the previous
//   slice (mbarrier phase kTile - 1: the copy after the barrier refills the
//   stage it read), barrier, then thread 0 issues one tcgen05.mma per K step
//   (enable-input-d false on the very first) and tcgen05.commit to the
//   mbarrier. One MMA group is in flight while the next slice's copies land.
// - Epilogue: wait for the last phase; warp w reads lanes 32w .. 32w + 31
//   (the quarter of Tensor Memory a warp may access) 16 columns at a time
//   with tcgen05.ld.32x32b.x16, thread t of the block holding row t, and
//   stores through emitEpilogueStore (bias, rounding, activation). K = 0
//   stores zeros (no MMA ran).
// - Teardown: barrier between the tcgen05 fences, warp 0 deallocates.
//
// Descriptors (PTX ISA, "tcgen05 Matrix Descriptors"): the shared-memory
// descriptors are the wgmma ones in the tcgen05 format (version 1 in bits
// 46-48, 128-byte swizzle = 2 in bits 61-63); the 32-bit instruction
// descriptor holds the D type (bits 4-5), A and B types (7-9, 10-12), the
// transpose bits of MN-major A and B (15, 16), N >> 3 (17-22) and M >> 4
// (24-28).
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
  case TensorCoreFormat::e2m3: // block-scaled mma.sync only
  case TensorCoreFormat::e3m2:
  case TensorCoreFormat::e2m1:
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

void mlir::mp::emitTcgen05Gemm(DeviceCodeBuilder &dc,
                               const KernelState &state) {
  const TensorCoreKernelSpec &spec = state.spec;
  MLIRContext *context = dc.b.getContext();
  OpBuilder &b = dc.b;
  Location loc = dc.loc;
  int64_t elementBytes = getFormatByteWidth(spec.lhsFormat);
  int64_t kSteps = spec.blockK * elementBytes / 32;
  auto ctaGroup =
      NVVM::CTAGroupKindAttr::get(context, NVVM::CTAGroupKind::CTA_1);
  auto fence = [&](NVVM::Tcgen05FenceKind kind) {
    NVVM::Tcgen05FenceOp::create(
        b, loc, NVVM::Tcgen05FenceKindAttr::get(context, kind));
  };
  auto tensorPointer = [&](Value address) -> Value {
    return LLVM::IntToPtrOp::create(
        b, loc, LLVM::LLVMPointerType::get(context, 6), address);
  };

  // Behind the stages: the mbarrier (8 bytes), then the Tensor Memory
  // address.
  Value barrier = dc.offset(state.sharedMemory, spec.stages * state.stageBytes);
  Value addressSlot = dc.offset(barrier, 8);
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
    NVVM::FenceMbarrierInitOp::create(b, loc);
  });
  fence(NVVM::Tcgen05FenceKind::BEFORE_THREAD_SYNC);
  NVVM::Barrier0Op::create(b, loc);
  fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
  Value tensorBase = dc.load(dc.i32, addressSlot);
  Value accumulator = tensorPointer(tensorBase);

  int64_t lhsFields = getMatrixDescriptorFields(
      state.lhsTile, spec.lhsKContiguous, /*tcgen05=*/true);
  int64_t rhsFields = getMatrixDescriptorFields(
      state.rhsTile, spec.rhsKContiguous, /*tcgen05=*/true);
  auto kind =
      NVVM::Tcgen05MMAKindAttr::get(context, getTcgen05Kind(spec.lhsFormat));
  auto collector = NVVM::Tcgen05MMACollectorOpAttr::get(
      context, NVVM::Tcgen05MMACollectorOp::DISCARD);
  bool tf32 = spec.lhsFormat == TensorCoreFormat::tf32;
  // The slice of the current iteration (afterWait runs before compute).
  Value currentKTile;
  emitPipelinedKLoop(
      dc, state, ValueRange{},
      [&](Value aStage, Value bStage, Value kTile) {
        currentKTile = kTile;
        // (Element copies round as they copy.)
        if (tf32 && spec.lhsRowsAligned)
          roundOwnedChunksToTF32(dc, state, /*lhs=*/true, aStage, kTile);
        if (tf32 && spec.rhsRowsAligned)
          roundOwnedChunksToTF32(dc, state, /*lhs=*/false, bStage, kTile);
        NVVM::FenceProxyOp::create(
            b, loc, NVVM::ProxyKind::async_shared,
            NVVM::SharedSpaceAttr::get(context, NVVM::SharedSpace::shared_cta));
        // The copy issued after the barrier refills the stage that the MMA
        // of the previous slice reads.
        dc.ifThen(dc.lessThan(dc.constI32(0), kTile), [&] {
          emitMBarrierWait(dc, barrier, dc.sub(kTile, dc.constI32(1)));
        });
      },
      [&](Value aStage, Value bStage, ValueRange) {
        dc.ifThen(firstThread, [&] {
          fence(NVVM::Tcgen05FenceKind::AFTER_THREAD_SYNC);
          Value idesc = dc.constI32(getInstructionDescriptor(spec));
          Value notFirstSlice = dc.lessThan(dc.constI32(0), currentKTile);
          Value always = arith::ConstantIntOp::create(b, loc, 1, 1);
          for (int64_t kStep = 0; kStep < kSteps; ++kStep) {
            Value aDescriptor = emitMatrixDescriptor(
                dc,
                dc.offset(aStage, getKStepOffset(state.lhsTile,
                                                 spec.lhsKContiguous, kStep)),
                lhsFields);
            Value bDescriptor = emitMatrixDescriptor(
                dc,
                dc.offset(bStage, getKStepOffset(state.rhsTile,
                                                 spec.rhsKContiguous, kStep)),
                rhsFields);
            NVVM::Tcgen05MMAOp::create(
                b, loc, kind, ctaGroup, collector, /*aShift=*/nullptr,
                accumulator, aDescriptor, bDescriptor, idesc,
                kStep == 0 ? notFirstSlice : always,
                /*scaleInputD=*/Value(), /*disableOutputLane=*/Value());
          }
          NVVM::Tcgen05CommitOp::create(b, loc, barrier,
                                        /*multicastMask=*/Value(), ctaGroup);
        });
        return SmallVector<Value>{};
      });
  dc.ifThen(dc.lessThan(dc.constI32(0), state.numKTiles), [&] {
    emitMBarrierWait(dc, barrier, dc.sub(state.numKTiles, dc.constI32(1)));
  });
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
