//===- Tensor.h - Host tensors of mp-run ------------------------*- C++ -*-===//
//
// The values mp-run passes to and reads from a JIT-compiled train step: a
// description of a statically shaped tensor type (element kind and shape), a
// 64-byte aligned host buffer holding one such tensor, its memref descriptor,
// and exact conversions between element kinds and doubles.
//
//===----------------------------------------------------------------------===//

#ifndef MP_RUN_TENSOR_H
#define MP_RUN_TENSOR_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>

namespace mp_run {

/// The element types mp-run binds.
enum class ElementKind {
  F64,
  F32,
  F16,
  BF16,
  F8E4M3FN,
  F8E5M2,
  I64,
  I32,
  I8,
  I1
};

/// True for the floating-point kinds.
bool isFloatKind(ElementKind kind);
/// Storage size of one element in bytes (i1 is stored in a byte).
size_t getByteWidth(ElementKind kind);
/// The MLIR spelling of `kind` (`f32`, `bf16`, `i64`, ...).
llvm::StringRef getKindName(ElementKind kind);

/// A statically shaped tensor type mp-run can bind.
struct TensorSpec {
  ElementKind kind;
  llvm::SmallVector<int64_t> shape;

  int64_t getNumElements() const;
  size_t getNumBytes() const { return getNumElements() * getByteWidth(kind); }
  /// `tensor<2x3xf32>`.
  std::string str() const;
  bool operator==(const TensorSpec &other) const {
    return kind == other.kind && shape == other.shape;
  }
};

/// The spec of `type`, or an error naming `what` when it is not a statically
/// shaped ranked tensor of a supported element type.
llvm::Expected<TensorSpec> getTensorSpec(mlir::Type type,
                                         const llvm::Twine &what);

/// The bits of `value` rounded to `kind` (round to nearest, ties to even;
/// integers truncate toward zero; i1 is value != 0).
uint64_t encodeElement(double value, ElementKind kind);
/// The value of the element bits `bits` of `kind` (exact).
double decodeElement(uint64_t bits, ElementKind kind);

/// A host tensor: a 64-byte aligned, zero-initialised buffer and its spec.
class HostTensor {
public:
  explicit HostTensor(TensorSpec spec);

  const TensorSpec &getSpec() const { return spec; }
  char *data() { return storage.get(); }
  const char *data() const { return storage.get(); }
  size_t getNumBytes() const { return spec.getNumBytes(); }
  int64_t getNumElements() const { return spec.getNumElements(); }

  /// Element `index` (row-major) as a double / set from a double (rounded).
  double get(int64_t index) const;
  void set(int64_t index, double value);
  /// Raw bits of element `index`.
  uint64_t getBits(int64_t index) const;
  void setBits(int64_t index, uint64_t bits);

  /// True when both hold the same bytes.
  bool bitwiseEqual(const HostTensor &other) const;
  /// Copies the elements of `other` (same shape) converting each value.
  void convertFrom(const HostTensor &other);

  /// Exchanges the buffers of two tensors of the same spec.
  void swap(HostTensor &other);

private:
  struct FreeDeleter {
    void operator()(char *pointer) const;
  };
  TensorSpec spec;
  std::unique_ptr<char[], FreeDeleter> storage;
};

/// A ranked memref descriptor for a HostTensor, laid out as the LLVM lowering
/// of `memref<...>` expects: allocated and aligned pointers, offset, sizes,
/// strides (row-major).
class MemRefDescriptor {
public:
  explicit MemRefDescriptor(HostTensor &tensor);
  /// Points the descriptor at `tensor`'s buffer (after a swap).
  void rebind(HostTensor &tensor);
  void *get() { return words.data(); }

private:
  llvm::SmallVector<int64_t> words;
};

} // namespace mp_run

#endif // MP_RUN_TENSOR_H
