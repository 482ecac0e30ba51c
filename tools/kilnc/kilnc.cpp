//===- kilnc.cpp - kiln's ahead-of-time compiler driver -------------------===//
//
//   kilnc model.onnx --emit=graph [-o out.mlir]   import into the graph dialect
//   kilnc check model.onnx [--json]               op/opset coverage report
//   kilnc model.onnx -o model.plan --target host  compile to a plan
//   kilnc --check-plan model.plan model.onnx ...  is the plan up to date?
//
//===----------------------------------------------------------------------===//
#include "kiln/Compiler.h"
#include "kiln/Plan/PlanIO.h"
#include "tools/common/OutputFile.h"
#include "tools/kilnc/Profiles.h"
#include "tools/kilnc/Provenance.h"
#include "kiln/Import/ONNX.h"
#include "kiln/InitAll.h"
#include "dialects/Graph/IR/GraphDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "kiln/Support/CommandLine.h"
#include "kiln/Support/Diagnostics.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatAdapters.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>

using namespace llvm;
namespace imp = kiln::onnx_import;

static constexpr const char *kVersion = "0.1.0";

namespace {
enum class Emit { Graph, Plan };

cl::OptionCategory category("kilnc options");
cl::opt<std::string> inputFile(cl::Positional, cl::desc("<model.onnx>"),
                               cl::cat(category));
cl::opt<std::string>
    outputFile("o", cl::desc("Output file (default: stdout for --emit=graph)"),
               cl::value_desc("file"), cl::init("-"), cl::cat(category));
cl::opt<Emit, false, kiln::ListedValuesParser<Emit>>
    emit("emit", cl::desc("What to produce"),
         cl::values(clEnumValN(Emit::Graph, "graph",
                               "the imported kiln graph dialect (MLIR)"),
                    clEnumValN(Emit::Plan, "plan",
                               "a plan for the runtime (default)")),
         cl::init(Emit::Plan), cl::cat(category));
cl::list<std::string>
    targets("target",
            cl::desc("Targets of the plan, comma-separated: host and/or GPU "
                     "architectures sm_70 ... sm_120a (default: host)"),
            cl::value_desc("list"), cl::CommaSeparated, cl::cat(category));
cl::list<std::string> profileSpecs(
    "profile",
    cl::desc("An optimization profile: the shapes of the dynamic inputs, "
             "NAME=DIMS[,NAME=DIMS...] (or NAME=MIN:OPT:MAX with all three "
             "equal); repeat for one plan that runs several shapes"),
    cl::value_desc("name=dims,..."), cl::cat(category));
cl::list<std::string> inputShapes(
    "input-shape",
    cl::desc(
        "Override a graph input's shape: NAME=1x3x224x224 (? for dynamic)"),
    cl::value_desc("name=dims"), cl::cat(category));
cl::opt<kiln::Precision, false, kiln::ListedValuesParser<kiln::Precision>>
    precision(
        "precision",
        cl::desc("Element type of f32 computation (plan I/O keeps the model's "
                 "types)"),
        cl::values(
            clEnumValN(kiln::Precision::fp32, "fp32", "f32 (default)"),
            clEnumValN(kiln::Precision::tf32, "tf32",
                       "values stay f32; GPU convs and matmuls (sm_80+) run on "
                       "tensor cores with tf32 inputs and f32 accumulation"),
            clEnumValN(kiln::Precision::fp16, "fp16", "IEEE half"),
            clEnumValN(kiln::Precision::bf16, "bf16", "bfloat16")),
        cl::init(kiln::Precision::fp32), cl::cat(category));
cl::opt<kiln::GpuTactics, false, kiln::ListedValuesParser<kiln::GpuTactics>>
    tactics(
        "tactics", cl::desc("GPU conv/matmul kernels"),
        cl::values(
            clEnumValN(
                kiln::GpuTactics::automatic, "auto",
                "tensor-core tactics for fp16/bf16/tf32 on sm_80+ chosen "
                "by the cost model (default)"),
            clEnumValN(kiln::GpuTactics::all, "all",
                       "up to --tactic-candidates variants per conv/matmul in "
                       "the plan, the cost model's selected; kiln-tune times "
                       "them and selects the fastest"),
            clEnumValN(kiln::GpuTactics::generic, "generic",
                       "loop-nest kernels only")),
        cl::init(kiln::GpuTactics::automatic), cl::cat(category));
cl::opt<int64_t> tacticCandidates(
    "tactic-candidates",
    cl::desc("--tactics all: the most variants per conv/matmul, 2-8 "
             "(default 4)"),
    cl::init(kiln::CompileOptions().gpuTacticCandidates), cl::cat(category));
cl::opt<std::string> timingCache(
    "timing-cache",
    cl::desc("Timing cache written by kiln-tune: convs/matmuls it measured "
             "on the plan's first target take the fastest tactic it "
             "recorded"),
    cl::value_desc("file"), cl::init(""), cl::cat(category));
cl::opt<int64_t> gpuLatency(
    "gpu-cost-latency",
    cl::desc("Tensor-core cost model: cycles until a K step's loads arrive "
             "(tuning)"),
    cl::init(kiln::CompileOptions().gpuLatencyCycles), cl::Hidden,
    cl::cat(category));
cl::opt<int64_t> gpuSplitK(
    "gpu-split-k",
    cl::desc("mma.sync GEMM kernels: force this split-K factor (0: the cost "
             "model's; tests)"),
    cl::init(0), cl::Hidden, cl::cat(category));
cl::opt<bool> fuseSiblingMatmuls(
    "fuse-sibling-matmuls",
    cl::desc("Run matmuls that share their input and have constant weights "
             "of one type as one batched matmul (horizontal fusion)"),
    cl::init(kiln::CompileOptions().fuseSiblingMatmuls), cl::Hidden,
    cl::cat(category));
cl::opt<bool> fuseSiblingConvs(
    "fuse-sibling-convs",
    cl::desc("Run 2-D convs that share their input and geometry as one conv "
             "with the filters concatenated (horizontal fusion)"),
    cl::init(kiln::CompileOptions().fuseSiblingConvs), cl::Hidden,
    cl::cat(category));
cl::opt<bool> gpuClusterSplitK(
    "gpu-cluster-split-k",
    cl::desc("sm_90+: split-K GEMMs add their partial sums within a "
             "thread-block cluster (one launch); =false: global partial sums "
             "and a second launch (tests, comparisons)"),
    cl::init(kiln::CompileOptions().gpuClusterSplitK), cl::Hidden,
    cl::cat(category));
cl::opt<int64_t> gpuMmaStages(
    "gpu-mma-stages",
    cl::desc("mma.sync GEMM kernels with 16-byte operand loads: shared stages "
             "of the cp.async ring, 3-8 (2: registers and two buffers)"),
    cl::init(kiln::CompileOptions().gpuMmaStages), cl::Hidden,
    cl::cat(category));
cl::opt<std::string> gpuWgmma(
    "gpu-wgmma",
    cl::desc("sm_90a wgmma GEMM kernels: auto (cost model), off, or a forced "
             "tile MxNxS[xD] (tuning)"),
    cl::init(kiln::CompileOptions().gpuWgmma), cl::Hidden, cl::cat(category));
cl::opt<bool> concatInPlace(
    "concat-in-place",
    cl::desc("A concat's producing kernels write their results into its "
             "slices instead of a copy kernel (=false: the copy, for "
             "comparisons)"),
    cl::init(kiln::CompileOptions().concatInPlace), cl::Hidden,
    cl::cat(category));
cl::opt<bool> tf32RoundAtProducers(
    "tf32-round-at-producers",
    cl::desc("--precision tf32 on GPUs: conv/matmul kernels round the "
             "results that only convs and matmuls read, which then skip "
             "rounding them (=false: every reader rounds, for comparisons)"),
    cl::init(kiln::CompileOptions().tf32RoundAtProducers), cl::Hidden,
    cl::cat(category));
cl::opt<bool> gpuTma(
    "gpu-tma",
    cl::desc("sm_90a wgmma kernels load operands that are plain strided "
             "tensors with TMA (cp.async.bulk.tensor, mbarriers); =false: "
             "cp.async for every operand (comparisons)"),
    cl::init(kiln::CompileOptions().gpuTma), cl::Hidden, cl::cat(category));
cl::opt<kiln::Layout, false, kiln::ListedValuesParser<kiln::Layout>> layout(
    "layout", cl::desc("Activation layout of 2-D convolutions"),
    cl::values(clEnumValN(kiln::Layout::automatic, "auto",
                          "NHWC for fp16/bf16/tf32 on GPU targets, else NCHW "
                          "(default)"),
               clEnumValN(kiln::Layout::nhwc, "nhwc", "channels-last"),
               clEnumValN(kiln::Layout::nchw, "nchw", "channels-first")),
    cl::init(kiln::Layout::automatic), cl::cat(category));
cl::opt<std::string> cudaPath(
    "cuda-path", cl::desc("CUDA toolkit for GPU targets (libdevice, ptxas)"),
    cl::value_desc("dir"), cl::init("/usr/local/cuda"), cl::cat(category));
cl::list<std::string> inputValues(
    "input-value",
    cl::desc("Fix a graph input's value at build time: NAME=FILE (.pb ONNX "
             "TensorProto or .npy). The plan still declares the input and the "
             "runtime refuses other values; lets axes, shapes, sizes, K, ... "
             "come from graph inputs"),
    cl::value_desc("name=file"), cl::cat(category));
cl::opt<bool>
    onnxChecker("onnx-checker",
                cl::desc("Run libonnx's model checker first (IR <= 8)"),
                cl::cat(category));
cl::opt<bool> noOnnxShapeInference(
    "no-onnx-shape-inference",
    cl::desc("Do not refine shapes with libonnx's shape inference"),
    cl::cat(category));
cl::opt<bool> elideWeights("elide-weights",
                           cl::desc("Print weight blobs as __elided__ (output "
                                    "does not parse back)"),
                           cl::cat(category));
cl::opt<bool>
    jsonOutput("json",
               cl::desc("Print the check or build report as JSON on stdout"),
               cl::cat(category));
cl::opt<std::string> checkPlanFile(
    "check-plan",
    cl::desc("Say whether PLAN was built from the model with the options "
             "given (its provenance; exit 0 up to date, 1 not, 2 unreadable) "
             "instead of building it"),
    cl::value_desc("plan"), cl::cat(category));
cl::opt<bool> quiet("q", cl::desc("No summary on stderr"), cl::cat(category));
cl::opt<bool> stripWeights(
    "strip-weights",
    cl::desc("Leave large weights out of the plan (size and XXH64 only); "
             "restore them with kiln-refit PLAN --weights-from MODEL.onnx"),
    cl::cat(category));
cl::opt<uint64_t> stripThreshold(
    "strip-threshold",
    cl::desc("With --strip-weights: strip weights of at least this many bytes"),
    cl::init(4096), cl::cat(category));
} // namespace

