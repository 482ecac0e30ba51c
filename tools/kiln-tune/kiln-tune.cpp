//===- kiln-tune.cpp - Time a plan's tactic variants and keep the fastest -===//
//
// A plan built with `kilnc --tactics all` carries regions in several variants
// (tactic choices). kiln-tune runs each variant on the GPU, selects the
// fastest per choice, writes the plan back and records the times in a timing
// cache that kilnc --timing-cache reuses on machines without a GPU. A variant
// whose outputs differ from variant 0's (the cost model's plan) is rejected:
// never selected, not cached.
//
// Exit status: 0 success, 1 a variant was rejected (the plan and the cache
// are written without it), 2 any error (usage, plan, GPU, files).
//
//===----------------------------------------------------------------------===//

#include "TimingCache.h"
#include "VariantCheck.h"
#include "tools/common/CommandLine.h"
#include "tools/common/Json.h"
#include "tools/common/TensorFile.h"

#include "kiln/Plan/PlanIO.h"
#include "kiln/Runtime/Runtime.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

using namespace kiln;
using plan::Status;
using plan::StatusCode;
using runtime::Engine;
using runtime::ExecutionContext;
using runtime::TensorInfo;
using tools::Json;
using tools::jsonNumber;
using tools::jsonText;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitRejected = 1;
constexpr int kExitError = 2;
// fp16 plans: variants differ in their accumulation order and split-K, and
// an fp16 output rounds at a relative 2^-11; a wrong kernel misses by far
// more.
constexpr double kDefaultRtol = 1e-2;
constexpr double kDefaultAtol = 1e-2;

const char *kUsage =
    "usage: kiln-tune PLAN [options]\n"
    "\n"
    "Times every variant of the plan's tactic choices (kilnc --tactics all) "
    "on the GPU,\n"
    "selects the fastest of each, and writes the plan back (atomically). "
    "Each variant's\n"
    "outputs are compared with those of variant 0 (the cost model's plan): "
    "one that\n"
    "differs is rejected, never selected and left out of the timing cache.\n"
    "\n"
    "  -o FILE               write the tuned plan to FILE (default: rewrite "
    "PLAN in place)\n"
    "  --timing-cache FILE   merge the measured times into FILE (JSON; "
    "created if missing);\n"
    "                        kilnc --timing-cache FILE reuses them on "
    "machines without a GPU\n"
    "  --list                print the plan's choices (key, variants, "
    "selected, times) and\n"
    "                        exit; needs no GPU\n"
    "  --iterations N        timed runs per variant (default 20)\n"
    "  --rounds R            repeat all variants R times, keep each one's "
    "best mean (default 3)\n"
    "  --device-ordinal N    CUDA device (default 0)\n"
    "  --allow-ptx-jit       use the plan's PTX (JIT at load) when no cubin "
    "fits\n"
    "  --seed N              seed of the random inputs (default 0; as "
    "kiln-run: floats in\n"
    "                        [-1, 1), ints in [0, 10), fixed inputs get "
    "their value)\n"
    "  --rtol R, --atol A    outputs match variant 0's when |a - b| <= A + R "
    "* (|b| +\n"
    "                        max |b| of the output) (NaN matches only NaN; "
    "default 1e-2\n"
    "                        each, for fp16 plans)\n"
    "  --json                JSON report on stdout instead of text\n"
    "\n"
    "exit status: 0 ok, 1 a variant was rejected (its outputs differ from "
    "variant 0's;\n"
    "the plan and the cache are written without it), 2 error\n";

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

std::string fixed(double v, int decimals = 4) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

/// The shortest text that reads back as `v`; "inf" and "nan" as such.
std::string shortest(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return jsonNumber(v);
}

/// `list` as a JSON array of numbers (null for the unmeasured, +inf).
Json jsonNumbers(const std::vector<double> &list) {
  Json a = Json::array();
  for (double v : list)
    a.push_back(std::isfinite(v) ? Json(v) : Json());
  return a;
}

/// Prints rows of cells as a table: columns padded to their widest cell,
/// left-aligned where `left[i]`, right-aligned otherwise.
void printTable(const std::vector<std::vector<std::string>> &rows,
                const std::vector<bool> &left) {
  std::vector<size_t> width(left.size(), 0);
  for (const auto &row : rows)
    for (size_t i = 0; i < row.size() && i < width.size(); ++i)
      width[i] = std::max(width[i], row[i].size());
  for (const auto &row : rows) {
    std::string line = " ";
    for (size_t i = 0; i < row.size() && i < width.size(); ++i) {
      std::string pad(width[i] - row[i].size(), ' ');
      bool last = i + 1 == row.size();
      line += " " + (left[i] ? row[i] + (last ? "" : pad) : pad + row[i]);
    }
    std::printf("%s\n", line.c_str());
  }
}

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
  Status makeInputs(const Engine &engine);
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
  std::string describe(const tune::OutputCheck &check) const;
  /// Variants of choice c that may not be selected: its own rejected ones
  /// and those of the choices that take the same variant (same key).
  std::vector<bool> rejectedFor(size_t c) const;
  std::vector<tune::TimingEntry> cacheEntries() const;
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
  std::optional<tune::VariantScreen> screen_;
  std::string device_, target_, moduleFormat_;
  std::optional<tune::MergeResult> cacheResult_;
  std::vector<std::string> notes_; ///< warnings, also in the JSON report
};

