//===- kilnc.cpp - kiln's ahead-of-time compiler driver -------------------===//
//
//   kilnc model.onnx --emit=graph [-o out.mlir]   import into the graph dialect
//   kilnc check model.onnx [--json]               op/opset coverage report
//   kilnc model.onnx -o model.plan --target host  compile to a plan
//   kilnc --check-plan model.plan model.onnx ...  is the plan up to date?
//
//===----------------------------------------------------------------------===//
#include "kiln/Compiler.h"
#include "kiln/Driver.h"
#include "kiln/Plan/PlanIO.h"
#include "tools/common/OutputFile.h"
#include "tools/kilnc/Provenance.h"
#include "kiln/Import/ONNX.h"
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
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <cmath>

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
/// --precision: the compile options' precision, or int8 (calibrated Q/DQ
/// on an f32 build).
enum class PrecisionFlag { fp32, tf32, fp16, bf16, int8 };
cl::opt<PrecisionFlag, false, kiln::ListedValuesParser<PrecisionFlag>>
    precision(
        "precision",
        cl::desc("Element type of f32 computation (plan I/O keeps the model's "
                 "types)"),
        cl::values(
            clEnumValN(PrecisionFlag::fp32, "fp32", "f32 (default)"),
            clEnumValN(PrecisionFlag::tf32, "tf32",
                       "values stay f32; GPU convs and matmuls (sm_80+) run on "
                       "tensor cores with tf32 inputs and f32 accumulation"),
            clEnumValN(PrecisionFlag::fp16, "fp16", "IEEE half"),
            clEnumValN(PrecisionFlag::bf16, "bf16", "bfloat16"),
            clEnumValN(PrecisionFlag::int8, "int8",
                       "convs and matmuls quantized to int8 from a "
                       "calibration (--calib or --calib-cache), the rest f32; "
                       "host plans only so far (Q/DQ computed in f32)")),
        cl::init(PrecisionFlag::fp32), cl::cat(category));
cl::opt<std::string> calibDir(
    "calib",
    cl::desc("--precision int8: calibration samples, a folder with one "
             "folder per sample (input_0.pb, ... as ONNX test data) or, for "
             "a one-input model, one .npy/.pb file per sample; --precision "
             "fp16: samples over which every node's values are ranged, the "
             "ops near f16's limit kept in f32 (fp32 islands)"),
    cl::value_desc("dir"), cl::cat(category));
cl::opt<std::string> validateDir(
    "validate",
    cl::desc("--precision fp16/bf16: after the build, run host builds in f32 "
             "and in the plan's precision on the samples of DIR (as --calib "
             "lays them out) and fail, writing no plan, when an output's "
             "error passes --validate-tolerance of its largest value"),
    cl::value_desc("dir"), cl::cat(category));
cl::opt<double> validateTolerance(
    "validate-tolerance",
    cl::desc("--validate: the largest |error| allowed, as a fraction of an "
             "output's largest |value| (default 0.01)"),
    cl::init(1e-2), cl::cat(category));
cl::list<std::string> debugTaps(
    "debug-tap",
    cl::desc("Keep the f32 values of the model nodes matching the glob as "
             "extra plan outputs named after the node (repeatable; '*' for "
             "all), to compare layer by layer"),
    cl::value_desc("node"), cl::cat(category));
cl::opt<std::string> calibMethod(
    "calib-method",
    cl::desc("--precision int8: how a range comes from the calibration "
             "data: minmax, entropy (TensorRT's KL divergence), percentile=P "
             "(default percentile=99.99) or mse"),
    cl::value_desc("method"), cl::init("percentile=99.99"), cl::cat(category));
cl::opt<std::string> calibCache(
    "calib-cache",
    cl::desc("--precision int8: a calibration cache (JSON ranges keyed by "
             "tensor name), read when it was made for this model, method and "
             "data, else written after calibrating"),
    cl::value_desc("file"), cl::cat(category));
cl::list<std::string> layerPrecision(
    "layer-precision",
    cl::desc("--precision int8: PATTERN=fp32 keeps the Conv/Gemm/MatMul "
             "nodes whose name matches the glob PATTERN unquantized "
             "(repeatable)"),
    cl::value_desc("pattern=fp32"), cl::cat(category));
