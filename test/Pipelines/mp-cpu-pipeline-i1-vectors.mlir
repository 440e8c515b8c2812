// mp-cpu-pipeline's outlined loop nests pass and return i1 vectors as i8
// vectors (mp-outline-loop-nests, lib/Pipelines/OutlineLoopNests.cpp): LLVM
// 22's X86 back end aborts on AVX-512 hosts ("Cannot emit physreg copy
// instruction") when a call passes or returns an i1 vector. Here the
// all-finite check of a dynamically loss-scaled step (a vector<1xi1> carried
// across loop nests) crosses two calls; the JIT run checks that the step
// compiles and trains on this host.
// RUN: mp-opt %s --pass-pipeline='builtin.module(mp-loss-scaling,func.func(mp-autodiff),mp-cpu-pipeline)' | FileCheck %s
// RUN: mp-run %s --steps 2 --print-every 0 --pipeline='mp-loss-scaling,func.func(mp-autodiff)' | FileCheck %s --check-prefix=JIT

// CHECK: llvm.func @__mp_dropout_step_{{[0-9]+}}(%{{.*}}: vector<1xi8>, {{.*}} -> vector<1xi8>
// CHECK-NOT: llvm.func {{.*}}xi1>{{.*}} attributes
// CHECK: llvm.func @dropout_step(
// CHECK: %[[BYTE:.*]] = llvm.zext %{{.*}} : vector<1xi1> to vector<1xi8>
// CHECK: %[[BACK:.*]] = llvm.call @__mp_dropout_step_{{[0-9]+}}(%[[BYTE]], {{.*}} -> vector<1xi8>
// CHECK: llvm.trunc %[[BACK]] : vector<1xi8> to vector<1xi1>

// JIT: final: loss {{.*}} skipped {{[0-2]}}/2

func.func @dropout_step(%w: tensor<64xf32> {mp.param},
                        %s: tensor<2xi64> {mp.state = "rng"},
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
