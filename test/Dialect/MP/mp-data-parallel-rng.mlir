// mp-data-parallel gives each process its own random stream: the step's ops
// read the rng state with the rank folded into the key word k1
// (seed XOR rank << 32), and the state the step returns carries the shared
// seed again with the advanced offset, so the threaded state is identical on
// every process. Rank 0 keeps the single-process stream.
// RUN: mp-opt %s --mp-data-parallel | FileCheck %s
// RUN: mp-opt %s --pass-pipeline='builtin.module(mp-data-parallel,func.func(mp-autodiff))' | FileCheck %s --check-prefix=GRAD
// A second run adds nothing.
// RUN: mp-opt %s --mp-data-parallel --mp-data-parallel | FileCheck %s --check-prefix=TWICE
// TWICE-COUNT-1: shard.process_linear_index
// TWICE-NOT: shard.process_linear_index

// CHECK-LABEL: func.func @step
// CHECK-SAME: %[[S:[a-z0-9]+]]: tensor<2xi64> {mp.state = "rng"}
// CHECK-NEXT: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[SEED:.*]] = tensor.extract %[[S]][%[[C0]]] : tensor<2xi64>
// CHECK-NEXT: %[[RANK:.*]] = shard.process_linear_index on @mp_data_parallel : index
// CHECK-NEXT: %[[R64:.*]] = arith.index_castui %[[RANK]] : index to i64
// CHECK-NEXT: %[[C32:.*]] = arith.constant 32 : i64
// CHECK-NEXT: %[[SH:.*]] = arith.shli %[[R64]], %[[C32]] : i64
// CHECK-NEXT: %[[KEY:.*]] = arith.xori %[[SEED]], %[[SH]] : i64
// CHECK-NEXT: %[[RS:.*]] = tensor.insert %[[KEY]] into %[[S]][%[[C0]]] : tensor<2xi64>
// CHECK-NOT:  %[[S]]
// CHECK:      %{{.*}}, %[[S1:[a-z_0-9]+]] = mp.dropout %{{.*}}, %[[RS]] p(5.000000e-01)
// CHECK:      %[[OUT:.*]] = tensor.insert %[[SEED]] into %[[S1]][%[[C0]]] : tensor<2xi64>
// CHECK-NEXT: return %{{.*}}, %{{.*}}, %[[OUT]]
// The backward regenerates the mask from the per-process state.
// GRAD-LABEL: func.func @step
// GRAD: %[[RS:.*]] = tensor.insert %{{.*}} into %{{.*}}[%{{.*}}] : tensor<2xi64>
// GRAD: mp.dropout %{{.*}}, %[[RS]] p(5.000000e-01)
// GRAD: mp.dropout_grad %{{.*}}, %[[RS]] p(5.000000e-01)
func.func @step(%w: tensor<64xf32> {mp.param}, %s: tensor<2xi64> {mp.state = "rng"},
                %x: tensor<1x64xf32>)
    -> (tensor<f32> {mp.loss}, tensor<64xf32> {mp.updates = 0 : i64},
        tensor<2xi64> {mp.updates = 1 : i64}) {
  %h = mp.mul %x, %w : tensor<1x64xf32>, tensor<64xf32>
  %d, %s1 = mp.dropout %h, %s p(0.5) : tensor<1x64xf32>
  %loss = mp.reduce_sum %d dims [0, 1] : tensor<1x64xf32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<64xf32>
  %w1 = mp.sgd %w, %g {lr = 0.1 : f64} : tensor<64xf32>
  return %loss, %w1, %s1 : tensor<f32>, tensor<64xf32>, tensor<2xi64>
}
