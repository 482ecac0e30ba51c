//===- Passes.h - kiln codegen passes ---------------------------*- C++ -*-===//
#ifndef KILN_CODEGEN_PASSES_H
#define KILN_CODEGEN_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln::codegen {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "codegen/Passes.h.inc"

} // namespace kiln::codegen

#endif // KILN_CODEGEN_PASSES_H
