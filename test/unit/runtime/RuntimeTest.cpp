//===- RuntimeTest.cpp - Engine/ExecutionContext on the host target -------===//

#include "TestPlans.h"

#include "kiln/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

using namespace kiln;
using namespace kiln::runtime;
using kiln::plan::BufferKind;
using kiln::plan::ModuleFormat;
using kiln::plan::PlanWriter;
using kiln::plan::Step;
using kiln::plan::TensorDesc;

namespace {

std::unique_ptr<Engine> load(const PlanWriter &w,
                             const EngineOptions &options = {}) {
  std::vector<uint8_t> bytes = test::bytesOf(w);
  std::unique_ptr<Engine> engine;
  Status s = Engine::loadMemory(bytes.data(), bytes.size(), options, &engine);
  EXPECT_TRUE(s.ok()) << s.message();
  return engine;
}

Status loadStatus(const PlanWriter &w, const EngineOptions &options = {}) {
  std::vector<uint8_t> bytes = test::bytesOf(w);
  std::unique_ptr<Engine> engine;
  Status s = Engine::loadMemory(bytes.data(), bytes.size(), options, &engine);
  EXPECT_EQ(s.ok(), engine != nullptr);
  return s;
}

/// Options that make "no CUDA driver" deterministic on every machine, also
/// on GPU machines.
EngineOptions withoutDriver(DeviceKind device = DeviceKind::Auto) {
  EngineOptions o;
  o.device = device;
  o.cudaDriver = "/nonexistent/libcuda.so.1";
  return o;
}

std::unique_ptr<ExecutionContext> contextOf(const Engine &engine) {
  std::unique_ptr<ExecutionContext> context;
  Status s = engine.createContext(&context);
  EXPECT_TRUE(s.ok()) << s.message();
  return context;
}

const float kX[8] = {1.0f, 2.0f, -3.0f, 4.0f, -0.25f, -1.5f, 1.0f, -5.0f};

std::vector<float> outputOf(const ExecutionContext &context, size_t index) {
  const void *data = nullptr;
  size_t bytes = 0;
  Status s = context.getOutput(index, &data, &bytes);
  EXPECT_TRUE(s.ok()) << s.message();
  std::vector<float> out(bytes / sizeof(float));
  std::memcpy(out.data(), data, bytes);
  return out;
}

} // namespace

TEST(HostEngine, RefusesContextsLargerThanTheMachineBeforeAllocating) {
  // An output of 2 x 3 x 2^40 floats, or an arena of 2^45 bytes: valid plans,
  // but no machine has the memory. The context is refused with the tensor's
  // name and byte size before anything is allocated (before: a bare "out of
  // memory", or with overcommit a process killed while zeroing the arena).
  auto planWith = [](std::vector<int64_t> yShape, uint64_t arena) {
    PlanWriter w;
    uint32_t x = w.addInput(TensorDesc{"x", DType::f32, {8}, {}});
    uint32_t y = w.addOutput(TensorDesc{"y", DType::f32, yShape, {}});
    uint32_t t = w.addBuffer(BufferKind::Activation, 32, 0);
    w.setArenaBytes(arena, arena);
    std::vector<uint8_t> so = test::hostKernels();
    uint32_t m = w.addModule("host", ModuleFormat::HostSharedObject, so.data(),
                             so.size());
    Step s;
    s.kernel = w.addKernel("relu", m, "kiln_kernel_relu");
    s.args = {{x, 0}, {t, 0}, {y, 0, 32}};
    s.dims = {8};
    w.addStep(s);
    return w;
  };
  struct Case {
    std::vector<int64_t> yShape;
    uint64_t arena;
    std::string error;
  } cases[] = {
      {{2, 3, int64_t(1) << 40},
       64,
       "cannot create an execution context: output 'y' (f32 [2, 3, "
       "1099511627776]) needs 26388279066624 bytes (24.0 TiB) of host "
       "memory; this machine has "},
      {{8},
       uint64_t(1) << 45,
       "cannot create an execution context: the activation arena needs "
       "35184372088832 bytes (32.0 TiB) of host memory; this machine has "},
  };
  for (const Case &c : cases) {
    std::unique_ptr<Engine> engine = load(planWith(c.yShape, c.arena));
    ASSERT_TRUE(engine);
    std::unique_ptr<ExecutionContext> context;
    Status s = engine->createContext(&context);
    EXPECT_EQ(s.code(), StatusCode::OutOfMemory);
    EXPECT_EQ(s.message().rfind(c.error, 0), 0u) << s.message();
    EXPECT_FALSE(context);
  }
}

#if defined(__SANITIZE_ADDRESS__)
#define KILN_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_TEST_ASAN 1
#endif
#endif

/// Resident memory of this process, from /proc/self/statm.
static uint64_t residentBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * uint64_t(::sysconf(_SC_PAGESIZE));
}

