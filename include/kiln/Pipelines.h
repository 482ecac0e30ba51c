//===- Pipelines.h - kiln's compile pipeline as pass pipelines ---*- C++
//-*-===//
//
// What kilnc runs, as MLIR pass pipelines anyone can run with kiln-opt:
//
//   kiln-compile          = kiln-graph-pipeline
//                           → kiln-outline-target-kernels
//                           →
//                           kiln_plan.host_kernels(builtin.module(kiln-host-pipeline))
//                           →
//                           kiln_plan.gpu_kernels(builtin.module(kiln-gpu-pipeline))
//                           → kiln-export-plan
//
//   kiln-opt model.mlir --kiln-compile='targets=sm_90a precision=fp16
//       plan-output=model.plan' -mlir-print-ir-after-all
//
// The options are CompileOptions' (include/kiln/Compiler.h), one each.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PIPELINES_H
#define KILN_PIPELINES_H

#include "kiln/Compiler.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

/// The kiln-compile pipeline's options: one per CompileOptions field, named
/// as kilnc's flags, plus where kiln-opt writes the plan.
struct CompilePipelineOptions
    : public mlir::PassPipelineOptions<CompilePipelineOptions> {
  ListOption<std::string> targets{
      *this, "targets",
      llvm::cl::desc("Targets of the plan in order of preference: host and "
                     "GPU architectures (sm_70 ... sm_120a); default host")};
  Option<Precision> precision{
      *this, "precision", llvm::cl::desc("Element type of f32 computation"),
      llvm::cl::init(Precision::fp32),
      llvm::cl::values(
          clEnumValN(Precision::fp32, "fp32", "f32 (default)"),
          clEnumValN(Precision::tf32, "tf32",
                     "f32 values; GPU convs and matmuls on tensor cores "
                     "with tf32 inputs"),
          clEnumValN(Precision::fp16, "fp16", "IEEE half"),
          clEnumValN(Precision::bf16, "bf16", "bfloat16"))};
  Option<Layout> layout{
      *this, "layout", llvm::cl::desc("Activation layout of 2-D convolutions"),
      llvm::cl::init(Layout::automatic),
      llvm::cl::values(
          clEnumValN(Layout::automatic, "auto",
                     "NHWC for fp16/bf16/tf32 on GPU targets, else NCHW"),
          clEnumValN(Layout::nhwc, "nhwc", "channels-last"),
          clEnumValN(Layout::nchw, "nchw", "channels-first"))};
  Option<GpuTactics> tactics{
      *this, "tactics", llvm::cl::desc("GPU conv/matmul kernels"),
      llvm::cl::init(GpuTactics::automatic),
      llvm::cl::values(
          clEnumValN(GpuTactics::automatic, "auto",
                     "tensor-core tactics chosen by the cost model"),
          clEnumValN(GpuTactics::all, "all",
                     "several candidates per region for kiln-tune"),
          clEnumValN(GpuTactics::generic, "generic",
                     "loop-nest kernels only"))};
  Option<int64_t> tacticCandidates{
      *this, "tactic-candidates",
      llvm::cl::desc("tactics=all: the most variants per region (2-8)"),
      llvm::cl::init(4)};
  Option<std::string> timingCache{
      *this, "timing-cache",
      llvm::cl::desc("kiln-tune timing cache whose tactics regions take")};
  Option<bool> stripWeights{
      *this, "strip-weights",
      llvm::cl::desc("Leave large weights out of the plan"),
      llvm::cl::init(false)};
  Option<uint64_t> stripThreshold{
      *this, "strip-threshold",
      llvm::cl::desc("strip-weights: bytes from which a weight is stripped"),
      llvm::cl::init(4096)};
  Option<std::string> hostCpu{
      *this, "host-cpu",
      llvm::cl::desc("LLVM CPU of host code (empty: a portable baseline)")};
  Option<std::string> cudaPath{
      *this, "cuda-path", llvm::cl::desc("CUDA toolkit (libdevice, ptxas)"),
      llvm::cl::init("/usr/local/cuda")};
  Option<std::string> ptxas{*this, "ptxas",
                            llvm::cl::desc("ptxas to run (empty: search)")};
  Option<int64_t> gpuBlockSize{
      *this, "gpu-block-size",
      llvm::cl::desc("Threads per block of loop-nest GPU kernels"),
      llvm::cl::init(256)};
  Option<int64_t> gpuLatencyCycles{
      *this, "gpu-cost-latency",
      llvm::cl::desc("Tensor-core cost model: cycles until a K step's loads "
                     "arrive"),
      llvm::cl::init(400)};
  Option<std::string> gpuWgmma{
      *this, "gpu-wgmma",
      llvm::cl::desc("sm_90a wgmma kernels: auto, off or a tile MxNxS[xD]"),
      llvm::cl::init("auto")};
  Option<bool> gpuTma{*this, "gpu-tma",
                      llvm::cl::desc("wgmma kernels load operands with TMA"),
                      llvm::cl::init(true)};
  Option<int64_t> gpuSplitK{
      *this, "gpu-split-k",
      llvm::cl::desc("mma.sync kernels: a forced split-K factor (0: the cost "
                     "model's)"),
      llvm::cl::init(0)};
  Option<bool> gpuClusterSplitK{
      *this, "gpu-cluster-split-k",
      llvm::cl::desc("sm_90+: split-K within thread-block clusters"),
      llvm::cl::init(true)};
  Option<int64_t> gpuMmaStages{
      *this, "gpu-mma-stages",
      llvm::cl::desc("mma.sync kernels: stages of the cp.async ring (2-8)"),
      llvm::cl::init(4)};
  Option<bool> fuseSiblingMatmuls{
      *this, "fuse-sibling-matmuls",
      llvm::cl::desc("Horizontal fusion of sibling matmuls"),
      llvm::cl::init(true)};
  Option<bool> fuseSiblingConvs{
      *this, "fuse-sibling-convs",
      llvm::cl::desc("Horizontal fusion of sibling convs"),
      llvm::cl::init(true)};
  Option<bool> concatInPlace{
      *this, "concat-in-place",
      llvm::cl::desc("Concats' producers write into its slices"),
      llvm::cl::init(true)};
  Option<bool> tf32RoundAtProducers{
      *this, "tf32-round-at-producers",
      llvm::cl::desc("tf32: producers round activations only tensor cores "
                     "read"),
      llvm::cl::init(true)};
  Option<std::string> planOutput{
      *this, "plan-output",
      llvm::cl::desc("kiln-compile: write the plan to this file")};

  /// The same options as CompileOptions.
  CompileOptions toCompileOptions() const;
};

