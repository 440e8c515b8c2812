// RUN: mp-opt %s -split-input-file --mp-data-parallel='grid-size=2' | FileCheck %s --check-prefix=F32
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(mp-loss-scaling,mp-data-parallel{reduce-type=bf16})' | FileCheck %s --check-prefix=BF16
// RUN: mp-opt %s -split-input-file --mp-data-parallel='reduce-type=f16 average=false grid-size=4' | FileCheck %s --check-prefix=F16
// Idempotent: a second run adds nothing.
// RUN: mp-opt %s -split-input-file --mp-data-parallel='grid-size=2' --mp-data-parallel='grid-size=2' | FileCheck %s --check-prefix=TWICE

// An f16 layer on an f32 parameter: the gradient of mp.grad is f32.

func.func @step(%w: tensor<4x3xf32> {mp.param}, %x: tensor<2x3xf32>,
                %y: tensor<2xi64>)
    -> (tensor<f32> {mp.loss}, tensor<4x3xf32> {mp.updates = 0 : i64}) {
  %xh = mp.cast %x : tensor<2x3xf32> to tensor<2x3xf16>
  %wh = mp.cast %w : tensor<4x3xf32> to tensor<4x3xf16>
  %l = mp.linear %xh, %wh acc(f32)
      : (tensor<2x3xf16>, tensor<4x3xf16>) -> tensor<2x4xf16>
  %lf = mp.cast %l : tensor<2x4xf16> to tensor<2x4xf32>
  %loss = mp.cross_entropy %lf, %y : tensor<2x4xf32>, tensor<2xi64>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4x3xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<4x3xf32>
  return %loss, %w1 : tensor<f32>, tensor<4x3xf32>
}

// A function that is not a train step is left alone.
func.func @predict(%w: tensor<4x3xf32> {mp.param}, %x: tensor<2x3xf32>)
    -> tensor<2x4xf32> {
  %l = mp.linear %x, %w acc(f32)
      : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return %l : tensor<2x4xf32>
}

// Static grid of 2: ×0.5 in f32, sum in f32; the loss is the group's mean.
// F32:      shard.grid @mp_data_parallel(shape = 2)
// F32-LABEL: func.func @step
// F32:      %[[LOSS:.*]] = mp.cross_entropy
// F32-NEXT: %[[G:.*]] = mp.grad %[[LOSS]] wrt %arg0 : tensor<f32>, tensor<4x3xf32>
// F32-NEXT: %[[HALF:.*]] = arith.constant dense<5.000000e-01> : tensor<f32>
// F32-NEXT: %[[MEAN:.*]] = mp.scale %[[G]] by %[[HALF]] : tensor<4x3xf32>
// F32-NEXT: %[[SUM:.*]] = shard.all_reduce %[[MEAN]] on @mp_data_parallel grid_axes = [0] : tensor<4x3xf32> -> tensor<4x3xf32>
// F32-NEXT: %[[W1:.*]] = mp.sgd %arg0, %[[SUM]]
// F32-NEXT: %[[LMEAN:.*]] = mp.scale %[[LOSS]] by %[[HALF]] : tensor<f32>
// F32-NEXT: %[[LSUM:.*]] = shard.all_reduce %[[LMEAN]] on @mp_data_parallel grid_axes = [0] : tensor<f32> -> tensor<f32>
// F32-NEXT: return %[[LSUM]], %[[W1]]
// F32-LABEL: func.func @predict
// F32-NOT:  shard
// F32:      return

