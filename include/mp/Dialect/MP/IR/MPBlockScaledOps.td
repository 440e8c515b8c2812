//===- MPBlockScaledOps.td - Block-scaled formats ----------*- tablegen -*-===//
//
// The block-scaled formats of MXFP8/MXFP6/MXFP4 (OCP Microscaling), NVFP4
// and DeepSeek-style FP8 block scaling, as Transformer Engine's recipes use
// them: stochastic rounding to the narrow formats, block quantisation into
// data and per-block scales, its inverse, and the matrix product of two
// block-scaled operands. Every op is specified to the bit (the CPU lowering
// emulates it exactly; test/Integration/Numerics/block-scaled.test checks it
// against a rational-arithmetic reference), so that GPU kernels can be
// checked against it. Included from MPOps.td, whose type constraints
// (MP_NarrowFloatTypes, MP_CastTensor) it uses.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_IR_MPBLOCKSCALEDOPS_TD
#define MP_DIALECT_MP_IR_MPBLOCKSCALEDOPS_TD

/// High-precision inputs of a quantisation.
def MP_QuantizeInputTensor : StaticShapeTensorOf<[F32, F16, BF16]>;
/// The element types of block-quantised data: FP8, FP6 and FP4.
def MP_BlockDataTensor : StaticShapeTensorOf<[F8E4M3FN, F8E5M2, F6E2M3FN,
                                              F6E3M2FN, F4E2M1FN]>;
/// The element types of block scales: E8M0 (MX), E4M3 (NVFP4, with an f32
/// tensor-level scale) and f32 powers of two (FP8 block scaling).
def MP_BlockScaleTensor : StaticShapeTensorOf<[F8E8M0FNU, F8E4M3FN, F32]>;
/// Random bits, one 32-bit draw per element (mp.random_bits).
def MP_RandomBitsTensor : StaticShapeTensorOf<[I32]>;

/// The paragraph shared by the block-scaled ops: how a block follows from
/// the data and scale shapes.
defvar MP_BlockShapeRule = [{
    **Blocks.** The block shape is not an attribute: along each dimension
    `k` it is `b_k = data_k / scales_k` (which must divide exactly). Either
    one dimension has `b_k > 1` and `b_k` ∈ {16, 32, 128} (1-D blocks, e.g.
    `[1, 32]` for MXFP8 along K), or the last two dimensions have
    `b = 16×16, 32×32 or 128×128` (2-D tiles, weights) and every other
    dimension has `b_k = 1`. Element `x[i]` belongs to block
    `(i_0 / b_0, ..., i_{n-1} / b_{n-1})`, the index of its scale.
}];

def MP_StochasticCastOp : MP_Op<"stochastic_cast", [Pure,
    AllShapesMatch<["input", "random_bits", "result"]>]> {
  let summary = "convert to a narrow float with stochastic rounding";
  let description = [{
    Rounds each element to the result element type (f8E4M3FN, f8E5M2,
    f6E2M3FN, f6E3M2FN or f4E2M1FN) stochastically, using the 32-bit draw
    `r` = `random_bits[i]` (read as unsigned) of the same element: `x` (f16
    and bf16 inputs are extended to f32 first, exactly) lies between two
    neighbours of the target's value set, `lo` towards zero and `hi` away
    from zero (the exponent taken as unbounded above); with
    `f = (|x| − |lo|) / (|hi| − |lo|)` ∈ [0, 1), the result is `hi` when
    `⌊f·2^32⌋ + r ≥ 2^32`, else `lo` (so `P(hi) = ⌊f·2^32⌋ / 2^32`; exactly
    representable values are kept). This is the hardware's rule of adding
    the random bits below the last kept bit and truncating
    (`cvt.rs.satfinite` on sm_100a). The cast always saturates: a result
    beyond the largest finite value, and ±infinity, become that value with
    the input's sign. NaN gives NaN for the FP8 targets and, as for
    `mp.cast`, +max for f4/f6 (which have no NaN). The sign is kept
    (−0 stays −0).

    Transformer Engine's NVFP4 recipe rounds gradients this way
    (Philox bits, as `mp.random_bits` gives). Autocast exempt; no gradient.

    ```mlir
    %bits, %s1 = mp.random_bits %s : tensor<64x128xi32>
    %q = mp.stochastic_cast %g, %bits
        : tensor<64x128xf32>, tensor<64x128xi32> to tensor<64x128xf4E2M1FN>
    ```
  }];
  let arguments = (ins MP_QuantizeInputTensor:$input,
                       MP_RandomBitsTensor:$random_bits);
  let results = (outs MP_BlockDataTensor:$result);
  let assemblyFormat = [{
    $input `,` $random_bits attr-dict `:` type($input) `,` type($random_bits)
    `to` type($result)
  }];
}

