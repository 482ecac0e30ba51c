//===- Passes.h - kiln codegen passes ---------------------------*- C++ -*-===//
#ifndef KILN_CODEGEN_PASSES_H
#define KILN_CODEGEN_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
// Statistics that count in NDEBUG builds of LLVM too (see PassStatistics.h).
#include "kiln/Support/PassStatistics.h"
#include "codegen/PassStatistics.h.inc"
#include "dialects/Plan/IR/PlanDialect.h"

#include <string>
namespace kiln {
struct CompileOptions;
}

namespace kiln::codegen {

/// The buffer `v` is a view of: follows view-like ops (subview, reshapes,
/// memref.view, memref.transpose) to the first value no view defines.
mlir::Value viewRoot(mlir::Value v);

/// Ops that may move across others: no memory access and no regions
/// (constants, index math, views), or a fresh allocation.
bool isMovable(mlir::Operation *op);

/// Erases `buffer` if nobody uses it and it is an allocation or a view,
/// then the buffers it viewed, as long as they become unused.
void eraseDeadBuffer(mlir::Value buffer);

/// True for a memref.load from a function argument (directly or through
/// views) that nothing in the function stores to: reading it anywhere after
/// the function starts gives the same value, so GPU lowering may recompute
/// it inside each kernel that uses it.
bool isReadOnlyArgumentLoad(mlir::Operation *op);

/// Whether `lanes` consecutive elements along the last dim of `t`, starting
/// at a multiple of `lanes`, can move as one vector: static, unit innermost
/// stride, other strides, the offset and the last dim multiples of `lanes`
/// (buffers start 64-byte aligned).
bool allowsVectorAccess(mlir::MemRefType t, int64_t lanes = 8);

/// Whether kiln-gpu-tensor-core considers `op` for a tensor-core kernel: a
/// linalg conv (NCHW, NHWC or grouped NHWC) or contraction on buffers.
bool isTensorCoreAnchor(mlir::Operation *op);

/// Function attributes of kiln-gpu-tensor-core's tactic variants (`kilnc
/// --tactics all` clones a kernel function per candidate; `--timing-cache`
/// forces the measured best):
///  - in: `kiln.tactic_variant` (i64): run the N-th candidate of every
///    anchor (0: the cost model's choice); `kiln.tactic_force` (string): the
///    anchors' tactics by name, in order, separated by ';';
///  - out: `kiln.tactics` (string): the tactics used, separated by "; ";
///    `kiln.tactic_void` (unit): the variant does not exist (fewer
///    candidates); `kiln.tactic_stale` (unit): a forced tactic is not a
///    candidate any more (the cost model's choice was used).
inline constexpr llvm::StringLiteral kTacticVariantAttr = "kiln.tactic_variant";
inline constexpr llvm::StringLiteral kTacticForceAttr = "kiln.tactic_force";
inline constexpr llvm::StringLiteral kTacticsAttr = "kiln.tactics";
/// Out, with kiln.tactics: each GEMM's "[batch x]MxNxK".
inline constexpr llvm::StringLiteral kGemmShapesAttr = "kiln.gemm_shapes";
inline constexpr llvm::StringLiteral kTacticVoidAttr = "kiln.tactic_void";
inline constexpr llvm::StringLiteral kTacticStaleAttr = "kiln.tactic_stale";
/// Argument attribute of a kernel function (unit): the argument is a weight
/// kilnc rounded to tf32 at build time (--precision tf32; also on the
/// graph's kiln.constant ops), or an activation its producer rounded, so the
/// tensor-core kernels need not round it.
using kiln::planir::kTf32RoundedAttr;

/// Argument attribute of a kernel function (#kiln_plan.tensor_map): the
/// argument is a 128-byte TMA tensor map for the wgmma kernel, which the
/// runtime encodes (plan::TensorMap).
using kiln::planir::kTensorMapAttr;

/// Argument attribute of a GPU kernel function (unit): its scratch memory
/// (kiln-gpu-assign-scratch).
inline constexpr llvm::StringLiteral kScratchAttr = "kiln.scratch";

/// Attribute of a gpu.launch (string): the tactic that made it, for tests
/// and reading IR ("wgmma 128x256x64 4 stages, TMA A + fused epilogue",
/// "warp row reduction", "window max pool", ...).
inline constexpr llvm::StringLiteral kTacticAttr = "kiln.tactic";

/// The launches in `func` that a tactic made (kTacticAttr), 0 in a tactic
/// variant's clone (kTacticVariantAttr): what the tactic passes' statistics
/// count, before and after they run, once per region.
int64_t countRegionTacticLaunches(mlir::func::FuncOp func);

/// The gpu.module (and later gpu.binary) every GPU kernel is merged into.
inline constexpr llvm::StringLiteral kMergedName = "kiln_kernels";

/// Side-effect-free ops (views, constants, index math, loads of read-only
/// arguments) that kiln-gpu-sink-into-launches recomputes inside launches.
bool isSinkableIntoLaunch(mlir::Operation *op);

/// The kernel functions of a GPU kernel module in plan order: those in
/// `kiln_plan.kernels` (call order), then each region's tactic variants
/// (regions by name). Fails with a diagnostic without the attribute.
mlir::FailureOr<llvm::SmallVector<std::string>>
kernelFunctionsInOrder(mlir::ModuleOp module);

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "codegen/Passes.h.inc"

/// kiln-export-plan that also hands the serialized plan to `planBytes`
/// (kilnc writes the file itself) and records `compileOptions` (the whole
/// pipeline's; the pass keeps a copy) in the plan's provenance.
std::unique_ptr<mlir::Pass>
createExportPlanPass(const ExportPlanPassOptions &options,
                     std::vector<uint8_t> *planBytes,
                     const kiln::CompileOptions *compileOptions = nullptr);

} // namespace kiln::codegen

#endif // KILN_CODEGEN_PASSES_H