int Tuner::fail(const std::string &message) {
  std::fprintf(stderr, "kiln-tune: error: %s\n", message.c_str());
  if (opt_.json)
    std::printf("%s\n",
                jsonText({{"plan", opt_.plan}, {"ok", false}, {"error", message}})
                    .c_str());
  return kExitError;
}

bool Tuner::readPlan(bool allowWeightStripped) {
  if (Status s = plan::readFile(opt_.plan, bytes_); !s) {
    fail(s.message());
    return false;
  }
  plan::PlanReader::Options options;
  options.allowWeightStripped = allowWeightStripped;
  if (Status s = reader_.open(bytes_.data(), bytes_.size(), options); !s) {
    fail("'" + opt_.plan + "': " + s.message());
    return false;
  }
  return true;
}

int Tuner::run() {
  if (opt_.list)
    return list();
  return tune();
}

int Tuner::list() {
  // Listing reads the plan only: no GPU, and weight-stripped plans are fine.
  if (!readPlan(/*allowWeightStripped=*/true))
    return kExitError;
  const std::vector<plan::Choice> &choices = reader_.plan().choices;
  if (choices.empty())
    return fail(noChoices());
  if (opt_.json) {
    Json list = Json::array();
    for (size_t c = 0; c < choices.size(); ++c) {
      const plan::Choice &ch = choices[c];
      list.push_back({{"index", c},
                      {"key", ch.key},
                      {"name", ch.name},
                      {"variants", ch.variants},
                      {"selected", ch.selected},
                      {"times_ms", jsonNumbers(ch.timesMs)},
                      {"device", ch.device}});
    }
    std::string s =
        jsonText({{"plan", opt_.plan}, {"choices", std::move(list)}});
    std::printf("%s\n", s.c_str());
    return kExitOk;
  }
  std::printf("plan %s: %zu tactic choice%s\n", opt_.plan.c_str(),
              choices.size(), choices.size() == 1 ? "" : "s");
  for (size_t c = 0; c < choices.size(); ++c) {
    const plan::Choice &ch = choices[c];
    std::printf(
        "choice %zu '%s': key %s, %zu variant%s, %s\n", c, ch.name.c_str(),
        ch.key.c_str(), ch.variants.size(), ch.variants.size() == 1 ? "" : "s",
        ch.device.empty() ? "untuned" : ("tuned on " + ch.device).c_str());
    std::vector<std::vector<std::string>> rows;
    for (size_t v = 0; v < ch.variants.size(); ++v) {
      std::vector<std::string> row = {v == ch.selected ? "*" : " ",
                                      std::to_string(v), ch.variants[v]};
      if (!ch.timesMs.empty())
        row.push_back(fixed(ch.timesMs[v]) + " ms");
      rows.push_back(row);
    }
    printTable(rows, {true, false, true, false});
  }
  return kExitOk;
}

Status Tuner::makeInputs(const Engine &engine) {
  // Exactly kiln-run's random inputs, so that a tuned plan can be checked
  // with `kiln-run --seed N` on the same data.
  std::string error;
  if (!tools::makeSeededInputs(engine.inputs(), opt_.seed, inputs_, error))
    return Status(StatusCode::NotImplemented, error);
  inputsMade_ = true;
  return Status::success();
}

