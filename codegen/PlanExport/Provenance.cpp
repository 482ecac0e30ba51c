//===- Provenance.cpp - where a plan came from ----------------------------===//
//
// include/kiln/Provenance.h. Hashes and times as the runtime's tools do
// (tools/common/Sha256.h), so kilnc and kiln-refit record them alike.
//
//===----------------------------------------------------------------------===//
#include "kiln/Provenance.h"

#include "codegen/Targets/Targets.h"
#include "kiln/Plan/PlanIO.h"
#include "tools/common/Sha256.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>
#include <unistd.h>

using namespace kiln;

bool kiln::sha256(llvm::StringRef path, std::string &hex, std::string &error) {
  if (plan::Status st = tools::sha256File(path.str(), hex); !st) {
    error = st.message();
    return false;
  }
  return true;
}

bool kiln::modelProvenance(llvm::StringRef modelPath,
                           const std::vector<std::string> &externalFiles,
                           ProvenanceEntries &out, std::string &error) {
  std::string hex;
  if (!sha256(modelPath, hex, error))
    return false;
  out.emplace_back("model.path", modelPath.str());
  out.emplace_back("model.sha256", hex);
  return externalDataProvenance(modelPath, externalFiles, out, error);
}

bool kiln::externalDataProvenance(llvm::StringRef modelPath,
                                  const std::vector<std::string> &externalFiles,
                                  ProvenanceEntries &out, std::string &error) {
  if (externalFiles.empty())
    return true;
  std::string lines, hex;
  llvm::StringRef dir = llvm::sys::path::parent_path(modelPath);
  for (const std::string &location : externalFiles) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, location);
    if (!sha256(path, hex, error))
      return false;
    if (!lines.empty())
      lines += "\n";
    lines += location + " " + hex;
  }
  out.emplace_back("model.external_data", lines);
  return true;
}

static const char *onOff(bool b) { return b ? "on" : "off"; }

std::string kiln::stripWeightsProvenance(bool stripWeights,
                                         uint64_t threshold) {
  return stripWeights ? "on threshold=" + std::to_string(threshold)
                      : std::string("off");
}

ProvenanceEntries kiln::optionsProvenance(const CompileOptions &o) {
  ProvenanceEntries e;
  e.emplace_back("options.targets", llvm::join(o.targets, ","));
  e.emplace_back("options.precision", stringify(o.precision).str());
  e.emplace_back("options.layout", stringify(o.layout).str());
  std::string tactics = stringify(o.gpuTactics).str();
  if (o.gpuTactics == GpuTactics::all)
    tactics += " candidates=" + std::to_string(o.gpuTacticCandidates);
  e.emplace_back("options.tactics", tactics);
  e.emplace_back("options.strip_weights",
                 stripWeightsProvenance(o.stripWeights, o.stripThreshold));
  e.emplace_back("options.host_cpu",
                 o.hostCpu.empty() ? std::string("portable") : o.hostCpu);
  std::string gpu;
  llvm::raw_string_ostream os(gpu);
  os << "block=" << o.gpuBlockSize << " latency=" << o.gpuLatencyCycles
     << " wgmma=" << o.gpuWgmma << " tma=" << onOff(o.gpuTma)
     << " split_k=" << o.gpuSplitK
     << " cluster_split_k=" << onOff(o.gpuClusterSplitK)
     << " mma_stages=" << o.gpuMmaStages;
  e.emplace_back("options.gpu", gpu);
  std::string fusion;
  llvm::raw_string_ostream fs(fusion);
  fs << "sibling_matmuls=" << onOff(o.fuseSiblingMatmuls)
     << " sibling_convs=" << onOff(o.fuseSiblingConvs)
     << " concat_in_place=" << onOff(o.concatInPlace);
  if (o.precision == Precision::tf32)
    fs << " tf32_round_at_producers=" << onOff(o.tf32RoundAtProducers);
  e.emplace_back("options.fusion", fusion);
  // Only when used: other plans keep their provenance (and bytes).
  if (!o.tapNodes.empty())
    e.emplace_back("options.debug_taps", llvm::join(o.tapNodes, ","));
  if (!o.precisionRanges.empty())
    e.emplace_back("options.fp16_ranges",
                   std::to_string(o.precisionRanges.size()) +
                       " calibrated ranges (fp32 islands)");
  return e;
}

