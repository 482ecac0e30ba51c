//===- PlanIO.h - Write and read kiln plans (format v4) -------------------===//
//
// The compiler builds a plan with PlanWriter; the runtime opens one with
// PlanReader, which validates every byte before handing out a kiln::plan::Plan
// (plain C++ structs, no FlatBuffers types). Plain C++17, no MLIR/LLVM.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_PLAN_PLANIO_H
#define KILN_PLAN_PLANIO_H

#include "kiln/Plan/PlanHeader.h"
#include "kiln/Plan/Status.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::plan {

/// The kiln version compiled into this library ("0.1.0").
const char *kilnVersion();

/// Element types; values equal kiln.plan.fb.DType.
enum class DType : uint8_t {
  f32 = 0,
  f16,
  bf16,
  f64,
  i8,
  u8,
  i16,
  u16,
  i32,
  i64,
  u32,
  u64,
  boolean,
  f8e4m3fn,
  f8e5m2,
};
inline constexpr unsigned kNumDTypes = 15;
/// "f32", "bool", ...; "invalid" outside the enum.
const char *dtypeName(DType dtype);
/// Parses dtypeName()'s spelling.
std::optional<DType> parseDType(std::string_view name);
/// Bytes per element; 0 outside the enum.
size_t dtypeSize(DType dtype);

enum class BufferKind : uint8_t {
  Input = 0,
  Output,
  Weight,
  Activation,
  Scratch,
  /// One CUtensorMap (TMA descriptor) in the execution context's tensor-map
  /// table, encoded by the runtime from a Plan::tensorMaps entry. (Format v3.)
  TensorMap,
};
inline constexpr unsigned kNumBufferKinds = 6;
const char *bufferKindName(BufferKind kind);

enum class ModuleFormat : uint8_t { HostSharedObject = 0, Cubin, Ptx };
inline constexpr unsigned kNumModuleFormats = 3;
const char *moduleFormatName(ModuleFormat format);

/// Bytes owned by someone else (the plan bytes, or a PlanWriter).
struct ByteSpan {
  const uint8_t *data = nullptr;
  size_t size = 0;
};

struct TensorDesc {
  std::string name;
  DType dtype = DType::f32;
  std::vector<int64_t> shape;        ///< -1 = dynamic
  std::vector<std::string> dimNames; ///< empty, or one per dimension

  bool isStatic() const;
  /// Element count; nullopt for dynamic shapes or on int64 overflow.
  std::optional<uint64_t> numElements() const;
  /// Bytes of the tensor; nullopt when numElements() is.
  std::optional<uint64_t> byteSize() const;
  bool operator==(const TensorDesc &o) const;
};

struct Binding {
  TensorDesc desc;
  uint32_t buffer = 0;
  uint64_t offset = 0;
  /// Inputs only: empty, or the bytes the input was fixed to at build time
  /// (kilnc --input-value); exactly desc.byteSize() bytes.
  std::vector<uint8_t> fixedValue;
  bool operator==(const Binding &o) const;
};

struct Buffer {
  BufferKind kind = BufferKind::Activation;
  /// kTensorMapBytes for TensorMap buffers.
  uint64_t sizeBytes = 0;
  /// Into the weights section (Weight), the arena (Activation, Scratch) or
  /// the tensor-map table (TensorMap); 0 for Input/Output.
  uint64_t offset = 0;
  uint32_t alignment = 64;
  /// XXH64 (seed 0) of the bytes, 0 = none. Marks the stripped Weight buffers
  /// of a weight-stripped plan; informational elsewhere.
  uint64_t contentHash = 0;
  bool operator==(const Buffer &o) const;
};

struct Module {
  std::string target;
  ModuleFormat format = ModuleFormat::HostSharedObject;
  ByteSpan data;
};

struct Kernel {
  std::string name;
  uint32_t module = 0;
  std::string symbol;
  /// The kernel's signature: every step of it passes exactly `numArgs`
  /// arguments and `numDims` dims (a kernel reads as many as it was built
  /// for, whatever the step says). PlanWriter fills both in from the
  /// kernel's steps when they are 0; in a plan read back they are explicit.
  uint32_t numArgs = 0;
  uint32_t numDims = 0;
  bool operator==(const Kernel &o) const;
};