Status Tuner::measure(const std::vector<int64_t> &variants, Measurement &m,
                      bool timed) {
  const plan::Plan &p = reader_.plan();
  runtime::EngineOptions options = opt_.engine;
  options.tacticVariants = variants;
  std::unique_ptr<Engine> engine;
  if (Status s =
          Engine::loadMemory(bytes_.data(), bytes_.size(), options, &engine);
      !s)
    return s;
  if (device_.empty()) {
    device_ = engine->device().name;
    target_ = engine->target();
    moduleFormat_ = engine->moduleFormat();
  } else if (engine->target() != target_) {
    return Status(StatusCode::Internal,
                  "the engine switched from target " + target_ + " to " +
                      engine->target() + " between variants");
  }
  if (!inputsMade_)
    if (Status s = makeInputs(*engine); !s)
      return s;
  // Kernels are timed one by one (profile); a CUDA graph would only cost
  // its capture.
  runtime::ContextOptions contextOptions;
  contextOptions.cudaGraphs = false;
  std::unique_ptr<ExecutionContext> context;
  if (Status s = engine->createContext(contextOptions, &context); !s)
    return s;
  for (size_t i = 0; i < inputs_.size(); ++i)
    if (Status s = context->setInput(i, inputs_[i].data.data(),
                                     inputs_[i].data.size());
        !s)
      return s;
  if (Status s = context->run(); !s)
    return s;
  const std::vector<TensorInfo> &infos = engine->outputs();
  m.outputs.assign(infos.size(), tools::Tensor());
  for (size_t i = 0; i < infos.size(); ++i) {
    const void *data = nullptr;
    size_t bytes = 0;
    if (Status s = context->getOutput(i, &data, &bytes); !s)
      return s;
    tools::Tensor &t = m.outputs[i];
    t.name = infos[i].name;
    t.dtype = infos[i].dtype;
    t.shape = infos[i].shape;
    const uint8_t *begin = static_cast<const uint8_t *>(data);
    t.data.assign(begin, begin + bytes);
  }
  m.ms.assign(p.choices.size(), 0.0);
  m.ran.assign(p.choices.size(), false);
  if (!timed)
    return Status::success();
  std::vector<ExecutionContext::KernelTime> times;
  if (Status s = context->profile(int(opt_.iterations), &times); !s)
    return s;
  for (const ExecutionContext::KernelTime &t : times) {
    const plan::Step &step = p.steps[t.step];
    if (step.choice == 0)
      continue;
    size_t c = step.choice - 1;
    if (int64_t(step.variant) != variants[c])
      return Status(StatusCode::Internal,
                    "step " + std::to_string(t.step) + " of variant " +
                        std::to_string(step.variant) + " of choice " +
                        std::to_string(c) + " ran, but variant " +
                        std::to_string(variants[c]) + " was selected");
    m.ms[c] += t.ms;
    m.ran[c] = true;
  }
  return Status::success();
}

std::string Tuner::explainFailure(uint64_t round, size_t v,
                                  const Status &failure) {
  const std::vector<plan::Choice> &choices = reader_.plan().choices;
  std::string where =
      "round " + std::to_string(round + 1) + ", variant " + std::to_string(v);
  std::vector<size_t> candidates;
  for (size_t c = 0; c < choices.size(); ++c)
    if (choices[c].variants.size() > v)
      candidates.push_back(c);
  // Variant 0 of every choice is the plan as kilnc would build it: nothing
  // to isolate. Otherwise run the other choices at variant 0 (which worked)
  // to find the culprit.
  if (v > 0 && candidates.size() > 1) {
    std::fprintf(stderr,
                 "kiln-tune: %s failed; trying it choice by choice to find "
                 "which one fails\n",
                 where.c_str());
    for (size_t c : candidates) {
      std::vector<int64_t> variants(choices.size(), 0);
      variants[c] = int64_t(v);
      Measurement m;
      if (Status s = measure(variants, m); !s)
        return variantName(c, v) + " fails: " + s.message();
    }
  } else if (candidates.size() == 1) {
    return variantName(candidates[0], v) + " fails: " + failure.message();
  }
  return where + " (" + std::to_string(candidates.size()) +
         " choices at once) fails: " + failure.message();
}

std::string Tuner::variantName(size_t c, size_t v) const {
  const plan::Choice &ch = reader_.plan().choices[c];
  return "variant " + std::to_string(v) + " ('" + ch.variants[v] +
         "') of choice " + std::to_string(c) + " '" + ch.name + "'";
}

std::string Tuner::describe(const tune::OutputCheck &check) const {
  if (!check.error.empty())
    return check.error;
  std::string s = std::to_string(check.mismatches) + " of " +
                  std::to_string(check.elements) + " elements differ";
  if (check.nanMismatches)
    s += " (" + std::to_string(check.nanMismatches) + " NaN against a number)";
  return s + ", max abs error " + shortest(check.maxAbsErr) + " (output '" +
         check.output + "')";
}

