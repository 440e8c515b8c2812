// mp-fp8-scaling on joint graphs built by mp-autodiff. Prefix DEFAULT is
// delayed scaling, hybrid formats, history 1024 (also run twice: nothing changes
// the second time). Other prefixes: one option each, on @mlp3.
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling)' | FileCheck %s --check-prefix=DEFAULT
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling,mp-fp8-scaling)' | FileCheck %s --check-prefix=DEFAULT
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{recipe=current})' | FileCheck %s --check-prefix=CURRENT
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{recipe=current power-2-scale=true amax-epsilon=1e-12})' | FileCheck %s --check-prefix=POW2
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{format=e4m3})' | FileCheck %s --check-prefix=E4M3
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{amax-history-len=4 amax-compute=most-recent margin=2})' | FileCheck %s --check-prefix=HISTORY
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{include-first-last=true})' | FileCheck %s --check-prefix=ALL
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{ops=matmul})' | FileCheck %s --check-prefix=MATMUL
// The JSON precision report of the current recipe (first function).
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{recipe=current},mp-precision-report{output=- table-output=})' -o /dev/null | FileCheck %s --check-prefix=JSON
// ops=linear,batch_matmul on the transformer block: the attention's batch
// matmuls (between the q/k/v projections and the output projection) too.
// RUN: mp-opt %mp_src_root/docs/examples/transformer_block_train_step.mlir --pass-pipeline='builtin.module(mp-autocast{compute-type=bf16},mp-master-weights,func.func(mp-autodiff),mp-fp8-scaling{ops=linear,batch_matmul recipe=current})' | FileCheck %s --check-prefix=BATCH
// The pipeline with f16 (dynamic loss scaling): the FP8 state results select
// their arguments on a skipped step (%64 is the mp.skipped result).
// RUN: mp-opt %s -split-input-file --mp-mixed-precision-pipeline="compute-type=f16 fp8=delayed fp8-amax-history-len=8" | FileCheck %s --check-prefix=PIPE
// The transformer block example through mp-mixed-precision-pipeline (bf16,
// fp8=delayed), and mp-precision-report on the result.
// RUN: mp-opt %mp_src_root/docs/examples/transformer_block_train_step.mlir --mp-mixed-precision-pipeline="compute-type=bf16 fp8=delayed" \
// RUN:   | tee %t.block | FileCheck %s --check-prefix=BLOCK
// RUN: mp-opt %t.block --mp-precision-report -o /dev/null | FileCheck %s --check-prefix=REPORT

// Three layers: only the middle one goes to FP8 by default.
func.func @mlp3(%w1: tensor<16x8xf32> {mp.param}, %w2: tensor<16x16xf32> {mp.param},
                %b2: tensor<16xf32> {mp.param}, %w3: tensor<4x16xf32> {mp.param},
                %x: tensor<2x8xf32>, %y: tensor<2xi64>)
    -> (tensor<f32> {mp.loss}, tensor<16x8xf32> {mp.updates = 0 : i64},
        tensor<16x16xf32> {mp.updates = 1 : i64}, tensor<16xf32> {mp.updates = 2 : i64},
        tensor<4x16xf32> {mp.updates = 3 : i64}) {
  %h1 = mp.linear %x, %w1 acc(f32) : (tensor<2x8xf32>, tensor<16x8xf32>) -> tensor<2x16xf32>
  %a1 = mp.relu %h1 : tensor<2x16xf32>
  %h2 = mp.linear %a1, %w2, %b2 acc(f32) : (tensor<2x16xf32>, tensor<16x16xf32>, tensor<16xf32>) -> tensor<2x16xf32>
  %a2 = mp.relu %h2 : tensor<2x16xf32>
  %l = mp.linear %a2, %w3 acc(f32) : (tensor<2x16xf32>, tensor<4x16xf32>) -> tensor<2x4xf32>
  %loss = mp.cross_entropy %l, %y : tensor<2x4xf32>, tensor<2xi64>
  %g1, %g2, %gb2, %g3 = mp.grad %loss wrt %w1, %w2, %b2, %w3
      : tensor<f32>, tensor<16x8xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<4x16xf32>
  %n1 = mp.sgd %w1, %g1 {lr = 0.1 : f64} : tensor<16x8xf32>
  %n2 = mp.sgd %w2, %g2 {lr = 0.1 : f64} : tensor<16x16xf32>
  %nb2 = mp.sgd %b2, %gb2 {lr = 0.1 : f64} : tensor<16xf32>
  %n3 = mp.sgd %w3, %g3 {lr = 0.1 : f64} : tensor<4x16xf32>
  return %loss, %n1, %n2, %nb2, %n3
      : tensor<f32>, tensor<16x8xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<4x16xf32>
}


