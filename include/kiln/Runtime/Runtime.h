//===- Runtime.h - C++ API of the kiln runtime ----------------------------===//
//
// Load a plan once into an Engine (immutable, shareable between threads),
// create one ExecutionContext per concurrent inference (owns the activation
// arena), bind inputs and outputs, run. No call throws or aborts: errors come
// back as a Status with a message. This runtime executes the "host" target;
// GPU plans are recognized and refused with a message saying what to rebuild.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_RUNTIME_H
#define KILN_RUNTIME_RUNTIME_H

#include "kiln/Plan/PlanIO.h"
#include "kiln/Plan/Status.h"

#include <cstddef>
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

/// Version of this runtime ("0.1.0") and the plan format it reads (1).
const char *runtimeVersion();
uint32_t planFormatVersion();

/// Targets this runtime can execute, in order of preference.
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

/// A loaded plan: weights, kernels, I/O description. Immutable once loaded;
/// contexts keep what they need alive, so an Engine may be destroyed before
/// its contexts.
class Engine {
public:
  /// Reads and validates a plan file, then loads its kernels for the first
  /// target of the plan that this runtime supports.
  static Status loadFile(const std::string &path,
                         std::unique_ptr<Engine> *engine);
  /// Same from memory; the bytes are copied, the caller keeps ownership.
  static Status loadMemory(const void *data, size_t size,
                           std::unique_ptr<Engine> *engine);
  ~Engine();
  Engine(const Engine &) = delete;
  Engine &operator=(const Engine &) = delete;

  const std::vector<TensorInfo> &inputs() const;
  const std::vector<TensorInfo> &outputs() const;
  std::optional<size_t> findInput(std::string_view name) const;
  std::optional<size_t> findOutput(std::string_view name) const;

  /// Every target the plan was built for.
  const std::vector<std::string> &planTargets() const;
  /// The target this engine executes ("host").
  const std::string &target() const;
  const std::string &compilerVersion() const;
  uint64_t arenaBytes() const;
  uint64_t weightsBytes() const;
  /// Steps executed per run on target().
  size_t numSteps() const;

  /// Creates a context with its own arena and output storage.
  Status createContext(std::unique_ptr<ExecutionContext> *context) const;

  struct State;

private:
  explicit Engine(std::shared_ptr<const State> state);
  static Status load(std::shared_ptr<State> state,
                     std::unique_ptr<Engine> *engine);
  std::shared_ptr<const State> state_;
};

/// Per-inference state. Not thread-safe by itself: use one per thread.
class ExecutionContext {
public:
  ~ExecutionContext();
  ExecutionContext(const ExecutionContext &) = delete;
  ExecutionContext &operator=(const ExecutionContext &) = delete;

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

  /// Runs every step of the plan. Host target: synchronous. Refuses to run
  /// (InvalidArgument) when an input fixed at build time is bound to other
  /// bytes than its fixed value.
  Status run();

  struct Impl;

private:
  friend class Engine;
  explicit ExecutionContext(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

} // namespace kiln::runtime

#endif // KILN_RUNTIME_RUNTIME_H
