//===- CommandLine.cpp - Options of the runtime's tools (cxxopts) ---------===//

#include "tools/common/CommandLine.h"

#include <cxxopts.hpp>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

using namespace kiln::tools;

namespace {
/// cxxopts' implicit value of flags and optional values: what a word
/// without '=' gives. No one types it.
const char *const kNoValue = "\x01kiln: no value\x01";

/// "seed" for "--seed", "o" for "-o".
std::string bare(const std::string &name) {
  return name.substr(name.rfind("--", 0) == 0 ? 2 : 1);
}

/// The option name a cxxopts message quotes ("Option ‘frob’ does not exist").
std::string quotedName(const std::string &message) {
  size_t open = message.find(cxxopts::LQUOTE);
  if (open == std::string::npos)
    return "";
  open += cxxopts::LQUOTE.size();
  size_t close = message.find(cxxopts::RQUOTE, open);
  return close == std::string::npos ? "" : message.substr(open, close - open);
}

size_t editDistance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}
} // namespace

void CommandLine::declare(const std::string &name, Spec spec) {
  specs_.emplace_back(name, std::move(spec));
}

void CommandLine::flag(const std::string &name) {
  declare(name, {Kind::Flag, "no value", false});
}

void CommandLine::option(const std::string &name, const std::string &needs,
                         bool repeatable) {
  declare(name, {Kind::Value, needs, repeatable});
}

void CommandLine::optionalValue(const std::string &name,
                                const std::string &needs) {
  declare(name, {Kind::OptionalValue, needs, false});
}

std::string CommandLine::needs(const std::string &name) const {
  for (const auto &[n, spec] : specs_)
    if (n == name)
      return name + " needs " + spec.needs;
  return name + " needs a value";
}

std::string CommandLine::unknown(const std::string &name) const {
  // cxxopts splits "-json" into short options: name the word as typed when
  // it is one letter, else as a long option.
  std::string typed = (name.size() == 1 ? "-" : "--") + name;
  std::string message = "unknown option '" + typed + "'";
  std::string best;
  size_t bestDistance = 3;
  for (const auto &[n, spec] : specs_) {
    size_t d = editDistance(typed, n);
    if (d < bestDistance && d <= n.size() / 3) {
      bestDistance = d;
      best = n;
    }
  }
  if (!best.empty())
    message += " (did you mean '" + best + "'?)";
  return message;
}

bool CommandLine::parse(int argc, const char *const *argv, std::string &error) {
  given_.clear();
  positional_.clear();
  cxxopts::Options options(tool_);
  auto adder = options.add_options();
  std::map<std::string, const std::pair<std::string, Spec> *> byBare;
  for (const auto &entry : specs_) {
    const auto &[name, spec] = entry;
    byBare[bare(name)] = &entry;
    auto value = cxxopts::value<std::string>();
    if (spec.kind != Kind::Value)
      value->implicit_value(kNoValue);
    adder(bare(name), "", value);
  }
  cxxopts::ParseResult result;
  try {
    result = options.parse(argc, argv);
  } catch (const cxxopts::exceptions::no_such_option &e) {
    error = unknown(quotedName(e.what()));
    return false;
  } catch (const cxxopts::exceptions::missing_argument &e) {
    auto it = byBare.find(quotedName(e.what()));
    error = it == byBare.end() ? e.what() : needs(it->second->first);
    return false;
  } catch (const cxxopts::exceptions::exception &e) {
    error = std::string("cannot read the command line: ") + e.what();
    return false;
  }
  for (const cxxopts::KeyValue &kv : result.arguments()) {
    auto it = byBare.find(kv.key());
    if (it == byBare.end()) { // the long name of a short option, say
      error = unknown(kv.key());
      return false;
    }
    const std::string &name = it->second->first;
    const Spec &spec = it->second->second;
    std::optional<std::string> value;
    if (kv.value() != kNoValue)
      value = kv.value();
    if (spec.kind == Kind::Flag && value) {
      error = name + " takes no value, got '" + name + "=" + *value + "'";
      return false;
    }
    auto &list = given_[name];
    if (!list.empty() && !spec.repeatable && spec.kind != Kind::Flag) {
      auto show = [&](const std::optional<std::string> &v) {
        return v ? "'" + name + "=" + *v + "'" : "'" + name + "'";
      };
      error = name + " is given twice (" + show(list.front()) + " and " +
              show(value) + "): give it once";
      return false;
    }
    list.push_back(std::move(value));
  }
  positional_ = result.unmatched();
  return true;
}

bool CommandLine::has(const std::string &name) const {
  return given_.count(name) != 0;
}

std::optional<std::string> CommandLine::value(const std::string &name) const {
  auto it = given_.find(name);
  if (it == given_.end() || it->second.empty())
    return std::nullopt;
  return it->second.back();
}

std::vector<std::string> CommandLine::values(const std::string &name) const {
  std::vector<std::string> out;
  auto it = given_.find(name);
  if (it != given_.end())
    for (const std::optional<std::string> &v : it->second)
      if (v)
        out.push_back(*v);
  return out;
}

bool kiln::tools::parseUnsigned(const std::string &text, uint64_t &out) {
  char *end = nullptr;
  errno = 0;
  out = std::strtoull(text.c_str(), &end, 10);
  return !text.empty() && text[0] >= '0' && text[0] <= '9' && *end == '\0' &&
         errno == 0;
}

bool kiln::tools::parseNonNegative(const std::string &text, double &out) {
  char *end = nullptr;
  errno = 0;
  out = std::strtod(text.c_str(), &end);
  bool starts =
      !text.empty() && ((text[0] >= '0' && text[0] <= '9') || text[0] == '.');
  return starts && *end == '\0' && errno == 0 && std::isfinite(out) && out >= 0;
}
