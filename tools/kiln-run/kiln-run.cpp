//===- kiln-run.cpp - Run a kiln plan; save, compare or benchmark it ------===//
//
// Exit status: 0 success, 1 outputs differ from --compare (or across
// --bench --streams contexts), 2 any error (usage, plan, inputs, files).
//
//===----------------------------------------------------------------------===//

#include "tools/common/CommandLine.h"
#include "tools/common/Json.h"
#include "tools/common/TensorFile.h"

#include "kiln/Runtime/Runtime.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <sys/stat.h>

using namespace kiln;
using namespace kiln::tools;
using runtime::Engine;
using runtime::ExecutionContext;
using runtime::TensorInfo;
using tools::Json;
using tools::jsonText;
using Clock = std::chrono::steady_clock;

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
    "Runs a kiln plan once on this machine, or benchmarks it.\n"
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

struct Options {
  std::string plan;
  std::vector<std::pair<std::string, std::string>> inputs; // name, file
  std::string inputDir, outputDir, compareDir;
  double rtol = kDefaultRtol, atol = kDefaultAtol;
  uint64_t seed = 0;
  bool json = false;
  std::string jsonFile; ///< --json=FILE
  runtime::EngineOptions engine;
  bool cudaGraphs = true;
  bool bench = false;
  bool profile = false;
  std::string profileFile; ///< --profile=FILE
  uint64_t warmup = 20, iterations = 200, streams = 1;
};

/// Results of --bench.
struct BenchReport {
  uint64_t batch = 1;
  double p50 = 0, p90 = 0, p99 = 0, mean = 0, min = 0, max = 0;
  double wallSeconds = 0;
  double itemsPerSecond = 0, inferencesPerSecond = 0;
  double loadMs = 0, firstResultMs = 0;
  bool cudaGraphs = false;
  uint64_t weightsBytes = 0, arenaBytesPerContext = 0, ioBytesPerContext = 0,
           tensorMapBytesPerContext = 0;
  uint64_t peakAccountedBytes = 0;
  bool measured = false; ///< cuMemGetInfo values valid
  uint64_t measuredContextsBytes = 0, freeBytesAfter = 0, totalBytes = 0;
  std::optional<bool> identical; ///< streams > 1
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
  void emitJson(const std::string &json) const;
  int profile(ExecutionContext &context);
  int bench(std::unique_ptr<ExecutionContext> first,
            const std::vector<Tensor> &inputs);
  void printBenchText() const;
  void addBenchJson(Json &report) const;

  Options opt_;
  Clock::time_point start_ = Clock::now();
  double loadMs_ = 0, firstResultMs_ = 0;
  uint64_t freeBeforeContexts_ = 0;
  std::optional<BenchReport> bench_;
  std::unique_ptr<Engine> engine_;
  std::vector<InputReport> inputReports_;
  std::vector<OutputReport> outputReports_;
};

int Runner::fail(const std::string &message) {
  std::fprintf(stderr, "kiln-run: error: %s\n", message.c_str());
  if (opt_.json || !opt_.jsonFile.empty())
    printJson(false, false, message);
  return kExitError;
}

void Runner::emitJson(const std::string &json) const {
  if (opt_.jsonFile.empty()) {
    std::printf("%s\n", json.c_str());
    return;
  }
  FILE *f = std::fopen(opt_.jsonFile.c_str(), "w");
  if (!f || std::fprintf(f, "%s\n", json.c_str()) < 0 || std::fclose(f) != 0)
    std::fprintf(stderr, "kiln-run: error: cannot write '%s': %s\n",
                 opt_.jsonFile.c_str(), std::strerror(errno));
}

static double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
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
    std::string error;
    if (!makeSeededInputs(infos, opt_.seed, tensors, error)) {
      fail(error);
      return false;
    }
    for (size_t i = 0; i < infos.size(); ++i)
      sources[i] = infos[i].fixedValue.empty()
                       ? "random (seed " + std::to_string(opt_.seed) + ")"
                       : "fixed at build time";
  }
  for (size_t i = 0; i < infos.size(); ++i)
    inputReports_.push_back({infos[i].name, plan::dtypeName(infos[i].dtype),
                             shapeToString(infos[i].shape), sources[i]});
  return true;
}

