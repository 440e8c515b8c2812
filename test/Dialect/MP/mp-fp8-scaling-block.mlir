// The block-scaled recipes of mp-fp8-scaling (Transformer Engine's
// MXFP8BlockScaling, Float8BlockScaling and NVFP4BlockScaling) on joint
// graphs built by mp-autodiff: the hidden layer's three GEMMs (forward, dx,
// dW) become mp.scaled_matmul, each operand block-quantised from the f32
// tensor along that GEMM's contraction dimension. @mlp64 (32x64 batch,
// 64x64 hidden weight) for mxfp8 and nvfp4, @mlp128 for fp8-block (1x128
// blocks); -split-input-file keeps them apart.
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{recipe=mxfp8})' | FileCheck %s --check-prefix=MX
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{recipe=mxfp8},mp-fp8-scaling{recipe=mxfp8})' | FileCheck %s --check-prefix=MX
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{recipe=mxfp8 format=hybrid weight-blocks=2d})' | FileCheck %s --check-prefix=MX2D
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{recipe=fp8-block})' | FileCheck %s --check-prefix=BLOCK
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{recipe=fp8-block weight-blocks=1d format=hybrid})' | FileCheck %s --check-prefix=BLOCK1D
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{recipe=nvfp4})' | FileCheck %s --check-prefix=NV
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{recipe=nvfp4 disable-stochastic-rounding=true})' | FileCheck %s --check-prefix=NVNOSR
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{recipe=nvfp4 disable-rht=true})' | FileCheck %s --check-prefix=NVNORHT
// Through mp-mixed-precision-pipeline: fp8=<recipe> selects it, with the
// recipe's default format (E4M3 gradients for mxfp8); bf16 operands are
// quantised from their f32 sources.
// RUN: mp-opt %s -split-input-file --mp-mixed-precision-pipeline="compute-type=bf16 fp8=mxfp8" | FileCheck %s --check-prefix=PIPE
// RUN: mp-opt %s -split-input-file --mp-mixed-precision-pipeline="compute-type=f16 fp8=nvfp4" | FileCheck %s --check-prefix=PIPENV
// mp-precision-report: bytes of each block-scaled tensor, data and scales
// packed (FP4: half a byte), NVFP4's f32 tensor scale with the scales.
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{recipe=nvfp4},mp-precision-report)' -o /dev/null | FileCheck %s --check-prefix=REPORT
// RUN: mp-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(mp-autodiff),mp-fp8-scaling{recipe=mxfp8},mp-precision-report{output=- table-output=})' -o /dev/null | FileCheck %s --check-prefix=JSON

