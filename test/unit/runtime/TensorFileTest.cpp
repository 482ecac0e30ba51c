//===- TensorFileTest.cpp - kiln-run's TensorProto/npy codecs and compare -===//

#include "tools/common/TensorFile.h"
#include "TestPlans.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

using namespace kiln::tools;

namespace {

/// Protobuf encoding helpers, to build TensorProtos the way other writers
/// (Python protobuf, onnx.numpy_helper) lay them out.
void varint(std::vector<uint8_t> &out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(uint8_t(v) | 0x80);
    v >>= 7;
  }
  out.push_back(uint8_t(v));
}
void tag(std::vector<uint8_t> &out, unsigned field, unsigned wt) {
  varint(out, field << 3 | wt);
}
void bytesField(std::vector<uint8_t> &out, unsigned field,
                const std::vector<uint8_t> &bytes) {
  tag(out, field, 2);
  varint(out, bytes.size());
  out.insert(out.end(), bytes.begin(), bytes.end());
}
template <typename T> std::vector<uint8_t> raw(const std::vector<T> &values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

Tensor parsePb(const std::vector<uint8_t> &bytes) {
  Tensor t;
  Status s = parseTensorProto(bytes.data(), bytes.size(), "t.pb", t);
  EXPECT_TRUE(s.ok()) << s.message();
  return t;
}

std::string pbError(const std::vector<uint8_t> &bytes) {
  Tensor t;
  Status s = parseTensorProto(bytes.data(), bytes.size(), "t.pb", t);
  EXPECT_FALSE(s.ok());
  return s.message();
}

} // namespace

TEST(TensorProto, ReadsUnpackedDimsAndPackedFloatData) {
  std::vector<uint8_t> pb;
  tag(pb, 1, 0), varint(pb, 2);
  tag(pb, 1, 0), varint(pb, 3);
  tag(pb, 2, 0), varint(pb, 1); // FLOAT
  bytesField(pb, 4, raw<float>({1, 2, 3, 4, 5, 6.5f}));
  bytesField(pb, 8, {'x'});
  tag(pb, 12, 2), varint(pb, 3), pb.insert(pb.end(), {'d', 'o', 'c'});
  Tensor t = parsePb(pb);
  EXPECT_EQ(t.name, "x");
  EXPECT_EQ(t.dtype, DType::f32);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(t.data, raw<float>({1, 2, 3, 4, 5, 6.5f}));
}

