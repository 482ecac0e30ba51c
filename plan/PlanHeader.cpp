//===- PlanHeader.cpp - Plan header encoding, target bits and XXH64 -------===//

#include "kiln/Plan/PlanHeader.h"

#include <cstring>

using namespace kiln::plan;

static void putLE(uint8_t *p, uint64_t v, unsigned bytes) {
  for (unsigned i = 0; i < bytes; ++i)
    p[i] = uint8_t(v >> (8 * i));
}

static uint64_t getLE(const uint8_t *p, unsigned bytes) {
  uint64_t v = 0;
  for (unsigned i = 0; i < bytes; ++i)
    v |= uint64_t(p[i]) << (8 * i);
  return v;
}

void kiln::plan::encodeHeader(const PlanHeader &h,
                              uint8_t out[kPlanHeaderSize]) {
  std::memcpy(out + 0, h.magic, 8);
  putLE(out + 8, h.formatVersion, 4);
  putLE(out + 12, h.headerSize, 4);
  std::memcpy(out + 16, h.compilerVersion, 16);
  putLE(out + 32, h.targetMask, 8);
  putLE(out + 40, h.minDriverVersion, 4);
  putLE(out + 44, h.flatbufferSize, 4);
  putLE(out + 48, h.payloadSize, 8);
  putLE(out + 56, h.checksum, 8);
}

PlanHeader kiln::plan::decodeHeader(const uint8_t in[kPlanHeaderSize]) {
  PlanHeader h;
  std::memcpy(h.magic, in + 0, 8);
  h.formatVersion = uint32_t(getLE(in + 8, 4));
  h.headerSize = uint32_t(getLE(in + 12, 4));
  std::memcpy(h.compilerVersion, in + 16, 16);
  h.targetMask = getLE(in + 32, 8);
  h.minDriverVersion = uint32_t(getLE(in + 40, 4));
  h.flatbufferSize = uint32_t(getLE(in + 44, 4));
  h.payloadSize = getLE(in + 48, 8);
  h.checksum = getLE(in + 56, 8);
  return h;
}

namespace {
struct TargetBitEntry {
  const char *name;
  uint64_t bit;
};
} // namespace

// Append only: these bits are stored in plan files.
static const TargetBitEntry kTargetBits[] = {
    {"host", 1ull << 0},     {"sm_70", 1ull << 1},    {"sm_75", 1ull << 2},
    {"sm_80", 1ull << 3},    {"sm_86", 1ull << 4},    {"sm_87", 1ull << 5},
    {"sm_89", 1ull << 6},    {"sm_90", 1ull << 7},    {"sm_90a", 1ull << 8},
    {"sm_100", 1ull << 9},   {"sm_100a", 1ull << 10}, {"sm_120", 1ull << 11},
    {"sm_120a", 1ull << 12},
};

uint64_t kiln::plan::targetBit(std::string_view target) {
  for (const TargetBitEntry &e : kTargetBits)
    if (target == e.name)
      return e.bit;
  return 0;
}

uint64_t kiln::plan::targetMask(const std::vector<std::string> &targets) {
  uint64_t mask = 0;
  for (const std::string &t : targets) {
    uint64_t bit = targetBit(t);
    mask |= bit ? bit : kOtherTargetBit;
  }
  return mask;
}

std::string kiln::plan::targetMaskToString(uint64_t mask) {
  std::string out;
  auto add = [&](const char *name) {
    if (!out.empty())
      out += ",";
    out += name;
  };
  for (const TargetBitEntry &e : kTargetBits)
    if (mask & e.bit)
      add(e.name);
  if (mask & kOtherTargetBit)
    add("other");
  return out;
}

//===----------------------------------------------------------------------===//
// XXH64, after the reference description at github.com/Cyan4973/xxHash
// (doc/xxhash_spec.md). Reads are little-endian byte by byte so the result
// does not depend on host byte order or alignment.
//===----------------------------------------------------------------------===//

