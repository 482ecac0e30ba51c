//===- Pipelines.cpp - the pass pipelines kilnc and kiln-opt run ----------===//
//
// One place says in which order kiln's passes run and with which options:
// kilnc builds these pipelines (lib/Compiler), kiln-opt runs them by name.
// See include/kiln/Pipelines.h.
//
//===----------------------------------------------------------------------===//
#include "kiln/Pipelines.h"

#include "codegen/Passes.h"
#include "codegen/Tactics/TensorCoreGemm.h"
#include "codegen/Targets/Targets.h"
#include "dialects/Plan/IR/PlanDialect.h"
#include "passes/Passes.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"

using namespace mlir;
using namespace kiln;

namespace {

/// The GPU targets of `options` (everything but "host").
std::vector<std::string> gpuTargetsOf(const CompileOptions &options) {
  std::vector<std::string> gpu;
  for (const std::string &t : options.targets)
    if (t != "host")
      gpu.push_back(t);
  return gpu;
}

bool hasHostTarget(const CompileOptions &options) {
  return llvm::is_contained(options.targets, "host");
}

/// graph ops → linalg on tensors, then elementwise fusion and one-shot
/// bufferization with identity-layout function boundaries: what both
/// targets start with (the GPU rounds tf32 results in between).
void addToLinalg(OpPassManager &pm) {
  pm.addPass(codegen::createConvertGraphToLinalgPass());
  pm.addNestedPass<func::FuncOp>(
      codegen::createLinalgGeneralizeContractionsPass());
}

void addFuseAndBufferize(OpPassManager &pm) {
  pm.addPass(createLinalgElementwiseOpFusionPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createCanonicalizerPass());
  // Kernel results become out-params, some of them slices of other
  // buffers.
  pm.addPass(codegen::createPromoteResultsToOutParamsPass());
  pm.addPass(codegen::createPlaceSliceResultsPass());
}

} // namespace

bool kiln::usesNhwcLayout(const CompileOptions &options) {
  return options.layout == Layout::nhwc ||
         (options.layout == Layout::automatic &&
          !gpuTargetsOf(options).empty() &&
          options.precision != Precision::fp32 &&
          options.gpuTactics != GpuTactics::generic);
}

bool kiln::verifyCompileOptions(const CompileOptions &options,
                                std::string &error) {
  auto fail = [&](const llvm::Twine &message) {
    error = message.str();
    return false;
  };
  if (options.targets.empty())
    return fail("no target: pass --target host and/or GPU architectures (" +
                codegen::knownGpuTargets() + ")");
  llvm::StringSet<> seen;
  bool gpu = false;
  for (const std::string &t : options.targets) {
    if (t != "host" && !codegen::isGpuTarget(t))
      return fail("unknown target '" + t + "': use host or one of " +
                  codegen::knownGpuTargets());
    if (!seen.insert(t).second)
      return fail("target '" + t + "' is given twice");
    gpu |= t != "host";
  }
  if (options.gpuTactics == GpuTactics::all &&
      (options.gpuTacticCandidates < 2 || options.gpuTacticCandidates > 8))
    return fail("--tactic-candidates must be 2 to 8, got " +
                llvm::Twine(options.gpuTacticCandidates));
  if (options.gpuMmaStages < 2 || options.gpuMmaStages > 8)
    return fail("--gpu-mma-stages must be 2 to 8, got " +
                llvm::Twine(options.gpuMmaStages));
  if (options.gpuSplitK < 0)
    return fail("--gpu-split-k must be 0 (the cost model's) or positive, "
                "got " +
                llvm::Twine(options.gpuSplitK));
  if (options.gpuBlockSize < 32 || options.gpuBlockSize > 1024 ||
      options.gpuBlockSize % 32 != 0)
    return fail("the GPU block size must be a multiple of 32 from 32 to "
                "1024, got " +
                llvm::Twine(options.gpuBlockSize));
  if (options.gpuLatencyCycles <= 0)
    return fail("--gpu-cost-latency must be positive, got " +
                llvm::Twine(options.gpuLatencyCycles));
  if (options.gpuWgmma != "auto" && options.gpuWgmma != "off" &&
      !codegen::parseWgmmaTile(options.gpuWgmma))
    return fail("bad --gpu-wgmma '" + options.gpuWgmma +
                "': use auto, off or MxNxS[xD] (M 64|128, N 64|128|256, S "
                "stages up to 8 within 227 KB of shared memory, D = 1 or 2 "
                "steps of MMAs in flight, S >= D + 2)");
  // MLIR's NVVM target only warns (as an error, but goes on) when the
  // toolkit is missing, and a kernel that calls a libdevice function then
  // fails in ptxas: refuse up front.
  if (gpu && !llvm::sys::fs::is_directory(options.cudaToolkitPath))
    return fail("the CUDA toolkit '" + options.cudaToolkitPath +
                "' (--cuda-path) is not a directory: GPU targets need its "
                "libdevice and ptxas");
  if (!options.timingCachePath.empty() && !gpu)
    return fail("--timing-cache holds tactics of GPU targets: add one "
                "(--target sm_90a, ...) or drop the flag");
  if (!options.timingCachePath.empty() &&
      options.gpuTactics == GpuTactics::generic)
    return fail("--timing-cache chooses among tensor-core tactics: use "
                "--tactics auto or all with it");
  if (options.stripThreshold == 0 && options.stripWeights)
    return fail("--strip-threshold must be at least 1 byte");
  return true;
}

