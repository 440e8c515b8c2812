//===- TensorCoreKernelSpec.cpp - Tiles and checks of GEMM kernels --------===//
//
// Default tiles per instruction family, the checks that make a tile
// buildable (divisibility, threads, shared memory of the chip), the shared-
// memory geometry of the operand tiles, kernel names, and the command-line
// values of the Tensor Core options.
//
// Defaults: mma.sync uses 128×128 block tiles of 8 warps (64×32 warp tiles)
// with K slices of 64 bytes per row (32 f16, 16 tf32, 64 8-bit elements;
// 32 bytes for warp tiles of 64×64, which spill with two K steps) in
// 3 stages; wgmma uses 128×128 block tiles of 2 warpgroups with K slices of
// 128 bytes per row (one 128-byte swizzle atom) in 4 stages; tcgen05 uses
// 128×128 block tiles of 4 warps with the accumulator in 128 columns of
// Tensor Memory and the wgmma K slices and stages (block-scaled packed FP4:
// slices of 256 elements in 2 stages, room for the packed copy).
//
//===----------------------------------------------------------------------===//

#include "TensorCoreKernels.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/ScopedPrinter.h"

using namespace mlir;
using namespace mlir::mp;

//===----------------------------------------------------------------------===//
// Option values
//===----------------------------------------------------------------------===//

StringRef mlir::mp::stringifyTensorCoreChip(TensorCoreChip chip) {
  switch (chip) {
  case TensorCoreChip::sm80:
    return "sm_80";
  case TensorCoreChip::sm86:
    return "sm_86";
  case TensorCoreChip::sm89:
    return "sm_89";
  case TensorCoreChip::sm90a:
    return "sm_90a";
  case TensorCoreChip::sm100a:
    return "sm_100a";
  case TensorCoreChip::sm120a:
    return "sm_120a";
  }
  llvm_unreachable("unknown chip");
}

StringRef mlir::mp::stringifyTensorCoreFormat(TensorCoreFormat format) {
  switch (format) {
  case TensorCoreFormat::automatic:
    return "auto";
  case TensorCoreFormat::f16:
    return "f16";
  case TensorCoreFormat::bf16:
    return "bf16";
  case TensorCoreFormat::tf32:
    return "tf32";
  case TensorCoreFormat::e4m3:
    return "e4m3";
  case TensorCoreFormat::e5m2:
    return "e5m2";
  case TensorCoreFormat::s8:
    return "s8";
  case TensorCoreFormat::e2m3:
    return "e2m3";
  case TensorCoreFormat::e3m2:
    return "e3m2";
  case TensorCoreFormat::e2m1:
    return "e2m1";
  }
  llvm_unreachable("unknown format");
}

llvm::cl::ValuesClass mlir::mp::getTensorCoreChipValues() {
  return llvm::cl::values(
      clEnumValN(TensorCoreChip::sm80, "sm_80", "A100 (Ampere): mma.sync"),
      clEnumValN(TensorCoreChip::sm86, "sm_86",
                 "RTX 30xx, A10 (Ampere): mma.sync"),
      clEnumValN(TensorCoreChip::sm89, "sm_89",
                 "L4, RTX 40xx (Ada): mma.sync, FP8"),
      clEnumValN(TensorCoreChip::sm90a, "sm_90a",
                 "H100, H200 (Hopper): wgmma, mma.sync, FP8"),
      clEnumValN(TensorCoreChip::sm100a, "sm_100a",
                 "B200, GB200 (Blackwell): tcgen05, mma.sync, FP8"),
      clEnumValN(TensorCoreChip::sm120a, "sm_120a",
                 "RTX 50xx, RTX PRO 6000 (Blackwell): mma.sync, FP8"));
}

