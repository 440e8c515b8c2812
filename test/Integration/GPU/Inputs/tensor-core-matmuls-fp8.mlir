// Every pairing of e4m3 and e5m2 in every operand layout: the FP8 kernels of
// the ptxas tests (sm_89, sm_90a).

func.func @e4m3_e4m3_nn(%a: tensor<96x128xf8E4M3FN>, %b: tensor<128x80xf8E4M3FN>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b acc(f32) : tensor<96x128xf8E4M3FN>, tensor<128x80xf8E4M3FN> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @e4m3_e4m3_nt(%a: tensor<96x128xf8E4M3FN>, %b: tensor<80x128xf8E4M3FN>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b transpose_rhs acc(f32) : tensor<96x128xf8E4M3FN>, tensor<80x128xf8E4M3FN> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @e4m3_e4m3_tn(%a: tensor<128x96xf8E4M3FN>, %b: tensor<128x80xf8E4M3FN>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b transpose_lhs acc(f32) : tensor<128x96xf8E4M3FN>, tensor<128x80xf8E4M3FN> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @e4m3_e4m3_tt(%a: tensor<128x96xf8E4M3FN>, %b: tensor<80x128xf8E4M3FN>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b transpose_lhs transpose_rhs acc(f32) : tensor<128x96xf8E4M3FN>, tensor<80x128xf8E4M3FN> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @e4m3_e5m2_nn(%a: tensor<96x128xf8E4M3FN>, %b: tensor<128x80xf8E5M2>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b acc(f32) : tensor<96x128xf8E4M3FN>, tensor<128x80xf8E5M2> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @e4m3_e5m2_nt(%a: tensor<96x128xf8E4M3FN>, %b: tensor<80x128xf8E5M2>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b transpose_rhs acc(f32) : tensor<96x128xf8E4M3FN>, tensor<80x128xf8E5M2> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @e4m3_e5m2_tn(%a: tensor<128x96xf8E4M3FN>, %b: tensor<128x80xf8E5M2>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b transpose_lhs acc(f32) : tensor<128x96xf8E4M3FN>, tensor<128x80xf8E5M2> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @e4m3_e5m2_tt(%a: tensor<128x96xf8E4M3FN>, %b: tensor<80x128xf8E5M2>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b transpose_lhs transpose_rhs acc(f32) : tensor<128x96xf8E4M3FN>, tensor<80x128xf8E5M2> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @e5m2_e4m3_nn(%a: tensor<96x128xf8E5M2>, %b: tensor<128x80xf8E4M3FN>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b acc(f32) : tensor<96x128xf8E5M2>, tensor<128x80xf8E4M3FN> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @e5m2_e4m3_nt(%a: tensor<96x128xf8E5M2>, %b: tensor<80x128xf8E4M3FN>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b transpose_rhs acc(f32) : tensor<96x128xf8E5M2>, tensor<80x128xf8E4M3FN> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @e5m2_e4m3_tn(%a: tensor<128x96xf8E5M2>, %b: tensor<128x80xf8E4M3FN>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b transpose_lhs acc(f32) : tensor<128x96xf8E5M2>, tensor<128x80xf8E4M3FN> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @e5m2_e4m3_tt(%a: tensor<128x96xf8E5M2>, %b: tensor<80x128xf8E4M3FN>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b transpose_lhs transpose_rhs acc(f32) : tensor<128x96xf8E5M2>, tensor<80x128xf8E4M3FN> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @e5m2_e5m2_nn(%a: tensor<96x128xf8E5M2>, %b: tensor<128x80xf8E5M2>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b acc(f32) : tensor<96x128xf8E5M2>, tensor<128x80xf8E5M2> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @e5m2_e5m2_nt(%a: tensor<96x128xf8E5M2>, %b: tensor<80x128xf8E5M2>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b transpose_rhs acc(f32) : tensor<96x128xf8E5M2>, tensor<80x128xf8E5M2> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @e5m2_e5m2_tn(%a: tensor<128x96xf8E5M2>, %b: tensor<128x80xf8E5M2>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b transpose_lhs acc(f32) : tensor<128x96xf8E5M2>, tensor<128x80xf8E5M2> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}

func.func @e5m2_e5m2_tt(%a: tensor<128x96xf8E5M2>, %b: tensor<80x128xf8E5M2>) -> tensor<96x80xbf16> {
  %y = mp.matmul %a, %b transpose_lhs transpose_rhs acc(f32) : tensor<128x96xf8E5M2>, tensor<80x128xf8E5M2> -> tensor<96x80xbf16>
  return %y : tensor<96x80xbf16>
}
