//===- CommandLine.h - Options of the runtime's tools (cxxopts) -----------===//
//
// kiln-run, kiln-tune and kiln-refit take GNU-style options, parsed with
// cxxopts (Debian libcxxopts-dev): "--name=value" or "--name value" (the next
// word, whatever it is), "-o FILE"; an option whose value is optional takes
// one only after '=' ("--json" or "--json=FILE"), so "--json PLAN" leaves
// PLAN a positional argument; "--" ends the options. Each tool checks the
// values itself: the helpers below parse numbers and make the messages name
// the option and what it takes.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_COMMON_COMMANDLINE_H
#define KILN_TOOLS_COMMON_COMMANDLINE_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln::tools {

/// The options of one tool and, after parse(), the words it was given.
class CommandLine {
public:
  /// `tool` names the program in cxxopts' help (unused: tools print their
  /// own usage).
  explicit CommandLine(std::string tool) : tool_(std::move(tool)) {}

  /// A flag ("--bench", "-h"): takes no value ("--bench=1" is an error). A
  /// flag given twice is the same as once.
  void flag(const std::string &name);
  /// An option that takes a value; `needs` says what it takes, in messages
  /// ("--seed needs a non-negative integer"). Given twice, it is an error
  /// unless `repeatable` (then values() lists them in order).
  void option(const std::string &name, const std::string &needs,
              bool repeatable = false);
  /// An option with an optional value ("--json" or "--json=FILE").
  void optionalValue(const std::string &name, const std::string &needs);

  /// Parses argv[1..argc). False with `error` set ("unknown option
  /// '--frobnicate' (did you mean '--profile'?)", "--seed needs a
  /// non-negative integer", "--seed is given twice ...").
  bool parse(int argc, const char *const *argv, std::string &error);

  /// Whether option `name` ("--seed") was given.
  bool has(const std::string &name) const;
  /// Its value: nullopt when not given, or given without one (flags,
  /// optionalValue without '=').
  std::optional<std::string> value(const std::string &name) const;
  /// Every value of a repeatable option, in order.
  std::vector<std::string> values(const std::string &name) const;
  /// The words that are no option, in order.
  const std::vector<std::string> &positional() const { return positional_; }
  /// "--seed needs a non-negative integer".
  std::string needs(const std::string &name) const;

private:
  enum class Kind { Flag, Value, OptionalValue };
  struct Spec {
    Kind kind;
    std::string needs;
    bool repeatable = false;
  };
  void declare(const std::string &name, Spec spec);
  std::string unknown(const std::string &name) const;

  std::string tool_;
  /// By name with its dashes ("--seed", "-o"), in declaration order.
  std::vector<std::pair<std::string, Spec>> specs_;
  std::map<std::string, std::vector<std::optional<std::string>>> given_;
  std::vector<std::string> positional_;
};

/// A whole decimal number >= 0 (no sign, no trailing characters, no
/// overflow).
bool parseUnsigned(const std::string &text, uint64_t &out);
/// A finite number >= 0 (strtod syntax, no trailing characters).
bool parseNonNegative(const std::string &text, double &out);

} // namespace kiln::tools

#endif // KILN_TOOLS_COMMON_COMMANDLINE_H