/// A kernel argument: the address `offset` bytes into buffer `buffer`, and
/// the bytes [offset, offset + extent) of the buffer that the kernel may
/// touch through it.
struct Arg {
  uint32_t buffer = 0;
  uint64_t offset = 0;
  /// In a PlanWriter, 0 means "to the end of the buffer" (its readableBytes)
  /// and is resolved when the plan is serialized. In a plan read back it is
  /// explicit: 0 only when no byte follows `offset`.
  uint64_t extent = 0;
  bool operator==(const Arg &o) const;
};

struct Step {
  uint32_t kernel = 0;
  std::vector<Arg> args;
  std::array<uint32_t, 3> grid = {1, 1, 1};
  std::array<uint32_t, 3> block = {1, 1, 1};
  uint32_t sharedMemBytes = 0;
  std::vector<int64_t> dims;
  /// 0: the step always runs. Otherwise 1 + an index into Plan::choices: the
  /// step belongs to variant `variant` of that choice and runs only when that
  /// variant is the selected one.
  uint32_t choice = 0;
  uint32_t variant = 0;
  bool operator==(const Step &o) const;
};

/// Size and alignment of a TensorMap buffer: those of a CUtensorMap.
inline constexpr uint64_t kTensorMapBytes = 128;
inline constexpr uint32_t kTensorMapAlignment = 64;
/// Largest rank cuTensorMapEncodeTiled takes.
inline constexpr size_t kMaxTensorMapRank = 5;

/// A TMA tensor map (CUtensorMap): the runtime encodes it with
/// cuTensorMapEncodeTiled into TensorMap buffer `buffer` of each execution
/// context, over the tensor at byte `sourceOffset` of buffer `source`.
/// (Format v3.)
struct TensorMap {
  uint32_t buffer = 0;
  uint32_t source = 0;
  uint64_t sourceOffset = 0;
  DType dtype = DType::f16;
  /// Extents, innermost (contiguous) first; 1 to 5 of them.
  std::vector<uint64_t> dims;
  /// Byte strides of dims[1..]: dims.size() - 1 entries, multiples of 16.
  std::vector<uint64_t> strides;
  /// Box (the tile one copy moves) per dim, each 1..256.
  std::vector<uint32_t> box;
  /// CUtensorMapSwizzle: 0 none, 1 32 B, 2 64 B, 3 128 B.
  uint8_t swizzle = 3;
  bool operator==(const TensorMap &o) const;
};

/// A region built in several variants (kilnc --tactics all); kiln-tune picks
/// one.
struct Choice {
  /// Timing-cache key of the region (from kilnc).
  std::string key;
  /// For people: the region's kernel label.
  std::string name;
  /// Tactic of each variant; 0 = the cost model's pick.
  std::vector<std::string> variants;
  /// The variant the runtime runs.
  uint32_t selected = 0;
  /// Empty, or one per variant (measured by kiln-tune).
  std::vector<double> timesMs;
  /// The GPU they were measured on ("" = untuned).
  std::string device;
  bool operator==(const Choice &o) const;
};

/// One record of where a plan comes from (model, compiler, options, tools
/// that rewrote it). Keys are unique within a plan; the well-known ones are
/// listed in PLAN_FORMAT.md. The plan library stores them, it computes none.
struct ProvenanceEntry {
  std::string key;
  std::string value;
  bool operator==(const ProvenanceEntry &o) const;
};

