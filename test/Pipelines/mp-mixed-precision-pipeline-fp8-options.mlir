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

// The three scales of the hidden layer, most-recent amax, margin 2, 4 entries.
// HISTORY-LABEL: func.func @mlp(
// HISTORY-COUNT-2: mp.fp8_scale %{{.*}}, %{{.*}} format e4m3 amax_compute most_recent {margin = 2 : i64} : tensor<4xf32>
// HISTORY:         mp.fp8_scale %{{.*}}, %{{.*}} format e5m2 amax_compute most_recent {margin = 2 : i64} : tensor<4xf32>

// E4M3 gradients too, power-of-two scales, the amax raised to 1e-12.
// CURRENT-LABEL: func.func @mlp(
// CURRENT-COUNT-3: mp.fp8_scale %{{.*}}, %{{.*}} format e4m3 amax_epsilon(9.9999999999999998E-13) power_of_two : tensor<1xf32>
// CURRENT-NOT:     f8E5M2

// 1x128 weight blocks (no 128x128 tiles), unrounded scales, amax epsilon.
// BLOCK-LABEL: func.func @mlp(
// BLOCK-SAME:    %{{[a-z0-9]+}}: tensor<128x64xf32> {mp.param}, %[[W2:[a-z0-9]+]]: tensor<128x128xf32> {mp.param}
// BLOCK:         mp.block_quantize %{{.*}} amax_epsilon(9.9999999999999995E-7) unrounded_scales : tensor<128x128xf32> -> tensor<128x128xf8E4M3FN>, tensor<128x1xf32>
// BLOCK-NEXT:    mp.block_quantize %[[W2]] amax_epsilon(9.9999999999999995E-7) unrounded_scales : tensor<128x128xf32> -> tensor<128x128xf8E4M3FN>, tensor<128x1xf32>
// BLOCK-NOT:     tensor<1x1xf32>
// BLOCK-COUNT-4: mp.block_quantize %{{.*}} amax_epsilon(9.9999999999999995E-7) unrounded_scales
// BLOCK-NOT:     mp.block_quantize

// 32x32 weight tiles, E5M2 gradients.
// MX-LABEL: func.func @mlp(
// MX-SAME:    %{{[a-z0-9]+}}: tensor<128x64xf32> {mp.param}, %[[W2:[a-z0-9]+]]: tensor<128x128xf32> {mp.param}
// MX:         mp.block_quantize %{{.*}} : tensor<128x128xf32> -> tensor<128x128xf8E4M3FN>, tensor<128x4xf8E8M0FNU>
// MX-NEXT:    mp.block_quantize %[[W2]] : tensor<128x128xf32> -> tensor<128x128xf8E4M3FN>, tensor<4x4xf8E8M0FNU>
// MX:         mp.block_quantize %{{.*}} : tensor<128x128xf32> -> tensor<128x128xf8E5M2>, tensor<128x4xf8E8M0FNU>

// No stochastic rounding: no rng state, no random bits; the Hadamard
// transform stays.
// NOSR-LABEL: func.func @mlp(
// NOSR-NOT:   mp.state = "rng"
// NOSR-NOT:   random
// NOSR:       mp.matmul %{{.*}}, %{{.*}} acc(f32) : tensor<1024x16xf32>, tensor<16x16xf32> -> tensor<1024x16xf32>
// NOSR-NOT:   random
// NOSR:       return

// No Hadamard transform; the gradients are still rounded stochastically.
// NORHT-LABEL: func.func @mlp(
// NORHT-SAME:  tensor<2xi64> {mp.state = "rng"}
// NORHT-NOT:   tensor<16x16xf32>
// NORHT:       mp.block_quantize %{{.*}} global %{{.*}} random(%{{.*}} : tensor<128x128xi32>) : tensor<128x128xf32> -> tensor<128x128xf4E2M1FN>, tensor<8x128xf8E4M3FN>
// NORHT-NOT:   tensor<16x16xf32>
// NORHT:       return

// ops=matmul: the linear layers stay in f32, even with include-first-last.
// OPS-LABEL: func.func @mlp(
// OPS-NOT:   f8E4M3FN
// OPS-NOT:   f8E5M2
// OPS:       return

// reduce-amax=false: only the gradients and the loss are all-reduced (sum),
// not the amaxes (max).
// LOCAL-LABEL: func.func @mlp(
// LOCAL-NOT:   reduction = max
// LOCAL:       mp.amax_history_push
// LOCAL-NOT:   reduction = max
// LOCAL-COUNT-4: shard.all_reduce %{{.*}} on @mp_data_parallel grid_axes = [0] : tensor<{{[0-9x]*}}f32> -> tensor<{{[0-9x]*}}f32>
// LOCAL-NOT:   reduction = max
// LOCAL:       return

// HELP:      --mp-mixed-precision-pipeline
// HELP:        --fp8=<string> {{.*}}(default: none)
// HELP-NEXT:   --fp8-amax-compute=<string> {{.*}}(mp-fp8-scaling's amax-compute) (default: max)
// HELP-NEXT:   --fp8-amax-epsilon=<number> {{.*}}(mp-fp8-scaling's amax-epsilon) (default: 0)
// HELP-NEXT:   --fp8-amax-history-len=<long> {{.*}}(default: 1024)
// HELP-NEXT:   --fp8-disable-rht {{.*}}(mp-fp8-scaling's disable-rht) (default: false)
// HELP-NEXT:   --fp8-disable-stochastic-rounding {{.*}}(mp-fp8-scaling's disable-stochastic-rounding) (default: false)
// HELP-NEXT:   --fp8-format=<string> {{.*}}(default: default)
// HELP-NEXT:   --fp8-fp32-scales {{.*}}(mp-fp8-scaling's fp32-scales) (default: false)
// HELP-NEXT:   --fp8-include-first-last {{.*}}(default: false)
// HELP-NEXT:   --fp8-margin=<long> {{.*}}(mp-fp8-scaling's margin) (default: 0)
// HELP-NEXT:   --fp8-ops=<string> {{.*}}(mp-fp8-scaling's ops; default matmul,linear)
// HELP-NEXT:   --fp8-power-2-scale {{.*}}(mp-fp8-scaling's power-2-scale) (default: false)
// HELP-NEXT:   --fp8-reduce-amax {{.*}}(mp-fp8-scaling's reduce-amax) (default: true)
// HELP-NEXT:   --fp8-weight-blocks=<string> {{.*}}(mp-fp8-scaling's weight-blocks) (default: default)
