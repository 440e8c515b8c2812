//===- WgmmaTmaKernel.cpp - Warp-specialized TMA + wgmma main loop --------===//
//
// The main loop of the sm_90a kernels with `mainloop=tma-warp-specialized`,
// built the way CUTLASS 3.x's `sm90_mma_tma_gmma_ss_warpspecialized` and
// NVIDIA/tilus's v5 Hopper matmul are:
//
//   - Warpgroups 0 .. C-1 (C = block-m / 64) are consumers: warpgroup w
//     computes rows 64w .. 64w + 63 of the block tile with wgmma, as the
//     cp.async kernels do (WgmmaKernel.cpp), after `setmaxnreg.inc` to
//     `consumerRegisters()`. Warpgroup C is the producer: it gives registers
//     back (`setmaxnreg.dec` to 40) and one of its threads issues the TMA
//     loads.
//   - Shared memory: `stages` stages (A tile, then B tile, in the 128-byte
//     swizzled layout wgmma reads; TMA's SWIZZLE_128B writes exactly that
//     layout into 1024-byte aligned boxes), then a "full" mbarrier per stage
//     (count 1: the producer's arrive.expect_tx, plus the bytes of the
//     stage's TMA transactions) and an "empty" mbarrier per stage (count C:
//     one arrival per consumer warpgroup).
//   - Producer, slice k into stage s = k % stages, round r = k / stages: from
//     round 1 on, wait until phase r - 1 of empty[s] has completed (every
//     consumer warpgroup retired the wgmma that read the stage),
//     `mbarrier.arrive.expect_tx` full[s] by the stage's bytes, then one
//     `cp.async.bulk.tensor.3d` per 128-byte column of each operand tile
//     (coordinates: contiguous dimension, other dimension, batch), completing
//     on full[s]. TMA fills boxes past the tensor's edges with zeros, so
//     partial tiles need no predication.
//   - Consumer, slice k: wait for phase r of full[s]; `wgmma.fence`, the
//     slice's wgmma, `commit_group`; `wgmma.wait_group 1`, which retires the
//     group of slice k - 1 while slice k's stays in flight; then one thread
//     per warpgroup arrives on empty[(k - 1) % stages], handing that stage
//     back to the producer. After the loop, `wait_group 0` and the epilogue.
//   - FP8 promotion (`fp8PromoteInterval`): the consumers' loop is split into
//     windows of interval / (instructions per slice) slices; each window
//     accumulates from zero as above, ends with `wait_group 0`, and its
//     accumulator is added (add.f32) into a second register accumulator
//     that the epilogue stores. A slice's stage is still released at the
//     next slice, so every stage is handed back once.
//
// Assumes what the pass checks: wgmma can read both operands, their rows
// span a multiple of 16 bytes (TMA's global strides), the operands are not
// tf32 (those are rounded in shared memory), and the host made the tensor
// maps as TensorCoreKernels.h documents.
//
//===----------------------------------------------------------------------===//

#include "KernelCodegen.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::mp;

void mlir::mp::loadTileWithTma(DeviceCodeBuilder &dc, const KernelState &state,
                            bool lhs, Value tensorMap, Value kTile,
                            Value tileBase, Value full, Value batch) {
  const TensorCoreKernelSpec &spec = state.spec;
  const SharedTileGeometry &tile = lhs ? state.lhsTile : state.rhsTile;
  int64_t elementBytes =
      getFormatByteWidth(lhs ? spec.lhsFormat : spec.rhsFormat);
  bool kContiguous = lhs ? spec.lhsKContiguous : spec.rhsKContiguous;
  Value mnOrigin = lhs ? state.blockRow : state.blockColumn;
  Value kOrigin = getKSliceOrigin(dc, state, kTile);
  auto clusterPtr = LLVM::LLVMPointerType::get(dc.b.getContext(), 7);
  for (int64_t column = 0; column < tile.rowBytes / 128; ++column) {
    int64_t columnElements = column * 128 / elementBytes;
    Value inner = dc.add(kContiguous ? kOrigin : mnOrigin, columnElements);
    Value outer = kContiguous ? mnOrigin : kOrigin;
    Value destination = LLVM::AddrSpaceCastOp::create(
        dc.b, dc.loc, clusterPtr, dc.offset(tileBase, column * tile.rows * 128));
    NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
        dc.b, dc.loc, destination, tensorMap, ValueRange{inner, outer, batch},
        full, /*im2colOffsets=*/ValueRange{}, /*multicastMask=*/Value(),
        /*l2CacheHint=*/Value(), NVVM::TMALoadMode::TILE,
        /*isCTAOnly=*/false, /*group=*/nullptr, /*predicate=*/Value());
  }
}

