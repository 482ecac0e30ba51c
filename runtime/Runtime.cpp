//===- Runtime.cpp - Engine and ExecutionContext (host executor) ----------===//

#include "kiln/Runtime/Runtime.h"

#include "host/HostModule.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace kiln::runtime;
namespace plan = kiln::plan;

const char *kiln::runtime::runtimeVersion() { return plan::kilnVersion(); }
uint32_t kiln::runtime::planFormatVersion() { return plan::kPlanFormatVersion; }

const std::vector<std::string> &kiln::runtime::supportedTargets() {
  static const std::vector<std::string> targets = {"host"};
  return targets;
}

bool TensorInfo::isDynamic() const {
  return std::any_of(shape.begin(), shape.end(),
                     [](int64_t d) { return d < 0; });
}

namespace {
/// Memory from posix_memalign, released with free.
struct AlignedFree {
  void operator()(void *p) const { std::free(p); }
};
using AlignedBytes = std::unique_ptr<uint8_t, AlignedFree>;

/// Returns null on failure (also for sizes no allocator could serve).
AlignedBytes allocateAligned(uint64_t size, size_t alignment) {
  void *p = nullptr;
  if (size > uint64_t(SIZE_MAX) - alignment ||
      ::posix_memalign(&p, alignment, size ? size_t(size) : 1) != 0)
    return nullptr;
  return AlignedBytes(static_cast<uint8_t *>(p));
}

std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") +
         (shape[i] < 0 ? std::string("?") : std::to_string(shape[i]));
  return s + "]";
}

std::string describe(const TensorInfo &t) {
  return "'" + t.name + "' (" + dtypeName(t.dtype) + " " +
         shapeString(t.shape) + ")";
}

/// The elements of a tensor's bytes as text, "[0, 2]", at most `limit` of
/// them (then ", ...").
std::string valuesString(plan::DType dtype, const uint8_t *data, size_t bytes,
                         size_t limit = 16) {
  size_t size = plan::dtypeSize(dtype);
  if (!size)
    return "<" + std::to_string(bytes) + " bytes>";
  size_t count = bytes / size;
  std::string s = "[";
  for (size_t i = 0; i < count && i < limit; ++i) {
    const uint8_t *p = data + i * size;
    char buf[48];
    auto load = [&](auto v) {
      std::memcpy(&v, p, sizeof(v));
      return v;
    };
    switch (dtype) {
    case plan::DType::f32:
      std::snprintf(buf, sizeof(buf), "%.9g", double(load(float())));
      break;
    case plan::DType::f64:
      std::snprintf(buf, sizeof(buf), "%.17g", load(double()));
      break;
    case plan::DType::i8:
      std::snprintf(buf, sizeof(buf), "%d", int(load(int8_t())));
      break;
    case plan::DType::u8:
      std::snprintf(buf, sizeof(buf), "%u", unsigned(load(uint8_t())));
      break;
    case plan::DType::i16:
      std::snprintf(buf, sizeof(buf), "%d", int(load(int16_t())));
      break;
    case plan::DType::u16:
      std::snprintf(buf, sizeof(buf), "%u", unsigned(load(uint16_t())));
      break;
    case plan::DType::i32:
      std::snprintf(buf, sizeof(buf), "%d", int(load(int32_t())));
      break;
    case plan::DType::u32:
      std::snprintf(buf, sizeof(buf), "%u", unsigned(load(uint32_t())));
      break;
    case plan::DType::i64:
      std::snprintf(buf, sizeof(buf), "%lld", (long long)load(int64_t()));
      break;
    case plan::DType::u64:
      std::snprintf(buf, sizeof(buf), "%llu",
                    (unsigned long long)load(uint64_t()));
      break;
    case plan::DType::boolean:
      std::snprintf(buf, sizeof(buf), "%s", *p ? "true" : "false");
      break;
    default: // f16, bf16, f8: raw bits
      std::snprintf(buf, sizeof(buf), "0x%0*llx", int(2 * size),
                    (unsigned long long)(size == 2 ? load(uint16_t())
                                                   : load(uint8_t())));
      break;
    }
    s += (i ? ", " : "") + std::string(buf);
  }
  if (count > limit)
    s += ", ...";
  return s + "]";
}

Status outOfMemory(const std::string &what) {
  return Status(StatusCode::OutOfMemory, "out of memory: " + what);
}
} // namespace

