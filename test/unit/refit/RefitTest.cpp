//===- RefitTest.cpp - ONNX tensor reader and refitting of stripped plans -===//

#include "Refit.h"
#include "tools/common/OnnxProto.h"

#include "kiln/Plan/Float16.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace kiln;
using namespace kiln::refit;
using namespace kiln::tools;
using plan::ByteSpan;
namespace fs = std::filesystem;

namespace {

/// Protobuf wire-format writer for hand-made ONNX models.
struct Pb {
  std::vector<uint8_t> b;
  Pb &varint(uint64_t v) {
    while (v >= 0x80) {
      b.push_back(uint8_t(v | 0x80));
      v >>= 7;
    }
    b.push_back(uint8_t(v));
    return *this;
  }
  Pb &tag(uint32_t field, uint32_t wireType) {
    return varint(uint64_t(field) << 3 | wireType);
  }
  Pb &u(uint32_t field, uint64_t v) { return tag(field, 0).varint(v); }
  Pb &bytes(uint32_t field, const void *data, size_t size) {
    tag(field, 2).varint(size);
    const uint8_t *p = static_cast<const uint8_t *>(data);
    b.insert(b.end(), p, p + size);
    return *this;
  }
  Pb &str(uint32_t field, const std::string &s) {
    return bytes(field, s.data(), s.size());
  }
  Pb &msg(uint32_t field, const Pb &m) {
    return bytes(field, m.b.data(), m.b.size());
  }
  Pb &fixed32(uint32_t field, uint32_t v) {
    tag(field, 5);
    for (int i = 0; i < 4; ++i)
      b.push_back(uint8_t(v >> (8 * i)));
    return *this;
  }
};

Pb tensorHeader(const std::string &name, int32_t dtype,
                const std::vector<int64_t> &dims) {
  Pb t;
  for (int64_t d : dims)
    t.u(1, uint64_t(d));
  t.u(2, uint64_t(dtype));
  if (!name.empty())
    t.str(8, name);
  return t;
}

template <typename T> std::vector<uint8_t> asBytes(const std::vector<T> &v) {
  std::vector<uint8_t> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

Pb rawTensor(const std::string &name, int32_t dtype,
             const std::vector<int64_t> &dims,
             const std::vector<uint8_t> &raw) {
  Pb t = tensorHeader(name, dtype, dims);
  t.bytes(9, raw.data(), raw.size());
  return t;
}

Pb constantNode(const std::string &output, const Pb &value,
                const std::string &domain = "") {
  Pb attr;
  attr.str(1, "value").msg(5, value).u(20, 4);
  Pb node;
  node.str(2, output).str(4, "Constant").msg(5, attr);
  if (!domain.empty())
    node.str(7, domain);
  return node;
}

/// ModelProto { ir_version, graph { initializers, nodes } }.
Pb model(const std::vector<Pb> &initializers, const std::vector<Pb> &nodes) {
  Pb graph;
  for (const Pb &n : nodes)
    graph.msg(1, n);
  graph.str(2, "g");
  for (const Pb &t : initializers)
    graph.msg(5, t);
  Pb m;
  m.u(1, 8).str(2, "test").msg(7, graph);
  return m;
}

std::vector<OnnxTensor> list(const Pb &m) {
  std::vector<OnnxTensor> out;
  plan::Status s = listOnnxTensors(ByteSpan{m.b.data(), m.b.size()}, out);
  EXPECT_TRUE(s.ok()) << s.message();
  return out;
}

std::vector<uint8_t> contents(const OnnxTensor &t,
                              const std::string &dir = ".") {
  std::vector<uint8_t> storage;
  ByteSpan span;
  plan::Status s = onnxTensorBytes(t, dir, storage, span);
  EXPECT_TRUE(s.ok()) << s.message();
  return std::vector<uint8_t>(span.data, span.data + span.size);
}

std::string contentsError(const OnnxTensor &t, const std::string &dir = ".") {
  std::vector<uint8_t> storage;
  ByteSpan span;
  plan::Status s = onnxTensorBytes(t, dir, storage, span);
  EXPECT_FALSE(s.ok());
  return s.message();
}

struct TempDir {
  fs::path path;
  TempDir() {
    std::string t =
        (fs::temp_directory_path() / "kiln-refit-test-XXXXXX").string();
    std::vector<char> buf(t.begin(), t.end());
    buf.push_back(0);
    path = ::mkdtemp(buf.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  void write(const std::string &name, const std::vector<uint8_t> &bytes) const {
    std::ofstream out(path / name, std::ios::binary);
    out.write(reinterpret_cast<const char *>(bytes.data()),
              std::streamsize(bytes.size()));
  }
};

std::vector<uint8_t> pattern(uint8_t seed, size_t size) {
  std::vector<uint8_t> bytes(size);
  for (size_t i = 0; i < size; ++i)
    bytes[i] = uint8_t(seed * 31 + i * 7 + (i >> 8));
  return bytes;
}

} // namespace

TEST(OnnxTensors, ListsInitializersAndConstantValues) {
  std::vector<float> w = {1, 2, 3, 4, 5, 6};
  Pb other;
  other.str(1, "x").str(2, "y").str(4, "Relu");
  Pb m = model(
      {rawTensor("w", 1, {2, 3}, asBytes(w))},
      {constantNode("c_out", rawTensor("", 7, {2},
                                       asBytes(std::vector<int64_t>{-1, 7}))),
       other,
       constantNode("custom", rawTensor("", 1, {1}, asBytes(w)),
                    "com.example")});
  std::vector<OnnxTensor> tensors = list(m);
  // In file order: GraphProto.node (field 1) precedes initializer (5).
  ASSERT_EQ(tensors.size(), 2u);
  // Constant values are named after the node's output.
  EXPECT_EQ(tensors[0].name, "c_out");
  EXPECT_EQ(contents(tensors[0]), asBytes(std::vector<int64_t>{-1, 7}));
  EXPECT_EQ(tensors[1].name, "w");
  EXPECT_EQ(tensors[1].dims, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(tensors[1].dataType, 1);
  EXPECT_EQ(tensors[1].byteSize, 24u);
  EXPECT_EQ(contents(tensors[1]), asBytes(w));
}

TEST(OnnxTensors, ConvertsTypedDataFields) {
  // float_data, packed and unpacked.
  Pb packedF = tensorHeader("f", 1, {3});
  std::vector<float> f = {1.5f, -2.f, 3.25f};
  packedF.bytes(4, f.data(), 12);
  Pb unpackedF = tensorHeader("g", 1, {2});
  uint32_t bits[2];
  std::memcpy(bits, f.data(), 8);
  unpackedF.fixed32(4, bits[0]).fixed32(4, bits[1]);
  // FLOAT16 bit patterns and INT8 (negative: a sign-extended varint) go
  // through int32_data.
  Pb half = tensorHeader("h", 10, {2});
  Pb packed;
  packed.varint(0x3c00).varint(0xc000);
  half.msg(5, packed);
  Pb i8 = tensorHeader("i8", 3, {2});
  i8.u(5, uint64_t(int64_t(-3))).u(5, 5);
  Pb i64 = tensorHeader("i64", 7, {2});
  Pb packed64;
  packed64.varint(uint64_t(int64_t(-2))).varint(1ull << 40);
  i64.msg(7, packed64);
  Pb d = tensorHeader("d", 11, {1});
  double dv = 0.125;
  d.bytes(10, &dv, 8);
  Pb u32 = tensorHeader("u32", 12, {1});
  u32.u(11, 0xdeadbeef);
  Pb m = model({packedF, unpackedF, half, i8, i64, d, u32}, {});
  std::vector<OnnxTensor> t = list(m);
  ASSERT_EQ(t.size(), 7u);
  EXPECT_EQ(contents(t[0]), asBytes(f));
  EXPECT_EQ(contents(t[1]), asBytes(std::vector<float>{1.5f, -2.f}));
  EXPECT_EQ(contents(t[2]), (std::vector<uint8_t>{0x00, 0x3c, 0x00, 0xc0}));
  EXPECT_EQ(contents(t[3]), (std::vector<uint8_t>{0xfd, 0x05}));
  EXPECT_EQ(contents(t[4]),
            asBytes(std::vector<int64_t>{-2, int64_t(1) << 40}));
  EXPECT_EQ(contents(t[5]), asBytes(std::vector<double>{0.125}));
  EXPECT_EQ(contents(t[6]), asBytes(std::vector<uint32_t>{0xdeadbeef}));
}

TEST(OnnxTensors, RefusesInconsistentTensors) {
  Pb tooFew = tensorHeader("few", 1, {3});
  std::vector<float> f = {1, 2};
  tooFew.bytes(4, f.data(), 8);
  Pb tooMany = tensorHeader("many", 7, {1});
  tooMany.u(7, 1).u(7, 2);
  Pb wrongField = tensorHeader("wrong", 1, {1});
  wrongField.u(7, 1);
  Pb ragged = tensorHeader("ragged", 1, {1});
  ragged.bytes(4, f.data(), 5);
  // The tensors are views into the model bytes: keep them alive.
  Pb m = model({tooFew, tooMany, wrongField, ragged}, {});
  std::vector<OnnxTensor> t = list(m);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(contentsError(t[0]),
            "malformed ONNX model: tensor 'few' has 2 values, its dims say 3 "
            "(float_data, dims [3])");
  EXPECT_EQ(contentsError(t[1]), "malformed ONNX model: tensor 'many' has "
                                 "more values than its dims say");
  EXPECT_EQ(contentsError(t[2]),
            "malformed ONNX model: tensor 'wrong' of data type 1 stores values "
            "in field 7, expected field 4");
  EXPECT_EQ(contentsError(t[3]),
            "malformed ONNX model: tensor 'ragged' has a packed field of 5 "
            "bytes, not a multiple of 4");

  std::vector<OnnxTensor> out;
  Pb badRaw = model({rawTensor("r", 1, {2}, {1, 2, 3})}, {});
  EXPECT_EQ(listOnnxTensors(ByteSpan{badRaw.b.data(), badRaw.b.size()}, out)
                .message(),
            "malformed ONNX model: tensor 'r' has 3 bytes of raw_data, its "
            "type and dims say 8 (FLOAT [2])");
  Pb noGraph;
  noGraph.u(1, 8).str(2, "x");
  EXPECT_EQ(listOnnxTensors(ByteSpan{noGraph.b.data(), noGraph.b.size()}, out)
                .message(),
            "malformed ONNX model: no graph (is this an ONNX model?)");
  std::vector<uint8_t> text = {'h', 'e', 'l', 'l', 'o'};
  EXPECT_FALSE(listOnnxTensors(ByteSpan{text.data(), text.size()}, out).ok());
}

static Pb externalTensor(const std::string &name,
                         const std::vector<int64_t> &dims,
                         const std::string &location, int64_t offset,
                         int64_t length) {
  Pb t = tensorHeader(name, 1, dims);
  auto entry = [&](const std::string &k, const std::string &v) {
    Pb e;
    e.str(1, k).str(2, v);
    t.msg(13, e);
  };
  entry("location", location);
  if (offset >= 0)
    entry("offset", std::to_string(offset));
  if (length >= 0)
    entry("length", std::to_string(length));
  t.u(14, 1);
  return t;
}

TEST(OnnxTensors, ReadsExternalDataInsideTheModelDirectoryOnly) {
  TempDir dir;
  std::vector<uint8_t> data = pattern(1, 64);
  dir.write("weights.bin", data);
  fs::create_directory(dir.path / "sub");
  dir.write("sub/more.bin", data);
  TempDir outside;
  outside.write("secret.bin", data);
  fs::create_symlink(outside.path / "secret.bin", dir.path / "link.bin");
  std::string d = dir.path.string();

  std::vector<OnnxTensor> t =
      list(model({externalTensor("a", {3}, "weights.bin", 8, 12),
                  externalTensor("b", {2}, "sub/more.bin", -1, -1),
                  externalTensor("c", {1}, "../x.bin", 0, 4),
                  externalTensor("e", {1}, "/etc/passwd", 0, 4),
                  externalTensor("f", {1}, "sub/../../x.bin", 0, 4),
                  externalTensor("g", {1}, "link.bin", 0, 4),
                  externalTensor("h", {16}, "weights.bin", 4, -1),
                  externalTensor("i", {2}, "weights.bin", 0, 12),
                  externalTensor("j", {1}, "missing.bin", 0, 4)},
                 {}));
  ASSERT_EQ(t.size(), 9u);
  EXPECT_EQ(contents(t[0], d),
            std::vector<uint8_t>(data.begin() + 8, data.begin() + 20));
  EXPECT_EQ(contents(t[1], d),
            std::vector<uint8_t>(data.begin(), data.begin() + 8));
  const char *relative = "the path must be relative to the model's "
                         "directory, without '..'";
  EXPECT_EQ(contentsError(t[2], d),
            "tensor 'c': external data '../x.bin': " + std::string(relative));
  EXPECT_EQ(contentsError(t[3], d),
            "tensor 'e': external data '/etc/passwd': " +
                std::string(relative));
  EXPECT_EQ(contentsError(t[4], d), "tensor 'f': external data "
                                    "'sub/../../x.bin': " +
                                        std::string(relative));
  EXPECT_NE(contentsError(t[5], d).find("outside the model's directory"),
            std::string::npos);
  EXPECT_EQ(contentsError(t[6], d),
            "tensor 'h': external data 'weights.bin': offset 4 + 64 bytes "
            "exceeds the file (64 bytes)");
  EXPECT_EQ(contentsError(t[7], d),
            "tensor 'i': external data 'weights.bin': length 12 differs from "
            "the 8 bytes its type and dims say");
  EXPECT_EQ(contentsError(t[8], d), "tensor 'j': external data "
                                    "'missing.bin': No such file or "
                                    "directory");
}

TEST(OnnxTensors, MalformedModelsAreRefusedWithoutCrashing) {
  std::vector<float> w(40, 0.5f);
  Pb half = tensorHeader("h", 10, {2});
  Pb packed;
  packed.varint(0x3c00).varint(0xc000);
  half.msg(5, packed);
  Pb m = model({rawTensor("w", 1, {40}, asBytes(w)), half,
                externalTensor("x", {1}, "nope.bin", 0, 4)},
               {constantNode("c", rawTensor("", 1, {4}, asBytes(w)))});
  auto exercise = [](const std::vector<uint8_t> &bytes) {
    std::vector<OnnxTensor> out;
    plan::Status s = listOnnxTensors(ByteSpan{bytes.data(), bytes.size()}, out);
    if (!s.ok()) {
      EXPECT_FALSE(s.message().empty());
      return false;
    }
    for (const OnnxTensor &t : out) {
      if (t.byteSize > (1 << 20))
        continue;
      std::vector<uint8_t> storage;
      ByteSpan span;
      if (onnxTensorBytes(t, "/nonexistent", storage, span).ok()) {
        EXPECT_EQ(span.size, t.byteSize);
      }
    }
    return true;
  };
  int refused = 0;
  for (size_t cut = 0; cut < m.b.size(); ++cut)
    refused += !exercise(std::vector<uint8_t>(m.b.begin(), m.b.begin() + cut));
  EXPECT_GT(refused, int(m.b.size() / 2));
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 5000; ++trial) {
    std::vector<uint8_t> copy = m.b;
    for (int f = 0; f < 1 + trial % 3; ++f)
      copy[rng() % copy.size()] ^= uint8_t(1 << (rng() % 8));
    exercise(copy);
  }
}

//===----------------------------------------------------------------------===//
// Refit
//===----------------------------------------------------------------------===//

namespace {
/// The same plan with every weight inline or with the big ones stripped.
plan::PlanWriter makePlan(const std::vector<std::vector<uint8_t>> &weights,
                          bool strip) {
  plan::PlanWriter w("kiln-test");
  w.addInput({"x", plan::DType::f32, {4}, {}});
  std::vector<uint8_t> so = pattern(9, 64);
  w.addModule("host", plan::ModuleFormat::HostSharedObject, so.data(),
              so.size());
  for (const auto &bytes : weights) {
    if (strip && bytes.size() >= 64)
      w.addStrippedWeightBuffer(bytes.data(), bytes.size());
    else
      w.addWeightBuffer(bytes.data(), bytes.size());
  }
  return w;
}

std::vector<uint8_t> serialized(const plan::PlanWriter &w) {
  std::vector<uint8_t> bytes;
  plan::Status s = w.serialize(bytes);
  EXPECT_TRUE(s.ok()) << s.message();
  return bytes;
}
} // namespace

TEST(Refit, FillsStrippedWeightsFromEveryKindOfTensor) {
  TempDir dir;
  std::vector<uint8_t> a = pattern(1, 256), b = pattern(2, 128),
                       c = pattern(3, 96), small = pattern(4, 8);
  std::vector<uint8_t> ext(16, 0);
  ext.insert(ext.end(), c.begin(), c.end());
  dir.write("model.data", ext);
  // b as float_data; a both as an initializer and as a Constant; a decoy of
  // b's size with other contents.
  Pb typedB = tensorHeader("b", 1, {32});
  typedB.bytes(4, b.data(), b.size());
  Pb m = model({rawTensor("decoy", 1, {32}, pattern(7, 128)), typedB,
                externalTensor("c", {24}, "model.data", 16, 96)},
               {constantNode("a", rawTensor("", 2, {256}, a))});
  dir.write("model.onnx", m.b);

  // a is used twice (two buffers, one tensor).
  std::vector<std::vector<uint8_t>> weights = {a, small, b, c, a};
  plan::PlanWriter stripped = makePlan(weights, true);
  std::vector<uint8_t> strippedBytes = serialized(stripped);
  plan::PlanReader reader;
  plan::PlanReader::Options options;
  options.allowWeightStripped = true;
  ASSERT_TRUE(
      reader.open(strippedBytes.data(), strippedBytes.size(), options).ok());
  plan::PlanWriter writer = plan::PlanWriter::fromPlan(reader.plan());
  RefitResult result;
  plan::Status s =
      refitFromOnnx((dir.path / "model.onnx").string(), writer, result);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(result.missing.empty());
  EXPECT_EQ(result.filled.size(), 4u);
  EXPECT_EQ(result.tensors, 4u);
  EXPECT_EQ(serialized(writer), serialized(makePlan(weights, false)));

  // A model without c: c's buffer is reported, nothing else changes.
  Pb partial = model({typedB}, {constantNode("a", rawTensor("", 2, {256}, a))});
  dir.write("partial.onnx", partial.b);
  plan::PlanWriter again = plan::PlanWriter::fromPlan(reader.plan());
  s = refitFromOnnx((dir.path / "partial.onnx").string(), again, result);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(result.missing, (std::vector<uint32_t>{4}));

  // Unreadable and malformed models are errors.
  s = refitFromOnnx((dir.path / "none.onnx").string(), again, result);
  EXPECT_EQ(s.code(), plan::StatusCode::NotFound);
  std::vector<uint8_t> junk = {0x3a, 0x7f, 0x01};
  dir.write("junk.onnx", junk);
  s = refitFromOnnx((dir.path / "junk.onnx").string(), again, result);
  EXPECT_NE(s.message().find("malformed ONNX model"), std::string::npos)
      << s.message();
}

namespace {
/// numpy's `v.reshape(dims).transpose(perm)`, flattened.
template <typename T>
std::vector<T> transposed(const std::vector<T> &v,
                          const std::vector<int64_t> &dims,
                          std::array<int, 4> perm) {
  int64_t stride[4] = {0, 0, 0, 1};
  for (int k = 2; k >= 0; --k)
    stride[k] = stride[k + 1] * dims[k + 1];
  std::vector<T> out;
  for (int64_t a = 0; a < dims[perm[0]]; ++a)
    for (int64_t b = 0; b < dims[perm[1]]; ++b)
      for (int64_t c = 0; c < dims[perm[2]]; ++c)
        for (int64_t d = 0; d < dims[perm[3]]; ++d)
          out.push_back(v[a * stride[perm[0]] + b * stride[perm[1]] +
                          c * stride[perm[2]] + d * stride[perm[3]]]);
  return out;
}

template <typename F>
std::vector<uint16_t> halves(const std::vector<float> &v, F convert) {
  std::vector<uint16_t> out;
  for (float f : v)
    out.push_back(convert(f));
  return out;
}

/// `weights` as a weight-stripped plan, reopened and refitted from
/// DIR/model.onnx into `writer`; `result`: what refit did.
void refitStripped(const TempDir &dir,
                   const std::vector<std::vector<uint8_t>> &weights,
                   std::optional<plan::PlanWriter> &writer,
                   RefitResult &result) {
  std::vector<uint8_t> strippedBytes = serialized(makePlan(weights, true));
  plan::PlanReader reader;
  plan::PlanReader::Options options;
  options.allowWeightStripped = true;
  ASSERT_TRUE(
      reader.open(strippedBytes.data(), strippedBytes.size(), options).ok());
  writer.emplace(plan::PlanWriter::fromPlan(reader.plan()));
  plan::Status s =
      refitFromOnnx((dir.path / "model.onnx").string(), *writer, result);
  ASSERT_TRUE(s.ok()) << s.message();
}
} // namespace

TEST(Refit, MatchesFiltersRepackedToOhwi) {
  // w: a 3x3 filter stored OHWI as f16 and as bf16, and (decoy) IOHW as f16;
  // v: stored OHWI as f32; u: a 1x1 filter, whose OHWI bytes are its own.
  std::vector<int64_t> wDims = {4, 3, 3, 3}, vDims = {2, 4, 2, 3},
                       uDims = {8, 2, 1, 1};
  std::vector<float> w(108), v(48), u(16);
  for (size_t i = 0; i < w.size(); ++i)
    w[i] = float(i) * 0.25f - 7.f;
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = float(i * i) - 3.5f;
  for (size_t i = 0; i < u.size(); ++i)
    u[i] = float(i) + 0.5f;
  TempDir dir;
  dir.write("model.onnx", model({rawTensor("w", 1, wDims, asBytes(w)),
                                 rawTensor("v", 1, vDims, asBytes(v)),
                                 rawTensor("u", 1, uDims, asBytes(u))},
                                {})
                              .b);
  std::array<int, 4> ohwi = {0, 2, 3, 1}, iohw = {1, 0, 2, 3};
  std::vector<std::vector<uint8_t>> weights = {
      asBytes(halves(transposed(w, wDims, ohwi), plan::floatToF16)),
      asBytes(halves(transposed(w, wDims, ohwi), plan::floatToBF16)),
      asBytes(transposed(v, vDims, ohwi)), asBytes(u),
      asBytes(halves(transposed(w, wDims, iohw), plan::floatToF16))};

  std::optional<plan::PlanWriter> writer;
  RefitResult result;
  ASSERT_NO_FATAL_FAILURE(refitStripped(dir, weights, writer, result));
  EXPECT_EQ(result.filled, (std::vector<std::pair<uint32_t, std::string>>{
                               {1, "w (as f16, OHWI)"},
                               {2, "w (as bf16, OHWI)"},
                               {3, "v (OHWI)"},
                               {4, "u"}}));
  // A permutation other than OHWI is not matched.
  EXPECT_EQ(result.missing, (std::vector<uint32_t>{5}));
  // The filled buffers hold the right bytes.
  ASSERT_TRUE(
      writer->fillStrippedWeight(5, weights[4].data(), weights[4].size()).ok());
  EXPECT_EQ(serialized(*writer), serialized(makePlan(weights, false)));
}

TEST(Refit, MatchesTransposedMatrices) {
  // kilnc --precision tf32 stores a matmul's constant [K, N] right-hand side
  // as [N, K]. m: a 4x5 matrix stored transposed, and as is; a 3-D tensor
  // of the same size stored with its last two dims swapped is not a matrix
  // transpose kiln-refit tries (decoy).
  std::vector<int64_t> mDims = {4, 5}, tDims = {2, 4, 5};
  std::vector<float> m(20), t(40);
  for (size_t i = 0; i < m.size(); ++i)
    m[i] = float(i) * 1.5f - 4.f;
  for (size_t i = 0; i < t.size(); ++i)
    t[i] = float(i) * 0.5f + 100.f;
  TempDir dir;
  dir.write("model.onnx", model({rawTensor("m", 1, mDims, asBytes(m)),
                                 rawTensor("t", 1, tDims, asBytes(t))},
                                {})
                              .b);
  std::array<int, 4> swap = {0, 1, 3, 2};
  std::vector<std::vector<uint8_t>> weights = {
      asBytes(transposed(m, {1, 1, 4, 5}, swap)), asBytes(m),
      asBytes(transposed(t, {1, 2, 4, 5}, swap))};
  std::optional<plan::PlanWriter> writer;
  RefitResult result;
  ASSERT_NO_FATAL_FAILURE(refitStripped(dir, weights, writer, result));
  EXPECT_EQ(result.filled, (std::vector<std::pair<uint32_t, std::string>>{
                               {2, "m"}, {1, "m (transposed)"}}));
  EXPECT_EQ(result.missing, (std::vector<uint32_t>{3}));
  ASSERT_TRUE(
      writer->fillStrippedWeight(3, weights[2].data(), weights[2].size()).ok());
  EXPECT_EQ(serialized(*writer), serialized(makePlan(weights, false)));
}

TEST(Refit, MatchesWeightsRoundedToTf32) {
  // kilnc --precision tf32 rounds weights to tf32 (add 0x1000, clear the
  // low 13 bits): m stored rounded and transposed, f (a filter) rounded and
  // OHWI, v rounded as is.
  std::vector<int64_t> mDims = {4, 5}, fDims = {2, 2, 2, 2}, vDims = {20};
  std::vector<float> m(20), f(16), v(20);
  for (size_t i = 0; i < m.size(); ++i)
    m[i] = 1.f + float(i) * 0.000123f;
  for (size_t i = 0; i < f.size(); ++i)
    f[i] = -3.f + float(i) * 0.0371f;
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = float(i) / 7.f;
  auto tf32 = [](std::vector<float> x) {
    for (float &e : x) {
      uint32_t u;
      std::memcpy(&u, &e, 4);
      u = (u + 0x1000u) & 0xFFFFE000u;
      std::memcpy(&e, &u, 4);
    }
    return x;
  };
  ASSERT_NE(tf32(m), m);
  TempDir dir;
  dir.write("model.onnx", model({rawTensor("m", 1, mDims, asBytes(m)),
                                 rawTensor("f", 1, fDims, asBytes(f)),
                                 rawTensor("v", 1, vDims, asBytes(v))},
                                {})
                              .b);
  std::vector<std::vector<uint8_t>> weights = {
      asBytes(transposed(tf32(m), {1, 1, 4, 5}, {0, 1, 3, 2})),
      asBytes(transposed(tf32(f), fDims, {0, 2, 3, 1})), asBytes(tf32(v))};
  std::optional<plan::PlanWriter> writer;
  RefitResult result;
  ASSERT_NO_FATAL_FAILURE(refitStripped(dir, weights, writer, result));
  EXPECT_EQ(result.filled, (std::vector<std::pair<uint32_t, std::string>>{
                               {1, "m (as tf32, transposed)"},
                               {2, "f (as tf32, OHWI)"},
                               {3, "v (as tf32)"}}));
  EXPECT_TRUE(result.missing.empty());
  EXPECT_EQ(serialized(*writer), serialized(makePlan(weights, false)));
}

//===----------------------------------------------------------------------===//
// The kiln-refit binary
//===----------------------------------------------------------------------===//

namespace {
struct ToolRun {
  int exitCode = -1;
  std::string output; ///< stdout and stderr together
};

ToolRun kilnRefit(const std::string &args) {
  std::string command =
      "timeout 120 " + std::string(KILN_REFIT_BINARY) + " " + args + " 2>&1";
  ToolRun r;
  FILE *pipe = ::popen(command.c_str(), "r");
  if (!pipe)
    return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0)
    r.output.append(buf, n);
  int status = ::pclose(pipe);
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

std::string slurp(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

/// A stripped plan s.plan and the model m.onnx that refits it, in `dir`.
void writeStrippedPlanAndModel(const TempDir &dir) {
  std::vector<uint8_t> a = pattern(1, 256);
  dir.write("m.onnx", model({rawTensor("a", 2, {256}, a)}, {}).b);
  dir.write("s.plan", serialized(makePlan({a}, true)));
}
} // namespace

TEST(KilnRefit, WritesThePlanOnlyWhereSafe) {
  TempDir dir;
  writeStrippedPlanAndModel(dir);
  std::string d = dir.path.string() + "/";
  std::string args = d + "s.plan --weights-from " + d + "m.onnx -o ";
  std::string model = slurp(dir.path / "m.onnx");
  std::string stripped = slurp(dir.path / "s.plan");
  auto expectError = [](const ToolRun &r, const std::string &message) {
    EXPECT_EQ(r.exitCode, 2) << r.output;
    EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  };
  // Before, -o m.onnx replaced the model with the plan.
  expectError(kilnRefit(args + d + "m.onnx"),
              "kiln-refit: error: cannot write '" + d +
                  "m.onnx': it would overwrite the weights model '" + d +
                  "m.onnx'; give another output path");
  EXPECT_EQ(slurp(dir.path / "m.onnx"), model);
  expectError(kilnRefit(args + d + "s.plan"),
              "it would overwrite the stripped plan '" + d + "s.plan'");
  EXPECT_EQ(slurp(dir.path / "s.plan"), stripped);
  // A device node (our own where we may make one): before, the rename
  // replaced it with a regular file and kiln-refit exited 0.
  std::string device = d + "full";
  if (::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 7)) != 0)
    device = "/dev/full";
  expectError(kilnRefit(args + device), "it is a character device");
  struct stat st;
  ASSERT_EQ(::lstat(device.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  ASSERT_EQ(::mkfifo((d + "fifo").c_str(), 0666), 0);
  expectError(kilnRefit(args + d + "fifo"), "it is a FIFO");
  ASSERT_EQ(::lstat((d + "fifo").c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode));

  // A symbolic link: written through (before, replaced by the plan).
  fs::create_directory(dir.path / "plans");
  dir.write("plans/full.plan", {1, 2, 3});
  fs::create_symlink("plans/full.plan", dir.path / "latest.plan");
  ToolRun r = kilnRefit(args + d + "latest.plan");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_TRUE(fs::is_symlink(dir.path / "latest.plan"));
  // The complete plan, with the refit's provenance entries added.
  std::string written = slurp(dir.path / "plans/full.plan");
  plan::PlanReader reader;
  ASSERT_TRUE(reader.open(written.data(), written.size()).ok());
  plan::Plan content = reader.plan();
  ASSERT_EQ(content.provenance.size(), 2u);
  EXPECT_EQ(content.provenance[0].key, "refit.weights");
  EXPECT_NE(content.provenance[0].value.find("m.onnx sha256 "),
            std::string::npos);
  EXPECT_EQ(content.provenance[1].key, "refit.time");
  content.provenance.clear();
  EXPECT_EQ(serialized(plan::PlanWriter::fromPlan(content)),
            serialized(makePlan({pattern(1, 256)}, false)));

  // A temporary left by a killed writer (a process that is gone) is swept.
  pid_t gone = ::fork();
  if (gone == 0)
    ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  std::string stale = "full.plan.tmp." + std::to_string(gone) + ".0";
  dir.write("plans/" + stale, {9});
  r = kilnRefit(args + d + "plans/full.plan");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_FALSE(fs::exists(dir.path / "plans" / stale));
}

TEST(KilnRefit, RefusesFifosAndBadArguments) {
  TempDir dir;
  writeStrippedPlanAndModel(dir);
  std::string d = dir.path.string() + "/";
  ASSERT_EQ(::mkfifo((d + "fifo").c_str(), 0666), 0);
  struct Case {
    std::string args, error;
  } cases[] = {
      // Before, open() of a FIFO waited for a writer (the timeout's 124).
      {d + "s.plan --weights-from " + d + "fifo --check",
       "cannot read '" + d + "fifo': it is a FIFO, not a regular file"},
      {d + "fifo --weights-from " + d + "m.onnx --check",
       "cannot read '" + d + "fifo': it is a FIFO"},
      {d + "s.plan --weights-from " + d + " --check",
       "cannot read '" + d + "': it is a directory"},
      {d + "s.plan --weights-from " + d + "m.onnx", "-o FULL.plan or --check"},
      {d + "s.plan --weights-from " + d + "m.onnx --check -o x.plan",
       "--check and -o exclude each other"},
      {d + "s.plan --weights-from", "--weights-from needs an ONNX file"},
      {d + "s.plan --weights-from=", "--weights-from needs an ONNX file"},
      {d + "s.plan --weights-from a --weights-from b --check",
       "--weights-from is given twice"},
      {d + "s.plan --check=yes", "--check takes no value"},
      {d + "s.plan " + d + "m.onnx", "more than one plan given"},
      {"--weights-from " + d + "m.onnx --check", "no plan given"},
      {d + "s.plan --weigths-from x --check",
       "unknown option '--weigths-from' (did you mean '--weights-from'?)"},
  };
  for (const Case &c : cases) {
    ToolRun r = kilnRefit(c.args);
    EXPECT_EQ(r.exitCode, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find("kiln-refit: error: " + c.error), std::string::npos)
        << c.args << "\n"
        << r.output;
  }
  ToolRun r = kilnRefit(d + "s.plan --weights-from " + d + "m.onnx --check");
  EXPECT_EQ(r.exitCode, 0) << r.output;
}
