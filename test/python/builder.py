# mixedprec.TrainStep: the IR it writes (exact text), that the IR verifies and
# goes through the mixed-precision pipeline, and the errors it reports.
# RUN: %python %s | FileCheck %s

import mixedprec

# A small regression step with every kind of op the builder has, SGD with
# momentum.
step = mixedprec.TrainStep("regress")
w = step.param("w", (8, 4))
b = step.param("b", (8,))
v = step.param("v", (8, 3))
x = step.input("x", (16, 4))
target = step.input("target", (16, 3))
h = step.gelu(step.linear(x, w, b), approximate="tanh")
h = step.tanh(h) * step.sigmoid(h) + step.exp(-h) / step.sqrt(step.relu(h) + h)
h = step.maximum(step.log_softmax(h, dim=1), step.softmax(h))
h = step.reshape(step.transpose(step.reshape(h, (-1, 2, 4)), (0, 2, 1)), (16, 8))
y = h @ v
y = step.sub(y, step.reduce_mean(y, dims=[1], keepdims=True))
y = step.cast(step.cast(y, "bf16"), "f32")
loss = step.mse(y, target) + step.reduce_sum(step.rsqrt(step.log(step.reduce_max(y * y, 0))), 0)
text = step.build(loss, mixedprec.SGD(lr=0.1, momentum=0.9, nesterov=True))
print(text)
# CHECK-LABEL: func.func @regress(
# CHECK-NEXT:     %w: tensor<8x4xf32> {mp.param},
# CHECK-NEXT:     %b: tensor<8xf32> {mp.param},
# CHECK-NEXT:     %v: tensor<8x3xf32> {mp.param},
# CHECK-NEXT:     %w_momentum_buffer: tensor<8x4xf32> {mp.state = "sgd.momentum_buffer"},
# CHECK-NEXT:     %b_momentum_buffer: tensor<8xf32> {mp.state = "sgd.momentum_buffer"},
# CHECK-NEXT:     %v_momentum_buffer: tensor<8x3xf32> {mp.state = "sgd.momentum_buffer"},
# CHECK-NEXT:     %x: tensor<16x4xf32>,
# CHECK-NEXT:     %target: tensor<16x3xf32>)
# CHECK-NEXT:     -> (tensor<f32> {mp.loss},
# CHECK-NEXT:         tensor<8x4xf32> {mp.updates = 0 : i64},
# CHECK-NEXT:         tensor<8xf32> {mp.updates = 1 : i64},
# CHECK-NEXT:         tensor<8x3xf32> {mp.updates = 2 : i64},
# CHECK-NEXT:         tensor<8x4xf32> {mp.updates = 3 : i64},
# CHECK-NEXT:         tensor<8xf32> {mp.updates = 4 : i64},
# CHECK-NEXT:         tensor<8x3xf32> {mp.updates = 5 : i64}) {
# CHECK-NEXT:   %v0 = mp.linear %x, %w, %b acc(f32) : (tensor<16x4xf32>, tensor<8x4xf32>, tensor<8xf32>) -> tensor<16x8xf32>
# CHECK-NEXT:   %v1 = mp.gelu %v0 approximate tanh : tensor<16x8xf32>
# CHECK-NEXT:   %v2 = mp.tanh %v1 : tensor<16x8xf32>
# CHECK-NEXT:   %v3 = mp.sigmoid %v1 : tensor<16x8xf32>
# CHECK-NEXT:   %v4 = mp.mul %v2, %v3 : tensor<16x8xf32>, tensor<16x8xf32>
# CHECK-NEXT:   %v5 = mp.neg %v1 : tensor<16x8xf32>
# CHECK-NEXT:   %v6 = mp.exp %v5 : tensor<16x8xf32>
# CHECK-NEXT:   %v7 = mp.relu %v1 : tensor<16x8xf32>
# CHECK-NEXT:   %v8 = mp.add %v7, %v1 : tensor<16x8xf32>, tensor<16x8xf32>
# CHECK-NEXT:   %v9 = mp.sqrt %v8 : tensor<16x8xf32>
# CHECK-NEXT:   %v10 = mp.div %v6, %v9 : tensor<16x8xf32>, tensor<16x8xf32>
# CHECK-NEXT:   %v11 = mp.add %v4, %v10 : tensor<16x8xf32>, tensor<16x8xf32>
# CHECK-NEXT:   %v12 = mp.log_softmax %v11 dim 1 : tensor<16x8xf32>
# CHECK-NEXT:   %v13 = mp.softmax %v11 dim 1 : tensor<16x8xf32>
# CHECK-NEXT:   %v14 = mp.maximum %v12, %v13 : tensor<16x8xf32>, tensor<16x8xf32>
# CHECK-NEXT:   %v15 = mp.reshape %v14 : tensor<16x8xf32> to tensor<16x2x4xf32>
# CHECK-NEXT:   %v16 = mp.transpose %v15 perm [0, 2, 1] : tensor<16x2x4xf32>
# CHECK-NEXT:   %v17 = mp.reshape %v16 : tensor<16x4x2xf32> to tensor<16x8xf32>
# CHECK-NEXT:   %v18 = mp.matmul %v17, %v acc(f32) : tensor<16x8xf32>, tensor<8x3xf32> -> tensor<16x3xf32>
# CHECK-NEXT:   %v19 = mp.reduce_mean %v18 dims [1] keepdims : tensor<16x3xf32>
# CHECK-NEXT:   %v20 = mp.sub %v18, %v19 : tensor<16x3xf32>, tensor<16x1xf32>
# CHECK-NEXT:   %v21 = mp.cast %v20 : tensor<16x3xf32> to tensor<16x3xbf16>
# CHECK-NEXT:   %v22 = mp.cast %v21 : tensor<16x3xbf16> to tensor<16x3xf32>
# CHECK-NEXT:   %v23 = mp.mse %v22, %target : tensor<16x3xf32>
# CHECK-NEXT:   %v24 = mp.mul %v22, %v22 : tensor<16x3xf32>, tensor<16x3xf32>
# CHECK-NEXT:   %v25 = mp.reduce_max %v24 dims [0] : tensor<16x3xf32>
# CHECK-NEXT:   %v26 = mp.log %v25 : tensor<3xf32>
# CHECK-NEXT:   %v27 = mp.rsqrt %v26 : tensor<3xf32>
# CHECK-NEXT:   %v28 = mp.reduce_sum %v27 dims [0] : tensor<3xf32>
# CHECK-NEXT:   %v29 = mp.add %v23, %v28 : tensor<f32>, tensor<f32>
# CHECK-NEXT:   %grad_w, %grad_b, %grad_v = mp.grad %v29 wrt %w, %b, %v : tensor<f32>, tensor<8x4xf32>, tensor<8xf32>, tensor<8x3xf32>
# CHECK-NEXT:   %new_w, %w_momentum_buffer_new = mp.sgd %w, %grad_w momentum_buffer %w_momentum_buffer {lr = 0.1 : f64, momentum = 0.9 : f64, nesterov} : tensor<8x4xf32>, tensor<8x4xf32>
# CHECK:        return %v29, %new_w, %new_b, %new_v, %w_momentum_buffer_new, %b_momentum_buffer_new, %v_momentum_buffer_new : tensor<f32>, tensor<8x4xf32>, tensor<8xf32>, tensor<8x3xf32>, tensor<8x4xf32>, tensor<8xf32>, tensor<8x3xf32>
# CHECK-NEXT: }