void mlir::mp::emitWgmmaTmaGemm(DeviceCodeBuilder &dc, const KernelState &state,
                                Value lhsTensorMap, Value rhsTensorMap) {
  const TensorCoreKernelSpec &spec = state.spec;
  OpBuilder &b = dc.b;
  Location loc = dc.loc;
  int64_t stages = spec.stages;
  int64_t consumers = spec.blockM / 64;
  Value batch = state.batchIndex;

  Value barriers = dc.offset(state.sharedMemory, stages * state.stageBytes);
  auto fullBarrier = [&](Value stage) {
    return dc.offset(barriers, dc.mul(stage, 8));
  };
  auto emptyBarrier = [&](Value stage) {
    return dc.offset(barriers, dc.add(dc.mul(stage, 8), 8 * stages));
  };
  auto stagePointers = [&](Value stage) {
    Value aStage =
        dc.offset(state.sharedMemory, dc.mul(stage, state.stageBytes));
    return std::make_pair(aStage, dc.offset(aStage, state.lhsTile.bytes()));
  };

  dc.ifThen(dc.lessThan(state.threadId, dc.constI32(1)), [&] {
    for (int64_t stage = 0; stage < stages; ++stage) {
      NVVM::MBarrierInitOp::create(b, loc, fullBarrier(dc.constI32(stage)),
                                   dc.constI32(1), /*predicate=*/Value());
      NVVM::MBarrierInitOp::create(b, loc, emptyBarrier(dc.constI32(stage)),
                                   dc.constI32(consumers),
                                   /*predicate=*/Value());
    }
    NVVM::FenceMbarrierInitOp::create(b, loc);
  });
  NVVM::Barrier0Op::create(b, loc);

  Value producerThread = dc.constI32(consumers * 128);
  Value isConsumer = dc.lessThan(state.threadId, producerThread);
  auto split = scf::IfOp::create(b, loc, isConsumer, /*withElseRegion=*/true);

  // Consumers.
  b.setInsertionPointToStart(&split.getThenRegion().front());
  NVVM::SetMaxRegisterOp::create(b, loc, spec.consumerRegisters(),
                                 NVVM::SetMaxRegisterAction::increase);
  Type accumulatorType = getWgmmaAccumulatorType(dc, spec);
  Value leader = dc.lessThan(dc.rem(state.threadId, 128), dc.constI32(1));
  // Slices first .. last - 1 accumulated from zero in the wgmma accumulator,
  // with the last slice's group still in flight.
  auto accumulateSlices = [&](Value first, Value last) -> Value {
    Value zero = LLVM::ZeroOp::create(b, loc, accumulatorType);
    auto loop = scf::ForOp::create(
        b, loc, first, last, dc.constI32(1), ValueRange{zero},
        [&](OpBuilder &, Location, Value kTile, ValueRange accumulators) {
          Value stage = dc.rem(kTile, stages);
          emitMBarrierWait(dc, fullBarrier(stage), dc.div(kTile, stages));
          auto [aStage, bStage] = stagePointers(stage);
          Value accumulator =
              issueWgmmaSlice(dc, state, aStage, bStage, accumulators.front());
          // Slice k - 1's group has retired: its stage may be refilled.
          NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 1);
          dc.ifThen(dc.bitAnd(leader, dc.lessThan(dc.constI32(0), kTile)), [&] {
            Value previous = dc.rem(dc.add(kTile, stages - 1), stages);
            NVVM::MBarrierArriveOp::create(b, loc, /*res=*/Type(),
                                           emptyBarrier(previous),
                                           /*count=*/Value());
          });
          scf::YieldOp::create(b, loc, accumulator);
        });
    return loop.getResult(0);
  };
  Value result;
  if (!spec.promotesFP8Accumulator()) {
    result = accumulateSlices(dc.constI32(0), state.numKTiles);
    NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  } else {
    // FP8 promotion: windows of `slicesPerWindow` slices, each accumulated
    // from zero, retired (wait_group 0) and added into the f32 sum.
    int64_t slicesPerWindow =
        spec.fp8PromoteInterval / spec.wgmmaInstructionsPerSlice();
    Value windows =
        dc.div(dc.add(state.numKTiles, slicesPerWindow - 1), slicesPerWindow);
    Value sum = LLVM::ZeroOp::create(b, loc, accumulatorType);
    auto windowLoop = scf::ForOp::create(
        b, loc, dc.constI32(0), windows, dc.constI32(1), ValueRange{sum},
        [&](OpBuilder &, Location, Value window, ValueRange sums) {
          Value first = dc.mul(window, slicesPerWindow);
          Value last =
              dc.minSigned(dc.add(first, slicesPerWindow), state.numKTiles);
          Value partial = accumulateSlices(first, last);
          NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
          scf::YieldOp::create(b, loc,
                               addWgmmaAccumulators(dc, sums.front(), partial));
        });
    result = windowLoop.getResult(0);
  }
  emitWgmmaEpilogue(dc, state, result);

  // The producer warpgroup; one thread issues the loads.
  b.setInsertionPointToStart(&split.getElseRegion().front());
  NVVM::SetMaxRegisterOp::create(b, loc, spec.producerRegisters(),
                                 NVVM::SetMaxRegisterAction::decrease);
  Value isLoader = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                         state.threadId, producerThread);
  dc.ifThen(isLoader, [&] {
        scf::ForOp::create(
            b, loc, dc.constI32(0), state.numKTiles, dc.constI32(1),
            ValueRange{},
            [&](OpBuilder &, Location, Value kTile, ValueRange) {
              Value stage = dc.rem(kTile, stages);
              Value round = dc.div(kTile, stages);
              dc.ifThen(dc.lessThan(dc.constI32(0), round), [&] {
                emitMBarrierWait(dc, emptyBarrier(stage),
                                 dc.sub(round, dc.constI32(1)));
              });
              Value full = fullBarrier(stage);
              NVVM::MBarrierArriveExpectTxOp::create(
                  b, loc, /*res=*/Type(), full,
                  dc.constI32(state.stageBytes), NVVM::MemScopeKind::CTA,
                  /*relaxed=*/false, /*predicate=*/Value());
              auto [aStage, bStage] = stagePointers(stage);
              loadTileWithTma(dc, state, /*lhs=*/true, lhsTensorMap, kTile,
                              aStage, full, batch);
              loadTileWithTma(dc, state, /*lhs=*/false, rhsTensorMap, kTile,
                              bStage, full, batch);
              scf::YieldOp::create(b, loc);
            });
      });
  b.setInsertionPointAfter(split);
}
