//===- Distributed.cpp - mp-run under mpirun ------------------------------===//
//
// MPI for mp-run: initialisation, the f16/bf16 all-reduce shims the lowered
// data-parallel steps call (MPI has no 16-bit float datatypes: the shim sums
// 2-byte elements with a user-defined MPI operation, each partial sum formed
// in f32 and rounded to the 16-bit type, to nearest even), and the checksum
// comparison at the end of a run. Built without MPI (MP_RUN_HAVE_MPI unset),
// every entry point that needs MPI reports an error instead.
//
//===----------------------------------------------------------------------===//

#include "Distributed.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <cstdlib>
#include <cstring>
#include <string>

#ifdef MP_RUN_HAVE_MPI
#include <mpi.h>
#endif

using namespace mp_run;

int mp_run::getLaunchSize() {
  for (const char *name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const char *value = std::getenv(name))
      if (int size = std::atoi(value); size > 0)
        return size;
  return 1;
}

#ifdef MP_RUN_HAVE_MPI

namespace {

/// bf16 as its bits (the C++ runtime here has no bf16 conversions).
struct BF16 {
  uint16_t bits;
  explicit operator float() const {
    uint32_t wide = static_cast<uint32_t>(bits) << 16;
    float value;
    std::memcpy(&value, &wide, sizeof(value));
    return value;
  }
  /// Rounds to nearest, ties to even; NaN stays NaN.
  static BF16 fromFloat(float value) {
    uint32_t wide;
    std::memcpy(&wide, &value, sizeof(wide));
    if ((wide & 0x7fffffffu) > 0x7f800000u)
      return {static_cast<uint16_t>((wide >> 16) | 0x40)};
    wide += 0x7fffu + ((wide >> 16) & 1u);
    return {static_cast<uint16_t>(wide >> 16)};
  }
};

static float toFloat(_Float16 value) { return static_cast<float>(value); }
static float toFloat(BF16 value) { return static_cast<float>(value); }
static void round(float value, _Float16 &result) {
  result = static_cast<_Float16>(value);
}
static void round(float value, BF16 &result) {
  result = BF16::fromFloat(value);
}

/// `inout[i] = T(float(in[i]) + float(inout[i]))`: one rounding per sum.
template <typename T>
void sumInPlace(void *in, void *inout, int *length, MPI_Datatype *) {
  const T *a = static_cast<const T *>(in);
  T *b = static_cast<T *>(inout);
  for (int i = 0; i < *length; ++i)
    round(toFloat(a[i]) + toFloat(b[i]), b[i]);
}

/// The 2-byte datatype and the sum operation of `T`, created once.
template <typename T> struct HalfSum {
  MPI_Datatype type;
  MPI_Op op;
  HalfSum() {
    MPI_Type_contiguous(2, MPI_BYTE, &type);
    MPI_Type_commit(&type);
    MPI_Op_create(&sumInPlace<T>, /*commute=*/1, &op);
  }
};

template <typename T> void allReduceSum(int64_t address, int64_t count) {
  static HalfSum<T> sum;
  MPI_Allreduce(MPI_IN_PLACE, reinterpret_cast<void *>(address),
                static_cast<int>(count), sum.type, sum.op, MPI_COMM_WORLD);
}

} // namespace

extern "C" {
/// Sums `count` f16 values at `address` over MPI_COMM_WORLD, in place.
static void mp_mpi_allreduce_sum_f16(int64_t address, int64_t count) {
  allReduceSum<_Float16>(address, count);
}
/// Sums `count` bf16 values at `address` over MPI_COMM_WORLD, in place.
static void mp_mpi_allreduce_sum_bf16(int64_t address, int64_t count) {
  allReduceSum<BF16>(address, count);
}
}

llvm::Expected<ProcessGroup> mp_run::initializeMPI() {
  ProcessGroup group;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized && MPI_Init(nullptr, nullptr) != MPI_SUCCESS)
    return llvm::createStringError("MPI_Init failed");
  group.initialized = !initialized;
  MPI_Comm_rank(MPI_COMM_WORLD, &group.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &group.size);
  return group;
}

void mp_run::finalizeMPI(ProcessGroup &group) {
  if (group.initialized)
    MPI_Finalize();
  group.initialized = false;
}

void mp_run::abortMPI() {
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

void mp_run::registerDistributedSymbols(mlir::ExecutionEngine &engine) {
  engine.registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    auto add = [&](llvm::StringRef name, void (*function)(int64_t, int64_t)) {
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(function),
                                 llvm::JITSymbolFlags::Exported};
    };
    add("mp_mpi_allreduce_sum_f16", &mp_mpi_allreduce_sum_f16);
    add("mp_mpi_allreduce_sum_bf16", &mp_mpi_allreduce_sum_bf16);
    return symbols;
  });
}

llvm::Error mp_run::checkSameOnAllRanks(const ProcessGroup &group,
                                        uint64_t checksum,
                                        llvm::StringRef what) {
  if (!group.initialized && group.size == 1)
    return llvm::Error::success();
  unsigned long long reference = checksum;
  MPI_Bcast(&reference, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  int differs = reference != checksum, differing = 0;
  MPI_Allreduce(&differs, &differing, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (!differing)
    return llvm::Error::success();
  char text[64];
  snprintf(text, sizeof(text), "%016llx",
           static_cast<unsigned long long>(checksum));
  char referenceText[64];
  snprintf(referenceText, sizeof(referenceText), "%016llx", reference);
  return llvm::createStringError(
      "the " + what.str() + " differ across the " + std::to_string(group.size) +
      " processes (" + std::to_string(differing) +
      " differ from rank 0's); rank " + std::to_string(group.rank) +
      " has checksum " + text + ", rank 0 " + referenceText +
      " (is the step data-parallel? see mp-data-parallel)");
}

#else // !MP_RUN_HAVE_MPI

llvm::Expected<ProcessGroup> mp_run::initializeMPI() {
  return llvm::createStringError(
      "this mp-run was built without MPI (install libopenmpi-dev and "
      "rebuild): it cannot run under mpirun or run a data-parallel step");
}

void mp_run::finalizeMPI(ProcessGroup &) {}

void mp_run::abortMPI() { std::exit(1); }

void mp_run::registerDistributedSymbols(mlir::ExecutionEngine &) {}

llvm::Error mp_run::checkSameOnAllRanks(const ProcessGroup &, uint64_t,
                                        llvm::StringRef) {
  return llvm::Error::success();
}

#endif // MP_RUN_HAVE_MPI
