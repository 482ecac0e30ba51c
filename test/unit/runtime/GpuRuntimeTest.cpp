//===- GpuRuntimeTest.cpp - The GPU executor on a real GPU ----------------===//
//
// Real launches of nvcc-built test kernels (GpuKernels.cu) through plans made
// with PlanWriter. Exits 77 (ctest: skipped) with the reason when kiln was
// built without nvcc or when this machine has no CUDA driver or GPU: a
// skipped GPU test is not a passed one.
//
// Over 1000 lines, for a reason: one binary, run on the GPU machine in one
// call, holds every GPU behaviour's test and shares their CUDA fixture and
// nvcc-built kernels.
//
//===----------------------------------------------------------------------===//

#include "cuda/CudaDriver.h"

#include "TimingCache.h"
#include "tools/common/Json.h"

#include "kiln/Runtime/Runtime.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <tuple>

#include <sys/wait.h>

using namespace kiln;
using namespace kiln::runtime;
using kiln::plan::BufferKind;
using kiln::plan::ModuleFormat;
using kiln::plan::PlanWriter;
using kiln::plan::Step;
using kiln::plan::TensorDesc;
namespace cu = kiln::runtime::cuda;

namespace {

constexpr int kSkip = 77;
constexpr int N = 1024; // 4 blocks of 256 threads, one element each
constexpr uint64_t kArenaOffset = 4096;

const cu::Driver *driver = nullptr;

#ifdef KILN_GPU_KERNELS_SM90A
std::vector<uint8_t> readBytes(const char *path, bool nul = false) {
  std::vector<uint8_t> bytes;
  Status s = plan::readFile(path, bytes);
  EXPECT_TRUE(s.ok()) << s.message();
  if (nul)
    bytes.push_back(0); // the plan format stores PTX with its NUL
  return bytes;
}
#endif

enum ModuleSet : unsigned { Sm90a = 1, Sm80Cubin = 2, Sm80Ptx = 4 };

struct Data {
  std::vector<float> a, b, x;
  Data() : a(N), b(N), x(N) {
    for (int i = 0; i < N; ++i) {
      a[i] = 0.5f + float(i % 7) * 0.25f;
      b[i] = float(i % 5) - 2.0f;
      x[i] = 3.0f * std::sin(float(i));
    }
  }
};
const Data &data() {
  static Data d;
  return d;
}

/// y = relu(a * x + b)^2 exactly as the kernels compute it (fma, then one
/// rounded multiply).
std::vector<float> reference(const std::vector<float> &x) {
  std::vector<float> y(N);
  for (int i = 0; i < N; ++i) {
    float t = std::fma(data().a[i], x[i], data().b[i]);
    y[i] = t > 0.0f ? t * t : 0.0f;
  }
  return y;
}

/// x f32[4,256] -> two axpb steps over the halves (argument offsets) into an
/// arena activation at a non-zero offset -> relu_square into y. Weights a, b.
PlanWriter gpuPlan(unsigned modules, uint64_t arenaBytes = 0) {
  PlanWriter w;
  uint32_t x = w.addInput(TensorDesc{"x", DType::f32, {4, 256}, {"batch", ""}});
  uint32_t y = w.addOutput(TensorDesc{"y", DType::f32, {4, 256}, {}});
  uint32_t a = w.addWeightBuffer(data().a.data(), N * 4);
  uint32_t b = w.addWeightBuffer(data().b.data(), N * 4);
  uint32_t t = w.addBuffer(BufferKind::Activation, N * 4, kArenaOffset, 256);
  w.setArenaBytes(std::max<uint64_t>(arenaBytes, kArenaOffset + N * 4),
                  kArenaOffset + N * 4);
#ifdef KILN_GPU_KERNELS_SM90A
  struct M {
    unsigned bit;
    const char *target;
    ModuleFormat format;
    const char *path;
  } all[] = {
      {Sm90a, "sm_90a", ModuleFormat::Cubin, KILN_GPU_KERNELS_SM90A},
      {Sm80Cubin, "sm_80", ModuleFormat::Cubin, KILN_GPU_KERNELS_SM80},
      {Sm80Ptx, "sm_80", ModuleFormat::Ptx, KILN_GPU_KERNELS_SM80_PTX},
  };
  for (const M &m : all) {
    if (!(modules & m.bit))
      continue;
    std::vector<uint8_t> bytes =
        readBytes(m.path, m.format == ModuleFormat::Ptx);
    uint32_t mod = w.addModule(m.target, m.format, bytes.data(), bytes.size());
    uint32_t axpb = w.addKernel("axpb", mod, "kiln_test_axpb");
    uint32_t relu = w.addKernel("relu_square", mod, "kiln_test_relu_square");
    for (uint64_t half = 0; half < 2; ++half) {
      Step s;
      s.kernel = axpb;
      uint64_t off = half * (N / 2) * 4;
      s.args = {{x, off}, {a, off}, {b, off}, {t, off}};
      s.grid = {N / 2 / 256, 1, 1};
      s.block = {256, 1, 1};
      w.addStep(s);
    }
    Step s;
    s.kernel = relu;
    s.args = {{t, 0}, {y, 0}};
    s.grid = {N / 256, 1, 1};
    s.block = {256, 1, 1};
    w.addStep(s);
  }
#else
  (void)modules;
  (void)x;
  (void)y;
  (void)a;
  (void)b;
  (void)t;
#endif
  return w;
}

/// gpuPlan's x, a, b and y with a tactic choice for t: variant 0 is the two
/// axpb halves (t = a * x + b), variant 1 one relu_square launch (t =
/// relu(x)^2, no weights); then y = relu_square(t) outside the choice. The
/// variants compute different things, so the output tells which one ran.
/// Modules: the sm_90a and sm_80 cubins, each with all steps.
PlanWriter choiceGpuPlan(uint32_t selected = 0) {
  PlanWriter w;
  uint32_t x = w.addInput(TensorDesc{"x", DType::f32, {4, 256}, {}});
  uint32_t y = w.addOutput(TensorDesc{"y", DType::f32, {4, 256}, {}});
  uint32_t a = w.addWeightBuffer(data().a.data(), N * 4);
  uint32_t b = w.addWeightBuffer(data().b.data(), N * 4);
  uint32_t t = w.addBuffer(BufferKind::Activation, N * 4, kArenaOffset, 256);
  plan::Choice choice;
  choice.key = "t f32 [4,256]";
  choice.name = "t";
  choice.variants = {"axpb halves", "relu_square"};
  choice.selected = selected;
  uint32_t c = w.addChoice(choice);
#ifdef KILN_GPU_KERNELS_SM90A
  for (const char *path : {KILN_GPU_KERNELS_SM90A, KILN_GPU_KERNELS_SM80}) {
    std::vector<uint8_t> bytes = readBytes(path);
    uint32_t mod = w.addModule(
        path == std::string(KILN_GPU_KERNELS_SM80) ? "sm_80" : "sm_90a",
        ModuleFormat::Cubin, bytes.data(), bytes.size());
    uint32_t axpb = w.addKernel("axpb", mod, "kiln_test_axpb");
    uint32_t relu = w.addKernel("relu_square", mod, "kiln_test_relu_square");
    for (uint64_t half = 0; half < 2; ++half) {
      Step s;
      s.kernel = axpb;
      uint64_t off = half * (N / 2) * 4;
      s.args = {{x, off}, {a, off}, {b, off}, {t, off}};
      s.grid = {N / 2 / 256, 1, 1};
      s.block = {256, 1, 1};
      s.choice = c;
      s.variant = 0;
      w.addStep(s);
    }
    Step v1;
    v1.kernel = relu;
    v1.args = {{x, 0}, {t, 0}};
    v1.grid = {N / 256, 1, 1};
    v1.block = {256, 1, 1};
    v1.choice = c;
    v1.variant = 1;
    w.addStep(v1);
    Step s;
    s.kernel = relu;
    s.args = {{t, 0}, {y, 0}};
    s.grid = {N / 256, 1, 1};
    s.block = {256, 1, 1};
    w.addStep(s);
  }
#else
  (void)x, (void)y, (void)a, (void)b, (void)t, (void)c;
#endif
  return w;
}

/// gpuPlan's computation with tactic choices for kiln-tune. Choice "t": t =
/// a * x + b as two axpb halves (variant 0) or as one launch (the last
/// variant), bit-identical; with `wrongVariant`, also variant 1 = relu(x)^2
/// (choiceGpuPlan's variant 1), which computes other numbers, and a second
/// choice "y": y = relu_square(t) in one launch or in two halves (variants
/// 0, 1; bit-identical). Without it y is a plain step.
PlanWriter tunableGpuPlan(bool wrongVariant) {
  PlanWriter w;
  uint32_t x = w.addInput(TensorDesc{"x", DType::f32, {4, 256}, {}});
  uint32_t y = w.addOutput(TensorDesc{"y", DType::f32, {4, 256}, {}});
  uint32_t a = w.addWeightBuffer(data().a.data(), N * 4);
  uint32_t b = w.addWeightBuffer(data().b.data(), N * 4);
  uint32_t t = w.addBuffer(BufferKind::Activation, N * 4, kArenaOffset, 256);
  plan::Choice choiceT;
  choiceT.key = "t f32 [4,256]";
  choiceT.name = "t";
  choiceT.variants = {"axpb halves", "axpb whole"};
  if (wrongVariant)
    choiceT.variants.insert(choiceT.variants.begin() + 1, "relu_square");
  uint32_t ct = w.addChoice(choiceT), cy = 0;
  if (wrongVariant) {
    plan::Choice choiceY;
    choiceY.key = "y f32 [4,256]";
    choiceY.name = "y";
    choiceY.variants = {"relu_square", "relu_square halves"};
    cy = w.addChoice(choiceY);
  }
#ifdef KILN_GPU_KERNELS_SM90A
  for (const char *path : {KILN_GPU_KERNELS_SM90A, KILN_GPU_KERNELS_SM80}) {
    std::vector<uint8_t> bytes = readBytes(path);
    uint32_t mod = w.addModule(
        path == std::string(KILN_GPU_KERNELS_SM80) ? "sm_80" : "sm_90a",
        ModuleFormat::Cubin, bytes.data(), bytes.size());
    uint32_t axpb = w.addKernel("axpb", mod, "kiln_test_axpb");
    uint32_t relu = w.addKernel("relu_square", mod, "kiln_test_relu_square");
    auto step = [&](uint32_t kernel, std::vector<plan::Arg> args,
                    uint32_t blocks, uint32_t choice, uint32_t variant) {
      Step s;
      s.kernel = kernel;
      s.args = std::move(args);
      s.grid = {blocks, 1, 1};
      s.block = {256, 1, 1};
      s.choice = choice;
      s.variant = variant;
      w.addStep(s);
    };
    for (uint64_t half = 0; half < 2; ++half) {
      uint64_t off = half * (N / 2) * 4;
      step(axpb, {{x, off}, {a, off}, {b, off}, {t, off}}, N / 2 / 256, ct, 0);
    }
    if (wrongVariant)
      step(relu, {{x, 0}, {t, 0}}, N / 256, ct, 1);
    step(axpb, {{x, 0}, {a, 0}, {b, 0}, {t, 0}}, N / 256, ct,
         uint32_t(choiceT.variants.size() - 1));
    step(relu, {{t, 0}, {y, 0}}, N / 256, cy, 0);
    if (wrongVariant)
      for (uint64_t half = 0; half < 2; ++half) {
        uint64_t off = half * (N / 2) * 4;
        step(relu, {{t, off}, {y, off}}, N / 2 / 256, cy, 1);
      }
  }
#else
  (void)x, (void)y, (void)a, (void)b, (void)t, (void)ct, (void)cy;
#endif
  return w;
}

/// y of choiceGpuPlan when variant 1 runs: relu(relu(x)^2)^2, each square
/// one rounded multiply as in the kernel.
std::vector<float> variant1Reference(const std::vector<float> &x) {
  std::vector<float> y(N);
  for (int i = 0; i < N; ++i) {
    float t = x[i] > 0.0f ? x[i] * x[i] : 0.0f;
    y[i] = t > 0.0f ? t * t : 0.0f;
  }
  return y;
}

EngineOptions gpuOptions(bool jit = false) {
  EngineOptions o;
  o.device = DeviceKind::Gpu;
  o.allowPtxJit = jit;
  return o;
}

Status loadStatus(const PlanWriter &w, const EngineOptions &o,
                  std::unique_ptr<Engine> *engine) {
  std::vector<uint8_t> bytes;
  Status s = w.serialize(bytes);
  if (!s)
    return s;
  return Engine::loadMemory(bytes.data(), bytes.size(), o, engine);
}

std::unique_ptr<Engine> load(const PlanWriter &w,
                             const EngineOptions &o = gpuOptions()) {
  std::unique_ptr<Engine> engine;
  Status s = loadStatus(w, o, &engine);
  EXPECT_TRUE(s.ok()) << s.message();
  return engine;
}

std::unique_ptr<ExecutionContext> contextOf(const Engine &e,
                                            bool graphs = true) {
  ContextOptions o;
  o.cudaGraphs = graphs;
  std::unique_ptr<ExecutionContext> c;
  Status s = e.createContext(o, &c);
  EXPECT_TRUE(s.ok()) << s.message();
  return c;
}

std::vector<float> runOnce(ExecutionContext &c, const std::vector<float> &x) {
  std::vector<float> y(N, -1.0f);
  EXPECT_TRUE(c.setInput(0, x.data(), N * 4).ok());
  Status s = c.run();
  EXPECT_TRUE(s.ok()) << s.message();
  const void *out = nullptr;
  EXPECT_TRUE(c.getOutput(0, &out, nullptr).ok());
  if (out)
    std::memcpy(y.data(), out, N * 4);
  return y;
}

/// The test's own device memory (through the same driver).
struct DeviceBuffer {
  cu::CUdeviceptr ptr = 0;
  explicit DeviceBuffer(size_t bytes) {
    EXPECT_TRUE(driver->check(driver->cuMemAlloc(&ptr, bytes), "cuMemAlloc"));
  }
  ~DeviceBuffer() {
    if (ptr)
      driver->cuMemFree(ptr);
  }
};

/// Makes the primary context of device 0 current on this thread, for the
/// test's own driver calls.
void makePrimaryCurrent() {
  cu::CUdevice dev;
  cu::CUcontext ctx;
  ASSERT_EQ(driver->cuDeviceGet(&dev, 0), 0);
  ASSERT_EQ(driver->cuDevicePrimaryCtxRetain(&ctx, dev), 0);
  ASSERT_EQ(driver->cuCtxSetCurrent(ctx), 0);
  driver->cuDevicePrimaryCtxRelease(dev); // the engine keeps its reference
}

} // namespace