//===----------------------------------------------------------------------===//
// Engine
//===----------------------------------------------------------------------===//

struct Engine::State {
  AlignedBytes bytes; ///< the plan file; plan's spans point into it
  uint64_t size = 0;
  plan::PlanHeader header{};
  plan::Plan plan;
  std::string target;
  std::vector<TensorInfo> inputs, outputs;
  std::vector<std::unique_ptr<host::HostModule>> modules; ///< by module index
  struct HostStep {
    host::KernelFn fn;
    const plan::Step *step;
  };
  std::vector<HostStep> steps;
  size_t arenaAlignment = 64;
};

Engine::Engine(std::shared_ptr<const State> state) : state_(std::move(state)) {}
Engine::~Engine() = default;

static TensorInfo toInfo(const plan::Binding &b) {
  TensorInfo info;
  info.name = b.desc.name;
  info.dtype = b.desc.dtype;
  info.shape = b.desc.shape;
  info.dimNames = b.desc.dimNames;
  info.byteSize = b.desc.byteSize().value_or(0);
  info.fixedValue = b.fixedValue;
  return info;
}

static std::string joinTargets(const std::vector<std::string> &targets) {
  std::string s;
  for (size_t i = 0; i < targets.size(); ++i)
    s += (i ? ", " : "") + targets[i];
  return s;
}

Status Engine::load(std::shared_ptr<State> state,
                    std::unique_ptr<Engine> *engine) {
  plan::PlanReader reader;
  if (Status s = reader.open(state->bytes.get(), size_t(state->size)); !s)
    return s;
  state->header = reader.header();
  state->plan = reader.plan();
  const plan::Plan &p = state->plan;

  // Pick the first of the plan's targets that this runtime can execute.
  for (const std::string &t : p.targets)
    if (std::find(supportedTargets().begin(), supportedTargets().end(), t) !=
        supportedTargets().end()) {
      state->target = t;
      break;
    }
  if (state->target.empty()) {
    bool gpu = std::any_of(
        p.targets.begin(), p.targets.end(),
        [](const std::string &t) { return t.rfind("sm_", 0) == 0; });
    return Status(StatusCode::UnsupportedTarget,
                  "plan has kernels for " + joinTargets(p.targets) +
                      " only; this machine runs " +
                      joinTargets(supportedTargets()) +
                      ": rebuild with --target host" +
                      (gpu ? " (GPU execution is not implemented in this "
                             "runtime yet)"
                           : ""));
  }

  // Load the selected target's modules and resolve all of their kernels, so
  // that a missing symbol is an error at load time, not in the middle of run.
  state->modules.resize(p.modules.size());
  for (size_t i = 0; i < p.modules.size(); ++i) {
    const plan::Module &m = p.modules[i];
    if (m.target != state->target)
      continue;
    if (Status s = host::HostModule::load(m.data.data, m.data.size,
                                          "module " + std::to_string(i),
                                          &state->modules[i]);
        !s)
      return s;
  }
  std::vector<host::KernelFn> kernels(p.kernels.size(), nullptr);
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const plan::Kernel &k = p.kernels[i];
    if (!state->modules[k.module])
      continue;
    if (Status s = state->modules[k.module]->lookup(k.symbol, &kernels[i]); !s)
      return s.withContext("kernel '" + k.name + "'");
  }
  for (const plan::Step &step : p.steps)
    if (kernels[step.kernel])
      state->steps.push_back(State::HostStep{kernels[step.kernel], &step});

  for (const plan::Binding &b : p.inputs)
    state->inputs.push_back(toInfo(b));
  for (const plan::Binding &b : p.outputs)
    state->outputs.push_back(toInfo(b));
  for (const plan::Buffer &b : p.buffers)
    if (b.kind == plan::BufferKind::Activation ||
        b.kind == plan::BufferKind::Scratch)
      state->arenaAlignment =
          std::max<size_t>(state->arenaAlignment, b.alignment);
  engine->reset(new Engine(std::move(state)));
  return Status::success();
}

