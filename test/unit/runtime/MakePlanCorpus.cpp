//===- MakePlanCorpus.cpp - Writes the plan fuzzers' seed corpus ----------===//
//
//   kiln-make-plan-corpus DIR
//
// writes a few small plans into DIR (test/fuzz/plan-corpus): the host plans
// of TestPlans.h, which kiln-run can execute, and plans that use the rest of
// the format (tensor maps over a stand-in cubin, stripped weights, stacked
// weights, provenance), which only the reader takes. Regenerate the corpus
// whenever the plan format changes; runtime.FuzzCorpus checks that it reads.
//
//===----------------------------------------------------------------------===//

#include "TestPlans.h"

#include <cstdio>
#include <cstdlib>

using namespace kiln;
using namespace kiln::plan;

namespace {

/// A GPU plan over a stand-in cubin (never loaded): two tensor maps, a
/// tactic choice and a launch configuration.
PlanWriter tmaPlan() {
  PlanWriter w("kiln-corpus");
  uint32_t x = w.addInput(TensorDesc{"x", DType::f16, {64, 64}, {}});
  uint32_t y = w.addOutput(TensorDesc{"y", DType::f16, {64, 64}, {}});
  std::vector<uint16_t> weights(64 * 64, 0x3c00);
  uint32_t wt = w.addWeightBuffer(weights.data(), weights.size() * 2);
  uint32_t mapX = w.addBuffer(BufferKind::TensorMap, kTensorMapBytes, 0,
                              kTensorMapAlignment);
  uint32_t mapW = w.addBuffer(BufferKind::TensorMap, kTensorMapBytes, 128,
                              kTensorMapAlignment);
  for (auto [map, source] : {std::pair{mapX, x}, std::pair{mapW, wt}}) {
    TensorMap m;
    m.buffer = map;
    m.source = source;
    m.dtype = DType::f16;
    m.dims = {64, 64};
    m.strides = {128};
    m.box = {64, 32};
    m.swizzle = 3;
    w.addTensorMap(m);
  }
  std::vector<uint8_t> cubin(256, 0x5a);
  uint32_t mod =
      w.addModule("sm_90a", ModuleFormat::Cubin, cubin.data(), cubin.size());
  Choice c;
  c.key = "gemm_0:64x64x64";
  c.name = "gemm_0";
  c.variants = {"wgmma_64x32", "wgmma_64x64"};
  uint32_t choice = w.addChoice(c);
  for (uint32_t v = 0; v < 2; ++v) {
    Step s;
    s.kernel = w.addKernel("gemm_0_v" + std::to_string(v), mod, "gemm");
    s.args = {{mapX, 0}, {mapW, 0}, {y, 0, 64 * 64 * 2}};
    s.grid = {2, 2, 1};
    s.block = {128, 1, 1};
    s.sharedMemBytes = 65536;
    s.choice = choice;
    s.variant = v;
    w.addStep(s);
  }
  w.addProvenance("model.path", "corpus/gemm.onnx");
  w.addProvenance("options.targets", "sm_90a");
  return w;
}

/// Stripped and stacked weights (a refit's input): only kiln-refit reads it.
PlanWriter strippedPlan() {
  PlanWriter w("kiln-corpus");
  uint32_t x = w.addInput(TensorDesc{"x", DType::f32, {8}, {}});
  uint32_t y = w.addOutput(TensorDesc{"y", DType::f32, {8}, {}});
  float a[8] = {1, 2, 3, 4, 5, 6, 7, 8}, b[8] = {8, 7, 6, 5, 4, 3, 2, 1};
  uint32_t s1 = w.addStrippedWeightBuffer(a, sizeof(a));
  w.addWeightBuffer(b, sizeof(b), 1); // stacked onto s1
  std::vector<uint8_t> so = test::hostKernels();
  uint32_t mod =
      w.addModule("host", ModuleFormat::HostSharedObject, so.data(), so.size());
  Step s;
  s.kernel = w.addKernel("add", mod, "kiln_kernel_add");
  s.args = {{x, 0}, {s1, 0, 64}, {y, 0}};
  s.dims = {8};
  w.addStep(s);
  w.addProvenance("refit.weights", "model.onnx 00ff");
  return w;
}

/// reluPlan with a second profile (the variant kernels' plan, its weights
/// shared): the profiles table of format v4.
PlanWriter profilesPlan() {
  PlanWriter w = test::reluPlan();
  std::vector<uint8_t> bytes = test::bytesOf(test::reluPlan(/*variant=*/true));
  PlanReader reader;
  if (!reader.open(bytes.data(), bytes.size()).ok() ||
      !w.addProfileSharingWeights(reader.plan()).ok())
    std::abort();
  return w;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: kiln-make-plan-corpus DIR\n");
    return 2;
  }
  std::string dir = argv[1];
  struct Entry {
    const char *name;
    PlanWriter plan;
  } entries[] = {
      {"host-relu.plan", test::reluPlan()},
      {"host-add.plan", test::addPlan()},
      {"host-choice.plan", test::choicePlan(1)},
      {"gpu-tma.plan", tmaPlan()},
      {"stripped.plan", strippedPlan()},
      {"host-profiles.plan", profilesPlan()},
  };
  for (const Entry &e : entries) {
    std::string path = dir + "/" + e.name;
    if (Status s = e.plan.writeFileAtomically(path); !s) {
      std::fprintf(stderr, "kiln-make-plan-corpus: %s\n", s.message().c_str());
      return 1;
    }
    std::printf("wrote %s\n", path.c_str());
  }
  return 0;
}
