//===- Samples.cpp - a host build of a model run over sample files --------===//
#include "Samples.h"

#include "kiln/Plan/PlanIO.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace llvm;
using namespace kiln;
using namespace kiln::driver;

bool SampleRunner::build(const Model &model,
                         const onnx_import::ImportOptions &import,
                         Precision precision,
                         const std::vector<std::string> &ranges,
                         const std::vector<std::string> &taps,
                         raw_ostream &diagnostics, std::string &error) {
  BuildOptions b;
  b.import = import;
  b.compile.targets = {"host"};
  b.compile.precision = precision;
  b.compile.precisionRanges = ranges;
  b.compile.tapNodes = taps;
  std::vector<uint8_t> bytes;
  BuildReport report;
  if (!buildPlan(model, b, bytes, report, diagnostics)) {
    error = "the " + stringify(precision).str() + " host build of '" +
            model.path + "' failed (above)";
    return false;
  }
  taps_ = report.taps;
  runtime::EngineOptions eo;
  eo.device = runtime::DeviceKind::Host;
  plan::Status st =
      runtime::Engine::loadMemory(bytes.data(), bytes.size(), eo, &engine_);
  if (st)
    st = engine_->createContext(&context_);
  if (!st)
    error = st.message();
  return bool(st);
}

bool SampleRunner::run(const std::vector<std::string> &files,
                       std::vector<tools::Tensor> &feeds, std::string &error) {
  const auto &inputs = engine_->inputs();
  if (files.size() != inputs.size()) {
    error = formatv("the model has {0} runtime inputs; the sample has {1} "
                    "files",
                    inputs.size(), files.size())
                .str();
    return false;
  }
  feeds.assign(inputs.size(), {});
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string &file = files[i];
    if (plan::Status st = tools::readTensorFile(file, feeds[i]); !st) {
      error = st.message();
      return false;
    }
    if (feeds[i].dtype != inputs[i].dtype ||
        feeds[i].shape != inputs[i].shape) {
      error = formatv("calibration sample '{0}' is {1} {2}; input '{3}' is "
                      "{4} {5}",
                      file, plan::dtypeName(feeds[i].dtype),
                      tools::shapeToString(feeds[i].shape), inputs[i].name,
                      plan::dtypeName(inputs[i].dtype),
                      tools::shapeToString(inputs[i].shape))
                  .str();
      return false;
    }
    if (plan::Status st =
            context_->setInput(i, feeds[i].data.data(), feeds[i].data.size());
        !st) {
      error = "calibration sample '" + file + "': " + st.message();
      return false;
    }
  }
  if (plan::Status st = context_->run(); !st) {
    error = st.message();
    return false;
  }
  return true;
}

ArrayRef<float> SampleRunner::output(size_t o) const {
  if (engine_->outputs()[o].dtype != plan::DType::f32)
    return {};
  const void *data = nullptr;
  size_t bytes = 0;
  if (!context_->getOutput(o, &data, &bytes))
    return {};
  return ArrayRef<float>(static_cast<const float *>(data),
                         bytes / sizeof(float));
}

void OutputError::add(ArrayRef<float> ref, ArrayRef<float> got) {
  for (size_t i = 0; i < ref.size() && i < got.size(); ++i) {
    maxAbsReference = std::max(maxAbsReference, double(std::fabs(ref[i])));
    if (!std::isfinite(got[i]) && std::isfinite(ref[i]))
      nonFinite = true;
    else if (std::isfinite(got[i]))
      maxAbsError = std::max(maxAbsError, double(std::fabs(got[i] - ref[i])));
  }
}

double OutputError::scaled() const {
  return nonFinite ? INFINITY : maxAbsError / std::max(maxAbsReference, 1e-30);
}
