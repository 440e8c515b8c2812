//===- Data.cpp - Random numbers, initialisation and data sets ------------===//
//
// IDX files (http://yann.lecun.com/exdb/mnist/): a big-endian header of
// 0x00 0x00, a type byte (0x08 = unsigned byte) and a rank byte, one 32-bit
// size per dimension, then the data. Gzipped files are inflated with zlib.
//
//===----------------------------------------------------------------------===//

#include "Data.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstring>
#include <numeric>
#include <zlib.h>

using namespace mp_run;

//===----------------------------------------------------------------------===//
// Random
//===----------------------------------------------------------------------===//

static uint64_t splitMix64(uint64_t &x) {
  uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static uint64_t rotateLeft(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

Random::Random(uint64_t seed, uint64_t stream) {
  uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);
  for (uint64_t &word : state)
    word = splitMix64(x);
}

uint64_t Random::next() {
  uint64_t result = rotateLeft(state[1] * 5, 7) * 9;
  uint64_t t = state[1] << 17;
  state[2] ^= state[0];
  state[3] ^= state[1];
  state[1] ^= state[2];
  state[0] ^= state[3];
  state[2] ^= t;
  state[3] = rotateLeft(state[3], 45);
  return result;
}

double Random::uniform() { return (next() >> 11) * 0x1.0p-53; }

double Random::normal() {
  double u1 = 1.0 - uniform(); // (0, 1]
  double u2 = uniform();
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

uint64_t Random::below(uint64_t bound) {
  // Rejection sampling on the largest multiple of `bound`.
  uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
  uint64_t value;
  do
    value = next();
  while (value >= limit);
  return value % bound;
}

//===----------------------------------------------------------------------===//
// Initialisation
//===----------------------------------------------------------------------===//

void mp_run::initializeParameters(llvm::ArrayRef<HostTensor *> params,
                                  InitScheme scheme, uint64_t seed) {
  Random random(seed, kInitStream);
  for (auto [index, param] : llvm::enumerate(params)) {
    llvm::ArrayRef<int64_t> shape = param->getSpec().shape;
    int64_t fanIn = 1;
    if (shape.size() >= 2) {
      fanIn = param->getNumElements() / shape[0];
    } else if (shape.size() == 1) {
      fanIn = shape[0];
      for (size_t previous = index; previous-- > 0;) {
        llvm::ArrayRef<int64_t> weight = params[previous]->getSpec().shape;
        if (weight.size() >= 2 && weight[0] == shape[0]) {
          fanIn = params[previous]->getNumElements() / weight[0];
          break;
        }
      }
    }
    double bound =
        1.0 / std::sqrt(static_cast<double>(std::max<int64_t>(fanIn, 1)));
    for (int64_t i = 0, e = param->getNumElements(); i < e; ++i) {
      switch (scheme) {
      case InitScheme::KaimingUniform:
        param->set(i, random.uniform(-bound, bound));
        break;
      case InitScheme::Normal:
        param->set(i, bound * random.normal());
        break;
      case InitScheme::Zeros:
        param->set(i, 0.0);
        break;
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Fashion-MNIST
//===----------------------------------------------------------------------===//

/// Inflates the gzip stream `compressed`.
static llvm::Expected<std::string> gunzip(llvm::StringRef compressed,
                                          llvm::StringRef path) {
  z_stream stream{};
  if (inflateInit2(&stream, 16 + MAX_WBITS) != Z_OK)
    return llvm::createStringError("zlib initialisation failed");
  std::string output;
  stream.next_in =
      reinterpret_cast<Bytef *>(const_cast<char *>(compressed.data()));
  stream.avail_in = compressed.size();
  int status;
  do {
    size_t done = output.size();
    output.resize(done + (1 << 20));
    stream.next_out = reinterpret_cast<Bytef *>(&output[done]);
    stream.avail_out = 1 << 20;
    status = inflate(&stream, Z_NO_FLUSH);
    output.resize(done + (1 << 20) - stream.avail_out);
  } while (status == Z_OK);
  inflateEnd(&stream);
  if (status != Z_STREAM_END)
    return llvm::createStringError(
        ("'" + path + "' is not a valid gzip file (corrupt or truncated)")
            .str());
  return output;
}

/// Reads the IDX file `<dir>/<name>` or `<dir>/<name>.gz` holding unsigned
/// bytes of rank `rank`; returns its dimensions and data.
static llvm::Expected<std::pair<llvm::SmallVector<int64_t>, std::string>>
readIdx(llvm::StringRef dir, llvm::StringRef name, unsigned rank) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, name);
  if (!llvm::sys::fs::exists(path))
    path += ".gz";
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file)
    return llvm::createStringError(
        ("cannot read the Fashion-MNIST file '" + dir + "/" + name +
         "[.gz]': " + file.getError().message() +
         " (install the Debian package dataset-fashion-mnist, or give "
         "--data=fashion-mnist:DIR)")
            .str());
  std::string bytes = (*file)->getBuffer().str();
  if (bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
      static_cast<unsigned char>(bytes[1]) == 0x8b) {
    llvm::Expected<std::string> inflated = gunzip(bytes, path);
    if (!inflated)
      return inflated.takeError();
    bytes = std::move(*inflated);
  }
  auto corrupt = [&](const llvm::Twine &why) {
    return llvm::createStringError(
        ("'" + path + "' is not a valid IDX file: " + why).str());
  };
  size_t headerSize = 4 + 4 * rank;
  if (bytes.size() < headerSize)
    return corrupt("truncated header");
  auto byteAt = [&](size_t i) { return static_cast<unsigned char>(bytes[i]); };
  if (byteAt(0) != 0 || byteAt(1) != 0 || byteAt(2) != 0x08 ||
      byteAt(3) != rank)
    return corrupt("expected unsigned bytes of rank " + llvm::Twine(rank));
  llvm::SmallVector<int64_t> dims;
  uint64_t count = 1;
  bool overflow = false;
  for (unsigned d = 0; d < rank; ++d) {
    size_t at = 4 + 4 * d;
    int64_t size = (int64_t)byteAt(at) << 24 | byteAt(at + 1) << 16 |
                   byteAt(at + 2) << 8 | byteAt(at + 3);
    dims.push_back(size);
    count =
        llvm::SaturatingMultiply(count, static_cast<uint64_t>(size), &overflow);
  }
  if (overflow)
    return corrupt("its header claims more than 2^64 data bytes");
  if (bytes.size() - headerSize != count)
    return corrupt("holds " + llvm::Twine(bytes.size() - headerSize) +
                   " data bytes, its header says " + llvm::Twine(count));
  return std::make_pair(dims, bytes.substr(headerSize));
}

llvm::Expected<LabelledData> mp_run::loadFashionMNIST(llvm::StringRef dir,
                                                      llvm::StringRef split) {
  auto images = readIdx(dir, (split + "-images-idx3-ubyte").str(), 3);
  if (!images)
    return images.takeError();
  auto labels = readIdx(dir, (split + "-labels-idx1-ubyte").str(), 1);
  if (!labels)
    return labels.takeError();
  int64_t count = images->first[0];
  if (images->first[1] != 28 || images->first[2] != 28)
    return llvm::createStringError(
        ("Fashion-MNIST '" + split + "': the images are " +
         llvm::Twine(images->first[1]) + "x" + llvm::Twine(images->first[2]) +
         " pixels, expected 28x28")
            .str());
  int64_t pixels = images->first[1] * images->first[2];
  if (labels->first[0] != count)
    return llvm::createStringError(
        ("Fashion-MNIST '" + split + "': " + llvm::Twine(count) +
         " images but " + llvm::Twine(labels->first[0]) + " labels")
            .str());

  LabelledData data{HostTensor(TensorSpec{ElementKind::F32, {count, pixels}}),
                    HostTensor(TensorSpec{ElementKind::I64, {count}})};
  auto *inputs = reinterpret_cast<float *>(data.inputs.data());
  for (int64_t i = 0; i < count * pixels; ++i)
    inputs[i] = static_cast<float>(
        static_cast<unsigned char>(images->second[i]) / 255.0);
  auto *classes = reinterpret_cast<int64_t *>(data.labels.data());
  for (int64_t i = 0; i < count; ++i) {
    classes[i] = static_cast<unsigned char>(labels->second[i]);
    if (classes[i] >= 10)
      return llvm::createStringError(("Fashion-MNIST '" + split + "': label " +
                                      llvm::Twine(classes[i]) + " of sample " +
                                      llvm::Twine(i) + " is not in [0, 10)")
                                         .str());
  }
  return std::move(data);
}

//===----------------------------------------------------------------------===//
// Text
//===----------------------------------------------------------------------===//

llvm::Expected<LabelledData> mp_run::loadTextWindows(llvm::StringRef path,
                                                     int64_t length,
                                                     int64_t vocabSize) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> file =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!file)
    return llvm::createStringError(("cannot read the text file '" + path +
                                    "': " + file.getError().message())
                                       .str());
  llvm::StringRef bytes = (*file)->getBuffer();
  int64_t size = static_cast<int64_t>(bytes.size());
  if (size < length + 1)
    return llvm::createStringError(
        ("the text file '" + path + "' holds " + llvm::Twine(size) +
         " bytes, fewer than one window of " + llvm::Twine(length) +
         " tokens and its next token")
            .str());
  for (int64_t i = 0; i < size; ++i) {
    unsigned byte = static_cast<unsigned char>(bytes[i]);
    if (byte >= vocabSize)
      return llvm::createStringError(
          ("the text file '" + path + "' holds the byte " +
           llvm::Twine(byte) + " at offset " + llvm::Twine(i) +
           ", outside the step's vocabulary of " + llvm::Twine(vocabSize) +
           " tokens (a token is a byte; a vocabulary of 256 takes any file)")
              .str());
  }
  int64_t count = (size - 1) / length;
  LabelledData data{HostTensor(TensorSpec{ElementKind::I64, {count, length}}),
                    HostTensor(TensorSpec{ElementKind::I64, {count, length}})};
  auto *ids = reinterpret_cast<int64_t *>(data.inputs.data());
  auto *next = reinterpret_cast<int64_t *>(data.labels.data());
  for (int64_t i = 0; i < count * length; ++i) {
    ids[i] = static_cast<unsigned char>(bytes[i]);
    next[i] = static_cast<unsigned char>(bytes[i + 1]);
  }
  return std::move(data);
}

//===----------------------------------------------------------------------===//
// Batches
//===----------------------------------------------------------------------===//

BatchOrder::BatchOrder(int64_t numSamples, int64_t batchSize, bool shuffle,
                       uint64_t seed)
    : batchSize(batchSize), shuffle(shuffle), random(seed, kOrderStream),
      order(numSamples), position(numSamples) {
  std::iota(order.begin(), order.end(), 0);
}

llvm::ArrayRef<int64_t> BatchOrder::next() {
  if (position + batchSize > order.size()) {
    // A new epoch.
    if (shuffle)
      for (size_t i = order.size(); i > 1; --i)
        std::swap(order[i - 1], order[random.below(i)]);
    position = 0;
  }
  llvm::ArrayRef<int64_t> batch(order.data() + position, batchSize);
  position += batchSize;
  return batch;
}

void mp_run::gatherSamples(const HostTensor &samples,
                           llvm::ArrayRef<int64_t> indices, HostTensor &batch) {
  int64_t sampleSize =
      samples.getSpec().shape.empty()
          ? 1
          : samples.getNumElements() / samples.getSpec().shape[0];
  bool sameKind = samples.getSpec().kind == batch.getSpec().kind;
  size_t width = getByteWidth(samples.getSpec().kind);
  for (auto [row, index] : llvm::enumerate(indices)) {
    if (sameKind) {
      std::memcpy(batch.data() + row * sampleSize * width,
                  samples.data() + index * sampleSize * width,
                  sampleSize * width);
      continue;
    }
    for (int64_t i = 0; i < sampleSize; ++i)
      batch.set(row * sampleSize + i, samples.get(index * sampleSize + i));
  }
}
