//===- KilnTuneTest.cpp - The kiln-tune binary without a GPU --------------===//
//
// --list, usage and the errors before and at the GPU. Tuning itself needs a
// GPU: it is tested by test/unit/runtime/GpuRuntimeTest.cpp.
//
//===----------------------------------------------------------------------===//

#include "TimingCache.h"

#include "tools/common/Json.h"

#include "kiln/Plan/PlanIO.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kiln;
using namespace kiln::plan;
using tools::Json;
namespace fs = std::filesystem;

namespace {

struct Result {
  int exitCode = -1;
  std::string output;
};

/// Runs kiln-tune with `args` (shell-quoted where needed); `output` has
/// stdout, and stderr too unless `stdoutOnly`. A nonexistent CUDA driver
/// makes "no GPU" deterministic, also on GPU machines.
Result kilnTune(const std::string &args, bool stdoutOnly = false) {
  std::string command = "KILN_CUDA_DRIVER=/nonexistent/libcuda.so.1 "
                        "timeout 120 " +
                        std::string(KILN_TUNE_BINARY) + " " + args +
                        (stdoutOnly ? " 2>/dev/null" : " 2>&1");
  Result r;
  FILE *pipe = ::popen(command.c_str(), "r");
  if (!pipe)
    return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0)
    r.output.append(buf, n);
  int status = ::pclose(pipe);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::vector<uint8_t> fakeModule(size_t size) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i)
    bytes[i] = uint8_t(i * 13 + 1);
  return bytes;
}

/// A GPU plan (fake cubin: never loaded here) with two choices: "conv_0"
/// with 2 variants, untuned; "gemm \"1\"" with 3 variants, tuned.
PlanWriter choicePlan(bool withChoices = true, bool stripped = false) {
  PlanWriter w;
  uint32_t x = w.addInput(TensorDesc{"x", DType::f16, {8}, {}});
  uint32_t y = w.addOutput(TensorDesc{"y", DType::f16, {8}, {}});
  std::vector<uint8_t> weights(256, 7);
  uint32_t wt = stripped
                    ? w.addStrippedWeightBuffer(weights.data(), weights.size())
                    : w.addWeightBuffer(weights.data(), weights.size());
  std::vector<uint8_t> cubin = fakeModule(128);
  uint32_t m =
      w.addModule("sm_90a", ModuleFormat::Cubin, cubin.data(), cubin.size());
  uint32_t k = w.addKernel("k", m, "k");
  uint32_t c0 = 0, c1 = 0;
  if (withChoices) {
    Choice conv;
    conv.key = "conv f16 [8]";
    conv.name = "conv_0";
    conv.variants = {"wgmma 128x128x4", "mma.sync 64x64"};
    c0 = w.addChoice(conv);
    Choice gemm;
    gemm.key = "gemm\t\"k\"";
    gemm.name = "gemm \"1\"";
    gemm.variants = {"a", "b", "c"};
    gemm.selected = 2;
    gemm.timesMs = {0.5, 0.25, 0.125};
    gemm.device = "NVIDIA H200";
    c1 = w.addChoice(gemm);
  }
  auto step = [&](uint32_t choice, uint32_t variant) {
    Step s;
    s.kernel = k;
    s.args = {{x, 0}, {wt, 0}, {y, 0}};
    s.choice = choice;
    s.variant = variant;
    w.addStep(s);
  };
  if (withChoices) {
    step(c0, 0);
    step(c0, 1);
    for (uint32_t v = 0; v < 3; ++v)
      step(c1, v);
  } else {
    step(0, 0);
  }
  return w;
}

