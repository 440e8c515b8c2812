// Every format of sm_80 in every operand layout (A K- or M-contiguous, B K-
// or N-contiguous), f16 accumulation, a fused epilogue, and rows that are
// not 16-byte aligned: the kernels of the ptxas tests.

func.func @f16_nn(%a: tensor<96x128xf16>, %b: tensor<128x80xf16>) -> tensor<96x80xf16> {
  %y = mp.matmul %a, %b acc(f32) : tensor<96x128xf16>, tensor<128x80xf16> -> tensor<96x80xf16>
  return %y : tensor<96x80xf16>
}

func.func @f16_nt(%a: tensor<96x128xf16>, %b: tensor<80x128xf16>) -> tensor<96x80xf16> {
  %y = mp.matmul %a, %b transpose_rhs acc(f32) : tensor<96x128xf16>, tensor<80x128xf16> -> tensor<96x80xf16>
  return %y : tensor<96x80xf16>
}

func.func @f16_tn(%a: tensor<128x96xf16>, %b: tensor<128x80xf16>) -> tensor<96x80xf16> {
  %y = mp.matmul %a, %b transpose_lhs acc(f32) : tensor<128x96xf16>, tensor<128x80xf16> -> tensor<96x80xf16>
  return %y : tensor<96x80xf16>
}

func.func @f16_tt(%a: tensor<128x96xf16>, %b: tensor<80x128xf16>) -> tensor<96x80xf16> {
  %y = mp.matmul %a, %b transpose_lhs transpose_rhs acc(f32) : tensor<128x96xf16>, tensor<80x128xf16> -> tensor<96x80xf16>
  return %y : tensor<96x80xf16>
}

func.func @bf16_nn(%a: tensor<96x128xbf16>, %b: tensor<128x80xbf16>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b acc(f32) : tensor<96x128xbf16>, tensor<128x80xbf16> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @bf16_nt(%a: tensor<96x128xbf16>, %b: tensor<80x128xbf16>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b transpose_rhs acc(f32) : tensor<96x128xbf16>, tensor<80x128xbf16> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @bf16_tn(%a: tensor<128x96xbf16>, %b: tensor<128x80xbf16>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b transpose_lhs acc(f32) : tensor<128x96xbf16>, tensor<128x80xbf16> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @bf16_tt(%a: tensor<128x96xbf16>, %b: tensor<80x128xbf16>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b transpose_lhs transpose_rhs acc(f32) : tensor<128x96xbf16>, tensor<80x128xbf16> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @tf32_nn(%a: tensor<96x128xf32>, %b: tensor<128x80xf32>) -> tensor<96x80xf32> {
  %y = mp.matmul %a, %b acc(f32) compute tf32 : tensor<96x128xf32>, tensor<128x80xf32> -> tensor<96x80xf32>
  return %y : tensor<96x80xf32>
}

func.func @tf32_nt(%a: tensor<96x128xf32>, %b: tensor<80x128xf32>) -> tensor<96x80xf32> {
  %y = mp.matmul %a, %b transpose_rhs acc(f32) compute tf32 : tensor<96x128xf32>, tensor<80x128xf32> -> tensor<96x80xf32>
  return %y : tensor<96x80xf32>
}

func.func @tf32_tn(%a: tensor<128x96xf32>, %b: tensor<128x80xf32>) -> tensor<96x80xf32> {
  %y = mp.matmul %a, %b transpose_lhs acc(f32) compute tf32 : tensor<128x96xf32>, tensor<128x80xf32> -> tensor<96x80xf32>
  return %y : tensor<96x80xf32>
}

func.func @tf32_tt(%a: tensor<128x96xf32>, %b: tensor<80x128xf32>) -> tensor<96x80xf32> {
  %y = mp.matmul %a, %b transpose_lhs transpose_rhs acc(f32) compute tf32 : tensor<128x96xf32>, tensor<80x128xf32> -> tensor<96x80xf32>
  return %y : tensor<96x80xf32>
}

func.func @s8_nn(%a: tensor<96x128xi8>, %b: tensor<128x80xi8>) -> tensor<96x80xi32> {
  %y = mp.matmul %a, %b acc(i32) : tensor<96x128xi8>, tensor<128x80xi8> -> tensor<96x80xi32>
  return %y : tensor<96x80xi32>
}

func.func @s8_nt(%a: tensor<96x128xi8>, %b: tensor<80x128xi8>) -> tensor<96x80xi32> {
  %y = mp.matmul %a, %b transpose_rhs acc(i32) : tensor<96x128xi8>, tensor<80x128xi8> -> tensor<96x80xi32>
  return %y : tensor<96x80xi32>
}

func.func @s8_tn(%a: tensor<128x96xi8>, %b: tensor<128x80xi8>) -> tensor<96x80xi32> {
  %y = mp.matmul %a, %b transpose_lhs acc(i32) : tensor<128x96xi8>, tensor<128x80xi8> -> tensor<96x80xi32>
  return %y : tensor<96x80xi32>
}

func.func @s8_tt(%a: tensor<128x96xi8>, %b: tensor<80x128xi8>) -> tensor<96x80xi32> {
  %y = mp.matmul %a, %b transpose_lhs transpose_rhs acc(i32) : tensor<128x96xi8>, tensor<80x128xi8> -> tensor<96x80xi32>
  return %y : tensor<96x80xi32>
}

func.func @f16_acc16(%a: tensor<96x128xf16>, %b: tensor<80x128xf16>) -> tensor<96x80xf16> {
  %y = mp.matmul %a, %b transpose_rhs acc(f16) : tensor<96x128xf16>, tensor<80x128xf16> -> tensor<96x80xf16>
  return %y : tensor<96x80xf16>
}

func.func @f16_unaligned(%a: tensor<96x100xf16>, %b: tensor<80x100xf16>) -> tensor<96x80xf16> {
  %y = mp.matmul %a, %b transpose_rhs acc(f32) : tensor<96x100xf16>, tensor<80x100xf16> -> tensor<96x80xf16>
  return %y : tensor<96x80xf16>
}

func.func @s8_unaligned(%a: tensor<128x90xi8>, %b: tensor<128x70xi8>) -> tensor<90x70xi32> {
  %y = mp.matmul %a, %b transpose_lhs acc(i32) : tensor<128x90xi8>, tensor<128x70xi8> -> tensor<90x70xi32>
  return %y : tensor<90x70xi32>
}

func.func @linear_bias_gelu(%x: tensor<96x128xbf16>, %w: tensor<80x128xbf16>, %b: tensor<80xbf16>) -> tensor<96x80xbf16> {
  %y = mp.linear %x, %w, %b acc(f32) : (tensor<96x128xbf16>, tensor<80x128xbf16>, tensor<80xbf16>) -> tensor<96x80xbf16>
  %g = mp.gelu %y approximate tanh : tensor<96x80xbf16>
  return %g : tensor<96x80xbf16>
}