TEST(HostEngine, ArenaPagesTheKernelsDoNotTouchCostNoMemory) {
  // A 2 GiB arena of which the kernel uses 32 bytes: the context is created
  // and runs without faulting in the rest (before: a memset of every page,
  // seconds per GiB, which a mutated plan's arena size turned into a hang).
#ifdef KILN_TEST_ASAN
  GTEST_SKIP() << "AddressSanitizer maps shadow memory for the whole arena";
#endif
  constexpr uint64_t kArena = uint64_t(2) << 30;
  if (uint64_t(::sysconf(_SC_PHYS_PAGES)) * uint64_t(::sysconf(_SC_PAGESIZE)) <
      2 * kArena)
    GTEST_SKIP() << "needs 4 GiB of memory";
  PlanWriter w;
  uint32_t x = w.addInput(TensorDesc{"x", DType::f32, {8}, {}});
  uint32_t y = w.addOutput(TensorDesc{"y", DType::f32, {8}, {}});
  uint32_t t = w.addBuffer(BufferKind::Activation, 32, kArena - 4096, 4096);
  w.setArenaBytes(kArena, kArena);
  std::vector<uint8_t> so = test::hostKernels();
  uint32_t m = w.addModule("host", ModuleFormat::HostSharedObject, so.data(),
                           so.size());
  Step relu;
  relu.kernel = w.addKernel("relu", m, "kiln_kernel_relu");
  relu.args = {{x, 0}, {t, 0}};
  relu.dims = {8};
  w.addStep(relu);
  Step copy = relu;
  copy.args = {{t, 0}, {y, 0}};
  w.addStep(copy);
  std::unique_ptr<Engine> engine = load(w);
  ASSERT_TRUE(engine);
  uint64_t before = residentBytes();
  std::unique_ptr<ExecutionContext> context;
  Status s = engine->createContext(&context);
  ASSERT_TRUE(s.ok()) << s.message();
  const float in[8] = {1, -2, 3, -4, 5, -6, 7, -8};
  ASSERT_TRUE(context->setInput(0, in, sizeof in).ok());
  s = context->run();
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(outputOf(*context, 0),
            (std::vector<float>{1, 0, 3, 0, 5, 0, 7, 0}));
  EXPECT_LT(residentBytes() - before, uint64_t(64) << 20);
}

TEST(HostEngine, RunsAddAndReluThroughTheArena) {
  std::unique_ptr<Engine> engine = load(test::reluPlan());
  ASSERT_TRUE(engine);
  EXPECT_EQ(engine->target(), "host");
  EXPECT_EQ(engine->planTargets(), std::vector<std::string>{"host"});
  EXPECT_EQ(engine->numSteps(), 3u);
  EXPECT_EQ(engine->arenaBytes(), 128u);
  EXPECT_EQ(engine->weightsBytes(), 32u);
  EXPECT_EQ(engine->compilerVersion(), runtimeVersion());
  EXPECT_EQ(engine->provenance(), (std::vector<kiln::plan::ProvenanceEntry>{
                                      {"model.path", "tests/\"relu\"\\x.onnx"},
                                      {"options.targets", "host\n"}}));
  EXPECT_EQ(engine->provenanceJson(),
            "{\"model.path\": \"tests/\\\"relu\\\"\\\\x.onnx\", "
            "\"options.targets\": \"host\\n\"}");
  ASSERT_EQ(engine->inputs().size(), 1u);
  const TensorInfo &x = engine->inputs()[0];
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.dtype, DType::f32);
  EXPECT_EQ(x.shape, (std::vector<int64_t>{2, 4}));
  EXPECT_EQ(x.dimNames, (std::vector<std::string>{"batch", ""}));
  EXPECT_EQ(x.byteSize, 32u);
  EXPECT_FALSE(x.isDynamic());
  ASSERT_EQ(engine->outputs().size(), 1u);
  EXPECT_EQ(engine->outputs()[0].name, "y");
  EXPECT_EQ(engine->findInput("x"), 0u);
  EXPECT_EQ(engine->findOutput("y"), 0u);
  EXPECT_FALSE(engine->findInput("y"));

  std::unique_ptr<ExecutionContext> context = contextOf(*engine);
  ASSERT_TRUE(context);
  Status s = context->setInput("x", kX, sizeof(kX));
  ASSERT_TRUE(s.ok()) << s.message();
  s = context->run();
  ASSERT_TRUE(s.ok()) << s.message();
  // Same float operations in the same order: results are bit-identical.
  EXPECT_EQ(outputOf(*context, 0), test::reluReference(kX));

  // A second run with new input data in the same memory.
  float x2[8];
  for (int i = 0; i < 8; ++i)
    x2[i] = -kX[i];
  ASSERT_TRUE(context->setInput(size_t(0), x2, sizeof(x2)).ok());
  ASSERT_TRUE(context->run().ok());
  EXPECT_EQ(outputOf(*context, 0), test::reluReference(x2));
}

namespace {
/// c = a + b with b fixed at build time to {1, 2, 3}.
PlanWriter fixedAddPlan() {
  PlanWriter w;
  const float fixed[3] = {1.0f, 2.0f, 3.0f};
  const uint8_t *p = reinterpret_cast<const uint8_t *>(fixed);
  uint32_t a = w.addInput(TensorDesc{"a", DType::f32, {3}, {}});
  uint32_t b = w.addInput(TensorDesc{"b", DType::f32, {3}, {}},
                          std::vector<uint8_t>(p, p + sizeof(fixed)));
  uint32_t c = w.addOutput(TensorDesc{"c", DType::f32, {3}, {}});
  std::vector<uint8_t> so = test::hostKernels();
  uint32_t module =
      w.addModule("host", ModuleFormat::HostSharedObject, so.data(), so.size());
  Step s;
  s.kernel = w.addKernel("add", module, "kiln_kernel_add");
  s.args = {{a, 0}, {b, 0}, {c, 0}};
  s.dims = {3};
  w.addStep(s);
  return w;
}
} // namespace