llvm::cl::ValuesClass mlir::mp::getTensorCoreFormatValues() {
  return llvm::cl::values(
      clEnumValN(TensorCoreFormat::automatic, "auto",
                 "from each matmul's operand types"),
      clEnumValN(TensorCoreFormat::f16, "f16", "f16 operands"),
      clEnumValN(TensorCoreFormat::bf16, "bf16", "bf16 operands"),
      clEnumValN(TensorCoreFormat::tf32, "tf32",
                 "f32 operands rounded to TF32"),
      clEnumValN(TensorCoreFormat::e4m3, "e4m3", "f8E4M3FN operands"),
      clEnumValN(TensorCoreFormat::e5m2, "e5m2", "f8E5M2 operands"),
      clEnumValN(TensorCoreFormat::s8, "s8", "int8 operands"));
}

llvm::cl::ValuesClass mlir::mp::getTensorCoreInstructionValues() {
  return llvm::cl::values(
      clEnumValN(TensorCoreInstruction::automatic, "auto",
                 "wgmma on sm_90a, tcgen05 on sm_100a where possible, else "
                 "mma.sync"),
      clEnumValN(TensorCoreInstruction::mmaSync, "mma-sync",
                 "warp-level mma.sync"),
      clEnumValN(TensorCoreInstruction::wgmma, "wgmma",
                 "warpgroup-level wgmma.mma_async (sm_90a)"),
      clEnumValN(TensorCoreInstruction::tcgen05, "tcgen05",
                 "single-thread tcgen05.mma into Tensor Memory (sm_100a)"));
}

llvm::cl::ValuesClass mlir::mp::getTensorCoreMainloopValues() {
  return llvm::cl::values(
      clEnumValN(TensorCoreMainloop::automatic, "auto",
                 "tma-warp-specialized where it applies (wgmma or tcgen05, "
                 "16-byte aligned rows, not tf32 with wgmma), else cp-async"),
      clEnumValN(TensorCoreMainloop::tmaWarpSpecialized,
                 "tma-warp-specialized",
                 "TMA loads by one thread into an mbarrier ring: a producer "
                 "warp and consumer warpgroups with 2 wgmma groups in flight "
                 "(sm_90a), the MMA thread freeing stages by tcgen05.commit "
                 "(sm_100a)"),
      clEnumValN(TensorCoreMainloop::cpAsync, "cp-async",
                 "cp.async from every thread, wgmma.wait_group 0 or an "
                 "mbarrier wait per slice (tcgen05)"));
}

llvm::cl::ValuesClass mlir::mp::getGPUBinaryFormatValues() {
  return llvm::cl::values(
      clEnumValN(GPUBinaryFormat::isa, "isa", "PTX text"),
      clEnumValN(GPUBinaryFormat::bin, "bin", "cubin (runs ptxas)"),
      clEnumValN(GPUBinaryFormat::fatbin, "fatbin",
                 "PTX and cubin (runs ptxas and fatbinary)"));
}

//===----------------------------------------------------------------------===//
// Geometry
//===----------------------------------------------------------------------===//

int64_t mlir::mp::getFormatByteWidth(TensorCoreFormat format) {
  switch (format) {
  case TensorCoreFormat::f16:
  case TensorCoreFormat::bf16:
    return 2;
  case TensorCoreFormat::tf32:
    return 4;
  case TensorCoreFormat::e4m3:
  case TensorCoreFormat::e5m2:
  case TensorCoreFormat::s8:
  case TensorCoreFormat::e2m3: // FP6 and FP4: one element per byte in memory
  case TensorCoreFormat::e3m2:
  case TensorCoreFormat::e2m1:
    return 1;
  case TensorCoreFormat::automatic:
    break;
  }
  llvm_unreachable("no byte width for format auto");
}

int64_t SharedTileGeometry::bytes() const {
  // Swizzled tiles have no padding: `rowBytes / 128` columns of `rows` rows.
  return rows * (swizzled ? rowBytes : pitchBytes);
}

