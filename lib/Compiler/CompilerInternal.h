//===- CompilerInternal.h - pieces of lib/Compiler shared between files ---===//
#ifndef KILN_LIB_COMPILER_COMPILERINTERNAL_H
#define KILN_LIB_COMPILER_COMPILERINTERNAL_H

#include "kiln/Compiler.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::compiler {

/// Host kernel lowering, tensors to loops on memrefs: graph → linalg,
/// elementwise fusion, one-shot bufferization with identity-layout function
/// boundaries.
void buildHostBufferizePipeline(mlir::OpPassManager &pm);
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
