//===- Runner.cpp - kiln-run: inputs, the run, outputs and their report --===//

#include "Runner.h"

#include "tools/common/InputFile.h"
#include "tools/common/TensorFile.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include <sys/stat.h>

using namespace kiln;
using namespace kiln::run;
using runtime::Engine;
using runtime::ExecutionContext;
using runtime::TensorInfo;
using tools::jsonText;
using namespace kiln::tools;

std::string kiln::run::fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

double kiln::run::msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

int Runner::fail(const std::string &message) {
  std::fprintf(stderr, "kiln-run: error: %s\n", message.c_str());
  if (opt_.json || !opt_.jsonFile.empty())
    printJson(false, false, message);
  return kExitError;
}

bool Runner::emitJson(const std::string &json) {
  if (opt_.jsonFile.empty()) {
    std::printf("%s\n", json.c_str());
    return true;
  }
  if (Status s = writeOutput(opt_.jsonFile, json + "\n"); !s) {
    std::fprintf(stderr, "kiln-run: error: %s\n", s.message().c_str());
    return false;
  }
  return true;
}

Status Runner::writeOutput(const std::string &path, std::string_view bytes) {
  if (Status s = tools::writeOutputFile(path, bytes, protected_); !s)
    return s;
  protected_.push_back({path, "output written before by this run"});
  return Status::success();
}

