// recipe=nvfp4 in a data-parallel train step (after mp-data-parallel, whose
// grid @mp_data_parallel it finds): the recipe's rng stream (its seed with
// the top bit flipped) also takes the process's rank in the key word k1,
// seed XOR (rank << 32) as mp-data-parallel gives the step's own rng
// states, so each process rounds its gradients with its own bits; the
// returned state carries the shared seed.
// RUN: mp-opt %s --pass-pipeline='builtin.module(mp-data-parallel{grid-size=2},func.func(mp-autodiff),mp-fp8-scaling{recipe=nvfp4})' | FileCheck %s

func.func @mlp3(%w1: tensor<32x16xf32> {mp.param}, %w2: tensor<32x32xf32> {mp.param},
                %w3: tensor<16x32xf32> {mp.param}, %x: tensor<32x16xf32>, %y: tensor<32xi64>)
    -> (tensor<f32> {mp.loss}, tensor<32x16xf32> {mp.updates = 0 : i64},
        tensor<32x32xf32> {mp.updates = 1 : i64}, tensor<16x32xf32> {mp.updates = 2 : i64}) {
  %h1 = mp.linear %x, %w1 acc(f32) : (tensor<32x16xf32>, tensor<32x16xf32>) -> tensor<32x32xf32>
  %h2 = mp.linear %h1, %w2 acc(f32) : (tensor<32x32xf32>, tensor<32x32xf32>) -> tensor<32x32xf32>
  %l = mp.linear %h2, %w3 acc(f32) : (tensor<32x32xf32>, tensor<16x32xf32>) -> tensor<32x16xf32>
  %loss = mp.cross_entropy %l, %y : tensor<32x16xf32>, tensor<32xi64>
  %g1, %g2, %g3 = mp.grad %loss wrt %w1, %w2, %w3
      : tensor<f32>, tensor<32x16xf32>, tensor<32x32xf32>, tensor<16x32xf32>
  %n1 = mp.sgd %w1, %g1 {lr = 0.1 : f64} : tensor<32x16xf32>
  %n2 = mp.sgd %w2, %g2 {lr = 0.1 : f64} : tensor<32x32xf32>
  %n3 = mp.sgd %w3, %g3 {lr = 0.1 : f64} : tensor<16x32xf32>
  return %loss, %n1, %n2, %n3 : tensor<f32>, tensor<32x16xf32>, tensor<32x32xf32>, tensor<16x32xf32>
}
// CHECK-LABEL: func.func @mlp3(
// CHECK-SAME:  %[[RNG:[a-z0-9]+]]: tensor<2xi64> {mp.state = "rng"})
// CHECK-NEXT:  %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT:  %[[SEED:.*]] = tensor.extract %[[RNG]][%[[C0]]] : tensor<2xi64>
// CHECK-NEXT:  %[[BIT:.*]] = arith.constant -9223372036854775808 : i64
// CHECK-NEXT:  %[[KEY:.*]] = arith.xori %[[SEED]], %[[BIT]] : i64
// CHECK-NEXT:  %[[RANK:.*]] = shard.process_linear_index on @mp_data_parallel : index
// CHECK-NEXT:  %[[RANK64:.*]] = arith.index_castui %[[RANK]] : index to i64
// CHECK-NEXT:  %[[C32:.*]] = arith.constant 32 : i64
// CHECK-NEXT:  %[[SHIFTED:.*]] = arith.shli %[[RANK64]], %[[C32]] : i64
// CHECK-NEXT:  %[[RANKKEY:.*]] = arith.xori %[[KEY]], %[[SHIFTED]] : i64
// CHECK-NEXT:  %[[STREAM:.*]] = tensor.insert %[[RANKKEY]] into %[[RNG]][%[[C0]]] : tensor<2xi64>
// CHECK-NEXT:  %{{.*}}, %[[S1:.*]] = mp.random_bits %[[STREAM]] : tensor<32x32xi32>
// CHECK-NEXT:  %{{.*}}, %[[S2:.*]] = mp.random_bits %[[S1]] : tensor<32x32xi32>
// CHECK:       %[[NEXT:.*]] = tensor.insert %[[SEED]] into %[[S2]][%{{.*}}] : tensor<2xi64>
// CHECK-NEXT:  return {{.*}}, %[[NEXT]] :