# It verifies, and the mixed-precision pipeline compiles it.
print("verifies:", "func.func @regress" in mixedprec.compile(text, pipeline=None))
print("compiles:", "mp.grad" not in mixedprec.compile(text, compute_type="bf16"))
# CHECK: verifies: True
# CHECK-NEXT: compiles: True

# AdamW and plain SGD; @predict with another batch size (reshape(-1, ...)
# follows it).
step = mixedprec.TrainStep()
w = step.param("w", (2, 6))
x = step.input("x", (4, 3, 2), "bf16")
labels = step.input("labels", (4,), "i32")
logits = step.linear(step.reshape(step.cast(x, "f32"), (-1, 6)), w)
text = step.build(step.cross_entropy(logits, labels), mixedprec.AdamW(lr=0.5, betas=(0.8, 0.9)),
                  predict=logits, predict_batch=5)
print(text)
# CHECK-LABEL: func.func @train_step(
# CHECK:      %w_exp_avg: tensor<2x6xf32> {mp.state = "adam.exp_avg"},
# CHECK-NEXT: %w_exp_avg_sq: tensor<2x6xf32> {mp.state = "adam.exp_avg_sq"},
# CHECK-NEXT: %step: tensor<i64> {mp.state = "step"},
# CHECK-NEXT: %x: tensor<4x3x2xbf16>,
# CHECK-NEXT: %labels: tensor<4xi32>)
# CHECK:      %v3 = mp.cross_entropy %v2, %labels : tensor<4x2xf32>, tensor<4xi32>
# CHECK:      %step_new = arith.addi %step, %one : tensor<i64>
# CHECK-NEXT: %new_w, %w_exp_avg_new, %w_exp_avg_sq_new = mp.adamw %w, %grad_w, %w_exp_avg, %w_exp_avg_sq, %step_new {lr = 0.5 : f64, beta1 = 0.8 : f64, beta2 = 0.9 : f64, eps = 1.0e-08 : f64, weight_decay = 0.01 : f64} : tensor<2x6xf32>, tensor<i64>
# CHECK-LABEL: func.func @predict(
# CHECK-NEXT:     %w: tensor<2x6xf32> {mp.param},
# CHECK-NEXT:     %x: tensor<5x3x2xbf16>)
# CHECK-NEXT:     -> tensor<5x2xf32> {
# CHECK-NEXT:   %v0 = mp.cast %x : tensor<5x3x2xbf16> to tensor<5x3x2xf32>
# CHECK-NEXT:   %v1 = mp.reshape %v0 : tensor<5x3x2xf32> to tensor<5x6xf32>
# CHECK-NEXT:   %v2 = mp.linear %v1, %w acc(f32) : (tensor<5x6xf32>, tensor<2x6xf32>) -> tensor<5x2xf32>
# CHECK-NEXT:   return %v2 : tensor<5x2xf32>
print("verifies:", "@predict" in mixedprec.compile(text, pipeline=None))
# CHECK: verifies: True