TEST(TensorProto, ReadsPackedDimsAndUnpackedFloatData) {
  std::vector<uint8_t> pb, dims;
  varint(dims, 2);
  bytesField(pb, 1, dims);
  tag(pb, 2, 0), varint(pb, 1);
  for (float f : {-1.0f, 0.25f}) {
    tag(pb, 4, 5);
    std::vector<uint8_t> b = raw<float>({f});
    pb.insert(pb.end(), b.begin(), b.end());
  }
  Tensor t = parsePb(pb);
  EXPECT_EQ(t.shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(t.data, raw<float>({-1.0f, 0.25f}));
}

TEST(TensorProto, ReadsTypedFields) {
  {
    std::vector<uint8_t> pb, ints;
    tag(pb, 1, 0), varint(pb, 3);
    tag(pb, 2, 0), varint(pb, 7); // INT64
    for (int64_t v : {int64_t(-5), int64_t(0), int64_t(1) << 40})
      varint(ints, uint64_t(v));
    bytesField(pb, 7, ints);
    EXPECT_EQ(parsePb(pb).data, raw<int64_t>({-5, 0, int64_t(1) << 40}));
  }
  {
    std::vector<uint8_t> pb;
    tag(pb, 1, 0), varint(pb, 2);
    tag(pb, 2, 0), varint(pb, 3); // INT8 in int32_data, unpacked, negative
    tag(pb, 5, 0), varint(pb, uint64_t(int64_t(-3)));
    tag(pb, 5, 0), varint(pb, 100);
    Tensor t = parsePb(pb);
    EXPECT_EQ(t.dtype, DType::i8);
    EXPECT_EQ(t.data, (std::vector<uint8_t>{0xfd, 100}));
  }
  {
    std::vector<uint8_t> pb, bits;
    tag(pb, 1, 0), varint(pb, 1);
    tag(pb, 2, 0), varint(pb, 10); // FLOAT16 bit patterns in int32_data
    varint(bits, 0x3c00);
    bytesField(pb, 5, bits);
    Tensor t = parsePb(pb);
    EXPECT_EQ(t.dtype, DType::f16);
    EXPECT_EQ(elementAsDouble(t, 0), 1.0);
  }
  {
    std::vector<uint8_t> pb;
    tag(pb, 2, 0), varint(pb, 11); // DOUBLE scalar (no dims)
    bytesField(pb, 10, raw<double>({3.25}));
    Tensor t = parsePb(pb);
    EXPECT_TRUE(t.shape.empty());
    EXPECT_EQ(elementAsDouble(t, 0), 3.25);
  }
  {
    std::vector<uint8_t> pb, values;
    tag(pb, 1, 0), varint(pb, 1);
    tag(pb, 2, 0), varint(pb, 12); // UINT32 in uint64_data
    varint(values, 4000000000u);
    bytesField(pb, 11, values);
    EXPECT_EQ(parsePb(pb).data, raw<uint32_t>({4000000000u}));
  }
}

TEST(TensorProto, RoundTripsEveryDType) {
  for (unsigned d = 0; d < kiln::plan::kNumDTypes; ++d) {
    Tensor t;
    t.name = "tensor";
    t.dtype = DType(d);
    t.shape = std::vector<int64_t>{2, 3};
    std::mt19937_64 rng(d);
    fillRandom(t, rng);
    std::vector<uint8_t> bytes = serializeTensorProto(t);
    Tensor back = parsePb(bytes);
    EXPECT_EQ(back.name, t.name);
    EXPECT_EQ(back.dtype, t.dtype) << d;
    EXPECT_EQ(back.shape, t.shape);
    EXPECT_EQ(back.data, t.data);
  }
  Tensor empty;
  empty.shape = std::vector<int64_t>{0, 4};
  EXPECT_EQ(parsePb(serializeTensorProto(empty)).shape, empty.shape);
}

TEST(TensorProto, RefusesBadInput) {
  std::vector<uint8_t> pb;
  tag(pb, 1, 0), varint(pb, 4);
  tag(pb, 2, 0), varint(pb, 1);
  bytesField(pb, 4, raw<float>({1, 2, 3}));
  EXPECT_EQ(pbError(pb),
            "t.pb: the tensor has 3 values, its dims say 4 (float_data, dims "
            "[4])");

  std::vector<uint8_t> rawSize;
  tag(rawSize, 1, 0), varint(rawSize, 4);
  tag(rawSize, 2, 0), varint(rawSize, 1);
  bytesField(rawSize, 9, std::vector<uint8_t>(15));
  EXPECT_EQ(pbError(rawSize),
            "t.pb: the tensor has 15 bytes of raw_data, its type and dims say "
            "16 (FLOAT [4])");

  std::vector<uint8_t> str;
  tag(str, 2, 0), varint(str, 8);
  EXPECT_EQ(pbError(str), "t.pb: string tensors are not supported");

  std::vector<uint8_t> ext;
  tag(ext, 2, 0), varint(ext, 1);
  tag(ext, 14, 0), varint(ext, 1);
  EXPECT_EQ(pbError(ext), "t.pb: the tensor has external data without a "
                          "location");
  std::vector<uint8_t> located = ext, entry;
  bytesField(entry, 1, {'l', 'o', 'c', 'a', 't', 'i', 'o', 'n'});
  bytesField(entry, 2, {'x', '.', 'b', 'i', 'n'});
  bytesField(located, 13, entry);
  EXPECT_EQ(pbError(located),
            "t.pb: the tensor: external data 'x.bin': external data is read "
            "relative to a file's directory; this tensor did not come from a "
            "file");

  std::vector<uint8_t> complex;
  tag(complex, 2, 0), varint(complex, 14);
  EXPECT_EQ(pbError(complex),
            "t.pb: TensorProto data type COMPLEX64 is not supported");

  std::vector<uint8_t> truncated = {0x0a, 0x05, 0x01};
  EXPECT_EQ(pbError(truncated),
            "t.pb: field 1 of a TensorProto claims 5 bytes, only 1 remain");

  // Random bytes: never crash.
  std::mt19937_64 rng(1);
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<uint8_t> junk(rng() % 40);
    for (uint8_t &b : junk)
      b = uint8_t(rng());
    Tensor t;
    (void)parseTensorProto(junk.data(), junk.size(), "junk", t);
  }
}