TEST(Gpu, RunsStepsWithWeightsAndArena) {
  std::unique_ptr<Engine> e = load(gpuPlan(Sm90a | Sm80Cubin | Sm80Ptx));
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->onGpu());
  EXPECT_STREQ(e->moduleFormat(), "cubin");
  const DeviceInfo &d = e->device();
  std::printf("device: %s (sm_%d%d), driver %d, target %s\n", d.name.c_str(),
              d.computeMajor, d.computeMinor, d.driverVersion,
              e->target().c_str());
  if (d.computeMajor == 9 && d.computeMinor == 0) {
    EXPECT_EQ(e->target(), "sm_90a");
  } else if (d.computeMajor == 8) {
    EXPECT_EQ(e->target(), "sm_80");
  }
  EXPECT_EQ(e->numSteps(), 3u);
  EXPECT_EQ(e->deviceWeightsBytes(), uint64_t(2 * N * 4));

  std::unique_ptr<ExecutionContext> c = contextOf(*e);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->usesCudaGraphs());
  EXPECT_GE(c->deviceMemory().arenaBytes, kArenaOffset + N * 4);
  EXPECT_EQ(c->deviceMemory().ioBytes, uint64_t(2 * N * 4));
  std::vector<float> want = reference(data().x);
  EXPECT_EQ(runOnce(*c, data().x), want);
  EXPECT_EQ(c->graphCaptures(), 1u);
  // A second run replays the graph (same bindings: no new capture), with new
  // host data copied in.
  std::vector<float> x2(data().x);
  for (float &v : x2)
    v = -v;
  EXPECT_EQ(runOnce(*c, x2), reference(x2));
  EXPECT_EQ(c->graphCaptures(), 1u);
}

