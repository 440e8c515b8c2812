//===- MixedPrecisionPipeline.cpp - mp-mixed-precision-pipeline -----------===//
//
// The pipeline that turns an f32 train step written in the mp dialect into an
// automatic-mixed-precision one, in the order the passes need:
//
//   mp-autocast        casts at precision boundaries (skipped for f32)
//   mp-master-weights  f32 masters, f32 optimizer and state
//   mp-loss-scaling    S around mp.grad, unscale in f32, skip non-finite steps
//   mp-autodiff        mp.grad → explicit backward ops
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
  pm.addNestedPass<func::FuncOp>(createMPMasterWeights(masterWeights));

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
    pm.addNestedPass<func::FuncOp>(createMPLossScaling(scaling));
  }

  pm.addNestedPass<func::FuncOp>(createMPAutodiff());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}
