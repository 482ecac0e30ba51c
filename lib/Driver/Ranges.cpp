//===- Ranges.cpp - kilnc --precision fp16 --calib: fp32 islands ----------===//
//
// f16 holds values up to 65504; a model whose activations reach that (an
// unnormalized sum, a squared norm, a large logit) gives infinities and then
// wrong numbers in fp16, without any error. With calibration samples, the
// model is first built for kiln's host target in f32 with every node's values
// as extra outputs (kiln-tap-values) and run over the samples; the largest
// |x| of each node's values then goes to kiln-convert-precision, which keeps
// the ops that touch values near the limit in f32 (fp32 islands) and lists
// them in the build report.
//
//===----------------------------------------------------------------------===//
#include "Int8.h"
#include "Samples.h"

#include "kiln/Plan/PlanIO.h"
#include "kiln/Quant/Calibration.h"
#include "kiln/Runtime/Runtime.h"
#include "tools/common/TensorFile.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <map>

using namespace llvm;
using namespace kiln;

/// The node a tap output belongs to: "<node>" or "<node>#<k>".
static std::string tapNode(const std::string &output) {
  size_t hash = output.rfind('#');
  if (hash == std::string::npos || hash + 1 == output.size() ||
      output.find_first_not_of("0123456789", hash + 1) != std::string::npos)
    return output;
  return output.substr(0, hash);
}

/// The largest |x| per node (and graph input) over the samples of `dir`.
static bool rangeNodes(const driver::Model &model,
                       const driver::BuildOptions &options,
                       const std::string &dir,
                       std::vector<std::vector<std::string>> &samples,
                       std::map<std::string, double> &ranges,
                       raw_ostream &diagnostics, std::string &error) {
  driver::SampleRunner host;
  if (!host.build(model, options.import, Precision::fp32, {}, {"*"},
                  diagnostics, error))
    return false;
  const auto &inputs = host.engine().inputs();
  const auto &outputs = host.engine().outputs();
  if (!driver::calibrationSamples(dir, inputs.size(), samples, error))
    return false;
  for (size_t s = 0; s < samples.size(); ++s) {
    if (options.progress && (s + 1 == samples.size() || (s + 1) % 10 == 0))
      *options.progress << formatv("fp16 ranges: sample {0}/{1}\n", s + 1,
                                   samples.size());
    std::vector<tools::Tensor> feeds;
    if (!host.run(samples[s], feeds, error)) {
      error = "sample " + std::to_string(s + 1) + ": " + error;
      return false;
    }
    std::string why;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].dtype == plan::DType::f32 &&
          !quant::foldAbsMax(
              reinterpret_cast<const float *>(feeds[i].data.data()),
              feeds[i].data.size() / sizeof(float), ranges[inputs[i].name],
              why)) {
        error = "calibration sample '" + samples[s][i] + "': " + why;
        return false;
      }
    for (size_t o = 0; o < outputs.size(); ++o) {
      ArrayRef<float> v = host.output(o);
      if (v.empty())
        continue;
      if (!quant::foldAbsMax(v.data(), v.size(),
                             ranges[tapNode(outputs[o].name)], why)) {
        // NaN or infinity in f32 already: no precision choice helps.
        error = formatv("node '{0}' on sample {1}: {2} (in f32: the model "
                        "itself is out of range there)",
                        tapNode(outputs[o].name), s + 1, why)
                    .str();
        return false;
      }
    }
  }
  return true;
}

