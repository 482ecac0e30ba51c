//===- Compiler.h - compile an imported kiln graph into a plan --*- C++ -*-===//
//
// CompileOptions is what a build is asked to do (kilnc's flags, the options
// of the kiln-compile pipeline in include/kiln/Pipelines.h); compileToPlan
// runs that pipeline and fills a BuildReport from its passes' statistics.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_COMPILER_H
#define KILN_COMPILER_H

#include "kiln/Support/Enums.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln {

struct CompileOptions {
  /// Targets in order of preference: "host" and GPU architectures
  /// ("sm_80", "sm_89", "sm_90a", ...).
  std::vector<std::string> targets = {"host"};
  /// Leave weights of at least `stripThreshold` bytes out of the plan (size
  /// and XXH64 only); kiln-refit puts them back from the ONNX model.
  bool stripWeights = false;
  uint64_t stripThreshold = 4096;
  /// LLVM CPU for host code; empty: a portable baseline of the host
  /// architecture (x86-64-v2, generic elsewhere) so plans run on other
  /// machines of that architecture.
  std::string hostCpu;
  /// CUDA toolkit (libdevice for math functions, ptxas for cubins).
  std::string cudaToolkitPath = "/usr/local/cuda";
  /// ptxas to run; empty: $CUDA_HOME/bin, cudaToolkitPath/bin, then PATH.
  std::string ptxasPath;
  /// Element type of f32 computation: fp32 (default), fp16 or bf16; or
  /// tf32: values stay f32, but convs and matmuls on GPU targets (sm_80+)
  /// run on the tensor cores with tf32 inputs (10 mantissa bits) and f32
  /// accumulation. Plan inputs and outputs keep the model's types.
  Precision precision = Precision::fp32;
  /// fp16: calibrated ranges as NODE=AMAX (the largest |x| of a model
  /// node's values, or a graph input's): ops that touch values near f16's
  /// limit stay in f32 (fp32 islands; kiln-convert-precision's ranges).
  std::vector<std::string> precisionRanges;
  /// Globs of model nodes whose f32 values become extra outputs of the
  /// plan, before any other pass (kiln-tap-values): debug taps and the
  /// range analysis's build.
  std::vector<std::string> tapNodes;
  /// Threads per block of GPU kernels on large loops (multiple of 32).
  int64_t gpuBlockSize = 256;
  /// GPU tactics for conv/matmul: automatic (tensor-core kernels where the
  /// types and targets allow, chosen by the cost model), all (up to
  /// gpuTacticCandidates of them per region in the plan, the cost model's
  /// choice selected; kiln-tune times them and selects the fastest) or
  /// generic (the loop-nest kernels only, for comparison).
  GpuTactics gpuTactics = GpuTactics::automatic;
  /// "all": the most variants a region gets (2 to 8).
  int64_t gpuTacticCandidates = 4;
  /// A timing cache written by kiln-tune: regions it has measured on the
  /// plan's first target get the fastest tactic it recorded ("" = none).
  std::string timingCachePath;
  /// Cost model of the tensor-core tactics: cycles until a K step's global
  /// loads arrive (a tuning knob until kiln-tune measures).
  int64_t gpuLatencyCycles = 400;
  /// sm_90a wgmma kernels (used when every GPU target is sm_90a): "auto"
  /// (cost model), "off", or a forced tile "MxNxS" (tuning).
  std::string gpuWgmma = "auto";
  /// wgmma kernels load plain strided operands (matmul operands, filters,
  /// pointwise conv images) with TMA; false: cp.async for all.
  bool gpuTma = true;
  /// mma.sync kernels: a forced split-K factor (0: the cost model's).
  int64_t gpuSplitK = 0;
  /// sm_90+: split-K GEMMs reduce within thread-block clusters (one launch)
  /// instead of through global partial sums and a second launch.
  bool gpuClusterSplitK = true;
  /// mma.sync kernels with 16-byte operand loads: stages of the cp.async
  /// ring (2: registers and two shared buffers).
  int64_t gpuMmaStages = 4;
  /// Matmuls sharing their input with constant weights of one type run as
  /// one batched matmul (kiln-fuse-sibling-matmuls).
  bool fuseSiblingMatmuls = true;
  /// 2-D convs of one input and geometry run as one conv with the filters
  /// concatenated (kiln-fuse-sibling-convs).
  bool fuseSiblingConvs = true;
  /// A concat's producers write their results into its slices (no copy
  /// kernel) where each input is another kernel's only-used result.
  bool concatInPlace = true;
  /// --precision tf32 on the GPU: conv/matmul kernels round the results
  /// that only convs and matmuls read, which then skip rounding them.
  bool tf32RoundAtProducers = true;
  /// Activation layout of 2-D convolutions: automatic (NHWC where a GPU
  /// target runs fp16/bf16/tf32 tensor-core tactics, else NCHW), nhwc or
  /// nchw.
  Layout layout = Layout::automatic;
};