void kiln::buildKilnGraphPipeline(OpPassManager &pm,
                                  const CompileOptions &options) {
  if (!options.tapNodes.empty()) {
    graph::TapValuesPassOptions taps;
    taps.nodes.assign(options.tapNodes.begin(), options.tapNodes.end());
    pm.addPass(graph::createTapValuesPass(taps));
  }
  pm.addPass(graph::createCheckStaticShapesPass());
  if (isHalfPrecision(options.precision)) {
    graph::ConvertPrecisionPassOptions precision;
    precision.precision = options.precision;
    precision.ranges.assign(options.precisionRanges.begin(),
                            options.precisionRanges.end());
    pm.addPass(graph::createConvertPrecisionPass(precision));
  }
  // Sibling matmuls of one input (attention's Q, K, V projections) as one
  // batched matmul.
  if (options.fuseSiblingMatmuls)
    pm.addNestedPass<func::FuncOp>(graph::createFuseSiblingMatmulsPass());
  // Channels-last convolutions for the tensor-core tactics (tf32 ones too).
  if (usesNhwcLayout(options))
    pm.addPass(graph::createLayoutNhwcPass(
        {/*tf32=*/options.precision == Precision::tf32}));
  // Scalar factors of matmul operands move after the product, where the
  // matmul's epilogue applies them (attention's 1/sqrt(d)).
  pm.addNestedPass<func::FuncOp>(graph::createHoistMatmulScalesPass());
  // Identical pure ops (per-layer copies of an attention mask, repeated
  // constants) are computed once.
  pm.addNestedPass<func::FuncOp>(createCSEPass());
  // Sibling convs of one input (ResNet's reduction and downsample, an
  // Inception block's reductions) as one: after the layout pass, which
  // packs the filters concatenated here, and after CSE, which merges their
  // per-conv transposes of a graph input.
  if (options.fuseSiblingConvs)
    pm.addNestedPass<func::FuncOp>(graph::createFuseSiblingConvsPass());
  pm.addPass(graph::createFormKernelsPass());
  // Region passes: kernel functions and their calls, before codegen.
  if (options.precision == Precision::tf32 && !gpuTargetsOf(options).empty() &&
      options.tf32RoundAtProducers)
    pm.addPass(graph::createRoundTf32AtProducersPass());
  pm.addPass(graph::createMarkTf32RoundedWeightsPass());
  pm.addPass(graph::createMaterializeOutputCopiesPass());
  if (options.concatInPlace)
    pm.addPass(graph::createElideConcatsPass());
}

void kiln::buildKilnHostPipeline(OpPassManager &pm,
                                 const CompileOptions &options) {
  pm.addPass(codegen::createHostDropArgMarksPass());
  addToLinalg(pm);
  addFuseAndBufferize(pm);
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(codegen::createLowerMemrefCopiesPass());
  // Loops, then the LLVM dialect with bare-pointer memrefs (static shapes).
  pm.addPass(createConvertLinalgToLoopsPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // x86 has no bf16 arithmetic and LLVM would call libgcc's __truncsfbf2,
  // which plans cannot rely on: compute bf16 (and f16 math functions) in
  // f32, round with integer ops.
  pm.addPass(math::createMathExtendToSupportedTypes({{}, "f32"}));
  pm.addPass(arith::createArithEmulateUnsupportedFloats({{"bf16"}, "f32"}));
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  ConvertFuncToLLVMPassOptions funcToLLVM;
  funcToLLVM.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(funcToLLVM));
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(codegen::createHostAbiWrappersPass());
  pm.addPass(codegen::createHostEmitObjectPass({options.hostCpu}));
  pm.addPass(codegen::createHostLinkPass());
}

