//===- KilnRunTest.cpp - The kiln-run binary: files, compare, exit codes --===//

#include "TestPlans.h"
#include "tools/common/TensorFile.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kiln;
using namespace kiln::tools;

namespace {

struct Result {
  int exitCode = -1;
  std::string output; ///< stdout and stderr together
};

/// Runs kiln-run with `args` (already shell-quoted where needed); exit code
/// 124 when it had to be stopped.
Result kilnRun(const std::string &args) {
  // The timeout turns a kiln-run that hangs (a regression) into a failure.
  std::string command =
      "timeout 120 " + std::string(KILN_RUN_BINARY) + " " + args + " 2>&1";
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

Tensor floats(const std::string &name, std::vector<int64_t> shape,
              const std::vector<float> &values) {
  Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.data.resize(values.size() * 4);
  std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}

void writePb(const std::string &path, const Tensor &t) {
  ASSERT_TRUE(writeBytes(path, serializeTensorProto(t)).ok());
}

std::vector<float> readFloats(const std::string &path) {
  Tensor t;
  Status s = readTensorFile(path, t);
  EXPECT_TRUE(s.ok()) << s.message();
  std::vector<float> v(t.data.size() / 4);
  std::memcpy(v.data(), t.data.data(), t.data.size());
  return v;
}

const std::vector<float> kX = {1.0f,   2.0f,  -3.0f, 4.0f,
                               -0.25f, -1.5f, 1.0f,  -5.0f};

class KilnRun : public ::testing::Test {
protected:
  void SetUp() override {
    plan_ = dir_.file("relu.plan");
    ASSERT_TRUE(test::reluPlan().writeFileAtomically(plan_).ok());
    writePb(dir_.file("x.pb"), floats("x", {2, 4}, kX));
  }
  test::TempDir dir_;
  std::string plan_;
};

} // namespace

TEST_F(KilnRun, WritesOutputsAndComparesThem) {
  Result r = kilnRun(plan_ + " --input x=" + dir_.file("x.pb") +
                     " --output-dir " + dir_.file("out"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("running on host"), std::string::npos) << r.output;
  Tensor y;
  ASSERT_TRUE(readTensorFile(dir_.file("out/output_0.pb"), y).ok());
  EXPECT_EQ(y.name, "y");
  EXPECT_EQ(y.shape, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(readFloats(dir_.file("out/output_0.pb")),
            test::reluReference(kX.data()));

  // Comparing with its own outputs passes.
  r = kilnRun(plan_ + " --input x=" + dir_.file("x.pb") + " --compare " +
              dir_.file("out"));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("all outputs match"), std::string::npos) << r.output;

  // A reference that differs in one element by more than the tolerance fails
  // with exit status 1 and names the output.
  std::vector<float> ref = test::reluReference(kX.data());
  ref[3] += 0.01f;
  ::mkdir(dir_.file("ref").c_str(), 0777);
  writePb(dir_.file("ref/output_0.pb"), floats("y", {2, 4}, ref));
  r = kilnRun(plan_ + " --input x=" + dir_.file("x.pb") + " --compare " +
              dir_.file("ref"));
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("1/8"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FAIL (first at flat index 3)"), std::string::npos)
      << r.output;
  // ... and passes once the tolerance admits the difference.
  r = kilnRun(plan_ + " --input x=" + dir_.file("x.pb") + " --compare " +
              dir_.file("ref") + " --atol 0.011");
  EXPECT_EQ(r.exitCode, 0) << r.output;

  // Shape mismatch against the reference is a comparison failure.
  writePb(dir_.file("ref/output_0.pb"), floats("y", {8}, ref));
  r = kilnRun(plan_ + " --input x=" + dir_.file("x.pb") + " --compare " +
              dir_.file("ref"));
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_NE(r.output.find("shape [2, 4] differs from the reference's [8]"),
            std::string::npos)
      << r.output;
}

TEST_F(KilnRun, ReadsNpyAndInputDirs) {
  Tensor x = floats("", {2, 4}, kX);
  std::vector<uint8_t> npy;
  ASSERT_TRUE(serializeNpy(x, npy).ok());
  ASSERT_TRUE(writeBytes(dir_.file("x.npy"), npy).ok());
  Result r = kilnRun(plan_ + " --input=x=" + dir_.file("x.npy") +
                     " --output-dir=" + dir_.file("npy"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(readFloats(dir_.file("npy/output_0.pb")),
            test::reluReference(kX.data()));

  // ONNX test-data layout: input_0.pb, compared against output_0.pb.
  ::mkdir(dir_.file("case").c_str(), 0777);
  writePb(dir_.file("case/input_0.pb"), floats("x", {2, 4}, kX));
  writePb(dir_.file("case/output_0.pb"),
          floats("y", {2, 4}, test::reluReference(kX.data())));
  r = kilnRun(plan_ + " --input-dir " + dir_.file("case") + " --compare " +
              dir_.file("case") + " --json");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_EQ(r.output.rfind("{\"plan\":", 0), 0u) << r.output;
  EXPECT_NE(r.output.find("\"mismatches\":0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("\"ok\":true}"), std::string::npos) << r.output;

  // An extra input file means the directory does not fit the plan.
  writePb(dir_.file("case/input_1.pb"), floats("z", {1}, {0}));
  r = kilnRun(plan_ + " --input-dir " + dir_.file("case"));
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("but the plan has only 1 inputs"), std::string::npos)
      << r.output;
}

TEST_F(KilnRun, UsesSeededRandomInputs) {
  ASSERT_EQ(
      kilnRun(plan_ + " --seed 3 --output-dir " + dir_.file("a")).exitCode, 0);
  ASSERT_EQ(
      kilnRun(plan_ + " --seed 3 --output-dir " + dir_.file("b")).exitCode, 0);
  Result r = kilnRun(plan_ + " --seed 4 --output-dir " + dir_.file("c"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("random (seed 4)"), std::string::npos) << r.output;
  EXPECT_EQ(readFloats(dir_.file("a/output_0.pb")),
            readFloats(dir_.file("b/output_0.pb")));
  EXPECT_NE(readFloats(dir_.file("a/output_0.pb")),
            readFloats(dir_.file("c/output_0.pb")));
}

TEST_F(KilnRun, ReportsErrorsWithExitStatus2) {
  auto expectError = [](const Result &r, const std::string &message) {
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  };
  expectError(kilnRun(plan_ + " --input z=" + dir_.file("x.pb")),
              "kiln-run: error: the plan has no input named 'z' (its inputs: "
              "'x')");
  writePb(dir_.file("wide.pb"), floats("x", {2, 5}, std::vector<float>(10)));
  expectError(kilnRun(plan_ + " --input x=" + dir_.file("wide.pb")),
              "has shape [2, 5], the plan expects [2, 4]");
  Tensor f64;
  f64.dtype = DType::f64;
  f64.shape = {2, 4};
  f64.data.resize(64);
  writePb(dir_.file("f64.pb"), f64);
  expectError(kilnRun(plan_ + " --input x=" + dir_.file("f64.pb")),
              "holds f64, the plan expects f32");
  expectError(kilnRun(plan_ + " --input x=" + dir_.file("missing.pb")),
              "input 'x': cannot open '" + dir_.file("missing.pb") + "'");
  ASSERT_TRUE(writeBytes(dir_.file("short.pb"), {0x08, 0x02, 0x08, 0x04, 0x10,
                                                 0x01, 0x4a, 0x04, 0, 0, 0, 0})
                  .ok());
  expectError(kilnRun(plan_ + " --input x=" + dir_.file("short.pb")),
              "short.pb: the tensor has 4 bytes of raw_data, its type and "
              "dims say 32 (FLOAT [2, 4])");

  std::string add = dir_.file("add.plan");
  ASSERT_TRUE(test::addPlan().writeFileAtomically(add).ok());
  writePb(dir_.file("a.pb"), floats("a", {3}, {1, 2, 3}));
  expectError(kilnRun(add + " --input a=" + dir_.file("a.pb")),
              "missing input 'b' (f32 [3]): give --input b=FILE");
  expectError(kilnRun(add + " --input a=" + dir_.file("a.pb") +
                      " --input a=" + dir_.file("a.pb")),
              "input 'a' is given twice");

  // Plans: missing, corrupt, not a plan.
  expectError(kilnRun(dir_.file("none.plan")), "cannot open plan");
  std::vector<uint8_t> bytes = test::bytesOf(test::reluPlan());
  bytes[100] ^= 0xff;
  ASSERT_TRUE(writeBytes(dir_.file("corrupt.plan"), bytes).ok());
  expectError(kilnRun(dir_.file("corrupt.plan")),
              "plan is corrupt: payload checksum mismatch");
  expectError(kilnRun(dir_.file("x.pb")), "not a kiln plan");

  // Usage.
  expectError(kilnRun(plan_ + " --streams 2"),
              "--warmup, --iterations and --streams need --bench");
  expectError(kilnRun(plan_ + " --bench --iterations 0"),
              "--iterations must be at least 1");
  expectError(kilnRun(plan_ + " --device tpu"),
              "--device needs auto, host or gpu, got 'tpu'");
  expectError(kilnRun(plan_ + " --device gpu"),
              "the plan has no GPU kernels (its targets: host)");
  expectError(kilnRun(""), "no plan given");
  expectError(kilnRun(plan_ + " --frobnicate"),
              "unknown option '--frobnicate'");
  expectError(kilnRun(plan_ + " --input x"), "--input needs NAME=FILE");
  expectError(kilnRun(plan_ + " --rtol -1"),
              "--rtol needs a non-negative number");
  expectError(kilnRun(plan_ + " --compare " + dir_.file("nothing")),
              "reference for output 'y'");
  Result json = kilnRun(plan_ + " --json --input q=" + dir_.file("x.pb"));
  EXPECT_EQ(json.exitCode, 2);
  EXPECT_NE(json.output.find("{\"plan\":"), std::string::npos) << json.output;
  EXPECT_NE(json.output.find("\"ok\":false,\"error\":\"the plan has no input"),
            std::string::npos)
      << json.output;
  EXPECT_EQ(kilnRun("--help").exitCode, 0);
}

TEST_F(KilnRun, BenchmarksHostPlans) {
  Result r = kilnRun(plan_ + " --bench --warmup 2 --iterations 10 --streams 3" +
                     " --input x=" + dir_.file("x.pb"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  if (std::getenv("KILN_TEST_VERBOSE"))
    std::printf("%s", r.output.c_str());
  for (const char *row : {"benchmark on host CPU", "latency p50", "latency p99",
                          "items/s", "inferences/s", "time to first result",
                          "outputs across streams       bit-identical"})
    EXPECT_NE(r.output.find(row), std::string::npos) << row << "\n" << r.output;

  std::string json = dir_.file("bench.json");
  r = kilnRun(plan_ + " --bench --iterations 5 --json=" + json);
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("latency p50"), std::string::npos) << r.output;
  std::ifstream in(json);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  for (const char *key :
       {"\"plan\":",
        "\"target\":\"host\"",
        "\"device_name\":\"host\"",
        "\"compute_capability\":null",
        "\"batch\":2",
        "\"warmup\":20",
        "\"iterations\":5",
        "\"streams\":1",
        "\"cuda_graph\":false",
        "\"latency_ms\":{\"p50\":",
        "\"p90\":",
        "\"p99\":",
        "\"mean\":",
        "\"min\":",
        "\"throughput_items_per_s\":",
        "\"inferences_per_s\":",
        "\"first_result_ms\":",
        "\"load_ms\":",
        "\"peak_device_memory_bytes\":null",
        "\"device_memory\":{\"weights_bytes\":0,\"arena_bytes_per_context\":0,"
        "\"io_bytes\":0",
        "\"outputs_identical_across_streams\":null",
        "\"ok\":true"})
    EXPECT_NE(text.find(key), std::string::npos) << key << "\n" << text;

  // --bench keeps --compare working (on the first result).
  ASSERT_EQ(kilnRun(plan_ + " --input x=" + dir_.file("x.pb") +
                    " --output-dir " + dir_.file("ref"))
                .exitCode,
            0);
  r = kilnRun(plan_ + " --bench --iterations 3 --input x=" + dir_.file("x.pb") +
              " --compare " + dir_.file("ref"));
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("all outputs match"), std::string::npos) << r.output;
}

TEST_F(KilnRun, WritesOutputsOnlyWhereSafe) {
  auto expectError = [](const Result &r, const std::string &message) {
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  };
  std::string x = " --input x=" + dir_.file("x.pb");
  struct stat st;
  // A device node (our own where we may make one, so that a regression
  // replaces that and not the system's): refused, left as it was. Before,
  // --json=/dev/full printed an error and exited 0.
  std::string device = dir_.file("full");
  if (::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0)
    device = "/dev/full";
  expectError(kilnRun(plan_ + x + " --json=" + device),
              "kiln-run: error: --json: cannot write '" + device +
                  "': it is a character device; outputs are written only "
                  "to regular files or new paths");
  ASSERT_EQ(::stat(device.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));

  // A FIFO where an output goes: refused at once (before, the write waited
  // for a reader forever).
  ::mkdir(dir_.file("out").c_str(), 0777);
  std::string fifo = dir_.file("out/output_0.pb");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0666), 0);
  expectError(kilnRun("--output-dir " + dir_.file("out") + x + " " + plan_),
              "--output-dir: cannot write '" + fifo + "': it is a FIFO");
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));

  // Outputs never replace the plan, an input or a reference; before,
  // --output-dir D --compare D overwrote the references and compared the
  // outputs with themselves.
  expectError(kilnRun(plan_ + x + " --json=" + plan_),
              "it would overwrite the plan '" + plan_ + "'");
  expectError(kilnRun(plan_ + x + " --json=" + dir_.file("x.pb")),
              "it would overwrite the input file '" + dir_.file("x.pb") + "'");
  ::mkdir(dir_.file("ref").c_str(), 0777);
  std::vector<float> wrong(8, 42.0f);
  writePb(dir_.file("ref/output_0.pb"), floats("y", {2, 4}, wrong));
  expectError(kilnRun(plan_ + x + " --output-dir " + dir_.file("ref") +
                      " --compare " + dir_.file("ref")),
              "it would overwrite the reference output '" +
                  dir_.file("ref/output_0.pb") + "'");
  EXPECT_EQ(readFloats(dir_.file("ref/output_0.pb")), wrong);
  expectError(kilnRun(plan_ + x + " --json=" + dir_.file("r.json") +
                      " --profile=" + dir_.file("./r.json")),
              "--profile would write '" + dir_.file("./r.json") +
                  "', which another output of this run writes too");
  writePb(dir_.file("file"), floats("y", {1}, {0}));
  expectError(kilnRun(plan_ + x + " --output-dir " + dir_.file("file")),
              "--output-dir '" + dir_.file("file") + "' is not a directory");
  // Unwritable: an error and exit status 2 (before: exit 0).
  Result r = kilnRun(plan_ + x + " --json=/proc/kiln-run-test.json");
  expectError(r, "cannot write '/proc/kiln-run-test.json'");
  // A missing directory is found before the run (before: exit 0 after it).
  expectError(kilnRun(plan_ + x + " --json=" + dir_.file("none/r.json")),
              "--json: cannot write '" + dir_.file("none/r.json") +
                  "': its directory '" + dir_.file("none/") +
                  "' cannot be used: No such file or directory");

  // A symbolic link is written through and stays a link.
  ::mkdir(dir_.file("reports").c_str(), 0777);
  writePb(dir_.file("reports/run.json"), floats("old", {1}, {0}));
  ASSERT_EQ(::symlink("reports/run.json", dir_.file("latest.json").c_str()), 0);
  r = kilnRun(plan_ + x + " --json=" + dir_.file("latest.json"));
  ASSERT_EQ(r.exitCode, 0) << r.output;
  ASSERT_EQ(::lstat(dir_.file("latest.json").c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
  std::ifstream in(dir_.file("reports/run.json"));
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  EXPECT_EQ(text.rfind("{\"plan\":", 0), 0u) << text;
}

TEST_F(KilnRun, RefusesWhatAHostileUserGivesItWithExitStatus2) {
  auto expectError = [](const Result &r, const std::string &message) {
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  };
  // An input of 2 x 3 x 2^40 floats: its random data is refused, named, with
  // its size (before: std::bad_alloc escaped main, exit status 134).
  {
    plan::PlanWriter w;
    uint32_t x = w.addInput(
        plan::TensorDesc{"x", DType::f32, {2, 3, int64_t(1) << 40}, {}});
    uint32_t y = w.addOutput(plan::TensorDesc{"y", DType::f32, {8}, {}});
    std::vector<uint8_t> so = test::hostKernels();
    uint32_t module = w.addModule("host", plan::ModuleFormat::HostSharedObject,
                                  so.data(), so.size());
    plan::Step s;
    s.kernel = w.addKernel("relu", module, "kiln_kernel_relu");
    s.args = {{x, 0}, {y, 0}};
    s.dims = {8};
    w.addStep(s);
    ASSERT_TRUE(w.writeFileAtomically(dir_.file("huge.plan")).ok());
  }
  expectError(kilnRun(dir_.file("huge.plan")),
              "kiln-run: error: input 'x' (f32 [2, 3, 1099511627776]) needs "
              "26388279066624 bytes (24.0 TiB) of host memory; this machine "
              "has ");

  // FIFOs are refused at once (before, open() waited for a writer: these
  // ran into the timeout), directories and empty files say what they are.
  std::string fifo = dir_.file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0666), 0);
  expectError(kilnRun(fifo),
              "cannot read '" + fifo + "': it is a FIFO, not a regular file");
  expectError(kilnRun(plan_ + " --input x=" + fifo),
              "input 'x': cannot read '" + fifo + "': it is a FIFO");
  ::mkdir(dir_.file("ref").c_str(), 0777);
  ASSERT_EQ(::mkfifo(dir_.file("ref/output_0.pb").c_str(), 0666), 0);
  expectError(kilnRun(plan_ + " --compare " + dir_.file("ref")),
              "reference for output 'y': cannot read '" +
                  dir_.file("ref/output_0.pb") + "': it is a FIFO");
  expectError(kilnRun(dir_.path()), "cannot read '" + dir_.path() +
                                        "': it is a directory, not a "
                                        "regular file");
  ASSERT_TRUE(writeBytes(dir_.file("empty.pb"), {}).ok());
  expectError(kilnRun(plan_ + " --input x=" + dir_.file("empty.pb")),
              "the file is empty (0 bytes), not a tensor");
  ASSERT_TRUE(writeBytes(dir_.file("empty.plan"), {}).ok());
  expectError(kilnRun(dir_.file("empty.plan")), "plan is empty (0 bytes)");

  // Counts whose latencies would not fit in memory (before: bad_alloc).
  expectError(kilnRun(plan_ + " --bench --iterations 10000000000000"),
              "--iterations 10000000000000 x --streams 1 timed runs are more "
              "than the 100000000 whose latencies kiln-run keeps");
  expectError(kilnRun(plan_ + " --bench --iterations 1000000 --streams 101"),
              "timed runs are more than the 100000000");
}