/// A whole plan. Module data and weights are views: into the bytes given to
/// PlanReader::open (which must outlive this), or into a PlanWriter.
struct Plan {
  std::string compilerVersion;
  std::vector<std::string> targets;
  uint32_t minDriverVersion = 0;
  std::vector<Binding> inputs;
  std::vector<Binding> outputs;
  std::vector<Buffer> buffers;
  uint64_t arenaBytes = 0;
  uint64_t arenaBytesWithoutReuse = 0;
  std::vector<Module> modules;
  std::vector<Kernel> kernels;
  std::vector<Step> steps;
  /// The weights section as stored in the file. In a weight-stripped plan it
  /// is the logical section with the stripped buffers' bytes cut out.
  ByteSpan weights;
  /// 0 for a complete plan; otherwise the size of the logical weights section
  /// (Weight buffer offsets refer to it). See PLAN_FORMAT.md.
  uint64_t strippedWeightsSize = 0;
  /// Regions built in several variants; steps refer to them (Step::choice).
  std::vector<Choice> choices;
  /// TMA descriptors, one per TensorMap buffer.
  std::vector<TensorMap> tensorMaps;
  /// In order; keys non-empty and unique.
  std::vector<ProvenanceEntry> provenance;
  /// Profiles 1..N-1 of a multi-profile plan (kilnc --profile); this Plan's
  /// own fields are profile 0. Each entry is a complete Plan of that profile:
  /// its own inputs/outputs (same names, dtypes and ranks, other shapes),
  /// buffers, arena, modules, kernels, steps, choices and tensor maps, and
  /// the shared fields (compilerVersion, targets, minDriverVersion, weights,
  /// strippedWeightsSize, provenance) copied from this one by PlanReader.
  /// Its own `profiles` is empty.
  std::vector<Plan> profiles;

  bool isWeightStripped() const { return strippedWeightsSize != 0; }
  /// 1 + profiles.size().
  size_t numProfiles() const { return 1 + profiles.size(); }
  /// Profile `index` as a plan of its own: profiles[index - 1], or for
  /// index 0 this plan (whose `profiles` the caller then ignores).
  const Plan &profile(size_t index) const {
    return index == 0 ? *this : profiles[index - 1];
  }
  /// Whether buffer `index` is a Weight buffer whose bytes are not in the file.
  bool isStrippedBuffer(uint32_t index) const;
  /// Choice::selected of every choice.
  std::vector<uint32_t> selectedVariants() const;
};

/// Bytes of the tensor-map table of an execution context: the end of the
/// last TensorMap buffer (0 without any).
uint64_t tensorMapTableBytes(const Plan &plan);

/// Buffers that a step argument or a tensor map names.
std::vector<bool> namedBuffers(const Plan &plan);

/// The bytes from the start of `buffer` that its readers may address: its
/// own, and for a Weight buffer those of the Weight buffers after it in
/// `plan.buffers` that lie back to back with it in the weights section and
/// that nothing names (`named`: namedBuffers): the further parts of a
/// stacked weight, which kernels read through the first part.
uint64_t readableBytes(const Plan &plan, uint32_t buffer,
                       const std::vector<bool> &named);

/// readableBytes of every buffer, computed in one pass over `plan.buffers`
/// (calling readableBytes for each would take quadratic time on a plan with
/// many back-to-back weights).
std::vector<uint64_t> readableBytesOfAll(const Plan &plan,
                                         const std::vector<bool> &named);

/// Whether `step` runs when choice c runs variant `selected[c]` (one entry per
/// choice, e.g. Plan::selectedVariants()): steps outside choices always run.
bool stepRuns(const Step &step, const std::vector<uint32_t> &selected);

/// The bytes of Weight buffer `index` as stored in `plan.weights` (offsets of
/// weight-stripped plans translated); nullopt for a stripped buffer or one that
/// is not a Weight buffer. `plan` must have passed validatePlan.
std::optional<ByteSpan> weightBytes(const Plan &plan, uint32_t index);

/// Writes `pieces`, in order, into a temporary file next to `path`, fsyncs
/// it, renames it over `path` and fsyncs the directory: readers see the old
/// file or the new one, never a partial one. On failure the temporary is
/// removed and an existing `path` is untouched. `what` names the contents in
/// errors ("cannot write <what>: rename failed '<path>': ...").
Status writeFileAtomically(const std::string &path,
                           const std::vector<ByteSpan> &pieces,
                           const std::string &what);

/// Semantic checks shared by writer and reader: every index in range, every
/// offset+size inside its arena/weights/buffer, every step argument's
/// [offset, offset + extent) inside its buffer, enums valid, shapes >= -1,
/// I/O bindings consistent, tactic choices and the steps' references to them
/// consistent, tensor maps within what cuTensorMapEncodeTiled accepts and
/// within their source buffers, provenance keys non-empty and unique.
/// Returns InvalidPlan with a message naming the
/// offending element.
Status validatePlan(const Plan &plan);

