//===- CompilerInternal.h - pieces of lib/Compiler shared between files ---===//
#ifndef KILN_LIB_COMPILER_COMPILERINTERNAL_H
#define KILN_LIB_COMPILER_COMPILERINTERNAL_H

#include "kiln/Compiler.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kiln::compiler {

/// Adds the time since construction (or the last lap) to a build report's
/// stages.
struct Stopwatch {
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  void lap(std::vector<StageTime> &stages, const char *name) {
    auto now = std::chrono::steady_clock::now();
    stages.push_back({name, std::chrono::duration<double>(now - start).count()});
    start = now;
  }
};

/// Parses a built-in textual pipeline into `pm` (aborts on a malformed one:
/// that is a bug in kiln, not in the user's input).
void addPipeline(mlir::OpPassManager &pm, llvm::StringRef pipeline);

/// Host kernel lowering, tensors to loops on memrefs: graph → linalg,
/// elementwise fusion, one-shot bufferization with identity-layout function
/// boundaries.
void buildHostBufferizePipeline(mlir::OpPassManager &pm);
/// Its two halves: graph ops to linalg on tensors; then elementwise fusion
/// and one-shot bufferization.
void buildGraphToLinalgPipeline(mlir::OpPassManager &pm);
void buildFuseAndBufferizePipeline(mlir::OpPassManager &pm);
/// After results became out-params: deallocation, loops, LLVM dialect with
/// the bare-pointer calling convention (static shapes only).
void buildHostToLLVMPipeline(mlir::OpPassManager &pm);

/// Lowers the kernel functions in `kernels` (a module holding only
/// `func.func private @kernel_N`s on tensors), adds the ABI wrappers
/// `kiln_<name>(void **buffers, const int64_t *dims)`, and compiles and
/// links them into an ELF shared object returned in `so`.
mlir::LogicalResult buildHostModule(mlir::ModuleOp kernels,
                                    llvm::ArrayRef<std::string> kernelNames,
                                    const CompileOptions &options,
                                    std::vector<char> &so,
                                    std::vector<StageTime> &stages);

/// memref.copy → linalg.copy: a strided copy would otherwise lower to a
/// call into MLIR's runner library, which plans cannot depend on.
void lowerMemrefCopies(mlir::ModuleOp module);

/// Runs `program FLAGS -o OUT IN` in a temporary directory (removed
/// afterwards) with `input` written to IN (named `inName`), and returns OUT
/// (`outName`) in `output`. Failures are diagnostics that name `what` and
/// include the tool's output.
mlir::LogicalResult
runToolOnFile(llvm::StringRef program, llvm::StringRef what,
              llvm::ArrayRef<char> input, llvm::StringRef inName,
              llvm::StringRef outName,
              llvm::function_ref<void(llvm::SmallVectorImpl<llvm::StringRef> &)> flags,
              std::vector<char> &output, mlir::Location loc);

/// Bufferized kernel functions return their results through out-params:
/// fresh buffers become the out-params themselves (MLIR's
/// promoteBufferResultsToOutParams with hoisted static allocations; a buffer
/// returned twice is copied first, as MLIR 22 crashes on it), and a result
/// that is a reshaped view of a fresh buffer makes that buffer the inverse
/// view of its out-param instead of being copied.
mlir::LogicalResult promoteResultsToOutParams(mlir::ModuleOp kernels);

/// One GPU kernel launch of a kernel function: `args` index the function's
/// arguments (its operands, then its results, then its scratch buffer when
/// it has one).
/// Attribute of a kernel function (array of dictionaries {result, shape,
/// offsets}): result `result` is written into the slice at `offsets` of a
/// buffer of `shape` (an elided concat's), which the out-param becomes.
inline constexpr llvm::StringLiteral kIntoSlicesAttr = "kiln.into_slices";

/// Attribute of a kernel function (i64 array, --precision tf32 on the
/// GPU): results to round to tf32 before they are stored (every reader is
/// a conv or matmul, which would round them anyway); see
/// roundResultsToTf32 in GpuCodegen.cpp.
inline constexpr llvm::StringLiteral kRoundTf32ResultsAttr =
    "kiln.round_tf32_results";

