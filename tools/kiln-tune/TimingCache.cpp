//===- TimingCache.cpp - Timing cache file and the JSON codec under it ----===//

#include "TimingCache.h"

#include "kiln/Plan/PlanIO.h"

#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace kiln::tune;

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

const Json *Json::find(std::string_view key) const {
  if (kind != Kind::Object)
    return nullptr;
  for (const auto &[name, value] : object)
    if (name == key)
      return &value;
  return nullptr;
}

namespace {
/// Recursive-descent parser over the whole text; records the first error.
class JsonParser {
public:
  explicit JsonParser(std::string_view text) : text_(text) {}

  bool parseDocument(Json &out) {
    skipSpace();
    if (!parseValue(out, 0))
      return false;
    skipSpace();
    if (pos_ != text_.size())
      return fail("unexpected text after the JSON value");
    return true;
  }
  const std::string &error() const { return error_; }

private:
  static constexpr int kMaxDepth = 64;

  bool fail(const std::string &what) {
    if (!error_.empty())
      return false;
    size_t line = 1, column = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    error_ = "line " + std::to_string(line) + ", column " +
             std::to_string(column) + ": " + what;
    return false;
  }

  void skipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }

  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word)
      return fail("expected a JSON value");
    pos_ += word.size();
    return true;
  }

  bool parseValue(Json &out, int depth) {
    if (pos_ >= text_.size())
      return fail("unexpected end of the text, expected a JSON value");
    char c = text_[pos_];
    switch (c) {
    case '{':
      return parseObject(out, depth + 1);
    case '[':
      return parseArray(out, depth + 1);
    case '"':
      out.kind = Json::Kind::String;
      return parseString(out.string);
    case 't':
      out.kind = Json::Kind::Bool;
      out.boolean = true;
      return literal("true");
    case 'f':
      out.kind = Json::Kind::Bool;
      out.boolean = false;
      return literal("false");
    case 'n':
      out.kind = Json::Kind::Null;
      return literal("null");
    default:
      if (c == '-' || (c >= '0' && c <= '9'))
        return parseNumber(out);
      return fail("expected a JSON value");
    }
  }

  bool parseObject(Json &out, int depth) {
    if (depth > kMaxDepth)
      return fail("nested more than " + std::to_string(kMaxDepth) +
                  " levels deep");
    out.kind = Json::Kind::Object;
    ++pos_; // '{'
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return true;
    }
    std::set<std::string> names;
    while (true) {
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"')
        return fail("expected a string (an object key)");
      std::string name;
      size_t keyPos = pos_;
      if (!parseString(name))
        return false;
      if (!names.insert(name).second) {
        pos_ = keyPos;
        return fail("duplicate object key " + jsonQuote(name));
      }
      skipSpace();
      if (pos_ >= text_.size() || text_[pos_] != ':')
        return fail("expected ':' after an object key");
      ++pos_;
      skipSpace();
      Json value;
      if (!parseValue(value, depth))
        return false;
      out.object.emplace_back(std::move(name), std::move(value));
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
        return true;
      }
      return fail("expected ',' or '}' in an object");
    }
  }

  bool parseArray(Json &out, int depth) {
    if (depth > kMaxDepth)
      return fail("nested more than " + std::to_string(kMaxDepth) +
                  " levels deep");
    out.kind = Json::Kind::Array;
    ++pos_; // '['
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return true;
    }
    while (true) {
      skipSpace();
      Json value;
      if (!parseValue(value, depth))
        return false;
      out.array.push_back(std::move(value));
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
        return true;
      }
      return fail("expected ',' or ']' in an array");
    }
  }

  bool hex4(uint32_t &out) {
    if (text_.size() - pos_ < 4)
      return fail("expected 4 hex digits after \\u");
    out = 0;
    for (int i = 0; i < 4; ++i) {
      char c = text_[pos_ + i];
      uint32_t d = c >= '0' && c <= '9'   ? uint32_t(c - '0')
                   : c >= 'a' && c <= 'f' ? uint32_t(c - 'a' + 10)
                   : c >= 'A' && c <= 'F' ? uint32_t(c - 'A' + 10)
                                          : 16;
      if (d == 16)
        return fail("expected 4 hex digits after \\u");
      out = out * 16 + d;
    }
    pos_ += 4;
    return true;
  }

  static void appendUtf8(std::string &s, uint32_t cp) {
    if (cp < 0x80) {
      s += char(cp);
    } else if (cp < 0x800) {
      s += char(0xC0 | (cp >> 6));
      s += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += char(0xE0 | (cp >> 12));
      s += char(0x80 | ((cp >> 6) & 0x3F));
      s += char(0x80 | (cp & 0x3F));
    } else {
      s += char(0xF0 | (cp >> 18));
      s += char(0x80 | ((cp >> 12) & 0x3F));
      s += char(0x80 | ((cp >> 6) & 0x3F));
      s += char(0x80 | (cp & 0x3F));
    }
  }

  bool parseString(std::string &out) {
    ++pos_; // '"'
    out.clear();
    while (true) {
      if (pos_ >= text_.size())
        return fail("unterminated string");
      unsigned char c = static_cast<unsigned char>(text_[pos_]);
      if (c == '"') {
        ++pos_;
        return true;
      }
      if (c < 0x20)
        return fail("control character in a string (escape it)");
      if (c != '\\') {
        out += char(c);
        ++pos_;
        continue;
      }
      if (++pos_ >= text_.size())
        return fail("unterminated string");
      char e = text_[pos_++];
      switch (e) {
      case '"':
      case '\\':
      case '/':
        out += e;
        break;
      case 'b':
        out += '\b';
        break;
      case 'f':
        out += '\f';
        break;
      case 'n':
        out += '\n';
        break;
      case 'r':
        out += '\r';
        break;
      case 't':
        out += '\t';
        break;
      case 'u': {
        uint32_t cp = 0;
        if (!hex4(cp))
          return false;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
          return fail("unpaired low surrogate in a \\u escape");
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t low = 0;
          if (text_.substr(pos_, 2) != "\\u")
            return fail("unpaired high surrogate in a \\u escape");
          pos_ += 2;
          if (!hex4(low))
            return false;
          if (low < 0xDC00 || low > 0xDFFF)
            return fail("unpaired high surrogate in a \\u escape");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        appendUtf8(out, cp);
        break;
      }
      default:
        --pos_;
        return fail(std::string("invalid escape '\\") + e + "' in a string");
      }
    }
  }

  bool parseNumber(Json &out) {
    // RFC 8259: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    size_t start = pos_;
    auto digits = [&] {
      size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9')
        ++pos_;
      return pos_ - from;
    };
    if (text_[pos_] == '-')
      ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '0') {
      ++pos_;
    } else if (digits() == 0) {
      return fail("invalid number");
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (digits() == 0)
        return fail("invalid number (digits expected after '.')");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-'))
        ++pos_;
      if (digits() == 0)
        return fail("invalid number (digits expected in the exponent)");
    }
    std::string number(text_.substr(start, pos_ - start));
    out.kind = Json::Kind::Number;
    out.number = std::strtod(number.c_str(), nullptr);
    if (!std::isfinite(out.number)) {
      pos_ = start;
      return fail("number " + number + " is out of range");
    }
    return true;
  }

  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};
} // namespace