/// Builds a plan. Indices returned by add* are the ones steps and bindings use.
class PlanWriter {
public:
  explicit PlanWriter(std::string compilerVersion = kilnVersion());
  /// A writer that reproduces `plan` (copying modules and weights); with
  /// fillStrippedWeight it turns a weight-stripped plan into a complete one.
  static PlanWriter fromPlan(const Plan &plan);

  void setCompilerVersion(std::string version) {
    compilerVersion_ = std::move(version);
  }
  /// Declares a target; addModule declares its module's target too. Order is
  /// the plan's order of preference.
  void addTarget(const std::string &target);
  void setMinDriverVersion(uint32_t version) { minDriverVersion_ = version; }

  /// Appends `size` bytes to the weights section at the next multiple of
  /// `alignment` (zero padding) and returns their offset in the section.
  uint64_t addWeights(const void *data, size_t size, uint32_t alignment = 64);
  /// addWeights + a Weight buffer over the bytes; returns the buffer index.
  uint32_t addWeightBuffer(const void *data, size_t size,
                           uint32_t alignment = 64);
  /// Like addWeightBuffer, but the bytes stay out of the file: the buffer
  /// records their size and XXH64, and the plan becomes weight-stripped until
  /// kiln-refit puts them back. Bytes whose XXH64 is 0 (which the format
  /// reserves for "no hash") and empty ones are stored inline instead.
  uint32_t addStrippedWeightBuffer(const void *data, size_t size,
                                   uint32_t alignment = 64);
  /// Provides the bytes of stripped buffer `buffer`: InvalidArgument unless it
  /// is stripped and `size`/XXH64 match what it records. When every stripped
  /// buffer is filled, the writer writes a complete plan, byte-identical to
  /// one built with addWeightBuffer (filled buffers lose their content hash).
  Status fillStrippedWeight(uint32_t buffer, const void *data, size_t size);
  /// Stripped buffers not filled yet.
  std::vector<uint32_t> unfilledStrippedBuffers() const;
  const std::vector<Buffer> &buffers() const { return buffers_; }
  /// Adds a buffer of any kind; `offset` is into the weights section (Weight),
  /// the arena (Activation, Scratch) or the tensor-map table (TensorMap: size
  /// kTensorMapBytes, alignment kTensorMapAlignment). Returns its index.
  uint32_t addBuffer(BufferKind kind, uint64_t sizeBytes, uint64_t offset = 0,
                     uint32_t alignment = 64);
  /// Adds an Input (Output) buffer sized for `desc` and binds `desc` to it.
  /// Returns the buffer index. Dynamic shapes get a 0-byte buffer.
  /// `fixedValue`, when not empty, is the value the input was fixed to at
  /// build time (Binding::fixedValue).
  uint32_t addInput(TensorDesc desc, std::vector<uint8_t> fixedValue = {});
  uint32_t addOutput(TensorDesc desc);
  /// Low-level: binds to an existing buffer.
  void addInputBinding(Binding binding) {
    inputs_.push_back(std::move(binding));
  }
  void addOutputBinding(Binding binding) {
    outputs_.push_back(std::move(binding));
  }
  /// Arena size (liveness-based offsets) and the sum of all activation sizes
  /// (for the build report). When never called, serialize() uses the end of
  /// the last Activation/Scratch buffer for both.
  void setArenaBytes(uint64_t bytes, uint64_t bytesWithoutReuse);

