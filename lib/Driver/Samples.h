//===- Samples.h - a host build of a model run over sample files -*- C++
//-*-===//
//
// What int8 calibration, --int8-tolerance, the fp16 range analysis and
// --validate share: the model built for kiln's host target (optionally with
// every node's values tapped), loaded with one context, and run on the
// samples of a --calib-style folder.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_DRIVER_SAMPLES_H
#define KILN_LIB_DRIVER_SAMPLES_H

#include "kiln/Driver.h"
#include "kiln/Runtime/Runtime.h"
#include "tools/common/TensorFile.h"

#include "llvm/ADT/ArrayRef.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln::driver {

/// One output's error against a reference over samples: the largest |ref|
/// and |got - ref|; a non-finite `got` where `ref` is finite makes it
/// infinite (positions where both are non-finite agree).
struct OutputError {
  double maxAbsError = 0, maxAbsReference = 0;
  bool nonFinite = false;
  void add(llvm::ArrayRef<float> ref, llvm::ArrayRef<float> got);
  /// maxAbsError / maxAbsReference; infinity when non-finite.
  double scaled() const;
};

class SampleRunner {
public:
  /// Builds `model` for the host in `precision` (with `ranges` for fp16
  /// islands, `taps` node globs as extra outputs) and loads it. False with
  /// `error` (the build's own diagnostics went to `diagnostics`).
  bool build(const Model &model, const onnx_import::ImportOptions &import,
             Precision precision, const std::vector<std::string> &ranges,
             const std::vector<std::string> &taps,
             llvm::raw_ostream &diagnostics, std::string &error);

  /// Reads the sample's files (one per input, in order), checks them
  /// against the inputs, binds them and runs. `feeds` keeps the inputs.
  bool run(const std::vector<std::string> &files,
           std::vector<tools::Tensor> &feeds, std::string &error);

  /// Output `o` after run() (empty for outputs that are not f32).
  llvm::ArrayRef<float> output(size_t o) const;

  const runtime::Engine &engine() const { return *engine_; }
  /// Outputs the taps added (the last ones).
  int64_t taps() const { return taps_; }

private:
  std::unique_ptr<runtime::Engine> engine_;
  std::unique_ptr<runtime::ExecutionContext> context_;
  int64_t taps_ = 0;
};

} // namespace kiln::driver

#endif // KILN_LIB_DRIVER_SAMPLES_H
