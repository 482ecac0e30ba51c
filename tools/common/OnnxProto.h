//===- OnnxProto.h - ONNX TensorProto/ModelProto reader, without libonnx --===//
//
// The runtime's tools (kiln-run, kiln-tune, kiln-refit) run where MLIR,
// libonnx and libprotobuf are absent, so they read ONNX files with this one
// small, bounds-checked protobuf wire-format reader. It knows just enough of
// onnx.proto to find tensors: a serialized TensorProto (kiln-run's .pb
// files), and a ModelProto's graph initializers and the `value` tensors of
// its Constant nodes (top-level graph only, kiln-refit), with their data in
// raw_data, in the typed fields (float_data, int32_data, int64_data,
// double_data, uint64_data) or in external files. Only little-endian hosts
// are supported (as by the runtime).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_COMMON_ONNXPROTO_H
#define KILN_TOOLS_COMMON_ONNXPROTO_H

#include "kiln/Plan/PlanIO.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::tools {

/// onnx.TensorProto.DataType values.
enum OnnxDataType : int32_t {
  kOnnxUndefined = 0,
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
  kOnnxComplex64 = 14,
  kOnnxComplex128 = 15,
  kOnnxBfloat16 = 16,
  kOnnxFloat8E4M3FN = 17,
  kOnnxFloat8E4M3FNUZ = 18,
  kOnnxFloat8E5M2 = 19,
  kOnnxFloat8E5M2FNUZ = 20,
};

/// "FLOAT", "INT64", ...; "data type N" for values onnx.proto does not name.
std::string onnxTypeName(int32_t dataType);
/// Bytes per element of ONNX data type `dataType`; 0 when not fixed (STRING,
/// 4-bit types, unknown values).
uint64_t onnxElementSize(int32_t dataType);
/// ONNX data type <-> plan DType; nullopt for types the plan format does not
/// have (string, complex, fnuz floats, int4...).
std::optional<plan::DType> dtypeFromOnnx(int32_t dataType);
int32_t onnxFromDType(plan::DType dtype);

/// One TensorProto. Spans point into the bytes it was parsed from, which
/// must outlive this.
struct OnnxTensor {
  std::string name;
  /// onnx.TensorProto.DataType (kOnnxFloat, ...).
  int32_t dataType = 0;
  std::vector<int64_t> dims;
  /// Bytes of the tensor's little-endian contents per its type and dims; 0
  /// when the type has no fixed element size (STRING, 4-bit types, unknown).
  uint64_t byteSize = 0;
  /// Where the data is: the raw_data bytes (hasRaw), the typed-field
  /// occurrences in order, or an external file.
  bool hasRaw = false;
  plan::ByteSpan raw;
  struct Typed {
    uint32_t field;
    uint32_t wireType;
    plan::ByteSpan bytes; ///< packed payload or the single scalar's bytes
    uint64_t varint;      ///< the value for an unpacked varint
  };
  std::vector<Typed> typed;
  /// string_data (field 6) is present.
  bool hasStrings = false;
  bool external = false;
  std::string location;
  uint64_t externalOffset = 0;
  bool hasExternalLength = false;
  uint64_t externalLength = 0;
  /// What malformed contents are reported as ("malformed ONNX model", a
  /// file name): messages read "<origin>: tensor 'w' has ...".
  std::string origin;
};

/// Parses one serialized TensorProto; `fallbackName` names tensors without
/// a name (Constant values), `origin` starts the messages of malformed input
/// (OnnxTensor::origin). InvalidArgument with a message on malformed input.
plan::Status parseOnnxTensor(plan::ByteSpan bytes,
                             const std::string &fallbackName,
                             const std::string &origin, OnnxTensor &out);

/// Parses a serialized onnx.ModelProto and lists its initializers and
/// Constant values (origin "malformed ONNX model"). InvalidArgument with a
/// message on malformed input.
plan::Status listOnnxTensors(plan::ByteSpan model,
                             std::vector<OnnxTensor> &out);

/// The tensor's contents as `byteSize` little-endian bytes (raw_data as is,
/// typed fields converted, external data read from a file that must lie in
/// `baseDir`, the model's or tensor file's directory; "" refuses external
/// data). `storage` holds them unless they are a view of the parsed bytes.
plan::Status onnxTensorBytes(const OnnxTensor &tensor,
                             const std::string &baseDir,
                             std::vector<uint8_t> &storage,
                             plan::ByteSpan &bytes);

} // namespace kiln::tools

#endif // KILN_TOOLS_COMMON_ONNXPROTO_H