/// The CUDA toolkit: CUDA_VERSION of its cuda.h ("13.0") and its real path.
static bool cudaVersion(llvm::StringRef toolkit, std::string &out,
                        std::string &error) {
  llvm::SmallString<256> header(toolkit);
  llvm::sys::path::append(header, "include", "cuda.h");
  auto file = llvm::MemoryBuffer::getFile(header, /*IsText=*/true);
  if (!file) {
    error = "cannot read the CUDA toolkit's '" + std::string(header) +
            "' for the plan's provenance: " + file.getError().message();
    return false;
  }
  llvm::StringRef text = (*file)->getBuffer();
  size_t at = text.find("#define CUDA_VERSION ");
  unsigned version = 0;
  if (at == llvm::StringRef::npos || text.substr(at + 21)
                                         .take_while(llvm::isDigit)
                                         .getAsInteger(10, version)) {
    error = "'" + std::string(header) + "' defines no CUDA_VERSION";
    return false;
  }
  llvm::SmallString<256> real;
  if (llvm::sys::fs::real_path(toolkit, real))
    real = toolkit;
  out = std::to_string(version / 1000) + "." +
        std::to_string(version % 1000 / 10) + " (" + std::string(real) + ")";
  return true;
}

/// The last non-empty line of `ptxas --version` ("Build cuda_13.0.r13.0/...")
/// with the release line before it.
static bool ptxasVersion(const std::string &ptxas, std::string &out,
                         std::string &error) {
  llvm::SmallString<128> outFile;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("kiln-ptxas", "txt", outFile)) {
    error = "cannot create a temporary file: " + ec.message();
    return false;
  }
  std::optional<llvm::StringRef> redirects[] = {
      llvm::StringRef(""), llvm::StringRef(outFile), llvm::StringRef("")};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(ptxas, {ptxas, "--version"}, std::nullopt,
                                     redirects, 30, 0, &message);
  auto text = llvm::MemoryBuffer::getFile(outFile, /*IsText=*/true);
  llvm::sys::fs::remove(outFile);
  if (rc != 0 || !text) {
    error = "'" + ptxas + " --version' failed" +
            (message.empty() ? "" : ": " + message);
    return false;
  }
  llvm::SmallVector<llvm::StringRef> lines;
  (*text)->getBuffer().split(lines, '\n', -1, /*KeepEmpty=*/false);
  for (llvm::StringRef line : lines)
    if (line.contains("release")) {
      out = line.trim().str();
      return true;
    }
  error = "'" + ptxas + " --version' printed no release line";
  return false;
}

bool kiln::compilerProvenance(const CompileOptions &options,
                              ProvenanceEntries &out, std::string &error) {
  out.emplace_back("compiler.version",
                   std::string("kilnc ") + plan::kilnVersion());
  for (auto &entry : optionsProvenance(options))
    out.push_back(std::move(entry));
  if (!options.timingCachePath.empty()) {
    std::string hex;
    if (!sha256(options.timingCachePath, hex, error))
      return false;
    out.emplace_back("timing_cache.sha256", hex);
  }
  bool gpu = llvm::any_of(options.targets, [](const std::string &t) {
    return codegen::isGpuTarget(t);
  });
  if (!gpu)
    return true;
  std::string version;
  if (!cudaVersion(options.cudaToolkitPath, version, error))
    return false;
  out.emplace_back("cuda.version", version);
  std::string ptxas =
      codegen::findPtxas(options.ptxasPath, options.cudaToolkitPath);
  if (ptxas.empty()) {
    error = "cannot find ptxas for the plan's provenance";
    return false;
  }
  if (!ptxasVersion(ptxas, version, error))
    return false;
  out.emplace_back("ptxas.version", version);
  return true;
}

bool kiln::buildProvenance(ProvenanceEntries &out, std::string &error) {
  std::string now;
  if (plan::Status st = tools::utcTimestamp(now); !st) {
    error = st.message();
    return false;
  }
  out.emplace_back("build.time", now);
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) != 0)
    std::snprintf(host, sizeof host, "unknown");
  out.emplace_back("build.host", host);
  return true;
}
