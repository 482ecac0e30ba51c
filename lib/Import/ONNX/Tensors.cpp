//===- Tensors.cpp - ONNX types and TensorProtos to MLIR ------------------===//
#include "Tensors.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstring>

using namespace mlir;

namespace kiln::onnx_import {

// ONNX TensorProto.DataType values (stable across ONNX versions; the enum of
// Debian's libonnx 1.12 lacks the float8 ones).
enum : int32_t {
  kFloat = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUint32 = 12,
  kUint64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBfloat16 = 16,
  kFloat8E4M3FN = 17,
  kFloat8E4M3FNUZ = 18,
  kFloat8E5M2 = 19,
  kFloat8E5M2FNUZ = 20,
  kUint4 = 21,
  kInt4 = 22,
};

Type convertElementType(MLIRContext *ctx, int32_t t) {
  Builder b(ctx);
  switch (t) {
  case kFloat:
    return b.getF32Type();
  case kUint8:
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  case kInt8:
    return b.getIntegerType(8);
  case kUint16:
    return IntegerType::get(ctx, 16, IntegerType::Unsigned);
  case kInt16:
    return b.getIntegerType(16);
  case kInt32:
    return b.getIntegerType(32);
  case kInt64:
    return b.getIntegerType(64);
  case kBool:
    return b.getIntegerType(1);
  case kFloat16:
    return b.getF16Type();
  case kDouble:
    return b.getF64Type();
  case kUint32:
    return IntegerType::get(ctx, 32, IntegerType::Unsigned);
  case kUint64:
    return IntegerType::get(ctx, 64, IntegerType::Unsigned);
  case kBfloat16:
    return b.getBF16Type();
  case kFloat8E4M3FN:
    return b.getType<Float8E4M3FNType>();
  case kFloat8E4M3FNUZ:
    return b.getType<Float8E4M3FNUZType>();
  case kFloat8E5M2:
    return b.getType<Float8E5M2Type>();
  case kFloat8E5M2FNUZ:
    return b.getType<Float8E5M2FNUZType>();
  default:
    return {};
  }
}

std::string dataTypeName(int32_t t) {
  static const char *names[] = {
      "UNDEFINED",      "FLOAT",      "UINT8",
      "INT8",           "UINT16",     "INT16",
      "INT32",          "INT64",      "STRING",
      "BOOL",           "FLOAT16",    "DOUBLE",
      "UINT32",         "UINT64",     "COMPLEX64",
      "COMPLEX128",     "BFLOAT16",   "FLOAT8E4M3FN",
      "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ",
      "UINT4",          "INT4"};
  if (t >= 0 && t < (int32_t)(sizeof(names) / sizeof(names[0])))
    return names[t];
  return std::to_string(t) + " (not an ONNX data type)";
}

/// Bytes per element in ONNX raw_data (and in kiln's blobs).
static int64_t elementBytes(Type t) {
  if (t.isInteger(1))
    return 1;
  return (t.getIntOrFloatBitWidth() + 7) / 8;
}

/// Resource names must be printable identifiers.
static std::string blobName(StringRef name) {
  std::string out;
  for (char c : name)
    out.push_back(llvm::isAlnum(c) || c == '_' || c == '.' ? c : '_');
  if (out.empty() || llvm::isDigit(out[0]))
    out.insert(out.begin(), '_');
  return out;
}

/// Reads external data into `bytes` after checking the location stays inside
/// the model's directory.
static bool readExternal(const onnx::TensorProto &tensor, StringRef baseDir,
                         int64_t expected, std::vector<char> &bytes,
                         std::string &error) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto &kv : tensor.external_data()) {
    char *end = nullptr;
    if (kv.key() == "location") {
      location = kv.value();
    } else if (kv.key() == "offset" || kv.key() == "length") {
      long long v = std::strtoll(kv.value().c_str(), &end, 10);
      if (kv.value().empty() || *end || v < 0) {
        error = "external data " + kv.key() + " '" + kv.value() +
                "' is not a non-negative integer";
        return false;
      }
      (kv.key() == "offset" ? offset : length) = v;
    }
  }
  if (location.empty()) {
    error = "external data has no location";
    return false;
  }
  if (llvm::sys::path::is_absolute(location) ||
      llvm::any_of(llvm::make_range(llvm::sys::path::begin(location),
                                    llvm::sys::path::end(location)),
                   [](StringRef c) { return c == ".."; })) {
    error = "external data location '" + location +
            "' must be a relative path inside the model's directory";
    return false;
  }
  SmallString<256> path(baseDir);
  llvm::sys::path::append(path, location);
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file) {
    error = "cannot read external data file '" + std::string(path) +
            "': " + file.getError().message();
    return false;
  }
  int64_t size = (*file)->getBufferSize();
  if (length < 0)
    length = size - offset;
  if (offset > size || length > size - offset) {
    error = "external data [" + std::to_string(offset) + ", +" +
            std::to_string(length) + ") is past the end of '" +
            std::string(path) + "' (" + std::to_string(size) + " bytes)";
    return false;
  }
  if (length != expected) {
    error = "external data has " + std::to_string(length) +
            " bytes, expected " + std::to_string(expected);
    return false;
  }
  const char *start = (*file)->getBufferStart() + offset;
  bytes.assign(start, start + length);
  return true;
}

