//===- PlanIO.cpp - PlanWriter, PlanReader and plan validation ------------===//

#include "kiln/Plan/PlanIO.h"

#include "kiln/Plan/Plan_generated.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace kiln::plan;
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

/// Plans above this arena size are refused as corrupt rather than attempted.
static constexpr uint64_t kMaxArenaBytes = uint64_t(1) << 46;
/// Generous bound on ranks; keeps size computations and messages sane.
static constexpr size_t kMaxRank = 64;
/// Largest alignment a buffer may ask for (the arena's base alignment).
static constexpr uint32_t kMaxAlignment = 4096;
/// Bound on an execution context's tensor-map table (131072 descriptors):
/// keeps a corrupt offset from asking every context for terabytes.
static constexpr uint64_t kMaxTensorMapTableBytes = uint64_t(1) << 24;
/// cuTensorMapEncodeTiled's limits: globalDim <= 2^32, globalStrides < 2^40,
/// boxDim <= 256, a 16-byte aligned global address and strides.
static constexpr uint64_t kMaxTensorMapDim = uint64_t(1) << 32;
static constexpr uint64_t kTensorMapStrideLimit = uint64_t(1) << 40;
static constexpr uint32_t kMaxTensorMapBox = 256;
static constexpr uint64_t kTensorMapAddressAlignment = 16;
/// FlatBuffers' own limit (32-bit offsets), with room for the tables.
static constexpr uint64_t kMaxFlatbufferBytes = (uint64_t(1) << 31) - (1 << 20);

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
  return name == o.name && module == o.module && symbol == o.symbol;
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

bool kiln::plan::stepRuns(const Step &step,
                          const std::vector<uint32_t> &selected) {
  return step.choice == 0 || (step.choice <= selected.size() &&
                              selected[step.choice - 1] == step.variant);
}

static bool fits(uint64_t offset, uint64_t size, uint64_t limit);

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

//===----------------------------------------------------------------------===//
// Semantic validation
//===----------------------------------------------------------------------===//

static Status invalid(const std::string &message) {
  return Status(StatusCode::InvalidPlan, "invalid plan: " + message);
}

static std::string u64(uint64_t v) { return std::to_string(v); }

/// Whether [offset, offset + size) lies within [0, limit), without overflow.
static bool fits(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

static Status validateDesc(const TensorDesc &desc, const std::string &what) {
  if (desc.name.empty())
    return invalid(what + " has an empty name");
  if (unsigned(desc.dtype) >= kNumDTypes)
    return invalid(what + " '" + desc.name + "' has invalid dtype " +
                   std::to_string(unsigned(desc.dtype)));
  if (desc.shape.size() > kMaxRank)
    return invalid(what + " '" + desc.name + "' has rank " +
                   u64(desc.shape.size()) + ", more than " + u64(kMaxRank));
  for (size_t i = 0; i < desc.shape.size(); ++i)
    if (desc.shape[i] < -1)
      return invalid(what + " '" + desc.name + "' has dimension " + u64(i) +
                     " = " + std::to_string(desc.shape[i]) +
                     ", expected >= 0 or -1 (dynamic)");
  if (!desc.dimNames.empty() && desc.dimNames.size() != desc.shape.size())
    return invalid(what + " '" + desc.name + "' has " +
                   u64(desc.dimNames.size()) + " dimension names for rank " +
                   u64(desc.shape.size()));
  if (desc.isStatic() && !desc.byteSize())
    return invalid(what + " '" + desc.name + "' is too large (size overflows)");
  return Status::success();
}

static Status validateBindings(const Plan &plan,
                               const std::vector<Binding> &bindings,
                               BufferKind kind, const char *what,
                               std::vector<unsigned> &boundCount) {
  for (size_t i = 0; i < bindings.size(); ++i) {
    const Binding &b = bindings[i];
    std::string label = std::string(what) + " " + u64(i);
    if (Status s = validateDesc(b.desc, label); !s)
      return s;
    label += " '" + b.desc.name + "'";
    if (b.buffer >= plan.buffers.size())
      return invalid(label + " refers to buffer " + u64(b.buffer) +
                     ", but the plan has " + u64(plan.buffers.size()));
    const Buffer &buf = plan.buffers[b.buffer];
    if (buf.kind != kind)
      return invalid(label + " is bound to buffer " + u64(b.buffer) +
                     " of kind " + bufferKindName(buf.kind) + ", expected " +
                     bufferKindName(kind));
    if (b.offset != 0)
      return invalid(label + " has offset " + u64(b.offset) +
                     " into its buffer, expected 0");
    if (std::optional<uint64_t> bytes = b.desc.byteSize();
        bytes && *bytes != buf.sizeBytes)
      return invalid(label + " needs " + u64(*bytes) + " bytes, but buffer " +
                     u64(b.buffer) + " has " + u64(buf.sizeBytes));
    if (!b.fixedValue.empty()) {
      if (kind != BufferKind::Input)
        return invalid(label + " has a fixed value, but only inputs can");
      std::optional<uint64_t> bytes = b.desc.byteSize();
      if (!bytes)
        return invalid(label + " has a fixed value but a dynamic shape");
      if (*bytes != b.fixedValue.size())
        return invalid(label + " has a fixed value of " +
                       u64(b.fixedValue.size()) + " bytes, expected " +
                       u64(*bytes));
    }
    ++boundCount[b.buffer];
  }
  return Status::success();
}

/// A weight-stripped plan's file holds its logical weights section minus the
/// stripped buffers' bytes. For that cut to be well defined the stripped
/// ranges must be non-empty and disjoint, inline Weight buffers must not
/// overlap them, and the sizes must add up.
static Status validateStrippedWeights(const Plan &plan) {
  struct Range {
    uint64_t offset, size;
    size_t buffer;
  };
  std::vector<Range> stripped;
  uint64_t strippedBytes = 0;
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    if (!plan.isStrippedBuffer(uint32_t(i)))
      continue;
    const Buffer &b = plan.buffers[i];
    if (b.sizeBytes == 0)
      return invalid("buffer " + u64(i) + " is stripped but has 0 bytes");
    stripped.push_back({b.offset, b.sizeBytes, i});
    strippedBytes += b.sizeBytes; // no overflow: each fits in the section
  }
  if (stripped.empty())
    return invalid("the plan is weight-stripped (" +
                   u64(plan.strippedWeightsSize) +
                   " bytes of weights) but no Weight buffer has a content "
                   "hash, so none is stripped");
  std::sort(stripped.begin(), stripped.end(),
            [](const Range &a, const Range &b) { return a.offset < b.offset; });
  for (size_t k = 1; k < stripped.size(); ++k)
    if (stripped[k].offset < stripped[k - 1].offset + stripped[k - 1].size)
      return invalid("stripped buffers " + u64(stripped[k - 1].buffer) +
                     " and " + u64(stripped[k].buffer) + " overlap");
  if (strippedBytes > plan.strippedWeightsSize ||
      plan.strippedWeightsSize - strippedBytes != plan.weights.size)
    return invalid("the logical weights section has " +
                   u64(plan.strippedWeightsSize) + " bytes and " +
                   u64(strippedBytes) +
                   " of them are stripped, so the file should hold " +
                   (strippedBytes > plan.strippedWeightsSize
                        ? std::string("a negative number of")
                        : u64(plan.strippedWeightsSize - strippedBytes)) +
                   " bytes of weights, but it holds " + u64(plan.weights.size));
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const Buffer &b = plan.buffers[i];
    if (b.kind != BufferKind::Weight || b.contentHash != 0 || b.sizeBytes == 0)
      continue;
    // The last stripped range starting at or before b, and the next one.
    auto next = std::upper_bound(
        stripped.begin(), stripped.end(), b.offset,
        [](uint64_t off, const Range &r) { return off < r.offset; });
    bool overlap =
        (next != stripped.begin() &&
         std::prev(next)->offset + std::prev(next)->size > b.offset) ||
        (next != stripped.end() && next->offset - b.offset < b.sizeBytes);
    if (overlap)
      return invalid("weight buffer " + u64(i) +
                     " overlaps the bytes of a stripped buffer");
  }
  return Status::success();
}

