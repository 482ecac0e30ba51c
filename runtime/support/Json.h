//===- Json.h - The little JSON the runtime writes (no JSON library) ------===//
#ifndef KILN_RUNTIME_SUPPORT_JSON_H
#define KILN_RUNTIME_SUPPORT_JSON_H

#include "kiln/Plan/PlanIO.h"

#include <string>
#include <string_view>
#include <vector>

namespace kiln::runtime {

/// `text` as a JSON string literal, quotes included (RFC 8259): `"` and `\`
/// escaped, control characters as \b \f \n \r \t or \u00XX, DEL as \u007f.
/// Bytes >= 0x80 pass through when they form valid UTF-8; any other byte is
/// written as the code point U+00XX, so the result is always valid UTF-8 and
/// valid JSON, whatever a plan holds.
std::string jsonString(std::string_view text);

/// `{"key": "value", ...}` over `entries`, in order.
std::string provenanceJson(const std::vector<plan::ProvenanceEntry> &entries);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_SUPPORT_JSON_H