struct GpuLaunch {
  std::string symbol;
  std::array<uint32_t, 3> grid = {1, 1, 1};
  std::array<uint32_t, 3> block = {1, 1, 1};
  uint32_t sharedMemBytes = 0;
  std::vector<unsigned> args;
};
/// A kernel function argument that holds a TMA tensor map
/// (codegen::kTensorMapAttr): the plan gets a TensorMap buffer for it.
struct GpuTensorMapArg {
  int64_t source = 0; ///< the argument holding the tensor
  int64_t offset = 0; ///< bytes into it
  mlir::Type elementType;
  std::vector<int64_t> dims, strides, box;
  int64_t swizzle = 0;
};
struct GpuKernelLaunches {
  std::vector<GpuLaunch> launches;
  /// Bytes of scratch memory (intermediate buffers); 0: no scratch argument.
  uint64_t scratchBytes = 0;
  /// The scratch argument (-1: none).
  int64_t scratchArg = -1;
  /// Tensor-map arguments by argument number.
  std::map<unsigned, GpuTensorMapArg> tensorMaps;
};
struct GpuBinary {
  std::string target; ///< "sm_90a"
  std::string ptx;
  std::vector<char> cubin;
};
struct GpuModuleResult {
  std::map<std::string, GpuKernelLaunches> kernels;
  std::vector<GpuBinary> binaries; ///< one per target, in target order
  /// Conv/matmul ops given tensor-core kernels; of those, with a fused
  /// elementwise epilogue.
  int64_t tensorCoreOps = 0, fusedEpilogues = 0;
  /// Of the tensor-core ops, those on the sm_90a wgmma kernel.
  int64_t wgmmaOps = 0;
  /// Of those, loading an operand with TMA.
  int64_t tmaOps = 0;
  /// Row reductions given one warp per row.
  int64_t warpReductions = 0;
  /// Runs of row-wise ops fused into one warp-per-row launch.
  int64_t rowFusions = 0;
  int64_t windowPools = 0;
  /// --tactics all: kernel functions built in several variants. variants[0]
  /// is the function itself (the cost model's choice); the others are its
  /// clones, whose launches are in `kernels` under their own names.
  struct Variant {
    std::string function;
    std::string tactics; ///< "wgmma 128x256x64 4 stages" (';'-joined)
  };
  struct Choice {
    std::string key; ///< timing-cache key of the region
    std::string shapes; ///< its GEMMs, "[batch x]MxNxK" ('; '-joined)
    std::vector<Variant> variants;
  };
  std::map<std::string, Choice> choices;
  int64_t timingCacheEntries = 0, timingCacheHits = 0, timingCacheStale = 0;
};

/// "sm_80", "sm_90a", ... (the GPU targets kiln knows).
bool isGpuTarget(llvm::StringRef target);
std::string knownGpuTargets();
/// The CUDA driver version the PTX for `targets` needs (0 without GPU targets).
uint32_t gpuMinDriverVersion(llvm::ArrayRef<std::string> targets);

/// Lowers the kernel functions in `kernels` for the GPU `targets`: PTX from
/// LLVM's NVPTX backend, cubins from ptxas, and each kernel function's
/// launches. `kernels` is rewritten.
mlir::LogicalResult buildGpuModule(mlir::ModuleOp kernels,
                                   llvm::ArrayRef<std::string> kernelNames,
                                   llvm::ArrayRef<std::string> targets,
                                   const CompileOptions &options,
                                   GpuModuleResult &out,
                                   std::vector<StageTime> &stages);

/// One buffer to place in the arena: live over steps [first, last].
struct Interval {
  uint64_t size = 0;
  int64_t first = 0;
  int64_t last = 0;
};

/// Greedy best-offset placement, largest first: each buffer goes to the
/// lowest `alignment`-aligned offset that does not overlap any placed buffer
/// whose live range intersects its own. Returns the offsets; `peak` is the
/// arena size and `withoutReuse` the sum of aligned sizes.
std::vector<uint64_t> planArena(llvm::ArrayRef<Interval> intervals,
                                uint64_t alignment, uint64_t &peak,
                                uint64_t &withoutReuse);

} // namespace kiln::compiler

#endif // KILN_LIB_COMPILER_COMPILERINTERNAL_H