def MP_BlockQuantizeOp : MP_Op<"block_quantize", [Pure,
    AttrSizedOperandSegments]> {
  let summary = "quantise into block-scaled data and per-block scales";
  let description = !strconcat([{
    Splits `input` into blocks (see below), computes one scale per block from
    the block's amax `a` = max |x| over the block's elements that are not
    NaN (in f32, from 0: a NaN element does not change its block's scale, and
    a block of NaNs has `a` = 0 — Transformer Engine's `fmaxf` reductions),
    and returns `data` = the block's values multiplied by the
    block's encode factor `e` (one f32 product, rounded to nearest even) and
    cast to the data type with saturation (`mp.cast ... saturate`: round to
    nearest even, finite values and infinities beyond the range clamp to
    ±max, NaN stays NaN for FP8 and becomes +max for FP4/FP6), or with
    stochastic rounding (`mp.stochastic_cast`) when `random` bits are
    given. `scales` holds the decode scales: `dequant(x) = data · scale`.
    `max` below is the data type's largest finite value (448, 57344, 7.5,
    28, 6) and `1/max` its reciprocal rounded to f32; all arithmetic is f32
    with one rounding per operation, in the order written.

    - **E8M0 scales (MX: MXFP8, MXFP6, MXFP4).** `scale = cast_e8m0(a · (1/max))`
      where `cast_e8m0` is `mp.cast ... saturate` to f8E8M0FNU: the
      power of two 2^⌈log2 |v|⌉, clamped to [2^-127, 2^127] (0 gives 2^-127;
      NaN gives the NaN encoding 0xFF) — Transformer Engine's round-up of the
      biased exponent (`cvt.rp.satfinite.ue8m0x2.f32`). The encode factor is
      the exact reciprocal 2^(127 − c) of the scale with biased exponent c
      (NaN for 0xFF).
    - **E4M3 scales with an f32 tensor-level scale (NVFP4).** `global` is
      the tensor's f32 encode scale `g` (Transformer Engine:
      `448·6 / global_amax`, or 1). `scale = cast_e4m3_sat(a · (1/max) · g)`
      and `e = min(g / f32(scale), FLT_MAX)` (a zero scale, a zero block,
      gives FLT_MAX; NaN propagates). Dequantisation divides by `g` again
      (`mp.block_dequantize ... global`).
    - **f32 scales (FP8 block scaling, DeepSeek-V3).** Transformer
      Engine's `compute_scale_from_amax`: `a` is first raised to
      `amax_epsilon` (default 0; >= 0, rounded to f32) when smaller; then
      `e = max / a`, FLT_MAX if that is infinite, 1 if `a` is 0 or
      infinite; then rounded down to a power of two (the mantissa bits
      cleared) unless `unrounded_scales` is set (TE's `power_2_scale=False`,
      `NVTE_FP8_BLOCK_SCALING_FP32_SCALES=1`); `scale = 1 / e` (exact for a
      power of two, else rounded to nearest even). `amax_epsilon` and
      `unrounded_scales` apply to f32 scales only.

  }], MP_BlockShapeRule, [{

    The data has the input's shape; the scales have its shape divided by the
    block shape. Autocast exempt; no gradient.

    ```mlir
    // MXFP8: 1×32 blocks along K, E8M0 scales.
    %q, %s = mp.block_quantize %x : tensor<64x128xf32>
        -> tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>
    // NVFP4 weights: 16×16 tiles, E4M3 scales, tensor scale %g.
    %wq, %ws = mp.block_quantize %w global %g : tensor<256x128xf32>
        -> tensor<256x128xf4E2M1FN>, tensor<16x8xf8E4M3FN>
    // NVFP4 gradients: 1×16 blocks, stochastic rounding.
    %gq, %gs = mp.block_quantize %dy global %g random(%bits : tensor<64x256xi32>)
        : tensor<64x256xf32> -> tensor<64x256xf4E2M1FN>, tensor<64x16xf8E4M3FN>
    // FP8 block scaling with any f32 scales and an amax epsilon.
    %xq, %xs = mp.block_quantize %x amax_epsilon(1.0e-6) unrounded_scales
        : tensor<64x256xf32> -> tensor<64x256xf8E4M3FN>, tensor<64x2xf32>
    ```
  }]);
  let arguments = (ins MP_QuantizeInputTensor:$input,
                       Optional<MP_F32Scalar>:$global_scale,
                       Optional<MP_RandomBitsTensor>:$random_bits,
                       DefaultValuedAttr<F64Attr, "0.0">:$amax_epsilon,
                       UnitAttr:$unrounded_scales);
  let results = (outs MP_BlockDataTensor:$data, MP_BlockScaleTensor:$scales);
  let assemblyFormat = [{
    $input (`global` $global_scale^)?
    (`random` `(` $random_bits^ `:` type($random_bits) `)`)?
    (`amax_epsilon` `(` $amax_epsilon^ `)`)?
    (`unrounded_scales` $unrounded_scales^)? attr-dict
    `:` type($input) `->` type($data) `,` type($scales)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The block shape (valid once verified): input shape / scales shape.
    ::llvm::SmallVector<int64_t> getBlockShape();
  }];
}

