//===- Provenance.cpp - kilnc --check-plan --------------------------------===//
#include "tools/kilnc/Provenance.h"

#include "kiln/Driver.h"

#include "kiln/Plan/PlanIO.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatAdapters.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace llvm;
using namespace kiln;

/// Entries that say when, where and how weights got in, not what the plan
/// is built from; model.path, since a moved model is the same model.
static bool ignoredByCheck(StringRef key) {
  return key.starts_with("build.") || key.starts_with("refit.") ||
         key == "model.path";
}

int kilnc::checkPlan(StringRef planPath, StringRef modelPath,
                     const onnx_import::ImportOptions &importOptions,
                     const CompileOptions &options,
                     const std::vector<std::string> &profiles, bool json) {
  std::vector<uint8_t> bytes;
  plan::Status st = plan::readFile(planPath.str(), bytes);
  plan::PlanReader reader;
  if (st.ok())
    st = reader.open(bytes.data(), bytes.size());
  if (!st.ok()) {
    errs() << "error: --check-plan: " << planPath << ": " << st.message()
           << "\n";
    return 2;
  }
  std::map<std::string, std::string> recorded;
  for (const plan::ProvenanceEntry &e : reader.plan().provenance)
    recorded[e.key] = e.value;

  // The external data files the plan lists are hashed again (a changed
  // list changes the model file itself, hence model.sha256).
  std::vector<std::string> external;
  if (auto it = recorded.find("model.external_data"); it != recorded.end()) {
    SmallVector<StringRef> lines;
    StringRef(it->second).split(lines, '\n', -1, /*KeepEmpty=*/false);
    for (StringRef line : lines)
      external.push_back(line.rsplit(' ').first.str());
  }
  ProvenanceEntries now;
  std::string error;
  if (!driver::importProvenance({modelPath.str(), std::nullopt}, importOptions,
                                external, now, error) ||
      !compilerProvenance(options, now, error)) {
    errs() << "error: --check-plan: " << error << "\n";
    return 2;
  }
  if (!profiles.empty()) {
    std::string specs;
    for (const std::string &p : profiles)
      specs += (specs.empty() ? "" : "; ") + p;
    now.emplace_back("options.profiles", specs);
  }

  struct Difference {
    std::string key, plan, now;
  };
  std::vector<Difference> differences;
  std::map<std::string, std::string> expected;
  for (const auto &[key, value] : now) {
    expected[key] = value;
    if (ignoredByCheck(key))
      continue;
    auto it = recorded.find(key);
    if (it == recorded.end())
      differences.push_back({key, "(none)", value});
    else if (it->second != value)
      differences.push_back({key, it->second, value});
  }
  for (const auto &[key, value] : recorded)
    if (!ignoredByCheck(key) && !expected.count(key))
      differences.push_back({key, value, "(none)"});

  bool upToDate = differences.empty();
  if (json) {
    json::Array diffs;
    for (const Difference &d : differences)
      diffs.push_back(
          json::Object{{"key", d.key}, {"plan", d.plan}, {"now", d.now}});
    json::Object root{{"plan", planPath.str()},
                      {"model", modelPath.str()},
                      {"up_to_date", upToDate},
                      {"differences", std::move(diffs)}};
    outs() << formatv("{0:2}", json::Value(std::move(root))) << "\n";
    return upToDate ? 0 : 1;
  }
  if (upToDate) {
    outs() << "kilnc: " << planPath << " is up to date: built from "
           << modelPath << " (sha256 " << expected["model.sha256"]
           << ") with these options\n";
    return 0;
  }
  outs() << "kilnc: " << planPath << " is out of date for " << modelPath
         << " and these options:\n";
  size_t w = 3;
  for (const Difference &d : differences)
    w = std::max(w, d.key.size());
  auto oneLine = [](const std::string &s) {
    std::string t = s;
    std::replace(t.begin(), t.end(), '\n', ';');
    return t;
  };
  for (const Difference &d : differences)
    outs() << formatv("  {0}  plan: {1}\n  {2}  now:  {3}\n",
                      fmt_align(d.key, AlignStyle::Left, w), oneLine(d.plan),
                      std::string(w, ' '), oneLine(d.now));
  return 1;
}
