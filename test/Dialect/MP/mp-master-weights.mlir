// RUN: mp-opt %s -split-input-file --mp-master-weights | FileCheck %s --check-prefix=CAST
// RUN: mp-opt %s -split-input-file --mp-master-weights=style=stored-copy | FileCheck %s --check-prefix=COPY
// Both styles are idempotent.
// RUN: mp-opt %s -split-input-file --mp-master-weights > %t.cast
// RUN: mp-opt %s -split-input-file --mp-master-weights --mp-master-weights | diff %t.cast -
// RUN: mp-opt %s -split-input-file --mp-master-weights=style=stored-copy > %t.copy
// RUN: mp-opt %s -split-input-file --mp-master-weights=style=stored-copy --mp-master-weights=style=stored-copy | diff %t.copy -

// Pure f16 training: f16 parameter and SGD momentum buffer.

// CAST-LABEL: func.func @f16_params
// CAST-SAME: (%[[W:[^:]*]]: tensor<4x3xf32> {mp.param}, %[[BUF:[^:]*]]: tensor<4x3xf32> {mp.state = "sgd.momentum_buffer"}, %[[X:[^:]*]]: tensor<2x3xf16>, %{{[^:]*}}: tensor<2xi64>)
// CAST-SAME: -> (tensor<f32> {mp.loss}, tensor<4x3xf32> {mp.updates = 0 : i64}, tensor<4x3xf32> {mp.updates = 1 : i64})
// CAST-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x3xf32> to tensor<4x3xf16>
// CAST-NEXT: mp.linear %[[X]], %[[WH]] acc(f32)
// CAST: %[[G:.*]] = mp.grad %{{.*}} wrt %[[W]] : tensor<f32>, tensor<4x3xf32>
// CAST-NEXT: %[[NW:.*]], %[[NB:.*]] = mp.sgd %[[W]], %[[G]] momentum_buffer %[[BUF]] {lr = 1.000000e-01 : f64, momentum = 9.000000e-01 : f64} : tensor<4x3xf32>, tensor<4x3xf32>
// CAST-NEXT: return %{{.*}}, %[[NW]], %[[NB]] : tensor<f32>, tensor<4x3xf32>, tensor<4x3xf32>

