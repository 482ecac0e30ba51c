//===- Sha256Test.cpp - SHA-256 and timestamps of provenance --------------===//
#include "tools/common/Sha256.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>

using namespace kiln;

namespace {

// Tests the FIPS 180-2 vectors, for bytes and for a file read in chunks
// larger than one read (1 MiB + 1 bytes of 'a').
TEST(Sha256, KnownVectors) {
  std::string hex;
  ASSERT_TRUE(tools::sha256Bytes("abc", 3, hex).ok());
  EXPECT_EQ(hex,
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  ASSERT_TRUE(tools::sha256Bytes("", 0, hex).ok());
  EXPECT_EQ(hex,
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

  std::string path =
      ::testing::TempDir() + "sha256-" + std::to_string(::getpid()) + ".bin";
  std::string data((1 << 20) + 1, 'a');
  std::FILE *f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(data.data(), 1, data.size(), f), data.size());
  std::fclose(f);
  std::string fromBytes, fromFile;
  ASSERT_TRUE(tools::sha256Bytes(data.data(), data.size(), fromBytes).ok());
  ASSERT_TRUE(tools::sha256File(path, fromFile).ok());
  EXPECT_EQ(fromFile, fromBytes);
  std::remove(path.c_str());
}

// Tests that a missing file is an I/O error naming it.
TEST(Sha256, MissingFileIsAnError) {
  std::string hex;
  plan::Status st = tools::sha256File("/nonexistent/model.onnx", hex);
  EXPECT_EQ(st.code(), plan::StatusCode::IOError);
  EXPECT_NE(st.message().find("/nonexistent/model.onnx"), std::string::npos);
}

// Tests SOURCE_DATE_EPOCH: honoured, and refused when not a number.
TEST(Sha256, TimestampHonoursSourceDateEpoch) {
  std::string t;
  ::setenv("SOURCE_DATE_EPOCH", "1764633600", 1);
  ASSERT_TRUE(tools::utcTimestamp(t).ok());
  EXPECT_EQ(t, "2025-12-02T00:00:00Z");
  ::setenv("SOURCE_DATE_EPOCH", "12x", 1);
  EXPECT_EQ(tools::utcTimestamp(t).code(), plan::StatusCode::InvalidArgument);
  ::unsetenv("SOURCE_DATE_EPOCH");
  ASSERT_TRUE(tools::utcTimestamp(t).ok());
  EXPECT_EQ(t.size(), 20u);
  EXPECT_EQ(t.back(), 'Z');
}

} // namespace