/// The files kilnc reads, which -o must not overwrite.
static std::vector<kiln::tools::ProtectedInput> protectedInputs() {
  std::vector<kiln::tools::ProtectedInput> inputs = {
      {inputFile, "input model"}};
  if (!timingCache.empty())
    inputs.push_back({timingCache, "timing cache"});
  for (const std::string &spec : inputValues)
    if (auto [name, file] = StringRef(spec).split('='); !file.empty())
      inputs.push_back(
          {file.str(), "--input-value file of '" + name.str() + "'"});
  return inputs;
}

static bool parseInputShapes(imp::ImportOptions &options) {
  for (const std::string &spec : inputShapes) {
    auto [name, dims] = StringRef(spec).rsplit('=');
    if (name.empty() || dims.empty()) {
      errs() << "error: --input-shape expects NAME=DIMS (like "
                "data=1x3x224x224), got '"
             << spec << "'\n";
      return false;
    }
    std::vector<int64_t> shape;
    SmallVector<StringRef> parts;
    dims.split(parts, 'x');
    for (StringRef p : parts) {
      int64_t d;
      if (p == "?") {
        shape.push_back(-1);
      } else if (p.getAsInteger(10, d) || d < 0) {
        errs() << "error: --input-shape '" << spec << "': bad dim '" << p
               << "'\n";
        return false;
      } else {
        shape.push_back(d);
      }
    }
    options.inputShapes[name.str()] = shape;
  }
  return true;
}

