//===- kiln-run.cpp - Run a kiln plan once; save or compare its outputs ---===//
//
// Exit status: 0 success, 1 outputs differ from --compare, 2 any error
// (usage, plan, inputs, files).
//
//===----------------------------------------------------------------------===//

#include "TensorFile.h"

#include "kiln/Runtime/Runtime.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <sys/stat.h>

using namespace kiln;
using namespace kiln::run;
using runtime::Engine;
using runtime::ExecutionContext;
using runtime::TensorInfo;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitMismatch = 1;
constexpr int kExitError = 2;

// Defaults of the ONNX backend test runner, whose reference outputs
// (output_K.pb) --compare usually reads.
constexpr double kDefaultRtol = 1e-3;
constexpr double kDefaultAtol = 1e-7;

const char *kUsage =
    "usage: kiln-run PLAN [options]\n"
    "\n"
    "Runs a kiln plan once on this machine.\n"
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
    "  --bench             benchmark (not implemented yet)\n"
    "\n"
    "exit status: 0 ok, 1 outputs differ from --compare, 2 error\n";

struct Options {
  std::string plan;
  std::vector<std::pair<std::string, std::string>> inputs; // name, file
  std::string inputDir, outputDir, compareDir;
  double rtol = kDefaultRtol, atol = kDefaultAtol;
  uint64_t seed = 0;
  bool json = false;
};

/// Accumulates the report; printed as text or JSON at the end.
struct InputReport {
  std::string name, dtype, shape, source;
};
struct OutputReport {
  std::string name, dtype, shape, file;
  std::vector<int64_t> shapeValues;
  double minValue = 0, maxValue = 0, mean = 0;
  std::optional<CompareResult> compare;
};

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

std::string jsonNumber(double v) {
  if (!std::isfinite(v))
    return "null";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.9g", v);
  return buf;
}

