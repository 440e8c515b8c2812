// A hand-written joint graph (forward, loss, explicit backward ops, SGD) of
// a 4-16-3 MLP on 8 fixed samples, lowered with convert-mp-to-linalg and plain
// upstream passes and executed for 50 steps: once in f32 and once in mixed
// precision (f16 forward and backward, f32 master weights and update). The
// f32 losses match a float64 NumPy run of the same steps (loss 1.220623
// before the first step, 0.012295 before the last) within 1e-4; the mixed
// precision run starts within 1e-2 of it and also converges.
// RUN: mp-opt %s --convert-mp-to-linalg %lower_to_llvm | %mlir_runner | FileCheck %s

memref.global "public" @x : memref<8x4xf32> = dense<[[-8.287016749e-01, -5.263789892e-01, 6.025489569e-01, 1.643240750e-01], [-8.117427230e-01, -1.337461174e-01, -4.189740494e-02, -6.805221438e-01], [4.691542983e-01, -7.726559639e-01, -2.175436169e-01, 3.348036483e-02], [-1.387439519e-01, 1.735971421e-01, 4.756755829e-01, 9.125345349e-01], [-4.315976799e-01, 2.970944047e-01, 3.924320042e-01, -4.145585001e-01], [-9.970198274e-01, 9.469205737e-01, -4.031975567e-01, -3.720279932e-01], [7.834221125e-01, 1.703258753e-01, -5.738066882e-02, 5.465540290e-01], [-9.393079877e-01, 4.139301777e-01, -2.515123188e-01, -8.182945848e-01]]>
memref.global "public" @labels : memref<8xi64> = dense<[1, 1, 2, 2, 1, 1, 2, 1]>
memref.global "public" @w1 : memref<16x4xf32> = dense<[[-7.142709941e-02, 2.587054670e-01, 3.784801960e-01, -3.976800740e-01], [3.497683406e-01, -1.060726643e-01, -2.031607740e-02, -3.536654413e-01], [1.984263510e-01, -2.080213875e-01, 3.711391389e-01, -2.246256173e-01], [6.180971861e-02, -1.003437787e-01, 1.129094884e-01, -3.033607602e-01], [-3.197124600e-01, 2.468603849e-01, 2.522234321e-01, 6.697787344e-02], [4.210796654e-01, -2.942249477e-01, 3.509011269e-01, -3.310126960e-01], [4.643577337e-01, 1.236927286e-01, 1.068837866e-01, 4.705587626e-01], [2.870327234e-01, 2.899174690e-01, -4.459062517e-01, -1.307137012e-01], [-4.151052237e-01, -3.064724207e-01, -2.861330211e-01, 3.586419225e-01], [-3.732450306e-01, -2.032422274e-01, -7.153021172e-03, 3.494604230e-01], [4.652314186e-01, 2.081447691e-01, -2.863127887e-01, 4.498268291e-02], [2.059590369e-01, -4.481174648e-01, 1.798841655e-01, -1.317181587e-01], [8.970028907e-02, 1.695332825e-01, 1.691274941e-01, 2.304977551e-02], [5.473743379e-02, -3.018502891e-01, -4.812608473e-03, -3.745905161e-01], [-1.925299875e-02, 3.624492511e-02, 2.741048038e-01, -1.063352078e-01], [-4.803995788e-01, 2.774993330e-02, -2.947674990e-01, 2.412575185e-01]]>
memref.global "public" @b1 : memref<16xf32> = dense<[0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00, 0.000000000e+00]>
memref.global "public" @w2 : memref<3x16xf32> = dense<[[-1.113027707e-01, -1.195268333e-01, 4.094545841e-01, -1.070295572e-01, -1.511484236e-01, -1.519802660e-01, -1.923443004e-02, -4.067078829e-01, 4.674740881e-02, 4.214274585e-01, 6.292206794e-02, 2.439102083e-01, 4.471406639e-01, 3.421153724e-01, 2.440063506e-01, 3.131637275e-01], [3.201390505e-01, -2.462448031e-01, -1.803695224e-02, -1.572832465e-01, -2.382667065e-01, 7.155158371e-02, -1.821140796e-01, 1.186565459e-01, 8.241652697e-02, -3.956010342e-01, -5.758234859e-02, -1.101451293e-01, 2.066524178e-01, -4.118671417e-01, -3.310418129e-01, 1.259745564e-02], [-9.540627152e-02, 1.653466821e-01, -1.671433151e-01, -3.027812243e-01, 4.318454266e-01, -2.561035156e-01, -3.529357016e-01, -2.201058418e-01, -1.602756232e-01, -2.748840153e-01, 3.631645069e-02, 4.369338453e-01, -3.739811480e-01, -8.483538777e-02, 1.681574434e-01, 3.847149909e-01]]>
memref.global "public" @b2 : memref<3xf32> = dense<[0.000000000e+00, 0.000000000e+00, 0.000000000e+00]>

