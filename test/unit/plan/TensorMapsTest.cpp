//===- TensorMapsTest.cpp - TMA tensor maps in plans ----------------------===//

#include "PlanTestUtil.h"

#include "kiln/Plan/PlanIO.h"
#include "kiln/Plan/Plan_generated.h"

#include <gtest/gtest.h>

#include <functional>
#include <random>

using namespace kiln::plan;
using namespace kiln::plan::test;
namespace fbs = kiln::plan::fb;

namespace {

/// Buffer indices of mapPlan.
enum : uint32_t { kX = 0, kY = 1, kWeight = 2, kMapX = 3, kMapW = 4 };
/// x: f16 [100, 72] (rows, columns) = 14400 bytes.
constexpr uint64_t kXBytes = 100 * 72 * 2;
/// w: bf16 [2, 64, 32] 64 bytes into its buffer: 64 + 8192 bytes.
constexpr uint64_t kWeightBytes = 64 + 2 * 64 * 32 * 2;

/// The tensor map over x: 64x32 f16 boxes, 128-byte swizzle.
TensorMap xMap() {
  TensorMap m;
  m.buffer = kMapX;
  m.source = kX;
  m.dtype = DType::f16;
  m.dims = {72, 100};
  m.strides = {144};
  m.box = {64, 32};
  m.swizzle = 3;
  return m;
}

/// The tensor map over w: rank 3, 64-byte swizzle, at a source offset.
TensorMap weightMap() {
  TensorMap m;
  m.buffer = kMapW;
  m.source = kWeight;
  m.sourceOffset = 64;
  m.dtype = DType::bf16;
  m.dims = {32, 64, 2};
  m.strides = {64, 4096};
  m.box = {32, 16, 1};
  m.swizzle = 2;
  return m;
}

/// x (input), y (output), a weight and two tensor maps over them, which one
/// sm_90a step takes (with y). `edit` may change the writer (add buffers or
/// steps) and the maps before they are added.
PlanWriter
mapPlan(const std::function<void(PlanWriter &, std::vector<TensorMap> &)>
            &edit = {}) {
  PlanWriter w("kiln-test-3.0");
  EXPECT_EQ(w.addInput(TensorDesc{"x", DType::f16, {100, 72}, {}}), kX);
  EXPECT_EQ(w.addOutput(TensorDesc{"y", DType::f32, {64, 32}, {}}), kY);
  std::vector<uint8_t> weights = fakeModule(9, kWeightBytes);
  EXPECT_EQ(w.addWeightBuffer(weights.data(), weights.size()), kWeight);
  // Table slots 0 and 2 (offsets 0 and 256): holes are allowed.
  EXPECT_EQ(w.addBuffer(BufferKind::TensorMap, kTensorMapBytes, 0,
                        kTensorMapAlignment),
            kMapX);
  EXPECT_EQ(w.addBuffer(BufferKind::TensorMap, kTensorMapBytes, 256,
                        kTensorMapAlignment),
            kMapW);
  std::vector<uint8_t> cubin = fakeModule(3, 96);
  uint32_t m =
      w.addModule("sm_90a", ModuleFormat::Cubin, cubin.data(), cubin.size());
  Step s;
  s.kernel = w.addKernel("gemm_0", m, "gemm_0_tma");
  s.args = {{kMapX, 0}, {kMapW, 0}, {kY, 0}};
  s.grid = {2, 1, 1};
  s.block = {128, 1, 1};
  s.sharedMemBytes = 65536;
  w.addStep(s);
  std::vector<TensorMap> maps = {xMap(), weightMap()};
  if (edit)
    edit(w, maps);
  for (TensorMap &map : maps)
    w.addTensorMap(std::move(map));
  return w;
}

} // namespace

TEST(TensorMaps, RoundTripAsFormatV3) {
  PlanWriter w = mapPlan();
  EXPECT_EQ(w.tensorMaps().size(), 2u);
  std::vector<uint8_t> bytes = serialized(w);
  PlanReader reader;
  Status s = reader.open(bytes.data(), bytes.size());
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(reader.header().formatVersion, 4u);
  const Plan &p = reader.plan();
  EXPECT_EQ(p.tensorMaps, w.tensorMaps());
  ASSERT_EQ(p.tensorMaps.size(), 2u);
  EXPECT_EQ(p.tensorMaps[0], xMap());
  EXPECT_EQ(p.tensorMaps[1], weightMap());
  EXPECT_EQ(p.buffers[kMapW].kind, BufferKind::TensorMap);
  EXPECT_EQ(p.buffers[kMapW].offset, 256u);
  EXPECT_EQ(tensorMapTableBytes(p), 256u + 128u);
  EXPECT_STREQ(bufferKindName(BufferKind::TensorMap), "tensor map");

  // fromPlan reproduces the file byte for byte, tensor maps included.
  EXPECT_EQ(serialized(PlanWriter::fromPlan(p)), bytes);
}

