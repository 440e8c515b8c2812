//===- AutocastPolicy.h - Op categories of mp-autocast ----------*- C++ -*-===//
//
// The precision policy shared by mp-autocast (which applies it) and
// mp-precision-report (which reports it): the category of every op name, the
// compute type and the level, built from PyTorch-derived defaults, a JSON
// policy file and pass options. See docs/Autocast.md.
//
//===----------------------------------------------------------------------===//

#ifndef MP_DIALECT_MP_TRANSFORMS_AUTOCASTPOLICY_H
#define MP_DIALECT_MP_TRANSFORMS_AUTOCASTPOLICY_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringMap.h"
#include <optional>
#include <string>

namespace mlir::mp {

/// The category of an op under an autocast policy (PyTorch autocast's and
/// TensorFlow AMP's lists).
enum class AutocastCategory {
  /// Runs in the low-precision compute type, accumulating in f32.
  Allow,
  /// Runs in f32.
  Deny,
  /// Runs in the widest float type among its inputs.
  Promote,
  /// Runs in the type of its inputs (pass-through).
  Clear,
};

/// Returns "allow", "deny", "promote" or "clear".
StringRef stringifyAutocastCategory(AutocastCategory category);

/// How far autocast changes precisions.
enum class AutocastLevel {
  /// Every category applies.
  Default,
  /// Only allow-list ops change precision; deny and promote ops keep the
  /// types they were written in (clear ops still pass types through).
  TensorCoresOnly,
};

/// What a policy says about one op in its context, for the passes and the
/// report.
enum class AutocastRole {
  Allow,
  Deny,
  Promote,
  Clear,
  /// Never changed: the training and precision ops, terminators.
  Exempt,
  /// Float tensor operands, but in no list (or an op with regions).
  Unknown,
  /// No float tensor operand: nothing to decide.
  None,
};

/// Returns the role's name as the report prints it.
StringRef stringifyAutocastRole(AutocastRole role);

/// The pass options that define a policy. Empty strings mean "not given".
struct AutocastPolicySettings {
  std::string computeType;
  std::string level;
  std::string policyFile;
  std::vector<std::string> allow, deny, promote, clear;
};

/// The settings given by the policy options every policy-aware pass shares
/// (`policy-file`, `allow`, `deny`, `promote`, `clear`).
template <typename ListT>
AutocastPolicySettings
makePolicySettings(StringRef policyFile, const ListT &allow,
                   const ListT &deny, const ListT &promote,
                   const ListT &clear) {
  AutocastPolicySettings settings;
  settings.policyFile = policyFile.str();
  settings.allow.assign(allow.begin(), allow.end());
  settings.deny.assign(deny.begin(), deny.end());
  settings.promote.assign(promote.begin(), promote.end());
  settings.clear.assign(clear.begin(), clear.end());
  return settings;
}

/// The categories of op names, the compute type and the level.
class AutocastPolicy {
public:
  /// Builds a policy: the defaults, then the policy file of `settings` (when
  /// given), then its op lists and compute type and level (which override
  /// the file). On error returns failure with one message in `error` naming
  /// the file or option and what is wrong.
  static FailureOr<AutocastPolicy> build(MLIRContext *context,
                                         const AutocastPolicySettings &settings,
                                         std::string &error);

  /// Returns the category of the op called `opName`, if it has one.
  std::optional<AutocastCategory> lookup(StringRef opName) const;

  /// Returns what the policy says about `op`, ignoring `mp.autocast` and
  /// `mp.precision` (see isAutocastEnabled and getPinnedPrecision).
  AutocastRole getRole(Operation *op) const;

  /// True for the ops autocast never changes: gradients, optimizers, casts,
  /// scaling, loss-scale and FP8 scaling ops.
  static bool isExempt(StringRef opName);

  /// True for ops that give the same result whether their input is rounded
  /// before or their result after (data movement, sign, relu), so that a
  /// cast may move across them without changing any value.
  static bool commutesWithRounding(StringRef opName);

  /// The low-precision type allow-list ops run in (f16 or bf16).
  FloatType getComputeType() const { return computeType; }
  AutocastLevel getLevel() const { return level; }

private:
  AutocastPolicy(FloatType computeType) : computeType(computeType) {}

  llvm::StringMap<AutocastCategory> categories;
  FloatType computeType;
  AutocastLevel level = AutocastLevel::Default;
};

/// True when autocast applies to `op`: the `mp.autocast` flag of the nearest
/// of `op` and its ancestors, or true when none has one.
bool isAutocastEnabled(Operation *op);

/// Returns the element type `op` is pinned to by `mp.precision`, or null.
FloatType getPinnedPrecision(Operation *op);

/// True for a statically shaped tensor of a float type `mp.cast` converts
/// (f32, f16, bf16 and the FP8 formats).
bool isCastableFloatTensor(Type type);

/// True for a ranked tensor of any float element type.
bool isFloatTensor(Type type);

} // namespace mlir::mp

#endif // MP_DIALECT_MP_TRANSFORMS_AUTOCASTPOLICY_H