void kiln::buildKilnGpuPipeline(OpPassManager &pm,
                                const CompileOptions &options) {
  std::vector<std::string> targets = gpuTargetsOf(options);
  addToLinalg(pm);
  if (options.precision == Precision::tf32)
    pm.addNestedPass<func::FuncOp>(codegen::createGpuRoundTf32ResultsPass());
  addFuseAndBufferize(pm);
  pm.addPass(codegen::createLowerMemrefCopiesPass());
  if (options.gpuTactics != GpuTactics::generic && !targets.empty()) {
    // Tensor-core kernels must run on every target of the plan: the oldest
    // one decides; the first one's multiprocessor count feeds the cost
    // model. wgmma exists on sm_90a only: every target must be it.
    int64_t minSm = 1000;
    bool allHopper = true;
    for (const std::string &t : targets) {
      minSm = std::min<int64_t>(minSm, codegen::smVersion(t));
      allHopper &= t == "sm_90a";
    }
    const codegen::GpuTargetInfo *first = codegen::findGpuTarget(targets[0]);
    bool variants = options.gpuTactics == GpuTactics::all;
    bool cache = !options.timingCachePath.empty();
    // Regions the timing cache has measured take its tactic; with tactics
    // all, the others get a clone per further candidate.
    if (cache)
      pm.addPass(codegen::createApplyTimingCachePass(
          {options.timingCachePath, targets[0]}));
    if (variants)
      pm.addPass(codegen::createCloneTacticVariantsPass(
          {options.gpuTacticCandidates}));
    codegen::GpuTensorCorePassOptions tc;
    tc.minSm = minSm;
    tc.numSms = first ? first->sms : 108;
    tc.forceSplitK = options.gpuSplitK;
    tc.mmaStages = options.gpuMmaStages;
    tc.clusterSplitK = minSm >= 90 && options.gpuClusterSplitK;
    tc.latencyCycles = options.gpuLatencyCycles;
    tc.tf32 = options.precision == Precision::tf32;
    tc.tma = options.gpuTma;
    tc.wgmma = allHopper ? options.gpuWgmma : "off";
    OpPassManager &fpm = pm.nest<func::FuncOp>();
    fpm.addPass(codegen::createGpuTensorCorePass(tc));
    // Long row reductions get a warp each.
    fpm.addPass(codegen::createGpuWindowPoolPass());
    fpm.addPass(codegen::createGpuDepthwiseConvPass());
    fpm.addPass(codegen::createGpuRowFusePass());
    codegen::GpuRowReducePassOptions rr;
    rr.numSms = tc.numSms;
    fpm.addPass(codegen::createGpuRowReducePass(rr));
    if (variants || cache)
      pm.addPass(codegen::createFinalizeTacticVariantsPass());
  }
  pm.addNestedPass<func::FuncOp>(codegen::createGpuAssignScratchPass());
  // Loops mapped to blocks and threads, outlined into kernels.
  {
    OpPassManager &fpm = pm.nest<func::FuncOp>();
    fpm.addPass(codegen::createLinalgParallelFirstPass());
    fpm.addPass(createConvertLinalgToParallelLoopsPass());
    fpm.addPass(codegen::createGpuMapLoopsPass({options.gpuBlockSize}));
  }
  pm.addPass(createConvertMathToFuncs());
  pm.addPass(createConvertParallelLoopToGpuPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addNestedPass<func::FuncOp>(codegen::createGpuSinkIntoLaunchesPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(codegen::createGpuAnnotateKernelsPass());
  pm.addPass(codegen::createGpuMergeModulesPass());
  pm.addPass(codegen::createGpuRecordLaunchesPass());
  // NVVM, PTX per target (LLVM's NVPTX backend), cubins (ptxas).
  codegen::GpuAttachTargetsPassOptions attach;
  attach.targets.assign(targets.begin(), targets.end());
  pm.addPass(codegen::createGpuAttachTargetsPass(attach));
  {
    OpPassManager &gpm = pm.nest<gpu::GPUModuleOp>();
    gpm.addPass(createConvertNVGPUToNVVMPass());
    gpm.addPass(createSCFToControlFlowPass());
    gpm.addPass(memref::createExpandStridedMetadataPass());
    gpm.addPass(createLowerAffinePass());
    arith::ArithExpandOpsPassOptions expand;
    expand.includeBf16 = true;
    gpm.addPass(arith::createArithExpandOpsPass(expand));
    ConvertGpuOpsToNVVMOpsOptions toNvvm;
    toNvvm.useBarePtrCallConv = true;
    gpm.addPass(createConvertGpuOpsToNVVMOps(toNvvm));
    gpm.addPass(createConvertNVVMToLLVMPass());
    gpm.addPass(createCanonicalizerPass());
    gpm.addPass(createCSEPass());
  }
  pm.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions toBinary;
  toBinary.compilationTarget = "isa";
  toBinary.toolkitPath = options.cudaToolkitPath;
  pm.addPass(createGpuModuleToBinaryPass(toBinary));
  pm.addPass(codegen::createGpuPtxasPass(
      {options.cudaToolkitPath, options.ptxasPath}));
}

void kiln::buildKilnCompilePipeline(OpPassManager &pm,
                                    const CompileOptions &options,
                                    StringRef planOutput,
                                    std::vector<uint8_t> *planBytes) {
  buildKilnGraphPipeline(pm, options);
  codegen::OutlineTargetKernelsPassOptions outline;
  outline.targets.assign(options.targets.begin(), options.targets.end());
  pm.addPass(codegen::createOutlineTargetKernelsPass(outline));
  if (hasHostTarget(options))
    buildKilnHostPipeline(pm.nest<planir::HostKernelsOp>().nest<ModuleOp>(),
                          options);
  if (!gpuTargetsOf(options).empty())
    buildKilnGpuPipeline(pm.nest<planir::GpuKernelsOp>().nest<ModuleOp>(),
                         options);
  codegen::ExportPlanPassOptions exportOptions;
  exportOptions.targets.assign(options.targets.begin(), options.targets.end());
  exportOptions.output = planOutput.str();
  exportOptions.stripWeights = options.stripWeights;
  exportOptions.stripThreshold = options.stripThreshold;
  pm.addPass(codegen::createExportPlanPass(exportOptions, planBytes, &options));
}

CompileOptions CompilePipelineOptions::toCompileOptions() const {
  CompileOptions o;
  if (!targets.empty())
    o.targets.assign(targets.begin(), targets.end());
  o.stripWeights = stripWeights;
  o.stripThreshold = stripThreshold;
  o.hostCpu = hostCpu;
  o.cudaToolkitPath = cudaPath;
  o.ptxasPath = ptxas;
  o.precision = precision;
  o.gpuBlockSize = gpuBlockSize;
  o.gpuTactics = tactics;
  o.gpuTacticCandidates = tacticCandidates;
  o.timingCachePath = timingCache;
  o.gpuLatencyCycles = gpuLatencyCycles;
  o.gpuWgmma = gpuWgmma;
  o.gpuTma = gpuTma;
  o.gpuSplitK = gpuSplitK;
  o.gpuClusterSplitK = gpuClusterSplitK;
  o.gpuMmaStages = gpuMmaStages;
  o.fuseSiblingMatmuls = fuseSiblingMatmuls;
  o.fuseSiblingConvs = fuseSiblingConvs;
  o.concatInPlace = concatInPlace;
  o.tf32RoundAtProducers = tf32RoundAtProducers;
  o.layout = layout;
  return o;
}

void kiln::registerKilnPipelines() {
  // A pipeline with options kiln cannot build from is refused by name: the
  // registered builders cannot fail, so they check and report through the
  // first pass they add (kiln-check-static-shapes has no such option); the
  // check happens in compileToPlan for kilnc, and here by aborting with the
  // reason for kiln-opt.
  auto checked = [](const CompilePipelineOptions &o) {
    CompileOptions options = o.toCompileOptions();
    std::string error;
    if (!verifyCompileOptions(options, error))
      llvm::report_fatal_error(llvm::Twine("kiln pipeline options: ") + error,
                               /*gen_crash_diag=*/false);
    return options;
  };
  PassPipelineRegistration<CompilePipelineOptions>(
      "kiln-compile",
      "Everything kilnc runs: graph passes, host and GPU codegen, plan export",
      [checked](OpPassManager &pm, const CompilePipelineOptions &o) {
        buildKilnCompilePipeline(pm, checked(o), o.planOutput);
      });
  PassPipelineRegistration<CompilePipelineOptions>(
      "kiln-graph-pipeline",
      "kiln's graph passes through kernel formation and the region passes",
      [checked](OpPassManager &pm, const CompilePipelineOptions &o) {
        buildKilnGraphPipeline(pm, checked(o));
      });
  PassPipelineRegistration<CompilePipelineOptions>(
      "kiln-host-pipeline",
      "Host codegen of a module of kernel functions (kiln_plan.kernels in "
      "call order) down to a linked shared object",
      [checked](OpPassManager &pm, const CompilePipelineOptions &o) {
        buildKilnHostPipeline(pm, checked(o));
      });
  PassPipelineRegistration<CompilePipelineOptions>(
      "kiln-gpu-pipeline",
      "GPU codegen of a module of kernel functions (kiln_plan.kernels in "
      "call order) down to PTX, cubins and launch records",
      [checked](OpPassManager &pm, const CompilePipelineOptions &o) {
        buildKilnGpuPipeline(pm, checked(o));
      });
}
