//===- PlanIOTest.cpp - PlanWriter/PlanReader: round trip and refusals ----===//

#include "PlanTestUtil.h"

#include "kiln/Plan/PlanIO.h"
#include "kiln/Plan/Plan_generated.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <tuple>

#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kiln::plan;
using namespace kiln::plan::test;
namespace fs = std::filesystem;

namespace {

/// A small plan that uses every field.
PlanWriter makeWriter() {
  PlanWriter w("kiln-test-1.2.3");
  w.setMinDriverVersion(12040);
  w.addTarget("sm_90a");
  TensorDesc x{"x", DType::f32, {2, 4}, {"batch", ""}};
  TensorDesc ids{"ids", DType::i64, {3}, {}};
  TensorDesc y{"y", DType::bf16, {2, 4}, {}};
  uint32_t bx = w.addInput(x);
  uint32_t bids = w.addInput(ids);
  uint32_t by = w.addOutput(y);
  float weights[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  uint32_t bw = w.addWeightBuffer(weights, sizeof(weights));
  uint8_t odd[3] = {9, 8, 7};
  uint32_t bodd = w.addWeightBuffer(odd, sizeof(odd), 1);
  uint32_t bw2 = w.addWeightBuffer(weights, 16, 64);
  uint32_t bact = w.addBuffer(BufferKind::Activation, 32, 0, 64);
  uint32_t bscr = w.addBuffer(BufferKind::Scratch, 100, 128, 128);
  w.setArenaBytes(256, 4096);
  std::vector<uint8_t> so = fakeModule(1, 300), cubin = fakeModule(2, 77);
  uint32_t mHost =
      w.addModule("host", ModuleFormat::HostSharedObject, so.data(), so.size());
  uint32_t mGpu =
      w.addModule("sm_90a", ModuleFormat::Cubin, cubin.data(), cubin.size());
  uint32_t kAdd = w.addKernel("add", mHost, "kiln_kernel_add");
  uint32_t kGpu = w.addKernel("add_sm90a", mGpu, "add_kernel");
  Step s1;
  s1.kernel = kAdd;
  // Extent 0 is "the rest of the buffer" ({bodd, 3}: nothing follows).
  s1.args = {{bx, 0}, {bw, 16, 8}, {bact, 0}, {bids, 8}, {bodd, 3}, {bw2, 0}};
  s1.dims = {8, -3, 1ll << 40};
  w.addStep(s1);
  Step s2;
  s2.kernel = kGpu;
  s2.args = {{bact, 0}, {by, 0}, {bscr, 4}};
  s2.grid = {4, 2, 1};
  s2.block = {128, 1, 1};
  s2.sharedMemBytes = 49152;
  w.addStep(s2);
  w.addProvenance("model.path", "models/resnet50.onnx");
  w.addProvenance("compiler.command_line", "kilnc \"a b.onnx\" -o x.plan");
  w.addProvenance("model.path", "models/resnet50-v2.onnx"); // replaces
  w.addProvenance("build.time", "2026-01-02T03:04:05Z");
  return w;
}

Status openBytes(const std::vector<uint8_t> &bytes, PlanReader &reader) {
  return reader.open(bytes.data(), bytes.size());
}

/// Wraps a hand-built FlatBuffer in a header with a correct checksum, so that
/// the reader gets past the integrity checks to the semantic ones.
std::vector<uint8_t> wrap(flatbuffers::FlatBufferBuilder &fbb,
                          const std::vector<std::string> &targets,
                          const std::string &version, uint32_t driver,
                          size_t weightsSize) {
  PlanHeader h{};
  std::memcpy(h.magic, kPlanMagic, 8);
  h.formatVersion = kPlanFormatVersion;
  h.headerSize = 64;
  std::memcpy(h.compilerVersion, version.data(),
              std::min<size_t>(version.size(), 15));
  h.targetMask = targetMask(targets);
  h.minDriverVersion = driver;
  h.flatbufferSize = fbb.GetSize();
  uint64_t wOff = weightsSectionOffset(64, h.flatbufferSize);
  std::vector<uint8_t> bytes(wOff + weightsSize, 0);
  std::memcpy(bytes.data() + 64, fbb.GetBufferPointer(), fbb.GetSize());
  h.payloadSize = bytes.size() - 64;
  encodeHeader(h, bytes.data());
  fixChecksum(bytes);
  return bytes;
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t =
        (fs::temp_directory_path() / "kiln-plan-test-XXXXXX").string();
    std::vector<char> buf(t.begin(), t.end());
    buf.push_back(0);
    path = ::mkdtemp(buf.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, ec);
    fs::remove_all(path, ec);
  }
  std::vector<std::string> entries() const {
    std::vector<std::string> out;
    for (const auto &e : fs::directory_iterator(path))
      out.push_back(e.path().filename().string());
    return out;
  }
};

std::vector<uint8_t> slurp(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

} // namespace

//===----------------------------------------------------------------------===//
// Round trip
//===----------------------------------------------------------------------===//

TEST(PlanIO, RoundTripsEveryField) {
  std::vector<uint8_t> bytes = serialized(makeWriter());
  PlanReader reader;
  Status s = openBytes(bytes, reader);
  ASSERT_TRUE(s.ok()) << s.message();
  const Plan &p = reader.plan();

  EXPECT_EQ(p.compilerVersion, "kiln-test-1.2.3");
  EXPECT_EQ(p.targets, (std::vector<std::string>{"sm_90a", "host"}));
  EXPECT_EQ(p.minDriverVersion, 12040u);
  ASSERT_EQ(p.inputs.size(), 2u);
  EXPECT_EQ(
      p.inputs[0],
      (Binding{TensorDesc{"x", DType::f32, {2, 4}, {"batch", ""}}, 0, 0, {}}));
  EXPECT_EQ(p.inputs[1],
            (Binding{TensorDesc{"ids", DType::i64, {3}, {}}, 1, 0, {}}));
  ASSERT_EQ(p.outputs.size(), 1u);
  EXPECT_EQ(p.outputs[0],
            (Binding{TensorDesc{"y", DType::bf16, {2, 4}, {}}, 2, 0, {}}));

  ASSERT_EQ(p.buffers.size(), 8u);
  EXPECT_EQ(p.buffers[0], (Buffer{BufferKind::Input, 32, 0, 64}));
  EXPECT_EQ(p.buffers[1], (Buffer{BufferKind::Input, 24, 0, 64}));
  EXPECT_EQ(p.buffers[2], (Buffer{BufferKind::Output, 16, 0, 64}));
  EXPECT_EQ(p.buffers[3], (Buffer{BufferKind::Weight, 32, 0, 64}));
  EXPECT_EQ(p.buffers[4], (Buffer{BufferKind::Weight, 3, 32, 1}));
  EXPECT_EQ(p.buffers[5], (Buffer{BufferKind::Weight, 16, 64, 64}));
  EXPECT_EQ(p.buffers[6], (Buffer{BufferKind::Activation, 32, 0, 64}));
  EXPECT_EQ(p.buffers[7], (Buffer{BufferKind::Scratch, 100, 128, 128}));
  EXPECT_EQ(p.arenaBytes, 256u);
  EXPECT_EQ(p.arenaBytesWithoutReuse, 4096u);

  ASSERT_EQ(p.weights.size, 80u);
  float w[8];
  std::memcpy(w, p.weights.data, 32);
  EXPECT_EQ(w[7], 8.0f);
  EXPECT_EQ(p.weights.data[32], 9);
  EXPECT_EQ(p.weights.data[34], 7);
  EXPECT_EQ(p.weights.data[35], 0); // alignment padding
  // The weights section is 64-byte aligned relative to the file.
  EXPECT_EQ((p.weights.data - bytes.data()) % 64, 0);

  ASSERT_EQ(p.modules.size(), 2u);
  EXPECT_EQ(p.modules[0].target, "host");
  EXPECT_EQ(p.modules[0].format, ModuleFormat::HostSharedObject);
  std::vector<uint8_t> so = fakeModule(1, 300);
  ASSERT_EQ(p.modules[0].data.size, so.size());
  EXPECT_EQ(std::memcmp(p.modules[0].data.data, so.data(), so.size()), 0);
  EXPECT_EQ((p.modules[0].data.data - bytes.data()) % 16, 0);
  EXPECT_EQ(p.modules[1].target, "sm_90a");
  EXPECT_EQ(p.modules[1].format, ModuleFormat::Cubin);
  EXPECT_EQ(p.modules[1].data.size, 77u);

  ASSERT_EQ(p.kernels.size(), 2u);
  // The signatures come from the steps.
  EXPECT_EQ(p.kernels[0], (Kernel{"add", 0, "kiln_kernel_add", 6, 3}));
  EXPECT_EQ(p.kernels[1], (Kernel{"add_sm90a", 1, "add_kernel", 3, 0}));

  ASSERT_EQ(p.steps.size(), 2u);
  EXPECT_EQ(p.steps[0].kernel, 0u);
  EXPECT_EQ(p.steps[0].args, (std::vector<Arg>{{0, 0, 32},
                                               {3, 16, 8},
                                               {6, 0, 32},
                                               {1, 8, 16},
                                               {4, 3, 0},
                                               {5, 0, 16}}));
  EXPECT_EQ(p.steps[1].args,
            (std::vector<Arg>{{6, 0, 32}, {2, 0, 16}, {7, 4, 96}}));
  EXPECT_EQ(p.provenance,
            (std::vector<ProvenanceEntry>{
                {"model.path", "models/resnet50-v2.onnx"},
                {"compiler.command_line", "kilnc \"a b.onnx\" -o x.plan"},
                {"build.time", "2026-01-02T03:04:05Z"}}));
  EXPECT_EQ(p.steps[0].dims, (std::vector<int64_t>{8, -3, 1ll << 40}));
  EXPECT_EQ(p.steps[0].grid, (std::array<uint32_t, 3>{1, 1, 1}));
  EXPECT_EQ(p.steps[1].grid, (std::array<uint32_t, 3>{4, 2, 1}));
  EXPECT_EQ(p.steps[1].block, (std::array<uint32_t, 3>{128, 1, 1}));
  EXPECT_EQ(p.steps[1].sharedMemBytes, 49152u);
  EXPECT_TRUE(p.steps[1].dims.empty());

  const PlanHeader &h = reader.header();
  EXPECT_EQ(h.formatVersion, 4u);
  EXPECT_EQ(h.headerSize, 64u);
  EXPECT_STREQ(h.compilerVersion, "kiln-test-1.2.3");
  EXPECT_EQ(h.targetMask, targetBit("host") | targetBit("sm_90a"));
  EXPECT_EQ(h.minDriverVersion, 12040u);
  EXPECT_EQ(h.payloadSize, bytes.size() - 64);
}

TEST(PlanIO, RoundTripsFixedInputValues) {
  // An input fixed at build time (kilnc --input-value) keeps its bytes; the
  // other bindings read back as not fixed.
  PlanWriter w;
  w.addTarget("host");
  std::vector<uint8_t> axes(16, 0);
  axes[8] = 2; // int64 [0, 2]
  w.addInput(TensorDesc{"x", DType::f32, {2, 3}, {}});
  w.addInput(TensorDesc{"axes", DType::i64, {2}, {}}, axes);
  w.addOutput(TensorDesc{"y", DType::f32, {2}, {}});
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(w.serialize(bytes).ok());
  PlanReader r;
  Status s = r.open(bytes.data(), bytes.size());
  ASSERT_TRUE(s.ok()) << s.message();
  const Plan &p = r.plan();
  ASSERT_EQ(p.inputs.size(), 2u);
  EXPECT_TRUE(p.inputs[0].fixedValue.empty());
  EXPECT_EQ(p.inputs[1].fixedValue, axes);
  EXPECT_TRUE(p.outputs[0].fixedValue.empty());
}

TEST(PlanIO, SerializationIsDeterministic) {
  EXPECT_EQ(serialized(makeWriter()), serialized(makeWriter()));
}

TEST(PlanIO, LongCompilerVersionIsTruncatedInTheHeaderOnly) {
  PlanWriter w("0.1.0-with-a-very-long-suffix");
  std::vector<uint8_t> so = fakeModule(3, 64);
  w.addModule("host", ModuleFormat::HostSharedObject, so.data(), so.size());
  std::vector<uint8_t> bytes = serialized(w);
  PlanReader reader;
  ASSERT_TRUE(openBytes(bytes, reader).ok());
  EXPECT_STREQ(reader.header().compilerVersion, "0.1.0-with-a-ve");
  EXPECT_EQ(reader.plan().compilerVersion, "0.1.0-with-a-very-long-suffix");
}

TEST(PlanIO, DefaultArenaCoversActivations) {
  PlanWriter w;
  w.addBuffer(BufferKind::Activation, 100, 64);
  w.addBuffer(BufferKind::Scratch, 10, 256);
  std::vector<uint8_t> so = fakeModule(3, 64);
  w.addModule("host", ModuleFormat::HostSharedObject, so.data(), so.size());
  std::vector<uint8_t> bytes = serialized(w);
  PlanReader reader;
  ASSERT_TRUE(openBytes(bytes, reader).ok());
  EXPECT_EQ(reader.plan().arenaBytes, 266u);
  EXPECT_EQ(reader.plan().compilerVersion, kilnVersion());
}

TEST(PlanIO, DTypeNamesAndSizes) {
  EXPECT_STREQ(dtypeName(DType::boolean), "bool");
  EXPECT_EQ(dtypeSize(DType::f64), 8u);
  EXPECT_EQ(dtypeSize(DType::f8e5m2), 1u);
  EXPECT_EQ(dtypeSize(DType(200)), 0u);
  for (unsigned i = 0; i < kNumDTypes; ++i)
    EXPECT_EQ(parseDType(dtypeName(DType(i))), DType(i));
  EXPECT_FALSE(parseDType("f12"));
}

//===----------------------------------------------------------------------===//
// Header checks
//===----------------------------------------------------------------------===//

TEST(PlanReader, RefusesEmptyAndForeignData) {
  PlanReader reader;
  std::vector<uint8_t> empty;
  Status s = openBytes(empty, reader);
  EXPECT_EQ(s.code(), StatusCode::InvalidPlan);
  EXPECT_EQ(s.message(), "plan is empty (0 bytes)");

  std::vector<uint8_t> onnx = {0x08, 0x07, 0x12, 0x04, 'k', 'i', 'l', 'n'};
  s = openBytes(onnx, reader);
  EXPECT_EQ(s.message(),
            "not a kiln plan (the file does not start with 'KILNPLAN')");
}

TEST(PlanReader, RefusesNewerAndOlderFormats) {
  std::vector<uint8_t> bytes = serialized(makeWriter());
  bytes[8] = 5;
  PlanReader reader;
  Status s = openBytes(bytes, reader);
  EXPECT_EQ(s.code(), StatusCode::UnsupportedVersion);
  EXPECT_EQ(s.message(),
            "plan format v5 is newer than this runtime (v4): rebuild the plan "
            "with kilnc 0.1.x or update the runtime");
  bytes[8] = 0;
  s = openBytes(bytes, reader);
  EXPECT_EQ(s.code(), StatusCode::UnsupportedVersion);
  EXPECT_NE(s.message().find("plan format v0 is not supported"),
            std::string::npos);
}

TEST(PlanReader, RefusesWrongHeaderSize) {
  std::vector<uint8_t> bytes = serialized(makeWriter());
  bytes[12] = 128;
  PlanReader reader;
  EXPECT_EQ(openBytes(bytes, reader).message(),
            "plan is corrupt: header size is 128, expected 64 for format v4");
}

TEST(PlanReader, RefusesTruncatedAndOverlongFiles) {
  std::vector<uint8_t> bytes = serialized(makeWriter());
  size_t full = bytes.size();
  PlanReader reader;
  std::vector<uint8_t> cut(bytes.begin(), bytes.end() - 10);
  EXPECT_EQ(openBytes(cut, reader).message(),
            "plan is truncated: expected " + std::to_string(full) +
                " bytes, got " + std::to_string(full - 10));
  std::vector<uint8_t> header(bytes.begin(), bytes.begin() + 40);
  EXPECT_EQ(
      openBytes(header, reader).message(),
      "plan is truncated: expected at least 64 bytes (the header), got 40");
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  EXPECT_EQ(openBytes(longer, reader).message(),
            "plan is corrupt: 1 unexpected bytes after the payload (expected " +
                std::to_string(full) + " bytes, got " +
                std::to_string(full + 1) + ")");
}

TEST(PlanReader, RefusesChecksumMismatch) {
  std::vector<uint8_t> bytes = serialized(makeWriter());
  bytes[bytes.size() - 1] ^= 1; // a weight byte
  PlanReader reader;
  Status s = openBytes(bytes, reader);
  EXPECT_EQ(s.code(), StatusCode::InvalidPlan);
  EXPECT_EQ(s.message().rfind("plan is corrupt: payload checksum mismatch", 0),
            0u)
      << s.message();
}

TEST(PlanReader, RefusesMisalignedData) {
  std::vector<uint8_t> bytes = serialized(makeWriter());
  std::vector<uint8_t> shifted(bytes.size() + 1);
  std::memcpy(shifted.data() + 1, bytes.data(), bytes.size());
  PlanReader reader;
  EXPECT_EQ(reader.open(shifted.data() + 1, bytes.size()).code(),
            StatusCode::InvalidArgument);
}

//===----------------------------------------------------------------------===//
// Robustness: never crash, always say why
//===----------------------------------------------------------------------===//

TEST(PlanReader, RefusesEveryTruncation) {
  std::vector<uint8_t> bytes = serialized(makeWriter());
  PlanReader reader;
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + n);
    Status s = openBytes(prefix, reader);
    ASSERT_FALSE(s.ok()) << "accepted a plan truncated to " << n << " bytes";
    ASSERT_FALSE(s.message().empty()) << n;
    if (n >= 64) {
      ASSERT_EQ(s.message().rfind("plan is truncated: expected", 0), 0u)
          << n << ": " << s.message();
    }
  }
}

