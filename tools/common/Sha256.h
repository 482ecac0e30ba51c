//===- Sha256.h - SHA-256 of files, for provenance -----------------*- C++
//-*-===//
//
// With OpenSSL's libcrypto (Debian's libssl-dev): the tools record and check
// the SHA-256 of the files a plan is made from (runtime/PLAN_FORMAT.md).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_COMMON_SHA256_H
#define KILN_TOOLS_COMMON_SHA256_H

#include "kiln/Plan/Status.h"

#include <string>

namespace kiln::tools {

/// SHA-256 of the file's contents as 64 lower-case hex digits, read in
/// chunks (no size limit).
plan::Status sha256File(const std::string &path, std::string &hex);

/// SHA-256 of `size` bytes at `data`, as sha256File writes it.
plan::Status sha256Bytes(const void *data, size_t size, std::string &hex);

/// The current UTC time as ISO 8601 ("2026-12-02T16:03:18Z"), or
/// $SOURCE_DATE_EPOCH's when set (reproducible builds).
plan::Status utcTimestamp(std::string &out);

} // namespace kiln::tools

#endif // KILN_TOOLS_COMMON_SHA256_H
