// mp-run binds arguments and results by the train-step contract
// (docs/TrainStep.md): state starts at its mp.init value (zeros without
// one), a working copy starts as its parameter rounded to the copy's type,
// every mp.updates result is fed back as its argument, the mp.loss result is
// printed, and a step is reported skipped when the mp.skipped result says so,
// or, without one, when every parameter and state came back bit-identical.

// RUN: rm -rf %t && mkdir -p %t
// RUN: mp-run %s --function=counters --steps 3 | FileCheck %s --check-prefix=COUNTERS
// RUN: mp-run %s --function=flagged --steps 4 | FileCheck %s --check-prefix=FLAGGED
// RUN: mp-run %s --function=frozen --steps 2 --json %t/frozen.json \
// RUN:   | FileCheck %s --check-prefix=FROZEN
// RUN: FileCheck %s --input-file=%t/frozen.json --check-prefix=FROZEN-JSON
// RUN: mp-run %s --function=copies --steps 1 | FileCheck %s --check-prefix=COPIES
// RUN: mp-run %s --function=copies --steps 1 --init=zeros | FileCheck %s --check-prefix=ZEROS

// Without --function, the only public function with an mp.loss result is
// chosen; here there are several.
// RUN: not mp-run %s 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
// AMBIGUOUS: error: '{{.*}}mp-run-contract.mlir' has 4 train steps (public functions with an mp.loss result): @counters @flagged @frozen @copies; choose one with --function

// The loss is a state initialised by mp.init and incremented each step; the
// dense state starts at its mp.init value and the unmarked one at zeros.
// COUNTERS: mp-run: @counters for 3 steps, data random, seed 0
// COUNTERS-NEXT: step 1 loss 8 scale - ok
// COUNTERS-NEXT: step 2 loss 9 scale - ok
// COUNTERS-NEXT: step 3 loss 10 scale - ok
// COUNTERS-NEXT: final: loss 10 skipped 0/3 scale -
func.func @counters(%w: tensor<2xf32> {mp.param},
                    %count: tensor<f32> {mp.state = "counter", mp.init = 5.0 : f32},
                    %dense: tensor<2xf32> {mp.state = "offsets", mp.init = dense<[1.0, 2.0]> : tensor<2xf32>},
                    %zeros: tensor<2xf32> {mp.state = "zeros"})
    -> (tensor<f32> {mp.loss}, tensor<f32> {mp.updates = 1 : i64}) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %offsets = mp.reduce_sum %dense dims [0] : tensor<2xf32>
  %zero = mp.reduce_sum %zeros dims [0] : tensor<2xf32>
  %base = mp.add %count, %offsets : tensor<f32>, tensor<f32>
  %loss = mp.add %base, %zero : tensor<f32>, tensor<f32>
  %next = mp.add %count, %one : tensor<f32>, tensor<f32>
  return %loss, %next : tensor<f32>, tensor<f32>
}

// mp.skipped is true on odd-numbered steps (the counter is even before them);
// the parameter changes anyway: the result is trusted.
// FLAGGED: step 1 loss 0 scale - skipped
// FLAGGED-NEXT: step 2 loss 1 scale - ok
// FLAGGED-NEXT: step 3 loss 0 scale - skipped
// FLAGGED-NEXT: step 4 loss 1 scale - ok
// FLAGGED-NEXT: final: loss 1 skipped 2/4 scale -
func.func @flagged(%w: tensor<2xf32> {mp.param},
                   %parity: tensor<f32> {mp.state = "parity"})
    -> (tensor<f32> {mp.loss}, tensor<2xf32> {mp.updates = 0 : i64},
        tensor<f32> {mp.updates = 1 : i64}, tensor<i1> {mp.skipped}) {
  %one = arith.constant dense<1.0> : tensor<f32>
  %zero = arith.constant dense<0.0> : tensor<f32>
  %next = mp.sub %one, %parity : tensor<f32>, tensor<f32>
  %skipped = arith.cmpf oeq, %parity, %zero : tensor<f32>
  %w1 = mp.add %w, %w : tensor<2xf32>, tensor<2xf32>
  return %parity, %w1, %next, %skipped : tensor<f32>, tensor<2xf32>, tensor<f32>, tensor<i1>
}

// Without mp.skipped: the parameter and its state come back unchanged, so
// the steps count as skipped; the loss-scale state may change meanwhile.
// FROZEN: step 1 loss 0 scale 128 skipped
// FROZEN-NEXT: step 2 loss 0 scale 64 skipped
// FROZEN-NEXT: final: loss 0 skipped 2/2 scale 32
// FROZEN-JSON: "function": "frozen"
// FROZEN-JSON: {"step": 1, "loss": 0, "loss_scale": 128, "skipped": true, "unchanged": true, "seconds": {{[0-9.e+-]+}}, "cpu_seconds": {{[0-9.e+-]+}}, "libc_allocations": 0},
// FROZEN-JSON: {"step": 2, "loss": 0, "loss_scale": 64, "skipped": true, "unchanged": true, "seconds": {{[0-9.e+-]+}}, "cpu_seconds": {{[0-9.e+-]+}}, "libc_allocations": 0}
// FROZEN-JSON: "skipped_steps": 2,
// FROZEN-JSON: "final_loss_scale": 32,
func.func @frozen(%w: tensor<2xf32> {mp.param},
                  %m: tensor<2xf32> {mp.state = "sgd.momentum_buffer"},
                  %scale: tensor<f32> {mp.state = "loss_scale", mp.init = 128.0 : f32})
    -> (tensor<f32> {mp.loss}, tensor<2xf32> {mp.updates = 0 : i64},
        tensor<2xf32> {mp.updates = 1 : i64}, tensor<f32> {mp.updates = 2 : i64}) {
  %half = arith.constant dense<0.5> : tensor<f32>
  %loss = arith.constant dense<0.0> : tensor<f32>
  %next = mp.mul %scale, %half : tensor<f32>, tensor<f32>
  return %loss, %w, %m, %next : tensor<f32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>
}

// A working copy starts as its parameter rounded to f16: the loss is the
// rounding error summed, 0 when the parameter is zero, and below an f16 ulp
// of the kaiming-uniform init (|w| <= 1/sqrt(3)) otherwise.
// COPIES: step 1 loss {{-?[0-9]\.[0-9]+e-0[4-9]|0}} scale - ok
// ZEROS: step 1 loss 0 scale - ok
func.func @copies(%w: tensor<3xf32> {mp.param},
                  %copy: tensor<3xf16> {mp.state = "working_copy", mp.copy_of = 0 : i64})
    -> (tensor<f32> {mp.loss}) {
  %wide = mp.cast %copy : tensor<3xf16> to tensor<3xf32>
  %diff = mp.sub %wide, %w : tensor<3xf32>, tensor<3xf32>
  %loss = mp.reduce_sum %diff dims [0] : tensor<3xf32>
  return %loss : tensor<f32>
}