std::string jsonShape(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

class Runner {
public:
  explicit Runner(Options options) : opt_(std::move(options)) {}
  int run();

private:
  int fail(const std::string &message);
  bool loadInputs(std::vector<Tensor> &tensors);
  bool checkInput(const TensorInfo &info, Tensor &t,
                  const std::string &source);
  void printText(bool compared, bool allOk) const;
  void printJson(bool compared, bool allOk, const std::string &error) const;

  Options opt_;
  std::unique_ptr<Engine> engine_;
  std::vector<InputReport> inputReports_;
  std::vector<OutputReport> outputReports_;
};

int Runner::fail(const std::string &message) {
  std::fprintf(stderr, "kiln-run: error: %s\n", message.c_str());
  if (opt_.json)
    printJson(false, false, message);
  return kExitError;
}

bool Runner::checkInput(const TensorInfo &info, Tensor &t,
                        const std::string &source) {
  // Older ONNX test data stores bfloat16 tensors as their uint16 bits.
  if (t.dtype == plan::DType::u16 && info.dtype == plan::DType::bf16)
    t.dtype = plan::DType::bf16;
  if (t.dtype != info.dtype) {
    fail("input '" + info.name + "': " + source + " holds " +
         plan::dtypeName(t.dtype) + ", the plan expects " +
         plan::dtypeName(info.dtype));
    return false;
  }
  if (t.shape != info.shape) {
    fail("input '" + info.name + "': " + source + " has shape " +
         shapeToString(t.shape) + ", the plan expects " +
         shapeToString(info.shape));
    return false;
  }
  return true;
}

bool Runner::loadInputs(std::vector<Tensor> &tensors) {
  const std::vector<TensorInfo> &infos = engine_->inputs();
  tensors.assign(infos.size(), Tensor());
  std::vector<std::string> sources(infos.size());

  if (!opt_.inputs.empty() && !opt_.inputDir.empty()) {
    fail("use either --input or --input-dir, not both");
    return false;
  }
  if (!opt_.inputDir.empty()) {
    for (size_t i = 0; i < infos.size(); ++i) {
      std::string path = opt_.inputDir + "/input_" + std::to_string(i) + ".pb";
      if (Status s = readTensorFile(path, tensors[i]); !s) {
        fail("input '" + infos[i].name + "': " + s.message());
        return false;
      }
      if (!tensors[i].name.empty() && tensors[i].name != infos[i].name)
        std::fprintf(stderr,
                     "kiln-run: warning: %s is named '%s'; using it for plan "
                     "input %zu '%s'\n",
                     path.c_str(), tensors[i].name.c_str(), i,
                     infos[i].name.c_str());
      if (!checkInput(infos[i], tensors[i], path))
        return false;
      sources[i] = path;
    }
    std::string extra =
        opt_.inputDir + "/input_" + std::to_string(infos.size()) + ".pb";
    struct stat st;
    if (::stat(extra.c_str(), &st) == 0) {
      fail(opt_.inputDir + " has " + extra + ", but the plan has only " +
           std::to_string(infos.size()) + " inputs");
      return false;
    }
  } else if (!opt_.inputs.empty()) {
    std::vector<bool> given(infos.size(), false);
    for (const auto &[name, file] : opt_.inputs) {
      std::optional<size_t> index = engine_->findInput(name);
      if (!index) {
        std::string names;
        for (const TensorInfo &t : infos)
          names += (names.empty() ? "'" : ", '") + t.name + "'";
        fail("the plan has no input named '" + name +
             "' (its inputs: " + (names.empty() ? "none" : names) + ")");
        return false;
      }
      if (given[*index]) {
        fail("input '" + name + "' is given twice");
        return false;
      }
      given[*index] = true;
      if (Status s = readTensorFile(file, tensors[*index]); !s) {
        fail("input '" + name + "': " + s.message());
        return false;
      }
      if (!checkInput(infos[*index], tensors[*index], file))
        return false;
      sources[*index] = file;
    }
    for (size_t i = 0; i < infos.size(); ++i)
      if (!given[i]) {
        fail("missing input '" + infos[i].name + "' (" +
             plan::dtypeName(infos[i].dtype) + " " +
             shapeToString(infos[i].shape) + "): give --input " +
             infos[i].name + "=FILE, or no --input at all for random data");
        return false;
      }
  } else {
    std::mt19937_64 rng(opt_.seed);
    for (size_t i = 0; i < infos.size(); ++i) {
      if (infos[i].isDynamic()) {
        fail("input '" + infos[i].name + "' has a dynamic shape " +
             shapeToString(infos[i].shape) +
             "; random data needs a static shape");
        return false;
      }
      tensors[i].dtype = infos[i].dtype;
      tensors[i].shape = infos[i].shape;
      if (!infos[i].fixedValue.empty()) {
        // Random data would be refused: the plan only runs this value.
        tensors[i].data = infos[i].fixedValue;
        sources[i] = "fixed at build time";
        continue;
      }
      fillRandom(tensors[i], rng);
      sources[i] = "random (seed " + std::to_string(opt_.seed) + ")";
    }
  }
  for (size_t i = 0; i < infos.size(); ++i)
    inputReports_.push_back({infos[i].name, plan::dtypeName(infos[i].dtype),
                             shapeToString(infos[i].shape), sources[i]});
  return true;
}

int Runner::run() {
  if (Status s = Engine::loadFile(opt_.plan, &engine_); !s)
    return fail(s.message());

  std::vector<Tensor> inputs;
  if (!loadInputs(inputs))
    return kExitError;

  std::unique_ptr<ExecutionContext> context;
  if (Status s = engine_->createContext(&context); !s)
    return fail(s.message());
  for (size_t i = 0; i < inputs.size(); ++i)
    if (Status s =
            context->setInput(i, inputs[i].data.data(), inputs[i].data.size());
        !s)
      return fail(s.message());
  if (Status s = context->run(); !s)
    return fail(s.message());

  // Collect outputs.
  const std::vector<TensorInfo> &infos = engine_->outputs();
  std::vector<Tensor> outputs(infos.size());
  for (size_t i = 0; i < infos.size(); ++i) {
    const void *data;
    size_t bytes;
    if (Status s = context->getOutput(i, &data, &bytes); !s)
      return fail(s.message());
    Tensor &t = outputs[i];
    t.name = infos[i].name;
    t.dtype = infos[i].dtype;
    t.shape = infos[i].shape;
    const uint8_t *p = static_cast<const uint8_t *>(data);
    t.data.assign(p, p + bytes);
    OutputReport report;
    report.name = t.name;
    report.dtype = plan::dtypeName(t.dtype);
    report.shape = shapeToString(t.shape);
    report.shapeValues = t.shape;
    uint64_t n = t.numElements().value_or(0);
    double sum = 0;
    for (uint64_t e = 0; e < n; ++e) {
      double v = elementAsDouble(t, e);
      report.minValue = e ? std::fmin(report.minValue, v) : v;
      report.maxValue = e ? std::fmax(report.maxValue, v) : v;
      sum += v;
    }
    report.mean = n ? sum / double(n) : 0;
    outputReports_.push_back(report);
  }

  if (!opt_.outputDir.empty()) {
    ::mkdir(opt_.outputDir.c_str(), 0777);
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string path =
          opt_.outputDir + "/output_" + std::to_string(i) + ".pb";
      if (Status s = writeBytes(path, serializeTensorProto(outputs[i])); !s)
        return fail(s.message());
      outputReports_[i].file = path;
    }
  }

  bool allOk = true;
  bool compared = !opt_.compareDir.empty();
  if (compared) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string path =
          opt_.compareDir + "/output_" + std::to_string(i) + ".pb";
      Tensor expected;
      if (Status s = readTensorFile(path, expected); !s)
        return fail("reference for output '" + infos[i].name +
                    "': " + s.message());
      // Older ONNX test data stores bfloat16 tensors as their uint16 bits.
      if (expected.dtype == plan::DType::u16 && outputs[i].dtype == plan::DType::bf16)
        expected.dtype = plan::DType::bf16;
      CompareResult r =
          compareTensors(outputs[i], expected, opt_.rtol, opt_.atol);
      allOk &= r.ok();
      outputReports_[i].compare = r;
    }
  }

  if (opt_.json)
    printJson(compared, allOk, "");
  else
    printText(compared, allOk);
  return allOk ? kExitOk : kExitMismatch;
}