TEST(Gpu, RunsFromPageLockedHostBuffers) {
  std::unique_ptr<Engine> e = load(gpuPlan(Sm90a | Sm80Cubin));
  ASSERT_TRUE(e);
  std::unique_ptr<HostBuffer> in, out;
  ASSERT_TRUE(e->allocateHostBuffer(N * 4, &in).ok());
  ASSERT_TRUE(e->allocateHostBuffer(N * 4, &out).ok());
  EXPECT_TRUE(in->pinned());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(in->data()) % 64, 0u);
  std::unique_ptr<ExecutionContext> c = contextOf(*e);
  ASSERT_TRUE(c);
  e.reset(); // buffers and context keep the device alive
  for (int round = 0; round < 2; ++round) {
    std::vector<float> x(data().x);
    for (float &v : x)
      v = round ? -v : v;
    std::memcpy(in->data(), x.data(), N * 4);
    ASSERT_TRUE(c->setInput(0, in->data(), N * 4).ok());
    ASSERT_TRUE(c->setOutput(0, out->data(), N * 4).ok());
    Status s = c->run();
    ASSERT_TRUE(s.ok()) << s.message();
    std::vector<float> y(N);
    std::memcpy(y.data(), out->data(), N * 4);
    EXPECT_EQ(y, reference(x));
  }
  c.reset();
  in.reset(); // freed after the engine and its contexts are gone
  out.reset();
}

TEST(Gpu, GraphsOnAndOffGiveIdenticalResults) {
  std::unique_ptr<Engine> e = load(gpuPlan(Sm90a | Sm80Cubin));
  ASSERT_TRUE(e);
  std::unique_ptr<ExecutionContext> on = contextOf(*e, true);
  std::unique_ptr<ExecutionContext> off = contextOf(*e, false);
  EXPECT_FALSE(off->usesCudaGraphs());
  std::vector<float> a = runOnce(*on, data().x);
  std::vector<float> b = runOnce(*off, data().x);
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), N * 4));
  EXPECT_EQ(a, reference(data().x));
  EXPECT_EQ(off->graphCaptures(), 0u);

  // KILN_CUDA_GRAPH=0 turns graphs off for new contexts.
  ::setenv("KILN_CUDA_GRAPH", "0", 1);
  std::unique_ptr<ExecutionContext> env = contextOf(*e, true);
  ::unsetenv("KILN_CUDA_GRAPH");
  EXPECT_FALSE(env->usesCudaGraphs());
  EXPECT_EQ(runOnce(*env, data().x), a);
}

TEST(Gpu, RecapturesAfterRebindingDeviceMemory) {
  std::unique_ptr<Engine> e = load(gpuPlan(Sm90a | Sm80Cubin));
  ASSERT_TRUE(e);
  std::unique_ptr<ExecutionContext> c = contextOf(*e);
  makePrimaryCurrent();
  std::vector<float> x2(data().x);
  for (float &v : x2)
    v = v * 0.5f + 1.0f;
  DeviceBuffer dx1(N * 4), dx2(N * 4), dy(N * 4);
  ASSERT_EQ(driver->cuMemcpyHtoD(dx1.ptr, data().x.data(), N * 4), 0);
  ASSERT_EQ(driver->cuMemcpyHtoD(dx2.ptr, x2.data(), N * 4), 0);

  std::vector<float> y(N);
  ASSERT_TRUE(c->setInputDevice(0, dx1.ptr, N * 4).ok());
  ASSERT_TRUE(c->run().ok());
  ASSERT_TRUE(c->readOutput(0, y.data(), N * 4).ok());
  EXPECT_EQ(y, reference(data().x));
  EXPECT_EQ(c->graphCaptures(), 1u);

  ASSERT_TRUE(c->setInputDevice(0, dx2.ptr, N * 4).ok());
  ASSERT_TRUE(c->run().ok());
  ASSERT_TRUE(c->readOutput(0, y.data(), N * 4).ok());
  EXPECT_EQ(y, reference(x2));
  EXPECT_EQ(c->graphCaptures(), 2u);

  // Output straight into caller device memory: no copy-back, getOutput
  // refuses, readOutput and the caller's memory agree.
  ASSERT_TRUE(c->setOutputDevice(0, dy.ptr, N * 4).ok());
  ASSERT_TRUE(c->run().ok());
  EXPECT_EQ(c->graphCaptures(), 3u);
  EXPECT_EQ(c->getOutput(0, nullptr, nullptr).code(),
            StatusCode::InvalidArgument);
  uint64_t where = 0;
  ASSERT_TRUE(c->getOutputDevice(0, &where).ok());
  EXPECT_EQ(where, dy.ptr);
  std::vector<float> direct(N);
  makePrimaryCurrent();
  ASSERT_EQ(driver->cuMemcpyDtoH(direct.data(), dy.ptr, N * 4), 0);
  EXPECT_EQ(direct, reference(x2));
  ASSERT_TRUE(c->readOutput(0, y.data(), N * 4).ok());
  EXPECT_EQ(y, direct);

  // Back to host memory: copies again, graph recaptured for the own buffers.
  ASSERT_TRUE(c->setOutput(0, nullptr, 0).ok());
  EXPECT_EQ(runOnce(*c, data().x), reference(data().x));
  EXPECT_EQ(c->graphCaptures(), 4u);

  // Bad device bindings are refused before anything runs.
  EXPECT_EQ(c->setInputDevice(0, dx1.ptr, 4).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(c->setInputDevice(0, dx1.ptr + 2, N * 4).code(),
            StatusCode::InvalidArgument);
  // f32-aligned is not enough: kernels may access 16 bytes at a time.
  EXPECT_EQ(c->setInputDevice(0, dx1.ptr + 8, N * 4).code(),
            StatusCode::InvalidArgument);
  EXPECT_EQ(c->setInputDevice(0, 0, N * 4).code(), StatusCode::InvalidArgument);
}

TEST(Gpu, EnqueuesOnTheCallersStream) {
  std::unique_ptr<Engine> e = load(gpuPlan(Sm90a | Sm80Cubin));
  ASSERT_TRUE(e);
  std::unique_ptr<ExecutionContext> c = contextOf(*e);
  makePrimaryCurrent();
  cu::CUstream stream = nullptr;
  ASSERT_EQ(driver->cuStreamCreate(&stream, cu::CU_STREAM_NON_BLOCKING), 0);
  std::vector<float> y(N, -1.0f);
  ASSERT_TRUE(c->setInput(0, data().x.data(), N * 4).ok());
  ASSERT_TRUE(c->setOutput(0, y.data(), N * 4).ok());
  for (int i = 0; i < 3; ++i) {
    Status s = c->enqueue(stream);
    ASSERT_TRUE(s.ok()) << s.message();
  }
  ASSERT_TRUE(c->synchronize().ok());
  EXPECT_EQ(y, reference(data().x));
  // The legacy default stream (null) works too: the graph is captured on
  // the context's own stream and launched on the caller's.
  std::fill(y.begin(), y.end(), -1.0f);
  ASSERT_TRUE(c->enqueue(nullptr).ok());
  ASSERT_TRUE(c->synchronize().ok());
  EXPECT_EQ(y, reference(data().x));
  EXPECT_EQ(c->graphCaptures(), 1u);
  makePrimaryCurrent();
  driver->cuStreamDestroy(stream);
}

TEST(Gpu, EightContextsOnEightThreadsAreBitIdentical) {
  std::unique_ptr<Engine> e = load(gpuPlan(Sm90a | Sm80Cubin));
  ASSERT_TRUE(e);
  constexpr int kThreads = 8, kIterations = 50;
  std::vector<std::vector<float>> results(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::unique_ptr<ExecutionContext> c;
      ContextOptions o;
      o.cudaGraphs = t % 2 == 0; // mix graph and direct launches
      if (Status s = e->createContext(o, &c); !s) {
        errors[t] = s.message();
        return;
      }
      if (Status s = c->uploadInput(0, data().x.data(), N * 4); !s) {
        errors[t] = s.message();
        return;
      }
      for (int i = 0; i < kIterations; ++i)
        if (Status s = c->run(); !s) {
          errors[t] = s.message();
          return;
        }
      results[t].resize(N);
      if (Status s = c->readOutput(0, results[t].data(), N * 4); !s)
        errors[t] = s.message();
    });
  for (std::thread &t : threads)
    t.join();
  std::vector<float> want = reference(data().x);
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(errors[t], "") << "thread " << t;
    ASSERT_EQ(results[t].size(), size_t(N)) << "thread " << t;
    EXPECT_EQ(0, std::memcmp(results[t].data(), want.data(), N * 4))
        << "thread " << t;
  }
}

