//===- VariantCheck.h - Which tactic variants compute wrong numbers -------===//
//
// kiln-tune compares the outputs of every variant set with those of variant
// set 0 (the cost model's plan). A variant set changes every choice at once,
// so a mismatch is pinned on single choices by running them alone; this is
// the bookkeeping of that, without the GPU, so that it can be unit tested.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILNTUNE_VARIANTCHECK_H
#define KILN_TOOLS_KILNTUNE_VARIANTCHECK_H

#include "tools/common/Tensor.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::tune {

/// How one run's outputs compare with the reference run's.
struct OutputCheck {
  uint64_t elements = 0;      ///< compared, over all outputs
  uint64_t mismatches = 0;    ///< over all outputs
  uint64_t nanMismatches = 0; ///< among them: exactly one side NaN
  double maxAbsErr = 0;       ///< over all outputs; elements without NaN
  std::string output;         ///< the first output that differs
  std::string error;          ///< dtype, shape or count differs
  bool ok() const { return error.empty() && mismatches == 0; }
};

/// Compares output i of `actual` with output i of `reference` element-wise:
/// |a - b| <= atol + rtol * (|b| + max |reference i|) (tools::compareTensors
/// with the absolute tolerance scaled by the output's largest magnitude),
/// NaN matches only NaN.
OutputCheck checkOutputs(const std::vector<tools::Tensor> &actual,
                         const std::vector<tools::Tensor> &reference,
                         double rtol, double atol);

/// What a mismatching variant set is pinned on, given the check of each of
/// its suspects run alone (see VariantScreen::suspects).
struct Verdict {
  std::vector<size_t> rejected; ///< indices into the suspects
  /// No suspect mismatches alone, yet the set does: all are rejected, so
  /// that the combination can never be selected.
  bool together = false;
};
Verdict pinMismatch(const std::vector<OutputCheck> &alone);

/// One rejected variant.
struct Rejection {
  size_t choice = 0, variant = 0;
  OutputCheck check; ///< alone, or of the whole set when `together`
  bool together = false;
};

/// Which variants of each choice were rejected, and what each choice runs
/// in a variant set.
class VariantScreen {
public:
  /// `variantCounts[c]`: how many variants choice c has (at least 1).
  explicit VariantScreen(std::vector<size_t> variantCounts);

  /// Variant set v: every choice runs its variant v; a choice with fewer
  /// variants, or whose variant v was rejected, runs its highest variant
  /// below that was not (one more sample of it; variant 0, the reference,
  /// is never rejected).
  std::vector<int64_t> set(size_t v) const;
  /// The choices that run their own variant v in set(v), for v > 0: a
  /// mismatch of set(v) is caused by one (or several) of them.
  std::vector<size_t> suspects(size_t v) const;
  /// Choice c at variant v, every other one at variant 0.
  std::vector<int64_t> alone(size_t c, size_t v) const;

  /// Records `verdict` for the mismatch of set(v): `alone[i]` is suspect
  /// i's check on its own, `together` the whole set's check.
  void reject(size_t v, const std::vector<size_t> &suspects,
              const std::vector<OutputCheck> &alone, const Verdict &verdict,
              const OutputCheck &together);
  bool rejected(size_t c, size_t v) const { return rejected_[c][v]; }
  /// Per variant of choice c: rejected or not.
  const std::vector<bool> &rejectedOf(size_t c) const { return rejected_[c]; }
  /// In the order they were found.
  const std::vector<Rejection> &rejections() const { return rejections_; }

private:
  std::vector<size_t> counts_;
  std::vector<std::vector<bool>> rejected_;
  std::vector<Rejection> rejections_;
};

/// The index of the lowest of `ms` whose variant is not `rejected` (ties:
/// the lower index). Variant 0 is never rejected, so there is one.
size_t fastestAccepted(const std::vector<double> &ms,
                       const std::vector<bool> &rejected);

} // namespace kiln::tune

#endif // KILN_TOOLS_KILNTUNE_VARIANTCHECK_H
