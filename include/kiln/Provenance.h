//===- Provenance.h - where a plan came from ----------------------*- C++
//-*-===//
//
// What a plan records of its making (runtime/PLAN_FORMAT.md, "Provenance"):
// the model and its external data by SHA-256, the compiler version, the
// effective options, the timing cache, the CUDA toolkit and ptxas, the build
// time and host. kilnc puts the model's entries on the module at import
// (kiln.provenance, so a graph written with --emit=graph keeps them);
// kiln-export-plan adds the rest from the pipeline's options.
// kilnc --check-plan compares a plan's entries with a model and options.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PROVENANCE_H
#define KILN_PROVENANCE_H

#include "kiln/Compiler.h"

#include "llvm/ADT/StringRef.h"

#include <string>
#include <utility>
#include <vector>

namespace kiln {

using ProvenanceEntries = std::vector<std::pair<std::string, std::string>>;

/// Module attribute: the model's entries, an array of [key, value] string
/// pairs in order.
constexpr const char *kProvenanceAttr = "kiln.provenance";

/// SHA-256 of a file's contents, in lower-case hex.
bool sha256(llvm::StringRef path, std::string &hex, std::string &error);

/// model.path (as given), model.sha256 and, when `externalFiles` (relative
/// to the model's directory) is not empty, model.external_data: one
/// "location sha256" line per file.
bool modelProvenance(llvm::StringRef modelPath,
                     const std::vector<std::string> &externalFiles,
                     ProvenanceEntries &out, std::string &error);

/// model.external_data for the files of a model at `modelPath` (relative to
/// its directory): one "location sha256" line per file; nothing when there
/// are none.
bool externalDataProvenance(llvm::StringRef modelPath,
                            const std::vector<std::string> &externalFiles,
                            ProvenanceEntries &out, std::string &error);

/// options.strip_weights: "off", or "on threshold=N".
std::string stripWeightsProvenance(bool stripWeights, uint64_t threshold);

/// The effective options as options.* entries, one canonical text per key:
/// what decides the plan's kernels, so equal entries mean equal options.
ProvenanceEntries optionsProvenance(const CompileOptions &options);

/// compiler.version, the options, timing_cache.sha256 (with a timing cache),
/// cuda.version and ptxas.version (with a GPU target).
bool compilerProvenance(const CompileOptions &options, ProvenanceEntries &out,
                        std::string &error);

/// build.time (UTC, ISO 8601; $SOURCE_DATE_EPOCH when set, for reproducible
/// builds) and build.host.
bool buildProvenance(ProvenanceEntries &out, std::string &error);

} // namespace kiln

#endif // KILN_PROVENANCE_H
