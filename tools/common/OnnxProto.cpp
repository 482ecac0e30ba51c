//===- OnnxProto.cpp - Protobuf wire-format reader for ONNX tensors -------===//

#include "tools/common/OnnxProto.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace kiln;
using namespace kiln::tools;
using plan::ByteSpan;
using plan::Status;
using plan::StatusCode;

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "ONNX raw_data is little-endian; so are the plans");

static Status malformed(const std::string &origin, const std::string &message) {
  return Status(StatusCode::InvalidArgument, origin + ": " + message);
}

/// "tensor 'w'", or "the tensor" for one without a name.
static std::string label(const std::string &name) {
  return name.empty() ? std::string("the tensor") : "tensor '" + name + "'";
}

namespace {
enum WireType : uint32_t {
  Varint = 0,
  Fixed64 = 1,
  LengthDelimited = 2,
  Fixed32 = 5
};

/// One field of a protobuf message.
struct Field {
  uint32_t number = 0;
  uint32_t wireType = 0;
  uint64_t varint = 0; ///< Varint fields
  ByteSpan bytes;      ///< LengthDelimited payload, Fixed32/64 bytes
};

/// Iterates over the fields of one message; every read is bounds-checked.
class WireReader {
public:
  /// `origin` starts the messages of malformed input.
  WireReader(ByteSpan span, const std::string &origin)
      : p_(span.data), end_(span.data + span.size), origin_(origin) {}

  bool done() const { return p_ == end_; }

  /// Reads the next field; an error (with `what` naming the message) on
  /// truncation, overlong varints, groups or unknown wire types.
  Status next(Field &f, const char *what) {
    uint64_t key;
    if (!varint(key))
      return malformed(std::string("truncated field key in ") + what);
    if ((key >> 3) == 0 || (key >> 3) > 0x1fffffff)
      return malformed(std::string("invalid field number in ") + what);
    f.number = uint32_t(key >> 3);
    f.wireType = uint32_t(key & 7);
    switch (f.wireType) {
    case Varint:
      if (!varint(f.varint))
        return malformed(std::string("truncated varint in ") + what);
      return Status::success();
    case Fixed64:
    case Fixed32: {
      size_t n = f.wireType == Fixed64 ? 8 : 4;
      if (size_t(end_ - p_) < n)
        return malformed(std::string("truncated fixed-size field in ") + what);
      f.bytes = ByteSpan{p_, n};
      p_ += n;
      return Status::success();
    }
    case LengthDelimited: {
      uint64_t len;
      if (!varint(len))
        return malformed(std::string("truncated length in ") + what);
      if (len > uint64_t(end_ - p_))
        return malformed(std::string("field ") + std::to_string(f.number) +
                         " of " + what + " claims " + std::to_string(len) +
                         " bytes, only " + std::to_string(end_ - p_) +
                         " remain");
      f.bytes = ByteSpan{p_, size_t(len)};
      p_ += len;
      return Status::success();
    }
    default:
      return malformed(std::string("unsupported wire type ") +
                       std::to_string(f.wireType) + " in " + what);
    }
  }

  /// Reads a base-128 varint of at most 10 bytes.
  bool varint(uint64_t &v) {
    v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
      if (p_ == end_)
        return false;
      uint8_t b = *p_++;
      if (shift == 63 && b > 1)
        return false;
      v |= uint64_t(b & 0x7f) << shift;
      if (!(b & 0x80))
        return true;
    }
    return false;
  }

private:
  Status malformed(const std::string &message) const {
    return ::malformed(origin_, message);
  }

  const uint8_t *p_;
  const uint8_t *end_;
  const std::string &origin_;
};
} // namespace

static std::string text(ByteSpan s) {
  return std::string(reinterpret_cast<const char *>(s.data), s.size);
}

