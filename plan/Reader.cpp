//===- Reader.cpp - PlanReader: header, checksum, FlatBuffer, semantics ---===//

#include "kiln/Plan/PlanIO.h"

#include "PlanInternal.h"
#include "kiln/Plan/Plan_generated.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>

using namespace kiln::plan;
using namespace kiln::plan::detail;
namespace fbs = kiln::plan::fb;

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

template <typename V> static uint64_t sizeOf(const V *v) {
  return v ? v->size() : 0;
}

static uint64_t stringBytes(const flatbuffers::String *s) {
  return sizeof(std::string) + sizeOf(s);
}

static uint64_t stringsBytes(
    const flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>> *v) {
  uint64_t bytes = 0;
  if (v)
    for (const flatbuffers::String *s : *v)
      bytes += stringBytes(s);
  return bytes;
}

/// The bytes of C++ structs that convert() would allocate for `in`. A
/// FlatBuffer may point many offsets at one table (a DAG), so a small file
/// could otherwise expand into terabytes of copies; kiln writers never share
/// tables, and their plans convert to a few times their FlatBuffer's size.
static uint64_t convertedBytes(const fbs::Plan &in) {
  uint64_t bytes = stringBytes(in.compiler_version()) +
                   stringsBytes(in.targets()) +
                   sizeOf(in.buffers()) * sizeof(Buffer) +
                   sizeOf(in.modules()) * sizeof(Module) +
                   sizeOf(in.kernels()) * sizeof(Kernel);
  for (const auto *list : {in.inputs(), in.outputs()})
    if (list)
      for (const fbs::Binding *b : *list) {
        bytes += sizeof(Binding) + sizeOf(b->fixed_value());
        if (const fbs::TensorDesc *d = b->desc())
          bytes += stringBytes(d->name()) + stringsBytes(d->dim_names()) +
                   sizeOf(d->shape()) * sizeof(int64_t);
      }
  if (in.modules())
    for (const fbs::Module *m : *in.modules())
      bytes += stringBytes(m->target());
  if (in.kernels())
    for (const fbs::Kernel *k : *in.kernels())
      bytes += stringBytes(k->name()) + stringBytes(k->symbol());
  if (in.steps())
    for (const fbs::Step *st : *in.steps())
      bytes += sizeof(Step) + sizeOf(st->args()) * sizeof(Arg) +
               sizeOf(st->dims()) * sizeof(int64_t);
  if (in.choices())
    for (const fbs::Choice *c : *in.choices())
      bytes += sizeof(Choice) + stringBytes(c->key()) + stringBytes(c->name()) +
               stringsBytes(c->variants()) +
               sizeOf(c->times_ms()) * sizeof(double) +
               stringBytes(c->device());
  if (in.tensor_maps())
    for (const fbs::TensorMap *m : *in.tensor_maps())
      bytes += sizeof(TensorMap) +
               (sizeOf(m->dims()) + sizeOf(m->strides())) * sizeof(uint64_t) +
               sizeOf(m->box()) * sizeof(uint32_t);
  if (in.provenance())
    for (const fbs::ProvenanceEntry *e : *in.provenance())
      bytes += stringBytes(e->key()) + stringBytes(e->value());
  // Profiles' own profiles are refused by convert(), before they expand.
  if (in.profiles())
    for (const fbs::Plan *p : *in.profiles())
      if (!p->profiles())
        bytes += sizeof(Plan) + convertedBytes(*p);
  return bytes;
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
                                   b->size_bytes(), b->offset(), b->alignment(),
                                   b->content_hash()});
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
      out.kernels.push_back(Kernel{str(k->name()), k->module_(),
                                   str(k->symbol()), k->num_args(),
                                   k->num_dims()});
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
      out.provenance.push_back(ProvenanceEntry{str(e->key()), str(e->value())});
  if (in.profiles())
    for (flatbuffers::uoffset_t i = 0; i < in.profiles()->size(); ++i) {
      const fbs::Plan *p = in.profiles()->Get(i);
      std::string label = "profile " + u64(i + 1);
      if (p->profiles())
        return corrupt(label + " has profiles of its own");
      if (p->compiler_version() || p->targets() || p->min_driver_version() ||
          p->weights_size() || p->stripped_weights_size() || p->provenance())
        return corrupt(label + " sets fields that only the plan as a whole "
                               "has (compiler version, targets, weights, "
                               "provenance)");
      Plan profile;
      if (Status s = convert(*p, profile); !s)
        return s.withContext(label);
      out.profiles.push_back(std::move(profile));
    }
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
            "plan with kilnc " +
            runtimeMajorMinor() + ".x");
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

  // Each converted element occupies at least a few bytes of an unshared
  // FlatBuffer; 16 bytes of structs per byte is far above what a writer's
  // plan needs (about 4) and keeps crafted DAGs from exhausting memory.
  uint64_t converted = convertedBytes(*root);
  uint64_t convertLimit = 16 * uint64_t(h.flatbufferSize) + (1 << 20);
  if (converted > convertLimit)
    return corrupt("the FlatBuffer (" + u64(h.flatbufferSize) +
                   " bytes) expands into " + u64(converted) +
                   " bytes of tables, more than the " + u64(convertLimit) +
                   " a plan of its size can hold: it reuses tables, which "
                   "kiln writers never do");
  Plan plan;
  if (Status s = convert(*root, plan); !s)
    return s;
  plan.weights = ByteSpan{bytes + weightsOffset, size_t(size - weightsOffset)};
  if (root->weights_size() != plan.weights.size)
    return corrupt("the plan records " + u64(root->weights_size()) +
                   " bytes of weights, the file has " + u64(plan.weights.size));
  shareWithProfiles(plan);

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
