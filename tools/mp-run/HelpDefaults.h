//===- HelpDefaults.h - Defaults in mp-run's --help -------------*- C++ -*-===//
//
// llvm::cl prints an option's description but not its default value; this
// appends " (default: VALUE)" to the descriptions of the options given, from
// their values before the command line is parsed (so it must be called
// before cl::ParseCommandLineOptions). Descriptions that already say
// "(default: ...)" are left alone; options whose values are enums are not
// given (their value lists mark the default).
//
//===----------------------------------------------------------------------===//

#ifndef MP_RUN_HELPDEFAULTS_H
#define MP_RUN_HELPDEFAULTS_H

#include "llvm/Support/CommandLine.h"

#include <deque>
#include <string>

namespace mp_run {

/// The text of `value` in a --help line.
inline std::string formatDefault(bool value) { return value ? "true" : "false"; }
inline std::string formatDefault(const std::string &value) {
  return value.empty() ? "none" : "'" + value + "'";
}
template <typename T> std::string formatDefault(T value) {
  return std::to_string(value);
}

/// Appends the default value to the description of each of `options`.
template <typename... Options> void appendDefaultsToHelp(Options &...options) {
  // llvm::cl keeps a StringRef to the description.
  static std::deque<std::string> descriptions;
  auto append = [](auto &option) {
    if (llvm::StringRef(option.HelpStr).contains("(default:"))
      return;
    descriptions.push_back(option.HelpStr.str() + " (default: " +
                           formatDefault(option.getValue()) + ")");
    option.setDescription(descriptions.back());
  };
  (append(options), ...);
}

} // namespace mp_run

#endif // MP_RUN_HELPDEFAULTS_H
