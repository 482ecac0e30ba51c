//===- TensorFile.cpp - TensorProto/npy codecs, comparison, random data ---===//

#include "TensorFile.h"

#include "kiln/Runtime/Runtime.h"

#include <algorithm>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>

#include <fcntl.h>
#include <unistd.h>

using namespace kiln::run;
namespace plan = kiln::plan;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "kiln-run reads and writes little-endian tensors in place"
#endif

std::optional<uint64_t> Tensor::numElements() const {
  plan::TensorDesc desc;
  desc.shape = shape;
  return desc.numElements();
}

std::string kiln::run::shapeToString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

static Status bad(const std::string &source, const std::string &message) {
  return Status(StatusCode::InvalidArgument, source + ": " + message);
}

//===----------------------------------------------------------------------===//
// ONNX data types
//===----------------------------------------------------------------------===//

// onnx.TensorProto.DataType values.
enum : int32_t {
  kOnnxFloat = 1,
  kOnnxUint8 = 2,
  kOnnxInt8 = 3,
  kOnnxUint16 = 4,
  kOnnxInt16 = 5,
  kOnnxInt32 = 6,
  kOnnxInt64 = 7,
  kOnnxString = 8,
  kOnnxBool = 9,
  kOnnxFloat16 = 10,
  kOnnxDouble = 11,
  kOnnxUint32 = 12,
  kOnnxUint64 = 13,
  kOnnxBfloat16 = 16,
  kOnnxFloat8E4M3FN = 17,
  kOnnxFloat8E5M2 = 19,
};

std::optional<DType> kiln::run::dtypeFromOnnx(int32_t t) {
  switch (t) {
  case kOnnxFloat:
    return DType::f32;
  case kOnnxUint8:
    return DType::u8;
  case kOnnxInt8:
    return DType::i8;
  case kOnnxUint16:
    return DType::u16;
  case kOnnxInt16:
    return DType::i16;
  case kOnnxInt32:
    return DType::i32;
  case kOnnxInt64:
    return DType::i64;
  case kOnnxBool:
    return DType::boolean;
  case kOnnxFloat16:
    return DType::f16;
  case kOnnxDouble:
    return DType::f64;
  case kOnnxUint32:
    return DType::u32;
  case kOnnxUint64:
    return DType::u64;
  case kOnnxBfloat16:
    return DType::bf16;
  case kOnnxFloat8E4M3FN:
    return DType::f8e4m3fn;
  case kOnnxFloat8E5M2:
    return DType::f8e5m2;
  default:
    return std::nullopt;
  }
}

int32_t kiln::run::onnxFromDType(DType d) {
  switch (d) {
  case DType::f32:
    return kOnnxFloat;
  case DType::f16:
    return kOnnxFloat16;
  case DType::bf16:
    return kOnnxBfloat16;
  case DType::f64:
    return kOnnxDouble;
  case DType::i8:
    return kOnnxInt8;
  case DType::u8:
    return kOnnxUint8;
  case DType::i16:
    return kOnnxInt16;
  case DType::u16:
    return kOnnxUint16;
  case DType::i32:
    return kOnnxInt32;
  case DType::i64:
    return kOnnxInt64;
  case DType::u32:
    return kOnnxUint32;
  case DType::u64:
    return kOnnxUint64;
  case DType::boolean:
    return kOnnxBool;
  case DType::f8e4m3fn:
    return kOnnxFloat8E4M3FN;
  case DType::f8e5m2:
    return kOnnxFloat8E5M2;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Protobuf wire format (just what onnx.TensorProto needs)
//===----------------------------------------------------------------------===//

namespace {
class WireReader {
public:
  WireReader(const uint8_t *p, size_t n) : p_(p), end_(p + n) {}
  bool done() const { return p_ == end_; }
  size_t remaining() const { return size_t(end_ - p_); }

  bool varint(uint64_t &v) {
    v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
      if (p_ == end_)
        return false;
      uint8_t b = *p_++;
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80))
        return true;
    }
    return false; // more than 10 bytes
  }
  bool fixed(void *out, size_t n) {
    if (remaining() < n)
      return false;
    std::memcpy(out, p_, n);
    p_ += n;
    return true;
  }
  bool bytes(const uint8_t *&data, size_t &n) {
    uint64_t len;
    if (!varint(len) || len > remaining())
      return false;
    data = p_;
    n = size_t(len);
    p_ += len;
    return true;
  }
  /// Skips a field of wire type `wt`; groups (3, 4) are not supported.
  bool skip(unsigned wt) {
    uint64_t v;
    const uint8_t *d;
    size_t n;
    uint8_t buf[8];
    switch (wt) {
    case 0:
      return varint(v);
    case 1:
      return fixed(buf, 8);
    case 2:
      return bytes(d, n);
    case 5:
      return fixed(buf, 4);
    default:
      return false;
    }
  }

private:
  const uint8_t *p_;
  const uint8_t *end_;
};