// DEFAULT-LABEL: func.func @mlp3(
// DEFAULT-SAME: %[[W1:[a-z0-9]+]]: tensor<16x8xf32> {mp.param}, %[[W2:[a-z0-9]+]]: tensor<16x16xf32> {mp.param}, %[[B2:[a-z0-9]+]]: tensor<16xf32> {mp.param}, %[[W3:[a-z0-9]+]]: tensor<4x16xf32> {mp.param}, %[[X:[a-z0-9]+]]: tensor<2x8xf32>, %{{.*}}: tensor<2xi64>,
// DEFAULT-SAME: %[[HX:[a-z0-9]+]]: tensor<1024xf32> {mp.state = "fp8.amax_history"}, %[[SX:[a-z0-9]+]]: tensor<f32> {mp.init = 1.000000e+00 : f32, mp.state = "fp8.scale"},
// DEFAULT-SAME: %[[HW:[a-z0-9]+]]: tensor<1024xf32> {mp.state = "fp8.amax_history"}, %[[SW:[a-z0-9]+]]: tensor<f32> {mp.init = 1.000000e+00 : f32, mp.state = "fp8.scale"},
// DEFAULT-SAME: %[[HG:[a-z0-9]+]]: tensor<1024xf32> {mp.state = "fp8.amax_history"}, %[[SG:[a-z0-9]+]]: tensor<f32> {mp.init = 1.000000e+00 : f32, mp.state = "fp8.scale"})
// DEFAULT-SAME: -> (tensor<f32> {mp.loss}, tensor<16x8xf32> {mp.updates = 0 : i64}, tensor<16x16xf32> {mp.updates = 1 : i64}, tensor<16xf32> {mp.updates = 2 : i64}, tensor<4x16xf32> {mp.updates = 3 : i64},
// DEFAULT-SAME: tensor<1024xf32> {mp.updates = 6 : i64}, tensor<f32> {mp.updates = 7 : i64}, tensor<1024xf32> {mp.updates = 8 : i64}, tensor<f32> {mp.updates = 9 : i64}, tensor<1024xf32> {mp.updates = 10 : i64}, tensor<f32> {mp.updates = 11 : i64})
// The first layer stays in f32.
// DEFAULT:      %[[H1:.*]] = mp.linear %[[X]], %[[W1]] acc(f32) : (tensor<2x8xf32>, tensor<16x8xf32>) -> tensor<2x16xf32>
// DEFAULT-NEXT: %[[A1:.*]] = mp.relu %[[H1]]
// The middle layer: input and weight in E4M3 with their delayed scales.
// DEFAULT-NEXT: %[[AX:.*]] = mp.amax %[[A1]] : tensor<2x16xf32>
// DEFAULT-NEXT: %[[HX1:.*]] = mp.amax_history_push %[[HX]], %[[AX]] : tensor<1024xf32>
// DEFAULT-NEXT: %[[SX1:.*]] = mp.fp8_scale %[[HX1]], %[[SX]] format e4m3 : tensor<1024xf32>
// DEFAULT-NEXT: %[[XS:.*]] = mp.scale %[[A1]] by %[[SX]] : tensor<2x16xf32>
// DEFAULT-NEXT: %[[X8:.*]] = mp.cast %[[XS]] saturate : tensor<2x16xf32> to tensor<2x16xf8E4M3FN>
// DEFAULT-NEXT: %[[AW:.*]] = mp.amax %[[W2]] : tensor<16x16xf32>
// DEFAULT-NEXT: %[[HW1:.*]] = mp.amax_history_push %[[HW]], %[[AW]] : tensor<1024xf32>
// DEFAULT-NEXT: %[[SW1:.*]] = mp.fp8_scale %[[HW1]], %[[SW]] format e4m3 : tensor<1024xf32>
// DEFAULT-NEXT: %[[WS:.*]] = mp.scale %[[W2]] by %[[SW]] : tensor<16x16xf32>
// DEFAULT-NEXT: %[[W8:.*]] = mp.cast %[[WS]] saturate : tensor<16x16xf32> to tensor<16x16xf8E4M3FN>
// DEFAULT-NEXT: %[[Y8:.*]] = mp.linear %[[X8]], %[[W8]] acc(f32) : (tensor<2x16xf8E4M3FN>, tensor<16x16xf8E4M3FN>) -> tensor<2x16xf32>
// DEFAULT-NEXT: %[[P:.*]] = mp.mul %[[SX]], %[[SW]] : tensor<f32>, tensor<f32>
// DEFAULT-NEXT: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// DEFAULT-NEXT: %[[INV:.*]] = mp.div %[[ONE]], %[[P]] : tensor<f32>, tensor<f32>
// DEFAULT-NEXT: %[[Y:.*]] = mp.scale %[[Y8]] by %[[INV]] : tensor<2x16xf32>
// DEFAULT-NEXT: %[[YB:.*]] = mp.add %[[Y]], %[[B2]] : tensor<2x16xf32>, tensor<16xf32>
// DEFAULT-NEXT: %[[A2:.*]] = mp.relu %[[YB]]
// The last layer and its backward stay in f32.
// DEFAULT-NEXT: %[[L:.*]] = mp.linear %[[A2]], %[[W3]] acc(f32) : (tensor<2x16xf32>, tensor<4x16xf32>) -> tensor<2x4xf32>
// DEFAULT:      %[[DL:.*]] = mp.cross_entropy_grad
// DEFAULT-NEXT: %[[DA2:.*]] = mp.matmul %[[DL]], %[[W3]] acc(f32) : tensor<2x4xf32>, tensor<4x16xf32> -> tensor<2x16xf32>
// DEFAULT-NEXT: %[[DW3:.*]] = mp.matmul %[[DL]], %[[A2]] transpose_lhs acc(f32) : tensor<2x4xf32>, tensor<2x16xf32> -> tensor<4x16xf32>
// DEFAULT-NEXT: %[[DY:.*]] = mp.relu_grad %[[DA2]], %[[YB]]
// The middle layer's backward: the output gradient in E5M2, the forward
// operands' FP8 copies reused.
// DEFAULT-NEXT: %[[AG:.*]] = mp.amax %[[DY]] : tensor<2x16xf32>
// DEFAULT-NEXT: %[[HG1:.*]] = mp.amax_history_push %[[HG]], %[[AG]] : tensor<1024xf32>
// DEFAULT-NEXT: %[[SG1:.*]] = mp.fp8_scale %[[HG1]], %[[SG]] format e5m2 : tensor<1024xf32>
// DEFAULT-NEXT: %[[GS:.*]] = mp.scale %[[DY]] by %[[SG]] : tensor<2x16xf32>
// DEFAULT-NEXT: %[[G8:.*]] = mp.cast %[[GS]] saturate : tensor<2x16xf32> to tensor<2x16xf8E5M2>
// DEFAULT-NEXT: %[[DX8:.*]] = mp.matmul %[[G8]], %[[W8]] acc(f32) : tensor<2x16xf8E5M2>, tensor<16x16xf8E4M3FN> -> tensor<2x16xf32>
// DEFAULT-NEXT: %[[P2:.*]] = mp.mul %[[SG]], %[[SW]] : tensor<f32>, tensor<f32>
// DEFAULT-NEXT: %[[ONE2:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// DEFAULT-NEXT: %[[INV2:.*]] = mp.div %[[ONE2]], %[[P2]] : tensor<f32>, tensor<f32>
// DEFAULT-NEXT: %[[DX:.*]] = mp.scale %[[DX8]] by %[[INV2]] : tensor<2x16xf32>
// DEFAULT-NEXT: %[[DW8:.*]] = mp.matmul %[[G8]], %[[X8]] transpose_lhs acc(f32) : tensor<2x16xf8E5M2>, tensor<2x16xf8E4M3FN> -> tensor<16x16xf32>
// DEFAULT-NEXT: %[[P3:.*]] = mp.mul %[[SG]], %[[SX]] : tensor<f32>, tensor<f32>
// DEFAULT-NEXT: %[[ONE3:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// DEFAULT-NEXT: %[[INV3:.*]] = mp.div %[[ONE3]], %[[P3]] : tensor<f32>, tensor<f32>
// DEFAULT-NEXT: %[[DW:.*]] = mp.scale %[[DW8]] by %[[INV3]] : tensor<16x16xf32>
// DEFAULT-NEXT: %[[DB:.*]] = mp.reduce_sum %[[DY]] dims [0]
// DEFAULT-NEXT: %[[DH1:.*]] = mp.relu_grad %[[DX]], %[[H1]]
// DEFAULT-NEXT: %[[DW1:.*]] = mp.matmul %[[DH1]], %[[X]] transpose_lhs acc(f32) : tensor<2x16xf32>, tensor<2x8xf32> -> tensor<16x8xf32>
// DEFAULT:      %[[N2:.*]] = mp.sgd %[[W2]], %[[DW]]
// DEFAULT:      return %{{.*}}, %{{.*}}, %[[N2]], %{{.*}}, %{{.*}}, %[[HX1]], %[[SX1]], %[[HW1]], %[[SW1]], %[[HG1]], %[[SG1]] :