TEST(TensorMaps, EveryFieldMattersForEquality) {
  const TensorMap base = weightMap();
  std::vector<std::function<void(TensorMap &)>> edits = {
      [](TensorMap &m) { m.buffer = 9; },
      [](TensorMap &m) { m.source = 9; },
      [](TensorMap &m) { m.sourceOffset = 16; },
      [](TensorMap &m) { m.dtype = DType::f16; },
      [](TensorMap &m) { m.dims[2] = 3; },
      [](TensorMap &m) { m.strides[1] = 8192; },
      [](TensorMap &m) { m.box[1] = 8; },
      [](TensorMap &m) { m.swizzle = 3; },
  };
  for (size_t i = 0; i < edits.size(); ++i) {
    TensorMap m = base;
    edits[i](m);
    EXPECT_FALSE(m == base) << "edit " << i;
  }
}

TEST(TensorMaps, OnlyPlansWithTensorMapsStoreThem) {
  // Without tensor maps there is no tensor_maps vector; every plan is v4.
  PlanWriter plain("kiln-test-1.0");
  uint32_t x = plain.addInput(TensorDesc{"x", DType::f32, {4}, {}});
  uint32_t y = plain.addOutput(TensorDesc{"y", DType::f32, {4}, {}});
  std::vector<uint8_t> so = fakeModule(1, 64);
  uint32_t m = plain.addModule("host", ModuleFormat::HostSharedObject,
                               so.data(), so.size());
  Step s;
  s.kernel = plain.addKernel("copy", m, "kiln_copy");
  s.args = {{x, 0}, {y, 0}};
  plain.addStep(s);
  std::vector<uint8_t> v1 = serialized(plain);
  EXPECT_EQ(decodeHeader(v1.data()).formatVersion, 4u);
  EXPECT_FALSE(
      hasField(fbs::GetPlan(v1.data() + 64), fbs::Plan::VT_TENSOR_MAPS));

  // With tactic choices only: still none.
  Choice choice;
  choice.name = "copy";
  choice.variants = {"only"};
  Step variant = s;
  variant.choice = plain.addChoice(choice);
  plain.addStep(variant);
  std::vector<uint8_t> v2 = serialized(plain);
  EXPECT_EQ(decodeHeader(v2.data()).formatVersion, 4u);
  EXPECT_FALSE(
      hasField(fbs::GetPlan(v2.data() + 64), fbs::Plan::VT_TENSOR_MAPS));

  // Tensor maps are stored, with or without choices.
  std::vector<uint8_t> v3 = serialized(mapPlan());
  EXPECT_EQ(decodeHeader(v3.data()).formatVersion, 4u);
  EXPECT_TRUE(
      hasField(fbs::GetPlan(v3.data() + 64), fbs::Plan::VT_TENSOR_MAPS));
  std::vector<uint8_t> both =
      serialized(mapPlan([](PlanWriter &w, std::vector<TensorMap> &) {
        Choice c;
        c.name = "gemm_0";
        c.variants = {"tma"};
        Step step;
        step.kernel = 0;
        step.args = {{kMapX, 0}, {kMapW, 0}, {kY, 0}};
        step.choice = w.addChoice(c);
        w.addStep(step);
      }));
  EXPECT_EQ(decodeHeader(both.data()).formatVersion, 4u);
}

TEST(TensorMaps, AcceptsDynamicInputsAndHolesInTheTable) {
  // A dynamic input has no size yet (0 bytes): its extent is not checked.
  PlanWriter w = mapPlan([](PlanWriter &w, std::vector<TensorMap> &maps) {
    uint32_t z = w.addInput(TensorDesc{"z", DType::f16, {-1, 64}, {}});
    uint32_t map = w.addBuffer(BufferKind::TensorMap, kTensorMapBytes, 1024,
                               kTensorMapAlignment);
    TensorMap m = xMap();
    m.buffer = map;
    m.source = z;
    m.dims = {64, 1u << 20};
    m.strides = {128};
    maps.push_back(m);
  });
  std::vector<uint8_t> bytes = serialized(w);
  PlanReader reader;
  Status s = reader.open(bytes.data(), bytes.size());
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(tensorMapTableBytes(reader.plan()), 1024u + 128u);
}