/// Collects a repeated scalar field that may be packed (wt 2) or not.
template <typename T> struct Repeated {
  std::vector<T> values;
  /// kind: 0 = varint, 4 = fixed32, 8 = fixed64.
  bool read(WireReader &r, unsigned wt, int kind) {
    if (wt == 2) {
      const uint8_t *d;
      size_t n;
      if (!r.bytes(d, n))
        return false;
      WireReader inner(d, n);
      while (!inner.done())
        if (!one(inner, kind))
          return false;
      return true;
    }
    unsigned expected = kind == 0 ? 0 : kind == 4 ? 5 : 1;
    return wt == expected && one(r, kind);
  }
  bool one(WireReader &r, int kind) {
    if (kind == 0) {
      uint64_t v;
      if (!r.varint(v))
        return false;
      values.push_back(T(v));
      return true;
    }
    T v;
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "");
    if (size_t(kind) != sizeof(T) || !r.fixed(&v, sizeof(T)))
      return false;
    values.push_back(v);
    return true;
  }
};

void putVarint(std::vector<uint8_t> &out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(uint8_t(v) | 0x80);
    v >>= 7;
  }
  out.push_back(uint8_t(v));
}

void putTag(std::vector<uint8_t> &out, unsigned field, unsigned wt) {
  putVarint(out, (uint64_t(field) << 3) | wt);
}
} // namespace

/// Copies `values` into `out` converting each to `elemSize` bytes
/// (truncation keeps the low bytes: the TensorProto convention for int32_data
/// carrying 8/16-bit types).
template <typename T>
static void packValues(const std::vector<T> &values, size_t elemSize,
                       std::vector<uint8_t> &out) {
  out.resize(values.size() * elemSize);
  for (size_t i = 0; i < values.size(); ++i)
    std::memcpy(out.data() + i * elemSize, &values[i], elemSize);
}