step = mixedprec.TrainStep()
w = step.param("w", (3,))
x = step.input("x", (3,))
text = step.build(step.mse(w, x), mixedprec.SGD(lr=1))
print([line.strip() for line in text.splitlines() if "mp.sgd" in line])
# CHECK: ['%new_w = mp.sgd %w, %grad_w {lr = 1.0 : f64} : tensor<3xf32>']

# Errors, before any IR is written.
other = mixedprec.TrainStep()
foreign = other.param("p", (2,))
step = mixedprec.TrainStep()
a = step.param("a", (2, 3))
m = step.input("m", (3, 4))
labels = step.input("labels", (2,), "i64")
for attempt in [
        lambda: step.param("a", (1,)),
        lambda: step.param("bad name", (1,)),
        lambda: step.param("i", (2,), "i32"),
        lambda: step.input("neg", (-1,)),
        lambda: step.matmul(m, a),
        lambda: step.add(a, m),
        lambda: step.linear(a, m),
        lambda: step.add(a, foreign),
        lambda: step.softmax(a, dim=2),
        lambda: step.reduce_sum(a, dims=[0, 0]),
        lambda: step.reshape(a, (4, 2)),
        lambda: step.transpose(a, (0, 0)),
        lambda: step.cross_entropy(a, m),
        lambda: step.relu(labels),
        lambda: step.gelu(a, approximate="erf"),
        lambda: step.build(step.relu(a), mixedprec.SGD(lr=1)),
        lambda: step.build(step.cross_entropy(a, labels), "adam"),
        lambda: step.build(step.cross_entropy(a, labels), mixedprec.SGD(lr=1),
                           predict=step.relu(a)),
        lambda: mixedprec.SGD(lr=1, nesterov=True),
        lambda: mixedprec.TrainStep().build(None, mixedprec.SGD(lr=1)),
]:
    try:
        attempt()
        print("no error")
    except mixedprec.BuildError as error:
        print("BuildError:", error)