static constexpr uint64_t kPrime1 = 0x9E3779B185EBCA87ull;
static constexpr uint64_t kPrime2 = 0xC2B2AE3D27D4EB4Full;
static constexpr uint64_t kPrime3 = 0x165667B19E3779F9ull;
static constexpr uint64_t kPrime4 = 0x85EBCA77C2B2AE63ull;
static constexpr uint64_t kPrime5 = 0x27D4EB2F165667C5ull;

static inline uint64_t rotl(uint64_t x, unsigned r) {
  return (x << r) | (x >> (64 - r));
}

static inline uint64_t round1(uint64_t acc, uint64_t input) {
  acc += input * kPrime2;
  acc = rotl(acc, 31);
  return acc * kPrime1;
}

static inline uint64_t mergeRound(uint64_t acc, uint64_t val) {
  acc ^= round1(0, val);
  return acc * kPrime1 + kPrime4;
}

static inline uint64_t read64(const uint8_t *p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

static inline uint32_t read32(const uint8_t *p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap32(v);
#endif
  return v;
}

Xxh64::Xxh64(uint64_t seed) : seed_(seed) {
  acc_[0] = seed + kPrime1 + kPrime2;
  acc_[1] = seed + kPrime2;
  acc_[2] = seed;
  acc_[3] = seed - kPrime1;
}

void Xxh64::update(const void *data, size_t size) {
  const uint8_t *p = static_cast<const uint8_t *>(data);
  total_ += size;
  if (buffered_) {
    size_t take = size < 32 - buffered_ ? size : 32 - buffered_;
    std::memcpy(buffer_ + buffered_, p, take);
    buffered_ += take;
    p += take;
    size -= take;
    if (buffered_ < 32)
      return;
    for (int i = 0; i < 4; ++i)
      acc_[i] = round1(acc_[i], read64(buffer_ + 8 * i));
    buffered_ = 0;
  }
  uint64_t a0 = acc_[0], a1 = acc_[1], a2 = acc_[2], a3 = acc_[3];
  while (size >= 32) {
    a0 = round1(a0, read64(p));
    a1 = round1(a1, read64(p + 8));
    a2 = round1(a2, read64(p + 16));
    a3 = round1(a3, read64(p + 24));
    p += 32;
    size -= 32;
  }
  acc_[0] = a0, acc_[1] = a1, acc_[2] = a2, acc_[3] = a3;
  if (size) {
    std::memcpy(buffer_, p, size);
    buffered_ = size;
  }
}

uint64_t Xxh64::digest() const {
  uint64_t h;
  if (total_ >= 32) {
    h = rotl(acc_[0], 1) + rotl(acc_[1], 7) + rotl(acc_[2], 12) +
        rotl(acc_[3], 18);
    for (int i = 0; i < 4; ++i)
      h = mergeRound(h, acc_[i]);
  } else {
    h = seed_ + kPrime5;
  }
  h += total_;
  const uint8_t *p = buffer_;
  size_t n = buffered_;
  while (n >= 8) {
    h ^= round1(0, read64(p));
    h = rotl(h, 27) * kPrime1 + kPrime4;
    p += 8;
    n -= 8;
  }
  if (n >= 4) {
    h ^= uint64_t(read32(p)) * kPrime1;
    h = rotl(h, 23) * kPrime2 + kPrime3;
    p += 4;
    n -= 4;
  }
  while (n--) {
    h ^= uint64_t(*p++) * kPrime5;
    h = rotl(h, 11) * kPrime1;
  }
  h ^= h >> 33;
  h *= kPrime2;
  h ^= h >> 29;
  h *= kPrime3;
  h ^= h >> 32;
  return h;
}

uint64_t kiln::plan::xxh64(const void *data, size_t size, uint64_t seed) {
  Xxh64 hasher(seed);
  hasher.update(data, size);
  return hasher.digest();
}

uint64_t kiln::plan::computePlanChecksum(const uint8_t header[kPlanHeaderSize],
                                         const void *payload,
                                         size_t payloadSize) {
  return xxh64(payload, payloadSize, xxh64(header, 56, 0));
}
