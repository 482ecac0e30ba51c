//===- Info.cpp - kiln-run --info: what a plan holds and where it came from
//===//
//
// Reads and validates the plan (no device needed) and prints its format,
// targets, required driver, sizes, inputs and outputs, tactic choices and
// provenance, as aligned text or as JSON.
//
//===----------------------------------------------------------------------===//
#include "Runner.h"

#include "kiln/Plan/PlanHeader.h"
#include "kiln/Plan/PlanIO.h"
#include "tools/common/Json.h"
#include "tools/common/OutputFile.h"
#include "tools/common/Sha256.h"

#include <algorithm>
#include <cstdio>

using namespace kiln;
using namespace kiln::plan;
using kiln::run::bytesText;

namespace {

std::string shapeText(const TensorDesc &d) {
  std::string s = "[";
  for (size_t i = 0; i < d.shape.size(); ++i) {
    if (i)
      s += ", ";
    if (i < d.dimNames.size() && !d.dimNames[i].empty())
      s += d.dimNames[i];
    else
      s += d.shape[i] < 0 ? std::string("?") : std::to_string(d.shape[i]);
  }
  return s + "]";
}

/// "1 kernel", "2 kernels".
std::string count(size_t n, const char *noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

/// "12.8" for 12080.
std::string driverText(uint32_t v) {
  if (!v)
    return "none (host only)";
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10) +
         " or newer";
}

struct Sizes {
  uint64_t file = 0, weightBytes = 0, strippedBytes = 0, moduleBytes = 0;
  size_t weightBuffers = 0, strippedBuffers = 0;
};

Sizes sizesOf(const Plan &plan, uint64_t fileBytes) {
  Sizes s;
  s.file = fileBytes;
  for (uint32_t i = 0; i < plan.buffers.size(); ++i) {
    if (plan.buffers[i].kind != BufferKind::Weight)
      continue;
    ++s.weightBuffers;
    s.weightBytes += plan.buffers[i].sizeBytes;
    if (plan.isStrippedBuffer(i)) {
      ++s.strippedBuffers;
      s.strippedBytes += plan.buffers[i].sizeBytes;
    }
  }
  for (const Module &m : plan.modules)
    s.moduleBytes += m.data.size;
  return s;
}

tools::Json bindingsJson(const std::vector<Binding> &bindings) {
  tools::Json list = tools::Json::array();
  for (const Binding &b : bindings) {
    tools::Json shape = tools::Json::array();
    for (size_t i = 0; i < b.desc.shape.size(); ++i) {
      if (i < b.desc.dimNames.size() && !b.desc.dimNames[i].empty())
        shape.push_back(b.desc.dimNames[i]);
      else
        shape.push_back(b.desc.shape[i]);
    }
    tools::Json j = {{"name", b.desc.name},
                     {"dtype", dtypeName(b.desc.dtype)},
                     {"shape", shape}};
    if (std::optional<uint64_t> size = b.desc.byteSize())
      j["bytes"] = *size;
    j["fixed_value"] = !b.fixedValue.empty();
    list.push_back(j);
  }
  return list;
}

/// SHA-256 of the plan as written without its provenance: equal for two
/// plans that differ only in where they came from (a refit plan and the
/// complete plan kilnc builds from the same model, a rebuild at another
/// time).
Status contentSha256(const Plan &plan, std::string &hex) {
  Plan content = plan;
  content.provenance.clear();
  std::vector<uint8_t> bytes;
  if (Status s = PlanWriter::fromPlan(content).serialize(bytes); !s)
    return s;
  return tools::sha256Bytes(bytes.data(), bytes.size(), hex);
}

} // namespace