TEST(TensorMaps, RefusesInvalidTensorMaps) {
  using Edit = std::function<void(PlanWriter &, std::vector<TensorMap> &)>;
  auto map0 = [](std::function<void(TensorMap &)> f) -> Edit {
    return [f](PlanWriter &, std::vector<TensorMap> &maps) { f(maps[0]); };
  };
  auto map1 = [](std::function<void(TensorMap &)> f) -> Edit {
    return [f](PlanWriter &, std::vector<TensorMap> &maps) { f(maps[1]); };
  };
  struct Case {
    Edit edit;
    std::string error;
  };
  const Case cases[] = {
      // The TensorMap buffers themselves.
      {[](PlanWriter &w, auto &) {
         w.addBuffer(BufferKind::TensorMap, 64, 512, kTensorMapAlignment);
       },
       "buffer 5 (tensor map) has 64 bytes and alignment 64, expected 128 "
       "and 64 (a CUtensorMap)"},
      {[](PlanWriter &w, auto &) {
         w.addBuffer(BufferKind::TensorMap, kTensorMapBytes, 512, 128);
       },
       "buffer 5 (tensor map) has 128 bytes and alignment 128, expected 128 "
       "and 64"},
      {[](PlanWriter &w, auto &) {
         w.addBuffer(BufferKind::TensorMap, kTensorMapBytes, 544,
                     kTensorMapAlignment);
       },
       "buffer 5 (tensor map) has offset 544 that is not a multiple of 64"},
      {[](PlanWriter &w, auto &) {
         w.addBuffer(BufferKind::TensorMap, kTensorMapBytes, uint64_t(1) << 24,
                     kTensorMapAlignment);
       },
       "buffer 5 (tensor map) at offset 16777216 exceeds the limit of the "
       "tensor-map table (16777216 bytes)"},
      {[](PlanWriter &w, auto &) {
         w.addBuffer(BufferKind::TensorMap, kTensorMapBytes, 320,
                     kTensorMapAlignment);
       },
       "tensor map buffers 4 and 5 overlap in the tensor-map table (offsets "
       "256 and 320)"},
      {[](PlanWriter &w, auto &) {
         w.addBuffer(BufferKind::TensorMap, kTensorMapBytes, 512,
                     kTensorMapAlignment);
       },
       "buffer 5 (tensor map) is filled by 0 tensor maps, expected one"},
      {map1([](TensorMap &m) { m.buffer = kMapX; }),
       "buffer 3 (tensor map) is filled by 2 tensor maps, expected one"},
      // Buffer references.
      {map0([](TensorMap &m) { m.buffer = 99; }),
       "tensor map 0 fills buffer 99, but the plan has 5"},
      {map0([](TensorMap &m) { m.buffer = kX; }),
       "tensor map 0 fills buffer 0 of kind input, expected a tensor map "
       "buffer"},
      {map0([](TensorMap &m) { m.source = 99; }),
       "tensor map 0 reads buffer 99, but the plan has 5"},
      {map0([](TensorMap &m) { m.source = kMapW; }),
       "tensor map 0 reads buffer 4, which is a tensor map buffer itself"},
      // Element type and rank.
      {map0([](TensorMap &m) { m.dtype = DType(99); }),
       "tensor map 0 has invalid dtype 99"},
      {map0([](TensorMap &m) { m.dtype = DType::boolean; }),
       "tensor map 0 has dtype bool, which TMA has no type for"},
      {map0([](TensorMap &m) {
         m.dims.clear();
         m.strides.clear();
         m.box.clear();
       }),
       "tensor map 0 has rank 0, expected 1 to 5"},
      {map0([](TensorMap &m) {
         m.dims = {8, 1, 1, 1, 1, 1};
         m.strides = {16, 16, 16, 16, 16};
         m.box = {8, 1, 1, 1, 1, 1};
       }),
       "tensor map 0 has rank 6, expected 1 to 5"},
      // Dims, strides, box.
      {map0([](TensorMap &m) { m.dims[1] = 0; }),
       "tensor map 0 has dims[1] = 0, expected 1 to 2^32"},
      {map0([](TensorMap &m) { m.dims[1] = (uint64_t(1) << 32) + 1; }),
       "tensor map 0 has dims[1] = 4294967297, expected 1 to 2^32"},
      {map0([](TensorMap &m) { m.strides = {}; }),
       "tensor map 0 has 0 strides for rank 2, expected 1"},
      {map0([](TensorMap &m) { m.strides = {136}; }),
       "tensor map 0 has strides[0] = 136 bytes, expected a positive multiple "
       "of 16 below 2^40"},
      {map0([](TensorMap &m) { m.strides = {0}; }),
       "tensor map 0 has strides[0] = 0 bytes"},
      {map1([](TensorMap &m) { m.strides[1] = uint64_t(1) << 40; }),
       "tensor map 1 has strides[1] = 1099511627776 bytes, expected a "
       "positive multiple of 16 below 2^40"},
      {map0([](TensorMap &m) { m.box = {64}; }),
       "tensor map 0 has 1 box entries for rank 2, expected 2"},
      {map0([](TensorMap &m) { m.box[1] = 0; }),
       "tensor map 0 has box[1] = 0, expected 1 to 256"},
      {map0([](TensorMap &m) { m.box[1] = 257; }),
       "tensor map 0 has box[1] = 257, expected 1 to 256"},
      {map0([](TensorMap &m) { m.box[0] = 4; }),
       "tensor map 0 has an inner box of 8 bytes (box[0] = 4 f16 elements), "
       "expected a multiple of 16"},
      // Swizzle.
      {map0([](TensorMap &m) { m.swizzle = 4; }),
       "tensor map 0 has swizzle 4, expected 0 (none), 1 (32 B), 2 (64 B) or "
       "3 (128 B)"},
      {map1([](TensorMap &m) { m.swizzle = 1; }),
       "tensor map 1 has an inner box of 64 bytes, more than the 32-byte span "
       "of its swizzle 1"},
      {map0([](TensorMap &m) { m.box[0] = 128; }),
       "tensor map 0 has an inner box of 256 bytes, more than the 128-byte "
       "span of its swizzle 3"},
      // Where it points.
      {map1([](TensorMap &m) { m.sourceOffset = 72; }),
       "tensor map 1 has source offset 72, expected a multiple of 16 (TMA's "
       "global address alignment)"},
      {[](PlanWriter &w, std::vector<TensorMap> &maps) {
         uint8_t bytes[8192] = {};
         maps[1].source = w.addWeightBuffer(bytes, sizeof(bytes), 8);
         maps[1].sourceOffset = 0;
       },
       "tensor map 1 reads buffer 5 with alignment 8, expected at least 16"},
      {map0([](TensorMap &m) { m.dims[1] = 101; }),
       "tensor map 0 addresses 14544 bytes of buffer 0 (input), which has "
       "14400"},
      {map1([](TensorMap &m) { m.sourceOffset = 80; }),
       "tensor map 1 addresses 8272 bytes of buffer 2 (weight), which has "
       "8256"},
      {map1([](TensorMap &m) {
         m.dims = {1u << 31, 1ull << 32, 1ull << 32};
         m.strides = {(uint64_t(1) << 40) - 16, (uint64_t(1) << 40) - 16};
         m.box = {8, 1, 1};
         m.swizzle = 0;
       }),
       "tensor map 1 addresses more than 2^64 bytes"},
      // The steps that take them.
      {[](PlanWriter &w, auto &) {
         Step s;
         s.kernel = 0;
         s.args = {{kMapX, 64}};
         w.addStep(s);
       },
       "step 1 argument 0 has offset 64 and extent 64 into tensor map buffer "
       "3 (tensor map, 128 bytes), expected offset 0 and extent 128"},
      {[](PlanWriter &w, auto &) {
         Step s;
         s.kernel = 0;
         s.args = {{kMapX, 0, 64}};
         w.addStep(s);
       },
       "step 1 argument 0 has offset 0 and extent 64 into tensor map buffer "
       "3 (tensor map, 128 bytes), expected offset 0 and extent 128"},
  };
  for (const Case &c : cases)
    EXPECT_PRED2(contains, writeError(mapPlan(c.edit)), c.error);
}

