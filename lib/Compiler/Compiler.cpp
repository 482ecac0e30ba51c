//===- Compiler.cpp - run kiln-compile and report what its passes did -----===//
//
// The driver of a build: checks the options, runs the kiln-compile pipeline
// (lib/Pipelines) on the imported module, and fills the build report from
// the passes' statistics and times. Everything that changes IR is a pass.
//
//===----------------------------------------------------------------------===//
#include "kiln/Compiler.h"

#include "dialects/Plan/IR/PlanDialect.h"
#include "kiln/Pipelines.h"
#include "kiln/Support/PassStatistics.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"

#include <chrono>
#include <map>

using namespace mlir;
using namespace kiln;

namespace {

/// Sums each pass's statistics (kiln/Support/PassStatistics.h) over its
/// runs (pass argument → statistic name → value) and times the runs by build
/// stage, in first-run order. A pass instance's counters only grow during
/// its own runs, so the difference over a run is what that run counted.
struct ReportInstrumentation : public PassInstrumentation {
  std::map<std::string, std::map<std::string, uint64_t>> stats;
  std::vector<StageTime> stages;
  std::string hostStage = "host: bufferize", gpuStage = "GPU: bufferize";
  struct Running {
    std::map<std::string, uint64_t> before;
    std::chrono::steady_clock::time_point start;
  };
  std::vector<Running> running;

  static bool isAdaptor(Pass *pass) {
    return pass->getArgument().empty() &&
           pass->getName().contains("PassAdaptor");
  }

  /// The stage a run belongs to: by the container it runs in, and there by
  /// the pass that starts a phase.
  std::string stageOf(Pass *pass, Operation *op) {
    StringRef arg = pass->getArgument();
    if (op->getParentOfType<planir::HostKernelsOp>()) {
      if (arg == "kiln-host-drop-arg-marks")
        hostStage = "host: bufferize";
      else if (arg == "convert-linalg-to-loops")
        hostStage = "host: lower to LLVM dialect";
      else if (arg == "kiln-host-emit-object")
        hostStage = "host: LLVM O3 + codegen";
      else if (arg == "kiln-host-link")
        hostStage = "host: link";
      return hostStage;
    }
    if (op->getParentOfType<planir::GpuKernelsOp>()) {
      if (arg == "kiln-convert-graph-to-linalg")
        gpuStage = "GPU: bufferize";
      else if (arg == "kiln-apply-timing-cache" ||
               arg == "kiln-clone-tactic-variants" ||
               arg == "kiln-gpu-tensor-core")
        gpuStage = "GPU: tactics";
      else if (arg == "kiln-gpu-assign-scratch")
        gpuStage = "GPU: map to GPU";
      else if (arg == "kiln-gpu-attach-targets")
        gpuStage = "GPU: lower to NVVM";
      else if (arg == "gpu-module-to-binary")
        gpuStage = "GPU: PTX (LLVM NVPTX)";
      else if (arg == "kiln-gpu-ptxas")
        gpuStage = "GPU: cubin (ptxas)";
      return gpuStage;
    }
    if (arg == "kiln-convert-precision")
      return "precision";
    if (arg == "kiln-layout-nhwc")
      return "layout";
    if (arg == "kiln-export-plan")
      return "plan export";
    return "graph passes and kernels";
  }

  void runBeforePass(Pass *pass, Operation *) override {
    if (isAdaptor(pass))
      return;
    Running r;
    forEachStatistic(pass, [&](StringRef name, uint64_t value) {
      r.before[name.str()] = value;
    });
    r.start = std::chrono::steady_clock::now();
    running.push_back(std::move(r));
  }

  void runAfterPass(Pass *pass, Operation *op) override { finish(pass, op); }
  void runAfterPassFailed(Pass *pass, Operation *op) override {
    finish(pass, op);
  }

  void finish(Pass *pass, Operation *op) {
    if (isAdaptor(pass) || running.empty())
      return;
    Running r = std::move(running.back());
    running.pop_back();
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - r.start)
                         .count();
    std::string stage = stageOf(pass, op);
    auto it = llvm::find_if(
        stages, [&](const StageTime &s) { return s.name == stage; });
    if (it == stages.end())
      stages.push_back({stage, seconds});
    else
      it->seconds += seconds;
    auto &counts = stats[pass->getArgument().str()];
    forEachStatistic(pass, [&](StringRef name, uint64_t value) {
      counts[name.str()] += value - r.before[name.str()];
    });
  }

  int64_t get(StringRef pass, StringRef stat) const {
    auto p = stats.find(pass.str());
    if (p == stats.end())
      return 0;
    auto s = p->second.find(stat.str());
    return s == p->second.end() ? 0 : int64_t(s->second);
  }
};