TEST(PlanReader, RefusesRandomByteFlips) {
  std::vector<uint8_t> bytes = serialized(makeWriter());
  std::mt19937_64 rng(20240611);
  PlanReader reader;
  std::set<std::string> messages;
  for (int trial = 0; trial < 600; ++trial) {
    std::vector<uint8_t> copy = bytes;
    // Half of the trials hit the header, half anywhere in the payload.
    int flips = 1 + int(rng() % 4);
    for (int f = 0; f < flips; ++f) {
      size_t at = trial % 2 ? 64 + rng() % (copy.size() - 64) : rng() % 64;
      copy[at] ^= uint8_t(1 + rng() % 255);
    }
    Status s = openBytes(copy, reader);
    ASSERT_FALSE(s.ok()) << "trial " << trial << " accepted a corrupt plan";
    ASSERT_FALSE(s.message().empty());
    messages.insert(s.message().substr(0, 30));
  }
  // Different header fields give different reasons.
  EXPECT_GT(messages.size(), 3u);
}

// With a recomputed checksum, corruption reaches the FlatBuffers verifier and
// the semantic checks. Some edits give another valid plan (a name changes);
// the requirement is that nothing crashes (run under ASan/UBSan) and that
// every refusal says why.
TEST(PlanReader, SurvivesPayloadCorruptionBehindAValidChecksum) {
  EXPECT_GT(openCorrupted(serialized(makeWriter()), 99, 3000,
                          /*randomBytes=*/true, openBytes),
            1000);
}

