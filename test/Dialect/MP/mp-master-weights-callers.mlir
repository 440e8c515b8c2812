// A train step referenced from the module it is compiled in: mp-master-weights
// widens its low-precision parameters to f32 (cast-per-step) or adds working
// copies (stored-copy), which a caller cannot follow, so each reference is an
// error (the pass used to leave a `func.call` that no longer verified).
// RUN: mp-opt %s -split-input-file -verify-diagnostics --mp-master-weights=style=stored-copy
// Steps whose signature the pass keeps may be called: in cast-per-step style
// only the f16 step is an error.
// RUN: not mp-opt %s -split-input-file --mp-master-weights 2>&1 | FileCheck %s --check-prefix=KEEP

// KEEP: error: 'func.call' op refers to @f16_step, whose signature mp-master-weights changes
// KEEP-NOT: error: 'func.call' op refers to @cast_step

// expected-note @+1 {{type changed from '(tensor<4x3xf16>, tensor<2x3xf16>, tensor<2xi64>) -> (tensor<f32>, tensor<4x3xf16>)' to '(tensor<4x3xf32>, tensor<2x3xf16>, tensor<2xi64>, tensor<4x3xf16>) -> (tensor<f32>, tensor<4x3xf32>, tensor<4x3xf16>)'}}
func.func @f16_step(%w: tensor<4x3xf16> {mp.param}, %x: tensor<2x3xf16>, %y: tensor<2xi64>)
    -> (tensor<f32> {mp.loss}, tensor<4x3xf16> {mp.updates = 0 : i64}) {
  %l = mp.linear %x, %w acc(f32) : (tensor<2x3xf16>, tensor<4x3xf16>) -> tensor<2x4xf16>
  %lf = mp.cast %l : tensor<2x4xf16> to tensor<2x4xf32>
  %loss = mp.cross_entropy %lf, %y : tensor<2x4xf32>, tensor<2xi64>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4x3xf16>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<4x3xf16>
  return %loss, %w1 : tensor<f32>, tensor<4x3xf16>
}

func.func @main(%w: tensor<4x3xf16>, %x: tensor<2x3xf16>, %y: tensor<2xi64>) -> tensor<f32> {
  // expected-error @+1 {{'func.call' op refers to @f16_step, whose signature mp-master-weights changes: a train step cannot be called from the module it is compiled in (write its caller after the pass)}}
  %l, %w1 = func.call @f16_step(%w, %x, %y) : (tensor<4x3xf16>, tensor<2x3xf16>, tensor<2xi64>) -> (tensor<f32>, tensor<4x3xf16>)
  return %l : tensor<f32>
}

// -----

// An f32 parameter used in f16: stored-copy adds a working copy (error);
// cast-per-step keeps the signature (the call stays valid).

// expected-note @+1 {{type changed from}}
func.func @cast_step(%w: tensor<4x3xf32> {mp.param}, %x: tensor<2x3xf16>, %y: tensor<2xi64>)
    -> (tensor<f32> {mp.loss}, tensor<4x3xf32> {mp.updates = 0 : i64}) {
  %wh = mp.cast %w : tensor<4x3xf32> to tensor<4x3xf16>
  %l = mp.linear %x, %wh acc(f32) : (tensor<2x3xf16>, tensor<4x3xf16>) -> tensor<2x4xf16>
  %lf = mp.cast %l : tensor<2x4xf16> to tensor<2x4xf32>
  %loss = mp.cross_entropy %lf, %y : tensor<2x4xf32>, tensor<2xi64>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4x3xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<4x3xf32>
  return %loss, %w1 : tensor<f32>, tensor<4x3xf32>
}

func.func @main(%w: tensor<4x3xf32>, %x: tensor<2x3xf16>, %y: tensor<2xi64>) -> tensor<f32> {
  // expected-error @+1 {{'func.call' op refers to @cast_step, whose signature mp-master-weights changes}}
  %l, %w1 = func.call @cast_step(%w, %x, %y) : (tensor<4x3xf32>, tensor<2x3xf16>, tensor<2xi64>) -> (tensor<f32>, tensor<4x3xf32>)
  return %l : tensor<f32>
}

// KEEP-LABEL: func.func @cast_step
// KEEP-SAME: (%{{.*}}: tensor<4x3xf32> {mp.param}, %{{.*}}: tensor<2x3xf16>, %{{.*}}: tensor<2xi64>) -> (tensor<f32> {mp.loss}, tensor<4x3xf32> {mp.updates = 0 : i64})
// KEEP-LABEL: func.func @main
// KEEP: call @cast_step(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<4x3xf32>, tensor<2x3xf16>, tensor<2xi64>) -> (tensor<f32>, tensor<4x3xf32>)
