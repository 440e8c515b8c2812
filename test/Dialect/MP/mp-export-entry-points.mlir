// RUN: mp-opt %s -split-input-file -mp-export-entry-points | FileCheck %s
// Running it twice changes nothing more.
// RUN: mp-opt %s -split-input-file -mp-export-entry-points -mp-export-entry-points | FileCheck %s

// A train step: its contract moves into mp.signature (with the tensor
// types), other argument attributes stay, tensor arguments become read-only
// for bufferization, and the C interface is requested.
// CHECK-LABEL: func.func @step(
// CHECK-SAME:    %{{.*}}: tensor<4xf32> {bufferization.writable = false},
// CHECK-SAME:    %{{.*}}: tensor<4xf32> {bufferization.writable = false, llvm.noalias},
// CHECK-SAME:    %{{.*}}: tensor<2x4xf32> {bufferization.writable = false})
// CHECK-SAME:    -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>)
// CHECK-SAME:    attributes {llvm.emit_c_interface, mp.signature = {
// CHECK-SAME:      arg_attrs = [{mp.param}, {mp.init = 1.000000e+00 : f32, mp.state = "sgd.momentum_buffer"}, {}],
// CHECK-SAME:      function_type = (tensor<4xf32>, tensor<4xf32>, tensor<2x4xf32>) -> (tensor<f32>, tensor<4xf32>, tensor<4xf32>),
// CHECK-SAME:      res_attrs = [{mp.loss}, {mp.updates = 0 : i64}, {mp.updates = 1 : i64}]}}
func.func @step(%w: tensor<4xf32> {mp.param},
                %m: tensor<4xf32> {mp.state = "sgd.momentum_buffer", mp.init = 1.0 : f32, llvm.noalias},
                %x: tensor<2x4xf32>)
    -> (tensor<f32> {mp.loss}, tensor<4xf32> {mp.updates = 0 : i64},
        tensor<4xf32> {mp.updates = 1 : i64}) {
  %loss = mp.reduce_sum %x dims [0, 1] : tensor<2x4xf32>
  return %loss, %w, %m : tensor<f32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// A public function without contract attributes records its type only.
// CHECK-LABEL: func.func @plain(
// CHECK-SAME:    %{{.*}}: tensor<4xf32> {bufferization.writable = false}) -> tensor<4xf32>
// CHECK-SAME:    attributes {llvm.emit_c_interface, mp.signature = {function_type = (tensor<4xf32>) -> tensor<4xf32>}}
func.func @plain(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}

// -----

// Private functions and declarations are not entry points; they lose the
// train-step attributes (which would not verify on memrefs).
// CHECK-LABEL: func.func private @helper(
// CHECK-SAME:    %{{.*}}: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-LABEL: func.func private @declared(tensor<4xf32>) -> tensor<4xf32>{{$}}
func.func private @helper(%a: tensor<4xf32> {mp.param}) -> tensor<4xf32> {
  return %a : tensor<4xf32>
}
func.func private @declared(tensor<4xf32>) -> tensor<4xf32>
