# mixedprec.TrainStep with the pooling, activation, selection and comparison
# ops: the IR it writes (exact text), that it verifies and compiles, its
# shape inference and its errors.
# RUN: %python %s | FileCheck %s

import mixedprec

step = mixedprec.TrainStep("pool")
x = step.input("x", (4, 2, 9, 9))
labels = step.input("labels", (2, 2), "i64")
w = step.param("w", (2, 1, 1))
h = step.relu6(x * w)
h = step.max_pool2d(h, 3, stride=2, padding=1, ceil_mode=True)
h = step.hardswish(step.avg_pool2d(h, 2, stride=1, count_include_pad=False, divisor_override=3))
h = step.silu(step.leaky_relu(step.hardsigmoid(h), 0.2)) + step.erf(step.abs(h))
h = step.clamp(h, max=1.5)
positive = step.compare("gt", h, step.stop_gradient(h * h))
h = step.select(positive, h, step.hardtanh(h))
h = step.adaptive_avg_pool2d(h, (1, 1))
logits = step.reshape(h, (4, 2))
flat = step.reshape(labels, (4,))
print([v.shape for v in (h, logits, flat)], flat.dtype)
# CHECK: [(4, 2, 1, 1), (4, 2), (4,)] i64
loss = step.cross_entropy(logits, flat)
text = step.build(loss, mixedprec.SGD(lr=0.1))
print(text)
# CHECK:      %v1 = mp.clamp %v0 min 0.0 max 6.0 hardtanh : tensor<4x2x9x9xf32>
# CHECK-NEXT: %v2 = mp.max_pool2d %v1 kernel [3, 3] stride [2, 2] padding [1, 1] ceil_mode : tensor<4x2x9x9xf32>
# CHECK-NEXT: %v3 = mp.avg_pool2d %v2 kernel [2, 2] stride [1, 1] count_include_pad false divisor 3 : tensor<4x2x5x5xf32>
# CHECK-NEXT: %v4 = mp.hardswish %v3 : tensor<4x2x4x4xf32>
# CHECK-NEXT: %v5 = mp.hardsigmoid %v4 : tensor<4x2x4x4xf32>
# CHECK-NEXT: %v6 = mp.leaky_relu %v5 negative_slope 0.2 : tensor<4x2x4x4xf32>
# CHECK-NEXT: %v7 = mp.silu %v6 : tensor<4x2x4x4xf32>
# CHECK-NEXT: %v8 = mp.abs %v4 : tensor<4x2x4x4xf32>
# CHECK-NEXT: %v9 = mp.erf %v8 : tensor<4x2x4x4xf32>
# CHECK-NEXT: %v10 = mp.add %v7, %v9 : tensor<4x2x4x4xf32>, tensor<4x2x4x4xf32>
# CHECK-NEXT: %v11 = mp.clamp %v10 max 1.5 : tensor<4x2x4x4xf32>
# CHECK-NEXT: %v12 = mp.mul %v11, %v11 : tensor<4x2x4x4xf32>, tensor<4x2x4x4xf32>
# CHECK-NEXT: %v13 = mp.stop_gradient %v12 : tensor<4x2x4x4xf32>
# CHECK-NEXT: %v14 = mp.compare gt, %v11, %v13 : tensor<4x2x4x4xf32>, tensor<4x2x4x4xf32>
# CHECK-NEXT: %v15 = mp.clamp %v11 min -1.0 max 1.0 hardtanh : tensor<4x2x4x4xf32>
# CHECK-NEXT: %v16 = mp.select %v14, %v11, %v15 : tensor<4x2x4x4xi1>, tensor<4x2x4x4xf32>, tensor<4x2x4x4xf32>
# CHECK-NEXT: %v17 = mp.adaptive_avg_pool2d %v16 output_size [1, 1] : tensor<4x2x4x4xf32>
# CHECK-NEXT: %v18 = mp.reshape %v17 : tensor<4x2x1x1xf32> to tensor<4x2xf32>
# CHECK-NEXT: %v19 = mp.reshape %labels : tensor<2x2xi64> to tensor<4xi64>
# CHECK-NEXT: %v20 = mp.cross_entropy %v18, %v19 : tensor<4x2xf32>, tensor<4xi64>

print("verifies:", "func.func @pool" in mixedprec.compile(text, pipeline=None))
print("compiles:", "mp.grad" not in mixedprec.compile(text))
# CHECK: verifies: True
# CHECK-NEXT: compiles: True

for bad in (lambda: step.max_pool2d(x, 2, padding=2),
            lambda: step.max_pool2d(labels, 2),
            lambda: step.clamp(x),
            lambda: step.select(x, x, x),
            lambda: step.compare("approx", x, x)):
    try:
        bad()
    except mixedprec.BuildError as error:
        print("error:", error)
# CHECK: error: max_pool2d: invalid window (kernel [2, 2], stride [2, 2], padding [2, 2])
# CHECK-NEXT: error: max_pool2d input must be a float tensor, got tensor<2x2xi64>
# CHECK-NEXT: error: clamp: give min, max or both
# CHECK-NEXT: error: select: the condition must be i1, got tensor<4x2x9x9xf32>
# CHECK-NEXT: error: compare: unknown predicate 'approx'
