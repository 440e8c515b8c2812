// RUN: mp-opt %s -split-input-file -verify-diagnostics --mp-expand-fp8-conversions
// RUN: not mp-opt %s -split-input-file --mp-cpu-pipeline 2>&1 | FileCheck %s --check-prefix=PIPELINE

// FP8 conversions mp-expand-fp8-conversions cannot expand: an error at the
// op and the pass (and mp-cpu-pipeline, which runs it) fails, instead of a
// "lowered" module that still holds the FP8 op.

func.func @f64_source(%y: f64) -> f8E4M3FN {
  // expected-error @+1 {{'arith.truncf' op cannot be expanded into integer arithmetic: truncation to FP8, FP6 and FP4 is supported from f32, f16 and bf16 with rounding to nearest even only}}
  %0 = arith.truncf %y : f64 to f8E4M3FN
  return %0 : f8E4M3FN
}
// PIPELINE: error: 'arith.truncf' op cannot be expanded into integer arithmetic

// -----

func.func @rounding_mode(%x: tensor<4xf32>) -> tensor<4xf8E5M2> {
  // expected-error @+1 {{'arith.truncf' op cannot be expanded into integer arithmetic}}
  %0 = arith.truncf %x to_nearest_away : tensor<4xf32> to tensor<4xf8E5M2>
  return %0 : tensor<4xf8E5M2>
}
// PIPELINE: error: 'arith.truncf' op cannot be expanded into integer arithmetic

// -----

// E8M0 is a scale type: only the upward rounding of mp.cast is expanded.
func.func @e8m0_nearest(%x: f32) -> f8E8M0FNU {
  // expected-error @+1 {{'arith.truncf' op cannot be expanded into integer arithmetic: truncation to f8E8M0FNU is supported from f32, f16 and bf16 with rounding upward only}}
  %0 = arith.truncf %x : f32 to f8E8M0FNU
  return %0 : f8E8M0FNU
}
// PIPELINE: error: 'arith.truncf' op cannot be expanded into integer arithmetic: truncation to f8E8M0FNU