std::string kiln::tools::onnxTypeName(int32_t dataType) {
  static const char *const kNames[] = {
      "UNDEFINED",      "FLOAT",      "UINT8",
      "INT8",           "UINT16",     "INT16",
      "INT32",          "INT64",      "STRING",
      "BOOL",           "FLOAT16",    "DOUBLE",
      "UINT32",         "UINT64",     "COMPLEX64",
      "COMPLEX128",     "BFLOAT16",   "FLOAT8E4M3FN",
      "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ",
      "UINT4",          "INT4"};
  if (dataType >= 0 && size_t(dataType) < std::size(kNames))
    return kNames[dataType];
  return "data type " + std::to_string(dataType);
}

uint64_t kiln::tools::onnxElementSize(int32_t dataType) {
  switch (dataType) {
  case kOnnxFloat:
  case kOnnxInt32:
  case kOnnxUint32:
    return 4;
  case kOnnxUint8:
  case kOnnxInt8:
  case kOnnxBool:
  case kOnnxFloat8E4M3FN:
  case kOnnxFloat8E4M3FNUZ:
  case kOnnxFloat8E5M2:
  case kOnnxFloat8E5M2FNUZ:
    return 1;
  case kOnnxUint16:
  case kOnnxInt16:
  case kOnnxFloat16:
  case kOnnxBfloat16:
    return 2;
  case kOnnxInt64:
  case kOnnxDouble:
  case kOnnxUint64:
  case kOnnxComplex64:
    return 8;
  case kOnnxComplex128:
    return 16;
  default: // STRING, 4-bit types, unknown
    return 0;
  }
}