//===----------------------------------------------------------------------===//
// Semantic checks (writer side and reader side)
//===----------------------------------------------------------------------===//

TEST(PlanWriter, RefusesInconsistentPlans) {
  {
    PlanWriter w = makeWriter();
    Step s;
    s.kernel = 7;
    w.addStep(s);
    EXPECT_PRED2(contains, writeError(w),
                 "step 2 refers to kernel 7, but the plan has 2");
  }
  {
    PlanWriter w = makeWriter();
    Step s;
    s.args = {{0, 0}, {42, 0}};
    w.addStep(s);
    EXPECT_PRED2(contains, writeError(w),
                 "step 2 argument 1 refers to buffer 42, but the plan has 8");
  }
  {
    PlanWriter w = makeWriter();
    Step s;
    s.args = {{0, 33}};
    w.addStep(s);
    EXPECT_PRED2(contains, writeError(w),
                 "step 2 argument 0 has offset 33 past the end of buffer 0 "
                 "(input, 32 bytes)");
  }
  {
    PlanWriter w = makeWriter();
    w.addBuffer(BufferKind::Weight, 64, 64);
    EXPECT_PRED2(contains, writeError(w),
                 "buffer 8 (weight) at offset 64 with 64 bytes exceeds the "
                 "weights section (80 bytes)");
  }
  {
    PlanWriter w = makeWriter();
    w.addBuffer(BufferKind::Activation, 64, 256);
    EXPECT_PRED2(contains, writeError(w), "exceeds the arena (256 bytes)");
  }
  {
    PlanWriter w = makeWriter();
    w.addBuffer(BufferKind::Activation, 8, 4, 8);
    EXPECT_PRED2(contains, writeError(w),
                 "offset 4 that is not a multiple of its alignment 8");
  }
  {
    PlanWriter w = makeWriter();
    w.addBuffer(BufferKind::Scratch, 8, 0, 3);
    EXPECT_PRED2(contains, writeError(w), "has alignment 3");
  }
  {
    PlanWriter w = makeWriter();
    w.addInput(TensorDesc{"x", DType::f32, {1}, {}});
    EXPECT_PRED2(contains, writeError(w), "two inputs/outputs are named 'x'");
  }
  {
    PlanWriter w = makeWriter();
    w.addInput(TensorDesc{"z", DType::f32, {2, -2}, {}});
    EXPECT_PRED2(contains, writeError(w),
                 "input 2 'z' has dimension 1 = -2, expected >= 0 or -1");
  }
  {
    PlanWriter w = makeWriter();
    w.addInput(TensorDesc{"z", DType(99), {2}, {}});
    EXPECT_PRED2(contains, writeError(w), "'z' has invalid dtype 99");
  }
  {
    PlanWriter w = makeWriter();
    w.addInput(TensorDesc{"z", DType::f32, {2, 3}, {"n"}});
    EXPECT_PRED2(contains, writeError(w), "1 dimension names for rank 2");
  }
  {
    PlanWriter w = makeWriter();
    w.addInput(TensorDesc{"z", DType::f64, {1ll << 40, 1ll << 30}, {}});
    EXPECT_PRED2(contains, writeError(w), "'z' is too large");
  }
  {
    PlanWriter w = makeWriter();
    w.addBuffer(BufferKind::Output, 4);
    EXPECT_PRED2(contains, writeError(w),
                 "buffer 8 (output) is bound 0 times, expected once");
  }
  {
    PlanWriter w = makeWriter();
    w.addInputBinding(Binding{TensorDesc{"z", DType::f32, {2}, {}}, 3, 0, {}});
    EXPECT_PRED2(
        contains, writeError(w),
        "input 2 'z' is bound to buffer 3 of kind weight, expected input");
  }
  {
    PlanWriter w = makeWriter();
    uint32_t b = w.addBuffer(BufferKind::Input, 12);
    w.addInputBinding(Binding{TensorDesc{"z", DType::f32, {2}, {}}, b, 0, {}});
    EXPECT_PRED2(contains, writeError(w),
                 "input 2 'z' needs 8 bytes, but buffer 8 has 12");
  }
  {
    PlanWriter w = makeWriter();
    w.addInput(TensorDesc{"axes", DType::i64, {2}, {}}, {1, 2, 3});
    EXPECT_PRED2(contains, writeError(w),
                 "input 2 'axes' has a fixed value of 3 bytes, expected 16");
  }
  {
    PlanWriter w = makeWriter();
    uint32_t b = w.addBuffer(BufferKind::Output, 8);
    w.addOutputBinding(Binding{TensorDesc{"z", DType::f32, {2}, {}}, b, 0,
                               std::vector<uint8_t>(8, 0)});
    EXPECT_PRED2(contains, writeError(w),
                 "output 1 'z' has a fixed value, but only inputs can");
  }
  {
    PlanWriter w = makeWriter();
    uint8_t elf[4] = {0x7f, 'E', 'L', 'F'};
    w.addModule("host", ModuleFormat::Cubin, elf, 4);
    EXPECT_PRED2(contains, writeError(w),
                 "module 2 for target 'host' has format cubin");
  }
  {
    PlanWriter w = makeWriter();
    w.addModule("sm_80", ModuleFormat::Ptx, nullptr, 0);
    EXPECT_PRED2(contains, writeError(w), "module 2 is empty");
  }
  {
    PlanWriter w = makeWriter();
    w.addKernel("k", 5, "sym");
    EXPECT_PRED2(contains, writeError(w),
                 "kernel 2 'k' refers to module 5, but the plan has 2");
  }
  {
    PlanWriter w = makeWriter();
    w.addKernel("k", 0, "");
    EXPECT_PRED2(contains, writeError(w), "kernel 2 'k' has no symbol");
  }
  {
    PlanWriter w = makeWriter();
    Step s;
    s.grid = {0, 1, 1};
    w.addStep(s);
    EXPECT_PRED2(contains, writeError(w),
                 "step 2 (kernel 'add', host) has grid (0, 1, 1) and block "
                 "(1, 1, 1): every dimension must be at least 1");
  }
  {
    PlanWriter w;
    EXPECT_PRED2(contains, writeError(w), "invalid plan: no targets");
  }
}

