//===- Npy.cpp - NumPy .npy files for mp-run ------------------------------===//
//
// The header is a Python dict literal such as
// `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`; only the
// three keys numpy writes are read.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mp_run;

static constexpr char kMagic[] = "\x93NUMPY";
static constexpr size_t kMagicSize = 6;

/// The numpy `descr` of a storage kind.
static llvm::StringRef getDescr(ElementKind kind) {
  switch (kind) {
  case ElementKind::F64:
    return "<f8";
  case ElementKind::F32:
    return "<f4";
  case ElementKind::F16:
    return "<f2";
  case ElementKind::I64:
    return "<i8";
  case ElementKind::I32:
    return "<i4";
  case ElementKind::I8:
    return "|i1";
  case ElementKind::I1:
    return "|b1";
  default:
    llvm_unreachable("no numpy dtype for this kind");
  }
}

/// The value of `key` in the header dict: the text after `'key':` up to the
/// next top-level comma or closing brace.
static std::optional<llvm::StringRef> findValue(llvm::StringRef header,
                                                llvm::StringRef key) {
  std::string quoted = ("'" + key + "'").str();
  size_t at = header.find(quoted);
  if (at == llvm::StringRef::npos)
    return std::nullopt;
  llvm::StringRef rest = header.drop_front(at + quoted.size()).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  if (rest.starts_with("(")) {
    size_t close = rest.find(')');
    if (close == llvm::StringRef::npos)
      return std::nullopt;
    return rest.take_front(close + 1);
  }
  return rest.take_until([](char c) { return c == ',' || c == '}'; }).trim();
}

llvm::Expected<HostTensor> mp_run::readNpy(llvm::StringRef path) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(
        ("cannot read '" + path + "': " + why).str());
  };
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file)
    return fail(file.getError().message());
  llvm::StringRef bytes = (*file)->getBuffer();
  if (bytes.size() < kMagicSize + 4 ||
      std::memcmp(bytes.data(), kMagic, kMagicSize) != 0)
    return fail("not a .npy file");
  unsigned major = static_cast<unsigned char>(bytes[6]);
  size_t headerLength, headerStart;
  if (major == 1) {
    headerLength = static_cast<unsigned char>(bytes[8]) |
                   static_cast<unsigned char>(bytes[9]) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return fail("truncated header");
    headerLength = 0;
    for (int i = 3; i >= 0; --i)
      headerLength =
          headerLength << 8 | static_cast<unsigned char>(bytes[8 + i]);
    headerStart = 12;
  } else {
    return fail("unsupported .npy version " + llvm::Twine(major));
  }
  if (bytes.size() < headerStart + headerLength)
    return fail("truncated header");
  llvm::StringRef header = bytes.substr(headerStart, headerLength);

  std::optional<llvm::StringRef> descr = findValue(header, "descr");
  std::optional<llvm::StringRef> fortran = findValue(header, "fortran_order");
  std::optional<llvm::StringRef> shapeText = findValue(header, "shape");
  if (!descr || !fortran || !shapeText)
    return fail("malformed header '" + header.trim() + "'");
  if (*fortran != "False")
    return fail("Fortran-ordered arrays are not supported (save a C-ordered "
                "array, e.g. numpy.ascontiguousarray)");

  llvm::StringRef dtype = descr->trim("'\"");
  ElementKind kind;
  if (dtype == "<f8")
    kind = ElementKind::F64;
  else if (dtype == "<f4")
    kind = ElementKind::F32;
  else if (dtype == "<f2")
    kind = ElementKind::F16;
  else if (dtype == "<i8")
    kind = ElementKind::I64;
  else if (dtype == "<i4")
    kind = ElementKind::I32;
  else if (dtype == "|i1")
    kind = ElementKind::I8;
  else if (dtype == "|b1")
    kind = ElementKind::I1;
  else
    return fail("unsupported dtype '" + dtype +
                "' (expected <f8, <f4, <f2, <i8, <i4, |i1 or |b1)");

  llvm::SmallVector<int64_t> shape;
  llvm::SmallVector<llvm::StringRef> dims;
  shapeText->trim("()").split(dims, ',', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef dim : dims) {
    dim = dim.trim();
    if (dim.empty())
      continue;
    int64_t size;
    if (dim.getAsInteger(10, size) || size < 0)
      return fail("malformed shape '" + *shapeText + "'");
    shape.push_back(size);
  }

  // The size the header claims, checked against the file before anything is
  // allocated (a corrupt shape must not overflow or exhaust memory).
  TensorSpec spec{kind, shape};
  size_t dataStart = headerStart + headerLength;
  size_t dataBytes = bytes.size() - dataStart;
  uint64_t claimed = getByteWidth(kind);
  bool overflow = false;
  for (int64_t size : shape)
    claimed = llvm::SaturatingMultiply(claimed, static_cast<uint64_t>(size),
                                       &overflow);
  if (overflow || claimed != dataBytes)
    return fail(
        "holds " + llvm::Twine(dataBytes) +
        " data bytes, but its header says " +
        (overflow ? std::string("more than 2^64") : std::to_string(claimed)) +
        " (" + spec.str() + ")");
  HostTensor tensor(spec);
  std::memcpy(tensor.data(), bytes.data() + dataStart, tensor.getNumBytes());
  return std::move(tensor);
}

ElementKind mp_run::getNpyStorageKind(ElementKind kind) {
  switch (kind) {
  case ElementKind::BF16:
  case ElementKind::F8E4M3FN:
  case ElementKind::F8E5M2:
    return ElementKind::F32;
  default:
    return kind;
  }
}

llvm::Error mp_run::writeNpy(llvm::StringRef path, const HostTensor &tensor) {
  ElementKind storageKind = getNpyStorageKind(tensor.getSpec().kind);
  HostTensor stored(TensorSpec{storageKind, tensor.getSpec().shape});
  stored.convertFrom(tensor);

  std::string shape = "(";
  for (int64_t size : stored.getSpec().shape)
    shape += std::to_string(size) + ", ";
  if (stored.getSpec().shape.size() > 1)
    shape.resize(shape.size() - 2);
  else if (stored.getSpec().shape.size() == 1)
    shape.resize(shape.size() - 1);
  shape += ")";
  std::string header = ("{'descr': '" + getDescr(storageKind) +
                        "', 'fortran_order': False, 'shape': " + shape + ", }")
                           .str();
  // Pad with spaces and a newline so that the data starts 64-byte aligned.
  size_t total = kMagicSize + 4 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';

  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_None);
  if (error)
    return llvm::createStringError(
        ("cannot write '" + path + "': " + error.message()).str());
  os.write(kMagic, kMagicSize);
  os << '\x01' << '\x00';
  os << static_cast<char>(header.size() & 0xff)
     << static_cast<char>(header.size() >> 8);
  os << header;
  os.write(stored.data(), stored.getNumBytes());
  os.close();
  if (os.has_error())
    return llvm::createStringError(
        ("cannot write '" + path + "': " + os.error().message()).str());
  return llvm::Error::success();
}