std::optional<plan::DType> kiln::tools::dtypeFromOnnx(int32_t t) {
  using plan::DType;
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

int32_t kiln::tools::onnxFromDType(plan::DType d) {
  using plan::DType;
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
  return kOnnxUndefined;
}

/// "[2, 3]".
static std::string dimsText(const std::vector<int64_t> &dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

Status kiln::tools::parseOnnxTensor(ByteSpan bytes,
                                    const std::string &fallbackName,
                                    const std::string &origin, OnnxTensor &t) {
  t = OnnxTensor();
  t.origin = origin;
  WireReader r(bytes, origin);
  Field f;
  bool hasLocation = false;
  // A field whose wire type does not match onnx.proto is an unknown field to
  // protobuf, which skips it; so does this reader (the typed data fields are
  // checked when converted).
  while (!r.done()) {
    if (Status s = r.next(f, "a TensorProto"); !s)
      return s;
    switch (f.number) {
    case 1: // dims
      if (f.wireType == Varint) {
        t.dims.push_back(int64_t(f.varint));
      } else if (f.wireType == LengthDelimited) {
        WireReader packed(f.bytes, origin);
        uint64_t v;
        while (!packed.done()) {
          if (!packed.varint(v))
            return malformed(origin, "truncated packed dims in a TensorProto");
          t.dims.push_back(int64_t(v));
        }
      }
      break;
    case 2: // data_type
      if (f.wireType == Varint)
        t.dataType = int32_t(f.varint);
      break;
    case 4:  // float_data
    case 5:  // int32_data
    case 7:  // int64_data
    case 10: // double_data
    case 11: // uint64_data
      t.typed.push_back({f.number, f.wireType, f.bytes, f.varint});
      break;
    case 6: // string_data
      t.hasStrings = true;
      break;
    case 8: // name
      if (f.wireType == LengthDelimited)
        t.name = text(f.bytes);
      break;
    case 9: // raw_data
      if (f.wireType == LengthDelimited) {
        t.hasRaw = true;
        t.raw = f.bytes;
      }
      break;
    case 13: { // external_data: StringStringEntryProto {key = 1, value = 2}
      if (f.wireType != LengthDelimited)
        break;
      WireReader entry(f.bytes, origin);
      std::string key, value;
      Field e;
      while (!entry.done()) {
        if (Status s = entry.next(e, "an external_data entry"); !s)
          return s;
        if (e.wireType == LengthDelimited && e.number == 1)
          key = text(e.bytes);
        else if (e.wireType == LengthDelimited && e.number == 2)
          value = text(e.bytes);
      }
      if (key == "location") {
        t.location = value;
        hasLocation = true;
      } else if (key == "offset" || key == "length") {
        char *endp = nullptr;
        errno = 0;
        unsigned long long v = value.empty() || value[0] == '-'
                                   ? 0
                                   : std::strtoull(value.c_str(), &endp, 10);
        if (value.empty() || value[0] == '-' || errno || !endp || *endp)
          return malformed(origin, "external_data " + key + " '" + value +
                                       "' is not a non-negative integer");
        (key == "offset" ? t.externalOffset : t.externalLength) = v;
        if (key == "length")
          t.hasExternalLength = true;
      }
      break;
    }
    case 14: // data_location: DEFAULT = 0, EXTERNAL = 1
      if (f.wireType == Varint)
        t.external = f.varint == 1;
      break;
    default:
      break;
    }
  }
  if (t.name.empty())
    t.name = fallbackName;
  if (t.external && !hasLocation)
    return malformed(origin,
                     label(t.name) + " has external data without a location");
  for (int64_t d : t.dims)
    if (d < 0)
      return malformed(origin, label(t.name) + " has a negative dimension " +
                                   std::to_string(d));
  uint64_t elem = onnxElementSize(t.dataType);
  uint64_t n = elem;
  for (int64_t d : t.dims) {
    if (d != 0 && n > UINT64_MAX / uint64_t(d))
      return malformed(origin, label(t.name) + " of " +
                                   onnxTypeName(t.dataType) + " " +
                                   dimsText(t.dims) + " is too large");
    n *= uint64_t(d);
  }
  t.byteSize = n;
  if (t.hasRaw && elem && !t.external && t.raw.size != n)
    return malformed(origin,
                     label(t.name) + " has " + std::to_string(t.raw.size) +
                         " bytes of raw_data, its type and dims say " +
                         std::to_string(n) + " (" + onnxTypeName(t.dataType) +
                         " " + dimsText(t.dims) + ")");
  return Status::success();
}

static const char *const kModelOrigin = "malformed ONNX model";

/// A Constant node's `value` tensor, if it has one.
static Status parseNode(ByteSpan bytes, std::vector<OnnxTensor> &out) {
  const std::string origin = kModelOrigin;
  WireReader r(bytes, origin);
  Field f;
  std::string opType, domain, output;
  std::vector<ByteSpan> attributes;
  while (!r.done()) {
    if (Status s = r.next(f, "a NodeProto"); !s)
      return s;
    if (f.wireType != LengthDelimited)
      continue;
    if (f.number == 2 && output.empty()) // output
      output = text(f.bytes);
    else if (f.number == 4) // op_type
      opType = text(f.bytes);
    else if (f.number == 7) // domain
      domain = text(f.bytes);
    else if (f.number == 5) // attribute
      attributes.push_back(f.bytes);
  }
  if (opType != "Constant" || !(domain.empty() || domain == "ai.onnx"))
    return Status::success();
  for (ByteSpan a : attributes) {
    WireReader ar(a, origin);
    std::string name;
    ByteSpan tensor;
    bool hasTensor = false;
    while (!ar.done()) {
      if (Status s = ar.next(f, "an AttributeProto"); !s)
        return s;
      if (f.wireType == LengthDelimited && f.number == 1)
        name = text(f.bytes);
      else if (f.wireType == LengthDelimited && f.number == 5) {
        tensor = f.bytes;
        hasTensor = true;
      }
    }
    if (name == "value" && hasTensor) {
      OnnxTensor t;
      if (Status s = parseOnnxTensor(tensor, output, origin, t); !s)
        return s;
      out.push_back(std::move(t));
    }
  }
  return Status::success();
}

Status kiln::tools::listOnnxTensors(ByteSpan model,
                                    std::vector<OnnxTensor> &out) {
  out.clear();
  const std::string origin = kModelOrigin;
  WireReader r(model, origin);
  Field f;
  bool hasGraph = false;
  while (!r.done()) {
    if (Status s = r.next(f, "the ModelProto"); !s)
      return s;
    if (f.number != 7 || f.wireType != LengthDelimited) // graph
      continue;
    hasGraph = true;
    WireReader g(f.bytes, origin);
    Field gf;
    while (!g.done()) {
      if (Status s = g.next(gf, "the GraphProto"); !s)
        return s;
      if (gf.wireType != LengthDelimited)
        continue;
      if (gf.number == 5) { // initializer
        OnnxTensor t;
        if (Status s = parseOnnxTensor(gf.bytes, "", origin, t); !s)
          return s;
        out.push_back(std::move(t));
      } else if (gf.number == 1) { // node
        if (Status s = parseNode(gf.bytes, out); !s)
          return s;
      }
    }
  }
  if (!hasGraph)
    return malformed(origin, "no graph (is this an ONNX model?)");
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Tensor contents
//===----------------------------------------------------------------------===//

/// Appends the low `size` bytes of `v` (little-endian).
static void appendLow(std::vector<uint8_t> &out, uint64_t v, size_t size) {
  for (size_t i = 0; i < size; ++i)
    out.push_back(uint8_t(v >> (8 * i)));
}

/// TensorProto's typed data fields by number.
static const char *const kTypedFieldNames[] = {
    "", "",           "", "", "float_data",  "int32_data",
    "", "int64_data", "", "", "double_data", "uint64_data"};

/// Converts the typed fields. ONNX stores 8/16-bit types (and FLOAT16,
/// BFLOAT16, FLOAT8) one per int32_data entry, UINT32 per uint64_data entry.
static Status typedBytes(const OnnxTensor &t, std::vector<uint8_t> &out) {
  auto malformed = [&](const std::string &message) {
    return ::malformed(t.origin, message);
  };
  const std::string tensor = label(t.name);
  uint64_t elem = onnxElementSize(t.dataType);
  uint32_t expectedField;
  size_t valueSize; // bytes each stored value contributes
  switch (t.dataType) {
  case 1:
  case 14:
    expectedField = 4, valueSize = 4;
    break;
  case 11:
  case 15:
    expectedField = 10, valueSize = 8;
    break;
  case 7:
    expectedField = 7, valueSize = 8;
    break;
  case 12:
  case 13:
    expectedField = 11, valueSize = size_t(elem);
    break;
  default:
    expectedField = 5, valueSize = size_t(elem);
    break;
  }
  out.clear();
  bool fixed = expectedField == 4 || expectedField == 10;
  for (const OnnxTensor::Typed &f : t.typed) {
    if (f.field != expectedField)
      return malformed(tensor + " of data type " + std::to_string(t.dataType) +
                       " stores values in field " + std::to_string(f.field) +
                       ", expected field " + std::to_string(expectedField));
    auto tooMany = [&] {
      return malformed(tensor + " has more values than its dims say");
    };
    if (fixed) {
      if (f.wireType == LengthDelimited) {
        if (f.bytes.size % valueSize)
          return malformed(tensor + " has a packed field of " +
                           std::to_string(f.bytes.size) +
                           " bytes, not a multiple of " +
                           std::to_string(valueSize));
        if (f.bytes.size > t.byteSize - out.size())
          return tooMany();
        out.insert(out.end(), f.bytes.data, f.bytes.data + f.bytes.size);
      } else if (f.wireType == (valueSize == 4 ? Fixed32 : Fixed64)) {
        if (valueSize > t.byteSize - out.size())
          return tooMany();
        out.insert(out.end(), f.bytes.data, f.bytes.data + f.bytes.size);
      } else {
        return malformed(tensor + " has field " + std::to_string(f.field) +
                         " with wire type " + std::to_string(f.wireType));
      }
    } else if (f.wireType == Varint) {
      if (valueSize > t.byteSize - out.size())
        return tooMany();
      appendLow(out, f.varint, valueSize);
    } else if (f.wireType == LengthDelimited) {
      WireReader packed(f.bytes, t.origin);
      uint64_t v;
      while (!packed.done()) {
        if (!packed.varint(v))
          return malformed(tensor + " has a truncated varint");
        if (valueSize > t.byteSize - out.size())
          return tooMany();
        appendLow(out, v, valueSize);
      }
    } else {
      return malformed(tensor + " has field " + std::to_string(f.field) +
                       " with wire type " + std::to_string(f.wireType));
    }
  }
  if (out.size() != t.byteSize)
    return malformed(tensor + " has " +
                     std::to_string(out.size() / std::max<uint64_t>(elem, 1)) +
                     " values, its dims say " +
                     std::to_string(t.byteSize / std::max<uint64_t>(elem, 1)) +
                     " (" + kTypedFieldNames[expectedField] + ", dims " +
                     dimsText(t.dims) + ")");
  return Status::success();
}

/// Whether `location` is a relative path without '..' components.
static bool staysInside(const std::string &location) {
  if (location.empty() || location[0] == '/')
    return false;
  size_t start = 0;
  while (start <= location.size()) {
    size_t end = location.find('/', start);
    if (end == std::string::npos)
      end = location.size();
    if (location.compare(start, end - start, "..") == 0 && end - start == 2)
      return false;
    start = end + 1;
  }
  return true;
}

static Status readExternal(const OnnxTensor &t, const std::string &baseDir,
                           std::vector<uint8_t> &out) {
  auto fail = [&](const std::string &why) {
    return Status(StatusCode::InvalidArgument, label(t.name) +
                                                   ": external data '" +
                                                   t.location + "': " + why);
  };
  if (baseDir.empty())
    return fail("external data is read relative to a file's directory; "
                "this tensor did not come from a file");
  if (!staysInside(t.location))
    return fail("the path must be relative to the model's directory, "
                "without '..'");
  if (t.hasExternalLength && t.externalLength != t.byteSize)
    return fail("length " + std::to_string(t.externalLength) +
                " differs from the " + std::to_string(t.byteSize) +
                " bytes its type and dims say");
  const std::string &dir = baseDir;
  std::string path = dir + "/" + t.location;
  // Symbolic links may not lead out of the model's directory either.
  char realDir[PATH_MAX], realFile[PATH_MAX];
  if (!::realpath(dir.c_str(), realDir))
    return fail(std::string("cannot resolve the model directory: ") +
                std::strerror(errno));
  if (!::realpath(path.c_str(), realFile))
    return fail(std::strerror(errno));
  std::string prefix = std::string(realDir) + (realDir[1] ? "/" : "");
  if (std::string(realFile).compare(0, prefix.size(), prefix) != 0)
    return fail("it resolves to '" + std::string(realFile) +
                "', outside the model's directory");
  // O_NONBLOCK: opening a FIFO must not wait for a writer (fstat refuses it).
  int fd = ::open(realFile, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    return fail(std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail("not a regular file");
  }
  uint64_t fileSize = uint64_t(st.st_size);
  if (t.externalOffset > fileSize || t.byteSize > fileSize - t.externalOffset) {
    ::close(fd);
    return fail("offset " + std::to_string(t.externalOffset) + " + " +
                std::to_string(t.byteSize) + " bytes exceeds the file (" +
                std::to_string(fileSize) + " bytes)");
  }
  out.resize(size_t(t.byteSize));
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::pread(fd, out.data() + done, out.size() - done,
                        off_t(t.externalOffset + done));
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int err = n == 0 ? EIO : errno;
      ::close(fd);
      return fail(std::string("read failed: ") + std::strerror(err));
    }
    done += size_t(n);
  }
  ::close(fd);
  return Status::success();
}

Status kiln::tools::onnxTensorBytes(const OnnxTensor &t,
                                    const std::string &baseDir,
                                    std::vector<uint8_t> &storage,
                                    ByteSpan &bytes) {
  if (onnxElementSize(t.dataType) == 0)
    return Status(StatusCode::InvalidArgument,
                  label(t.name) + " has data type " + onnxTypeName(t.dataType) +
                      ", which has no fixed element size");
  if (t.external) {
    if (Status s = readExternal(t, baseDir, storage); !s)
      return s;
    bytes = ByteSpan{storage.data(), storage.size()};
    return Status::success();
  }
  if (t.hasRaw) {
    bytes = t.raw; // parseOnnxTensor checked its size
    return Status::success();
  }
  if (Status s = typedBytes(t, storage); !s)
    return s;
  bytes = ByteSpan{storage.data(), storage.size()};
  return Status::success();
}
