// mp-autodiff on the two example train steps of docs/examples: the exact
// backward of the MLP, the number of each op of the transformer block's
// backward, which backward op produces each parameter's gradient, and that no
// mp.grad remains (the op tables list every op).
//
// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir -mp-autodiff | FileCheck %s --check-prefix=MLP
// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir -mp-autodiff --print-op-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=MLP-STATS
// RUN: mp-opt %mp_src_root/docs/examples/transformer_block_train_step.mlir -mp-autodiff | FileCheck %s --check-prefix=TB
// RUN: mp-opt %mp_src_root/docs/examples/transformer_block_train_step.mlir -mp-autodiff --print-op-stats -o /dev/null 2>&1 | FileCheck %s --check-prefix=TB-STATS
// After mp-autocast the backward runs in f16 with f32 accumulation and the
// gradients of the f32 parameters are f32:
// RUN: mp-opt %mp_src_root/docs/examples/mlp_train_step.mlir -mp-autocast -mp-autodiff | FileCheck %s --check-prefix=AMP

// The MLP, h = relu(x·w1ᵀ + b1), logits = h·w2ᵀ + b2, cross entropy: no
// backward is built for the batch data x (arg 13).
// MLP-LABEL: func.func @train_step
// MLP:      %[[H0:.*]] = mp.linear %arg13, %arg0, %arg1 acc(f32)
// MLP-NEXT: %[[H:.*]] = mp.relu %[[H0]] : tensor<64x256xf32>
// MLP-NEXT: %[[LOGITS:.*]] = mp.linear %[[H]], %arg2, %arg3 acc(f32)
// MLP-NEXT: %[[LOSS:.*]] = mp.cross_entropy %[[LOGITS]], %arg14
// MLP-NEXT: %[[SEED:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// MLP-NEXT: %[[DLOGITS:.*]] = mp.cross_entropy_grad %[[SEED]], %[[LOGITS]], %arg14 : (tensor<f32>, tensor<64x10xf32>, tensor<64xi64>) -> tensor<64x10xf32>
// MLP-NEXT: %[[DH:.*]] = mp.matmul %[[DLOGITS]], %arg2 acc(f32) : tensor<64x10xf32>, tensor<10x256xf32> -> tensor<64x256xf32>
// MLP-NEXT: %[[DW2:.*]] = mp.matmul %[[DLOGITS]], %[[H]] transpose_lhs acc(f32) : tensor<64x10xf32>, tensor<64x256xf32> -> tensor<10x256xf32>
// MLP-NEXT: %[[DB2:.*]] = mp.reduce_sum %[[DLOGITS]] dims [0] : tensor<64x10xf32>
// MLP-NEXT: %[[DH0:.*]] = mp.relu_grad %[[DH]], %[[H0]] : tensor<64x256xf32>
// MLP-NEXT: %[[DW1:.*]] = mp.matmul %[[DH0]], %arg13 transpose_lhs acc(f32) : tensor<64x256xf32>, tensor<64x784xf32> -> tensor<256x784xf32>
// MLP-NEXT: %[[DB1:.*]] = mp.reduce_sum %[[DH0]] dims [0] : tensor<64x256xf32>
// MLP-NEXT: arith.constant dense<1> : tensor<i64>
// MLP-NEXT: %[[STEP:.*]] = arith.addi
// MLP-NEXT: mp.adam %arg0, %[[DW1]], %arg4, %arg8, %[[STEP]]{{.*}} : tensor<256x784xf32>, tensor<i64>
// MLP-NEXT: mp.adam %arg1, %[[DB1]], %arg5, %arg9, %[[STEP]]{{.*}} : tensor<256xf32>, tensor<i64>
// MLP-NEXT: mp.adam %arg2, %[[DW2]], %arg6, %arg10, %[[STEP]]{{.*}} : tensor<10x256xf32>, tensor<i64>
// MLP-NEXT: mp.adam %arg3, %[[DB2]], %arg7, %arg11, %[[STEP]]{{.*}} : tensor<10xf32>, tensor<i64>
// MLP-NEXT: return %[[LOSS]],

// MLP-STATS:      Operations encountered:
// MLP-STATS-NEXT: -----------------------
// MLP-STATS-NEXT: arith.addi               , 1
// MLP-STATS-NEXT: arith.constant           , 2
// MLP-STATS-NEXT: builtin.module           , 1
// MLP-STATS-NEXT: func.func                , 1
// MLP-STATS-NEXT: func.return              , 1
// MLP-STATS-NEXT: mp.adam                  , 4
// MLP-STATS-NEXT: mp.cross_entropy         , 1
// MLP-STATS-NEXT: mp.cross_entropy_grad    , 1
// MLP-STATS-NEXT: mp.linear                , 2
// MLP-STATS-NEXT: mp.matmul                , 3
// MLP-STATS-NEXT: mp.reduce_sum            , 2
// MLP-STATS-NEXT: mp.relu                  , 1
// MLP-STATS-NEXT: mp.relu_grad             , 1
// MLP-STATS-NOT:  {{.}}

