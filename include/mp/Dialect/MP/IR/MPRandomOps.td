//===- MPRandomOps.td - Random numbers and dropout ---------*- tablegen -*-===//
//
// The counter-based random numbers of a train step: dropout and its
// backward, uniform and normal samples, raw bits. Every op is a pure function of its
// operands: the generator state (Philox4x32-10 key and counter,
// `tensor<2xi64>` = [seed, offset]) is an operand, and the ops that draw
// return the advanced state. The bit stream is specified exactly in
// docs/Random.md and summarised in each description, so that every
// lowering (CPU now, GPU later) reproduces it bit for bit, whatever the
// thread count or tiling: element i's bits depend only on the state and i.
// Included from MPOps.td, whose type constraints it uses.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_IR_MPRANDOMOPS_TD
#define MP_DIALECT_MP_IR_MPRANDOMOPS_TD

/// The generator state: `tensor<2xi64>` holding [seed, offset] (the verifier
/// checks the shape; the custom syntax always means tensor<2xi64>).
def MP_RngStateTensor : 1DTensorOf<[I64]>,
    BuildableType<"::mlir::RankedTensorType::get({2}, $_builder.getI64Type())">;

/// The paragraph every random op's description shares.
defvar MP_PhiloxStream = [{
    **Bit stream.** `state` = `[seed, offset]` (i64, read as unsigned). The
    generator is Philox4x32-10 (Salmon et al. 2011, Random123; cuRAND's and
    PyTorch's CUDA generator) with key `k0 = seed[31:0]`, `k1 = seed[63:32]`.
    The 32-bit draw number `d` (an unsigned 64-bit value) is the output word
    `d mod 4` of the Philox block whose 128-bit counter is
    `(c0, c1, c2, c3) = (n[31:0], n[63:32], 0, 0)` with `n = d / 4`. An op
    with N result elements consumes the draws `offset, offset + 1, ...` and
    returns `[seed, offset + 4·ceil(N/4)]` (the offset advances by N rounded
    up to a multiple of 4, as PyTorch's philox offset increments; arithmetic
    modulo 2^64). Elements are numbered by their row-major linear index `i`.
    A draw `x` becomes a float in [0, 1) as `u(x) = (x >> 8) · 2^-24`, exact
    in f32. See docs/Random.md.
}];

def MP_DropoutOp : MP_Op<"dropout", [Pure, MP_Differentiable,
    AllTypesMatch<["input", "result"]>,
    AllTypesMatch<["state", "new_state"]>]> {
  let summary = "dropout with a counter-based mask (training mode)";
  let description = !strconcat([{
    PyTorch's `F.dropout(input, p, training=True)`: element `i` is kept when
    `u(x_i) < f32(1 − p)`, where `x_i` is draw `offset + i`; the result is
    PyTorch's `input · mask · scale` with `mask` 1 (kept) or 0 and
    `scale = f32(1 / (1 − p))`, formed in f32 as `(input[i] · mask) · scale`
    and rounded once to the element type: a kept element is
    `input[i] · scale`, a dropped one `input[i] · 0` (−0 for a negative
    input, NaN for an infinite or NaN one, as in PyTorch). `p` is in [0, 1).
    `p = 0` is the identity and draws nothing: the result is `input` and
    `new_state` is `state` (it folds to them, as PyTorch's dropout returns
    its input for p = 0). For p > 0 the state advances by 4·ceil(N/4) for N
    elements of `input`. The backward, `mp.dropout_grad`, regenerates the
    mask from the same `state`: no mask tensor is kept. Autocast: PyTorch's
    CUDA autocast lists do not name dropout, so it runs in the type that
    arrives (clear).

  }], MP_PhiloxStream, [{

    ```mlir
    %y, %s1 = mp.dropout %x, %s p(1.000000e-01) : tensor<64x256xf16>
    ```
  }]);
  let arguments = (ins MP_FloatTensor:$input, MP_RngStateTensor:$state,
                       F64Attr:$p);
  let results = (outs MP_FloatTensor:$result, MP_RngStateTensor:$new_state);
  let assemblyFormat = [{
    $input `,` $state `p` `(` $p `)` attr-dict `:` type($input)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def MP_DropoutGradOp : MP_Op<"dropout_grad", [Pure,
    AllTypesMatch<["grad_output", "result"]>]> {
  let summary = "gradient of dropout, regenerating its mask";
  let description = [{
    PyTorch's `native_dropout_backward`, `grad_output · mask · scale`,
    formed exactly as `mp.dropout`'s result, with the mask of `mp.dropout`
    with the same `state` and `p`: the mask is recomputed
    from `state` (the dropout's input state) and the element index, bit for
    bit the forward's, so no mask tensor lives from the forward to the
    backward. `p = 0` is the identity.
    Nothing is drawn: the state is not returned.

    ```mlir
    %dx = mp.dropout_grad %dy, %s p(1.000000e-01) : tensor<64x256xf16>
    ```
  }];
  let arguments = (ins MP_FloatTensor:$grad_output, MP_RngStateTensor:$state,
                       F64Attr:$p);
  let results = (outs MP_FloatTensor:$result);
  let assemblyFormat = [{
    $grad_output `,` $state `p` `(` $p `)` attr-dict `:` type($grad_output)
  }];
  let hasVerifier = 1;
  let hasFolder = 1;
}

def MP_RandomUniformOp : MP_Op<"random_uniform", [Pure,
    AllTypesMatch<["state", "new_state"]>]> {
  let summary = "uniform random numbers in [low, high)";
  let description = !strconcat([{
    Element `i` is `f32(low) + (f32(high) − f32(low)) · u(x_i)`, with `x_i`
    draw `offset + i`, formed in f32 and rounded once to the result's element
    type (f32, f16 or bf16; after rounding to f16/bf16 an element may equal
    `high`, as in PyTorch). The shape comes from the result type; the state
    advances by 4·ceil(N/4). `low` < `high`, both finite. No gradient: the
    result is a constant of differentiation. Autocast: exempt (not in
    PyTorch's lists; it has no float operand).

  }], MP_PhiloxStream, [{

    ```mlir
    %r, %s1 = mp.random_uniform %s low(-1.000000e+00) high(1.000000e+00)
        : tensor<4x8xf32>
    ```
  }]);
  let arguments = (ins MP_RngStateTensor:$state,
                       DefaultValuedAttr<F64Attr, "0.0">:$low,
                       DefaultValuedAttr<F64Attr, "1.0">:$high);
  let results = (outs StaticShapeTensorOf<[F32, F16, BF16]>:$result,
                      MP_RngStateTensor:$new_state);
  let assemblyFormat = [{
    $state (`low` `(` $low^ `)`)? (`high` `(` $high^ `)`)? attr-dict
    `:` type($result)
  }];
  let hasVerifier = 1;
}

def MP_RandomNormalOp : MP_Op<"random_normal", [Pure,
    AllTypesMatch<["state", "new_state"]>]> {
  let summary = "normal random numbers N(mean, std²) by Box-Muller";
  let description = !strconcat([{
    Elements are made in pairs (cuRAND's `curand_normal2`): for the pair
    `j = floor(i / 2)`, `a = x_{offset + 2j}`, `b = x_{offset + 2j + 1}`,
    `u1 = ((a >> 8) + 1) · 2^-24` in (0, 1], `u2 = (b >> 8) · 2^-24`,
    `r = sqrt(−2 · log(u1))`, `θ = 2π · u2` (2π as f32); even `i` is
    `r · cos(θ)`, odd `i` is `r · sin(θ)`; then `f32(mean) + f32(std) · z`,
    all in f32, rounded once to the result's element type (f32, f16 or
    bf16). The draws are exact; the values depend on the f32 `log`, `sqrt`,
    `cos` and `sin` of the target (an ulp or so between math libraries). The
    state advances by 4·ceil(N/4) (N even: N draws; N odd: N + 1, rounded
    up). `std` >= 0, both finite. No gradient; autocast exempt, as
    `mp.random_uniform`.

  }], MP_PhiloxStream, [{

    ```mlir
    %r, %s1 = mp.random_normal %s mean(0.000000e+00) std(2.000000e-02)
        : tensor<256x784xf32>
    ```
  }]);
  let arguments = (ins MP_RngStateTensor:$state,
                       DefaultValuedAttr<F64Attr, "0.0">:$mean,
                       DefaultValuedAttr<F64Attr, "1.0">:$std);
  let results = (outs StaticShapeTensorOf<[F32, F16, BF16]>:$result,
                      MP_RngStateTensor:$new_state);
  let assemblyFormat = [{
    $state (`mean` `(` $mean^ `)`)? (`std` `(` $std^ `)`)? attr-dict
    `:` type($result)
  }];
  let hasVerifier = 1;
}

def MP_RandomBitsOp : MP_Op<"random_bits", [Pure,
    AllTypesMatch<["state", "new_state"]>]> {
  let summary = "the raw 32-bit draws of the generator";
  let description = !strconcat([{
    Element `i` is the 32-bit draw `x_{offset + i}` itself (an unsigned bit
    pattern in an i32 element); the state advances by 4·ceil(N/4). The other
    random ops are functions of these draws: with one state, `mp.dropout`'s
    element `i` is kept when `(bits[i] >> 8) · 2^-24 < f32(1 − p)`. For
    custom sampling and for checking a lowering against the specification.
    No gradient; autocast exempt.

  }], MP_PhiloxStream, [{

    ```mlir
    %bits, %s1 = mp.random_bits %s : tensor<1024xi32>
    ```
  }]);
  let arguments = (ins MP_RngStateTensor:$state);
  let results = (outs StaticShapeTensorOf<[I32]>:$result,
                      MP_RngStateTensor:$new_state);
  let assemblyFormat = "$state attr-dict `:` type($result)";
  let hasVerifier = 1;
}

#endif // MP_DIALECT_MP_IR_MPRANDOMOPS_TD
