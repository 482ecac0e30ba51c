//===- Int8.cpp - kilnc --precision int8: calibrate, quantize, build ------===//
//
// Post-training quantization as TensorRT's calibrators do it, on the build
// machine: the model with every activation a Conv/Gemm/MatMul reads exposed
// as an output is built for kiln's host target in f32 and run over the
// calibration samples; each activation's |x| range (and, for entropy,
// percentile and mse, a second pass's histogram over it) gives its amax;
// Q/DQ pairs with those scales (and per-channel weight scales) go into the
// model, which then builds as any explicitly quantized model does. The
// ranges can be kept in a calibration cache (JSON keyed by tensor name, with
// the model's and the data's hashes) so that a build farm calibrates once.
//
//===----------------------------------------------------------------------===//
#include "Int8.h"
#include "Samples.h"

#include "kiln/Quant/Calibration.h"
#include "kiln/Quant/QdqModel.h"
#include "kiln/Plan/PlanIO.h"
#include "kiln/Runtime/Runtime.h"
#include "tools/common/OutputFile.h"
#include "tools/common/Sha256.h"
#include "tools/common/TensorFile.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

using namespace llvm;
using namespace kiln;

static constexpr const char *kCacheFormat = "kiln-int8-calibration-1";

bool driver::checkCalibMethod(StringRef text, std::string &error) {
  if (text == "minmax" || text == "entropy" || text == "mse")
    return true;
  if (StringRef p = text; p.consume_front("percentile=")) {
    double v;
    if (!p.getAsDouble(v) && v > 0 && v <= 100)
      return true;
  }
  error = "unknown calibration method '" + text.str() +
          "': expected minmax, entropy, percentile=P (0 < P <= 100) or mse";
  return false;
}

/// One calibration sample: a file per model input, in input order.
using Sample = std::vector<std::string>;

static bool hasExtension(StringRef path) {
  StringRef ext = sys::path::extension(path);
  return ext == ".pb" || ext == ".npy";
}

static std::vector<std::string> tensorFiles(const std::string &dir) {
  std::vector<std::string> out;
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec))
    if (hasExtension(it->path()) && sys::fs::is_regular_file(it->path()))
      out.push_back(it->path());
  llvm::sort(out);
  return out;
}

bool driver::calibrationSamples(const std::string &dir, size_t numInputs,
                                std::vector<std::vector<std::string>> &samples,
                                std::string &error) {
  if (!sys::fs::is_directory(dir)) {
    error = "calibration data '" + dir + "' is not a directory";
    return false;
  }
  std::vector<std::string> folders;
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec))
    if (sys::fs::is_directory(it->path()))
      folders.push_back(it->path());
  llvm::sort(folders);
  std::vector<std::string> loose = tensorFiles(dir);
  if (!folders.empty() && !loose.empty()) {
    error = "calibration data '" + dir +
            "' mixes tensor files and folders: use one folder per sample "
            "(input_0.pb, input_1.pb, ... as ONNX test data) or, for a "
            "one-input model, one .npy/.pb file per sample";
    return false;
  }
  for (const std::string &f : folders) {
    std::vector<std::string> files = tensorFiles(f);
    if (files.size() != numInputs) {
      error = "calibration sample '" + f + "' holds " +
              std::to_string(files.size()) + " tensor files; the model has " +
              std::to_string(numInputs) + " input" +
              (numInputs == 1 ? "" : "s") +
              " (one .pb or .npy file each, sorted as the inputs are)";
      return false;
    }
    samples.push_back(std::move(files));
  }
  if (!loose.empty()) {
    if (numInputs != 1) {
      error = "calibration data '" + dir +
              "' holds loose tensor files, but "
              "the model has " +
              std::to_string(numInputs) +
              " inputs: put each sample's inputs in a folder of its own";
      return false;
    }
    for (std::string &f : loose)
      samples.push_back({std::move(f)});
  }
  if (samples.empty()) {
    error = "calibration data '" + dir +
            "' holds no samples (.pb or .npy files, or folders of them)";
    return false;
  }
  return true;
}

