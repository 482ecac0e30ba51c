//===- Refit.cpp - Match ONNX tensors to stripped weights by size and hash ===//

#include "Refit.h"

#include "OnnxTensors.h"

#include <map>

using namespace kiln;
using namespace kiln::refit;
using plan::Status;

Status kiln::refit::refitFromOnnx(const std::string &onnxPath,
                                  plan::PlanWriter &writer,
                                  RefitResult &result) {
  result = RefitResult();
  std::vector<uint8_t> model;
  if (Status s = plan::readFile(onnxPath, model); !s)
    return s;
  std::vector<OnnxTensor> tensors;
  if (Status s = listOnnxTensors(plan::ByteSpan{model.data(), model.size()},
                                 tensors);
      !s)
    return s.withContext("'" + onnxPath + "'");
  result.tensors = tensors.size();
  size_t slash = onnxPath.find_last_of('/');
  std::string modelDir =
      slash == std::string::npos ? "." : onnxPath.substr(0, slash + 1);

  // Only tensors of a stripped buffer's size are read and hashed.
  std::map<uint64_t, std::vector<uint32_t>> bySize;
  for (uint32_t b : writer.unfilledStrippedBuffers())
    bySize[writer.buffers()[b].sizeBytes].push_back(b);
  std::vector<uint8_t> storage;
  for (const OnnxTensor &t : tensors) {
    auto it = bySize.find(t.byteSize);
    if (it == bySize.end() || t.byteSize == 0)
      continue;
    ++result.candidates;
    plan::ByteSpan bytes;
    if (Status s = onnxTensorBytes(t, modelDir, storage, bytes); !s)
      return s.withContext("'" + onnxPath + "'");
    uint64_t hash = plan::xxh64(bytes.data, bytes.size);
    std::vector<uint32_t> &buffers = it->second;
    // Identical weights used twice are two buffers with the same hash.
    for (size_t i = 0; i < buffers.size();) {
      uint32_t b = buffers[i];
      if (writer.buffers()[b].contentHash != hash) {
        ++i;
        continue;
      }
      if (Status s = writer.fillStrippedWeight(b, bytes.data, bytes.size); !s)
        return s;
      result.filled.emplace_back(b, t.name);
      buffers.erase(buffers.begin() + i);
    }
    if (buffers.empty())
      bySize.erase(it);
    if (bySize.empty())
      break;
  }
  result.missing = writer.unfilledStrippedBuffers();
  return Status::success();
}