/// Seconds spent in one stage of the build.
struct StageTime {
  std::string name;
  double seconds = 0;
};

/// One profile of a multi-profile build (kilnc --profile).
struct ProfileBuild {
  std::string spec; ///< "x=8x3x224x224" as given
  int64_t kernels = 0, gpuLaunches = 0;
  uint64_t arenaBytes = 0;
  double seconds = 0;
};

/// What the build did, for kilnc's build report.
struct BuildReport {
  /// Multi-profile builds: every profile, in order (the other figures are
  /// profile 0's, the stages the sum over profiles).
  std::vector<ProfileBuild> profiles;
  int64_t kernels = 0;
  int64_t fusedOps = 0;
  int64_t views = 0;
  /// Transposes, slices and reshapes that matmul kernels read through, and
  /// scalar factors moved after a matmul.
  int64_t prologueOps = 0;
  int64_t hoistedScales = 0;
  /// Casts and transposes that pad kernels read through (the stem's input).
  int64_t padPrologueOps = 0;
  int64_t outputCopies = 0;
  int64_t weights = 0;
  uint64_t weightBytes = 0;
  /// Of those, left out of the plan by --strip-weights.
  int64_t strippedWeights = 0;
  uint64_t strippedWeightBytes = 0;
  uint64_t arenaBytes = 0;
  uint64_t arenaBytesWithoutReuse = 0;
  uint64_t hostModuleBytes = 0;
  /// GPU: launches per inference, bytes of PTX and cubins (all targets).
  int64_t gpuLaunches = 0;
  /// GPU: conv/matmul ops run by tensor-core tactics, and of those, with
  /// the elementwise op after them fused into their epilogue.
  int64_t tensorCoreOps = 0;
  int64_t fusedEpilogues = 0;
  /// Of the tensor-core ops, those on the sm_90a wgmma kernel (the rest
  /// use mma.sync).
  int64_t wgmmaOps = 0;
  /// Of the wgmma ops, those loading an operand with TMA; the tensor maps
  /// the plan holds for them (variants' included).
  int64_t tmaOps = 0;
  /// Concats whose inputs their producing kernels write into slices of the
  /// concat's buffer (no copy kernel), and those inputs.
  /// --precision tf32 on the GPU: activations read only by convs and
  /// matmuls, rounded to tf32 by the kernels that produce them.
  int64_t tf32RoundedActivations = 0;
  int64_t elidedConcats = 0;
  int64_t elidedConcatInputs = 0;
  int64_t tensorMaps = 0;
  /// GPU: launches of reduction kernels (softmax, normalization, pooling):
  /// a warp or a block per row, or a split column reduction.
  int64_t reductionKernels = 0;
  /// GPU: runs of row-wise ops (softmax, layer normalization, ...) fused
  /// into one launch with a warp per row.
  int64_t rowFusions = 0;
  /// GPU: channels-last max pools run as one direct kernel each.
  int64_t windowPools = 0;
  /// Depthwise convs run as one direct kernel each (GPU targets).
  int64_t depthwiseConvs = 0;
  /// GPU, --tactics all: regions built in several variants, and the
  /// variants in all (kiln-tune selects one per region).
  int64_t tacticChoices = 0;
  int64_t tacticVariants = 0;
  /// --timing-cache: its entries for the plan's target, the regions that
  /// took its tactic, and those whose recorded tactic is no candidate any
  /// more (they keep the cost model's choice).
  int64_t timingCacheEntries = 0;
  int64_t timingCacheHits = 0;
  int64_t timingCacheStale = 0;
  /// kiln-layout-nhwc: the layout used, convolutions made channels-last,
  /// and the transposes left in the graph (edges, ops needing NCHW).
  std::string layout = "nchw";
  int64_t nhwcConvs = 0;
  /// Of those, grouped convs run as dense ones (block-diagonal filters).
  int64_t denseGroupedConvs = 0;
  int64_t layoutTransposes = 0;
  /// Horizontal fusion: batched matmuls made of sibling matmuls (one
  /// input, constant weights of one type), and the matmuls they replace.
  int64_t siblingGroups = 0, siblingMatmuls = 0;
  /// Convs made of sibling convs (one input and geometry), the convs they
  /// replace, and the groups whose activations differ (one prelu).
  int64_t siblingConvGroups = 0, siblingConvs = 0, siblingConvsMixed = 0;
  /// Slices that convs and elementwise ops read in place.
  int64_t sliceReads = 0;
  /// tf32: constant matmul weights stored transposed, K-major.
  int64_t kMajorWeights = 0;
  /// tf32: weights read only by convs/matmuls, rounded to tf32 at build time.
  int64_t roundedWeights = 0;
  /// Reduced precision: values and weights converted from f32.
  int64_t precisionValues = 0;
  int64_t precisionWeights = 0;
  /// fp16: the ops kept in f32, as "node (op): reason", and the samples
  /// the ranges came from (--calib; 0 without).
  std::vector<std::string> fp32Islands;
  int64_t fp16RangeSamples = 0;
  /// --validate: the reduced-precision host build against the f32 one on
  /// the samples.
  struct Validation {
    struct Output {
      std::string name;
      double maxAbsError = 0, maxAbsReference = 0;
      double scaledError = 0; ///< maxAbsError / maxAbsReference (inf: inf/NaN)
    };
    int64_t samples = 0;
    double tolerance = 0;
    std::vector<Output> outputs;
    /// The first model node (in order) whose values are beyond the tolerance.
    std::string firstNode;
    double firstNodeError = 0;
    bool passed = false;
  };
  std::optional<Validation> validation;
  /// Values made outputs by tapNodes.
  int64_t taps = 0;
  uint64_t ptxBytes = 0;
  uint64_t cubinBytes = 0;
  uint64_t planBytes = 0;
  std::vector<StageTime> stages;
  /// --precision int8: where the ranges came from and each quantized layer.
  struct Int8Layer {
    std::string node, op;
    /// Each activation read and its calibrated range (amax).
    std::vector<std::pair<std::string, double>> activations;
    /// The weight ("" when none), its channels and scale range.
    std::string weight;
    int64_t weightChannels = 0;
    double minWeightScale = 0, maxWeightScale = 0;
  };
  struct Int8Summary {
    std::string method; ///< minmax, entropy, percentile=P, mse
    /// "calibrated on N samples of DIR" or "calibration cache FILE".
    std::string source;
    std::vector<Int8Layer> layers;
    /// Layers left in fp32 by --layer-precision.
    std::vector<std::string> keptFp32;
    /// --int8-tolerance: the tolerance, the quantized model's error against
    /// f32 (max |error| / max |value| over outputs and samples) before and
    /// after, and the layers it returned to fp32 ("node: why"), most
    /// sensitive first.
    double tolerance = 0, errorAllInt8 = 0, errorFinal = 0;
    std::vector<std::string> toleranceKept = {};
  };
  std::optional<Int8Summary> int8;
};

/// Checks `options` as a whole (targets known and not repeated, counts in
/// range, a wgmma tile that parses, options that need a GPU target given
/// one); on failure `error` says what and how to fix it.
bool verifyCompileOptions(const CompileOptions &options, std::string &error);

/// Compiles `module` (one func.func @main in kiln's graph dialect, as the
/// ONNX importer makes it) into a plan: runs the kiln-compile pipeline
/// (include/kiln/Pipelines.h) and returns the serialized plan in `planBytes`.
/// Shapes must be static. Errors are emitted as MLIR diagnostics; `module` is
/// rewritten. `report` gets the pass statistics and each stage's time.
mlir::LogicalResult compileToPlan(mlir::ModuleOp module,
                                  const CompileOptions &options,
                                  std::vector<uint8_t> &planBytes,
                                  BuildReport &report);

} // namespace kiln

#endif // KILN_COMPILER_H