class KilnTune : public ::testing::Test {
protected:
  void SetUp() override {
    std::string t =
        (fs::temp_directory_path() / "kiln-tune-test-XXXXXX").string();
    std::vector<char> buf(t.begin(), t.end());
    buf.push_back(0);
    dir_ = ::mkdtemp(buf.data());
    plan_ = (dir_ / "choices.plan").string();
    ASSERT_TRUE(choicePlan().writeFileAtomically(plan_).ok());
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string file(const std::string &name) const {
    return (dir_ / name).string();
  }
  static std::string slurp(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

  fs::path dir_;
  std::string plan_;
};

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

} // namespace

TEST_F(KilnTune, ListsChoicesAsJson) {
  Result r = kilnTune(plan_ + " --list --json", /*stdoutOnly=*/true);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  Json json;
  std::string error;
  ASSERT_TRUE(tools::parseJson(r.output, json, error)) << error << r.output;
  EXPECT_EQ(json.at("plan"), plan_);
  const Json &choices = json.at("choices");
  ASSERT_TRUE(choices.is_array());
  ASSERT_EQ(choices.size(), 2u);
  const Json &c0 = choices.at(0);
  EXPECT_EQ(c0.at("index"), 0);
  EXPECT_EQ(c0.at("key"), "conv f16 [8]");
  EXPECT_EQ(c0.at("name"), "conv_0");
  ASSERT_EQ(c0.at("variants").size(), 2u);
  EXPECT_EQ(c0.at("variants").at(1), "mma.sync 64x64");
  EXPECT_EQ(c0.at("selected"), 0);
  EXPECT_TRUE(c0.at("times_ms").is_array());
  EXPECT_TRUE(c0.at("times_ms").empty());
  EXPECT_EQ(c0.at("device"), "");
  const Json &c1 = choices.at(1);
  EXPECT_EQ(c1.at("index"), 1);
  EXPECT_EQ(c1.at("key"), "gemm\t\"k\"");
  EXPECT_EQ(c1.at("name"), "gemm \"1\"");
  EXPECT_EQ(c1.at("selected"), 2);
  ASSERT_EQ(c1.at("times_ms").size(), 3u);
  EXPECT_EQ(c1.at("times_ms").at(2), 0.125);
  EXPECT_EQ(c1.at("device"), "NVIDIA H200");
  // Exactly these fields, in this order (lit tests read them).
  std::vector<std::string> names;
  for (const auto &member : c1.items())
    names.push_back(member.key());
  EXPECT_EQ(names,
            (std::vector<std::string>{"index", "key", "name", "variants",
                                      "selected", "times_ms", "device"}));
}

TEST_F(KilnTune, ListsChoicesAsText) {
  Result r = kilnTune(plan_ + " --list");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_PRED2(contains, r.output, "plan " + plan_ + ": 2 tactic choices\n");
  EXPECT_PRED2(contains, r.output,
               "choice 0 'conv_0': key conv f16 [8], 2 variants, untuned\n"
               "  * 0 wgmma 128x128x4\n"
               "    1 mma.sync 64x64\n");
  EXPECT_PRED2(contains, r.output,
               "3 variants, tuned on NVIDIA H200\n"
               "    0 a 0.5000 ms\n"
               "    1 b 0.2500 ms\n"
               "  * 2 c 0.1250 ms\n");
}

TEST_F(KilnTune, ListsStrippedPlans) {
  std::string stripped = file("stripped.plan");
  ASSERT_TRUE(choicePlan(true, true).writeFileAtomically(stripped).ok());
  Result r = kilnTune(stripped + " --list");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  // Tuning runs the plan: the runtime's refusal, which says to refit.
  r = kilnTune(stripped);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_PRED2(contains, r.output, "plan is weight-stripped");
  EXPECT_PRED2(contains, r.output, "kiln-refit");
}

TEST_F(KilnTune, TuningWithoutAGpuFailsAndWritesNothing) {
  std::string before = slurp(plan_);
  std::string cache = file("cache.json");
  Result r = kilnTune(plan_ + " --timing-cache " + cache + " -o " +
                      file("tuned.plan"));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_PRED2(contains, r.output,
               "kiln-tune: error: cannot time the plan on a GPU: no CUDA "
               "driver was found (/nonexistent/libcuda.so.1");
  EXPECT_PRED2(contains, r.output, "--list works anywhere");
  EXPECT_EQ(slurp(plan_), before);
  EXPECT_FALSE(fs::exists(cache));
  EXPECT_FALSE(fs::exists(file("tuned.plan")));

  r = kilnTune(plan_ + " --json", true);
  EXPECT_EQ(r.exitCode, 2);
  Json json;
  std::string error;
  ASSERT_TRUE(tools::parseJson(r.output, json, error)) << error << r.output;
  EXPECT_EQ(json.at("ok"), false);
  EXPECT_PRED2(contains, json.at("error").get<std::string>(), "no CUDA driver");
}

TEST_F(KilnTune, RefusesPlansWithoutChoices) {
  // Tuning and listing alike: such a plan was not built for tuning.
  std::string plain = file("plain.plan");
  ASSERT_TRUE(choicePlan(false).writeFileAtomically(plain).ok());
  std::string message = "kiln-tune: error: " + plain +
                        " has no tactic choices: build it with kilnc "
                        "--tactics all\n";
  Result r = kilnTune(plain);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.output, message);
  r = kilnTune(plain + " --list");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_EQ(r.output, message);
  r = kilnTune(plain + " --list --json", /*stdoutOnly=*/true);
  EXPECT_EQ(r.exitCode, 2);
  Json json;
  std::string error;
  ASSERT_TRUE(tools::parseJson(r.output, json, error)) << error << r.output;
  EXPECT_EQ(json.at("ok"), false);
}

TEST_F(KilnTune, RefusesACorruptCacheBeforeTiming) {
  std::string cache = file("cache.json");
  {
    std::ofstream out(cache);
    out << "{\"kiln_timing_cache\": 1, \"entries\": [";
  }
  std::string before = slurp(cache);
  Result r = kilnTune(plan_ + " --timing-cache " + cache);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_PRED2(contains, r.output,
               "kiln-tune: error: timing cache '" + cache +
                   "' is not valid JSON");
  EXPECT_FALSE(contains(r.output, "CUDA")) << "refused before the GPU";
  EXPECT_EQ(slurp(cache), before);
}

