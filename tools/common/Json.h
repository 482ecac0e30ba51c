//===- Json.h - JSON of the tools' reports and files (nlohmann-json) ------===//
//
// kiln-run's and kiln-tune's reports and kiln-tune's timing cache are JSON
// written and read with nlohmann-json (Debian's nlohmann-json3-dev). Objects
// keep their members in insertion order (ordered_json), so reports list their
// fields in a fixed order that people and lit tests read.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_COMMON_JSON_H
#define KILN_TOOLS_COMMON_JSON_H

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace kiln::tools {

/// A JSON value; objects keep their members in insertion (file) order.
using Json = nlohmann::ordered_json;

/// Parses one JSON text strictly: RFC 8259 (surrounding whitespace only, no
/// comments), no repeated key within an object (nlohmann would keep the last
/// one silently), nesting at most 64 deep. On failure returns false and sets
/// `error` ("line L, column C: what was expected" for syntax errors).
bool parseJson(std::string_view text, Json &out, std::string &error);

/// `value` as compact JSON text (no spaces). Strings that are not valid
/// UTF-8 are written with U+FFFD for the invalid bytes (JSON text is UTF-8:
/// nlohmann would throw, and readers such as llvm::json refuse it).
std::string jsonText(const Json &value);

/// `s` as a JSON string literal (jsonText of a string).
std::string jsonQuote(std::string_view s);

/// `v` as JSON writes it: the shortest text that reads back as the same
/// double ("0.0125", "1.0"); "null" for NaN and infinities, which JSON cannot
/// spell.
std::string jsonNumber(double v);

} // namespace kiln::tools

#endif // KILN_TOOLS_COMMON_JSON_H
