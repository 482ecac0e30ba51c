//===- Bench.cpp - kiln-run: --bench (latency, throughput) and --profile --===//

#include "Runner.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

using namespace kiln;
using namespace kiln::run;
using runtime::Engine;
using runtime::ExecutionContext;
using runtime::TensorInfo;
using tools::jsonText;

/// Nearest-rank percentile of sorted values.
static double percentile(const std::vector<double> &sorted, double p) {
  if (sorted.empty())
    return 0;
  size_t rank = size_t(std::ceil(p * double(sorted.size())));
  return sorted[std::min(sorted.size(), std::max<size_t>(rank, 1)) - 1];
}

std::string kiln::run::bytesText(uint64_t bytes) {
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
    if (Status st = writeOutput(opt_.profileFile, json); !st)
      return fail(st.message());
  }
  return kExitOk;
}

int Runner::bench(std::unique_ptr<ExecutionContext> first,
                  const std::vector<Tensor> &inputs) {
  BenchReport r;
  r.loadMs = loadMs_;
  r.firstResultMs = firstResultMs_;
  const std::vector<TensorInfo> &ins = engine_->profileInputs(profile_);
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
    if (Status s = ctx->setProfile(profile_); !s)
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
    r.measuredContextsBytes =
        freeBefore > freeAfter ? freeBefore - freeAfter : 0;
  }

  // Every context computed the same thing: bit-identical outputs expected.
  if (k > 1) {
    bool same = true;
    const std::vector<TensorInfo> &outs = engine_->profileOutputs(profile_);
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
      engine_->onGpu() ? d.name + " (sm_" + std::to_string(d.computeMajor) +
                             std::to_string(d.computeMinor) + ", device " +
                             std::to_string(d.ordinal) + "), " +
                             engine_->target() + " " + engine_->moduleFormat()
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
  row("warm-up / timed iterations", std::to_string(opt_.warmup) + " / " +
                                        std::to_string(opt_.iterations) +
                                        " per stream");
  row("CUDA graphs",
      engine_->onGpu() ? (r.cudaGraphs ? "on" : "off") : "n/a (host)");
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
    row("outputs across streams", *r.identical ? "bit-identical" : "DIFFER");
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
  report["latency_ms"] = {{"p50", r.p50},   {"p90", r.p90}, {"p99", r.p99},
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
