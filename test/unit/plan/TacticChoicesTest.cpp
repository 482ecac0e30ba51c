//===- TacticChoicesTest.cpp - Tactic choices in plans --------------------===//

#include "PlanTestUtil.h"

#include "kiln/Plan/PlanIO.h"
#include "kiln/Plan/Plan_generated.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace kiln::plan;
using namespace kiln::plan::test;
namespace fbs = kiln::plan::fb;

namespace {

/// x -> [choice 0: variant 0 one step, variant 1 two steps] -> t ->
/// [choice 1: three variants of one step each] -> y, and one step outside
/// any choice. Choice 0 is tuned, choice 1 is not.
PlanWriter choicePlan() {
  PlanWriter w("kiln-test-2.0");
  uint32_t x = w.addInput(TensorDesc{"x", DType::f16, {4, 8}, {}});
  uint32_t y = w.addOutput(TensorDesc{"y", DType::f16, {4, 8}, {}});
  uint32_t t = w.addBuffer(BufferKind::Activation, 64, 0, 64);
  std::vector<uint8_t> cubin = fakeModule(3, 96);
  uint32_t m =
      w.addModule("sm_90a", ModuleFormat::Cubin, cubin.data(), cubin.size());
  uint32_t k = w.addKernel("conv_0", m, "conv_0_wgmma");
  uint32_t k2 = w.addKernel("conv_0_mma", m, "conv_0_mma");
  uint32_t k3 = w.addKernel("add_1", m, "add_1");

  Choice conv;
  conv.key = "conv2d f16 n4 c8 k8 \"3x3\"";
  conv.name = "conv_0";
  conv.variants = {"wgmma 128x128x4", "mma.sync 64x64"};
  conv.selected = 1;
  conv.timesMs = {0.0125, 0.0100};
  conv.device = "NVIDIA H200";
  uint32_t c0 = w.addChoice(conv);
  EXPECT_EQ(c0, 1u);
  Choice add;
  add.key = "add f16 [4,8]";
  add.name = "add_1";
  add.variants = {"a", "b", "c"};
  uint32_t c1 = w.addChoice(add);
  EXPECT_EQ(c1, 2u);

  auto step = [&](uint32_t kernel, uint32_t choice, uint32_t variant,
                  std::vector<Arg> args) {
    Step s;
    s.kernel = kernel;
    s.args = std::move(args);
    s.grid = {2, 1, 1};
    s.block = {128, 1, 1};
    s.choice = choice;
    s.variant = variant;
    w.addStep(s);
  };
  step(k, c0, 0, {{x, 0}, {t, 0}});
  step(k2, c0, 1, {{x, 0}, {t, 0}});
  step(k2, c0, 1, {{x, 32}, {t, 32}});
  for (uint32_t v = 0; v < 3; ++v)
    step(k3, c1, v, {{t, 0}, {y, 0}});
  step(k3, 0, 0, {{y, 0}, {y, 0}});
  return w;
}

} // namespace

TEST(TacticChoices, RoundTripAsFormatV2) {
  PlanWriter w = choicePlan();
  std::vector<uint8_t> bytes = serialized(w);
  PlanReader reader;
  Status s = reader.open(bytes.data(), bytes.size());
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(reader.header().formatVersion, 4u);
  const Plan &p = reader.plan();
  EXPECT_EQ(p.choices, w.choices());
  ASSERT_EQ(p.choices.size(), 2u);
  EXPECT_EQ(p.choices[0].key, "conv2d f16 n4 c8 k8 \"3x3\"");
  EXPECT_EQ(p.choices[0].timesMs, (std::vector<double>{0.0125, 0.0100}));
  EXPECT_TRUE(p.choices[1].timesMs.empty());
  EXPECT_EQ(p.choices[1].device, "");
  ASSERT_EQ(p.steps.size(), 7u);
  EXPECT_EQ(p.steps[2].choice, 1u);
  EXPECT_EQ(p.steps[2].variant, 1u);
  EXPECT_EQ(p.steps[5].choice, 2u);
  EXPECT_EQ(p.steps[5].variant, 2u);
  EXPECT_EQ(p.steps[6].choice, 0u);
  EXPECT_EQ(p.selectedVariants(), (std::vector<uint32_t>{1, 0}));

  // fromPlan reproduces the file byte for byte, choices included.
  EXPECT_EQ(serialized(PlanWriter::fromPlan(p)), bytes);
}

