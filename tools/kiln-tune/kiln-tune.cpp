//===- kiln-tune.cpp - Time a plan's tactic variants and keep the fastest -===//
//
// A plan built with `kilnc --tactics all` carries regions in several variants
// (tactic choices). kiln-tune runs each variant on the GPU, selects the
// fastest per choice, writes the plan back and records the times in a timing
// cache that kilnc --timing-cache reuses on machines without a GPU. A variant
// whose outputs differ from variant 0's (the cost model's plan) is rejected:
// never selected, not cached.
//
// Exit status: 0 success, 1 a variant was rejected (the plan and the cache
// are written without it), 2 any error (usage, plan, GPU, files).
//
//===----------------------------------------------------------------------===//

#include "Tuner.h"

#include "tools/common/CommandLine.h"
#include "tools/common/ToolMain.h"

#include <cstdio>
#include <cstring>
#include <string>

using namespace kiln;
using namespace kiln::tune;
using tools::jsonText;

namespace {

const char *kUsage =
    "usage: kiln-tune PLAN [options]\n"
    "\n"
    "Times every variant of the plan's tactic choices (kilnc --tactics all) "
    "on the GPU,\n"
    "selects the fastest of each, and writes the plan back (atomically). "
    "Each variant's\n"
    "outputs are compared with those of variant 0 (the cost model's plan): "
    "one that\n"
    "differs is rejected, never selected and left out of the timing cache.\n"
    "\n"
    "  -o FILE               write the tuned plan to FILE (default: rewrite "
    "PLAN in place)\n"
    "  --timing-cache FILE   merge the measured times into FILE (JSON; "
    "created if missing);\n"
    "                        kilnc --timing-cache FILE reuses them on "
    "machines without a GPU\n"
    "  --list                print the plan's choices (key, variants, "
    "selected, times) and\n"
    "                        exit; needs no GPU\n"
    "  --iterations N        timed runs per variant (default 20)\n"
    "  --rounds R            repeat all variants R times, keep each one's "
    "best mean (default 3)\n"
    "  --device-ordinal N    CUDA device (default 0)\n"
    "  --allow-ptx-jit       use the plan's PTX (JIT at load) when no cubin "
    "fits\n"
    "  --seed N              seed of the random inputs (default 0; as "
    "kiln-run: floats in\n"
    "                        [-1, 1), ints in [0, 10), fixed inputs get "
    "their value)\n"
    "  --rtol R, --atol A    outputs match variant 0's when |a - b| <= A + R "
    "* (|b| +\n"
    "                        max |b| of the output) (NaN matches only NaN; "
    "default 1e-2\n"
    "                        each, for fp16 plans)\n"
    "  --json                JSON report on stdout instead of text\n"
    "\n"
    "exit status: 0 ok, 1 a variant was rejected (its outputs differ from "
    "variant 0's;\n"
    "the plan and the cache are written without it), 2 error\n";

/// Reads the command line into `opt`; false with `error` set.
bool parseOptions(int argc, char **argv, Options &opt, bool &help,
                  std::string &error) {
  tools::CommandLine cl("kiln-tune");
  for (const char *name :
       {"-h", "--help", "--json", "--list", "--allow-ptx-jit"})
    cl.flag(name);
  for (const char *name : {"-o", "--timing-cache"})
    cl.option(name, "a file name");
  for (const char *name : {"--rtol", "--atol"})
    cl.option(name, "a finite number >= 0");
  for (const char *name :
       {"--iterations", "--rounds", "--seed", "--device-ordinal"})
    cl.option(name, "a non-negative integer");
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
  opt.json = cl.has("--json");
  opt.list = cl.has("--list");
  opt.engine.allowPtxJit = cl.has("--allow-ptx-jit");
  struct File {
    const char *name;
    std::string *out;
  } files[] = {{"-o", &opt.output}, {"--timing-cache", &opt.timingCache}};
  for (const File &f : files)
    if (std::optional<std::string> file = cl.value(f.name)) {
      if (file->empty())
        return fail(cl.needs(f.name));
      *f.out = *file;
    }
  for (const char *name : {"--rtol", "--atol"})
    if (std::optional<std::string> text = cl.value(name)) {
      double v;
      if (!tools::parseNonNegative(*text, v))
        return got(name, *text);
      (name == std::string("--rtol") ? opt.rtol : opt.atol) = v;
    }
  struct Count {
    const char *name;
    uint64_t *out, min, max;
  } counts[] = {{"--iterations", &opt.iterations, 1, 1000000},
                {"--rounds", &opt.rounds, 1, 1000},
                {"--seed", &opt.seed, 0, UINT64_MAX}};
  for (const Count &c : counts) {
    std::optional<std::string> text = cl.value(c.name);
    if (!text)
      continue;
    uint64_t v;
    if (!tools::parseUnsigned(*text, v))
      return got(c.name, *text);
    if (v < c.min || v > c.max)
      return fail(std::string(c.name) + " must be in [" +
                  std::to_string(c.min) + ", " + std::to_string(c.max) +
                  "], got " + *text);
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
  const std::vector<std::string> &words = cl.positional();
  if (words.empty() || (words.size() == 1 && words[0].empty()))
    return fail("no plan given");
  if (words.size() > 1)
    return fail("more than one plan given ('" + words[0] + "', '" + words[1] +
                "')");
  opt.plan = words[0];
  if (opt.list && (!opt.output.empty() || !opt.timingCache.empty()))
    return fail("--list only prints the plan's choices: it takes neither -o "
                "nor --timing-cache");
  return true;
}

} // namespace

static int toolMain(int argc, char **argv) {
  bool json = false;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--json") == 0)
      json = true;
  Options opt;
  opt.engine.device = runtime::DeviceKind::Gpu;
  bool help = false;
  std::string error;
  if (!parseOptions(argc, argv, opt, help, error)) {
    std::fprintf(stderr, "kiln-tune: error: %s\n", error.c_str());
    if (json)
      std::printf("%s\n", jsonText({{"ok", false}, {"error", error}}).c_str());
    else
      std::fprintf(stderr, "run 'kiln-tune --help' for usage\n");
    return kExitError;
  }
  if (help) {
    std::printf("%s", kUsage);
    return kExitOk;
  }
  return Tuner(std::move(opt)).run();
}

int main(int argc, char **argv) {
  return kiln::tools::guardedMain("kiln-tune", kExitError,
                                  [&] { return toolMain(argc, argv); });
}