// The transformer block: the backward ops in the order they are built (reverse
// program order) and the gradient each parameter's mp.adamw receives.
// TB-LABEL: func.func @train_step
// TB:      %[[SEED:.*]] = arith.constant dense<1.000000e+00> : tensor<f32>
// TB-NEXT: %[[DLOGITS:.*]] = mp.cross_entropy_grad %[[SEED]], {{.*}} -> tensor<32x512xf32>
// LM head (no bias).
// TB:      %[[DHEAD:.*]] = mp.matmul {{.*}} transpose_lhs acc(f32) : tensor<32x512xf32>, tensor<32x64xf32> -> tensor<512x64xf32>
// MLP down and up projections.
// TB:      %[[DFC2:.*]] = mp.matmul {{.*}} transpose_lhs acc(f32) : tensor<32x64xf32>, tensor<32x256xf32> -> tensor<64x256xf32>
// TB-NEXT: %[[DBFC2:.*]] = mp.reduce_sum {{.*}} dims [0, 1] : tensor<2x16x64xf32>
// TB-NEXT: %[[DUP:.*]] = mp.gelu_grad {{.*}} approximate tanh : tensor<2x16x256xf32>
// TB:      %[[DFC1:.*]] = mp.matmul {{.*}} transpose_lhs acc(f32) : tensor<32x256xf32>, tensor<32x64xf32> -> tensor<256x64xf32>
// TB-NEXT: %[[DBFC1:.*]] = mp.reduce_sum %[[DUP]] dims [0, 1] : tensor<2x16x256xf32>
// TB-NEXT: %[[DH2:.*]], %[[DLN2W:.*]], %[[DLN2B:.*]] = mp.layer_norm_grad {{.*}} weight %arg11 axis 2
// The residual: x1's adjoint is the sum of the residual path and the norm's.
// TB-NEXT: %[[DX1:.*]] = mp.add %{{.*}}, %[[DH2]] : tensor<2x16x64xf32>, tensor<2x16x64xf32>
// Attention output projection, then the attention itself.
// TB:      %[[DWO:.*]] = mp.matmul {{.*}} transpose_lhs acc(f32) : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
// TB-NEXT: %[[DBO:.*]] = mp.reduce_sum %[[DX1]] dims [0, 1] : tensor<2x16x64xf32>
// TB:      mp.batch_matmul {{.*}} transpose_rhs acc(f32)
// TB-NEXT: mp.batch_matmul {{.*}} transpose_lhs acc(f32)
// TB-NEXT: %[[DSCALED:.*]] = mp.softmax_grad {{.*}} dim 3 : tensor<2x4x16x16xf32>
// TB-NEXT: %[[DSCORES:.*]] = mp.mul %[[DSCALED]], %{{.*}} : tensor<2x4x16x16xf32>, tensor<f32>
// TB-NEXT: mp.batch_matmul %[[DSCORES]], {{.*}} acc(f32)
// TB-NEXT: mp.batch_matmul %[[DSCORES]], {{.*}} transpose_lhs acc(f32)
// Value, key and query projections (reverse order); h's three adjoints add up.
// TB:      %[[DWV:.*]] = mp.matmul {{.*}} transpose_lhs acc(f32) : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
// TB-NEXT: %[[DBV:.*]] = mp.reduce_sum
// TB:      %[[DWK:.*]] = mp.matmul {{.*}} transpose_lhs acc(f32) : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
// TB-NEXT: %[[DBK:.*]] = mp.reduce_sum
// TB-NEXT: mp.add
// TB:      %[[DWQ:.*]] = mp.matmul {{.*}} transpose_lhs acc(f32) : tensor<32x64xf32>, tensor<32x64xf32> -> tensor<64x64xf32>
// TB-NEXT: %[[DBQ:.*]] = mp.reduce_sum
// TB-NEXT: %[[DH:.*]] = mp.add
// TB-NEXT: %[[DX0N:.*]], %[[DLN1W:.*]], %[[DLN1B:.*]] = mp.layer_norm_grad %[[DH]], {{.*}} weight %arg1 axis 2
// TB-NEXT: %[[DX0:.*]] = mp.add %[[DX1]], %[[DX0N]] : tensor<2x16x64xf32>, tensor<2x16x64xf32>
// TB-NEXT: %[[DTOK:.*]] = mp.embedding_grad %[[DX0]], %arg55 : (tensor<2x16x64xf32>, tensor<2x16xi64>) -> tensor<512x64xf32>
// TB-NEXT: arith.constant dense<1> : tensor<i64>
// TB-NEXT: arith.addi
// TB-NEXT: mp.adamw %arg0, %[[DTOK]], %arg18, %arg36,
// TB-NEXT: mp.adamw %arg1, %[[DLN1W]], %arg19, %arg37,
// TB-NEXT: mp.adamw %arg2, %[[DLN1B]], %arg20, %arg38,
// TB-NEXT: mp.adamw %arg3, %[[DWQ]], %arg21, %arg39,
// TB-NEXT: mp.adamw %arg4, %[[DBQ]], %arg22, %arg40,
// TB-NEXT: mp.adamw %arg5, %[[DWK]], %arg23, %arg41,
// TB-NEXT: mp.adamw %arg6, %[[DBK]], %arg24, %arg42,
// TB-NEXT: mp.adamw %arg7, %[[DWV]], %arg25, %arg43,
// TB-NEXT: mp.adamw %arg8, %[[DBV]], %arg26, %arg44,
// TB-NEXT: mp.adamw %arg9, %[[DWO]], %arg27, %arg45,
// TB-NEXT: mp.adamw %arg10, %[[DBO]], %arg28, %arg46,
// TB-NEXT: mp.adamw %arg11, %[[DLN2W]], %arg29, %arg47,
// TB-NEXT: mp.adamw %arg12, %[[DLN2B]], %arg30, %arg48,
// TB-NEXT: mp.adamw %arg13, %[[DFC1]], %arg31, %arg49,
// TB-NEXT: mp.adamw %arg14, %[[DBFC1]], %arg32, %arg50,
// TB-NEXT: mp.adamw %arg15, %[[DFC2]], %arg33, %arg51,
// TB-NEXT: mp.adamw %arg16, %[[DBFC2]], %arg34, %arg52,
// TB-NEXT: mp.adamw %arg17, %[[DHEAD]], %arg35, %arg53,