TEST(HostEngine, RunsAFixedInputBoundToItsFixedValue) {
  std::unique_ptr<Engine> engine = load(fixedAddPlan());
  ASSERT_TRUE(engine);
  ASSERT_EQ(engine->inputs().size(), 2u);
  EXPECT_TRUE(engine->inputs()[0].fixedValue.empty());
  EXPECT_EQ(engine->inputs()[1].fixedValue.size(), 12u);
  std::unique_ptr<ExecutionContext> context = contextOf(*engine);
  ASSERT_TRUE(context);
  const float a[3] = {10.0f, 20.0f, 30.0f}, b[3] = {1.0f, 2.0f, 3.0f};
  ASSERT_TRUE(context->setInput("a", a, sizeof(a)).ok());
  ASSERT_TRUE(context->setInput("b", b, sizeof(b)).ok());
  Status s = context->run();
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(outputOf(*context, 0), (std::vector<float>{11.0f, 22.0f, 33.0f}));
}

TEST(HostEngine, RefusesAFixedInputBoundToOtherBytes) {
  std::unique_ptr<Engine> engine = load(fixedAddPlan());
  ASSERT_TRUE(engine);
  std::unique_ptr<ExecutionContext> context = contextOf(*engine);
  ASSERT_TRUE(context);
  const float a[3] = {10.0f, 20.0f, 30.0f}, b[3] = {1.0f, 2.5f, 3.0f};
  ASSERT_TRUE(context->setInput("a", a, sizeof(a)).ok());
  ASSERT_TRUE(context->setInput("b", b, sizeof(b)).ok());
  Status s = context->run();
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(),
            "input 'b' was fixed at build time to [1, 2, 3] (kilnc "
            "--input-value); got [1, 2.5, 3]: rebuild the plan without "
            "--input-value b or with the new value");
  // The bytes are compared at run(), not at setInput: memory changed after
  // binding is caught too.
  float later[3] = {1.0f, 2.0f, 3.0f};
  ASSERT_TRUE(context->setInput("b", later, sizeof(later)).ok());
  ASSERT_TRUE(context->run().ok());
  later[0] = -1.0f;
  EXPECT_FALSE(context->run().ok());
}

TEST(HostEngine, WritesIntoCallerOutputMemory) {
  std::unique_ptr<Engine> engine = load(test::reluPlan());
  std::unique_ptr<ExecutionContext> context = contextOf(*engine);
  float y[8] = {};
  ASSERT_TRUE(context->setInput("x", kX, sizeof(kX)).ok());
  ASSERT_TRUE(context->setOutput("y", y, sizeof(y)).ok());
  ASSERT_TRUE(context->run().ok());
  EXPECT_EQ(std::vector<float>(y, y + 8), test::reluReference(kX));
  const void *where = nullptr;
  ASSERT_TRUE(context->getOutput("y", &where, nullptr).ok());
  EXPECT_EQ(where, y);
  // Back to the context's own storage.
  ASSERT_TRUE(context->setOutput(size_t(0), nullptr, 0).ok());
  ASSERT_TRUE(context->getOutput("y", &where, nullptr).ok());
  EXPECT_NE(where, y);
}

TEST(HostEngine, HostBuffersAreOrdinaryAlignedMemoryForBindings) {
  std::unique_ptr<Engine> engine = load(test::reluPlan());
  std::unique_ptr<HostBuffer> in, out;
  ASSERT_TRUE(engine->allocateHostBuffer(sizeof(kX), &in).ok());
  ASSERT_TRUE(engine->allocateHostBuffer(sizeof(kX), &out).ok());
  EXPECT_FALSE(in->pinned());
  EXPECT_EQ(in->size(), sizeof(kX));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(in->data()) % 64, 0u);
  std::memcpy(in->data(), kX, sizeof(kX));
  std::unique_ptr<ExecutionContext> context = contextOf(*engine);
  ASSERT_TRUE(context->setInput("x", in->data(), in->size()).ok());
  ASSERT_TRUE(context->setOutput("y", out->data(), out->size()).ok());
  engine.reset(); // the buffers do not need the engine on the host
  ASSERT_TRUE(context->run().ok());
  std::vector<float> y(8);
  std::memcpy(y.data(), out->data(), sizeof(kX));
  EXPECT_EQ(y, test::reluReference(kX));
}

