//===- Plan.cpp - Plan structs, names and sizes, buffer helpers -----------===//

#include "kiln/Plan/PlanIO.h"

#include "PlanInternal.h"
#include "kiln/Plan/Plan_generated.h"

#include <algorithm>

using namespace kiln::plan;
using namespace kiln::plan::detail;
namespace fbs = kiln::plan::fb;

#ifndef KILN_VERSION_STRING
#error "KILN_VERSION_STRING must be defined by the build"
#endif

const char *kiln::plan::kilnVersion() { return KILN_VERSION_STRING; }

// The C++ enums mirror the schema's; the values are stored in plan files.
static_assert(uint8_t(DType::f8e5m2) == uint8_t(fbs::DType::f8e5m2), "");
static_assert(uint8_t(DType::boolean) == uint8_t(fbs::DType::bool_), "");
static_assert(kNumDTypes == uint8_t(fbs::DType::MAX) + 1, "");
static_assert(kNumBufferKinds == uint8_t(fbs::BufferKind::MAX) + 1, "");
static_assert(uint8_t(BufferKind::TensorMap) ==
                  uint8_t(fbs::BufferKind::TensorMap),
              "");
static_assert(kNumModuleFormats == uint8_t(fbs::ModuleFormat::MAX) + 1, "");

//===----------------------------------------------------------------------===//
// Names and sizes
//===----------------------------------------------------------------------===//

const char *kiln::plan::statusCodeName(StatusCode code) {
  switch (code) {
  case StatusCode::Ok:
    return "ok";
  case StatusCode::InvalidArgument:
    return "invalid argument";
  case StatusCode::NotFound:
    return "not found";
  case StatusCode::IOError:
    return "i/o error";
  case StatusCode::InvalidPlan:
    return "invalid plan";
  case StatusCode::UnsupportedVersion:
    return "unsupported version";
  case StatusCode::UnsupportedTarget:
    return "unsupported target";
  case StatusCode::NotImplemented:
    return "not implemented";
  case StatusCode::OutOfMemory:
    return "out of memory";
  case StatusCode::Internal:
    return "internal error";
  }
  return "unknown status";
}

namespace {
struct DTypeInfo {
  const char *name;
  size_t size;
};
} // namespace

static const DTypeInfo kDTypes[kNumDTypes] = {
    {"f32", 4}, {"f16", 2}, {"bf16", 2}, {"f64", 8},      {"i8", 1},
    {"u8", 1},  {"i16", 2}, {"u16", 2},  {"i32", 4},      {"i64", 8},
    {"u32", 4}, {"u64", 8}, {"bool", 1}, {"f8e4m3fn", 1}, {"f8e5m2", 1},
};

const char *kiln::plan::dtypeName(DType dtype) {
  unsigned i = unsigned(dtype);
  return i < kNumDTypes ? kDTypes[i].name : "invalid";
}

size_t kiln::plan::dtypeSize(DType dtype) {
  unsigned i = unsigned(dtype);
  return i < kNumDTypes ? kDTypes[i].size : 0;
}

std::optional<DType> kiln::plan::parseDType(std::string_view name) {
  for (unsigned i = 0; i < kNumDTypes; ++i)
    if (name == kDTypes[i].name)
      return DType(i);
  return std::nullopt;
}

const char *kiln::plan::bufferKindName(BufferKind kind) {
  static const char *names[kNumBufferKinds] = {
      "input", "output", "weight", "activation", "scratch", "tensor map"};
  unsigned i = unsigned(kind);
  return i < kNumBufferKinds ? names[i] : "invalid";
}

const char *kiln::plan::moduleFormatName(ModuleFormat format) {
  static const char *names[kNumModuleFormats] = {"host-shared-object", "cubin",
                                                 "ptx"};
  unsigned i = unsigned(format);
  return i < kNumModuleFormats ? names[i] : "invalid";
}

//===----------------------------------------------------------------------===//
// Plain structs
//===----------------------------------------------------------------------===//

bool TensorDesc::isStatic() const {
  return std::all_of(shape.begin(), shape.end(),
                     [](int64_t d) { return d >= 0; });
}

std::optional<uint64_t> TensorDesc::numElements() const {
  uint64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return std::nullopt;
    if (d != 0 && n > uint64_t(INT64_MAX) / uint64_t(d))
      return std::nullopt;
    n *= uint64_t(d);
  }
  return n;
}

std::optional<uint64_t> TensorDesc::byteSize() const {
  std::optional<uint64_t> n = numElements();
  size_t elem = dtypeSize(dtype);
  if (!n || elem == 0 || *n > uint64_t(INT64_MAX) / elem)
    return std::nullopt;
  return *n * elem;
}