namespace fbs = kiln::plan::fb;

/// A minimal hand-built plan FlatBuffer; `edit` may break it.
static std::vector<uint8_t>
craft(const std::function<void(flatbuffers::FlatBufferBuilder &,
                               std::vector<flatbuffers::Offset<fbs::Step>> &,
                               std::vector<flatbuffers::Offset<fbs::Buffer>> &,
                               uint64_t &weightsSize)> &edit,
      const std::vector<std::string> &targets = {"host"},
      const std::string &headerVersion = "0.1.0", uint32_t headerDriver = 0) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fbs::Step>> steps;
  std::vector<flatbuffers::Offset<fbs::Buffer>> buffers;
  uint64_t weightsSize = 0;
  edit(fbb, steps, buffers, weightsSize);
  std::vector<uint8_t> so = fakeModule(5, 64);
  auto module = fbs::CreateModule(fbb, fbb.CreateString("host"),
                                  fbs::ModuleFormat::HostSharedObject,
                                  fbb.CreateVector(so));
  auto kernel = fbs::CreateKernel(fbb, fbb.CreateString("k"), 0,
                                  fbb.CreateString("kiln_k"));
  std::vector<flatbuffers::Offset<fbs::Module>> modules = {module};
  std::vector<flatbuffers::Offset<fbs::Kernel>> kernels = {kernel};
  std::vector<std::string> planTargets = {"host"};
  auto plan = fbs::CreatePlan(
      fbb, fbb.CreateString("0.1.0"), fbb.CreateVectorOfStrings(planTargets), 0,
      0, 0, fbb.CreateVector(buffers), 0, 0, weightsSize,
      fbb.CreateVector(modules), fbb.CreateVector(kernels),
      fbb.CreateVector(steps));
  fbs::FinishPlanBuffer(fbb, plan);
  return wrap(fbb, targets, headerVersion, headerDriver, 0);
}