static std::string choiceLabel(const Plan &plan, size_t index) {
  return "choice " + u64(index) + " '" + plan.choices[index].name + "'";
}

/// Tactic choices: each selects one of its variants, and the steps of every
/// variant exist, so that whichever variant runs, its region is computed.
static Status validateChoices(const Plan &plan) {
  for (size_t c = 0; c < plan.choices.size(); ++c) {
    const Choice &choice = plan.choices[c];
    std::string label = choiceLabel(plan, c);
    size_t n = choice.variants.size();
    if (n == 0)
      return invalid(label + " has no variants");
    if (choice.selected >= n)
      return invalid(label + " selects variant " + u64(choice.selected) +
                     ", but it has " + u64(n) + " variants");
    if (!choice.timesMs.empty() && choice.timesMs.size() != n)
      return invalid(label + " has " + u64(choice.timesMs.size()) +
                     " times for " + u64(n) +
                     " variants, expected none or one per variant");
    for (size_t v = 0; v < choice.timesMs.size(); ++v)
      if (!std::isfinite(choice.timesMs[v]) || choice.timesMs[v] < 0)
        return invalid(label + " has time " +
                       std::to_string(choice.timesMs[v]) + " ms for variant " +
                       u64(v) + ", expected a finite number >= 0");
  }
  std::vector<std::vector<bool>> hasSteps(plan.choices.size());
  for (size_t c = 0; c < plan.choices.size(); ++c)
    hasSteps[c].assign(plan.choices[c].variants.size(), false);
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const Step &s = plan.steps[i];
    if (s.choice == 0) {
      if (s.variant != 0)
        return invalid("step " + u64(i) + " has variant " + u64(s.variant) +
                       " but belongs to no choice");
      continue;
    }
    if (s.choice > plan.choices.size())
      return invalid("step " + u64(i) + " refers to choice " +
                     u64(s.choice - 1) + " (Step::choice " + u64(s.choice) +
                     "), but the plan has " + u64(plan.choices.size()) +
                     " choices");
    size_t c = s.choice - 1;
    if (s.variant >= plan.choices[c].variants.size())
      return invalid("step " + u64(i) + ": " + choiceLabel(plan, c) + " has " +
                     u64(plan.choices[c].variants.size()) +
                     " variants, variant is " + u64(s.variant));
    hasSteps[c][s.variant] = true;
  }
  for (size_t c = 0; c < plan.choices.size(); ++c)
    for (size_t v = 0; v < hasSteps[c].size(); ++v)
      if (!hasSteps[c][v])
        return invalid("variant " + u64(v) + " ('" +
                       plan.choices[c].variants[v] + "') of " +
                       choiceLabel(plan, c) + " has no steps");
  return Status::success();
}

/// Each TensorMap buffer holds one descriptor of its own: two that overlap
/// would overwrite each other in the table.
static Status validateTensorMapBuffersDisjoint(const Plan &plan) {
  std::vector<std::pair<uint64_t, size_t>> maps;
  for (size_t i = 0; i < plan.buffers.size(); ++i)
    if (plan.buffers[i].kind == BufferKind::TensorMap)
      maps.emplace_back(plan.buffers[i].offset, i);
  std::sort(maps.begin(), maps.end());
  for (size_t k = 1; k < maps.size(); ++k)
    if (maps[k].first - maps[k - 1].first < kTensorMapBytes)
      return invalid(
          "tensor map buffers " + u64(maps[k - 1].second) + " and " +
          u64(maps[k].second) + " overlap in the tensor-map table (offsets " +
          u64(maps[k - 1].first) + " and " + u64(maps[k].first) + ")");
  return Status::success();
}

/// a * b + c, false on uint64 overflow.
static bool mulAdd(uint64_t a, uint64_t b, uint64_t c, uint64_t &out) {
  uint64_t product;
  return !__builtin_mul_overflow(a, b, &product) &&
         !__builtin_add_overflow(product, c, &out);
}

/// Tensor maps: what cuTensorMapEncodeTiled accepts (so that a valid plan
/// never fails to encode for a reason the plan could have avoided), every
/// byte they address inside their source buffer, and exactly one per
/// TensorMap buffer.
static Status validateTensorMaps(const Plan &plan) {
  std::vector<unsigned> filled(plan.buffers.size(), 0);
  std::vector<bool> named = namedBuffers(plan);
  for (size_t t = 0; t < plan.tensorMaps.size(); ++t) {
    const TensorMap &m = plan.tensorMaps[t];
    std::string label = "tensor map " + u64(t);
    if (m.buffer >= plan.buffers.size())
      return invalid(label + " fills buffer " + u64(m.buffer) +
                     ", but the plan has " + u64(plan.buffers.size()));
    if (plan.buffers[m.buffer].kind != BufferKind::TensorMap)
      return invalid(label + " fills buffer " + u64(m.buffer) + " of kind " +
                     bufferKindName(plan.buffers[m.buffer].kind) +
                     ", expected a tensor map buffer");
    ++filled[m.buffer];
    if (m.source >= plan.buffers.size())
      return invalid(label + " reads buffer " + u64(m.source) +
                     ", but the plan has " + u64(plan.buffers.size()));
    const Buffer &src = plan.buffers[m.source];
    if (src.kind == BufferKind::TensorMap)
      return invalid(label + " reads buffer " + u64(m.source) +
                     ", which is a tensor map buffer itself");
    if (unsigned(m.dtype) >= kNumDTypes)
      return invalid(label + " has invalid dtype " + u64(unsigned(m.dtype)));
    if (m.dtype == DType::boolean)
      return invalid(label + " has dtype bool, which TMA has no type for");
    size_t rank = m.dims.size();
    if (rank == 0 || rank > kMaxTensorMapRank)
      return invalid(label + " has rank " + u64(rank) + ", expected 1 to " +
                     u64(kMaxTensorMapRank));
    for (size_t i = 0; i < rank; ++i)
      if (m.dims[i] == 0 || m.dims[i] > kMaxTensorMapDim)
        return invalid(label + " has dims[" + u64(i) + "] = " + u64(m.dims[i]) +
                       ", expected 1 to 2^32");
    if (m.strides.size() != rank - 1)
      return invalid(label + " has " + u64(m.strides.size()) +
                     " strides for rank " + u64(rank) + ", expected " +
                     u64(rank - 1));
    for (size_t i = 0; i < m.strides.size(); ++i)
      if (m.strides[i] == 0 || m.strides[i] % kTensorMapAddressAlignment ||
          m.strides[i] >= kTensorMapStrideLimit)
        return invalid(label + " has strides[" + u64(i) +
                       "] = " + u64(m.strides[i]) +
                       " bytes, expected a positive multiple of 16 below 2^40");
    if (m.box.size() != rank)
      return invalid(label + " has " + u64(m.box.size()) +
                     " box entries for rank " + u64(rank) + ", expected " +
                     u64(rank));
    for (size_t i = 0; i < rank; ++i)
      if (m.box[i] == 0 || m.box[i] > kMaxTensorMapBox)
        return invalid(label + " has box[" + u64(i) + "] = " + u64(m.box[i]) +
                       ", expected 1 to " + u64(kMaxTensorMapBox));
    uint64_t elem = dtypeSize(m.dtype);
    uint64_t inner = m.box[0] * elem; // <= 256 * 8
    if (inner % kTensorMapAddressAlignment)
      return invalid(label + " has an inner box of " + u64(inner) +
                     " bytes (box[0] = " + u64(m.box[0]) + " " +
                     dtypeName(m.dtype) +
                     " elements), expected a multiple of 16");
    if (m.swizzle > 3)
      return invalid(label + " has swizzle " + u64(m.swizzle) +
                     ", expected 0 (none), 1 (32 B), 2 (64 B) or 3 (128 B)");
    if (m.swizzle > 0 && inner > (uint64_t(16) << m.swizzle))
      return invalid(label + " has an inner box of " + u64(inner) +
                     " bytes, more than the " + u64(uint64_t(16) << m.swizzle) +
                     "-byte span of its swizzle " + u64(m.swizzle));
    if (m.sourceOffset % kTensorMapAddressAlignment)
      return invalid(label + " has source offset " + u64(m.sourceOffset) +
                     ", expected a multiple of 16 (TMA's global address "
                     "alignment)");
    bool io = src.kind == BufferKind::Input || src.kind == BufferKind::Output;
    // I/O buffers are placed by the caller, whose device pointers the
    // runtime checks for 16-byte alignment; others are placed by the plan.
    if (!io && src.alignment < kTensorMapAddressAlignment)
      return invalid(label + " reads buffer " + u64(m.source) +
                     " with alignment " + u64(src.alignment) +
                     ", expected at least 16 (TMA's global address alignment)");
    // The last byte addressed: the end of the last element of every dim.
    uint64_t end = 0;
    bool ok = mulAdd(m.dims[0], elem, m.sourceOffset, end);
    for (size_t i = 1; i < rank && ok; ++i)
      ok = mulAdd(m.dims[i] - 1, m.strides[i - 1], end, end);
    if (!ok)
      return invalid(label + " addresses more than 2^64 bytes");
    // A dynamic-shape Input/Output has no size yet; its binding's shape is
    // checked against the buffer when shapes are known.
    if (io && src.sizeBytes == 0)
      continue;
    // Over a stacked weight's first part: all its parts.
    uint64_t readable = readableBytes(plan, m.source, named);
    if (end > readable)
      return invalid(label + " addresses " + u64(end) + " bytes of buffer " +
                     u64(m.source) + " (" + bufferKindName(src.kind) +
                     "), which has " + u64(src.sizeBytes) +
                     (readable != src.sizeBytes
                          ? " (" + u64(readable) + " with the parts after it)"
                          : std::string()));
  }
  for (size_t i = 0; i < plan.buffers.size(); ++i)
    if (plan.buffers[i].kind == BufferKind::TensorMap && filled[i] != 1)
      return invalid("buffer " + u64(i) + " (tensor map) is filled by " +
                     u64(filled[i]) + " tensor maps, expected one");
  return Status::success();
}

