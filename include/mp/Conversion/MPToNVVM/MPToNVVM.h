//===- MPToNVVM.h - Tensor Core lowering of mp matmuls ----------*- C++ -*-===//
//
// The option values of `convert-mp-to-nvvm` and `mp-gpu-pipeline`: the GPU
// targeted, the Tensor Core operand format and the instruction family. The
// command-line spellings (`sm_80`, `e4m3`, `mma-sync`, ...) are defined once
// here and shared by the pass and the pipeline.
//
//===----------------------------------------------------------------------===//

#ifndef MP_CONVERSION_MPTONVVM_MPTONVVM_H
#define MP_CONVERSION_MPTONVVM_MPTONVVM_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

namespace mlir::mp {

/// The GPUs the Tensor Core lowering targets.
enum class TensorCoreChip {
  sm80,   ///< A100 (Ampere): mma.sync, ldmatrix, cp.async.
  sm86,   ///< RTX 30xx / A10 (Ampere): as sm_80, less shared memory.
  sm89,   ///< L4 / RTX 40xx (Ada): as sm_86, plus FP8 mma.sync.
  sm90a,  ///< H100 / H200 (Hopper, arch-specific): wgmma.mma_async.
  sm100a, ///< B200 / GB200 (Blackwell, arch-specific): tcgen05.mma with the
          ///< accumulator in Tensor Memory.
  sm120a, ///< RTX 50xx / RTX PRO 6000 (Blackwell, arch-specific): mma.sync.
};

/// The formats Tensor Cores multiply. `automatic` derives the format of each
/// matmul from its operand types (f32 operands need `compute tf32`). FP6
/// (`e2m3`, `e3m2`) and FP4 (`e2m1`) are the operands of block-scaled MMAs
/// only (mp.scaled_matmul); in memory each element takes one byte, as the
/// CPU lowering stores them.
enum class TensorCoreFormat {
  automatic,
  f16,
  bf16,
  tf32,
  e4m3,
  e5m2,
  s8,
  e2m3,
  e3m2,
  e2m1
};

/// The instruction family the kernels are built around.
enum class TensorCoreInstruction {
  automatic, ///< wgmma on sm_90a and tcgen05 on sm_100a where the operand
             ///< layouts allow it, else mma.sync.
  mmaSync,   ///< Warp-level mma.sync (every chip).
  wgmma,     ///< Warpgroup-level wgmma.mma_async (sm_90a only).
  tcgen05,   ///< Single-thread tcgen05.mma into Tensor Memory (sm_100a only).
};

/// How the wgmma (sm_90a) and tcgen05 (sm_100a) kernels bring K slices into
/// shared memory.
enum class TensorCoreMainloop {
  automatic,          ///< tmaWarpSpecialized where it applies, else cpAsync.
  tmaWarpSpecialized, ///< TMA (cp.async.bulk.tensor) issued by one thread
                      ///< into an mbarrier ring: wgmma with a producer warp
                      ///< and consumer warpgroups with two wgmma groups in
                      ///< flight; tcgen05 with the MMA thread loading and
                      ///< each stage freed by its MMAs' tcgen05.commit.
  cpAsync,            ///< cp.async from every thread, wgmma.wait_group 0.
};

/// The binary `mp-gpu-pipeline` attaches to the module's kernels.
enum class GPUBinaryFormat {
  isa,    ///< PTX text.
  bin,    ///< A cubin (ptxas).
  fatbin, ///< PTX and cubin in a fat binary (ptxas and fatbinary).
};

/// Returns the command-line spelling of `chip` (`sm_80`, ...).
llvm::StringRef stringifyTensorCoreChip(TensorCoreChip chip);
/// Returns the command-line spelling of `format` (`auto`, `f16`, ...).
llvm::StringRef stringifyTensorCoreFormat(TensorCoreFormat format);

/// The accepted values of the `chip` options, for `llvm::cl`.
llvm::cl::ValuesClass getTensorCoreChipValues();
/// The accepted values of the `format` options, for `llvm::cl`.
llvm::cl::ValuesClass getTensorCoreFormatValues();
/// The accepted values of the `instruction` options, for `llvm::cl`.
llvm::cl::ValuesClass getTensorCoreInstructionValues();
/// The accepted values of the `mainloop` options, for `llvm::cl`.
llvm::cl::ValuesClass getTensorCoreMainloopValues();
/// The accepted values of the `binary-format` option, for `llvm::cl`.
llvm::cl::ValuesClass getGPUBinaryFormatValues();

} // namespace mlir::mp

#endif // MP_CONVERSION_MPTONVVM_MPTONVVM_H