TEST(TacticChoices, StepsRunOnlyForTheSelectedVariant) {
  Step always;
  Step v1;
  v1.choice = 2;
  v1.variant = 1;
  EXPECT_TRUE(stepRuns(always, {}));
  EXPECT_TRUE(stepRuns(always, {3, 4}));
  EXPECT_TRUE(stepRuns(v1, {0, 1}));
  EXPECT_FALSE(stepRuns(v1, {1, 0}));
  EXPECT_FALSE(stepRuns(v1, {1})); // no such choice
}

TEST(TacticChoices, EditedSelectionIsWrittenBack) {
  // What kiln-tune does: read, change the choices, write again.
  std::vector<uint8_t> bytes = serialized(choicePlan());
  PlanReader reader;
  ASSERT_TRUE(reader.open(bytes.data(), bytes.size()).ok());
  PlanWriter w = PlanWriter::fromPlan(reader.plan());
  w.choices()[1].selected = 2;
  w.choices()[1].timesMs = {0.5, 0.25, 0.125};
  w.choices()[1].device = "NVIDIA H200";
  std::vector<uint8_t> tuned = serialized(w);
  PlanReader again;
  ASSERT_TRUE(again.open(tuned.data(), tuned.size()).ok());
  EXPECT_EQ(again.plan().choices[1].selected, 2u);
  EXPECT_EQ(again.plan().choices[1].timesMs,
            (std::vector<double>{0.5, 0.25, 0.125}));
  EXPECT_EQ(again.plan().choices[0], reader.plan().choices[0]);
  EXPECT_EQ(again.plan().steps, reader.plan().steps);
}

TEST(TacticChoices, PlansWithoutChoicesStoreNoChoiceFields) {
  // Plans without choices have no choices vector and no choice/variant
  // fields in the steps (FlatBuffers omits defaults); every plan is v4.
  PlanWriter w("kiln-test-1.0");
  uint32_t x = w.addInput(TensorDesc{"x", DType::f32, {4}, {}});
  uint32_t y = w.addOutput(TensorDesc{"y", DType::f32, {4}, {}});
  std::vector<uint8_t> so = fakeModule(1, 64);
  uint32_t m =
      w.addModule("host", ModuleFormat::HostSharedObject, so.data(), so.size());
  Step s;
  s.kernel = w.addKernel("copy", m, "kiln_copy");
  s.args = {{x, 0}, {y, 0}};
  w.addStep(s);
  std::vector<uint8_t> bytes = serialized(w);
  PlanHeader h = decodeHeader(bytes.data());
  EXPECT_EQ(h.formatVersion, 4u);
  const fbs::Plan *root = fbs::GetPlan(bytes.data() + 64);
  EXPECT_FALSE(hasField(root, fbs::Plan::VT_CHOICES));
  ASSERT_EQ(root->steps()->size(), 1u);
  EXPECT_FALSE(hasField(root->steps()->Get(0), fbs::Step::VT_CHOICE));
  EXPECT_FALSE(hasField(root->steps()->Get(0), fbs::Step::VT_VARIANT));

  // The plan with choices stores them.
  std::vector<uint8_t> v2 = serialized(choicePlan());
  const fbs::Plan *root2 = fbs::GetPlan(v2.data() + 64);
  EXPECT_TRUE(hasField(root2, fbs::Plan::VT_CHOICES));
  EXPECT_TRUE(hasField(root2->steps()->Get(1), fbs::Step::VT_CHOICE));
}