int Runner::run() {
  // Time to first result: plan read + engine load + context + first
  // inference with its copies; reading/generating the inputs is excluded.
  Clock::time_point t0 = Clock::now();
  if (Status s = Engine::loadFile(opt_.plan, opt_.engine, &engine_); !s)
    return fail(s.message());
  loadMs_ = msSince(t0);
  if (!engine_->deviceNote().empty())
    std::fprintf(stderr, "kiln-run: note: %s; running on the host\n",
                 engine_->deviceNote().c_str());

  Clock::time_point inputStart = Clock::now();
  std::vector<Tensor> inputs;
  if (!loadInputs(inputs))
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
  for (size_t i = 0; i < inputs.size(); ++i)
    if (Status s =
            context->setInput(i, inputs[i].data.data(), inputs[i].data.size());
        !s)
      return fail(s.message());
  if (Status s = context->run(); !s)
    return fail(s.message());
  firstResultMs_ = msSince(t0) - inputMs;

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
    printJson(compared, allOk, "");
  if (!opt_.json)
    printText(compared, allOk);
  return allOk ? kExitOk : kExitMismatch;
}

namespace {
/// Nearest-rank percentile of sorted values.
double percentile(const std::vector<double> &sorted, double p) {
  if (sorted.empty())
    return 0;
  size_t rank = size_t(std::ceil(p * double(sorted.size())));
  return sorted[std::min(sorted.size(), std::max<size_t>(rank, 1)) - 1];
}

std::string bytesText(uint64_t bytes) {
  char buf[64];
  if (bytes >= (uint64_t(1) << 30))
    std::snprintf(buf, sizeof(buf), "%.2f GiB", double(bytes) / (1 << 30));
  else if (bytes >= (uint64_t(1) << 20))
    std::snprintf(buf, sizeof(buf), "%.2f MiB", double(bytes) / (1 << 20));
  else if (bytes >= 1024)
    std::snprintf(buf, sizeof(buf), "%.2f KiB", double(bytes) / 1024);
  else
    std::snprintf(buf, sizeof(buf), "%llu B", (unsigned long long)bytes);
  return buf;
}
} // namespace

int Runner::profile(ExecutionContext &context) {
  constexpr int kIterations = 20;
  std::vector<ExecutionContext::KernelTime> times;
  if (Status s = context.profile(kIterations, &times); !s)
    return fail(s.message());
  // Per kernel (model node): launches and total time, largest first.
  struct Row {
    std::string kernel;
    size_t launches = 0;
    double ms = 0;
  };
  std::vector<Row> rows;
  std::map<std::string, size_t> index;
  double total = 0;
  for (const auto &t : times) {
    auto [it, fresh] = index.try_emplace(t.kernel, rows.size());
    if (fresh)
      rows.push_back({t.kernel, 0, 0});
    rows[it->second].launches++;
    rows[it->second].ms += t.ms;
    total += t.ms;
  }
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row &a, const Row &b) { return a.ms > b.ms; });
  std::printf("per-kernel GPU time (mean of %d runs, each launch timed on its "
              "own): %zu launches, %.4f ms busy\n",
              kIterations, times.size(), total);
  std::printf("  %4s  %-48s %8s %10s %7s %7s\n", "rank", "kernel (model node)",
              "launches", "ms", "%", "cum %");
  double cum = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    cum += rows[i].ms;
    std::string name = rows[i].kernel;
    if (name.size() > 48)
      name = "..." + name.substr(name.size() - 45);
    std::printf("  %4zu  %-48s %8zu %10.4f %7.2f %7.2f\n", i + 1, name.c_str(),
                rows[i].launches, rows[i].ms,
                total > 0 ? 100 * rows[i].ms / total : 0.0,
                total > 0 ? 100 * cum / total : 0.0);
  }
  if (!opt_.profileFile.empty()) {
    // One launch per line; nlohmann writes each.
    std::string json = "[";
    for (size_t i = 0; i < times.size(); ++i) {
      const auto &t = times[i];
      Json launch = {{"kernel", t.kernel},
                     {"symbol", t.symbol},
                     {"step", t.step},
                     {"grid", {t.grid[0], t.grid[1], t.grid[2]}},
                     {"block", {t.block[0], t.block[1], t.block[2]}},
                     {"ms", t.ms}};
      json += std::string(i ? "," : "") + "\n" + jsonText(launch);
    }
    json += "\n]\n";
    FILE *f = std::fopen(opt_.profileFile.c_str(), "w");
    if (!f || std::fputs(json.c_str(), f) < 0 || std::fclose(f) != 0)
      return fail("cannot write '" + opt_.profileFile + "': " +
                  std::strerror(errno));
  }
  return kExitOk;
}