cl::opt<double> int8Tolerance(
    "int8-tolerance",
    cl::desc("--precision int8 with --calib: return layers to fp32, most "
             "sensitive first, until the outputs on the calibration samples "
             "are within this fraction of their largest value of the f32 "
             "model's"),
    cl::value_desc("fraction"), cl::init(0), cl::cat(category));
cl::opt<std::string> qdqModel(
    "qdq-model",
    cl::desc("--precision int8: also write the quantized model (the input "
             "with its QuantizeLinear/DequantizeLinear pairs) as ONNX, for "
             "ONNX Runtime or another tool to run"),
    cl::value_desc("file.onnx"), cl::cat(category));
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
  if (!calibCache.empty())
    inputs.push_back({calibCache, "calibration cache"});
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

/// The compile options the flags give.
static kiln::CompileOptions compileOptionsFromFlags() {
  kiln::CompileOptions options;
  if (!targets.empty())
    options.targets.assign(targets.begin(), targets.end());
  options.cudaToolkitPath = cudaPath;
  static constexpr kiln::Precision kCompiled[] = {
      kiln::Precision::fp32, kiln::Precision::tf32, kiln::Precision::fp16,
      kiln::Precision::bf16, kiln::Precision::fp32};
  options.precision = kCompiled[int(precision.getValue())];
  options.tapNodes.assign(debugTaps.begin(), debugTaps.end());
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

/// --layer-precision's patterns (each checked in main: PATTERN=fp32).
static std::vector<std::string> keptFp32Patterns() {
  std::vector<std::string> out;
  for (const std::string &spec : layerPrecision)
    out.push_back(StringRef(spec).rsplit('=').first.str());
  return out;
}

/// Builds the plan, writes it and prints the build report.
static int compilePlan(const imp::ImportOptions &importOptions) {
  kiln::driver::BuildOptions build;
  build.import = importOptions;
  build.compile = compileOptionsFromFlags();
  build.profiles.assign(profileSpecs.begin(), profileSpecs.end());
  if (precision == PrecisionFlag::int8)
    build.int8 =
        kiln::driver::Int8Options{calibDir, calibMethod,        calibCache,
                                  qdqModel, keptFp32Patterns(), int8Tolerance};
  else if (precision == PrecisionFlag::fp16)
    build.rangeCalibDir = calibDir;
  build.validateDir = validateDir;
  build.validateTolerance = validateTolerance;
  if (!quiet && !jsonOutput)
    build.progress = &errs();
  const kiln::CompileOptions &options = build.compile;
  kiln::BuildReport report;
  std::vector<uint8_t> plan;
  if (!kiln::driver::buildPlan({inputFile, std::nullopt}, build, plan, report,
                               errs()))
    return 1;
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
  if (jsonOutput)
    outs() << formatv("{0:2}", kiln::driver::reportJson(report, options,
                                                        inputFile, outputFile))
           << "\n";
  if (quiet)
    return 0;
  kiln::driver::printReport(errs(), report, options, inputFile, outputFile);
  return 0;
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
  if (precision == PrecisionFlag::int8) {
    std::string error;
    if (!checkPlanFile.empty())
      error = "--check-plan does not check int8 plans yet (it would have to "
              "calibrate again)";
    else if (calibDir.empty() && calibCache.empty())
      error = "--precision int8 needs calibration data (--calib DIR) or a "
              "calibration cache (--calib-cache FILE)";
    else if (kiln::driver::checkCalibMethod(calibMethod, error)) {
      for (const std::string &spec : layerPrecision) {
        auto [pattern, value] = StringRef(spec).rsplit('=');
        if (pattern.empty() || pattern.size() == spec.size())
          error = "--layer-precision '" + spec + "': expected PATTERN=fp32";
        else if (value != "fp32")
          error = "--layer-precision '" + spec +
                  "': int8 host plans keep unquantized layers in fp32, the "
                  "only value so far";
      }
      for (const std::string &t : targets)
        if (t != "host")
          error = "--precision int8 builds host plans only for now (target '" +
                  t + "'): the int8 tensor-core kernels are not written yet";
      if (int8Tolerance.getNumOccurrences() &&
          (!(int8Tolerance > 0) || !std::isfinite(int8Tolerance)))
        error = "--int8-tolerance must be a number > 0";
      else if (int8Tolerance.getNumOccurrences() && calibDir.empty())
        error = "--int8-tolerance measures the error on the calibration "
                "samples: give --calib DIR";
    }
    if (!error.empty()) {
      errs() << "error: " << error << "\n";
      return 2;
    }
  }
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
    return kiln::kilnc::checkPlan(
        checkPlanFile, inputFile, options, compile,
        std::vector<std::string>(profileSpecs.begin(), profileSpecs.end()),
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
  if (precision != PrecisionFlag::int8 &&
      (calibMethod.getNumOccurrences() || calibCache.getNumOccurrences() ||
       qdqModel.getNumOccurrences() || layerPrecision.getNumOccurrences() ||
       int8Tolerance.getNumOccurrences())) {
    errs() << "error: --calib-method, --calib-cache, --qdq-model, "
              "--layer-precision and --int8-tolerance apply to --precision "
              "int8\n";
    return 2;
  }
  if (calibDir.getNumOccurrences() && precision != PrecisionFlag::int8 &&
      precision != PrecisionFlag::fp16) {
    errs() << "error: --calib applies to --precision int8 (quantization "
              "ranges) and fp16 (fp32 islands); "
           << (precision == PrecisionFlag::bf16
                   ? "bf16 has f32's range and needs none"
                   : "fp32 and tf32 keep f32's range")
           << "\n";
    return 2;
  }
  if (validateDir.getNumOccurrences() ||
      validateTolerance.getNumOccurrences()) {
    std::string error;
    if (precision != PrecisionFlag::fp16 && precision != PrecisionFlag::bf16)
      error = "--validate compares an fp16 or bf16 build with f32: give "
              "--precision fp16 or bf16";
    else if (validateDir.empty())
      error = "--validate-tolerance needs --validate DIR";
    else if (!(validateTolerance > 0) || !std::isfinite(validateTolerance))
      error = "--validate-tolerance must be a number > 0";
    else if (!profileSpecs.empty())
      error = "--validate with --profile is not supported yet";
    else if (!checkPlanFile.empty() || emit != Emit::Plan)
      error = "--validate checks a plan build: drop --check-plan and --emit";
    if (!error.empty()) {
      errs() << "error: " << error << "\n";
      return 2;
    }
  }
  if (precision == PrecisionFlag::fp16 && !calibDir.empty()) {
    std::string error;
    if (!checkPlanFile.empty())
      error = "--check-plan does not check plans ranged with --calib yet (it "
              "would have to range them again)";
    else if (!profileSpecs.empty())
      error = "--calib with --profile is not supported yet: give the "
              "calibration shapes with --input-shape";
    else if (emit != Emit::Plan)
      error = "--calib builds a plan (the range analysis runs one); drop "
              "--emit";
    if (!error.empty()) {
      errs() << "error: " << error << "\n";
      return 2;
    }
  }
  if (!qdqModel.empty()) {
    std::vector<kiln::tools::ProtectedInput> keep = protectedInputs();
    keep.push_back({outputFile, "plan"});
    if (kiln::plan::Status st = kiln::tools::checkOutputPath(qdqModel, keep);
        !st.ok()) {
      errs() << "error: --qdq-model: " << st.message() << "\n";
      return 2;
    }
  }
  if (precision == PrecisionFlag::int8 && emit != Emit::Plan) {
    errs() << "error: --precision int8 builds a plan (the calibration runs "
              "one); drop --emit\n";
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

  if (emit == Emit::Plan)
    return compilePlan(options);

  mlir::DialectRegistry registry;
  registry.insert<kiln::graph::GraphDialect, mlir::func::FuncDialect>();
  mlir::MLIRContext context(registry);
  context.disableMultithreading();
  kiln::DiagnosticPrinter printer(context);
  auto start = std::chrono::steady_clock::now();
  std::string error;
  mlir::OwningOpRef<mlir::ModuleOp> module = kiln::driver::importModel(
      context, {inputFile, std::nullopt}, options, error);
  if (!module) {
    if (!error.empty())
      errs() << "error: " << error << "\n";
    return 1;
  }
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();

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