/// Step `step`'s argument `index`: the bytes [offset, offset + extent) it
/// lets the kernel touch lie inside its buffer (for a Weight buffer, its
/// readable bytes: a stacked weight's parts), and a tensor-map argument is
/// one whole CUtensorMap.
static Status validateArg(const Plan &plan, size_t step, size_t index,
                          const std::vector<bool> &named) {
  const Arg &arg = plan.steps[step].args[index];
  std::string label = "step " + u64(step) + " argument " + u64(index);
  if (arg.buffer >= plan.buffers.size())
    return invalid(label + " refers to buffer " + u64(arg.buffer) +
                   ", but the plan has " + u64(plan.buffers.size()));
  const Buffer &b = plan.buffers[arg.buffer];
  std::string where = "buffer " + u64(arg.buffer) + " (" +
                      bufferKindName(b.kind) + ", " + u64(b.sizeBytes) +
                      " bytes";
  uint64_t readable = readableBytes(plan, arg.buffer, named);
  if (readable != b.sizeBytes)
    where += ", " + u64(readable) + " with the stacked parts after it";
  where += ")";
  // cp.async.bulk.tensor takes the aligned address of a whole CUtensorMap,
  // never one inside it, and reads all of it.
  if (b.kind == BufferKind::TensorMap &&
      (arg.offset != 0 || arg.extent != kTensorMapBytes))
    return invalid(label + " has offset " + u64(arg.offset) + " and extent " +
                   u64(arg.extent) + " into tensor map " + where +
                   ", expected offset 0 and extent " + u64(kTensorMapBytes));
  if (arg.offset > readable)
    return invalid(label + " has offset " + u64(arg.offset) +
                   " past the end of " + where);
  if (arg.extent > readable - arg.offset)
    return invalid(label + " lets its kernel touch " + u64(arg.extent) +
                   " bytes from offset " + u64(arg.offset) +
                   ", past the end of " + where);
  if (arg.extent == 0 && arg.offset < readable)
    return invalid(label + " has extent 0 at offset " + u64(arg.offset) +
                   " of " + where +
                   ": extents are explicit in a plan (the writer resolves 0 "
                   "to the rest of the buffer)");
  return Status::success();
}

/// Provenance keys are non-empty and unique: they are looked up by name.
static Status validateProvenance(const Plan &plan) {
  std::set<std::string_view> keys;
  for (size_t i = 0; i < plan.provenance.size(); ++i) {
    const ProvenanceEntry &e = plan.provenance[i];
    if (e.key.empty())
      return invalid("provenance entry " + u64(i) + " has an empty key");
    if (!keys.insert(e.key).second)
      return invalid("provenance entry " + u64(i) + " repeats key '" + e.key +
                     "'");
  }
  return Status::success();
}

