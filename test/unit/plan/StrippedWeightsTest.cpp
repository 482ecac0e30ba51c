//===- StrippedWeightsTest.cpp - Weight-stripped plans: write, read, refit ===//

#include "PlanTestUtil.h"

#include "kiln/Plan/PlanIO.h"
#include "kiln/Plan/Plan_generated.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <random>

using namespace kiln::plan;
using namespace kiln::plan::test;
namespace fbs = kiln::plan::fb;

namespace {

std::vector<uint8_t> pattern(uint8_t seed, size_t size) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i)
    bytes[i] = uint8_t(seed + i * 13 + (i >> 8));
  return bytes;
}

/// Weights of the test plan: small ones stay inline, large ones are stripped
/// when `strip` is set. Sizes are odd on purpose (padding between them).
struct Weights {
  std::vector<uint8_t> small1 = pattern(1, 20), big1 = pattern(2, 5000),
                       small2 = pattern(3, 3), big2 = pattern(4, 4099);
};

/// The same plan with all weights inline or with the big ones stripped.
PlanWriter makeWriter(const Weights &w, bool strip) {
  PlanWriter pw("kiln-test");
  uint32_t x = pw.addInput({"x", DType::f32, {4}, {}});
  uint32_t y = pw.addOutput({"y", DType::f32, {4}, {}});
  auto add = [&](const std::vector<uint8_t> &b, bool big, uint32_t align) {
    return strip && big ? pw.addStrippedWeightBuffer(b.data(), b.size(), align)
                        : pw.addWeightBuffer(b.data(), b.size(), align);
  };
  uint32_t s1 = add(w.small1, false, 64);
  uint32_t b1 = add(w.big1, true, 64);
  uint32_t s2 = add(w.small2, false, 1);
  uint32_t b2 = add(w.big2, true, 16);
  std::vector<uint8_t> so = pattern(9, 128);
  uint32_t m = pw.addModule("host", ModuleFormat::HostSharedObject, so.data(),
                            so.size());
  Step step;
  step.kernel = pw.addKernel("k", m, "kiln_k");
  step.args = {{x, 0}, {s1, 0}, {b1, 8}, {s2, 0}, {b2, 0}, {y, 0}};
  pw.addStep(step);
  return pw;
}

Status openStripped(const std::vector<uint8_t> &bytes, PlanReader &reader) {
  PlanReader::Options options;
  options.allowWeightStripped = true;
  return reader.open(bytes.data(), bytes.size(), options);
}

/// A hand-built plan whose Weight buffers and stripped size `edit` chooses,
/// with `fileWeights` bytes of weights in the file and a valid checksum, so
/// that the reader gets to the semantic checks.
std::vector<uint8_t>
craft(const std::function<void(flatbuffers::FlatBufferBuilder &,
                               std::vector<flatbuffers::Offset<fbs::Buffer>> &)>
          &addBuffers,
      uint64_t fileWeights, uint64_t strippedSize) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fbs::Buffer>> buffers;
  addBuffers(fbb, buffers);
  std::vector<uint8_t> so = pattern(5, 64);
  std::vector<flatbuffers::Offset<fbs::Module>> modules = {fbs::CreateModule(
      fbb, fbb.CreateString("host"), fbs::ModuleFormat::HostSharedObject,
      fbb.CreateVector(so))};
  std::vector<std::string> targets = {"host"};
  auto plan = fbs::CreatePlan(fbb, fbb.CreateString("0.1.0"),
                              fbb.CreateVectorOfStrings(targets), 0, 0, 0,
                              fbb.CreateVector(buffers), 0, 0, fileWeights,
                              fbb.CreateVector(modules), 0, 0, strippedSize);
  fbs::FinishPlanBuffer(fbb, plan);

  PlanHeader h{};
  std::memcpy(h.magic, kPlanMagic, 8);
  h.formatVersion = kPlanFormatVersion;
  h.headerSize = 64;
  std::memcpy(h.compilerVersion, "0.1.0", 5);
  h.targetMask = targetMask(targets);
  h.flatbufferSize = fbb.GetSize();
  uint64_t wOff = weightsSectionOffset(64, h.flatbufferSize);
  std::vector<uint8_t> bytes(wOff + fileWeights, 0);
  std::memcpy(bytes.data() + 64, fbb.GetBufferPointer(), fbb.GetSize());
  h.payloadSize = bytes.size() - 64;
  encodeHeader(h, bytes.data());
  fixChecksum(bytes);
  return bytes;
}

} // namespace

