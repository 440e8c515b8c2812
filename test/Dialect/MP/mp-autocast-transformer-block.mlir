// RUN: mp-opt %mp_src_root/docs/examples/transformer_block_train_step.mlir --mp-autocast | FileCheck %s
// RUN: mp-opt %mp_src_root/docs/examples/transformer_block_train_step.mlir --mp-autocast | grep "mp.cast" | count 15
// RUN: mp-opt %mp_src_root/docs/examples/transformer_block_train_step.mlir --mp-autocast -o %t
// RUN: mp-opt %t --mp-autocast | diff %t -

// The example transformer block (docs/examples/transformer_block_train_step.mlir):
// 15 casts. 11 weight and bias casts at entry (each parameter of a linear
// with an f16 result, once); the layer-norm output is cast once for the
// three q/k/v projections; q/k/v stay f16 through reshape and transpose into
// the attention batch_matmuls; the probabilities are narrowed for p·v; gelu
// stays f16 between the MLP linears; the final hidden state is narrowed for
// the head. The results only consumed in f32 come out of their matmuls as
// f32 accumulators, without a round trip through f16: the scores (scaled by
// an f32 constant, promote, then softmax, deny), the attention and MLP
// outputs (residual adds in f32, promote; their biases bo and b2 stay f32)
// and the logits (through the reshape, into the cross entropy, deny).
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME: %[[TOK:[^:]*]]: tensor<512x64xf32> {mp.param}, %[[LN1W:[^:]*]]: tensor<64xf32> {mp.param}, %[[LN1B:[^:]*]]: tensor<64xf32> {mp.param},
// CHECK-SAME: %[[WQ:[^:]*]]: tensor<64x64xf32> {mp.param}, %[[BQ:[^:]*]]: tensor<64xf32> {mp.param}, %[[WK:[^:]*]]: tensor<64x64xf32> {mp.param}, %[[BK:[^:]*]]: tensor<64xf32> {mp.param},
// CHECK-SAME: %[[WV:[^:]*]]: tensor<64x64xf32> {mp.param}, %[[BV:[^:]*]]: tensor<64xf32> {mp.param}, %[[WO:[^:]*]]: tensor<64x64xf32> {mp.param}, %[[BO:[^:]*]]: tensor<64xf32> {mp.param},
// CHECK-SAME: %[[LN2W:[^:]*]]: tensor<64xf32> {mp.param}, %[[LN2B:[^:]*]]: tensor<64xf32> {mp.param}, %[[W1:[^:]*]]: tensor<256x64xf32> {mp.param}, %[[B1:[^:]*]]: tensor<256xf32> {mp.param},
// CHECK-SAME: %[[W2:[^:]*]]: tensor<64x256xf32> {mp.param}, %[[B2:[^:]*]]: tensor<64xf32> {mp.param}, %[[WH:[^:]*]]: tensor<512x64xf32> {mp.param},
// CHECK-SAME: %[[STEP:[^:]*]]: tensor<i64> {mp.state = "step"}, %[[IDS:[^:]*]]: tensor<2x16xi64>, %[[LABELS:[^:]*]]: tensor<2x16xi64>)
// CHECK-SAME: -> (tensor<f32> {mp.loss}, tensor<512x64xf32> {mp.updates = 0 : i64},
// CHECK-NEXT: %[[WQH:.*]] = mp.cast %[[WQ]] : tensor<64x64xf32> to tensor<64x64xf16>
// CHECK-NEXT: %[[BQH:.*]] = mp.cast %[[BQ]] : tensor<64xf32> to tensor<64xf16>
// CHECK-NEXT: %[[WKH:.*]] = mp.cast %[[WK]] : tensor<64x64xf32> to tensor<64x64xf16>
// CHECK-NEXT: %[[BKH:.*]] = mp.cast %[[BK]] : tensor<64xf32> to tensor<64xf16>
// CHECK-NEXT: %[[WVH:.*]] = mp.cast %[[WV]] : tensor<64x64xf32> to tensor<64x64xf16>
// CHECK-NEXT: %[[BVH:.*]] = mp.cast %[[BV]] : tensor<64xf32> to tensor<64xf16>
// CHECK-NEXT: %[[WOH:.*]] = mp.cast %[[WO]] : tensor<64x64xf32> to tensor<64x64xf16>
// CHECK-NEXT: %[[W1H:.*]] = mp.cast %[[W1]] : tensor<256x64xf32> to tensor<256x64xf16>
// CHECK-NEXT: %[[B1H:.*]] = mp.cast %[[B1]] : tensor<256xf32> to tensor<256xf16>
// CHECK-NEXT: %[[W2H:.*]] = mp.cast %[[W2]] : tensor<64x256xf32> to tensor<64x256xf16>
// CHECK-NEXT: %[[WHH:.*]] = mp.cast %[[WH]] : tensor<512x64xf32> to tensor<512x64xf16>
// CHECK-NEXT: %[[X0:.*]] = mp.embedding %[[TOK]][%[[IDS]]] : tensor<512x64xf32>, tensor<2x16xi64>
// CHECK-NEXT: %[[H:.*]] = mp.layer_norm %[[X0]] weight %[[LN1W]] bias %[[LN1B]] axis 2 eps 1.000000e-05 : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
// CHECK-NEXT: %[[HH:.*]] = mp.cast %[[H]] : tensor<2x16x64xf32> to tensor<2x16x64xf16>
// CHECK-NEXT: %[[Q:.*]] = mp.linear %[[HH]], %[[WQH]], %[[BQH]] acc(f32) : (tensor<2x16x64xf16>, tensor<64x64xf16>, tensor<64xf16>) -> tensor<2x16x64xf16>
// CHECK-NEXT: %[[K:.*]] = mp.linear %[[HH]], %[[WKH]], %[[BKH]] acc(f32) : (tensor<2x16x64xf16>, tensor<64x64xf16>, tensor<64xf16>) -> tensor<2x16x64xf16>
// CHECK-NEXT: %[[V:.*]] = mp.linear %[[HH]], %[[WVH]], %[[BVH]] acc(f32) : (tensor<2x16x64xf16>, tensor<64x64xf16>, tensor<64xf16>) -> tensor<2x16x64xf16>
// CHECK-NEXT: %[[QS:.*]] = mp.reshape %[[Q]] : tensor<2x16x64xf16> to tensor<2x16x4x16xf16>
// CHECK-NEXT: %[[QT:.*]] = mp.transpose %[[QS]] perm [0, 2, 1, 3] : tensor<2x16x4x16xf16>
// CHECK-NEXT: %[[KS:.*]] = mp.reshape %[[K]] : tensor<2x16x64xf16> to tensor<2x16x4x16xf16>
// CHECK-NEXT: %[[KT:.*]] = mp.transpose %[[KS]] perm [0, 2, 1, 3] : tensor<2x16x4x16xf16>
// CHECK-NEXT: %[[VS:.*]] = mp.reshape %[[V]] : tensor<2x16x64xf16> to tensor<2x16x4x16xf16>
// CHECK-NEXT: %[[VT:.*]] = mp.transpose %[[VS]] perm [0, 2, 1, 3] : tensor<2x16x4x16xf16>
// CHECK-NEXT: %[[S:.*]] = mp.batch_matmul %[[QT]], %[[KT]] transpose_rhs acc(f32) : tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16> -> tensor<2x4x16x16xf32>
// CHECK-NEXT: %[[SCALE:.*]] = arith.constant dense<2.500000e-01> : tensor<f32>
// CHECK-NEXT: %[[SS:.*]] = mp.mul %[[S]], %[[SCALE]] : tensor<2x4x16x16xf32>, tensor<f32>
// CHECK-NEXT: %[[P:.*]] = mp.softmax %[[SS]] dim 3 : tensor<2x4x16x16xf32>
// CHECK-NEXT: %[[PH:.*]] = mp.cast %[[P]] : tensor<2x4x16x16xf32> to tensor<2x4x16x16xf16>
// CHECK-NEXT: %[[CTX:.*]] = mp.batch_matmul %[[PH]], %[[VT]] acc(f32) : tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16> -> tensor<2x4x16x16xf16>
// CHECK-NEXT: %[[CT:.*]] = mp.transpose %[[CTX]] perm [0, 2, 1, 3] : tensor<2x4x16x16xf16>
// CHECK-NEXT: %[[CR:.*]] = mp.reshape %[[CT]] : tensor<2x16x4x16xf16> to tensor<2x16x64xf16>
// CHECK-NEXT: %[[ATTN:.*]] = mp.linear %[[CR]], %[[WOH]], %[[BO]] acc(f32) : (tensor<2x16x64xf16>, tensor<64x64xf16>, tensor<64xf32>) -> tensor<2x16x64xf32>
// CHECK-NEXT: %[[X1:.*]] = mp.add %[[X0]], %[[ATTN]] : tensor<2x16x64xf32>, tensor<2x16x64xf32>
// CHECK-NEXT: %[[H2:.*]] = mp.layer_norm %[[X1]] weight %[[LN2W]] bias %[[LN2B]] axis 2 eps 1.000000e-05 : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
// CHECK-NEXT: %[[H2H:.*]] = mp.cast %[[H2]] : tensor<2x16x64xf32> to tensor<2x16x64xf16>
// CHECK-NEXT: %[[UP:.*]] = mp.linear %[[H2H]], %[[W1H]], %[[B1H]] acc(f32) : (tensor<2x16x64xf16>, tensor<256x64xf16>, tensor<256xf16>) -> tensor<2x16x256xf16>
// CHECK-NEXT: %[[ACT:.*]] = mp.gelu %[[UP]] approximate tanh : tensor<2x16x256xf16>
// CHECK-NEXT: %[[DOWN:.*]] = mp.linear %[[ACT]], %[[W2H]], %[[B2]] acc(f32) : (tensor<2x16x256xf16>, tensor<64x256xf16>, tensor<64xf32>) -> tensor<2x16x64xf32>
// CHECK-NEXT: %[[X2:.*]] = mp.add %[[X1]], %[[DOWN]] : tensor<2x16x64xf32>, tensor<2x16x64xf32>
// CHECK-NEXT: %[[X2H:.*]] = mp.cast %[[X2]] : tensor<2x16x64xf32> to tensor<2x16x64xf16>
// CHECK-NEXT: %[[L3:.*]] = mp.linear %[[X2H]], %[[WHH]] acc(f32) : (tensor<2x16x64xf16>, tensor<512x64xf16>) -> tensor<2x16x512xf32>
// CHECK-NEXT: %[[L:.*]] = mp.reshape %[[L3]] : tensor<2x16x512xf32> to tensor<32x512xf32>
// CHECK-NEXT: %[[T:.*]] = mp.reshape %[[LABELS]] : tensor<2x16xi64> to tensor<32xi64>
// CHECK-NEXT: %[[LOSS:.*]] = mp.cross_entropy %[[L]], %[[T]] : tensor<32x512xf32>, tensor<32xi64>
// CHECK-NEXT: %[[G:.*]]:18 = mp.grad %[[LOSS]] wrt %[[TOK]], %[[LN1W]], %[[LN1B]], %[[WQ]], %[[BQ]], %[[WK]], %[[BK]], %[[WV]], %[[BV]], %[[WO]], %[[BO]], %[[LN2W]], %[[LN2B]], %[[W1]], %[[B1]], %[[W2]], %[[B2]], %[[WH]] : tensor<f32>, tensor<512x64xf32>,
// CHECK-NEXT: %[[ONE:.*]] = arith.constant dense<1> : tensor<i64>
// CHECK-NEXT: %[[STEP1:.*]] = arith.addi %[[STEP]], %[[ONE]] : tensor<i64>
// CHECK-COUNT-18: mp.adamw %{{[^,]*}}, %[[G]]#{{[0-9]+}}, %{{.*}} : tensor<{{[0-9x]+}}xf32>, tensor<i64>
// CHECK-NEXT: return %[[LOSS]],
