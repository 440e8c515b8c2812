//===- Batches.h - The batches of each step ---------------------*- C++ -*-===//
//
// The data arguments of each step, from --data: seeded random values, .npy
// files (samples along dimension 0), Fashion-MNIST or the byte tokens of a
// text; npy and fashion-mnist batches in a seeded shuffled order. Under
// mpirun each process takes its block of the global batch.
//
//===----------------------------------------------------------------------===//

#ifndef MP_RUN_BATCHES_H
#define MP_RUN_BATCHES_H

#include "Invocation.h"

#include <optional>

namespace mp_run {

/// Fills the data arguments of each step.
class DataSource {
public:
  virtual ~DataSource() = default;
  virtual void fill(Invocation &call) = 0;
};

/// Records, before lowering, what the values of each function's integer data
/// arguments index (through mp.reshape): an mp.embedding's rows, the classes
/// of an mp.cross_entropy's or mp.nll_loss's labels. --data=random draws
/// them below that bound (an explicit --num-classes above it is an error),
/// sampled data must stay below it, and --data=text takes the embedding's
/// rows as its vocabulary.
void recordIndexBounds(mlir::ModuleOp module);

/// The Fashion-MNIST directory of --data, or nothing when another source.
std::optional<std::string> getFashionMNISTDir();

/// Which of `dataArguments` take images and which labels, for a classifier
/// on samples of `features` values: one float argument [B, ...] with
/// `features` values per sample, and optionally one integer argument [B].
llvm::Error bindClassifierData(const EntryPoint &entry,
                               llvm::ArrayRef<unsigned> dataArguments,
                               int64_t features, bool needLabels, int &inputs,
                               int &labels);

/// The source --data names for the data arguments of `entry`, checked.
llvm::Expected<std::unique_ptr<DataSource>>
createDataSource(const EntryPoint &entry);

} // namespace mp_run

#endif // MP_RUN_BATCHES_H