def MP_BlockDequantizeOp : MP_Op<"block_dequantize", [Pure]> {
  let summary = "block-scaled data back to a float tensor";
  let description = !strconcat([{
    `result[i] = f32(data[i]) · f32(scale)` with the scale of `i`'s block,
    one f32 product rounded to nearest even; with `global` (required for
    f8E4M3FN scales, and only for them) that product is divided by the
    tensor-level encode scale `g` (one more rounding); the f32 value is then
    rounded once to the result element type. E8M0 scales decode to
    2^(c − 127) (0xFF: NaN); f4/f6/FP8 values convert to f32 exactly. The
    inverse of `mp.block_quantize` up to its rounding.

  }], MP_BlockShapeRule, [{

    Autocast exempt; no gradient.

    ```mlir
    %x = mp.block_dequantize %q, %s : tensor<64x128xf8E4M3FN>,
        tensor<64x4xf8E8M0FNU> -> tensor<64x128xf32>
    ```
  }]);
  let arguments = (ins MP_BlockDataTensor:$data, MP_BlockScaleTensor:$scales,
                       Optional<MP_F32Scalar>:$global_scale);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $data `,` $scales (`global` $global_scale^)? attr-dict
    `:` type($data) `,` type($scales) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The block shape (valid once verified): data shape / scales shape.
    ::llvm::SmallVector<int64_t> getBlockShape();
    /// Checks the block-shape rule for data of shape `data` and scales of
    /// shape `scales`, reporting through `op` with the operand names given.
    static ::mlir::LogicalResult
    verifyBlockShape(::mlir::Operation *op, ::llvm::ArrayRef<int64_t> data,
                     ::llvm::ArrayRef<int64_t> scales,
                     ::llvm::StringRef dataName, ::llvm::StringRef scalesName);
  }];
}

def MP_ScaledMatmulOp : MP_Op<"scaled_matmul", [Pure]> {
  let summary = "matrix product of two block-scaled operands";
  let description = [{
    `result = op(A) × op(B)` for rank-2 block-scaled operands, where
    `A = block_dequantize(lhs, lhs_scales)` and likewise B, and `op`
    transposes when `transpose_lhs` / `transpose_rhs` is set (the scales are
    laid out like their data, so `rhs` `[N, K]` with `transpose_rhs` has
    scales `[N, K/32]` for 1×32 blocks along K). Exactly: each dequantised
    element is one f32 product `f32(q) · f32(scale)`, the products of the
    two operands are f32 products summed in f32 in increasing k, and the sum
    is rounded once to the result element type (f32, f16 or bf16) — the
    result of `mp.matmul ... acc(f32)` on the two dequantised f32 operands.
    `acc_type` must be f32.

    The blocks of both operands have one length along the contraction
    dimension (K), which is 16, 32 or 128; along M (N) the block is 1 or the
    same length (2-D tiles). Both scale tensors have one element type:
    f8E8M0FNU (MXFP8/6/4: the data types may differ, e.g. FP4 × FP8 as
    `kind::mxf8f6f4`), f8E4M3FN (NVFP4; the tensor-level factor
    `1 / (g_lhs · g_rhs)` is the caller's, e.g. an `mp.scale` of the
    result, as it is the GEMM's alpha) or f32 (FP8 block scaling).
    Autocast exempt; no gradient (recipes build it after mp-autodiff).

    ```mlir
    %y = mp.scaled_matmul %xq scales %xs, %wq scales %ws transpose_rhs acc(f32)
        : tensor<64x128xf8E4M3FN>, tensor<64x4xf8E8M0FNU>,
          tensor<256x128xf8E4M3FN>, tensor<256x4xf8E8M0FNU> -> tensor<64x256xbf16>
    ```
  }];
  let arguments = (ins MP_BlockDataTensor:$lhs, MP_BlockScaleTensor:$lhs_scales,
                       MP_BlockDataTensor:$rhs, MP_BlockScaleTensor:$rhs_scales,
                       UnitAttr:$transpose_lhs, UnitAttr:$transpose_rhs,
                       MP_FloatTypeAttr:$acc_type);
  let results = (outs StaticShapeTensorOf<[F32, F16, BF16]>:$result);
  let assemblyFormat = [{
    $lhs `scales` $lhs_scales `,` $rhs `scales` $rhs_scales
    (`transpose_lhs` $transpose_lhs^)? (`transpose_rhs` $transpose_rhs^)?
    `acc` `(` $acc_type `)` attr-dict
    `:` type($lhs) `,` type($lhs_scales) `,` type($rhs) `,` type($rhs_scales)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // MP_DIALECT_MP_IR_MPBLOCKSCALEDOPS_TD