SharedTileGeometry
mlir::mp::getSharedTileGeometry(const TensorCoreKernelSpec &spec, bool lhs) {
  int64_t elementBytes =
      getFormatByteWidth(lhs ? spec.lhsFormat : spec.rhsFormat);
  int64_t mnExtent = lhs ? spec.blockM : spec.blockN;
  bool kContiguous = lhs ? spec.lhsKContiguous : spec.rhsKContiguous;
  SharedTileGeometry geometry;
  geometry.rows = kContiguous ? mnExtent : spec.blockK;
  geometry.rowBytes = (kContiguous ? spec.blockK : mnExtent) * elementBytes;
  if (spec.useWgmma || spec.useTcgen05) {
    geometry.swizzled = true;
    geometry.pitchBytes = 128;
    return geometry;
  }
  // Scalar fragment loads of 32-bit elements read rows t and columns g
  // (t < 4, g < 8) at once: a pitch of 8 (mod 32) words spreads them over all
  // banks. ldmatrix reads 8 rows of 16 bytes: an odd number of 16-byte
  // chunks per pitch does.
  if (elementBytes == 4 && !kContiguous) {
    int64_t words = geometry.rowBytes / 4;
    geometry.pitchBytes = geometry.rowBytes + ((8 - words % 32 + 32) % 32) * 4;
  } else {
    geometry.pitchBytes =
        geometry.rowBytes + ((geometry.rowBytes / 16) % 2 == 0 ? 16 : 0);
  }
  return geometry;
}

bool mlir::mp::canWgmmaReadOperands(const TensorCoreKernelSpec &spec) {
  auto readable = [](TensorCoreFormat format, bool kContiguous) {
    return kContiguous || getFormatByteWidth(format) == 2;
  };
  return readable(spec.lhsFormat, spec.lhsKContiguous) &&
         readable(spec.rhsFormat, spec.rhsKContiguous);
}

//===----------------------------------------------------------------------===//
// TensorCoreKernelSpec
//===----------------------------------------------------------------------===//

int64_t TensorCoreKernelSpec::numThreads() const {
  if (useTcgen05)
    return blockM; // one thread per accumulator row (Tensor Memory lane)
  if (useWgmma)
    return (blockM / 64 + (useTma ? 1 : 0)) * 128;
  return (blockM / warpM) * (blockN / warpN) * 32;
}

int64_t TensorCoreKernelSpec::producerRegisters() const { return 40; }

int64_t TensorCoreKernelSpec::consumerRegisters() const {
  // 65536 registers per SM; setmaxnreg counts are multiples of 8, at most
  // 256 (CUTLASS: 40 for the producer, 232 for two consumer warpgroups).
  int64_t consumers = blockM / 64;
  int64_t perThread = (65536 / 128 - producerRegisters()) / consumers;
  return std::min<int64_t>(232, perThread / 8 * 8);
}

int64_t TensorCoreKernelSpec::stageBytes() const {
  return getSharedTileGeometry(*this, /*lhs=*/true).bytes() +
         getSharedTileGeometry(*this, /*lhs=*/false).bytes();
}

int64_t TensorCoreKernelSpec::epilogueStagingOffset() const {
  // tcgen05: the stages, (block-scaled) the packed FP4 tiles and the scale
  // atoms, then the mbarrier (8 bytes) and the Tensor Memory address
  // tcgen05.alloc writes (4 bytes).
  // TMA: the stages, then a "full" and an "empty" mbarrier per stage.
  // Block-scaled mma.sync: the stages, then the scales of two K slices.
  int64_t blockScaled = 0;
  if (isBlockScaled())
    blockScaled = packedTileBytes(/*lhs=*/true) +
                  packedTileBytes(/*lhs=*/false) + scaleStagingBytes();
  return stages * stageBytes() + blockScaled + (useTcgen05 ? 16 : 0) +
         (useTma ? 16 * stages : 0);
}

int64_t TensorCoreKernelSpec::epilogueStagingBytes() const {
  // 16 rows per consumer warp (block-m / 16 warps).
  return useStmatrixEpilogue ? blockM / 16 * 16 * kEpilogueStagingPitch : 0;
}

int64_t TensorCoreKernelSpec::sharedMemoryBytes() const {
  return epilogueStagingOffset() + epilogueStagingBytes();
}