Status kiln::plan::validatePlan(const Plan &plan) {
  // Targets.
  if (plan.targets.empty())
    return invalid("no targets");
  for (size_t i = 0; i < plan.targets.size(); ++i) {
    const std::string &t = plan.targets[i];
    if (t.empty() || t.size() > 64)
      return invalid("target " + u64(i) + " has an invalid name");
    for (size_t j = 0; j < i; ++j)
      if (plan.targets[j] == t)
        return invalid("target '" + t + "' is listed twice");
  }

  // Buffers.
  if (plan.arenaBytes > kMaxArenaBytes)
    return invalid("arena of " + u64(plan.arenaBytes) +
                   " bytes exceeds the limit of " + u64(kMaxArenaBytes));
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const Buffer &b = plan.buffers[i];
    std::string label = "buffer " + u64(i);
    if (unsigned(b.kind) >= kNumBufferKinds)
      return invalid(label + " has invalid kind " + u64(unsigned(b.kind)));
    uint32_t maxAlign = b.kind == BufferKind::Weight
                            ? uint32_t(kWeightsAlignment)
                            : kMaxAlignment;
    if (b.alignment == 0 || (b.alignment & (b.alignment - 1)) ||
        b.alignment > maxAlign)
      return invalid(label + " has alignment " + u64(b.alignment) +
                     ", expected a power of two <= " + u64(maxAlign));
    switch (b.kind) {
    case BufferKind::Input:
    case BufferKind::Output:
      if (b.offset != 0)
        return invalid(label + " (" + bufferKindName(b.kind) + ") has offset " +
                       u64(b.offset) + ", expected 0");
      break;
    case BufferKind::Weight:
    case BufferKind::Activation:
    case BufferKind::Scratch: {
      bool weight = b.kind == BufferKind::Weight;
      uint64_t limit = !weight                 ? plan.arenaBytes
                       : plan.isWeightStripped() ? plan.strippedWeightsSize
                                                 : plan.weights.size;
      const char *where = !weight                  ? "arena"
                          : plan.isWeightStripped() ? "logical weights section"
                                                    : "weights section";
      if (b.offset % b.alignment)
        return invalid(label + " has offset " + u64(b.offset) +
                       " that is not a multiple of its alignment " +
                       u64(b.alignment));
      if (!fits(b.offset, b.sizeBytes, limit))
        return invalid(label + " (" + bufferKindName(b.kind) + ") at offset " +
                       u64(b.offset) + " with " + u64(b.sizeBytes) +
                       " bytes exceeds the " + where + " (" + u64(limit) +
                       " bytes)");
      break;
    }
    case BufferKind::TensorMap:
      // The runtime encodes a whole CUtensorMap there, and the driver and
      // cp.async.bulk.tensor want it 64-byte aligned.
      if (b.sizeBytes != kTensorMapBytes || b.alignment != kTensorMapAlignment)
        return invalid(label + " (tensor map) has " + u64(b.sizeBytes) +
                       " bytes and alignment " + u64(b.alignment) +
                       ", expected " + u64(kTensorMapBytes) + " and " +
                       u64(kTensorMapAlignment) + " (a CUtensorMap)");
      if (b.offset % kTensorMapAlignment)
        return invalid(label + " (tensor map) has offset " + u64(b.offset) +
                       " that is not a multiple of " +
                       u64(kTensorMapAlignment));
      if (!fits(b.offset, b.sizeBytes, kMaxTensorMapTableBytes))
        return invalid(label + " (tensor map) at offset " + u64(b.offset) +
                       " exceeds the limit of the tensor-map table (" +
                       u64(kMaxTensorMapTableBytes) + " bytes)");
      break;
    }
  }
  if (Status s = validateTensorMapBuffersDisjoint(plan); !s)
    return s;

  if (plan.isWeightStripped())
    if (Status s = validateStrippedWeights(plan); !s)
      return s;

  // I/O bindings: each Input/Output buffer is bound exactly once, names are
  // unique across inputs and outputs.
  std::vector<unsigned> boundCount(plan.buffers.size(), 0);
  if (Status s = validateBindings(plan, plan.inputs, BufferKind::Input, "input",
                                  boundCount);
      !s)
    return s;
  if (Status s = validateBindings(plan, plan.outputs, BufferKind::Output,
                                  "output", boundCount);
      !s)
    return s;
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    BufferKind k = plan.buffers[i].kind;
    if ((k == BufferKind::Input || k == BufferKind::Output) &&
        boundCount[i] != 1)
      return invalid("buffer " + u64(i) + " (" + bufferKindName(k) +
                     ") is bound " + u64(boundCount[i]) +
                     " times, expected once");
  }
  std::set<std::string> names;
  for (const auto *list : {&plan.inputs, &plan.outputs})
    for (const Binding &b : *list)
      if (!names.insert(b.desc.name).second)
        return invalid("two inputs/outputs are named '" + b.desc.name + "'");

  // Modules and kernels.
  for (size_t i = 0; i < plan.modules.size(); ++i) {
    const Module &m = plan.modules[i];
    std::string label = "module " + u64(i);
    if (std::find(plan.targets.begin(), plan.targets.end(), m.target) ==
        plan.targets.end())
      return invalid(label + " has target '" + m.target +
                     "', which is not in the plan's target list");
    if (unsigned(m.format) >= kNumModuleFormats)
      return invalid(label + " has invalid format " + u64(unsigned(m.format)));
    bool hostFormat = m.format == ModuleFormat::HostSharedObject;
    if (hostFormat != (m.target == "host"))
      return invalid(label + " for target '" + m.target + "' has format " +
                     moduleFormatName(m.format));
    if (m.data.size == 0 || !m.data.data)
      return invalid(label + " is empty");
  }
  for (size_t i = 0; i < plan.kernels.size(); ++i) {
    const Kernel &k = plan.kernels[i];
    if (k.module >= plan.modules.size())
      return invalid("kernel " + u64(i) + " '" + k.name +
                     "' refers to module " + u64(k.module) +
                     ", but the plan has " + u64(plan.modules.size()));
    if (k.symbol.empty())
      return invalid("kernel " + u64(i) + " '" + k.name + "' has no symbol");
  }

  if (Status s = validateTensorMaps(plan); !s)
    return s;

  // Steps.
  std::vector<bool> named = namedBuffers(plan);
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const Step &s = plan.steps[i];
    std::string label = "step " + u64(i);
    if (s.kernel >= plan.kernels.size())
      return invalid(label + " refers to kernel " + u64(s.kernel) +
                     ", but the plan has " + u64(plan.kernels.size()));
    for (size_t a = 0; a < s.args.size(); ++a) {
      const Arg &arg = s.args[a];
      if (arg.buffer >= plan.buffers.size())
        return invalid(label + " argument " + u64(a) + " refers to buffer " +
                       u64(arg.buffer) + ", but the plan has " +
                       u64(plan.buffers.size()));
      if (Status st = validateArg(plan, i, a, named); !st)
        return st;
    }
    for (int d = 0; d < 3; ++d)
      if (s.grid[d] == 0 || s.block[d] == 0)
        return invalid(label + " has a zero grid or block dimension");
  }
  if (Status s = validateChoices(plan); !s)
    return s;
  return validateProvenance(plan);
}

//===----------------------------------------------------------------------===//
// PlanWriter
//===----------------------------------------------------------------------===//

struct PlanWriter::Serialized {
  uint8_t header[kPlanHeaderSize];
  flatbuffers::DetachedBuffer flatbuffer;
  size_t padding = 0;
  const std::vector<uint8_t> *weights = nullptr;
  /// The weights section when filled stripped weights were spliced in.
  std::vector<uint8_t> assembledWeights;
  uint64_t totalSize = 0;
};

static const uint8_t kZeros[kWeightsAlignment] = {};

PlanWriter::PlanWriter(std::string compilerVersion)
    : compilerVersion_(std::move(compilerVersion)) {}

void PlanWriter::addTarget(const std::string &target) {
  if (std::find(targets_.begin(), targets_.end(), target) == targets_.end())
    targets_.push_back(target);
}

PlanWriter PlanWriter::fromPlan(const Plan &plan) {
  PlanWriter w(plan.compilerVersion);
  w.targets_ = plan.targets;
  w.minDriverVersion_ = plan.minDriverVersion;
  w.inputs_ = plan.inputs;
  w.outputs_ = plan.outputs;
  w.buffers_ = plan.buffers;
  w.arena_ = std::make_pair(plan.arenaBytes, plan.arenaBytesWithoutReuse);
  if (plan.weights.size)
    w.weights_.assign(plan.weights.data, plan.weights.data + plan.weights.size);
  w.weightsEnd_ =
      plan.isWeightStripped() ? plan.strippedWeightsSize : plan.weights.size;
  for (uint32_t i = 0; i < plan.buffers.size(); ++i)
    if (plan.isStrippedBuffer(i))
      w.stripped_[i] = std::nullopt;
  for (const Module &m : plan.modules)
    w.modules_.push_back(ModuleData{
        m.target, m.format,
        std::vector<uint8_t>(m.data.data, m.data.data + m.data.size)});
  w.kernels_ = plan.kernels;
  w.steps_ = plan.steps;
  w.choices_ = plan.choices;
  w.tensorMaps_ = plan.tensorMaps;
  w.provenance_ = plan.provenance;
  return w;
}

/// Zero-pads the logical weights section to a multiple of `alignment` and
/// returns the new end.
static uint64_t padWeights(std::vector<uint8_t> &file, uint64_t &end,
                           uint32_t alignment) {
  if (alignment == 0)
    alignment = 1;
  uint64_t offset = (end + alignment - 1) / alignment * alignment;
  file.resize(file.size() + size_t(offset - end), 0);
  end = offset;
  return offset;
}

uint64_t PlanWriter::addWeights(const void *data, size_t size,
                                uint32_t alignment) {
  uint64_t offset = padWeights(weights_, weightsEnd_, alignment);
  const uint8_t *p = static_cast<const uint8_t *>(data);
  if (size)
    weights_.insert(weights_.end(), p, p + size);
  weightsEnd_ += size;
  return offset;
}

uint32_t PlanWriter::addStrippedWeightBuffer(const void *data, size_t size,
                                             uint32_t alignment) {
  uint64_t hash = size ? xxh64(data, size) : 0;
  if (hash == 0)
    return addWeightBuffer(data, size, alignment);
  uint64_t offset = padWeights(weights_, weightsEnd_, alignment);
  weightsEnd_ += size;
  uint32_t index = addBuffer(BufferKind::Weight, size, offset, alignment);
  buffers_[index].contentHash = hash;
  stripped_[index] = std::nullopt;
  return index;
}

