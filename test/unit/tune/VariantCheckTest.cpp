//===- VariantCheckTest.cpp - kiln-tune's output check of the variants ----===//

#include "VariantCheck.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace kiln;
using namespace kiln::tune;

namespace {

tools::Tensor f32(const std::string &name, const std::vector<float> &values) {
  tools::Tensor t;
  t.name = name;
  t.dtype = plan::DType::f32;
  t.shape = {int64_t(values.size())};
  t.data.resize(values.size() * 4);
  std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

tools::Tensor f16(const std::string &name, const std::vector<float> &values) {
  tools::Tensor t;
  t.name = name;
  t.dtype = plan::DType::f16;
  t.shape = {int64_t(values.size())};
  for (float v : values) {
    uint16_t h = tools::floatToHalf(v);
    t.data.push_back(uint8_t(h));
    t.data.push_back(uint8_t(h >> 8));
  }
  return t;
}

OutputCheck good() { return OutputCheck(); }

OutputCheck bad(double maxAbsErr) {
  OutputCheck c;
  c.elements = 8;
  c.mismatches = 2;
  c.maxAbsErr = maxAbsErr;
  c.output = "y";
  return c;
}

constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

} // namespace

TEST(CheckOutputs, AcceptsWithinTheToleranceOnly) {
  // max |ref| = 2: atol 0.25 + rtol 0.25 * 2 = 0.75, plus rtol * |b|: the
  // bound is 1.0 at b = 1 and 1.25 at b = 2 (all binary fractions). The
  // bound itself matches, one ulp of float above it does not.
  std::vector<tools::Tensor> ref = {f32("y", {1.0f, 1.0f, 2.0f})};
  OutputCheck c = checkOutputs({f32("y", {2.0f, 0.0f, 3.25f})}, ref,
                               /*rtol=*/0.25, /*atol=*/0.25);
  EXPECT_TRUE(c.ok());
  EXPECT_EQ(c.elements, 3u);
  EXPECT_EQ(c.maxAbsErr, 1.25); // 3.25 vs 2: bound 1.25, a match
  c = checkOutputs({f32("y", {std::nextafter(2.0f, 3.0f), 1.0f, 2.0f})}, ref,
                   0.25, 0.25);
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.mismatches, 1u);
  EXPECT_EQ(c.output, "y");
  EXPECT_EQ(c.maxAbsErr, double(std::nextafter(2.0f, 3.0f)) - 1.0);
}

TEST(CheckOutputs, ToleranceScalesWithTheOutput) {
  // fp16 logits up to 80 differ by an ulp of 64 (1/32) between tactics,
  // also where a logit is near zero: within 1e-2 of the output's scale.
  std::vector<tools::Tensor> ref = {f32("logits", {80.0f, 0.001f, -3.0f})};
  EXPECT_TRUE(checkOutputs({f32("logits", {80.03125f, 0.03225f, -3.03125f})},
                           ref, 1e-2, 1e-2)
                  .ok());
  // Off by the output's scale: wrong.
  OutputCheck c =
      checkOutputs({f32("logits", {80.0f, 2.0f, -3.0f})}, ref, 1e-2, 1e-2);
  EXPECT_EQ(c.mismatches, 1u);
  // Each output has its own scale.
  std::vector<tools::Tensor> two = {f32("big", {100.0f}),
                                    f32("small", {0.01f})};
  c = checkOutputs({f32("big", {100.5f}), f32("small", {0.5f})}, two, 1e-2,
                   1e-2);
  EXPECT_EQ(c.mismatches, 1u);
  EXPECT_EQ(c.output, "small");
}

TEST(CheckOutputs, NanMatchesOnlyNan) {
  std::vector<tools::Tensor> ref = {f32("y", {kNaN, 1.0f, kInf})};
  EXPECT_TRUE(
      checkOutputs({f32("y", {kNaN, 1.0f, kInf})}, ref, 1e-2, 1e-2).ok());
  OutputCheck c = checkOutputs({f32("y", {0.0f, kNaN, kInf})}, ref, 1e-2, 1e-2);
  EXPECT_EQ(c.mismatches, 2u);
  EXPECT_EQ(c.nanMismatches, 2u);
  // A wrong kernel that writes NaN still fails: no tolerance admits it.
  c = checkOutputs({f32("y", {kNaN, 1.0f, 1e30f})}, ref, 1e6, 1e6);
  EXPECT_EQ(c.mismatches, 1u);
  EXPECT_TRUE(std::isinf(c.maxAbsErr));
}

TEST(CheckOutputs, DefaultTolerancesTakeFp16RoundingButNotAWrongKernel) {
  // kiln-tune's defaults (rtol = atol = 1e-2) against fp16 outputs: a
  // variant that accumulates in another order differs by a few ulp of fp16
  // (2^-11 relative); one that computes something else does not come close.
  std::vector<float> want = {0.1f, -3.0f, 17.5f, 1000.0f};
  std::vector<float> reordered = want, wrong = want;
  for (float &v : reordered)
    v += std::fabs(v) * 4.0f / 2048.0f; // 4 ulp
  wrong[2] = 17.5f * 17.5f;
  std::vector<tools::Tensor> ref = {f16("y", want)};
  EXPECT_TRUE(checkOutputs({f16("y", reordered)}, ref, 1e-2, 1e-2).ok());
  OutputCheck c = checkOutputs({f16("y", wrong)}, ref, 1e-2, 1e-2);
  EXPECT_EQ(c.mismatches, 1u);
  EXPECT_NEAR(c.maxAbsErr, 17.5 * 17.5 - 17.5, 0.5); // fp16 rounding of 306
}