// Current scaling: no state, the scale of this step's amax (1.0 when it is 0
// or not finite).
// CURRENT-LABEL: func.func @mlp3(
// CURRENT-SAME: %{{.*}}: tensor<2xi64>) -> (tensor<f32> {mp.loss}, tensor<16x8xf32> {mp.updates = 0 : i64}, tensor<16x16xf32> {mp.updates = 1 : i64}, tensor<16xf32> {mp.updates = 2 : i64}, tensor<4x16xf32> {mp.updates = 3 : i64}) {
// CURRENT:      %[[A1:.*]] = mp.relu
// CURRENT-NEXT: %[[AX:.*]] = mp.amax %[[A1]] : tensor<2x16xf32>
// CURRENT-NEXT: %[[HX:.*]] = mp.reshape %[[AX]] : tensor<f32> to tensor<1xf32>
// CURRENT-NEXT: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CURRENT-NEXT: %[[SX:.*]] = mp.fp8_scale %[[HX]], %[[ONE]] format e4m3 : tensor<1xf32>
// CURRENT-NEXT: %[[XS:.*]] = mp.scale %[[A1]] by %[[SX]] : tensor<2x16xf32>
// CURRENT-NEXT: mp.cast %[[XS]] saturate : tensor<2x16xf32> to tensor<2x16xf8E4M3FN>
// CURRENT:      %[[AG:.*]] = mp.amax %[[DY:.*]] : tensor<2x16xf32>
// CURRENT-NEXT: %[[HG:.*]] = mp.reshape %[[AG]] : tensor<f32> to tensor<1xf32>
// CURRENT-NEXT: %[[ONEG:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// CURRENT-NEXT: %[[SG:.*]] = mp.fp8_scale %[[HG]], %[[ONEG]] format e5m2 : tensor<1xf32>
// CURRENT-NEXT: %[[GS:.*]] = mp.scale %[[DY]] by %[[SG]] : tensor<2x16xf32>
// CURRENT-NEXT: mp.cast %[[GS]] saturate : tensor<2x16xf32> to tensor<2x16xf8E5M2>
// CURRENT-NOT:  mp.amax_history_push
// CURRENT:      return %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}} : tensor<f32>, tensor<16x8xf32>, tensor<16x16xf32>, tensor<16xf32>, tensor<4x16xf32>{{$}}