Status PlanWriter::fillStrippedWeight(uint32_t buffer, const void *data,
                                      size_t size) {
  auto it = stripped_.find(buffer);
  if (it == stripped_.end())
    return Status(StatusCode::InvalidArgument,
                  "buffer " + u64(buffer) + " is not a stripped weight");
  const Buffer &b = buffers_[buffer];
  if (size != b.sizeBytes)
    return Status(StatusCode::InvalidArgument,
                  "stripped buffer " + u64(buffer) + " has " +
                      u64(b.sizeBytes) + " bytes, got " + u64(size));
  uint64_t hash = xxh64(data, size);
  if (hash != b.contentHash) {
    char buf[96];
    std::snprintf(buf, sizeof(buf), " (expected %016" PRIx64 ", got %016" PRIx64 ")",
                  b.contentHash, hash);
    return Status(StatusCode::InvalidArgument,
                  "bytes for stripped buffer " + u64(buffer) +
                      " have the wrong XXH64" + buf);
  }
  const uint8_t *p = static_cast<const uint8_t *>(data);
  it->second = std::vector<uint8_t>(p, p + size);
  return Status::success();
}

std::vector<uint32_t> PlanWriter::unfilledStrippedBuffers() const {
  std::vector<uint32_t> out;
  for (const auto &[buffer, bytes] : stripped_)
    if (!bytes)
      out.push_back(buffer);
  return out;
}

uint32_t PlanWriter::addWeightBuffer(const void *data, size_t size,
                                     uint32_t alignment) {
  uint64_t offset = addWeights(data, size, alignment);
  return addBuffer(BufferKind::Weight, size, offset, alignment);
}

uint32_t PlanWriter::addBuffer(BufferKind kind, uint64_t sizeBytes,
                               uint64_t offset, uint32_t alignment) {
  buffers_.push_back(Buffer{kind, sizeBytes, offset, alignment});
  return uint32_t(buffers_.size() - 1);
}

uint32_t PlanWriter::addInput(TensorDesc desc,
                              std::vector<uint8_t> fixedValue) {
  uint32_t buffer =
      addBuffer(BufferKind::Input, desc.byteSize().value_or(0), 0, 64);
  inputs_.push_back(Binding{std::move(desc), buffer, 0, std::move(fixedValue)});
  return buffer;
}

uint32_t PlanWriter::addOutput(TensorDesc desc) {
  uint32_t buffer =
      addBuffer(BufferKind::Output, desc.byteSize().value_or(0), 0, 64);
  outputs_.push_back(Binding{std::move(desc), buffer, 0, {}});
  return buffer;
}

void PlanWriter::setArenaBytes(uint64_t bytes, uint64_t bytesWithoutReuse) {
  arena_ = std::make_pair(bytes, bytesWithoutReuse);
}

uint32_t PlanWriter::addModule(const std::string &target, ModuleFormat format,
                               const void *data, size_t size) {
  addTarget(target);
  const uint8_t *p = static_cast<const uint8_t *>(data);
  modules_.push_back(ModuleData{target, format,
                                p ? std::vector<uint8_t>(p, p + size)
                                  : std::vector<uint8_t>()});
  return uint32_t(modules_.size() - 1);
}

uint32_t PlanWriter::addKernel(std::string name, uint32_t module,
                               std::string symbol) {
  kernels_.push_back(Kernel{std::move(name), module, std::move(symbol)});
  return uint32_t(kernels_.size() - 1);
}

uint32_t PlanWriter::addStep(Step step) {
  steps_.push_back(std::move(step));
  return uint32_t(steps_.size() - 1);
}

uint32_t PlanWriter::addChoice(Choice choice) {
  choices_.push_back(std::move(choice));
  return uint32_t(choices_.size());
}

void PlanWriter::addProvenance(std::string key, std::string value) {
  for (ProvenanceEntry &e : provenance_)
    if (e.key == key) {
      e.value = std::move(value);
      return;
    }
  provenance_.push_back(ProvenanceEntry{std::move(key), std::move(value)});
}

uint32_t PlanWriter::addTensorMap(TensorMap map) {
  tensorMaps_.push_back(std::move(map));
  return uint32_t(tensorMaps_.size() - 1);
}

static flatbuffers::Offset<fbs::Binding>
buildBinding(flatbuffers::FlatBufferBuilder &fbb, const Binding &b) {
  auto name = fbb.CreateString(b.desc.name);
  auto shape = fbb.CreateVector(b.desc.shape);
  auto dimNames = fbb.CreateVectorOfStrings(b.desc.dimNames);
  auto desc = fbs::CreateTensorDesc(fbb, name, fbs::DType(b.desc.dtype), shape,
                                    dimNames);
  flatbuffers::Offset<flatbuffers::Vector<uint8_t>> fixed;
  if (!b.fixedValue.empty())
    fixed = fbb.CreateVector(b.fixedValue);
  return fbs::CreateBinding(fbb, desc, b.buffer, b.offset, fixed);
}