func.func @mlp64(%w1: tensor<64x64xf32> {mp.param}, %w2: tensor<64x64xf32> {mp.param},
                 %b2: tensor<64xf32> {mp.param}, %w3: tensor<16x64xf32> {mp.param},
                 %x: tensor<32x64xf32>, %y: tensor<32xi64>)
    -> (tensor<f32> {mp.loss}, tensor<64x64xf32> {mp.updates = 0 : i64},
        tensor<64x64xf32> {mp.updates = 1 : i64}, tensor<64xf32> {mp.updates = 2 : i64},
        tensor<16x64xf32> {mp.updates = 3 : i64}) {
  %h1 = mp.linear %x, %w1 acc(f32) : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
  %a1 = mp.relu %h1 : tensor<32x64xf32>
  %h2 = mp.linear %a1, %w2, %b2 acc(f32) : (tensor<32x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<32x64xf32>
  %a2 = mp.relu %h2 : tensor<32x64xf32>
  %l = mp.linear %a2, %w3 acc(f32) : (tensor<32x64xf32>, tensor<16x64xf32>) -> tensor<32x16xf32>
  %loss = mp.cross_entropy %l, %y : tensor<32x16xf32>, tensor<32xi64>
  %g1, %g2, %gb2, %g3 = mp.grad %loss wrt %w1, %w2, %b2, %w3
      : tensor<f32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<16x64xf32>
  %n1 = mp.sgd %w1, %g1 {lr = 0.1 : f64} : tensor<64x64xf32>
  %n2 = mp.sgd %w2, %g2 {lr = 0.1 : f64} : tensor<64x64xf32>
  %nb2 = mp.sgd %b2, %gb2 {lr = 0.1 : f64} : tensor<64xf32>
  %n3 = mp.sgd %w3, %g3 {lr = 0.1 : f64} : tensor<16x64xf32>
  return %loss, %n1, %n2, %nb2, %n3
      : tensor<f32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<16x64xf32>
}

// MXFP8: no state; the first and last layers stay in f32.
// MX-LABEL: func.func @mlp64(
// MX-SAME: %[[W2:[a-z0-9]+]]: tensor<64x64xf32> {mp.param}, %[[B2:[a-z0-9]+]]: tensor<64xf32> {mp.param}, %{{[a-z0-9]+}}: tensor<16x64xf32> {mp.param}, %{{[a-z0-9]+}}: tensor<32x64xf32>, %{{[a-z0-9]+}}: tensor<32xi64>) -> (tensor<f32> {mp.loss},
// MX:      %[[H1:.*]] = mp.linear %{{.*}} acc(f32) : (tensor<32x64xf32>, tensor<64x64xf32>) -> tensor<32x64xf32>
// MX-NEXT: %[[A1:.*]] = mp.relu %[[H1]]
// Forward: the input and the weight row-wise (1x32 along K), E8M0 scales.
// MX-NEXT: %[[XQ:.*]], %[[XS:.*]] = mp.block_quantize %[[A1]] : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>
// MX-NEXT: %[[WQ:.*]], %[[WS:.*]] = mp.block_quantize %[[W2]] : tensor<64x64xf32> -> tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU>
// MX-NEXT: %[[Y:.*]] = mp.scaled_matmul %[[XQ]] scales %[[XS]], %[[WQ]] scales %[[WS]] transpose_rhs acc(f32) : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>, tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU> -> tensor<32x64xf32>
// MX-NEXT: %[[YB:.*]] = mp.add %[[Y]], %[[B2]] : tensor<32x64xf32>, tensor<64xf32>
// MX-NEXT: mp.relu %[[YB]]
// MX:      %[[DY:.*]] = mp.relu_grad %{{.*}}, %[[YB]]
// dgrad (contraction over N): the gradient row-wise, in E4M3 by default, and
// the weight column-wise (32x1 blocks), quantised again from f32.
// MX-NEXT: %[[GQ:.*]], %[[GS:.*]] = mp.block_quantize %[[DY]] : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>
// MX-NEXT: %[[WTQ:.*]], %[[WTS:.*]] = mp.block_quantize %[[W2]] : tensor<64x64xf32> -> tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU>
// MX-NEXT: %[[DX:.*]] = mp.scaled_matmul %[[GQ]] scales %[[GS]], %[[WTQ]] scales %[[WTS]] acc(f32) : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>, tensor<64x64xf8E4M3FN>, tensor<2x64xf8E8M0FNU> -> tensor<32x64xf32>
// wgrad (contraction over the batch): both column-wise.
// MX-NEXT: %[[GCQ:.*]], %[[GCS:.*]] = mp.block_quantize %[[DY]] : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1x64xf8E8M0FNU>
// MX-NEXT: %[[XCQ:.*]], %[[XCS:.*]] = mp.block_quantize %[[A1]] : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<1x64xf8E8M0FNU>
// MX-NEXT: %[[DW:.*]] = mp.scaled_matmul %[[GCQ]] scales %[[GCS]], %[[XCQ]] scales %[[XCS]] transpose_lhs acc(f32) : tensor<32x64xf8E4M3FN>, tensor<1x64xf8E8M0FNU>, tensor<32x64xf8E4M3FN>, tensor<1x64xf8E8M0FNU> -> tensor<64x64xf32>
// MX-NEXT: mp.reduce_sum %[[DY]] dims [0]
// MX-NEXT: mp.relu_grad %[[DX]], %[[H1]]
// MX:      mp.sgd %[[W2]], %[[DW]]
// MX-NOT:  block_quantize
// MX:      return

// 2-D weights (32x32 tiles): one weight copy serves fprop and dgrad; hybrid
// makes the gradient E5M2.
// MX2D-LABEL: func.func @mlp64(
// MX2D:      %[[WQ:.*]], %[[WS:.*]] = mp.block_quantize %arg1 : tensor<64x64xf32> -> tensor<64x64xf8E4M3FN>, tensor<2x2xf8E8M0FNU>
// MX2D-NEXT: mp.scaled_matmul %{{.*}}, %[[WQ]] scales %[[WS]] transpose_rhs acc(f32)
// MX2D:      %[[GQ:.*]], %[[GS:.*]] = mp.block_quantize %{{.*}} : tensor<32x64xf32> -> tensor<32x64xf8E5M2>, tensor<32x2xf8E8M0FNU>
// MX2D-NEXT: mp.scaled_matmul %[[GQ]] scales %[[GS]], %[[WQ]] scales %[[WS]] acc(f32) : tensor<32x64xf8E5M2>, tensor<32x2xf8E8M0FNU>, tensor<64x64xf8E4M3FN>, tensor<2x2xf8E8M0FNU> -> tensor<32x64xf32>
// MX2D-NEXT: mp.block_quantize %{{.*}} : tensor<32x64xf32> -> tensor<32x64xf8E5M2>, tensor<1x64xf8E8M0FNU>

// NVFP4: E2M1 data, E4M3 scales of 1x16 blocks with the f32 tensor scale
// 448*6/amax; the random bits of the gradient's two copies are drawn first
// from the appended rng state.
// NV-LABEL: func.func @mlp64(
// NV-SAME: %[[W2:[a-z0-9]+]]: tensor<64x64xf32> {mp.param}, %{{[a-z0-9]+}}: tensor<64xf32> {mp.param}
// NV-SAME: %[[RNG:[a-z0-9]+]]: tensor<2xi64> {mp.state = "rng"})
// NV-SAME: tensor<16x64xf32> {mp.updates = 3 : i64}, tensor<2xi64> {mp.updates = 6 : i64})
// The recipe's own stream: the seed word with its top bit flipped.
// NV-NEXT: %[[C0:.*]] = arith.constant 0 : index
// NV-NEXT: %[[SEED:.*]] = tensor.extract %[[RNG]][%[[C0]]] : tensor<2xi64>
// NV-NEXT: %[[BIT:.*]] = arith.constant -9223372036854775808 : i64
// NV-NEXT: %[[KEY:.*]] = arith.xori %[[SEED]], %[[BIT]] : i64
// NV-NEXT: %[[STREAM:.*]] = tensor.insert %[[KEY]] into %[[RNG]][%[[C0]]] : tensor<2xi64>
// NV-NEXT: %[[BITS:.*]], %[[S1:.*]] = mp.random_bits %[[STREAM]] : tensor<32x64xi32>
// NV-NEXT: %[[BITST:.*]], %[[S2:.*]] = mp.random_bits %[[S1]] : tensor<64x32xi32>
// NV:      %[[A1:.*]] = mp.relu
// NV-NEXT: %[[AX:.*]] = mp.amax %[[A1]] : tensor<32x64xf32>
// NV-NEXT: %[[C2688:.*]] = arith.constant dense<2.688000e+03> : tensor<f32>
// NV-NEXT: %[[Q:.*]] = mp.div %[[C2688]], %[[AX]] : tensor<f32>, tensor<f32>
// NV-NEXT: %[[FMAX:.*]] = arith.constant dense<3.40282347E+38> : tensor<f32>
// NV-NEXT: %[[QM:.*]] = mp.minimum %[[Q]], %[[FMAX]] : tensor<f32>, tensor<f32>
// NV-NEXT: %[[NAN:.*]] = mp.compare ne, %[[QM]], %[[QM]] : tensor<f32>, tensor<f32>
// NV-NEXT: %[[QN:.*]] = mp.select %[[NAN]], %[[FMAX]], %[[QM]] : tensor<i1>, tensor<f32>, tensor<f32>
// NV-NEXT: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : tensor<f32>
// NV-NEXT: %[[ONE:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// NV-NEXT: %[[Z1:.*]] = mp.compare eq, %[[QN]], %[[ZERO]] : tensor<f32>, tensor<f32>
// NV-NEXT: %[[Q1:.*]] = mp.select %[[Z1]], %[[ONE]], %[[QN]] : tensor<i1>, tensor<f32>, tensor<f32>
// NV-NEXT: %[[Z2:.*]] = mp.compare eq, %[[AX]], %[[ZERO]] : tensor<f32>, tensor<f32>
// NV-NEXT: %[[GX:.*]] = mp.select %[[Z2]], %[[ONE]], %[[Q1]] : tensor<i1>, tensor<f32>, tensor<f32>
// NV-NEXT: %[[XQ:.*]], %[[XS:.*]] = mp.block_quantize %[[A1]] global %[[GX]] : tensor<32x64xf32> -> tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>
// 16x16 weight tiles, round to nearest.
// NV:      %[[WQ:.*]], %[[WS:.*]] = mp.block_quantize %[[W2]] global %[[GW:.*]] : tensor<64x64xf32> -> tensor<64x64xf4E2M1FN>, tensor<4x4xf8E4M3FN>
// NV-NEXT: %[[Y:.*]] = mp.scaled_matmul %[[XQ]] scales %[[XS]], %[[WQ]] scales %[[WS]] transpose_rhs acc(f32) : tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>, tensor<64x64xf4E2M1FN>, tensor<4x4xf8E4M3FN> -> tensor<32x64xf32>
// NV-NEXT: %[[P:.*]] = mp.mul %[[GX]], %[[GW]] : tensor<f32>, tensor<f32>
// NV-NEXT: %[[ONET:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// NV-NEXT: %[[INV:.*]] = mp.div %[[ONET]], %[[P]] : tensor<f32>, tensor<f32>
// NV-NEXT: mp.scale %[[Y]] by %[[INV]] : tensor<32x64xf32>
// dgrad: the gradient rounded stochastically, the weight tiles reused.
// NV:      %[[DY:.*]] = mp.relu_grad
// NV:      %[[GQ:.*]], %[[GS:.*]] = mp.block_quantize %[[DY]] global %{{.*}} random(%[[BITS]] : tensor<32x64xi32>) : tensor<32x64xf32> -> tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>
// NV-NEXT: mp.scaled_matmul %[[GQ]] scales %[[GS]], %[[WQ]] scales %[[WS]] acc(f32)
// wgrad: both operands transposed to [*, batch], times the 16x16 random
// Hadamard matrix (entries +-1/4) along the batch, then quantised in 1x16
// blocks (the gradient stochastically).
// NV:      %[[DYT:.*]] = mp.transpose %[[DY]] perm [1, 0] : tensor<32x64xf32>
// NV-NEXT: %[[H:.*]] = arith.constant dense<"0x0000803E0000803E0000803E0000803E0000803E0000803E0000803E0000803E0000803E0000803E0000803E0000803E0000803E0000803E0000803E0000803E0000803E000080BE0000803E000080BE
// NV-NEXT: %[[R:.*]] = mp.reshape %[[DYT]] : tensor<64x32xf32> to tensor<128x16xf32>
// NV-NEXT: %[[RH:.*]] = mp.matmul %[[R]], %[[H]] acc(f32) : tensor<128x16xf32>, tensor<16x16xf32> -> tensor<128x16xf32>
// NV-NEXT: %[[GT:.*]] = mp.reshape %[[RH]] : tensor<128x16xf32> to tensor<64x32xf32>
// NV-NEXT: mp.amax %[[GT]] : tensor<64x32xf32>
// NV:      %[[GTQ:.*]], %[[GTS:.*]] = mp.block_quantize %[[GT]] global %{{.*}} random(%[[BITST]] : tensor<64x32xi32>) : tensor<64x32xf32> -> tensor<64x32xf4E2M1FN>, tensor<64x2xf8E4M3FN>
// NV-NEXT: %[[AT:.*]] = mp.transpose %[[A1]] perm [1, 0] : tensor<32x64xf32>
// NV:      %[[XTQ:.*]], %[[XTS:.*]] = mp.block_quantize %{{.*}} global %{{.*}} : tensor<64x32xf32> -> tensor<64x32xf4E2M1FN>, tensor<64x2xf8E4M3FN>
// NV-NEXT: mp.scaled_matmul %[[GTQ]] scales %[[GTS]], %[[XTQ]] scales %[[XTS]] transpose_rhs acc(f32) : tensor<64x32xf4E2M1FN>, tensor<64x2xf8E4M3FN>, tensor<64x32xf4E2M1FN>, tensor<64x2xf8E4M3FN> -> tensor<64x64xf32>
// The rng state is returned (forward state: no select on a skipped step).
// The returned state: the argument's seed, the advanced offset.
// NV:      %[[NEXT:.*]] = tensor.insert %[[SEED]] into %[[S2]][%{{.*}}] : tensor<2xi64>
// NV-NEXT: return {{.*}}, %[[NEXT]] : tensor<f32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<16x64xf32>, tensor<2xi64>

// REPORT-LABEL: mp-precision-report @mlp64
// REPORT:      block-scaled tensors: 5 (6144 bytes of data, 548 bytes of scales)
// REPORT-NEXT:   f4E2M1FN 1x16 blocks of f8E4M3FN scales and an f32 tensor scale {{.*}}mp-fp8-scaling-block.mlir:[[#@LINE-112]]:9 (result of mp.relu) -> mp.scaled_matmul: 1024 + 132 bytes
// REPORT-NEXT:   f4E2M1FN 16x16 blocks of f8E4M3FN scales and an f32 tensor scale {{.*}} (argument 1) -> mp.scaled_matmul: 2048 + 20 bytes
// REPORT-NEXT:   f4E2M1FN 1x16 blocks of f8E4M3FN scales and an f32 tensor scale, stochastic rounding {{.*}} (result of mp.relu_grad) -> mp.scaled_matmul: 1024 + 132 bytes
// REPORT-NEXT:   f4E2M1FN 1x16 blocks of f8E4M3FN scales and an f32 tensor scale, stochastic rounding {{.*}} (result of mp.reshape) -> mp.scaled_matmul: 1024 + 132 bytes
// REPORT-NEXT:   f4E2M1FN 1x16 blocks of f8E4M3FN scales and an f32 tensor scale {{.*}} (result of mp.reshape) -> mp.scaled_matmul: 1024 + 132 bytes
// REPORT-NEXT: unknown ops: none

// JSON:      "block_tensors": [
// JSON-NEXT:   {
// JSON-NEXT:     "block": "1x32",
// JSON-NEXT:     "data_bytes": 2048,
// JSON-NEXT:     "format": "f8E4M3FN",
// JSON-NEXT:     "input": "result of mp.relu",
// JSON-NEXT:     "loc": "{{.*}}",
// JSON-NEXT:     "rounding": "nearest",
// JSON-NEXT:     "scale_bytes": 64,
// JSON-NEXT:     "scale_format": "f8E8M0FNU",
// JSON-NEXT:     "used_by": "mp.scaled_matmul"
// JSON-NEXT:   },

// The pipeline: bf16 operands, quantised from f32 (the masters and the f32
// relu result), E4M3 gradients.
// PIPE-LABEL: func.func @mlp64(
// PIPE:     mp.block_quantize %{{.*}} : tensor<32x64xf32> -> tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>
// PIPE:     mp.scaled_matmul {{.*}} transpose_rhs acc(f32) : tensor<32x64xf8E4M3FN>, tensor<32x2xf8E8M0FNU>, tensor<64x64xf8E4M3FN>, tensor<64x2xf8E8M0FNU> -> tensor<32x64xf32>
// PIPE-NOT: f8E5M2
// PIPE:     return

// f16 with dynamic loss scaling: the rng state is not selected on a skipped
// step, it is returned as it advanced.
// PIPENV-LABEL: func.func @mlp64(
// PIPENV-SAME: %[[RNG:[a-z0-9]+]]: tensor<2xi64> {mp.state = "rng"})
// PIPENV:      %[[SEED:.*]] = tensor.extract %[[RNG]]
// PIPENV:      %[[STREAM:.*]] = tensor.insert %{{.*}} into %[[RNG]]
// PIPENV-NEXT: %{{.*}}, %[[S1:.*]] = mp.random_bits %[[STREAM]] : tensor<32x64xi32>
// PIPENV-NEXT: %{{.*}}, %[[S2:.*]] = mp.random_bits %[[S1]] : tensor<64x32xi32>
// PIPENV:      %[[NEXT:.*]] = tensor.insert %[[SEED]] into %[[S2]]
// PIPENV-NEXT: return {{.*}}, %[[NEXT]] :

// disable-stochastic-rounding (TE's disable_stochastic_rounding): every copy
// rounds to nearest, no rng state; the Hadamard transform stays.
// NVNOSR-LABEL: func.func @mlp64(
// NVNOSR-NOT:   mp.state = "rng"
// NVNOSR-NOT:   random
// NVNOSR:       mp.matmul %{{.*}}, %{{.*}} acc(f32) : tensor<128x16xf32>, tensor<16x16xf32> -> tensor<128x16xf32>
// NVNOSR:       mp.block_quantize %{{.*}} global %{{.*}} : tensor<64x32xf32> -> tensor<64x32xf4E2M1FN>, tensor<64x2xf8E4M3FN>
// NVNOSR:       return
// NVNOSR-NOT:   tensor<2xi64>

// disable-rht (TE's disable_rht): the wgrad GEMM takes dy and x column-wise
// (16x1 blocks along the batch) as they are; dy's copies are still rounded
// stochastically, each with its own draw.
// NVNORHT-LABEL: func.func @mlp64(
// NVNORHT-SAME:  %[[RNG:[a-z0-9]+]]: tensor<2xi64> {mp.state = "rng"})
// NVNORHT:       %[[B1:.*]], %[[S1:.*]] = mp.random_bits %{{.*}} : tensor<32x64xi32>
// NVNORHT-NEXT:  %[[B2:.*]], %{{.*}} = mp.random_bits %[[S1]] : tensor<32x64xi32>
// NVNORHT-NOT:   tensor<16x16xf32>
// NVNORHT:       %[[GQ:.*]], %[[GS:.*]] = mp.block_quantize %[[DY:.*]] global %{{.*}} random(%[[B1]] : tensor<32x64xi32>) : tensor<32x64xf32> -> tensor<32x64xf4E2M1FN>, tensor<32x4xf8E4M3FN>
// NVNORHT:       %[[GCQ:.*]], %[[GCS:.*]] = mp.block_quantize %[[DY]] global %{{.*}} random(%[[B2]] : tensor<32x64xi32>) : tensor<32x64xf32> -> tensor<32x64xf4E2M1FN>, tensor<2x64xf8E4M3FN>
// NVNORHT:       %[[XCQ:.*]], %[[XCS:.*]] = mp.block_quantize %{{.*}} global %{{.*}} : tensor<32x64xf32> -> tensor<32x64xf4E2M1FN>, tensor<2x64xf8E4M3FN>
// NVNORHT-NEXT:  mp.scaled_matmul %[[GCQ]] scales %[[GCS]], %[[XCQ]] scales %[[XCS]] transpose_lhs acc(f32) : {{.*}} -> tensor<64x64xf32>
// NVNORHT-NOT:   tensor<16x16xf32>
// NVNORHT:       return

// -----

func.func @mlp128(%w1: tensor<128x128xf32> {mp.param}, %w2: tensor<128x128xf32> {mp.param},
                  %w3: tensor<16x128xf32> {mp.param}, %x: tensor<128x128xf32>, %y: tensor<128xi64>)
    -> (tensor<f32> {mp.loss}, tensor<128x128xf32> {mp.updates = 0 : i64},
        tensor<128x128xf32> {mp.updates = 1 : i64}, tensor<16x128xf32> {mp.updates = 2 : i64}) {
  %h1 = mp.linear %x, %w1 acc(f32) : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  %a1 = mp.relu %h1 : tensor<128x128xf32>
  %h2 = mp.linear %a1, %w2 acc(f32) : (tensor<128x128xf32>, tensor<128x128xf32>) -> tensor<128x128xf32>
  %a2 = mp.relu %h2 : tensor<128x128xf32>
  %l = mp.linear %a2, %w3 acc(f32) : (tensor<128x128xf32>, tensor<16x128xf32>) -> tensor<128x16xf32>
  %loss = mp.cross_entropy %l, %y : tensor<128x16xf32>, tensor<128xi64>
  %g1, %g2, %g3 = mp.grad %loss wrt %w1, %w2, %w3
      : tensor<f32>, tensor<128x128xf32>, tensor<128x128xf32>, tensor<16x128xf32>
  %n1 = mp.sgd %w1, %g1 {lr = 0.1 : f64} : tensor<128x128xf32>
  %n2 = mp.sgd %w2, %g2 {lr = 0.1 : f64} : tensor<128x128xf32>
  %n3 = mp.sgd %w3, %g3 {lr = 0.1 : f64} : tensor<16x128xf32>
  return %loss, %n1, %n2, %n3 : tensor<f32>, tensor<128x128xf32>, tensor<128x128xf32>, tensor<16x128xf32>
}

// FP8 block scaling: 1x128 input and gradient blocks, 128x128 weight tiles,
// f32 scales, E4M3 everywhere.
// BLOCK-LABEL: func.func @mlp128(
// BLOCK-SAME: %{{[a-z0-9]+}}: tensor<128x128xf32> {mp.param}, %[[W2:[a-z0-9]+]]: tensor<128x128xf32> {mp.param}
// BLOCK:      %[[A1:.*]] = mp.relu
// BLOCK-NEXT: %[[XQ:.*]], %[[XS:.*]] = mp.block_quantize %[[A1]] : tensor<128x128xf32> -> tensor<128x128xf8E4M3FN>, tensor<128x1xf32>
// BLOCK-NEXT: %[[WQ:.*]], %[[WS:.*]] = mp.block_quantize %[[W2]] : tensor<128x128xf32> -> tensor<128x128xf8E4M3FN>, tensor<1x1xf32>
// BLOCK-NEXT: mp.scaled_matmul %[[XQ]] scales %[[XS]], %[[WQ]] scales %[[WS]] transpose_rhs acc(f32) : tensor<128x128xf8E4M3FN>, tensor<128x1xf32>, tensor<128x128xf8E4M3FN>, tensor<1x1xf32> -> tensor<128x128xf32>
// BLOCK:      %[[DY:.*]] = mp.relu_grad
// BLOCK-NEXT: %[[GQ:.*]], %[[GS:.*]] = mp.block_quantize %[[DY]] : tensor<128x128xf32> -> tensor<128x128xf8E4M3FN>, tensor<128x1xf32>
// BLOCK-NEXT: mp.scaled_matmul %[[GQ]] scales %[[GS]], %[[WQ]] scales %[[WS]] acc(f32)
// BLOCK-NEXT: %[[GCQ:.*]], %[[GCS:.*]] = mp.block_quantize %[[DY]] : tensor<128x128xf32> -> tensor<128x128xf8E4M3FN>, tensor<1x128xf32>
// BLOCK-NEXT: %[[XCQ:.*]], %[[XCS:.*]] = mp.block_quantize %[[A1]] : tensor<128x128xf32> -> tensor<128x128xf8E4M3FN>, tensor<1x128xf32>
// BLOCK-NEXT: mp.scaled_matmul %[[GCQ]] scales %[[GCS]], %[[XCQ]] scales %[[XCS]] transpose_lhs acc(f32)

// weight-blocks=1d: the weight row-wise for fprop, column-wise for dgrad;
// hybrid: E5M2 gradients.
// BLOCK1D-LABEL: func.func @mlp128(
// BLOCK1D:      mp.block_quantize %arg1 : tensor<128x128xf32> -> tensor<128x128xf8E4M3FN>, tensor<128x1xf32>
// BLOCK1D:      mp.block_quantize %{{.*}} : tensor<128x128xf32> -> tensor<128x128xf8E5M2>, tensor<128x1xf32>
// BLOCK1D-NEXT: mp.block_quantize %arg1 : tensor<128x128xf32> -> tensor<128x128xf8E4M3FN>, tensor<1x128xf32>