static bool parseInputValues(imp::ImportOptions &options) {
  for (const std::string &spec : inputValues) {
    auto [name, file] = StringRef(spec).split('=');
    if (name.empty() || file.empty()) {
      errs() << "error: --input-value expects NAME=FILE (like axes=axes.npy), "
                "got '"
             << spec << "'\n";
      return false;
    }
    if (!options.inputValues.emplace(name.str(), file.str()).second) {
      errs() << "error: --input-value for '" << name << "' is given twice\n";
      return false;
    }
  }
  return true;
}

static int runCheck(StringRef path) {
  imp::ImportOptions options;
  if (!parseInputShapes(options) || !parseInputValues(options))
    return 2;
  imp::CoverageReport report;
  bool readable = imp::checkONNXFile(path, report, options);
  size_t supported =
      llvm::count_if(report.ops, [](auto &o) { return o.supported; });
  bool ok = readable && report.problems.empty() &&
            supported == report.ops.size() && report.importOk;
  if (jsonOutput) {
    json::Array ops;
    for (const auto &o : report.ops)
      ops.push_back(json::Object{{"domain", o.domain},
                                 {"op_type", o.opType},
                                 {"count", o.count},
                                 {"opset", o.opset},
                                 {"handler_since_version", o.sinceVersion},
                                 {"supported", o.supported},
                                 {"reason", o.reason}});
    json::Array opsets;
    for (const auto &[d, v] : report.opsets)
      opsets.push_back(json::Object{{"domain", d}, {"version", v}});
    json::Array problems;
    for (const auto &p : report.problems)
      problems.push_back(p);
    json::Object root{{"file", report.path},
                      {"ir_version", report.irVersion},
                      {"producer", report.producer},
                      {"opsets", std::move(opsets)},
                      {"ops", std::move(ops)},
                      {"problems", std::move(problems)},
                      {"import_ok", report.importOk},
                      {"import_error", report.importError},
                      {"supported", ok}};
    outs() << formatv("{0:2}", json::Value(std::move(root))) << "\n";
    return ok ? 0 : 1;
  }
  outs() << "kilnc check: " << report.path << "\n";
  if (!readable) {
    for (const auto &p : report.problems)
      errs() << "error: " << path << ": " << p << "\n";
    return 1;
  }
  outs() << "  IR version " << report.irVersion << ", producer '"
         << report.producer << "', opsets:";
  for (const auto &[d, v] : report.opsets)
    outs() << " " << d << " " << v;
  outs() << "\n\n";
  size_t w = 7;
  for (const auto &o : report.ops)
    w = std::max(w, o.opType.size() +
                        (o.domain == "ai.onnx" ? 0 : o.domain.size() + 1));
  outs() << formatv("  {0}  {1,5}  {2,5}  {3,7}  {4}\n",
                    fmt_align("op type", AlignStyle::Left, w), "count", "opset",
                    "handler", "status");
  for (const auto &o : report.ops) {
    std::string name =
        o.domain == "ai.onnx" ? o.opType : o.domain + "." + o.opType;
    std::string since =
        o.sinceVersion ? "v" + std::to_string(o.sinceVersion) : "-";
    std::string status = o.supported ? "supported" : "UNSUPPORTED: " + o.reason;
    outs() << formatv("  {0}  {1,5}  {2,5}  {3,7}  {4}\n",
                      fmt_align(name, AlignStyle::Left, w), o.count, o.opset,
                      since, status);
  }
  outs() << "\n  " << supported << " of " << report.ops.size()
         << " op types supported\n";
  for (const auto &p : report.problems)
    outs() << "  problem: " << p << "\n";
  if (report.problems.empty())
    outs() << "  import: "
           << (report.importOk ? "ok (shapes inferred, module verifies)"
                               : "FAILED: " + report.importError)
           << "\n";
  outs() << "  verdict: "
         << (ok ? "kiln can import this model"
                : "kiln cannot import this model")
         << "\n";
  return ok ? 0 : 1;
}

