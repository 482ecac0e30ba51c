//===- ProfilesTest.cpp - Plans with several optimization profiles --------===//
//
// PlanWriter::addProfileSharingWeights merges plans built for other input
// shapes into one plan that shares their weights; the reader and validator
// check it; the runtime selects a profile by shape (setInputShape) or index.
//
//===----------------------------------------------------------------------===//

#include "TestPlans.h"

#include "kiln/Runtime/Runtime.h"
#include "kiln/Runtime/kiln_runtime.h"

#include <gtest/gtest.h>

using namespace kiln;
using namespace kiln::plan;
using kiln::runtime::Engine;
using kiln::runtime::ExecutionContext;

namespace {

const float kTable[16] = {0.5f, -1.0f, 2.0f, -3.0f, 0.25f, 1.5f, -0.75f, 4.0f,
                          1.0f, 2.0f,  3.0f, 4.0f,  -1.0f, -2.0f, -3.0f, -4.0f};
/// Weights every batch size shares: 64 bytes, so that the table after it
/// lies back to back with it (the parts of a stacked weight look alike).
const float kShared[16] = {9.0f, 8.0f, 7.0f, 6.0f, 5.0f, 4.0f, 3.0f, 2.0f,
                           1.0f, 0.5f, 0.25f, 2.5f, 3.5f, 4.5f, 5.5f, 6.5f};

/// y = relu(x + w) for x f32[batch, 4], w the first batch*4 floats of kTable
/// (so every batch size has weights of its own), and a step that adds
/// kShared to itself into scratch (a weight all batch sizes have).
PlanWriter batchPlan(int64_t batch) {
  PlanWriter w;
  uint64_t n = uint64_t(batch) * 4;
  uint32_t x = w.addInput(TensorDesc{"x", DType::f32, {batch, 4}, {"N", ""}});
  uint32_t y = w.addOutput(TensorDesc{"y", DType::f32, {batch, 4}, {"N", ""}});
  uint32_t shared = w.addWeightBuffer(kShared, sizeof(kShared));
  uint32_t weights = w.addWeightBuffer(kTable, n * sizeof(float));
  uint64_t at = (n * 4 + 63) / 64 * 64;
  uint32_t sum = w.addBuffer(BufferKind::Activation, n * 4, 0, 64);
  uint32_t scratch = w.addBuffer(BufferKind::Scratch, 16, at, 64);
  w.setArenaBytes(at + 64, n * 4 + 16);
  std::vector<uint8_t> so = test::hostKernels();
  uint32_t module =
      w.addModule("host", ModuleFormat::HostSharedObject, so.data(), so.size());
  uint32_t add = w.addKernel("add", module, "kiln_kernel_add");
  uint32_t relu = w.addKernel("relu", module, "kiln_kernel_relu");
  Step twice;
  twice.kernel = add;
  twice.args = {{shared, 0}, {shared, 0}, {scratch, 0}};
  twice.dims = {4};
  w.addStep(twice);
  Step s;
  s.kernel = add;
  s.args = {{x, 0}, {weights, 0}, {sum, 0}};
  s.dims = {int64_t(n)};
  w.addStep(s);
  Step r;
  r.kernel = relu;
  r.args = {{sum, 0}, {y, 0}};
  r.dims = {int64_t(n)};
  w.addStep(r);
  w.addProvenance("model.path", "batch.onnx");
  return w;
}

Plan readBack(const std::vector<uint8_t> &bytes, PlanReader &reader) {
  Status s = reader.open(bytes.data(), bytes.size());
  EXPECT_TRUE(s.ok()) << s.message();
  return reader.plan();
}

/// Batch sizes 2 (profile 0), 1 and 4 in one plan.
std::vector<uint8_t> threeProfiles() {
  PlanWriter w = batchPlan(2);
  for (int64_t batch : {1, 4}) {
    std::vector<uint8_t> bytes = test::bytesOf(batchPlan(batch));
    PlanReader reader;
    Plan part = readBack(bytes, reader);
    Status s = w.addProfileSharingWeights(part);
    EXPECT_TRUE(s.ok()) << s.message();
  }
  return test::bytesOf(w);
}

TEST(Profiles, MergedPlanSharesEqualWeightsAndReadsBack) {
  std::vector<uint8_t> bytes = threeProfiles();
  PlanReader reader;
  Plan p = readBack(bytes, reader);
  ASSERT_EQ(p.numProfiles(), 3u);
  EXPECT_EQ(p.profile(1).inputs[0].desc.shape, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(p.profile(2).inputs[0].desc.shape, (std::vector<int64_t>{4, 4}));
  // kShared once; the 8-float table of batch 2, and those of batches 1 and
  // 4, appended (each at a 64-byte boundary).
  EXPECT_EQ(p.profile(1).buffers[2].offset, p.buffers[2].offset);
  EXPECT_EQ(p.profile(2).buffers[2].offset, p.buffers[2].offset);
  EXPECT_EQ(p.weights.size, 64u + 32u + 32u /*pad*/ + 16u + 48u + 64u);
  EXPECT_EQ(p.profile(1).buffers[3].offset, 128u);
  EXPECT_EQ(p.profile(2).buffers[3].offset, 192u);
  // Profile 0 lists every weight of the section.
  size_t weights = 0;
  for (const Buffer &b : p.buffers)
    weights += b.kind == BufferKind::Weight;
  EXPECT_EQ(weights, 4u);
  // A single-profile plan has no profiles field: byte-identical to before.
  PlanReader single;
  EXPECT_TRUE(readBack(test::bytesOf(batchPlan(2)), single).profiles.empty());
}

TEST(Profiles, RefusesPartsThatCannotBeProfiles) {
  PlanWriter w = batchPlan(2);
  std::vector<uint8_t> bytes = test::bytesOf(test::addPlan());
  PlanReader reader;
  Plan other = readBack(bytes, reader);
  ASSERT_TRUE(w.addProfileSharingWeights(other).ok());
  std::vector<uint8_t> out;
  Status s = w.serialize(out);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("profile 1"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("inputs"), std::string::npos) << s.message();
}

std::vector<float> expected(int64_t batch, const std::vector<float> &x) {
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    float t = x[i] + kTable[i];
    y[i] = t > 0 ? t : 0;
  }
  (void)batch;
  return y;
}

TEST(Profiles, ContextRunsTheProfileOfEachDeclaredShape) {
  std::vector<uint8_t> bytes = threeProfiles();
  std::unique_ptr<Engine> engine;
  runtime::EngineOptions options;
  options.device = runtime::DeviceKind::Host;
  ASSERT_TRUE(Engine::loadMemory(bytes.data(), bytes.size(), options, &engine)
                  .ok());
  ASSERT_EQ(engine->numProfiles(), 3u);
  EXPECT_EQ(engine->inputs()[0].shape, (std::vector<int64_t>{-1, 4}));
  EXPECT_EQ(engine->inputs()[0].byteSize, 0u);
  EXPECT_EQ(engine->profileOutputs(2)[0].shape, (std::vector<int64_t>{4, 4}));
  std::unique_ptr<ExecutionContext> context;
  ASSERT_TRUE(engine->createContext(&context).ok());
  EXPECT_EQ(context->profile(), 0u);
  for (int64_t batch : {1, 4, 2, 1}) {
    ASSERT_TRUE(context->setInputShape(0, {batch, 4}).ok());
    EXPECT_EQ(context->outputShape(0), (std::vector<int64_t>{batch, 4}));
    EXPECT_EQ(context->outputBytes(0), size_t(batch) * 16);
    std::vector<float> x(size_t(batch) * 4), y(x.size());
    for (size_t i = 0; i < x.size(); ++i)
      x[i] = float(i) - 3.5f;
    ASSERT_TRUE(context->setInput(0, x.data(), x.size() * 4).ok());
    ASSERT_TRUE(context->setOutput(0, y.data(), y.size() * 4).ok());
    Status s = context->run();
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(y, expected(batch, x)) << "batch " << batch;
  }
  // A shape of no profile: the input, dim, value and the profiles' values.
  Status s = context->setInputShape(0, {3, 4});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("input 'x'"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("dim 0 is 3"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("1, 2, 4"), std::string::npos) << s.message();
  EXPECT_EQ(context->profile(), 1u); // unchanged
  // Wrong byte counts for the selected profile are refused.
  std::vector<float> big(16);
  EXPECT_FALSE(context->setInput(0, big.data(), big.size() * 4).ok());
  ASSERT_TRUE(context->setProfile(2).ok());
  EXPECT_TRUE(context->setInput(0, big.data(), big.size() * 4).ok());
  EXPECT_FALSE(context->setProfile(3).ok());
}

TEST(Profiles, SingleProfilePlansAcceptTheirOwnShapeOnly) {
  std::vector<uint8_t> bytes = test::bytesOf(batchPlan(2));
  std::unique_ptr<Engine> engine;
  ASSERT_TRUE(Engine::loadMemory(bytes.data(), bytes.size(), &engine).ok());
  EXPECT_EQ(engine->numProfiles(), 1u);
  std::unique_ptr<ExecutionContext> context;
  ASSERT_TRUE(engine->createContext(&context).ok());
  EXPECT_TRUE(context->setInputShape(0, {2, 4}).ok());
  Status s = context->setInputShape(0, {2, 5});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("dim 1 is 5"), std::string::npos) << s.message();
}

TEST(Profiles, CApiSelectsAndDescribesProfiles) {
  std::vector<uint8_t> bytes = threeProfiles();
  kiln_engine *engine = nullptr;
  ASSERT_EQ(kiln_engine_load_memory(bytes.data(), bytes.size(), &engine),
            KILN_OK)
      << kiln_last_error();
  EXPECT_EQ(kiln_engine_num_profiles(engine), 3u);
  size_t rank = 0;
  const int64_t *shape = kiln_engine_profile_input_shape(engine, 1, 0, &rank);
  ASSERT_NE(shape, nullptr);
  ASSERT_EQ(rank, 2u);
  EXPECT_EQ(shape[0], 1);
  EXPECT_EQ(kiln_engine_profile_input_shape(engine, 3, 0, &rank), nullptr);
  kiln_context *context = nullptr;
  ASSERT_EQ(kiln_context_create(engine, &context), KILN_OK);
  const int64_t dims[] = {4, 4};
  ASSERT_EQ(kiln_context_set_input_shape(context, 0, dims, 2), KILN_OK);
  EXPECT_EQ(kiln_context_profile(context), 2u);
  EXPECT_EQ(kiln_context_input_bytes(context, 0), 64u);
  shape = kiln_context_output_shape(context, 0, &rank);
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape[0], 4);
  const int64_t bad[] = {3, 4};
  EXPECT_NE(kiln_context_set_input_shape(context, 0, bad, 2), KILN_OK);
  EXPECT_NE(std::string(kiln_last_error()).find("dim 0 is 3"),
            std::string::npos)
      << kiln_last_error();
  EXPECT_EQ(kiln_context_set_profile(context, 1), KILN_OK);
  EXPECT_EQ(kiln_context_profile(context), 1u);
  kiln_context_destroy(context);
  kiln_engine_destroy(engine);
}

} // namespace