Status Engine::loadMemory(const void *data, size_t size,
                          std::unique_ptr<Engine> *engine) {
  if (!engine)
    return Status(StatusCode::InvalidArgument, "engine out-pointer is null");
  engine->reset();
  if (!data && size)
    return Status(StatusCode::InvalidArgument, "plan data is null");
  try {
    auto state = std::make_shared<State>();
    // A private, 64-byte aligned copy: the weights section is 64-byte aligned
    // relative to the start of the plan.
    state->bytes = allocateAligned(size, plan::kWeightsAlignment);
    if (!state->bytes)
      return outOfMemory("cannot allocate " + std::to_string(size) +
                         " bytes for the plan");
    if (size)
      std::memcpy(state->bytes.get(), data, size);
    state->size = size;
    return load(std::move(state), engine);
  } catch (const std::bad_alloc &) {
    return outOfMemory("loading the plan");
  }
}

Status Engine::loadFile(const std::string &path,
                        std::unique_ptr<Engine> *engine) {
  if (!engine)
    return Status(StatusCode::InvalidArgument, "engine out-pointer is null");
  engine->reset();
  auto ioError = [&](const char *what, int err) {
    return Status(err == ENOENT ? StatusCode::NotFound : StatusCode::IOError,
                  std::string(what) + " '" + path + "': " + std::strerror(err));
  };
  try {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return ioError("cannot open plan", errno);
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      int err = errno;
      ::close(fd);
      return ioError("cannot read plan", err);
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      return ioError("cannot read plan", S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
    }
    auto state = std::make_shared<State>();
    state->size = uint64_t(st.st_size);
    state->bytes = allocateAligned(state->size, plan::kWeightsAlignment);
    if (!state->bytes) {
      ::close(fd);
      return outOfMemory("cannot allocate " + std::to_string(state->size) +
                         " bytes for plan '" + path + "'");
    }
    uint64_t done = 0;
    while (done < state->size) {
      ssize_t n =
          ::read(fd, state->bytes.get() + done,
                 size_t(std::min<uint64_t>(state->size - done, 1 << 30)));
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0) {
        int err = n == 0 ? EIO : errno;
        ::close(fd);
        return ioError("cannot read plan", err);
      }
      done += uint64_t(n);
    }
    ::close(fd);
    return load(std::move(state), engine).withContext("'" + path + "'");
  } catch (const std::bad_alloc &) {
    return outOfMemory("loading plan '" + path + "'");
  }
}

const std::vector<TensorInfo> &Engine::inputs() const { return state_->inputs; }
const std::vector<TensorInfo> &Engine::outputs() const {
  return state_->outputs;
}

static std::optional<size_t> findByName(const std::vector<TensorInfo> &list,
                                        std::string_view name) {
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].name == name)
      return i;
  return std::nullopt;
}

std::optional<size_t> Engine::findInput(std::string_view name) const {
  return findByName(state_->inputs, name);
}
std::optional<size_t> Engine::findOutput(std::string_view name) const {
  return findByName(state_->outputs, name);
}
const std::vector<std::string> &Engine::planTargets() const {
  return state_->plan.targets;
}
const std::string &Engine::target() const { return state_->target; }
const std::string &Engine::compilerVersion() const {
  return state_->plan.compilerVersion;
}
uint64_t Engine::arenaBytes() const { return state_->plan.arenaBytes; }
uint64_t Engine::weightsBytes() const { return state_->plan.weights.size; }
size_t Engine::numSteps() const { return state_->steps.size(); }

//===----------------------------------------------------------------------===//
// ExecutionContext
//===----------------------------------------------------------------------===//

struct ExecutionContext::Impl {
  std::shared_ptr<const Engine::State> engine;
  AlignedBytes arena;
  struct Bound {
    void *data = nullptr;
    size_t bytes = 0;
    bool set = false;
  };
  std::vector<Bound> inputs, outputs;
  std::vector<AlignedBytes> ownOutputs; ///< default output storage
  std::vector<void *> bufferBases;      ///< per plan buffer, filled by run()
  std::vector<void *> argPointers;      ///< scratch for one step's arguments

  Status findIndex(const std::vector<TensorInfo> &list, std::string_view name,
                   const char *what, size_t *index) const {
    if (std::optional<size_t> i = findByName(list, name)) {
      *index = *i;
      return Status::success();
    }
    std::string names;
    for (const TensorInfo &t : list)
      names += (names.empty() ? "'" : ", '") + t.name + "'";
    return Status(StatusCode::NotFound,
                  std::string("the plan has no ") + what + " named '" +
                      std::string(name) + "' (its " + what +
                      "s: " + (names.empty() ? "none" : names) + ")");
  }
};

