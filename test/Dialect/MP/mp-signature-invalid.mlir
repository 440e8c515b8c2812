// RUN: mp-opt %s -split-input-file -verify-diagnostics -allow-unregistered-dialect

// expected-error @+1 {{'mp.signature' must be a dictionary with a 'function_type' on a function}}
func.func @no_type() attributes {mp.signature = {arg_attrs = []}} {
  return
}

// -----

// expected-error @+1 {{'mp.signature' must be a dictionary with a 'function_type' on a function}}
func.func @not_a_dictionary() attributes {mp.signature = (tensor<4xf32>) -> ()} {
  return
}

// -----

// expected-error @+1 {{'mp.signature' entry 'arg_attrs' must hold 1 dictionaries}}
func.func @too_few() attributes {mp.signature = {function_type = (tensor<4xf32>) -> (), arg_attrs = []}} {
  return
}

// -----

// expected-error @+1 {{'mp.signature' entry 'res_attrs' must hold 1 dictionaries}}
func.func @not_dictionaries() attributes {mp.signature = {function_type = () -> tensor<f32>, res_attrs = [1]}} {
  return
}

// -----

// expected-error @+1 {{'mp.signature' must be a dictionary with a 'function_type' on a function}}
"test.op"() {mp.signature = {function_type = () -> ()}} : () -> ()