void Runner::printText(bool compared, bool allOk) const {
  std::string targets;
  for (const std::string &t : engine_->planTargets())
    targets += (targets.empty() ? "" : ", ") + t;
  std::printf("plan %s: compiled by kiln %s, targets %s; running on %s\n",
              opt_.plan.c_str(), engine_->compilerVersion().c_str(),
              targets.c_str(), engine_->target().c_str());
  std::printf("inputs:\n");
  for (const InputReport &r : inputReports_)
    std::printf("  %s %s %s <- %s\n", r.name.c_str(), r.dtype.c_str(),
                r.shape.c_str(), r.source.c_str());
  std::printf("outputs:\n");
  for (const OutputReport &r : outputReports_) {
    std::printf("  %s %s %s  min %s  max %s  mean %s", r.name.c_str(),
                r.dtype.c_str(), r.shape.c_str(), fmt(r.minValue).c_str(),
                fmt(r.maxValue).c_str(), fmt(r.mean).c_str());
    if (!r.file.empty())
      std::printf("  -> %s", r.file.c_str());
    std::printf("\n");
  }
  if (!compared)
    return;
  std::printf("compare with %s (|a - b| <= %s + %s * |b|):\n",
              opt_.compareDir.c_str(), fmt(opt_.atol).c_str(),
              fmt(opt_.rtol).c_str());
  size_t width = 6;
  for (const OutputReport &r : outputReports_)
    width = std::max(width, r.name.size());
  std::printf("  %-*s  %12s  %12s  %16s  %s\n", int(width), "output",
              "max abs err", "max rel err", "mismatches", "result");
  for (const OutputReport &r : outputReports_) {
    const CompareResult &c = *r.compare;
    if (!c.error.empty()) {
      std::printf("  %-*s  %12s  %12s  %16s  FAIL: %s\n", int(width),
                  r.name.c_str(), "-", "-", "-", c.error.c_str());
      continue;
    }
    std::string mismatches =
        std::to_string(c.mismatches) + "/" + std::to_string(c.elements);
    std::printf("  %-*s  %12s  %12s  %16s  %s", int(width), r.name.c_str(),
                fmt(c.maxAbsErr).c_str(), fmt(c.maxRelErr).c_str(),
                mismatches.c_str(), c.ok() ? "ok" : "FAIL");
    if (!c.ok())
      std::printf(" (first at flat index %lld%s)", (long long)c.firstMismatch,
                  c.nanMismatches ? ", NaN vs number" : "");
    std::printf("\n");
  }
  std::printf("%s\n", allOk ? "all outputs match" : "outputs differ");
}

