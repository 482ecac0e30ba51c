//===- TensorFile.h - Tensor files of the tools: .pb TensorProto and .npy -===//
//
// ONNX TensorProto files are read with the tools' one protobuf wire-format
// reader (OnnxProto.h) and written with a minimal encoder (no libprotobuf),
// so kiln-run builds wherever the runtime does.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_COMMON_TENSORFILE_H
#define KILN_TOOLS_COMMON_TENSORFILE_H

#include "tools/common/Tensor.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::tools {

/// Parses a serialized onnx.TensorProto. `source` names it in messages;
/// external data is read relative to `baseDir` (refused when empty).
Status parseTensorProto(const uint8_t *data, size_t size,
                        const std::string &source, Tensor &out,
                        const std::string &baseDir = "");
/// Serializes as onnx.TensorProto (dims, data_type, name, raw_data).
std::vector<uint8_t> serializeTensorProto(const Tensor &tensor);

/// Parses a .npy file (format v1-v3, C order, little-endian or byte-sized).
Status parseNpy(const uint8_t *data, size_t size, const std::string &source,
                Tensor &out);
/// Serializes as .npy v1; fails for dtypes numpy lacks (bf16, f8).
Status serializeNpy(const Tensor &tensor, std::vector<uint8_t> &out);

/// Reads `path` as .npy (by extension) or TensorProto (anything else).
Status readTensorFile(const std::string &path, Tensor &out);
/// Writes `bytes` to `path` by writeOutputFile's rule (OutputFile.h).
Status writeBytes(const std::string &path, const std::vector<uint8_t> &bytes);

} // namespace kiln::tools

#endif // KILN_TOOLS_COMMON_TENSORFILE_H