TEST(TacticChoices, ReaderRefusesFormatsBeforeV4) {
  // v1 to v3 plans have no argument extents: nothing could bound what their
  // kernels touch, so they are refused whatever they hold.
  std::vector<uint8_t> bytes = serialized(choicePlan());
  for (uint8_t version : {1, 2, 3}) {
    std::vector<uint8_t> copy = bytes;
    copy[8] = version;
    fixChecksum(copy);
    PlanReader reader;
    Status s = reader.open(copy.data(), copy.size());
    EXPECT_EQ(s.code(), StatusCode::UnsupportedVersion);
    EXPECT_EQ(s.message(), "plan format v" + std::to_string(version) +
                               " is not supported by this runtime (v4, which "
                               "needs the argument extents that v4 added): "
                               "rebuild the plan with kilnc 0.1.x");
  }
}

TEST(TacticChoices, ReaderRefusesNewerFormats) {
  std::vector<uint8_t> bytes = serialized(choicePlan());
  bytes[8] = 5;
  fixChecksum(bytes);
  PlanReader reader;
  Status s = reader.open(bytes.data(), bytes.size());
  EXPECT_EQ(s.code(), StatusCode::UnsupportedVersion);
  EXPECT_PRED2(contains, s.message(),
               "plan format v5 is newer than this runtime (v4)");
}

TEST(TacticChoices, RefusesInconsistentChoices) {
  {
    PlanWriter w = choicePlan();
    w.choices()[1].selected = 3;
    EXPECT_PRED2(contains, writeError(w),
                 "choice 1 'add_1' selects variant 3, but it has 3 variants");
  }
  {
    PlanWriter w = choicePlan();
    w.choices()[0].variants.clear();
    EXPECT_PRED2(contains, writeError(w), "choice 0 'conv_0' has no variants");
  }
  {
    PlanWriter w = choicePlan();
    w.choices()[0].timesMs = {1.0};
    EXPECT_PRED2(contains, writeError(w),
                 "choice 0 'conv_0' has 1 times for 2 variants");
  }
  {
    PlanWriter w = choicePlan();
    w.choices()[0].timesMs = {1.0, -0.5};
    EXPECT_PRED2(contains, writeError(w),
                 "choice 0 'conv_0' has time -0.500000 ms for variant 1");
  }
  {
    PlanWriter w = choicePlan();
    w.choices()[0].timesMs = {std::numeric_limits<double>::quiet_NaN(), 1.0};
    EXPECT_PRED2(contains, writeError(w), "expected a finite number >= 0");
  }
  {
    // A fourth variant that no step implements.
    PlanWriter w = choicePlan();
    w.choices()[1].variants.push_back("d");
    EXPECT_PRED2(contains, writeError(w),
                 "variant 3 ('d') of choice 1 'add_1' has no steps");
  }
}

TEST(TacticChoices, RefusesStepsOutsideTheirChoice) {
  auto withStep = [](uint32_t choice, uint32_t variant) {
    PlanWriter w = choicePlan();
    Step s;
    s.kernel = 0;
    s.choice = choice;
    s.variant = variant;
    w.addStep(s);
    return w;
  };
  EXPECT_PRED2(contains, writeError(withStep(1, 5)),
               "step 7: choice 0 'conv_0' has 2 variants, variant is 5");
  EXPECT_PRED2(contains, writeError(withStep(3, 0)),
               "step 7 refers to choice 2 (Step::choice 3), but the plan has "
               "2 choices");
  EXPECT_PRED2(contains, writeError(withStep(0, 1)),
               "step 7 has variant 1 but belongs to no choice");
}

// As PlanIOTest's corruption test, over the choice tables: edits behind a
// valid checksum are refused with a message or give a valid plan, and
// nothing crashes (run under ASan/UBSan).
TEST(TacticChoices, SurvivesPayloadCorruptionBehindAValidChecksum) {
  EXPECT_GT(
      openCorrupted(serialized(choicePlan()), 7, 2000,
                    /*randomBytes=*/false,
                    [](const std::vector<uint8_t> &bytes, PlanReader &reader) {
                      return reader.open(bytes.data(), bytes.size());
                    }),
      500);
}
