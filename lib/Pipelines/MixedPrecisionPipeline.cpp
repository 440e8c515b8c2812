//===- MixedPrecisionPipeline.cpp - mp-mixed-precision-pipeline -----------===//
//
// The pipeline that turns an f32 train step written in the mp dialect into an
// automatic-mixed-precision one, in the order the passes need:
//
//   mp-autocast        casts at precision boundaries (skipped for f32)
//   mp-master-weights  f32 masters, f32 optimizer and state
//   mp-loss-scaling    S around mp.grad, unscale in f32, skip non-finite steps
//   mp-data-parallel   gradient all-reduce, one skip decision (data-parallel)
//   mp-autodiff        mp.grad → explicit backward ops
//   mp-fp8-scaling     FP8/FP4 matmuls with the recipe fp8 (fp8 != none)
//   canonicalize, cse
//
// It assumes train steps that follow docs/TrainStep.md; its output still holds
// mp ops and goes on to mp-cpu-pipeline or mp-gpu-pipeline.
//
//===----------------------------------------------------------------------===//

#include "mp/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/Passes.h"
#include "mp/Dialect/MP/Transforms/Passes.h"

using namespace mlir;
using namespace mlir::mp;

void mlir::mp::buildMixedPrecisionPipeline(
    OpPassManager &pm, const MixedPrecisionPipelineOptions &options) {
  bool lowPrecision = options.computeType != "f32";
  if (lowPrecision) {
    MPAutocastOptions autocast;
    autocast.computeType = options.computeType;
    autocast.policyFile = options.policyFile;
    pm.addPass(createMPAutocast(autocast));
  }

  MPMasterWeightsOptions masterWeights;
  masterWeights.style = options.masterWeights;
  pm.addPass(createMPMasterWeights(masterWeights));

  // GradScaler's default: dynamic scaling for f16, none for bf16 and f32.
  std::string lossScaling = options.lossScaling;
  if (lossScaling == "auto")
    lossScaling = options.computeType == "f16" ? "dynamic" : "none";
  if (lossScaling != "none") {
    MPLossScalingOptions scaling;
    scaling.mode = lossScaling;
    scaling.initScale = options.initScale;
    scaling.growthInterval = options.growthInterval;
    scaling.hysteresis = options.hysteresis;
    pm.addPass(createMPLossScaling(scaling));
  }

  // Data parallelism: the unscaled gradients are all-reduced, and the
  // skip decision of mp-loss-scaling is shared (docs/DataParallel.md).
  if (options.dataParallel) {
    MPDataParallelOptions dataParallel;
    dataParallel.reduceType = options.reduceType;
    dataParallel.gridSize = options.gridSize;
    pm.addPass(createMPDataParallel(dataParallel));
  }

  pm.addNestedPass<func::FuncOp>(createMPAutodiff());
  // On the joint graph, after mp-loss-scaling has added the skip flag that
  // the FP8 state's updates select on.
  if (options.fp8 != "none") {
    MPFP8ScalingOptions fp8;
    fp8.recipe = options.fp8;
    fp8.format = options.fp8Format;
    fp8.amaxHistoryLen = options.fp8AmaxHistoryLen;
    fp8.includeFirstLast = options.fp8IncludeFirstLast;
    fp8.amaxCompute = options.fp8AmaxCompute;
    fp8.margin = options.fp8Margin;
    fp8.power2Scale = options.fp8Power2Scale;
    fp8.amaxEpsilon = options.fp8AmaxEpsilon;
    fp8.fp32Scales = options.fp8Fp32Scales;
    fp8.weightBlocks = options.fp8WeightBlocks;
    fp8.disableStochasticRounding = options.fp8DisableStochasticRounding;
    fp8.disableRht = options.fp8DisableRht;
    fp8.reduceAmax = options.fp8ReduceAmax;
    fp8.ops.assign(options.fp8Ops.begin(), options.fp8Ops.end());
    pm.addPass(createMPFP8Scaling(fp8));
  }
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}
