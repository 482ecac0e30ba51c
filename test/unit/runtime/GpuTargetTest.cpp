//===- GpuTargetTest.cpp - GPU module selection and driver loading --------===//
//
// Everything here runs without a GPU: module selection is a pure function of
// the plan's modules and the device's compute capability, and a missing or
// foreign driver library must come back as a Status.

#include "cuda/CudaDriver.h"
#include "cuda/GpuTarget.h"

#include <gtest/gtest.h>

using namespace kiln::runtime::cuda;
using kiln::plan::Module;
using kiln::plan::ModuleFormat;
using kiln::plan::Status;
using kiln::plan::StatusCode;

namespace {

Module cubin(const char *target) {
  return Module{target, ModuleFormat::Cubin, {}};
}
Module ptx(const char *target) { return Module{target, ModuleFormat::Ptx, {}}; }
Module hostModule() {
  return Module{"host", ModuleFormat::HostSharedObject, {}};
}

GpuDeviceDesc device(int major, int minor, const char *name = "GPU") {
  return GpuDeviceDesc{name, 0, major, minor};
}

/// The selected module's "target/format", or "error: message".
std::string pick(const std::vector<Module> &modules, GpuDeviceDesc d,
                 bool jit = false) {
  size_t index = 99;
  Status s = selectGpuModule(modules, d, jit, &index);
  if (!s)
    return "error: " + s.message();
  return modules[index].target +
         (modules[index].format == ModuleFormat::Ptx ? "/ptx" : "/cubin");
}

} // namespace

TEST(GpuTarget, ParsesSmTargets) {
  EXPECT_EQ(parseSmTarget("sm_80"), (SmTarget{8, 0, false}));
  EXPECT_EQ(parseSmTarget("sm_89"), (SmTarget{8, 9, false}));
  EXPECT_EQ(parseSmTarget("sm_90a"), (SmTarget{9, 0, true}));
  EXPECT_EQ(parseSmTarget("sm_100"), (SmTarget{10, 0, false}));
  EXPECT_EQ(parseSmTarget("sm_120a"), (SmTarget{12, 0, true}));
  for (const char *bad : {"host", "sm_", "sm_9", "sm_9a", "sm_1000", "sm_08",
                          "sm_90b", "sm_9x", "compute_90", "SM_90", "sm_a"})
    EXPECT_FALSE(parseSmTarget(bad)) << bad;
}

TEST(GpuTarget, CubinRulesSameMajorLowerOrEqualMinor) {
  // (target, device major, minor) -> usable as cubin
  struct Case {
    const char *target;
    int major, minor;
    bool cubin, ptx;
  } cases[] = {
      {"sm_80", 8, 0, true, true},     {"sm_80", 8, 6, true, true},
      {"sm_80", 8, 9, true, true},     {"sm_86", 8, 0, false, false},
      {"sm_80", 9, 0, false, true},    {"sm_89", 9, 0, false, true},
      {"sm_90", 9, 0, true, true},     {"sm_90a", 9, 0, true, true},
      {"sm_90a", 10, 0, false, false}, {"sm_90", 10, 0, false, true},
      {"sm_100a", 10, 0, true, true},  {"sm_100a", 10, 3, false, false},
      {"sm_100", 10, 3, true, true},   {"sm_120", 10, 0, false, false},
      {"sm_75", 8, 0, false, true},    {"sm_120a", 12, 0, true, true},
  };
  for (const Case &c : cases) {
    SmTarget t = *parseSmTarget(c.target);
    EXPECT_EQ(moduleRunsOn(t, false, c.major, c.minor), c.cubin)
        << c.target << " cubin on " << c.major << "." << c.minor;
    EXPECT_EQ(moduleRunsOn(t, true, c.major, c.minor), c.ptx)
        << c.target << " ptx on " << c.major << "." << c.minor;
  }
}

TEST(GpuTarget, PrefersExactThenHighestUsableCubin) {
  std::vector<Module> m = {cubin("sm_80"), ptx("sm_80"),    cubin("sm_86"),
                           cubin("sm_90"), cubin("sm_90a"), ptx("sm_90a")};
  EXPECT_EQ(pick(m, device(9, 0)), "sm_90a/cubin"); // exact 'a' beats exact
  EXPECT_EQ(pick(m, device(8, 6)), "sm_86/cubin");
  EXPECT_EQ(pick(m, device(8, 9)), "sm_86/cubin"); // highest usable minor
  EXPECT_EQ(pick(m, device(8, 0)), "sm_80/cubin");
  // The order in the plan does not matter.
  std::vector<Module> r(m.rbegin(), m.rend());
  EXPECT_EQ(pick(r, device(9, 0)), "sm_90a/cubin");
  EXPECT_EQ(pick(r, device(8, 9)), "sm_86/cubin");
  // Host modules are ignored.
  EXPECT_EQ(pick({hostModule(), cubin("sm_89")}, device(8, 9)), "sm_89/cubin");
  // Any cubin beats PTX, even an exact PTX.
  EXPECT_EQ(pick({ptx("sm_89"), cubin("sm_80")}, device(8, 9), true),
            "sm_80/cubin");
}