int64_t TensorCoreKernelSpec::tensorMemoryColumns() const {
  int64_t columns = blockN;
  if (isBlockScaled())
    columns += scaleColumns(/*lhs=*/true) + scaleColumns(/*lhs=*/false);
  return std::max<int64_t>(32, llvm::PowerOf2Ceil(columns));
}

int64_t TensorCoreKernelSpec::scaleGroups() const {
  return blockK / scaleBlockK / 4;
}

int64_t TensorCoreKernelSpec::scaleColumns(bool lhs) const {
  return scaleGroups() * 4 * llvm::divideCeil(lhs ? blockM : blockN, 128);
}

bool TensorCoreKernelSpec::packsFP4() const {
  return useTcgen05 && (blockScale == BlockScaleKind::mxf4 ||
                        blockScale == BlockScaleKind::mxf4nvf4);
}

int64_t TensorCoreKernelSpec::packedTileBytes(bool lhs) const {
  return packsFP4() ? (lhs ? blockM : blockN) * blockK / 2 : 0;
}

int64_t TensorCoreKernelSpec::scaleStagingBytes() const {
  // tcgen05: 512 bytes per atom (128 rows x 4 scale blocks). mma.sync: one
  // byte per scale of the block's rows of A and B, for two K slices.
  if (useTcgen05)
    return (scaleColumns(/*lhs=*/true) + scaleColumns(/*lhs=*/false)) / 4 *
           512;
  return 2 * (blockM + blockN) * (blockK / scaleBlockK);
}

int64_t TensorCoreKernelSpec::wgmmaInstructionsPerSlice() const {
  return blockK * getFormatByteWidth(lhsFormat) / 32;
}

bool TensorCoreKernelSpec::usesFP8() const {
  auto isFP8 = [](TensorCoreFormat format) {
    return format == TensorCoreFormat::e4m3 || format == TensorCoreFormat::e5m2;
  };
  return isFP8(lhsFormat) || isFP8(rhsFormat);
}

StringRef mlir::mp::stringifyEpilogueActivation(EpilogueActivation activation,
                                                bool nameSuffix) {
  switch (activation) {
  case EpilogueActivation::none:
    return nameSuffix ? "" : "none";
  case EpilogueActivation::relu:
    return nameSuffix ? "_relu" : "relu";
  case EpilogueActivation::geluErf:
    return nameSuffix ? "_gelu" : "gelu";
  case EpilogueActivation::geluTanh:
    return nameSuffix ? "_gelutanh" : "gelu_tanh";
  }
  llvm_unreachable("unknown activation");
}

StringRef mlir::mp::stringifyBlockScaleKind(BlockScaleKind kind) {
  switch (kind) {
  case BlockScaleKind::none:
    return "none";
  case BlockScaleKind::mxf8f6f4:
    return "mxf8f6f4";
  case BlockScaleKind::mxf4:
    return "mxf4";
  case BlockScaleKind::mxf4nvf4:
    return "mxf4nvf4";
  }
  llvm_unreachable("unknown block-scale kind");
}

int64_t TensorCoreKernelSpec::blockScaledInstructionK() const {
  return blockScale == BlockScaleKind::mxf8f6f4 ? 32 : 64;
}