bool kiln::tune::parseJson(std::string_view text, Json &out,
                           std::string &error) {
  out = Json();
  JsonParser parser(text);
  if (parser.parseDocument(out))
    return true;
  error = parser.error();
  return false;
}

std::string kiln::tune::jsonNumber(double v) {
  if (!std::isfinite(v))
    return "null";
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v)
      break;
  }
  return buf;
}

//===----------------------------------------------------------------------===//
// Timing cache
//===----------------------------------------------------------------------===//

bool TimingEntry::operator==(const TimingEntry &o) const {
  return target == o.target && key == o.key && name == o.name &&
         device == o.device && best == o.best && timesMs == o.timesMs;
}

const TimingEntry *TimingCache::find(std::string_view target,
                                     std::string_view key) const {
  for (const TimingEntry &e : entries)
    if (e.target == target && e.key == key)
      return &e;
  return nullptr;
}

bool TimingCache::merge(TimingEntry entry) {
  for (TimingEntry &e : entries)
    if (e.target == entry.target && e.key == entry.key) {
      e = std::move(entry);
      return true;
    }
  entries.push_back(std::move(entry));
  return false;
}

static Status invalidCache(const std::string &message) {
  return Status(StatusCode::InvalidArgument, message);
}

Status kiln::tune::validateTimingEntry(const TimingEntry &e,
                                       const std::string &what) {
  if (e.target.empty())
    return invalidCache(what + " has no target");
  if (e.key.empty())
    return invalidCache(what + " has no key");
  if (e.timesMs.empty())
    return invalidCache(what + " has no times");
  std::set<std::string> names;
  bool bestFound = false;
  for (const auto &[variant, ms] : e.timesMs) {
    if (!names.insert(variant).second)
      return invalidCache(what + " lists variant " + jsonQuote(variant) +
                          " twice");
    if (!std::isfinite(ms) || ms < 0)
      return invalidCache(what + " has time " + std::to_string(ms) +
                          " ms for variant " + jsonQuote(variant) +
                          ", expected a finite number >= 0");
    bestFound |= variant == e.best;
  }
  if (!bestFound)
    return invalidCache(what + ": its best variant " + jsonQuote(e.best) +
                        " has no time");
  return Status::success();
}