Status Tuner::checkVariantSet(uint64_t round, size_t v,
                              const std::vector<int64_t> &variants,
                              const std::vector<tools::Tensor> &outputs) {
  tune::OutputCheck check =
      tune::checkOutputs(outputs, reference_, opt_.rtol, opt_.atol);
  if (check.ok())
    return Status::success();
  std::string where =
      "round " + std::to_string(round + 1) + ", variant " + std::to_string(v);
  std::vector<size_t> suspects = screen_->suspects(v);
  if (suspects.empty()) {
    // Only variants that matched before ran: the plan's outputs vary from
    // run to run beyond the tolerances. The selection is checked at the end.
    notes_.push_back(where + ": outputs differ from variant 0's (" +
                     describe(check) +
                     ") though it runs no variant not checked before");
    return Status::success();
  }
  std::fprintf(stderr,
               "kiln-tune: %s: outputs differ from variant 0's (%s)%s\n",
               where.c_str(), describe(check).c_str(),
               suspects.size() > 1 ? "; trying it choice by choice to find "
                                     "which one computes them"
                                   : "");
  // Variant set v changes every choice at once: run each at variant v with
  // the others at the reference's variant 0 to pin the mismatch on it.
  std::vector<tune::OutputCheck> alone;
  for (size_t c : suspects) {
    std::vector<int64_t> single = screen_->alone(c, v);
    if (single == variants) {
      alone.push_back(check);
      continue;
    }
    Measurement m;
    if (Status s = measure(single, m, /*timed=*/false); !s)
      return Status(s.code(), variantName(c, v) +
                                  " fails when run alone: " + s.message());
    alone.push_back(
        tune::checkOutputs(m.outputs, reference_, opt_.rtol, opt_.atol));
  }
  tune::Verdict verdict = tune::pinMismatch(alone);
  size_t before = screen_->rejections().size();
  screen_->reject(v, suspects, alone, verdict, check);
  for (size_t i = before; i < screen_->rejections().size(); ++i) {
    const tune::Rejection &r = screen_->rejections()[i];
    std::fprintf(stderr, "kiln-tune: rejected %s: %s\n",
                 variantName(r.choice, r.variant).c_str(),
                 r.together ? "matches variant 0 alone, but not together with "
                              "the other choices at this variant"
                            : ("outputs differ from variant 0's (" +
                               describe(r.check) + ")")
                                  .c_str());
  }
  return Status::success();
}

Status Tuner::checkSelection() {
  // Each selected variant matched variant 0 on its own or in its set; this
  // run checks them together, as the tuned plan will run them.
  std::vector<int64_t> selected(tuned_.size(), 0);
  bool any = false;
  for (size_t c = 0; c < tuned_.size(); ++c)
    if (times_[c].anyRan()) {
      selected[c] = tuned_[c].selected;
      any = any || selected[c] != 0;
    }
  if (!any)
    return Status::success(); // variant set 0, the reference
  std::fprintf(stderr, "kiln-tune: checking the selected variants together\n");
  Measurement m;
  if (Status s = measure(selected, m, /*timed=*/false); !s)
    return Status(s.code(), "the selected variants fail together: " +
                                s.message() + "; nothing was written");
  tune::OutputCheck check =
      tune::checkOutputs(m.outputs, reference_, opt_.rtol, opt_.atol);
  if (!check.ok())
    return Status(StatusCode::Internal,
                  "the selected variants together compute other outputs than "
                  "variant 0 (" +
                      describe(check) +
                      "), though each matched in its variant set; nothing was "
                      "written");
  return Status::success();
}

std::vector<bool> Tuner::rejectedFor(size_t c) const {
  // Equal regions take one variant (see tune()): one rejected in any of
  // them is taken by none.
  const std::vector<plan::Choice> &choices = reader_.plan().choices;
  std::vector<bool> rejected = screen_->rejectedOf(c);
  for (size_t o = 0; o < choices.size(); ++o) {
    if (o == c || choices[c].key.empty() || choices[o].key != choices[c].key ||
        choices[o].variants != choices[c].variants)
      continue;
    for (size_t v = 0; v < rejected.size(); ++v)
      rejected[v] = rejected[v] || screen_->rejected(o, v);
  }
  return rejected;
}