/// SHA-256 of the samples: each file's path below `dir` and contents.
bool driver::calibrationDataHash(const std::string &dir,
                                 const std::vector<Sample> &samples,
                                 std::string &hex, std::string &error) {
  std::string lines;
  for (const Sample &s : samples)
    for (const std::string &f : s) {
      std::string h;
      if (plan::Status st = tools::sha256File(f, h); !st) {
        error = st.message();
        return false;
      }
      StringRef rel = f;
      rel.consume_front(dir);
      lines += rel.ltrim('/').str() + " " + h + "\n";
    }
  plan::Status st = tools::sha256Bytes(lines.data(), lines.size(), hex);
  if (!st)
    error = st.message();
  return bool(st);
}

namespace {
/// A tensor's statistics over the samples.
struct Stats {
  double amax = 0;
  std::optional<quant::AbsHistogram> histogram;
};

/// The calibration run: the tapped model's host plan over the samples.
class Calibrator {
public:
  Calibrator(driver::SampleRunner &runner,
             const std::vector<std::string> &tensors)
      : runner(runner), tensors(tensors) {}

  /// One pass over the samples: amax (first), or histograms (second).
  bool pass(const std::vector<Sample> &samples, bool histograms,
            std::map<std::string, Stats> &stats, raw_ostream *progress,
            std::string &error);

private:
  bool observe(const std::string &name, ArrayRef<float> data, bool histograms,
               std::map<std::string, Stats> &stats, std::string &error);

  driver::SampleRunner &runner;
  const std::vector<std::string> &tensors;
};
} // namespace

bool Calibrator::observe(const std::string &name, ArrayRef<float> data,
                         bool histograms, std::map<std::string, Stats> &stats,
                         std::string &error) {
  Stats &s = stats[name];
  bool ok = histograms
                ? s.histogram->add(data.data(), data.size(), error)
                : quant::foldAbsMax(data.data(), data.size(), s.amax, error);
  if (!ok)
    error = "tensor '" + name + "': " + error;
  return ok;
}

bool Calibrator::pass(const std::vector<Sample> &samples, bool histograms,
                      std::map<std::string, Stats> &stats,
                      raw_ostream *progress, std::string &error) {
  const runtime::Engine &engine = runner.engine();
  const auto &inputs = engine.inputs();
  std::set<std::string> wanted(tensors.begin(), tensors.end());
  for (size_t s = 0; s < samples.size(); ++s) {
    if (progress && (s + 1 == samples.size() || (s + 1) % 10 == 0))
      *progress << formatv("calibration: {0} pass, sample {1}/{2}\n",
                           histograms ? "histogram" : "range", s + 1,
                           samples.size());
    std::vector<tools::Tensor> feeds;
    if (!runner.run(samples[s], feeds, error)) {
      if (error.rfind("calibration sample", 0) != 0)
        error = "the calibration run on sample " + std::to_string(s + 1) +
                ": " + error;
      return false;
    }
    for (size_t i = 0; i < inputs.size(); ++i)
      if (wanted.count(inputs[i].name) && inputs[i].dtype == plan::DType::f32 &&
          !observe(inputs[i].name,
                   ArrayRef<float>(
                       reinterpret_cast<const float *>(feeds[i].data.data()),
                       feeds[i].data.size() / sizeof(float)),
                   histograms, stats, error))
        return false;
    for (const std::string &t : tensors) {
      std::optional<size_t> o = engine.findOutput(t);
      if (!o)
        continue; // a graph input, observed above
      if (engine.outputs()[*o].dtype != plan::DType::f32) {
        error = "tensor '" + t + "' is " +
                std::string(plan::dtypeName(engine.outputs()[*o].dtype)) +
                ", not f32: int8 calibration quantizes f32 activations";
        return false;
      }
      if (!observe(t, runner.output(*o), histograms, stats, error))
        return false;
    }
  }
  return true;
}

