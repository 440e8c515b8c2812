//===- Tensor.cpp - Host tensors of mp-run --------------------------------===//
//
// Host buffers, memref descriptors and exact element conversions (APFloat
// does the rounding of narrow float formats).
//
//===----------------------------------------------------------------------===//

#include "Tensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

using namespace mp_run;

bool mp_run::isFloatKind(ElementKind kind) {
  switch (kind) {
  case ElementKind::F64:
  case ElementKind::F32:
  case ElementKind::F16:
  case ElementKind::BF16:
  case ElementKind::F8E4M3FN:
  case ElementKind::F8E5M2:
    return true;
  default:
    return false;
  }
}

size_t mp_run::getByteWidth(ElementKind kind) {
  switch (kind) {
  case ElementKind::F64:
  case ElementKind::I64:
    return 8;
  case ElementKind::F32:
  case ElementKind::I32:
    return 4;
  case ElementKind::F16:
  case ElementKind::BF16:
    return 2;
  case ElementKind::F8E4M3FN:
  case ElementKind::F8E5M2:
  case ElementKind::I8:
  case ElementKind::I1:
    return 1;
  }
  llvm_unreachable("unknown element kind");
}

llvm::StringRef mp_run::getKindName(ElementKind kind) {
  switch (kind) {
  case ElementKind::F64:
    return "f64";
  case ElementKind::F32:
    return "f32";
  case ElementKind::F16:
    return "f16";
  case ElementKind::BF16:
    return "bf16";
  case ElementKind::F8E4M3FN:
    return "f8E4M3FN";
  case ElementKind::F8E5M2:
    return "f8E5M2";
  case ElementKind::I64:
    return "i64";
  case ElementKind::I32:
    return "i32";
  case ElementKind::I8:
    return "i8";
  case ElementKind::I1:
    return "i1";
  }
  llvm_unreachable("unknown element kind");
}