int Tuner::tune() {
  if (!readPlan(/*allowWeightStripped=*/false))
    return kExitError;
  const plan::Plan &p = reader_.plan();
  if (p.choices.empty())
    return fail(noChoices());
  if (opt_.output.empty())
    opt_.output = opt_.plan;
  // A cache that cannot be merged later is refused before the GPU work.
  if (!opt_.timingCache.empty()) {
    tune::TimingCache cache;
    if (Status s = tune::readTimingCache(opt_.timingCache, cache); !s)
      return fail(s.message());
  }

  size_t n = p.choices.size(), maxVariants = 0;
  times_.resize(n);
  std::vector<size_t> counts(n);
  for (size_t c = 0; c < n; ++c) {
    size_t count = p.choices[c].variants.size();
    counts[c] = count;
    maxVariants = std::max(maxVariants, count);
    times_[c].ms.assign(count, std::numeric_limits<double>::infinity());
    times_[c].ran.assign(count, false);
  }
  screen_.emplace(counts);

  for (uint64_t r = 0; r < opt_.rounds; ++r) {
    for (size_t v = 0; v < maxVariants; ++v) {
      std::fprintf(
          stderr, "kiln-tune: round %" PRIu64 "/%" PRIu64 ": variant %zu/%zu\n",
          r + 1, opt_.rounds, v + 1, maxVariants);
      // Choices with fewer variants run their last one again (and those
      // whose variant v was rejected, their last one before it that was
      // not): one more sample of it, and the plan stays complete.
      std::vector<int64_t> variants = screen_->set(v);
      Measurement m;
      if (Status s = measure(variants, m); !s) {
        if (device_.empty())
          return fail("cannot time the plan on a GPU: " + s.message() +
                      "; kiln-tune measures the variants on the GPU the "
                      "plan is for (--list works anywhere)");
        return fail(explainFailure(r, v, s));
      }
      for (size_t c = 0; c < n; ++c) {
        if (!m.ran[c])
          continue;
        size_t chosen = size_t(variants[c]);
        times_[c].ran[chosen] = true;
        times_[c].ms[chosen] = std::min(times_[c].ms[chosen], m.ms[c]);
      }
      // Variant set 0 of the first round is the reference; later rounds
      // check every set again (a race shows up in one run, not in all).
      if (r == 0 && v == 0)
        reference_ = std::move(m.outputs);
      else if (v > 0)
        if (Status s = checkVariantSet(r, v, variants, m.outputs); !s)
          return fail(s.message());
    }
  }

  tuned_ = p.choices;
  for (size_t c = 0; c < n; ++c) {
    const ChoiceTimes &t = times_[c];
    if (!t.anyRan()) {
      notes_.push_back("choice " + std::to_string(c) + " '" +
                       p.choices[c].name + "' has no kernels for " + target_ +
                       ": left as it was");
      continue;
    }
    if (!t.allRan()) {
      size_t missing =
          size_t(std::find(t.ran.begin(), t.ran.end(), false) - t.ran.begin());
      return fail("variant " + std::to_string(missing) + " ('" +
                  p.choices[c].variants[missing] + "') of choice " +
                  std::to_string(c) + " '" + p.choices[c].name +
                  "' has no kernels for " + target_ +
                  ", its other variants do: the plan cannot run it there");
    }
    // Equal regions (one key, the same variants) take one variant: the
    // fastest on the mean over them, as the timing cache records it, so
    // that a rebuild with the cache makes the same plan. A rejected variant
    // keeps its measured time (in the plan, for people) but is never taken.
    std::vector<double> mean(t.ms.size(), 0.0);
    for (size_t o = 0; o < n; ++o) {
      const ChoiceTimes &u = times_[o];
      bool same = o == c || (!p.choices[c].key.empty() &&
                             p.choices[o].key == p.choices[c].key &&
                             p.choices[o].variants == p.choices[c].variants &&
                             u.allRan());
      if (!same)
        continue;
      for (size_t v = 0; v < mean.size(); ++v)
        mean[v] += u.ms[v];
    }
    size_t best = tune::fastestAccepted(mean, rejectedFor(c));
    tuned_[c].selected = uint32_t(best);
    tuned_[c].timesMs = t.ms;
    tuned_[c].device = device_;
  }
  for (const std::string &note : notes_)
    std::fprintf(stderr, "kiln-tune: note: %s\n", note.c_str());
  if (Status s = checkSelection(); !s)
    return fail(s.message());

  plan::PlanWriter writer = plan::PlanWriter::fromPlan(p);
  writer.choices() = tuned_;
  if (Status s = writer.writeFileAtomically(opt_.output); !s)
    return fail(s.message());

  if (!opt_.timingCache.empty()) {
    tune::MergeResult merged;
    if (Status s = tune::mergeTimingCacheFile(opt_.timingCache, cacheEntries(),
                                              &merged);
        !s)
      return fail(s.message() + " (the tuned plan was written to " +
                  opt_.output + ")");
    cacheResult_ = merged;
  }

  if (opt_.json)
    printJsonReport();
  else
    printReport();
  if (size_t rejected = screen_->rejections().size()) {
    std::fprintf(stderr,
                 "kiln-tune: %zu variant%s rejected: %s outputs differ from "
                 "variant 0's\n",
                 rejected, rejected == 1 ? "" : "s",
                 rejected == 1 ? "its" : "their");
    return kExitRejected;
  }
  return kExitOk;
}

