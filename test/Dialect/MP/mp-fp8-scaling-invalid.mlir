// RUN: mp-opt %s -split-input-file -verify-diagnostics \
// RUN:     --pass-pipeline='builtin.module(mp-fp8-scaling)'
// Bad options: reported at the function, which stays unchanged.
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{recipe=just-in-time})' 2>&1 | FileCheck %s --check-prefix=RECIPE
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{format=e5m2})' 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{recipe=current amax-history-len=16})' 2>&1 | FileCheck %s --check-prefix=CURRENT
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{recipe=current amax-compute=most-recent})' 2>&1 | FileCheck %s --check-prefix=CURRENT
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{amax-history-len=0})' 2>&1 | FileCheck %s --check-prefix=LENGTH
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{amax-compute=mean})' 2>&1 | FileCheck %s --check-prefix=COMPUTE
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{margin=-1})' 2>&1 | FileCheck %s --check-prefix=MARGIN
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{ops=matmul,conv2d})' 2>&1 | FileCheck %s --check-prefix=OPS
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{power-2-scale=true})' 2>&1 | FileCheck %s --check-prefix=POW2
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{amax-epsilon=1e-6})' 2>&1 | FileCheck %s --check-prefix=EPSRECIPE
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{recipe=mxfp8 amax-epsilon=1e-6})' 2>&1 | FileCheck %s --check-prefix=EPSRECIPE
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{recipe=fp8-block amax-epsilon=-1})' 2>&1 | FileCheck %s --check-prefix=EPSILON
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{recipe=current fp32-scales=true})' 2>&1 | FileCheck %s --check-prefix=FP32SCALES
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{recipe=nvfp4 fp32-scales=true})' 2>&1 | FileCheck %s --check-prefix=FP32SCALES
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{recipe=fp8-block power-2-scale=true})' 2>&1 | FileCheck %s --check-prefix=POW2
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{recipe=current amax-epsilon=-1})' 2>&1 | FileCheck %s --check-prefix=EPSILON
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{recipe=nvfp4 format=e4m3})' 2>&1 | FileCheck %s --check-prefix=NVFORMAT
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{recipe=mxfp8 weight-blocks=3d})' 2>&1 | FileCheck %s --check-prefix=BLOCKS
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{weight-blocks=2d})' 2>&1 | FileCheck %s --check-prefix=BLOCKSTENSOR
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{recipe=fp8-block margin=1})' 2>&1 | FileCheck %s --check-prefix=BLOCKMARGIN
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{recipe=mxfp8 ops=linear,batch_matmul})' 2>&1 | FileCheck %s --check-prefix=BLOCKOPS
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{recipe=nvfp4 amax-history-len=16})' 2>&1 | FileCheck %s --check-prefix=CURRENT
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{recipe=mxfp8 power-2-scale=true})' 2>&1 | FileCheck %s --check-prefix=POW2
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{recipe=mxfp8 disable-rht=true})' 2>&1 | FileCheck %s --check-prefix=NVOPT
// RUN: not mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-fp8-scaling{recipe=delayed disable-stochastic-rounding=true})' 2>&1 | FileCheck %s --check-prefix=NVOPT
// The same through mp-mixed-precision-pipeline's fp8 options.
// RUN: not mp-opt %s -split-input-file --mp-mixed-precision-pipeline="compute-type=bf16 fp8=sometimes" 2>&1 | FileCheck %s --check-prefix=PIPELINE
// RUN: not mp-opt %s -split-input-file --mp-mixed-precision-pipeline="compute-type=bf16 fp8=current fp8-amax-history-len=16" 2>&1 | FileCheck %s --check-prefix=CURRENT
// RUN: not mp-opt %s -split-input-file --mp-mixed-precision-pipeline="compute-type=bf16 fp8=nvfp4 fp8-format=hybrid" 2>&1 | FileCheck %s --check-prefix=NVFORMATPIPE
// RUN: not mp-opt %s -split-input-file --mp-mixed-precision-pipeline="compute-type=bf16 fp8=mxfp8 fp8-fp32-scales=true" 2>&1 | FileCheck %s --check-prefix=FP32SCALES
// RUN: not mp-opt %s -split-input-file --mp-mixed-precision-pipeline="compute-type=bf16 fp8=delayed fp8-power-2-scale=true" 2>&1 | FileCheck %s --check-prefix=POW2
// RUN: not mp-opt %s -split-input-file --mp-mixed-precision-pipeline="compute-type=bf16 fp8=nvfp4 fp8-amax-epsilon=0.5" 2>&1 | FileCheck %s --check-prefix=EPSRECIPE
// RUN: not mp-opt %s -split-input-file --mp-mixed-precision-pipeline="compute-type=bf16 fp8=mxfp8 fp8-disable-rht=true" 2>&1 | FileCheck %s --check-prefix=NVOPT
// RUN: not mp-opt %s -split-input-file --mp-mixed-precision-pipeline="compute-type=bf16 fp8=current fp8-weight-blocks=2d" 2>&1 | FileCheck %s --check-prefix=BLOCKSTENSOR
// RUN: not mp-opt %s -split-input-file --mp-mixed-precision-pipeline="compute-type=bf16 fp8=fp8-block fp8-margin=1" 2>&1 | FileCheck %s --check-prefix=BLOCKMARGIN
// RUN: not mp-opt %s -split-input-file --mp-mixed-precision-pipeline="compute-type=bf16 fp8=delayed fp8-amax-compute=mean" 2>&1 | FileCheck %s --check-prefix=COMPUTE
// RUN: not mp-opt %s -split-input-file --mp-mixed-precision-pipeline="compute-type=bf16 fp8=delayed fp8-ops=matmul,conv2d" 2>&1 | FileCheck %s --check-prefix=OPS

