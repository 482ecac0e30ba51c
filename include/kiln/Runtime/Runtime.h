//===- Runtime.h - C++ API of the kiln runtime ----------------------------===//
//
// Load a plan once into an Engine (immutable, shareable between threads),
// create one ExecutionContext per concurrent inference (owns the activation
// arena), bind inputs and outputs, run. No call throws or aborts: errors come
// back as a Status with a message. Targets: "host" (kernels in a shared
// object) and NVIDIA GPUs ("sm_XY[a]": cubin or PTX modules run through the
// CUDA driver, which is loaded with dlopen, so this library runs and reports
// clearly on machines without one).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_RUNTIME_H
#define KILN_RUNTIME_RUNTIME_H

#include "kiln/Plan/PlanIO.h"
#include "kiln/Plan/Status.h"

#include <cstddef>
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::runtime {

using Status = kiln::plan::Status;
using StatusCode = kiln::plan::StatusCode;
using DType = kiln::plan::DType;
using kiln::plan::dtypeName;
using kiln::plan::dtypeSize;

/// Version of this runtime ("0.1.0") and the newest plan format it reads (2;
/// it reads v1 too).
const char *runtimeVersion();
uint32_t planFormatVersion();

/// Target families this runtime can execute: "host" and "sm_*" (NVIDIA GPUs
/// through the CUDA driver, when one is present).
const std::vector<std::string> &supportedTargets();

/// A model input or output as the plan declares it.
struct TensorInfo {
  std::string name;
  DType dtype = DType::f32;
  std::vector<int64_t> shape;        ///< -1 = dynamic
  std::vector<std::string> dimNames; ///< empty, or one per dimension
  uint64_t byteSize = 0;             ///< 0 when a dimension is dynamic
  /// Inputs only: empty, or the value (byteSize bytes) the input was fixed to
  /// at build time (kilnc --input-value). The input must still be bound, and
  /// run() refuses any other value.
  std::vector<uint8_t> fixedValue;
  bool isDynamic() const;
};

class ExecutionContext;

/// Where an engine runs its plan.
enum class DeviceKind {
  Auto, ///< a GPU when the plan has GPU kernels and a usable GPU and driver
        ///< are present, else the host when the plan has host kernels
  Host, ///< the plan's "host" kernels on this CPU
  Gpu,  ///< the plan's GPU kernels; an error if there is no usable GPU
};
/// "auto", "host", "gpu".
const char *deviceKindName(DeviceKind kind);

struct EngineOptions {
  DeviceKind device = DeviceKind::Auto;
  /// CUDA device ordinal (as cuDeviceGet counts, after CUDA_VISIBLE_DEVICES).
  int deviceOrdinal = 0;
  /// Use PTX modules (JIT-compiled by the driver at load) when no cubin
  /// fits the device. Also enabled by the environment KILN_ALLOW_PTX_JIT=1.
  bool allowPtxJit = false;
  /// The CUDA driver library; "" = $KILN_CUDA_DRIVER, else "libcuda.so.1".
  std::string cudaDriver;
  /// Plans with tactic choices (kilnc --tactics all): empty, or exactly one
  /// entry per plan choice: -1 keeps the plan's selection, otherwise run
  /// that variant instead (kiln-tune). InvalidArgument when the size or a
  /// value is out of range.
  std::vector<int64_t> tacticVariants;
};

struct ContextOptions {
  /// GPU: capture one inference's kernel launches into a CUDA graph on the
  /// first enqueue and replay it (recaptured when device bindings change).
  /// The environment KILN_CUDA_GRAPH=0 turns it off for every context.
  bool cudaGraphs = true;
};

/// The GPU an engine runs on (ordinal -1 on the host).
struct DeviceInfo {
  std::string name; ///< "NVIDIA H200"
  int ordinal = -1;
  int computeMajor = 0, computeMinor = 0;
  int driverVersion = 0; ///< cuDriverGetVersion: 12040 = 12.4
  uint64_t totalMemoryBytes = 0;
};

/// Device memory a context holds (GPU engines; zeros on the host).
struct ContextMemory {
  uint64_t arenaBytes = 0; ///< activation/scratch arena (with alignment slack)
  uint64_t ioBytes = 0;    ///< the context's own input/output device buffers
  uint64_t tensorMapBytes = 0; ///< the TMA descriptor table (format v3)
};

/// Host memory for bindings, from Engine::allocateHostBuffer. On a GPU it is
/// page-locked: inputs bound in it (setInput) reach the device by DMA,
/// asynchronously and at the link's speed, where pageable memory is first
/// staged by the driver. Keeps its engine's device alive; not copyable.
class HostBuffer {
public:
  ~HostBuffer();
  HostBuffer(const HostBuffer &) = delete;
  HostBuffer &operator=(const HostBuffer &) = delete;
  uint8_t *data() const { return data_; }
  size_t size() const { return size_; }
  /// True for page-locked memory (GPU engines).
  bool pinned() const { return pinned_; }

  struct Owner;

private:
  friend class Engine;
  HostBuffer(std::shared_ptr<const Owner> owner, uint8_t *data, size_t size,
             bool pinned)
      : owner_(std::move(owner)), data_(data), size_(size), pinned_(pinned) {}
  std::shared_ptr<const Owner> owner_; ///< null for ordinary memory
  uint8_t *data_ = nullptr;
  size_t size_ = 0;
  bool pinned_ = false;
};

/// A loaded plan: weights, kernels, I/O description. Immutable once loaded;
/// contexts keep what they need alive, so an Engine may be destroyed before
/// its contexts.
class Engine {
public:
  /// Reads and validates a plan file, picks the device (EngineOptions), then
  /// loads its kernels: for a GPU, the module that fits the device, its
  /// functions and the weights (uploaded once, shared by all contexts).
  static Status loadFile(const std::string &path,
                         std::unique_ptr<Engine> *engine);
  static Status loadFile(const std::string &path, const EngineOptions &options,
                         std::unique_ptr<Engine> *engine);
  /// Same from memory; the bytes are copied, the caller keeps ownership.
  static Status loadMemory(const void *data, size_t size,
                           std::unique_ptr<Engine> *engine);
  static Status loadMemory(const void *data, size_t size,
                           const EngineOptions &options,
                           std::unique_ptr<Engine> *engine);
  ~Engine();
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;

  /// The plan's inputs and outputs. In a plan with several profiles, a dim
  /// that differs between them is -1 here (byteSize 0): profileInputs and
  /// profileOutputs give each profile's shapes.
  const std::vector<TensorInfo> &inputs() const;
  const std::vector<TensorInfo> &outputs() const;
  /// Optimization profiles (kilnc --profile; 1 for a plan built for one set
  /// of input shapes). Each profile has the same inputs and outputs with
  /// shapes of its own; a context runs one at a time.
  size_t numProfiles() const;
  /// The inputs and outputs of profile `index` (< numProfiles()), with its
  /// shapes.
  const std::vector<TensorInfo> &profileInputs(size_t index) const;
  const std::vector<TensorInfo> &profileOutputs(size_t index) const;
  std::optional<size_t> findInput(std::string_view name) const;
  std::optional<size_t> findOutput(std::string_view name) const;

  /// Every target the plan was built for.
  const std::vector<std::string> &planTargets() const;
  /// The target this engine executes: "host", or the GPU module's target
  /// ("sm_90a").
  const std::string &target() const;
  /// True when the engine runs on a GPU.
  bool onGpu() const;
  /// GPU engines: "cubin" or "ptx" (JIT-compiled at load); "host" otherwise.
  const char *moduleFormat() const;
  /// The GPU (ordinal -1 for host engines).
  const DeviceInfo &device() const;
  /// Why DeviceKind::Auto chose the host for a plan that has GPU kernels
  /// ("" otherwise), e.g. "no CUDA driver was found (...)".
  const std::string &deviceNote() const;
  /// Device memory the engine holds (the weights allocation); 0 on the host.
  uint64_t deviceWeightsBytes() const;
  /// cuMemGetInfo on the engine's GPU (free and total bytes of the device).
  Status queryDeviceMemory(uint64_t *freeBytes, uint64_t *totalBytes) const;
  /// `bytes` (> 0) of host memory for bindings, 64-byte aligned: page-locked
  /// on a GPU engine (cuMemHostAlloc; OutOfMemory when the system refuses
  /// to lock that much), ordinary memory on the host. Contents are
  /// uninitialized.
  Status allocateHostBuffer(size_t bytes,
                            std::unique_ptr<HostBuffer> *buffer) const;
  const std::string &compilerVersion() const;
  /// Where the plan comes from (model, compiler, options, refits), in the
  /// plan's order; the keys are listed in runtime/PLAN_FORMAT.md.
  const std::vector<plan::ProvenanceEntry> &provenance() const;
  /// provenance() as a JSON object of strings, `{"key": "value", ...}`.
  const std::string &provenanceJson() const;
  /// The activation arena of a context: the largest profile's.
  uint64_t arenaBytes() const;
  uint64_t weightsBytes() const;
  /// Steps executed per run on target() (of tactic choices: those of the
  /// selected variants only).
  size_t numSteps() const;

  /// Creates a context with its own arena and output storage (on a GPU: a
  /// device arena, device input/output buffers and a stream of its own).
  Status createContext(std::unique_ptr<ExecutionContext> *context) const;
  Status createContext(const ContextOptions &options,
                       std::unique_ptr<ExecutionContext> *context) const;

  struct State;

private:
  explicit Engine(std::shared_ptr<const State> state);
  static Status load(std::shared_ptr<State> state, const EngineOptions &options,
                     std::unique_ptr<Engine> *engine);
  std::shared_ptr<const State> state_;
};

/// Per-inference state. Not thread-safe by itself: use one per thread.
/// Contexts of one engine run concurrently (each its own arena and stream).
///
/// Host memory bindings (setInput/setOutput) work on every target; on a GPU
/// the context copies inputs to its device buffers and outputs back as part
/// of run()/enqueue(). Device bindings (setInputDevice/setOutputDevice) let
/// kernels read and write caller device memory directly, without copies.
class ExecutionContext {
public:
  ~ExecutionContext();
  ExecutionContext(const ExecutionContext &) = delete;
  ExecutionContext &operator=(const ExecutionContext &) = delete;

  /// Plans with several profiles (Engine::numProfiles): the profile this
  /// context runs, 0 at first. Each profile keeps its own bindings, device
  /// buffers and CUDA graph; all share the context's one arena (sized for
  /// the largest profile), so a switch first waits for the context's work.
  size_t profile() const;
  /// Selects profile `index` (TensorRT's setOptimizationProfileAsync, here
  /// synchronous). InvalidArgument out of range.
  Status setProfile(size_t index);
  /// Declares the shape of input `index` for the next runs and selects the
  /// profile that has it: the current one when it does, else the first whose
  /// shapes agree with this and every other declared input, else the first
  /// with this shape (the other inputs' declarations are then dropped: they
  /// follow that profile). A shape no profile has is refused
  /// (InvalidArgument naming the input, the dim, the value and the
  /// profiles' values), leaving the selection as it was. Inputs are then
  /// bound with the selected profile's sizes.
  Status setInputShape(size_t index, const std::vector<int64_t> &dims);
  Status setInputShape(std::string_view name, const std::vector<int64_t> &dims);
  /// Shapes of input/output `index` in the selected profile (known before
  /// run; empty when out of range). Valid while the context lives.
  const std::vector<int64_t> &inputShape(size_t index) const;
  const std::vector<int64_t> &outputShape(size_t index) const;
  size_t numInputs() const;
  size_t numOutputs() const;
  /// Byte size of input/output `index` in the selected profile.
  size_t inputBytes(size_t index) const;
  size_t outputBytes(size_t index) const;

  /// Binds input `index` to `bytes` bytes at `data` (exactly the tensor's size,
  /// aligned to its element size). The memory is read during run() and must
  /// stay valid until then; kernels never write to it.
  Status setInput(size_t index, const void *data, size_t bytes);
  Status setInput(std::string_view name, const void *data, size_t bytes);
  /// Makes run() write output `index` into caller memory. Passing
  /// (nullptr, 0) returns to the context's own storage (the default).
  Status setOutput(size_t index, void *data, size_t bytes);
  Status setOutput(std::string_view name, void *data, size_t bytes);
  /// Where output `index` is written (caller memory or the context's own);
  /// the contents are valid after a successful run().
  Status getOutput(size_t index, const void **data, size_t *bytes) const;
  Status getOutput(std::string_view name, const void **data,
                   size_t *bytes) const;

  /// GPU engines: kernels read input `index` directly from device address
  /// `devptr` (`bytes` = the tensor's size; aligned to 16 bytes). Must stay
  /// valid until the work enqueued with it has completed.
  Status setInputDevice(size_t index, uint64_t devptr, size_t bytes);
  /// GPU engines: kernels write output `index` directly to `devptr`; nothing
  /// is copied back and getOutput refuses it. (0, 0) = the context's own
  /// device buffer, also without copy-back (see getOutputDevice).
  Status setOutputDevice(size_t index, uint64_t devptr, size_t bytes);
  /// The device address output `index` is written to (GPU engines).
  Status getOutputDevice(size_t index, uint64_t *devptr) const;
  /// Copies `data` once into storage of the context (device memory on a
  /// GPU) and binds input `index` to it: later runs do not copy it again.
  Status uploadInput(size_t index, const void *data, size_t bytes);
  /// Waits for the context's work, then copies output `index` (wherever it
  /// is bound) into `data` (exactly the tensor's size).
  Status readOutput(size_t index, void *data, size_t bytes);

  /// Runs every step of the plan and waits for it. Host: on the calling
  /// thread. GPU: enqueue() on the context's own stream, then synchronize().
  /// Refuses to run (InvalidArgument) when an input fixed at build time is
  /// bound (from host memory) to other bytes than its fixed value; inputs
  /// bound to device memory are not read back for this check.
  Status run();
  /// GPU engines: enqueues the inference (input copies, kernels or their
  /// CUDA graph, output copies) on `stream` (a CUstream or cudaStream_t of
  /// the engine's device; null = the legacy default stream) and returns
  /// without waiting. Host bindings must stay valid, and outputs are only
  /// valid, after the stream reaches that point (synchronize()). Host
  /// engines: `stream` must be null, and it runs synchronously.
  Status enqueue(void *stream);
  /// Waits until the work of the last enqueue()/run() has completed.
  Status synchronize();

  /// Device memory this context holds.
  ContextMemory deviceMemory() const;
  /// Whether the GPU kernels run as a CUDA graph (ContextOptions and
  /// KILN_CUDA_GRAPH); false on the host.
  bool usesCudaGraphs() const;
  /// How many times the CUDA graph was captured (1 after the first enqueue;
  /// one more after each change of device bindings).
  uint64_t graphCaptures() const;

  /// One kernel launch of a profile.
  struct KernelTime {
    std::string kernel; ///< the plan's kernel name (the model node)
    std::string symbol; ///< the function in the module
    std::array<uint32_t, 3> grid = {1, 1, 1};
    std::array<uint32_t, 3> block = {1, 1, 1};
    double ms = 0;   ///< mean over the iterations
    size_t step = 0; ///< index into the plan's steps
  };
  /// GPU engines: runs the plan once (inputs must be set), then times every
  /// kernel launch on its own with CUDA events, `iterations` times, in plan
  /// order. Launch gaps are not included; the sum is the GPU busy time.
  Status profile(int iterations, std::vector<KernelTime> *times);

  struct Impl;

private:
  Status enqueueImpl(void *stream);
  Status profileImpl(int iterations, std::vector<KernelTime> *times);
  /// Creates profile `index`'s part of the context if needed and selects it.
  Status selectProfile(size_t index);
  friend class Engine;
  ExecutionContext(std::vector<std::unique_ptr<Impl>> profiles,
                   const ContextOptions &options);
  /// The selected profile's part (bindings, arena view, GPU context).
  Impl *impl_ = nullptr;
  /// One per profile, created when first selected; [0] owns the arena.
  std::vector<std::unique_ptr<Impl>> profiles_;
  ContextOptions options_;
  /// setInputShape's declarations (empty: not declared).
  std::vector<std::vector<int64_t>> declaredShapes_;
};

} // namespace kiln::runtime

#endif // KILN_RUNTIME_RUNTIME_H