/// Appends `count` values of a typed field as little-endian bytes of `t`.
template <typename Src>
static void appendAs(std::vector<char> &bytes, const Src &field, Type t,
                     bool fromBits) {
  int64_t n = elementBytes(t);
  for (auto v : field) {
    if (fromBits || t.isInteger()) {
      uint64_t bits = (uint64_t)(int64_t)v;
      if (t.isInteger(1))
        bits = v != 0;
      bytes.insert(bytes.end(), (char *)&bits, (char *)&bits + n);
    } else if (t.isF32()) {
      float f = (float)v;
      bytes.insert(bytes.end(), (char *)&f, (char *)&f + 4);
    } else if (t.isF64()) {
      double d = (double)v;
      bytes.insert(bytes.end(), (char *)&d, (char *)&d + 8);
    }
  }
}

ElementsAttr convertTensor(MLIRContext *ctx, const onnx::TensorProto &tensor,
                           StringRef baseDir, std::string &error,
                           StringRef fallbackName) {
  std::string name = tensor.name().empty() ? fallbackName.str() : tensor.name();
  Type et = convertElementType(ctx, tensor.data_type());
  if (!et) {
    error = "element type " + dataTypeName(tensor.data_type()) +
            " of tensor '" + name + "' is not supported";
    return {};
  }
  SmallVector<int64_t> shape;
  int64_t count = 1;
  for (int64_t d : tensor.dims()) {
    if (d < 0 || (d > 0 && count > (int64_t(1) << 40) / d)) {
      error = "tensor '" + name + "' has an invalid or huge dim " +
              std::to_string(d);
      return {};
    }
    shape.push_back(d);
    count *= d;
  }
  auto type = RankedTensorType::get(shape, et);
  int64_t width = elementBytes(et);
  int64_t expectedBytes = count * width;

  std::vector<char> bytes;
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    if (!readExternal(tensor, baseDir, expectedBytes, bytes, error)) {
      error = "tensor '" + name + "': " + error;
      return {};
    }
  } else if (tensor.has_raw_data()) {
    if ((int64_t)tensor.raw_data().size() != expectedBytes) {
      error = "tensor '" + name + "' has " +
              std::to_string(tensor.raw_data().size()) +
              " bytes of raw data, expected " + std::to_string(expectedBytes);
      return {};
    }
    bytes.assign(tensor.raw_data().begin(), tensor.raw_data().end());
  } else {
    int64_t have = 0;
    bytes.reserve(expectedBytes);
    switch (tensor.data_type()) {
    case kFloat:
      have = tensor.float_data_size();
      appendAs(bytes, tensor.float_data(), et, false);
      break;
    case kDouble:
      have = tensor.double_data_size();
      appendAs(bytes, tensor.double_data(), et, false);
      break;
    case kInt64:
      have = tensor.int64_data_size();
      appendAs(bytes, tensor.int64_data(), et, false);
      break;
    case kUint32:
    case kUint64:
      have = tensor.uint64_data_size();
      appendAs(bytes, tensor.uint64_data(), et, false);
      break;
    default: // int32_data holds every other type, floats as their bits
      have = tensor.int32_data_size();
      appendAs(bytes, tensor.int32_data(), et, /*fromBits=*/true);
      break;
    }
    if (have != count) {
      error = "tensor '" + name + "' has " + std::to_string(have) +
              " values, expected " + std::to_string(count) + " for shape " +
              std::to_string(shape.size()) + "-D";
      return {};
    }
  }

  if (et.isInteger(1)) {
    SmallVector<bool> values(bytes.begin(), bytes.end());
    return DenseElementsAttr::get(type, ArrayRef<bool>(values));
  }
  if (count <= (et.isInteger() ? kMaxDenseElements : kMaxDenseFloatElements)) {
    bool detectedSplat = false;
    if (!DenseElementsAttr::isValidRawBuffer(type, ArrayRef<char>(bytes),
                                             detectedSplat)) {
      error = "tensor '" + name + "' has malformed data";
      return {};
    }
    return DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(bytes));
  }
  // Big tensors: a splat is kept compact; everything else becomes a blob.
  if (llvm::all_of(llvm::seq<int64_t>(1, count), [&](int64_t i) {
        return std::memcmp(bytes.data(), bytes.data() + i * width, width) == 0;
      }))
    return DenseElementsAttr::getFromRawBuffer(
        type, ArrayRef<char>(bytes.data(), width));
  AsmResourceBlob blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
      ArrayRef<char>(bytes), std::max<size_t>(width, 8));
  return DenseResourceElementsAttr::get(
      type, blobName(name.empty() ? "tensor" : name), std::move(blob));
}

