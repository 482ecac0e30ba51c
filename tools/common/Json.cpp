//===- Json.cpp - Strict JSON parsing and compact text over nlohmann-json -===//

#include "tools/common/Json.h"

#include <set>
#include <vector>

using namespace kiln::tools;

namespace {
/// Why the parser callback stopped the parse.
struct Refused {
  std::string message;
};

constexpr int kMaxDepth = 64;

/// nlohmann's messages read "[json.exception.parse_error.101] parse error at
/// line 1, column 5: syntax error ..."; keep what follows "at " (or the
/// bracketed id) for ours.
std::string messageOf(const nlohmann::json::exception &e) {
  std::string m = e.what();
  size_t at = m.find("parse error at ");
  if (at != std::string::npos)
    return m.substr(at + 15);
  size_t id = m.find("] ");
  return id == std::string::npos ? m : m.substr(id + 2);
}
} // namespace

bool kiln::tools::parseJson(std::string_view text, Json &out,
                            std::string &error) {
  // One set of keys per open object; arrays push an empty one so that the
  // stack follows the nesting.
  std::vector<std::set<std::string>> keys;
  auto check = [&](int depth, Json::parse_event_t event, Json &parsed) {
    switch (event) {
    case Json::parse_event_t::object_start:
    case Json::parse_event_t::array_start:
      if (depth >= kMaxDepth)
        throw Refused{"nested more than " + std::to_string(kMaxDepth) +
                      " levels deep"};
      keys.emplace_back();
      break;
    case Json::parse_event_t::object_end:
    case Json::parse_event_t::array_end:
      keys.pop_back();
      break;
    case Json::parse_event_t::key:
      if (!keys.back().insert(parsed.get<std::string>()).second)
        throw Refused{"duplicate object key " + jsonText(parsed)};
      break;
    case Json::parse_event_t::value:
      break;
    }
    return true;
  };
  try {
    out = Json::parse(text.begin(), text.end(), check);
    return true;
  } catch (const Refused &r) {
    error = r.message;
  } catch (const nlohmann::json::exception &e) {
    error = messageOf(e);
  }
  out = Json();
  return false;
}

std::string kiln::tools::jsonText(const Json &value) {
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string kiln::tools::jsonQuote(std::string_view s) {
  return jsonText(Json(std::string(s)));
}

std::string kiln::tools::jsonNumber(double v) { return jsonText(Json(v)); }
