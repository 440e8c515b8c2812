// mp-precision-report counts forward state (the rng state, and the other
// kinds of MPDialect::isForwardStateKind) in its own "forward state" row and
// JSON entry, not as optimizer state: the rng state is 16 bytes of i64.
// Reports without forward state keep their rows and keys.
// RUN: mp-opt %s --mp-precision-report -o /dev/null | FileCheck %s
// RUN: mp-opt %s --mp-precision-report=output=%t.json -o /dev/null
// RUN: FileCheck %s --input-file=%t.json --check-prefix=JSON

// CHECK-LABEL: mp-precision-report @step
// The dropout runs in the type that arrives (PyTorch lists no dropout).
// CHECK: mp.dropout {{ *}}clear {{ *}}f32
// CHECK: bytes {{ *}}f32 {{ *}}i64 {{ *}}total
// CHECK-NEXT: parameters {{ *}}256 {{ *}}0 {{ *}}256
// CHECK-NEXT: parameter copies {{ *}}0 {{ *}}0 {{ *}}0
// CHECK-NEXT: gradients {{ *}}256 {{ *}}0 {{ *}}256
// CHECK-NEXT: optimizer state {{ *}}256 {{ *}}0 {{ *}}256
// CHECK-NEXT: forward state {{ *}}0 {{ *}}16 {{ *}}16
// CHECK-NEXT: activations

// JSON: "forward_state": {
// JSON-NEXT: "i64": 16
// JSON-NEXT: },
// JSON: "totals": {
// JSON: "forward_state": 16,
// JSON-NEXT: "gradients": 256,
// JSON-NEXT: "optimizer_state": 256,
func.func @step(%w: tensor<64xf32> {mp.param}, %s: tensor<2xi64> {mp.state = "rng"},
                %buf: tensor<64xf32> {mp.state = "momentum_buffer"}, %x: tensor<1x64xf32>)
    -> (tensor<f32> {mp.loss}, tensor<64xf32> {mp.updates = 0 : i64},
        tensor<2xi64> {mp.updates = 1 : i64}, tensor<64xf32> {mp.updates = 2 : i64}) {
  %h = mp.mul %x, %w : tensor<1x64xf32>, tensor<64xf32>
  %d, %s1 = mp.dropout %h, %s p(0.5) : tensor<1x64xf32>
  %loss = mp.reduce_sum %d dims [0, 1] : tensor<1x64xf32>
  %g = mp.grad %loss wrt %w : tensor<f32>, tensor<64xf32>
  %w1, %b1 = mp.sgd %w, %g momentum_buffer %buf {lr = 0.1 : f64, momentum = 0.9 : f64} : tensor<64xf32>, tensor<64xf32>
  return %loss, %w1, %s1, %b1 : tensor<f32>, tensor<64xf32>, tensor<2xi64>, tensor<64xf32>
}
