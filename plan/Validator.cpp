//===- Validator.cpp - Semantic validation of plans (validatePlan) --------===//
//
// Run by the writer on what it is about to write and by the reader on what it
// read: a plan that passes cannot make a kernel address outside its buffers
// (runtime/PLAN_FORMAT.md, "What validation guarantees").
//
//===----------------------------------------------------------------------===//

#include "kiln/Plan/PlanIO.h"

#include "PlanInternal.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

using namespace kiln::plan;
using namespace kiln::plan::detail;

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
  std::vector<uint64_t> readableOf =
      readableBytesOfAll(plan, namedBuffers(plan));
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
    uint64_t readable = readableOf[m.source];
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
                          const std::vector<uint64_t> &readableOf) {
  const Arg &arg = plan.steps[step].args[index];
  std::string label = "step " + u64(step) + " argument " + u64(index);
  if (arg.buffer >= plan.buffers.size())
    return invalid(label + " refers to buffer " + u64(arg.buffer) +
                   ", but the plan has " + u64(plan.buffers.size()));
  const Buffer &b = plan.buffers[arg.buffer];
  std::string where = "buffer " + u64(arg.buffer) + " (" +
                      bufferKindName(b.kind) + ", " + u64(b.sizeBytes) +
                      " bytes";
  uint64_t readable = readableOf[arg.buffer];
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

/// CUDA's hard launch limits (every compute capability kiln targets, 7.0
/// to 12.x): block x, y <= 1024, z <= 64, at most 1024 threads; grid x <
/// 2^31, y, z <= 65535.
static constexpr uint32_t kMaxBlockDims[3] = {1024, 1024, 64};
static constexpr uint64_t kMaxThreadsPerBlock = 1024;
static constexpr uint32_t kMaxGridDims[3] = {0x7fffffffu, 65535, 65535};

/// The most dynamic shared memory a block may have on `target` (the
/// opt-in limit, cudaDevAttrMaxSharedMemoryPerBlockOptin), for the GPU
/// targets whose limit is known; otherwise 227 KiB, the largest of any
/// (sm_90, sm_100). The runtime checks the device's own attribute too.
static uint32_t maxDynamicSharedBytes(const std::string &target) {
  static const struct {
    const char *target;
    uint32_t kib;
  } kLimits[] = {{"sm_70", 96},    {"sm_75", 64},   {"sm_80", 163},
                 {"sm_86", 99},    {"sm_87", 163},  {"sm_89", 99},
                 {"sm_90", 227},   {"sm_90a", 227}, {"sm_100", 227},
                 {"sm_100a", 227}, {"sm_120", 99},  {"sm_120a", 99}};
  for (const auto &l : kLimits)
    if (target == l.target)
      return l.kib * 1024;
  return 227 * 1024;
}

static std::string dims3(const std::array<uint32_t, 3> &d) {
  return "(" + u64(d[0]) + ", " + u64(d[1]) + ", " + u64(d[2]) + ")";
}

/// Step `index`'s launch configuration: grid and block within CUDA's hard
/// limits and dynamic shared memory within its target's. Host steps ignore
/// them but must keep them valid too (the defaults are).
static Status validateLaunch(const Plan &plan, size_t index) {
  const Step &s = plan.steps[index];
  const Kernel &k = plan.kernels[s.kernel];
  const std::string &target = plan.modules[k.module].target;
  std::string label =
      "step " + u64(index) + " (kernel '" + k.name + "', " + target + ")";
  for (int d = 0; d < 3; ++d)
    if (s.grid[d] == 0 || s.block[d] == 0)
      return invalid(label + " has grid " + dims3(s.grid) + " and block " +
                     dims3(s.block) + ": every dimension must be at least 1");
  if (s.block[0] > kMaxBlockDims[0] || s.block[1] > kMaxBlockDims[1] ||
      s.block[2] > kMaxBlockDims[2])
    return invalid(label + " has block " + dims3(s.block) +
                   ": CUDA allows x and y up to 1024 and z up to 64");
  uint64_t threads = uint64_t(s.block[0]) * s.block[1] * s.block[2];
  if (threads > kMaxThreadsPerBlock)
    return invalid(label + " has block " + dims3(s.block) + " of " +
                   u64(threads) + " threads: CUDA allows at most " +
                   u64(kMaxThreadsPerBlock) + " per block");
  if (s.grid[0] > kMaxGridDims[0] || s.grid[1] > kMaxGridDims[1] ||
      s.grid[2] > kMaxGridDims[2])
    return invalid(label + " has grid " + dims3(s.grid) +
                   ": CUDA allows x up to 2147483647 and y and z up to 65535");
  // A launch of more threads than 64 per byte its arguments name (plus a
  // floor for small kernels) is no kernel kiln builds: each thread touches
  // at least one byte and warp-per-row kernels use 32 per row. A corrupt
  // grid of 2^31 blocks would pass the hard limits and run for minutes.
  if (target != "host") {
    uint64_t bytes = 0;
    for (const Arg &a : s.args) {
      const Buffer &b = plan.buffers[a.buffer];
      uint64_t size = b.sizeBytes;
      if (b.kind == BufferKind::TensorMap)
        for (const TensorMap &m : plan.tensorMaps)
          if (m.buffer == a.buffer && m.source < plan.buffers.size())
            size = plan.buffers[m.source].sizeBytes;
      bytes += size;
    }
    double launched = double(s.grid[0]) * s.grid[1] * s.grid[2] * threads;
    double bound = 64.0 * double(bytes) + double(1 << 20);
    if (launched > bound)
      return invalid(label + " launches grid " + dims3(s.grid) + " x block " +
                     dims3(s.block) + " = " + u64(uint64_t(launched)) +
                     " threads for arguments of " + u64(bytes) +
                     " bytes in all: more than 64 threads per byte (and "
                     "2^20), which no kiln kernel uses");
  }
  uint32_t limit = target == "host" ? 0 : maxDynamicSharedBytes(target);
  if (target != "host" && s.sharedMemBytes > limit)
    return invalid(label + " asks for " + u64(s.sharedMemBytes) +
                   " bytes of dynamic shared memory: " + target +
                   " allows at most " + u64(limit) + " (" + u64(limit / 1024) +
                   " KiB) per block");
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

/// A profile of a weight-stripped plan: its stripped Weight buffers are
/// stripped buffers of profile 0 (same offset, size and hash: profile 0 lists
/// every weight of the section), and its inline ones overlap none.
static Status validateProfileStrippedWeights(const Plan &profile,
                                             const Plan &main) {
  std::map<uint64_t, const Buffer *> stripped;
  for (uint32_t i = 0; i < main.buffers.size(); ++i)
    if (main.isStrippedBuffer(i))
      stripped[main.buffers[i].offset] = &main.buffers[i];
  for (size_t i = 0; i < profile.buffers.size(); ++i) {
    const Buffer &b = profile.buffers[i];
    if (b.kind != BufferKind::Weight || b.sizeBytes == 0)
      continue;
    if (b.contentHash != 0) {
      auto it = stripped.find(b.offset);
      if (it == stripped.end() || it->second->sizeBytes != b.sizeBytes ||
          it->second->contentHash != b.contentHash)
        return invalid("weight buffer " + u64(i) +
                       " is stripped, but profile 0 has no stripped buffer "
                       "with its offset, size and hash");
      continue;
    }
    auto next = stripped.upper_bound(b.offset);
    bool overlap = (next != stripped.begin() &&
                    std::prev(next)->first + std::prev(next)->second->sizeBytes >
                        b.offset) ||
                   (next != stripped.end() && next->first - b.offset < b.sizeBytes);
    if (overlap)
      return invalid("weight buffer " + u64(i) +
                     " overlaps the bytes of a stripped buffer");
  }
  return Status::success();
}

/// Profiles agree with profile 0 on what they bind: the same inputs and
/// outputs, in order, with the same dtypes, ranks and fixed values.
static Status validateProfileBindings(const Plan &profile, const Plan &main) {
  for (int out = 0; out < 2; ++out) {
    const std::vector<Binding> &mine = out ? profile.outputs : profile.inputs;
    const std::vector<Binding> &theirs = out ? main.outputs : main.inputs;
    const char *what = out ? "output" : "input";
    if (mine.size() != theirs.size())
      return invalid("it has " + u64(mine.size()) + " " + what +
                     "s, profile 0 has " + u64(theirs.size()));
    for (size_t i = 0; i < mine.size(); ++i) {
      const TensorDesc &a = mine[i].desc, &b = theirs[i].desc;
      if (a.name != b.name || a.dtype != b.dtype ||
          a.shape.size() != b.shape.size() ||
          mine[i].fixedValue != theirs[i].fixedValue)
        return invalid(std::string(what) + " " + u64(i) + " '" + a.name +
                       "' differs from profile 0's '" + b.name +
                       "' in name, dtype, rank or fixed value");
    }
  }
  return Status::success();
}

static Status validateOne(const Plan &plan, const Plan *main);

Status kiln::plan::validatePlan(const Plan &plan) {
  if (Status s = validateOne(plan, nullptr); !s)
    return s;
  for (size_t k = 0; k < plan.profiles.size(); ++k) {
    const Plan &profile = plan.profiles[k];
    std::string label = "profile " + u64(k + 1);
    if (!profile.profiles.empty())
      return invalid(label + " has profiles of its own");
    if (profile.weights.data != plan.weights.data ||
        profile.weights.size != plan.weights.size ||
        profile.strippedWeightsSize != plan.strippedWeightsSize ||
        profile.targets != plan.targets)
      return invalid(label + " does not share the plan's weights and targets");
    if (Status s = validateProfileBindings(profile, plan); !s)
      return s.withContext(label);
    if (Status s = validateOne(profile, &plan); !s)
      return s.withContext(label);
  }
  return Status::success();
}

/// Everything of one profile; `main` is profile 0 when `plan` is a later
/// profile (whose provenance and weights section profile 0 checks).
static Status validateOne(const Plan &plan, const Plan *main) {
  // Targets.
  if (plan.targets.empty())
    return invalid("no targets");
  std::set<std::string_view> targets;
  for (size_t i = 0; i < plan.targets.size(); ++i) {
    const std::string &t = plan.targets[i];
    if (t.empty() || t.size() > 64)
      return invalid("target " + u64(i) + " has an invalid name");
    if (!targets.insert(t).second)
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
      uint64_t limit = !weight                   ? plan.arenaBytes
                       : plan.isWeightStripped() ? plan.strippedWeightsSize
                                                 : plan.weights.size;
      const char *where = !weight                   ? "arena"
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
    if (Status s = main ? validateProfileStrippedWeights(plan, *main)
                        : validateStrippedWeights(plan);
        !s)
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
    if (!targets.count(m.target))
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
  std::vector<uint64_t> readableOf =
      readableBytesOfAll(plan, namedBuffers(plan));
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const Step &s = plan.steps[i];
    std::string label = "step " + u64(i);
    if (s.kernel >= plan.kernels.size())
      return invalid(label + " refers to kernel " + u64(s.kernel) +
                     ", but the plan has " + u64(plan.kernels.size()));
    for (size_t a = 0; a < s.args.size(); ++a)
      if (Status st = validateArg(plan, i, a, readableOf); !st)
        return st;
    if (Status st = validateLaunch(plan, i); !st)
      return st;
  }
  if (Status s = validateChoices(plan); !s)
    return s;
  // Last, so that a step's own errors above are reported first.
  for (size_t i = 0; i < plan.steps.size(); ++i) {
    const Step &s = plan.steps[i];
    const Kernel &k = plan.kernels[s.kernel];
    if (s.args.size() != k.numArgs || s.dims.size() != k.numDims)
      return invalid("step " + u64(i) + " passes " + u64(s.args.size()) +
                     " arguments and " + u64(s.dims.size()) +
                     " dims to kernel " + u64(s.kernel) + " '" + k.name +
                     "', which takes " + u64(k.numArgs) + " and " +
                     u64(k.numDims));
  }
  return main ? Status::success() : validateProvenance(plan);
}
