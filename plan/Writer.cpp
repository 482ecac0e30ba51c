//===- Writer.cpp - PlanWriter: builds and serializes plans ---------------===//

#include "kiln/Plan/PlanIO.h"

#include "PlanInternal.h"
#include "kiln/Plan/Plan_generated.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <map>

using namespace kiln::plan;
using namespace kiln::plan::detail;
namespace fbs = kiln::plan::fb;

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
  for (const Plan &profile : plan.profiles)
    w.addProfile(profile);
  return w;
}

void PlanWriter::addProfile(const Plan &profile) {
  Plan p;
  p.inputs = profile.inputs;
  p.outputs = profile.outputs;
  p.buffers = profile.buffers;
  p.arenaBytes = profile.arenaBytes;
  p.arenaBytesWithoutReuse = profile.arenaBytesWithoutReuse;
  p.kernels = profile.kernels;
  p.steps = profile.steps;
  p.choices = profile.choices;
  p.tensorMaps = profile.tensorMaps;
  std::vector<std::vector<uint8_t>> bytes;
  for (const Module &m : profile.modules)
    bytes.emplace_back(m.data.data, m.data.data + m.data.size);
  profileModules_.push_back(std::move(bytes));
  // Module spans are set when the plan is built (the vectors above may move).
  for (const Module &m : profile.modules)
    p.modules.push_back(Module{m.target, m.format, ByteSpan{}});
  profiles_.push_back(std::move(p));
}

static uint64_t padWeights(std::vector<uint8_t> &file, uint64_t &end,
                           uint32_t alignment);

