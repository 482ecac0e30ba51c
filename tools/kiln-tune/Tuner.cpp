//===- Tuner.cpp - kiln-tune: measure the variant sets, select, check ----===//

#include "Tuner.h"

#include "tools/common/InputFile.h"
#include "tools/common/OutputFile.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

using namespace kiln;
using namespace kiln::tune;
using plan::Status;
using plan::StatusCode;
using runtime::Engine;
using runtime::ExecutionContext;
using runtime::TensorInfo;
using tools::jsonNumber;
using tools::jsonText;

int Tuner::fail(const std::string &message) {
  std::fprintf(stderr, "kiln-tune: error: %s\n", message.c_str());
  if (opt_.json)
    std::printf(
        "%s\n",
        jsonText({{"plan", opt_.plan}, {"ok", false}, {"error", message}})
            .c_str());
  return kExitError;
}

bool Tuner::readPlan(bool allowWeightStripped) {
  if (Status s = tools::readInputFile(opt_.plan, bytes_); !s) {
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

std::vector<tools::ProtectedInput> Tuner::planInputs() const {
  if (opt_.timingCache.empty())
    return {};
  return {{opt_.timingCache, "timing cache"}};
}

std::vector<tools::ProtectedInput> Tuner::cacheInputs() const {
  return {{opt_.plan, "plan"}, {opt_.output, "tuned plan"}};
}

int Tuner::tune() {
  if (!readPlan(/*allowWeightStripped=*/false))
    return kExitError;
  const plan::Plan &p = reader_.plan();
  // Tuning times profile 0's variants on profile 0's shapes; the other
  // profiles' choices would keep the cost model's picks unsaid.
  if (!p.profiles.empty())
    return fail("'" + opt_.plan + "' has " + std::to_string(p.numProfiles()) +
                " profiles (kilnc --profile); kiln-tune tunes single-profile "
                "plans only so far: tune a plan built for one profile's "
                "shapes, then build the multi-profile plan with "
                "--timing-cache");
  if (p.choices.empty())
    return fail(noChoices());
  if (opt_.output.empty())
    opt_.output = opt_.plan;
  // Outputs that may not be written, and a cache that cannot be merged
  // later, are refused before the GPU work. The plan may be rewritten in
  // place (the default); the cache may replace neither plan.
  if (!opt_.timingCache.empty())
    if (Status s = tools::checkOutputPath(opt_.timingCache, cacheInputs()); !s)
      return fail("--timing-cache: " + s.message());
  if (Status s = tools::checkOutputPath(opt_.output, planInputs()); !s)
    return fail("the tuned plan (-o): " + s.message());
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
      bool same =
          o == c ||
          (!p.choices[c].key.empty() && p.choices[o].key == p.choices[c].key &&
           p.choices[o].variants == p.choices[c].variants && u.allRan());
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
  if (Status s = tools::writePlanFile(writer, opt_.output, planInputs()); !s)
    return fail(s.message());

  if (!opt_.timingCache.empty()) {
    tune::MergeResult merged;
    if (Status s = tune::mergeTimingCacheFile(opt_.timingCache, cacheEntries(),
                                              &merged, cacheInputs());
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
