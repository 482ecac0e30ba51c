//===- TestPlans.cpp - Plans over the test host kernels -------------------===//

#include "TestPlans.h"

#include <cstdlib>
#include <filesystem>

using namespace kiln;
using namespace kiln::plan;

std::vector<uint8_t> test::hostKernels(bool variant) {
  std::vector<uint8_t> bytes;
  Status s = readFile(
      variant ? KILN_TEST_KERNELS_VARIANT_SO : KILN_TEST_KERNELS_SO, bytes);
  EXPECT_TRUE(s.ok()) << s.message();
  return bytes;
}

PlanWriter test::reluPlan(bool variant) {
  PlanWriter w;
  uint32_t x = w.addInput(TensorDesc{"x", DType::f32, {2, 4}, {"batch", ""}});
  uint32_t y = w.addOutput(TensorDesc{"y", DType::f32, {2, 4}, {}});
  uint32_t weights = w.addWeightBuffer(kReluWeights, sizeof(kReluWeights));
  // Put the sum at a non-zero arena offset, as liveness packing would.
  uint32_t sum = w.addBuffer(BufferKind::Activation, 32, 64, 64);
  w.setArenaBytes(128, 96);
  std::vector<uint8_t> so = hostKernels(variant);
  uint32_t module =
      w.addModule("host", ModuleFormat::HostSharedObject, so.data(), so.size());
  uint32_t add = w.addKernel("add", module, "kiln_kernel_add");
  uint32_t relu = w.addKernel("relu", module, "kiln_kernel_relu");
  for (uint64_t half = 0; half < 2; ++half) {
    Step s;
    s.kernel = add;
    s.args = {{x, half * 16}, {weights, half * 16}, {sum, half * 16}};
    s.dims = {4};
    w.addStep(s);
  }
  Step s;
  s.kernel = relu;
  s.args = {{sum, 0}, {y, 0}};
  s.dims = {8};
  w.addStep(s);
  // Quotes, a backslash and a newline, for the C API's JSON.
  w.addProvenance("model.path", "tests/\"relu\"\\x.onnx");
  w.addProvenance("options.targets", "host\n");
  return w;
}

std::vector<float> test::reluReference(const float *x, bool variant) {
  std::vector<float> y(8);
  for (int i = 0; i < 8; ++i) {
    float t = variant ? x[i] - kReluWeights[i] : x[i] + kReluWeights[i];
    y[i] = t > 0.0f ? t : 0.0f;
  }
  return y;
}

PlanWriter test::addPlan() {
  PlanWriter w;
  uint32_t a = w.addInput(TensorDesc{"a", DType::f32, {3}, {}});
  uint32_t b = w.addInput(TensorDesc{"b", DType::f32, {3}, {}});
  uint32_t c = w.addOutput(TensorDesc{"c", DType::f32, {3}, {}});
  std::vector<uint8_t> so = hostKernels();
  uint32_t module =
      w.addModule("host", ModuleFormat::HostSharedObject, so.data(), so.size());
  Step s;
  s.kernel = w.addKernel("add", module, "kiln_kernel_add");
  s.args = {{a, 0}, {b, 0}, {c, 0}};
  s.dims = {3};
  w.addStep(s);
  return w;
}

PlanWriter test::choicePlan(uint32_t selected) {
  PlanWriter w;
  uint32_t x = w.addInput(TensorDesc{"x", DType::f32, {2, 4}, {}});
  uint32_t y = w.addOutput(TensorDesc{"y", DType::f32, {2, 4}, {}});
  uint32_t weights = w.addWeightBuffer(kReluWeights, sizeof(kReluWeights));
  uint32_t sum = w.addBuffer(BufferKind::Activation, 32, 0, 64);
  std::vector<uint8_t> so = hostKernels();
  uint32_t module =
      w.addModule("host", ModuleFormat::HostSharedObject, so.data(), so.size());
  uint32_t add = w.addKernel("add", module, "kiln_kernel_add");
  uint32_t relu = w.addKernel("relu", module, "kiln_kernel_relu");
  Choice choice;
  choice.key = "x + w f32 [2,4]";
  choice.name = "add";
  choice.variants = {"add", "relu then add"};
  choice.selected = selected;
  uint32_t c = w.addChoice(choice);
  auto step = [&](uint32_t kernel, std::vector<Arg> args, uint32_t variant,
                  uint32_t inChoice) {
    Step s;
    s.kernel = kernel;
    s.args = std::move(args);
    s.dims = {8};
    s.choice = inChoice;
    s.variant = variant;
    w.addStep(s);
  };
  step(add, {{x, 0}, {weights, 0}, {sum, 0}}, 0, c);
  step(relu, {{x, 0}, {sum, 0}}, 1, c);
  step(add, {{sum, 0}, {weights, 0}, {sum, 0}}, 1, c);
  step(relu, {{sum, 0}, {y, 0}}, 0, 0);
  return w;
}

std::vector<float> test::choiceReference(const float *x, uint32_t variant) {
  std::vector<float> y(8);
  for (int i = 0; i < 8; ++i) {
    float in = variant == 1 && x[i] < 0.0f ? 0.0f : x[i];
    float t = in + kReluWeights[i];
    y[i] = t > 0.0f ? t : 0.0f;
  }
  return y;
}

test::TempDir::TempDir() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "kiln-runtime-test-XXXXXX")
          .string();
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  const char *made = ::mkdtemp(buf.data());
  EXPECT_NE(made, nullptr);
  path_ = made ? made : "/nonexistent";
}

test::TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}