TEST(Gpu, RefusesAPlanWithOnlySm80OnANewerGpu) {
  std::unique_ptr<Engine> probe = load(gpuPlan(Sm90a | Sm80Cubin));
  ASSERT_TRUE(probe);
  DeviceInfo d = probe->device();
  if (d.computeMajor == 8)
    GTEST_SKIP() << "an sm_80 cubin runs on this sm_8x GPU";
  std::unique_ptr<Engine> e;
  Status s = loadStatus(gpuPlan(Sm80Cubin), gpuOptions(), &e);
  EXPECT_EQ(s.code(), StatusCode::UnsupportedTarget);
  std::string sm =
      "sm_" + std::to_string(d.computeMajor) + std::to_string(d.computeMinor);
  std::string want = sm + (d.computeMajor >= 9 ? "a" : "");
  EXPECT_EQ(s.message(), "plan has GPU kernels for sm_80; this GPU (" + d.name +
                             ", device 0) is " + sm +
                             ": rebuild with kilnc --target " + want +
                             " (or add " + want + " to the list)");
  // Auto without a host module: the same refusal.
  EngineOptions autoOptions;
  EXPECT_EQ(loadStatus(gpuPlan(Sm80Cubin), autoOptions, &e).message(),
            s.message());
}

TEST(Gpu, JitsPtxOnlyWhenAllowed) {
  std::unique_ptr<Engine> e;
  Status s = loadStatus(gpuPlan(Sm80Ptx), gpuOptions(false), &e);
  EXPECT_EQ(s.code(), StatusCode::UnsupportedTarget);
  EXPECT_NE(s.message().find("allow JIT compilation of the plan's sm_80 PTX"),
            std::string::npos)
      << s.message();

  e = load(gpuPlan(Sm80Ptx), gpuOptions(true));
  ASSERT_TRUE(e);
  EXPECT_STREQ(e->moduleFormat(), "ptx");
  EXPECT_EQ(e->target(), "sm_80");
  std::unique_ptr<ExecutionContext> c = contextOf(*e);
  EXPECT_EQ(runOnce(*c, data().x), reference(data().x));

  ::setenv("KILN_ALLOW_PTX_JIT", "1", 1);
  s = loadStatus(gpuPlan(Sm80Ptx), gpuOptions(false), &e);
  ::unsetenv("KILN_ALLOW_PTX_JIT");
  EXPECT_TRUE(s.ok()) << s.message();
}