TEST(StrippedWeights, StrippedPlanOmitsTheBigWeightsAndRecordsTheirHashes) {
  Weights w;
  std::vector<uint8_t> full = serialized(makeWriter(w, false));
  std::vector<uint8_t> stripped = serialized(makeWriter(w, true));
  // The FlatBuffer grows by the hashes; the file still shrinks by almost
  // the stripped bytes (the exact section sizes are checked below).
  EXPECT_GT(full.size(), stripped.size() + w.big1.size() + w.big2.size() - 128);

  PlanReader reader;
  Status s = reader.open(stripped.data(), stripped.size());
  EXPECT_EQ(s.code(), StatusCode::InvalidPlan);
  EXPECT_EQ(s.message(),
            "plan is weight-stripped: 2 weights (9099 bytes) are not in the "
            "file; restore them with 'kiln-refit PLAN --weights-from "
            "MODEL.onnx -o FULL.plan'");

  s = openStripped(stripped, reader);
  ASSERT_TRUE(s.ok()) << s.message();
  const Plan &plan = reader.plan();
  PlanReader fullReader;
  ASSERT_TRUE(fullReader.open(full.data(), full.size()).ok());
  EXPECT_EQ(plan.strippedWeightsSize, fullReader.plan().weights.size);
  EXPECT_EQ(plan.weights.size,
            plan.strippedWeightsSize - w.big1.size() - w.big2.size());
  // Buffers 2..5 are the weights; offsets are the complete plan's.
  ASSERT_EQ(plan.buffers.size(), 6u);
  const std::vector<uint8_t> *expected[] = {&w.small1, &w.big1, &w.small2,
                                            &w.big2};
  for (uint32_t i = 2; i < 6; ++i) {
    const Buffer &b = plan.buffers[i];
    const Buffer &f = fullReader.plan().buffers[i];
    EXPECT_EQ(b.offset, f.offset) << i;
    EXPECT_EQ(b.sizeBytes, f.sizeBytes) << i;
    EXPECT_EQ(f.contentHash, 0u) << i;
    const std::vector<uint8_t> &bytes = *expected[i - 2];
    bool big = i == 3 || i == 5;
    EXPECT_EQ(plan.isStrippedBuffer(i), big) << i;
    EXPECT_EQ(b.contentHash, big ? xxh64(bytes.data(), bytes.size()) : 0) << i;
    std::optional<ByteSpan> inlineBytes = weightBytes(plan, i);
    ASSERT_EQ(inlineBytes.has_value(), !big) << i;
    if (!big) {
      EXPECT_EQ(std::vector<uint8_t>(inlineBytes->data,
                                     inlineBytes->data + inlineBytes->size),
                bytes)
          << i;
    }
  }
  EXPECT_FALSE(plan.isStrippedBuffer(0));
  EXPECT_FALSE(weightBytes(plan, 0).has_value());
}

