//===- Targets.h - the targets kiln compiles for and their tools -*- C++
//-*-===//
#ifndef KILN_CODEGEN_TARGETS_TARGETS_H
#define KILN_CODEGEN_TARGETS_TARGETS_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::codegen {

/// A GPU architecture kiln compiles for, with the PTX ISA it is generated
/// with and the CUDA driver that ISA needs (cuDriverGetVersion encoding).
/// `sms`: multiprocessors of the architecture's usual data-center part, the
/// tensor-core cost model's guess (A100's 108 where none is assumed).
struct GpuTargetInfo {
  const char *name;
  const char *ptxFeature;
  uint32_t minDriver;
  int64_t sms;
};

/// The architecture named `name` ("sm_90a"), or null.
const GpuTargetInfo *findGpuTarget(llvm::StringRef name);
bool isGpuTarget(llvm::StringRef target);
/// "sm_70, sm_75, ...".
std::string knownGpuTargets();

/// The ptxas to run: `ptxasOption` when given, else $CUDA_HOME/bin,
/// `cudaPath`/bin, then PATH; "" when there is none.
std::string findPtxas(llvm::StringRef ptxasOption, llvm::StringRef cudaPath);
/// 80 for "sm_80", 90 for "sm_90a".
int64_t smVersion(llvm::StringRef target);
/// The CUDA driver version the PTX for `targets` needs (0 without GPU
/// targets; "host" is ignored).
uint32_t gpuMinDriverVersion(llvm::ArrayRef<std::string> targets);

/// Runs `program FLAGS -o OUT IN` in a temporary directory (removed
/// afterwards) with `input` written to IN (named `inName`), and returns OUT
/// (`outName`) in `output`. Failures are diagnostics at `loc` that name
/// `what` and include the tool's output.
mlir::LogicalResult runToolOnFile(
    llvm::StringRef program, llvm::StringRef what, llvm::ArrayRef<char> input,
    llvm::StringRef inName, llvm::StringRef outName,
    llvm::function_ref<void(llvm::SmallVectorImpl<llvm::StringRef> &)> flags,
    std::vector<char> &output, mlir::Location loc);

} // namespace kiln::codegen

#endif // KILN_CODEGEN_TARGETS_TARGETS_H