// 7 linear layers give 14 backward matmuls (dW, and dx since every input
// depends on a parameter) and 6 bias reductions; 2 forward + 4 backward batch
// matmuls; 4 + 4 transposes; 2 forward adds + 4 accumulations.
// TB-STATS:      Operations encountered:
// TB-STATS-NEXT: -----------------------
// TB-STATS-NEXT: arith.addi               , 1
// TB-STATS-NEXT: arith.constant           , 3
// TB-STATS-NEXT: builtin.module           , 1
// TB-STATS-NEXT: func.func                , 1
// TB-STATS-NEXT: func.return              , 1
// TB-STATS-NEXT: mp.adamw                 , 18
// TB-STATS-NEXT: mp.add                   , 6
// TB-STATS-NEXT: mp.batch_matmul          , 6
// TB-STATS-NEXT: mp.cross_entropy         , 1
// TB-STATS-NEXT: mp.cross_entropy_grad    , 1
// TB-STATS-NEXT: mp.embedding             , 1
// TB-STATS-NEXT: mp.embedding_grad        , 1
// TB-STATS-NEXT: mp.gelu                  , 1
// TB-STATS-NEXT: mp.gelu_grad             , 1
// TB-STATS-NEXT: mp.layer_norm            , 2
// TB-STATS-NEXT: mp.layer_norm_grad       , 2
// TB-STATS-NEXT: mp.linear                , 7
// TB-STATS-NEXT: mp.matmul                , 14
// TB-STATS-NEXT: mp.mul                   , 2
// TB-STATS-NEXT: mp.reduce_sum            , 6
// TB-STATS-NEXT: mp.reshape               , 32
// TB-STATS-NEXT: mp.softmax               , 1
// TB-STATS-NEXT: mp.softmax_grad          , 1
// TB-STATS-NEXT: mp.transpose             , 8
// TB-STATS-NOT:  {{.}}

// AMP-LABEL: func.func @train_step
// AMP-NOT:   mp.grad
// AMP:       mp.cross_entropy_grad {{.*}} -> tensor<64x10xf32>
// AMP:       mp.matmul {{.*}} acc(f32) : tensor<64x10xf16>, tensor<10x256xf16> -> tensor<64x256xf16>
// AMP-NEXT:  mp.matmul {{.*}} transpose_lhs acc(f32) : tensor<64x10xf16>, tensor<64x256xf16> -> tensor<10x256xf16>
// AMP:       mp.relu_grad {{.*}} : tensor<64x256xf16>
// AMP-NEXT:  mp.matmul {{.*}} transpose_lhs acc(f32) : tensor<64x256xf16>, tensor<64x784xf16> -> tensor<256x784xf16>
// AMP:       %[[DW1:.*]] = mp.cast {{.*}} : tensor<256x784xf16> to tensor<256x784xf32>
// AMP:       mp.adam %arg0, %[[DW1]], %arg4, %arg8
// AMP-NOT:   mp.grad