TEST(StrippedWeights, RefitIsByteIdenticalToTheCompletePlan) {
  Weights w;
  std::vector<uint8_t> full = serialized(makeWriter(w, false));
  std::vector<uint8_t> stripped = serialized(makeWriter(w, true));
  PlanReader reader;
  ASSERT_TRUE(openStripped(stripped, reader).ok());

  PlanWriter refit = PlanWriter::fromPlan(reader.plan());
  EXPECT_EQ(refit.unfilledStrippedBuffers(), (std::vector<uint32_t>{3, 5}));
  // A stripped plan copied through fromPlan is unchanged.
  EXPECT_EQ(serialized(refit), stripped);

  // Wrong buffer, size or content are refused and change nothing.
  Status s = refit.fillStrippedWeight(2, w.small1.data(), w.small1.size());
  EXPECT_EQ(s.message(), "buffer 2 is not a stripped weight");
  s = refit.fillStrippedWeight(3, w.big1.data(), w.big1.size() - 1);
  EXPECT_EQ(s.message(), "stripped buffer 3 has 5000 bytes, got 4999");
  std::vector<uint8_t> wrong = w.big1;
  wrong[4321] ^= 1;
  s = refit.fillStrippedWeight(3, wrong.data(), wrong.size());
  EXPECT_PRED2(contains, s.message(),
               "bytes for stripped buffer 3 have the wrong XXH64");
  EXPECT_EQ(refit.unfilledStrippedBuffers().size(), 2u);

  // Half refitted: still a valid stripped plan, with one buffer left.
  ASSERT_TRUE(refit.fillStrippedWeight(5, w.big2.data(), w.big2.size()).ok());
  std::vector<uint8_t> half = serialized(refit);
  PlanReader halfReader;
  ASSERT_TRUE(openStripped(half, halfReader).ok());
  EXPECT_TRUE(halfReader.plan().isStrippedBuffer(3));
  EXPECT_FALSE(halfReader.plan().isStrippedBuffer(5));
  std::optional<ByteSpan> big2 = weightBytes(halfReader.plan(), 5);
  ASSERT_TRUE(big2);
  EXPECT_EQ(std::vector<uint8_t>(big2->data, big2->data + big2->size), w.big2);

  ASSERT_TRUE(refit.fillStrippedWeight(3, w.big1.data(), w.big1.size()).ok());
  EXPECT_TRUE(refit.unfilledStrippedBuffers().empty());
  EXPECT_EQ(serialized(refit), full);
  // Refitting the half-refitted plan gives the same bytes.
  PlanWriter again = PlanWriter::fromPlan(halfReader.plan());
  ASSERT_TRUE(again.fillStrippedWeight(3, w.big1.data(), w.big1.size()).ok());
  EXPECT_EQ(serialized(again), full);
  PlanReader fullReader;
  EXPECT_TRUE(fullReader.open(full.data(), full.size()).ok());
}

TEST(StrippedWeights, CompletePlansKeepInformationalHashes) {
  PlanWriter pw("kiln-test");
  std::vector<uint8_t> so = pattern(9, 64), bytes = pattern(3, 100);
  pw.addModule("host", ModuleFormat::HostSharedObject, so.data(), so.size());
  uint32_t b = pw.addWeightBuffer(bytes.data(), bytes.size());
  PlanWriter copy = pw;
  std::vector<uint8_t> plain = serialized(pw);
  PlanReader reader;
  ASSERT_TRUE(reader.open(plain.data(), plain.size()).ok());
  EXPECT_EQ(reader.plan().buffers[b].contentHash, 0u);
  EXPECT_FALSE(reader.plan().isWeightStripped());

  // Through fromPlan, a hash set on a complete plan's buffer round-trips and
  // does not make the plan stripped.
  Plan plan = reader.plan();
  plan.buffers[b].contentHash = 0x1234;
  std::vector<uint8_t> hashed = serialized(PlanWriter::fromPlan(plan));
  ASSERT_TRUE(reader.open(hashed.data(), hashed.size()).ok());
  EXPECT_EQ(reader.plan().buffers[b].contentHash, 0x1234u);
  EXPECT_FALSE(reader.plan().isStrippedBuffer(b));
}

TEST(StrippedWeights, EmptyAndZeroHashWeightsStayInline) {
  PlanWriter pw("kiln-test");
  std::vector<uint8_t> so = pattern(9, 64);
  pw.addModule("host", ModuleFormat::HostSharedObject, so.data(), so.size());
  uint32_t b = pw.addStrippedWeightBuffer(nullptr, 0);
  std::vector<uint8_t> bytes = serialized(pw);
  PlanReader reader;
  ASSERT_TRUE(reader.open(bytes.data(), bytes.size()).ok());
  EXPECT_FALSE(reader.plan().isWeightStripped());
  EXPECT_EQ(reader.plan().buffers[b].contentHash, 0u);
}