Status kiln::run::parseTensorProto(const uint8_t *data, size_t size,
                                   const std::string &source, Tensor &out) {
  out = Tensor();
  WireReader r(data, size);
  Repeated<int64_t> dims, int64Data;
  Repeated<float> floatData;
  Repeated<int32_t> int32Data;
  Repeated<double> doubleData;
  Repeated<uint64_t> uint64Data;
  int32_t dataType = 0;
  const uint8_t *raw = nullptr;
  size_t rawSize = 0;
  bool hasRaw = false, hasStrings = false, external = false;
  while (!r.done()) {
    uint64_t tag;
    if (!r.varint(tag))
      return bad(source, "not a valid TensorProto (truncated field tag)");
    unsigned field = unsigned(tag >> 3), wt = unsigned(tag & 7);
    bool ok = true;
    switch (field) {
    case 1:
      ok = dims.read(r, wt, 0);
      break;
    case 2: {
      uint64_t v = 0;
      ok = wt == 0 && r.varint(v);
      dataType = int32_t(v);
      break;
    }
    case 4:
      ok = floatData.read(r, wt, 4);
      break;
    case 5:
      ok = int32Data.read(r, wt, 0);
      break;
    case 6:
      hasStrings = true;
      ok = r.skip(wt);
      break;
    case 7:
      ok = int64Data.read(r, wt, 0);
      break;
    case 8: {
      const uint8_t *s;
      size_t n;
      ok = wt == 2 && r.bytes(s, n);
      if (ok)
        out.name.assign(reinterpret_cast<const char *>(s), n);
      break;
    }
    case 9:
      ok = wt == 2 && r.bytes(raw, rawSize);
      hasRaw = ok;
      break;
    case 10:
      ok = doubleData.read(r, wt, 8);
      break;
    case 11:
      ok = uint64Data.read(r, wt, 0);
      break;
    case 13:
      external = true;
      ok = r.skip(wt);
      break;
    case 14: {
      uint64_t v = 0;
      ok = wt == 0 && r.varint(v);
      external |= v == 1;
      break;
    }
    default:
      ok = r.skip(wt);
      break;
    }
    if (!ok)
      return bad(source, "not a valid TensorProto (bad field " +
                             std::to_string(field) + ")");
  }
  if (external)
    return bad(source, "tensors with external data are not supported");
  if (hasStrings || dataType == kOnnxString)
    return bad(source, "string tensors are not supported");
  std::optional<DType> dtype = dtypeFromOnnx(dataType);
  if (!dtype)
    return bad(source, "TensorProto data type " + std::to_string(dataType) +
                           " is not supported");
  out.dtype = *dtype;
  out.shape = dims.values;
  std::optional<uint64_t> count = out.numElements();
  size_t elem = plan::dtypeSize(out.dtype);
  if (!count || *count > uint64_t(INT64_MAX) / elem)
    return bad(source, "invalid shape " + shapeToString(out.shape));

  std::string what = "tensor";
  size_t values = 0;
  if (hasRaw) {
    if (rawSize != *count * elem)
      return bad(source, "raw_data has " + std::to_string(rawSize) +
                             " bytes, shape " + shapeToString(out.shape) +
                             " of " + plan::dtypeName(out.dtype) + " needs " +
                             std::to_string(*count * elem));
    out.data.assign(raw, raw + rawSize);
    return Status::success();
  }
  switch (out.dtype) {
  case DType::f32:
    packValues(floatData.values, elem, out.data);
    values = floatData.values.size();
    what = "float_data";
    break;
  case DType::f64:
    packValues(doubleData.values, elem, out.data);
    values = doubleData.values.size();
    what = "double_data";
    break;
  case DType::i64:
    packValues(int64Data.values, elem, out.data);
    values = int64Data.values.size();
    what = "int64_data";
    break;
  case DType::u32:
  case DType::u64:
    packValues(uint64Data.values, elem, out.data);
    values = uint64Data.values.size();
    what = "uint64_data";
    break;
  default: // 8/16/32-bit integers, bool, f16/bf16/f8 bit patterns
    packValues(int32Data.values, elem, out.data);
    values = int32Data.values.size();
    what = "int32_data";
    break;
  }
  if (values != *count)
    return bad(source, what + " has " + std::to_string(values) +
                           " values, shape " + shapeToString(out.shape) +
                           " has " + std::to_string(*count) + " elements");
  return Status::success();
}

std::vector<uint8_t> kiln::run::serializeTensorProto(const Tensor &t) {
  std::vector<uint8_t> out;
  for (int64_t d : t.shape) {
    putTag(out, 1, 0);
    putVarint(out, uint64_t(d));
  }
  putTag(out, 2, 0);
  putVarint(out, uint64_t(onnxFromDType(t.dtype)));
  if (!t.name.empty()) {
    putTag(out, 8, 2);
    putVarint(out, t.name.size());
    out.insert(out.end(), t.name.begin(), t.name.end());
  }
  putTag(out, 9, 2);
  putVarint(out, t.data.size());
  out.insert(out.end(), t.data.begin(), t.data.end());
  return out;
}

//===----------------------------------------------------------------------===//
// .npy
//===----------------------------------------------------------------------===//

/// Value of `'key':` in a numpy header dict, up to the next top-level comma
/// or closing brace.
static std::optional<std::string> npyField(const std::string &header,
                                           const std::string &key) {
  size_t k = header.find("'" + key + "'");
  if (k == std::string::npos)
    return std::nullopt;
  size_t colon = header.find(':', k);
  if (colon == std::string::npos)
    return std::nullopt;
  size_t i = colon + 1;
  while (i < header.size() && header[i] == ' ')
    ++i;
  size_t end = i;
  int depth = 0;
  while (end < header.size()) {
    char c = header[end];
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if ((c == ',' || c == '}') && depth == 0)
      break;
    ++end;
  }
  std::string value = header.substr(i, end - i);
  while (!value.empty() && value.back() == ' ')
    value.pop_back();
  return value;
}