bool Runner::checkOutputs() {
  std::vector<std::pair<std::string, std::string>> outputs; // path, option
  if (!opt_.outputDir.empty()) {
    if (::mkdir(opt_.outputDir.c_str(), 0777) != 0 && errno != EEXIST) {
      fail("cannot create --output-dir '" + opt_.outputDir +
           "': " + std::strerror(errno));
      return false;
    }
    struct stat st;
    if (::stat(opt_.outputDir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      fail("--output-dir '" + opt_.outputDir + "' is not a directory");
      return false;
    }
    for (size_t i = 0; i < engine_->outputs().size(); ++i)
      outputs.emplace_back(outputPath(opt_.outputDir, i), "--output-dir");
  }
  if (!opt_.jsonFile.empty())
    outputs.emplace_back(opt_.jsonFile, "--json");
  if (!opt_.profileFile.empty())
    outputs.emplace_back(opt_.profileFile, "--profile");
  // References are inputs too (--output-dir D --compare D would compare the
  // outputs with themselves).
  if (!opt_.compareDir.empty())
    for (size_t i = 0; i < engine_->outputs().size(); ++i)
      protected_.push_back(
          {outputPath(opt_.compareDir, i), "reference output"});
  std::vector<std::string> seen;
  for (const auto &[path, option] : outputs) {
    std::error_code ec;
    std::string canonical = std::filesystem::weakly_canonical(path, ec);
    if (ec)
      canonical = path;
    if (std::find(seen.begin(), seen.end(), canonical) != seen.end()) {
      fail(option + " would write '" + path +
           "', which another output of this run writes too");
      return false;
    }
    seen.push_back(canonical);
    if (Status s = tools::checkOutputPath(path, protected_); !s) {
      if (option == "--json")
        opt_.jsonFile.clear(); // no report where it cannot go
      fail(option + ": " + s.message());
      return false;
    }
  }
  return true;
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
  bool fits = t.shape.size() == info.shape.size();
  for (size_t d = 0; fits && d < t.shape.size(); ++d)
    fits = info.shape[d] < 0 || info.shape[d] == t.shape[d];
  if (!fits) {
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
      protected_.push_back({path, "input file"});
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
      protected_.push_back({file, "input file"});
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
    if (opt_.profileIndex != UINT64_MAX) {
      if (opt_.profileIndex >= engine_->numProfiles()) {
        fail("--profile-index " + std::to_string(opt_.profileIndex) +
             " is out of range: the plan has " +
             std::to_string(engine_->numProfiles()) + " profile(s)");
        return false;
      }
      profile_ = size_t(opt_.profileIndex);
    }
    const std::vector<TensorInfo> &shaped = engine_->profileInputs(profile_);
    std::string error;
    if (!makeSeededInputs(shaped, opt_.seed, tensors, error)) {
      fail(error);
      return false;
    }
    for (size_t i = 0; i < infos.size(); ++i)
      sources[i] = infos[i].fixedValue.empty()
                       ? "random (seed " + std::to_string(opt_.seed) + ")"
                       : "fixed at build time";
  }
  if (!opt_.inputs.empty() || !opt_.inputDir.empty())
    if (!selectProfile(tensors, sources))
      return false;
  for (size_t i = 0; i < infos.size(); ++i)
    inputReports_.push_back({infos[i].name, plan::dtypeName(infos[i].dtype),
                             shapeToString(tensors[i].shape), sources[i]});
  return true;
}

bool Runner::selectProfile(const std::vector<Tensor> &tensors,
                           const std::vector<std::string> &sources) {
  size_t n = engine_->numProfiles();
  auto mismatch = [&](size_t k) -> std::optional<size_t> {
    const std::vector<TensorInfo> &infos = engine_->profileInputs(k);
    for (size_t i = 0; i < infos.size(); ++i)
      if (tensors[i].shape != infos[i].shape)
        return i;
    return std::nullopt;
  };
  if (opt_.profileIndex != UINT64_MAX) {
    if (opt_.profileIndex >= n) {
      fail("--profile-index " + std::to_string(opt_.profileIndex) +
           " is out of range: the plan has " + std::to_string(n) +
           " profile(s)");
      return false;
    }
    profile_ = size_t(opt_.profileIndex);
    if (std::optional<size_t> i = mismatch(profile_)) {
      const TensorInfo &info = engine_->profileInputs(profile_)[*i];
      fail("input '" + info.name + "': " + sources[*i] + " has shape " +
           shapeToString(tensors[*i].shape) + ", profile " +
           std::to_string(profile_) + " expects " +
           shapeToString(info.shape));
      return false;
    }
    return true;
  }
  for (size_t k = 0; k < n; ++k)
    if (!mismatch(k)) {
      profile_ = k;
      return true;
    }
  // The first input whose shape no profile has, else the combination.
  std::string message;
  const std::vector<TensorInfo> &infos = engine_->inputs();
  for (size_t i = 0; i < infos.size() && message.empty(); ++i) {
    bool any = false;
    for (size_t k = 0; k < n; ++k)
      any |= engine_->profileInputs(k)[i].shape == tensors[i].shape;
    if (!any) {
      message = "input '" + infos[i].name + "': " + sources[i] +
                " has shape " + shapeToString(tensors[i].shape) +
                ", which no profile of the plan has (";
      for (size_t k = 0; k < n; ++k)
        message += (k ? ", " : "") + std::string("profile ") +
                   std::to_string(k) + ": " +
                   shapeToString(engine_->profileInputs(k)[i].shape);
      message += ")";
    }
  }
  if (message.empty())
    message = "the input files' shapes are each in a profile of the plan, "
              "but in no single one together: give inputs of one profile "
              "(kiln-run --info lists them)";
  fail(message);
  return false;
}

std::string kiln::run::outputPath(const std::string &dir, size_t i) {
  return dir + "/output_" + std::to_string(i) + ".pb";
}

int Runner::run() {
  // Time to first result: plan read + engine load + context + first
  // inference with its copies; reading/generating the inputs is excluded.
  Clock::time_point t0 = Clock::now();
  protected_.push_back({opt_.plan, "plan"});
  // A FIFO would make the plan reader wait for a writer; a missing plan is
  // the engine's to report.
  if (Status s = tools::checkInputFile(opt_.plan);
      !s && s.code() != StatusCode::NotFound)
    return fail(s.message());
  if (Status s = Engine::loadFile(opt_.plan, opt_.engine, &engine_); !s)
    return fail(s.message());
  loadMs_ = msSince(t0);
  if (!engine_->deviceNote().empty())
    std::fprintf(stderr, "kiln-run: note: %s; running on the host\n",
                 engine_->deviceNote().c_str());

  Clock::time_point inputStart = Clock::now();
  std::vector<Tensor> inputs;
  if (!loadInputs(inputs) || !checkOutputs())
    return kExitError;
  // Device memory before any context exists, for --bench's measured
  // figure (not part of the time to first result either).
  if (opt_.bench && engine_->onGpu())
    if (Status s = engine_->queryDeviceMemory(&freeBeforeContexts_, nullptr);
        !s)
      return fail(s.message());
  double inputMs = msSince(inputStart);

  runtime::ContextOptions contextOptions;
  contextOptions.cudaGraphs = opt_.cudaGraphs;
  std::unique_ptr<ExecutionContext> context;
  if (Status s = engine_->createContext(contextOptions, &context); !s)
    return fail(s.message());
  if (Status s = context->setProfile(profile_); !s)
    return fail(s.message());
  for (size_t i = 0; i < inputs.size(); ++i)
    if (Status s =
            context->setInput(i, inputs[i].data.data(), inputs[i].data.size());
        !s)
      return fail(s.message());
  if (Status s = context->run(); !s)
    return fail(s.message());
  firstResultMs_ = msSince(t0) - inputMs;

  // Collect outputs.
  const std::vector<TensorInfo> &infos = engine_->profileOutputs(profile_);
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
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string path = outputPath(opt_.outputDir, i);
      std::vector<uint8_t> bytes = serializeTensorProto(outputs[i]);
      if (Status s = writeOutput(
              path,
              std::string_view(reinterpret_cast<const char *>(bytes.data()),
                               bytes.size()));
          !s)
        return fail(s.message());
      outputReports_[i].file = path;
    }
  }

  bool allOk = true;
  bool compared = !opt_.compareDir.empty();
  if (compared) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string path = outputPath(opt_.compareDir, i);
      Tensor expected;
      if (Status s = readTensorFile(path, expected); !s)
        return fail("reference for output '" + infos[i].name +
                    "': " + s.message());
      // Older ONNX test data stores bfloat16 tensors as their uint16 bits.
      if (expected.dtype == plan::DType::u16 &&
          outputs[i].dtype == plan::DType::bf16)
        expected.dtype = plan::DType::bf16;
      CompareResult r =
          compareTensors(outputs[i], expected, opt_.rtol, opt_.atol);
      allOk &= r.ok();
      outputReports_[i].compare = r;
    }
  }

  if (opt_.profile)
    if (int rc = profile(*context); rc != kExitOk)
      return rc;

  if (opt_.bench) {
    // The first-result outputs are already in `outputs`; the benchmark
    // reuses the context.
    if (int rc = bench(std::move(context), inputs); rc != kExitOk)
      return rc;
    allOk &= bench_->identical.value_or(true);
  }

  if (opt_.json || !opt_.jsonFile.empty())
    if (!printJson(compared, allOk, ""))
      return kExitError;
  if (!opt_.json)
    printText(compared, allOk);
  return allOk ? kExitOk : kExitMismatch;
}