static std::string formatBytes(uint64_t bytes) {
  if (bytes >= 1000000)
    return formatv("{0:f2} MB", bytes / 1e6).str();
  if (bytes >= 1000)
    return formatv("{0:f1} kB", bytes / 1e3).str();
  return formatv("{0} B", bytes).str();
}

/// The compile options the flags give.
static kiln::CompileOptions compileOptionsFromFlags() {
  kiln::CompileOptions options;
  if (!targets.empty())
    options.targets.assign(targets.begin(), targets.end());
  options.cudaToolkitPath = cudaPath;
  options.precision = precision;
  options.gpuTactics = tactics;
  options.gpuTacticCandidates = tacticCandidates;
  options.timingCachePath = timingCache;
  options.gpuLatencyCycles = gpuLatency;
  options.gpuWgmma = gpuWgmma;
  options.gpuTma = gpuTma;
  options.concatInPlace = concatInPlace;
  options.tf32RoundAtProducers = tf32RoundAtProducers;
  options.gpuSplitK = gpuSplitK;
  options.gpuClusterSplitK = gpuClusterSplitK;
  options.fuseSiblingMatmuls = fuseSiblingMatmuls;
  options.fuseSiblingConvs = fuseSiblingConvs;
  options.gpuMmaStages = gpuMmaStages;
  options.layout = layout;
  options.stripWeights = stripWeights;
  options.stripThreshold = stripThreshold;
  return options;
}