# CHECK: BuildError: two arguments are named 'a'
# CHECK-NEXT: BuildError: argument name 'bad name' is not an identifier
# CHECK-NEXT: BuildError: parameter 'i' must be a float tensor, got i32
# CHECK-NEXT: BuildError: shape [-1] of 'neg' has a negative dimension
# CHECK-NEXT: BuildError: matmul: contraction sizes 4 and 2 differ
# CHECK-NEXT: BuildError: shapes [2, 3] and [3, 4] do not broadcast
# CHECK-NEXT: BuildError: linear: input tensor<2x3xf32> and weight tensor<3x4xf32> do not fit
# CHECK-NEXT: BuildError: <mixedprec.Value param p tensor<2xf32>> is not a value of this train step
# CHECK-NEXT: BuildError: softmax: dim 2 out of range for tensor<2x3xf32>
# CHECK-NEXT: BuildError: reduce_sum: dims [0, 0] invalid for rank 2
# CHECK-NEXT: BuildError: reshape: [4, 2] has 8 elements, [2, 3] 6
# CHECK-NEXT: BuildError: transpose: [0, 0] is not a permutation of rank 2
# CHECK-NEXT: BuildError: cross_entropy: logits [N, C] (float) and labels [N] (i32/i64) expected, got tensor<2x3xf32> and tensor<3x4xf32>
# CHECK-NEXT: BuildError: relu operand must be a float tensor, got tensor<2xi64>
# CHECK-NEXT: BuildError: gelu: approximate must be 'none' or 'tanh'
# CHECK-NEXT: BuildError: the loss must be a 0-d float result of an op, got <mixedprec.Value op relu tensor<2x3xf32>>
# CHECK-NEXT: BuildError: optimizer must be mixedprec.SGD, Adam or AdamW
# CHECK-NEXT: BuildError: predict: the value must be computed from exactly one input, found 0
# CHECK-NEXT: BuildError: nesterov needs a momentum and zero dampening
# CHECK-NEXT: BuildError: None is not a value of this train step

# Losses with ignore_index / label_smoothing and nll_loss, Adam with amsgrad
# and maximize, gradient clipping and a learning-rate schedule (the counter
# is state lr_scheduler.last_epoch, read before it is incremented).
step = mixedprec.TrainStep("scheduled")
w = step.param("w", (5, 3))
x = step.input("x", (4, 3))
labels = step.input("labels", (4,), "i64")
logits = step.linear(x, w)
loss = step.cross_entropy(logits, labels, ignore_index=0, label_smoothing=0.1) + \
    step.nll_loss(step.log_softmax(logits), labels, reduction="sum")
text = step.build(loss, mixedprec.Adam(lr=0.01, amsgrad=True, maximize=True),
                  lr_scheduler=mixedprec.StepLR(step_size=2, gamma=0.5),
                  clip_grad_norm=(1.0, "inf"))
