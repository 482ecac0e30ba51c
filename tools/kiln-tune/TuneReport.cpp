//===- TuneReport.cpp - kiln-tune: --list, the report, the cache entries -===//

#include "Tuner.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

using namespace kiln;
using namespace kiln::tune;
using plan::Status;
using plan::StatusCode;
using runtime::Engine;
using runtime::ExecutionContext;
using runtime::TensorInfo;
using tools::jsonNumber;
using tools::jsonText;

std::string kiln::tune::fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

std::string kiln::tune::shortest(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return jsonNumber(v);
}

Json kiln::tune::jsonNumbers(const std::vector<double> &list) {
  Json a = Json::array();
  for (double v : list)
    a.push_back(std::isfinite(v) ? Json(v) : Json());
  return a;
}

void kiln::tune::printTable(const std::vector<std::vector<std::string>> &rows,
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
                 {"timing_cache",
                  opt_.timingCache.empty() ? Json() : Json(opt_.timingCache)},
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