void Runner::printText(bool compared, bool allOk) const {
  std::string targets;
  for (const std::string &t : engine_->planTargets())
    targets += (targets.empty() ? "" : ", ") + t;
  std::string running = engine_->target();
  if (engine_->onGpu())
    running += std::string(" (") + engine_->moduleFormat() + ") on " +
               engine_->device().name + ", device " +
               std::to_string(engine_->device().ordinal);
  std::printf("plan %s: compiled by kiln %s, targets %s; running on %s\n",
              opt_.plan.c_str(), engine_->compilerVersion().c_str(),
              targets.c_str(), running.c_str());
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
  if (bench_)
    printBenchText();
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

bool Runner::printJson(bool compared, bool allOk, const std::string &error) {
  Json report = {{"plan", opt_.plan}};
  if (!error.empty()) {
    report["ok"] = false;
    report["error"] = error;
    return emitJson(jsonText(report));
  }
  report["compiler_version"] = engine_->compilerVersion();
  report["targets"] = engine_->planTargets();
  report["target"] = engine_->target();
  report["device"] = engine_->onGpu() ? "gpu" : "host";
  if (!engine_->deviceNote().empty())
    report["device_note"] = engine_->deviceNote();
  if (bench_) {
    addBenchJson(report);
  } else if (engine_->onGpu()) {
    report["device_name"] = engine_->device().name;
    report["module_format"] = engine_->moduleFormat();
  }
  if (engine_->numProfiles() > 1)
    report["profile_index"] = profile_;
  Json inputs = Json::array();
  for (size_t i = 0; i < inputReports_.size(); ++i) {
    const InputReport &r = inputReports_[i];
    inputs.push_back({{"name", r.name},
                      {"dtype", r.dtype},
                      {"shape", engine_->profileInputs(profile_)[i].shape},
                      {"source", r.source}});
  }
  report["inputs"] = std::move(inputs);
  Json outputs = Json::array();
  for (const OutputReport &r : outputReports_) {
    Json o = {{"name", r.name},         {"dtype", r.dtype},
              {"shape", r.shapeValues}, {"min", r.minValue},
              {"max", r.maxValue},      {"mean", r.mean}};
    if (!r.file.empty())
      o["file"] = r.file;
    if (r.compare) {
      const CompareResult &c = *r.compare;
      Json j = {{"ok", c.ok()}};
      if (!c.error.empty())
        j["error"] = c.error;
      j["elements"] = c.elements;
      j["mismatches"] = c.mismatches;
      j["nan_mismatches"] = c.nanMismatches;
      j["max_abs_err"] = c.maxAbsErr;
      j["max_rel_err"] = c.maxRelErr;
      j["first_mismatch"] = c.firstMismatch;
      o["compare"] = std::move(j);
    }
    outputs.push_back(std::move(o));
  }
  report["outputs"] = std::move(outputs);
  if (compared) {
    report["rtol"] = opt_.rtol;
    report["atol"] = opt_.atol;
  }
  report["ok"] = allOk;
  return emitJson(jsonText(report));
}