static double amaxFor(const std::string &method, const Stats &s) {
  StringRef m = method;
  if (m == "minmax" || !s.histogram)
    return s.amax;
  if (m == "entropy")
    return quant::entropyAmax(*s.histogram);
  if (m == "mse")
    return quant::mseAmax(*s.histogram);
  double p = 100;
  m.consume_front("percentile=");
  m.getAsDouble(p);
  return quant::percentileAmax(*s.histogram, p);
}

namespace {
/// A calibration: each tensor's amax, and what it was made from.
struct Table {
  std::string modelSha256, dataSha256, method;
  size_t samples = 0;
  std::map<std::string, double> amax;
};
} // namespace

static json::Value tableJson(const Table &t) {
  json::Object tensors;
  for (const auto &[name, amax] : t.amax) {
    float scale;
    std::string ignored;
    quant::int8Scale(amax, scale, ignored);
    tensors[name] = json::Object{{"amax", amax}, {"scale", double(scale)}};
  }
  return json::Object{
      {"format", kCacheFormat},        {"model_sha256", t.modelSha256},
      {"data_sha256", t.dataSha256},   {"method", t.method},
      {"samples", int64_t(t.samples)}, {"tensors", std::move(tensors)}};
}

/// Reads a calibration cache; false with `error` when it is unreadable or
/// not one.
static bool readTable(const std::string &path, Table &t, std::string &error) {
  auto buffer = MemoryBuffer::getFile(path);
  if (!buffer) {
    error = "cannot read calibration cache '" + path +
            "': " + buffer.getError().message();
    return false;
  }
  Expected<json::Value> v = json::parse((*buffer)->getBuffer());
  if (!v) {
    error = "calibration cache '" + path +
            "' is not JSON: " + toString(v.takeError());
    return false;
  }
  const json::Object *o = v->getAsObject();
  auto bad = [&](StringRef what) {
    error = "calibration cache '" + path +
            "' is not a kiln int8 calibration "
            "cache (" +
            what.str() + "): delete it or give another file";
    return false;
  };
  if (!o || o->getString("format") != StringRef(kCacheFormat))
    return bad("format is not " + std::string(kCacheFormat));
  auto str = [&](StringRef key, std::string &out) {
    std::optional<StringRef> s = o->getString(key);
    if (s)
      out = s->str();
    return bool(s);
  };
  if (!str("model_sha256", t.modelSha256) ||
      !str("data_sha256", t.dataSha256) || !str("method", t.method))
    return bad("model_sha256, data_sha256 and method are strings");
  t.samples = size_t(o->getInteger("samples").value_or(0));
  const json::Object *tensors = o->getObject("tensors");
  if (!tensors)
    return bad("no tensors object");
  for (const auto &[name, entry] : *tensors) {
    const json::Object *e = entry.getAsObject();
    std::optional<double> amax = e ? e->getNumber("amax") : std::nullopt;
    if (!amax || !std::isfinite(*amax) || *amax < 0)
      return bad("tensor '" + name.str() + "' has no finite amax >= 0");
    t.amax[name.str()] = *amax;
  }
  return true;
}