Status PlanWriter::build(Serialized &out) const {
  // Validate exactly what will be written.
  Plan view;
  view.compilerVersion = compilerVersion_;
  view.targets = targets_;
  view.minDriverVersion = minDriverVersion_;
  view.inputs = inputs_;
  view.outputs = outputs_;
  view.buffers = buffers_;
  if (arena_) {
    view.arenaBytes = arena_->first;
    view.arenaBytesWithoutReuse = arena_->second;
  } else {
    for (const Buffer &b : buffers_)
      if (b.kind == BufferKind::Activation || b.kind == BufferKind::Scratch)
        view.arenaBytes = std::max(view.arenaBytes, b.offset + b.sizeBytes);
    view.arenaBytesWithoutReuse = view.arenaBytes;
  }
  uint64_t moduleBytes = 0;
  for (const ModuleData &m : modules_) {
    view.modules.push_back(
        Module{m.target, m.format, ByteSpan{m.bytes.data(), m.bytes.size()}});
    moduleBytes += m.bytes.size();
  }
  view.kernels = kernels_;
  view.steps = steps_;
  view.choices = choices_;
  view.tensorMaps = tensorMaps_;
  view.provenance = provenance_;
  out.weights = &weights_;
  bool anyUnfilled = false, anyFilled = false;
  for (const auto &[buffer, bytes] : stripped_)
    (bytes ? anyFilled : anyUnfilled) = true;
  view.strippedWeightsSize = anyUnfilled ? weightsEnd_ : 0;
  if (anyFilled) {
    // Splice the filled bytes back between the file bytes, in logical order.
    std::vector<std::pair<uint64_t, uint32_t>> order;
    for (const auto &[buffer, bytes] : stripped_)
      order.emplace_back(buffers_[buffer].offset, buffer);
    std::sort(order.begin(), order.end());
    std::vector<uint8_t> &all = out.assembledWeights;
    uint64_t fileAt = 0, logicalAt = 0;
    for (const auto &[offset, buffer] : order) {
      if (offset < logicalAt || offset - logicalAt > weights_.size() - fileAt)
        return invalid("stripped buffer " + u64(buffer) +
                       " overlaps another or lies outside the weights section")
            .withContext("cannot write plan");
      all.insert(all.end(), weights_.begin() + fileAt,
                 weights_.begin() + (fileAt + offset - logicalAt));
      fileAt += offset - logicalAt;
      if (const auto &bytes = stripped_.at(buffer)) {
        all.insert(all.end(), bytes->begin(), bytes->end());
        view.buffers[buffer].contentHash = 0;
      }
      logicalAt = offset + buffers_[buffer].sizeBytes;
    }
    all.insert(all.end(), weights_.begin() + fileAt, weights_.end());
    out.weights = &all;
  }
  view.weights = ByteSpan{out.weights->data(), out.weights->size()};
  // Extent 0 means "the rest of the buffer" here; the file says it exactly.
  std::vector<bool> named = namedBuffers(view);
  for (Step &s : view.steps)
    for (Arg &a : s.args)
      if (a.extent == 0 && a.buffer < view.buffers.size()) {
        uint64_t readable = readableBytes(view, a.buffer, named);
        a.extent = a.offset < readable ? readable - a.offset : 0;
      }
  if (Status s = validatePlan(view); !s)
    return s.withContext("cannot write plan");
  if (moduleBytes > kMaxFlatbufferBytes)
    return Status(StatusCode::InvalidArgument,
                  "cannot write plan: its modules take " + u64(moduleBytes) +
                      " bytes; the plan format keeps modules under 2 GiB");

  flatbuffers::FlatBufferBuilder fbb(size_t(moduleBytes) + 4096);
  std::vector<flatbuffers::Offset<fbs::Binding>> inputs, outputs;
  for (const Binding &b : view.inputs)
    inputs.push_back(buildBinding(fbb, b));
  for (const Binding &b : view.outputs)
    outputs.push_back(buildBinding(fbb, b));
  std::vector<flatbuffers::Offset<fbs::Buffer>> buffers;
  for (const Buffer &b : view.buffers)
    buffers.push_back(fbs::CreateBuffer(fbb, fbs::BufferKind(b.kind),
                                        b.sizeBytes, b.offset, b.alignment,
                                        b.contentHash));
  std::vector<flatbuffers::Offset<fbs::Module>> modules;
  for (const Module &m : view.modules) {
    auto target = fbb.CreateString(m.target);
    fbb.ForceVectorAlignment(m.data.size, 1, 16);
    auto data = fbb.CreateVector(m.data.data, m.data.size);
    modules.push_back(
        fbs::CreateModule(fbb, target, fbs::ModuleFormat(m.format), data));
  }
  std::vector<flatbuffers::Offset<fbs::Kernel>> kernels;
  for (const Kernel &k : view.kernels) {
    auto name = fbb.CreateString(k.name);
    auto symbol = fbb.CreateString(k.symbol);
    kernels.push_back(fbs::CreateKernel(fbb, name, k.module, symbol));
  }
  std::vector<flatbuffers::Offset<fbs::Step>> steps;
  for (const Step &s : view.steps) {
    std::vector<fbs::Arg> args;
    for (const Arg &a : s.args)
      args.emplace_back(a.buffer, a.offset, a.extent);
    auto argsVec = fbb.CreateVectorOfStructs(args);
    auto grid = fbb.CreateVector(s.grid.data(), 3);
    auto block = fbb.CreateVector(s.block.data(), 3);
    auto dims = fbb.CreateVector(s.dims);
    steps.push_back(fbs::CreateStep(fbb, s.kernel, argsVec, grid, block,
                                    s.sharedMemBytes, dims, s.choice,
                                    s.variant));
  }
  // Absent (not empty) without choices: such plans stay byte-identical to
  // the ones written before choices existed.
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fbs::Choice>>>
      choicesVec;
  if (!view.choices.empty()) {
    std::vector<flatbuffers::Offset<fbs::Choice>> choices;
    for (const Choice &c : view.choices) {
      auto key = fbb.CreateString(c.key);
      auto name = fbb.CreateString(c.name);
      auto variants = fbb.CreateVectorOfStrings(c.variants);
      flatbuffers::Offset<flatbuffers::Vector<double>> times;
      if (!c.timesMs.empty())
        times = fbb.CreateVector(c.timesMs);
      auto device = fbb.CreateString(c.device);
      choices.push_back(fbs::CreateChoice(fbb, key, name, variants, c.selected,
                                          times, device));
    }
    choicesVec = fbb.CreateVector(choices);
  }
  // Likewise absent without tensor maps.
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fbs::TensorMap>>>
      tensorMapsVec;
  if (!view.tensorMaps.empty()) {
    std::vector<flatbuffers::Offset<fbs::TensorMap>> maps;
    for (const TensorMap &m : view.tensorMaps) {
      auto dims = fbb.CreateVector(m.dims);
      auto strides = fbb.CreateVector(m.strides);
      auto box = fbb.CreateVector(m.box);
      maps.push_back(fbs::CreateTensorMap(fbb, m.buffer, m.source,
                                          m.sourceOffset, fbs::DType(m.dtype),
                                          dims, strides, box, m.swizzle));
    }
    tensorMapsVec = fbb.CreateVector(maps);
  }
  flatbuffers::Offset<
      flatbuffers::Vector<flatbuffers::Offset<fbs::ProvenanceEntry>>>
      provenanceVec;
  if (!view.provenance.empty()) {
    std::vector<flatbuffers::Offset<fbs::ProvenanceEntry>> entries;
    for (const ProvenanceEntry &e : view.provenance) {
      auto key = fbb.CreateString(e.key);
      auto value = fbb.CreateString(e.value);
      entries.push_back(fbs::CreateProvenanceEntry(fbb, key, value));
    }
    provenanceVec = fbb.CreateVector(entries);
  }
  auto root = fbs::CreatePlan(
      fbb, fbb.CreateString(view.compilerVersion),
      fbb.CreateVectorOfStrings(view.targets), view.minDriverVersion,
      fbb.CreateVector(inputs), fbb.CreateVector(outputs),
      fbb.CreateVector(buffers), view.arenaBytes, view.arenaBytesWithoutReuse,
      view.weights.size, fbb.CreateVector(modules), fbb.CreateVector(kernels),
      fbb.CreateVector(steps), view.strippedWeightsSize, choicesVec,
      tensorMapsVec, provenanceVec);
  fbs::FinishPlanBuffer(fbb, root);
  if (fbb.GetSize() > kMaxFlatbufferBytes)
    return Status(StatusCode::InvalidArgument,
                  "cannot write plan: its FlatBuffer part takes " +
                      u64(fbb.GetSize()) +
                      " bytes; the plan format allows 2 GiB");
  out.flatbuffer = fbb.Release();

  uint64_t weightsOffset =
      weightsSectionOffset(kPlanHeaderSize, uint32_t(out.flatbuffer.size()));
  out.padding = size_t(weightsOffset - kPlanHeaderSize - out.flatbuffer.size());
  out.totalSize = weightsOffset + out.weights->size();

  PlanHeader h{};
  std::memcpy(h.magic, kPlanMagic, 8);
  h.formatVersion = kPlanFormatVersion;
  h.headerSize = kPlanHeaderSize;
  std::memcpy(h.compilerVersion, view.compilerVersion.data(),
              std::min<size_t>(view.compilerVersion.size(), 15));
  h.targetMask = targetMask(view.targets);
  h.minDriverVersion = view.minDriverVersion;
  h.flatbufferSize = uint32_t(out.flatbuffer.size());
  h.payloadSize = out.totalSize - kPlanHeaderSize;
  encodeHeader(h, out.header);
  Xxh64 hasher(xxh64(out.header, 56));
  hasher.update(out.flatbuffer.data(), out.flatbuffer.size());
  hasher.update(kZeros, out.padding);
  hasher.update(out.weights->data(), out.weights->size());
  h.checksum = hasher.digest();
  encodeHeader(h, out.header);
  return Status::success();
}

Status PlanWriter::serialize(std::vector<uint8_t> &bytes) const {
  Serialized s;
  if (Status st = build(s); !st)
    return st;
  bytes.clear();
  bytes.reserve(size_t(s.totalSize));
  bytes.insert(bytes.end(), s.header, s.header + kPlanHeaderSize);
  bytes.insert(bytes.end(), s.flatbuffer.data(),
               s.flatbuffer.data() + s.flatbuffer.size());
  bytes.insert(bytes.end(), kZeros, kZeros + s.padding);
  bytes.insert(bytes.end(), s.weights->begin(), s.weights->end());
  return Status::success();
}

static Status ioError(const std::string &what, const std::string &path,
                      int err) {
  return Status(StatusCode::IOError,
                what + " '" + path + "': " + std::strerror(err));
}

static bool writeAll(int fd, const void *data, size_t size) {
  const uint8_t *p = static_cast<const uint8_t *>(data);
  while (size) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;
      return false;
    }
    p += n;
    size -= size_t(n);
  }
  return true;
}