std::vector<tune::TimingEntry> Tuner::cacheEntries() const {
  // Equal regions share a key: one entry per key, each variant's time the
  // mean over the choices measured with that key.
  struct Sum {
    double ms = 0;
    unsigned count = 0;
  };
  std::vector<tune::TimingEntry> entries;
  std::vector<std::vector<std::pair<std::string, Sum>>> sums;
  std::map<std::string, size_t> byKey;
  const plan::Plan &p = reader_.plan();
  // A tactic rejected in any region of a key is left out of its entry, so
  // that kilnc --timing-cache never forces it.
  std::map<std::string, std::set<std::string>> rejectedByKey;
  for (const tune::Rejection &r : screen_->rejections())
    rejectedByKey[p.choices[r.choice].key].insert(
        p.choices[r.choice].variants[r.variant]);
  for (size_t c = 0; c < tuned_.size(); ++c) {
    const plan::Choice &ch = tuned_[c];
    if (!times_[c].anyRan())
      continue;
    if (ch.key.empty()) {
      std::fprintf(stderr,
                   "kiln-tune: note: choice %zu '%s' has no timing-cache key; "
                   "not cached\n",
                   c, ch.name.c_str());
      continue;
    }
    auto [it, fresh] = byKey.try_emplace(ch.key, entries.size());
    if (fresh) {
      tune::TimingEntry e;
      e.target = target_;
      e.key = ch.key;
      e.name = ch.name;
      e.device = device_;
      entries.push_back(e);
      sums.emplace_back();
    }
    // Within a choice, a tactic listed twice keeps its faster time.
    std::map<std::string, double> own;
    const std::set<std::string> &rejected = rejectedByKey[ch.key];
    for (size_t v = 0; v < ch.variants.size(); ++v) {
      if (rejected.count(ch.variants[v]))
        continue;
      auto [o, added] = own.try_emplace(ch.variants[v], ch.timesMs[v]);
      if (!added)
        o->second = std::min(o->second, ch.timesMs[v]);
    }
    auto &list = sums[it->second];
    for (size_t v = 0; v < ch.variants.size(); ++v) {
      const std::string &tactic = p.choices[c].variants[v];
      auto o = own.find(tactic);
      if (o == own.end())
        continue; // already added for this choice
      auto s = std::find_if(list.begin(), list.end(),
                            [&](const auto &e) { return e.first == tactic; });
      if (s == list.end()) {
        list.push_back({tactic, Sum()});
        s = list.end() - 1;
      }
      s->second.ms += o->second;
      s->second.count++;
      own.erase(o);
    }
  }
  for (size_t e = 0; e < entries.size(); ++e) {
    double bestMs = std::numeric_limits<double>::infinity();
    for (const auto &[tactic, sum] : sums[e]) {
      double ms = sum.ms / sum.count;
      entries[e].timesMs.emplace_back(tactic, ms);
      if (ms < bestMs) {
        bestMs = ms;
        entries[e].best = tactic;
      }
    }
  }
  // Regions of one key with other variant lists can reject every tactic
  // of it between them: such a key gets no entry.
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [](const tune::TimingEntry &e) {
                                 return e.timesMs.empty();
                               }),
                entries.end());
  return entries;
}

