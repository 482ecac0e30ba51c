//===- PlanTestUtil.h - helpers shared by the plan format tests ----------===//
#ifndef KILN_TEST_UNIT_PLAN_PLANTESTUTIL_H
#define KILN_TEST_UNIT_PLAN_PLANTESTUTIL_H

#include "kiln/Plan/PlanIO.h"
#include "kiln/Plan/Plan_generated.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace kiln::plan::test {

/// Bytes that stand in for a module: the reader never loads them.
inline std::vector<uint8_t> fakeModule(uint8_t seed, size_t size) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i)
    bytes[i] = uint8_t(seed + i * 7);
  return bytes;
}

/// The bytes `w` writes (the test fails if it cannot).
inline std::vector<uint8_t> serialized(const PlanWriter &w) {
  std::vector<uint8_t> bytes;
  Status s = w.serialize(bytes);
  EXPECT_TRUE(s.ok()) << s.message();
  return bytes;
}

/// Recomputes the checksum after a deliberate edit.
inline void fixChecksum(std::vector<uint8_t> &bytes) {
  PlanHeader h = decodeHeader(bytes.data());
  h.checksum =
      computePlanChecksum(bytes.data(), bytes.data() + 64, bytes.size() - 64);
  encodeHeader(h, bytes.data());
}

/// The message of the InvalidPlan error `w` must fail to serialize with.
inline std::string writeError(const PlanWriter &w) {
  std::vector<uint8_t> bytes;
  Status s = w.serialize(bytes);
  EXPECT_EQ(s.code(), StatusCode::InvalidPlan) << s.message();
  return s.message();
}

inline bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

/// Generated FlatBuffers tables inherit flatbuffers::Table privately; its
/// CheckField says whether a field is stored (not just defaulted).
template <typename T> bool hasField(const T *table, uint16_t field) {
  return reinterpret_cast<const flatbuffers::Table *>(table)->CheckField(field);
}

/// Flips 1-3 random bits of the FlatBuffer of `bytes` (or, with
/// `randomBytes`, every third trial sets random bytes) `trials` times, each
/// behind a recomputed checksum, and opens the result with `open`: a
/// refusal must say why, an accepted plan must be valid; nothing may crash
/// (run under ASan/UBSan). Returns how many were refused.
inline int openCorrupted(
    const std::vector<uint8_t> &bytes, uint64_t seed, int trials,
    bool randomBytes,
    const std::function<Status(const std::vector<uint8_t> &, PlanReader &)>
        &open) {
  PlanHeader h = decodeHeader(bytes.data());
  std::mt19937_64 rng(seed);
  PlanReader reader;
  int refused = 0;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<uint8_t> copy = bytes;
    int flips = 1 + int(rng() % 3);
    for (int f = 0; f < flips; ++f) {
      size_t at = 64 + rng() % h.flatbufferSize;
      copy[at] = randomBytes && trial % 3 == 0
                     ? uint8_t(rng())
                     : copy[at] ^ uint8_t(1 << (rng() % 8));
    }
    fixChecksum(copy);
    Status s = open(copy, reader);
    if (!s.ok()) {
      ++refused;
      EXPECT_FALSE(s.message().empty());
    } else {
      EXPECT_TRUE(validatePlan(reader.plan()).ok());
    }
  }
  return refused;
}

} // namespace kiln::plan::test

#endif // KILN_TEST_UNIT_PLAN_PLANTESTUTIL_H
