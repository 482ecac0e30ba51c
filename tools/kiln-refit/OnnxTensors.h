//===- OnnxTensors.h - The tensors of an ONNX model, without libonnx ------===//
//
// kiln-refit runs where MLIR, libonnx and libprotobuf are absent, so it reads
// ONNX files with a small, bounds-checked protobuf wire-format reader. It
// knows just enough of onnx.proto to find tensors: graph initializers and the
// `value` tensors of Constant nodes (top-level graph only), with their data in
// raw_data, in the typed fields (float_data, int32_data, int64_data,
// double_data, uint64_data) or in external files.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILN_REFIT_ONNXTENSORS_H
#define KILN_TOOLS_KILN_REFIT_ONNXTENSORS_H

#include "kiln/Plan/PlanIO.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::refit {

/// One TensorProto of the model. Spans point into the model bytes given to
/// listOnnxTensors, which must outlive this.
struct OnnxTensor {
  std::string name;
  /// onnx.TensorProto.DataType (1 = FLOAT, 7 = INT64, ...).
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
  bool external = false;
  std::string location;
  uint64_t externalOffset = 0;
  bool hasExternalLength = false;
  uint64_t externalLength = 0;
};

/// Bytes per element of ONNX data type `dataType`; 0 when not fixed.
uint64_t onnxElementSize(int32_t dataType);

/// Parses a serialized onnx.ModelProto and lists its initializers and
/// Constant values. InvalidArgument with a message on malformed input.
plan::Status listOnnxTensors(plan::ByteSpan model,
                             std::vector<OnnxTensor> &out);

/// The tensor's contents as `byteSize` little-endian bytes (raw_data as is,
/// typed fields converted, external data read from a file that must lie in
/// `modelDir`). `storage` holds them unless they are a view of the model.
plan::Status onnxTensorBytes(const OnnxTensor &tensor,
                             const std::string &modelDir,
                             std::vector<uint8_t> &storage,
                             plan::ByteSpan &bytes);

} // namespace kiln::refit

#endif // KILN_TOOLS_KILN_REFIT_ONNXTENSORS_H
