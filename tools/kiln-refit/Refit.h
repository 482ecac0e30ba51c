//===- Refit.h - Put an ONNX model's tensors back into a stripped plan ----===//
#ifndef KILN_TOOLS_KILN_REFIT_REFIT_H
#define KILN_TOOLS_KILN_REFIT_REFIT_H

#include "kiln/Plan/PlanIO.h"

#include <string>
#include <vector>

namespace kiln::refit {

struct RefitResult {
  /// Tensors in the model, and those whose size equals a stripped buffer's
  /// (the only ones read and hashed).
  size_t tensors = 0;
  size_t candidates = 0;
  /// Stripped buffers filled, with the tensor that matched.
  std::vector<std::pair<uint32_t, std::string>> filled;
  /// Stripped buffers no tensor matched.
  std::vector<uint32_t> missing;
};

/// Reads every tensor of the ONNX model at `onnxPath` (initializers and
/// Constant values, external data next to the model) and fills each unfilled
/// stripped buffer of `writer` whose size and XXH64 a tensor matches. Missing
/// matches are not an error here (see `result.missing`); unreadable or
/// malformed models are.
plan::Status refitFromOnnx(const std::string &onnxPath,
                           plan::PlanWriter &writer, RefitResult &result);

} // namespace kiln::refit

#endif // KILN_TOOLS_KILN_REFIT_REFIT_H