/// A stacked weight (two parts of 4096 bytes, buffers 1 and 2, back to
/// back) that one tensor map reads through its first part: f16 rows of 64,
/// 32 rows per part. `edit` may change the writer and the map.
PlanWriter stackPlan(
    const std::function<void(PlanWriter &, TensorMap &, Step &)> &edit = {}) {
  PlanWriter w("kiln-test-3.0");
  EXPECT_EQ(w.addOutput(TensorDesc{"y", DType::f32, {64, 32}, {}}), 0u);
  std::vector<uint8_t> part0 = fakeModule(5, 4096), part1 = fakeModule(6, 4096);
  EXPECT_EQ(w.addWeightBuffer(part0.data(), part0.size()), 1u);
  EXPECT_EQ(w.addWeightBuffer(part1.data(), part1.size()), 2u);
  uint32_t mapBuffer = w.addBuffer(BufferKind::TensorMap, kTensorMapBytes, 0,
                                   kTensorMapAlignment);
  std::vector<uint8_t> cubin = fakeModule(3, 96);
  uint32_t m =
      w.addModule("sm_90a", ModuleFormat::Cubin, cubin.data(), cubin.size());
  Step s;
  s.kernel = w.addKernel("conv_0", m, "conv_0_tma");
  s.args = {{mapBuffer, 0}, {0, 0}};
  s.grid = {1, 1, 1};
  s.block = {128, 1, 1};
  TensorMap map;
  map.buffer = mapBuffer;
  map.source = 1;
  map.dtype = DType::f16;
  map.dims = {64, 32, 2};
  map.strides = {128, 4096};
  map.box = {64, 32, 1};
  map.swizzle = 3;
  if (edit)
    edit(w, map, s);
  w.addStep(s);
  w.addTensorMap(std::move(map));
  return w;
}

