//===- Tensor.h - Host tensors of the tools: values, random data, compare -===//
//
// kiln-run, kiln-tune and their tests hold plan inputs and outputs as dense,
// C-ordered, little-endian byte arrays. Only little-endian hosts are
// supported (as by the runtime).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_COMMON_TENSOR_H
#define KILN_TOOLS_COMMON_TENSOR_H

#include "kiln/Plan/PlanIO.h"
#include "kiln/Plan/Status.h"

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace kiln::runtime {
struct TensorInfo;
} // namespace kiln::runtime

namespace kiln::tools {

using plan::DType;
using plan::Status;
using plan::StatusCode;

/// A dense, C-ordered, little-endian tensor.
struct Tensor {
  std::string name;
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  /// Product of the shape (1 for scalars); nullopt on overflow or negatives.
  std::optional<uint64_t> numElements() const;
};

/// "[2, 3]".
std::string shapeToString(const std::vector<int64_t> &shape);

/// Conversions for 16- and 8-bit floats (round to nearest even).
float halfToFloat(uint16_t h);
uint16_t floatToHalf(float f);
float bf16ToFloat(uint16_t b);
uint16_t floatToBf16(float f);
float f8e4m3fnToFloat(uint8_t v);
float f8e5m2ToFloat(uint8_t v);

/// Element `i` as a double (integers exactly up to 2^53).
double elementAsDouble(const Tensor &t, uint64_t i);

/// Fills `t.data` for its dtype and shape: floats uniform in [-1, 1),
/// integers uniform in [0, 10), bools 0/1. Deterministic for a given `rng`
/// state on every platform.
void fillRandom(Tensor &t, std::mt19937_64 &rng);

/// Whether `bytes` of host memory for `what` ("input 'x' (f32 [2, 3])")
/// can be allocated: refused, with the size and the machine's memory in the
/// message, beyond the physical memory (a vector of that size would throw
/// std::bad_alloc, or be killed by the OOM killer).
Status checkHostBytes(const std::string &what, uint64_t bytes);
/// "24.0 TiB".
std::string byteSizeText(uint64_t bytes);

/// The inputs kiln-run and kiln-tune feed a plan without input files: for
/// each of `infos` in order, its build-time fixed value, else fillRandom
/// from one generator seeded with `seed` (so both tools make the same
/// data). False with `error` set for an input of dynamic shape.
bool makeSeededInputs(const std::vector<runtime::TensorInfo> &infos,
                      uint64_t seed, std::vector<Tensor> &out,
                      std::string &error);

/// Element-wise comparison |actual - expected| <= atol + rtol * |expected|;
/// NaN matches only NaN, equal infinities match.
struct CompareResult {
  uint64_t elements = 0;
  uint64_t mismatches = 0;
  uint64_t nanMismatches = 0; ///< among mismatches: exactly one side NaN
  double maxAbsErr = 0;       ///< over elements where neither side is NaN
  double maxRelErr = 0;
  int64_t firstMismatch = -1; ///< flat index, -1 if none
  std::string error;          ///< dtype/shape mismatch: no element compared
  bool ok() const { return error.empty() && mismatches == 0; }
};
CompareResult compareTensors(const Tensor &actual, const Tensor &expected,
                             double rtol, double atol);

} // namespace kiln::tools

#endif // KILN_TOOLS_COMMON_TENSOR_H
