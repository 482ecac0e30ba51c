//===- CalibrationTest.cpp - calibration math against numpy ---------------===//
//
// The cases and expected values come from calibration_reference.py (numpy),
// written by ctest quant.calibration before this runs; the file is named by
// KILN_CALIB_REFERENCE.
//
//===----------------------------------------------------------------------===//
#include "kiln/Quant/Calibration.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <limits>

using namespace kiln::quant;
using nlohmann::json;

namespace {

json reference() {
  const char *path = std::getenv("KILN_CALIB_REFERENCE");
  if (!path)
    return json();
  std::ifstream in(path);
  return in ? json::parse(in) : json();
}

void expectNear(double got, double want, const std::string &what) {
  EXPECT_NEAR(got, want, 1e-12 * std::max(1.0, std::fabs(want))) << what;
}

} // namespace

TEST(Calibration, MatchesTheNumpyReference) {
  json ref = reference();
  ASSERT_TRUE(ref.is_object())
      << "KILN_CALIB_REFERENCE must name calibration_reference.py's output";
  ASSERT_GE(ref["cases"].size(), 6u);
  for (const json &c : ref["cases"]) {
    std::string name = c["name"];
    std::vector<float> data;
    for (const json &v : c["data"])
      data.push_back(float(v.get<double>()));
    std::string error;
    double amax = 0;
    // Two halves, as calibration batches arrive.
    size_t half = data.size() / 2;
    ASSERT_TRUE(foldAbsMax(data.data(), half, amax, error)) << error;
    ASSERT_TRUE(foldAbsMax(data.data() + half, data.size() - half, amax, error))
        << error;
    EXPECT_EQ(amax, c["amax"].get<double>()) << name;
    AbsHistogram h(amax, ref["bins"].get<size_t>());
    ASSERT_TRUE(h.add(data.data(), half, error)) << error;
    ASSERT_TRUE(h.add(data.data() + half, data.size() - half, error)) << error;
    EXPECT_EQ(h.count(), data.size());
    std::vector<uint64_t> bins = c["bins"].get<std::vector<uint64_t>>();
    EXPECT_EQ(h.bins(), bins) << name;
    size_t levels = ref["levels"].get<size_t>();
    expectNear(entropyAmax(h, levels), c["entropy"], name + " entropy");
    expectNear(percentileAmax(h, 99.9), c["percentile_99_9"],
               name + " percentile 99.9");
    expectNear(percentileAmax(h, 99.99), c["percentile_99_99"],
               name + " percentile 99.99");
    expectNear(mseAmax(h, levels), c["mse"], name + " mse");
    float scale = 0;
    ASSERT_TRUE(int8Scale(amax, scale, error)) << error;
    EXPECT_EQ(scale, float(c["scale"].get<double>())) << name;
  }
}

TEST(Calibration, RefusesValuesThatAreNotFinite) {
  const float data[] = {1.0f, std::numeric_limits<float>::quiet_NaN(), 2.0f};
  std::string error;
  double amax = 0;
  EXPECT_FALSE(foldAbsMax(data, 3, amax, error));
  EXPECT_EQ(error.rfind("calibration value 1 is NaN: calibration data must be "
                        "finite",
                        0),
            0u)
      << error;
  EXPECT_EQ(amax, 0.0);
  AbsHistogram h(2.0, 16);
  const float inf[] = {0.5f, -std::numeric_limits<float>::infinity()};
  EXPECT_FALSE(h.add(inf, 2, error));
  EXPECT_EQ(error.rfind("calibration value 1 is -inf", 0), 0u) << error;
  EXPECT_EQ(h.count(), 0u); // nothing of a refused batch is counted
}

TEST(Calibration, DegenerateRangesNeverDivideByZero) {
  // An all-zero tensor (a dead channel, a mask): every method gives 0 and
  // the scale is 1, with which every value quantizes to 0 exactly.
  std::vector<float> zeros(100, 0.0f);
  std::string error;
  double amax = 0;
  ASSERT_TRUE(foldAbsMax(zeros.data(), zeros.size(), amax, error));
  AbsHistogram h(amax);
  ASSERT_TRUE(h.add(zeros.data(), zeros.size(), error));
  EXPECT_EQ(h.bins()[0], 100u);
  EXPECT_EQ(entropyAmax(h), 0.0);
  EXPECT_EQ(percentileAmax(h, 99.99), 0.0);
  EXPECT_EQ(mseAmax(h), 0.0);
  float scale = 0;
  ASSERT_TRUE(int8Scale(0.0, scale, error));
  EXPECT_EQ(scale, 1.0f);
  // A range below float's smallest normal still gives a positive scale.
  ASSERT_TRUE(int8Scale(1e-45, scale, error));
  EXPECT_GT(scale, 0.0f);
  // An empty histogram returns its range.
  AbsHistogram empty(3.0);
  EXPECT_EQ(entropyAmax(empty), 3.0);
  EXPECT_EQ(mseAmax(empty), 3.0);
  EXPECT_FALSE(int8Scale(-1.0, scale, error));
  EXPECT_FALSE(int8Scale(std::nan(""), scale, error));
  EXPECT_NE(error.find("must be finite and not negative"), std::string::npos);
}