// JSON:      "fp8_tensors": [
// JSON-NEXT:   {
// JSON-NEXT:     "format": "f8E4M3FN",
// JSON-NEXT:     "input": "result of mp.relu",
// JSON-NEXT:     "loc": "{{.*}}mp-fp8-scaling.mlir:[[#@LINE-97]]:9",
// JSON-NEXT:     "scale": "current",
// JSON-NEXT:     "used_by": "mp.linear, mp.matmul"
// JSON-NEXT:   },
// JSON-NEXT:   {
// JSON-NEXT:     "format": "f8E4M3FN",
// JSON-NEXT:     "input": "argument 1",
// JSON:          "scale": "current",
// JSON:          "format": "f8E5M2",
// JSON-NEXT:     "input": "result of mp.relu_grad",
// JSON:          "scale": "current",
// JSON-NEXT:     "used_by": "mp.matmul"
// JSON-NEXT:   }
// JSON-NEXT: ],

// format=e4m3: the gradient too is E4M3.
// E4M3-LABEL: func.func @mlp3(
// E4M3:       mp.fp8_scale %{{.*}}, %{{.*}} format e4m3 : tensor<1024xf32>
// E4M3:       mp.fp8_scale %{{.*}}, %{{.*}} format e4m3 : tensor<1024xf32>
// E4M3:       mp.fp8_scale %{{.*}}, %{{.*}} format e4m3 : tensor<1024xf32>
// E4M3-NEXT:  mp.scale
// E4M3-NEXT:  %[[G8:.*]] = mp.cast %{{.*}} saturate : tensor<2x16xf32> to tensor<2x16xf8E4M3FN>
// E4M3-NEXT:  mp.matmul %[[G8]], %{{.*}} acc(f32) : tensor<2x16xf8E4M3FN>, tensor<16x16xf8E4M3FN> -> tensor<2x16xf32>
// E4M3:       mp.matmul %[[G8]], %{{.*}} transpose_lhs acc(f32) : tensor<2x16xf8E4M3FN>, tensor<2x16xf8E4M3FN> -> tensor<16x16xf32>
// E4M3-NOT:   f8E5M2

// A short history, the most recent amax, a margin of 2.
// HISTORY-LABEL: func.func @mlp3(
// HISTORY-SAME: tensor<4xf32> {mp.state = "fp8.amax_history"}, %{{.*}}: tensor<f32> {mp.init = 1.000000e+00 : f32, mp.state = "fp8.scale"}, %{{.*}}: tensor<4xf32> {mp.state = "fp8.amax_history"}
// HISTORY-SAME: tensor<4xf32> {mp.updates = 6 : i64}
// HISTORY-COUNT-3: mp.fp8_scale %{{.*}}, %{{.*}} format {{e4m3|e5m2}} amax_compute most_recent {margin = 2 : i64} : tensor<4xf32>

// include-first-last: all three layers, 9 tensors; the first layer has no
// dx (its input is batch data).
// ALL-LABEL: func.func @mlp3(
// ALL-SAME: %[[X:[a-z0-9]+]]: tensor<2x8xf32>, %{{.*}}: tensor<2xi64>
// ALL-SAME: %arg23: tensor<f32> {mp.init = 1.000000e+00 : f32, mp.state = "fp8.scale"})
// ALL-SAME: tensor<f32> {mp.updates = 23 : i64})
// ALL:      mp.amax %[[X]] : tensor<2x8xf32>
// ALL-COUNT-3: mp.linear %{{.*}}, %{{.*}} acc(f32) : (tensor<2x{{8|16}}xf8E4M3FN>, tensor<{{16x8|16x16|4x16}}xf8E4M3FN>) -> tensor<2x{{16|4}}xf32>
// ALL-COUNT-5: mp.matmul %{{.*}} : tensor<2x{{4|16}}xf8E5M2>, tensor<{{.*}}xf8E4M3FN> -> tensor<{{.*}}xf32>
// ALL-NOT: mp.matmul %{{.*}} : tensor<{{[0-9x]*}}xf32>
// ALL: return

// PIPE-LABEL: func.func @mlp3(
// PIPE-SAME: %[[S:arg6]]: tensor<f32> {mp.init = 6.553600e+04 : f32, mp.state = "loss_scale"}, %[[T:arg7]]: tensor<i32> {mp.state = "growth_tracker"}, %[[HX:arg8]]: tensor<8xf32> {mp.state = "fp8.amax_history"}
// PIPE:      %[[HX1:.*]] = mp.amax_history_push %[[HX]], %{{.*}} : tensor<8xf32>
// PIPE-NEXT: %[[SX1:.*]] = mp.fp8_scale %[[HX1]], %[[SX:arg9]] format e4m3 : tensor<8xf32>
// PIPE:      %[[INF:.*]] = arith.xori
// PIPE:      %[[SKIP:.*]] = tensor.extract %[[INF]][] : tensor<i1>
// PIPE-NEXT: %[[R0:.*]] = arith.select %[[SKIP]], %[[HX]], %[[HX1]] : tensor<8xf32>
// PIPE-NEXT: %[[R1:.*]] = arith.select %[[SKIP]], %[[SX]], %[[SX1]] : tensor<f32>
// PIPE-COUNT-4: arith.select %[[SKIP]], %arg
// PIPE-NEXT: return {{.*}}, %[[INF]], %[[R0]], %[[R1]], %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}}, %{{[^,]*}} :

// ops=matmul: no mp.matmul in the forward, nothing changes.
// MATMUL-LABEL: func.func @mlp3(
// MATMUL-NOT: fp8
// MATMUL-NOT: f8E
// MATMUL: return

// -----