TEST(StrippedWeights, ReaderRefusesInconsistentStrippedPlans) {
  using Fbb = flatbuffers::FlatBufferBuilder;
  using Buffers = std::vector<flatbuffers::Offset<fbs::Buffer>>;
  auto weight = [](Fbb &fbb, uint64_t size, uint64_t offset, uint64_t hash) {
    return fbs::CreateBuffer(fbb, fbs::BufferKind::Weight, size, offset, 64,
                             hash);
  };
  PlanReader reader;
  auto open = [&](const std::vector<uint8_t> &bytes) {
    return openStripped(bytes, reader).message();
  };

  // Valid: 64 inline bytes, then 128 stripped ones.
  auto good = [&](Fbb &fbb, Buffers &b) {
    b.push_back(weight(fbb, 64, 0, 0));
    b.push_back(weight(fbb, 128, 64, 7));
  };
  EXPECT_EQ(open(craft(good, 64, 192)), "");
  EXPECT_TRUE(reader.plan().isStrippedBuffer(1));
  EXPECT_EQ(open(craft(good, 64, 0)),
            "invalid plan: buffer 1 (weight) at offset 64 with 128 bytes "
            "exceeds the weights section (64 bytes)");

  EXPECT_EQ(open(craft(good, 64, 191)),
            "invalid plan: buffer 1 (weight) at offset 64 with 128 bytes "
            "exceeds the logical weights section (191 bytes)");
  EXPECT_EQ(open(craft(good, 64, 256)),
            "invalid plan: the logical weights section has 256 bytes and 128 "
            "of them are stripped, so the file should hold 128 bytes of "
            "weights, but it holds 64");
  EXPECT_EQ(open(craft(good, 0, 192)),
            "invalid plan: the logical weights section has 192 bytes and 128 "
            "of them are stripped, so the file should hold 64 bytes of "
            "weights, but it holds 0");
  EXPECT_EQ(
      open(craft(
          [&](Fbb &fbb, Buffers &b) { b.push_back(weight(fbb, 64, 0, 0)); }, 64,
          128)),
      "invalid plan: the plan is weight-stripped (128 bytes of weights) but "
      "no Weight buffer has a content hash, so none is stripped");
  EXPECT_EQ(open(craft([&](Fbb &fbb,
                           Buffers &b) { b.push_back(weight(fbb, 0, 0, 5)); },
                       0, 64)),
            "invalid plan: buffer 0 is stripped but has 0 bytes");
  EXPECT_EQ(open(craft(
                [&](Fbb &fbb, Buffers &b) {
                  b.push_back(weight(fbb, 128, 64, 7));
                  b.push_back(weight(fbb, 128, 128, 8));
                },
                0, 256)),
            "invalid plan: stripped buffers 0 and 1 overlap");
  // An inline buffer inside, straddling or covering a stripped range.
  for (auto [size, offset] : {std::pair<uint64_t, uint64_t>{64, 128},
                              {128, 0},
                              {256, 0},
                              {64, 0},
                              {64, 192}}) {
    EXPECT_EQ(open(craft(
                  [&](Fbb &fbb, Buffers &b) {
                    b.push_back(weight(fbb, 128, 64, 7));
                    b.push_back(weight(fbb, size, offset, 0));
                  },
                  128, 256)),
              offset + size <= 64 || offset >= 192
                  ? ""
                  : "invalid plan: weight buffer 1 overlaps the bytes of a "
                    "stripped buffer")
        << size << "@" << offset;
  }
}

TEST(StrippedWeights, ReaderSurvivesCorruptionOfStrippedPlans) {
  Weights w;
  std::vector<uint8_t> bytes = serialized(makeWriter(w, true));
  PlanHeader h = decodeHeader(bytes.data());
  std::mt19937_64 rng(7);
  PlanReader reader;
  int refused = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> copy = bytes;
    size_t at = 64 + rng() % h.flatbufferSize;
    copy[at] ^= uint8_t(1 << (rng() % 8));
    fixChecksum(copy);
    Status s = openStripped(copy, reader);
    if (!s.ok()) {
      ++refused;
      ASSERT_FALSE(s.message().empty());
      continue;
    }
    // Whatever passes is consistent, and refitting its stripped buffers
    // cannot write out of bounds.
    ASSERT_TRUE(validatePlan(reader.plan()).ok());
    PlanWriter refit = PlanWriter::fromPlan(reader.plan());
    for (uint32_t b : refit.unfilledStrippedBuffers()) {
      if (reader.plan().buffers[b].sizeBytes > (1 << 20))
        continue;
      std::vector<uint8_t> zeros(reader.plan().buffers[b].sizeBytes);
      (void)refit.fillStrippedWeight(b, zeros.data(), zeros.size());
    }
    std::vector<uint8_t> out;
    (void)refit.serialize(out);
  }
  EXPECT_GT(refused, 100);
}