TEST(Gpu, RefusesPlansNeedingANewerDriver) {
  PlanWriter w = gpuPlan(Sm90a | Sm80Cubin);
  w.setMinDriverVersion(uint32_t(driver->version) + 10);
  std::unique_ptr<Engine> e;
  Status s = loadStatus(w, gpuOptions(), &e);
  EXPECT_EQ(s.code(), StatusCode::UnsupportedVersion);
  EXPECT_NE(s.message().find("(" + std::to_string(driver->version + 10) +
                             ") or newer; this machine's driver is"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("(" + std::to_string(driver->version) + ")"),
            std::string::npos)
      << s.message();
}

TEST(Gpu, RefusesGpuStepsWithDims) {
  PlanWriter w = gpuPlan(0);
#ifdef KILN_GPU_KERNELS_SM90A
  std::vector<uint8_t> bytes = readBytes(KILN_GPU_KERNELS_SM90A);
  uint32_t m =
      w.addModule("sm_90a", ModuleFormat::Cubin, bytes.data(), bytes.size());
  std::vector<uint8_t> bytes80 = readBytes(KILN_GPU_KERNELS_SM80);
  uint32_t m80 =
      w.addModule("sm_80", ModuleFormat::Cubin, bytes80.data(), bytes80.size());
  for (uint32_t mod : {m, m80}) {
    Step s;
    s.kernel = w.addKernel("relu_square", mod, "kiln_test_relu_square");
    s.args = {{0, 0}, {1, 0}};
    s.grid = {4, 1, 1};
    s.block = {256, 1, 1};
    s.dims = {1024};
    w.addStep(s);
  }
#endif
  std::unique_ptr<Engine> e;
  Status s = loadStatus(w, gpuOptions(), &e);
  EXPECT_EQ(s.code(), StatusCode::NotImplemented);
  EXPECT_NE(s.message().find("(kernel 'relu_square') passes 1 dims; GPU steps "
                             "with dims (dynamic shapes) are not implemented"),
            std::string::npos)
      << s.message();
}

TEST(Gpu, RefusesLaunchesBeyondTheDeviceLimits) {
  // Within CUDA's hard limits (the plan validates), beyond what this device
  // and these kernels allow: the engine refuses at load, naming the step.
  struct Case {
    const char *symbol;
    uint32_t block, shared;
    const char *error;
  } cases[] = {
      {"kiln_test_bounded", 256, 0,
       "step 0 (kernel 'k') launches 256 threads per block (block (256, 1, "
       "1)); on "},
      {"kiln_test_static_shared", 256, 220 * 1024,
       "step 0 (kernel 'k') needs 225280 bytes of dynamic and 32768 of static "
       "shared memory per block; "},
  };
  for (const Case &c : cases) {
    PlanWriter w = gpuPlan(0);
#ifdef KILN_GPU_KERNELS_SM90A
    std::vector<uint8_t> bytes = readBytes(KILN_GPU_KERNELS_SM90A);
    uint32_t m =
        w.addModule("sm_90a", ModuleFormat::Cubin, bytes.data(), bytes.size());
    std::vector<uint8_t> bytes80 = readBytes(KILN_GPU_KERNELS_SM80);
    uint32_t m80 = w.addModule("sm_80", ModuleFormat::Cubin, bytes80.data(),
                               bytes80.size());
    for (uint32_t mod : {m, m80}) {
      Step s;
      s.kernel = w.addKernel("k", mod, c.symbol);
      s.args.push_back(plan::Arg{1, 0, 0});
      s.grid = {1, 1, 1};
      s.block = {c.block, 1, 1};
      s.sharedMemBytes = std::min<uint32_t>(c.shared, 163 * 1024);
      if (mod == m)
        s.sharedMemBytes = c.shared;
      w.addStep(s);
    }
#endif
    std::unique_ptr<Engine> e;
    Status s = loadStatus(w, gpuOptions(), &e);
    EXPECT_EQ(s.code(), StatusCode::InvalidPlan) << s.message();
    EXPECT_NE(s.message().find(c.error), std::string::npos) << s.message();
  }
}

TEST(Gpu, AccountsAndMeasuresDeviceMemory) {
  constexpr uint64_t kArena = 64 << 20;
  std::unique_ptr<Engine> e = load(gpuPlan(Sm90a | Sm80Cubin, kArena));
  ASSERT_TRUE(e);
  uint64_t freeBefore = 0, total = 0, freeAfter = 0;
  ASSERT_TRUE(e->queryDeviceMemory(&freeBefore, &total).ok());
  EXPECT_EQ(total, e->device().totalMemoryBytes);
  std::unique_ptr<ExecutionContext> c = contextOf(*e);
  ASSERT_TRUE(e->queryDeviceMemory(&freeAfter, nullptr).ok());
  ContextMemory m = c->deviceMemory();
  EXPECT_GE(m.arenaBytes, kArena);
  EXPECT_EQ(m.ioBytes, uint64_t(2 * N * 4));
  // The driver allocates in pages: at least what we account for.
  EXPECT_GE(freeBefore - freeAfter, m.arenaBytes);
  EXPECT_EQ(runOnce(*c, data().x), reference(data().x));
  c.reset();
  uint64_t freeReleased = 0;
  ASSERT_TRUE(e->queryDeviceMemory(&freeReleased, nullptr).ok());
  // Destroying the context returns its arena; the driver may keep a few
  // MiB it took for the first launches and the CUDA graph (seen on an H200:
  // 2 MiB), so allow 4 MiB of slack.
  constexpr uint64_t kDriverSlack = 4 << 20;
  EXPECT_GE(freeReleased + kDriverSlack, freeAfter + m.arenaBytes);
}

TEST(Gpu, KilnRunCanBenchmarkTheGpu) {
  // The C++ pieces kiln-run uses, end to end: several contexts, device
  // resident inputs and outputs, no copies in the loop.
  std::unique_ptr<Engine> e = load(gpuPlan(Sm90a | Sm80Cubin));
  ASSERT_TRUE(e);
  std::unique_ptr<ExecutionContext> c = contextOf(*e);
  ASSERT_TRUE(c->uploadInput(0, data().x.data(), N * 4).ok());
  ASSERT_TRUE(c->setOutputDevice(0, 0, 0).ok());
  for (int i = 0; i < 100; ++i)
    ASSERT_TRUE(c->run().ok());
  std::vector<float> y(N);
  ASSERT_TRUE(c->readOutput(0, y.data(), N * 4).ok());
  EXPECT_EQ(y, reference(data().x));
  EXPECT_EQ(c->graphCaptures(), 1u);
}

TEST(Gpu, RunsOnlyTheSelectedVariantOfAChoice) {
  ASSERT_NE(reference(data().x), variant1Reference(data().x));
  std::unique_ptr<Engine> e = load(choiceGpuPlan());
  ASSERT_TRUE(e);
  EXPECT_EQ(e->numSteps(), 3u); // two axpb halves and the relu_square
  EXPECT_EQ(e->deviceWeightsBytes(), uint64_t(2 * N * 4));
  for (bool graphs : {true, false}) {
    std::unique_ptr<ExecutionContext> c = contextOf(*e, graphs);
    EXPECT_EQ(runOnce(*c, data().x), reference(data().x)) << graphs;
  }

  EngineOptions o = gpuOptions();
  o.tacticVariants = {1};
  e = load(choiceGpuPlan(), o);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->numSteps(), 2u);
  // Variant 1 reads no weights: none are uploaded.
  EXPECT_EQ(e->deviceWeightsBytes(), 0u);
  for (bool graphs : {true, false}) {
    std::unique_ptr<ExecutionContext> c = contextOf(*e, graphs);
    EXPECT_EQ(runOnce(*c, data().x), variant1Reference(data().x)) << graphs;
  }
  e = load(choiceGpuPlan(/*selected=*/1));
  ASSERT_TRUE(e);
  std::unique_ptr<ExecutionContext> c = contextOf(*e);
  EXPECT_EQ(runOnce(*c, data().x), variant1Reference(data().x));
}

TEST(Gpu, ProfileNamesEachLaunchsPlanStep) {
  PlanWriter w = choiceGpuPlan();
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(w.serialize(bytes).ok());
  plan::PlanReader reader;
  ASSERT_TRUE(reader.open(bytes.data(), bytes.size()).ok());
  const plan::Plan &p = reader.plan();
  for (uint32_t variant : {0u, 1u}) {
    EngineOptions o = gpuOptions();
    o.tacticVariants = {int64_t(variant)};
    std::unique_ptr<Engine> e;
    Status s = Engine::loadMemory(bytes.data(), bytes.size(), o, &e);
    ASSERT_TRUE(s.ok()) << s.message();
    std::unique_ptr<ExecutionContext> c = contextOf(*e);
    ASSERT_TRUE(c->setInput(0, data().x.data(), N * 4).ok());
    std::vector<ExecutionContext::KernelTime> times;
    s = c->profile(3, &times);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_EQ(times.size(), e->numSteps());
    size_t previous = 0;
    for (size_t l = 0; l < times.size(); ++l) {
      const ExecutionContext::KernelTime &t = times[l];
      ASSERT_LT(t.step, p.steps.size());
      const plan::Step &step = p.steps[t.step];
      EXPECT_EQ(p.kernels[step.kernel].name, t.kernel);
      EXPECT_EQ(p.modules[p.kernels[step.kernel].module].target, e->target());
      EXPECT_TRUE(step.choice == 0 || step.variant == variant) << t.step;
      EXPECT_TRUE(l == 0 || t.step > previous) << "launches in plan order";
      EXPECT_GT(t.ms, 0.0);
      previous = t.step;
    }
  }
}

