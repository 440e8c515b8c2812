//===- Passes.td - Passes of the mp dialect ----------------*- tablegen -*-===//
//
// The mixed-precision passes over mp train steps. Flags are prefixed `mp-`;
// options are generated (no `let constructor`): each pass gets a
// `create<Name>()` / `create<Name>(const <Name>Options &)` pair.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_TRANSFORMS_PASSES_TD
#define MP_DIALECT_MP_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def MPLossScaling : Pass<"mp-loss-scaling", "ModuleOp"> {
  let summary = "Scale the loss before mp.grad, unscale the gradients in f32 "
                "and skip steps whose gradients are not finite";
  let description = [{
    Rewrites a train step (a function with one `mp.grad` in its body) the way
    PyTorch's `GradScaler` runs it:

    - the loss that reaches `mp.grad` is multiplied by the scale S
      (`mp.scale`); the function still returns the unscaled loss;
    - every gradient is cast to f32 and multiplied by 1/S, computed as
      GradScaler does (reciprocal in f64, rounded to f32);
    - `found_inf` is true when any element of any unscaled gradient is inf or
      NaN (`mp.all_finite`); on such a step every result marked
      `mp.updates` (parameters, master weights, working copies, optimizer
      state, step counters) returns its argument unchanged, bit for bit, and
      a new result `tensor<i1> {mp.skipped}` says so;
    - dynamic mode threads the scale state through the signature: arguments
      `tensor<f32> {mp.state = "loss_scale", mp.init = <init-scale>}`,
      `tensor<i32> {mp.state = "growth_tracker"}` and, with hysteresis > 1,
      `tensor<i32> {mp.state = "hysteresis_tracker", mp.init = <hysteresis>}`,
      appended after the existing arguments; their new values
      (`mp.update_loss_scale`) are appended to the results with
      `mp.updates`.

    Users of a gradient that expect its original type get the unscaled value
    cast back to it. The function is marked `mp.loss_scaling = "dynamic"` or
    `"static"`; running the pass again leaves it unchanged. A function without
    `mp.grad` is left alone. Run it before `mp-autodiff`.

    It runs on the module and rewrites each `func.func` directly in it. A
    function whose signature it changes must not be referenced in the module
    (for example by a `func.call`): the caller cannot supply the new state,
    so such a reference is an error; write the caller after the pass.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"dynamic\"",
           "Loss scaling mode: 'dynamic' (GradScaler) or 'static' (fixed S)"
           " (default: dynamic)">,
    Option<"initScale", "init-scale", "double", /*default=*/"65536.0",
           "Initial scale (dynamic) or the fixed scale (static)"
           " (default: 65536.0)">,
    Option<"growthFactor", "growth-factor", "double", /*default=*/"2.0",
           "Factor the scale grows by after growth-interval finite steps"
           " (default: 2.0)">,
    Option<"backoffFactor", "backoff-factor", "double", /*default=*/"0.5",
           "Factor the scale shrinks by on a non-finite step"
           " (default: 0.5)">,
    Option<"growthInterval", "growth-interval", "int64_t", /*default=*/"2000",
           "Finite steps between two growths of the scale"
           " (default: 2000)">,
    Option<"hysteresis", "hysteresis", "int64_t", /*default=*/"1",
           "Non-finite steps tolerated before backing off (1 = GradScaler, "
           "2 = Megatron-LM's default) (default: 1)">,
    Option<"minScale", "min-scale", "double", /*default=*/"0.0",
           "Lower bound of the dynamic scale (0 = none)"
           " (default: 0.0)">,
    Option<"maxScale", "max-scale", "double", /*default=*/"0.0",
           "Upper bound of the dynamic scale (0 = none)"
           " (default: 0.0)">,
    Option<"skipNonFinite", "skip-nonfinite", "bool", /*default=*/"true",
           "Skip the update of steps with non-finite gradients (static mode "
           "may turn it off; dynamic mode always skips)"
           " (default: true)">
  ];
}