// bf16 compute (as after mp-autocast): operands cast from f32 are quantised
// from their f32 source, the FP8 result is cast back to bf16; mp.matmul with
// 3-d activations through linear's reshapes.
func.func @bf16(%w1: tensor<8x8xf32> {mp.param}, %w2: tensor<8x8xf32> {mp.param},
                %w3: tensor<8x8xf32> {mp.param}, %x: tensor<2x4x8xf32>)
    -> (tensor<f32> {mp.loss}, tensor<8x8xf32> {mp.updates = 1 : i64}) {
  %xh = mp.cast %x : tensor<2x4x8xf32> to tensor<2x4x8xbf16>
  %w1h = mp.cast %w1 : tensor<8x8xf32> to tensor<8x8xbf16>
  %w2h = mp.cast %w2 : tensor<8x8xf32> to tensor<8x8xbf16>
  %w3h = mp.cast %w3 : tensor<8x8xf32> to tensor<8x8xbf16>
  %h1 = mp.linear %xh, %w1h acc(f32) : (tensor<2x4x8xbf16>, tensor<8x8xbf16>) -> tensor<2x4x8xbf16>
  %h2 = mp.linear %h1, %w2h acc(f32) : (tensor<2x4x8xbf16>, tensor<8x8xbf16>) -> tensor<2x4x8xbf16>
  %h3 = mp.linear %h2, %w3h acc(f32) : (tensor<2x4x8xbf16>, tensor<8x8xbf16>) -> tensor<2x4x8xbf16>
  %hf = mp.cast %h3 : tensor<2x4x8xbf16> to tensor<2x4x8xf32>
  %loss = mp.reduce_sum %hf dims [0, 1, 2] : tensor<2x4x8xf32>
  %g2 = mp.grad %loss wrt %w2 : tensor<f32>, tensor<8x8xf32>
  %n2 = mp.sgd %w2, %g2 {lr = 0.1 : f64} : tensor<8x8xf32>
  return %loss, %n2 : tensor<f32>, tensor<8x8xf32>
}


// DEFAULT-LABEL: func.func @bf16(
// DEFAULT-SAME: %[[W1:[a-z0-9]+]]: tensor<8x8xf32> {mp.param}, %[[W2:[a-z0-9]+]]: tensor<8x8xf32> {mp.param}, %[[W3:[a-z0-9]+]]: tensor<8x8xf32> {mp.param}, %{{.*}}: tensor<2x4x8xf32>,
// DEFAULT-SAME: %[[HX:[a-z0-9]+]]: tensor<1024xf32> {mp.state = "fp8.amax_history"}, %[[SX:[a-z0-9]+]]: tensor<f32> {{.*}}, %[[HW:[a-z0-9]+]]: tensor<1024xf32> {{.*}}, %[[SW:[a-z0-9]+]]: tensor<f32> {{.*}}, %[[HG:[a-z0-9]+]]: tensor<1024xf32> {{.*}}, %[[SG:[a-z0-9]+]]: tensor<f32> {{.*}})
// DEFAULT:      %[[W3H:.*]] = mp.cast %[[W3]] : tensor<8x8xf32> to tensor<8x8xbf16>
// DEFAULT:      %[[H1:.*]] = mp.linear %{{.*}}, %{{.*}} acc(f32) : (tensor<2x4x8xbf16>, tensor<8x8xbf16>) -> tensor<2x4x8xbf16>
// A bf16 activation is amax'ed as it is and widened to f32 for the scaling.
// DEFAULT-NEXT: mp.amax %[[H1]] : tensor<2x4x8xbf16>
// DEFAULT-NEXT: mp.amax_history_push
// DEFAULT-NEXT: mp.fp8_scale
// DEFAULT-NEXT: %[[H1F:.*]] = mp.cast %[[H1]] : tensor<2x4x8xbf16> to tensor<2x4x8xf32>
// DEFAULT-NEXT: %[[H1S:.*]] = mp.scale %[[H1F]] by %[[SX]] : tensor<2x4x8xf32>
// DEFAULT-NEXT: %[[X8:.*]] = mp.cast %[[H1S]] saturate : tensor<2x4x8xf32> to tensor<2x4x8xf8E4M3FN>
// The weight's bf16 copy is skipped: quantised from the f32 master.
// DEFAULT-NEXT: mp.amax %[[W2]] : tensor<8x8xf32>
// DEFAULT-NEXT: mp.amax_history_push
// DEFAULT-NEXT: mp.fp8_scale
// DEFAULT-NEXT: %[[W2S:.*]] = mp.scale %[[W2]] by %[[SW]] : tensor<8x8xf32>
// DEFAULT-NEXT: %[[W8:.*]] = mp.cast %[[W2S]] saturate : tensor<8x8xf32> to tensor<8x8xf8E4M3FN>
// DEFAULT-NEXT: %[[Y8:.*]] = mp.linear %[[X8]], %[[W8]] acc(f32) : (tensor<2x4x8xf8E4M3FN>, tensor<8x8xf8E4M3FN>) -> tensor<2x4x8xf32>
// DEFAULT-NEXT: mp.mul
// DEFAULT-NEXT: arith.constant
// DEFAULT-NEXT: %[[INV:.*]] = mp.div
// DEFAULT-NEXT: %[[Y:.*]] = mp.scale %[[Y8]] by %[[INV]] : tensor<2x4x8xf32>
// DEFAULT-NEXT: %[[YH:.*]] = mp.cast %[[Y]] : tensor<2x4x8xf32> to tensor<2x4x8xbf16>
// DEFAULT-NEXT: mp.linear %[[YH]], %[[W3H]] acc(f32) : (tensor<2x4x8xbf16>, tensor<8x8xbf16>) -> tensor<2x4x8xbf16>
// The weight gradient through linear's reshapes to [8, 8] rows: the
// gradient and the FP8 input reshaped, the result cast back to bf16.
// DEFAULT:      %[[DH2:.*]] = mp.matmul %{{.*}}, %[[W3H]] acc(f32) : tensor<8x8xbf16>, tensor<8x8xbf16> -> tensor<8x8xbf16>
// DEFAULT-NEXT: %[[DH2R:.*]] = mp.reshape %[[DH2]] : tensor<8x8xbf16> to tensor<2x4x8xbf16>
// DEFAULT-NEXT: %[[DY:.*]] = mp.reshape %[[DH2R]] : tensor<2x4x8xbf16> to tensor<8x8xbf16>
// DEFAULT-NEXT: mp.reshape %[[H1]] : tensor<2x4x8xbf16> to tensor<8x8xbf16>
// DEFAULT-NEXT: mp.amax %[[DH2]] : tensor<8x8xbf16>
// DEFAULT-NEXT: mp.amax_history_push %[[HG]]
// DEFAULT-NEXT: mp.fp8_scale %{{.*}}, %[[SG]] format e5m2
// DEFAULT-NEXT: %[[DYF:.*]] = mp.cast %[[DY]] : tensor<8x8xbf16> to tensor<8x8xf32>
// DEFAULT-NEXT: %[[DYS:.*]] = mp.scale %[[DYF]] by %[[SG]] : tensor<8x8xf32>
// DEFAULT-NEXT: %[[G8:.*]] = mp.cast %[[DYS]] saturate : tensor<8x8xf32> to tensor<8x8xf8E5M2>
// DEFAULT-NEXT: %[[X8R:.*]] = mp.reshape %[[X8]] : tensor<2x4x8xf8E4M3FN> to tensor<8x8xf8E4M3FN>
// DEFAULT-NEXT: %[[DW8:.*]] = mp.matmul %[[G8]], %[[X8R]] transpose_lhs acc(f32) : tensor<8x8xf8E5M2>, tensor<8x8xf8E4M3FN> -> tensor<8x8xf32>
// DEFAULT-NEXT: mp.mul %[[SG]], %[[SX]]
// DEFAULT-NEXT: arith.constant
// DEFAULT-NEXT: %[[INV2:.*]] = mp.div
// DEFAULT-NEXT: %[[DW:.*]] = mp.scale %[[DW8]] by %[[INV2]] : tensor<8x8xf32>
// DEFAULT-NEXT: mp.cast %[[DW]] : tensor<8x8xf32> to tensor<8x8xbf16>

