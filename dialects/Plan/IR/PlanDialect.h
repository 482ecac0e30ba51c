//===- PlanDialect.h - kiln_plan dialect ---------------------------*- C++
//-*-===//
#ifndef KILN_DIALECTS_PLAN_IR_PLANDIALECT_H
#define KILN_DIALECTS_PLAN_IR_PLANDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"

#include "dialects/Plan/IR/PlanDialect.h.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Plan/IR/PlanAttrs.h.inc"

#define GET_OP_CLASSES
#include "dialects/Plan/IR/PlanOps.h.inc"

namespace kiln::planir {

/// Discardable attributes of kernel functions and modules (the typed values
/// are this dialect's attributes):
///  - on a kernel function: its results placed in slices of other buffers
///    (array of #kiln_plan.into_slice);
inline constexpr llvm::StringLiteral kIntoSlicesAttr = "kiln_plan.into_slices";
///  - on a kernel function argument: it holds a TMA tensor map
///    (#kiln_plan.tensor_map);
inline constexpr llvm::StringLiteral kTensorMapAttr = "kiln_plan.tensor_map";
///  - on a kernel function: its tactic variants (#kiln_plan.choice);
inline constexpr llvm::StringLiteral kChoiceAttr = "kiln_plan.choice";
///  - on the host module: the linked ELF shared object (string), and before
///    linking the object file it is made of.
inline constexpr llvm::StringLiteral kSharedObjectAttr =
    "kiln_plan.shared_object";
inline constexpr llvm::StringLiteral kObjectFileAttr = "kiln_plan.object_file";
///  - on the kernel module of a target container: the kernel functions in
///    the order @main calls them (array of flat symbol references);
inline constexpr llvm::StringLiteral kKernelsAttr = "kiln_plan.kernels";
///  - on a kernel function (--precision tf32 on the GPU): the results to
///    round to tf32 before they are stored (i64 array; every reader is a
///    conv or matmul, which would round them anyway);
inline constexpr llvm::StringLiteral kRoundTf32ResultsAttr =
    "kiln_plan.round_tf32_results";
///  - on a call of @main (unit): a concat whose inputs their producers write
///    into its buffer; it is no step of the plan.
inline constexpr llvm::StringLiteral kElidedConcatAttr =
    "kiln_plan.elided_concat";
///  - on a kiln.constant and on a kernel function argument (unit): a weight
///    rounded to tf32 at build time, or an activation its producer rounded;
///    tensor-core kernels need not round it again. (A graph-level mark,
///    hence its kiln. prefix.)
inline constexpr llvm::StringLiteral kTf32RoundedAttr = "kiln.tf32_rounded";

} // namespace kiln::planir

#endif // KILN_DIALECTS_PLAN_IR_PLANDIALECT_H
