// RUN: mp-opt %mp_src_root/docs/examples/transformer_block_train_step.mlir | FileCheck %s
// RUN: mp-opt %mp_src_root/docs/examples/transformer_block_train_step.mlir | mp-opt | FileCheck %s
// RUN: mp-opt %mp_src_root/docs/examples/transformer_block_train_step.mlir | FileCheck %s --check-prefix=COUNT
// CHECK-LABEL: func.func @train_step(
// CHECK-SAME:   %arg0: tensor<512x64xf32> {mp.param},
// CHECK-SAME:   %arg1: tensor<64xf32> {mp.param},
// CHECK-SAME:   %arg2: tensor<64xf32> {mp.param},
// CHECK-SAME:   %arg3: tensor<64x64xf32> {mp.param},
// CHECK-SAME:   %arg4: tensor<64xf32> {mp.param},
// CHECK-SAME:   %arg5: tensor<64x64xf32> {mp.param},
// CHECK-SAME:   %arg6: tensor<64xf32> {mp.param},
// CHECK-SAME:   %arg7: tensor<64x64xf32> {mp.param},
// CHECK-SAME:   %arg8: tensor<64xf32> {mp.param},
// CHECK-SAME:   %arg9: tensor<64x64xf32> {mp.param},
// CHECK-SAME:   %arg10: tensor<64xf32> {mp.param},
// CHECK-SAME:   %arg11: tensor<64xf32> {mp.param},
// CHECK-SAME:   %arg12: tensor<64xf32> {mp.param},
// CHECK-SAME:   %arg13: tensor<256x64xf32> {mp.param},
// CHECK-SAME:   %arg14: tensor<256xf32> {mp.param},
// CHECK-SAME:   %arg15: tensor<64x256xf32> {mp.param},
// CHECK-SAME:   %arg16: tensor<64xf32> {mp.param},
// CHECK-SAME:   %arg17: tensor<512x64xf32> {mp.param},
// CHECK-SAME:   %arg18: tensor<512x64xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg19: tensor<64xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg20: tensor<64xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg21: tensor<64x64xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg22: tensor<64xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg23: tensor<64x64xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg24: tensor<64xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg25: tensor<64x64xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg26: tensor<64xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg27: tensor<64x64xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg28: tensor<64xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg29: tensor<64xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg30: tensor<64xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg31: tensor<256x64xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg32: tensor<256xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg33: tensor<64x256xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg34: tensor<64xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg35: tensor<512x64xf32> {mp.state = "adam.exp_avg"},
// CHECK-SAME:   %arg36: tensor<512x64xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg37: tensor<64xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg38: tensor<64xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg39: tensor<64x64xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg40: tensor<64xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg41: tensor<64x64xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg42: tensor<64xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg43: tensor<64x64xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg44: tensor<64xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg45: tensor<64x64xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg46: tensor<64xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg47: tensor<64xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg48: tensor<64xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg49: tensor<256x64xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg50: tensor<256xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg51: tensor<64x256xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg52: tensor<64xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg53: tensor<512x64xf32> {mp.state = "adam.exp_avg_sq"},
// CHECK-SAME:   %arg54: tensor<i64> {mp.state = "step"},
// CHECK-SAME:   %arg55: tensor<2x16xi64>,
// CHECK-SAME:   %arg56: tensor<2x16xi64>)
// CHECK-SAME:   -> (tensor<f32> {mp.loss},
// CHECK-SAME:   tensor<512x64xf32> {mp.updates = 0 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 1 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 2 : i64},
// CHECK-SAME:   tensor<64x64xf32> {mp.updates = 3 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 4 : i64},
// CHECK-SAME:   tensor<64x64xf32> {mp.updates = 5 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 6 : i64},
// CHECK-SAME:   tensor<64x64xf32> {mp.updates = 7 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 8 : i64},
// CHECK-SAME:   tensor<64x64xf32> {mp.updates = 9 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 10 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 11 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 12 : i64},
// CHECK-SAME:   tensor<256x64xf32> {mp.updates = 13 : i64},
// CHECK-SAME:   tensor<256xf32> {mp.updates = 14 : i64},
// CHECK-SAME:   tensor<64x256xf32> {mp.updates = 15 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 16 : i64},
// CHECK-SAME:   tensor<512x64xf32> {mp.updates = 17 : i64},
// CHECK-SAME:   tensor<512x64xf32> {mp.updates = 18 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 19 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 20 : i64},
// CHECK-SAME:   tensor<64x64xf32> {mp.updates = 21 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 22 : i64},
// CHECK-SAME:   tensor<64x64xf32> {mp.updates = 23 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 24 : i64},
// CHECK-SAME:   tensor<64x64xf32> {mp.updates = 25 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 26 : i64},
// CHECK-SAME:   tensor<64x64xf32> {mp.updates = 27 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 28 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 29 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 30 : i64},
// CHECK-SAME:   tensor<256x64xf32> {mp.updates = 31 : i64},
// CHECK-SAME:   tensor<256xf32> {mp.updates = 32 : i64},
// CHECK-SAME:   tensor<64x256xf32> {mp.updates = 33 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 34 : i64},
// CHECK-SAME:   tensor<512x64xf32> {mp.updates = 35 : i64},
// CHECK-SAME:   tensor<512x64xf32> {mp.updates = 36 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 37 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 38 : i64},
// CHECK-SAME:   tensor<64x64xf32> {mp.updates = 39 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 40 : i64},
// CHECK-SAME:   tensor<64x64xf32> {mp.updates = 41 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 42 : i64},
// CHECK-SAME:   tensor<64x64xf32> {mp.updates = 43 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 44 : i64},
// CHECK-SAME:   tensor<64x64xf32> {mp.updates = 45 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 46 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 47 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 48 : i64},
// CHECK-SAME:   tensor<256x64xf32> {mp.updates = 49 : i64},
// CHECK-SAME:   tensor<256xf32> {mp.updates = 50 : i64},
// CHECK-SAME:   tensor<64x256xf32> {mp.updates = 51 : i64},
// CHECK-SAME:   tensor<64xf32> {mp.updates = 52 : i64},
// CHECK-SAME:   tensor<512x64xf32> {mp.updates = 53 : i64},
// CHECK-SAME:   tensor<i64> {mp.updates = 54 : i64}) {
// CHECK:        %[[X0:[a-z0-9_]+]] = mp.embedding %arg0[%arg55] : tensor<512x64xf32>, tensor<2x16xi64>
// CHECK:        %[[LN1:[a-z0-9_]+]] = mp.layer_norm %[[X0]] weight %arg1 bias %arg2 axis 2 eps 1.000000e-05 : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
// CHECK:        %[[Q:[a-z0-9_]+]] = mp.linear %[[LN1]], %arg3, %arg4 acc(f32) : (tensor<2x16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
// CHECK:        %[[K:[a-z0-9_]+]] = mp.linear %[[LN1]], %arg5, %arg6 acc(f32) : (tensor<2x16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
// CHECK:        %[[V:[a-z0-9_]+]] = mp.linear %[[LN1]], %arg7, %arg8 acc(f32) : (tensor<2x16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
// CHECK:        %[[QS:[a-z0-9_]+]] = mp.reshape %[[Q]] : tensor<2x16x64xf32> to tensor<2x16x4x16xf32>
// CHECK:        %[[QH:[a-z0-9_]+]] = mp.transpose %[[QS]] perm [0, 2, 1, 3] : tensor<2x16x4x16xf32>
// CHECK:        %[[KS:[a-z0-9_]+]] = mp.reshape %[[K]] : tensor<2x16x64xf32> to tensor<2x16x4x16xf32>
// CHECK:        %[[KH:[a-z0-9_]+]] = mp.transpose %[[KS]] perm [0, 2, 1, 3] : tensor<2x16x4x16xf32>
// CHECK:        %[[VS:[a-z0-9_]+]] = mp.reshape %[[V]] : tensor<2x16x64xf32> to tensor<2x16x4x16xf32>
// CHECK:        %[[VH:[a-z0-9_]+]] = mp.transpose %[[VS]] perm [0, 2, 1, 3] : tensor<2x16x4x16xf32>
// CHECK:        %[[SC:[a-z0-9_]+]] = mp.batch_matmul %[[QH]], %[[KH]] transpose_rhs acc(f32) : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32> -> tensor<2x4x16x16xf32>
// CHECK:        %[[SCALE:[a-z0-9_]+]] = arith.constant dense<2.500000e-01> : tensor<f32>
// CHECK:        %[[SCS:[a-z0-9_]+]] = mp.mul %[[SC]], %[[SCALE]] : tensor<2x4x16x16xf32>, tensor<f32>
// CHECK:        %[[P:[a-z0-9_]+]] = mp.softmax %[[SCS]] dim 3 : tensor<2x4x16x16xf32>
// CHECK:        %[[CH:[a-z0-9_]+]] = mp.batch_matmul %[[P]], %[[VH]] acc(f32) : tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32> -> tensor<2x4x16x16xf32>
// CHECK:        %[[CS:[a-z0-9_]+]] = mp.transpose %[[CH]] perm [0, 2, 1, 3] : tensor<2x4x16x16xf32>
// CHECK:        %[[C:[a-z0-9_]+]] = mp.reshape %[[CS]] : tensor<2x16x4x16xf32> to tensor<2x16x64xf32>
// CHECK:        %[[O:[a-z0-9_]+]] = mp.linear %[[C]], %arg9, %arg10 acc(f32) : (tensor<2x16x64xf32>, tensor<64x64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
// CHECK:        %[[X1:[a-z0-9_]+]] = mp.add %[[X0]], %[[O]] : tensor<2x16x64xf32>, tensor<2x16x64xf32>
// CHECK:        %[[LN2:[a-z0-9_]+]] = mp.layer_norm %[[X1]] weight %arg11 bias %arg12 axis 2 eps 1.000000e-05 : (tensor<2x16x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
// CHECK:        %[[UP:[a-z0-9_]+]] = mp.linear %[[LN2]], %arg13, %arg14 acc(f32) : (tensor<2x16x64xf32>, tensor<256x64xf32>, tensor<256xf32>) -> tensor<2x16x256xf32>
// CHECK:        %[[ACT:[a-z0-9_]+]] = mp.gelu %[[UP]] approximate tanh : tensor<2x16x256xf32>
// CHECK:        %[[DOWN:[a-z0-9_]+]] = mp.linear %[[ACT]], %arg15, %arg16 acc(f32) : (tensor<2x16x256xf32>, tensor<64x256xf32>, tensor<64xf32>) -> tensor<2x16x64xf32>
// CHECK:        %[[X2:[a-z0-9_]+]] = mp.add %[[X1]], %[[DOWN]] : tensor<2x16x64xf32>, tensor<2x16x64xf32>
// CHECK:        %[[L3:[a-z0-9_]+]] = mp.linear %[[X2]], %arg17 acc(f32) : (tensor<2x16x64xf32>, tensor<512x64xf32>) -> tensor<2x16x512xf32>
// CHECK:        %[[LOGITS:[a-z0-9_]+]] = mp.reshape %[[L3]] : tensor<2x16x512xf32> to tensor<32x512xf32>
// CHECK:        %[[TARGETS:[a-z0-9_]+]] = mp.reshape %arg56 : tensor<2x16xi64> to tensor<32xi64>
// CHECK:        %[[LOSS:[a-z0-9_]+]] = mp.cross_entropy %[[LOGITS]], %[[TARGETS]] : tensor<32x512xf32>, tensor<32xi64>
// CHECK:        %[[G:[a-z0-9_]+]]:18 = mp.grad %[[LOSS]] wrt %arg0, %arg1, %arg2, %arg3, %arg4, %arg5, %arg6, %arg7, %arg8, %arg9, %arg10, %arg11, %arg12, %arg13, %arg14, %arg15, %arg16, %arg17
// CHECK-SAME:   : tensor<f32>, tensor<512x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<256x64xf32>, tensor<256xf32>, tensor<64x256xf32>, tensor<64xf32>, tensor<512x64xf32>
// CHECK:        %[[ONE:[a-z0-9_]+]] = arith.constant dense<1> : tensor<i64>
// CHECK:        %[[STEP:[a-z0-9_]+]] = arith.addi %arg54, %[[ONE]] : tensor<i64>
// CHECK:        %[[TOK_EMB:[a-z0-9_]+]], %[[MTOK_EMB:[a-z0-9_]+]], %[[VTOK_EMB:[a-z0-9_]+]] = mp.adamw %arg0, %[[G]]#0, %arg18, %arg36, %[[STEP]]
// CHECK-SAME:   {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64, weight_decay = 1.000000e-01 : f64} : tensor<512x64xf32>, tensor<i64>
// CHECK:        %[[LN1_W:[a-z0-9_]+]], %[[MLN1_W:[a-z0-9_]+]], %[[VLN1_W:[a-z0-9_]+]] = mp.adamw %arg1, %[[G]]#1, %arg19, %arg37, %[[STEP]]
// CHECK-SAME:   {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64, weight_decay = 0.000000e+00 : f64} : tensor<64xf32>, tensor<i64>
// CHECK:        %[[LN1_B:[a-z0-9_]+]], %[[MLN1_B:[a-z0-9_]+]], %[[VLN1_B:[a-z0-9_]+]] = mp.adamw %arg2, %[[G]]#2, %arg20, %arg38, %[[STEP]]
// CHECK-SAME:   {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64, weight_decay = 0.000000e+00 : f64} : tensor<64xf32>, tensor<i64>
// CHECK:        %[[WQ:[a-z0-9_]+]], %[[MWQ:[a-z0-9_]+]], %[[VWQ:[a-z0-9_]+]] = mp.adamw %arg3, %[[G]]#3, %arg21, %arg39, %[[STEP]]
// CHECK-SAME:   {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64, weight_decay = 1.000000e-01 : f64} : tensor<64x64xf32>, tensor<i64>
// CHECK:        %[[BQ:[a-z0-9_]+]], %[[MBQ:[a-z0-9_]+]], %[[VBQ:[a-z0-9_]+]] = mp.adamw %arg4, %[[G]]#4, %arg22, %arg40, %[[STEP]]
// CHECK-SAME:   {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64, weight_decay = 0.000000e+00 : f64} : tensor<64xf32>, tensor<i64>
// CHECK:        %[[WK:[a-z0-9_]+]], %[[MWK:[a-z0-9_]+]], %[[VWK:[a-z0-9_]+]] = mp.adamw %arg5, %[[G]]#5, %arg23, %arg41, %[[STEP]]
// CHECK-SAME:   {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64, weight_decay = 1.000000e-01 : f64} : tensor<64x64xf32>, tensor<i64>
// CHECK:        %[[BK:[a-z0-9_]+]], %[[MBK:[a-z0-9_]+]], %[[VBK:[a-z0-9_]+]] = mp.adamw %arg6, %[[G]]#6, %arg24, %arg42, %[[STEP]]
// CHECK-SAME:   {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64, weight_decay = 0.000000e+00 : f64} : tensor<64xf32>, tensor<i64>
// CHECK:        %[[WV:[a-z0-9_]+]], %[[MWV:[a-z0-9_]+]], %[[VWV:[a-z0-9_]+]] = mp.adamw %arg7, %[[G]]#7, %arg25, %arg43, %[[STEP]]
// CHECK-SAME:   {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64, weight_decay = 1.000000e-01 : f64} : tensor<64x64xf32>, tensor<i64>
// CHECK:        %[[BV:[a-z0-9_]+]], %[[MBV:[a-z0-9_]+]], %[[VBV:[a-z0-9_]+]] = mp.adamw %arg8, %[[G]]#8, %arg26, %arg44, %[[STEP]]
// CHECK-SAME:   {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64, weight_decay = 0.000000e+00 : f64} : tensor<64xf32>, tensor<i64>
// CHECK:        %[[WO:[a-z0-9_]+]], %[[MWO:[a-z0-9_]+]], %[[VWO:[a-z0-9_]+]] = mp.adamw %arg9, %[[G]]#9, %arg27, %arg45, %[[STEP]]
// CHECK-SAME:   {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64, weight_decay = 1.000000e-01 : f64} : tensor<64x64xf32>, tensor<i64>
// CHECK:        %[[BO:[a-z0-9_]+]], %[[MBO:[a-z0-9_]+]], %[[VBO:[a-z0-9_]+]] = mp.adamw %arg10, %[[G]]#10, %arg28, %arg46, %[[STEP]]
// CHECK-SAME:   {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64, weight_decay = 0.000000e+00 : f64} : tensor<64xf32>, tensor<i64>
// CHECK:        %[[LN2_W:[a-z0-9_]+]], %[[MLN2_W:[a-z0-9_]+]], %[[VLN2_W:[a-z0-9_]+]] = mp.adamw %arg11, %[[G]]#11, %arg29, %arg47, %[[STEP]]
// CHECK-SAME:   {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64, weight_decay = 0.000000e+00 : f64} : tensor<64xf32>, tensor<i64>
// CHECK:        %[[LN2_B:[a-z0-9_]+]], %[[MLN2_B:[a-z0-9_]+]], %[[VLN2_B:[a-z0-9_]+]] = mp.adamw %arg12, %[[G]]#12, %arg30, %arg48, %[[STEP]]
// CHECK-SAME:   {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64, weight_decay = 0.000000e+00 : f64} : tensor<64xf32>, tensor<i64>
// CHECK:        %[[W_FC1:[a-z0-9_]+]], %[[MW_FC1:[a-z0-9_]+]], %[[VW_FC1:[a-z0-9_]+]] = mp.adamw %arg13, %[[G]]#13, %arg31, %arg49, %[[STEP]]
// CHECK-SAME:   {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64, weight_decay = 1.000000e-01 : f64} : tensor<256x64xf32>, tensor<i64>
// CHECK:        %[[B_FC1:[a-z0-9_]+]], %[[MB_FC1:[a-z0-9_]+]], %[[VB_FC1:[a-z0-9_]+]] = mp.adamw %arg14, %[[G]]#14, %arg32, %arg50, %[[STEP]]
// CHECK-SAME:   {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64, weight_decay = 0.000000e+00 : f64} : tensor<256xf32>, tensor<i64>
// CHECK:        %[[W_FC2:[a-z0-9_]+]], %[[MW_FC2:[a-z0-9_]+]], %[[VW_FC2:[a-z0-9_]+]] = mp.adamw %arg15, %[[G]]#15, %arg33, %arg51, %[[STEP]]
// CHECK-SAME:   {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64, weight_decay = 1.000000e-01 : f64} : tensor<64x256xf32>, tensor<i64>
// CHECK:        %[[B_FC2:[a-z0-9_]+]], %[[MB_FC2:[a-z0-9_]+]], %[[VB_FC2:[a-z0-9_]+]] = mp.adamw %arg16, %[[G]]#16, %arg34, %arg52, %[[STEP]]
// CHECK-SAME:   {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64, weight_decay = 0.000000e+00 : f64} : tensor<64xf32>, tensor<i64>
// CHECK:        %[[W_HEAD:[a-z0-9_]+]], %[[MW_HEAD:[a-z0-9_]+]], %[[VW_HEAD:[a-z0-9_]+]] = mp.adamw %arg17, %[[G]]#17, %arg35, %arg53, %[[STEP]]
// CHECK-SAME:   {beta2 = 0.94999999999999996 : f64, lr = 3.000000e-04 : f64, weight_decay = 1.000000e-01 : f64} : tensor<512x64xf32>, tensor<i64>
// CHECK-NOT:    mp.adamw
// CHECK:        return %[[LOSS]], %[[TOK_EMB]], %[[LN1_W]], %[[LN1_B]], %[[WQ]], %[[BQ]], %[[WK]], %[[BK]], %[[WV]], %[[BV]], %[[WO]], %[[BO]], %[[LN2_W]], %[[LN2_B]], %[[W_FC1]], %[[B_FC1]], %[[W_FC2]], %[[B_FC2]], %[[W_HEAD]], %[[MTOK_EMB]], %[[MLN1_W]], %[[MLN1_B]], %[[MWQ]], %[[MBQ]], %[[MWK]], %[[MBK]], %[[MWV]], %[[MBV]], %[[MWO]], %[[MBO]], %[[MLN2_W]], %[[MLN2_B]], %[[MW_FC1]], %[[MB_FC1]], %[[MW_FC2]], %[[MB_FC2]], %[[MW_HEAD]], %[[VTOK_EMB]], %[[VLN1_W]], %[[VLN1_B]], %[[VWQ]], %[[VBQ]], %[[VWK]], %[[VBK]], %[[VWV]], %[[VBV]], %[[VWO]], %[[VBO]], %[[VLN2_W]], %[[VLN2_B]], %[[VW_FC1]], %[[VB_FC1]], %[[VW_FC2]], %[[VB_FC2]], %[[VW_HEAD]], %[[STEP]]
// CHECK-SAME:   : tensor<f32>, tensor<512x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<256x64xf32>, tensor<256xf32>, tensor<64x256xf32>, tensor<64xf32>, tensor<512x64xf32>, tensor<512x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<256x64xf32>, tensor<256xf32>, tensor<64x256xf32>, tensor<64xf32>, tensor<512x64xf32>, tensor<512x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<256x64xf32>, tensor<256xf32>, tensor<64x256xf32>, tensor<64xf32>, tensor<512x64xf32>, tensor<i64>
// COUNT:        mp.grad
// COUNT-COUNT-18: {{= mp\.adamw }}
// COUNT-NOT:    {{mp\.adamw? }}
// COUNT:        return