// -----


// After mp-loss-scaling: the new state keeps its old value on a skipped step.
func.func @skip(%w1: tensor<4x4xf32> {mp.param}, %w2: tensor<4x4xf32> {mp.param},
                %w3: tensor<4x4xf32> {mp.param}, %x: tensor<2x4xf32>)
    -> (tensor<f32> {mp.loss}, tensor<4x4xf32> {mp.updates = 1 : i64},
        tensor<i1> {mp.skipped}) {
  %h1 = mp.matmul %x, %w1 acc(f32) : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %h2 = mp.matmul %h1, %w2 acc(f32) : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %h3 = mp.matmul %h2, %w3 acc(f32) : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %loss = mp.reduce_sum %h3 dims [0, 1] : tensor<2x4xf32>
  %g2 = mp.grad %loss wrt %w2 : tensor<f32>, tensor<4x4xf32>
  %ok = mp.all_finite %g2 : tensor<4x4xf32>
  %true = arith.constant dense<true> : tensor<i1>
  %inf = arith.xori %ok, %true : tensor<i1>
  %n2 = mp.sgd %w2, %g2 {lr = 0.1 : f64} : tensor<4x4xf32>
  return %loss, %n2, %inf : tensor<f32>, tensor<4x4xf32>, tensor<i1>
}