bool TensorDesc::operator==(const TensorDesc &o) const {
  return name == o.name && dtype == o.dtype && shape == o.shape &&
         dimNames == o.dimNames;
}
bool Binding::operator==(const Binding &o) const {
  return desc == o.desc && buffer == o.buffer && offset == o.offset &&
         fixedValue == o.fixedValue;
}
bool Buffer::operator==(const Buffer &o) const {
  return kind == o.kind && sizeBytes == o.sizeBytes && offset == o.offset &&
         alignment == o.alignment && contentHash == o.contentHash;
}
bool Kernel::operator==(const Kernel &o) const {
  return name == o.name && module == o.module && symbol == o.symbol &&
         numArgs == o.numArgs && numDims == o.numDims;
}
bool Arg::operator==(const Arg &o) const {
  return buffer == o.buffer && offset == o.offset && extent == o.extent;
}
bool ProvenanceEntry::operator==(const ProvenanceEntry &o) const {
  return key == o.key && value == o.value;
}
bool Step::operator==(const Step &o) const {
  return kernel == o.kernel && args == o.args && grid == o.grid &&
         block == o.block && sharedMemBytes == o.sharedMemBytes &&
         dims == o.dims && choice == o.choice && variant == o.variant;
}
bool TensorMap::operator==(const TensorMap &o) const {
  return buffer == o.buffer && source == o.source &&
         sourceOffset == o.sourceOffset && dtype == o.dtype && dims == o.dims &&
         strides == o.strides && box == o.box && swizzle == o.swizzle;
}
bool Choice::operator==(const Choice &o) const {
  return key == o.key && name == o.name && variants == o.variants &&
         selected == o.selected && timesMs == o.timesMs && device == o.device;
}

std::vector<uint32_t> Plan::selectedVariants() const {
  std::vector<uint32_t> out;
  out.reserve(choices.size());
  for (const Choice &c : choices)
    out.push_back(c.selected);
  return out;
}

uint64_t kiln::plan::tensorMapTableBytes(const Plan &plan) {
  uint64_t bytes = 0;
  for (const Buffer &b : plan.buffers)
    if (b.kind == BufferKind::TensorMap)
      bytes = std::max(bytes, b.offset + b.sizeBytes);
  return bytes;
}

std::vector<bool> kiln::plan::namedBuffers(const Plan &plan) {
  std::vector<bool> named(plan.buffers.size(), false);
  for (const Step &step : plan.steps)
    for (const Arg &a : step.args)
      if (a.buffer < named.size())
        named[a.buffer] = true;
  for (const TensorMap &m : plan.tensorMaps)
    if (m.source < named.size())
      named[m.source] = true;
  return named;
}

uint64_t kiln::plan::readableBytes(const Plan &plan, uint32_t buffer,
                                   const std::vector<bool> &named) {
  const Buffer &b = plan.buffers[buffer];
  uint64_t bytes = b.sizeBytes;
  if (b.kind != BufferKind::Weight)
    return bytes;
  for (size_t i = size_t(buffer) + 1; i < plan.buffers.size(); ++i) {
    const Buffer &next = plan.buffers[i];
    if (next.kind != BufferKind::Weight || (i < named.size() && named[i]) ||
        next.offset != b.offset + bytes)
      break;
    bytes += next.sizeBytes;
  }
  return bytes;
}

std::vector<uint64_t>
kiln::plan::readableBytesOfAll(const Plan &plan,
                               const std::vector<bool> &named) {
  size_t n = plan.buffers.size();
  std::vector<uint64_t> readable(n);
  for (size_t i = n; i-- > 0;) {
    const Buffer &b = plan.buffers[i];
    readable[i] = b.sizeBytes;
    if (b.kind != BufferKind::Weight || i + 1 == n)
      continue;
    // The chain from i goes on through i + 1 exactly when readableBytes'
    // loop would take i + 1; from there it is i + 1's own chain.
    const Buffer &next = plan.buffers[i + 1];
    if (next.kind == BufferKind::Weight &&
        !(i + 1 < named.size() && named[i + 1]) &&
        next.offset - b.offset == b.sizeBytes && next.offset >= b.offset)
      readable[i] += readable[i + 1];
  }
  return readable;
}

bool kiln::plan::stepRuns(const Step &step,
                          const std::vector<uint32_t> &selected) {
  return step.choice == 0 || (step.choice <= selected.size() &&
                              selected[step.choice - 1] == step.variant);
}

bool Plan::isStrippedBuffer(uint32_t index) const {
  return isWeightStripped() && index < buffers.size() &&
         buffers[index].kind == BufferKind::Weight &&
         buffers[index].contentHash != 0;
}

std::optional<ByteSpan> kiln::plan::weightBytes(const Plan &plan,
                                                uint32_t index) {
  if (index >= plan.buffers.size() ||
      plan.buffers[index].kind != BufferKind::Weight ||
      plan.isStrippedBuffer(index))
    return std::nullopt;
  const Buffer &b = plan.buffers[index];
  // validatePlan guarantees that stripped ranges are disjoint from inline
  // buffers, so every stripped buffer before this one is cut out before it.
  uint64_t offset = b.offset;
  for (uint32_t i = 0; i < plan.buffers.size(); ++i)
    if (plan.isStrippedBuffer(i) && plan.buffers[i].offset < b.offset)
      offset -= plan.buffers[i].sizeBytes;
  if (!fits(offset, b.sizeBytes, plan.weights.size))
    return std::nullopt;
  return ByteSpan{plan.weights.data + offset, size_t(b.sizeBytes)};
}