TEST(GpuTarget, UsesPtxOnlyWhenJitIsAllowed) {
  std::vector<Module> m = {cubin("sm_80"), ptx("sm_80"), cubin("sm_89"),
                           ptx("sm_89")};
  EXPECT_EQ(pick(m, device(9, 0), true), "sm_89/ptx"); // highest PTX <= 9.0
  EXPECT_EQ(pick(m, device(10, 0), true), "sm_89/ptx");
  EXPECT_EQ(pick({ptx("sm_90a"), ptx("sm_90")}, device(9, 0), true),
            "sm_90a/ptx");
  EXPECT_EQ(pick({ptx("sm_90a")}, device(10, 0), true).rfind("error: ", 0), 0u);
  EXPECT_EQ(pick({ptx("sm_90")}, device(8, 9), true).rfind("error: ", 0), 0u);
}

TEST(GpuTarget, RefusalNamesTargetsDeviceAndWhatToRebuild) {
  std::vector<Module> m = {cubin("sm_80"), cubin("sm_89")};
  EXPECT_EQ(pick(m, device(9, 0, "NVIDIA H200")),
            "error: plan has GPU kernels for sm_80, sm_89; this GPU (NVIDIA "
            "H200, device 0) is sm_90: rebuild with kilnc --target sm_90a (or "
            "add sm_90a to the list)");
  // Only sm_80 (cubin and PTX) on an H200, JIT not allowed: says how to JIT.
  std::vector<Module> withPtx = {cubin("sm_80"), ptx("sm_80")};
  EXPECT_EQ(pick(withPtx, device(9, 0, "NVIDIA H200")),
            "error: plan has GPU kernels for sm_80; this GPU (NVIDIA H200, "
            "device 0) is sm_90: rebuild with kilnc --target sm_90a (or add "
            "sm_90a to the list), or allow JIT compilation of the plan's "
            "sm_80 PTX (kiln-run --allow-ptx-jit, EngineOptions::allowPtxJit "
            "or KILN_ALLOW_PTX_JIT=1)");
  EXPECT_EQ(pick(withPtx, device(9, 0), true), "sm_80/ptx");
  // Below Hopper the recommendation has no 'a'.
  EXPECT_EQ(pick({cubin("sm_90a")}, device(8, 9, "NVIDIA L4")),
            "error: plan has GPU kernels for sm_90a; this GPU (NVIDIA L4, "
            "device 0) is sm_89: rebuild with kilnc --target sm_89 (or add "
            "sm_89 to the list)");
  EXPECT_EQ(pick({ptx("sm_100a")}, device(9, 0, "X")),
            "error: plan has GPU kernels for sm_100a (PTX); this GPU (X, "
            "device 0) is sm_90: rebuild with kilnc --target sm_90a (or add "
            "sm_90a to the list)");
}

TEST(GpuTarget, RecommendedTargets) {
  EXPECT_EQ(recommendedTarget(8, 0), "sm_80");
  EXPECT_EQ(recommendedTarget(8, 9), "sm_89");
  EXPECT_EQ(recommendedTarget(9, 0), "sm_90a");
  EXPECT_EQ(recommendedTarget(10, 0), "sm_100a");
  EXPECT_EQ(recommendedTarget(12, 0), "sm_120a");
}

TEST(CudaDriver, MissingLibraryIsAStatus) {
  std::unique_ptr<Driver> d;
  Status s = Driver::load("/nonexistent/libcuda.so.1", &d);
  EXPECT_FALSE(d);
  EXPECT_EQ(s.code(), StatusCode::UnsupportedTarget);
  EXPECT_EQ(s.message(),
            "no CUDA driver was found (/nonexistent/libcuda.so.1: cannot open "
            "shared object file: No such file or directory)");
  // The cached lookup returns the same failure every time.
  const Driver *cached = nullptr;
  for (int i = 0; i < 2; ++i) {
    Status g = Driver::get("/nonexistent/libcuda.so.1", &cached);
    EXPECT_EQ(g.message(), s.message());
    EXPECT_EQ(cached, nullptr);
  }
}

TEST(CudaDriver, ForeignLibraryNamesTheMissingEntryPoint) {
  std::unique_ptr<Driver> d;
  Status s = Driver::load("libm.so.6", &d);
  EXPECT_FALSE(d);
  EXPECT_EQ(s.code(), StatusCode::UnsupportedTarget);
  EXPECT_EQ(s.message(), "the CUDA driver 'libm.so.6' has no entry point "
                         "cuInit (driver too old? kiln needs a CUDA 12 "
                         "driver)");
}

TEST(CudaDriver, VersionStrings) {
  EXPECT_EQ(driverVersionString(12040), "12.4");
  EXPECT_EQ(driverVersionString(12000), "12.0");
  EXPECT_EQ(driverVersionString(13000), "13.0");
  EXPECT_EQ(driverVersionString(11080), "11.8");
}