TEST(CheckOutputs, SumsOverOutputsAndNamesTheFirstThatDiffers) {
  std::vector<tools::Tensor> ref = {f32("a", {1, 2}), f32("b", {3, 4}),
                                    f32("c", {5, 6})};
  OutputCheck c = checkOutputs(
      {f32("a", {1, 2}), f32("b", {3, 40}), f32("c", {50, 60})}, ref, 0, 0);
  EXPECT_EQ(c.elements, 6u);
  EXPECT_EQ(c.mismatches, 3u);
  EXPECT_EQ(c.output, "b");
  EXPECT_EQ(c.maxAbsErr, 54.0);
}

TEST(CheckOutputs, RefusesOtherShapesTypesAndCounts) {
  std::vector<tools::Tensor> ref = {f32("y", {1, 2})};
  OutputCheck c = checkOutputs({f32("y", {1, 2, 3})}, ref, 1, 1);
  EXPECT_FALSE(c.ok());
  EXPECT_EQ(c.error, "output 'y': shape [3] differs from the reference's [2]");
  c = checkOutputs({f16("y", {1, 2})}, ref, 1, 1);
  EXPECT_FALSE(c.ok());
  EXPECT_NE(c.error.find("dtype f16 differs"), std::string::npos) << c.error;
  c = checkOutputs({}, ref, 1, 1);
  EXPECT_EQ(c.error, "0 outputs, the reference 1");
}

TEST(PinMismatch, RejectsTheSuspectsThatDifferAlone) {
  Verdict v = pinMismatch({good(), bad(3), good(), bad(0.5)});
  EXPECT_EQ(v.rejected, (std::vector<size_t>{1, 3}));
  EXPECT_FALSE(v.together);
}

TEST(PinMismatch, RejectsAllWhenNoneDiffersAlone) {
  // Right alone, wrong together: selecting both is what the tuner would do.
  Verdict v = pinMismatch({good(), good()});
  EXPECT_EQ(v.rejected, (std::vector<size_t>{0, 1}));
  EXPECT_TRUE(v.together);
  v = pinMismatch({});
  EXPECT_TRUE(v.rejected.empty());
  EXPECT_FALSE(v.together);
}

TEST(VariantScreen, SetsRunVariantVOrTheLastAcceptedBelow) {
  VariantScreen screen({2, 4, 3});
  using V = std::vector<int64_t>;
  EXPECT_EQ(screen.set(0), (V{0, 0, 0}));
  EXPECT_EQ(screen.set(1), (V{1, 1, 1}));
  EXPECT_EQ(screen.set(3), (V{1, 3, 2}));
  EXPECT_TRUE(screen.suspects(0).empty()) << "set 0 is the reference";
  EXPECT_EQ(screen.suspects(1), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(screen.suspects(2), (std::vector<size_t>{1, 2}));
  EXPECT_EQ(screen.suspects(3), (std::vector<size_t>{1}));
  EXPECT_EQ(screen.alone(2, 2), (V{0, 0, 2}));

  // Set 2 differs; choice 1 differs alone, choice 2 does not.
  Verdict verdict = pinMismatch({bad(7), good()});
  screen.reject(2, {1, 2}, {bad(7), good()}, verdict, bad(9));
  EXPECT_TRUE(screen.rejected(1, 2));
  EXPECT_FALSE(screen.rejected(2, 2));
  EXPECT_EQ(screen.rejectedOf(1),
            (std::vector<bool>{false, false, true, false}));
  ASSERT_EQ(screen.rejections().size(), 1u);
  const Rejection &r = screen.rejections()[0];
  EXPECT_EQ(r.choice, 1u);
  EXPECT_EQ(r.variant, 2u);
  EXPECT_EQ(r.check.maxAbsErr, 7.0) << "its own error, not the set's";
  EXPECT_FALSE(r.together);
  // Later rounds run choice 1's variant 1 in set 2 and no longer suspect it.
  EXPECT_EQ(screen.set(2), (V{1, 1, 2}));
  EXPECT_EQ(screen.suspects(2), (std::vector<size_t>{2}));
  EXPECT_EQ(screen.set(3), (V{1, 3, 2}));

  // A choice whose last variant was rejected runs the one before it in the
  // sets beyond its count; rejected twice, recorded once.
  screen.reject(2, {2}, {bad(1)}, pinMismatch({bad(1)}), bad(1));
  screen.reject(2, {2}, {bad(1)}, pinMismatch({bad(1)}), bad(1));
  EXPECT_EQ(screen.set(3), (V{1, 3, 1}));
  EXPECT_EQ(screen.set(2), (V{1, 1, 1}));
  EXPECT_TRUE(screen.suspects(2).empty());
  EXPECT_EQ(screen.rejections().size(), 2u);
}

TEST(VariantScreen, RecordsTheSetsErrorWhenRejectedTogether) {
  VariantScreen screen({2, 2});
  screen.reject(1, {0, 1}, {good(), good()}, pinMismatch({good(), good()}),
                bad(4));
  ASSERT_EQ(screen.rejections().size(), 2u);
  for (const Rejection &r : screen.rejections()) {
    EXPECT_TRUE(r.together);
    EXPECT_EQ(r.check.maxAbsErr, 4.0);
  }
  EXPECT_EQ(screen.set(1), (std::vector<int64_t>{0, 0}));
}

TEST(FastestAccepted, SkipsRejectedVariants) {
  EXPECT_EQ(fastestAccepted({3, 1, 2}, {false, false, false}), 1u);
  EXPECT_EQ(fastestAccepted({3, 1, 2}, {false, true, false}), 2u);
  EXPECT_EQ(fastestAccepted({3, 1, 2}, {false, true, true}), 0u);
  EXPECT_EQ(fastestAccepted({2, 1, 1}, {false, false, false}), 1u)
      << "ties: the lower index";
}
