//===- Enums.h - kiln's enum-like compile choices -----------------*- C++
//-*-===//
//
// The choices that CompileOptions, the pipeline options and pass options share
// (no MLIR needed), with their spellings on the command line and in reports.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SUPPORT_ENUMS_H
#define KILN_SUPPORT_ENUMS_H

#include "llvm/ADT/StringRef.h"

namespace kiln {

/// Element type of the model's f32 computation. tf32: values stay f32, GPU
/// convs and matmuls (sm_80+) run on the tensor cores with tf32 inputs.
enum class Precision { fp32, tf32, fp16, bf16 };

/// Activation layout of 2-D convolutions. auto: NHWC where a GPU target runs
/// fp16/bf16/tf32 tensor-core tactics, else NCHW.
enum class Layout { automatic, nhwc, nchw };

/// GPU conv/matmul tactics: the cost model's tensor-core kernel (auto),
/// several candidates per region in the plan (all), or the loop-nest
/// kernels only (generic).
enum class GpuTactics { automatic, all, generic };

inline llvm::StringRef stringify(Precision p) {
  switch (p) {
  case Precision::fp32:
    return "fp32";
  case Precision::tf32:
    return "tf32";
  case Precision::fp16:
    return "fp16";
  case Precision::bf16:
    return "bf16";
  }
  return "";
}
inline llvm::StringRef stringify(Layout l) {
  switch (l) {
  case Layout::automatic:
    return "auto";
  case Layout::nhwc:
    return "nhwc";
  case Layout::nchw:
    return "nchw";
  }
  return "";
}
inline llvm::StringRef stringify(GpuTactics t) {
  switch (t) {
  case GpuTactics::automatic:
    return "auto";
  case GpuTactics::all:
    return "all";
  case GpuTactics::generic:
    return "generic";
  }
  return "";
}

/// Whether `p` stores f32 values in a 16-bit type.
inline bool isHalfPrecision(Precision p) {
  return p == Precision::fp16 || p == Precision::bf16;
}

} // namespace kiln

#endif // KILN_SUPPORT_ENUMS_H
