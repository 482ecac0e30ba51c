//===- Sha256.cpp - SHA-256 of files, for provenance ----------------------===//
#include "tools/common/Sha256.h"

#include <openssl/evp.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <vector>

using namespace kiln;
using plan::Status;

namespace {
using DigestContext = std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX *)>;

Status startDigest(DigestContext &ctx) {
  ctx.reset(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    return Status(plan::StatusCode::Internal,
                  "cannot start a SHA-256 digest (libcrypto)");
  return Status::success();
}

Status finishDigest(DigestContext &ctx, std::string &hex) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(ctx.get(), digest, &size) != 1 || size != 32)
    return Status(plan::StatusCode::Internal,
                  "SHA-256 digest failed (libcrypto)");
  static const char kHex[] = "0123456789abcdef";
  hex.clear();
  for (unsigned i = 0; i < size; ++i) {
    hex += kHex[digest[i] >> 4];
    hex += kHex[digest[i] & 15];
  }
  return Status::success();
}
} // namespace

Status tools::sha256Bytes(const void *data, size_t size, std::string &hex) {
  DigestContext ctx(nullptr, &EVP_MD_CTX_free);
  if (Status s = startDigest(ctx); !s)
    return s;
  if (EVP_DigestUpdate(ctx.get(), data, size) != 1)
    return Status(plan::StatusCode::Internal,
                  "SHA-256 digest failed (libcrypto)");
  return finishDigest(ctx, hex);
}

Status tools::sha256File(const std::string &path, std::string &hex) {
  std::unique_ptr<std::FILE, int (*)(std::FILE *)> f(
      std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!f)
    return Status(plan::StatusCode::IOError,
                  "cannot read '" + path + "': " + std::strerror(errno));
  DigestContext ctx(nullptr, &EVP_MD_CTX_free);
  if (Status st = startDigest(ctx); !st)
    return st;
  std::vector<unsigned char> chunk(1 << 20);
  size_t n;
  while ((n = std::fread(chunk.data(), 1, chunk.size(), f.get())) > 0)
    if (EVP_DigestUpdate(ctx.get(), chunk.data(), n) != 1)
      return Status(plan::StatusCode::Internal,
                    "SHA-256 digest failed (libcrypto)");
  if (std::ferror(f.get()))
    return Status(plan::StatusCode::IOError,
                  "cannot read '" + path + "': read error");
  return finishDigest(ctx, hex);
}

Status tools::utcTimestamp(std::string &out) {
  std::time_t now = std::time(nullptr);
  if (const char *epoch = std::getenv("SOURCE_DATE_EPOCH")) {
    char *end = nullptr;
    errno = 0;
    long long seconds = std::strtoll(epoch, &end, 10);
    if (!*epoch || *end || errno || seconds < 0)
      return Status(plan::StatusCode::InvalidArgument,
                    std::string("SOURCE_DATE_EPOCH='") + epoch +
                        "' is not a number of seconds since 1970");
    now = std::time_t(seconds);
  }
  std::tm utc{};
  char text[32];
  if (!gmtime_r(&now, &utc) ||
      !std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc))
    return Status(plan::StatusCode::Internal, "cannot format the current time");
  out = text;
  return Status::success();
}
