//===- Int8.h - kilnc --precision int8 ---------------------------*- C++
//-*-===//
#ifndef KILN_LIB_DRIVER_INT8_H
#define KILN_LIB_DRIVER_INT8_H

#include "kiln/Driver.h"

namespace kiln::driver {

/// The calibration samples of `dir`: one folder per sample with a .pb or
/// .npy file per input (ONNX test-data folders), or, for a one-input model,
/// one file per sample; each sample's files sorted by name. False with
/// `error` saying which layout was expected.
bool calibrationSamples(const std::string &dir, size_t numInputs,
                        std::vector<std::vector<std::string>> &samples,
                        std::string &error);

/// SHA-256 of the samples' file names (relative to `dir`) and contents.
bool calibrationDataHash(const std::string &dir,
                         const std::vector<std::vector<std::string>> &samples,
                         std::string &hex, std::string &error);

/// buildPlan with BuildOptions::rangeCalibDir (fp16): the ranges of every
/// node's values over the samples (an f32 host build with every value
/// tapped), then the build with the ops near f16's limit kept in f32.
bool buildWithRanges(const Model &model, const BuildOptions &options,
                     std::vector<uint8_t> &plan, BuildReport &report,
                     llvm::raw_ostream &diagnostics);

/// BuildOptions::validateDir: the reduced-precision host build (with the
/// compile options' ranges) against the f32 one over the samples; false
/// (with the worst output and the first diverging node) beyond the
/// tolerance. Fills report.validation.
bool validateReduced(const Model &model, const BuildOptions &options,
                     BuildReport &report, llvm::raw_ostream &diagnostics);

/// buildPlan with BuildOptions::int8: calibrates (or reads the cache),
/// inserts the Q/DQ pairs and builds the quantized model.
bool buildInt8Plan(const Model &model, const BuildOptions &options,
                   std::vector<uint8_t> &plan, BuildReport &report,
                   llvm::raw_ostream &diagnostics);

} // namespace kiln::driver

#endif // KILN_LIB_DRIVER_INT8_H