#ifdef KILN_GPU_TMA_KERNELS_SM90A
namespace {

// TmaKernels.cu's box: 32 columns x 16 rows of f32.
constexpr int kBoxCols = 32, kBoxRows = 16, kBoxElems = kBoxCols * kBoxRows;
// The input matrix m and the weight matrix w (rows x columns, row-major).
constexpr int kMRows = 100, kMCols = 72, kWRows = 40, kWCols = 48;

std::vector<float> matrix(int rows, int cols, float scale, float bias) {
  std::vector<float> t(size_t(rows) * cols);
  for (size_t i = 0; i < t.size(); ++i)
    t[i] = scale * float(i) + bias; // nonzero: zeros only come from outside
  return t;
}

/// The box at column x, row y of `t`, zeros outside (TMA's fill).
std::vector<float> boxOf(const std::vector<float> &t, int rows, int cols, int x,
                         int y) {
  std::vector<float> box(kBoxElems, 0.0f);
  for (int r = 0; r < kBoxRows; ++r)
    for (int c = 0; c < kBoxCols; ++c)
      if (y + r >= 0 && y + r < rows && x + c >= 0 && x + c < cols)
        box[r * kBoxCols + c] = t[size_t(y + r) * cols + (x + c)];
  return box;
}

const std::vector<float> &weightMatrix() {
  static const std::vector<float> w = matrix(kWRows, kWCols, -0.25f, -1.0f);
  return w;
}

/// Inputs m (f32 [100, 72]) and the (column, row) coordinates c and cw (i32
/// [2]); outputs box and wbox (f32 [16, 32]): the boxes at c of m and at cw
/// of the weight w (f32 [40, 48]), each copied by one TMA load through a
/// tensor map. The kernels reach m and w only through the tensor maps; w
/// sits after an unused weight, so that only the tensor map makes the
/// engine upload it.
PlanWriter tmaPlan() {
  PlanWriter w;
  uint32_t m = w.addInput(TensorDesc{"m", DType::f32, {kMRows, kMCols}, {}});
  uint32_t c = w.addInput(TensorDesc{"c", DType::i32, {2}, {}});
  uint32_t cw = w.addInput(TensorDesc{"cw", DType::i32, {2}, {}});
  uint32_t box =
      w.addOutput(TensorDesc{"box", DType::f32, {kBoxRows, kBoxCols}, {}});
  uint32_t wbox =
      w.addOutput(TensorDesc{"wbox", DType::f32, {kBoxRows, kBoxCols}, {}});
  std::vector<float> unused(64, 7.0f);
  w.addWeightBuffer(unused.data(), unused.size() * 4);
  uint32_t wt =
      w.addWeightBuffer(weightMatrix().data(), weightMatrix().size() * 4);
  uint32_t mapM = w.addBuffer(BufferKind::TensorMap, plan::kTensorMapBytes, 0,
                              plan::kTensorMapAlignment);
  uint32_t mapW = w.addBuffer(BufferKind::TensorMap, plan::kTensorMapBytes, 128,
                              plan::kTensorMapAlignment);
  plan::TensorMap tm;
  tm.buffer = mapM;
  tm.source = m;
  tm.dtype = DType::f32;
  tm.dims = {kMCols, kMRows};
  tm.strides = {kMCols * 4};
  tm.box = {kBoxCols, kBoxRows};
  tm.swizzle = 0; // the kernel copies the box out as laid out in memory
  w.addTensorMap(tm);
  tm.buffer = mapW;
  tm.source = wt;
  tm.dims = {kWCols, kWRows};
  tm.strides = {kWCols * 4};
  w.addTensorMap(tm);
  std::vector<uint8_t> bytes = readBytes(KILN_GPU_TMA_KERNELS_SM90A);
  uint32_t mod =
      w.addModule("sm_90a", ModuleFormat::Cubin, bytes.data(), bytes.size());
  uint32_t k = w.addKernel("tma_box", mod, "kiln_test_tma_box");
  for (auto [map, coords, out] :
       {std::array<uint32_t, 3>{mapM, c, box}, {mapW, cw, wbox}}) {
    Step s;
    s.kernel = k;
    s.args = {{map, 0}, {coords, 0}, {out, 0}};
    s.block = {128, 1, 1};
    w.addStep(s);
  }
  return w;
}

/// Whether the GPU is an sm_90 one (the TMA test kernels are built for
/// sm_90a only).
bool runsSm90a() {
  std::unique_ptr<Engine> probe = load(gpuPlan(Sm90a | Sm80Cubin));
  EXPECT_TRUE(probe);
  return probe && probe->device().computeMajor == 9 &&
         probe->device().computeMinor == 0;
}

/// Runs `ctx` with coordinates c and cw (m bound already) and returns box
/// and wbox.
std::pair<std::vector<float>, std::vector<float>>
runTma(ExecutionContext &ctx, std::array<int32_t, 2> c,
       std::array<int32_t, 2> cw) {
  std::vector<float> box(kBoxElems, -1.0f), wbox(kBoxElems, -1.0f);
  EXPECT_TRUE(ctx.setInput(1, c.data(), 8).ok());
  EXPECT_TRUE(ctx.setInput(2, cw.data(), 8).ok());
  Status s = ctx.run();
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(ctx.readOutput(0, box.data(), kBoxElems * 4).ok());
  EXPECT_TRUE(ctx.readOutput(1, wbox.data(), kBoxElems * 4).ok());
  return {box, wbox};
}

} // namespace

TEST(Gpu, TmaKernelsReadThroughTheEncodedTensorMaps) {
  if (!runsSm90a())
    GTEST_SKIP() << "the TMA test kernels are built for sm_90a only";
  std::unique_ptr<Engine> e = load(tmaPlan());
  ASSERT_TRUE(e);
  // Both matrices are read through tensor maps only; the weight is uploaded
  // all the same (its range, not the unused weight before it).
  EXPECT_EQ(e->deviceWeightsBytes(), uint64_t(kWRows * kWCols * 4));

  const std::vector<float> m1 = matrix(kMRows, kMCols, 1.0f, 0.5f);
  const std::vector<float> m2 = matrix(kMRows, kMCols, -2.0f, -1.0f);
  const std::vector<float> m3 = matrix(kMRows, kMCols, 0.125f, 3.0f);
  // Boxes that overhang the bottom-right and top-left corners of m, and the
  // bottom-right one of w: partly zeros, partly data.
  const std::array<int32_t, 2> edge = {48, 90}, before = {-8, -4},
                               wEdge = {24, 30};
  std::vector<float> want = boxOf(m1, kMRows, kMCols, 48, 90);
  ASSERT_GT(std::count(want.begin(), want.end(), 0.0f), 0);
  ASSERT_LT(std::count(want.begin(), want.end(), 0.0f), kBoxElems);
  const std::vector<float> wantW =
      boxOf(weightMatrix(), kWRows, kWCols, wEdge[0], wEdge[1]);

  makePrimaryCurrent();
  DeviceBuffer d2(m2.size() * 4), d3(m3.size() * 4);
  ASSERT_EQ(driver->cuMemcpyHtoD(d2.ptr, m2.data(), m2.size() * 4), 0);
  ASSERT_EQ(driver->cuMemcpyHtoD(d3.ptr, m3.data(), m3.size() * 4), 0);

  for (bool graphs : {true, false}) {
    SCOPED_TRACE(graphs ? "CUDA graph" : "direct launches");
    std::unique_ptr<ExecutionContext> ctx = contextOf(*e, graphs);
    ASSERT_TRUE(ctx);
    EXPECT_EQ(ctx->deviceMemory().tensorMapBytes, 256u);
    // m from host memory, copied into the context's own buffer.
    ASSERT_TRUE(ctx->setInput(0, m1.data(), m1.size() * 4).ok());
    auto [box, wbox] = runTma(*ctx, edge, wEdge);
    EXPECT_EQ(box, want);
    EXPECT_EQ(wbox, wantW);
    // New coordinates, same addresses: the maps stay, the graph too.
    std::tie(box, wbox) = runTma(*ctx, before, wEdge);
    EXPECT_EQ(box, boxOf(m1, kMRows, kMCols, before[0], before[1]));
    EXPECT_EQ(ctx->graphCaptures(), graphs ? 1u : 0u);

    // m in caller device memory at two other addresses: each rebinding
    // re-encodes m's tensor map (w's stays) before the kernels run again.
    ASSERT_TRUE(ctx->setInputDevice(0, d2.ptr, m2.size() * 4).ok());
    std::tie(box, wbox) = runTma(*ctx, edge, wEdge);
    EXPECT_EQ(box, boxOf(m2, kMRows, kMCols, edge[0], edge[1]));
    EXPECT_EQ(wbox, wantW);
    ASSERT_TRUE(ctx->setInputDevice(0, d3.ptr, m3.size() * 4).ok());
    std::tie(box, wbox) = runTma(*ctx, before, wEdge);
    EXPECT_EQ(box, boxOf(m3, kMRows, kMCols, before[0], before[1]));
    EXPECT_EQ(ctx->graphCaptures(), graphs ? 3u : 0u);
    // And back to the context's own buffer.
    ASSERT_TRUE(ctx->setInput(0, m1.data(), m1.size() * 4).ok());
    std::tie(box, wbox) = runTma(*ctx, edge, wEdge);
    EXPECT_EQ(box, want);
    EXPECT_EQ(wbox, wantW);
  }
}