std::string TensorCoreKernelSpec::kernelName() const {
  // Operands: format, contiguous dimension (k, m or n), `u` if rows are not
  // 16-byte aligned (element copies).
  std::string name = llvm::formatv(
      "mp_tc_{0}_{1}_{2}{3}{4}_{5}{6}{7}_acc{8}_out{9}_{10}x{11}x{12}",
      llvm::join(llvm::split(stringifyTensorCoreChip(chip), "_"), ""),
      useTcgen05 ? (useTma ? "tcgen05_tma" : "tcgen05")
      : useTma   ? "wgmma_tma"
      : useWgmma ? "wgmma"
                 : "mma",
      stringifyTensorCoreFormat(lhsFormat), lhsKContiguous ? "k" : "m",
      lhsRowsAligned ? "" : "u", stringifyTensorCoreFormat(rhsFormat),
      rhsKContiguous ? "k" : "n", rhsRowsAligned ? "" : "u",
      llvm::to_string(accType), llvm::to_string(resultType), blockM, blockN,
      blockK);
  if (!useWgmma && !useTcgen05)
    name += llvm::formatv("_w{0}x{1}", warpM, warpN);
  name += llvm::formatv("_s{0}", stages);
  if (promotesFP8Accumulator())
    name += llvm::formatv("_p{0}", fp8PromoteInterval);
  if (splitK)
    name += "_splitk";
  if (hasBias)
    name += "_bias";
  name += stringifyEpilogueActivation(activation, /*nameSuffix=*/true);
  // Block scaling: kind, scale type and block (rows x K for 2-D tiles).
  if (isBlockScaled()) {
    name += llvm::formatv("_{0}_{1}x{2}", stringifyBlockScaleKind(blockScale),
                          scalesE4M3 ? "ue4m3" : "ue8m0", scaleBlockK);
    if (lhsScaleRows != 1 || rhsScaleRows != 1)
      name += llvm::formatv("_tiles{0}x{1}", lhsScaleRows, rhsScaleRows);
  }
  return name;
}

std::string mlir::mp::getSplitKReductionName(const TensorCoreKernelSpec &spec) {
  std::string name = llvm::formatv("mp_tc_splitk_reduce_acc{0}_out{1}",
                                   llvm::to_string(spec.accType),
                                   llvm::to_string(spec.resultType));
  if (spec.hasBias)
    name += "_bias";
  name += stringifyEpilogueActivation(spec.activation, /*nameSuffix=*/true);
  return name;
}

/// The largest dynamic shared memory one block may use on `chip`.
static int64_t getMaxSharedMemoryBytes(TensorCoreChip chip) {
  switch (chip) {
  case TensorCoreChip::sm80:
    return 163 * 1024;
  case TensorCoreChip::sm86:
  case TensorCoreChip::sm89:
  case TensorCoreChip::sm120a:
    return 99 * 1024;
  case TensorCoreChip::sm90a:
  case TensorCoreChip::sm100a:
    return 227 * 1024;
  }
  llvm_unreachable("unknown chip");
}

