//===- kiln-run.cpp - Run a kiln plan; save, compare or benchmark it ------===//
//
// Exit status: 0 success, 1 outputs differ from --compare (or across
// --bench --streams contexts), 2 any error (usage, plan, inputs, files).
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include "tools/common/CommandLine.h"
#include "tools/common/ToolMain.h"

#include <cstdio>
#include <cstring>
#include <string>

using namespace kiln;
using namespace kiln::run;
using tools::jsonText;

namespace {

const char *kUsage =
    "usage: kiln-run PLAN [options]\n"
    "       kiln-run --info PLAN [--json | --json=FILE]\n"
    "\n"
    "Runs a kiln plan once on this machine, or benchmarks it. --info "
    "prints what\n"
    "the plan holds (I/O, targets, driver, sizes, choices) and where it "
    "came from\n"
    "(its provenance), running nothing.\n"
    "\n"
    "inputs (default: seeded random data, floats in [-1, 1), ints in [0, "
    "10);\n"
    "        inputs fixed at build time, kilnc --input-value, get their fixed "
    "value):\n"
    "  --input NAME=FILE   input NAME from FILE (.pb ONNX TensorProto or "
    ".npy);\n"
    "                      repeat for every input\n"
    "  --input-dir DIR     inputs from DIR/input_0.pb, input_1.pb, ... in "
    "plan\n"
    "                      order (the ONNX test-data layout)\n"
    "  --seed N            seed of the random inputs (default 0)\n"
    "  --profile-index K   run profile K of a plan built with several "
    "profiles\n"
    "                      (kilnc --profile; default: the profile of the "
    "input\n"
    "                      files' shapes, profile 0 for random inputs)\n"
    "outputs:\n"
    "  --output-dir DIR    write DIR/output_K.pb (TensorProto named as the "
    "output)\n"
    "  --compare DIR       compare with DIR/output_K.pb: every element must "
    "satisfy\n"
    "                      |a - b| <= atol + rtol * |b| (NaN matches only "
    "NaN)\n"
    "  --rtol R            relative tolerance (default 1e-3, as ONNX backend "
    "tests)\n"
    "  --atol A            absolute tolerance (default 1e-7, as ONNX backend "
    "tests)\n"
    "  --json              print a JSON report on stdout instead of text\n"
    "  --json=FILE         write the JSON report to FILE (text on stdout)\n"
    "device:\n"
    "  --device D          auto (default: the GPU when the plan has GPU "
    "kernels\n"
    "                      and one is usable, else host), host or gpu\n"
    "  --device-ordinal N  CUDA device (default 0)\n"
    "  --allow-ptx-jit     use the plan's PTX (JIT at load) when no cubin "
    "fits\n"
    "  --no-cuda-graph     launch kernels one by one instead of replaying a "
    "CUDA graph\n"
    "benchmark:\n"
    "  --bench             time the plan: inputs stay on the device, warm-up, "
    "then\n"
    "                      timed iterations (latency = enqueue + wait, host "
    "clock)\n"
    "  --warmup N          untimed iterations per stream first (default 20)\n"
    "  --iterations N      timed iterations per stream (default 200)\n"
    "  --streams K         K threads, each with its own context and stream "
    "(default\n"
    "                      1); their outputs must be bit-identical (exit 1 if "
    "not)\n"
    "profile (GPU):\n"
    "  --profile[=FILE]    time every kernel launch on its own (CUDA events, "
    "20\n"
    "                      runs), print the kernels by total time; FILE: "
    "JSON list\n"
    "\n"
    "exit status: 0 ok, 1 outputs differ from --compare or across streams, "
    "2 error\n";

/// Reads the command line into `opt`; false with `error` set.
bool parseOptions(int argc, char **argv, Options &opt, bool &help,
                  std::string &error) {
  tools::CommandLine cl("kiln-run");
  for (const char *name : {"-h", "--help", "--bench", "--allow-ptx-jit",
                           "--no-cuda-graph", "--info"})
    cl.flag(name);
  cl.optionalValue("--json", "a file name (--json=FILE)");
  cl.optionalValue("--profile", "a file name (--profile=FILE)");
  for (const char *name :
       {"--warmup", "--iterations", "--streams", "--device-ordinal", "--seed",
        "--profile-index"})
    cl.option(name, "a non-negative integer");
  cl.option("--device", "auto, host or gpu");
  cl.option("--input", "NAME=FILE", /*repeatable=*/true);
  for (const char *name : {"--input-dir", "--output-dir", "--compare"})
    cl.option(name, "a directory");
  for (const char *name : {"--rtol", "--atol"})
    cl.option(name, "a non-negative number");
  if (!cl.parse(argc, argv, error))
    return false;
  help = cl.has("-h") || cl.has("--help");
  if (help)
    return true;
  auto fail = [&](const std::string &message) {
    error = message;
    return false;
  };
  auto got = [&](const std::string &name, const std::string &value) {
    return fail(cl.needs(name) + ", got '" + value + "'");
  };

  opt.bench = cl.has("--bench");
  opt.engine.allowPtxJit = cl.has("--allow-ptx-jit");
  opt.cudaGraphs = !cl.has("--no-cuda-graph");
  if (cl.has("--json")) {
    std::optional<std::string> file = cl.value("--json");
    if (file && file->empty())
      return fail("--json=FILE needs a file name");
    opt.json = !file;
    opt.jsonFile = file.value_or("");
  }
  if (cl.has("--profile")) {
    opt.profile = true;
    std::optional<std::string> file = cl.value("--profile");
    if (file && file->empty())
      return fail("--profile=FILE needs a file name");
    opt.profileFile = file.value_or("");
  }
  struct Count {
    const char *name;
    uint64_t *out, min, max;
  } counts[] = {{"--warmup", &opt.warmup, 0, UINT64_MAX},
                {"--iterations", &opt.iterations, 1, UINT64_MAX},
                {"--streams", &opt.streams, 1, 256},
                {"--seed", &opt.seed, 0, UINT64_MAX},
                {"--profile-index", &opt.profileIndex, 0, 4096}};
  for (const Count &c : counts) {
    std::optional<std::string> text = cl.value(c.name);
    if (!text)
      continue;
    uint64_t v;
    if (!tools::parseUnsigned(*text, v))
      return got(c.name, *text);
    if (v < c.min || v > c.max)
      return fail(std::string(c.name) +
                  (c.max == UINT64_MAX
                       ? " must be at least " + std::to_string(c.min)
                       : " must be in [" + std::to_string(c.min) + ", " +
                             std::to_string(c.max) + "]") +
                  ", got " + *text);
    *c.out = v;
  }
  if (std::optional<std::string> text = cl.value("--device-ordinal")) {
    uint64_t v;
    if (!tools::parseUnsigned(*text, v))
      return got("--device-ordinal", *text);
    if (v > 1024)
      return fail("--device-ordinal " + *text + " is out of range [0, 1024]");
    opt.engine.deviceOrdinal = int(v);
  }
  if (std::optional<std::string> d = cl.value("--device")) {
    if (*d == "auto")
      opt.engine.device = runtime::DeviceKind::Auto;
    else if (*d == "host")
      opt.engine.device = runtime::DeviceKind::Host;
    else if (*d == "gpu")
      opt.engine.device = runtime::DeviceKind::Gpu;
    else
      return got("--device", *d);
  }
  for (const std::string &spec : cl.values("--input")) {
    size_t eq = spec.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
      return got("--input", spec);
    opt.inputs.emplace_back(spec.substr(0, eq), spec.substr(eq + 1));
  }
  struct Dir {
    const char *name;
    std::string *out;
  } dirs[] = {{"--input-dir", &opt.inputDir},
              {"--output-dir", &opt.outputDir},
              {"--compare", &opt.compareDir}};
  for (const Dir &d : dirs)
    if (std::optional<std::string> dir = cl.value(d.name)) {
      if (dir->empty())
        return fail(cl.needs(d.name));
      *d.out = *dir;
    }
  for (const char *name : {"--rtol", "--atol"})
    if (std::optional<std::string> text = cl.value(name)) {
      double v;
      if (!tools::parseNonNegative(*text, v))
        return got(name, *text);
      (name == std::string("--rtol") ? opt.rtol : opt.atol) = v;
    }
  const std::vector<std::string> &words = cl.positional();
  if (words.empty() || (words.size() == 1 && words[0].empty()))
    return fail("no plan given");
  if (words.size() > 1)
    return fail("more than one plan given ('" + words[0] + "', '" + words[1] +
                "')");
  opt.plan = words[0];
  opt.info = cl.has("--info");
  if (opt.info) {
    for (const char *name :
         {"--bench", "--allow-ptx-jit", "--no-cuda-graph", "--profile",
          "--warmup", "--iterations", "--streams", "--device-ordinal", "--seed",
          "--profile-index", "--device", "--input", "--input-dir", "--output-dir", "--compare",
          "--rtol", "--atol"})
      if (cl.has(name))
        return fail(std::string("--info runs nothing: drop ") + name);
    return true;
  }
  if (!opt.bench &&
      (cl.has("--warmup") || cl.has("--iterations") || cl.has("--streams")))
    return fail("--warmup, --iterations and --streams need --bench");
  // Every timed run's latency is kept for the percentiles.
  constexpr uint64_t kMaxSamples = 100000000;
  if (opt.iterations > kMaxSamples / opt.streams)
    return fail("--iterations " + std::to_string(opt.iterations) +
                " x --streams " + std::to_string(opt.streams) +
                " timed runs are more than the " + std::to_string(kMaxSamples) +
                " whose latencies kiln-run keeps");
  return true;
}

} // namespace

static int toolMain(int argc, char **argv) {
  bool json = false;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--json") == 0)
      json = true;
  Options opt;
  bool help = false;
  std::string error;
  if (!parseOptions(argc, argv, opt, help, error)) {
    std::fprintf(stderr, "kiln-run: error: %s\n", error.c_str());
    if (json)
      std::printf("%s\n", jsonText({{"ok", false}, {"error", error}}).c_str());
    else
      std::fprintf(stderr, "run 'kiln-run --help' for usage\n");
    return kExitError;
  }
  if (help) {
    std::printf("%s", kUsage);
    return kExitOk;
  }
  if (opt.info)
    return printPlanInfo(opt);
  return Runner(std::move(opt)).run();
}

int main(int argc, char **argv) {
  return kiln::tools::guardedMain("kiln-run", kExitError,
                                  [&] { return toolMain(argc, argv); });
}
