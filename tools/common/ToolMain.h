//===- ToolMain.h - No exception escapes a tool's main --------------------===//
#ifndef KILN_TOOLS_COMMON_TOOLMAIN_H
#define KILN_TOOLS_COMMON_TOOLMAIN_H

#include <functional>

namespace kiln::tools {

/// Runs a tool's `body` and returns its exit status. Anything it throws
/// (std::bad_alloc, an exception of a library, a bug) becomes
/// "TOOL: error: ..." on stderr and `errorStatus` instead of std::terminate
/// and exit status 134. `tool` names the tool ("kiln-run").
int guardedMain(const char *tool, int errorStatus,
                const std::function<int()> &body);

} // namespace kiln::tools

#endif // KILN_TOOLS_COMMON_TOOLMAIN_H