TEST(TensorProto, ReadsExternalDataNextToTheFile) {
  // The shared ONNX reader gives tensor files what models have: data in a
  // file beside them (offset and length as onnx.external_data_helper writes).
  kiln::test::TempDir dir;
  std::vector<uint8_t> payload = raw<float>({9, 1.5f, -2, 4});
  ASSERT_TRUE(writeBytes(dir.file("x.bin"), payload).ok());
  std::vector<uint8_t> pb, location, offset, length;
  tag(pb, 1, 0), varint(pb, 3);
  tag(pb, 2, 0), varint(pb, 1);
  bytesField(location, 1, {'l', 'o', 'c', 'a', 't', 'i', 'o', 'n'});
  bytesField(location, 2, {'x', '.', 'b', 'i', 'n'});
  bytesField(pb, 13, location);
  bytesField(offset, 1, {'o', 'f', 'f', 's', 'e', 't'});
  bytesField(offset, 2, {'4'});
  bytesField(pb, 13, offset);
  bytesField(length, 1, {'l', 'e', 'n', 'g', 't', 'h'});
  bytesField(length, 2, {'1', '2'});
  bytesField(pb, 13, length);
  tag(pb, 14, 0), varint(pb, 1);
  ASSERT_TRUE(writeBytes(dir.file("x.pb"), pb).ok());
  Tensor t;
  Status s = readTensorFile(dir.file("x.pb"), t);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(t.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(t.data, raw<float>({1.5f, -2, 4}));

  // Paths out of the file's directory are refused, as for models.
  std::vector<uint8_t> escape = pb;
  std::vector<uint8_t> outside;
  bytesField(outside, 1, {'l', 'o', 'c', 'a', 't', 'i', 'o', 'n'});
  bytesField(outside, 2, {'.', '.', '/', 'x'});
  bytesField(escape, 13, outside);
  ASSERT_TRUE(writeBytes(dir.file("escape.pb"), escape).ok());
  s = readTensorFile(dir.file("escape.pb"), t);
  EXPECT_EQ(s.message(), dir.file("escape.pb") +
                             ": the tensor: external data '../x': the path "
                             "must be relative to the model's directory, "
                             "without '..'");
}

TEST(Npy, ReadsVersions1And2) {
  Tensor t;
  t.dtype = DType::i32;
  t.shape = std::vector<int64_t>{2, 3};
  t.data = raw<int32_t>({1, -2, 3, -4, 5, -6});
  std::vector<uint8_t> bytes;
  ASSERT_TRUE(serializeNpy(t, bytes).ok());
  EXPECT_EQ((bytes.size() - t.data.size()) % 64, 0u);
  Tensor back;
  Status s = parseNpy(bytes.data(), bytes.size(), "a.npy", back);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(back.dtype, DType::i32);
  EXPECT_EQ(back.shape, t.shape);
  EXPECT_EQ(back.data, t.data);

  // Version 2 header (4-byte length), 1-D shape "(3,)", bool.
  std::string header =
      "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }\n";
  std::vector<uint8_t> v2 = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0};
  uint32_t len = uint32_t(header.size());
  for (int i = 0; i < 4; ++i)
    v2.push_back(uint8_t(len >> (8 * i)));
  v2.insert(v2.end(), header.begin(), header.end());
  v2.insert(v2.end(), {1, 0, 1});
  s = parseNpy(v2.data(), v2.size(), "b.npy", back);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(back.dtype, DType::boolean);
  EXPECT_EQ(back.shape, (std::vector<int64_t>{3}));

  // Scalar.
  Tensor scalar;
  scalar.dtype = DType::f64;
  scalar.data = raw<double>({2.5});
  ASSERT_TRUE(serializeNpy(scalar, bytes).ok());
  ASSERT_TRUE(parseNpy(bytes.data(), bytes.size(), "c.npy", back).ok());
  EXPECT_TRUE(back.shape.empty());
  EXPECT_EQ(elementAsDouble(back, 0), 2.5);
}