def MPDataParallel : Pass<"mp-data-parallel", "ModuleOp"> {
  let summary = "All-reduce the gradients of a train step across a "
                "data-parallel group (shard dialect) and share one skip "
                "decision";
  let description = [{
    Makes each train step of the module (a function with one `mp.grad` in its
    body) a data-parallel one: every process runs it on its slice of the
    global batch, and the gradients the optimizers see are reduced across
    the group with upstream `shard.all_reduce` on a 1-D grid
    `shard.grid @mp_data_parallel`.

    Each gradient is taken where the step consumes it: the `mp.grad` result,
    or, after `mp-loss-scaling`, the end of the chain of `mp.cast`/`mp.scale`
    ops that unscale it (each link the only user of the previous value). So
    the order is: unscale in f32 → ×1/N (with `average`) → `mp.cast` to
    `reduce-type` → `shard.all_reduce` (sum) → `mp.cast` back to the
    gradient's type. Unscaling first keeps the scaled gradients, which
    dynamic loss scaling drives towards the top of the f16 range, out of the
    reduction, and dividing by N before summing keeps every partial sum
    within the largest operand's magnitude, so a bf16 reduction overflows
    only where the f32 mean would (bf16 has f32's exponent range); with f16,
    an unscaled gradient beyond f16's range becomes inf and the step is
    skipped like any other overflow.

    The `mp.all_finite` of `mp-loss-scaling` then checks the reduced
    gradients, and its result is combined across the group (found_inf as i32,
    `shard.all_reduce` max: a logical or), so every process takes the same
    skip decision and keeps the same loss-scale state. The `mp.loss` result
    is replaced by the mean of the processes' losses (the global batch's
    loss). Float batch-norm statistics (`mp.state` kinds `bn.*`) are
    process 0's at the start of the step, as DDP's `broadcast_buffers=True`:
    an all-reduce sum of (process 0 ? value : 0), since shard has no
    broadcast that lowers to MPI.

    Each process draws its own random numbers: the random ops read every
    `mp.state = "rng"` argument with the process's rank folded into the
    Philox key (`seed XOR rank << 32`, `shard.process_linear_index`), and the
    state the step returns carries the shared seed again, so the threaded
    state stays identical on every process (docs/Random.md).

    The grid has `grid-size` processes; 0 (the default) leaves its size
    dynamic (`shape = ?`, the divisor read with `shard.grid_shape`) for the
    runtime to fix: `mp-cpu-pipeline{grid-size=N}`, which mp-run sets to the
    number of MPI processes. Run the pass after `mp-loss-scaling` and before
    `mp-autodiff`. A function that already holds `shard.all_reduce` is left
    unchanged. Errors: a train step (a function with an `mp.loss` result)
    without `mp.grad`, several `mp.grad` ops or one inside a region, an
    invalid option, a symbol `@mp_data_parallel` that is not a 1-D grid of
    that size. See docs/DataParallel.md.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::shard::ShardDialect"];
  let options = [
    Option<"reduceType", "reduce-type", "std::string", /*default=*/"\"f32\"",
           "Element type gradients are all-reduced in: f32, bf16 or f16"
           " (default: f32)">,
    Option<"average", "average", "bool", /*default=*/"true",
           "Divide the summed gradients by the group size (the mean over the "
           "global batch); false keeps the sum"
           " (default: true)">,
    Option<"gridSize", "grid-size", "int64_t", /*default=*/"0",
           "Number of processes of the data-parallel group (0: known only "
           "at run time, shape = ?)"
           " (default: 0)">
  ];
}

def MPMasterWeights : Pass<"mp-master-weights", "ModuleOp"> {
  let summary = "Keep parameters as f32 masters and run the optimizer in f32";
  let description = [{
    Materialises FP32 master weights in a train step:

    - `style=cast-per-step` (PyTorch AMP): every `mp.param` argument becomes
      (or stays) an f32 master in the signature; where the body used it in a
      lower precision it is cast once per step; gradients are taken with
      respect to the master, so they reach the optimizer in f32;
    - `style=stored-copy` (Apex O2): each parameter the forward uses in a
      lower precision T gets a working copy argument of type T
      (`mp.state = "working_copy"`, `mp.copy_of = <master index>`); the
      forward and backward use the copy, its gradient is cast to f32 for the
      optimizer, and the copy is refreshed from the updated master and
      returned.

    In both styles the optimizer ops (`mp.sgd`, `mp.adam`, `mp.adamw`) and
    their state arguments run in f32. Run it after `mp-autocast` and before
    `mp-loss-scaling` and `mp-autodiff`. A function without parameters in a
    lower precision is left unchanged (so the pass is idempotent).

    It runs on the module and rewrites each `func.func` directly in it. A
    function whose signature it changes must not be referenced in the module
    (for example by a `func.call`): the caller cannot supply the new state,
    so such a reference is an error; write the caller after the pass.
  }];
  let options = [
    Option<"style", "style", "std::string", /*default=*/"\"cast-per-step\"",
           "Master-weight style: 'cast-per-step' (PyTorch AMP) or "
           "'stored-copy' (Apex O2)"
           " (default: cast-per-step)">,
    Option<"masterType", "master-type", "std::string", /*default=*/"\"f32\"",
           "Element type of master weights and optimizer state (f32)"
           " (default: f32)">
  ];
}

def MPBF16DotProducts : Pass<"mp-bf16-dot-products", "func::FuncOp"> {
  let summary = "Compute bf16 contractions with AVX512_BF16 dot products "
                "where that gives the same bits";
  let description = [{
    Gives every statically shaped bf16 x bf16 -> f32 contraction on tensors
    (`linalg.matmul`, `linalg.batch_matmul` and their transposed forms: one
    M, N and K loop, at most one batch loop, accumulating into a zero fill;
    M a multiple of 8, N of 32, K of 2) a second implementation on
    AVX512_BF16's `vdpbf16ps` (`x86vector.avx512.dot`), chosen at run time
    by a guard, so that the bits are always those of the contraction's own
    definition (each product rounded to f32, added in ascending K).

    `vdpbf16ps` computes, in each f32 lane and for its pair of bf16
    products, `acc = ftz(fma(a1, b1, acc))` then `acc = ftz(fma(a0, b0,
    acc))`, denormal inputs read as zero (measured over every input pattern:
    tools/bench/bf16_dot_semantics.c). The two elements of each K pair are
    swapped, which makes the order ascending K: A (as `[batch, M, K]` rows)
    is packed into `[batch, M/16, K/2, 16]` panels of 32-bit words, each
    pair rotated by 16 bits, a K pair's 16 rows one line; B (as
    `[batch, K, N]`) into `[batch, N/16, K/2, 16]` panels of words, each K
    pair of rows interleaved as (2p + 1, 2p). An operand stored transposed
    (A as `[batch, K, M]`, the x of a weight gradient xᵀ·dy; B as
    `[batch, N, K]`, the W of x·Wᵀ) is packed in place with the other
    operand's method, which gives the same words; one stored in any other
    order is copied into the canonical order first. The
    guard reduces both operands to the range of their biased
    exponents: with no denormal, infinite or NaN element and, over the
    nonzero ones, `min Ea + min Eb >= 142` and `max Ea + max Eb <= 380`,
    every product is a normal f32 (FMA and multiply-then-add agree) and
    every partial sum a multiple of a normal power of two (nothing to
    flush). Otherwise the original contraction runs (the `scf.if`'s else
    branch), which mp-tile-and-vectorize then tiles as usual.

    The kernel keeps a 16 x 16 f32 tile in 16 registers over the K pairs
    (one row of B and 16 dot instructions per pair, each with its row's
    word of A broadcast as the second source, which LLVM folds into
    `vdpbf16ps` as a memory operand). M must be a multiple of 16, the last
    N extent too, the last K extent even.
    With `parallel` its tile loops (batch, N panels, M tiles) are one
    `scf.forall` when the contraction has at least 8192 iterations, and so
    are the packings of A and B (one panel an iteration) and each of the guard's two
    reductions (up to 64 chunks of partial minima and maxima, combined
    after) for operands of at least 8192 elements.

    Convolutions get the same treatment: convert-mp-to-linalg's implicit
    GEMM (forward product and input gradient: one group, unit width
    stride, loops (n, oh, owb, r, f, c, kh, kw), summed over (c, kh, kw))
    whose f32 operands are widened copies of bf16 tensors (the padding
    scatter into a zero fill, the filter copy), with F a multiple of 16,
    C·KH·KW even and OW at most 64. The guard reduces the bf16 tensors; the
    kernel packs the filter and, per block of images, the padded input as
    32-bit words of bf16 pairs (K = 2p in the high half, taken from the
    widened elements' high halves: no rounding) and accumulates tiles of
    16 pixels x 16 filters over the K pairs, one broadcast word per pixel
    and dot product; with `parallel` the blocks of images are an
    `scf.forall`. The else branch is the implicit GEMM. Where the result's
    users all read it transposed to [N, F, OH, OW] (through its collapse
    to [N·OH·OW, F]) and an image's pixels are whole tiles of 16, the tiles
    are 16 filters x 16 pixels instead (one broadcast filter word per
    filter and dot) written in that layout, which the users then read
    directly (a user left copying it unchanged goes); the fallback's rows
    are copied to it. The im2col form of a width stride of 2 (panels of
    P pixels [N·OH·OW/P, C·KH·KW, P] times the filter, a
    `linalg.contract`) takes the same kernel, its packing reading the
    padded input (every second column); the im2col moves into the else
    branch. An operand may be a `tensor.extract_slice` of a widened copy
    (a strided input gradient's phases), guarded on its whole source. Implicit filter
    gradients (loops (kh, kw, c, f, n, oh, ow), summed over (n, oh, ow);
    C and F multiples of 16, a width stride of 1 or 2, OW even) pack the
    gradient's pairs as words for every image first (read from the bf16
    gradient [N, F, OH, OW] itself, 16 filters x 32 pixels rotated and
    transposed, where the f32 operand is its widened transpose, which then
    only the fallback computes), then per block of images (as many as
    `pair-words-budget` bytes of words hold, dividing N) each input row's
    words of two columns sw apart once per phase (what every (kh, kw) then
    broadcasts: a K pair is two neighbouring pixels), and each tile
    continues its sums image after image (from the op's zero fill); with
    `parallel` the gradient's words (one image and panel an iteration), a
    block's pair words (one image, phase and channel) and its tiles are
    each an `scf.forall` where they are large enough: two parallel loops a
    block, not two an image.

    It runs before mp-tile-and-vectorize, on a target with AVX512_BF16:
    mp-cpu-pipeline adds it where `bf16-dot-products` is on (by default
    where the host has AVX512_BF16).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect",
                           "::mlir::x86vector::X86VectorDialect"];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Make the tile loops of contractions of at least 8192 "
           "iterations one scf.forall (default: false)">,
    Option<"unguarded", "unguarded", "bool", /*default=*/"false",
           "For tests: replace each contraction by the packed kernel "
           "alone, without the guard and the fallback, which computes "
           "other bits where the guard would fail (default: false)">,
    Option<"pairWordsBudget", "pair-words-budget", "int64_t",
           /*default=*/"524288",
           "Bytes of input pair words a filter gradient makes before its "
           "tiles read them: images are taken in blocks of the most (at "
           "least one, dividing N) whose words fit; the bits do not depend "
           "on it (default: 524288, half a 1 MiB L2)">
  ];
}

def MPTileAndVectorize : Pass<"mp-tile-and-vectorize", "func::FuncOp"> {
  let summary = "Tile and vectorise linalg operations on tensors for the CPU";
  let description = [{
    CPU code generation for linalg on tensors (what `convert-mp-to-linalg`
    produces) whose size grows with the number of operations, not with the
    tensors': every loop of every statically shaped linalg operation is
    tiled with `scf.for` (by 1 unless it is in the vector), the unit loops
    of each tile are dropped, and the tile is vectorised
    (`linalg::vectorize`), so vectors are a few registers (16 lanes by
    default; M x N for contractions, the host's register tile: 16 x 16 on
    AVX-512 hosts, 32 registers of 16 f32 lanes, one accumulator register a
    row so that each broadcast A element folds into its multiplication; 4 x
    16 on others) whatever the tensor sizes.

    Each operation is vectorised along one loop: a parallel loop or its last
    reduction loop, the one most inputs have as their innermost (contiguous)
    dimension, then the one the outputs have; f64 sums of narrower values
    (batch norm's statistics) along the parallel loop their outputs have as
    innermost, where there is one: one vector addition advances that many
    independent sums, where an ordered f64 reduction along the vector would
    be one chain of dependent additions. Contractions whose vector loop
    is their N loop are tiled over M, N and K by `matmul-tile-sizes`: M rows
    of N-vectors accumulated over K one step at a time (K > 1 is reduced in
    order inside the tile). Their N operand (B of A·B or of A·Bᵀ) is first
    packed into panels of N-tile columns, `[N/16, ..., K, 16]` for a
    16-column tile (a `tensor.expand_shape` and a `linalg.transpose`: values
    moved exactly), with a new outermost loop over the panels: each K step
    reads one contiguous panel row, and all M tiles of a panel run while it
    is in cache. Their M operand (A), unless its rows are contiguous along
    K, is packed the same way into panels of M-tile rows, `[..., M/4, K, 4]`
    for 4 rows, with a loop over them inside the loop over B's panels: each
    K step reads the next M-tile elements of A; an A whose rows are
    contiguous along K is read where it is, one element of each of the M
    rows per K step. An operand the payload only extends (`arith.extf` of
    f16/bf16 operands) is extended while it is packed (an A read in place
    by an elementwise copy), so the tile reads f32
    (contractions with a single panel or an M extent below 4 M tiles
    are not packed; those whose operands are both contiguous along K get
    their N·K operand transposed instead).
    Elementwise operations that transpose (every output contiguous along
    one loop, an input of 32-bit elements, or of 16-bit ones the payload
    extends to 32 bits, contiguous along another: NCHW <-> N(HW)C around
    the convolutions) are tiled by a block of both loops, the last
    `tile-sizes` size each (16 x 16; not when a side would be below 4):
    the block's input rows are read, transposed in registers
    (`vector.transpose`, an extension first), the payload applied, and the
    output rows written. An input they read at linearised loops (`(n·28 +
    h)·28 + w, c` of a 25088x16 product, strides of a row-major array) is
    read through its `tensor.expand_shape` into those loops, and runs of
    loops consecutive in every operand (h and w) are collapsed into one
    (784 pixels, 49 blocks of 16); so are those of other elementwise
    operations whose outputs' rows are not a multiple of the vector (28
    pixels: vectors of 16, not 4). Not for results that are returned or
    operands that are slices (either would be copied). Values are only
    moved.
    Batch norm's statistics of NCHW tensors (f64 sums per channel of
    values contiguous along the pixels) whose pixels (h and w collapsed
    into one loop) and channels are multiples of the last `tile-sizes`
    size are transposed sums: the channel loop is made innermost, and a
    16 x 16 tile reads 16 pixels of 16 channels as rows, transposes them
    in registers, widens them and adds the 16 pixel rows to the channels'
    sums one after the other, each channel still summed in the order n,
    h, w (not with `parallel`: there a sum of one vector of channels is
    two tiles of half the vector instead, one per thread).
    The other operations are tiled by `tile-sizes`: the last size for the
    vector loop, the sizes before it for the parallel loops before it. A
    tile size that does not divide its loop's extent is lowered to the
    largest divisor of the extent below it, so every tile is full and no
    masking is needed; an M loop of at most twice the M tile whose divisors
    up to it are below half of it (a convolution panel's 7 pixels with an
    M tile of 4) is one tile. Accumulators stay in registers across
    reduction loops; sums carried across reduction loops outside the
    vector (a parallel vector loop, such as batch norm backward's per-lane
    sums) take 4 rows of the parallel loop before the vector unless
    `tile-sizes` sizes it, 4 independent chains in flight, and such an
    operation is tiled even when the vectoriser takes its combiner (a
    multiply-add) for no reduction: each tile is elementwise on its
    accumulators; a zero fill that only makes accumulators (a reshaped
    one, such as the panel output of a packed contraction, first becomes a
    fill of the reshaped type) is fused into
    the parallel tile loops of each contraction (the reduction loops tiled
    inside them afterwards), so the accumulators start from a zero vector
    and the result is neither filled in memory nor read back. An
    implicit-GEMM convolution (a generic adding the product of its padded
    input, read with sums of loops, and its filter, read with a projected
    permutation, to its output) is tiled as a contraction: its output's
    innermost loop (the filters) as N, the last parallel loop that the
    input and the output read and the filter does not (the pixels of an
    output row) as M, the reductions by 1 in their order; its tiles'
    maps are projected permutations once their unit loops are dropped.
    Where a reduction loop shifts the row of input a tile reads (kw, in
    `owb·P + r + kw·dw`), the tile reads its M input elements one by one
    (scalar reads, extended one by one where the payload extends them,
    each splat across its row) and that loop carries an LLVM loop
    annotation (`llvm.loop.unroll.disable`), so that LLVM neither splats
    the lanes of a vector load with shuffles nor, unrolling kw, loads an
    element two kw steps share once for two products: each product folds
    its own element into the multiplication (`vmulps m32{1to16}` on
    AVX-512).
    Operations the vectoriser rejects (dynamic shapes, unsupported
    bodies) are left as they are, for `convert-linalg-to-loops`; so are
    operations that read with `tensor.extract` from a slice with a non-unit
    stride (possibly reshaped), whose `vector.gather` would read a memref
    without a unit innermost stride, which has no LLVM lowering.

    The bits are those of the scalar loops (`vectorize=false` of
    mp-cpu-pipeline, test/Integration/Numerics/vectorize-identity.test):
    element types and roundings are kept (an f16 elementwise operation
    becomes f16 vector arithmetic, an `arith.truncf` stays a rounding), no
    fast-math flags are added, multiplications and additions stay separate
    operations (no FMA is formed where it would round differently), and
    every reduction adds its elements in the scalar loops' order: reductions
    outside the vector one step at a time, a reduction along the vector by
    an ordered `vector.reduction` into the accumulator. The one FMA formed
    is exact: a sum `c + a * b` whose factors are both f16 values widened
    (`arith.extf`, the FP16 AMP contractions) becomes `math.fma(a, b, c)`,
    because the product of two f16 values is exact in f32 (at most 22
    significant bits, exponent within f32's normal range), so rounding it
    separately rounds nothing (not for bf16 factors, whose products can
    leave f32's range, nor f32 ones). The register tile changes which
    elements a vector holds, never the order of a sum, so every
    `matmul-tile-sizes` computes the same bits. Operations on FP8 tensors are not vectorised
    (their conversions are lowered elementwise).

    With `parallel`, the leading parallel tile loops of an operation of at
    least 8192 iterations (as many of them as make 64 tiles, or all) are one
    `scf.forall` instead of `scf.for` loops, the other loops inside it as
    before; mp-cpu-pipeline's `threads` runs its iterations on threads
    (OpenMP). Each output element is still computed by one iteration, with
    its reductions in order inside it, so the bits do not depend on how the
    iterations are shared among threads.

    ```mlir
    // linalg.matmul ins(tensor<64x784xf32>, tensor<784x256xf32>) becomes
    // scf.for %m step 4 / scf.for %n step 16 around a vector<4x16xf32>
    // accumulator carried by scf.for %k step 1: a vector<4xf32> column of
    // A broadcast, times a vector<16xf32> row of B, added.
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::LLVM::LLVMDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect",
                           "::mlir::vector::VectorDialect"];
  let options = [
    ListOption<"matmulTileSizes", "matmul-tile-sizes", "int64_t",
               "Tile sizes of the M, N and K loops of contractions; the "
               "tile is M rows of N-element vectors, K > 1 is reduced in "
               "order inside the tile (default: the host's, 16,16,1 with "
               "AVX-512, else 4,16,1)">,
    ListOption<"tileSizes", "tile-sizes", "int64_t",
               "Tile sizes of the other linalg operations: the last one for "
               "the vector loop, the ones before for the parallel loops "
               "before it (default 16)">,
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Make the outermost parallel tile loops of every operation of at "
           "least 8192 iterations one scf.forall (default: false)">
  ];
}

def MPRematerializeFills : Pass<"mp-rematerialize-fills", "func::FuncOp"> {
  let summary = "Give each destination use of a shared constant fill its own "
                "fill before bufferization";
  let description = [{
    CSE shares identical fills of a constant (the zero accumulators of
    contractions of one shape, the zero tensors that padding scatters into),
    and one-shot bufferization then allocates and copies the filled buffer
    for every further use that writes into it (a `memref.copy` of zeros per
    use). This pass, run just before bufferization (after the last CSE,
    which would merge the fills again), gives every use of such a fill that
    may write into it (a destination operand: a DPS init, an `scf.for` or
    `scf.forall` initial value, also through `tensor.expand_shape` and
    `collapse_shape` ops, which CSE shares as well and which are cloned with
    it) a clone of the fill, placed right after it:
    writing the constant again costs half a copy (no reads), and the values
    are the same. The reshapes and fills no use reads any more are erased
    (a dead reshape of the original would keep it in place: the pipeline's
    `control-flow-sink`, which follows, moves a fill only one branch of an
    `scf.if` reads into that branch). A fill is a `tensor.empty` (the trivial fill: CSE shares
    the empties of one shape among hundreds of loops, and one-shot
    bufferization's analysis then compares every pair of their writers,
    quadratic in the model's size; runs of `destinations-per-empty`
    consecutive destinations share one clone, so that bufferization may
    still reuse a buffer within a run), a `linalg.fill` of a constant into a
    `tensor.empty` (or a reshape of one), or its tiled form after
    `mp-tile-and-vectorize`: a nest of `scf.for`/`scf.forall` loops whose
    bodies only write constants (and slice, yield and compute indices), its
    initial value such a `tensor.empty`. One destination use keeps the
    original fill when no other use only reads it.

    Before that, a parallel `linalg.generic` that scatters into a constant
    fill (the zero padding of a convolution: an output map of distinct loops
    plus constants, `(d0, d1, d2 + 1, d3 + 1)`, alone or fused with its
    producer, whose other outputs cover their tensors) writes every element
    of that tensor once: the generic writes its box in place (an
    `extract_slice` of a `tensor.empty` of its own, its map without the
    constants, its payload reading the fill's constant where it read the
    fill), inserted back, then one `linalg.fill` of the constant per slab
    around the box (per dimension, before and after the box, within the box
    in the dimensions before it; both as one slab of stride `size - 1` when
    each is one element wide, as a padding of 1 is). The values are the same; the fill of the
    whole tensor is erased once nothing else uses it. Nothing else changes.

    ```mlir
    %e = tensor.empty() : tensor<4x16xf32>
    %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
    %a = linalg.matmul ins(%x, %y : ...) outs(%z : tensor<4x16xf32>) -> ...
    %b = linalg.matmul ins(%u, %v : ...) outs(%z : tensor<4x16xf32>) -> ...
    // becomes: %b writes into its own %z2 = linalg.fill ... outs(%e2)
    ```
  }];
  let options = [
    Option<"destinationsPerEmpty", "destinations-per-empty", "unsigned",
           /*default=*/"64",
           "Consecutive destination uses of a shared tensor.empty that keep "
           "one clone of it (one-shot bufferization compares the writers of "
           "one tensor pairwise)">,
  ];
}

def MPDropFusionBarriers : Pass<"mp-drop-fusion-barriers", "func::FuncOp"> {
  let summary = "Replace the fusion barriers of convert-mp-to-linalg by their "
                "sources before bufferization";
  let description = [{
    convert-mp-to-linalg puts a `bufferization.alloc_tensor copy(%t)` marked
    `mp.fusion_barrier` between a copying generic (a transposed or widened
    operand) and the product that reads it, so that linalg's reshape
    propagation and elementwise fusion leave the two apart. Once fusion and
    tiling are done, the barrier has served its purpose, and bufferized it
    would be a whole-tensor `memref.copy` per use. This pass, run just before
    bufferization, replaces each marked `alloc_tensor` by its source (the
    same value in tensor semantics; one-shot bufferization still copies
    where an in-place write needs it). Unmarked `alloc_tensor` ops (a copy
    asked for by someone else) stay.

    ```mlir
    %b = bufferization.alloc_tensor() copy(%t) {mp.fusion_barrier} : tensor<8x16xf32>
    %r = linalg.matmul ins(%a, %b : ...) outs(...)
    // becomes: %r = linalg.matmul ins(%a, %t : ...) outs(...)
    ```
  }];
  let dependentDialects = ["bufferization::BufferizationDialect"];
}

def MPFoldOutParamCopies : Pass<"mp-fold-out-param-copies", "func::FuncOp"> {
  let summary = "Compute results returned as reshapes of allocations in "
                "their out-parameters, without the final copy";
  let description = [{
    `buffer-results-to-out-params` writes a result straight into its
    out-parameter where the function returns an allocation, but where it
    returns a reshape of one (an optimizer update computed in the
    `[heads, head_dim, d_model]` layout of its gradient and returned as
    `[d_model, d_model]`, say) it copies at the end of the function: a
    whole-buffer memcpy per result and call, on one thread. This pass makes
    such an allocation the inverse reshape of the out-parameter, so the ops
    that write it write the result in place, and erases the copy:

    ```mlir
    %a = memref.alloc() : memref<4x64x256xf32>
    call @update(%a, ...)
    %r = memref.collapse_shape %a [[0, 1], [2]] : memref<4x64x256xf32> into memref<256x256xf32>
    memref.copy %r, %out : memref<256x256xf32> to memref<256x256xf32>
    // becomes
    %a = memref.expand_shape %out [[0, 1], [2]] output_shape [4, 64, 256] : memref<256x256xf32> into memref<4x64x256xf32>
    call @update(%a, ...)
    ```

    It applies only where no one can tell: the target is a function
    argument used by nothing but the copy, the source a `collapse_shape`
    or `expand_shape` (used only by the copy) of a `memref.alloc` in the
    copy's block, both statically shaped with identity layouts, and every
    other use of the
    allocation, through views too, is before the copy in its block (or
    nested in an op that is), except deallocations, which are erased. It
    runs in `mp-cpu-pipeline` right after `buffer-results-to-out-params`.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def MPLinalgToLoops : Pass<"mp-linalg-to-loops", "func::FuncOp"> {
  let summary = "Lower linalg operations on buffers to loops: copies along "
                "a unit-stride loop as vector copies, the leading parallel "
                "loops of large operations as one scf.parallel";
  let description = [{
    What mp-cpu-pipeline runs instead of `convert-linalg-to-loops` on the
    linalg operations left after bufferization (those mp-tile-and-vectorize
    did not take, such as the im2col copies of convolutions, whose maps are
    not projected permutations; every operation with `vectorize=false`).
    Each becomes the `scf.for` nest of `convert-linalg-to-loops` (the same
    loops, bodies and order), except:

    - With `vector-copies`, an operation that only copies (its body yields
      its one input; float or at least 8-bit integer elements) along an
      innermost parallel loop that both memrefs walk at unit stride (their
      last index is that loop plus the others', the other indices do not
      depend on it, their innermost stride is 1) copies rows of that loop
      as `vector.transfer_read`/`transfer_write` (all of a row up to 64
      elements, else chunks of its largest divisor of 8 to 64 elements): the
      im2col's rows of output pixels, the padding's interior. So is a
      `memref.copy` between static memrefs that are not both contiguous
      (which the memref lowering leaves to the runtime's element-by-element
      `memrefCopy`), as a `linalg.copy`. Values are moved, never computed,
      so no bit changes. So does an elementwise map (all loops parallel,
      one output whose value the body does not read, a body of `arith` ops
      on floats of at least 16 bits and integers, read inputs and output of
      such elements, not i1, at unit stride): the rows of its inputs are
      read as vectors and the body's ops applied to them lane by lane (the
      same operations on the same values), such as the widening interior of
      a padding after `mp-rematerialize-fills`.
    - With `parallel`, of an operation with at least 8192 iterations that
      is not already inside an `scf.parallel` or `scf.forall`, the leading
      parallel loops (as many as make 64 iterations, or all leading parallel
      ones) are one `scf.parallel`, the loops inside them unchanged: each of
      its iterations runs the inner loops in their order, so every output
      element is computed as on one thread, with its reductions in order,
      and the bits do not depend on the number of threads. Other operations
      stay sequential: starting the threads would cost more than their work
      (mp-tile-and-vectorize uses the same sizes for its `scf.forall`
      loops). Upstream `convert-linalg-to-parallel-loops` makes every
      parallel loop of every operation one `scf.parallel`, which
      `convert-scf-to-openmp` collapses into one OpenMP loop that recomputes
      all its indices by division per element.

    ```mlir
    // linalg.generic over (n, c, h, w) = 32x16x28x28, all parallel, becomes
    // scf.parallel (%n, %c) = (0, 0) to (32, 16) { scf.for %h { scf.for %w { ... } } }
    ```
  }];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
  let options = [
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Make the leading parallel loops of operations of at least 8192 "
           "iterations one scf.parallel (default: false)">,
    Option<"vectorCopies", "vector-copies", "bool", /*default=*/"false",
           "Copy (or map elementwise) rows along a unit-stride innermost "
           "loop as vectors (default: false)">
  ];
}

def MPExportEntryPoints : Pass<"mp-export-entry-points", "ModuleOp"> {
  let summary = "Prepare public functions to be called from C by drivers";
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::LLVM::LLVMDialect"];
  let description = [{
    Makes the public functions of a module callable by drivers such as
    `mp-run` once the module is lowered:

    - every public `func.func` with a body gets `llvm.emit_c_interface`, so
      that lowering to LLVM adds a `_mlir_ciface_<name>` wrapper taking one
      memref descriptor pointer per argument;
    - its tensor-level signature is recorded as the function attribute
      `mp.signature`: a dictionary holding `function_type` and, where the
      function has `mp.*` argument or result attributes (the train-step
      contract of docs/TrainStep.md), `arg_attrs` and `res_attrs` with them.
      Those attributes are removed from the arguments and results: they
      describe tensors, and bufferization replaces the tensors by memrefs;
    - its tensor arguments are marked `bufferization.writable = false`: the
      caller's buffers are read-only (one-shot bufferization copies where it
      would otherwise write into them), so a driver may compare results with
      arguments and keep arguments it does not replace.

    Private and external functions are not entry points: they only lose
    their `mp.*` argument and result attributes (which would not verify on
    memrefs). In every function, a tensor returned more than once is
    returned as a copy (`bufferization.alloc_tensor copy`) from its second
    occurrence on, so that each result gets its own buffer (what
    `buffer-results-to-out-params` needs). A public function whose C
    interface name `_mlir_ciface_<name>` is already a symbol of the module is
    an error, and so is a function in a nested module (the CPU lowering
    handles the functions of the top-level module only).

    Run it on tensors, just before bufferization. Functions that already have
    `mp.signature` are left unchanged.

    For example, `func.func @step(%w: tensor<4xf32> {mp.param}) ->
    (tensor<4xf32> {mp.updates = 0 : i64})` keeps its types, loses its
    argument and result attributes, and gets `llvm.emit_c_interface` and an
    `mp.signature` whose `function_type` is `(tensor<4xf32>) ->
    tensor<4xf32>`, whose `arg_attrs` hold `{mp.param}` and whose `res_attrs`
    hold `{mp.updates = 0 : i64}`.
  }];
}

def MPAutodiff : Pass<"mp-autodiff", "func::FuncOp"> {
  let summary = "Expand mp.grad into explicit backward ops (reverse mode)";
  let description = [{
    Replaces every `mp.grad %loss wrt %v0, ...` by the backward computation
    of the ops between the differentiated values and the loss, in reverse
    order, built by each op through `DifferentiableOpInterface` (so an op
    states its gradient next to its definition):

    - the seed is 1.0 in the loss's type; a loss scaled by `mp.scale` (see
      `mp-loss-scaling`) is differentiated like any other op, so the seed is
      effectively S;
    - the adjoint of every value has the value's type: the adjoint of an
      `mp.cast` is cast back (f32 parameters used through f16 casts get f32
      gradients), the backward of a low-precision op runs in that precision
      (after `mp-autocast` the backward matmuls are f16/bf16 accumulating in
      f32, with transpose flags rather than explicit transposes), and a value
      used several times accumulates its adjoints with `mp.add` in its type;
    - labels, indices and scale factors get no gradient; a value the loss
      does not depend on gets zeros (`arith.constant dense<0.0>`), with a
      warning naming it;
    - only the ops on a path from a differentiated value to the loss are
      differentiated (no backward for batch data).

    Each `mp.grad` is expanded independently. The differentiated values must
    be defined in the block of the `mp.grad`, before it (function arguments
    or results of earlier ops). Errors, at the offending op: an op on the
    path without a gradient (ops of other dialects, ops with regions, the
    dialect's backward, gradient and optimizer ops — second-order
    differentiation is out of scope), a matmul, linear or conv2d of FP8
    operands, a loss that is not a 0-d float tensor. On an error the function is left
    as it was. Run it after `mp-autocast`, `mp-master-weights` and
    `mp-loss-scaling`.

    ```mlir
    // before: an f32 parameter used in f16
    %wh = mp.cast %w : tensor<2x4xf32> to tensor<2x4xf16>
    %y = mp.matmul %x, %wh transpose_rhs acc(f32)
        : tensor<8x4xf16>, tensor<2x4xf16> -> tensor<8x2xf16>
    %l = mp.cross_entropy %y, %labels : tensor<8x2xf16>, tensor<8xi64>
    %dw = mp.grad %l wrt %w : tensor<f16>, tensor<2x4xf32>
    // after: f16 backward accumulating in f32, f32 gradient
    %one = arith.constant dense<1.000000e+00> : tensor<f16>
    %dy = mp.cross_entropy_grad %one, %y, %labels
        : (tensor<f16>, tensor<8x2xf16>, tensor<8xi64>) -> tensor<8x2xf16>
    %dwh = mp.matmul %dy, %x transpose_lhs acc(f32)
        : tensor<8x2xf16>, tensor<8x4xf16> -> tensor<2x4xf16>
    %dw = mp.cast %dwh : tensor<2x4xf16> to tensor<2x4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

/// Options that define an autocast policy, shared by mp-autocast and
/// mp-precision-report (so the report's categories are the policy's).
defvar MP_AutocastPolicyOptions = [
  Option<"policyFile", "policy-file", "std::string", /*default=*/"\"\"",
         "JSON policy file: {\"compute-type\", \"level\", \"defaults\", "
         "\"allow\", \"deny\", \"promote\", \"clear\"} (docs/Autocast.md)"
         " (default: none)">,
  ListOption<"allow", "allow", "std::string",
             "Op names (any dialect) moved to the allow list: run in the "
             "compute type, accumulate in f32"
             " (default: empty)">,
  ListOption<"deny", "deny", "std::string",
             "Op names (any dialect) moved to the deny list: run in f32"
             " (default: empty)">,
  ListOption<"promote", "promote", "std::string",
             "Op names (any dialect) moved to the promote list: run in the "
             "widest float type among their inputs"
             " (default: empty)">,
  ListOption<"clear", "clear", "std::string",
             "Op names (any dialect) moved to the clear list: run in the "
             "type of their inputs"
             " (default: empty)">
];

def MPFP8Scaling : Pass<"mp-fp8-scaling", "ModuleOp"> {
  let summary = "Run the hidden matmuls of a train step in FP8 or FP4 with "
                "Transformer Engine's recipes (per-tensor delayed or current "
                "scaling, MXFP8, FP8 block scaling, NVFP4)";
  let description = [{
    Quantises the operands of matmul-like ops to FP8, forward and backward, on
    the joint graph of a train step (run it after `mp-autodiff`, where the
    backward matmuls are explicit, so no FP8 adjoint is needed):

    - **Which ops.** The forward ops are those the `mp.loss` result depends
      on. Among the forward ops of the kinds in `ops` (default `matmul`,
      `linear`) with f32/f16/bf16 operands, the *first layer* is every such op
      whose operands depend on no other such op, the *last layer* every such
      op whose result reaches no other such op; they stay in their precision
      unless `include-first-last` is set. The backward matmuls of a chosen
      op F (the `dx`/`dW` `mp.matmul`s mp-autodiff built) are found by their
      operands: one is an operand of F (possibly through `mp.reshape`), the
      other the gradient of F's result.
    - **Quantisation.** Each FP8 operand x becomes
      `mp.cast (mp.scale x_f32 by s) saturate` (through f32, from the f32
      source of an `mp.cast` when x is one). Forward operands are E4M3;
      gradient operands are E5M2 with `format=hybrid`, E4M3 with
      `format=e4m3`; a backward matmul reuses the FP8 copy of its forward
      operand. The FP8 op accumulates in f32 with an f32 result, which is
      multiplied by `1/(s_a·s_b)` (f32) and cast to the original result type;
      a `linear`'s bias is added in f32 before that cast.
    - **Scales.** Each FP8 tensor (per layer: input, weight, gradient of the
      output) has its own scale. `recipe=delayed`: the step uses the scale
      argument `tensor<f32> {mp.state = "fp8.scale", mp.init = 1.0}`, records
      `mp.amax` of the tensor in its history argument
      `tensor<Nxf32> {mp.state = "fp8.amax_history"}` (N =
      `amax-history-len`, zeros) with `mp.amax_history_push`, and returns the
      next step's scale `mp.fp8_scale` of the new history (`(fp8_max / amax) /
      2^margin`, the old scale when amax is 0 or not finite) as `mp.updates`
      results. In a data-parallel module (the `shard.grid @mp_data_parallel`
      of mp-data-parallel) each amax is first all-reduced (max) over the
      grid, unless `reduce-amax=false`. `recipe=current`: the scale is
      `mp.fp8_scale` of this step's amax (1.0 when it is 0 or not finite;
      `power-2-scale` and `amax-epsilon` as Transformer Engine's QParams);
      no state.
    - **Block-scaled recipes** (Transformer Engine's MXFP8BlockScaling,
      Float8BlockScaling and NVFP4BlockScaling). Each GEMM of a chosen layer
      (the forward op, its `dx` and `dW` matmuls) becomes an
      `mp.scaled_matmul` whose operands are each `mp.block_quantize`d from
      the high-precision tensor with blocks along that GEMM's contraction
      dimension, so the row-wise copy of a tensor (forward) and its
      column-wise copy (weight gradient) are separate quantisations, as in
      TE. `recipe=mxfp8`: 1×32 blocks, E8M0 scales (rounded up), E4M3 data
      (`format=hybrid`: E5M2 gradients), `weight-blocks=2d`: 32×32 weight
      tiles. `recipe=fp8-block`: 1×128 blocks for inputs and gradients,
      128×128 weight tiles (`weight-blocks=1d`: 1×128), power-of-two f32
      scales, E4M3 (`format=hybrid`: E5M2 gradients); the block-scaled
      GEMMs accumulate in f32 (TE's split accumulation). `recipe=nvfp4`:
      f4E2M1FN data with 1×16 blocks of E4M3 scales and the f32 tensor
      scale `448·6 / amax` (1 when the amax or the scale is 0, at most
      FLT_MAX), 16×16 weight tiles (`weight-blocks=1d`: 1×16), gradients
      rounded stochastically with `mp.random_bits` of an appended state
      argument `tensor<2xi64> {mp.state = "rng"}` (not reverted on a
      skipped step), and the weight-gradient GEMM's operands transformed by
      TE's 16×16 random Hadamard matrix (its sign vector, scaled by 1/4)
      along the contraction dimension first; the product is multiplied by
      `1/(g_a·g_b)`; `disable-stochastic-rounding` and `disable-rht` turn
      the two off as TE's recipe fields do. The NVFP4 stream is the rng
      argument's with the top bit of its seed flipped, independent of a
      dropout's. fp8-block gives a dimension that is not a multiple of 128
      a partial last block, as TE's kernels do: the operand is padded with
      zeros to whole blocks (the scales of a partial block are those of its
      elements) and the GEMM's result sliced back. With mxfp8 and nvfp4 a
      layer whose GEMM has a contraction dimension (or a weight tile
      dimension) that is not a multiple of the block stays in its precision
      with a warning (TE's MXFP8 and NVFP4 quantizers refuse such shapes).
      No amax history, no other state.
    - **Skipped steps.** When the function has an `mp.skipped` result
      (mp-loss-scaling), each new state result selects its argument on a
      skipped step, like every other `mp.updates` result.

    State arguments are appended after the existing ones, per FP8 op in
    forward order: history and scale of the input, of the weight, of the
    output gradient. Functions without an `mp.loss` result are left alone;
    ops already in FP8 are not touched, so running the pass twice changes
    nothing. Errors: `mp.grad` still present, a matmul-like op in a nested
    region, a function that is not a single block, invalid options. A
    backward matmul that cannot be attributed to one FP8 op stays in its
    precision with a warning. See docs/FP8.md.

    It runs on the module and rewrites each `func.func` directly in it. A
    function whose signature it changes must not be referenced in the module
    (for example by a `func.call`): the caller cannot supply the new state,
    so such a reference is an error; write the caller after the pass.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::shard::ShardDialect",
                           "::mlir::tensor::TensorDialect"];
  let options = [
    Option<"recipe", "recipe", "std::string", /*default=*/"\"delayed\"",
           "Scaling recipe: 'delayed' (scale from an amax history threaded "
           "through the signature), 'current' (scale from this step's "
           "amax), or the block-scaled 'mxfp8', 'fp8-block' and 'nvfp4'"
           " (default: delayed)">,
    Option<"format", "format", "std::string", /*default=*/"\"default\"",
           "FP8 formats: 'hybrid' (E4M3 forward operands, E5M2 gradients) or "
           "'e4m3' (E4M3 everywhere); 'default' is hybrid for delayed and "
           "current, e4m3 for mxfp8 and fp8-block (nvfp4 takes no format)"
           " (default: default)">,
    Option<"weightBlocks", "weight-blocks", "std::string",
           /*default=*/"\"default\"",
           "Block-scaled recipes: weight blocks '1d' (as the other operands) "
           "or '2d' (square tiles: 32x32 mxfp8, 128x128 fp8-block, 16x16 "
           "nvfp4); 'default' is 1d for mxfp8, 2d for fp8-block and nvfp4"
           " (default: default)">,
    Option<"amaxHistoryLen", "amax-history-len", "int64_t",
           /*default=*/"1024",
           "Length of each amax history (recipe=delayed only)"
           " (default: 1024)">,
    Option<"amaxCompute", "amax-compute", "std::string", /*default=*/"\"max\"",
           "Amax from the history: 'max' (of the whole history) or "
           "'most-recent' (recipe=delayed only)"
           " (default: max)">,
    Option<"margin", "margin", "int64_t", /*default=*/"0",
           "Scale margin: the scale is (fp8_max / amax) / 2^margin (>= 0)"
           " (default: 0)">,
    Option<"power2Scale", "power-2-scale", "bool", /*default=*/"false",
           "Round each scale down to a power of two (recipe=current only; "
           "Transformer Engine's power_2_scale)"
           " (default: false)">,
    Option<"amaxEpsilon", "amax-epsilon", "double", /*default=*/"0.0",
           "Raise a smaller amax to this value first (recipe=current: the "
           "tensor's amax; recipe=fp8-block: each block's; Transformer "
           "Engine's amax_epsilon, >= 0)"
           " (default: 0)">,
    Option<"fp32Scales", "fp32-scales", "bool", /*default=*/"false",
           "recipe=fp8-block: f32 block scales that are not rounded to a "
           "power of two (Transformer Engine's QParams power_2_scale=False, "
           "NVTE_FP8_BLOCK_SCALING_FP32_SCALES=1)"
           " (default: false)">,
    Option<"disableStochasticRounding", "disable-stochastic-rounding",
           "bool", /*default=*/"false",
           "recipe=nvfp4: round gradients to nearest too (Transformer "
           "Engine's disable_stochastic_rounding, "
           "NVTE_NVFP4_DISABLE_STOCHASTIC_ROUNDING)"
           " (default: false)">,
    Option<"disableRht", "disable-rht", "bool", /*default=*/"false",
           "recipe=nvfp4: no random Hadamard transform of the wgrad operands "
           "(Transformer Engine's disable_rht, NVTE_NVFP4_DISABLE_RHT)"
           " (default: false)">,
    Option<"reduceAmax", "reduce-amax", "bool", /*default=*/"true",
           "recipe=delayed in a data-parallel module (mp-data-parallel's "
           "grid): all-reduce each amax (max) over the grid, so every "
           "process has the same scales (Transformer Engine's reduce_amax)"
           " (default: true)">,
    ListOption<"ops", "ops", "std::string",
               "Kinds of forward ops that go to FP8: matmul, linear, "
               "batch_matmul (default matmul,linear)">,
    Option<"includeFirstLast", "include-first-last", "bool",
           /*default=*/"false",
           "Also quantise the first and the last layer"
           " (default: false)">
  ];
}

def MPAutocast : Pass<"mp-autocast", "ModuleOp"> {
  let summary = "Run each op in the precision of its autocast category, with "
                "as few mp.cast ops as possible";
  let description = [{
    The compiler equivalent of `torch.autocast` (and of TensorFlow's
    auto_mixed_precision rewrite), applied to every function of the module
    ahead of time. Each op falls in a category of the policy, looked up by
    op name, so ops of any dialect can be listed:

    - allow: runs in the compute type (f16 or bf16) and accumulates in f32 —
      matmul, batch_matmul, linear, conv2d and their backward convolutions,
      linalg.matmul and linalg.batch_matmul. The result has the compute type
      (linalg ops keep the type of their `outs` operand, their accumulator),
      except that an mp contraction whose result only reaches f32 consumers
      (directly or through clear and promote ops, which then run in f32)
      returns its f32 accumulator instead of an f16 value widened back.
    - deny: runs in f32 — exp, log, pow, rsqrt, softmax, log_softmax,
      layer_norm, rms_norm, reduce_sum, reduce_mean, the losses and the
      backward ops of these.
    - promote: runs in the widest float type among its inputs — add, sub,
      mul, div, concat, maximum, minimum and the backward ops of the last two.
    - clear: runs in the type of its inputs — every other computing op of
      the dialect (relu, neg, tanh, sigmoid, gelu, sqrt, transpose, reshape,
      broadcast, slice, embedding, reduce_max and their backward ops).

    The training and precision ops (`mp.grad`, the optimizers, `mp.cast`,
    `mp.scale`, the loss-scale and FP8 ops) and terminators are never
    changed; ops that are in no list, ops with regions and ops computing in
    FP8 are left as they are. Integer tensors are never cast. Where an op's
    result type changes, users that are not rewritten get a cast back to the
    original type, so function signatures never change.

    Casts are minimised: one `mp.cast` per (value, type), placed after the
    value's definition and shared by every user (a weight used by several
    matmuls is cast once); low precision flows through clear ops; a reshape,
    transpose, broadcast, relu or neg whose users all run in the compute type
    runs in it too (the cast moves before it, where it is often shared); no
    cast where the type already fits; a round trip such as f32 → f16 → f32
    is never folded. Running the pass on its own output changes nothing.

    Per-op control: `mp.precision = "f32" | "f16" | "bf16"` pins an op's
    execution type; `mp.autocast = false` on an op, an op with regions or a
    function leaves everything below it alone, and `mp.autocast = true`
    re-enables autocast inside. The defaults, the policy file format and the
    cast rules are described in docs/Autocast.md.

    ```mlir
    %y = mp.matmul %x, %w acc(f32) : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
    %z = mp.matmul %y, %w acc(f32) : tensor<8x4xf32>, tensor<4x4xf32> -> tensor<8x4xf32>
    return %z : tensor<8x4xf32>
    // becomes (%y feeds an f16 matmul; %z only the f32 return)
    %xh = mp.cast %x : tensor<8x4xf32> to tensor<8x4xf16>
    %wh = mp.cast %w : tensor<4x4xf32> to tensor<4x4xf16>
    %y = mp.matmul %xh, %wh acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf16>
    %z = mp.matmul %y, %wh acc(f32) : tensor<8x4xf16>, tensor<4x4xf16> -> tensor<8x4xf32>
    return %z : tensor<8x4xf32>
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::mp::MPDialect"];
  let options = !listconcat([
    Option<"computeType", "compute-type", "std::string", /*default=*/"\"\"",
           "Low-precision compute type of allow-list ops: f16 or bf16 "
           "(default: the policy file's, else f16)">,
    Option<"level", "level", "std::string", /*default=*/"\"\"",
           "'default', or 'tensor-cores-only': only allow-list ops change "
           "precision (default: the policy file's, else default)">
  ], MP_AutocastPolicyOptions);
  let statistics = [
    Statistic<"numCasts", "casts", "Number of mp.cast ops inserted">,
    Statistic<"numRewritten", "rewritten-ops",
              "Number of ops whose precision changed">
  ];
}

def MPPrecisionReport : Pass<"mp-precision-report", "ModuleOp"> {
  let summary = "Report each op's precision, the casts and the memory of a "
                "train step";
  let description = [{
    Writes, for each function of the module, a report of its precision and
    memory, without changing the IR:

    - every op with its autocast category (allow, deny, promote, clear;
      exempt for the training and precision ops and terminators; unknown for
      ops with float operands that are in no list; none for the others), its
      execution type (the element type of its float operands) and its
      accumulation type where it has one, and whether it is pinned
      (`mp.precision`) or disabled (`mp.autocast = false`);
    - the `mp.cast` ops grouped by (from → to), each with its location and
      the value it casts;
    - the ops autocast does not know (category unknown);
    - bytes by element type of the parameters (`mp.param` arguments), their
      working copies (`mp.cast` of a parameter), the gradients (results of
      `mp.grad`, or the gradient operands of the optimizer ops once
      `mp.grad` is expanded), the optimizer state (`mp.state` arguments) and
      the activations: values of the forward pass live across the forward →
      backward boundary (before `mp-autodiff`, the results of the ops
      `mp.grad`'s loss depends on; after it, results of the ops the
      `mp.loss` result depends on that other ops use as well; constants and
      working copies excluded), with totals.

    With `data-parallel-processes=N`, a communication section gives the
    number of gradient elements and, for each reduce type (f32, bf16, f16),
    the bytes each process sends per step in a ring all-reduce of the
    gradients over N processes, 2·(N−1)/N × gradient bytes, and the bytes
    the function's own `shard.all_reduce` ops reduce (after
    `mp-data-parallel`).

    The report is printed as a table to `table-output` (stdout by default)
    and, when `output` is given, written as JSON (format in
    docs/Autocast.md). The category options are those of `mp-autocast`, so
    that the report uses the same policy.
  }];
  let options = !listconcat([
    Option<"output", "output", "std::string", /*default=*/"\"\"",
           "File to write the JSON report to ('-' for stdout; none when "
           "empty)"
           " (default: empty)">,
    Option<"tableOutput", "table-output", "std::string", /*default=*/"\"-\"",
           "File to print the readable table to ('-' for stdout, the "
           "default; none when empty)">,
    Option<"dataParallelProcesses", "data-parallel-processes", "int64_t",
           /*default=*/"0",
           "Add the bytes each of N data-parallel processes sends per step "
           "to all-reduce the gradients in a ring, 2(N-1)/N x gradient "
           "bytes, for reduce types f32, bf16 and f16 (0: no communication "
           "section; docs/DataParallel.md)"
           " (default: 0)">
  ], MP_AutocastPolicyOptions);
}

#endif // MP_DIALECT_MP_TRANSFORMS_PASSES_TD