TEST(Gpu, TmaContextsOnSeveralThreadsEncodeTheirOwnMaps) {
  // Each context has its own table: contexts bound to different device
  // inputs, run at once, each read their own.
  if (!runsSm90a())
    GTEST_SKIP() << "the TMA test kernels are built for sm_90a only";
  std::unique_ptr<Engine> e = load(tmaPlan());
  ASSERT_TRUE(e);
  constexpr int kThreads = 4, kIterations = 20;
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::vector<float> m = matrix(kMRows, kMCols, float(t + 1), 0.5f);
      std::unique_ptr<ExecutionContext> ctx;
      ContextOptions o;
      o.cudaGraphs = t % 2 == 0;
      if (Status s = e->createContext(o, &ctx); !s) {
        errors[t] = s.message();
        return;
      }
      if (Status s = ctx->uploadInput(0, m.data(), m.size() * 4); !s) {
        errors[t] = s.message();
        return;
      }
      for (int i = 0; i < kIterations; ++i) {
        std::array<int32_t, 2> c = {8 * (i % 7), 5 * i - 8};
        auto [box, wbox] = runTma(*ctx, c, {24, 30});
        if (box != boxOf(m, kMRows, kMCols, c[0], c[1])) {
          errors[t] = "box differs at iteration " + std::to_string(i);
          return;
        }
      }
    });
  for (std::thread &t : threads)
    t.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(errors[t], "") << "thread " << t;
}
#endif

#ifdef KILN_TUNE_BINARY
namespace {

/// A temporary folder, removed with its contents.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "kiln-tune-gpu-XXXXXX")
            .string();
    std::vector<char> buf(pattern.begin(), pattern.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()))
      path = buf.data();
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string operator/(const std::string &name) const {
    return (path / name).string();
  }
};

struct ToolResult {
  int exitCode = -1;
  std::string output; ///< stdout, and stderr unless `stderrFile` was given
};

/// Runs kiln-tune with `args`; its stderr goes to `stderrFile` if given.
ToolResult kilnTune(const std::string &args,
                    const std::string &stderrFile = "") {
  std::string command = std::string(KILN_TUNE_BINARY) + " " + args +
                        (stderrFile.empty() ? " 2>&1" : " 2>" + stderrFile);
  ToolResult r;
  FILE *pipe = ::popen(command.c_str(), "r");
  if (!pipe)
    return r;
  char chunk[4096];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), pipe)) > 0)
    r.output.append(chunk, n);
  int status = ::pclose(pipe);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

/// The tuned plan's choices, and its y for data().x with them selected.
std::vector<plan::Choice> tunedChoices(const std::string &path,
                                       std::vector<float> *y) {
  std::vector<uint8_t> bytes;
  Status s = plan::readFile(path, bytes);
  EXPECT_TRUE(s.ok()) << s.message();
  plan::PlanReader reader;
  s = reader.open(bytes.data(), bytes.size());
  EXPECT_TRUE(s.ok()) << s.message();
  if (!s)
    return {};
  std::unique_ptr<Engine> e;
  s = Engine::loadMemory(bytes.data(), bytes.size(), gpuOptions(), &e);
  EXPECT_TRUE(s.ok()) << s.message();
  if (e)
    *y = runOnce(*contextOf(*e), data().x);
  return reader.plan().choices;
}

} // namespace

TEST(Gpu, KilnRunProfileFileNamesEachLaunchsPlanStep) {
  // kiln-run is built next to kiln-tune (the runtime tests' kiln-run tests
  // need no GPU; this one needs a launch).
  std::string kilnRun =
      (std::filesystem::path(KILN_TUNE_BINARY).parent_path() / "kiln-run")
          .string();
  if (!std::filesystem::exists(kilnRun))
    GTEST_SKIP() << kilnRun << " was not built";
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  PlanWriter w = choiceGpuPlan();
  ASSERT_TRUE(w.writeFileAtomically(dir / "choice.plan").ok());
  std::string profile = dir / "profile.json";
  std::string command = kilnRun + " " + (dir / "choice.plan") +
                        " --device gpu --profile=" + profile + " 2>&1";
  FILE *pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char chunk[4096];
  size_t n;
  while ((n = std::fread(chunk, 1, sizeof(chunk), pipe)) > 0)
    output.append(chunk, n);
  int status = ::pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;

  std::ifstream in(profile);
  std::string text((std::istreambuf_iterator<char>(in)),
                   std::istreambuf_iterator<char>());
  tools::Json json;
  std::string error;
  ASSERT_TRUE(tools::parseJson(text, json, error)) << error << text;
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(w.serialize(bytes).ok());
  plan::PlanReader reader;
  ASSERT_TRUE(reader.open(bytes.data(), bytes.size()).ok());
  const plan::Plan &p = reader.plan();
  // Variant 0 runs: its two axpb halves and the relu_square after the
  // choice, of one module (the GPU's target).
  ASSERT_EQ(json.size(), 3u) << text;
  std::vector<std::string> kernels;
  double previous = -1;
  for (const tools::Json &launch : json) {
    ASSERT_TRUE(launch.contains("step") && launch.at("step").is_number())
        << text;
    double step = launch.at("step").get<double>();
    ASSERT_LT(step, double(p.steps.size()));
    const plan::Step &s = p.steps[size_t(step)];
    EXPECT_EQ(p.kernels[s.kernel].name, launch.at("kernel"));
    EXPECT_EQ(p.kernels[s.kernel].symbol, launch.at("symbol"));
    EXPECT_EQ(s.variant, 0u)
        << "variant 1 (step " << step << ") is not selected";
    EXPECT_GT(step, previous) << "launches in plan order";
    previous = step;
    kernels.push_back(launch.at("kernel").get<std::string>());
  }
  EXPECT_EQ(kernels, (std::vector<std::string>{"axpb", "axpb", "relu_square"}));
}