/// Runs the calibration: `tensors` exposed as outputs of an f32 host
/// build of `bytes`, two passes over `samples` (one for minmax), each
/// tensor's amax by `method` into `amax`.
static bool
calibrate(const driver::Model &model, const driver::BuildOptions &options,
          const std::string &bytes, const std::vector<std::string> &tensors,
          const std::vector<Sample> &samples, const std::string &method,
          std::map<std::string, double> &amax, raw_ostream &diagnostics) {
  auto fail = [&](const std::string &message) {
    diagnostics << "error: int8 calibration: " << message << "\n";
    return false;
  };
  std::string error, tapped;
  std::vector<std::string> inputs = quant::graphInputs(bytes), taps;
  for (const std::string &t : tensors)
    if (!llvm::is_contained(inputs, t))
      taps.push_back(t);
  if (!quant::withOutputs(bytes, taps, tapped, error))
    return fail(error);
  driver::Model m{model.path, StringRef(tapped), std::nullopt, {}};
  driver::SampleRunner runner;
  if (!runner.build(m, options.import, Precision::fp32, {}, {}, diagnostics,
                    error))
    return fail("the f32 host build of '" + model.path +
                "' that calibration runs failed (above)");
  if (runner.engine().inputs().size() != samples.front().size())
    return fail(formatv("the model has {0} runtime inputs; each sample has "
                        "{1} files",
                        runner.engine().inputs().size(), samples.front().size())
                    .str());
  Calibrator calibrator(runner, tensors);
  std::map<std::string, Stats> stats;
  raw_ostream *progress = options.progress;
  if (!calibrator.pass(samples, false, stats, progress, error))
    return fail(error);
  if (method != "minmax") {
    for (auto &[name, s] : stats)
      s.histogram.emplace(s.amax);
    if (!calibrator.pass(samples, true, stats, progress, error))
      return fail(error);
  }
  for (const std::string &t : tensors) {
    auto it = stats.find(t);
    if (it == stats.end())
      return fail("tensor '" + t + "' was not seen by the calibration run");
    // Graph inputs keep their whole range whatever the method: it is the
    // preprocessing's, and what is clipped there no layer recovers (an
    // image's background, one value for half the pixels, draws entropy's
    // threshold onto it: the Fashion-MNIST CNN lost 7 points).
    amax[t] = llvm::is_contained(inputs, t) ? it->second.amax
                                            : amaxFor(method, it->second);
  }
  return true;
}

/// A host build of `bytes` in f32, run on every sample: [sample][output].
static bool runSamples(const driver::Model &model,
                       const driver::BuildOptions &options, StringRef bytes,
                       const std::vector<Sample> &samples,
                       std::vector<std::vector<std::vector<float>>> &outs,
                       raw_ostream &diagnostics, std::string &error) {
  driver::SampleRunner runner;
  if (!runner.build({model.path, bytes, std::nullopt, {}}, options.import,
                    Precision::fp32, {}, {}, diagnostics, error))
    return false;
  outs.assign(samples.size(), {});
  for (size_t s = 0; s < samples.size(); ++s) {
    std::vector<tools::Tensor> feeds;
    if (!runner.run(samples[s], feeds, error))
      return false;
    for (size_t o = 0; o < runner.engine().outputs().size(); ++o) {
      ArrayRef<float> v = runner.output(o);
      outs[s].emplace_back(v.begin(), v.end());
    }
  }
  return true;
}

/// The largest over outputs of max |got - ref| / max |ref| (OutputError).
static double
scaledError(const std::vector<std::vector<std::vector<float>>> &got,
            const std::vector<std::vector<std::vector<float>>> &ref) {
  double worst = 0;
  for (size_t o = 0; !ref.empty() && o < ref[0].size(); ++o) {
    driver::OutputError e;
    for (size_t s = 0; s < ref.size(); ++s)
      e.add(ref[s][o], got[s][o]);
    worst = std::max(worst, e.scaled());
  }
  return worst;
}