bool driver::validateReduced(const Model &model, const BuildOptions &options,
                             BuildReport &report, raw_ostream &diagnostics) {
  auto fail = [&](const std::string &message) {
    diagnostics << "error: --validate: " << message << "\n";
    return false;
  };
  std::string error;
  SampleRunner ref, red;
  if (!ref.build(model, options.import, Precision::fp32, {}, {"*"}, diagnostics,
                 error) ||
      !red.build(model, options.import, options.compile.precision,
                 options.compile.precisionRanges, {"*"}, diagnostics, error))
    return fail(error);
  std::vector<std::vector<std::string>> samples;
  if (!calibrationSamples(options.validateDir, ref.engine().inputs().size(),
                          samples, error))
    return fail(error);
  const auto &outputs = ref.engine().outputs();
  size_t modelOutputs = outputs.size() - size_t(ref.taps());
  // Per output (model outputs, then taps in the model's order), over the
  // samples.
  std::vector<OutputError> errors(outputs.size());
  for (size_t s = 0; s < samples.size(); ++s) {
    if (options.progress && (s + 1 == samples.size() || (s + 1) % 10 == 0))
      *options.progress << formatv("validation: sample {0}/{1}\n", s + 1,
                                   samples.size());
    std::vector<tools::Tensor> feeds;
    if (!ref.run(samples[s], feeds, error) ||
        !red.run(samples[s], feeds, error))
      return fail("sample " + std::to_string(s + 1) + ": " + error);
    for (size_t o = 0; o < outputs.size(); ++o) {
      std::optional<size_t> k = red.engine().findOutput(outputs[o].name);
      if (!k)
        continue;
      ArrayRef<float> a = ref.output(o), b = red.output(*k);
      if (a.size() == b.size())
        errors[o].add(a, b);
    }
  }
  auto scaled = [&](size_t o) { return errors[o].scaled(); };
  BuildReport::Validation v;
  v.samples = int64_t(samples.size());
  v.tolerance = options.validateTolerance;
  for (size_t o = 0; o < modelOutputs; ++o)
    v.outputs.push_back({outputs[o].name, errors[o].maxAbsError,
                         errors[o].maxAbsReference, scaled(o)});
  // The first node (in the model's order) beyond the tolerance: where the
  // reduced precision first goes wrong.
  for (size_t o = modelOutputs; o < outputs.size(); ++o)
    if (scaled(o) > options.validateTolerance) {
      v.firstNode = tapNode(outputs[o].name);
      v.firstNodeError = scaled(o);
      break;
    }
  bool ok =
      llvm::all_of(v.outputs, [&](const BuildReport::Validation::Output &out) {
        return out.scaledError <= options.validateTolerance;
      });
  v.passed = ok;
  report.validation = v;
  if (ok)
    return true;
  std::string worst;
  double w = -1;
  for (const BuildReport::Validation::Output &out : v.outputs)
    if (out.scaledError > w) {
      w = out.scaledError;
      worst = out.name;
    }
  return fail(formatv("the {0} plan's output '{1}' is off by {2} of its "
                      "largest value on the samples of {3} (tolerance {4}); "
                      "the first node beyond the tolerance is '{5}' ({6}). "
                      "No plan written: give --calib DIR to keep the ops "
                      "near f16's limit in f32, or build in fp32",
                      stringify(options.compile.precision), worst,
                      std::isinf(w) ? std::string("inf/NaN")
                                    : formatv("{0:e2}", w).str(),
                      options.validateDir, options.validateTolerance,
                      v.firstNode.empty() ? "none" : v.firstNode,
                      std::isinf(v.firstNodeError)
                          ? std::string("inf/NaN")
                          : formatv("{0:e2}", v.firstNodeError).str())
                  .str());
}

bool driver::buildWithRanges(const Model &model, const BuildOptions &options,
                             std::vector<uint8_t> &plan, BuildReport &report,
                             raw_ostream &diagnostics) {
  auto fail = [&](const std::string &message) {
    diagnostics << "error: " << message << "\n";
    return false;
  };
  if (options.compile.precision != Precision::fp16)
    return fail("--calib ranges the model's values for --precision fp16 "
                "(bf16 has f32's range; fp32 needs none)");
  if (!options.profiles.empty())
    return fail("--calib with --profile is not supported yet: give the "
                "calibration shapes with --input-shape");
  std::vector<std::vector<std::string>> samples;
  std::map<std::string, double> ranges;
  std::string error;
  if (!rangeNodes(model, options, options.rangeCalibDir, samples, ranges,
                  diagnostics, error))
    return fail("fp16 range analysis: " + error);
  std::string dataSha256;
  if (!calibrationDataHash(options.rangeCalibDir, samples, dataSha256, error))
    return fail(error);
  BuildOptions build = options;
  build.rangeCalibDir.clear();
  for (const auto &[node, amax] : ranges)
    build.compile.precisionRanges.push_back(node + "=" +
                                            formatv("{0:e}", amax).str());
  Model m = model;
  m.extraProvenance.push_back({"fp16.calibration_data_sha256", dataSha256});
  m.extraProvenance.push_back(
      {"fp16.calibration_samples", std::to_string(samples.size())});
  if (!buildPlan(m, build, plan, report, diagnostics))
    return false;
  report.fp16RangeSamples = int64_t(samples.size());
  return true;
}