TEST(TensorMaps, ReadAStackedWeightThroughItsFirstPart) {
  std::vector<uint8_t> bytes = serialized(stackPlan());
  PlanReader reader;
  Status s = reader.open(bytes.data(), bytes.size());
  ASSERT_TRUE(s.ok()) << s.message();
  const Plan &p = reader.plan();
  std::vector<bool> named = namedBuffers(p);
  EXPECT_EQ(named, (std::vector<bool>{true, true, false, true}));
  EXPECT_EQ(readableBytes(p, 1, named), 8192u);
  EXPECT_EQ(readableBytes(p, 2, named), 4096u);
  EXPECT_EQ(readableBytes(p, 0, named), p.buffers[0].sizeBytes);

  // Past the last part; a second part that a step names (a tensor of its
  // own); one that does not follow back to back.
  EXPECT_PRED2(contains,
               writeError(stackPlan(
                   [](PlanWriter &, TensorMap &m, Step &) { m.dims[2] = 3; })),
               "tensor map 0 addresses 12288 bytes of buffer 1 (weight), "
               "which has 4096 (8192 with the parts after it)");
  EXPECT_PRED2(contains,
               writeError(stackPlan([](PlanWriter &, TensorMap &, Step &s) {
                 s.args.push_back({2, 0});
               })),
               "tensor map 0 addresses 8192 bytes of buffer 1 (weight), "
               "which has 4096");
  EXPECT_PRED2(contains,
               writeError(stackPlan([](PlanWriter &w, TensorMap &m, Step &) {
                 // Buffer 4 lies right after buffer 2 in the weights
                 // section, but the map slot (3) comes between them.
                 std::vector<uint8_t> other = fakeModule(7, 4096);
                 EXPECT_EQ(w.addWeightBuffer(other.data(), other.size()), 4u);
                 m.source = 2;
               })),
               "tensor map 0 addresses 8192 bytes of buffer 2 (weight), "
               "which has 4096");
}

// As PlanIOTest's corruption test, over the tensor-map tables: edits behind
// a valid checksum are refused with a message or give a valid plan, and
// nothing crashes (run under ASan/UBSan).
TEST(TensorMaps, SurvivesPayloadCorruptionBehindAValidChecksum) {
  EXPECT_GT(
      openCorrupted(serialized(mapPlan()), 11, 2000,
                    /*randomBytes=*/false,
                    [](const std::vector<uint8_t> &bytes, PlanReader &reader) {
                      return reader.open(bytes.data(), bytes.size());
                    }),
      200);
}