// RECIPE: error: mp-fp8-scaling: recipe must be 'delayed', 'current', 'mxfp8', 'fp8-block' or 'nvfp4', got 'just-in-time'
// FORMAT: error: mp-fp8-scaling: format must be 'default', 'hybrid' or 'e4m3', got 'e5m2'
// NVFORMAT: error: mp-fp8-scaling: format does not apply to recipe=nvfp4 (f4E2M1FN data), got 'e4m3'
// NVFORMATPIPE: error: mp-fp8-scaling: format does not apply to recipe=nvfp4 (f4E2M1FN data), got 'hybrid'
// BLOCKS: error: mp-fp8-scaling: weight-blocks must be 'default', '1d' or '2d', got '3d'
// BLOCKSTENSOR: error: mp-fp8-scaling: weight-blocks applies to recipe=mxfp8, fp8-block and nvfp4 only
// NVOPT: error: mp-fp8-scaling: disable-stochastic-rounding and disable-rht apply to recipe=nvfp4 only
// BLOCKMARGIN: error: mp-fp8-scaling: margin applies to recipe=delayed and current only
// BLOCKOPS: error: mp-fp8-scaling: ops=batch_matmul applies to recipe=delayed and current only
// CURRENT: error: mp-fp8-scaling: amax-history-len and amax-compute apply to recipe=delayed only
// LENGTH: error: mp-fp8-scaling: amax-history-len must be >= 1, got 0
// COMPUTE: error: mp-fp8-scaling: amax-compute must be 'max' or 'most-recent', got 'mean'
// MARGIN: error: mp-fp8-scaling: margin must be >= 0, got -1
// POW2: error: mp-fp8-scaling: power-2-scale applies to recipe=current only
// EPSRECIPE: error: mp-fp8-scaling: amax-epsilon applies to recipe=current and fp8-block only
// FP32SCALES: error: mp-fp8-scaling: fp32-scales applies to recipe=fp8-block only
// EPSILON: error: mp-fp8-scaling: amax-epsilon must be finite and >= 0, got -1
// PIPELINE: error: mp-fp8-scaling: recipe must be 'delayed', 'current', 'mxfp8', 'fp8-block' or 'nvfp4', got 'sometimes'
// OPS: error: mp-fp8-scaling: ops entries must be matmul, linear or batch_matmul, got 'conv2d'

