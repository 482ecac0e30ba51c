//===- Refit.cpp - Match ONNX tensors to stripped weights by size and hash ===//

#include "Refit.h"

#include "OnnxTensors.h"

#include "kiln/Plan/Float16.h"

#include <cstring>
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
  std::vector<uint8_t> storage, converted;
  // Fills every unfilled buffer of `bytes`' size whose hash matches; true
  // when no buffer is left.
  auto match = [&](const OnnxTensor &t, plan::ByteSpan bytes,
                   const char *how) -> Status {
    auto it = bySize.find(bytes.size);
    if (it == bySize.end())
      return Status::success();
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
      result.filled.emplace_back(b, t.name + how);
      buffers.erase(buffers.begin() + i);
    }
    if (buffers.empty())
      bySize.erase(it);
    return Status::success();
  };
  constexpr int32_t kOnnxFloat = 1;
  for (const OnnxTensor &t : tensors) {
    if (bySize.empty())
      break;
    if (t.byteSize == 0)
      continue;
    // Plans built with kilnc --precision fp16|bf16 store f32 weights
    // converted (round to nearest even): match those conversions too.
    bool asIs = bySize.count(t.byteSize) != 0;
    bool halved = t.dataType == kOnnxFloat && t.byteSize % 4 == 0 &&
                  bySize.count(t.byteSize / 2) != 0;
    if (!asIs && !halved)
      continue;
    ++result.candidates;
    plan::ByteSpan bytes;
    if (Status s = onnxTensorBytes(t, modelDir, storage, bytes); !s)
      return s.withContext("'" + onnxPath + "'");
    if (asIs)
      if (Status s = match(t, bytes, ""); !s)
        return s;
    if (!halved)
      continue;
    size_t n = bytes.size / 4;
    converted.resize(n * 2);
    for (int bf16 = 0; bf16 < 2; ++bf16) {
      for (size_t i = 0; i < n; ++i) {
        float f;
        std::memcpy(&f, bytes.data + 4 * i, 4);
        uint16_t h = bf16 ? plan::floatToBF16(f) : plan::floatToF16(f);
        std::memcpy(converted.data() + 2 * i, &h, 2);
      }
      if (Status s = match(t, plan::ByteSpan{converted.data(), converted.size()},
                           bf16 ? " (as bf16)" : " (as f16)");
          !s)
        return s;
    }
  }
  result.missing = writer.unfilledStrippedBuffers();
  return Status::success();
}