int Runner::bench(std::unique_ptr<ExecutionContext> first,
                  const std::vector<Tensor> &inputs) {
  BenchReport r;
  r.loadMs = loadMs_;
  r.firstResultMs = firstResultMs_;
  const std::vector<TensorInfo> &ins = engine_->inputs();
  if (!ins.empty() && !ins[0].shape.empty() && ins[0].shape[0] > 0)
    r.batch = uint64_t(ins[0].shape[0]);
  bool gpu = engine_->onGpu();
  uint64_t freeBefore = freeBeforeContexts_;
  if (gpu) {
    if (Status s = engine_->queryDeviceMemory(nullptr, &r.totalBytes); !s)
      return fail(s.message());
  }

  size_t k = size_t(opt_.streams);
  runtime::ContextOptions contextOptions;
  contextOptions.cudaGraphs = opt_.cudaGraphs;
  std::vector<std::unique_ptr<ExecutionContext>> contexts;
  contexts.push_back(std::move(first));
  for (size_t c = 1; c < k; ++c) {
    std::unique_ptr<ExecutionContext> ctx;
    if (Status s = engine_->createContext(contextOptions, &ctx); !s)
      return fail("context " + std::to_string(c) + ": " + s.message());
    contexts.push_back(std::move(ctx));
  }
  // Inputs uploaded once and kept on the device; outputs stay in the
  // context's device buffers (no copy-back inside the timed loop).
  for (size_t c = 0; c < k; ++c) {
    for (size_t i = 0; i < inputs.size(); ++i)
      if (Status s = contexts[c]->uploadInput(i, inputs[i].data.data(),
                                              inputs[i].data.size());
          !s)
        return fail(s.message());
    if (gpu)
      for (size_t o = 0; o < engine_->outputs().size(); ++o)
        if (Status s = contexts[c]->setOutputDevice(o, 0, 0); !s)
          return fail(s.message());
  }

  // One thread per context; all start the timed loop together.
  std::vector<std::vector<double>> latencies(k);
  std::vector<Status> errors(k);
  std::mutex mutex;
  std::condition_variable cv;
  size_t ready = 0;
  bool go = false;
  Clock::time_point timedStart;
  auto worker = [&](size_t c) {
    ExecutionContext &ctx = *contexts[c];
    Status s;
    for (uint64_t i = 0; i < opt_.warmup && s.ok(); ++i)
      s = ctx.run();
    {
      std::unique_lock<std::mutex> lock(mutex);
      ++ready;
      if (ready == k) {
        go = true;
        timedStart = Clock::now();
        cv.notify_all();
      } else {
        cv.wait(lock, [&] { return go; });
      }
    }
    latencies[c].reserve(size_t(opt_.iterations));
    for (uint64_t i = 0; i < opt_.iterations && s.ok(); ++i) {
      Clock::time_point t = Clock::now();
      s = ctx.run(); // enqueue on the context's stream + wait
      latencies[c].push_back(msSince(t));
    }
    errors[c] = s;
  };
  std::vector<std::thread> threads;
  for (size_t c = 1; c < k; ++c)
    threads.emplace_back(worker, c);
  worker(0);
  for (std::thread &t : threads)
    t.join();
  r.wallSeconds =
      std::chrono::duration<double>(Clock::now() - timedStart).count();
  for (size_t c = 0; c < k; ++c)
    if (!errors[c].ok())
      return fail("benchmark, stream " + std::to_string(c) + ": " +
                  errors[c].message());

  std::vector<double> all;
  for (const std::vector<double> &l : latencies)
    all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  if (!all.empty()) {
    r.p50 = percentile(all, 0.50);
    r.p90 = percentile(all, 0.90);
    r.p99 = percentile(all, 0.99);
    r.min = all.front();
    r.max = all.back();
    double sum = 0;
    for (double v : all)
      sum += v;
    r.mean = sum / double(all.size());
  }
  double inferences = double(k) * double(opt_.iterations);
  if (r.wallSeconds > 0) {
    r.inferencesPerSecond = inferences / r.wallSeconds;
    r.itemsPerSecond = r.inferencesPerSecond * double(r.batch);
  }

  r.cudaGraphs = contexts[0]->usesCudaGraphs();
  r.weightsBytes = engine_->deviceWeightsBytes();
  runtime::ContextMemory m = contexts[0]->deviceMemory();
  r.arenaBytesPerContext = m.arenaBytes;
  r.ioBytesPerContext = m.ioBytes;
  r.tensorMapBytesPerContext = m.tensorMapBytes;
  r.peakAccountedBytes =
      r.weightsBytes +
      uint64_t(k) * (m.arenaBytes + m.ioBytes + m.tensorMapBytes);
  if (gpu) {
    uint64_t freeAfter = 0;
    if (Status s = engine_->queryDeviceMemory(&freeAfter, nullptr); !s)
      return fail(s.message());
    r.measured = true;
    r.freeBytesAfter = freeAfter;
    r.measuredContextsBytes = freeBefore > freeAfter ? freeBefore - freeAfter : 0;
  }

  // Every context computed the same thing: bit-identical outputs expected.
  if (k > 1) {
    bool same = true;
    const std::vector<TensorInfo> &outs = engine_->outputs();
    for (size_t o = 0; o < outs.size() && same; ++o) {
      std::vector<uint8_t> ref(size_t(outs[o].byteSize)), got(ref.size());
      if (Status s = contexts[0]->readOutput(o, ref.data(), ref.size()); !s)
        return fail(s.message());
      for (size_t c = 1; c < k && same; ++c) {
        if (Status s = contexts[c]->readOutput(o, got.data(), got.size()); !s)
          return fail(s.message());
        if (got != ref) {
          same = false;
          std::fprintf(stderr,
                       "kiln-run: error: output '%s' of stream %zu differs "
                       "from stream 0's\n",
                       outs[o].name.c_str(), c);
        }
      }
    }
    r.identical = same;
  }
  bench_ = r;
  return kExitOk;
}

