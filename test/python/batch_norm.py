# mixedprec.TrainStep.batch_norm: the train step threads the running
# statistics as forward state (bn.* kinds, updated through mp.updates, after
# the optimizer state), @predict takes them and runs batch norm in eval mode;
# the IR verifies and the mixed-precision pipeline compiles it.
# RUN: %python %s | FileCheck %s

import mixedprec

step = mixedprec.TrainStep()
w = step.param("w", (6, 4))
g = step.param("g", (6,))
b = step.param("b", (6,))
v = step.param("v", (3, 6))
x = step.input("x", (8, 4))
labels = step.input("labels", (8,), "i64")
h = step.relu(step.batch_norm(step.linear(x, w), g, b, momentum=0.2))
logits = step.linear(h, v)
text = step.build(step.cross_entropy(logits, labels), mixedprec.Adam(lr=0.01),
                  predict=logits)
print(text)
# CHECK-LABEL: func.func @train_step(
# CHECK:          %step: tensor<i64> {mp.state = "step"},
# CHECK-NEXT:     %bn0_running_mean: tensor<6xf32> {mp.state = "bn.running_mean"},
# CHECK-NEXT:     %bn0_running_var: tensor<6xf32> {mp.state = "bn.running_var", mp.init = 1.0 : f32},
# CHECK-NEXT:     %bn0_num_batches_tracked: tensor<i64> {mp.state = "bn.num_batches_tracked"},
# CHECK-NEXT:     %x: tensor<8x4xf32>,
# CHECK:          tensor<i64> {mp.updates = 12 : i64},
# CHECK-NEXT:     tensor<6xf32> {mp.updates = 13 : i64},
# CHECK-NEXT:     tensor<6xf32> {mp.updates = 14 : i64},
# CHECK-NEXT:     tensor<i64> {mp.updates = 15 : i64}) {
# CHECK:        %[[BN:v[0-9]+]], %[[BN]]_running_mean, %[[BN]]_running_var, %[[BN]]_num_batches_tracked = mp.batch_norm %v{{[0-9]+}} weight %g bias %b stats(%bn0_running_mean, %bn0_running_var, %bn0_num_batches_tracked) training eps 1.0e-05 momentum 0.2 : (tensor<8x6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<i64>) -> (tensor<8x6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<i64>)
# CHECK:        return {{.*}}, %step_new, %[[BN]]_running_mean, %[[BN]]_running_var, %[[BN]]_num_batches_tracked :
# CHECK-LABEL: func.func @predict(
# CHECK:          %v: tensor<3x6xf32> {mp.param},
# CHECK-NEXT:     %bn0_running_mean: tensor<6xf32> {mp.state = "bn.running_mean"},
# CHECK-NEXT:     %bn0_running_var: tensor<6xf32> {mp.state = "bn.running_var", mp.init = 1.0 : f32},
# CHECK-NEXT:     %bn0_num_batches_tracked: tensor<i64> {mp.state = "bn.num_batches_tracked"},
# CHECK-NEXT:     %x: tensor<8x4xf32>)
# CHECK:        mp.batch_norm %{{.*}} stats(%bn0_running_mean, %bn0_running_var, %bn0_num_batches_tracked) eval eps 1.0e-05 momentum 0.2

print("verifies:", "@predict" in mixedprec.compile(text, pipeline=None))
print("compiles:", "mp.grad" not in mixedprec.compile(text, compute_type="f16"))
# CHECK: verifies: True
# CHECK-NEXT: compiles: True

# momentum=None is the cumulative average; a wrong weight is reported.
step = mixedprec.TrainStep()
x = step.param("x", (4, 3, 2, 2))
y = step.batch_norm(x, momentum=None)
print("cumulative_average" in step.build(step.reduce_sum(y, [0, 1, 2, 3]),
                                         mixedprec.SGD(lr=1)))
# CHECK: True
try:
    step.batch_norm(x, weight=step.param("bad", (4,)))
except mixedprec.BuildError as error:
    print("error:", error)
# CHECK: error: batch_norm: weight must be [3] of f32 or f32, got tensor<4xf32>