/// The report's counters from the passes' statistics.
void fillReport(const ReportInstrumentation &in, const CompileOptions &options,
                BuildReport &report) {
  auto s = [&](StringRef pass, StringRef stat) { return in.get(pass, stat); };
  report.precisionValues = s("kiln-convert-precision", "converted-values");
  report.precisionWeights = s("kiln-convert-precision", "converted-weights");
  report.taps = s("kiln-tap-values", "taps");
  report.siblingGroups = s("kiln-fuse-sibling-matmuls", "groups");
  report.siblingMatmuls = s("kiln-fuse-sibling-matmuls", "matmuls");
  if (usesNhwcLayout(options)) {
    report.layout = "nhwc";
    report.nhwcConvs = s("kiln-layout-nhwc", "convs");
    report.denseGroupedConvs = s("kiln-layout-nhwc", "dense-grouped-convs");
    report.kMajorWeights = s("kiln-layout-nhwc", "k-major-weights");
    report.roundedWeights = s("kiln-layout-nhwc", "rounded-weights");
    report.layoutTransposes = s("kiln-layout-nhwc", "transposes");
  }
  report.hoistedScales = s("kiln-hoist-matmul-scales", "hoisted");
  report.siblingConvGroups = s("kiln-fuse-sibling-convs", "groups");
  report.siblingConvs = s("kiln-fuse-sibling-convs", "convs");
  report.siblingConvsMixed = s("kiln-fuse-sibling-convs", "mixed-activations");
  report.fusedOps = s("kiln-form-kernels", "fused-ops");
  report.views = s("kiln-form-kernels", "views");
  report.prologueOps = s("kiln-form-kernels", "prologue-ops");
  report.padPrologueOps = s("kiln-form-kernels", "pad-prologue-ops");
  report.sliceReads = s("kiln-form-kernels", "slice-reads");
  report.tf32RoundedActivations =
      s("kiln-round-tf32-at-producers", "rounded-activations");
  report.outputCopies = s("kiln-materialize-output-copies", "output-copies");
  report.elidedConcats = s("kiln-elide-concats", "elided-concats");
  report.elidedConcatInputs = s("kiln-elide-concats", "elided-concat-inputs");
  report.kernels = s("kiln-form-kernels", "kernels") + report.outputCopies -
                   report.elidedConcats;
  report.hostModuleBytes = s("kiln-host-link", "shared-object-bytes");
  report.gpuLaunches = s("kiln-gpu-record-launches", "launches");
  report.tensorCoreOps = s("kiln-gpu-tensor-core", "tensor-core-ops");
  report.wgmmaOps = s("kiln-gpu-tensor-core", "wgmma-ops");
  report.tmaOps = s("kiln-gpu-tensor-core", "tma-ops");
  report.fusedEpilogues = s("kiln-gpu-tensor-core", "fused-epilogues");
  report.windowPools = s("kiln-gpu-window-pool", "window-pools");
  report.depthwiseConvs = s("kiln-gpu-depthwise-conv", "depthwise-convs");
  report.rowFusions = s("kiln-gpu-row-fuse", "row-fusions");
  report.reductionKernels = s("kiln-gpu-row-reduce", "reduction-kernels");
  report.tacticChoices = s("kiln-finalize-tactic-variants", "choices");
  report.tacticVariants = s("kiln-finalize-tactic-variants", "variants");
  report.timingCacheEntries = s("kiln-apply-timing-cache", "entries");
  report.timingCacheHits = s("kiln-apply-timing-cache", "hits");
  report.timingCacheStale = s("kiln-finalize-tactic-variants", "stale");
  report.ptxBytes = s("kiln-gpu-ptxas", "ptx-bytes");
  report.cubinBytes = s("kiln-gpu-ptxas", "cubin-bytes");
  report.weights = s("kiln-export-plan", "weights");
  report.weightBytes = s("kiln-export-plan", "weight-bytes");
  report.strippedWeights = s("kiln-export-plan", "stripped-weights");
  report.strippedWeightBytes = s("kiln-export-plan", "stripped-weight-bytes");
  report.arenaBytes = s("kiln-export-plan", "arena-bytes");
  report.arenaBytesWithoutReuse =
      s("kiln-export-plan", "arena-bytes-without-reuse");
  report.tensorMaps = s("kiln-export-plan", "tensor-maps");
  report.planBytes = s("kiln-export-plan", "plan-bytes");
}

} // namespace

LogicalResult kiln::compileToPlan(ModuleOp module,
                                  const CompileOptions &options,
                                  std::vector<uint8_t> &planBytes,
                                  BuildReport &report) {
  std::string error;
  if (!verifyCompileOptions(options, error))
    return module.emitError(error);
  PassManager pm(module.getContext());
  // The instrumentation reads each pass's statistics; kiln-opt users get
  // them with -mlir-pass-statistics.
  auto instrumentation = std::make_unique<ReportInstrumentation>();
  ReportInstrumentation *in = instrumentation.get();
  pm.addInstrumentation(std::move(instrumentation));
  buildKilnCompilePipeline(pm, options, /*planOutput=*/"", &planBytes);
  LogicalResult result = pm.run(module);
  for (StageTime &s : in->stages)
    report.stages.push_back(s);
  if (failed(result))
    return failure();
  fillReport(*in, options, report);
  if (auto islands = module->getAttrOfType<ArrayAttr>("kiln.fp32_islands"))
    for (Attribute a : islands)
      report.fp32Islands.push_back(cast<StringAttr>(a).str());
  return success();
}
