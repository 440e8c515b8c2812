// RUN: mp-opt %s -split-input-file --allow-unregistered-dialect --mp-autocast --mp-precision-report -o /dev/null | FileCheck %s
// The JSON report (one module holding both functions).
// RUN: mp-opt %s --allow-unregistered-dialect --mp-autocast --mp-precision-report=output=%t.json -o /dev/null
// RUN: FileCheck %s --input-file=%t.json --check-prefix=JSON
// The report does not change the IR.
// RUN: mp-opt %s -split-input-file --allow-unregistered-dialect -o %t.before
// RUN: mp-opt %s -split-input-file --allow-unregistered-dialect --mp-precision-report=table-output= -o %t.after
// RUN: diff %t.before %t.after
// The table can go to a file; the category options are autocast's.
// RUN: mp-opt %s --allow-unregistered-dialect --mp-precision-report="table-output=%t.table deny=mp.relu allow=test.unknown" -o /dev/null
// RUN: FileCheck %s --input-file=%t.table --check-prefix=POLICY
// RUN: not mp-opt %s -split-input-file --allow-unregistered-dialect --mp-precision-report=clear=mp.grad 2>&1 | FileCheck %s --check-prefix=BADPOLICY
// BADPOLICY: error: mp-precision-report: option 'clear': 'mp.grad' cannot be listed: autocast never changes the training and precision ops
// RUN: not mp-opt %s -split-input-file --allow-unregistered-dialect --mp-precision-report=output=%t.missing/report.json 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// UNWRITABLE: error: mp-precision-report: cannot write '{{.*}}.missing/report.json': {{.*}}No such file or directory