void Runner::printJson(bool compared, bool allOk,
                       const std::string &error) const {
  std::string s = "{";
  s += "\"plan\":" + jsonString(opt_.plan);
  if (!error.empty()) {
    s += ",\"ok\":false,\"error\":" + jsonString(error) + "}";
    std::printf("%s\n", s.c_str());
    return;
  }
  s += ",\"compiler_version\":" + jsonString(engine_->compilerVersion());
  s += ",\"targets\":[";
  for (size_t i = 0; i < engine_->planTargets().size(); ++i)
    s += (i ? "," : "") + jsonString(engine_->planTargets()[i]);
  s += "],\"target\":" + jsonString(engine_->target());
  s += ",\"inputs\":[";
  for (size_t i = 0; i < inputReports_.size(); ++i) {
    const InputReport &r = inputReports_[i];
    s += std::string(i ? "," : "") + "{\"name\":" + jsonString(r.name) +
         ",\"dtype\":" + jsonString(r.dtype) +
         ",\"shape\":" + jsonShape(engine_->inputs()[i].shape) +
         ",\"source\":" + jsonString(r.source) + "}";
  }
  s += "],\"outputs\":[";
  for (size_t i = 0; i < outputReports_.size(); ++i) {
    const OutputReport &r = outputReports_[i];
    s += std::string(i ? "," : "") + "{\"name\":" + jsonString(r.name) +
         ",\"dtype\":" + jsonString(r.dtype) +
         ",\"shape\":" + jsonShape(r.shapeValues) +
         ",\"min\":" + jsonNumber(r.minValue) +
         ",\"max\":" + jsonNumber(r.maxValue) +
         ",\"mean\":" + jsonNumber(r.mean);
    if (!r.file.empty())
      s += ",\"file\":" + jsonString(r.file);
    if (r.compare) {
      const CompareResult &c = *r.compare;
      s += ",\"compare\":{\"ok\":" + std::string(c.ok() ? "true" : "false");
      if (!c.error.empty())
        s += ",\"error\":" + jsonString(c.error);
      s += ",\"elements\":" + std::to_string(c.elements) +
           ",\"mismatches\":" + std::to_string(c.mismatches) +
           ",\"nan_mismatches\":" + std::to_string(c.nanMismatches) +
           ",\"max_abs_err\":" + jsonNumber(c.maxAbsErr) +
           ",\"max_rel_err\":" + jsonNumber(c.maxRelErr) +
           ",\"first_mismatch\":" + std::to_string(c.firstMismatch) + "}";
    }
    s += "}";
  }
  s += "]";
  if (compared)
    s += ",\"rtol\":" + jsonNumber(opt_.rtol) +
         ",\"atol\":" + jsonNumber(opt_.atol);
  s += ",\"ok\":" + std::string(allOk ? "true" : "false") + "}";
  std::printf("%s\n", s.c_str());
}

bool parseDouble(const std::string &text, double &out) {
  char *end = nullptr;
  errno = 0;
  out = std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0' && errno == 0 && std::isfinite(out) &&
         out >= 0;
}

bool parseUnsigned(const std::string &text, uint64_t &out) {
  char *end = nullptr;
  errno = 0;
  out = std::strtoull(text.c_str(), &end, 10);
  return !text.empty() && text[0] != '-' && *end == '\0' && errno == 0;
}

} // namespace

int main(int argc, char **argv) {
  Options opt;
  bool json = false;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--json") == 0)
      json = true;
  auto usageError = [&](const std::string &message) {
    std::fprintf(stderr, "kiln-run: error: %s\n", message.c_str());
    if (json)
      std::printf("{\"ok\":false,\"error\":%s}\n", jsonString(message).c_str());
    else
      std::fprintf(stderr, "run 'kiln-run --help' for usage\n");
    return kExitError;
  };

  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool hasValue = false;
    if (arg.rfind("--", 0) == 0) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        hasValue = true;
      }
    }
    auto takeValue = [&](std::string &out) {
      if (hasValue) {
        out = value;
        return true;
      }
      if (i + 1 >= argc)
        return false;
      out = argv[++i];
      return true;
    };
    if (arg == "--help" || arg == "-h") {
      std::printf("%s", kUsage);
      return kExitOk;
    }
    if (arg == "--json") {
      opt.json = true;
    } else if (arg == "--bench") {
      return usageError("--bench is not implemented yet (benchmarking comes "
                        "with a later runtime version); run without it to "
                        "execute the plan once");
    } else if (arg == "--input") {
      std::string spec;
      if (!takeValue(spec))
        return usageError("--input needs NAME=FILE");
      size_t eq = spec.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size())
        return usageError("--input needs NAME=FILE, got '" + spec + "'");
      opt.inputs.emplace_back(spec.substr(0, eq), spec.substr(eq + 1));
    } else if (arg == "--input-dir" || arg == "--output-dir" ||
               arg == "--compare") {
      std::string dir;
      if (!takeValue(dir) || dir.empty())
        return usageError(arg + " needs a directory");
      (arg == "--input-dir"    ? opt.inputDir
       : arg == "--output-dir" ? opt.outputDir
                               : opt.compareDir) = dir;
    } else if (arg == "--rtol" || arg == "--atol") {
      std::string text;
      double v;
      if (!takeValue(text) || !parseDouble(text, v))
        return usageError(arg + " needs a non-negative number");
      (arg == "--rtol" ? opt.rtol : opt.atol) = v;
    } else if (arg == "--seed") {
      std::string text;
      if (!takeValue(text) || !parseUnsigned(text, opt.seed))
        return usageError("--seed needs a non-negative integer");
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usageError("unknown option '" + arg + "'");
    } else if (opt.plan.empty()) {
      opt.plan = arg;
    } else {
      return usageError("more than one plan given ('" + opt.plan + "', '" +
                        arg + "')");
    }
  }
  if (opt.plan.empty())
    return usageError("no plan given");
  return Runner(std::move(opt)).run();
}