ExecutionContext::ExecutionContext(std::unique_ptr<Impl> impl)
    : impl_(std::move(impl)) {}
ExecutionContext::~ExecutionContext() = default;

Status Engine::createContext(std::unique_ptr<ExecutionContext> *context) const {
  if (!context)
    return Status(StatusCode::InvalidArgument, "context out-pointer is null");
  context->reset();
  const State &s = *state_;
  // Static shapes only for now: kernels get their shapes from the plan.
  for (const auto *list : {&s.inputs, &s.outputs})
    for (const TensorInfo &t : *list)
      if (t.isDynamic())
        return Status(StatusCode::NotImplemented,
                      "tensor " + describe(t) +
                          " has a dynamic shape; this runtime executes "
                          "static shapes only");
  try {
    auto impl = std::make_unique<ExecutionContext::Impl>();
    impl->engine = state_;
    impl->arena = allocateAligned(s.plan.arenaBytes, s.arenaAlignment);
    if (!impl->arena)
      return outOfMemory("cannot allocate the " +
                         std::to_string(s.plan.arenaBytes) +
                         "-byte activation arena");
    // Zeroed so that a kernel reading before writing is deterministic.
    std::memset(impl->arena.get(), 0, size_t(s.plan.arenaBytes));
    impl->inputs.resize(s.inputs.size());
    impl->outputs.resize(s.outputs.size());
    for (size_t i = 0; i < s.outputs.size(); ++i) {
      AlignedBytes out = allocateAligned(s.outputs[i].byteSize, 64);
      if (!out)
        return outOfMemory("cannot allocate output " + describe(s.outputs[i]));
      std::memset(out.get(), 0, size_t(s.outputs[i].byteSize));
      impl->outputs[i] = {out.get(), size_t(s.outputs[i].byteSize), true};
      impl->ownOutputs.push_back(std::move(out));
    }
    impl->bufferBases.resize(s.plan.buffers.size(), nullptr);
    context->reset(new ExecutionContext(std::move(impl)));
    return Status::success();
  } catch (const std::bad_alloc &) {
    return outOfMemory("creating an execution context");
  }
}

static Status checkUserMemory(const TensorInfo &t, const char *what,
                              const void *data, size_t bytes) {
  if (bytes != t.byteSize)
    return Status(StatusCode::InvalidArgument,
                  std::string(what) + " " + describe(t) + " needs " +
                      std::to_string(t.byteSize) + " bytes, got " +
                      std::to_string(bytes));
  if (!data && bytes)
    return Status(StatusCode::InvalidArgument,
                  std::string(what) + " " + describe(t) + ": data is null");
  size_t align = dtypeSize(t.dtype);
  if (reinterpret_cast<uintptr_t>(data) % align)
    return Status(StatusCode::InvalidArgument,
                  std::string(what) + " " + describe(t) +
                      ": data is not aligned to " + std::to_string(align) +
                      " bytes");
  return Status::success();
}

Status ExecutionContext::setInput(size_t index, const void *data,
                                  size_t bytes) {
  const std::vector<TensorInfo> &inputs = impl_->engine->inputs;
  if (index >= inputs.size())
    return Status(StatusCode::InvalidArgument,
                  "input index " + std::to_string(index) +
                      " is out of range (the plan has " +
                      std::to_string(inputs.size()) + " inputs)");
  if (Status s = checkUserMemory(inputs[index], "input", data, bytes); !s)
    return s;
  // Kernels never write inputs (ABI); the pointer is non-const only because
  // all step arguments travel in one void* array.
  impl_->inputs[index] = {const_cast<void *>(data), bytes, true};
  return Status::success();
}

Status ExecutionContext::setInput(std::string_view name, const void *data,
                                  size_t bytes) {
  size_t index;
  if (Status s = impl_->findIndex(impl_->engine->inputs, name, "input", &index);
      !s)
    return s;
  return setInput(index, data, bytes);
}

