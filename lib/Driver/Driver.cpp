//===- Driver.cpp - kilnc's build, as a library ---------------------------===//
#include "kiln/Driver.h"

#include "Int8.h"
#include "Profiles.h"

#include "dialects/Graph/IR/GraphDialect.h"
#include "kiln/InitAll.h"
#include "kiln/Plan/PlanIO.h"
#include "kiln/Support/Diagnostics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatAdapters.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <mutex>

using namespace llvm;
using namespace kiln;
namespace imp = kiln::onnx_import;

mlir::OwningOpRef<mlir::ModuleOp>
driver::importModel(mlir::MLIRContext &context, const Model &model,
                    const imp::ImportOptions &options, std::string &error) {
  mlir::OwningOpRef<mlir::ModuleOp> module =
      model.bytes
          ? imp::importONNXBuffer(context, *model.bytes, model.path, options)
          : imp::importONNXFile(context, model.path, options);
  if (!module)
    return nullptr;
  if (!recordImportProvenance(*module, model, options, error))
    return nullptr;
  return module;
}

static bool buildProfiles(const driver::Model &model,
                          const driver::BuildOptions &options,
                          std::vector<uint8_t> &plan, BuildReport &report,
                          raw_ostream &diagnostics);

bool driver::buildPlan(const Model &model, const BuildOptions &options,
                       std::vector<uint8_t> &plan, BuildReport &report,
                       raw_ostream &diagnostics) {
  if (options.int8)
    return buildInt8Plan(model, options, plan, report, diagnostics);
  if (!options.rangeCalibDir.empty())
    return buildWithRanges(model, options, plan, report, diagnostics);
  if (!options.profiles.empty())
    return buildProfiles(model, options, plan, report, diagnostics);
  // Pass registration is global; kernel lowering parses upstream pass
  // pipelines and needs them.
  static std::once_flag registered;
  std::call_once(registered, [] { registerAllPasses(); });
  mlir::DialectRegistry registry;
  registry.insert<graph::GraphDialect, mlir::func::FuncDialect>();
  registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.disableMultithreading();
  DiagnosticPrinter printer(context, diagnostics);
  auto start = std::chrono::steady_clock::now();
  std::string error;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importModel(context, model, options.import, error);
  if (!module) {
    if (!error.empty())
      diagnostics << "error: " << error << "\n";
    return false;
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  report.stages.push_back({"import", seconds});
  if (mlir::failed(compileToPlan(*module, options.compile, plan, report)))
    return false;
  if (!options.validateDir.empty()) {
    auto begin = std::chrono::steady_clock::now();
    bool ok = validateReduced(model, options, report, diagnostics);
    report.stages.push_back(
        {"validation",
         std::chrono::duration<double>(std::chrono::steady_clock::now() - begin)
             .count()});
    return ok;
  }
  return true;
}

/// --profile: the specs checked against the model's inputs, one build per
/// profile (its shapes as --input-shape), then profile 0's plan with the
/// others added as profiles sharing its weights.
static bool buildProfiles(const driver::Model &model,
                          const driver::BuildOptions &options,
                          std::vector<uint8_t> &plan, BuildReport &report,
                          raw_ostream &diagnostics) {
  std::string error;
  std::unique_ptr<MemoryBuffer> file;
  StringRef bytes;
  if (model.bytes) {
    bytes = *model.bytes;
  } else {
    auto buffer = MemoryBuffer::getFile(model.path, /*IsText=*/false,
                                        /*RequiresNullTerminator=*/false);
    if (!buffer) {
      diagnostics << "error: " << model.path
                  << ": cannot read: " << buffer.getError().message() << "\n";
      return false;
    }
    file = std::move(*buffer);
    bytes = file->getBuffer();
  }
  std::vector<imp::GraphInputDecl> decls;
  if (!imp::readGraphInputs(bytes, decls, error)) {
    diagnostics << "error: " << model.path << ": " << error << "\n";
    return false;
  }
  std::vector<driver::Profile> profiles;
  if (!driver::parseProfiles(options.profiles, decls,
                             options.import.inputShapes,
                             options.import.inputValues, profiles, error)) {
    diagnostics << "error: " << error << "\n";
    return false;
  }
  // The model is read once; every profile imports these bytes.
  driver::Model inMemory{model.path, bytes};
  std::vector<std::vector<uint8_t>> parts(profiles.size());
  std::vector<BuildReport> reports(profiles.size());
  for (size_t k = 0; k < profiles.size(); ++k) {
    auto start = std::chrono::steady_clock::now();
    driver::BuildOptions one = options;
    one.profiles.clear();
    for (const auto &[name, shape] : profiles[k].shapes)
      one.import.inputShapes[name] = shape;
    if (!driver::buildPlan(inMemory, one, parts[k], reports[k], diagnostics)) {
      diagnostics << "note: while building --profile '" << profiles[k].spec
                  << "'\n";
      return false;
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    report.profiles.push_back({profiles[k].spec, reports[k].kernels,
                               reports[k].gpuLaunches, reports[k].arenaBytes,
                               seconds});
    if (options.progress)
      *options.progress << formatv(
          "kilnc: profile {0}/{1} ({2}) built in {3:f2} s\n", k + 1,
          profiles.size(), profiles[k].spec, seconds);
  }
  auto mergeStart = std::chrono::steady_clock::now();
  plan::PlanReader::Options readOptions;
  readOptions.allowWeightStripped = true;
  std::vector<plan::PlanReader> readers(parts.size());
  for (size_t k = 0; k < parts.size(); ++k)
    if (plan::Status st =
            readers[k].open(parts[k].data(), parts[k].size(), readOptions);
        !st.ok()) {
      diagnostics << "error: --profile '" << profiles[k].spec
                  << "': " << st.message() << "\n";
      return false;
    }
  plan::PlanWriter writer = plan::PlanWriter::fromPlan(readers[0].plan());
  for (size_t k = 1; k < parts.size(); ++k)
    if (plan::Status st = writer.addProfileSharingWeights(readers[k].plan());
        !st.ok()) {
      diagnostics << "error: --profile '" << profiles[k].spec
                  << "': " << st.message() << "\n";
      return false;
    }
  // Each part recorded its own shapes as options.input_shapes; the plan
  // records the flags: --input-shape's shapes and the profiles.
  std::string shapes = driver::inputShapesText(options.import.inputShapes);
  std::string specs;
  for (const driver::Profile &p : profiles)
    specs += (specs.empty() ? "" : "; ") + p.spec;
  if (shapes.empty())
    writer.removeProvenance("options.input_shapes");
  else
    writer.addProvenance("options.input_shapes", shapes);
  writer.addProvenance("options.profiles", specs);
  if (plan::Status st = writer.serialize(plan); !st.ok()) {
    diagnostics << "error: merging the profiles: " << st.message() << "\n";
    return false;
  }
  std::vector<ProfileBuild> rows = std::move(report.profiles);
  report = reports[0];
  report.profiles = std::move(rows);
  report.planBytes = plan.size();
  for (size_t k = 1; k < reports.size(); ++k)
    for (const StageTime &t : reports[k].stages) {
      auto it = llvm::find_if(report.stages, [&](const StageTime &s) {
        return s.name == t.name;
      });
      if (it != report.stages.end())
        it->seconds += t.seconds;
      else
        report.stages.push_back(t);
    }
  report.stages.push_back(
      {"merge profiles", std::chrono::duration<double>(
                             std::chrono::steady_clock::now() - mergeStart)
                             .count()});
  return true;
}

static std::string formatBytes(uint64_t bytes) {
  if (bytes >= 1000000)
    return formatv("{0:f2} MB", bytes / 1e6).str();
  if (bytes >= 1000)
    return formatv("{0:f1} kB", bytes / 1e3).str();
  return formatv("{0} B", bytes).str();
}

json::Value driver::reportJson(const BuildReport &report,
                               const CompileOptions &options,
                               StringRef modelPath, StringRef planPath) {
  double total = 0;
  for (const auto &s : report.stages)
    total += s.seconds;
  json::Array stages;
  for (const auto &s : report.stages)
    stages.push_back(json::Object{{"name", s.name}, {"seconds", s.seconds}});
  json::Object root{
      {"model", modelPath.str()},
      {"plan",
       planPath.empty() ? json::Value(nullptr) : json::Value(planPath.str())},
      {"targets", json::Array(options.targets)},
      {"kernels", report.kernels},
      {"fused_ops", report.fusedOps},
      {"views", report.views},
      {"matmul_prologue_ops", report.prologueOps},
      {"slice_reads", report.sliceReads},
      {"hoisted_scales", report.hoistedScales},
      {"pad_prologue_ops", report.padPrologueOps},
      {"output_copies", report.outputCopies},
      {"weights", report.weights},
      {"weight_bytes", (int64_t)report.weightBytes},
      {"stripped_weights", report.strippedWeights},
      {"stripped_weight_bytes", (int64_t)report.strippedWeightBytes},
      {"arena_bytes", (int64_t)report.arenaBytes},
      {"arena_bytes_without_reuse", (int64_t)report.arenaBytesWithoutReuse},
      {"host_module_bytes", (int64_t)report.hostModuleBytes},
      {"precision", kiln::stringify(options.precision).str()},
      {"gpu_launches", report.gpuLaunches},
      {"tensor_core_ops", report.tensorCoreOps},
      {"fused_epilogues", report.fusedEpilogues},
      {"wgmma_ops", report.wgmmaOps},
      {"tma_ops", report.tmaOps},
      {"elided_concats", report.elidedConcats},
      {"tf32_rounded_activations", report.tf32RoundedActivations},
      {"elided_concat_inputs", report.elidedConcatInputs},
      {"tensor_maps", report.tensorMaps},
      {"reduction_kernels", report.reductionKernels},
      {"row_fusions", report.rowFusions},
      {"window_pools", report.windowPools},
      {"depthwise_convs", report.depthwiseConvs},
      {"tactic_choices", report.tacticChoices},
      {"tactic_variants", report.tacticVariants},
      {"timing_cache_entries", report.timingCacheEntries},
      {"timing_cache_hits", report.timingCacheHits},
      {"timing_cache_stale", report.timingCacheStale},
      {"layout", report.layout},
      {"nhwc_convs", report.nhwcConvs},
      {"dense_grouped_convs", report.denseGroupedConvs},
      {"k_major_weights", report.kMajorWeights},
      {"sibling_matmul_groups", report.siblingGroups},
      {"sibling_matmuls", report.siblingMatmuls},
      {"sibling_conv_groups", report.siblingConvGroups},
      {"sibling_convs", report.siblingConvs},
      {"sibling_conv_groups_mixed", report.siblingConvsMixed},
      {"tf32_rounded_weights", report.roundedWeights},
      {"layout_transposes", report.layoutTransposes},
      {"ptx_bytes", (int64_t)report.ptxBytes},
      {"cubin_bytes", (int64_t)report.cubinBytes},
      {"plan_bytes", (int64_t)report.planBytes},
      {"stages", std::move(stages)},
      {"total_seconds", total}};
  if (report.int8) {
    json::Array layers;
    for (const BuildReport::Int8Layer &l : report.int8->layers) {
      json::Array acts;
      for (const auto &[tensor, amax] : l.activations)
        acts.push_back(json::Object{{"tensor", tensor}, {"amax", amax}});
      layers.push_back(
          json::Object{{"node", l.node},
                       {"op", l.op},
                       {"activations", std::move(acts)},
                       {"weight", l.weight.empty() ? json::Value(nullptr)
                                                   : json::Value(l.weight)},
                       {"weight_channels", l.weightChannels},
                       {"weight_scale_min", l.minWeightScale},
                       {"weight_scale_max", l.maxWeightScale}});
    }
    root["precision"] = "int8";
    root["int8"] = json::Object{
        {"method", report.int8->method},
        {"source", report.int8->source},
        {"execution", "qdq-f32"},
        {"kept_fp32", json::Array(report.int8->keptFp32)},
        {"tolerance", report.int8->tolerance},
        {"error_all_int8", report.int8->errorAllInt8},
        {"error", report.int8->errorFinal},
        {"tolerance_kept", json::Array(report.int8->toleranceKept)},
        {"layers", std::move(layers)}};
  }
  if (report.fp16RangeSamples || !report.fp32Islands.empty()) {
    root["fp32_islands"] = json::Array(report.fp32Islands);
    root["fp16_range_samples"] = report.fp16RangeSamples;
  }
  if (report.taps)
    root["taps"] = report.taps;
  if (report.validation) {
    const BuildReport::Validation &v = *report.validation;
    json::Array outs;
    for (const auto &o : v.outputs)
      outs.push_back(
          json::Object{{"name", o.name},
                       {"max_abs_error", o.maxAbsError},
                       {"max_abs_value", o.maxAbsReference},
                       {"scaled_error", std::isinf(o.scaledError)
                                            ? json::Value(nullptr)
                                            : json::Value(o.scaledError)}});
    root["validation"] =
        json::Object{{"passed", v.passed},
                     {"samples", v.samples},
                     {"tolerance", v.tolerance},
                     {"outputs", std::move(outs)},
                     {"first_node_beyond_tolerance",
                      v.firstNode.empty() ? json::Value(nullptr)
                                          : json::Value(v.firstNode)}};
  }
  if (!report.profiles.empty()) {
    json::Array rows;
    for (const ProfileBuild &p : report.profiles)
      rows.push_back(json::Object{{"profile", p.spec},
                                  {"kernels", p.kernels},
                                  {"gpu_launches", p.gpuLaunches},
                                  {"arena_bytes", (int64_t)p.arenaBytes},
                                  {"seconds", p.seconds}});
    root["profiles"] = std::move(rows);
  }
  return json::Value(std::move(root));
}

/// --precision int8: the calibration and a row per quantized layer.
static void printInt8(raw_ostream &os, const BuildReport::Int8Summary &q) {
  os << formatv("  {0}  {1} convs/matmuls ({2}; {3})\n",
                fmt_align("int8 layers", AlignStyle::Left, 24), q.layers.size(),
                q.method, q.source);
  os << "    activations per tensor, weights per output channel, symmetric; "
        "Q/DQ computed in f32 on the host (no int8 kernels yet)\n";
  if (q.method != "minmax")
    os << "    graph inputs keep their whole range (minmax), the other "
          "activations "
       << q.method << "\n";
  if (q.keptFp32.size() > q.toleranceKept.size())
    os << "    kept in fp32 (--layer-precision): "
       << join(ArrayRef<std::string>(q.keptFp32)
                   .drop_back(q.toleranceKept.size()),
               ", ")
       << "\n";
  if (q.tolerance > 0) {
    char tol[32];
    std::snprintf(tol, sizeof(tol), "%g", q.tolerance);
    os << formatv("    --int8-tolerance {0}: error against f32 {1:e2} with "
                  "every layer int8, {2:e2} with {3} layer{4} back in fp32 "
                  "(most sensitive first)\n",
                  tol, q.errorAllInt8, q.errorFinal, q.toleranceKept.size(),
                  q.toleranceKept.size() == 1 ? "" : "s");
    for (const std::string &k : q.toleranceKept)
      os << "      " << k << "\n";
  }
  size_t wn = 4, wa = 10;
  std::vector<std::string> acts;
  for (const auto &l : q.layers) {
    std::string a;
    for (const auto &[tensor, amax] : l.activations)
      a += (a.empty() ? "" : ", ") + formatv("{0} {1:g}", tensor, amax).str();
    acts.push_back(a.empty() ? "-" : a);
    wn = std::max(wn, l.node.size());
    wa = std::max(wa, acts.back().size());
  }
  os << formatv("    {0}  {1}  {2}  {3,8}  {4}\n",
                fmt_align("node", AlignStyle::Left, wn),
                fmt_align("op", AlignStyle::Left, 6),
                fmt_align("input amax", AlignStyle::Left, wa), "channels",
                "weight scales");
  for (size_t i = 0; i < q.layers.size(); ++i) {
    const auto &l = q.layers[i];
    std::string scales =
        l.weight.empty()
            ? "- (no weight)"
            : formatv("{0:e2} .. {1:e2}", l.minWeightScale, l.maxWeightScale)
                  .str();
    os << formatv("    {0}  {1}  {2}  {3,8}  {4}\n",
                  fmt_align(l.node, AlignStyle::Left, wn),
                  fmt_align(l.op, AlignStyle::Left, 6),
                  fmt_align(acts[i], AlignStyle::Left, wa),
                  l.weightChannels ? std::to_string(l.weightChannels) : "-",
                  scales);
  }
}

void driver::printReport(raw_ostream &os, const BuildReport &report,
                         const CompileOptions &options, StringRef modelPath,
                         StringRef planPath) {
  double total = 0;
  for (const auto &s : report.stages)
    total += s.seconds;
  auto row = [&os](StringRef key, const std::string &value) {
    os << formatv("  {0}  {1}\n", fmt_align(key, AlignStyle::Left, 24), value);
  };
  os << formatv("kilnc: built {0} from {1} for {2} in {3:f2} s\n", planPath,
                sys::path::filename(modelPath), join(options.targets, ","),
                total);
  row("kernels",
      formatv("{0} ({1} output copies)", report.kernels, report.outputCopies)
          .str());
  row("precision",
      report.int8 ? std::string("int8 convs/matmuls (calibrated Q/DQ), the "
                                "rest fp32")
      : options.precision == kiln::Precision::fp32 ? std::string("fp32")
      : options.precision == kiln::Precision::tf32
          ? std::string("tf32 (f32 values; tensor-core inputs "
                        "rounded to 10 mantissa bits)")
          : formatv("{0} ({1} weights, {2} values converted)",
                    kiln::stringify(options.precision), report.precisionWeights,
                    report.precisionValues)
                .str());
  if (report.fp16RangeSamples || !report.fp32Islands.empty()) {
    row("fp32 islands",
        formatv("{0} ops kept in f32 ({1})", report.fp32Islands.size(),
                report.fp16RangeSamples
                    ? formatv("values ranged over {0} calibration samples; "
                              "limit |x| < 16384",
                              report.fp16RangeSamples)
                          .str()
                    : std::string("weights beyond f16; no calibration data: "
                                  "--calib DIR ranges the activations"))
            .str());
    for (const std::string &i : report.fp32Islands)
      os << "    " << i << "\n";
  }
  if (report.validation) {
    const BuildReport::Validation &v = *report.validation;
    row("validation",
        formatv("{0} on {1} samples against an f32 host build (tolerance "
                "{2} of each output's max |value|)",
                v.passed ? "passed" : "FAILED", v.samples, v.tolerance)
            .str());
    size_t w = 6;
    for (const auto &o : v.outputs)
      w = std::max(w, o.name.size());
    os << formatv("    {0}  {1,12}  {2,12}  {3,12}\n",
                  fmt_align("output", AlignStyle::Left, w), "max |error|",
                  "max |value|", "scaled");
    for (const auto &o : v.outputs)
      os << formatv("    {0}  {1,12:e3}  {2,12:e3}  {3,12}\n",
                    fmt_align(o.name, AlignStyle::Left, w), o.maxAbsError,
                    o.maxAbsReference,
                    std::isinf(o.scaledError)
                        ? std::string("inf/NaN")
                        : formatv("{0:e3}", o.scaledError).str());
  }
  if (report.tf32RoundedActivations)
    row("tf32 activations",
        formatv("{0} rounded by the kernels producing them (read only by "
                "convs and matmuls, which then skip rounding)",
                report.tf32RoundedActivations)
            .str());
  row("layout",
      report.layout == "nhwc"
          ? formatv(
                "nhwc ({0} convs channels-last{2}, {1} "
                "transposes left)",
                report.nhwcConvs, report.layoutTransposes,
                (report.denseGroupedConvs ? formatv(", {0} grouped made dense",
                                                    report.denseGroupedConvs)
                                                .str()
                                          : std::string()) +
                    (report.kMajorWeights ? formatv(", {0} matmul weights "
                                                    "stored K-major",
                                                    report.kMajorWeights)
                                                .str()
                                          : std::string()) +
                    (report.roundedWeights ? formatv(", {0} weights rounded to "
                                                     "tf32",
                                                     report.roundedWeights)
                                                 .str()
                                           : std::string()))
                .str()
          : report.layout);
  row("fused elementwise ops", std::to_string(report.fusedOps));
  if (report.siblingGroups)
    row("sibling matmuls", formatv("{0} run as {1} batched matmuls (one input, "
                                   "weights stacked)",
                                   report.siblingMatmuls, report.siblingGroups)
                               .str());
  if (report.siblingConvGroups)
    row("sibling convs",
        formatv("{0} run as {1} convs (one input, filters concatenated{2})",
                report.siblingConvs, report.siblingConvGroups,
                report.siblingConvsMixed
                    ? formatv("; {0} with per-channel activations",
                              report.siblingConvsMixed)
                          .str()
                    : std::string())
            .str());
  if (report.elidedConcats)
    row("concats in place",
        formatv("{0} (their {1} inputs written into slices of the result; "
                "no copy kernel)",
                report.elidedConcats, report.elidedConcatInputs)
            .str());
  row("views (static reshapes)", std::to_string(report.views));
  if (report.prologueOps || report.hoistedScales)
    row("matmul operand prologues",
        formatv("{0} transposes/slices/reshapes read in place, {1} scales "
                "moved to epilogues",
                report.prologueOps, report.hoistedScales)
            .str());
  if (report.sliceReads)
    row("slices read in place",
        formatv("{0} (by convs and elementwise ops, strided)",
                report.sliceReads)
            .str());
  if (report.padPrologueOps)
    row("pad prologues", formatv("{0} casts/transposes read in place by pads",
                                 report.padPrologueOps)
                             .str());
  row("weights", formatv("{0} in {1} tensors", formatBytes(report.weightBytes),
                         report.weights)
                     .str());
  if (options.stripWeights)
    row("stripped weights",
        formatv("{0} in {1} tensors (refit with kiln-refit)",
                formatBytes(report.strippedWeightBytes), report.strippedWeights)
            .str());
  row("activations with reuse", formatBytes(report.arenaBytes));
  row("activations w/o reuse", formatBytes(report.arenaBytesWithoutReuse));
  if (report.hostModuleBytes)
    row("host module", formatBytes(report.hostModuleBytes));
  if (report.gpuLaunches)
    row("GPU launches",
        formatv("{0} per inference; PTX {1}, cubins {2}", report.gpuLaunches,
                formatBytes(report.ptxBytes), formatBytes(report.cubinBytes))
            .str());
  if (report.tensorCoreOps)
    row("tensor-core tactics",
        formatv("{0} conv/matmul ops ({1} wgmma, {2} mma.sync), {3} with "
                "fused epilogue",
                report.tensorCoreOps, report.wgmmaOps,
                report.tensorCoreOps - report.wgmmaOps, report.fusedEpilogues)
            .str());
  if (report.tmaOps)
    row("TMA loads",
        formatv("{0} wgmma ops load operands with TMA ({1} tensor maps)",
                report.tmaOps, report.tensorMaps)
            .str());
  if (report.tacticChoices)
    row("tactic choices",
        formatv("{0} conv/matmul ops in {1} variants (the cost model's "
                "selected; kiln-tune picks)",
                report.tacticChoices, report.tacticVariants)
            .str());
  if (!options.timingCachePath.empty())
    row("timing cache",
        formatv("{0} conv/matmul ops found in it ({1} entries for "
                "the target){2}",
                report.timingCacheHits, report.timingCacheEntries,
                report.timingCacheStale
                    ? formatv(", {0} of them stale: the cost model chose",
                              report.timingCacheStale)
                          .str()
                    : std::string())
            .str());
  if (report.reductionKernels)
    row("reduction kernels", std::to_string(report.reductionKernels));
  if (report.windowPools)
    row("window pools", std::to_string(report.windowPools) +
                            " max pools, one direct kernel each");
  if (report.depthwiseConvs)
    row("depthwise convs", std::to_string(report.depthwiseConvs) +
                               " convs, one direct kernel each");
  if (report.rowFusions)
    row("warp row fusions", std::to_string(report.rowFusions) +
                                " launches, each a run of row-wise ops");
  row("plan file", formatBytes(report.planBytes));
  if (report.int8)
    printInt8(os, *report.int8);
  if (!report.profiles.empty()) {
    // The figures above are profile 0's; each profile's are here.
    row("profiles", formatv("{0} (the figures above are profile 0's; weights "
                            "shared, kernels per profile)",
                            report.profiles.size())
                        .str());
    size_t w = 7;
    for (const ProfileBuild &p : report.profiles)
      w = std::max(w, p.spec.size());
    os << formatv("    {0}  {1}  {2,7}  {3,8}  {4,10}  {5,8}\n", "#",
                  fmt_align("shapes", AlignStyle::Left, w), "kernels",
                  "launches", "arena", "build");
    for (size_t k = 0; k < report.profiles.size(); ++k) {
      const ProfileBuild &p = report.profiles[k];
      os << formatv("    {0}  {1}  {2,7}  {3,8}  {4,10}  {5,6:f2} s\n", k,
                    fmt_align(p.spec, AlignStyle::Left, w), p.kernels,
                    p.gpuLaunches, formatBytes(p.arenaBytes), p.seconds);
    }
  }
  os << "  build time per stage:\n";
  for (const auto &s : report.stages)
    os << formatv("    {0}  {1,8:f3} s\n",
                  fmt_align(s.name, AlignStyle::Left, 28), s.seconds);
}
