//===- JsonText.h - JSON text of kiln-run's and kiln-tune's reports -------===//
#ifndef KILN_TOOLS_COMMON_JSONTEXT_H
#define KILN_TOOLS_COMMON_JSONTEXT_H

#include <string>
#include <string_view>

namespace kiln::tools {

/// `s` as a JSON string literal: quotes, `"` and `\` escaped, control
/// characters as \n, \t, ... or \u00XX; other bytes (UTF-8) unchanged.
std::string jsonQuote(std::string_view s);

} // namespace kiln::tools

#endif // KILN_TOOLS_COMMON_JSONTEXT_H