TEST_F(KilnTune, ReportsUsageErrors) {
  struct Case {
    std::string args, error;
  } cases[] = {
      {"", "no plan given"},
      {plan_ + " --list -o x.plan",
       "--list only prints the plan's choices: it takes neither -o nor "
       "--timing-cache"},
      {plan_ + " --iterations 0", "--iterations must be in [1, 1000000]"},
      {plan_ + " --rounds", "--rounds needs a non-negative integer"},
      {plan_ + " --seed -3", "--seed needs a non-negative integer"},
      {plan_ + " --rtol -0.1", "--rtol needs a finite number >= 0"},
      {plan_ + " --atol=inf", "--atol needs a finite number >= 0"},
      {plan_ + " --atol", "--atol needs a finite number >= 0"},
      {plan_ + " --frobnicate", "unknown option '--frobnicate'"},
      {plan_ + " other.plan", "more than one plan given"},
      {plan_ + " --timing-cache=", "--timing-cache needs a file name"},
      {file("missing.plan") + " --list",
       "cannot open '" + file("missing.plan") + "'"},
  };
  for (const Case &c : cases) {
    Result r = kilnTune(c.args);
    EXPECT_EQ(r.exitCode, 2) << c.args;
    EXPECT_PRED2(contains, r.output, "kiln-tune: error: " + c.error) << c.args;
  }
  Result help = kilnTune("--help");
  EXPECT_EQ(help.exitCode, 0);
  EXPECT_EQ(help.output.rfind("usage: kiln-tune PLAN [options]\n", 0), 0u);
  EXPECT_PRED2(contains, help.output, "--rtol R, --atol A");
  EXPECT_PRED2(contains, help.output,
               "exit status: 0 ok, 1 a variant was rejected");
  // Tolerances are options like the others: accepted before the GPU refuses.
  Result r = kilnTune(plan_ + " --rtol 0 --atol=1e-3");
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_PRED2(contains, r.output, "cannot time the plan on a GPU");
}

TEST_F(KilnTune, RefusesUnsafeOutputsBeforeTheGpu) {
  // Checked before any GPU work, so these run without one: the refusal, not
  // "cannot time the plan on a GPU".
  std::string before = slurp(plan_);
  auto expectRefused = [&](const std::string &args,
                           const std::string &message) {
    Result r = kilnTune(args);
    EXPECT_EQ(r.exitCode, 2) << args;
    EXPECT_PRED2(contains, r.output, "kiln-tune: error: " + message) << args;
    EXPECT_FALSE(contains(r.output, "CUDA")) << r.output;
  };
  std::string device = file("full");
  if (::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0)
    device = "/dev/full";
  expectRefused(plan_ + " -o " + device, "the tuned plan (-o): cannot write '" +
                                             device +
                                             "': it is a character device");
  struct stat st;
  ASSERT_EQ(::lstat(device.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  expectRefused(plan_ + " --timing-cache " + device,
                "--timing-cache: cannot write '" + device +
                    "': it is a character device");
  // The timing cache is never written over the plan, nor the plan over the
  // cache (before: 'not valid JSON', after reading the plan as a cache).
  expectRefused(plan_ + " --timing-cache " + plan_,
                "--timing-cache: cannot write '" + plan_ +
                    "': it would overwrite the plan '" + plan_ + "'");
  std::string cache = file("cache.json");
  {
    std::ofstream out(cache);
    out << "{\"kiln_timing_cache\": 1, \"entries\": []}\n";
  }
  expectRefused(plan_ + " -o " + cache + " --timing-cache " + cache,
                "--timing-cache: cannot write '" + cache +
                    "': it would overwrite the tuned plan '" + cache + "'");
  EXPECT_EQ(slurp(plan_), before);
}

TEST_F(KilnTune, RefusesFifosAndDirectoriesAsInputs) {
  // Before, open() of a FIFO waited for a writer (the timeout's exit 124).
  std::string fifo = file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0666), 0);
  Result r = kilnTune(fifo + " --list");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_PRED2(contains, r.output,
               "kiln-tune: error: cannot read '" + fifo +
                   "': it is a FIFO, not a regular file");
  r = kilnTune(dir_.string() + " --list");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_PRED2(contains, r.output, "it is a directory, not a regular file");
  r = kilnTune(plan_ + " --timing-cache " + fifo);
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_PRED2(contains, r.output,
               "--timing-cache: cannot write '" + fifo + "': it is a FIFO");
  // An empty cache file (touch cache.json) is an empty cache: accepted up to
  // the GPU.
  std::string empty = file("empty.json");
  { std::ofstream out(empty); }
  r = kilnTune(plan_ + " --timing-cache " + empty);
  EXPECT_EQ(r.exitCode, 2);
  EXPECT_PRED2(contains, r.output, "cannot time the plan on a GPU");
}