void Tuner::printReport() const {
  const plan::Plan &p = reader_.plan();
  std::printf("tuned %s on %s (%s %s): %" PRIu64 " round%s of %" PRIu64
              " timed runs per variant\n",
              opt_.plan.c_str(), device_.c_str(), target_.c_str(),
              moduleFormat_.c_str(), opt_.rounds, opt_.rounds == 1 ? "" : "s",
              opt_.iterations);
  std::vector<std::vector<std::string>> rows = {{"choice", "name", "variants",
                                                 "default ms", "best ms",
                                                 "speedup", "best tactic"}};
  double totalDefault = 0, totalChosen = 0;
  size_t measured = 0;
  for (size_t c = 0; c < tuned_.size(); ++c) {
    const plan::Choice &ch = tuned_[c];
    std::vector<std::string> row = {std::to_string(c), ch.name,
                                    std::to_string(ch.variants.size())};
    if (!times_[c].anyRan()) {
      row.insert(row.end(),
                 {"-", "-", "-", "(no kernels for " + target_ + ")"});
      rows.push_back(row);
      continue;
    }
    double def = ch.timesMs[0], best = ch.timesMs[ch.selected];
    totalDefault += def;
    totalChosen += best;
    ++measured;
    row.insert(row.end(), {fixed(def), fixed(best),
                           best > 0 ? fixed(def / best, 2) + "x" : "-",
                           ch.variants[ch.selected]});
    rows.push_back(row);
  }
  printTable(rows, {false, true, false, false, false, false, true});
  std::printf("total over %zu measured choice%s: default %s ms, chosen %s ms",
              measured, measured == 1 ? "" : "s", fixed(totalDefault).c_str(),
              fixed(totalChosen).c_str());
  if (totalChosen > 0)
    std::printf(" (%sx)", fixed(totalDefault / totalChosen, 2).c_str());
  std::printf("\n");
  const std::vector<tune::Rejection> &rejections = screen_->rejections();
  if (!rejections.empty()) {
    std::printf("REJECTED: %zu variant%s computed other outputs than variant "
                "0 (|a - b| > %s + %s * (|b| + max |b|)); never selected, "
                "not cached:\n",
                rejections.size(), rejections.size() == 1 ? "" : "s",
                shortest(opt_.atol).c_str(), shortest(opt_.rtol).c_str());
    std::vector<std::vector<std::string>> rejected = {
        {"choice", "name", "variant", "tactic", "mismatches", "max abs err",
         "output"}};
    for (const tune::Rejection &r : rejections) {
      const tune::OutputCheck &check = r.check;
      std::vector<std::string> row = {
          std::to_string(r.choice), p.choices[r.choice].name,
          std::to_string(r.variant), p.choices[r.choice].variants[r.variant]};
      if (!check.error.empty()) {
        row.insert(row.end(), {"-", "-", check.error});
      } else {
        std::string mismatches = std::to_string(check.mismatches) + "/" +
                                 std::to_string(check.elements);
        if (check.nanMismatches)
          mismatches += " (" + std::to_string(check.nanMismatches) + " NaN)";
        row.insert(row.end(),
                   {mismatches, shortest(check.maxAbsErr), check.output});
      }
      if (r.together)
        row.back() += " (only with the other choices at variant " +
                      std::to_string(r.variant) + ")";
      rejected.push_back(row);
    }
    printTable(rejected, {false, true, false, true, false, false, true});
  }
  size_t changed = 0;
  for (size_t c = 0; c < tuned_.size(); ++c)
    changed += tuned_[c].selected != p.choices[c].selected;
  std::printf("plan written to %s (%zu selection%s changed)\n",
              opt_.output.c_str(), changed, changed == 1 ? "" : "s");
  if (cacheResult_)
    std::printf("timing cache %s %s: %zu entr%s added, %zu replaced, %zu in "
                "all\n",
                opt_.timingCache.c_str(),
                cacheResult_->created ? "created" : "updated",
                cacheResult_->added, cacheResult_->added == 1 ? "y" : "ies",
                cacheResult_->replaced, cacheResult_->total);
}

void Tuner::printJsonReport() const {
  Json report = {{"plan", opt_.plan},
                 {"output", opt_.output},
                 {"timing_cache", opt_.timingCache.empty()
                                      ? Json()
                                      : Json(opt_.timingCache)},
                 {"device", device_},
                 {"target", target_},
                 {"module_format", moduleFormat_},
                 {"rounds", opt_.rounds},
                 {"iterations", opt_.iterations}};
  Json choices = Json::array();
  double totalDefault = 0, totalChosen = 0;
  for (size_t c = 0; c < tuned_.size(); ++c) {
    const plan::Choice &ch = tuned_[c];
    bool measured = times_[c].anyRan();
    Json rejected = Json::array();
    for (size_t v = 0; v < ch.variants.size(); ++v)
      if (screen_->rejected(c, v))
        rejected.push_back(v);
    Json j = {{"index", c},
              {"key", ch.key},
              {"name", ch.name},
              {"variants", ch.variants},
              {"measured", measured},
              {"times_ms", jsonNumbers(ch.timesMs)},
              {"selected", ch.selected},
              {"rejected", std::move(rejected)},
              {"default_ms", nullptr},
              {"best_ms", nullptr},
              {"speedup", nullptr},
              {"best_tactic", nullptr}};
    if (measured) {
      double def = ch.timesMs[0], best = ch.timesMs[ch.selected];
      totalDefault += def;
      totalChosen += best;
      j["default_ms"] = def;
      j["best_ms"] = best;
      j["speedup"] = best > 0 ? Json(def / best) : Json();
      j["best_tactic"] = ch.variants[ch.selected];
    }
    choices.push_back(std::move(j));
  }
  report["choices"] = std::move(choices);
  report["total_default_ms"] = totalDefault;
  report["total_chosen_ms"] = totalChosen;
  report["speedup"] =
      totalChosen > 0 ? Json(totalDefault / totalChosen) : Json();
  if (cacheResult_)
    report["cache"] = {{"created", cacheResult_->created},
                       {"added", cacheResult_->added},
                       {"replaced", cacheResult_->replaced},
                       {"entries", cacheResult_->total}};
  report["rtol"] = opt_.rtol;
  report["atol"] = opt_.atol;
  Json rejections = Json::array();
  for (const tune::Rejection &r : screen_->rejections()) {
    const plan::Choice &ch = tuned_[r.choice];
    const tune::OutputCheck &check = r.check;
    rejections.push_back(
        {{"choice", r.choice},
         {"key", ch.key},
         {"name", ch.name},
         {"variant", r.variant},
         {"tactic", ch.variants[r.variant]},
         {"elements", check.elements},
         {"mismatches", check.mismatches},
         {"nan_mismatches", check.nanMismatches},
         {"max_abs_error", check.maxAbsErr},
         {"output", check.output},
         {"error", check.error.empty() ? Json() : Json(check.error)},
         {"only_together", r.together}});
  }
  report["rejected"] = std::move(rejections);
  report["notes"] = notes_;
  report["ok"] = true;
  std::printf("%s\n", jsonText(report).c_str());
}

