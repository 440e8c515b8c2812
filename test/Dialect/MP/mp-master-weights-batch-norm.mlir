// RUN: mp-opt %s --mp-master-weights | FileCheck %s --check-prefix=CAST
// RUN: mp-opt %s --mp-master-weights=style=stored-copy | FileCheck %s --check-prefix=COPY

// A pure f16 model with batch norm: the f16 affine parameters get f32
// masters (cast to f16 for the forward, or an f16 working copy), while the
// forward state keeps its types and kinds: running_mean and running_var stay
// f32 (they are f32 whatever the input type), num_batches_tracked i64, and
// their results still update them.

// CAST-LABEL: func.func @f16_batch_norm
// CAST-SAME: (%[[G:[^:]*]]: tensor<4xf32> {mp.param}, %[[B:[^:]*]]: tensor<4xf32> {mp.param}, %[[RM:[^:]*]]: tensor<4xf32> {mp.state = "bn.running_mean"}, %[[RV:[^:]*]]: tensor<4xf32> {mp.init = 1.000000e+00 : f32, mp.state = "bn.running_var"}, %[[N:[^:]*]]: tensor<i64> {mp.state = "bn.num_batches_tracked"}, %[[X:[^:]*]]: tensor<8x4x3x3xf16>, %{{[^:]*}}: tensor<8xi64>)
// CAST-SAME: -> (tensor<f32> {mp.loss}, tensor<4xf32> {mp.updates = 0 : i64}, tensor<4xf32> {mp.updates = 1 : i64}, tensor<4xf32> {mp.updates = 2 : i64}, tensor<4xf32> {mp.updates = 3 : i64}, tensor<i64> {mp.updates = 4 : i64})
// CAST-NEXT: %[[GH:.*]] = mp.cast %[[G]] : tensor<4xf32> to tensor<4xf16>
// CAST-NEXT: %[[BH:.*]] = mp.cast %[[B]] : tensor<4xf32> to tensor<4xf16>
// CAST-NEXT: %[[Y:.*]], %[[RM1:.*]], %[[RV1:.*]], %[[N1:.*]] = mp.batch_norm %[[X]] weight %[[GH]] bias %[[BH]] stats(%[[RM]], %[[RV]], %[[N]]) training : (tensor<8x4x3x3xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<i64>) -> (tensor<8x4x3x3xf16>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
// CAST: mp.grad %{{.*}} wrt %[[G]], %[[B]] : tensor<f32>, tensor<4xf32>, tensor<4xf32>
// CAST: return %{{.*}}, %{{.*}}, %{{.*}}, %[[RM1]], %[[RV1]], %[[N1]] : tensor<f32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<i64>

// COPY-LABEL: func.func @f16_batch_norm
// COPY-SAME: %[[RM:[^:]*]]: tensor<4xf32> {mp.state = "bn.running_mean"}, %[[RV:[^:]*]]: tensor<4xf32> {mp.init = 1.000000e+00 : f32, mp.state = "bn.running_var"}, %[[N:[^:]*]]: tensor<i64> {mp.state = "bn.num_batches_tracked"}
// COPY-SAME: %[[GC:[^:]*]]: tensor<4xf16> {mp.copy_of = 0 : i64, mp.state = "working_copy"}, %[[BC:[^:]*]]: tensor<4xf16> {mp.copy_of = 1 : i64, mp.state = "working_copy"}
// COPY: mp.batch_norm %{{.*}} weight %[[GC]] bias %[[BC]] stats(%[[RM]], %[[RV]], %[[N]]) training
func.func @f16_batch_norm(%g: tensor<4xf16> {mp.param}, %b: tensor<4xf16> {mp.param},
                          %rm: tensor<4xf32> {mp.state = "bn.running_mean"},
                          %rv: tensor<4xf32> {mp.state = "bn.running_var", mp.init = 1.0 : f32},
                          %n: tensor<i64> {mp.state = "bn.num_batches_tracked"},
                          %x: tensor<8x4x3x3xf16>, %y: tensor<8xi64>)
    -> (tensor<f32> {mp.loss}, tensor<4xf16> {mp.updates = 0 : i64}, tensor<4xf16> {mp.updates = 1 : i64},
        tensor<4xf32> {mp.updates = 2 : i64}, tensor<4xf32> {mp.updates = 3 : i64},
        tensor<i64> {mp.updates = 4 : i64}) {
  %h, %rm1, %rv1, %n1 = mp.batch_norm %x weight %g bias %b stats(%rm, %rv, %n) training
      : (tensor<8x4x3x3xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
      -> (tensor<8x4x3x3xf16>, tensor<4xf32>, tensor<4xf32>, tensor<i64>)
  %f = mp.reshape %h : tensor<8x4x3x3xf16> to tensor<8x36xf16>
  %l = mp.slice %f offsets [0, 0] sizes [8, 10] strides [1, 1] : tensor<8x36xf16>
  %lf = mp.cast %l : tensor<8x10xf16> to tensor<8x10xf32>
  %loss = mp.cross_entropy %lf, %y : tensor<8x10xf32>, tensor<8xi64>
  %dg, %db = mp.grad %loss wrt %g, %b : tensor<f32>, tensor<4xf16>, tensor<4xf16>
  %g1 = mp.sgd %g, %dg {lr = 0.1 : f64} : tensor<4xf16>
  %b1 = mp.sgd %b, %db {lr = 0.1 : f64} : tensor<4xf16>
  return %loss, %g1, %b1, %rm1, %rv1, %n1
      : tensor<f32>, tensor<4xf16>, tensor<4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<i64>
}
