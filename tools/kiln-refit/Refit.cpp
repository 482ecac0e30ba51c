//===- Refit.cpp - Match ONNX tensors to stripped weights by size and hash ===//

#include "Refit.h"

#include "tools/common/InputFile.h"
#include "tools/common/OnnxProto.h"

#include "kiln/Plan/Float16.h"

#include <cstring>
#include <map>

using namespace kiln;
using namespace kiln::refit;
using namespace kiln::tools;
using plan::Status;

namespace {
/// Element size, output channels, input channels and H*W of a 4-D tensor.
struct Oihw {
  size_t elem = 0, o = 0, i = 0, hw = 0;
};
/// True, with its shape, for a 4-D tensor whose OHWI repacking differs from
/// its OIHW bytes; false for other ranks, unknown element sizes and 1x1
/// filters (whose OHWI bytes are their OIHW bytes).
bool oihwShape(const OnnxTensor &t, Oihw &shape) {
  if (t.dims.size() != 4 || t.byteSize == 0)
    return false;
  shape.elem = size_t(onnxElementSize(t.dataType));
  shape.o = size_t(t.dims[0]);
  shape.i = size_t(t.dims[1]);
  shape.hw = size_t(t.dims[2]) * size_t(t.dims[3]);
  return shape.elem != 0 && shape.hw > 1 &&
         uint64_t(shape.o) * shape.i * shape.hw * shape.elem == t.byteSize;
}

/// True, with its shape as an OIHW one, for a 2-D tensor [R, C] (R, C > 1):
/// its transpose [C, R] is the OHWI repacking of [1, R, C, 1] read as
/// OIHW with I = R and H*W = C.
bool matrixShape(const OnnxTensor &t, Oihw &shape) {
  if (t.dims.size() != 2 || t.byteSize == 0 || t.dims[0] < 2 || t.dims[1] < 2)
    return false;
  shape.elem = size_t(onnxElementSize(t.dataType));
  shape.o = 1;
  shape.i = size_t(t.dims[0]);
  shape.hw = size_t(t.dims[1]);
  return shape.elem != 0 &&
         uint64_t(shape.i) * shape.hw * shape.elem == t.byteSize;
}

template <size_t E>
void permuteOhwi(const uint8_t *src, uint8_t *dst, size_t o, size_t i,
                 size_t hw, size_t e) {
  const size_t elem = E ? E : e;
  // Writes in order; reads stride by H*W within each output channel.
  for (size_t oo = 0; oo < o; ++oo) {
    const uint8_t *s = src + oo * i * hw * elem;
    for (size_t p = 0; p < hw; ++p)
      for (size_t ii = 0; ii < i; ++ii, dst += elem)
        std::memcpy(dst, s + (ii * hw + p) * elem, elem);
  }
}

/// `bytes` (OIHW, elements of `elem` bytes) repacked to OHWI into `out`.
plan::ByteSpan toOhwi(plan::ByteSpan bytes, const Oihw &shape, size_t elem,
                      std::vector<uint8_t> &out) {
  out.resize(bytes.size);
  const uint8_t *src = bytes.data;
  uint8_t *dst = out.data();
  switch (elem) {
  case 1:
    permuteOhwi<1>(src, dst, shape.o, shape.i, shape.hw, elem);
    break;
  case 2:
    permuteOhwi<2>(src, dst, shape.o, shape.i, shape.hw, elem);
    break;
  case 4:
    permuteOhwi<4>(src, dst, shape.o, shape.i, shape.hw, elem);
    break;
  case 8:
    permuteOhwi<8>(src, dst, shape.o, shape.i, shape.hw, elem);
    break;
  default:
    permuteOhwi<0>(src, dst, shape.o, shape.i, shape.hw, elem);
    break;
  }
  return plan::ByteSpan{out.data(), out.size()};
}
} // namespace

Status kiln::refit::refitFromOnnx(const std::string &onnxPath,
                                  plan::PlanWriter &writer,
                                  RefitResult &result) {
  result = RefitResult();
  std::vector<uint8_t> model;
  if (Status s = tools::readInputFile(onnxPath, model); !s)
    return s;
  std::vector<OnnxTensor> tensors;
  if (Status s =
          listOnnxTensors(plan::ByteSpan{model.data(), model.size()}, tensors);
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
  std::vector<uint8_t> storage, converted, permuted, rounded;
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
    // kilnc's NHWC layout stores 4-D convolution filters repacked from
    // ONNX's OIHW to OHWI (possibly converted too): match that repacking.
    Oihw shape, matrix;
    bool ohwi = oihwShape(t, shape);
    // kilnc --precision tf32 stores a matmul's constant [K, N] right-hand
    // side transposed, [N, K] (K-major, as tf32 wgmma reads it).
    bool transposable = matrixShape(t, matrix);
    if (asIs) {
      if (Status s = match(t, bytes, ""); !s)
        return s;
      if (ohwi && bySize.count(bytes.size))
        if (Status s =
                match(t, toOhwi(bytes, shape, shape.elem, permuted), " (OHWI)");
            !s)
          return s;
      if (transposable && bySize.count(bytes.size))
        if (Status s = match(t, toOhwi(bytes, matrix, matrix.elem, permuted),
                             " (transposed)");
            !s)
          return s;
      // kilnc --precision tf32 rounds the weights only convs and matmuls
      // read to tf32 (to nearest, ties away from zero: 10 mantissa bits).
      if (t.dataType == kOnnxFloat && bytes.size % 4 == 0 &&
          bySize.count(bytes.size)) {
        rounded.assign(bytes.data, bytes.data + bytes.size);
        plan::roundToTf32(rounded.data(), rounded.size());
        plan::ByteSpan r{rounded.data(), rounded.size()};
        if (Status s = match(t, r, " (as tf32)"); !s)
          return s;
        if (ohwi && bySize.count(r.size))
          if (Status s =
                  match(t, toOhwi(r, shape, 4, permuted), " (as tf32, OHWI)");
              !s)
            return s;
        if (transposable && bySize.count(r.size))
          if (Status s = match(t, toOhwi(r, matrix, 4, permuted),
                               " (as tf32, transposed)");
              !s)
            return s;
      }
    }
    if (!halved)
      continue;
    size_t n = bytes.size / 4;
    converted.resize(n * 2);
    for (int bf16 = 0; bf16 < 2; ++bf16) {
      // A previous match may have filled the last buffer of this size.
      if (!bySize.count(n * 2))
        break;
      for (size_t i = 0; i < n; ++i) {
        float f;
        std::memcpy(&f, bytes.data + 4 * i, 4);
        uint16_t h = bf16 ? plan::floatToBF16(f) : plan::floatToF16(f);
        std::memcpy(converted.data() + 2 * i, &h, 2);
      }
      plan::ByteSpan half{converted.data(), converted.size()};
      if (Status s = match(t, half, bf16 ? " (as bf16)" : " (as f16)"); !s)
        return s;
      if (ohwi && bySize.count(half.size))
        if (Status s = match(t, toOhwi(half, shape, 2, permuted),
                             bf16 ? " (as bf16, OHWI)" : " (as f16, OHWI)");
            !s)
          return s;
    }
  }
  result.missing = writer.unfilledStrippedBuffers();
  return Status::success();
}
