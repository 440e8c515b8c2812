// Found by mp-fuzz-passes on a seed of test/Fuzz/convert-mp-to-nvvm-symbols.mlir
// (docs/Reliability.md): mp-cpu-pipeline on a function in a nested module
// lowered its mp ops (convert-mp-to-linalg converts the whole module) but ran
// its function passes on the top-level functions only, so the LLVM
// conversions got a half-lowered function and returned success with IR that
// does not verify. mp-export-entry-points, which prepares the module for that
// lowering, now rejects functions in nested modules.
// RUN: mp-opt %s -split-input-file -verify-diagnostics --mp-cpu-pipeline
// RUN: mp-opt %s -split-input-file -verify-diagnostics --mp-export-entry-points

module {
  // expected-error @+1 {{'builtin.module' op mp-export-entry-points: functions in a nested module are not supported (the CPU lowering handles the functions of the top-level module only)}}
  module @inner {
    func.func @f(%a: tensor<8x4xf32>, %b: tensor<4x2xf32>) -> tensor<8x2xf32> {
      %y = mp.matmul %a, %b acc(f32) : tensor<8x4xf32>, tensor<4x2xf32> -> tensor<8x2xf32>
      return %y : tensor<8x2xf32>
    }
  }
}

// -----

// Deeper: a function two modules down.
module {
  // expected-error @+1 {{functions in a nested module are not supported}}
  module @outer {
    module @inner {
      func.func @g(%x: tensor<4xf32>) -> tensor<4xf32> {
        %y = mp.relu %x : tensor<4xf32>
        return %y : tensor<4xf32>
      }
    }
  }
}

// -----

// A nested module without functions is not in the way.
module {
  module @data {
  }
  func.func @h(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = mp.relu %x : tensor<4xf32>
    return %y : tensor<4xf32>
  }
}