// DEFAULT-LABEL: func.func @skip(
// DEFAULT-SAME: %[[HX:arg4]]: tensor<1024xf32> {mp.state = "fp8.amax_history"}, %[[SX:arg5]]: tensor<f32> {{.*}}, %[[HW:arg6]]: tensor<1024xf32> {{.*}}, %[[SW:arg7]]: tensor<f32> {{.*}}, %[[HG:arg8]]: tensor<1024xf32> {{.*}}, %[[SG:arg9]]: tensor<f32> {mp.init = 1.000000e+00 : f32, mp.state = "fp8.scale"})
// DEFAULT-SAME: -> (tensor<f32> {mp.loss}, tensor<4x4xf32> {mp.updates = 1 : i64}, tensor<i1> {mp.skipped}, tensor<1024xf32> {mp.updates = 4 : i64}, tensor<f32> {mp.updates = 5 : i64}, tensor<1024xf32> {mp.updates = 6 : i64}, tensor<f32> {mp.updates = 7 : i64}, tensor<1024xf32> {mp.updates = 8 : i64}, tensor<f32> {mp.updates = 9 : i64})
// DEFAULT:      %[[HX1:.*]] = mp.amax_history_push %[[HX]]
// DEFAULT-NEXT: %[[SX1:.*]] = mp.fp8_scale %[[HX1]], %[[SX]] format e4m3
// DEFAULT:      %[[HW1:.*]] = mp.amax_history_push %[[HW]]
// DEFAULT-NEXT: %[[SW1:.*]] = mp.fp8_scale %[[HW1]], %[[SW]] format e4m3
// DEFAULT:      %[[HG1:.*]] = mp.amax_history_push %[[HG]]
// DEFAULT-NEXT: %[[SG1:.*]] = mp.fp8_scale %[[HG1]], %[[SG]] format e5m2
// DEFAULT:      %[[INF:.*]] = arith.xori
// DEFAULT-NEXT: %[[NEW:.*]] = mp.sgd
// DEFAULT-NEXT: %[[SKIP:.*]] = tensor.extract %[[INF]][] : tensor<i1>
// DEFAULT-NEXT: %[[R0:.*]] = arith.select %[[SKIP]], %[[HX]], %[[HX1]] : tensor<1024xf32>
// DEFAULT-NEXT: %[[R1:.*]] = arith.select %[[SKIP]], %[[SX]], %[[SX1]] : tensor<f32>
// DEFAULT-NEXT: %[[R2:.*]] = arith.select %[[SKIP]], %[[HW]], %[[HW1]] : tensor<1024xf32>
// DEFAULT-NEXT: %[[R3:.*]] = arith.select %[[SKIP]], %[[SW]], %[[SW1]] : tensor<f32>
// DEFAULT-NEXT: %[[R4:.*]] = arith.select %[[SKIP]], %[[HG]], %[[HG1]] : tensor<1024xf32>
// DEFAULT-NEXT: %[[R5:.*]] = arith.select %[[SKIP]], %[[SG]], %[[SG1]] : tensor<f32>
// DEFAULT-NEXT: return %{{.*}}, %[[NEW]], %[[INF]], %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]], %[[R5]] :

// -----


// Not a train step (no mp.loss result): unchanged.
func.func @inference(%x: tensor<2x4xf32>, %w1: tensor<4x4xf32>, %w2: tensor<4x4xf32>,
                     %w3: tensor<4x4xf32>) -> tensor<2x4xf32> {
  %h1 = mp.matmul %x, %w1 acc(f32) : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %h2 = mp.matmul %h1, %w2 acc(f32) : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  %h3 = mp.matmul %h2, %w3 acc(f32) : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
  return %h3 : tensor<2x4xf32>
}

// DEFAULT-LABEL: func.func @inference(
// DEFAULT-SAME: -> tensor<2x4xf32> {{{$}}
// DEFAULT-NEXT: mp.matmul %{{.*}} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
// DEFAULT-NEXT: mp.matmul %{{.*}} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
// DEFAULT-NEXT: mp.matmul %{{.*}} : tensor<2x4xf32>, tensor<4x4xf32> -> tensor<2x4xf32>
// DEFAULT-NEXT: return

// The transformer block: q, k and v (the first layer: they read only the
// layer norm of the embedding) and the LM head (the last) stay in bf16, as
// do the attention's batch matmuls; the attention output projection and the
// two MLP layers run in FP8, forward and backward, with 9 scaled tensors
// (arguments 57-74) after the 57 of the example.
// BLOCK-LABEL: func.func @train_step(
// BLOCK-SAME: %arg57: tensor<1024xf32> {mp.state = "fp8.amax_history"}, %arg58: tensor<f32> {mp.init = 1.000000e+00 : f32, mp.state = "fp8.scale"}
// BLOCK-SAME: %arg74: tensor<f32> {mp.init = 1.000000e+00 : f32, mp.state = "fp8.scale"})
// BLOCK-SAME: tensor<1024xf32> {mp.updates = 57 : i64}
// BLOCK-SAME: tensor<f32> {mp.updates = 74 : i64})
// BLOCK-COUNT-3: mp.linear {{.*}} : (tensor<2x16x64xbf16>, tensor<64x64xbf16>, tensor<64xbf16>) -> tensor<2x16x64xbf16>
// BLOCK-COUNT-2: mp.batch_matmul {{.*}}xbf16>, tensor<2x4x16x16xbf16> -> tensor<2x4x16x16x{{bf16|f32}}>
// BLOCK:      mp.fp8_scale %{{.*}}, %arg58 format e4m3
// BLOCK:      mp.fp8_scale %{{.*}}, %arg60 format e4m3
// BLOCK:      mp.linear {{.*}} : (tensor<2x16x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>) -> tensor<2x16x64xf32>
// BLOCK:      mp.linear {{.*}} : (tensor<2x16x64xf8E4M3FN>, tensor<256x64xf8E4M3FN>) -> tensor<2x16x256xf32>
// BLOCK:      mp.linear {{.*}} : (tensor<2x16x256xf8E4M3FN>, tensor<64x256xf8E4M3FN>) -> tensor<2x16x64xf32>
// BLOCK:      mp.linear {{.*}} : (tensor<2x16x64xbf16>, tensor<512x64xbf16>) -> tensor<2x16x512xf32>
// BLOCK:      mp.matmul {{.*}} : tensor<32x512xbf16>, tensor<512x64xbf16> -> tensor<32x64xbf16>
// BLOCK:      mp.matmul {{.*}} transpose_lhs acc(f32) : tensor<32x512xbf16>, tensor<32x64xbf16> -> tensor<512x64xbf16>
// BLOCK:      mp.fp8_scale %{{.*}}, %arg74 format e5m2
// BLOCK:      mp.matmul {{.*}} : tensor<32x64xf8E5M2>, tensor<64x256xf8E4M3FN> -> tensor<32x256xf32>
// BLOCK:      mp.matmul {{.*}} transpose_lhs acc(f32) : tensor<32x64xf8E5M2>, tensor<32x256xf8E4M3FN> -> tensor<64x256xf32>
// BLOCK:      mp.fp8_scale %{{.*}}, %arg68 format e5m2
// BLOCK:      mp.matmul {{.*}} : tensor<32x256xf8E5M2>, tensor<256x64xf8E4M3FN> -> tensor<32x64xf32>
// BLOCK:      mp.matmul {{.*}} transpose_lhs acc(f32) : tensor<32x256xf8E5M2>, tensor<32x64xf8E4M3FN> -> tensor<256x64xf32>
// BLOCK:      mp.fp8_scale %{{.*}}, %arg62 format e5m2
// BLOCK:      mp.matmul {{.*}} : tensor<32x64xf8E5M2>, tensor<64x64xf8E4M3FN> -> tensor<32x64xf32>
// BLOCK:      mp.matmul {{.*}} transpose_lhs acc(f32) : tensor<32x64xf8E5M2>, tensor<32x64xf8E4M3FN> -> tensor<64x64xf32>
// BLOCK-COUNT-4: mp.batch_matmul {{.*}}xbf16>, tensor<2x4x16x16xbf16> -> tensor<2x4x16x16xbf16>
// BLOCK-COUNT-6: mp.matmul {{.*}} : tensor<32x64xbf16>, tensor<{{64|32}}x64xbf16> -> tensor<{{32|64}}x64xbf16>
// BLOCK-NOT:  f8E
// BLOCK:      return

