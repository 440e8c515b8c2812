// RUN: mp-opt %s --mp-precision-report -o /dev/null | FileCheck %s
// RUN: mp-opt %s --mp-precision-report=output=%t.json -o /dev/null
// RUN: FileCheck %s --input-file=%t.json --check-prefix=JSON

// Forward state (the batch-norm statistics: 2 × 4 f32 and one i64 counter)
// is its own row of the byte counts, separate from optimizer state (the SGD
// momentum buffers of the two 4-element parameters); batch norm is exempt
// from autocast.

// CHECK: mp.batch_norm exempt f32
// CHECK: bytes f32 i64 total
// CHECK-NEXT: parameters 32 0 32
// CHECK-NEXT: parameter copies 0 0 0
// CHECK-NEXT: gradients 32 0 32
// CHECK-NEXT: optimizer state 32 0 32
// CHECK-NEXT: forward state 32 8 40
// CHECK-NEXT: activations 164 8 172
// JSON: "forward_state": {
// JSON-NEXT: "f32": 32,
// JSON-NEXT: "i64": 8
// JSON-NEXT: },
// JSON: "forward_state": 40,
func.func @step(%g: tensor<4xf32> {mp.param}, %b: tensor<4xf32> {mp.param},
                %mg: tensor<4xf32> {mp.state = "sgd.momentum_buffer"},
                %mb: tensor<4xf32> {mp.state = "sgd.momentum_buffer"},
                %rm: tensor<4xf32> {mp.state = "bn.running_mean"},
                %rv: tensor<4xf32> {mp.state = "bn.running_var"},
                %n: tensor<i64> {mp.state = "bn.num_batches_tracked"},
                %x: tensor<8x4xf32>)
    -> (tensor<f32> {mp.loss}, tensor<4xf32> {mp.updates = 0 : i64}, tensor<4xf32> {mp.updates = 1 : i64},
        tensor<4xf32> {mp.updates = 2 : i64}, tensor<4xf32> {mp.updates = 3 : i64},
        tensor<4xf32> {mp.updates = 4 : i64}, tensor<4xf32> {mp.updates = 5 : i64},
        tensor<i64> {mp.updates = 6 : i64}) {
  %y, %rm1, %rv1, %n1 = mp.batch_norm %x weight %g bias %b stats(%rm, %rv, %n) training
      : (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
      -> (tensor<8x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  %loss = mp.reduce_sum %y dims [0, 1] : tensor<8x4xf32>
  %dg, %db = mp.grad %loss wrt %g, %b : tensor<f32>, tensor<4xf32>, tensor<4xf32>
  %g1, %mg1 = mp.sgd %g, %dg momentum_buffer %mg {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<4xf32>, tensor<4xf32>
  %b1, %mb1 = mp.sgd %b, %db momentum_buffer %mb {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<4xf32>, tensor<4xf32>
  return %loss, %g1, %b1, %mg1, %mb1, %rm1, %rv1, %n1
      : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>
}