TEST(Npy, RefusesWhatItCannotRead) {
  auto npy = [](const std::string &header, size_t dataBytes) {
    const uint8_t prefix[10] = {
        0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, uint8_t(header.size()), 0};
    std::vector<uint8_t> out(10 + header.size() + dataBytes, 0);
    std::memcpy(out.data(), prefix, 10);
    std::memcpy(out.data() + 10, header.data(), header.size());
    return out;
  };
  auto error = [](const std::vector<uint8_t> &bytes) {
    Tensor t;
    Status s = parseNpy(bytes.data(), bytes.size(), "x.npy", t);
    EXPECT_FALSE(s.ok());
    return s.message();
  };
  EXPECT_EQ(
      error(
          npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", 8)),
      "x.npy: numpy dtype '>f4' is not supported (little-endian numeric "
      "or bool only)");
  EXPECT_EQ(
      error(npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", 8)),
      "x.npy: Fortran-ordered arrays are not supported");
  EXPECT_EQ(
      error(npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
                8)),
      "x.npy: the .npy data has 8 bytes, shape [2, 2] of f32 needs 16");
  EXPECT_EQ(
      error(
          npy("{'descr': '<U3', 'fortran_order': False, 'shape': (2,), }", 8)),
      "x.npy: numpy dtype '<U3' is not supported (little-endian numeric "
      "or bool only)");
  std::vector<uint8_t> notNpy = {'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(error(notNpy), "x.npy: not a .npy file (bad magic)");
}

TEST(SmallFloats, HalfRoundTripsEveryValue) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    float f = halfToFloat(uint16_t(h));
    if (std::isnan(f))
      continue;
    ASSERT_EQ(floatToHalf(f), h) << std::hex << h;
  }
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00); // rounds up to infinity
  EXPECT_EQ(floatToHalf(65519.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(1.0f + 1.0f / 2048), 0x3c00); // tie to even
  EXPECT_EQ(floatToHalf(1.0f + 3.0f / 2048), 0x3c02);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000); // tie to even zero
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002);
  EXPECT_TRUE(std::isnan(halfToFloat(floatToHalf(NAN))));
}

