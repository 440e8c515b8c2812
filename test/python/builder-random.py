# mixedprec.TrainStep's random ops: one rng state argument threaded through
# dropout and the samplers in call order and returned with mp.updates; the
# seed as mp.init; dropout is the identity in @predict; the IR verifies and
# the mixed-precision pipeline differentiates it.
# RUN: %python %s | FileCheck %s

import mixedprec
from mixedprec.builder import BuildError

step = mixedprec.TrainStep("dropout_mlp", seed=5)
x = step.input("x", (4, 8))
labels = step.input("labels", (4,), "i64")
w = step.param("w", (16, 8))
v = step.param("v", (3, 16))
noise = step.random_normal((4, 8), mean=0.0, std=0.1)
h = step.dropout(step.relu(step.linear(x + noise, w)), 0.25)
logits = step.linear(step.dropout(h, 0.5), v)
loss = step.cross_entropy(logits, labels)
text = step.build(loss, mixedprec.SGD(lr=0.1), predict=step.linear(step.dropout(step.relu(step.linear(x, w)), 0.25), v))
print(text)
# CHECK-LABEL: func.func @dropout_mlp(
# CHECK-NEXT:     %w: tensor<16x8xf32> {mp.param},
# CHECK-NEXT:     %v: tensor<3x16xf32> {mp.param},
# CHECK-NEXT:     %rng: tensor<2xi64> {mp.state = "rng", mp.init = dense<[5, 0]> : tensor<2xi64>},
# CHECK-NEXT:     %x: tensor<4x8xf32>,
# CHECK-NEXT:     %labels: tensor<4xi64>)
# CHECK-NEXT:     -> (tensor<f32> {mp.loss},
# CHECK-NEXT:         tensor<16x8xf32> {mp.updates = 0 : i64},
# CHECK-NEXT:         tensor<3x16xf32> {mp.updates = 1 : i64},
# CHECK-NEXT:         tensor<2xi64> {mp.updates = 2 : i64}) {
# CHECK-NEXT:   %v0, %v0_rng = mp.random_normal %rng mean(0.0) std(0.1) : tensor<4x8xf32>
# CHECK-NEXT:   %v1 = mp.add %x, %v0 : tensor<4x8xf32>, tensor<4x8xf32>
# CHECK-NEXT:   %v2 = mp.linear %v1, %w acc(f32)
# CHECK-NEXT:   %v3 = mp.relu %v2 : tensor<4x16xf32>
# CHECK-NEXT:   %v4, %v4_rng = mp.dropout %v3, %v0_rng p(0.25) : tensor<4x16xf32>
# CHECK-NEXT:   %v5, %v5_rng = mp.dropout %v4, %v4_rng p(0.5) : tensor<4x16xf32>
# CHECK-NEXT:   %v6 = mp.linear %v5, %v acc(f32)
# CHECK-NEXT:   %v7 = mp.cross_entropy %v6, %labels
# The third dropout (built for @predict's graph) is a random op of the step
# too: it draws last, and its state is returned.
# CHECK:        %v10, %v10_rng = mp.dropout %v9, %v5_rng p(0.25) : tensor<4x16xf32>
# CHECK:        mp.grad %v7 wrt %w, %v
# CHECK:        return %v7, %new_w, %new_v, %v10_rng : tensor<f32>, tensor<16x8xf32>, tensor<3x16xf32>, tensor<2xi64>
# In @predict dropout is the identity and there is no rng state.
# CHECK-LABEL: func.func @predict(
# CHECK-NOT:    rng
# CHECK-NOT:    mp.dropout
# CHECK:        return

# It verifies, and the mixed-precision pipeline differentiates it: the
# backward regenerates the masks (mp.dropout_grad), no mask is kept.
print("verifies:", "@predict" in mixedprec.compile(text, pipeline=None))
out = mixedprec.compile(text, compute_type="bf16")
print("compiles:", "mp.grad" not in out, out.count("mp.dropout_grad"))
# CHECK: verifies: True
# CHECK-NEXT: compiles: True 2

# Without a seed, no mp.init (mp-run binds --seed).
s2 = mixedprec.TrainStep()
a = s2.param("a", (4,))
u = s2.random_uniform((4,), low=-1.0, high=1.0, dtype="bf16")
print(s2.build(s2.reduce_sum(s2.cast(u, "f32") * a, 0), mixedprec.SGD(lr=1.0)).splitlines()[2])
# CHECK: %rng: tensor<2xi64> {mp.state = "rng"})

for build in (lambda s: s.dropout(s.input("i", (2,)), 1.0),
              lambda s: s.random_uniform((2,), low=1.0, high=1.0),
              lambda s: s.random_normal((2,), std=-1.0),
              lambda s: s.random_normal((2,), dtype="f8E4M3FN"),
              lambda s: s.dropout(s.input("j", (2,), "f8E5M2"), 0.5)):
    try:
        build(mixedprec.TrainStep())
    except BuildError as error:
        print("error:", error)
# CHECK: error: dropout: p must be in [0, 1), got 1.0
# CHECK-NEXT: error: random_uniform: low must be < high
# CHECK-NEXT: error: random_normal: std must be >= 0
# CHECK-NEXT: error: random_normal: dtype must be f32, f16 or bf16, got f8E4M3FN
# CHECK-NEXT: error: dropout: input must be f32, f16 or bf16, got tensor<2xf8E5M2>