void Runner::printBenchText() const {
  const BenchReport &r = *bench_;
  const runtime::DeviceInfo &d = engine_->device();
  std::string where =
      engine_->onGpu()
          ? d.name + " (sm_" + std::to_string(d.computeMajor) +
                std::to_string(d.computeMinor) + ", device " +
                std::to_string(d.ordinal) + "), " + engine_->target() + " " +
                engine_->moduleFormat()
          : std::string("host CPU");
  std::printf("benchmark on %s\n", where.c_str());
  auto row = [](const char *name, const std::string &value) {
    std::printf("  %-28s %s\n", name, value.c_str());
  };
  auto ms = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%10.4f ms", v);
    return std::string(buf);
  };
  auto rate = [](double v, const char *unit) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%10.1f %s", v, unit);
    return std::string(buf);
  };
  row("batch", std::to_string(r.batch));
  row("streams (contexts)", std::to_string(opt_.streams));
  row("warm-up / timed iterations",
      std::to_string(opt_.warmup) + " / " + std::to_string(opt_.iterations) +
          " per stream");
  row("CUDA graphs", engine_->onGpu() ? (r.cudaGraphs ? "on" : "off")
                                      : "n/a (host)");
  row("latency p50", ms(r.p50));
  row("latency p90", ms(r.p90));
  row("latency p99", ms(r.p99));
  row("latency mean", ms(r.mean));
  row("latency min", ms(r.min));
  row("throughput", rate(r.itemsPerSecond, "items/s"));
  row("", rate(r.inferencesPerSecond, "inferences/s"));
  row("engine load", ms(r.loadMs));
  row("time to first result", ms(r.firstResultMs));
  if (engine_->onGpu()) {
    row("device memory (accounted)",
        bytesText(r.peakAccountedBytes) + " = weights " +
            bytesText(r.weightsBytes) + " + " + std::to_string(opt_.streams) +
            " x (arena " + bytesText(r.arenaBytesPerContext) + " + I/O " +
            bytesText(r.ioBytesPerContext) +
            (r.tensorMapBytesPerContext
                 ? " + tensor maps " + bytesText(r.tensorMapBytesPerContext)
                 : std::string()) +
            ")");
    row("device memory (measured)",
        bytesText(r.measuredContextsBytes) +
            " taken by the contexts (cuMemGetInfo before/after); " +
            bytesText(r.freeBytesAfter) + " of " + bytesText(r.totalBytes) +
            " free");
  }
  if (r.identical)
    row("outputs across streams",
        *r.identical ? "bit-identical" : "DIFFER");
}