Status kiln::tune::parseTimingCache(std::string_view text,
                                    const std::string &source,
                                    TimingCache &out) {
  out = TimingCache();
  Json root;
  std::string error;
  if (!parseJson(text, root, error))
    return invalidCache("timing cache " + source +
                        " is not valid JSON: " + error);
  const Json *version = root.find("kiln_timing_cache");
  if (!version)
    return invalidCache(source +
                        " is not a kiln timing cache (a JSON object with "
                        "\"kiln_timing_cache\": " +
                        std::to_string(TimingCache::kVersion) +
                        " is expected): give another file");
  if (version->kind != Json::Kind::Number ||
      version->number != TimingCache::kVersion)
    return Status(StatusCode::UnsupportedVersion,
                  "timing cache " + source + " has \"kiln_timing_cache\": " +
                      (version->kind == Json::Kind::Number
                           ? jsonNumber(version->number)
                           : std::string("<not a number>")) +
                      "; this kiln-tune reads version " +
                      std::to_string(TimingCache::kVersion));
  const Json *entries = root.find("entries");
  if (!entries || entries->kind != Json::Kind::Array)
    return invalidCache("timing cache " + source + " has no \"entries\" array");
  for (size_t i = 0; i < entries->array.size(); ++i) {
    const Json &e = entries->array[i];
    std::string what =
        "timing cache " + source + ": entry " + std::to_string(i);
    if (e.kind != Json::Kind::Object)
      return invalidCache(what + " is not an object");
    TimingEntry entry;
    struct Field {
      const char *name;
      std::string *value;
      bool required;
    };
    Field fields[] = {{"target", &entry.target, true},
                      {"key", &entry.key, true},
                      {"name", &entry.name, false},
                      {"device", &entry.device, false},
                      {"best", &entry.best, true}};
    for (const Field &f : fields) {
      const Json *v = e.find(f.name);
      if (!v) {
        if (f.required)
          return invalidCache(what + " has no \"" + f.name + "\"");
        continue;
      }
      if (v->kind != Json::Kind::String)
        return invalidCache(what + ": \"" + f.name + "\" is not a string");
      *f.value = v->string;
    }
    const Json *times = e.find("times_ms");
    if (!times || times->kind != Json::Kind::Object)
      return invalidCache(what + " has no \"times_ms\" object");
    for (const auto &[variant, ms] : times->object) {
      if (ms.kind != Json::Kind::Number)
        return invalidCache(what + ": the time of " + jsonQuote(variant) +
                            " is not a number");
      entry.timesMs.emplace_back(variant, ms.number);
    }
    if (Status s = validateTimingEntry(entry, what); !s)
      return s;
    out.merge(std::move(entry));
  }
  return Status::success();
}

std::string kiln::tune::serializeTimingCache(const TimingCache &cache) {
  std::string s =
      "{\"kiln_timing_cache\": " + std::to_string(TimingCache::kVersion) +
      ",\n \"entries\": [";
  for (size_t i = 0; i < cache.entries.size(); ++i) {
    const TimingEntry &e = cache.entries[i];
    s += i ? ",\n  " : "\n  ";
    s += "{\"target\": " + jsonQuote(e.target) +
         ", \"key\": " + jsonQuote(e.key) + ", \"name\": " + jsonQuote(e.name) +
         ", \"device\": " + jsonQuote(e.device) +
         ", \"best\": " + jsonQuote(e.best) + ", \"times_ms\": {";
    for (size_t v = 0; v < e.timesMs.size(); ++v)
      s += (v ? ", " : "") + jsonQuote(e.timesMs[v].first) + ": " +
           jsonNumber(e.timesMs[v].second);
    s += "}}";
  }
  s += cache.entries.empty() ? "]}\n" : "\n ]}\n";
  return s;
}

static Status ioError(const std::string &what, const std::string &path,
                      int err) {
  return Status(StatusCode::IOError,
                what + " '" + path + "': " + std::strerror(err));
}

Status kiln::tune::readTimingCache(const std::string &path, TimingCache &out,
                                   bool *existed) {
  out = TimingCache();
  if (existed)
    *existed = false;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT)
      return Status::success();
    return ioError("cannot open timing cache", path, errno);
  }
  struct stat st;
  int statResult = ::fstat(fd, &st);
  if (statResult != 0 || !S_ISREG(st.st_mode)) {
    int err = statResult != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
    ::close(fd);
    return ioError("cannot read timing cache", path, err);
  }
  std::string text;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return ioError("cannot read timing cache", path, err);
    }
    if (n == 0)
      break;
    text.append(buf, size_t(n));
  }
  ::close(fd);
  if (existed)
    *existed = true;
  return parseTimingCache(text, "'" + path + "'", out);
}

Status kiln::tune::writeFileAtomically(const std::string &path,
                                       std::string_view contents) {
  return plan::writeFileAtomically(
      path,
      {plan::ByteSpan{reinterpret_cast<const uint8_t *>(contents.data()),
                      contents.size()}},
      "timing cache");
}

Status kiln::tune::mergeTimingCacheFile(const std::string &path,
                                        const std::vector<TimingEntry> &entries,
                                        MergeResult *result) {
  TimingCache cache;
  bool existed = false;
  if (Status s = readTimingCache(path, cache, &existed); !s)
    return s;
  MergeResult r;
  r.created = !existed;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (Status s = validateTimingEntry(entries[i],
                                       "timing entry " + std::to_string(i));
        !s)
      return s;
    (cache.merge(entries[i]) ? r.replaced : r.added)++;
  }
  r.total = cache.entries.size();
  if (Status s = writeFileAtomically(path, serializeTimingCache(cache)); !s)
    return s;
  if (result)
    *result = r;
  return Status::success();
}