// The pass runs on the joint graph: mp.grad must have been expanded.
func.func @not_expanded(%w: tensor<4x3xf32> {mp.param}, %x: tensor<2x3xf32>, %y: tensor<2xi64>)
    -> (tensor<f32> {mp.loss}, tensor<4x3xf32> {mp.updates = 0 : i64}) {
  %l = mp.linear %x, %w acc(f32) : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %loss = mp.cross_entropy %l, %y : tensor<2x4xf32>, tensor<2xi64>
  // expected-error @+1 {{mp-fp8-scaling runs on the joint graph: expand mp.grad with mp-autodiff first}}
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4x3xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<4x3xf32>
  return %loss, %w1 : tensor<f32>, tensor<4x3xf32>
}

// -----

// A matmul-like op in a nested region.
func.func @in_region(%w: tensor<4x4xf32> {mp.param}, %x: tensor<2x4xf32>, %c: i1)
    -> (tensor<f32> {mp.loss}) {
  %h = scf.if %c -> (tensor<2x4xf32>) {
    // expected-error @+1 {{mp-fp8-scaling expects matmul-like ops directly in the function body, not in a nested region}}
    %m = mp.linear %x, %w acc(f32) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    scf.yield %m : tensor<2x4xf32>
  } else {
    scf.yield %x : tensor<2x4xf32>
  }
  %loss = mp.reduce_sum %h dims [0, 1] : tensor<2x4xf32>
  return %loss : tensor<f32>
}

// -----

// A train step of several blocks.
// expected-error @+1 {{mp-fp8-scaling expects a single-block function}}
func.func @blocks(%w: tensor<4x4xf32> {mp.param}, %x: tensor<2x4xf32>)
    -> (tensor<f32> {mp.loss}) {
  cf.br ^next
^next:
  %m = mp.linear %x, %w acc(f32) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %loss = mp.reduce_sum %m dims [0, 1] : tensor<2x4xf32>
  return %loss : tensor<f32>
}

// -----

// A backward matmul whose forward operand feeds two chosen layers and whose
// gradient operand matches neither: it stays in f32 with a warning.
func.func @ambiguous(%w0: tensor<4x4xf32> {mp.param}, %wa: tensor<4x4xf32> {mp.param},
                     %wb: tensor<4x4xf32> {mp.param}, %w3: tensor<4x4xf32> {mp.param},
                     %x: tensor<2x4xf32>, %g: tensor<2x4xf32>)
    -> (tensor<f32> {mp.loss}, tensor<4x4xf32> {mp.updates = 1 : i64}) {
  %h = mp.linear %x, %w0 acc(f32) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %a = mp.linear %h, %wa acc(f32) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %b = mp.linear %h, %wb acc(f32) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %s = mp.add %a, %b : tensor<2x4xf32>, tensor<2x4xf32>
  %o = mp.linear %s, %w3 acc(f32) : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
  %loss = mp.reduce_sum %o dims [0, 1] : tensor<2x4xf32>
  %dg = mp.neg %g : tensor<2x4xf32>
  // expected-warning @+1 {{mp-fp8-scaling: backward matmul left in its precision: cannot tell which forward op it belongs to}}
  %dw = mp.matmul %dg, %h transpose_lhs acc(f32) : tensor<2x4xf32>, tensor<2x4xf32> -> tensor<4x4xf32>
  %wa1 = mp.sgd %wa, %dw {lr = 0.1 : f64} : tensor<4x4xf32>
  return %loss, %wa1 : tensor<f32>, tensor<4x4xf32>
}
