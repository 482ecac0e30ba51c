//===- Json.cpp - JSON string escaping for the runtime's C API ------------===//

#include "support/Json.h"

using namespace kiln::runtime;

/// Length of the valid UTF-8 sequence at `p` (at most `n` bytes), 0 if the
/// bytes there are not one: overlong forms, surrogates and code points above
/// U+10FFFF are invalid (RFC 3629).
static size_t utf8Length(const unsigned char *p, size_t n) {
  unsigned c = p[0];
  size_t len;
  unsigned cp;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
    cp = c & 0x1F;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    cp = c & 0x0F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (n < len)
    return 0;
  for (size_t i = 1; i < len; ++i) {
    if ((p[i] & 0xC0) != 0x80)
      return 0;
    cp = (cp << 6) | (p[i] & 0x3F);
  }
  if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
      (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
    return 0;
  return len;
}

std::string kiln::runtime::jsonString(std::string_view text) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  const unsigned char *p = reinterpret_cast<const unsigned char *>(text.data());
  size_t n = text.size();
  for (size_t i = 0; i < n;) {
    unsigned char c = p[i];
    if (c >= 0x80) {
      if (size_t len = utf8Length(p + i, n - i)) {
        out.append(text.data() + i, len);
        i += len;
      } else {
        // A stray byte: the code point of the same value, in UTF-8.
        out += char(0xC0 | (c >> 6));
        out += char(0x80 | (c & 0x3F));
        ++i;
      }
      continue;
    }
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20 || c == 0x7F) {
        out += "\\u00";
        out += kHex[c >> 4];
        out += kHex[c & 0xF];
      } else {
        out += char(c);
      }
    }
    ++i;
  }
  out += '"';
  return out;
}

std::string kiln::runtime::provenanceJson(
    const std::vector<plan::ProvenanceEntry> &entries) {
  std::string out = "{";
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i)
      out += ", ";
    out += jsonString(entries[i].key);
    out += ": ";
    out += jsonString(entries[i].value);
  }
  return out + "}";
}