// BATCH-DAG: mp.batch_matmul %{{[0-9]+}}, %{{[0-9]+}} transpose_rhs acc(f32) : tensor<2x4x16x16xf8E4M3FN>, tensor<2x4x16x16xf8E4M3FN> -> tensor<2x4x16x16xf32>
// BATCH-DAG: mp.batch_matmul %{{[0-9]+}}, %{{[0-9]+}} acc(f32) : tensor<2x4x16x16xf8E4M3FN>, tensor<2x4x16x16xf8E4M3FN> -> tensor<2x4x16x16xf32>
// BATCH-DAG: mp.batch_matmul %{{[0-9]+}}, %{{[0-9]+}} acc(f32) : tensor<2x4x16x16xf8E5M2>, tensor<2x4x16x16xf8E4M3FN> -> tensor<2x4x16x16xf32>
// BATCH-DAG: mp.batch_matmul %{{[0-9]+}}, %{{[0-9]+}} transpose_lhs acc(f32) : tensor<2x4x16x16xf8E4M3FN>, tensor<2x4x16x16xf8E5M2> -> tensor<2x4x16x16xf32>
// BATCH-DAG: mp.batch_matmul %{{[0-9]+}}, %{{[0-9]+}} transpose_rhs acc(f32) : tensor<2x4x16x16xf8E5M2>, tensor<2x4x16x16xf8E4M3FN> -> tensor<2x4x16x16xf32>
// BATCH-DAG: mp.batch_matmul %{{[0-9]+}}, %{{[0-9]+}} transpose_lhs acc(f32) : tensor<2x4x16x16xf8E5M2>, tensor<2x4x16x16xf8E4M3FN> -> tensor<2x4x16x16xf32>
// BATCH-NOT: mp.batch_matmul {{.*}}xbf16>

// REPORT:      fp8 tensors: 9
// REPORT-NEXT: f8E4M3FN {{.*}} (result of mp.reshape) -> mp.reshape, mp.linear: delayed scale argument 58, amax history argument 57 [1024]
// REPORT-NEXT: f8E4M3FN {{.*}} (argument 9) -> mp.matmul, mp.linear: delayed scale argument 60, amax history argument 59 [1024]
// REPORT-NEXT: f8E4M3FN {{.*}} (result of mp.layer_norm) -> mp.reshape, mp.linear: delayed scale argument 64, amax history argument 63 [1024]
// REPORT-NEXT: f8E4M3FN {{.*}} (argument 13) -> mp.matmul, mp.linear: delayed scale argument 66, amax history argument 65 [1024]
// REPORT-NEXT: f8E4M3FN {{.*}} (result of mp.gelu) -> mp.reshape, mp.linear: delayed scale argument 70, amax history argument 69 [1024]
// REPORT-NEXT: f8E4M3FN {{.*}} (argument 15) -> mp.matmul, mp.linear: delayed scale argument 72, amax history argument 71 [1024]
// REPORT-NEXT: f8E5M2 {{.*}} (result of mp.matmul) -> mp.matmul: delayed scale argument 74, amax history argument 73 [1024]
// REPORT-NEXT: f8E5M2 {{.*}} (result of mp.reshape) -> mp.matmul: delayed scale argument 68, amax history argument 67 [1024]
// REPORT-NEXT: f8E5M2 {{.*}} (result of mp.reshape) -> mp.matmul: delayed scale argument 62, amax history argument 61 [1024]
// REPORT-NEXT: unknown ops: none

// Current scaling with TE's power_2_scale and amax_epsilon: the same ops,
// the options on every mp.fp8_scale.
// POW2-LABEL: func.func @mlp3(
// POW2:      mp.fp8_scale %{{.*}}, %{{.*}} format e4m3 amax_epsilon(9.9999999999999998E-13) power_of_two : tensor<1xf32>
// POW2:      mp.fp8_scale %{{.*}}, %{{.*}} format e5m2 amax_epsilon(9.9999999999999998E-13) power_of_two : tensor<1xf32>
// POW2-NOT:  mp.amax_history_push
