//===- Data.h - Random numbers, initialisation and data sets ----*- C++ -*-===//
//
// The seeded, platform-independent sources of numbers of mp-run: its random
// generator, the parameter initialisation schemes, the Fashion-MNIST IDX
// reader, the character-level text windows and the batch order.
//
//===----------------------------------------------------------------------===//

#ifndef MP_RUN_DATA_H
#define MP_RUN_DATA_H

#include "Tensor.h"

#include <vector>

namespace mp_run {

/// The independent random streams drawn from one seed.
enum RandomStream : uint64_t {
  /// Parameter initialisation.
  kInitStream = 1,
  /// The order of the samples of a data set.
  kOrderStream = 2,
  /// --data=random.
  kDataStream = 3,
};

/// xoshiro256** seeded through splitmix64: the same sequence on every
/// platform and standard library.
class Random {
public:
  /// `stream` selects an independent sequence for the same seed.
  Random(uint64_t seed, uint64_t stream);
  uint64_t next();
  /// Uniform in [0, 1), 53 random bits.
  double uniform();
  /// Uniform in [low, high).
  double uniform(double low, double high) {
    return low + (high - low) * uniform();
  }
  /// Standard normal (Box-Muller).
  double normal();
  /// Uniform integer in [0, bound), without modulo bias.
  uint64_t below(uint64_t bound);

private:
  uint64_t state[4];
};

/// Parameter initialisation schemes.
enum class InitScheme { KaimingUniform, Normal, Zeros };

/// Fills the parameters `params` (in argument order) with `scheme`:
/// - kaiming-uniform: U(-1/sqrt(fan_in), 1/sqrt(fan_in)), which is PyTorch's
///   nn.Linear/nn.Conv weight init (kaiming_uniform_ with a = sqrt(5)) and
///   bias init. fan_in is the product of all dimensions but the first for a
///   tensor of rank >= 2; a rank-1 parameter (a bias) takes the fan_in of the
///   nearest preceding parameter of rank >= 2 whose first dimension equals
///   its length, or its own length when there is none; rank 0 has fan_in 1.
/// - normal: N(0, 1/fan_in), same fan_in.
/// - zeros.
/// Values are drawn in double, in argument order then row-major order, and
/// rounded to the element type.
void initializeParameters(llvm::ArrayRef<HostTensor *> params,
                          InitScheme scheme, uint64_t seed);

/// A labelled data set: `inputs` is [N, ...] (f32 images, or i64 token ids),
/// `labels` is [N] or [N, T] (i64).
struct LabelledData {
  HostTensor inputs;
  HostTensor labels;
};

/// Reads the Fashion-MNIST split `split` ("train" or "t10k") from `dir`:
/// `<split>-images-idx3-ubyte` and `<split>-labels-idx1-ubyte`, gzipped
/// (`.gz`) or not. Images become [N, 784] f32 rows of pixel / 255 (in
/// [0, 1]); labels [N] i64 in [0, 10).
llvm::Expected<LabelledData> loadFashionMNIST(llvm::StringRef dir,
                                              llvm::StringRef split);

/// A character-level language-model data set from the text file `path`:
/// the tokens are its bytes (token = byte value), sample i is the window of
/// `length` tokens starting at byte i·length (`inputs`, [N, length] i64) and
/// the window one byte later, the next token of each (`labels`, [N,
/// length] i64), N = (bytes − 1) / length non-overlapping windows. Fails
/// when the file is shorter than one window plus one byte, or when it holds
/// a byte ≥ `vocabSize` (the step's vocabulary cannot represent it).
llvm::Expected<LabelledData> loadTextWindows(llvm::StringRef path,
                                             int64_t length,
                                             int64_t vocabSize);

/// The order in which batches of `batchSize` samples are drawn from
/// `numSamples` samples: epochs of floor(numSamples / batchSize) batches,
/// each epoch a fresh permutation from the seed (or the natural order when
/// `shuffle` is off); the incomplete last batch of an epoch is dropped.
class BatchOrder {
public:
  BatchOrder(int64_t numSamples, int64_t batchSize, bool shuffle,
             uint64_t seed);
  /// The sample indices of the next batch.
  llvm::ArrayRef<int64_t> next();

private:
  int64_t batchSize;
  bool shuffle;
  Random random;
  std::vector<int64_t> order;
  size_t position;
};

/// Copies the samples `indices` of `samples` (samples stacked along its
/// first dimension) into consecutive samples of `batch`, converting the
/// element type.
void gatherSamples(const HostTensor &samples, llvm::ArrayRef<int64_t> indices,
                   HostTensor &batch);

} // namespace mp_run

#endif // MP_RUN_DATA_H