TEST(Gpu, KilnTuneTimesTheVariantsAndFillsTheCache) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  std::string planPath = dir / "choice.plan", tunedPath = dir / "tuned.plan",
              cachePath = dir / "cache.json";
  ASSERT_TRUE(tunableGpuPlan(false).writeFileAtomically(planPath).ok());

  ToolResult r = kilnTune(planPath + " -o " + tunedPath + " --timing-cache " +
                          cachePath + " --iterations 5 --rounds 2 --json");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_PRED2(contains, r.output, "round 2/2: variant 2/2");
  EXPECT_FALSE(contains(r.output, "rejected variant")) << r.output;

  std::vector<float> y;
  std::vector<plan::Choice> choices = tunedChoices(tunedPath, &y);
  ASSERT_EQ(choices.size(), 1u);
  const plan::Choice &choice = choices[0];
  EXPECT_EQ(y, reference(data().x));
  std::unique_ptr<Engine> e = load(tunableGpuPlan(false));
  ASSERT_TRUE(e);
  EXPECT_EQ(choice.device, e->device().name);
  ASSERT_EQ(choice.timesMs.size(), 2u);
  EXPECT_GT(choice.timesMs[0], 0.0);
  EXPECT_GT(choice.timesMs[1], 0.0);
  uint32_t fastest = choice.timesMs[1] < choice.timesMs[0] ? 1 : 0;
  EXPECT_EQ(choice.selected, fastest);

  tune::TimingCache cache;
  Status s = tune::readTimingCache(cachePath, cache);
  ASSERT_TRUE(s.ok()) << s.message();
  const tune::TimingEntry *entry = cache.find(e->target(), "t f32 [4,256]");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->best, choice.variants[fastest]);
  EXPECT_EQ(entry->device, e->device().name);
  ASSERT_EQ(entry->timesMs.size(), 2u);
  EXPECT_EQ(entry->timesMs[0],
            std::make_pair(std::string("axpb halves"), choice.timesMs[0]));
}

TEST(Gpu, KilnTuneRejectsAVariantThatComputesOtherNumbers) {
  // Choice t's variant 1 computes relu(x)^2 instead of a * x + b. Variant
  // set 1 also runs choice y's (correct) variant 1: kiln-tune must pin the
  // mismatch on t alone, never select t's variant 1, keep y's, and exit 1.
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  std::string planPath = dir / "wrong.plan", tunedPath = dir / "tuned.plan",
              cachePath = dir / "cache.json", errPath = dir / "stderr.txt";
  ASSERT_TRUE(tunableGpuPlan(true).writeFileAtomically(planPath).ok());

  ToolResult r = kilnTune(planPath + " -o " + tunedPath + " --timing-cache " +
                              cachePath + " --iterations 5 --rounds 2 --json",
                          errPath);
  std::ifstream errFile(errPath);
  std::string err((std::istreambuf_iterator<char>(errFile)),
                  std::istreambuf_iterator<char>());
  ASSERT_EQ(r.exitCode, 1) << r.output << err;
  EXPECT_PRED2(contains, err,
               "rejected variant 1 ('relu_square') of choice 0 't': outputs "
               "differ from variant 0's");
  EXPECT_PRED2(contains, err, "trying it choice by choice");
  EXPECT_FALSE(contains(err, "of choice 1 'y'")) << err;

  tools::Json json;
  std::string error;
  ASSERT_TRUE(tools::parseJson(r.output, json, error)) << error << r.output;
  EXPECT_EQ(json.at("ok"), true);
  EXPECT_EQ(json.at("rtol"), 1e-2);
  EXPECT_EQ(json.at("atol"), 1e-2);
  const tools::Json &rejected = json.at("rejected");
  ASSERT_EQ(rejected.size(), 1u) << r.output;
  const tools::Json &rj = rejected.at(0);
  EXPECT_EQ(rj.at("choice"), 0);
  EXPECT_EQ(rj.at("name"), "t");
  EXPECT_EQ(rj.at("variant"), 1);
  EXPECT_EQ(rj.at("tactic"), "relu_square");
  EXPECT_EQ(rj.at("output"), "y");
  EXPECT_EQ(rj.at("elements"), N);
  EXPECT_GT(rj.at("mismatches").get<double>(), 0);
  // y = relu(a x + b)^2 against relu(relu(x)^2)^2 on x in [-1, 1): several
  // units apart where a x + b > 1.
  EXPECT_GT(rj.at("max_abs_error").get<double>(), 1.0);
  EXPECT_EQ(rj.at("only_together"), false);
  const tools::Json &jc = json.at("choices");
  ASSERT_EQ(jc.size(), 2u);
  ASSERT_EQ(jc.at(0).at("rejected").size(), 1u);
  EXPECT_EQ(jc.at(0).at("rejected").at(0), 1);
  EXPECT_TRUE(jc.at(1).at("rejected").empty());

  std::vector<float> y;
  std::vector<plan::Choice> choices = tunedChoices(tunedPath, &y);
  ASSERT_EQ(choices.size(), 2u);
  EXPECT_EQ(y, reference(data().x)) << "the tuned plan computes the right y";
  // Every variant keeps its measured time; t's selection is the faster of
  // its variants 0 and 2, y's the faster of its two.
  ASSERT_EQ(choices[0].timesMs.size(), 3u);
  ASSERT_EQ(choices[1].timesMs.size(), 2u);
  for (const plan::Choice &c : choices)
    for (double ms : c.timesMs)
      EXPECT_GT(ms, 0.0);
  EXPECT_EQ(choices[0].selected,
            choices[0].timesMs[2] < choices[0].timesMs[0] ? 2u : 0u);
  EXPECT_EQ(choices[1].selected,
            choices[1].timesMs[1] < choices[1].timesMs[0] ? 1u : 0u);

  // The cache leaves the rejected tactic out: kilnc can never force it.
  tune::TimingCache cache;
  Status s = tune::readTimingCache(cachePath, cache);
  ASSERT_TRUE(s.ok()) << s.message();
  std::unique_ptr<Engine> e = load(tunableGpuPlan(true));
  ASSERT_TRUE(e);
  const tune::TimingEntry *entry = cache.find(e->target(), "t f32 [4,256]");
  ASSERT_NE(entry, nullptr);
  ASSERT_EQ(entry->timesMs.size(), 2u);
  EXPECT_EQ(entry->timesMs[0].first, "axpb halves");
  EXPECT_EQ(entry->timesMs[1].first, "axpb whole");
  EXPECT_NE(entry->best, "relu_square");
  entry = cache.find(e->target(), "y f32 [4,256]");
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->timesMs.size(), 2u);

  // The text report lists it in its own section; one round is enough.
  r = kilnTune(planPath + " -o " + tunedPath + " --iterations 1 --rounds 1",
               errPath);
  EXPECT_EQ(r.exitCode, 1) << r.output;
  EXPECT_PRED2(contains, r.output,
               "REJECTED: 1 variant computed other outputs than variant 0 "
               "(|a - b| > 0.01 + 0.01 * (|b| + max |b|)); never selected, "
               "not cached:");
  EXPECT_PRED2(contains, r.output, "relu_square");
  // A tolerance wide enough takes it: nothing rejected, exit 0.
  r = kilnTune(planPath + " -o " + tunedPath +
                   " --iterations 1 --rounds 1 --atol 1e9",
               errPath);
  EXPECT_EQ(r.exitCode, 0) << r.output;
  EXPECT_FALSE(contains(r.output, "REJECTED")) << r.output;
}
#endif

static int skip(const std::string &why) {
  std::printf("SKIP: GPU runtime tests not run: %s\n", why.c_str());
  return kSkip;
}

int main(int argc, char **argv) {
  ::testing::InitGoogleTest(&argc, argv);
#ifndef KILN_GPU_KERNELS_SM90A
  return skip("nvcc was not found when kiln was built (no test kernels)");
#else
  if (Status s = cu::Driver::get("", &driver); !s)
    return skip(s.message());
  int count = 0;
  if (driver->cuDeviceGetCount(&count) != 0 || count == 0)
    return skip("the CUDA driver sees no GPU");
  if (driver->version < KILN_NVCC_CUDA_VERSION)
    return skip("the CUDA driver (" + std::to_string(driver->version) +
                ") is older than the nvcc that built the test kernels (" +
                std::to_string(KILN_NVCC_CUDA_VERSION) +
                "): it cannot load them");
  return RUN_ALL_TESTS();
#endif
}
