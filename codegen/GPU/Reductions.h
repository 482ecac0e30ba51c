//===- Reductions.h - reduction bodies the GPU passes recognize -*- C++ -*-===//
//
// Shared by kiln-gpu-row-reduce and kiln-gpu-row-fuse.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_GPU_REDUCTIONS_H
#define KILN_CODEGEN_GPU_REDUCTIONS_H

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

#include <optional>

namespace kiln::codegen {

/// The combiner of a reduction body `yield combine(out, f(ins))` and its
/// identity: addf (0), maximumf/maxnumf (-inf), minimumf/minnumf (+inf).
struct Combiner {
  mlir::Operation *op = nullptr;
  double identity = 0;
};
std::optional<Combiner> matchCombiner(mlir::linalg::GenericOp g);

/// `combine(x, y)` with the combiner's op kind and attributes.
mlir::Value combine(mlir::OpBuilder &b, mlir::Location loc,
                    mlir::Operation *combiner, mlir::Value x, mlir::Value y);

/// The combination of `value` over the 32 lanes of the warp, in every lane
/// (a butterfly of gpu.shuffle xor; 16-bit values travel as f32, exactly).
/// With `minOffset` = 2^m the butterfly stops before offset 2^m - 1: each
/// lane then holds the combination over the lanes equal to it modulo 2^m.
mlir::Value warpAllReduce(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::Operation *combiner, mlir::Value value,
                          int64_t minOffset = 1);

/// A gpu.launch with one warp per row (`rows` rows, `warpsPerBlock` warps
/// per block, 1-D), tagged `kiln.tactic` = `tactic`, its body terminated.
/// The builder is left inside the branch taken by the warps whose row is in
/// range (whole warps take it together, as the shuffles need).
struct WarpRows {
  mlir::gpu::LaunchOp launch;
  mlir::Value lane, row; // index values
};
WarpRows buildWarpRows(mlir::OpBuilder &b, mlir::Location loc, int64_t rows,
                       int64_t warpsPerBlock, llvm::StringRef tactic);

} // namespace kiln::codegen

#endif // KILN_CODEGEN_GPU_REDUCTIONS_H