print(text)
# CHECK-LABEL: func.func @scheduled(
# CHECK-NEXT:     %w: tensor<5x3xf32> {mp.param},
# CHECK-NEXT:     %w_exp_avg: tensor<5x3xf32> {mp.state = "adam.exp_avg"},
# CHECK-NEXT:     %w_exp_avg_sq: tensor<5x3xf32> {mp.state = "adam.exp_avg_sq"},
# CHECK-NEXT:     %w_max_exp_avg_sq: tensor<5x3xf32> {mp.state = "adam.max_exp_avg_sq"},
# CHECK-NEXT:     %step: tensor<i64> {mp.state = "step"},
# CHECK-NEXT:     %lr_scheduler_last_epoch: tensor<i64> {mp.state = "lr_scheduler.last_epoch"},
# CHECK-NEXT:     %x: tensor<4x3xf32>,
# CHECK-NEXT:     %labels: tensor<4xi64>)
# CHECK:          tensor<i64> {mp.updates = 4 : i64},
# CHECK-NEXT:     tensor<i64> {mp.updates = 5 : i64}) {
# CHECK:        %v1 = mp.cross_entropy %v0, %labels {ignore_index = 0 : i64, label_smoothing = 0.1 : f64} : tensor<4x5xf32>, tensor<4xi64>
# CHECK:        %v3 = mp.nll_loss %v2, %labels reduction sum : tensor<4x5xf32>, tensor<4xi64> -> tensor<f32>
# CHECK:        %clipped_w, %total_norm = mp.clip_grad_norm %grad_w max_norm 1.0 norm_type inf : tensor<5x3xf32>
# CHECK-NEXT:   %lr_1 = tensor.extract %lr_scheduler_last_epoch[] : tensor<i64>
# CHECK:        arith.floordivsi %lr_1, %{{.*}} : i64
# CHECK:        math.powf
# CHECK:        %[[LR:lr_[0-9]+]] = tensor.from_elements %{{.*}} : tensor<f64>
# CHECK:        mp.adam %w, %clipped_w, %w_exp_avg, %w_exp_avg_sq, %step_new amsgrad %w_max_exp_avg_sq lr(%[[LR]] : tensor<f64>) {beta1 = 0.9 : f64, beta2 = 0.999 : f64, eps = 1.0e-08 : f64, weight_decay = 0.0 : f64, maximize} : tensor<5x3xf32>, tensor<i64>
# CHECK:        %lr_scheduler_last_epoch_new = arith.addi %lr_scheduler_last_epoch, %lr_one : tensor<i64>
# CHECK-NEXT:   return
print("verifies:", "func.func @scheduled" in mixedprec.compile(text, pipeline=None))
print("compiles:", "mp.grad" not in mixedprec.compile(text, compute_type="bf16"))
# CHECK: verifies: True
# CHECK-NEXT: compiles: True

# SGD with dampening takes the step counter for its first step.
step = mixedprec.TrainStep("damped")
w = step.param("w", (2,))
t = step.input("t", (2,))
print(step.build(step.mse(w, t), mixedprec.SGD(lr=0.1, momentum=0.9, dampening=0.5)))
# CHECK-LABEL: func.func @damped(
# CHECK:        %step: tensor<i64> {mp.state = "step"},
# CHECK:        mp.sgd %w, %grad_w momentum_buffer %w_momentum_buffer step(%step_new : tensor<i64>) {lr = 0.1 : f64, momentum = 0.9 : f64, dampening = 0.5 : f64} : tensor<2xf32>, tensor<2xf32>

for attempt in [
        lambda: mixedprec.lr_schedule_ops(mixedprec.StepLR(0), 0.1, "%c"),
        lambda: mixedprec.lr_schedule_ops(mixedprec.LinearLR(start_factor=0), 0.1, "%c"),
        lambda: mixedprec.lr_schedule_ops(
            mixedprec.SequentialLR([mixedprec.StepLR(2)], [3]), 0.1, "%c"),
        lambda: mixedprec.lr_schedule_ops("StepLR", 0.1, "%c"),
        lambda: step.cross_entropy(w, t, label_smoothing=2),
        lambda: step.nll_loss(w, t, reduction="max"),
        lambda: step.build(step.mse(w, t), mixedprec.SGD(lr=1), clip_grad_norm=(1.0, 3)),
]:
    try:
        attempt()
        print("no error")
    except mixedprec.BuildError as error:
        print("BuildError:", error)
# CHECK: BuildError: StepLR: step_size must be >= 1
# CHECK-NEXT: BuildError: LinearLR: start_factor must be in (0, 1], end_factor in [0, 1]
# CHECK-NEXT: BuildError: SequentialLR: expects one milestone fewer than schedulers
# CHECK-NEXT: BuildError: lr_scheduler must be a mixedprec schedule (StepLR, ...)
# CHECK-NEXT: BuildError: cross_entropy: label_smoothing must be in [0, 1], got 2.0
# CHECK-NEXT: BuildError: nll_loss: reduction must be 'mean', 'sum' or 'none', got 'max'
# CHECK-NEXT: BuildError: clip_grad_norm: norm_type must be 2 or 'inf', got 3