Status kiln::plan::writeFileAtomically(const std::string &path,
                                       const std::vector<ByteSpan> &pieces,
                                       const std::string &what) {
  // A unique name in the same directory, so that rename() is atomic.
  static std::atomic<unsigned> counter{0};
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = path + ".tmp." + std::to_string(::getpid()) + "." +
          std::to_string(counter++);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST)
      return ioError("cannot create temporary file", tmp, errno);
  }
  if (fd < 0)
    return ioError("cannot create temporary file", tmp, EEXIST);

  auto fail = [&](const char *why) {
    int err = errno;
    if (fd >= 0)
      ::close(fd);
    ::unlink(tmp.c_str());
    return ioError("cannot write " + what + ": " + why, path, err);
  };
  for (const ByteSpan &piece : pieces)
    if (!writeAll(fd, piece.data, piece.size))
      return fail("write failed");
  if (::fsync(fd) != 0)
    return fail("fsync failed");
  int closeResult = ::close(fd);
  fd = -1;
  if (closeResult != 0)
    return fail("close failed");
  if (::rename(tmp.c_str(), path.c_str()) != 0)
    return fail("rename failed");

  // Persist the rename itself; failures here do not undo a complete write.
  std::string dir = path.substr(0, path.find_last_of('/') + 1);
  int dirFd = ::open(dir.empty() ? "." : dir.c_str(),
                     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd >= 0) {
    ::fsync(dirFd);
    ::close(dirFd);
  }
  return Status::success();
}

Status PlanWriter::writeFileAtomically(const std::string &path) const {
  Serialized s;
  if (Status st = build(s); !st)
    return st;
  return plan::writeFileAtomically(
      path,
      {ByteSpan{s.header, kPlanHeaderSize},
       ByteSpan{s.flatbuffer.data(), s.flatbuffer.size()},
       ByteSpan{kZeros, s.padding},
       ByteSpan{s.weights->data(), s.weights->size()}},
      "plan");
}

//===----------------------------------------------------------------------===//
// PlanReader
//===----------------------------------------------------------------------===//

static Status corrupt(const std::string &message) {
  return Status(StatusCode::InvalidPlan, "plan is corrupt: " + message);
}

static std::string str(const flatbuffers::String *s) {
  return s ? s->str() : std::string();
}

/// FlatBuffers 2.0 verifies the alignment of vector lengths but not of 8-byte
/// elements; reading a misaligned int64 is undefined behavior, so the reader
/// checks it for the vectors that have such elements.
template <typename V> static bool misaligned(const V *v) {
  return v && v->size() && reinterpret_cast<uintptr_t>(v->Data()) % 8 != 0;
}

template <typename T>
static std::vector<T> vec(const flatbuffers::Vector<T> *v) {
  return v ? std::vector<T>(v->begin(), v->end()) : std::vector<T>();
}

static std::vector<std::string> strings(
    const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>> *v) {
  std::vector<std::string> out;
  if (v)
    for (const flatbuffers::String *s : *v)
      out.push_back(str(s));
  return out;
}

static Status convertBindings(
    const flatbuffers::Vector<flatbuffers::Offset<fbs::Binding>> *in,
    const char *what, std::vector<Binding> &out) {
  if (!in)
    return Status::success();
  for (flatbuffers::uoffset_t i = 0; i < in->size(); ++i) {
    const fbs::Binding *b = in->Get(i);
    if (!b || !b->desc())
      return invalid(std::string(what) + " " + u64(i) +
                     " has no tensor description");
    const fbs::TensorDesc *d = b->desc();
    if (misaligned(d->shape()))
      return corrupt(std::string(what) + " " + u64(i) +
                     " has a misaligned shape vector");
    Binding binding;
    binding.desc.name = str(d->name());
    binding.desc.dtype = DType(uint8_t(d->dtype()));
    binding.desc.shape = vec(d->shape());
    binding.desc.dimNames = strings(d->dim_names());
    binding.buffer = b->buffer();
    binding.offset = b->offset();
    if (const flatbuffers::Vector<uint8_t> *fixed = b->fixed_value())
      binding.fixedValue.assign(fixed->begin(), fixed->end());
    out.push_back(std::move(binding));
  }
  return Status::success();
}

static Status convertGrid(const flatbuffers::Vector<uint32_t> *in,
                          std::array<uint32_t, 3> &out, size_t step,
                          const char *what) {
  if (!in || in->size() == 0)
    return Status::success();
  if (in->size() != 3)
    return invalid("step " + u64(step) + " " + what + " has " +
                   u64(in->size()) + " entries, expected 0 or 3");
  for (int i = 0; i < 3; ++i)
    out[i] = in->Get(i);
  return Status::success();
}

static Status convert(const fbs::Plan &in, Plan &out) {
  out.compilerVersion = str(in.compiler_version());
  out.targets = strings(in.targets());
  out.minDriverVersion = in.min_driver_version();
  if (Status s = convertBindings(in.inputs(), "input", out.inputs); !s)
    return s;
  if (Status s = convertBindings(in.outputs(), "output", out.outputs); !s)
    return s;
  if (in.buffers())
    for (const fbs::Buffer *b : *in.buffers())
      out.buffers.push_back(Buffer{BufferKind(uint8_t(b->kind())),
                                   b->size_bytes(), b->offset(),
                                   b->alignment(), b->content_hash()});
  out.arenaBytes = in.arena_bytes();
  out.strippedWeightsSize = in.stripped_weights_size();
  out.arenaBytesWithoutReuse = in.arena_bytes_without_reuse();
  if (in.modules())
    for (const fbs::Module *m : *in.modules()) {
      Module module;
      module.target = str(m->target());
      module.format = ModuleFormat(uint8_t(m->format()));
      if (m->data())
        module.data = ByteSpan{m->data()->data(), m->data()->size()};
      out.modules.push_back(std::move(module));
    }
  if (in.kernels())
    for (const fbs::Kernel *k : *in.kernels())
      out.kernels.push_back(
          Kernel{str(k->name()), k->module_(), str(k->symbol())});
  if (in.steps())
    for (flatbuffers::uoffset_t i = 0; i < in.steps()->size(); ++i) {
      const fbs::Step *s = in.steps()->Get(i);
      if (misaligned(s->args()) || misaligned(s->dims()))
        return corrupt("step " + u64(i) + " has a misaligned vector");
      Step step;
      step.kernel = s->kernel();
      if (s->args())
        for (const fbs::Arg *a : *s->args())
          step.args.push_back(Arg{a->buffer(), a->offset(), a->extent()});
      if (Status st = convertGrid(s->grid(), step.grid, i, "grid"); !st)
        return st;
      if (Status st = convertGrid(s->block(), step.block, i, "block"); !st)
        return st;
      step.sharedMemBytes = s->shared_mem_bytes();
      step.dims = vec(s->dims());
      step.choice = s->choice();
      step.variant = s->variant();
      out.steps.push_back(std::move(step));
    }
  if (in.choices())
    for (flatbuffers::uoffset_t i = 0; i < in.choices()->size(); ++i) {
      const fbs::Choice *c = in.choices()->Get(i);
      if (misaligned(c->times_ms()))
        return corrupt("choice " + u64(i) + " has a misaligned vector");
      Choice choice;
      choice.key = str(c->key());
      choice.name = str(c->name());
      choice.variants = strings(c->variants());
      choice.selected = c->selected();
      choice.timesMs = vec(c->times_ms());
      choice.device = str(c->device());
      out.choices.push_back(std::move(choice));
    }
  if (in.tensor_maps())
    for (flatbuffers::uoffset_t i = 0; i < in.tensor_maps()->size(); ++i) {
      const fbs::TensorMap *m = in.tensor_maps()->Get(i);
      if (misaligned(m->dims()) || misaligned(m->strides()))
        return corrupt("tensor map " + u64(i) + " has a misaligned vector");
      TensorMap map;
      map.buffer = m->buffer();
      map.source = m->source();
      map.sourceOffset = m->source_offset();
      map.dtype = DType(uint8_t(m->dtype()));
      map.dims = vec(m->dims());
      map.strides = vec(m->strides());
      map.box = vec(m->box());
      map.swizzle = m->swizzle();
      out.tensorMaps.push_back(std::move(map));
    }
  if (in.provenance())
    for (const fbs::ProvenanceEntry *e : *in.provenance())
      out.provenance.push_back(
          ProvenanceEntry{str(e->key()), str(e->value())});
  return Status::success();
}