TEST(HostEngine, RefusesEmptyHostBuffers) {
  std::unique_ptr<Engine> engine = load(test::reluPlan());
  std::unique_ptr<HostBuffer> b;
  EXPECT_EQ(engine->allocateHostBuffer(0, &b).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(engine->allocateHostBuffer(64, nullptr).code(),
            StatusCode::InvalidArgument);
  // A size no allocator can serve (refused before malloc, as under ASan).
  EXPECT_EQ(engine->allocateHostBuffer(SIZE_MAX, &b).code(),
            StatusCode::OutOfMemory);
  EXPECT_FALSE(b);
}

TEST(HostEngine, ContextsAreIndependentAndOutliveTheEngine) {
  std::unique_ptr<Engine> engine = load(test::reluPlan());
  std::unique_ptr<ExecutionContext> c1 = contextOf(*engine);
  std::unique_ptr<ExecutionContext> c2 = contextOf(*engine);
  float x2[8];
  for (int i = 0; i < 8; ++i)
    x2[i] = float(i) - 4.0f;
  ASSERT_TRUE(c1->setInput("x", kX, sizeof(kX)).ok());
  ASSERT_TRUE(c2->setInput("x", x2, sizeof(x2)).ok());
  engine.reset(); // contexts keep the kernels and weights alive
  ASSERT_TRUE(c2->run().ok());
  ASSERT_TRUE(c1->run().ok());
  EXPECT_EQ(outputOf(*c1, 0), test::reluReference(kX));
  EXPECT_EQ(outputOf(*c2, 0), test::reluReference(x2));
}

TEST(HostEngine, LoadsModulesFromMemoryWithoutFiles) {
  std::unique_ptr<Engine> engine = load(test::reluPlan());
  std::ifstream maps("/proc/self/maps");
  std::stringstream text;
  text << maps.rdbuf();
  EXPECT_NE(text.str().find("/memfd:kiln-host-module"), std::string::npos)
      << "the host module was not loaded through memfd";
}

// glibc reuses a loaded object whose dlopen path matches; memfd paths
// (/proc/self/fd/N) repeat when fds are reused. Two live engines with
// different objects must each run their own kernels.
TEST(HostEngine, KeepsDifferentModulesApart) {
  std::unique_ptr<Engine> plus = load(test::reluPlan(false));
  std::unique_ptr<Engine> minus = load(test::reluPlan(true));
  std::unique_ptr<Engine> plusAgain = load(test::reluPlan(false));
  for (auto [engine, variant] : {std::pair{plus.get(), false},
                                 {minus.get(), true},
                                 {plusAgain.get(), false}}) {
    std::unique_ptr<ExecutionContext> context = contextOf(*engine);
    ASSERT_TRUE(context->setInput("x", kX, sizeof(kX)).ok());
    ASSERT_TRUE(context->run().ok());
    EXPECT_EQ(outputOf(*context, 0), test::reluReference(kX, variant))
        << "variant " << variant;
  }
}

TEST(HostEngine, PassesNullDimsAndArgumentAddresses) {
  PlanWriter w;
  uint32_t out = w.addOutput(TensorDesc{"out", DType::i64, {2}, {}});
  float weight = 1.0f;
  uint32_t wb = w.addWeightBuffer(&weight, sizeof(weight));
  uint32_t act = w.addBuffer(BufferKind::Scratch, 16, 0);
  std::vector<uint8_t> so = test::hostKernels();
  uint32_t module =
      w.addModule("host", ModuleFormat::HostSharedObject, so.data(), so.size());
  Step s;
  s.kernel = w.addKernel("probe", module, "kiln_kernel_probe");
  s.args = {{out, 0}, {wb, 0}, {act, 8}};
  w.addStep(s); // no dims
  std::unique_ptr<Engine> engine = load(w);
  std::unique_ptr<ExecutionContext> context = contextOf(*engine);
  ASSERT_TRUE(context->run().ok()); // no inputs to set
  const void *data;
  ASSERT_TRUE(context->getOutput("out", &data, nullptr).ok());
  const int64_t *result = static_cast<const int64_t *>(data);
  EXPECT_EQ(result[0], 1) << "dims must be null for a step without dims";
  EXPECT_EQ(result[1], 2);
}

TEST(HostEngine, RunsOnlyTheHostStepsOfAMultiTargetPlan) {
  PlanWriter w = test::reluPlan();
  std::vector<uint8_t> cubin(100, 0xab);
  uint32_t gpu =
      w.addModule("sm_90a", ModuleFormat::Cubin, cubin.data(), cubin.size());
  Step s;
  s.kernel = w.addKernel("relu_sm90a", gpu, "relu_kernel");
  s.args = {{0, 0}, {1, 0}};
  s.grid = {1, 1, 1};
  s.block = {256, 1, 1};
  w.addStep(s);
  // The cubin is junk: a GPU must never be tried here.
  std::unique_ptr<Engine> engine = load(w, withoutDriver(DeviceKind::Host));
  ASSERT_TRUE(engine);
  EXPECT_EQ(engine->planTargets(),
            (std::vector<std::string>{"host", "sm_90a"}));
  EXPECT_EQ(engine->target(), "host");
  EXPECT_FALSE(engine->onGpu());
  EXPECT_EQ(engine->deviceNote(), "");
  EXPECT_EQ(engine->numSteps(), 3u);
  std::unique_ptr<ExecutionContext> context = contextOf(*engine);
  ASSERT_TRUE(context->setInput("x", kX, sizeof(kX)).ok());
  ASSERT_TRUE(context->run().ok());
  EXPECT_EQ(outputOf(*context, 0), test::reluReference(kX));
}

TEST(HostEngine, AutoFallsBackToHostWithoutADriverAndSaysWhy) {
  PlanWriter w = test::reluPlan();
  std::vector<uint8_t> cubin(100, 0xab);
  uint32_t gpu =
      w.addModule("sm_90a", ModuleFormat::Cubin, cubin.data(), cubin.size());
  Step s;
  s.kernel = w.addKernel("relu_sm90a", gpu, "relu_kernel");
  s.args = {{0, 0}, {1, 0}};
  w.addStep(s);
  std::unique_ptr<Engine> engine = load(w, withoutDriver());
  ASSERT_TRUE(engine);
  EXPECT_EQ(engine->target(), "host");
  EXPECT_EQ(engine->device().ordinal, -1);
  EXPECT_EQ(engine->deviceWeightsBytes(), 0u);
  EXPECT_EQ(engine->deviceNote().rfind(
                "GPU kernels not used: no CUDA driver was found "
                "(/nonexistent/libcuda.so.1: ",
                0),
            0u)
      << engine->deviceNote();
  uint64_t freeBytes = 0;
  EXPECT_EQ(engine->queryDeviceMemory(&freeBytes, nullptr).code(),
            StatusCode::InvalidArgument);

  // Asking for the GPU explicitly is an error, not a fallback.
  Status st = loadStatus(w, withoutDriver(DeviceKind::Gpu));
  EXPECT_EQ(st.code(), StatusCode::UnsupportedTarget);
  EXPECT_EQ(st.message().rfind("no CUDA driver was found "
                               "(/nonexistent/libcuda.so.1: ",
                               0),
            0u)
      << st.message();
}

TEST(HostEngine, RefusesGpuOnlyPlans) {
  PlanWriter w;
  w.addInput(TensorDesc{"x", DType::f32, {4}, {}});
  std::vector<uint8_t> cubin(100, 0xab);
  w.addModule("sm_90a", ModuleFormat::Cubin, cubin.data(), cubin.size());
  Status s = loadStatus(w, withoutDriver());
  EXPECT_EQ(s.code(), StatusCode::UnsupportedTarget);
  EXPECT_EQ(s.message(),
            "this plan has only GPU targets (sm_90a) and no CUDA driver was "
            "found (/nonexistent/libcuda.so.1: cannot open shared object "
            "file: No such file or directory): run on a machine with an "
            "NVIDIA GPU or rebuild with --target host");

  w.addModule("sm_80", ModuleFormat::Ptx, cubin.data(), cubin.size());
  EXPECT_EQ(loadStatus(w, withoutDriver()).message(),
            "this plan has only GPU targets (sm_90a, sm_80) and no CUDA "
            "driver was found (/nonexistent/libcuda.so.1: cannot open shared "
            "object file: No such file or directory): run on a machine with "
            "an NVIDIA GPU or rebuild with --target host");

  EXPECT_EQ(loadStatus(w, withoutDriver(DeviceKind::Host)).message(),
            "the plan has no host kernels (its targets: sm_90a, sm_80): "
            "rebuild with kilnc --target host (or add host to the list), or "
            "run it on its GPU");
}

TEST(HostEngine, RefusesGpuRequestForHostPlans) {
  Status s = loadStatus(test::reluPlan(), withoutDriver(DeviceKind::Gpu));
  EXPECT_EQ(s.code(), StatusCode::UnsupportedTarget);
  EXPECT_EQ(s.message(), "the plan has no GPU kernels (its targets: host): "
                         "rebuild with kilnc --target sm_XY for your GPU "
                         "(e.g. sm_90a for H100/H200)");
}

TEST(HostEngine, DeviceApisOnTheHost) {
  std::unique_ptr<Engine> engine = load(test::reluPlan());
  ASSERT_TRUE(engine);
  EXPECT_STREQ(engine->moduleFormat(), "host");
  std::unique_ptr<ExecutionContext> context = contextOf(*engine);
  EXPECT_FALSE(context->usesCudaGraphs());
  EXPECT_EQ(context->graphCaptures(), 0u);
  EXPECT_EQ(context->deviceMemory().arenaBytes, 0u);
  Status s = context->setInputDevice(0, 0x1000, sizeof(kX));
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(), "setInputDevice: this engine runs on the host; "
                         "device memory bindings need an engine on a GPU");
  EXPECT_EQ(context->setOutputDevice(0, 0, 0).code(),
            StatusCode::InvalidArgument);
  uint64_t devptr;
  EXPECT_EQ(context->getOutputDevice(0, &devptr).code(),
            StatusCode::InvalidArgument);

  // uploadInput keeps a copy: the caller's buffer may change afterwards.
  float x[8];
  std::memcpy(x, kX, sizeof(x));
  ASSERT_TRUE(context->uploadInput(0, x, sizeof(x)).ok());
  x[0] = 1000.0f;
  int dummy;
  EXPECT_EQ(context->enqueue(&dummy).code(), StatusCode::InvalidArgument);
  ASSERT_TRUE(context->enqueue(nullptr).ok());
  ASSERT_TRUE(context->synchronize().ok());
  std::vector<float> y(8);
  ASSERT_TRUE(context->readOutput(0, y.data(), y.size() * 4).ok());
  EXPECT_EQ(y, test::reluReference(kX));
  EXPECT_EQ(context->readOutput(0, y.data(), 4).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(context->readOutput(1, y.data(), 32).code(),
            StatusCode::InvalidArgument);
}

TEST(HostEngine, ReportsBadHostModules) {
  {
    PlanWriter w;
    std::vector<uint8_t> notElf(200, 1);
    w.addModule("host", ModuleFormat::HostSharedObject, notElf.data(),
                notElf.size());
    Status s = loadStatus(w);
    EXPECT_EQ(s.code(), StatusCode::InvalidPlan);
    EXPECT_EQ(s.message(),
              "invalid plan: module 0 (host) is not an ELF shared object");
  }
  auto withModule = [](const std::vector<uint8_t> &elf) {
    PlanWriter w;
    w.addModule("host", ModuleFormat::HostSharedObject, elf.data(), elf.size());
    return loadStatus(w);
  };
  {
    // Truncated: mapping it would succeed and fault later.
    std::vector<uint8_t> elf = test::hostKernels();
    elf.resize(elf.size() / 3);
    Status s = withModule(elf);
    EXPECT_EQ(s.code(), StatusCode::InvalidPlan);
    EXPECT_EQ(s.message().rfind("invalid plan: module 0 (host) is truncated: "
                                "a segment ends at byte",
                                0),
              0u)
        << s.message();
  }
  {
    std::vector<uint8_t> elf = test::hostKernels();
    elf[18] = 183; // e_machine = EM_AARCH64 (or x86-64 on aarch64 hosts)
#if defined(__aarch64__)
    elf[18] = 62;
#endif
    Status s = withModule(elf);
    EXPECT_EQ(s.code(), StatusCode::UnsupportedTarget);
    EXPECT_NE(s.message().find("module 0 (host) was compiled for"),
              std::string::npos)
        << s.message();
  }
  {
    std::vector<uint8_t> elf = test::hostKernels();
    elf[16] = 2; // e_type = ET_EXEC
    EXPECT_EQ(withModule(elf).message(), "invalid plan: module 0 (host) is not "
                                         "an ELF shared object (e_type 2)");
  }
  {
    std::vector<uint8_t> elf = test::hostKernels();
    elf[6] = 0; // EI_VERSION: passes our checks, dlopen refuses it
    Status s = withModule(elf);
    EXPECT_EQ(s.code(), StatusCode::InvalidPlan);
    EXPECT_EQ(s.message().rfind("cannot load module 0 (host shared object): "
                                "dlopen of the memfd failed",
                                0),
              0u)
        << s.message();
  }
  {
    PlanWriter w;
    std::vector<uint8_t> so = test::hostKernels();
    uint32_t m = w.addModule("host", ModuleFormat::HostSharedObject, so.data(),
                             so.size());
    w.addKernel("conv", m, "kiln_kernel_conv");
    Status s = loadStatus(w);
    EXPECT_EQ(s.message(), "kernel 'conv': invalid plan: symbol "
                           "'kiln_kernel_conv' is not defined in module 0 "
                           "(host shared object)");
  }
}

TEST(HostEngine, ChecksInputsAndOutputs) {
  std::unique_ptr<Engine> engine = load(test::addPlan());
  std::unique_ptr<ExecutionContext> context = contextOf(*engine);
  float a[3] = {1, 2, 3}, b[3] = {10, 20, 30};

  Status s = context->setInput("z", a, sizeof(a));
  EXPECT_EQ(s.code(), StatusCode::NotFound);
  EXPECT_EQ(s.message(),
            "the plan has no input named 'z' (its inputs: 'a', 'b')");
  s = context->setInput("a", a, 8);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(), "input 'a' (f32 [3]) needs 12 bytes, got 8");
  s = context->setInput(size_t(5), a, sizeof(a));
  EXPECT_EQ(s.message(),
            "input index 5 is out of range (the plan has 2 inputs)");
  s = context->setInput("a", nullptr, 12);
  EXPECT_EQ(s.message(), "input 'a' (f32 [3]): data is null");
  alignas(4) uint8_t raw[16] = {};
  s = context->setInput("a", raw + 1, 12);
  EXPECT_EQ(s.message(), "input 'a' (f32 [3]): data is not aligned to 4 bytes");
  s = context->setOutput("a", raw, 12);
  EXPECT_EQ(s.message(), "the plan has no output named 'a' (its outputs: 'c')");
  s = context->getOutput(size_t(1), nullptr, nullptr);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);

  ASSERT_TRUE(context->setInput("a", a, sizeof(a)).ok());
  s = context->run();
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(),
            "input 'b' (f32 [3]) is not set (call setInput before run)");
  ASSERT_TRUE(context->setInput("b", b, sizeof(b)).ok());
  ASSERT_TRUE(context->run().ok());
  EXPECT_EQ(outputOf(*context, 0), (std::vector<float>{11, 22, 33}));
}