TEST(PlanReader, AppliesSemanticChecksToCraftedPlans) {
  PlanReader reader;
  auto noEdit = [](auto &, auto &, auto &, uint64_t &) {};
  std::vector<uint8_t> ok = craft(noEdit);
  Status s = openBytes(ok, reader);
  ASSERT_TRUE(s.ok()) << s.message();

  std::vector<uint8_t> badKernel =
      craft([](auto &fbb, auto &steps, auto &, uint64_t &) {
        steps.push_back(fbs::CreateStep(fbb, 3));
      });
  EXPECT_EQ(openBytes(badKernel, reader).message(),
            "invalid plan: step 0 refers to kernel 3, but the plan has 1");

  std::vector<uint8_t> badGrid =
      craft([](auto &fbb, auto &steps, auto &, uint64_t &) {
        std::vector<uint32_t> grid = {1, 2};
        steps.push_back(fbs::CreateStep(fbb, 0, 0, fbb.CreateVector(grid)));
      });
  EXPECT_EQ(openBytes(badGrid, reader).message(),
            "invalid plan: step 0 grid has 2 entries, expected 0 or 3");

  std::vector<uint8_t> badKind =
      craft([](auto &fbb, auto &, auto &buffers, uint64_t &) {
        buffers.push_back(fbs::CreateBuffer(fbb, fbs::BufferKind(9), 4));
      });
  EXPECT_EQ(openBytes(badKind, reader).message(),
            "invalid plan: buffer 0 has invalid kind 9");

  std::vector<uint8_t> hugeWeight =
      craft([](auto &fbb, auto &, auto &buffers, uint64_t &) {
        buffers.push_back(
            fbs::CreateBuffer(fbb, fbs::BufferKind::Weight, UINT64_MAX, 64));
      });
  EXPECT_PRED2(contains, openBytes(hugeWeight, reader).message(),
               "exceeds the weights section (0 bytes)");

  std::vector<uint8_t> weightsSize =
      craft([](auto &, auto &, auto &, uint64_t &size) { size = 5; });
  EXPECT_EQ(
      openBytes(weightsSize, reader).message(),
      "plan is corrupt: the plan records 5 bytes of weights, the file has 0");
}