/// One profile of a multi-profile build, for the report.
struct ProfileRow {
  std::string spec;
  int64_t kernels = 0, gpuLaunches = 0;
  uint64_t arenaBytes = 0;
  double seconds = 0;
};

static int finishPlan(const std::vector<uint8_t> &plan,
                      kiln::BuildReport &report,
                      const kiln::CompileOptions &options,
                      const std::vector<ProfileRow> &profiles);

/// Compiles the imported module to a plan and prints the build report.
static int compilePlan(mlir::ModuleOp module, double importSeconds) {
  kiln::CompileOptions options = compileOptionsFromFlags();
  kiln::BuildReport report;
  report.stages.push_back({"import", importSeconds});
  std::vector<uint8_t> plan;
  if (mlir::failed(kiln::compileToPlan(module, options, plan, report)))
    return 1;
  return finishPlan(plan, report, options, {});
}

/// Writes the plan and prints the build report (with a table of the
/// profiles, when the plan has several).
static int finishPlan(const std::vector<uint8_t> &plan,
                      kiln::BuildReport &report,
                      const kiln::CompileOptions &options,
                      const std::vector<ProfileRow> &profiles) {
  {
    auto start = std::chrono::steady_clock::now();
    kiln::plan::Status st = kiln::tools::writeOutputFile(
        outputFile, {kiln::plan::ByteSpan{plan.data(), plan.size()}},
        protectedInputs());
    if (!st.ok()) {
      errs() << "error: cannot write plan '" << outputFile
             << "': " << st.message() << "\n";
      return 1;
    }
    report.stages.push_back(
        {"write plan",
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
             .count()});
  }
  double total = 0;
  for (const auto &s : report.stages)
    total += s.seconds;
  if (jsonOutput) {
    json::Array stages;
    for (const auto &s : report.stages)
      stages.push_back(json::Object{{"name", s.name}, {"seconds", s.seconds}});
    json::Object root{
        {"model", std::string(inputFile)},
        {"plan", std::string(outputFile)},
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
        {"warp_reductions", report.warpReductions},
        {"row_fusions", report.rowFusions},
        {"window_pools", report.windowPools},
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
    if (!profiles.empty()) {
      json::Array rows;
      for (const ProfileRow &p : profiles)
        rows.push_back(json::Object{{"profile", p.spec},
                                    {"kernels", p.kernels},
                                    {"gpu_launches", p.gpuLaunches},
                                    {"arena_bytes", (int64_t)p.arenaBytes},
                                    {"seconds", p.seconds}});
      root["profiles"] = std::move(rows);
    }
    outs() << formatv("{0:2}", json::Value(std::move(root))) << "\n";
  }
  if (quiet)
    return 0;
  auto row = [](StringRef key, const std::string &value) {
    errs() << formatv("  {0}  {1}\n", fmt_align(key, AlignStyle::Left, 24),
                      value);
  };
  errs() << formatv("kilnc: built {0} from {1} for {2} in {3:f2} s\n",
                    outputFile.getValue(), sys::path::filename(inputFile),
                    join(options.targets, ","), total);
  row("kernels",
      formatv("{0} ({1} output copies)", report.kernels, report.outputCopies)
          .str());
  row("precision",
      options.precision == kiln::Precision::fp32 ? std::string("fp32")
      : options.precision == kiln::Precision::tf32
          ? std::string("tf32 (f32 values; tensor-core inputs "
                        "rounded to 10 mantissa bits)")
          : formatv("{0} ({1} weights, {2} values converted)",
                    kiln::stringify(options.precision), report.precisionWeights,
                    report.precisionValues)
                .str());
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
  if (report.warpReductions)
    row("warp row reductions", std::to_string(report.warpReductions));
  if (report.windowPools)
    row("window pools", std::to_string(report.windowPools) +
                            " max pools, one direct kernel each");
  if (report.rowFusions)
    row("warp row fusions", std::to_string(report.rowFusions) +
                                " launches, each a run of row-wise ops");
  row("plan file", formatBytes(report.planBytes));
  if (!profiles.empty()) {
    // The figures above are profile 0's (its kernels, arena and launches);
    // each profile's are here.
    row("profiles", formatv("{0} (the figures above are profile 0's; weights "
                            "shared, kernels per profile)",
                            profiles.size())
                        .str());
    size_t w = 7;
    for (const ProfileRow &p : profiles)
      w = std::max(w, p.spec.size());
    errs() << formatv("    {0}  {1}  {2,7}  {3,8}  {4,10}  {5,8}\n", "#",
                      fmt_align("shapes", AlignStyle::Left, w), "kernels",
                      "launches", "arena", "build");
    for (size_t k = 0; k < profiles.size(); ++k) {
      const ProfileRow &p = profiles[k];
      errs() << formatv("    {0}  {1}  {2,7}  {3,8}  {4,10}  {5,6:f2} s\n", k,
                        fmt_align(p.spec, AlignStyle::Left, w), p.kernels,
                        p.gpuLaunches, formatBytes(p.arenaBytes), p.seconds);
    }
  }
  errs() << "  build time per stage:\n";
  for (const auto &s : report.stages)
    errs() << formatv("    {0}  {1,8:f3} s\n",
                      fmt_align(s.name, AlignStyle::Left, 28), s.seconds);
  return 0;
}

/// kilnc --profile: imports and compiles the model once per profile, then
/// merges the plans into one that shares their weights (profile 0 first).
static int compileProfiles(const imp::ImportOptions &base,
                           mlir::DialectRegistry &registry) {
  auto buffer = MemoryBuffer::getFile(inputFile, /*IsText=*/false,
                                      /*RequiresNullTerminator=*/false);
  std::string error;
  std::vector<imp::GraphInputDecl> decls;
  if (!buffer) {
    errs() << "error: " << inputFile << ": cannot read: "
           << buffer.getError().message() << "\n";
    return 1;
  }
  if (!imp::readGraphInputs((*buffer)->getBuffer(), decls, error)) {
    errs() << "error: " << inputFile << ": " << error << "\n";
    return 1;
  }
  std::vector<kiln::kilnc::Profile> profiles;
  if (!kiln::kilnc::parseProfiles(
          std::vector<std::string>(profileSpecs.begin(), profileSpecs.end()),
          decls, base.inputShapes, base.inputValues, profiles, error)) {
    errs() << "error: " << error << "\n";
    return 2;
  }
  kiln::CompileOptions options = compileOptionsFromFlags();
  std::vector<std::vector<uint8_t>> parts(profiles.size());
  std::vector<kiln::BuildReport> reports(profiles.size());
  std::vector<ProfileRow> rows;
  for (size_t k = 0; k < profiles.size(); ++k) {
    auto start = std::chrono::steady_clock::now();
    imp::ImportOptions o = base;
    for (const auto &[name, shape] : profiles[k].shapes)
      o.inputShapes[name] = shape;
    mlir::MLIRContext context(registry);
    context.disableMultithreading();
    kiln::DiagnosticPrinter printer(context);
    mlir::OwningOpRef<mlir::ModuleOp> module =
        imp::importONNXFile(context, inputFile, o);
    if (!module) {
      errs() << "note: while building --profile '" << profiles[k].spec
             << "'\n";
      return 1;
    }
    // The provenance names the flags: the profiles are recorded below.
    if (!kiln::kilnc::recordImportProvenance(*module, inputFile, base,
                                             error)) {
      errs() << "error: " << error << "\n";
      return 1;
    }
    double importSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    reports[k].stages.push_back({"import", importSeconds});
    if (mlir::failed(
            kiln::compileToPlan(*module, options, parts[k], reports[k]))) {
      errs() << "note: while building --profile '" << profiles[k].spec
             << "'\n";
      return 1;
    }
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    rows.push_back({profiles[k].spec, reports[k].kernels,
                    reports[k].gpuLaunches, reports[k].arenaBytes, seconds});
    if (!quiet && !jsonOutput)
      errs() << formatv("kilnc: profile {0}/{1} ({2}) built in {3:f2} s\n",
                        k + 1, profiles.size(), profiles[k].spec, seconds);
  }
  // Merge: profile 0's plan, then each other plan as a profile of it.
  auto mergeStart = std::chrono::steady_clock::now();
  kiln::plan::PlanReader::Options readOptions;
  readOptions.allowWeightStripped = true;
  std::vector<kiln::plan::PlanReader> readers(parts.size());
  for (size_t k = 0; k < parts.size(); ++k)
    if (kiln::plan::Status st =
            readers[k].open(parts[k].data(), parts[k].size(), readOptions);
        !st.ok()) {
      errs() << "error: profile " << k << ": " << st.message() << "\n";
      return 1;
    }
  kiln::plan::PlanWriter writer =
      kiln::plan::PlanWriter::fromPlan(readers[0].plan());
  for (size_t k = 1; k < parts.size(); ++k)
    if (kiln::plan::Status st =
            writer.addProfileSharingWeights(readers[k].plan());
        !st.ok()) {
      errs() << "error: --profile '" << profiles[k].spec
             << "': " << st.message() << "\n";
      return 1;
    }
  std::string specs;
  for (const auto &p : profiles)
    specs += (specs.empty() ? "" : "; ") + p.spec;
  writer.addProvenance("options.profiles", specs);
  std::vector<uint8_t> plan;
  if (kiln::plan::Status st = writer.serialize(plan); !st.ok()) {
    errs() << "error: merging the profiles: " << st.message() << "\n";
    return 1;
  }
  kiln::BuildReport &report = reports[0];
  report.planBytes = plan.size();
  for (size_t k = 1; k < reports.size(); ++k)
    for (const kiln::StageTime &t : reports[k].stages) {
      auto it = llvm::find_if(report.stages, [&](const kiln::StageTime &s) {
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
  return finishPlan(plan, report, options, rows);
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  // `kilnc check FILE` is a subcommand; everything else is a compile.
  bool check = argc > 1 && StringRef(argv[1]) == "check";
  SmallVector<const char *> args(argv, argv + argc);
  if (check)
    args.erase(args.begin() + 1);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  cl::HideUnrelatedOptions(category);
  cl::SetVersionPrinter(
      [](raw_ostream &os) { os << "kilnc " << kVersion << "\n"; });
  cl::ParseCommandLineOptions(
      args.size(), args.data(),
      "kiln: ahead-of-time compiler for neural-network inference\n\n"
      "  kilnc MODEL.onnx --emit=graph [-o out.mlir]   import into kiln's "
      "graph dialect\n"
      "  kilnc check MODEL.onnx [--json]               op/opset coverage "
      "report\n"
      "  kilnc MODEL.onnx -o MODEL.plan --target host  compile to a plan "
      "(static shapes)\n"
      "  ... --input-value NAME=FILE                   fix a graph input's "
      "value at build time\n");
  if (inputFile.empty()) {
    errs() << "error: no input model; usage: kilnc MODEL.onnx -o MODEL.plan | "
              "kilnc MODEL.onnx --emit=graph | kilnc check MODEL.onnx\n";
    return 2;
  }
  if (check)
    return runCheck(inputFile);
  if (!checkPlanFile.empty()) {
    if (outputFile != "-" || emit != Emit::Plan) {
      errs() << "error: --check-plan builds nothing: drop -o and --emit\n";
      return 2;
    }
    imp::ImportOptions options;
    if (!parseInputShapes(options) || !parseInputValues(options))
      return 2;
    kiln::CompileOptions compile = compileOptionsFromFlags();
    std::string error;
    if (!kiln::verifyCompileOptions(compile, error)) {
      errs() << "error: " << error << "\n";
      return 2;
    }
    return kiln::kilnc::checkPlan(checkPlanFile, inputFile, options, compile,
                                  jsonOutput);
  }

  if (emit == Emit::Plan && outputFile == "-") {
    errs() << "error: a plan needs an output file: kilnc MODEL.onnx -o "
              "MODEL.plan\n";
    return 2;
  }
  // An output the rule of tools/common/OutputFile.h refuses (a device, a
  // FIFO, the model itself, ...) is refused before the work.
  if (outputFile != "-") {
    kiln::plan::Status st =
        kiln::tools::checkOutputPath(outputFile, protectedInputs());
    if (!st.ok()) {
      errs() << "error: " << st.message() << "\n";
      return 2;
    }
  }
  // Options that would be silently ignored are refused.
  if (tacticCandidates.getNumOccurrences() &&
      tactics != kiln::GpuTactics::all) {
    errs() << "error: --tactic-candidates applies to --tactics all\n";
    return 2;
  }
  imp::ImportOptions options;
  options.runChecker = onnxChecker;
  options.runOnnxShapeInference = !noOnnxShapeInference;
  if (!parseInputShapes(options) || !parseInputValues(options))
    return 2;
  if (!profileSpecs.empty() && emit != Emit::Plan) {
    errs() << "error: --profile builds a plan; --emit=graph imports one "
              "shape: use --input-shape\n";
    return 2;
  }

  mlir::DialectRegistry registry;
  registry.insert<kiln::graph::GraphDialect, mlir::func::FuncDialect>();
  if (emit == Emit::Plan) {
    // Kernel lowering parses upstream pass pipelines and needs their dialects.
    kiln::registerAllDialects(registry);
    kiln::registerAllPasses();
  }
  if (!profileSpecs.empty())
    return compileProfiles(options, registry);
  mlir::MLIRContext context(registry);
  context.disableMultithreading();
  kiln::DiagnosticPrinter printer(context);
  auto start = std::chrono::steady_clock::now();
  mlir::OwningOpRef<mlir::ModuleOp> module =
      imp::importONNXFile(context, inputFile, options);
  if (!module)
    return 1;
  std::string error;
  if (!kiln::kilnc::recordImportProvenance(*module, inputFile, options,
                                           error)) {
    errs() << "error: " << error << "\n";
    return 1;
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  if (emit == Emit::Plan)
    return compilePlan(*module, seconds);

  // --mlir-print-debuginfo keeps the locations, with which kiln-opt builds
  // the same plans (kernels are named after their ONNX nodes).
  mlir::OpPrintingFlags flags;
  if (elideWeights)
    flags.elideLargeResourceString(0);
  if (outputFile == "-") {
    module->print(outs(), flags);
  } else {
    std::string text;
    llvm::raw_string_ostream os(text);
    module->print(os, flags);
    kiln::plan::Status st =
        kiln::tools::writeOutputFile(outputFile, text, protectedInputs());
    if (!st.ok()) {
      errs() << "error: " << st.message() << "\n";
      return 1;
    }
  }
  if (!quiet) {
    int64_t ops = 0, weights = 0, weightBytes = 0;
    module->walk([&](mlir::Operation *op) {
      if (op->getDialect() && op->getDialect()->getNamespace() == "kiln") {
        ++ops;
        if (auto c = op->getAttrOfType<mlir::ElementsAttr>("value");
            c && isa<mlir::DenseResourceElementsAttr>(c)) {
          ++weights;
          auto t = cast<mlir::ShapedType>(c.getType());
          weightBytes +=
              t.getNumElements() * ((t.getElementTypeBitWidth() + 7) / 8);
        }
      }
    });
    errs() << formatv("kilnc: imported {0}: {1} kiln ops, {2} weight blobs "
                      "({3:f1} MB) in {4:f2} s\n",
                      sys::path::filename(inputFile), ops, weights,
                      weightBytes / 1e6, seconds);
  }
  return 0;
}
