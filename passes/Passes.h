//===- Passes.h - kiln graph passes -----------------------------*- C++ -*-===//
#ifndef KILN_PASSES_PASSES_H
#define KILN_PASSES_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/Pass.h"
// Statistics that count in NDEBUG builds of LLVM too (see PassStatistics.h).
#include "kiln/Support/PassStatistics.h"
#include "passes/PassStatistics.h.inc"
#include "kiln/Support/Enums.h"

#include <cstdint>
#include <optional>

namespace kiln::graph {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// What formKernels did, for statistics and the build report.
struct FormKernelsResult {
  int64_t kernels = 0;
  int64_t fusedOps = 0;
  int64_t views = 0;
  int64_t prologueOps = 0;    // data movement read through by matmuls
  int64_t padPrologueOps = 0; // casts/transposes read through by pads
  int64_t sliceReads = 0;     // slices read in place by convs, elementwise ops
};

/// The name of @main's input (or output) `i`: its ONNX name (`kiln.name`),
/// else input_<i> (output_<i>).
std::string graphValueName(mlir::func::FuncOp main, bool input, unsigned i);

/// True for ops that stay in @main as views of their input: reshape,
/// flatten, squeeze and unsqueeze with static input and output shapes.
bool isStaticView(mlir::Operation *op);

/// Outlines every kernel op of `main` into `func.func private @kernel_N` in
/// `module` (see FormKernelsPass). Fails only on IR it cannot partition.
mlir::LogicalResult formKernels(mlir::ModuleOp module, mlir::func::FuncOp main,
                                int64_t maxInlineConstantElements,
                                FormKernelsResult &result);

/// The bytes of a non-splat dense or a resource elements attribute (none
/// for others): what the layout and fusion passes repack.
std::optional<llvm::ArrayRef<char>> rawElements(mlir::ElementsAttr attr);

/// `data` as a `type` attribute of the kind of `like`: dense, or a resource
/// named after `like`'s with `suffix`.
mlir::ElementsAttr elementsLike(mlir::ElementsAttr like,
                                mlir::RankedTensorType type,
                                llvm::ArrayRef<char> data,
                                llvm::StringRef suffix);

/// A constant made of tensors of the model, back to back: G of one type
/// stacked along a new leading dim (i64 attribute G), or concatenated along
/// their leading dim (array attribute: each part's leading dim). Plans store
/// each part as its own weight buffer, back to back, so that weight
/// stripping and kiln-refit see the model's tensors.
inline constexpr llvm::StringLiteral kStackPartsAttr = "kiln.stack_parts";

/// What fuseSiblingMatmuls did.
struct FuseSiblingMatmulsStats {
  int64_t groups = 0;  // batched matmuls made
  int64_t matmuls = 0; // matmuls they replace
  int64_t biases = 0;  // bias adds folded in with them
};

/// Runs matmuls that share their left-hand side and have constant
/// right-hand sides of one type as one batched matmul (see
/// FuseSiblingMatmulsPass).
FuseSiblingMatmulsStats fuseSiblingMatmuls(mlir::func::FuncOp func);

/// What fuseSiblingConvs did.
struct FuseSiblingConvsStats {
  int64_t groups = 0;           // convs made
  int64_t convs = 0;            // convs they replace
  int64_t mixedActivations = 0; // groups whose parts' activations differ
};

/// Runs 2-D convs of one input and geometry as one conv with the filters
/// concatenated (see FuseSiblingConvsPass).
FuseSiblingConvsStats fuseSiblingConvs(mlir::func::FuncOp func);

/// Whether `user` reads its operand `v`, when that is a static slice, in
/// place: kiln-form-kernels puts the slice in `user`'s kernel (a conv's
/// image, an operand of an elementwise op of `v`'s type) instead of copying
/// it in a kernel of its own.
bool readsSliceInPlace(mlir::Operation *user, mlir::Value v);

/// Moves scalar factors of matmul operands after the product (see
/// HoistMatmulScalesPass); returns how many moved.
int64_t hoistMatmulScales(mlir::func::FuncOp func);

/// Converts @main's f32 computation to `precision` (fp16 or bf16); see
/// ConvertPrecisionPass. Fails with a diagnostic on another precision.
/// `ranges`: NODE=AMAX entries (ConvertPrecisionPass's option); the ops
/// kept in f32 are counted in `keptOps`.
mlir::LogicalResult convertPrecision(mlir::ModuleOp module, Precision precision,
                                     llvm::ArrayRef<std::string> ranges = {},
                                     int64_t *convertedValues = nullptr,
                                     int64_t *convertedWeights = nullptr,
                                     int64_t *keptOps = nullptr);

/// What layoutNhwc did, for statistics and the build report.
struct LayoutNhwcStats {
  int64_t convs = 0;          // convolutions made channels_last
  int64_t packedFilters = 0;  // constant filters repacked OIHW -> OHWI
  int64_t paddedConvs = 0;    // images padded to a multiple of 8 channels
  int64_t denseGrouped = 0;   // grouped convs run as dense ones (zero blocks)
  int64_t moved = 0;          // other ops moved to NHWC
  int64_t reshapes = 0;       // unit-dim transposes turned into reshapes
  int64_t transposes = 0;     // transposes left in @main
  int64_t kMajorWeights = 0;  // tf32: constant matmul weights stored [N, K]
  int64_t roundedWeights = 0; // tf32: weights rounded to tf32 at build time
};

/// Runs @main's 2-D convolutions channels-last (see LayoutNhwcPass).
/// `tf32`: f32 convs will run on the tensor cores too (as tf32), so they
/// get the padded and block-diagonal filters f16/bf16 ones get.
mlir::LogicalResult layoutNhwc(mlir::ModuleOp module, LayoutNhwcStats &stats,
                               bool tf32 = false);

} // namespace kiln::graph

#endif // KILN_PASSES_PASSES_H