Status PlanWriter::addProfileSharingWeights(const Plan &part) {
  auto refuse = [&](const std::string &why) {
    return Status(StatusCode::InvalidArgument,
                  "cannot add profile " + u64(numProfiles()) + ": " + why);
  };
  if (!part.profiles.empty())
    return refuse("it has profiles of its own");
  if (part.targets != targets_)
    return refuse("its targets differ from profile 0's");
  bool stripping = !stripped_.empty() || weightsEnd_ != weights_.size();
  if (part.isWeightStripped() != stripping)
    return refuse("profile 0 is " +
                  std::string(stripping ? "weight-stripped" : "complete") +
                  " and it is not");
  // A run: a named Weight buffer and the unnamed parts stacked after it
  // (PLAN_FORMAT.md, "Stacked weights"); runs are shared or appended whole.
  using Key = std::vector<std::pair<uint64_t, uint64_t>>; // (size, XXH64)
  auto runsOf = [&](const Plan &p, const std::vector<bool> &named,
                    auto &&bytesOf) {
    std::vector<std::pair<std::vector<uint32_t>, Key>> runs;
    for (uint32_t i = 0; i < p.buffers.size(); ++i) {
      const Buffer &b = p.buffers[i];
      if (b.kind != BufferKind::Weight)
        continue;
      bool continues = !named[i] && !runs.empty() && i > 0 &&
                       runs.back().first.back() == i - 1 &&
                       p.buffers[i - 1].offset + p.buffers[i - 1].sizeBytes ==
                           b.offset;
      if (!continues)
        runs.emplace_back();
      runs.back().first.push_back(i);
      runs.back().second.emplace_back(b.sizeBytes, bytesOf(i));
    }
    return runs;
  };
  Plan self; // this writer's buffers, steps and weights
  self.buffers = buffers_;
  self.steps = steps_;
  self.tensorMaps = tensorMaps_;
  self.weights = ByteSpan{weights_.data(), weights_.size()};
  self.strippedWeightsSize = stripping ? weightsEnd_ : 0;
  auto hashIn = [](const Plan &p) {
    return [&p](uint32_t i) -> uint64_t {
      if (p.isStrippedBuffer(i))
        return p.buffers[i].contentHash;
      std::optional<ByteSpan> bytes = weightBytes(p, i);
      return bytes && bytes->size ? xxh64(bytes->data, bytes->size) : 0;
    };
  };
  std::map<Key, uint64_t> known; // run -> offset of its first part here
  // Profile 0's steps name its weights; the runs earlier profiles appended
  // start where they were appended.
  std::vector<bool> selfNamed = namedBuffers(self);
  for (uint32_t i : appendedRuns_)
    selfNamed[i] = true;
  for (const auto &[buffers, key] : runsOf(self, selfNamed, hashIn(self)))
    known.emplace(key, buffers_[buffers.front()].offset);

  Plan profile = part;
  for (const auto &[run, key] :
       runsOf(part, namedBuffers(part), hashIn(part))) {
    uint64_t start = part.buffers[run.front()].offset;
    auto it = known.find(key);
    uint64_t at;
    if (it != known.end()) {
      at = it->second;
    } else {
      // Append the run whole, keeping its parts' relative offsets (all
      // alignments divide the section's).
      padWeights(weights_, weightsEnd_, kWeightsAlignment);
      at = weightsEnd_;
      for (uint32_t i : run) {
        const Buffer &b = part.buffers[i];
        uint64_t offset = at + (b.offset - start);
        weights_.resize(weights_.size() + size_t(offset - weightsEnd_), 0);
        weightsEnd_ = offset;
        uint32_t index = addBuffer(BufferKind::Weight, b.sizeBytes, offset,
                                   b.alignment);
        if (i == run.front())
          appendedRuns_.push_back(index);
        if (part.isStrippedBuffer(i)) {
          buffers_[index].contentHash = b.contentHash;
          stripped_[index] = std::nullopt;
        } else if (std::optional<ByteSpan> bytes = weightBytes(part, i)) {
          if (bytes->size)
            weights_.insert(weights_.end(), bytes->data,
                            bytes->data + bytes->size);
        } else {
          return refuse("weight buffer " + u64(i) + " has no bytes");
        }
        weightsEnd_ = offset + b.sizeBytes;
      }
      known.emplace(key, at);
    }
    for (uint32_t i : run)
      profile.buffers[i].offset = at + (part.buffers[i].offset - start);
  }
  addProfile(profile);
  return Status::success();
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
    std::snprintf(buf, sizeof(buf),
                  " (expected %016" PRIx64 ", got %016" PRIx64 ")",
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

void PlanWriter::removeProvenance(const std::string &key) {
  provenance_.erase(std::remove_if(provenance_.begin(), provenance_.end(),
                                   [&](const ProvenanceEntry &e) {
                                     return e.key == key;
                                   }),
                    provenance_.end());
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

/// The Plan table of `view`: a whole plan (`profiles` its profile tables),
/// or with `profile` set only the per-profile fields of a profiles entry.
static flatbuffers::Offset<fbs::Plan> buildPlanTable(
    flatbuffers::FlatBufferBuilder &fbb, const Plan &view, bool profile,
    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fbs::Plan>>>
        profiles) {
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
    kernels.push_back(
        fbs::CreateKernel(fbb, name, k.module, symbol, k.numArgs, k.numDims));
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
  if (!profile && !view.provenance.empty()) {
    std::vector<flatbuffers::Offset<fbs::ProvenanceEntry>> entries;
    for (const ProvenanceEntry &e : view.provenance) {
      auto key = fbb.CreateString(e.key);
      auto value = fbb.CreateString(e.value);
      entries.push_back(fbs::CreateProvenanceEntry(fbb, key, value));
    }
    provenanceVec = fbb.CreateVector(entries);
  }
  if (profile)
    return fbs::CreatePlan(
        fbb, 0, 0, 0, fbb.CreateVector(inputs), fbb.CreateVector(outputs),
        fbb.CreateVector(buffers), view.arenaBytes,
        view.arenaBytesWithoutReuse, 0, fbb.CreateVector(modules),
        fbb.CreateVector(kernels), fbb.CreateVector(steps), 0, choicesVec,
        tensorMapsVec, 0);
  // The argument order decides the layout: single-profile plans stay
  // byte-identical to the ones written before profiles existed.
  return fbs::CreatePlan(
      fbb, fbb.CreateString(view.compilerVersion),
      fbb.CreateVectorOfStrings(view.targets), view.minDriverVersion,
      fbb.CreateVector(inputs), fbb.CreateVector(outputs),
      fbb.CreateVector(buffers), view.arenaBytes, view.arenaBytesWithoutReuse,
      view.weights.size, fbb.CreateVector(modules), fbb.CreateVector(kernels),
      fbb.CreateVector(steps), view.strippedWeightsSize, choicesVec,
      tensorMapsVec, provenanceVec, profiles);
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
  for (size_t k = 0; k < profiles_.size(); ++k) {
    Plan p = profiles_[k];
    for (size_t m = 0; m < p.modules.size(); ++m) {
      const std::vector<uint8_t> &bytes = profileModules_[k][m];
      p.modules[m].data = ByteSpan{bytes.data(), bytes.size()};
      moduleBytes += bytes.size();
    }
    view.profiles.push_back(std::move(p));
  }
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
        // The profiles' views of these bytes are complete now too.
        for (Plan &p : view.profiles)
          for (Buffer &b : p.buffers)
            if (b.kind == BufferKind::Weight && b.contentHash != 0 &&
                b.offset == offset)
              b.contentHash = 0;
      }
      logicalAt = offset + buffers_[buffer].sizeBytes;
    }
    all.insert(all.end(), weights_.begin() + fileAt, weights_.end());
    out.weights = &all;
  }
  view.weights = ByteSpan{out.weights->data(), out.weights->size()};
  shareWithProfiles(view);
  // A kernel's signature is that of its steps unless given; validatePlan
  // then checks that every step agrees.
  for (Kernel &k : view.kernels)
    if (k.numArgs == 0 && k.numDims == 0)
      for (const Step &s : view.steps)
        if (&view.kernels[0] + s.kernel == &k) {
          k.numArgs = uint32_t(s.args.size());
          k.numDims = uint32_t(s.dims.size());
          break;
        }
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
  // Absent (not empty) in single-profile plans, which stay byte-identical to
  // the ones written before profiles existed.
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<fbs::Plan>>>
      profilesVec;
  if (!view.profiles.empty()) {
    std::vector<flatbuffers::Offset<fbs::Plan>> profiles;
    for (const Plan &p : view.profiles)
      profiles.push_back(buildPlanTable(fbb, p, /*profile=*/true, {}));
    profilesVec = fbb.CreateVector(profiles);
  }
  auto root = buildPlanTable(fbb, view, /*profile=*/false, profilesVec);
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