TEST(HostEngine, RefusesDynamicShapesAtContextCreation) {
  PlanWriter w;
  w.addInput(TensorDesc{"x", DType::f32, {-1, 4}, {"batch", ""}});
  std::vector<uint8_t> so = test::hostKernels();
  w.addModule("host", ModuleFormat::HostSharedObject, so.data(), so.size());
  std::unique_ptr<Engine> engine = load(w);
  ASSERT_TRUE(engine);
  EXPECT_TRUE(engine->inputs()[0].isDynamic());
  EXPECT_EQ(engine->inputs()[0].byteSize, 0u);
  std::unique_ptr<ExecutionContext> context;
  Status s = engine->createContext(&context);
  EXPECT_EQ(s.code(), StatusCode::NotImplemented);
  EXPECT_EQ(s.message(), "tensor 'x' (f32 [?, 4]) has a dynamic shape; this "
                         "runtime executes static shapes only");
  EXPECT_FALSE(context);
}

TEST(HostEngine, LoadFileReportsErrors) {
  std::unique_ptr<Engine> engine;
  Status s = Engine::loadFile("/nonexistent/model.plan", &engine);
  EXPECT_EQ(s.code(), StatusCode::NotFound);
  EXPECT_EQ(s.message(), "cannot open plan '/nonexistent/model.plan': No such "
                         "file or directory");
  test::TempDir dir;
  s = Engine::loadFile(dir.path(), &engine);
  EXPECT_EQ(s.code(), StatusCode::IOError);

  std::string path = dir.file("model.plan");
  PlanWriter w = test::reluPlan();
  ASSERT_TRUE(w.writeFileAtomically(path).ok());
  s = Engine::loadFile(path, &engine);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(engine->inputs()[0].name, "x");

  // Corrupt one byte in the file.
  std::vector<uint8_t> bytes = test::bytesOf(w);
  bytes[bytes.size() / 2] ^= 0x40;
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char *>(bytes.data()),
              std::streamsize(bytes.size()));
  }
  s = Engine::loadFile(path, &engine);
  EXPECT_EQ(s.code(), StatusCode::InvalidPlan);
  EXPECT_EQ(
      s.message().rfind(
          "'" + path + "': plan is corrupt: payload checksum mismatch", 0),
      0u)
      << s.message();
  EXPECT_FALSE(engine);
}

