//===- TimingCache.cpp - kiln-tune's timing cache file -------------------===//

#include "TimingCache.h"

#include "tools/common/InputFile.h"
#include "tools/common/Json.h"

#include "kiln/Plan/PlanIO.h"

#include <cmath>
#include <set>

using namespace kiln::tune;
using kiln::tools::Json;
using kiln::tools::jsonQuote;

//===----------------------------------------------------------------------===//
// Timing cache
//===----------------------------------------------------------------------===//

bool TimingEntry::operator==(const TimingEntry &o) const {
  return target == o.target && key == o.key && name == o.name &&
         device == o.device && best == o.best && timesMs == o.timesMs;
}

const TimingEntry *TimingCache::find(std::string_view target,
                                     std::string_view key) const {
  for (const TimingEntry &e : entries)
    if (e.target == target && e.key == key)
      return &e;
  return nullptr;
}

bool TimingCache::merge(TimingEntry entry) {
  for (TimingEntry &e : entries)
    if (e.target == entry.target && e.key == entry.key) {
      e = std::move(entry);
      return true;
    }
  entries.push_back(std::move(entry));
  return false;
}

static Status invalidCache(const std::string &message) {
  return Status(StatusCode::InvalidArgument, message);
}

Status kiln::tune::validateTimingEntry(const TimingEntry &e,
                                       const std::string &what) {
  if (e.target.empty())
    return invalidCache(what + " has no target");
  if (e.key.empty())
    return invalidCache(what + " has no key");
  if (e.timesMs.empty())
    return invalidCache(what + " has no times");
  std::set<std::string> names;
  bool bestFound = false;
  for (const auto &[variant, ms] : e.timesMs) {
    if (!names.insert(variant).second)
      return invalidCache(what + " lists variant " + jsonQuote(variant) +
                          " twice");
    if (!std::isfinite(ms) || ms < 0)
      return invalidCache(what + " has time " + std::to_string(ms) +
                          " ms for variant " + jsonQuote(variant) +
                          ", expected a finite number >= 0");
    bestFound |= variant == e.best;
  }
  if (!bestFound)
    return invalidCache(what + ": its best variant " + jsonQuote(e.best) +
                        " has no time");
  return Status::success();
}

Status kiln::tune::parseTimingCache(std::string_view text,
                                    const std::string &source,
                                    TimingCache &out) {
  out = TimingCache();
  Json root;
  std::string error;
  if (!tools::parseJson(text, root, error))
    return invalidCache("timing cache " + source +
                        " is not valid JSON: " + error);
  if (!root.is_object() || !root.contains("kiln_timing_cache"))
    return invalidCache(source +
                        " is not a kiln timing cache (a JSON object with "
                        "\"kiln_timing_cache\": " +
                        std::to_string(TimingCache::kVersion) +
                        " is expected): give another file");
  const Json &version = root["kiln_timing_cache"];
  if (!version.is_number() || version.get<double>() != TimingCache::kVersion)
    return Status(StatusCode::UnsupportedVersion,
                  "timing cache " + source + " has \"kiln_timing_cache\": " +
                      tools::jsonText(version) +
                      "; this kiln-tune reads version " +
                      std::to_string(TimingCache::kVersion));
  auto entries = root.find("entries");
  if (entries == root.end() || !entries->is_array())
    return invalidCache("timing cache " + source + " has no \"entries\" array");
  for (size_t i = 0; i < entries->size(); ++i) {
    const Json &e = (*entries)[i];
    std::string what =
        "timing cache " + source + ": entry " + std::to_string(i);
    if (!e.is_object())
      return invalidCache(what + " is not an object");
    TimingEntry entry;
    struct Field {
      const char *name;
      std::string *value;
      bool required;
    };
    Field fields[] = {{"target", &entry.target, true},
                      {"key", &entry.key, true},
                      {"name", &entry.name, false},
                      {"device", &entry.device, false},
                      {"best", &entry.best, true}};
    for (const Field &f : fields) {
      auto v = e.find(f.name);
      if (v == e.end()) {
        if (f.required)
          return invalidCache(what + " has no \"" + f.name + "\"");
        continue;
      }
      if (!v->is_string())
        return invalidCache(what + ": \"" + f.name + "\" is not a string");
      *f.value = v->get<std::string>();
    }
    auto times = e.find("times_ms");
    if (times == e.end() || !times->is_object())
      return invalidCache(what + " has no \"times_ms\" object");
    for (const auto &[variant, ms] : times->items()) {
      if (!ms.is_number())
        return invalidCache(what + ": the time of " + jsonQuote(variant) +
                            " is not a number");
      entry.timesMs.emplace_back(variant, ms.get<double>());
    }
    if (Status s = validateTimingEntry(entry, what); !s)
      return s;
    out.merge(std::move(entry));
  }
  return Status::success();
}

std::string kiln::tune::serializeTimingCache(const TimingCache &cache) {
  // nlohmann writes each entry; the layout around them (one per line) is
  // this file's.
  std::string s =
      "{\"kiln_timing_cache\": " + std::to_string(TimingCache::kVersion) +
      ",\n \"entries\": [";
  for (size_t i = 0; i < cache.entries.size(); ++i) {
    const TimingEntry &e = cache.entries[i];
    Json times = Json::object();
    for (const auto &[variant, ms] : e.timesMs)
      times[variant] = ms;
    Json entry = {{"target", e.target}, {"key", e.key},
                  {"name", e.name},     {"device", e.device},
                  {"best", e.best},     {"times_ms", std::move(times)}};
    s += (i ? ",\n  " : "\n  ") + tools::jsonText(entry);
  }
  s += cache.entries.empty() ? "]}\n" : "\n ]}\n";
  return s;
}

Status kiln::tune::readTimingCache(const std::string &path, TimingCache &out,
                                   bool *existed) {
  out = TimingCache();
  if (existed)
    *existed = false;
  std::vector<uint8_t> bytes;
  if (Status s = tools::readInputFile(path, bytes); !s) {
    if (s.code() == StatusCode::NotFound)
      return Status::success();
    return Status(s.code(), "timing cache: " + s.message());
  }
  if (existed)
    *existed = true;
  // An empty file (touch cache.json) is an empty cache.
  std::string_view text(reinterpret_cast<const char *>(bytes.data()),
                        bytes.size());
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos)
    return Status::success();
  return parseTimingCache(text, "'" + path + "'", out);
}

Status kiln::tune::mergeTimingCacheFile(
    const std::string &path, const std::vector<TimingEntry> &entries,
    MergeResult *result, const std::vector<tools::ProtectedInput> &inputs) {
  TimingCache cache;
  bool existed = false;
  if (Status s = readTimingCache(path, cache, &existed); !s)
    return s;
  MergeResult r;
  r.created = !existed;
  for (size_t i = 0; i < entries.size(); ++i) {
    if (Status s = validateTimingEntry(entries[i],
                                       "timing entry " + std::to_string(i));
        !s)
      return s;
    (cache.merge(entries[i]) ? r.replaced : r.added)++;
  }
  r.total = cache.entries.size();
  if (Status s =
          tools::writeOutputFile(path, serializeTimingCache(cache), inputs);
      !s)
    return s;
  if (result)
    *result = r;
  return Status::success();
}