TEST(SmallFloats, Bf16AndF8) {
  EXPECT_EQ(floatToBf16(1.0f), 0x3f80);
  EXPECT_EQ(bf16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(floatToBf16(1.0f + 1.0f / 256), 0x3f80); // tie to even
  EXPECT_EQ(floatToBf16(1.0f + 3.0f / 256), 0x3f82);
  EXPECT_EQ(f8e4m3fnToFloat(0x38), 1.0f);
  EXPECT_EQ(f8e4m3fnToFloat(0x7e), 448.0f);
  EXPECT_EQ(f8e4m3fnToFloat(0x01), std::ldexp(1.0f, -9));
  EXPECT_TRUE(std::isnan(f8e4m3fnToFloat(0x7f)));
  EXPECT_EQ(f8e5m2ToFloat(0x3c), 1.0f);
  EXPECT_EQ(f8e5m2ToFloat(0x7b), 57344.0f);
  EXPECT_TRUE(std::isinf(f8e5m2ToFloat(0x7c)));
}

TEST(Random, IsDeterministicAndInRange) {
  for (unsigned d = 0; d < kiln::plan::kNumDTypes; ++d) {
    Tensor a, b;
    a.dtype = b.dtype = DType(d);
    a.shape = std::vector<int64_t>{1000};
    b.shape = a.shape;
    std::mt19937_64 r1(42), r2(42);
    fillRandom(a, r1);
    fillRandom(b, r2);
    EXPECT_EQ(a.data, b.data);
    bool isFloat = d <= unsigned(DType::f64) || DType(d) == DType::f8e4m3fn ||
                   DType(d) == DType::f8e5m2;
    double lo = 1e9, hi = -1e9;
    for (uint64_t i = 0; i < 1000; ++i) {
      double v = elementAsDouble(a, i);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    if (isFloat) {
      EXPECT_GE(lo, -1.0) << d;
      EXPECT_LT(hi, 1.0) << d;
      EXPECT_LT(lo, -0.5) << d;
    } else if (DType(d) == DType::boolean) {
      EXPECT_EQ(lo, 0.0);
      EXPECT_EQ(hi, 1.0);
    } else {
      EXPECT_EQ(lo, 0.0) << d;
      EXPECT_EQ(hi, 9.0) << d;
    }
  }
  // Pinned values: the same seed gives the same inputs on every platform.
  Tensor t;
  t.shape = std::vector<int64_t>{2};
  std::mt19937_64 rng(0);
  fillRandom(t, rng);
  EXPECT_FLOAT_EQ(float(elementAsDouble(t, 0)), -0.68041325f);
}

TEST(Compare, AppliesTolerancesAndNaNRules) {
  auto tensor = [](std::vector<float> v) {
    Tensor t;
    t.shape = std::vector<int64_t>{int64_t(v.size())};
    t.data = raw<float>(v);
    return t;
  };
  const float inf = std::numeric_limits<float>::infinity();
  Tensor expected = tensor({1.0f, 100.0f, NAN, inf, 0.0f});
  CompareResult r = compareTensors(tensor({1.0f, 100.05f, NAN, inf, 0.0f}),
                                   expected, 1e-3, 0);
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.elements, 5u);
  EXPECT_NEAR(r.maxAbsErr, 0.05, 1e-5);
  EXPECT_NEAR(r.maxRelErr, 0.0005, 1e-7);

  r = compareTensors(tensor({1.0f, 100.2f, 0.0f, -inf, 1e-8f}), expected, 1e-3,
                     1e-7);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.mismatches, 3u); // 100.2, NaN vs 0, -inf vs inf; 1e-8 is in atol
  EXPECT_EQ(r.nanMismatches, 1u);
  EXPECT_EQ(r.firstMismatch, 1);

  r = compareTensors(tensor({1, 2}), tensor({1, 2, 3}), 0, 0);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error, "shape [2] differs from the reference's [3]");

  Tensor ints;
  ints.dtype = DType::i64;
  ints.shape = std::vector<int64_t>{2};
  ints.data = raw<int64_t>({INT64_MAX, 5});
  Tensor ints2 = ints;
  ints2.data = raw<int64_t>({INT64_MAX - 1, 5});
  EXPECT_EQ(compareTensors(ints, ints2, 0, 0).mismatches, 1u); // exact
  EXPECT_TRUE(compareTensors(ints, ints2, 0, 1).ok());
  Tensor f64 = ints;
  f64.dtype = DType::f64;
  EXPECT_EQ(compareTensors(ints, f64, 0, 0).error,
            "dtype i64 differs from the reference's f64");
}