TEST(HostEngine, LoadMemoryValidatesArguments) {
  std::unique_ptr<Engine> engine;
  EXPECT_EQ(Engine::loadMemory(nullptr, 10, &engine).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(Engine::loadMemory("KILN", 4, nullptr).code(),
            StatusCode::InvalidArgument);
  Status s = Engine::loadMemory("KILN", 4, &engine);
  EXPECT_EQ(
      s.message(),
      "plan is truncated: expected at least 64 bytes (the header), got 4");
}

//===----------------------------------------------------------------------===//
// Tactic choices
//===----------------------------------------------------------------------===//

namespace {
std::vector<float> runChoicePlan(const Engine &engine) {
  std::unique_ptr<ExecutionContext> c = contextOf(engine);
  if (!c)
    return {};
  EXPECT_TRUE(c->setInput(0, kX, sizeof(kX)).ok());
  Status s = c->run();
  EXPECT_TRUE(s.ok()) << s.message();
  return outputOf(*c, 0);
}
} // namespace

TEST(HostEngine, RunsOnlyTheSelectedVariantOfAChoice) {
  // The variants compute different things, so the output tells which ran;
  // running both (a v1 reader's mistake) would give variant 1's result.
  ASSERT_NE(test::choiceReference(kX, 0), test::choiceReference(kX, 1));
  std::unique_ptr<Engine> engine = load(test::choicePlan());
  ASSERT_TRUE(engine);
  EXPECT_EQ(engine->numSteps(), 2u); // variant 0's step and the relu
  EXPECT_EQ(runChoicePlan(*engine), test::choiceReference(kX, 0));

  // The plan's selection is what runs by default.
  engine = load(test::choicePlan(/*selected=*/1));
  ASSERT_TRUE(engine);
  EXPECT_EQ(engine->numSteps(), 3u);
  EXPECT_EQ(runChoicePlan(*engine), test::choiceReference(kX, 1));
}

TEST(HostEngine, TacticVariantsOverrideThePlansSelection) {
  EngineOptions o;
  o.tacticVariants = {1};
  std::unique_ptr<Engine> engine = load(test::choicePlan(), o);
  ASSERT_TRUE(engine);
  EXPECT_EQ(engine->numSteps(), 3u);
  EXPECT_EQ(runChoicePlan(*engine), test::choiceReference(kX, 1));

  o.tacticVariants = {0};
  engine = load(test::choicePlan(/*selected=*/1), o);
  ASSERT_TRUE(engine);
  EXPECT_EQ(runChoicePlan(*engine), test::choiceReference(kX, 0));

  // -1 keeps the plan's selection.
  o.tacticVariants = {-1};
  engine = load(test::choicePlan(/*selected=*/1), o);
  ASSERT_TRUE(engine);
  EXPECT_EQ(runChoicePlan(*engine), test::choiceReference(kX, 1));
}

TEST(HostEngine, RefusesBadTacticVariants) {
  EngineOptions o;
  o.tacticVariants = {2};
  Status s = loadStatus(test::choicePlan(), o);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(),
            "EngineOptions::tacticVariants[0] is 2, but choice 0 'add' has 2 "
            "variants (0..1, or -1 for the plan's selection)");
  o.tacticVariants = {-2};
  EXPECT_EQ(loadStatus(test::choicePlan(), o).code(),
            StatusCode::InvalidArgument);
  o.tacticVariants = {0, 0};
  s = loadStatus(test::choicePlan(), o);
  EXPECT_EQ(s.code(), StatusCode::InvalidArgument);
  EXPECT_EQ(s.message(),
            "EngineOptions::tacticVariants has 2 entries, but the plan has 1 "
            "tactic choices: give one per choice (-1 keeps the plan's "
            "selection) or none");
  // Plans without choices take no overrides either.
  o.tacticVariants = {0};
  EXPECT_EQ(loadStatus(test::reluPlan(), o).code(),
            StatusCode::InvalidArgument);
}