Status ExecutionContext::setOutput(size_t index, void *data, size_t bytes) {
  const std::vector<TensorInfo> &outputs = impl_->engine->outputs;
  if (index >= outputs.size())
    return Status(StatusCode::InvalidArgument,
                  "output index " + std::to_string(index) +
                      " is out of range (the plan has " +
                      std::to_string(outputs.size()) + " outputs)");
  if (!data && bytes == 0) {
    impl_->outputs[index] = {impl_->ownOutputs[index].get(),
                             size_t(outputs[index].byteSize), true};
    return Status::success();
  }
  if (Status s = checkUserMemory(outputs[index], "output", data, bytes); !s)
    return s;
  impl_->outputs[index] = {data, bytes, true};
  return Status::success();
}

Status ExecutionContext::setOutput(std::string_view name, void *data,
                                   size_t bytes) {
  size_t index;
  if (Status s =
          impl_->findIndex(impl_->engine->outputs, name, "output", &index);
      !s)
    return s;
  return setOutput(index, data, bytes);
}

Status ExecutionContext::getOutput(size_t index, const void **data,
                                   size_t *bytes) const {
  if (index >= impl_->outputs.size())
    return Status(StatusCode::InvalidArgument,
                  "output index " + std::to_string(index) +
                      " is out of range (the plan has " +
                      std::to_string(impl_->outputs.size()) + " outputs)");
  if (data)
    *data = impl_->outputs[index].data;
  if (bytes)
    *bytes = impl_->outputs[index].bytes;
  return Status::success();
}

Status ExecutionContext::getOutput(std::string_view name, const void **data,
                                   size_t *bytes) const {
  size_t index;
  if (Status s =
          impl_->findIndex(impl_->engine->outputs, name, "output", &index);
      !s)
    return s;
  return getOutput(index, data, bytes);
}

Status ExecutionContext::run() {
  const Engine::State &s = *impl_->engine;
  const plan::Plan &p = s.plan;
  for (size_t i = 0; i < s.inputs.size(); ++i)
    if (!impl_->inputs[i].set)
      return Status(StatusCode::InvalidArgument,
                    "input " + describe(s.inputs[i]) +
                        " is not set (call setInput before run)");
  // The plan was compiled for these values only; other bytes would silently
  // give results for the fixed value.
  for (size_t i = 0; i < s.inputs.size(); ++i) {
    const TensorInfo &t = s.inputs[i];
    const ExecutionContext::Impl::Bound &bound = impl_->inputs[i];
    if (t.fixedValue.empty() ||
        (bound.bytes == t.fixedValue.size() &&
         std::memcmp(bound.data, t.fixedValue.data(), bound.bytes) == 0))
      continue;
    return Status(
        StatusCode::InvalidArgument,
        "input '" + t.name + "' was fixed at build time to " +
            valuesString(t.dtype, t.fixedValue.data(), t.fixedValue.size()) +
            " (kilnc --input-value); got " +
            valuesString(t.dtype, static_cast<const uint8_t *>(bound.data),
                         bound.bytes) +
            ": rebuild the plan without --input-value " + t.name +
            " or with the new value");
  }

  // Buffer base addresses for this run.
  std::vector<void *> &bases = impl_->bufferBases;
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    const plan::Buffer &b = p.buffers[i];
    switch (b.kind) {
    case plan::BufferKind::Weight:
      bases[i] = const_cast<uint8_t *>(p.weights.data) + b.offset;
      break;
    case plan::BufferKind::Activation:
    case plan::BufferKind::Scratch:
      bases[i] = impl_->arena.get() + b.offset;
      break;
    case plan::BufferKind::Input:
    case plan::BufferKind::Output:
      bases[i] = nullptr; // set from the bindings below
      break;
    }
  }
  for (size_t i = 0; i < p.inputs.size(); ++i)
    bases[p.inputs[i].buffer] = impl_->inputs[i].data;
  for (size_t i = 0; i < p.outputs.size(); ++i)
    bases[p.outputs[i].buffer] = impl_->outputs[i].data;

  std::vector<void *> &args = impl_->argPointers;
  for (const Engine::State::HostStep &step : s.steps) {
    args.resize(step.step->args.size());
    for (size_t a = 0; a < args.size(); ++a) {
      const plan::Arg &arg = step.step->args[a];
      uint8_t *base = static_cast<uint8_t *>(bases[arg.buffer]);
      args[a] = base ? base + arg.offset : nullptr;
    }
    step.fn(args.empty() ? nullptr : args.data(),
            step.step->dims.empty() ? nullptr : step.step->dims.data());
  }
  return Status::success();
}