  /// Copies `size` bytes of a module; returns its index.
  uint32_t addModule(const std::string &target, ModuleFormat format,
                     const void *data, size_t size);
  uint32_t addKernel(std::string name, uint32_t module, std::string symbol);
  uint32_t addStep(Step step);
  /// Declares a choice; returns the value for Step::choice (1 + its index).
  uint32_t addChoice(Choice choice);
  /// Declares the tensor map that fills TensorMap buffer `map.buffer`;
  /// returns its index in Plan::tensorMaps.
  uint32_t addTensorMap(TensorMap map);
  const std::vector<TensorMap> &tensorMaps() const { return tensorMaps_; }
  /// Records `value` under `key`: an existing key keeps its place and gets
  /// the new value, a new key is appended. An empty key makes serialize()
  /// fail.
  void addProvenance(std::string key, std::string value);
  /// Drops the record of `key`, if any.
  void removeProvenance(const std::string &key);
  /// Appends profile 1 + profiles().size() of a multi-profile plan: a
  /// complete plan of that profile (explicit extents and kernel signatures,
  /// as PlanReader returns them) whose Weight buffers address this writer's
  /// weights section; its shared fields (targets, weights, provenance, ...)
  /// are ignored, its modules copied. serialize() validates it.
  void addProfile(const Plan &profile);
  size_t numProfiles() const { return 1 + profiles_.size(); }
  /// Adds `part`, a complete single-profile plan of the same model built for
  /// other input shapes (kilnc builds one per --profile), as the next
  /// profile. Its weights join this writer's section: a weight (with the
  /// parts stacked after it) whose bytes the section already holds is
  /// shared, any other is appended (and listed as a Weight buffer of profile
  /// 0, which thus lists every weight of the section). Both plans must be
  /// complete or both weight-stripped. InvalidArgument when `part` cannot be
  /// a profile of this plan (other targets, inputs or outputs).
  Status addProfileSharingWeights(const Plan &part);
  const std::vector<ProvenanceEntry> &provenance() const { return provenance_; }
  /// The declared choices (kiln-tune sets selected/timesMs/device).
  std::vector<Choice> &choices() { return choices_; }
  const std::vector<Choice> &choices() const { return choices_; }

  /// Validates (validatePlan) and serializes the plan into `out`.
  Status serialize(std::vector<uint8_t> &out) const;
  /// serialize() into a temporary file next to `path`, fsync, rename over
  /// `path`: readers see the old plan or the new one, never a partial file.
  /// On failure the temporary is removed and an existing `path` is untouched.
  Status writeFileAtomically(const std::string &path) const;

private:
  struct Serialized;
  Status build(Serialized &out) const;

  std::string compilerVersion_;
  std::vector<std::string> targets_;
  uint32_t minDriverVersion_ = 0;
  std::vector<Binding> inputs_, outputs_;
  std::vector<Buffer> buffers_;
  std::optional<std::pair<uint64_t, uint64_t>> arena_;
  /// Weights bytes as they go into the file (stripped ones cut out).
  std::vector<uint8_t> weights_;
  /// End of the logical weights section (= weights_.size() unless stripped).
  uint64_t weightsEnd_ = 0;
  /// Stripped buffers and, once filled, their bytes.
  std::map<uint32_t, std::optional<std::vector<uint8_t>>> stripped_;
  struct ModuleData {
    std::string target;
    ModuleFormat format;
    std::vector<uint8_t> bytes;
  };
  std::vector<ModuleData> modules_;
  std::vector<Kernel> kernels_;
  std::vector<Step> steps_;
  std::vector<Choice> choices_;
  std::vector<TensorMap> tensorMaps_;
  std::vector<ProvenanceEntry> provenance_;
  /// Profiles 1.. (addProfile): each plan's module spans point into the
  /// matching entry of profileModules_.
  std::vector<Plan> profiles_;
  std::vector<std::vector<std::vector<uint8_t>>> profileModules_;
  /// Profile 0's buffers where addProfileSharingWeights appended a run.
  std::vector<uint32_t> appendedRuns_;
};

/// Reads a plan. open() validates the header, the checksum, the FlatBuffer
/// (flatbuffers::Verifier) and the semantics (validatePlan) before anything is
/// exposed; it never crashes on bad input.
class PlanReader {
public:
  struct Options {
    /// Accept weight-stripped plans (kiln-refit); runtimes must not, since
    /// their stripped buffers have no bytes to point at.
    bool allowWeightStripped = false;
  };
  /// `data` must stay valid while this reader and its plan() are used, and be
  /// 8-byte aligned (64-byte aligned for the weights to be 64-byte aligned in
  /// memory). Weight-stripped plans are refused unless `options` allow them.
  Status open(const void *data, size_t size);
  Status open(const void *data, size_t size, const Options &options);

  const PlanHeader &header() const { return header_; }
  const Plan &plan() const { return plan_; }

private:
  PlanHeader header_{};
  Plan plan_;
};

/// Reads a whole file into `out`.
Status readFile(const std::string &path, std::vector<uint8_t> &out);

} // namespace kiln::plan

#endif // KILN_PLAN_PLANIO_H