bool mlir::mp::completeTensorCoreKernelSpec(TensorCoreKernelSpec &spec,
                                            std::string &reason) {
  int64_t elementBytes = getFormatByteWidth(spec.lhsFormat);
  auto orDefault = [](int64_t &value, int64_t byDefault) {
    if (value == 0)
      value = byDefault;
  };
  orDefault(spec.blockM, 128);
  // TMA kernels: 128x256 (two consumer warpgroups of m64n256, 128
  // accumulator registers each, within their setmaxnreg budget of 232);
  // 128x128 when the FP8 accumulator is promoted (two accumulators of 64).
  // tcgen05 keeps 128 (with TMA too): the block-scaled kernels' stages and
  // Tensor Memory columns fit with it.
  orDefault(spec.blockN, spec.useTma && spec.useWgmma &&
                                 !spec.promotesFP8Accumulator()
                             ? 256
                             : 128);
  bool swizzled = spec.useWgmma || spec.useTcgen05;
  // Packed FP4 (tcgen05): 128 packed bytes of K per row in the MMA's tiles,
  // 256 bytes per row in the stages; 2 stages fit with the packed copy.
  // mma.sync warp tiles of 64x64 (128 accumulator registers) fit without
  // spills only with one K step (32 bytes) per slice: with two, ptxas 13
  // keeps both steps' fragments live (255 registers, ~200 bytes of spills;
  // docs/GPU.md).
  bool packed = spec.packsFP4();
  bool wideWarpTile = !swizzled && spec.warpM * spec.warpN >= 64 * 64;
  orDefault(spec.blockK, packed ? 256
                                : (swizzled       ? 128
                                   : wideWarpTile ? 32
                                                  : 64) /
                                      elementBytes);
  orDefault(spec.stages, packed ? 2 : swizzled ? 4 : 3);
  if (!swizzled) {
    orDefault(spec.warpM, 64);
    orDefault(spec.warpN, 32);
  }

  auto fail = [&](const Twine &message) {
    reason = message.str();
    return false;
  };
  for (auto [name, value] :
       {std::pair<StringRef, int64_t>{"block-m", spec.blockM},
        {"block-n", spec.blockN},
        {"block-k", spec.blockK},
        {"stages", spec.stages}}) {
    if (value < 0)
      return fail(name + " must be positive, got " + Twine(value));
  }
  if (spec.stages < 2 || spec.stages > 8)
    return fail("stages must be between 2 and 8, got " + Twine(spec.stages));

  if (spec.useTcgen05) {
    if (spec.blockM != 128)
      return fail("block-m (" + Twine(spec.blockM) +
                  ") must be 128 with tcgen05 (one M=128 MMA, a row per "
                  "Tensor Memory lane)");
    if (spec.blockK * elementBytes % 128 != 0)
      return fail("block-k (" + Twine(spec.blockK) +
                  ") must span a multiple of 128 bytes with tcgen05 (the "
                  "128-byte swizzle atom), i.e. a multiple of " +
                  Twine(128 / elementBytes) + " elements");
    if (spec.blockN < 16 || spec.blockN > 256 || spec.blockN % 16 != 0)
      return fail("block-n (" + Twine(spec.blockN) +
                  ") is not an N of tcgen05.mma with M=128: a multiple of 16 "
                  "from 16 to 256");
    if (!spec.rhsKContiguous && spec.blockN % 64 != 0)
      return fail("block-n (" + Twine(spec.blockN) +
                  ") must be a multiple of 64 for an N-contiguous B with "
                  "tcgen05 (128-byte swizzle atoms)");
    if (packed && spec.blockK % 256 != 0)
      return fail("block-k (" + Twine(spec.blockK) +
                  ") must be a multiple of 256 for packed FP4 with tcgen05 "
                  "(128 packed bytes, the 128-byte swizzle atom)");
    // (Block-scaled slices hold whole scale atoms of 4 blocks: 128 bytes of
    // FP8 are 4 blocks of 32, 256 FP4 elements 8 of 32 or 16 of 16.)
    if (spec.tensorMemoryColumns() > 512)
      return fail("block-n (" + Twine(spec.blockN) + ") with " +
                  Twine(spec.isBlockScaled() ? spec.scaleColumns(true) +
                                                   spec.scaleColumns(false)
                                             : 0) +
                  " scale-factor columns exceeds the 512 Tensor Memory "
                  "columns");
  } else if (spec.useWgmma) {
    if (spec.blockM % 64 != 0 || spec.blockM > 256)
      return fail("block-m (" + Twine(spec.blockM) +
                  ") must be 64, 128, 192 or 256 with wgmma (one warpgroup "
                  "per 64 rows)");
    int64_t kBytes = spec.blockK * elementBytes;
    if (kBytes % 128 != 0)
      return fail("block-k (" + Twine(spec.blockK) +
                  ") must span a multiple of 128 bytes with wgmma (the "
                  "128-byte swizzle atom), i.e. a multiple of " +
                  Twine(128 / elementBytes) + " elements");
    bool integer = spec.lhsFormat == TensorCoreFormat::s8;
    bool validN = spec.blockN >= 8 && spec.blockN <= 256 &&
                  spec.blockN % 8 == 0 &&
                  (!integer || spec.blockN <= 32 || spec.blockN % 16 == 0);
    if (!validN)
      return fail("block-n (" + Twine(spec.blockN) +
                  ") is not an N of wgmma: a multiple of 8 up to 256" +
                  (integer ? " (of 16 above 32 for s8)" : ""));
    if (!spec.rhsKContiguous && spec.blockN % 64 != 0)
      return fail("block-n (" + Twine(spec.blockN) +
                  ") must be a multiple of 64 for an N-contiguous B with "
                  "wgmma (128-byte swizzle atoms)");
    if (spec.promotesFP8Accumulator() &&
        spec.fp8PromoteInterval % spec.wgmmaInstructionsPerSlice() != 0)
      return fail("fp8-promote-interval (" + Twine(spec.fp8PromoteInterval) +
                  ") must be a multiple of the " +
                  Twine(spec.wgmmaInstructionsPerSlice()) +
                  " wgmma instructions of a K slice (block-k " +
                  Twine(spec.blockK) + ")");
    if (spec.useTma) {
      // The accumulator (block-n / 2 registers; twice with FP8 promotion)
      // plus addresses and loop state.
      int64_t accumulatorRegisters =
          spec.blockN / 2 * (spec.promotesFP8Accumulator() ? 2 : 1);
      if (spec.consumerRegisters() < accumulatorRegisters + 24)
        return fail("block-m (" + Twine(spec.blockM) + ") x block-n (" +
                    Twine(spec.blockN) + ") leaves " +
                    Twine(spec.consumerRegisters()) +
                    " registers per consumer thread for " +
                    Twine(accumulatorRegisters) +
                    " accumulator registers (use a smaller tile" +
                    (spec.promotesFP8Accumulator()
                         ? ", mainloop=cp-async or fp8-promote-interval=0)"
                         : " or mainloop=cp-async)"));
    }
  } else {
    if (spec.warpM <= 0 || spec.warpN <= 0)
      return fail("warp-m and warp-n must be positive");
    if (spec.warpM % 16 != 0 || spec.warpN % 16 != 0)
      return fail("warp-m (" + Twine(spec.warpM) + ") and warp-n (" +
                  Twine(spec.warpN) + ") must be multiples of 16");
    if (spec.blockM % spec.warpM != 0 || spec.blockN % spec.warpN != 0)
      return fail("block-m (" + Twine(spec.blockM) +
                  ") must be a multiple of warp-m (" + Twine(spec.warpM) +
                  ") and block-n (" + Twine(spec.blockN) +
                  ") a multiple of warp-n (" + Twine(spec.warpN) + ")");
    if ((spec.blockK * elementBytes) % 32 != 0)
      return fail("block-k (" + Twine(spec.blockK) +
                  ") must span a multiple of 32 bytes (one mma.sync K step), "
                  "i.e. a multiple of " +
                  Twine(32 / elementBytes) + " elements");
    if (spec.isBlockScaled() &&
        spec.blockK % spec.blockScaledInstructionK() != 0)
      return fail("block-k (" + Twine(spec.blockK) +
                  ") must be a multiple of " +
                  Twine(spec.blockScaledInstructionK()) +
                  " (the K of one block-scaled mma.sync)");
    if (spec.warpM * spec.warpN > 64 * 64)
      return fail("warp tiles above 64x64 (" + Twine(spec.warpM) + "x" +
                  Twine(spec.warpN) +
                  ") need more than 128 accumulator registers per thread");
  }
  // A TMA box (wgmma, tcgen05) spans at most 256 rows (its outer dimension).
  for (bool lhs : {true, false}) {
    if (!spec.useTma)
      break;
    int64_t rows = getSharedTileGeometry(spec, lhs).rows;
    bool kContiguous = lhs ? spec.lhsKContiguous : spec.rhsKContiguous;
    if (rows > 256)
      return fail(Twine(lhs ? "A" : "B") + " tiles of " + Twine(rows) +
                  " rows exceed the 256 rows of a TMA box (lower " +
                  (!kContiguous ? "block-k" : lhs ? "block-m" : "block-n") +
                  " or use mainloop=cp-async)");
  }
  // The stmatrix epilogue works on 64 columns at a time and needs its
  // staging tiles in shared memory: without either it is the per-element
  // one.
  int64_t limit = getMaxSharedMemoryBytes(spec.chip);
  if (spec.useStmatrixEpilogue &&
      (spec.blockN % 64 != 0 || spec.sharedMemoryBytes() > limit))
    spec.useStmatrixEpilogue = false;
  int64_t threads = spec.numThreads();
  if (threads > 1024)
    return fail("a block of " + Twine(threads) +
                " threads exceeds the limit of 1024");
  int64_t sharedMemory = spec.sharedMemoryBytes();
  if (sharedMemory > limit)
    return fail(Twine(sharedMemory) + " bytes of shared memory (" +
                Twine(spec.stages) + " stages) exceed the " + Twine(limit) +
                " bytes a block may use on " +
                stringifyTensorCoreChip(spec.chip));
  return true;
}

