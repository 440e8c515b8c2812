// Invalid schedules for lr-schedule-builder.mlir (LRSchedule::validate).
func.func private @a(tensor<i64>) -> tensor<f64> attributes {test.lr_schedule = {kind = "StepLR", base_lr = 0.1 : f64, step_size = 0 : i64}}
func.func private @b(tensor<i64>) -> tensor<f64> attributes {test.lr_schedule = {kind = "SequentialLR", base_lr = 0.1 : f64, milestones = [5 : i64, 6 : i64], schedulers = [{kind = "StepLR"}, {kind = "StepLR"}]}}
func.func private @c(tensor<i64>) -> tensor<f64> attributes {test.lr_schedule = {kind = "LinearLR", base_lr = 0.1 : f64, end_factor = 2.0 : f64}}
func.func private @d(tensor<i64>) -> tensor<f64> attributes {test.lr_schedule = {kind = "SequentialLR", base_lr = 0.1 : f64, milestones = [], schedulers = [{kind = "SequentialLR", milestones = [], schedulers = [{kind = "StepLR"}]}]}}
