// RUN: mp-opt %s --mp-master-weights | FileCheck %s
// RUN: mp-opt %s --mp-master-weights --mp-precision-report -o /dev/null | FileCheck %s --check-prefix=REPORT

// amsgrad's max_exp_avg_sq is optimizer state: mp-master-weights widens it
// to f32 with the moments; the step counter, the schedule counter
// (lr_scheduler.last_epoch, forward state) and the lr operand keep their
// types. The precision report counts the new state: 3 f32 tensors of 8
// (96 bytes) and the step counter (8 bytes) as optimizer state, the
// schedule counter (8 bytes) as forward state.

// CHECK-LABEL: func.func @step(
// CHECK-SAME:    %[[W:[a-z0-9]+]]: tensor<8xf32> {mp.param}, %[[M:[a-z0-9]+]]: tensor<8xf32> {mp.state = "adam.exp_avg"}, %[[V:[a-z0-9]+]]: tensor<8xf32> {mp.state = "adam.exp_avg_sq"}, %[[X:[a-z0-9]+]]: tensor<8xf32> {mp.state = "adam.max_exp_avg_sq"}, %[[S:[a-z0-9]+]]: tensor<i64> {mp.state = "step"}, %[[E:[a-z0-9]+]]: tensor<i64> {mp.state = "lr_scheduler.last_epoch"}
// CHECK:         %[[G:.*]] = mp.grad %{{.*}} wrt %[[W]] : tensor<bf16>, tensor<8xf32>
// CHECK:         %[[LR:.*]] = tensor.from_elements %{{.*}} : tensor<f64>
// CHECK:         mp.adam %[[W]], %[[G]], %[[M]], %[[V]], %{{.*}} amsgrad %[[X]] lr(%[[LR]] : tensor<f64>) : tensor<8xf32>, tensor<i64>
// CHECK:         return {{.*}} : tensor<bf16>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<i64>, tensor<i64>

// REPORT:        optimizer state              0           96            8          104
// REPORT-NEXT:   forward state                0            0            8            8
func.func @step(%w: tensor<8xbf16> {mp.param},
                %m: tensor<8xbf16> {mp.state = "adam.exp_avg"},
                %v: tensor<8xbf16> {mp.state = "adam.exp_avg_sq"},
                %vmax: tensor<8xbf16> {mp.state = "adam.max_exp_avg_sq"},
                %step: tensor<i64> {mp.state = "step"},
                %e: tensor<i64> {mp.state = "lr_scheduler.last_epoch"},
                %x: tensor<8xbf16>)
    -> (tensor<bf16> {mp.loss}, tensor<8xbf16> {mp.updates = 0 : i64},
        tensor<8xbf16> {mp.updates = 1 : i64}, tensor<8xbf16> {mp.updates = 2 : i64},
        tensor<8xbf16> {mp.updates = 3 : i64}, tensor<i64> {mp.updates = 4 : i64},
        tensor<i64> {mp.updates = 5 : i64}) {
  %loss = mp.mse %w, %x : tensor<8xbf16>
  %g = mp.grad %loss wrt %w : tensor<bf16>, tensor<8xbf16>
  %one = arith.constant dense<1> : tensor<i64>
  %s1 = arith.addi %step, %one : tensor<i64>
  // ExponentialLR(0.5) from 0.1 (mixedprec.lr_schedule_ops's ops).
  %ec = tensor.extract %e[] : tensor<i64>
  %base = arith.constant 0.1 : f64
  %gamma = arith.constant 0.5 : f64
  %ef = arith.sitofp %ec : i64 to f64
  %pow = math.powf %gamma, %ef : f64
  %lrs = arith.mulf %base, %pow : f64
  %lr = tensor.from_elements %lrs : tensor<f64>
  %e1 = arith.addi %e, %one : tensor<i64>
  %w1, %m1, %v1, %x1 = mp.adam %w, %g, %m, %v, %s1 amsgrad %vmax lr(%lr : tensor<f64>) : tensor<8xbf16>, tensor<i64>
  return %loss, %w1, %m1, %v1, %x1, %s1, %e1 : tensor<bf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<8xbf16>, tensor<i64>, tensor<i64>
}