namespace {
/// A tensor map over reluPlan's x (f32 [2, 4]) in a new TensorMap buffer;
/// returns the buffer.
uint32_t addTensorMapOverX(PlanWriter &w) {
  uint32_t map = w.addBuffer(BufferKind::TensorMap, plan::kTensorMapBytes, 0,
                             plan::kTensorMapAlignment);
  plan::TensorMap m;
  m.buffer = map;
  m.source = 0; // x
  m.dtype = DType::f32;
  m.dims = {4, 2};
  m.strides = {16};
  m.box = {4, 2};
  m.swizzle = 0;
  w.addTensorMap(m);
  return map;
}
} // namespace

TEST(HostEngine, RunsAPlanWhoseTensorMapsOnlyItsGpuStepsUse) {
  // TMA descriptors are the GPU steps' business: the host runs its own
  // steps and never encodes them (the cubin is junk: no GPU is tried).
  PlanWriter w = test::reluPlan();
  uint32_t map = addTensorMapOverX(w);
  std::vector<uint8_t> cubin(100, 0xab);
  uint32_t gpu =
      w.addModule("sm_90a", ModuleFormat::Cubin, cubin.data(), cubin.size());
  Step s;
  s.kernel = w.addKernel("relu_sm90a_tma", gpu, "relu_kernel");
  s.args = {{map, 0}, {1, 0}};
  w.addStep(s);
  std::unique_ptr<Engine> engine = load(w, withoutDriver(DeviceKind::Host));
  ASSERT_TRUE(engine);
  EXPECT_EQ(engine->numSteps(), 3u);
  std::unique_ptr<ExecutionContext> context = contextOf(*engine);
  ASSERT_TRUE(context->setInput("x", kX, sizeof(kX)).ok());
  ASSERT_TRUE(context->run().ok());
  EXPECT_EQ(outputOf(*context, 0), test::reluReference(kX));
}