TEST(PlanReader, RefusesFlatBuffersThatReuseTables) {
  // 20000 step offsets at one step of 1000 arguments: 104 KB of FlatBuffer
  // that would expand into 480 MB of arguments.
  std::vector<uint8_t> bytes =
      craft([](auto &fbb, auto &steps, auto &, uint64_t &) {
        std::vector<fbs::Arg> args(1000, fbs::Arg(0, 0, 0));
        auto step = fbs::CreateStep(fbb, 0, fbb.CreateVectorOfStructs(args));
        steps.assign(20000, step);
      });
  PlanReader reader;
  Status s = openBytes(bytes, reader);
  EXPECT_EQ(s.code(), StatusCode::InvalidPlan);
  EXPECT_PRED2(contains, s.message(),
               "plan is corrupt: the FlatBuffer (104280 bytes) expands into "
               "481920316 bytes of tables, more than the 2717056 a plan of its "
               "size can hold: it reuses tables, which kiln writers never do");
}

TEST(PlanReader, CrossChecksHeaderAndPayload) {
  PlanReader reader;
  auto noEdit = [](auto &, auto &, auto &, uint64_t &) {};
  std::vector<uint8_t> mask = craft(noEdit, {"host", "sm_80"});
  EXPECT_EQ(openBytes(mask, reader).message(),
            "plan is corrupt: target mask in the header (host,sm_80) differs "
            "from the payload's targets (host)");
  std::vector<uint8_t> version = craft(noEdit, {"host"}, "9.9.9");
  EXPECT_EQ(openBytes(version, reader).message(),
            "plan is corrupt: compiler version '9.9.9' in the header differs "
            "from '0.1.0' in the payload");
  std::vector<uint8_t> driver = craft(noEdit, {"host"}, "0.1.0", 12000);
  EXPECT_EQ(openBytes(driver, reader).message(),
            "plan is corrupt: minimum driver version in the header (12000) "
            "differs from the payload's (0)");
}

TEST(PlanReader, RefusesBadProvenance) {
  PlanReader reader;
  // Provenance: built by hand, since the writer cannot produce these.
  for (auto [key1, key2, error] :
       {std::tuple<const char *, const char *, const char *>{
            "model.path", "model.path",
            "invalid plan: provenance entry 1 repeats key 'model.path'"},
        {"model.path", "",
         "invalid plan: provenance entry 1 has an empty "
         "key"}}) {
    flatbuffers::FlatBufferBuilder fbb;
    std::vector<uint8_t> so = fakeModule(5, 64);
    auto module = fbs::CreateModule(fbb, fbb.CreateString("host"),
                                    fbs::ModuleFormat::HostSharedObject,
                                    fbb.CreateVector(so));
    std::vector<flatbuffers::Offset<fbs::Module>> modules = {module};
    std::vector<flatbuffers::Offset<fbs::ProvenanceEntry>> entries = {
        fbs::CreateProvenanceEntry(fbb, fbb.CreateString(key1),
                                   fbb.CreateString("a")),
        fbs::CreateProvenanceEntry(fbb, fbb.CreateString(key2),
                                   fbb.CreateString("b"))};
    std::vector<std::string> targets = {"host"};
    auto plan = fbs::CreatePlan(fbb, fbb.CreateString("0.1.0"),
                                fbb.CreateVectorOfStrings(targets), 0, 0, 0, 0,
                                0, 0, 0, fbb.CreateVector(modules), 0, 0, 0, 0,
                                0, fbb.CreateVector(entries));
    fbs::FinishPlanBuffer(fbb, plan);
    std::vector<uint8_t> bytes = wrap(fbb, targets, "0.1.0", 0, 0);
    EXPECT_EQ(openBytes(bytes, reader).message(), error);
  }
}

