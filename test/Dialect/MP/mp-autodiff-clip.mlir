// RUN: mp-opt %s -split-input-file --mp-autodiff -verify-diagnostics

// mp.clip_grad_norm runs after mp.grad on gradients and has no gradient:
// differentiating through it is reported, not crashed on.
func.func @through_clip(%w: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{op 'mp.clip_grad_norm' has no gradient: mp-autodiff differentiates forward ops, not backward, gradient or optimizer ops (second-order differentiation is not supported)}}
  %c, %n = mp.clip_grad_norm %w max_norm 1.0 : tensor<4xf32>
  // expected-note @+1 {{on the path from a differentiated value to the loss of this mp.grad}}
  %g = mp.grad %n wrt %w : tensor<f32>, tensor<4xf32>
  return %g : tensor<4xf32>
}