static std::optional<DType> npyDType(const std::string &descr) {
  if (descr.size() < 3)
    return std::nullopt;
  char order = descr[0];
  std::string type = descr.substr(1);
  static const struct {
    const char *name;
    DType dtype;
  } table[] = {{"f2", DType::f16}, {"f4", DType::f32}, {"f8", DType::f64},
               {"i1", DType::i8},  {"i2", DType::i16}, {"i4", DType::i32},
               {"i8", DType::i64}, {"u1", DType::u8},  {"u2", DType::u16},
               {"u4", DType::u32}, {"u8", DType::u64}, {"b1", DType::boolean}};
  for (const auto &e : table)
    if (type == e.name) {
      bool byteSized = plan::dtypeSize(e.dtype) == 1;
      if (order == '<' || order == '=' || (order == '|' && byteSized))
        return e.dtype;
      return std::nullopt;
    }
  return std::nullopt;
}

static const char *npyDescr(DType d) {
  switch (d) {
  case DType::f16:
    return "<f2";
  case DType::f32:
    return "<f4";
  case DType::f64:
    return "<f8";
  case DType::i8:
    return "|i1";
  case DType::i16:
    return "<i2";
  case DType::i32:
    return "<i4";
  case DType::i64:
    return "<i8";
  case DType::u8:
    return "|u1";
  case DType::u16:
    return "<u2";
  case DType::u32:
    return "<u4";
  case DType::u64:
    return "<u8";
  case DType::boolean:
    return "|b1";
  default:
    return nullptr;
  }
}

Status kiln::run::parseNpy(const uint8_t *data, size_t size,
                           const std::string &source, Tensor &out) {
  out = Tensor();
  static const uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size < 10 || std::memcmp(data, kMagic, 6) != 0)
    return bad(source, "not a .npy file (bad magic)");
  uint8_t major = data[6];
  size_t headerLen, start;
  if (major == 1) {
    headerLen = size_t(data[8]) | size_t(data[9]) << 8;
    start = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12)
      return bad(source, "truncated .npy header");
    headerLen = size_t(data[8]) | size_t(data[9]) << 8 |
                size_t(data[10]) << 16 | size_t(data[11]) << 24;
    start = 12;
  } else {
    return bad(source, ".npy format version " + std::to_string(major) +
                           " is not supported");
  }
  if (headerLen > size - start)
    return bad(source, "truncated .npy header");
  std::string header(reinterpret_cast<const char *>(data + start), headerLen);
  std::optional<std::string> descr = npyField(header, "descr");
  std::optional<std::string> fortran = npyField(header, "fortran_order");
  std::optional<std::string> shape = npyField(header, "shape");
  if (!descr || !fortran || !shape || descr->size() < 2 ||
      (*descr)[0] != '\'' || descr->back() != '\'' || shape->empty() ||
      (*shape)[0] != '(' || shape->back() != ')')
    return bad(source, "cannot parse the .npy header " + header);
  std::string d = descr->substr(1, descr->size() - 2);
  std::optional<DType> dtype = npyDType(d);
  if (!dtype)
    return bad(source, "numpy dtype '" + d +
                           "' is not supported (little-endian numeric or bool "
                           "only)");
  if (*fortran != "False")
    return bad(source, "Fortran-ordered arrays are not supported");
  out.dtype = *dtype;
  std::string dims = shape->substr(1, shape->size() - 2);
  size_t i = 0;
  while (i < dims.size()) {
    while (i < dims.size() && (dims[i] == ' ' || dims[i] == ','))
      ++i;
    if (i == dims.size())
      break;
    size_t end = i;
    while (end < dims.size() && dims[end] >= '0' && dims[end] <= '9')
      ++end;
    if (end == i || end - i > 18)
      return bad(source, "cannot parse the .npy shape " + *shape);
    out.shape.push_back(std::stoll(dims.substr(i, end - i)));
    i = end;
  }
  std::optional<uint64_t> count = out.numElements();
  size_t elem = plan::dtypeSize(out.dtype);
  size_t payload = size - start - headerLen;
  if (!count || *count > uint64_t(INT64_MAX) / elem || payload != *count * elem)
    return bad(source, "the .npy data has " + std::to_string(payload) +
                           " bytes, shape " + shapeToString(out.shape) +
                           " of " + plan::dtypeName(out.dtype) + " needs " +
                           (count ? std::to_string(*count * elem) : "?"));
  out.data.assign(data + start + headerLen, data + size);
  return Status::success();
}

