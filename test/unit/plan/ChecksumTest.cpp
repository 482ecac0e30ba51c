//===- ChecksumTest.cpp - XXH64 and the plan header encoding --------------===//

#include "kiln/Plan/PlanHeader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

using namespace kiln::plan;

// Reference values from the system's libxxhash 0.8.1 (XXH64).
TEST(Checksum, Xxh64MatchesReferenceVectors) {
  EXPECT_EQ(xxh64("", 0), 0xef46db3751d8e999ull);
  EXPECT_EQ(xxh64("a", 1), 0xd24ec4f1a98c6e5bull);
  EXPECT_EQ(xxh64("abc", 3), 0x44bc2cf5ad770999ull);
  const char *text = "Nobody inspects the spammish repetition";
  EXPECT_EQ(xxh64(text, std::strlen(text)), 0xfbcea83c8a378bf1ull);

  std::vector<uint8_t> bytes;
  for (int r = 0; r < 3; ++r)
    for (int i = 0; i < 256; ++i)
      bytes.push_back(uint8_t(i));
  bytes.insert(bytes.end(), {'x', 'y', 'z'});
  EXPECT_EQ(xxh64(bytes.data(), bytes.size()), 0xe921a1b45bd779f8ull);
  EXPECT_EQ(xxh64(bytes.data(), 100, 0x9e3779b97f4a7c15ull),
            0x3b97d91eba03e785ull);
}

TEST(Checksum, StreamingEqualsOneShot) {
  std::mt19937_64 rng(7);
  std::vector<uint8_t> bytes(5000);
  for (uint8_t &b : bytes)
    b = uint8_t(rng());
  for (int trial = 0; trial < 200; ++trial) {
    size_t size = rng() % bytes.size();
    uint64_t seed = rng();
    Xxh64 hasher(seed);
    size_t done = 0;
    while (done < size) {
      size_t chunk = std::min<size_t>(size - done, rng() % 70);
      hasher.update(bytes.data() + done, chunk);
      done += chunk;
    }
    ASSERT_EQ(hasher.digest(), xxh64(bytes.data(), size, seed)) << size;
  }
}

TEST(Header, LayoutIsLittleEndianAndFixed) {
  PlanHeader h{};
  std::memcpy(h.magic, kPlanMagic, 8);
  h.formatVersion = kPlanFormatVersion;
  h.headerSize = 64;
  std::strcpy(h.compilerVersion, "0.1.0");
  h.targetMask = 0x0102030405060708ull;
  h.minDriverVersion = 12040;
  h.flatbufferSize = 0x11223344;
  h.payloadSize = 0x5566778899aabbccull;
  h.checksum = 0xdeadbeefcafef00dull;
  uint8_t bytes[64];
  encodeHeader(h, bytes);
  EXPECT_EQ(std::memcmp(bytes, "KILNPLAN", 8), 0);
  EXPECT_EQ(bytes[8], 4);
  EXPECT_EQ(bytes[12], 64);
  EXPECT_EQ(std::memcmp(bytes + 16, "0.1.0\0", 6), 0);
  EXPECT_EQ(bytes[32], 0x08);
  EXPECT_EQ(bytes[39], 0x01);
  EXPECT_EQ(bytes[40] | bytes[41] << 8, 12040);
  EXPECT_EQ(bytes[44], 0x44);
  EXPECT_EQ(bytes[48], 0xcc);
  EXPECT_EQ(bytes[56], 0x0d);
  EXPECT_EQ(bytes[63], 0xde);
  PlanHeader back = decodeHeader(bytes);
  EXPECT_EQ(std::memcmp(&back, &h, sizeof(h)), 0);
}

TEST(Header, TargetBits) {
  EXPECT_EQ(targetBit("host"), 1u);
  EXPECT_NE(targetBit("sm_90a"), 0u);
  EXPECT_NE(targetBit("sm_90a"), targetBit("sm_90"));
  EXPECT_EQ(targetBit("sm_999"), 0u);
  EXPECT_EQ(targetMask({"host", "sm_80"}),
            targetBit("host") | targetBit("sm_80"));
  EXPECT_EQ(targetMask({"host", "sm_999"}),
            targetBit("host") | kOtherTargetBit);
  EXPECT_EQ(targetMaskToString(targetMask({"sm_90a", "host"})), "host,sm_90a");
}

TEST(Header, WeightsSectionOffset) {
  EXPECT_EQ(weightsSectionOffset(64, 0), 64u);
  EXPECT_EQ(weightsSectionOffset(64, 1), 128u);
  EXPECT_EQ(weightsSectionOffset(64, 64), 128u);
  EXPECT_EQ(weightsSectionOffset(64, 65), 192u);
}