/// Whether `options` run the 2-D convolutions channels-last (layout auto:
/// on GPU targets with tensor-core precision and tactics).
bool usesNhwcLayout(const CompileOptions &options);

/// The graph passes, on the top-level module: static shapes check,
/// precision, horizontal fusion, layout, kernel formation and the region
/// passes (kiln-graph-pipeline).
void buildKilnGraphPipeline(mlir::OpPassManager &pm,
                            const CompileOptions &options);
/// The host target's codegen, on the module of kiln_plan.host_kernels
/// (kiln-host-pipeline).
void buildKilnHostPipeline(mlir::OpPassManager &pm,
                           const CompileOptions &options);
/// The GPU targets' codegen, on the module of kiln_plan.gpu_kernels
/// (kiln-gpu-pipeline).
void buildKilnGpuPipeline(mlir::OpPassManager &pm,
                          const CompileOptions &options);
/// All of it, ending in plan export (kiln-compile): the plan is written to
/// `planOutput` when not empty and handed to `planBytes` when not null.
void buildKilnCompilePipeline(mlir::OpPassManager &pm,
                              const CompileOptions &options,
                              llvm::StringRef planOutput = "",
                              std::vector<uint8_t> *planBytes = nullptr);

/// Registers kiln-compile, kiln-graph-pipeline, kiln-host-pipeline and
/// kiln-gpu-pipeline.
void registerKilnPipelines();

} // namespace kiln

#endif // KILN_PIPELINES_H