TEST(PlanIO, ChecksArgumentExtents) {
  {
    PlanWriter w = makeWriter();
    Step s;
    s.args = {{6, 16, 17}}; // activation of 32 bytes
    w.addStep(s);
    EXPECT_EQ(writeError(w),
              "cannot write plan: invalid plan: step 2 argument 0 lets its "
              "kernel touch 17 bytes from offset 16, past the end of buffer 6 "
              "(activation, 32 bytes)");
  }
  {
    // Overflow-safe: offset + extent wraps around 2^64.
    PlanWriter w = makeWriter();
    Step s;
    s.args = {{6, 8, UINT64_MAX - 4}};
    w.addStep(s);
    EXPECT_PRED2(contains, writeError(w),
                 "step 2 argument 0 lets its kernel touch " +
                     std::to_string(UINT64_MAX - 4) + " bytes from offset 8");
  }
  {
    // A stacked weight's first part may be read through to its other parts
    // (buffers 4 and 5 are not stacked: 4 is named by a step).
    PlanWriter w = makeWriter();
    Step s;
    s.args = {{3, 0, 33}};
    w.addStep(s);
    EXPECT_PRED2(contains, writeError(w),
                 "lets its kernel touch 33 bytes from offset 0, past the end "
                 "of buffer 3 (weight, 32 bytes)");
  }
  {
    // Built through validatePlan directly: extent 0 with bytes after it.
    PlanWriter w = makeWriter();
    std::vector<uint8_t> bytes = serialized(w);
    PlanReader reader;
    ASSERT_TRUE(openBytes(bytes, reader).ok());
    Plan p = reader.plan();
    p.steps[0].args[0].extent = 0;
    EXPECT_EQ(validatePlan(p).message(),
              "invalid plan: step 0 argument 0 has extent 0 at offset 0 of "
              "buffer 0 (input, 32 bytes): extents are explicit in a plan "
              "(the writer resolves 0 to the rest of the buffer)");
    p.steps[0].args[0].extent = 32;
    EXPECT_TRUE(validatePlan(p).ok());
  }
}

TEST(PlanIO, ChecksLaunchLimits) {
  // Kernel 1 is the sm_90a one.
  struct Case {
    std::array<uint32_t, 3> grid, block;
    uint32_t shared;
    const char *error; // nullptr: accepted
  };
  const Case cases[] = {
      {{1024, 1, 1}, {1024, 1, 1}, 232448, nullptr},
      {{1, 1, 1}, {1, 1, 64}, 0, nullptr},
      // Within CUDA's limits, but 2^31 blocks for a few bytes of arguments:
      // a corrupt grid that would run for minutes.
      {{2147483647, 1, 1},
       {256, 1, 1},
       0,
       "launches grid (2147483647, 1, 1) x block (256, 1, 1) = 549755813632 "
       "threads for arguments of"},
      {{1, 1, 1},
       {1025, 1, 1},
       0,
       "step 2 (kernel 'add_sm90a', sm_90a) has block (1025, 1, 1): CUDA "
       "allows x and y up to 1024 and z up to 64"},
      {{1, 1, 1}, {1, 1, 65}, 0, "has block (1, 1, 65): CUDA allows"},
      {{1, 1, 1},
       {32, 32, 2},
       0,
       "has block (32, 32, 2) of 2048 threads: CUDA allows at most 1024 per "
       "block"},
      {{2147483648u, 1, 1},
       {1, 1, 1},
       0,
       "has grid (2147483648, 1, 1): CUDA allows x up to 2147483647 and y and "
       "z up to 65535"},
      {{1, 65536, 1}, {1, 1, 1}, 0, "has grid (1, 65536, 1)"},
      {{1, 1, 65536}, {1, 1, 1}, 0, "has grid (1, 1, 65536)"},
      {{1, 1, 1},
       {1, 1, 1},
       232449,
       "step 2 (kernel 'add_sm90a', sm_90a) asks for 232449 bytes of dynamic "
       "shared memory: sm_90a allows at most 232448 (227 KiB) per block"},
  };
  for (const Case &c : cases) {
    PlanWriter w = makeWriter();
    Step s;
    s.kernel = 1;
    s.args = {{6, 0}, {2, 0}, {7, 4}};
    s.grid = c.grid;
    s.block = c.block;
    s.sharedMemBytes = c.shared;
    w.addStep(s);
    if (!c.error) {
      std::vector<uint8_t> bytes;
      Status st = w.serialize(bytes);
      EXPECT_TRUE(st.ok()) << st.message();
    } else {
      EXPECT_PRED2(contains, writeError(w), c.error);
    }
  }
  // Per target: an sm_80 kernel gets 163 KiB.
  PlanWriter w = makeWriter();
  std::vector<uint8_t> cubin = fakeModule(3, 40);
  uint32_t m = w.addModule("sm_80", ModuleFormat::Cubin, cubin.data(), 40);
  Step s;
  s.kernel = w.addKernel("k80", m, "k80");
  s.sharedMemBytes = 163 * 1024 + 1;
  w.addStep(s);
  EXPECT_PRED2(contains, writeError(w),
               "step 2 (kernel 'k80', sm_80) asks for 166913 bytes of dynamic "
               "shared memory: sm_80 allows at most 166912 (163 KiB)");
}

TEST(PlanIO, ChecksKernelSignatures) {
  // A kernel reads as many arguments and dims as it was built for: every
  // step of it must pass exactly those.
  PlanWriter w = makeWriter();
  Step s;
  s.kernel = 0;
  s.args = {{0, 0}, {3, 0}, {6, 0}};
  s.dims = {8, 1, 1};
  w.addStep(s);
  EXPECT_EQ(writeError(w),
            "cannot write plan: invalid plan: step 2 passes 3 arguments and 3 "
            "dims to kernel 0 'add', which takes 6 and 3");
  std::vector<uint8_t> bytes = serialized(makeWriter());
  PlanReader reader;
  ASSERT_TRUE(openBytes(bytes, reader).ok());
  Plan p = reader.plan();
  p.kernels[1].numDims = 1;
  EXPECT_EQ(validatePlan(p).message(),
            "invalid plan: step 1 passes 3 arguments and 0 dims to kernel 1 "
            "'add_sm90a', which takes 3 and 1");
}

