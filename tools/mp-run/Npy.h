//===- Npy.h - NumPy .npy files for mp-run ----------------------*- C++ -*-===//
//
// Reading and writing NumPy's `.npy` format (versions 1.0 to 3.0, C order,
// little-endian) for the element kinds numpy has: f64, f32, f16, i64, i32,
// i8 and bool. bf16 and FP8 tensors are stored as f32, which holds their
// values exactly.
//
//===----------------------------------------------------------------------===//

#ifndef MP_RUN_NPY_H
#define MP_RUN_NPY_H

#include "Tensor.h"

namespace mp_run {

/// Reads the .npy file `path`: its element kind and shape, and its data.
llvm::Expected<HostTensor> readNpy(llvm::StringRef path);

/// The element kind a tensor of `kind` is stored as in a .npy file.
ElementKind getNpyStorageKind(ElementKind kind);

/// Writes `tensor` to `path` (its kind converted to getNpyStorageKind).
llvm::Error writeNpy(llvm::StringRef path, const HostTensor &tensor);

} // namespace mp_run

#endif // MP_RUN_NPY_H
