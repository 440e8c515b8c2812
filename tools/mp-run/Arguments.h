//===- Arguments.h - Initial parameters and state ---------------*- C++ -*-===//
//
// The values of a train step's parameters and state before its first step:
// parameters from --init and --seed or loaded from --load DIR/argN.npy, state
// from `mp.init`, working copies from their parameter, the rng state
// [--seed, 0], bn.running_var 1 as PyTorch's BatchNorm, zeros otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef MP_RUN_ARGUMENTS_H
#define MP_RUN_ARGUMENTS_H

#include "Invocation.h"

namespace mp_run {

/// The .npy path of argument `index` in `dir`.
std::string getArgumentPath(llvm::StringRef dir, unsigned index);

/// Initialises parameters and state of `call` per the contract.
llvm::Error initializeArguments(const EntryPoint &entry, Invocation &call);

} // namespace mp_run

#endif // MP_RUN_ARGUMENTS_H