// COPY-LABEL: func.func @f16_params
// COPY-SAME: (%[[W:[^:]*]]: tensor<4x3xf32> {mp.param}, %[[BUF:[^:]*]]: tensor<4x3xf32> {mp.state = "sgd.momentum_buffer"}, %[[X:[^:]*]]: tensor<2x3xf16>, %{{[^:]*}}: tensor<2xi64>, %[[C:[^:]*]]: tensor<4x3xf16> {mp.copy_of = 0 : i64, mp.state = "working_copy"})
// COPY-SAME: -> (tensor<f32> {mp.loss}, tensor<4x3xf32> {mp.updates = 0 : i64}, tensor<4x3xf32> {mp.updates = 1 : i64}, tensor<4x3xf16> {mp.updates = 4 : i64})
// COPY-NEXT: mp.linear %[[X]], %[[C]] acc(f32)
// COPY: %[[G:.*]] = mp.grad %{{.*}} wrt %[[C]] : tensor<f32>, tensor<4x3xf16>
// COPY-NEXT: %[[G32:.*]] = mp.cast %[[G]] : tensor<4x3xf16> to tensor<4x3xf32>
// COPY-NEXT: %[[NW:.*]], %[[NB:.*]] = mp.sgd %[[W]], %[[G32]] momentum_buffer %[[BUF]]
// COPY-NEXT: %[[NC:.*]] = mp.cast %[[NW]] : tensor<4x3xf32> to tensor<4x3xf16>
// COPY-NEXT: return %{{.*}}, %[[NW]], %[[NB]], %[[NC]]
func.func @f16_params(%w: tensor<4x3xf16> {mp.param}, %buf: tensor<4x3xf16> {mp.state = "sgd.momentum_buffer"},
                      %x: tensor<2x3xf16>, %y: tensor<2xi64>)
    -> (tensor<f32> {mp.loss}, tensor<4x3xf16> {mp.updates = 0 : i64}, tensor<4x3xf16> {mp.updates = 1 : i64}) {
  %l = mp.linear %x, %w acc(f32) : (tensor<2x3xf16>, tensor<4x3xf16>) -> tensor<2x4xf16>
  %lf = mp.cast %l : tensor<2x4xf16> to tensor<2x4xf32>
  %loss = mp.cross_entropy %lf, %y : tensor<2x4xf32>, tensor<2xi64>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4x3xf16>
  %w1, %b1 = mp.sgd %w, %g momentum_buffer %buf {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<4x3xf16>, tensor<4x3xf16>
  return %loss, %w1, %b1 : tensor<f32>, tensor<4x3xf16>, tensor<4x3xf16>
}

// -----

// After mp-autocast: f32 parameters cast once to bf16. Cast-per-step has
// nothing to do; stored-copy replaces the cast with a bf16 working copy.
// The bias, used in f32, keeps no copy. Adam moments stay f32.

// CAST-LABEL: func.func @autocast_output
// CAST-SAME: (%[[W:[^:]*]]: tensor<4x3xf32> {mp.param}, %[[B:[^:]*]]: tensor<4xf32> {mp.param},
// CAST-NEXT: %[[WH:.*]] = mp.cast %[[W]] : tensor<4x3xf32> to tensor<4x3xbf16>
// CAST: mp.grad %{{.*}} wrt %[[W]], %[[B]] : tensor<f32>, tensor<4x3xf32>, tensor<4xf32>

// COPY-LABEL: func.func @autocast_output
// COPY-SAME: (%[[W:[^:]*]]: tensor<4x3xf32> {mp.param}, %[[B:[^:]*]]: tensor<4xf32> {mp.param}, %[[M:[^:]*]]: tensor<4x3xf32> {mp.state = "adam.exp_avg"}, %[[V:[^:]*]]: tensor<4x3xf32> {mp.state = "adam.exp_avg_sq"}, %[[STEP:[^:]*]]: tensor<i64> {mp.state = "step"}, %[[X:[^:]*]]: tensor<2x3xbf16>, %{{[^:]*}}: tensor<2xi64>, %[[C:[^:]*]]: tensor<4x3xbf16> {mp.copy_of = 0 : i64, mp.state = "working_copy"})
// COPY-SAME: -> (tensor<f32> {mp.loss}, tensor<4x3xf32> {mp.updates = 0 : i64}, tensor<4xf32> {mp.updates = 1 : i64}, tensor<4x3xf32> {mp.updates = 2 : i64}, tensor<4x3xf32> {mp.updates = 3 : i64}, tensor<4x3xbf16> {mp.updates = 7 : i64})
// COPY-NEXT: %[[L:.*]] = mp.linear %[[X]], %[[C]] acc(f32)
// COPY: %[[G:.*]]:2 = mp.grad %{{.*}} wrt %[[C]], %[[B]] : tensor<f32>, tensor<4x3xbf16>, tensor<4xf32>
// COPY-NEXT: %[[G32:.*]] = mp.cast %[[G]]#0 : tensor<4x3xbf16> to tensor<4x3xf32>
// COPY-NEXT: %[[NW:.*]], %{{.*}}, %{{.*}} = mp.adam %[[W]], %[[G32]], %[[M]], %[[V]], %[[STEP]] : tensor<4x3xf32>, tensor<i64>
// COPY-NEXT: %[[NB:.*]] = mp.sgd %[[B]], %[[G]]#1
// COPY-NEXT: %[[NC:.*]] = mp.cast %[[NW]] : tensor<4x3xf32> to tensor<4x3xbf16>
// COPY-NEXT: return %{{.*}}, %[[NW]], %[[NB]], %{{.*}}, %{{.*}}, %[[NC]] :
func.func @autocast_output(%w: tensor<4x3xf32> {mp.param}, %b: tensor<4xf32> {mp.param},
                           %m: tensor<4x3xf32> {mp.state = "adam.exp_avg"}, %v: tensor<4x3xf32> {mp.state = "adam.exp_avg_sq"},
                           %step: tensor<i64> {mp.state = "step"}, %x: tensor<2x3xbf16>, %y: tensor<2xi64>)
    -> (tensor<f32> {mp.loss}, tensor<4x3xf32> {mp.updates = 0 : i64}, tensor<4xf32> {mp.updates = 1 : i64},
        tensor<4x3xf32> {mp.updates = 2 : i64}, tensor<4x3xf32> {mp.updates = 3 : i64}) {
  %wh = mp.cast %w : tensor<4x3xf32> to tensor<4x3xbf16>
  %l = mp.linear %x, %wh acc(f32) : (tensor<2x3xbf16>, tensor<4x3xbf16>) -> tensor<2x4xbf16>
  %lf = mp.cast %l : tensor<2x4xbf16> to tensor<2x4xf32>
  %lb = mp.add %lf, %b : tensor<2x4xf32>, tensor<4xf32>
  %loss = mp.cross_entropy %lb, %y : tensor<2x4xf32>, tensor<2xi64>
  %g:2 = mp.grad %loss wrt %w, %b : tensor<f32>, tensor<4x3xf32>, tensor<4xf32>
  %w1, %m1, %v1 = mp.adam %w, %g#0, %m, %v, %step : tensor<4x3xf32>, tensor<i64>
  %b1 = mp.sgd %b, %g#1 {lr = 0.1 : f64} : tensor<4xf32>
  return %loss, %w1, %b1, %m1, %v1 : tensor<f32>, tensor<4x3xf32>, tensor<4xf32>, tensor<4x3xf32>, tensor<4x3xf32>
}

// -----

// f16 Adam state becomes f32 with its parameter; a gradient also used
// elsewhere in f16 keeps its type there.

// CAST-LABEL: func.func @f16_adam_state
// CAST-SAME: (%[[W:[^:]*]]: tensor<8xf32> {mp.param}, %[[M:[^:]*]]: tensor<8xf32> {mp.state = "adam.exp_avg"}, %[[V:[^:]*]]: tensor<8xf32> {mp.state = "adam.exp_avg_sq"}, %{{[^:]*}}: tensor<i64> {mp.state = "step"}, %{{[^:]*}}: tensor<8xf16>)
// CAST-SAME: -> (tensor<f16> {mp.loss}, tensor<8xf32> {mp.updates = 0 : i64}, tensor<8xf32> {mp.updates = 1 : i64}, tensor<8xf32> {mp.updates = 2 : i64}, tensor<f16>)
// CAST: %[[G:.*]] = mp.grad %{{.*}} wrt %[[W]] : tensor<f16>, tensor<8xf32>
// CAST-NEXT: %[[GH:.*]] = mp.cast %[[G]] : tensor<8xf32> to tensor<8xf16>
// CAST-NEXT: mp.adam %[[W]], %[[G]], %[[M]], %[[V]], %{{.*}} : tensor<8xf32>, tensor<i64>
// CAST-NEXT: mp.reduce_max %[[GH]] dims [0] : tensor<8xf16>
func.func @f16_adam_state(%w: tensor<8xf16> {mp.param}, %m: tensor<8xf16> {mp.state = "adam.exp_avg"},
                          %v: tensor<8xf16> {mp.state = "adam.exp_avg_sq"}, %step: tensor<i64> {mp.state = "step"},
                          %t: tensor<8xf16>)
    -> (tensor<f16> {mp.loss}, tensor<8xf16> {mp.updates = 0 : i64}, tensor<8xf16> {mp.updates = 1 : i64},
        tensor<8xf16> {mp.updates = 2 : i64}, tensor<f16>) {
  %loss = mp.mse %w, %t : tensor<8xf16>
  %g = mp.grad %loss wrt %w : tensor<f16>, tensor<8xf16>
  %w1, %m1, %v1 = mp.adam %w, %g, %m, %v, %step : tensor<8xf16>, tensor<i64>
  %gmax = mp.reduce_max %g dims [0] : tensor<8xf16>
  return %loss, %w1, %m1, %v1, %gmax : tensor<f16>, tensor<8xf16>, tensor<8xf16>, tensor<8xf16>, tensor<f16>
}