//===----------------------------------------------------------------------===//
// Split-K
//===----------------------------------------------------------------------===//

TensorCoreKernelSpec
mlir::mp::getSplitKPartialSpec(const TensorCoreKernelSpec &spec) {
  TensorCoreKernelSpec partial = spec;
  partial.splitK = true;
  partial.resultType = spec.accType;
  partial.hasBias = false;
  partial.activation = EpilogueActivation::none;
  partial.useStmatrixEpilogue = false;
  return partial;
}

bool mlir::mp::canSplitK(const TensorCoreKernelSpec &spec,
                         std::string &reason) {
  if (spec.isBlockScaled())
    reason = "block-scaled kernels (mp.scaled_matmul) do not split K";
  else if (spec.useTcgen05)
    reason = "tcgen05 kernels (sm_100a) do not split K; use "
             "instruction=mma-sync";
  else if (!spec.accType.isF32() && !spec.accType.isInteger(32))
    reason = "the partial products of split-K are f32 or s32, and this "
             "accumulator is " +
             llvm::to_string(spec.accType);
  else
    return true;
  return false;
}

int64_t mlir::mp::chooseSplitK(int64_t tiles, int64_t kSlices,
                               int64_t smCount) {
  if (tiles <= 0 || tiles * 2 > smCount)
    return 1;
  int64_t splits = std::min({smCount / tiles, kSlices / kMinSlicesPerSplit,
                             kMaxSplits});
  return normalizeSplitK(std::max<int64_t>(splits, 1), kSlices);
}