/// Parses a .npy file (format versions 1 to 3) into a TensorProto.
static bool parseNpy(StringRef data, onnx::TensorProto &tensor,
                     std::string &error) {
  if (!data.starts_with("\x93NUMPY") || data.size() < 10) {
    error = "not a .npy file (no \\x93NUMPY magic)";
    return false;
  }
  unsigned major = (unsigned char)data[6];
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = (unsigned char)data[8] | ((unsigned char)data[9] << 8);
    headerStart = 10;
  } else if ((major == 2 || major == 3) && data.size() >= 12) {
    headerLen = 0;
    for (int i = 3; i >= 0; --i)
      headerLen = (headerLen << 8) | (unsigned char)data[8 + i];
    headerStart = 12;
  } else {
    error =
        ".npy format version " + std::to_string(major) + " is not supported";
    return false;
  }
  if (headerStart + headerLen > data.size()) {
    error = ".npy header is truncated";
    return false;
  }
  StringRef header = data.substr(headerStart, headerLen);
  // The header is a Python dict literal: {'descr': '<f4', 'fortran_order':
  // False, 'shape': (3, 4), }
  auto field = [&](StringRef key) -> StringRef {
    size_t at = header.find(("'" + key + "'").str());
    if (at == StringRef::npos)
      return {};
    StringRef rest = header.substr(at + key.size() + 2).ltrim(" :");
    return rest;
  };
  StringRef descr = field("descr");
  if (!descr.consume_front("'")) {
    error = ".npy header has no 'descr'";
    return false;
  }
  descr = descr.take_until([](char c) { return c == '\''; });
  if (field("fortran_order").starts_with("True")) {
    error = ".npy array is in Fortran order; save it in C order";
    return false;
  }
  StringRef shapeText = field("shape");
  if (!shapeText.consume_front("(")) {
    error = ".npy header has no 'shape'";
    return false;
  }
  shapeText = shapeText.take_until([](char c) { return c == ')'; });
  SmallVector<StringRef> parts;
  shapeText.split(parts, ',', -1, /*KeepEmpty=*/false);
  int64_t count = 1;
  for (StringRef p : parts) {
    p = p.trim();
    if (p.empty())
      continue;
    int64_t d;
    if (p.getAsInteger(10, d) || d < 0) {
      error = ".npy shape has a bad dim '" + p.str() + "'";
      return false;
    }
    tensor.add_dims(d);
    count *= d;
  }
  static const std::pair<const char *, int32_t> kinds[] = {
      {"f4", kFloat},  {"f8", kDouble}, {"f2", kFloat16}, {"i1", kInt8},
      {"u1", kUint8},  {"i2", kInt16},  {"u2", kUint16},  {"i4", kInt32},
      {"u4", kUint32}, {"i8", kInt64},  {"u8", kUint64},  {"b1", kBool}};
  char order = descr.empty() ? '?' : descr[0];
  StringRef kind = descr.drop_front();
  int32_t dataType = 0;
  for (auto [k, t] : kinds)
    if (kind == k)
      dataType = t;
  if (!dataType || order == '>' ||
      (order != '<' && order != '|' && order != '=')) {
    error = ".npy dtype '" + descr.str() +
            "' is not supported (little-endian bool, ints, f16, f32, f64)";
    return false;
  }
  tensor.set_data_type(dataType);
  int64_t width = 1;
  (void)kind.drop_front().getAsInteger(10, width);
  StringRef payload = data.substr(headerStart + headerLen);
  if ((int64_t)payload.size() != count * width) {
    error = ".npy data has " + std::to_string(payload.size()) +
            " bytes, expected " + std::to_string(count * width);
    return false;
  }
  tensor.set_raw_data(payload.str());
  return true;
}

bool readTensorFile(StringRef path, onnx::TensorProto &tensor,
                    std::string &error) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file) {
    error = "cannot read '" + path.str() + "': " + file.getError().message();
    return false;
  }
  StringRef data = (*file)->getBuffer();
  tensor.Clear();
  if (path.ends_with(".npy")) {
    if (!parseNpy(data, tensor, error)) {
      error = "'" + path.str() + "': " + error;
      return false;
    }
    return true;
  }
  if (data.size() > (size_t)INT32_MAX ||
      !tensor.ParseFromArray(data.data(), (int)data.size())) {
    error = "'" + path.str() +
            "' is not an ONNX TensorProto (.pb) or NumPy array (.npy)";
    return false;
  }
  return true;
}

} // namespace kiln::onnx_import