void Runner::addBenchJson(Json &report) const {
  const BenchReport &r = *bench_;
  const runtime::DeviceInfo &d = engine_->device();
  bool gpu = engine_->onGpu();
  auto measured = [&](uint64_t v) { return r.measured ? Json(v) : Json(); };
  report["device_name"] = gpu ? d.name : "host";
  report["compute_capability"] =
      gpu ? Json(std::to_string(d.computeMajor) + "." +
                 std::to_string(d.computeMinor))
          : Json();
  report["module_format"] = engine_->moduleFormat();
  report["batch"] = r.batch;
  report["warmup"] = opt_.warmup;
  report["iterations"] = opt_.iterations;
  report["streams"] = opt_.streams;
  report["cuda_graph"] = r.cudaGraphs;
  report["latency_ms"] = {{"p50", r.p50}, {"p90", r.p90}, {"p99", r.p99},
                          {"mean", r.mean}, {"min", r.min}, {"max", r.max}};
  report["throughput_items_per_s"] = r.itemsPerSecond;
  report["inferences_per_s"] = r.inferencesPerSecond;
  report["first_result_ms"] = r.firstResultMs;
  report["load_ms"] = r.loadMs;
  report["peak_device_memory_bytes"] =
      gpu ? Json(r.peakAccountedBytes) : Json();
  report["device_memory"] = {
      {"weights_bytes", r.weightsBytes},
      {"arena_bytes_per_context", r.arenaBytesPerContext},
      {"io_bytes", r.ioBytesPerContext},
      {"tensor_map_bytes_per_context", r.tensorMapBytesPerContext},
      {"measured_contexts_bytes", measured(r.measuredContextsBytes)},
      {"free_bytes_after", measured(r.freeBytesAfter)},
      {"total_bytes", measured(r.totalBytes)}};
  report["outputs_identical_across_streams"] =
      r.identical ? Json(*r.identical) : Json();
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

void Runner::printJson(bool compared, bool allOk,
                       const std::string &error) const {
  Json report = {{"plan", opt_.plan}};
  if (!error.empty()) {
    report["ok"] = false;
    report["error"] = error;
    emitJson(jsonText(report));
    return;
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
  Json inputs = Json::array();
  for (size_t i = 0; i < inputReports_.size(); ++i) {
    const InputReport &r = inputReports_[i];
    inputs.push_back({{"name", r.name},
                      {"dtype", r.dtype},
                      {"shape", engine_->inputs()[i].shape},
                      {"source", r.source}});
  }
  report["inputs"] = std::move(inputs);
  Json outputs = Json::array();
  for (const OutputReport &r : outputReports_) {
    Json o = {{"name", r.name},      {"dtype", r.dtype},
              {"shape", r.shapeValues}, {"min", r.minValue},
              {"max", r.maxValue},   {"mean", r.mean}};
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
  emitJson(jsonText(report));
}

/// Reads the command line into `opt`; false with `error` set.
bool parseOptions(int argc, char **argv, Options &opt, bool &help,
                  std::string &error) {
  tools::CommandLine cl("kiln-run");
  for (const char *name :
       {"-h", "--help", "--bench", "--allow-ptx-jit", "--no-cuda-graph"})
    cl.flag(name);
  cl.optionalValue("--json", "a file name (--json=FILE)");
  cl.optionalValue("--profile", "a file name (--profile=FILE)");
  for (const char *name :
       {"--warmup", "--iterations", "--streams", "--device-ordinal", "--seed"})
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
                {"--seed", &opt.seed, 0, UINT64_MAX}};
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
  if (!opt.bench &&
      (cl.has("--warmup") || cl.has("--iterations") || cl.has("--streams")))
    return fail("--warmup, --iterations and --streams need --bench");
  return true;
}

} // namespace

int main(int argc, char **argv) {
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
  return Runner(std::move(opt)).run();
}