Status kiln::run::serializeNpy(const Tensor &t, std::vector<uint8_t> &out) {
  const char *descr = npyDescr(t.dtype);
  if (!descr)
    return Status(StatusCode::InvalidArgument,
                  std::string("numpy has no dtype for ") +
                      plan::dtypeName(t.dtype));
  std::string shape = "(";
  for (size_t i = 0; i < t.shape.size(); ++i)
    shape += std::to_string(t.shape[i]) + (t.shape.size() == 1 ? "," : "") +
             (i + 1 < t.shape.size() ? ", " : "");
  shape += ")";
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad so that the data starts at a multiple of 64 bytes, as numpy does.
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  out.assign({0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0});
  out.push_back(uint8_t(header.size()));
  out.push_back(uint8_t(header.size() >> 8));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), t.data.begin(), t.data.end());
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

Status kiln::run::readTensorFile(const std::string &path, Tensor &out) {
  std::vector<uint8_t> bytes;
  if (Status s = plan::readFile(path, bytes); !s)
    return s;
  bool npy = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0;
  return npy ? parseNpy(bytes.data(), bytes.size(), path, out)
             : parseTensorProto(bytes.data(), bytes.size(), path, out);
}

Status kiln::run::writeBytes(const std::string &path,
                             const std::vector<uint8_t> &bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0)
    return Status(StatusCode::IOError,
                  "cannot create '" + path + "': " + std::strerror(errno));
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int err = n == 0 ? EIO : errno;
      ::close(fd);
      return Status(StatusCode::IOError,
                    "cannot write '" + path + "': " + std::strerror(err));
    }
    done += size_t(n);
  }
  if (::close(fd) != 0)
    return Status(StatusCode::IOError,
                  "cannot write '" + path + "': " + std::strerror(errno));
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Small floats
//===----------------------------------------------------------------------===//

static float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

static uint32_t floatToBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