// One f32 step: returns the loss and the updated parameters.
func.func private @step_f32(%x: tensor<8x4xf32>, %labels: tensor<8xi64>,
    %w1: tensor<16x4xf32>, %b1: tensor<16xf32>, %w2: tensor<3x16xf32>, %b2: tensor<3xf32>)
    -> (tensor<f32>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>) {
  %hp = mp.linear %x, %w1, %b1 acc(f32) : (tensor<8x4xf32>, tensor<16x4xf32>, tensor<16xf32>) -> tensor<8x16xf32>
  %h = mp.relu %hp : tensor<8x16xf32>
  %logits = mp.linear %h, %w2, %b2 acc(f32) : (tensor<8x16xf32>, tensor<3x16xf32>, tensor<3xf32>) -> tensor<8x3xf32>
  %loss = mp.cross_entropy %logits, %labels : tensor<8x3xf32>, tensor<8xi64>
  %one = arith.constant dense<1.0> : tensor<f32>
  %dlogits = mp.cross_entropy_grad %one, %logits, %labels : (tensor<f32>, tensor<8x3xf32>, tensor<8xi64>) -> tensor<8x3xf32>
  %dw2 = mp.matmul %dlogits, %h transpose_lhs acc(f32) : tensor<8x3xf32>, tensor<8x16xf32> -> tensor<3x16xf32>
  %db2 = mp.reduce_sum %dlogits dims [0] : tensor<8x3xf32>
  %dh = mp.matmul %dlogits, %w2 acc(f32) : tensor<8x3xf32>, tensor<3x16xf32> -> tensor<8x16xf32>
  %dhp = mp.relu_grad %dh, %hp : tensor<8x16xf32>
  %dw1 = mp.matmul %dhp, %x transpose_lhs acc(f32) : tensor<8x16xf32>, tensor<8x4xf32> -> tensor<16x4xf32>
  %db1 = mp.reduce_sum %dhp dims [0] : tensor<8x16xf32>
  %nw1 = mp.sgd %w1, %dw1 {lr = 0.5 : f64} : tensor<16x4xf32>
  %nb1 = mp.sgd %b1, %db1 {lr = 0.5 : f64} : tensor<16xf32>
  %nw2 = mp.sgd %w2, %dw2 {lr = 0.5 : f64} : tensor<3x16xf32>
  %nb2 = mp.sgd %b2, %db2 {lr = 0.5 : f64} : tensor<3xf32>
  return %loss, %nw1, %nb1, %nw2, %nb2 : tensor<f32>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>
}