int64_t TensorSpec::getNumElements() const {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

std::string TensorSpec::str() const {
  std::string text = "tensor<";
  for (int64_t size : shape)
    text += std::to_string(size) + "x";
  return text + getKindName(kind).str() + ">";
}

llvm::Expected<TensorSpec> mp_run::getTensorSpec(mlir::Type type,
                                                 const llvm::Twine &what) {
  auto fail = [&]() -> llvm::Error {
    std::string text;
    llvm::raw_string_ostream os(text);
    os << what << " has type " << type
       << "; mp-run binds statically shaped tensors of f32, f16, bf16, "
          "f8E4M3FN, f8E5M2, f64, i64, i32, i8 or i1";
    return llvm::createStringError(text);
  };
  auto tensor = llvm::dyn_cast<mlir::RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return fail();
  mlir::Type element = tensor.getElementType();
  ElementKind kind;
  if (element.isF64())
    kind = ElementKind::F64;
  else if (element.isF32())
    kind = ElementKind::F32;
  else if (element.isF16())
    kind = ElementKind::F16;
  else if (element.isBF16())
    kind = ElementKind::BF16;
  else if (llvm::isa<mlir::Float8E4M3FNType>(element))
    kind = ElementKind::F8E4M3FN;
  else if (llvm::isa<mlir::Float8E5M2Type>(element))
    kind = ElementKind::F8E5M2;
  else if (element.isSignlessInteger(64))
    kind = ElementKind::I64;
  else if (element.isSignlessInteger(32))
    kind = ElementKind::I32;
  else if (element.isSignlessInteger(8))
    kind = ElementKind::I8;
  else if (element.isSignlessInteger(1))
    kind = ElementKind::I1;
  else
    return fail();
  return TensorSpec{kind, llvm::SmallVector<int64_t>(tensor.getShape())};
}

/// The APFloat semantics of a narrow float kind.
static const llvm::fltSemantics &getSemantics(ElementKind kind) {
  switch (kind) {
  case ElementKind::F16:
    return llvm::APFloat::IEEEhalf();
  case ElementKind::BF16:
    return llvm::APFloat::BFloat();
  case ElementKind::F8E4M3FN:
    return llvm::APFloat::Float8E4M3FN();
  case ElementKind::F8E5M2:
    return llvm::APFloat::Float8E5M2();
  case ElementKind::F32:
    return llvm::APFloat::IEEEsingle();
  default:
    return llvm::APFloat::IEEEdouble();
  }
}

uint64_t mp_run::encodeElement(double value, ElementKind kind) {
  switch (kind) {
  case ElementKind::F64: {
    uint64_t bits;
    std::memcpy(&bits, &value, 8);
    return bits;
  }
  case ElementKind::F32: {
    float narrow = static_cast<float>(value);
    uint32_t bits;
    std::memcpy(&bits, &narrow, 4);
    return bits;
  }
  case ElementKind::I64:
    return static_cast<uint64_t>(static_cast<int64_t>(value));
  case ElementKind::I32:
    return static_cast<uint32_t>(static_cast<int32_t>(value));
  case ElementKind::I8:
    return static_cast<uint8_t>(static_cast<int8_t>(value));
  case ElementKind::I1:
    return value != 0.0;
  default: {
    llvm::APFloat apValue(value);
    bool losesInfo;
    (void)apValue.convert(getSemantics(kind),
                          llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    return apValue.bitcastToAPInt().getZExtValue();
  }
  }
}

double mp_run::decodeElement(uint64_t bits, ElementKind kind) {
  switch (kind) {
  case ElementKind::F64: {
    double value;
    std::memcpy(&value, &bits, 8);
    return value;
  }
  case ElementKind::F32: {
    uint32_t narrowBits = static_cast<uint32_t>(bits);
    float value;
    std::memcpy(&value, &narrowBits, 4);
    return value;
  }
  case ElementKind::I64:
    return static_cast<double>(static_cast<int64_t>(bits));
  case ElementKind::I32:
    return static_cast<int32_t>(static_cast<uint32_t>(bits));
  case ElementKind::I8:
    return static_cast<int8_t>(static_cast<uint8_t>(bits));
  case ElementKind::I1:
    return (bits & 1) ? 1.0 : 0.0;
  default: {
    const llvm::fltSemantics &semantics = getSemantics(kind);
    llvm::APFloat value(
        semantics, llvm::APInt(llvm::APFloat::getSizeInBits(semantics), bits));
    bool losesInfo;
    (void)value.convert(llvm::APFloat::IEEEdouble(),
                        llvm::APFloat::rmNearestTiesToEven, &losesInfo);
    return value.convertToDouble();
  }
  }
}

void HostTensor::FreeDeleter::operator()(char *pointer) const {
  std::free(pointer);
}

HostTensor::HostTensor(TensorSpec spec) : spec(std::move(spec)) {
  // aligned_alloc needs a size that is a multiple of the alignment, and at
  // least one byte for 0-element tensors.
  size_t bytes = std::max<size_t>(getNumBytes(), 1);
  size_t rounded = (bytes + 63) / 64 * 64;
  storage.reset(static_cast<char *>(std::aligned_alloc(64, rounded)));
  if (!storage)
    llvm::report_fatal_error("mp-run: out of memory");
  std::memset(storage.get(), 0, rounded);
}

uint64_t HostTensor::getBits(int64_t index) const {
  uint64_t bits = 0;
  size_t width = getByteWidth(spec.kind);
  std::memcpy(&bits, data() + index * width, width);
  return bits;
}

void HostTensor::setBits(int64_t index, uint64_t bits) {
  size_t width = getByteWidth(spec.kind);
  std::memcpy(data() + index * width, &bits, width);
}

double HostTensor::get(int64_t index) const {
  return decodeElement(getBits(index), spec.kind);
}

void HostTensor::set(int64_t index, double value) {
  setBits(index, encodeElement(value, spec.kind));
}

bool HostTensor::bitwiseEqual(const HostTensor &other) const {
  return spec == other.spec &&
         std::memcmp(data(), other.data(), getNumBytes()) == 0;
}

void HostTensor::convertFrom(const HostTensor &other) {
  if (spec.kind == other.spec.kind) {
    std::memcpy(data(), other.data(), getNumBytes());
    return;
  }
  for (int64_t i = 0, e = getNumElements(); i < e; ++i)
    set(i, other.get(i));
}

void HostTensor::swap(HostTensor &other) { std::swap(storage, other.storage); }

MemRefDescriptor::MemRefDescriptor(HostTensor &tensor) {
  llvm::ArrayRef<int64_t> shape = tensor.getSpec().shape;
  words.assign(3 + 2 * shape.size(), 0);
  int64_t stride = 1;
  for (size_t i = shape.size(); i-- > 0;) {
    words[3 + i] = shape[i];
    words[3 + shape.size() + i] = stride;
    stride *= shape[i];
  }
  rebind(tensor);
}

void MemRefDescriptor::rebind(HostTensor &tensor) {
  auto address = reinterpret_cast<intptr_t>(tensor.data());
  words[0] = address; // allocated
  words[1] = address; // aligned
  words[2] = 0;       // offset
}
