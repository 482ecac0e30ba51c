//===- TestPlans.h - Plans over the test host kernels ---------------------===//
#ifndef KILN_TEST_UNIT_RUNTIME_TESTPLANS_H
#define KILN_TEST_UNIT_RUNTIME_TESTPLANS_H

#include "kiln/Plan/PlanIO.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace kiln::test {

/// The test kernels (HostKernels.c) as a shared object; `variant` selects the
/// build with KILN_TEST_VARIANT.
std::vector<uint8_t> hostKernels(bool variant = false);

/// Weights of the relu plan.
inline const float kReluWeights[8] = {0.5f,  -1.0f, 2.0f,   -3.0f,
                                      0.25f, 1.5f,  -0.75f, 4.0f};

/// y = relu(x + w): x f32[2,4] input, w weights, the sum in an arena
/// activation, y f32[2,4] output. The add runs as two steps over the two
/// halves (argument offsets); the relu as one.
plan::PlanWriter reluPlan(bool variant = false);
/// Expected y of reluPlan for input `x` (8 floats).
std::vector<float> reluReference(const float *x, bool variant = false);

/// c = a + b over f32[3] inputs a, b (two user inputs, no weights).
plan::PlanWriter addPlan();

/// reluPlan's x, w and y with one tactic choice ("x + w") of two variants
/// that compute different things: variant 0 (one step) sum = x + w, variant
/// 1 (two steps) sum = relu(x) + w; then y = relu(sum). `selected` is the
/// plan's selection.
plan::PlanWriter choicePlan(uint32_t selected = 0);
/// Expected y of choicePlan when variant `variant` runs.
std::vector<float> choiceReference(const float *x, uint32_t variant);

inline std::vector<uint8_t> bytesOf(const plan::PlanWriter &w) {
  std::vector<uint8_t> bytes;
  plan::Status s = w.serialize(bytes);
  EXPECT_TRUE(s.ok()) << s.message();
  return bytes;
}

/// A fresh directory under the system temp dir, removed with its contents.
class TempDir {
public:
  TempDir();
  ~TempDir();
  const std::string &path() const { return path_; }
  std::string file(const std::string &name) const { return path_ + "/" + name; }

private:
  std::string path_;
};

} // namespace kiln::test

#endif // KILN_TEST_UNIT_RUNTIME_TESTPLANS_H
