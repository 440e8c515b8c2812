// RUN: mp-lr-schedule-test %s | FileCheck %s
// RUN: mp-lr-schedule-test %s | mp-opt | FileCheck %s
// RUN: not mp-lr-schedule-test %S/Inputs/lr-schedule-invalid.mlir 2>&1 | FileCheck %s --check-prefix=INVALID

// The C++ schedule builder (mp::buildLRSchedule, include/mp/Dialect/MP/IR/
// MPSchedules.h): the closed form in f64 scalar ops, in Python's order, from
// the counter read out of its 0-d tensor. Numerics against PyTorch:
// test/Integration/Torch/lr-schedules.test.

// StepLR: base · γ^(e // step_size).
// CHECK-LABEL: func.func private @step(
// CHECK-SAME:    %[[C:.*]]: tensor<i64>) -> tensor<f64>
// CHECK:         %[[E:.*]] = tensor.extract %[[C]][] : tensor<i64>
// CHECK:         %[[BASE:.*]] = arith.constant 1.000000e-01 : f64
// CHECK:         %[[K:.*]] = arith.floordivsi %[[E]], %{{.*}} : i64
// CHECK:         %[[G:.*]] = arith.constant 5.000000e-01 : f64
// CHECK:         %[[KF:.*]] = arith.sitofp %[[K]] : i64 to f64
// CHECK:         %[[P:.*]] = math.powf %[[G]], %[[KF]] : f64
// CHECK:         %[[LR:.*]] = arith.mulf %[[BASE]], %[[P]] : f64
// CHECK:         %[[T:.*]] = tensor.from_elements %[[LR]] : tensor<f64>
// CHECK:         return %[[T]] : tensor<f64>
func.func private @step(tensor<i64>) -> tensor<f64> attributes {test.lr_schedule = {kind = "StepLR", base_lr = 0.1 : f64, step_size = 30 : i64, gamma = 0.5 : f64}}

// SequentialLR: the active schedule's index counts the milestones reached;
// the second schedule runs at e − milestone; a select picks the value.
// CHECK-LABEL: func.func private @seq(
// CHECK:         %[[E:.*]] = tensor.extract
// CHECK:         %[[REACHED:.*]] = arith.cmpi sle, %{{.*}}, %[[E]] : i64
// CHECK:         %[[IDX:.*]] = arith.addi
// CHECK:         %[[MIN:.*]] = arith.minsi %{{.*}}, %[[E]] : i64
// CHECK:         arith.divf
// CHECK:         arith.addf
// CHECK-NEXT:    %[[LIN:.*]] = arith.mulf
// CHECK-NEXT:    arith.constant 5 : i64
// CHECK-NEXT:    %[[LOCAL:.*]] = arith.subi %[[E]], %{{.*}} : i64
// CHECK:         arith.constant 3.1415926535897931 : f64
// CHECK:         math.cos
// CHECK:         arith.divf
// CHECK-NEXT:    %[[COS:.*]] = arith.addf
// CHECK-NEXT:    arith.constant 1 : i64
// CHECK-NEXT:    %[[ACTIVE:.*]] = arith.cmpi eq, %[[IDX]], %{{.*}} : i64
// CHECK:         %[[LR:.*]] = arith.select %[[ACTIVE]], %[[COS]], %[[LIN]] : f64
func.func private @seq(tensor<i64>) -> tensor<f64> attributes {test.lr_schedule = {kind = "SequentialLR", base_lr = 0.1 : f64, milestones = [5 : i64], schedulers = [{kind = "LinearLR", start_factor = 0.5 : f64, total_iters = 5 : i64}, {kind = "CosineAnnealingLR", T_max = 10 : i64}]}}

// INVALID: error: StepLR: step_size must be >= 1
// INVALID: error: SequentialLR: expects one milestone fewer than schedulers
// INVALID: error: LinearLR: end_factor must be in [0, 1]
// INVALID: error: SequentialLR: nested SequentialLR is not supported
