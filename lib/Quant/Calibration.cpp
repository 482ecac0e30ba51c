//===- Calibration.cpp - INT8 calibration statistics ----------------------===//
//
// include/kiln/Quant/Calibration.h. The methods follow NVIDIA's
// pytorch-quantization histogram calibrator (entropy, percentile, mse over
// 2048 bins, levels from bin 128 on), which TensorRT's entropy calibrator
// defined; test/unit/quant/calibration_reference.py is their numpy
// reference.
//
//===----------------------------------------------------------------------===//
#include "kiln/Quant/Calibration.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace kiln::quant;

static std::string nonFinite(size_t at, float v) {
  return "calibration value " + std::to_string(at) + " is " +
         (std::isnan(v) ? "NaN" : v > 0 ? "+inf" : "-inf") +
         ": calibration data must be finite (check the inputs, or the layer "
         "that produced it in fp32)";
}

bool kiln::quant::foldAbsMax(const float *data, size_t n, double &amax,
                             std::string &error) {
  double m = amax;
  for (size_t i = 0; i < n; ++i) {
    if (!std::isfinite(data[i])) {
      error = nonFinite(i, data[i]);
      return false;
    }
    m = std::max(m, std::fabs(double(data[i])));
  }
  amax = m;
  return true;
}

AbsHistogram::AbsHistogram(double range, size_t bins)
    : range_(range), bins_(std::max<size_t>(bins, 1), 0) {}

double AbsHistogram::upperEdge(size_t i) const {
  // numpy.linspace(0, range, bins + 1): k * step, the last edge exact.
  size_t n = bins_.size();
  return i + 1 >= n ? range_ : double(i + 1) * (range_ / double(n));
}

bool AbsHistogram::add(const float *data, size_t n, std::string &error) {
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(data[i])) {
      error = nonFinite(i, data[i]);
      return false;
    }
  const size_t nb = bins_.size();
  for (size_t i = 0; i < n; ++i) {
    double x = std::fabs(double(data[i]));
    size_t at = 0;
    if (range_ > 0) {
      // As numpy.histogram: the index from x * (bins / range), then moved
      // by one where it disagrees with the edges; the last bin is closed.
      double f = x * (double(nb) / range_);
      at = f >= double(nb) ? nb - 1 : size_t(f);
      double lower = at == 0 ? 0.0 : upperEdge(at - 1);
      if (x < lower && at > 0)
        --at;
      else if (at + 1 < nb && x >= upperEdge(at))
        ++at;
    }
    ++bins_[at];
  }
  count_ += n;
  return true;
}

/// sum p log(p / q) over p > 0 of the normalized p and q; infinity where
/// q is 0 and p is not (scipy.stats.entropy).
static double klDivergence(const std::vector<double> &p,
                           const std::vector<double> &q) {
  double sp = 0, sq = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    sp += p[i];
    sq += q[i];
  }
  if (sp <= 0 || sq <= 0)
    return std::numeric_limits<double>::infinity();
  double kl = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    if (p[i] <= 0)
      continue;
    if (q[i] <= 0)
      return std::numeric_limits<double>::infinity();
    double pi = p[i] / sp, qi = q[i] / sq;
    kl += pi * std::log(pi / qi);
  }
  return kl;
}

double kiln::quant::entropyAmax(const AbsHistogram &h, size_t levels) {
  const size_t nb = h.bins().size();
  if (h.count() == 0 || h.range() <= 0 || levels == 0 || nb < levels)
    return h.range();
  // The zero bin counts as its neighbour: after a ReLU it holds most of the
  // values, and its spike would decide the divergence.
  std::vector<uint64_t> bins = h.bins();
  if (nb > 1)
    bins[0] = bins[1];
  double best = std::numeric_limits<double>::infinity();
  size_t bestI = nb;
  std::vector<double> p, q;
  std::vector<double> levelCount(levels);
  std::vector<size_t> levelBins(levels);
  std::vector<int64_t> levelOf;
  for (size_t i = levels; i <= nb; ++i) {
    // Reference: the first i bins, the outliers folded into the last.
    p.assign(bins.begin(), bins.begin() + i);
    for (size_t j = i; j < nb; ++j)
      p[i - 1] += double(bins[j]);
    // Candidate: bin j belongs to level floor(j * levels / i), as
    // numpy.digitize(j, linspace(0, i, levels + 1)) - 1; empty bins stay
    // empty, each level's count is spread evenly over its other bins.
    levelOf.assign(i, -1);
    std::fill(levelCount.begin(), levelCount.end(), 0.0);
    std::fill(levelBins.begin(), levelBins.end(), 0);
    double step = double(i) / double(levels);
    for (size_t j = 0; j < i; ++j) {
      // digitize: the last edge e_k <= j, edges k * step (linspace).
      size_t k = std::min(levels - 1, size_t(double(j) / step));
      while (k + 1 < levels && double(k + 1) * step <= double(j))
        ++k;
      while (k > 0 && double(k) * step > double(j))
        --k;
      levelCount[k] += double(bins[j]);
      if (bins[j] != 0) {
        levelOf[j] = int64_t(k);
        ++levelBins[k];
      }
    }
    q.assign(i, 0.0);
    for (size_t j = 0; j < i; ++j)
      if (levelOf[j] >= 0)
        q[j] = levelCount[size_t(levelOf[j])] /
               double(levelBins[size_t(levelOf[j])]);
    double kl = klDivergence(p, q);
    if (kl <= best) { // the last of equal divergences
      best = kl;
      bestI = i;
    }
  }
  return h.upperEdge(bestI - 1);
}

double kiln::quant::percentileAmax(const AbsHistogram &h, double percentile) {
  if (h.count() == 0 || h.range() <= 0)
    return h.range();
  const std::vector<uint64_t> &bins = h.bins();
  // numpy: searchsorted(cumsum(hist / total), percentile / 100), left side.
  double target = percentile / 100.0, total = double(h.count()), cdf = 0;
  for (size_t i = 0; i < bins.size(); ++i) {
    cdf += double(bins[i]) / total;
    if (cdf >= target)
      return h.upperEdge(i);
  }
  return h.range();
}

double kiln::quant::mseAmax(const AbsHistogram &h, size_t levels) {
  const std::vector<uint64_t> &bins = h.bins();
  const size_t nb = bins.size();
  if (h.count() == 0 || h.range() <= 0 || nb <= levels)
    return h.range();
  double best = std::numeric_limits<double>::infinity();
  size_t bestI = nb - 1;
  for (size_t i = levels; i < nb; ++i) {
    double amax = h.upperEdge(i), scale = amax / 127.0, err = 0;
    for (size_t j = 0; j < nb; ++j) {
      if (!bins[j])
        continue;
      double lower = j == 0 ? 0.0 : h.upperEdge(j - 1);
      double centre = (lower + h.upperEdge(j)) / 2;
      double q = std::min(127.0, std::nearbyint(centre / scale)) * scale;
      err += double(bins[j]) * (centre - q) * (centre - q);
    }
    err /= double(h.count());
    if (err < best) {
      best = err;
      bestI = i;
    }
  }
  return h.upperEdge(bestI);
}

bool kiln::quant::int8Scale(double amax, float &scale, std::string &error) {
  if (!std::isfinite(amax) || amax < 0) {
    error = "cannot make an int8 scale from the range " + std::to_string(amax) +
            ": it must be finite and not negative";
    return false;
  }
  scale = amax == 0 ? 1.0f : float(amax / 127.0);
  if (scale == 0) // below float's smallest: still no division by zero
    scale = std::numeric_limits<float>::denorm_min();
  return true;
}