static std::string runtimeMajorMinor() {
  std::string v = kilnVersion();
  size_t firstDot = v.find('.');
  size_t secondDot =
      firstDot == std::string::npos ? firstDot : v.find('.', firstDot + 1);
  return v.substr(0, secondDot);
}

Status PlanReader::open(const void *data, size_t size) {
  return open(data, size, Options());
}

Status PlanReader::open(const void *data, size_t size,
                        const Options &readOptions) {
  plan_ = Plan();
  header_ = PlanHeader{};
  const uint8_t *bytes = static_cast<const uint8_t *>(data);
  if (!bytes && size)
    return Status(StatusCode::InvalidArgument, "plan data is null");
  if (reinterpret_cast<uintptr_t>(bytes) % 8)
    return Status(StatusCode::InvalidArgument,
                  "plan data must be 8-byte aligned");

  if (size == 0)
    return Status(StatusCode::InvalidPlan, "plan is empty (0 bytes)");
  if (std::memcmp(bytes, kPlanMagic, std::min<size_t>(size, 8)) != 0)
    return Status(StatusCode::InvalidPlan,
                  "not a kiln plan (the file does not start with 'KILNPLAN')");
  if (size < kPlanHeaderSize)
    return Status(StatusCode::InvalidPlan,
                  "plan is truncated: expected at least " +
                      u64(kPlanHeaderSize) + " bytes (the header), got " +
                      u64(size));
  PlanHeader h = decodeHeader(bytes);
  // Before anything else: a newer format may lay out the rest differently.
  if (h.formatVersion > kPlanFormatVersion)
    return Status(StatusCode::UnsupportedVersion,
                  "plan format v" + u64(h.formatVersion) +
                      " is newer than this runtime (v" +
                      u64(kPlanFormatVersion) +
                      "): rebuild the plan with kilnc " + runtimeMajorMinor() +
                      ".x or update the runtime");
  if (h.formatVersion < kOldestPlanFormatVersion)
    return Status(
        StatusCode::UnsupportedVersion,
        "plan format v" + u64(h.formatVersion) +
            " is not supported by this runtime (v" + u64(kPlanFormatVersion) +
            ", which needs the argument extents that v4 added): rebuild the "
            "plan with kilnc " + runtimeMajorMinor() + ".x");
  if (h.headerSize != kPlanHeaderSize)
    return corrupt("header size is " + u64(h.headerSize) + ", expected " +
                   u64(kPlanHeaderSize) + " for format v" +
                   u64(h.formatVersion));
  if (h.payloadSize > UINT64_MAX - kPlanHeaderSize ||
      h.payloadSize + kPlanHeaderSize > size)
    return Status(StatusCode::InvalidPlan,
                  "plan is truncated: expected " +
                      (h.payloadSize > UINT64_MAX - kPlanHeaderSize
                           ? std::string("more than 2^64")
                           : u64(h.payloadSize + kPlanHeaderSize)) +
                      " bytes, got " + u64(size));
  if (h.payloadSize + kPlanHeaderSize < size)
    return corrupt(u64(size - kPlanHeaderSize - h.payloadSize) +
                   " unexpected bytes after the payload (expected " +
                   u64(h.payloadSize + kPlanHeaderSize) + " bytes, got " +
                   u64(size) + ")");
  const uint8_t *payload = bytes + kPlanHeaderSize;
  uint64_t checksum = computePlanChecksum(bytes, payload, h.payloadSize);
  if (checksum != h.checksum) {
    char buf[96];
    std::snprintf(buf, sizeof(buf),
                  " (stored %016" PRIx64 ", computed %016" PRIx64 ")",
                  h.checksum, checksum);
    return corrupt(std::string("payload checksum mismatch") + buf);
  }

  // The checksum matches: what follows catches inconsistent writers (or
  // deliberately crafted files), not random corruption.
  if (std::memchr(h.compilerVersion, 0, sizeof(h.compilerVersion)) == nullptr)
    return corrupt("compiler version in the header is not NUL-terminated");
  uint64_t weightsOffset = weightsSectionOffset(h.headerSize, h.flatbufferSize);
  if (h.flatbufferSize < 8 || weightsOffset > size)
    return corrupt("FlatBuffer size " + u64(h.flatbufferSize) +
                   " does not fit in the payload (" + u64(h.payloadSize) +
                   " bytes)");
  for (uint64_t i = kPlanHeaderSize + h.flatbufferSize; i < weightsOffset; ++i)
    if (bytes[i] != 0)
      return corrupt("padding before the weights section is not zero");

  flatbuffers::Verifier::Options options;
  options.max_depth = 16;
  options.max_tables = 100u * 1000 * 1000;
  flatbuffers::Verifier verifier(payload, h.flatbufferSize, options);
  if (!fbs::VerifyPlanBuffer(verifier))
    return corrupt("the FlatBuffer payload failed verification");
  const fbs::Plan *root = fbs::GetPlan(payload);

  Plan plan;
  if (Status s = convert(*root, plan); !s)
    return s;
  plan.weights = ByteSpan{bytes + weightsOffset, size_t(size - weightsOffset)};
  if (root->weights_size() != plan.weights.size)
    return corrupt("the plan records " + u64(root->weights_size()) +
                   " bytes of weights, the file has " + u64(plan.weights.size));

  // The header repeats a few payload fields so tools can read them without
  // parsing; they must agree.
  std::string headerVersion(h.compilerVersion);
  if (headerVersion != plan.compilerVersion.substr(0, 15))
    return corrupt("compiler version '" + headerVersion +
                   "' in the header differs from '" + plan.compilerVersion +
                   "' in the payload");
  if (h.targetMask != targetMask(plan.targets))
    return corrupt("target mask in the header (" +
                   targetMaskToString(h.targetMask) +
                   ") differs from the payload's targets (" +
                   targetMaskToString(targetMask(plan.targets)) + ")");
  if (h.minDriverVersion != plan.minDriverVersion)
    return corrupt("minimum driver version in the header (" +
                   u64(h.minDriverVersion) + ") differs from the payload's (" +
                   u64(plan.minDriverVersion) + ")");
  if (Status s = validatePlan(plan); !s)
    return s;
  if (plan.isWeightStripped() && !readOptions.allowWeightStripped) {
    uint64_t count = 0, bytes = 0;
    for (uint32_t i = 0; i < plan.buffers.size(); ++i)
      if (plan.isStrippedBuffer(i)) {
        ++count;
        bytes += plan.buffers[i].sizeBytes;
      }
    return Status(StatusCode::InvalidPlan,
                  "plan is weight-stripped: " + u64(count) + " weights (" +
                      u64(bytes) +
                      " bytes) are not in the file; restore them with "
                      "'kiln-refit PLAN --weights-from MODEL.onnx -o "
                      "FULL.plan'");
  }

  header_ = h;
  plan_ = std::move(plan);
  return Status::success();
}

Status kiln::plan::readFile(const std::string &path,
                            std::vector<uint8_t> &out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return Status(errno == ENOENT ? StatusCode::NotFound : StatusCode::IOError,
                  "cannot open '" + path + "': " + std::strerror(errno));
  struct stat st;
  int statResult = ::fstat(fd, &st);
  if (statResult != 0 || !S_ISREG(st.st_mode)) {
    int err = statResult != 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
    ::close(fd);
    return ioError("cannot read", path, err);
  }
  out.resize(size_t(st.st_size));
  size_t done = 0;
  while (done < out.size()) {
    ssize_t n = ::read(fd, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      int err = n == 0 ? EIO : errno;
      ::close(fd);
      return ioError("cannot read", path, err);
    }
    done += size_t(n);
  }
  ::close(fd);
  return Status::success();
}
