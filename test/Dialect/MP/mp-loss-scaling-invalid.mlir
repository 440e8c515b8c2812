// Unsupported IR and conflicting options give one clear error.
// RUN: mp-opt %s -split-input-file -verify-diagnostics --mp-loss-scaling
// RUN: not mp-opt %s --mp-loss-scaling="mode=sometimes" 2>&1 | FileCheck %s --check-prefix=MODE
// RUN: not mp-opt %s --mp-loss-scaling="mode=static hysteresis=2" 2>&1 | FileCheck %s --check-prefix=HYST
// RUN: not mp-opt %s --mp-loss-scaling="skip-nonfinite=false" 2>&1 | FileCheck %s --check-prefix=NOSKIP
// RUN: not mp-opt %s --mp-loss-scaling="growth-factor=1" 2>&1 | FileCheck %s --check-prefix=GROWTH
// RUN: not mp-opt %s --mp-loss-scaling="backoff-factor=1.5" 2>&1 | FileCheck %s --check-prefix=BACKOFF
// RUN: not mp-opt %s --mp-loss-scaling="growth-interval=0" 2>&1 | FileCheck %s --check-prefix=INTERVAL
// RUN: not mp-opt %s --mp-loss-scaling="init-scale=0" 2>&1 | FileCheck %s --check-prefix=INIT
// RUN: not mp-opt %s --mp-loss-scaling="init-scale=1e39" 2>&1 | FileCheck %s --check-prefix=INIT
// RUN: not mp-opt %s --mp-loss-scaling="min-scale=8 max-scale=4" 2>&1 | FileCheck %s --check-prefix=BOUNDS
// RUN: not mp-opt %s --mp-loss-scaling="max-scale=1024" 2>&1 | FileCheck %s --check-prefix=RANGE
// MODE: error: mp-loss-scaling: mode must be 'dynamic' or 'static', got 'sometimes'
// HYST: error: mp-loss-scaling: hysteresis applies to mode=dynamic only
// NOSKIP: error: mp-loss-scaling: skip-nonfinite=false is only valid with mode=static
// GROWTH: error: mp-loss-scaling: growth-factor must be a finite number > 1
// BACKOFF: error: mp-loss-scaling: backoff-factor must be in (0, 1)
// INTERVAL: error: mp-loss-scaling: growth-interval must be >= 1
// INIT: error: mp-loss-scaling: init-scale must be a finite positive f32 value
// BOUNDS: error: mp-loss-scaling: min-scale must not exceed max-scale
// RANGE: error: mp-loss-scaling: init-scale must lie within [min-scale, max-scale]

func.func @two_grads(%w: tensor<4xf32> {mp.param}, %t: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %loss = mp.mse %w, %t : tensor<4xf32>
  %g0 = mp.grad %loss wrt %w : tensor<f32>, tensor<4xf32>
  // expected-error @+1 {{mp-loss-scaling expects one mp.grad per function, found 2}}
  %g1 = mp.grad %loss wrt %w : tensor<f32>, tensor<4xf32>
  return %g0, %g1 : tensor<4xf32>, tensor<4xf32>
}

// -----

func.func @grad_in_region(%w: tensor<4xf32> {mp.param}, %t: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %r = scf.if %c -> tensor<4xf32> {
    %loss = mp.mse %w, %t : tensor<4xf32>
    // expected-error @+1 {{mp-loss-scaling expects mp.grad directly in the body of a single-block function}}
    %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4xf32>
    scf.yield %g : tensor<4xf32>
  } else {
    scf.yield %w : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
