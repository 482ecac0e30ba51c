//===- ToolMain.cpp - No exception escapes a tool's main ------------------===//

#include "tools/common/ToolMain.h"

#include <cstdio>
#include <exception>
#include <new>

int kiln::tools::guardedMain(const char *tool, int errorStatus,
                             const std::function<int()> &body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr,
                 "%s: error: out of host memory (an allocation failed); "
                 "nothing more was done\n",
                 tool);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "%s: error: internal error: %s\n", tool, e.what());
  } catch (...) {
    std::fprintf(stderr, "%s: error: internal error: an unknown exception\n",
                 tool);
  }
  std::fflush(stdout);
  return errorStatus;
}