// After mp-loss-scaling, bf16 reduction on a grid sized at run time:
// unscale (×1/S) → ×1/N → bf16 → sum → f32; all_finite checks the reduced
// gradient and found_inf is or-ed across the group (i32 max) before the
// selects and the scale update.
// BF16:      shard.grid @mp_data_parallel(shape = ?)
// BF16-LABEL: func.func @step
// BF16:      %[[G:.*]] = mp.grad
// BF16-NEXT: %[[N:.*]] = shard.grid_shape @mp_data_parallel axes = [0] : index
// BF16-NEXT: %[[N64:.*]] = arith.index_castui %[[N]] : index to i64
// BF16-NEXT: %[[NF:.*]] = arith.uitofp %[[N64]] : i64 to f64
// BF16-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// BF16-NEXT: %[[INV:.*]] = arith.divf %[[ONE]], %[[NF]] : f64
// BF16-NEXT: %[[INV32:.*]] = arith.truncf %[[INV]] : f64 to f32
// BF16-NEXT: %[[INVN:.*]] = tensor.from_elements %[[INV32]] : tensor<f32>
// BF16:      %[[UNSCALED:.*]] = mp.scale %[[G]] by %{{.*}} : tensor<4x3xf32>
// BF16-NEXT: %[[MEAN:.*]] = mp.scale %[[UNSCALED]] by %[[INVN]] : tensor<4x3xf32>
// BF16-NEXT: %[[NARROW:.*]] = mp.cast %[[MEAN]] : tensor<4x3xf32> to tensor<4x3xbf16>
// BF16-NEXT: %[[SUM:.*]] = shard.all_reduce %[[NARROW]] on @mp_data_parallel grid_axes = [0] : tensor<4x3xbf16> -> tensor<4x3xbf16>
// BF16-NEXT: %[[RED:.*]] = mp.cast %[[SUM]] : tensor<4x3xbf16> to tensor<4x3xf32>
// BF16-NEXT: %[[W1:.*]] = mp.sgd %arg0, %[[RED]]
// BF16-NEXT: %[[OK:.*]] = mp.all_finite %[[RED]] : tensor<4x3xf32>
// BF16-NEXT: %[[TRUE:.*]] = arith.constant dense<true> : tensor<i1>
// BF16-NEXT: %[[INF:.*]] = arith.xori %[[OK]], %[[TRUE]] : tensor<i1>
// BF16-NEXT: %[[INF32:.*]] = arith.extui %[[INF]] : tensor<i1> to tensor<i32>
// BF16-NEXT: %[[ANY32:.*]] = shard.all_reduce %[[INF32]] on @mp_data_parallel grid_axes = [0] reduction = max : tensor<i32> -> tensor<i32>
// BF16-NEXT: %[[ZERO:.*]] = arith.constant dense<0> : tensor<i32>
// BF16-NEXT: %[[ANY:.*]] = arith.cmpi ne, %[[ANY32]], %[[ZERO]] : tensor<i32>
// BF16-NEXT: %[[ALLOK:.*]] = arith.xori %[[ANY]], %[[TRUE]] : tensor<i1>
// BF16-NEXT: %[[TRUE2:.*]] = arith.constant dense<true> : tensor<i1>
// BF16-NEXT: %[[FOUNDINF:.*]] = arith.xori %[[ALLOK]], %[[TRUE2]] : tensor<i1>
// BF16-NEXT: %[[FLAG:.*]] = tensor.extract %[[ALLOK]][] : tensor<i1>
// BF16-NEXT: %[[W2:.*]] = arith.select %[[FLAG]], %[[W1]], %arg0 : tensor<4x3xf32>
// BF16-NEXT: %{{.*}}, %{{.*}} = mp.update_loss_scale %arg3, %arg4, %[[FOUNDINF]]
// BF16-NEXT: %[[LMEAN:.*]] = mp.scale %{{.*}} by %[[INVN]] : tensor<f32>
// BF16-NEXT: %[[LSUM:.*]] = shard.all_reduce %[[LMEAN]] on @mp_data_parallel grid_axes = [0] : tensor<f32> -> tensor<f32>
// BF16-NEXT: return %[[LSUM]], %[[W2]]

// f16 sum without averaging on a grid of 4: cast, sum, cast back.
// F16:      shard.grid @mp_data_parallel(shape = 4)
// F16-LABEL: func.func @step
// F16:      %[[G:.*]] = mp.grad
// F16-NEXT: %[[QUARTER:.*]] = arith.constant dense<2.500000e-01> : tensor<f32>
// F16-NEXT: %[[NARROW:.*]] = mp.cast %[[G]] : tensor<4x3xf32> to tensor<4x3xf16>
// F16-NEXT: %[[SUM:.*]] = shard.all_reduce %[[NARROW]] on @mp_data_parallel grid_axes = [0] : tensor<4x3xf16> -> tensor<4x3xf16>
// F16-NEXT: %[[RED:.*]] = mp.cast %[[SUM]] : tensor<4x3xf16> to tensor<4x3xf32>
// F16-NEXT: mp.sgd %arg0, %[[RED]]
// The loss is still the mean.
// F16-NEXT: mp.scale %{{.*}} by %[[QUARTER]] : tensor<f32>

// TWICE-COUNT-1: shard.grid
// TWICE-COUNT-2: shard.all_reduce
// TWICE-NOT:     shard.all_reduce
// TWICE:         // -----

// -----

// A gradient nobody uses is not reduced; one grid serves every train step.
func.func @a(%w: tensor<4xf32> {mp.param}, %v: tensor<4xf32> {mp.param})
    -> (tensor<f32> {mp.loss}, tensor<4xf32> {mp.updates = 0 : i64}) {
  %p = mp.mul %w, %v : tensor<4xf32>, tensor<4xf32>
  %loss = mp.reduce_sum %p dims [0] : tensor<4xf32>
  %gw, %gv = mp.grad %loss wrt %w, %v : tensor<f32>, tensor<4xf32>, tensor<4xf32>
  %w1 = mp.sgd %w, %gw {lr = 0.1 : f64} : tensor<4xf32>
  return %loss, %w1 : tensor<f32>, tensor<4xf32>
}

func.func @b(%w: tensor<4xf32> {mp.param})
    -> (tensor<f32> {mp.loss}, tensor<4xf32> {mp.updates = 0 : i64}) {
  %loss = mp.reduce_sum %w dims [0] : tensor<4xf32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<4xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<4xf32>
  return %loss, %w1 : tensor<f32>, tensor<4xf32>
}

// F32-COUNT-1: shard.grid @mp_data_parallel(shape = 2)
// F32-LABEL: func.func @a
// F32:       mp.grad
// F32-NEXT:  arith.constant dense<5.000000e-01>
// F32-NEXT:  mp.scale
// F32-NEXT:  shard.all_reduce
// F32-NEXT:  mp.sgd
// F32-NEXT:  mp.scale
// F32-NEXT:  shard.all_reduce
// F32-NEXT:  return
// F32-LABEL: func.func @b
// F32-NOT:   shard.grid
// F32:       shard.all_reduce
// F32:       shard.all_reduce
// F32:       return
