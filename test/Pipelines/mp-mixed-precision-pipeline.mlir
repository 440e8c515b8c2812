// The pipeline produces exactly what its passes produce one by one.
// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir --mp-mixed-precision-pipeline > %t.pipeline
// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir --mp-autocast=compute-type=f16 --mp-master-weights --mp-loss-scaling --mp-autodiff --canonicalize --cse > %t.passes
// RUN: diff %t.pipeline %t.passes
// RUN: mp-opt %mp_src_root/docs/examples/transformer_block_train_step.mlir --mp-mixed-precision-pipeline="compute-type=bf16 master-weights=stored-copy" > %t.pipeline-bf16
// RUN: mp-opt %mp_src_root/docs/examples/transformer_block_train_step.mlir --mp-autocast=compute-type=bf16 --mp-master-weights=style=stored-copy --mp-autodiff --canonicalize --cse > %t.passes-bf16
// RUN: diff %t.pipeline-bf16 %t.passes-bf16
// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir --mp-mixed-precision-pipeline="compute-type=f32" > %t.pipeline-f32
// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir --mp-master-weights --mp-autodiff --canonicalize --cse > %t.passes-f32
// RUN: diff %t.pipeline-f32 %t.passes-f32
// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir --mp-mixed-precision-pipeline="loss-scaling=static init-scale=1024" > %t.pipeline-static
// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir --mp-autocast=compute-type=f16 --mp-master-weights --mp-loss-scaling="mode=static init-scale=1024" --mp-autodiff --canonicalize --cse > %t.passes-static
// RUN: diff %t.pipeline-static %t.passes-static

// The structure of the f16 MLP step.
// RUN: FileCheck %s --input-file=%t.pipeline
// RUN: FileCheck %s --check-prefix=F32 --input-file=%t.pipeline-f32
// RUN: FileCheck %s --check-prefix=BF16 --input-file=%t.pipeline-bf16

// CHECK-LABEL: func.func @train_step
// CHECK-SAME: tensor<f32> {mp.init = 6.553600e+04 : f32, mp.state = "loss_scale"}, %{{[^:]*}}: tensor<i32> {mp.state = "growth_tracker"})
// CHECK-SAME: tensor<f32> {mp.updates = 15 : i64}, tensor<i32> {mp.updates = 16 : i64}, tensor<i1> {mp.skipped})
// CHECK-SAME: attributes {mp.loss_scaling = "dynamic"}
// CHECK-NOT: mp.grad
// CHECK: mp.linear {{.*}} acc(f32) : (tensor<64x784xf16>, tensor<256x784xf16>, tensor<256xf16>) -> tensor<64x256xf16>
// CHECK: mp.cross_entropy_grad
// CHECK-COUNT-4: mp.adam {{.*}} : tensor<{{.*}}xf32>, tensor<i64>
// CHECK: mp.all_finite {{.*}} : tensor<256x784xf32>, tensor<256xf32>, tensor<10x256xf32>, tensor<10xf32>
// CHECK: mp.update_loss_scale
// CHECK: return

// F32-LABEL: func.func @train_step
// F32-NOT: mp.cast
// F32-NOT: mp.grad
// F32-NOT: loss_scale
// F32: return

// BF16-LABEL: func.func @train_step
// BF16-NOT: mp.loss_scaling
// BF16-SAME: tensor<64x64xbf16> {mp.copy_of = 3 : i64, mp.state = "working_copy"}
// BF16-NOT: mp.grad
// BF16-COUNT-18: mp.adamw
// BF16-NOT: mp.update_loss_scale
