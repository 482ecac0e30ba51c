//===- Calibration.h - INT8 calibration statistics -------------*- C++ -*-===//
//
// The math of post-training calibration (issue: INT8 and FP8): a tensor's
// values seen over the calibration data become one symmetric range amax,
// and amax becomes an int8 scale. Methods, as TensorRT's and NVIDIA's
// quantization tools define them:
//   minmax      the largest |x| seen;
//   entropy     the threshold whose 128-level quantization of the |x|
//               histogram loses the least information (KL divergence);
//   percentile  the bin edge below which P % of the |x| fall;
//   mse         the threshold whose int8 fake quantization of the histogram's
//               bin centres has the least mean squared error.
// Histograms are of |x| over [0, range) with `range` the minmax amax of the
// same data (a first pass), 2048 bins by default, binned as numpy's
// histogram does, so that test/unit/quant's numpy reference gives the same
// bins. No MLIR here: the calibration driver runs plans on the host.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_QUANT_CALIBRATION_H
#define KILN_QUANT_CALIBRATION_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::quant {

/// The largest |x| of `data`, folded into `amax` (start from 0). False with
/// `error` naming the first NaN or infinity: calibration data must be
/// finite.
bool foldAbsMax(const float *data, size_t n, double &amax, std::string &error);

/// Counts of |x| in `bins` equal bins over [0, range]; the last bin holds
/// range itself, values above it are clamped into the last bin. A range of
/// 0 (all values zero) puts everything in bin 0 and every method returns 0.
class AbsHistogram {
public:
  explicit AbsHistogram(double range, size_t bins = 2048);

  /// Adds `data` (false with `error` on a NaN or infinity, nothing added).
  bool add(const float *data, size_t n, std::string &error);

  double range() const { return range_; }
  double binWidth() const { return range_ / double(bins_.size()); }
  /// The upper edge of bin `i` (numpy's bin_edges[i + 1]).
  double upperEdge(size_t i) const;
  const std::vector<uint64_t> &bins() const { return bins_; }
  uint64_t count() const { return count_; }

private:
  double range_;
  std::vector<uint64_t> bins_;
  uint64_t count_ = 0;
};

/// TensorRT's entropy calibration: the zero bin counted as bin 1 (its
/// spike after a ReLU would decide), then for every i from `levels` to the
/// number of bins, the first i bins (the rest folded into bin i - 1)
/// against their quantization into `levels` levels (each level's count
/// spread over its non-empty bins); the upper edge of the i with the least
/// KL divergence (the last of equals). The range when the histogram is
/// empty or has fewer bins than levels.
double entropyAmax(const AbsHistogram &h, size_t levels = 128);

/// The upper edge of the first bin at which the cumulative share of the
/// values reaches `percentile` (in (0, 100]); the range when empty.
double percentileAmax(const AbsHistogram &h, double percentile);

/// The upper edge, from bin `levels` on, whose symmetric int8 fake
/// quantization (round half to even, clamp to [-127, 127]) of every bin
/// centre has the least count-weighted squared error; the range when empty.
double mseAmax(const AbsHistogram &h, size_t levels = 128);

/// The symmetric int8 scale for |x| <= amax: amax / 127. A degenerate
/// range (amax 0: an all-zero tensor) gives scale 1, with which every value
/// quantizes to 0 exactly, never a division by zero. False with `error` for
/// a negative, NaN or infinite amax.
bool int8Scale(double amax, float &scale, std::string &error);

} // namespace kiln::quant

#endif // KILN_QUANT_CALIBRATION_H