TEST(PlanIO, FromPlanKeepsProvenanceAndExtents) {
  std::vector<uint8_t> bytes = serialized(makeWriter());
  PlanReader reader;
  ASSERT_TRUE(openBytes(bytes, reader).ok());
  PlanWriter copy = PlanWriter::fromPlan(reader.plan());
  EXPECT_EQ(copy.provenance(), reader.plan().provenance);
  EXPECT_EQ(serialized(copy), bytes);
  // A tool that rewrites the plan adds its own records after the others.
  copy.addProvenance("refit.time", "2026-02-03T04:05:06Z");
  copy.addProvenance("model.path", "other.onnx");
  std::vector<uint8_t> again = serialized(copy);
  ASSERT_TRUE(openBytes(again, reader).ok());
  ASSERT_EQ(reader.plan().provenance.size(), 4u);
  EXPECT_EQ(reader.plan().provenance[0],
            (ProvenanceEntry{"model.path", "other.onnx"}));
  EXPECT_EQ(reader.plan().provenance[3],
            (ProvenanceEntry{"refit.time", "2026-02-03T04:05:06Z"}));

  PlanWriter empty = makeWriter();
  empty.addProvenance("", "x");
  EXPECT_EQ(writeError(empty), "cannot write plan: invalid plan: provenance "
                               "entry 3 has an empty key");
}

TEST(PlanReader, RefusesAFlatBufferWithoutTheIdentifier) {
  flatbuffers::FlatBufferBuilder fbb;
  auto plan = fbs::CreatePlan(fbb);
  fbb.Finish(plan); // no "KPLN" identifier
  std::vector<uint8_t> bytes = wrap(fbb, {}, "", 0, 0);
  PlanReader reader;
  EXPECT_EQ(openBytes(bytes, reader).message(),
            "plan is corrupt: the FlatBuffer payload failed verification");
}

//===----------------------------------------------------------------------===//
// Atomic writes
//===----------------------------------------------------------------------===//

TEST(PlanWriter, WritesFilesAtomically) {
  TempDir dir;
  fs::path path = dir.path / "model.plan";
  PlanWriter w = makeWriter();
  Status s = w.writeFileAtomically(path.string());
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(slurp(path), serialized(w));
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"model.plan"}));

  // Overwrite with a different plan.
  PlanWriter w2("other");
  std::vector<uint8_t> so = fakeModule(9, 64);
  w2.addModule("host", ModuleFormat::HostSharedObject, so.data(), so.size());
  ASSERT_TRUE(w2.writeFileAtomically(path.string()).ok());
  EXPECT_EQ(slurp(path), serialized(w2));
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"model.plan"}));

  std::vector<uint8_t> fromFile;
  ASSERT_TRUE(readFile(path.string(), fromFile).ok());
  PlanReader reader;
  EXPECT_TRUE(openBytes(fromFile, reader).ok());
}

TEST(PlanWriter, FailedWriteLeavesTheOldFileAndNoTemporary) {
  TempDir dir;
  fs::path path = dir.path / "model.plan";
  PlanWriter small("old");
  std::vector<uint8_t> so = fakeModule(9, 64);
  small.addModule("host", ModuleFormat::HostSharedObject, so.data(), so.size());
  ASSERT_TRUE(small.writeFileAtomically(path.string()).ok());
  std::vector<uint8_t> old = slurp(path);

  // A plan larger than the file size limit: write() fails with EFBIG like on
  // a full disk (this also works as root, unlike a read-only directory).
  PlanWriter big = makeWriter();
  std::vector<uint8_t> weights(1 << 20, 1);
  big.addWeights(weights.data(), weights.size());
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit = {64 * 1024, 64 * 1024};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    Status s = big.writeFileAtomically(path.string());
    bool expected = !s.ok() && s.code() == StatusCode::IOError &&
                    s.message().find("write failed") != std::string::npos;
    ::_exit(expected ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the write did not fail as expected";
  EXPECT_EQ(slurp(path), old);
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"model.plan"}));
}

TEST(PlanWriter, ReportsUnwritablePaths) {
  TempDir dir;
  PlanWriter w = makeWriter();
  // The target is a directory: rename fails, nothing is left behind.
  fs::create_directory(dir.path / "taken");
  fs::path taken = dir.path / "taken";
  Status s = w.writeFileAtomically(taken.string());
  EXPECT_EQ(s.code(), StatusCode::IOError);
  EXPECT_PRED2(contains, s.message(), "rename failed");
  EXPECT_TRUE(fs::is_directory(taken));
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"taken"}));

  s = w.writeFileAtomically((dir.path / "missing" / "model.plan").string());
  EXPECT_EQ(s.code(), StatusCode::IOError);
  EXPECT_PRED2(contains, s.message(), "No such file or directory");
}

TEST(PlanIO, ReadFileReportsErrors) {
  std::vector<uint8_t> bytes;
  Status s = readFile("/nonexistent/kiln.plan", bytes);
  EXPECT_EQ(s.code(), StatusCode::NotFound);
  TempDir dir;
  s = readFile(dir.path.string(), bytes);
  EXPECT_EQ(s.code(), StatusCode::IOError);
  EXPECT_PRED2(contains, s.message(), "Is a directory");
}