func.func @step(%w: tensor<4x8xf32> {mp.param}, %b: tensor<4xf32> {mp.param},
                %m: tensor<4x8xf32> {mp.state = "sgd.momentum_buffer"},
                %x: tensor<2x8xf32>, %labels: tensor<2xi64>)
    -> (tensor<f32> {mp.loss}, tensor<4x8xf32> {mp.updates = 0 : i64}, tensor<4x8xf32> {mp.updates = 2 : i64}) {
  %h = mp.linear %x, %w, %b acc(f32) : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %r = mp.relu %h {mp.precision = "f16"} : tensor<2x4xf32>
  %s = mp.add %r, %h {mp.precision = "f32"} : tensor<2x4xf32>, tensor<2x4xf32>
  %u = "test.unknown"(%s) : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %e = mp.exp %u {mp.autocast = false} : tensor<2x4xf32>
  %loss = mp.cross_entropy %e, %labels : tensor<2x4xf32>, tensor<2xi64>
  %dw, %db = mp.grad %loss wrt %w, %b : tensor<f32>, tensor<4x8xf32>, tensor<4xf32>
  %w1, %m1 = mp.sgd %w, %dw momentum_buffer %m {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<4x8xf32>, tensor<4x8xf32>
  return %loss, %w1, %m1 : tensor<f32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// After mp-autocast: every op with its category, execution type,
// accumulation type, pin/disable note and location (the inserted casts have
// the location of the op that needed them); the f16 pin keeps %h in f16.
// CHECK-LABEL: mp-precision-report @step
// CHECK-NEXT: op category type acc note location
// CHECK-NEXT: mp.cast exempt f32 - - {{.*}}mp-precision-report.mlir:[[#LINEAR:@LINE-16]]:8
// CHECK-NEXT: mp.cast exempt f32 - - {{.*}}mp-precision-report.mlir:[[#LINEAR]]:8
// CHECK-NEXT: mp.cast exempt f32 - - {{.*}}mp-precision-report.mlir:[[#LINEAR]]:8
// CHECK-NEXT: mp.linear allow f16 f32 - {{.*}}mp-precision-report.mlir:[[#LINEAR]]:8
// CHECK-NEXT: mp.cast exempt f16 - - {{.*}}mp-precision-report.mlir:[[#LINEAR+2]]:8
// CHECK-NEXT: mp.relu clear f16 - pinned {{.*}}mp-precision-report.mlir:[[#LINEAR+1]]:8
// CHECK-NEXT: mp.cast exempt f16 - - {{.*}}mp-precision-report.mlir:[[#LINEAR+2]]:8
// CHECK-NEXT: mp.add promote f32 - pinned {{.*}}mp-precision-report.mlir:[[#LINEAR+2]]:8
// CHECK-NEXT: test.unknown unknown f32 - - {{.*}}mp-precision-report.mlir:[[#LINEAR+3]]:8
// CHECK-NEXT: mp.exp deny f32 - disabled {{.*}}mp-precision-report.mlir:[[#LINEAR+4]]:8
// CHECK-NEXT: mp.cross_entropy deny f32 - - {{.*}}mp-precision-report.mlir:[[#LINEAR+5]]:11
// CHECK-NEXT: mp.grad exempt f32 - - {{.*}}mp-precision-report.mlir:[[#LINEAR+6]]:14
// CHECK-NEXT: mp.sgd exempt f32 - - {{.*}}mp-precision-report.mlir:[[#LINEAR+7]]:14
// CHECK-NEXT: func.return exempt f32 - - {{.*}}mp-precision-report.mlir:[[#LINEAR+8]]:3
// Casts by (from -> to), with what they cast.
// CHECK-NEXT: casts: 5
// CHECK-NEXT: f16 -> f32: 2
// CHECK-NEXT: {{.*}}mp-precision-report.mlir:[[#LINEAR+2]]:8 (result of mp.linear)
// CHECK-NEXT: {{.*}}mp-precision-report.mlir:[[#LINEAR+2]]:8 (result of mp.relu)
// CHECK-NEXT: f32 -> f16: 3
// CHECK-NEXT: {{.*}}mp-precision-report.mlir:[[#LINEAR]]:8 (argument 3)
// CHECK-NEXT: {{.*}}mp-precision-report.mlir:[[#LINEAR]]:8 (argument 0)
// CHECK-NEXT: {{.*}}mp-precision-report.mlir:[[#LINEAR]]:8 (argument 1)
// CHECK-NEXT: unknown ops: test.unknown ({{.*}}mp-precision-report.mlir:[[#LINEAR+3]]:8)
// Bytes: parameters 32+4 floats; their f16 working copies; gradients like
// the parameters; the momentum buffer; activations: the forward values the
// loss depends on (x in f16, linear and relu in f16, their f32 casts, add,
// unknown, exp: 2x4 f32 each, the f32 loss).
// CHECK-NEXT: bytes f16 f32 total
// CHECK-NEXT: parameters 0 144 144
// CHECK-NEXT: parameter copies 72 0 72
// CHECK-NEXT: gradients 0 144 144
// CHECK-NEXT: optimizer state 0 128 128
// CHECK-NEXT: activations 64 164 228
// CHECK-NEXT: total 136 580 716
// CHECK-NEXT: (activations: results of the ops mp.grad's loss depends on)

// The JSON object has a "functions" array; keys are sorted.
// JSON: "functions": [
// JSON-NEXT: {
// JSON-NEXT: "bytes": {
// JSON-NEXT: "activations": {
// JSON-NEXT: "f16": 64,
// JSON-NEXT: "f32": 164
// JSON-NEXT: },
// JSON-NEXT: "activations_from": "mp.grad",
// JSON-NEXT: "gradients": {
// JSON-NEXT: "f32": 144
// JSON-NEXT: },
// JSON-NEXT: "optimizer_state": {
// JSON-NEXT: "f32": 128
// JSON-NEXT: },
// JSON-NEXT: "parameter_copies": {
// JSON-NEXT: "f16": 72
// JSON-NEXT: },
// JSON-NEXT: "parameters": {
// JSON-NEXT: "f32": 144
// JSON-NEXT: },
// JSON-NEXT: "totals": {
// JSON-NEXT: "activations": 228,
// JSON-NEXT: "all": 716,
// JSON-NEXT: "gradients": 144,
// JSON-NEXT: "optimizer_state": 128,
// JSON-NEXT: "parameter_copies": 72,
// JSON-NEXT: "parameters": 144
// JSON-NEXT: }
// JSON-NEXT: },
// JSON-NEXT: "casts": [
// JSON-NEXT: {
// JSON-NEXT: "at": [
// JSON-NEXT: {
// JSON-NEXT: "input": "result of mp.linear",
// JSON-NEXT: "loc": "{{.*}}mp-precision-report.mlir:[[#ADD:]]:8"
// JSON-NEXT: },
// JSON: "count": 2,
// JSON-NEXT: "from": "f16",
// JSON-NEXT: "to": "f32"
// JSON: "count": 3,
// JSON-NEXT: "from": "f32",
// JSON-NEXT: "to": "f16"
// JSON: "name": "step",
// JSON-NEXT: "num_casts": 5,
// JSON-NEXT: "ops": [
// JSON-COUNT-3: "name": "mp.cast"
// JSON: "acc_type": "f32",
// JSON-NEXT: "category": "allow",
// JSON-NEXT: "enabled": true,
// JSON-NEXT: "exec_type": "f16",
// JSON-NEXT: "loc": "{{.*}}mp-precision-report.mlir:[[#ADD-2]]:8",
// JSON-NEXT: "name": "mp.linear"
// JSON: "category": "promote",
// JSON-NEXT: "enabled": true,
// JSON-NEXT: "exec_type": "f32",
// JSON-NEXT: "loc": "{{.*}}",
// JSON-NEXT: "name": "mp.add",
// JSON-NEXT: "pinned": "f32"
// JSON: "category": "unknown",
// JSON: "name": "test.unknown"
// JSON: "category": "deny",
// JSON-NEXT: "enabled": false,
// JSON-NEXT: "exec_type": "f32",
// JSON-NEXT: "loc": "{{.*}}",
// JSON-NEXT: "name": "mp.exp"
// JSON: "unknown_ops": [
// JSON-NEXT: {
// JSON-NEXT: "loc": "{{.*}}mp-precision-report.mlir:[[#ADD+1]]:8",
// JSON-NEXT: "name": "test.unknown"

// Before autocast, with deny=mp.relu and allow=test.unknown.
// POLICY-LABEL: mp-precision-report @step
// POLICY: mp.linear allow f32 f32 -
// POLICY-NEXT: mp.relu deny f32 - pinned
// POLICY-NEXT: mp.add promote f32 - pinned
// POLICY-NEXT: test.unknown allow f32 - -
// POLICY: casts: 0
// POLICY-NEXT: unknown ops: none
// POLICY-NEXT: bytes f32 total
// POLICY-NEXT: parameters 144 144
// POLICY-NEXT: parameter copies 0 0
// POLICY-NEXT: gradients 144 144
// POLICY-NEXT: optimizer state 128 128
// POLICY-NEXT: activations 164 164
// POLICY-NEXT: total 580 580

// -----

// An explicit joint graph (after mp-autodiff): gradients are the optimizers'
// operands; activations are the values of the forward (what the mp.loss
// result depends on) that the backward uses: x's f16 copy (2x8) and the
// logits (2x4), not the loss. The logits only feed deny ops and the weight
// gradient only the optimizer: both matmuls return f32, so the 3 casts are
// f32 -> f16 (the weight, x and the logits' gradient).
func.func @joint(%w: tensor<8x4xf32> {mp.param}, %x: tensor<2x8xf32>, %labels: tensor<2xi64>)
    -> (tensor<f32> {mp.loss}, tensor<8x4xf32> {mp.updates = 0 : i64}) {
  %y = mp.matmul %x, %w acc(f32) : tensor<2x8xf32>, tensor<8x4xf32> -> tensor<2x4xf32>
  %loss = mp.cross_entropy %y, %labels : tensor<2x4xf32>, tensor<2xi64>
  %one = arith.constant dense<1.0> : tensor<f32>
  %dy = mp.cross_entropy_grad %one, %y, %labels : (tensor<f32>, tensor<2x4xf32>, tensor<2xi64>) -> tensor<2x4xf32>
  %dw = mp.matmul %x, %dy transpose_lhs acc(f32) : tensor<2x8xf32>, tensor<2x4xf32> -> tensor<8x4xf32>
  %w1 = mp.sgd %w, %dw {lr = 0.1 : f64} : tensor<8x4xf32>
  return %loss, %w1 : tensor<f32>, tensor<8x4xf32>
}
// CHECK-LABEL: mp-precision-report @joint
// CHECK: casts: 3
// CHECK-NEXT: f32 -> f16: 3
// CHECK: bytes f16 f32 total
// CHECK-NEXT: parameters 0 128 128
// CHECK-NEXT: parameter copies 64 0 64
// CHECK-NEXT: gradients 0 128 128
// CHECK-NEXT: optimizer state 0 0 0
// CHECK-NEXT: activations 32 32 64
// CHECK-NEXT: total 96 288 384
// CHECK-NEXT: (activations: forward values (the mp.loss result depends on them) used by the backward)