int kiln::run::printPlanInfo(const Options &opt) {
  auto fail = [&](const std::string &message) {
    std::fprintf(stderr, "kiln-run: error: %s\n", message.c_str());
    if (opt.json && opt.jsonFile.empty())
      std::printf("%s\n",
                  tools::jsonText({{"ok", false}, {"error", message}}).c_str());
    return kExitError;
  };
  std::vector<uint8_t> bytes;
  Status st = readFile(opt.plan, bytes);
  PlanReader reader;
  PlanReader::Options options;
  options.allowWeightStripped = true; // described, not run
  if (st)
    st = reader.open(bytes.data(), bytes.size(), options);
  if (!st)
    return fail(opt.plan + ": " + st.message());
  const Plan &plan = reader.plan();
  const PlanHeader &header = reader.header();
  Sizes sizes = sizesOf(plan, bytes.size());
  std::string content;
  if (Status s = contentSha256(plan, content); !s)
    return fail(opt.plan + ": " + s.message());
  size_t launches = plan.steps.size();
  // What one inference launches: the steps of one module's kernels that run
  // (a runtime picks one module; choices run their selected variant).
  std::vector<size_t> moduleLaunches(plan.modules.size(), 0);
  std::vector<uint32_t> selected = plan.selectedVariants();
  for (const Step &step : plan.steps)
    if (step.kernel < plan.kernels.size() &&
        kiln::plan::stepRuns(step, selected) &&
        plan.kernels[step.kernel].module < moduleLaunches.size())
      ++moduleLaunches[plan.kernels[step.kernel].module];

  if (opt.json || !opt.jsonFile.empty()) {
    tools::Json targets = tools::Json::array();
    for (const std::string &t : plan.targets)
      targets.push_back(t);
    tools::Json modules = tools::Json::array();
    for (size_t i = 0; i < plan.modules.size(); ++i)
      modules.push_back({{"target", plan.modules[i].target},
                         {"format", moduleFormatName(plan.modules[i].format)},
                         {"bytes", plan.modules[i].data.size},
                         {"launches", moduleLaunches[i]}});
    tools::Json choices = tools::Json::array();
    for (const Choice &c : plan.choices)
      choices.push_back({{"name", c.name},
                         {"variants", c.variants},
                         {"selected", c.selected},
                         {"tuned_on", c.device}});
    tools::Json provenance = tools::Json::object();
    for (const ProvenanceEntry &e : plan.provenance)
      provenance[e.key] = e.value;
    tools::Json root = {
        {"ok", true},
        {"plan", opt.plan},
        {"format_version", header.formatVersion},
        {"file_bytes", sizes.file},
        {"content_sha256", content},
        {"compiler_version", plan.compilerVersion},
        {"targets", targets},
        {"min_driver_version", plan.minDriverVersion},
        {"inputs", bindingsJson(plan.inputs)},
        {"outputs", bindingsJson(plan.outputs)},
        {"weights",
         {{"buffers", sizes.weightBuffers},
          {"bytes", sizes.weightBytes},
          {"stripped_buffers", sizes.strippedBuffers},
          {"stripped_bytes", sizes.strippedBytes}}},
        {"arena_bytes", plan.arenaBytes},
        {"arena_bytes_without_reuse", plan.arenaBytesWithoutReuse},
        {"modules", modules},
        {"kernels", plan.kernels.size()},
        {"steps", launches},
        {"tensor_maps", plan.tensorMaps.size()},
        {"choices", choices},
        {"provenance", provenance}};
    if (!plan.profiles.empty()) {
      tools::Json profiles = tools::Json::array();
      for (size_t k = 0; k < plan.numProfiles(); ++k) {
        const Plan &p = plan.profile(k);
        profiles.push_back({{"index", k},
                            {"inputs", bindingsJson(p.inputs)},
                            {"outputs", bindingsJson(p.outputs)},
                            {"arena_bytes", p.arenaBytes},
                            {"kernels", p.kernels.size()},
                            {"steps", p.steps.size()}});
      }
      root["profiles"] = std::move(profiles);
    }
    std::string text = tools::jsonText(root) + "\n";
    if (opt.jsonFile.empty()) {
      std::fputs(text.c_str(), stdout);
    } else if (Status s = tools::writeOutputFile(opt.jsonFile, text,
                                                 {{opt.plan, "plan"}});
               !s) {
      return fail("--json: " + s.message());
    }
    if (opt.jsonFile.empty())
      return kExitOk;
  }

  auto row = [](const char *key, const std::string &value) {
    std::printf("  %-16s %s\n", key, value.c_str());
  };
  std::printf("kiln-run: plan %s\n", opt.plan.c_str());
  row("format", "v" + std::to_string(header.formatVersion) + ", " +
                    bytesText(sizes.file) + ", checksum ok, validated");
  row("content", "sha256 " + content + " (all but the provenance)");
  row("compiler", plan.compilerVersion);
  std::string targets;
  for (const std::string &t : plan.targets)
    targets += (targets.empty() ? "" : ", ") + t;
  row("targets", targets);
  row("CUDA driver", driverText(plan.minDriverVersion));
  std::string weights = count(sizes.weightBuffers, "buffer") + ", " +
                        bytesText(sizes.weightBytes);
  if (sizes.strippedBuffers)
    weights += "; stripped: " + count(sizes.strippedBuffers, "buffer") + ", " +
               bytesText(sizes.strippedBytes) + " (kiln-refit puts them back)";
  row("weights", weights);
  if (plan.profiles.empty()) {
    row("arena", bytesText(plan.arenaBytes) + " per context (" +
                     bytesText(plan.arenaBytesWithoutReuse) + " without reuse)");
  } else {
    uint64_t largest = 0;
    for (size_t k = 0; k < plan.numProfiles(); ++k)
      largest = std::max(largest, plan.profile(k).arenaBytes);
    row("arena", bytesText(largest) +
                     " per context (the largest profile's; each below)");
  }
  std::string modules;
  for (size_t i = 0; i < plan.modules.size(); ++i) {
    const Module &m = plan.modules[i];
    modules += (modules.empty() ? "" : ", ") + m.target + " " +
               moduleFormatName(m.format) + " " + bytesText(m.data.size) +
               " (" + std::to_string(moduleLaunches[i]) +
               (moduleLaunches[i] == 1 ? " launch)" : " launches)");
  }
  row("modules", modules);
  row("kernels",
      count(plan.kernels.size(), "kernel") + ", " + count(launches, "step") +
          (plan.tensorMaps.empty()
               ? std::string()
               : ", " + count(plan.tensorMaps.size(), "tensor map")));
  if (!plan.choices.empty()) {
    size_t tuned =
        std::count_if(plan.choices.begin(), plan.choices.end(),
                      [](const Choice &c) { return !c.device.empty(); });
    row("tactic choices", count(plan.choices.size(), "region") + ", " +
                              std::to_string(tuned) + " tuned");
  }
  auto bindings = [&](const char *title, const std::vector<Binding> &list) {
    std::printf("  %s:\n", title);
    size_t w = 4;
    for (const Binding &b : list)
      w = std::max(w, b.desc.name.size());
    for (const Binding &b : list) {
      std::optional<uint64_t> size = b.desc.byteSize();
      std::printf("    %-*s  %-5s %-22s %s%s\n", int(w), b.desc.name.c_str(),
                  dtypeName(b.desc.dtype), shapeText(b.desc).c_str(),
                  size ? bytesText(*size).c_str() : "dynamic",
                  b.fixedValue.empty() ? "" : "  (fixed at build time)");
    }
  };
  bindings("inputs", plan.inputs);
  bindings("outputs", plan.outputs);
  if (!plan.profiles.empty()) {
    // One line per profile: the input shapes, arena and launches.
    std::printf("  profiles:        %zu (kiln-run --profile-index K; the "
                "inputs and outputs above are profile 0's)\n",
                plan.numProfiles());
    for (size_t k = 0; k < plan.numProfiles(); ++k) {
      const Plan &p = plan.profile(k);
      std::string shapes;
      for (const Binding &b : p.inputs)
        shapes += (shapes.empty() ? "" : ", ") + b.desc.name + " " +
                  shapeText(b.desc);
      std::printf("    %-3zu %-40s arena %-10s %s\n", k, shapes.c_str(),
                  bytesText(p.arenaBytes).c_str(),
                  count(p.steps.size(), "step").c_str());
    }
  }
  std::printf("  provenance:\n");
  if (plan.provenance.empty())
    std::printf("    (none recorded)\n");
  size_t w = 4;
  for (const ProvenanceEntry &e : plan.provenance)
    w = std::max(w, e.key.size());
  for (const ProvenanceEntry &e : plan.provenance) {
    // Multi-line values (external data, input values) continue aligned.
    std::string value = e.value;
    std::string indent = "\n      " + std::string(w, ' ');
    for (size_t at = 0; (at = value.find('\n', at)) != std::string::npos;
         at += indent.size())
      value.replace(at, 1, indent);
    std::printf("    %-*s  %s\n", int(w), e.key.c_str(), value.c_str());
  }
  return kExitOk;
}
