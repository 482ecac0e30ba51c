//===- kiln-serve-load.cpp - load generator for the v2 REST protocol ------===//
//
// C concurrent clients (threads, one keep-alive connection each) send N
// inference requests with the binary tensor extension to a v2 server and
// check every response: the same load as bench/serve_load.py, without a
// Python client's per-request cost (which caps it at a few thousand
// requests/s for image-sized inputs). Each input of a pool of seeded random
// float32 tensors is first sent alone to --reference-model (default: the
// model itself); under load every response must be within
// --max-scaled-error of its input's reference (max|got-ref| / max|ref| per
// output). Prints requests/s, p50 and p99 latency, errors; exit 1 on any
// error.
//
//   kiln-serve-load --url HOST:PORT --model M [--reference-model R]
//                   [--requests 2000] [--concurrency 32] [--pool 32]
//                   [--max-scaled-error 1e-3] [--json]
//
//===----------------------------------------------------------------------===//
#include <httplib.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

using nlohmann::json;

namespace {

struct Options {
  std::string host = "127.0.0.1";
  int port = 8000;
  std::string model, reference;
  size_t requests = 2000, concurrency = 32, pool = 32;
  double maxScaledError = 1e-3;
  bool json = false;
};

struct Input {
  std::string name;
  std::vector<int64_t> shape;
  size_t bytes = 0;
};

int fail(const std::string &message) {
  std::fprintf(stderr, "kiln-serve-load: error: %s\n", message.c_str());
  return 1;
}

/// The request body: JSON header + the pool entry's binary inputs.
std::string body(const std::vector<Input> &inputs,
                 const std::vector<std::string> &outputs,
                 const std::vector<std::vector<float>> &data) {
  json header = {{"inputs", json::array()}, {"outputs", json::array()}};
  for (size_t i = 0; i < inputs.size(); ++i)
    header["inputs"].push_back(
        {{"name", inputs[i].name},
         {"shape", inputs[i].shape},
         {"datatype", "FP32"},
         {"parameters", {{"binary_data_size", inputs[i].bytes}}}});
  for (const std::string &o : outputs)
    header["outputs"].push_back(
        {{"name", o}, {"parameters", {{"binary_data", true}}}});
  std::string h = header.dump();
  std::string b = h;
  for (const auto &d : data)
    b.append(reinterpret_cast<const char *>(d.data()), d.size() * 4);
  return std::to_string(h.size()) + "\n" + b;
}

/// Splits a response into its outputs (float32 each); false on a bad one.
bool parseOutputs(const httplib::Result &r, size_t count,
                  std::vector<std::vector<float>> &out, std::string &error) {
  if (!r) {
    error = "no response (" + httplib::to_string(r.error()) + ")";
    return false;
  }
  if (r->status != 200) {
    error = "HTTP " + std::to_string(r->status) + ": " + r->body.substr(0, 200);
    return false;
  }
  size_t headerBytes = r->body.size();
  if (r->has_header("Inference-Header-Content-Length"))
    headerBytes = std::stoul(r->get_header_value("Inference-Header-Content-Length"));
  json header = json::parse(r->body.substr(0, headerBytes), nullptr, false);
  if (header.is_discarded() || !header.contains("outputs")) {
    error = "malformed response header";
    return false;
  }
  size_t at = headerBytes;
  out.assign(count, {});
  for (size_t k = 0; k < count && k < header["outputs"].size(); ++k) {
    const json &o = header["outputs"][k];
    size_t bytes = o["parameters"].value("binary_data_size", size_t(0));
    if (at + bytes > r->body.size() || bytes % 4) {
      error = "response shorter than its binary outputs";
      return false;
    }
    out[k].resize(bytes / 4);
    std::memcpy(out[k].data(), r->body.data() + at, bytes);
    at += bytes;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "kiln-serve-load: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    try {
      if (a == "--url") {
        std::string u = next();
        size_t colon = u.rfind(':');
        if (colon == std::string::npos)
          return fail("--url expects HOST:PORT");
        opt.host = u.substr(0, colon);
        opt.port = std::stoi(u.substr(colon + 1));
      } else if (a == "--model") {
        opt.model = next();
      } else if (a == "--reference-model") {
        opt.reference = next();
      } else if (a == "--requests") {
        opt.requests = std::stoul(next());
      } else if (a == "--concurrency") {
        opt.concurrency = std::stoul(next());
      } else if (a == "--pool") {
        opt.pool = std::stoul(next());
      } else if (a == "--max-scaled-error") {
        opt.maxScaledError = std::stod(next());
      } else if (a == "--json") {
        opt.json = true;
      } else {
        std::fprintf(stderr, "kiln-serve-load: unknown option %s\n", a.c_str());
        return 2;
      }
    } catch (const std::exception &) {
      std::fprintf(stderr, "kiln-serve-load: bad value for %s\n", a.c_str());
      return 2;
    }
  }
  if (opt.model.empty() || !opt.concurrency || !opt.pool)
    return fail("--model is required; --concurrency and --pool must be > 0");
  if (opt.reference.empty())
    opt.reference = opt.model;