// The same step in mixed precision: f16 working copies of the f32 masters,
// f16 activations and gradients (matmuls accumulating in f32), the loss in
// f32, gradients cast to f32 for the update of the masters.
func.func private @step_amp(%x: tensor<8x4xf32>, %labels: tensor<8xi64>,
    %w1: tensor<16x4xf32>, %b1: tensor<16xf32>, %w2: tensor<3x16xf32>, %b2: tensor<3xf32>)
    -> (tensor<f32>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>) {
  %xh = mp.cast %x : tensor<8x4xf32> to tensor<8x4xf16>
  %w1h = mp.cast %w1 : tensor<16x4xf32> to tensor<16x4xf16>
  %b1h = mp.cast %b1 : tensor<16xf32> to tensor<16xf16>
  %w2h = mp.cast %w2 : tensor<3x16xf32> to tensor<3x16xf16>
  %b2h = mp.cast %b2 : tensor<3xf32> to tensor<3xf16>
  %hp = mp.linear %xh, %w1h, %b1h acc(f32) : (tensor<8x4xf16>, tensor<16x4xf16>, tensor<16xf16>) -> tensor<8x16xf16>
  %h = mp.relu %hp : tensor<8x16xf16>
  %logitsh = mp.linear %h, %w2h, %b2h acc(f32) : (tensor<8x16xf16>, tensor<3x16xf16>, tensor<3xf16>) -> tensor<8x3xf16>
  %logits = mp.cast %logitsh : tensor<8x3xf16> to tensor<8x3xf32>
  %loss = mp.cross_entropy %logits, %labels : tensor<8x3xf32>, tensor<8xi64>
  %one = arith.constant dense<1.0> : tensor<f32>
  %dlogits = mp.cross_entropy_grad %one, %logits, %labels : (tensor<f32>, tensor<8x3xf32>, tensor<8xi64>) -> tensor<8x3xf32>
  %dlh = mp.cast %dlogits : tensor<8x3xf32> to tensor<8x3xf16>
  %dw2h = mp.matmul %dlh, %h transpose_lhs acc(f32) : tensor<8x3xf16>, tensor<8x16xf16> -> tensor<3x16xf16>
  %db2h = mp.reduce_sum %dlh dims [0] : tensor<8x3xf16>
  %dh = mp.matmul %dlh, %w2h acc(f32) : tensor<8x3xf16>, tensor<3x16xf16> -> tensor<8x16xf16>
  %dhp = mp.relu_grad %dh, %hp : tensor<8x16xf16>
  %dw1h = mp.matmul %dhp, %xh transpose_lhs acc(f32) : tensor<8x16xf16>, tensor<8x4xf16> -> tensor<16x4xf16>
  %db1h = mp.reduce_sum %dhp dims [0] : tensor<8x16xf16>
  %dw1 = mp.cast %dw1h : tensor<16x4xf16> to tensor<16x4xf32>
  %db1 = mp.cast %db1h : tensor<16xf16> to tensor<16xf32>
  %dw2 = mp.cast %dw2h : tensor<3x16xf16> to tensor<3x16xf32>
  %db2 = mp.cast %db2h : tensor<3xf16> to tensor<3xf32>
  %nw1 = mp.sgd %w1, %dw1 {lr = 0.5 : f64} : tensor<16x4xf32>
  %nb1 = mp.sgd %b1, %db1 {lr = 0.5 : f64} : tensor<16xf32>
  %nw2 = mp.sgd %w2, %dw2 {lr = 0.5 : f64} : tensor<3x16xf32>
  %nb2 = mp.sgd %b2, %db2 {lr = 0.5 : f64} : tensor<3xf32>
  return %loss, %nw1, %nb1, %nw2, %nb2 : tensor<f32>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>
}

// Prints the loss and whether |loss - expected| < tolerance.
func.func private @report(%loss: tensor<f32>, %expected: f32, %tolerance: f32) {
  %l = tensor.extract %loss[] : tensor<f32>
  vector.print %l : f32
  %d = arith.subf %l, %expected : f32
  %a = math.absf %d : f32
  %ok = arith.cmpf olt, %a, %tolerance : f32
  vector.print %ok : i1
  return
}

