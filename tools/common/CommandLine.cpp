//===- CommandLine.cpp - Options of kiln-run and kiln-tune ----------------===//
#include "tools/common/CommandLine.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

using namespace kiln::tools;

Argument kiln::tools::splitArgument(const char *word) {
  Argument a;
  a.name = word;
  if (a.name.rfind("--", 0) == 0) {
    size_t eq = a.name.find('=');
    if (eq != std::string::npos) {
      a.value = a.name.substr(eq + 1);
      a.name = a.name.substr(0, eq);
      a.hasValue = true;
    }
  }
  return a;
}

bool kiln::tools::takeValue(const Argument &arg, int argc, char **argv, int &i,
                            std::string &out) {
  if (arg.hasValue) {
    out = arg.value;
    return true;
  }
  if (i + 1 >= argc)
    return false;
  out = argv[++i];
  return true;
}

bool kiln::tools::parseUnsigned(const std::string &text, uint64_t &out) {
  char *end = nullptr;
  errno = 0;
  out = std::strtoull(text.c_str(), &end, 10);
  return !text.empty() && text[0] != '-' && *end == '\0' && errno == 0;
}

bool kiln::tools::parseNonNegative(const std::string &text, double &out) {
  char *end = nullptr;
  errno = 0;
  out = std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0' && errno == 0 && std::isfinite(out) &&
         out >= 0;
}