int64_t mlir::mp::normalizeSplitK(int64_t requested, int64_t kSlices) {
  if (kSlices <= 1)
    return 1;
  int64_t splits = std::max<int64_t>(1, std::min(requested, kSlices));
  return llvm::divideCeil(kSlices, llvm::divideCeil(kSlices, splits));
}

int64_t mlir::mp::getDefaultSMCount(TensorCoreChip chip) {
  switch (chip) {
  case TensorCoreChip::sm80:
    return 108;
  case TensorCoreChip::sm86:
    return 72;
  case TensorCoreChip::sm89:
    return 58;
  case TensorCoreChip::sm90a:
    return 132;
  case TensorCoreChip::sm100a:
    return 148;
  case TensorCoreChip::sm120a:
    return 170;
  }
  llvm_unreachable("unknown chip");
}

StringRef mlir::mp::getRequiredPTXFeature(TensorCoreChip chip,
                                          bool usesFP8MmaSync,
                                          bool usesBlockScaledTcgen05) {
  switch (chip) {
  case TensorCoreChip::sm100a:
    return usesBlockScaledTcgen05 ? "+ptx88" : "+ptx86";
  case TensorCoreChip::sm120a:
    return "+ptx87";
  default:
    break;
  }
  if (usesFP8MmaSync)
    return "+ptx84";
  switch (chip) {
  case TensorCoreChip::sm80:
    return "+ptx70";
  case TensorCoreChip::sm86:
    return "+ptx71";
  case TensorCoreChip::sm89:
    return "+ptx78";
  case TensorCoreChip::sm90a:
    return "+ptx80";
  case TensorCoreChip::sm100a:
  case TensorCoreChip::sm120a:
    break;
  }
  llvm_unreachable("unknown chip");
}