func.func @main() {
  %xm = memref.get_global @x : memref<8x4xf32>
  %x = bufferization.to_tensor %xm restrict : memref<8x4xf32> to tensor<8x4xf32>
  %lm = memref.get_global @labels : memref<8xi64>
  %labels = bufferization.to_tensor %lm restrict : memref<8xi64> to tensor<8xi64>
  %w1m = memref.get_global @w1 : memref<16x4xf32>
  %w1 = bufferization.to_tensor %w1m restrict : memref<16x4xf32> to tensor<16x4xf32>
  %b1m = memref.get_global @b1 : memref<16xf32>
  %b1 = bufferization.to_tensor %b1m restrict : memref<16xf32> to tensor<16xf32>
  %w2m = memref.get_global @w2 : memref<3x16xf32>
  %w2 = bufferization.to_tensor %w2m restrict : memref<3x16xf32> to tensor<3x16xf32>
  %b2m = memref.get_global @b2 : memref<3xf32>
  %b2 = bufferization.to_tensor %b2m restrict : memref<3xf32> to tensor<3xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c49 = arith.constant 49 : index
  %zero = arith.constant dense<0.0> : tensor<f32>
  %first = arith.constant 1.220623 : f32
  %last = arith.constant 0.012295 : f32
  %tight = arith.constant 1.0e-04 : f32
  %loose = arith.constant 1.0e-02 : f32
  %converged = arith.constant 0.05 : f32

  // f32: the loss before the first step, then the one before the 50th.
  %l0, %a1, %a2, %a3, %a4 = func.call @step_f32(%x, %labels, %w1, %b1, %w2, %b2)
      : (tensor<8x4xf32>, tensor<8xi64>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>)
      -> (tensor<f32>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>)
  // CHECK: 1.2206
  // CHECK-NEXT: {{^1$}}
  func.call @report(%l0, %first, %tight) : (tensor<f32>, f32, f32) -> ()
  %r:5 = scf.for %i = %c0 to %c49 step %c1
      iter_args(%l = %zero, %p1 = %a1, %p2 = %a2, %p3 = %a3, %p4 = %a4)
      -> (tensor<f32>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>) {
    %s:5 = func.call @step_f32(%x, %labels, %p1, %p2, %p3, %p4)
        : (tensor<8x4xf32>, tensor<8xi64>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>)
        -> (tensor<f32>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>)
    scf.yield %s#0, %s#1, %s#2, %s#3, %s#4 : tensor<f32>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>
  }
  // CHECK-NEXT: {{^0.0122[0-9]*$}}
  // CHECK-NEXT: {{^1$}}
  func.call @report(%r#0, %last, %tight) : (tensor<f32>, f32, f32) -> ()

  // Mixed precision: close to f32 at the start, converged at the end.
  %m0, %c1w, %c1b, %c2w, %c2b = func.call @step_amp(%x, %labels, %w1, %b1, %w2, %b2)
      : (tensor<8x4xf32>, tensor<8xi64>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>)
      -> (tensor<f32>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>)
  // CHECK-NEXT: 1.22
  // CHECK-NEXT: {{^1$}}
  func.call @report(%m0, %first, %loose) : (tensor<f32>, f32, f32) -> ()
  %q:5 = scf.for %i = %c0 to %c49 step %c1
      iter_args(%l = %zero, %p1 = %c1w, %p2 = %c1b, %p3 = %c2w, %p4 = %c2b)
      -> (tensor<f32>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>) {
    %s:5 = func.call @step_amp(%x, %labels, %p1, %p2, %p3, %p4)
        : (tensor<8x4xf32>, tensor<8xi64>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>)
        -> (tensor<f32>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>)
    scf.yield %s#0, %s#1, %s#2, %s#3, %s#4 : tensor<f32>, tensor<16x4xf32>, tensor<16xf32>, tensor<3x16xf32>, tensor<3xf32>
  }
  // The last mixed-precision loss is below 0.05 (|loss − 0| < 0.05).
  // CHECK-NEXT: {{^0.01[0-9]*$}}
  // CHECK-NEXT: {{^1$}}
  %zf = arith.constant 0.0 : f32
  func.call @report(%q#0, %zf, %converged) : (tensor<f32>, f32, f32) -> ()
  return
}
