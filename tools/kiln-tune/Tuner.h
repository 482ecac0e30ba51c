//===- Tuner.h - kiln-tune: time the variants, select, write back -------===//
#ifndef KILN_TOOLS_KILNTUNE_TUNER_H
#define KILN_TOOLS_KILNTUNE_TUNER_H

#include "TimingCache.h"
#include "VariantCheck.h"

#include "tools/common/Json.h"
#include "tools/common/Tensor.h"

#include "kiln/Plan/PlanIO.h"
#include "kiln/Runtime/Runtime.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::tune {

using tools::Json;

constexpr int kExitOk = 0;
constexpr int kExitRejected = 1;
constexpr int kExitError = 2;
// fp16 plans: variants differ in their accumulation order and split-K, and
// an fp16 output rounds at a relative 2^-11; a wrong kernel misses by far
// more.
constexpr double kDefaultRtol = 1e-2;
constexpr double kDefaultAtol = 1e-2;

struct Options {
  std::string plan;
  std::string output;      ///< -o; "" = rewrite `plan`
  std::string timingCache; ///< --timing-cache
  bool list = false;
  bool json = false;
  uint64_t iterations = 20;
  uint64_t rounds = 3;
  uint64_t seed = 0;
  double rtol = kDefaultRtol, atol = kDefaultAtol;
  runtime::EngineOptions engine;
};

/// One load and run of the plan with a variant set.
struct Measurement {
  /// Per choice: the summed time of its launches (when timed).
  std::vector<double> ms;
  /// Per choice: whether it had any launches (when timed).
  std::vector<bool> ran;
  /// The plan's outputs after the first run.
  std::vector<tools::Tensor> outputs;
};

/// What was measured for one choice.
struct ChoiceTimes {
  /// Per variant: the best (lowest) mean over the rounds; +inf until
  /// measured.
  std::vector<double> ms;
  /// Per variant: whether its steps ran on the engine's target.
  std::vector<bool> ran;
  bool anyRan() const {
    return std::find(ran.begin(), ran.end(), true) != ran.end();
  }
  bool allRan() const {
    return std::find(ran.begin(), ran.end(), false) == ran.end();
  }
};

/// `v` with `decimals` decimals ("%.*f").
std::string fixed(double v, int decimals = 4);
/// The shortest text that reads back as `v`; "inf" and "nan" as such.
std::string shortest(double v);
/// `list` as a JSON array of numbers (null for the unmeasured, +inf).
Json jsonNumbers(const std::vector<double> &list);
/// Prints rows of cells as a table: columns padded to their widest cell,
/// left-aligned where `left[i]`, right-aligned otherwise.
void printTable(const std::vector<std::vector<std::string>> &rows,
                const std::vector<bool> &left);

/// Tunes (or lists) the plan of `Options`; run() returns the exit status.
class Tuner {
public:
  explicit Tuner(Options options) : opt_(std::move(options)) {}
  int run();

private:
  int fail(const std::string &message);
  std::string noChoices() const {
    return opt_.plan +
           " has no tactic choices: build it with kilnc --tactics all";
  }
  bool readPlan(bool allowWeightStripped);
  int list();
  int tune();
  Status makeInputs(const runtime::Engine &engine);
  /// Loads the plan with `variants` (EngineOptions::tacticVariants), runs it
  /// once, reads its outputs and, when `timed`, times its launches.
  Status measure(const std::vector<int64_t> &variants, Measurement &m,
                 bool timed = true);
  /// The message for a failed configuration: tries the variant `v` of each
  /// choice on its own to name the one that fails.
  std::string explainFailure(uint64_t round, size_t v, const Status &failure);
  /// Compares the outputs of variant set v (`variants`) with variant 0's; on
  /// a mismatch runs each choice of the set at variant v alone and rejects
  /// those that differ.
  Status checkVariantSet(uint64_t round, size_t v,
                         const std::vector<int64_t> &variants,
                         const std::vector<tools::Tensor> &outputs);
  /// Runs the selected variants together once and compares the outputs.
  Status checkSelection();
  /// "variant 1 ('tactic') of choice 0 'name'".
  std::string variantName(size_t c, size_t v) const;
  /// "3 of 1024 elements differ, max abs error 0.5 (output 'y')".
  std::string describe(const OutputCheck &check) const;
  /// Variants of choice c that may not be selected: its own rejected ones
  /// and those of the choices that take the same variant (same key).
  std::vector<bool> rejectedFor(size_t c) const;
  std::vector<TimingEntry> cacheEntries() const;
  /// What the tuned plan and the timing cache may not overwrite.
  std::vector<tools::ProtectedInput> planInputs() const;
  std::vector<tools::ProtectedInput> cacheInputs() const;
  void printReport() const;
  void printJsonReport() const;

  Options opt_;
  std::vector<uint8_t> bytes_;
  plan::PlanReader reader_;
  std::vector<plan::Choice> tuned_; ///< the choices as written back
  std::vector<ChoiceTimes> times_;
  std::vector<tools::Tensor> inputs_; ///< made on the first load
  bool inputsMade_ = false;
  std::vector<tools::Tensor> reference_; ///< variant set 0's outputs
  std::optional<VariantScreen> screen_;
  std::string device_, target_, moduleFormat_;
  std::optional<MergeResult> cacheResult_;
  std::vector<std::string> notes_; ///< warnings, also in the JSON report
};

} // namespace kiln::tune

#endif // KILN_TOOLS_KILNTUNE_TUNER_H
