// mp.clip_grad_norm under dynamic loss scaling (GradScaler's unscale_ ->
// clip_grad_norm_ -> step order): at step 2 every input is 1e19, so every
// unscaled gradient element is 1e19 (finite) while the sum of
// their squares overflows f32: the total norm is inf. mp-loss-scaling counts
// the norm in found_inf, so that step is skipped (the parameter comes back
// unchanged) and the scale backs off from 1024 to 512; the finite steps
// around it update the parameter.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; x = np.full((3, 16), 0.5, np.float32); x[1] = 1e19; np.save('%t/arg1.npy', x)"
// RUN: mp-run %s --function=step --data=npy:%t --shuffle=false --steps 3 --json %t/run.json \
// RUN:     --pipeline='mp-loss-scaling{init-scale=1024},func.func(mp-autodiff)' | FileCheck %s
// RUN: %python -c "import json; r = json.load(open('%t/run.json')); print([(s['skipped'], s['unchanged']) for s in r['steps']])" \
// RUN:   | FileCheck %s --check-prefix=JSON

// CHECK: step 1 loss {{.*}} scale 1024 ok
// CHECK-NEXT: step 2 loss {{.*}} scale 1024 skipped
// CHECK-NEXT: step 3 loss {{.*}} scale 512 ok
// JSON: [(False, False), (True, True), (False, False)]

func.func @step(%w: tensor<1x16xf32> {mp.param}, %x: tensor<1x16xf32>)
    -> (tensor<f32> {mp.loss}, tensor<1x16xf32> {mp.updates = 0 : i64}) {
  %y = mp.linear %x, %w acc(f32) : (tensor<1x16xf32>, tensor<1x16xf32>) -> tensor<1x1xf32>
  %loss = mp.reduce_mean %y dims [0, 1] : tensor<1x1xf32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<1x16xf32>
  %c, %norm = mp.clip_grad_norm %g max_norm 1.0 : tensor<1x16xf32>
  %w1 = mp.sgd %w, %c {lr = 0.1 : f64} : tensor<1x16xf32>
  return %loss, %w1 : tensor<f32>, tensor<1x16xf32>
}
