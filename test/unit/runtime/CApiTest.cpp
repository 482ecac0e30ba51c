//===- CApiTest.cpp - Runs the C API checks written in C (CApiSmoke.c) ----===//

#include "TestPlans.h"

#include <gtest/gtest.h>

extern "C" int kiln_test_c_api(const char *planPath, const float *weights,
                               char *why, size_t whyLen);

TEST(CApi, LoadsInspectsAndRunsFromC) {
  kiln::test::TempDir dir;
  std::string path = dir.file("relu.plan");
  kiln::plan::Status s = kiln::test::reluPlan().writeFileAtomically(path);
  ASSERT_TRUE(s.ok()) << s.message();
  char why[512] = {};
  EXPECT_EQ(
      kiln_test_c_api(path.c_str(), kiln::test::kReluWeights, why, sizeof(why)),
      0)
      << why;
}
