//===- TensorFile.cpp - TensorProto and .npy tensor files -----------------===//

#include "tools/common/TensorFile.h"

#include "tools/common/InputFile.h"
#include "tools/common/OnnxProto.h"
#include "tools/common/OutputFile.h"

#include <cstring>

using namespace kiln::tools;
namespace plan = kiln::plan;

static Status bad(const std::string &source, const std::string &message) {
  return Status(StatusCode::InvalidArgument, source + ": " + message);
}

//===----------------------------------------------------------------------===//
// TensorProto
//===----------------------------------------------------------------------===//

Status kiln::tools::parseTensorProto(const uint8_t *data, size_t size,
                                     const std::string &source, Tensor &out,
                                     const std::string &baseDir) {
  out = Tensor();
  OnnxTensor t;
  if (Status s = parseOnnxTensor(plan::ByteSpan{data, size}, "", source, t); !s)
    return s;
  if (t.hasStrings || t.dataType == kOnnxString)
    return bad(source, "string tensors are not supported");
  std::optional<DType> dtype = dtypeFromOnnx(t.dataType);
  if (!dtype)
    return bad(source, "TensorProto data type " + onnxTypeName(t.dataType) +
                           " is not supported");
  out.name = t.name;
  out.dtype = *dtype;
  out.shape = t.dims;
  if (!out.numElements())
    return bad(source, "invalid shape " + shapeToString(out.shape));
  std::vector<uint8_t> storage;
  plan::ByteSpan bytes;
  if (Status s = onnxTensorBytes(t, baseDir, storage, bytes); !s)
    return t.external ? s.withContext(source) : s;
  if (bytes.data == storage.data())
    out.data = std::move(storage);
  else
    out.data.assign(bytes.data, bytes.data + bytes.size);
  return Status::success();
}

namespace {
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

std::vector<uint8_t> kiln::tools::serializeTensorProto(const Tensor &t) {
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

Status kiln::tools::parseNpy(const uint8_t *data, size_t size,
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

Status kiln::tools::serializeNpy(const Tensor &t, std::vector<uint8_t> &out) {
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

Status kiln::tools::readTensorFile(const std::string &path, Tensor &out) {
  std::vector<uint8_t> bytes;
  if (Status s = readInputFile(path, bytes); !s)
    return s;
  if (bytes.empty())
    return bad(path, "the file is empty (0 bytes), not a tensor");
  bool npy = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0;
  if (npy)
    return parseNpy(bytes.data(), bytes.size(), path, out);
  size_t slash = path.find_last_of('/');
  std::string dir =
      slash == std::string::npos ? "." : path.substr(0, slash + 1);
  return parseTensorProto(bytes.data(), bytes.size(), path, out, dir);
}

Status kiln::tools::writeBytes(const std::string &path,
                               const std::vector<uint8_t> &bytes) {
  return writeOutputFile(path, {plan::ByteSpan{bytes.data(), bytes.size()}});
}
