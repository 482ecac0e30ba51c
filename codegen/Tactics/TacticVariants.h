//===- TacticVariants.h - what the tactic-variant passes share ---*- C++
//-*-===//
#ifndef KILN_CODEGEN_TACTICS_TACTICVARIANTS_H
#define KILN_CODEGEN_TACTICS_TACTICVARIANTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace kiln::codegen {

/// Whether kiln-gpu-tensor-core has a conv or contraction to consider in
/// `func` (the kernel functions that get tactic variants).
bool hasTensorCoreAnchor(mlir::func::FuncOp func);

/// The timing-cache key of a kernel function of `module`: a hash of its IR
/// before the tactics (printed under a fixed name, aliases numbered within
/// `module`) and of the constants it reads, so the same region gets the same
/// key in any model and build.
std::string regionKey(mlir::func::FuncOp func, mlir::ModuleOp module);

} // namespace kiln::codegen

#endif // KILN_CODEGEN_TACTICS_TACTICVARIANTS_H