float kiln::run::halfToFloat(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  if (exp == 0x1f)
    return bitsToFloat(sign | 0x7f800000 | (mant << 13));
  if (exp == 0) {
    float v = std::ldexp(float(mant), -24);
    return sign ? -v : v;
  }
  return bitsToFloat(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t kiln::run::floatToHalf(float f) {
  uint32_t u = floatToBits(f);
  uint16_t sign = uint16_t((u >> 16) & 0x8000);
  uint32_t absBits = u & 0x7fffffff;
  if (absBits > 0x7f800000) // NaN: keep it quiet
    return uint16_t(sign | 0x7e00);
  if (absBits >= 0x477ff000) // rounds to >= 65520: overflow to inf
    return uint16_t(sign | 0x7c00);
  if (absBits < 0x38800000) { // below the smallest normal half: subnormal
    // Round |f| * 2^24 to the nearest integer, ties to even.
    float scaled = bitsToFloat(absBits) * 16777216.0f;
    return uint16_t(sign | uint16_t(std::nearbyint(scaled)));
  }
  uint32_t rounded = absBits + 0xfff + ((absBits >> 13) & 1);
  return uint16_t(sign | ((rounded - (112u << 23)) >> 13));
}

float kiln::run::bf16ToFloat(uint16_t b) {
  return bitsToFloat(uint32_t(b) << 16);
}

uint16_t kiln::run::floatToBf16(float f) {
  uint32_t u = floatToBits(f);
  if ((u & 0x7fffffff) > 0x7f800000)
    return uint16_t((u >> 16) | 0x40);
  return uint16_t((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

float kiln::run::f8e4m3fnToFloat(uint8_t v) {
  bool neg = v & 0x80;
  unsigned exp = (v >> 3) & 0xf, mant = v & 7;
  float r;
  if (exp == 0xf && mant == 7)
    r = std::numeric_limits<float>::quiet_NaN();
  else if (exp == 0)
    r = std::ldexp(float(mant), -9);
  else
    r = std::ldexp(float(8 + mant), int(exp) - 10);
  return neg ? -r : r;
}

float kiln::run::f8e5m2ToFloat(uint8_t v) {
  return halfToFloat(uint16_t(uint16_t(v) << 8));
}

double kiln::run::elementAsDouble(const Tensor &t, uint64_t i) {
  const uint8_t *p = t.data.data() + i * plan::dtypeSize(t.dtype);
  auto load = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  switch (t.dtype) {
  case DType::f32:
    return load(float());
  case DType::f64:
    return load(double());
  case DType::f16:
    return halfToFloat(load(uint16_t()));
  case DType::bf16:
    return bf16ToFloat(load(uint16_t()));
  case DType::f8e4m3fn:
    return f8e4m3fnToFloat(*p);
  case DType::f8e5m2:
    return f8e5m2ToFloat(*p);
  case DType::i8:
    return load(int8_t());
  case DType::u8:
    return load(uint8_t());
  case DType::i16:
    return load(int16_t());
  case DType::u16:
    return load(uint16_t());
  case DType::i32:
    return load(int32_t());
  case DType::u32:
    return load(uint32_t());
  case DType::i64:
    return double(load(int64_t()));
  case DType::u64:
    return double(load(uint64_t()));
  case DType::boolean:
    return *p ? 1.0 : 0.0;
  }
  return 0;
}

//===----------------------------------------------------------------------===//
// Random inputs and comparison
//===----------------------------------------------------------------------===//

static bool isFloat(DType d) {
  return d == DType::f32 || d == DType::f64 || d == DType::f16 ||
         d == DType::bf16 || d == DType::f8e4m3fn || d == DType::f8e5m2;
}

/// Nearest 8-bit float encoding of `x` (table search: exact and simple).
static uint8_t nearestF8(float x, float (*decode)(uint8_t)) {
  uint8_t best = 0;
  float bestErr = std::numeric_limits<float>::infinity();
  for (unsigned v = 0; v < 256; ++v) {
    float d = decode(uint8_t(v));
    if (std::isnan(d) || d < -1.0f || d >= 1.0f) // stay in [-1, 1)
      continue;
    float err = std::fabs(d - x);
    if (err < bestErr) {
      bestErr = err;
      best = uint8_t(v);
    }
  }
  return best;
}

void kiln::run::fillRandom(Tensor &t, std::mt19937_64 &rng) {
  uint64_t n = t.numElements().value_or(0);
  size_t elem = plan::dtypeSize(t.dtype);
  t.data.assign(size_t(n * elem), 0);
  for (uint64_t i = 0; i < n; ++i) {
    uint8_t *p = t.data.data() + i * elem;
    uint64_t r = rng();
    if (isFloat(t.dtype)) {
      // Top 53 bits -> [0, 1) -> [-1, 1); no std:: distribution, whose
      // algorithm differs between standard libraries.
      double x = double(r >> 11) * 0x1.0p-53 * 2.0 - 1.0;
      float f = float(x);
      if (f >= 1.0f) // float rounding of values just below 1
        f = std::nextafter(1.0f, 0.0f);
      switch (t.dtype) {
      case DType::f32:
        std::memcpy(p, &f, 4);
        break;
      case DType::f64:
        std::memcpy(p, &x, 8);
        break;
      case DType::f16: {
        uint16_t h = floatToHalf(f);
        if (halfToFloat(h) >= 1.0f)
          h = 0x3bff; // largest half below 1
        std::memcpy(p, &h, 2);
        break;
      }
      case DType::bf16: {
        uint16_t b = floatToBf16(f);
        if (bf16ToFloat(b) >= 1.0f)
          b = 0x3f7f;
        std::memcpy(p, &b, 2);
        break;
      }
      case DType::f8e4m3fn:
        *p = nearestF8(f, f8e4m3fnToFloat);
        break;
      case DType::f8e5m2:
        *p = nearestF8(f, f8e5m2ToFloat);
        break;
      default:
        break;
      }
    } else if (t.dtype == DType::boolean) {
      *p = uint8_t(r >> 63);
    } else {
      uint64_t v = (r >> 32) % 10;
      std::memcpy(p, &v, elem); // little-endian: low bytes hold the value
    }
  }
}

bool kiln::run::makeSeededInputs(const std::vector<runtime::TensorInfo> &infos,
                                 uint64_t seed, std::vector<Tensor> &out,
                                 std::string &error) {
  std::mt19937_64 rng(seed);
  out.assign(infos.size(), Tensor());
  for (size_t i = 0; i < infos.size(); ++i) {
    // (TensorInfo::isDynamic, without linking the runtime.)
    if (std::any_of(infos[i].shape.begin(), infos[i].shape.end(),
                    [](int64_t d) { return d < 0; })) {
      error = "input '" + infos[i].name + "' has a dynamic shape " +
              shapeToString(infos[i].shape) +
              "; random data needs a static shape";
      return false;
    }
    out[i].name = infos[i].name;
    out[i].dtype = infos[i].dtype;
    out[i].shape = infos[i].shape;
    if (!infos[i].fixedValue.empty())
      // Random data would be refused: the plan only runs this value.
      out[i].data = infos[i].fixedValue;
    else
      fillRandom(out[i], rng);
  }
  return true;
}

/// Integer elements as long double: exact for 64-bit values on x86 (and on
/// targets whose long double is binary128).
static long double integerAt(const Tensor &t, uint64_t i) {
  const uint8_t *p = t.data.data() + i * plan::dtypeSize(t.dtype);
  if (t.dtype == DType::i64) {
    int64_t v;
    std::memcpy(&v, p, 8);
    return (long double)v;
  }
  if (t.dtype == DType::u64) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return (long double)v;
  }
  return (long double)elementAsDouble(t, i);
}

CompareResult kiln::run::compareTensors(const Tensor &actual,
                                        const Tensor &expected, double rtol,
                                        double atol) {
  CompareResult r;
  if (actual.dtype != expected.dtype) {
    r.error = std::string("dtype ") + plan::dtypeName(actual.dtype) +
              " differs from the reference's " +
              plan::dtypeName(expected.dtype);
    return r;
  }
  if (actual.shape != expected.shape) {
    r.error = "shape " + shapeToString(actual.shape) +
              " differs from the reference's " + shapeToString(expected.shape);
    return r;
  }
  uint64_t n = expected.numElements().value_or(0);
  size_t elem = plan::dtypeSize(expected.dtype);
  if (actual.data.size() != n * elem || expected.data.size() != n * elem) {
    r.error = "data size does not match the shape";
    return r;
  }
  r.elements = n;
  bool floating = isFloat(expected.dtype);
  for (uint64_t i = 0; i < n; ++i) {
    long double a, b;
    if (floating) {
      a = elementAsDouble(actual, i);
      b = elementAsDouble(expected, i);
    } else {
      a = integerAt(actual, i);
      b = integerAt(expected, i);
    }
    bool match;
    if (std::isnan(a) || std::isnan(b)) {
      match = std::isnan(a) && std::isnan(b);
      if (!match)
        ++r.nanMismatches;
    } else if (a == b) {
      match = true; // also equal infinities
    } else if (std::isinf(a) || std::isinf(b)) {
      match = false; // the formula would admit any value against an infinity
      r.maxAbsErr = r.maxRelErr = std::numeric_limits<double>::infinity();
    } else {
      long double absErr = std::fabs(a - b);
      long double relErr = b != 0
                               ? absErr / std::fabs(b)
                               : std::numeric_limits<long double>::infinity();
      r.maxAbsErr = std::max(r.maxAbsErr, double(absErr));
      r.maxRelErr = std::max(r.maxRelErr, double(relErr));
      match = absErr <= (long double)atol + (long double)rtol * std::fabs(b);
    }
    if (!match) {
      if (r.firstMismatch < 0)
        r.firstMismatch = int64_t(i);
      ++r.mismatches;
    }
  }
  return r;
}