TEST(HostEngine, RefusesATensorMapInAHostStep) {
  PlanWriter w = test::reluPlan();
  uint32_t map = addTensorMapOverX(w);
  Step s;
  s.kernel = 1; // relu
  s.args = {{0, 0}, {map, 0}};
  s.dims = {8};
  w.addStep(s);
  Status st = loadStatus(w, withoutDriver(DeviceKind::Host));
  EXPECT_EQ(st.code(), StatusCode::InvalidPlan);
  EXPECT_EQ(st.message(),
            "step 3 (host kernel 'relu') takes tensor map buffer 4 as "
            "argument 1; tensor maps (TMA descriptors) exist on GPUs only: "
            "rebuild the plan");
}

TEST(FuzzCorpus, SeedPlansReadAndHostOnesRun) {
  // test/fuzz/plan-corpus is generated (kiln-make-plan-corpus) and committed:
  // stale seeds, refused by the reader, would make the fuzzers start from
  // nothing. Regenerate it when the plan format changes.
  size_t plans = 0, ran = 0;
  for (const auto &e : std::filesystem::directory_iterator(KILN_PLAN_CORPUS)) {
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(kiln::plan::readFile(e.path().string(), bytes).ok());
    std::vector<uint64_t> aligned((bytes.size() + 7) / 8);
    std::memcpy(aligned.data(), bytes.data(), bytes.size());
    kiln::plan::PlanReader reader;
    kiln::plan::PlanReader::Options options;
    options.allowWeightStripped = true;
    Status s = reader.open(aligned.data(), bytes.size(), options);
    EXPECT_TRUE(s.ok()) << e.path() << ": " << s.message();
    ++plans;
    if (e.path().filename().string().rfind("host-", 0) != 0)
      continue;
    std::unique_ptr<Engine> engine;
    s = Engine::loadMemory(bytes.data(), bytes.size(),
                           withoutDriver(DeviceKind::Host), &engine);
    ASSERT_TRUE(s.ok()) << e.path() << ": " << s.message();
    std::unique_ptr<ExecutionContext> context = contextOf(*engine);
    std::vector<std::vector<uint8_t>> inputs;
    for (size_t i = 0; i < engine->inputs().size(); ++i) {
      inputs.emplace_back(engine->inputs()[i].byteSize, 0);
      ASSERT_TRUE(
          context->setInput(i, inputs.back().data(), inputs.back().size())
              .ok());
    }
    s = context->run();
    EXPECT_TRUE(s.ok()) << e.path() << ": " << s.message();
    ++ran;
  }
  EXPECT_EQ(plans, 6u);
  EXPECT_EQ(ran, 4u);
}
