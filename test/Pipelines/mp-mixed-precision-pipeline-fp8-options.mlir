// mp-mixed-precision-pipeline forwards every option of mp-fp8-scaling as
// fp8-<option>: for each one the pipeline's output equals the passes run one
// by one with the option (mp-master-weights, mp-autodiff, mp-fp8-scaling,
// canonicalize, cse: the pipeline with compute-type=f32, which has no
// autocast and no loss scaling), and the option's effect is in the IR.
//
// amax-compute, margin and amax-history-len (delayed):
// RUN: mp-opt %s --mp-mixed-precision-pipeline="compute-type=f32 fp8=delayed fp8-amax-compute=most-recent fp8-margin=2 fp8-amax-history-len=4" -o %t.history
// RUN: mp-opt %s --pass-pipeline='builtin.module(mp-master-weights,func.func(mp-autodiff),mp-fp8-scaling{recipe=delayed amax-compute=most-recent margin=2 amax-history-len=4},canonicalize,cse)' -o %t.history.passes
// RUN: diff %t.history %t.history.passes
// RUN: FileCheck %s --check-prefix=HISTORY < %t.history
// power-2-scale, amax-epsilon and format (current):
// RUN: mp-opt %s --mp-mixed-precision-pipeline="compute-type=f32 fp8=current fp8-power-2-scale=true fp8-amax-epsilon=1e-12 fp8-format=e4m3" -o %t.current
// RUN: mp-opt %s --pass-pipeline='builtin.module(mp-master-weights,func.func(mp-autodiff),mp-fp8-scaling{recipe=current power-2-scale=true amax-epsilon=1e-12 format=e4m3},canonicalize,cse)' -o %t.current.passes
// RUN: diff %t.current %t.current.passes
// RUN: FileCheck %s --check-prefix=CURRENT < %t.current
// fp32-scales, amax-epsilon and weight-blocks (fp8-block):
// RUN: mp-opt %s --mp-mixed-precision-pipeline="compute-type=f32 fp8=fp8-block fp8-fp32-scales=true fp8-amax-epsilon=1e-6 fp8-weight-blocks=1d" -o %t.block
// RUN: mp-opt %s --pass-pipeline='builtin.module(mp-master-weights,func.func(mp-autodiff),mp-fp8-scaling{recipe=fp8-block fp32-scales=true amax-epsilon=1e-6 weight-blocks=1d},canonicalize,cse)' -o %t.block.passes
// RUN: diff %t.block %t.block.passes
// RUN: FileCheck %s --check-prefix=BLOCK < %t.block
// weight-blocks and format (mxfp8):
// RUN: mp-opt %s --mp-mixed-precision-pipeline="compute-type=f32 fp8=mxfp8 fp8-weight-blocks=2d fp8-format=hybrid" -o %t.mx
// RUN: mp-opt %s --pass-pipeline='builtin.module(mp-master-weights,func.func(mp-autodiff),mp-fp8-scaling{recipe=mxfp8 weight-blocks=2d format=hybrid},canonicalize,cse)' -o %t.mx.passes
// RUN: diff %t.mx %t.mx.passes
// RUN: FileCheck %s --check-prefix=MX < %t.mx
// disable-stochastic-rounding (nvfp4):
// RUN: mp-opt %s --mp-mixed-precision-pipeline="compute-type=f32 fp8=nvfp4 fp8-disable-stochastic-rounding=true" -o %t.nosr
// RUN: mp-opt %s --pass-pipeline='builtin.module(mp-master-weights,func.func(mp-autodiff),mp-fp8-scaling{recipe=nvfp4 disable-stochastic-rounding=true},canonicalize,cse)' -o %t.nosr.passes
// RUN: diff %t.nosr %t.nosr.passes
// RUN: FileCheck %s --check-prefix=NOSR < %t.nosr
// disable-rht (nvfp4):
// RUN: mp-opt %s --mp-mixed-precision-pipeline="compute-type=f32 fp8=nvfp4 fp8-disable-rht=true" -o %t.norht
// RUN: mp-opt %s --pass-pipeline='builtin.module(mp-master-weights,func.func(mp-autodiff),mp-fp8-scaling{recipe=nvfp4 disable-rht=true},canonicalize,cse)' -o %t.norht.passes
// RUN: diff %t.norht %t.norht.passes
// RUN: FileCheck %s --check-prefix=NORHT < %t.norht
// ops and include-first-last:
// RUN: mp-opt %s --mp-mixed-precision-pipeline="compute-type=f32 fp8=delayed fp8-ops=matmul fp8-include-first-last=true" -o %t.ops
// RUN: mp-opt %s --pass-pipeline='builtin.module(mp-master-weights,func.func(mp-autodiff),mp-fp8-scaling{recipe=delayed ops=matmul include-first-last=true},canonicalize,cse)' -o %t.ops.passes
// RUN: diff %t.ops %t.ops.passes
// RUN: FileCheck %s --check-prefix=OPS < %t.ops
// reduce-amax (delayed, data-parallel):
// RUN: mp-opt %s --mp-mixed-precision-pipeline="compute-type=f32 data-parallel=true grid-size=2 fp8=delayed fp8-reduce-amax=false" -o %t.local
// RUN: mp-opt %s --pass-pipeline='builtin.module(mp-master-weights,mp-data-parallel{grid-size=2},func.func(mp-autodiff),mp-fp8-scaling{recipe=delayed reduce-amax=false},canonicalize,cse)' -o %t.local.passes
// RUN: diff %t.local %t.local.passes
// RUN: FileCheck %s --check-prefix=LOCAL < %t.local
// The options and their defaults in --help.
// RUN: mp-opt --help | FileCheck %s --check-prefix=HELP

func.func @mlp(%w1: tensor<128x64xf32> {mp.param}, %w2: tensor<128x128xf32> {mp.param},
               %w3: tensor<16x128xf32> {mp.param}, %x: tensor<128x64xf32>, %y: tensor<128xi64>)
    -> (tensor<f32> {mp.loss}, tensor<128x64xf32> {mp.updates = 0 : i64},
        tensor<128x128xf32> {mp.updates = 1 : i64}, tensor<16x128xf32> {mp.updates = 2 : i64}) {
  %h1 = mp.linear %x, %w1 acc(f32) : (tensor<128x64xf32>, tensor<128x64xf32>) -> tensor<128x128xf32>
  %a1 = mp.relu %h1 : tensor<128x128xf32>
  %h2 = mp.linear %a1, %w2 acc(f32) : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  %a2 = mp.relu %h2 : tensor<128x128xf32>
  %l = mp.linear %a2, %w3 acc(f32) : (tensor<128x128xf32>, tensor<16x128xf32>) -> tensor<128x16xf32>
  %loss = mp.cross_entropy %l, %y : tensor<128x16xf32>, tensor<128xi64>
  %g1, %g2, %g3 = mp.grad %loss wrt %w1, %w2, %w3
      : tensor<f32>, tensor<128x64xf32>, tensor<128x128xf32>, tensor<16x128xf32>
  %n1 = mp.sgd %w1, %g1 {lr = 0.1 : f64} : tensor<128x64xf32>
  %n2 = mp.sgd %w2, %g2 {lr = 0.1 : f64} : tensor<128x128xf32>
  %n3 = mp.sgd %w3, %g3 {lr = 0.1 : f64} : tensor<16x128xf32>
  return %loss, %n1, %n2, %n3 : tensor<f32>, tensor<128x64xf32>, tensor<128x128xf32>, tensor<16x128xf32>
}
