//===- TimingCache.h - kiln-tune's timing cache file ----------------------===//
//
// The timing cache is the JSON file through which kiln-tune's GPU
// measurements reach builds on machines without a GPU (kilnc --timing-cache
// reads it with llvm::json):
//
//   {"kiln_timing_cache": 1,
//    "entries": [
//     {"target":"sm_90a","key":"<Choice.key>","name":"<Choice.name>",
//      "device":"NVIDIA H200","best":"<fastest variant>",
//      "times_ms":{"<variant>":0.0123,...}}]}
//
// One entry per line, so that caches kept in version control diff well. An
// entry is identified by (target, key). Read and written with nlohmann-json
// (tools/common/Json.h), strictly (no repeated keys) because only programs
// write these files.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILNTUNE_TIMINGCACHE_H
#define KILN_TOOLS_KILNTUNE_TIMINGCACHE_H

#include "tools/common/OutputFile.h"

#include "kiln/Plan/Status.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::tune {

using plan::Status;
using plan::StatusCode;

/// One measured region.
struct TimingEntry {
  std::string target; ///< the engine's target ("sm_90a")
  std::string key;    ///< Choice::key
  std::string name;   ///< Choice::name (for people)
  std::string device; ///< the GPU ("NVIDIA H200")
  std::string best;   ///< the fastest variant; one of timesMs' names
  /// Time of each variant (by its tactic string), in the plan's order.
  std::vector<std::pair<std::string, double>> timesMs;
  bool operator==(const TimingEntry &o) const;
};

struct TimingCache {
  /// The "kiln_timing_cache" value this code reads and writes.
  static constexpr int kVersion = 1;
  std::vector<TimingEntry> entries;

  /// The entry for (target, key), or null.
  const TimingEntry *find(std::string_view target, std::string_view key) const;
  /// Replaces the entry with the same (target, key) in place, or appends.
  /// Returns true when an entry was replaced.
  bool merge(TimingEntry entry);
};

/// Checks an entry: target, key and best non-empty, times non-empty, finite
/// and >= 0, variant names unique, best among them. `what` names it in the
/// message ("entry 3").
Status validateTimingEntry(const TimingEntry &entry, const std::string &what);

/// Parses a cache file's text. `source` names it in messages. Foreign JSON
/// (no "kiln_timing_cache"), other versions and malformed entries are
/// refused; later entries for the same (target, key) replace earlier ones.
Status parseTimingCache(std::string_view text, const std::string &source,
                        TimingCache &out);
/// The cache as JSON text (one entry per line, ends with a newline).
std::string serializeTimingCache(const TimingCache &cache);

/// Reads and parses `path`. A missing file is an empty cache (`*existed` is
/// set to false); other failures are errors.
Status readTimingCache(const std::string &path, TimingCache &out,
                       bool *existed = nullptr);
/// What mergeTimingCacheFile did.
struct MergeResult {
  size_t replaced = 0, added = 0, total = 0;
  bool created = false; ///< the file did not exist before
};
/// Reads `path` (missing = empty), merges `entries` into it and writes it
/// back by tools::writeOutputFile's rule (atomically, never over one of
/// `inputs`). A file that cannot be read or parsed is left untouched.
Status
mergeTimingCacheFile(const std::string &path,
                     const std::vector<TimingEntry> &entries,
                     MergeResult *result = nullptr,
                     const std::vector<tools::ProtectedInput> &inputs = {});

} // namespace kiln::tune

#endif // KILN_TOOLS_KILNTUNE_TIMINGCACHE_H
