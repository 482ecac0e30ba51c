//===- VariantCheck.cpp - Which tactic variants compute wrong numbers -----===//

#include "VariantCheck.h"

#include <algorithm>
#include <cassert>
#include <cmath>

using namespace kiln;
using namespace kiln::tune;

OutputCheck
kiln::tune::checkOutputs(const std::vector<tools::Tensor> &actual,
                         const std::vector<tools::Tensor> &reference,
                         double rtol, double atol) {
  OutputCheck check;
  if (actual.size() != reference.size()) {
    check.error = std::to_string(actual.size()) + " outputs, the reference " +
                  std::to_string(reference.size());
    return check;
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    // The absolute tolerance grows with the output's scale: reduced-precision
    // plans differ by a few ulps of their largest values wherever tactics
    // sum in another order (ResNet-50's fp16 logits up to 80 differ by
    // 0.03 between tactics, near zero as much as elsewhere), while a wrong
    // kernel is off by the scale itself.
    double scale = 0;
    uint64_t n = reference[i].numElements().value_or(0);
    if (n * plan::dtypeSize(reference[i].dtype) > reference[i].data.size())
      n = 0; // compareTensors reports the size error
    for (uint64_t e = 0; e < n; ++e) {
      double v = std::fabs(tools::elementAsDouble(reference[i], e));
      if (std::isfinite(v))
        scale = std::max(scale, v);
    }
    tools::CompareResult r = tools::compareTensors(actual[i], reference[i],
                                                   rtol, atol + rtol * scale);
    if (!r.error.empty()) {
      check.error = "output '" + reference[i].name + "': " + r.error;
      check.output = reference[i].name;
      return check;
    }
    check.elements += r.elements;
    check.mismatches += r.mismatches;
    check.nanMismatches += r.nanMismatches;
    // std::max would keep a NaN first operand; compareTensors gives none.
    check.maxAbsErr = std::max(check.maxAbsErr, r.maxAbsErr);
    if (!r.ok() && check.output.empty())
      check.output = reference[i].name;
  }
  return check;
}

Verdict kiln::tune::pinMismatch(const std::vector<OutputCheck> &alone) {
  Verdict verdict;
  for (size_t i = 0; i < alone.size(); ++i)
    if (!alone[i].ok())
      verdict.rejected.push_back(i);
  if (verdict.rejected.empty() && !alone.empty()) {
    // Each is right alone, wrong together (errors that add up beyond the
    // tolerance, or variants that disagree on a layout between them):
    // selecting them together is what kiln-tune would do, so none may be.
    verdict.together = true;
    for (size_t i = 0; i < alone.size(); ++i)
      verdict.rejected.push_back(i);
  }
  return verdict;
}

VariantScreen::VariantScreen(std::vector<size_t> variantCounts)
    : counts_(std::move(variantCounts)) {
  for (size_t count : counts_) {
    assert(count > 0 && "a choice has at least one variant");
    rejected_.emplace_back(count, false);
  }
}

std::vector<int64_t> VariantScreen::set(size_t v) const {
  std::vector<int64_t> variants(counts_.size());
  for (size_t c = 0; c < counts_.size(); ++c) {
    size_t u = std::min(v, counts_[c] - 1);
    while (u > 0 && rejected_[c][u])
      --u;
    variants[c] = int64_t(u);
  }
  return variants;
}

std::vector<size_t> VariantScreen::suspects(size_t v) const {
  std::vector<size_t> list;
  if (v == 0)
    return list;
  std::vector<int64_t> variants = set(v);
  for (size_t c = 0; c < counts_.size(); ++c)
    if (variants[c] == int64_t(v))
      list.push_back(c);
  return list;
}

std::vector<int64_t> VariantScreen::alone(size_t c, size_t v) const {
  assert(v < counts_[c] && "choice has no such variant");
  std::vector<int64_t> variants(counts_.size(), 0);
  variants[c] = int64_t(v);
  return variants;
}

void VariantScreen::reject(size_t v, const std::vector<size_t> &suspects,
                           const std::vector<OutputCheck> &alone,
                           const Verdict &verdict,
                           const OutputCheck &together) {
  assert(v > 0 && "variant 0 is the reference");
  assert(alone.size() == suspects.size() && "one check per suspect");
  for (size_t i : verdict.rejected) {
    size_t c = suspects[i];
    if (rejected_[c][v])
      continue;
    rejected_[c][v] = true;
    Rejection r;
    r.choice = c;
    r.variant = v;
    r.check = verdict.together ? together : alone[i];
    r.together = verdict.together;
    rejections_.push_back(r);
  }
}

size_t kiln::tune::fastestAccepted(const std::vector<double> &ms,
                                   const std::vector<bool> &rejected) {
  assert(!ms.empty() && ms.size() == rejected.size() && !rejected[0] &&
         "variant 0 is never rejected");
  size_t best = 0;
  for (size_t v = 1; v < ms.size(); ++v)
    if (!rejected[v] && ms[v] < ms[best])
      best = v;
  return best;
}
