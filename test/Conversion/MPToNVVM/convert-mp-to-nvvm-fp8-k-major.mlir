// RUN: mp-opt %s --convert-mp-to-nvvm="chip=sm_90a" | FileCheck %s
// RUN: mp-opt %s --convert-mp-to-nvvm="chip=sm_100a" | FileCheck %s --check-prefix=SM100
// RUN: mp-opt %s --convert-mp-to-nvvm="chip=sm_90a fp8-k-major=false" | FileCheck %s --check-prefix=OFF
// RUN: mp-opt %s --convert-mp-to-nvvm="chip=sm_89" | FileCheck %s --check-prefix=SM89

// The FP8 GEMMs of a linear layer's backward (mp-fp8-scaling reuses the
// forward's row-major FP8 copies): dW = dYᵀ · X (A M-contiguous, B
// N-contiguous) and dX = dY · X-shaped B (B N-contiguous). On sm_90a and
// sm_100a each operand wgmma/tcgen05 cannot read gets a transposed FP8
// copy: X, quantised in the graph as mp.cast saturate (mp.scale %x by %s),
// is quantised again from the transposed %x with the same scale (one copy
// for both GEMMs); dY, an argument here, is transposed as it is. Both GEMMs
// then read K-major operands (wgmma, TMA main loop) instead of the mma.sync
// fallback with byte gathers.

// CHECK-LABEL: func.func @backward(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<128x256xf32>, %[[S:[^:]*]]: tensor<f32>, %[[DY:[^:]*]]: tensor<128x128xf8E5M2>)
// CHECK-DAG:     %[[DYT:.*]] = mp.transpose %[[DY]] perm [1, 0] : tensor<128x128xf8E5M2>
// CHECK-DAG:     %[[XT:.*]] = mp.transpose %[[X]] perm [1, 0] : tensor<128x256xf32>
// CHECK-DAG:     %[[XTS:.*]] = mp.scale %[[XT]] by %[[S]] : tensor<256x128xf32>
// CHECK-DAG:     %[[XT8:.*]] = mp.cast %[[XTS]] saturate : tensor<256x128xf32> to tensor<256x128xf8E4M3FN>
// CHECK:         bufferization.to_buffer %[[DYT]]
// CHECK:         bufferization.to_buffer %[[XT8]]
// CHECK:         llvm.call @mp_tc_sm90a_wgmma_tma_e5m2k_e4m3k_accf32_outf32_128x128x128_s4_p4_launch
// CHECK:         bufferization.to_buffer %[[DY]]
// CHECK:         bufferization.to_buffer %[[XT8]]
// CHECK:         llvm.call @mp_tc_sm90a_wgmma_tma_e5m2k_e4m3k_accf32_outf32_128x128x128_s4_p4_launch
// CHECK-NOT:     mp_tc_sm90a_mma_

// SM100:         llvm.call @mp_tc_sm100a_tcgen05_tma_e5m2k_e4m3k_
// SM100:         llvm.call @mp_tc_sm100a_tcgen05_tma_e5m2k_e4m3k_

// fp8-k-major=false, and chips whose mma.sync reads any layout: no copies.
// OFF-NOT:       mp.transpose
// OFF:           llvm.call @mp_tc_sm90a_mma_e5m2m_e4m3n_
// OFF:           llvm.call @mp_tc_sm90a_mma_e5m2k_e4m3n_
// SM89-NOT:      mp.transpose
// SM89:          llvm.call @mp_tc_sm89_mma_e5m2m_e4m3n_
func.func @backward(%x: tensor<128x256xf32>, %s: tensor<f32>, %dy: tensor<128x128xf8E5M2>)
    -> (tensor<128x256xf32>, tensor<128x256xf32>) {
  %xs = mp.scale %x by %s : tensor<128x256xf32>
  %x8 = mp.cast %xs saturate : tensor<128x256xf32> to tensor<128x256xf8E4M3FN>
  %dw = mp.matmul %dy, %x8 transpose_lhs acc(f32)
      : tensor<128x128xf8E5M2>, tensor<128x256xf8E4M3FN> -> tensor<128x256xf32>
  %dx = mp.matmul %dy, %x8 acc(f32)
      : tensor<128x128xf8E5M2>, tensor<128x256xf8E4M3FN> -> tensor<128x256xf32>
  return %dw, %dx : tensor<128x256xf32>, tensor<128x256xf32>
}
