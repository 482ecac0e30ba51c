//===- CommandLine.h - Options of kiln-run and kiln-tune ------------------===//
//
// The MLIR-free tools take GNU-style options: "--name=value" or "--name
// value". These helpers split a word and parse numbers the same way in every
// tool.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_COMMON_COMMANDLINE_H
#define KILN_TOOLS_COMMON_COMMANDLINE_H

#include <cstdint>
#include <string>

namespace kiln::tools {

/// One command-line word: "--name=value" gives {"--name", "value", true};
/// any other word is its own name.
struct Argument {
  std::string name;
  std::string value;
  bool hasValue = false;
};
Argument splitArgument(const char *word);

/// The value of option `arg` (argv[i]): what follows '=', else the next
/// word (then `i` moves past it). False when there is none.
bool takeValue(const Argument &arg, int argc, char **argv, int &i,
               std::string &out);

/// A whole decimal number >= 0 (no sign, no trailing characters).
bool parseUnsigned(const std::string &text, uint64_t &out);
/// A finite number >= 0 (strtod syntax, no trailing characters).
bool parseNonNegative(const std::string &text, double &out);

} // namespace kiln::tools

#endif // KILN_TOOLS_COMMON_COMMANDLINE_H