/// Reads the command line into `opt`; false with `error` set.
bool parseOptions(int argc, char **argv, Options &opt, bool &help,
                  std::string &error) {
  tools::CommandLine cl("kiln-tune");
  for (const char *name :
       {"-h", "--help", "--json", "--list", "--allow-ptx-jit"})
    cl.flag(name);
  for (const char *name : {"-o", "--timing-cache"})
    cl.option(name, "a file name");
  for (const char *name : {"--rtol", "--atol"})
    cl.option(name, "a finite number >= 0");
  for (const char *name :
       {"--iterations", "--rounds", "--seed", "--device-ordinal"})
    cl.option(name, "a non-negative integer");
  if (!cl.parse(argc, argv, error))
    return false;
  help = cl.has("-h") || cl.has("--help");
  if (help)
    return true;
  auto fail = [&](const std::string &message) {
    error = message;
    return false;
  };
  auto got = [&](const std::string &name, const std::string &value) {
    return fail(cl.needs(name) + ", got '" + value + "'");
  };
  opt.json = cl.has("--json");
  opt.list = cl.has("--list");
  opt.engine.allowPtxJit = cl.has("--allow-ptx-jit");
  struct File {
    const char *name;
    std::string *out;
  } files[] = {{"-o", &opt.output}, {"--timing-cache", &opt.timingCache}};
  for (const File &f : files)
    if (std::optional<std::string> file = cl.value(f.name)) {
      if (file->empty())
        return fail(cl.needs(f.name));
      *f.out = *file;
    }
  for (const char *name : {"--rtol", "--atol"})
    if (std::optional<std::string> text = cl.value(name)) {
      double v;
      if (!tools::parseNonNegative(*text, v))
        return got(name, *text);
      (name == std::string("--rtol") ? opt.rtol : opt.atol) = v;
    }
  struct Count {
    const char *name;
    uint64_t *out, min, max;
  } counts[] = {{"--iterations", &opt.iterations, 1, 1000000},
                {"--rounds", &opt.rounds, 1, 1000},
                {"--seed", &opt.seed, 0, UINT64_MAX}};
  for (const Count &c : counts) {
    std::optional<std::string> text = cl.value(c.name);
    if (!text)
      continue;
    uint64_t v;
    if (!tools::parseUnsigned(*text, v))
      return got(c.name, *text);
    if (v < c.min || v > c.max)
      return fail(std::string(c.name) + " must be in [" +
                  std::to_string(c.min) + ", " + std::to_string(c.max) +
                  "], got " + *text);
    *c.out = v;
  }
  if (std::optional<std::string> text = cl.value("--device-ordinal")) {
    uint64_t v;
    if (!tools::parseUnsigned(*text, v))
      return got("--device-ordinal", *text);
    if (v > 1024)
      return fail("--device-ordinal " + *text + " is out of range [0, 1024]");
    opt.engine.deviceOrdinal = int(v);
  }
  const std::vector<std::string> &words = cl.positional();
  if (words.empty() || (words.size() == 1 && words[0].empty()))
    return fail("no plan given");
  if (words.size() > 1)
    return fail("more than one plan given ('" + words[0] + "', '" + words[1] +
                "')");
  opt.plan = words[0];
  if (opt.list && (!opt.output.empty() || !opt.timingCache.empty()))
    return fail("--list only prints the plan's choices: it takes neither -o "
                "nor --timing-cache");
  return true;
}

} // namespace

int main(int argc, char **argv) {
  bool json = false;
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--json") == 0)
      json = true;
  Options opt;
  opt.engine.device = runtime::DeviceKind::Gpu;
  bool help = false;
  std::string error;
  if (!parseOptions(argc, argv, opt, help, error)) {
    std::fprintf(stderr, "kiln-tune: error: %s\n", error.c_str());
    if (json)
      std::printf("%s\n", jsonText({{"ok", false}, {"error", error}}).c_str());
    else
      std::fprintf(stderr, "run 'kiln-tune --help' for usage\n");
    return kExitError;
  }
  if (help) {
    std::printf("%s", kUsage);
    return kExitOk;
  }
  return Tuner(std::move(opt)).run();
}