bool driver::buildInt8Plan(const Model &model, const BuildOptions &options,
                           std::vector<uint8_t> &plan, BuildReport &report,
                           raw_ostream &diagnostics) {
  const Int8Options &q = *options.int8;
  auto fail = [&](const std::string &message) {
    diagnostics << "error: " << message << "\n";
    return false;
  };
  for (const std::string &t : options.compile.targets)
    if (t != "host")
      return fail("--precision int8 builds host plans only for now (target '" +
                  t +
                  "'): the int8 tensor-core kernels are not written yet, "
                  "and a GPU plan would run the Q/DQ in f32, slower than "
                  "fp16; build it with --precision fp16 for the GPU");
  if (options.compile.precision != Precision::fp32)
    return fail("--precision int8 keeps the layers it does not quantize in "
                "fp32 on the host");
  if (!options.profiles.empty())
    return fail("--precision int8 with --profile is not supported yet: give "
                "the calibration shapes with --input-shape");
  if (q.calibDir.empty() && q.cachePath.empty())
    return fail("--precision int8 needs calibration data (--calib DIR) or a "
                "calibration cache (--calib-cache FILE)");
  std::string error;
  if (!checkCalibMethod(q.method, error))
    return fail(error);

  // The model's bytes (a file, or in memory) and hash.
  std::unique_ptr<MemoryBuffer> file;
  StringRef bytes;
  if (model.bytes) {
    bytes = *model.bytes;
  } else {
    auto buffer = MemoryBuffer::getFile(model.path);
    if (!buffer)
      return fail("cannot read '" + model.path +
                  "': " + buffer.getError().message());
    file = std::move(*buffer);
    bytes = file->getBuffer();
  }
  std::string original = bytes.str();
  Table table;
  if (plan::Status st = tools::sha256Bytes(original.data(), original.size(),
                                           table.modelSha256);
      !st)
    return fail(st.message());
  std::vector<quant::QuantLayer> layers;
  if (!quant::quantLayers(original, layers, error))
    return fail(model.path + ": " + error);
  if (layers.empty())
    return fail(model.path +
                ": no Conv, Gemm or MatMul to quantize: "
                "--precision int8 would change nothing; build in fp32");
  // --layer-precision PATTERN=fp32: those layers keep f32 inputs.
  std::vector<std::string> keptFp32;
  for (const std::string &pattern : q.keepFp32) {
    Expected<GlobPattern> glob = GlobPattern::create(pattern);
    if (!glob)
      return fail("--layer-precision '" + pattern +
                  "': " + toString(glob.takeError()));
    size_t before = layers.size();
    llvm::erase_if(layers, [&](const quant::QuantLayer &l) {
      if (!glob->match(l.node))
        return false;
      keptFp32.push_back(l.node);
      return true;
    });
    if (layers.size() == before &&
        !llvm::any_of(keptFp32,
                      [&](const std::string &n) { return glob->match(n); })) {
      std::string names;
      for (size_t i = 0; i < std::min<size_t>(layers.size(), 4); ++i)
        names += (i ? ", '" : "'") + layers[i].node + "'";
      return fail("--layer-precision '" + pattern +
                  "' matches no Conv, Gemm or MatMul node (their names: " +
                  names + (layers.size() > 4 ? ", ..." : "") + ")");
    }
  }
  if (layers.empty())
    return fail("--layer-precision keeps every layer in fp32: nothing is "
                "left to quantize");
  std::vector<std::string> tensors;
  for (const quant::QuantLayer &l : layers)
    for (const std::string &a : l.activations)
      if (!llvm::is_contained(tensors, a))
        tensors.push_back(a);

  std::optional<Table> cached;
  if (!q.cachePath.empty() && sys::fs::exists(q.cachePath)) {
    cached.emplace();
    if (!readTable(q.cachePath, *cached, error))
      return fail(error);
    if (cached->modelSha256 != table.modelSha256)
      return fail("calibration cache '" + q.cachePath +
                  "' was made for another model (sha256 " +
                  cached->modelSha256 + "; '" + model.path + "' has " +
                  table.modelSha256 +
                  "): delete it, or give --calib DIR to "
                  "calibrate again");
    if (cached->method != q.method && q.calibDir.empty())
      return fail("calibration cache '" + q.cachePath + "' holds " +
                  cached->method + " ranges, not " + q.method +
                  ": give --calib-method " + cached->method +
                  ", or --calib DIR to calibrate again");
  } else if (q.calibDir.empty()) {
    return fail("calibration cache '" + q.cachePath +
                "' does not exist: give --calib DIR to calibrate and write it");
  }

  std::string source;
  double calibrationSeconds = 0;
  if (q.calibDir.empty()) {
    table = *cached;
    source = "calibration cache " + q.cachePath;
  } else {
    std::vector<Sample> samples;
    if (!calibrationSamples(q.calibDir, quant::graphInputs(original).size(),
                            samples, error) ||
        !calibrationDataHash(q.calibDir, samples, table.dataSha256, error))
      return fail(error);
    table.method = q.method;
    table.samples = samples.size();
    bool fits = cached && cached->method == q.method &&
                cached->dataSha256 == table.dataSha256 &&
                llvm::all_of(tensors, [&](const std::string &t) {
                  return cached->amax.count(t) != 0;
                });
    if (fits) {
      table = *cached;
      source = "calibration cache " + q.cachePath +
               " (made from the same model, data and method)";
    } else {
      auto start = std::chrono::steady_clock::now();
      if (!calibrate(model, options, original, tensors, samples, table.method,
                     table.amax, diagnostics))
        return false;
      calibrationSeconds = std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - start)
                               .count();
      source = formatv("calibrated on {0} sample{1} of {2}", samples.size(),
                       samples.size() == 1 ? "" : "s", q.calibDir)
                   .str();
      if (!q.cachePath.empty()) {
        std::string text = formatv("{0:2}", tableJson(table)).str() + "\n";
        if (plan::Status st = tools::writeOutputFile(
                q.cachePath, text, {{model.path, "input model"}});
            !st)
          return fail("cannot write calibration cache '" + q.cachePath +
                      "': " + st.message());
        source += ", written to " + q.cachePath;
      }
    }
  }

  // --int8-tolerance: sensitivities, then layers back to fp32 until the
  // outputs are close enough.
  double errorAllInt8 = 0, errorFinal = 0;
  std::vector<std::string> toleranceKept;
  char tolText[32];
  std::snprintf(tolText, sizeof(tolText), "%g", q.tolerance);
  if (q.tolerance > 0) {
    std::vector<Sample> samples;
    if (!calibrationSamples(q.calibDir, quant::graphInputs(original).size(),
                            samples, error))
      return fail(error);
    std::vector<std::vector<std::vector<float>>> ref, got;
    if (!runSamples(model, options, original, samples, ref, diagnostics, error))
      return fail("--int8-tolerance: " + error);
    auto errorOf = [&](const std::vector<quant::QuantLayer> &subset,
                       double &err) {
      if (subset.empty()) {
        err = 0;
        return true;
      }
      std::string bytes;
      std::map<std::string, quant::WeightScales> ignored;
      if (!quant::insertQdq(original, subset, table.amax, bytes, ignored,
                            error) ||
          !runSamples(model, options, bytes, samples, got, diagnostics, error))
        return false;
      err = scaledError(got, ref);
      return true;
    };
    std::vector<double> alone(layers.size());
    for (size_t i = 0; i < layers.size(); ++i) {
      if (options.progress)
        *options.progress << formatv("int8 tolerance: layer {0}/{1} alone\n",
                                     i + 1, layers.size());
      if (!errorOf({layers[i]}, alone[i]))
        return fail("--int8-tolerance: " + error);
    }
    if (!errorOf(layers, errorAllInt8))
      return fail("--int8-tolerance: " + error);
    errorFinal = errorAllInt8;
    std::vector<size_t> order(layers.size());
    for (size_t i = 0; i < order.size(); ++i)
      order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return alone[a] > alone[b]; });
    std::set<size_t> back;
    auto stillInt8 = [&] {
      std::vector<quant::QuantLayer> rest;
      for (size_t j = 0; j < layers.size(); ++j)
        if (!back.count(j))
          rest.push_back(layers[j]);
      return rest;
    };
    for (size_t i : order) {
      if (errorFinal <= q.tolerance)
        break;
      back.insert(i);
      double before = errorFinal;
      if (!errorOf(stillInt8(), errorFinal))
        return fail("--int8-tolerance: " + error);
      toleranceKept.push_back(
          formatv("{0}: int8 alone {1:e2}; the model's error {2:e2} -> {3:e2}",
                  layers[i].node, alone[i], before, errorFinal)
              .str());
      keptFp32.push_back(layers[i].node);
    }
    if (back.size() == layers.size())
      return fail(formatv("--int8-tolerance {0}: even one int8 layer puts the "
                          "outputs beyond it (the least sensitive alone: "
                          "{1:e2}); build in fp32, or allow more",
                          tolText, alone[order.back()])
                      .str());
    layers = stillInt8();
  }

  // The Q/DQ model, built as any explicitly quantized model.
  std::string quantized;
  std::map<std::string, quant::WeightScales> weights;
  if (!quant::insertQdq(original, layers, table.amax, quantized, weights,
                        error))
    return fail(model.path + ": " + error +
                (q.calibDir.empty() ? " (the calibration cache misses it: "
                                      "calibrate again with --calib DIR)"
                                    : ""));
  if (!q.qdqModelPath.empty())
    if (plan::Status st = tools::writeOutputFile(
            q.qdqModelPath, quantized, {{model.path, "input model"}});
        !st)
      return fail("cannot write the Q/DQ model '" + q.qdqModelPath +
                  "': " + st.message());
  std::string tableText = formatv("{0}", tableJson(table)).str();
  std::string tableHash;
  if (plan::Status st =
          tools::sha256Bytes(tableText.data(), tableText.size(), tableHash);
      !st)
    return fail(st.message());
  Model qdq{model.path, StringRef(quantized), table.modelSha256, {}};
  qdq.extraProvenance = model.extraProvenance;
  qdq.extraProvenance.emplace_back("int8.method", table.method);
  qdq.extraProvenance.emplace_back("int8.calibration_sha256", tableHash);
  qdq.extraProvenance.emplace_back("int8.data_sha256", table.dataSha256);
  if (!q.keepFp32.empty())
    qdq.extraProvenance.emplace_back("int8.layer_precision",
                                     join(q.keepFp32, ",") + "=fp32");
  if (q.tolerance > 0)
    qdq.extraProvenance.emplace_back(
        "int8.tolerance",
        formatv("{0} ({1} layers kept in fp32)", tolText, toleranceKept.size())
            .str());
  BuildOptions rest = options;
  rest.int8.reset();
  if (!buildPlan(qdq, rest, plan, report, diagnostics))
    return false;
  if (calibrationSeconds > 0)
    report.stages.insert(report.stages.begin(),
                         {"int8 calibration", calibrationSeconds});

  BuildReport::Int8Summary summary{table.method, source, {}, keptFp32};
  summary.tolerance = q.tolerance;
  summary.errorAllInt8 = errorAllInt8;
  summary.errorFinal = errorFinal;
  summary.toleranceKept = toleranceKept;
  for (const quant::QuantLayer &l : layers) {
    BuildReport::Int8Layer row{l.node, l.op, {}, l.weight, 0, 0, 0};
    for (const std::string &a : l.activations)
      row.activations.emplace_back(a, table.amax.at(a));
    if (auto w = weights.find(l.weight); w != weights.end()) {
      const auto &sc = w->second.scales;
      row.weightChannels = int64_t(sc.size());
      row.minWeightScale = *std::min_element(sc.begin(), sc.end());
      row.maxWeightScale = *std::max_element(sc.begin(), sc.end());
    }
    summary.layers.push_back(std::move(row));
  }
  report.int8 = std::move(summary);
  return true;
}