  httplib::Client meta(opt.host, opt.port);
  auto m = meta.Get("/v2/models/" + opt.model);
  if (!m || m->status != 200)
    return fail("GET /v2/models/" + opt.model + " failed");
  json md = json::parse(m->body, nullptr, false);
  if (md.is_discarded())
    return fail("malformed model metadata");
  std::vector<Input> inputs;
  for (const json &t : md["inputs"]) {
    if (t["datatype"] != "FP32")
      return fail("input " + t["name"].get<std::string>() + " is not FP32");
    Input in{t["name"], t["shape"].get<std::vector<int64_t>>(), 4};
    for (int64_t &d : in.shape) {
      if (d < 0)
        d = 1; // the batch dimension: batch-1 requests
      in.bytes *= size_t(d);
    }
    inputs.push_back(in);
  }
  std::vector<std::string> outputs;
  for (const json &t : md["outputs"])
    outputs.push_back(t["name"]);

  // The pool and its references, one request at a time.
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  std::vector<std::string> bodies;
  std::vector<std::vector<std::vector<float>>> refs(opt.pool);
  for (size_t p = 0; p < opt.pool; ++p) {
    std::vector<std::vector<float>> data;
    for (const Input &in : inputs) {
      data.emplace_back(in.bytes / 4);
      for (float &v : data.back())
        v = uniform(rng);
    }
    bodies.push_back(body(inputs, outputs, data));
  }
  auto post = [&](httplib::Client &c, const std::string &model,
                  const std::string &b) {
    size_t nl = b.find('\n');
    httplib::Headers h = {{"Inference-Header-Content-Length", b.substr(0, nl)}};
    return c.Post(("/v2/models/" + model + "/infer").c_str(), h,
                  b.data() + nl + 1, b.size() - nl - 1,
                  "application/octet-stream");
  };
  for (size_t p = 0; p < opt.pool; ++p) {
    std::string error;
    if (!parseOutputs(post(meta, opt.reference, bodies[p]), outputs.size(),
                      refs[p], error))
      return fail("reference for input " + std::to_string(p) + ": " + error);
  }

  std::atomic<size_t> next{0};
  std::mutex mutex;
  std::vector<double> latencies;
  std::vector<std::string> errors;
  double worst = 0;
  auto worker = [&] {
    httplib::Client c(opt.host, opt.port);
    c.set_keep_alive(true);
    c.set_tcp_nodelay(true);
    std::vector<double> mine;
    for (size_t i; (i = next++) < opt.requests;) {
      size_t p = i % opt.pool;
      auto t0 = std::chrono::steady_clock::now();
      auto r = post(c, opt.model, bodies[p]);
      double ms = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - t0)
                      .count();
      std::vector<std::vector<float>> got;
      std::string error;
      double scaled = 0;
      if (parseOutputs(r, outputs.size(), got, error)) {
        for (size_t k = 0; k < outputs.size(); ++k) {
          if (got[k].size() != refs[p][k].size()) {
            error = "output " + outputs[k] + " has another size";
            break;
          }
          double d = 0, mx = 0;
          for (size_t e = 0; e < got[k].size(); ++e) {
            d = std::max(d, double(std::fabs(got[k][e] - refs[p][k][e])));
            mx = std::max(mx, double(std::fabs(refs[p][k][e])));
          }
          scaled = std::max(scaled, d / std::max(mx, 1e-30));
        }
        if (error.empty() && !(scaled <= opt.maxScaledError))
          error = "output differs from the reference (scaled error " +
                  std::to_string(scaled) + ")";
      }
      mine.push_back(ms);
      std::lock_guard<std::mutex> lock(mutex);
      worst = std::max(worst, scaled);
      if (!error.empty())
        errors.push_back("request " + std::to_string(i) + ": " + error);
    }
    std::lock_guard<std::mutex> lock(mutex);
    latencies.insert(latencies.end(), mine.begin(), mine.end());
  };
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (size_t t = 0; t < opt.concurrency; ++t)
    threads.emplace_back(worker);
  for (std::thread &t : threads)
    t.join();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::sort(latencies.begin(), latencies.end());
  auto pct = [&](double q) {
    return latencies.empty()
               ? 0.0
               : latencies[std::min(latencies.size() - 1,
                                    size_t(q * double(latencies.size())))];
  };
  double rps = double(latencies.size()) / seconds;
  if (opt.json) {
    json report = {{"model", opt.model},          {"requests", opt.requests},
                   {"concurrency", opt.concurrency}, {"seconds", seconds},
                   {"requests_per_s", rps},        {"p50_ms", pct(0.5)},
                   {"p99_ms", pct(0.99)},          {"errors", errors.size()},
                   {"max_scaled_error", worst}};
    std::printf("%s\n", report.dump().c_str());
  } else {
    std::printf("%-20s %zu requests, %zu clients: %.1f req/s, p50 %.2f ms, "
                "p99 %.2f ms, %zu errors, max scaled error %.2g\n",
                opt.model.c_str(), opt.requests, opt.concurrency, rps,
                pct(0.5), pct(0.99), errors.size(), worst);
  }
  for (size_t e = 0; e < errors.size() && e < 10; ++e)
    std::fprintf(stderr, "kiln-serve-load: error: %s\n", errors[e].c_str());
  return errors.empty() ? 0 : 1;
}
