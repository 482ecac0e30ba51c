//===- Runtime.cpp - Engine and ExecutionContext (host and GPU) -----------===//
//
// Over 1000 lines, for a reason: Engine::State and ExecutionContext::Impl
// are the private halves of Runtime.h's two classes and share the plan
// loading, allocation checks and binding helpers of this file's anonymous
// namespaces. The split by class comes with the dynamic-shape work, which
// rewrites how a context sizes its arena.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Runtime.h"

#include "cuda/GpuExecutor.h"
#include "host/HostModule.h"
#include "support/Json.h"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define KILN_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_ASAN 1
#endif
#endif
#ifdef KILN_ASAN
#include <sanitizer/asan_interface.h>
#endif

using namespace kiln::runtime;
namespace plan = kiln::plan;

const char *kiln::runtime::runtimeVersion() { return plan::kilnVersion(); }
uint32_t kiln::runtime::planFormatVersion() { return plan::kPlanFormatVersion; }

const std::vector<std::string> &kiln::runtime::supportedTargets() {
  static const std::vector<std::string> targets = {"host", "sm_*"};
  return targets;
}

bool TensorInfo::isDynamic() const {
  return std::any_of(shape.begin(), shape.end(),
                     [](int64_t d) { return d < 0; });
}

namespace {
/// Memory from posix_memalign or calloc, released with free (of `base`
/// when the pointer was aligned up from it).
struct AlignedFree {
  void *base = nullptr;
  void operator()(void *p) const { std::free(base ? base : p); }
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

/// Zero-filled memory from calloc; null on failure. Large blocks are fresh
/// pages that the kernel zeroes when they are first touched, so memory that
/// the kernels never touch (an arena larger than they use) costs nothing,
/// where a memset would fault in every page. Aligned up inside a larger
/// block when `alignment` is more than malloc's; the slack is poisoned for
/// AddressSanitizer, so accesses past `size` are still reported.
AlignedBytes allocateZeroed(uint64_t size, size_t alignment) {
  if (size == 0)
    size = 1;
  if (alignment <= alignof(std::max_align_t))
    return AlignedBytes(static_cast<uint8_t *>(
        size > SIZE_MAX ? nullptr : std::calloc(1, size_t(size))));
  if (size > uint64_t(SIZE_MAX) - alignment)
    return nullptr;
  auto *base = static_cast<uint8_t *>(std::calloc(1, size_t(size) + alignment));
  if (!base)
    return nullptr;
  uint8_t *at = base + (alignment - uintptr_t(base) % alignment) % alignment;
#ifdef KILN_ASAN
  ASAN_POISON_MEMORY_REGION(base, size_t(at - base));
  ASAN_POISON_MEMORY_REGION(at + size, size_t(base + size + alignment - (at + size)));
#endif
  return AlignedBytes(at, AlignedFree{base});
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
      std::snprintf(
          buf, sizeof(buf), "0x%0*llx", int(2 * size),
          (unsigned long long)(size == 2 ? load(uint16_t()) : load(uint8_t())));
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

/// "26388279066624 bytes (24.0 TiB)".
std::string bytesText(uint64_t bytes) {
  static const char *kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::string s = std::to_string(bytes) + " bytes";
  if (bytes < 1024)
    return s;
  double v = double(bytes) / 1024;
  size_t unit = 0;
  while (v >= 1024 && unit + 1 < sizeof(kUnits) / sizeof(kUnits[0])) {
    v /= 1024;
    ++unit;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), " (%.1f %s)", v, kUnits[unit]);
  return s + buf;
}

/// Refuses, before allocating, host memory that this machine does not have
/// (an allocation that the kernel would overcommit and then kill the
/// process for while zeroing it): OutOfMemory naming `what` and the sizes.
Status checkHostBytes(const std::string &what, uint64_t bytes) {
  long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return Status::success(); // unknown: the allocation itself will say
  uint64_t memory = uint64_t(pages) * uint64_t(pageSize);
  if (bytes <= memory)
    return Status::success();
  return Status(StatusCode::OutOfMemory,
                what + " needs " + bytesText(bytes) +
                    " of host memory; this machine has " + bytesText(memory));
}

/// Host memory for `what`: checked against the machine, then allocated.
Status allocateHost(const std::string &what, uint64_t size, size_t alignment,
                    AlignedBytes *out, bool zeroed = false) {
  if (Status s = checkHostBytes(what, size); !s)
    return s;
  *out = zeroed ? allocateZeroed(size, alignment)
                : allocateAligned(size, alignment);
  if (!*out)
    return outOfMemory("cannot allocate " + bytesText(size) + " for " + what);
  return Status::success();
}

bool envIs(const char *name, const char *value) {
  const char *v = std::getenv(name);
  return v && std::strcmp(v, value) == 0;
}
} // namespace

const char *kiln::runtime::deviceKindName(DeviceKind kind) {
  switch (kind) {
  case DeviceKind::Auto:
    return "auto";
  case DeviceKind::Host:
    return "host";
  case DeviceKind::Gpu:
    return "gpu";
  }
  return "invalid";
}

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
  /// The variant each tactic choice runs (the plan's selection, or
  /// EngineOptions::tacticVariants).
  std::vector<uint32_t> selectedVariants;
  size_t arenaAlignment = 64;
  /// Set when the engine runs on a GPU (then `modules` and `steps` are empty).
  std::unique_ptr<cuda::GpuEngine> gpu;
  DeviceInfo hostDevice;
  std::string deviceNote;
  std::string provenanceJson;
  /// Multi-profile plans: profiles 1.. loaded like plans of their own (their
  /// `plan` is plan.profiles[k - 1]; same target; on a GPU they use profile
  /// 0's weights upload), the I/O with -1 where profiles differ, and the
  /// arena a context needs (the largest profile's).
  std::vector<std::unique_ptr<State>> profiles;
  std::vector<TensorInfo> mergedInputs, mergedOutputs;
  uint64_t contextArenaBytes = 0;
  const State &profileState(size_t index) const {
    return index == 0 ? *this : *profiles[index - 1];
  }
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

/// Loads the plan's host modules and resolves the host steps.
static Status loadHost(Engine::State &state) {
  const plan::Plan &p = state.plan;
  state.target = "host";
  // Load the host modules and resolve all of their kernels, so that a
  // missing symbol is an error at load time, not in the middle of run.
  state.modules.resize(p.modules.size());
  for (size_t i = 0; i < p.modules.size(); ++i) {
    const plan::Module &m = p.modules[i];
    if (m.target != "host")
      continue;
    if (Status s = host::HostModule::load(m.data.data, m.data.size,
                                          "module " + std::to_string(i),
                                          &state.modules[i]);
        !s)
      return s;
  }
  std::vector<host::KernelFn> kernels(p.kernels.size(), nullptr);
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const plan::Kernel &k = p.kernels[i];
    if (!state.modules[k.module])
      continue;
    if (Status s = state.modules[k.module]->lookup(k.symbol, &kernels[i]); !s)
      return s.withContext("kernel '" + k.name + "'");
  }
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const plan::Step &step = p.steps[i];
    if (!kernels[step.kernel] || !plan::stepRuns(step, state.selectedVariants))
      continue;
    // Tensor maps are TMA descriptors that only a GPU's copy engine reads;
    // the compiler never hands one to a host kernel.
    for (size_t a = 0; a < step.args.size(); ++a)
      if (p.buffers[step.args[a].buffer].kind == plan::BufferKind::TensorMap)
        return Status(StatusCode::InvalidPlan,
                      "step " + std::to_string(i) + " (host kernel '" +
                          p.kernels[step.kernel].name +
                          "') takes tensor map buffer " +
                          std::to_string(step.args[a].buffer) +
                          " as argument " + std::to_string(a) +
                          "; tensor maps (TMA descriptors) exist on GPUs "
                          "only: rebuild the plan");
    state.steps.push_back(Engine::State::HostStep{kernels[step.kernel], &step});
  }
  return Status::success();
}

/// The variant each choice runs: the plan's selection, overridden by
/// EngineOptions::tacticVariants.
static Status selectVariants(const plan::Plan &p, const EngineOptions &options,
                             std::vector<uint32_t> *selected) {
  *selected = p.selectedVariants();
  const std::vector<int64_t> &requested = options.tacticVariants;
  if (requested.empty())
    return Status::success();
  if (requested.size() != p.choices.size())
    return Status(StatusCode::InvalidArgument,
                  "EngineOptions::tacticVariants has " +
                      std::to_string(requested.size()) +
                      " entries, but the plan has " +
                      std::to_string(p.choices.size()) +
                      " tactic choices: give one per choice (-1 keeps the "
                      "plan's selection) or none");
  for (size_t c = 0; c < requested.size(); ++c) {
    size_t count = p.choices[c].variants.size();
    if (requested[c] == -1)
      continue;
    if (requested[c] < 0 || uint64_t(requested[c]) >= count)
      return Status(StatusCode::InvalidArgument,
                    "EngineOptions::tacticVariants[" + std::to_string(c) +
                        "] is " + std::to_string(requested[c]) +
                        ", but choice " + std::to_string(c) + " '" +
                        p.choices[c].name + "' has " + std::to_string(count) +
                        " variants (0.." + std::to_string(count - 1) +
                        ", or -1 for the plan's selection)");
    (*selected)[c] = uint32_t(requested[c]);
  }
  return Status::success();
}

namespace {
/// Outcome of trying the GPU: `environmental` failures (no driver, no
/// device, no fitting module, old driver) let DeviceKind::Auto fall back to
/// the host; others (a module that does not load, out of memory) are errors.
struct GpuAttempt {
  Status status;
  bool environmental = false;
  bool noDevice = false; ///< no driver or no GPU at all
};
} // namespace

static GpuAttempt loadGpu(Engine::State &state, const EngineOptions &options,
                          bool allowPtxJit) {
  const plan::Plan &p = state.plan;
  GpuAttempt a;
  std::unique_ptr<cuda::GpuEngine> gpu;
  a.status =
      cuda::GpuEngine::open(options.cudaDriver, options.deviceOrdinal, &gpu);
  if (!a.status.ok()) {
    a.environmental = a.noDevice =
        a.status.code() == StatusCode::UnsupportedTarget;
    return a;
  }
  a.status = gpu->checkDriverVersion(p.minDriverVersion);
  if (!a.status.ok()) {
    a.environmental = true;
    return a;
  }
  size_t module = 0;
  a.status =
      cuda::selectGpuModule(p.modules, gpu->desc(), allowPtxJit, &module);
  if (!a.status.ok()) {
    a.environmental = true;
    return a;
  }
  if (!p.profiles.empty())
    gpu->uploadWholeWeightsSection();
  a.status = gpu->load(p, module, state.selectedVariants);
  if (!a.status.ok()) {
    // Only a driver without what the steps need (TMA) says UnsupportedTarget
    // here; a host module may still run the plan.
    a.environmental = a.status.code() == StatusCode::UnsupportedTarget;
    return a;
  }
  state.target = p.modules[module].target;
  state.gpu = std::move(gpu);
  return a;
}

/// The I/O infos and arena alignment of a loaded profile.
static void describeProfile(Engine::State &state) {
  const plan::Plan &p = state.plan;
  for (const plan::Binding &b : p.inputs)
    state.inputs.push_back(toInfo(b));
  for (const plan::Binding &b : p.outputs)
    state.outputs.push_back(toInfo(b));
  for (const plan::Buffer &b : p.buffers)
    if (b.kind == plan::BufferKind::Activation ||
        b.kind == plan::BufferKind::Scratch)
      state.arenaAlignment = std::max<size_t>(state.arenaAlignment, b.alignment);
}

/// `a` with -1 in every dim where `b` differs (same rank: validatePlan).
static void mergeShapes(std::vector<TensorInfo> &a,
                        const std::vector<TensorInfo> &b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    for (size_t d = 0; d < a[i].shape.size() && d < b[i].shape.size(); ++d)
      if (a[i].shape[d] != b[i].shape[d])
        a[i].shape[d] = -1;
    if (a[i].isDynamic())
      a[i].byteSize = 0;
  }
}

/// Profile 0 is loaded: describes it and loads profiles 1.. on the same
/// target (on a GPU, sharing profile 0's weights upload).
static Status loadProfiles(Engine::State &root, const EngineOptions &options,
                           bool allowPtxJit) {
  describeProfile(root);
  root.contextArenaBytes = root.plan.arenaBytes;
  root.mergedInputs = root.inputs;
  root.mergedOutputs = root.outputs;
  for (size_t k = 0; k < root.plan.profiles.size(); ++k) {
    auto child = std::make_unique<Engine::State>();
    child->plan = root.plan.profiles[k];
    child->selectedVariants = child->plan.selectedVariants();
    child->hostDevice = root.hostDevice;
    std::string label = "profile " + std::to_string(k + 1);
    if (root.gpu) {
      std::unique_ptr<cuda::GpuEngine> gpu;
      if (Status s = cuda::GpuEngine::open(options.cudaDriver,
                                           options.deviceOrdinal, &gpu);
          !s)
        return s.withContext(label);
      size_t module = 0;
      if (Status s = cuda::selectGpuModule(child->plan.modules, gpu->desc(),
                                           allowPtxJit, &module);
          !s)
        return s.withContext(label);
      if (child->plan.modules[module].target != root.target)
        return Status(StatusCode::InvalidPlan,
                      label + " has no module for " + root.target +
                          ", which profile 0 runs on");
      gpu->shareWeightsOf(*root.gpu);
      if (Status s = gpu->load(child->plan, module, child->selectedVariants);
          !s)
        return s.withContext(label);
      child->target = root.target;
      child->gpu = std::move(gpu);
    } else if (Status s = loadHost(*child); !s) {
      return s.withContext(label);
    }
    describeProfile(*child);
    root.contextArenaBytes =
        std::max(root.contextArenaBytes, child->plan.arenaBytes);
    root.arenaAlignment = std::max(root.arenaAlignment, child->arenaAlignment);
    mergeShapes(root.mergedInputs, child->inputs);
    mergeShapes(root.mergedOutputs, child->outputs);
    root.profiles.push_back(std::move(child));
  }
  return Status::success();
}

Status Engine::load(std::shared_ptr<State> state, const EngineOptions &options,
                    std::unique_ptr<Engine> *engine) {
  plan::PlanReader reader;
  if (Status s = reader.open(state->bytes.get(), size_t(state->size)); !s)
    return s;
  state->header = reader.header();
  state->plan = reader.plan();
  const plan::Plan &p = state->plan;
  if (Status s = selectVariants(p, options, &state->selectedVariants); !s)
    return s;

  bool hasHost = false, hasGpu = false;
  for (const plan::Module &m : p.modules) {
    hasHost |= m.format == plan::ModuleFormat::HostSharedObject;
    hasGpu |= m.format == plan::ModuleFormat::Cubin ||
              m.format == plan::ModuleFormat::Ptx;
  }
  bool allowPtxJit = options.allowPtxJit || envIs("KILN_ALLOW_PTX_JIT", "1");
  std::string targets = joinTargets(p.targets);

  Status selected;
  switch (options.device) {
  case DeviceKind::Host:
    if (!hasHost)
      return Status(StatusCode::UnsupportedTarget,
                    "the plan has no host kernels (its targets: " + targets +
                        "): rebuild with kilnc --target host (or add host to "
                        "the list), or run it on its GPU");
    selected = loadHost(*state);
    break;
  case DeviceKind::Gpu: {
    if (!hasGpu)
      return Status(StatusCode::UnsupportedTarget,
                    "the plan has no GPU kernels (its targets: " + targets +
                        "): rebuild with kilnc --target sm_XY for your GPU "
                        "(e.g. sm_90a for H100/H200)");
    selected = loadGpu(*state, options, allowPtxJit).status;
    break;
  }
  case DeviceKind::Auto:
    if (!hasGpu) {
      if (!hasHost)
        return Status(StatusCode::UnsupportedTarget,
                      "plan has kernels for " + targets +
                          " only; this runtime runs host and sm_* (NVIDIA GPU) "
                          "targets: rebuild with --target host");
      selected = loadHost(*state);
      break;
    }
    GpuAttempt a = loadGpu(*state, options, allowPtxJit);
    if (a.status.ok() || !a.environmental) {
      selected = a.status;
      break;
    }
    if (hasHost) {
      // A reported, deliberate fallback: tools print deviceNote().
      state->deviceNote = "GPU kernels not used: " + a.status.message();
      selected = loadHost(*state);
      break;
    }
    if (a.noDevice)
      return Status(a.status.code(),
                    "this plan has only GPU targets (" + targets + ") and " +
                        a.status.message() +
                        ": run on a machine with an NVIDIA GPU or rebuild "
                        "with --target host");
    return a.status;
  }
  if (!selected)
    return selected;

  state->provenanceJson = runtime::provenanceJson(p.provenance);
  if (Status s = loadProfiles(*state, options, allowPtxJit); !s)
    return s;
  engine->reset(new Engine(std::move(state)));
  return Status::success();
}

Status Engine::loadMemory(const void *data, size_t size,
                          std::unique_ptr<Engine> *engine) {
  return loadMemory(data, size, EngineOptions(), engine);
}

Status Engine::loadMemory(const void *data, size_t size,
                          const EngineOptions &options,
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
    if (Status s = allocateHost("the plan", size, plan::kWeightsAlignment,
                                &state->bytes);
        !s)
      return s;
    if (size)
      std::memcpy(state->bytes.get(), data, size);
    state->size = size;
    return load(std::move(state), options, engine);
  } catch (const std::bad_alloc &) {
    return outOfMemory("loading the plan");
  }
}

Status Engine::loadFile(const std::string &path,
                        std::unique_ptr<Engine> *engine) {
  return loadFile(path, EngineOptions(), engine);
}

Status Engine::loadFile(const std::string &path, const EngineOptions &options,
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
    if (Status s = allocateHost("plan '" + path + "'", state->size,
                                plan::kWeightsAlignment, &state->bytes);
        !s) {
      ::close(fd);
      return s;
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
    return load(std::move(state), options, engine)
        .withContext("'" + path + "'");
  } catch (const std::bad_alloc &) {
    return outOfMemory("loading plan '" + path + "'");
  }
}

const std::vector<TensorInfo> &Engine::inputs() const {
  return state_->mergedInputs;
}
const std::vector<TensorInfo> &Engine::outputs() const {
  return state_->mergedOutputs;
}
size_t Engine::numProfiles() const { return 1 + state_->profiles.size(); }
const std::vector<TensorInfo> &Engine::profileInputs(size_t index) const {
  static const std::vector<TensorInfo> none;
  return index < numProfiles() ? state_->profileState(index).inputs : none;
}
const std::vector<TensorInfo> &Engine::profileOutputs(size_t index) const {
  static const std::vector<TensorInfo> none;
  return index < numProfiles() ? state_->profileState(index).outputs : none;
}

static std::optional<size_t> findByName(const std::vector<TensorInfo> &list,
                                        std::string_view name) {
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].name == name)
      return i;
  return std::nullopt;
}

std::optional<size_t> Engine::findInput(std::string_view name) const {
  return findByName(state_->mergedInputs, name);
}
std::optional<size_t> Engine::findOutput(std::string_view name) const {
  return findByName(state_->mergedOutputs, name);
}
const std::vector<std::string> &Engine::planTargets() const {
  return state_->plan.targets;
}
const std::string &Engine::target() const { return state_->target; }
const std::string &Engine::compilerVersion() const {
  return state_->plan.compilerVersion;
}
const std::vector<plan::ProvenanceEntry> &Engine::provenance() const {
  return state_->plan.provenance;
}
const std::string &Engine::provenanceJson() const {
  return state_->provenanceJson;
}
uint64_t Engine::arenaBytes() const { return state_->contextArenaBytes; }
uint64_t Engine::weightsBytes() const { return state_->plan.weights.size; }
size_t Engine::numSteps() const {
  return state_->gpu ? state_->gpu->launches().size() : state_->steps.size();
}
bool Engine::onGpu() const { return state_->gpu != nullptr; }
const char *Engine::moduleFormat() const {
  if (!state_->gpu)
    return "host";
  return state_->gpu->isPtx() ? "ptx" : "cubin";
}
const DeviceInfo &Engine::device() const {
  return state_->gpu ? state_->gpu->info() : state_->hostDevice;
}
const std::string &Engine::deviceNote() const { return state_->deviceNote; }
uint64_t Engine::deviceWeightsBytes() const {
  return state_->gpu ? state_->gpu->weightsAllocatedBytes() : 0;
}
Status Engine::queryDeviceMemory(uint64_t *freeBytes,
                                 uint64_t *totalBytes) const {
  if (!state_->gpu)
    return Status(StatusCode::InvalidArgument,
                  "this engine runs on the host; device memory exists only "
                  "for GPU engines");
  const cuda::GpuEngine &gpu = *state_->gpu;
  if (Status s = gpu.makeCurrent(); !s)
    return s;
  size_t f = 0, t = 0;
  if (Status s =
          gpu.driver().check(gpu.driver().cuMemGetInfo(&f, &t), "cuMemGetInfo");
      !s)
    return s;
  if (freeBytes)
    *freeBytes = f;
  if (totalBytes)
    *totalBytes = t;
  return Status::success();
}

struct HostBuffer::Owner {
  std::shared_ptr<const Engine::State> state; ///< keeps the GPU engine alive
};

HostBuffer::~HostBuffer() {
  if (!data_)
    return;
  if (!pinned_) {
    std::free(data_);
    return;
  }
  const cuda::GpuEngine &gpu = *owner_->state->gpu;
  if (gpu.makeCurrent())
    gpu.driver().cuMemFreeHost(data_);
}

Status Engine::allocateHostBuffer(size_t bytes,
                                  std::unique_ptr<HostBuffer> *buffer) const {
  if (!buffer || bytes == 0)
    return Status(StatusCode::InvalidArgument,
                  "allocateHostBuffer needs a size > 0 and an output pointer");
  buffer->reset();
  if (!state_->gpu) {
    AlignedBytes p = allocateAligned(bytes, 64);
    if (!p)
      return Status(StatusCode::OutOfMemory, "cannot allocate " +
                                                 std::to_string(bytes) +
                                                 " bytes of host memory");
    buffer->reset(new HostBuffer(nullptr, p.release(), bytes, false));
    return Status::success();
  }
  const cuda::GpuEngine &gpu = *state_->gpu;
  if (Status s = gpu.makeCurrent(); !s)
    return s;
  void *p = nullptr;
  constexpr unsigned kPortable = 0x01; // CU_MEMHOSTALLOC_PORTABLE
  if (Status s = gpu.driver().check(
          gpu.driver().cuMemHostAlloc(&p, bytes, kPortable), "cuMemHostAlloc");
      !s)
    return Status(StatusCode::OutOfMemory,
                  "cannot page-lock " + std::to_string(bytes) +
                      " bytes of host memory: " + s.message());
  auto owner = std::make_shared<HostBuffer::Owner>();
  owner->state = state_;
  buffer->reset(
      new HostBuffer(std::move(owner), static_cast<uint8_t *>(p), bytes, true));
  return Status::success();
}

//===----------------------------------------------------------------------===//
// ExecutionContext
//===----------------------------------------------------------------------===//

struct ExecutionContext::Impl {
  std::shared_ptr<const Engine::State> engine;
  AlignedBytes arena; ///< host engines
  struct Bound {
    void *data = nullptr; ///< host memory (when !onDevice)
    size_t bytes = 0;
    bool set = false;
    bool onDevice = false; ///< GPU: kernels use `devptr` directly
    uint64_t devptr = 0;
  };
  /// Profile 0's part: its engine state is the root of all profiles.
  const Engine::State &rootState() const { return *engine; }
  /// Host engines: the arena this part runs in (`arena`, or profile 0's).
  uint8_t *arenaBase = nullptr;
  std::vector<Bound> inputs, outputs;
  std::vector<AlignedBytes> ownOutputs; ///< default output storage (host)
  std::vector<AlignedBytes> ownInputs;  ///< uploadInput storage (host engines)
  std::vector<void *> bufferBases;      ///< per plan buffer, filled by run()
  std::vector<void *> argPointers;      ///< scratch for one step's arguments
  std::unique_ptr<cuda::GpuContext> gpu;
  cuda::IoPlan io; ///< reused by every GPU enqueue

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

  Status checkIndex(size_t index, bool input) const {
    size_t n = input ? inputs.size() : outputs.size();
    if (index < n)
      return Status::success();
    const char *what = input ? "input" : "output";
    return Status(StatusCode::InvalidArgument,
                  std::string(what) + " index " + std::to_string(index) +
                      " is out of range (the plan has " + std::to_string(n) +
                      " " + what + "s)");
  }

  Status needGpu(const char *call) const {
    if (gpu)
      return Status::success();
    return Status(StatusCode::InvalidArgument,
                  std::string(call) +
                      ": this engine runs on the host; device memory "
                      "bindings need an engine on a GPU");
  }

  Status checkInputsSet() const {
    for (size_t i = 0; i < inputs.size(); ++i)
      if (!inputs[i].set)
        return Status(StatusCode::InvalidArgument,
                      "input " + describe(engine->inputs[i]) +
                          " is not set (call setInput before run)");
    // The plan was compiled for these values only; other bytes would
    // silently give results for the fixed value. (Device-bound inputs are
    // not read back.)
    for (size_t i = 0; i < inputs.size(); ++i) {
      const TensorInfo &t = engine->inputs[i];
      const Bound &bound = inputs[i];
      if (t.fixedValue.empty() || bound.onDevice ||
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
    return Status::success();
  }

  Status runHost();
  Status enqueueGpu(cuda::CUstream stream);
};

ExecutionContext::ExecutionContext(std::vector<std::unique_ptr<Impl>> profiles,
                                   const ContextOptions &options)
    : impl_(profiles[0].get()), profiles_(std::move(profiles)),
      options_(options),
      declaredShapes_(impl_->engine->inputs.size()) {}

ExecutionContext::~ExecutionContext() {
  // Profile 0's part owns the arena that the others may still be using.
  for (size_t k = profiles_.size(); k-- > 0;)
    profiles_[k].reset();
}

Status Engine::createContext(std::unique_ptr<ExecutionContext> *context) const {
  return createContext(ContextOptions(), context);
}

/// The part of a context that runs profile `index` of `root`'s plan. The
/// part of profile 0 (`owner` null) allocates the arena for the largest
/// profile; the others use the owner's.
static Status createImpl(const std::shared_ptr<const Engine::State> &root,
                         size_t index, const ContextOptions &options,
                         const ExecutionContext::Impl *owner,
                         std::unique_ptr<ExecutionContext::Impl> *out) {
  const Engine::State &s = root->profileState(index);
  // Static shapes per profile: kernels get their shapes from the plan.
  for (const auto *list : {&s.inputs, &s.outputs})
    for (const TensorInfo &t : *list)
      if (t.isDynamic())
        return Status(StatusCode::NotImplemented,
                      "tensor " + describe(t) +
                          " has a dynamic shape; this runtime executes "
                          "static shapes only");
  auto impl = std::make_unique<ExecutionContext::Impl>();
  // Aliasing: the part keeps the whole engine state alive.
  impl->engine = std::shared_ptr<const Engine::State>(root, &s);
  if (s.gpu) {
    bool graphs = options.cudaGraphs && !envIs("KILN_CUDA_GRAPH", "0");
    if (Status st = cuda::GpuContext::create(
            *s.gpu, root->arenaAlignment, graphs, &impl->gpu,
            root->contextArenaBytes, owner ? owner->gpu->arena() : 0);
        !st)
      return st.withContext("creating an execution context");
    impl->io.ioBases.assign(s.plan.buffers.size(), 0);
  } else if (owner) {
    impl->arenaBase = owner->arenaBase;
  } else {
    uint64_t bytes = root->contextArenaBytes;
    // Zeroed so that a kernel reading before writing is deterministic.
    if (Status st = allocateHost("the activation arena", bytes,
                                 root->arenaAlignment, &impl->arena,
                                 /*zeroed=*/true);
        !st)
      return st.withContext("cannot create an execution context");
    impl->arenaBase = impl->arena.get();
  }
  impl->inputs.resize(s.inputs.size());
  impl->ownInputs.resize(s.inputs.size());
  impl->outputs.resize(s.outputs.size());
  for (size_t i = 0; i < s.outputs.size(); ++i) {
    AlignedBytes outBytes;
    if (Status st = allocateHost("output " + describe(s.outputs[i]),
                                 s.outputs[i].byteSize, 64, &outBytes,
                                 /*zeroed=*/true);
        !st)
      return st.withContext("cannot create an execution context");
    impl->outputs[i].data = outBytes.get();
    impl->outputs[i].bytes = size_t(s.outputs[i].byteSize);
    impl->outputs[i].set = true;
    impl->ownOutputs.push_back(std::move(outBytes));
  }
  impl->bufferBases.resize(s.plan.buffers.size(), nullptr);
  *out = std::move(impl);
  return Status::success();
}

Status Engine::createContext(const ContextOptions &options,
                             std::unique_ptr<ExecutionContext> *context) const {
  if (!context)
    return Status(StatusCode::InvalidArgument, "context out-pointer is null");
  context->reset();
  try {
    std::vector<std::unique_ptr<ExecutionContext::Impl>> profiles(
        numProfiles());
    if (Status st = createImpl(state_, 0, options, nullptr, &profiles[0]); !st)
      return st;
    context->reset(new ExecutionContext(std::move(profiles), options));
    return Status::success();
  } catch (const std::bad_alloc &) {
    return outOfMemory("creating an execution context");
  }
}

/// Runs `body`; a std::bad_alloc from it (the only exception the runtime's
/// own code can raise) becomes OutOfMemory naming `what`, so that no
/// exception leaves the C++ API either.
template <typename F> static Status noThrow(const char *what, F &&body) {
  try {
    return body();
  } catch (const std::bad_alloc &) {
    return outOfMemory(what);
  }
}

size_t ExecutionContext::profile() const {
  for (size_t k = 0; k < profiles_.size(); ++k)
    if (profiles_[k].get() == impl_)
      return k;
  return 0;
}

Status ExecutionContext::selectProfile(size_t index) {
  if (profiles_[index].get() == impl_)
    return Status::success();
  // The profiles share the arena: the running one must be done with it.
  if (Status s = synchronize(); !s)
    return s.withContext("switching to profile " + std::to_string(index));
  if (!profiles_[index]) {
    std::shared_ptr<const Engine::State> root(impl_->engine,
                                              &profiles_[0]->rootState());
    if (Status s = noThrow("creating the context of a profile", [&] {
          return createImpl(root, index, options_, profiles_[0].get(),
                            &profiles_[index]);
        });
        !s)
      return s.withContext("profile " + std::to_string(index));
  }
  impl_ = profiles_[index].get();
  return Status::success();
}

Status ExecutionContext::setProfile(size_t index) {
  if (index >= profiles_.size())
    return Status(StatusCode::InvalidArgument,
                  "profile " + std::to_string(index) +
                      " is out of range (the plan has " +
                      std::to_string(profiles_.size()) + " profile" +
                      (profiles_.size() == 1 ? "" : "s") + ")");
  return selectProfile(index);
}

Status ExecutionContext::setInputShape(size_t index,
                                       const std::vector<int64_t> &dims) {
  if (Status s = impl_->checkIndex(index, true); !s)
    return s;
  const Engine::State &root = profiles_[0]->rootState();
  size_t n = profiles_.size();
  auto matches = [&](size_t k) {
    const std::vector<TensorInfo> &in = root.profileState(k).inputs;
    if (in[index].shape != dims)
      return false;
    for (size_t j = 0; j < in.size(); ++j)
      if (j != index && !declaredShapes_[j].empty() &&
          in[j].shape != declaredShapes_[j])
        return false;
    return true;
  };
  size_t chosen = n;
  if (matches(profile()))
    chosen = profile();
  for (size_t k = 0; k < n && chosen == n; ++k)
    if (matches(k))
      chosen = k;
  // No profile has this shape together with the other inputs' declared
  // ones: this declaration wins, and the others follow the profile chosen
  // for it (they are declared again, or bound with its sizes).
  bool others = false;
  if (chosen == n)
    for (size_t k = 0; k < n && chosen == n; ++k)
      if (root.profileState(k).inputs[index].shape == dims) {
        chosen = k;
        others = true;
      }
  if (chosen == n) {
    const TensorInfo &t = root.profileState(0).inputs[index];
    std::string message = "input '" + t.name + "': shape " + shapeString(dims);
    if (dims.size() != t.shape.size()) {
      message += " has rank " + std::to_string(dims.size()) + ", expected " +
                 std::to_string(t.shape.size());
    } else {
      // The first dim no profile has, with the values they have.
      size_t dim = dims.size();
      for (size_t d = 0; d < dims.size() && dim == dims.size(); ++d) {
        bool any = false;
        for (size_t k = 0; k < n; ++k)
          any |= root.profileState(k).inputs[index].shape[d] == dims[d];
        if (!any)
          dim = d;
      }
      if (dim < dims.size()) {
        std::vector<int64_t> values;
        for (size_t k = 0; k < n; ++k) {
          int64_t v = root.profileState(k).inputs[index].shape[dim];
          if (std::find(values.begin(), values.end(), v) == values.end())
            values.push_back(v);
        }
        std::sort(values.begin(), values.end());
        std::string list;
        for (int64_t v : values)
          list += (list.empty() ? "" : ", ") + std::to_string(v);
        message += ": dim " + std::to_string(dim) + " is " +
                   std::to_string(dims[dim]) + ", but the plan's profile" +
                   (n == 1 ? " has " : "s have ") + list;
      }
    }
    message += " (profiles:";
    for (size_t k = 0; k < n; ++k)
      message += std::string(k ? "," : "") + " " + std::to_string(k) + ": " +
                 shapeString(root.profileState(k).inputs[index].shape);
    return Status(StatusCode::InvalidArgument,
                  message + "; rebuild with kilnc --profile for this shape)");
  }
  if (Status s = selectProfile(chosen); !s)
    return s;
  if (others)
    for (std::vector<int64_t> &d : declaredShapes_)
      d.clear();
  declaredShapes_[index] = dims;
  return Status::success();
}

Status ExecutionContext::setInputShape(std::string_view name,
                                       const std::vector<int64_t> &dims) {
  size_t index;
  if (Status s = impl_->findIndex(impl_->engine->inputs, name, "input", &index);
      !s)
    return s;
  return setInputShape(index, dims);
}

static const std::vector<int64_t> kNoShape;
const std::vector<int64_t> &ExecutionContext::inputShape(size_t index) const {
  const auto &list = impl_->engine->inputs;
  return index < list.size() ? list[index].shape : kNoShape;
}
const std::vector<int64_t> &ExecutionContext::outputShape(size_t index) const {
  const auto &list = impl_->engine->outputs;
  return index < list.size() ? list[index].shape : kNoShape;
}
size_t ExecutionContext::numInputs() const {
  return impl_->engine->inputs.size();
}
size_t ExecutionContext::numOutputs() const {
  return impl_->engine->outputs.size();
}
size_t ExecutionContext::inputBytes(size_t index) const {
  const auto &list = impl_->engine->inputs;
  return index < list.size() ? size_t(list[index].byteSize) : 0;
}
size_t ExecutionContext::outputBytes(size_t index) const {
  const auto &list = impl_->engine->outputs;
  return index < list.size() ? size_t(list[index].byteSize) : 0;
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
  if (Status s = impl_->checkIndex(index, true); !s)
    return s;
  if (Status s =
          checkUserMemory(impl_->engine->inputs[index], "input", data, bytes);
      !s)
    return s;
  // Kernels never write inputs (ABI); the pointer is non-const only because
  // all step arguments travel in one void* array.
  Impl::Bound &b = impl_->inputs[index];
  b = Impl::Bound();
  b.data = const_cast<void *>(data);
  b.bytes = bytes;
  b.set = true;
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
  if (Status s = impl_->checkIndex(index, false); !s)
    return s;
  const TensorInfo &t = impl_->engine->outputs[index];
  Impl::Bound &b = impl_->outputs[index];
  if (!data && bytes == 0) {
    b = Impl::Bound();
    b.data = impl_->ownOutputs[index].get();
    b.bytes = size_t(t.byteSize);
    b.set = true;
    return Status::success();
  }
  if (Status s = checkUserMemory(t, "output", data, bytes); !s)
    return s;
  b = Impl::Bound();
  b.data = data;
  b.bytes = bytes;
  b.set = true;
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
  if (Status s = impl_->checkIndex(index, false); !s)
    return s;
  const Impl::Bound &b = impl_->outputs[index];
  if (b.onDevice)
    return Status(StatusCode::InvalidArgument,
                  "output " + describe(impl_->engine->outputs[index]) +
                      " is bound to device memory (setOutputDevice): read it "
                      "there or with readOutput");
  if (data)
    *data = b.data;
  if (bytes)
    *bytes = b.bytes;
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

static Status checkDeviceMemory(const TensorInfo &t, const char *what,
                                uint64_t devptr, size_t bytes) {
  if (bytes != t.byteSize)
    return Status(StatusCode::InvalidArgument,
                  std::string(what) + " " + describe(t) + " needs " +
                      std::to_string(t.byteSize) + " bytes, got " +
                      std::to_string(bytes));
  if (!devptr && bytes)
    return Status(StatusCode::InvalidArgument, std::string(what) + " " +
                                                   describe(t) +
                                                   ": device pointer is 0");
  // GPU kernels may read and write 16 bytes at a time (tensor-core
  // tactics); cuMemAlloc gives 256-byte alignment.
  constexpr uint64_t kDeviceAlignment = 16;
  if (devptr % kDeviceAlignment)
    return Status(StatusCode::InvalidArgument,
                  std::string(what) + " " + describe(t) +
                      ": device pointer is not aligned to " +
                      std::to_string(kDeviceAlignment) +
                      " bytes (kiln's GPU kernels use 16-byte accesses; "
                      "cuMemAlloc pointers are aligned)");
  return Status::success();
}

Status ExecutionContext::setInputDevice(size_t index, uint64_t devptr,
                                        size_t bytes) {
  if (Status s = impl_->needGpu("setInputDevice"); !s)
    return s;
  if (Status s = impl_->checkIndex(index, true); !s)
    return s;
  if (Status s = checkDeviceMemory(impl_->engine->inputs[index], "input",
                                   devptr, bytes);
      !s)
    return s;
  Impl::Bound &b = impl_->inputs[index];
  b = Impl::Bound();
  b.set = b.onDevice = true;
  b.devptr = devptr;
  b.bytes = bytes;
  return Status::success();
}

Status ExecutionContext::setOutputDevice(size_t index, uint64_t devptr,
                                         size_t bytes) {
  if (Status s = impl_->needGpu("setOutputDevice"); !s)
    return s;
  if (Status s = impl_->checkIndex(index, false); !s)
    return s;
  const TensorInfo &t = impl_->engine->outputs[index];
  if (devptr == 0 && bytes == 0) {
    devptr = impl_->gpu->ownOutput(index);
    bytes = size_t(t.byteSize);
  } else if (Status s = checkDeviceMemory(t, "output", devptr, bytes); !s) {
    return s;
  }
  Impl::Bound &b = impl_->outputs[index];
  b = Impl::Bound();
  b.set = b.onDevice = true;
  b.devptr = devptr;
  b.bytes = bytes;
  return Status::success();
}

Status ExecutionContext::getOutputDevice(size_t index, uint64_t *devptr) const {
  if (Status s = impl_->needGpu("getOutputDevice"); !s)
    return s;
  if (Status s = impl_->checkIndex(index, false); !s)
    return s;
  const Impl::Bound &b = impl_->outputs[index];
  if (devptr)
    *devptr = b.onDevice ? b.devptr : impl_->gpu->ownOutput(index);
  return Status::success();
}

Status ExecutionContext::uploadInput(size_t index, const void *data,
                                     size_t bytes) {
  if (Status s = impl_->checkIndex(index, true); !s)
    return s;
  const TensorInfo &t = impl_->engine->inputs[index];
  if (Status s = checkUserMemory(t, "input", data, bytes); !s)
    return s;
  Impl::Bound &b = impl_->inputs[index];
  if (impl_->gpu) {
    uint64_t dst = impl_->gpu->ownInput(index);
    if (bytes)
      if (Status s = impl_->gpu->copyToDevice(dst, data, bytes); !s)
        return s.withContext("uploading input " + describe(t));
    b = Impl::Bound();
    b.set = b.onDevice = true;
    b.devptr = dst;
    b.bytes = bytes;
    return Status::success();
  }
  AlignedBytes &own = impl_->ownInputs[index];
  if (!own)
    if (Status s = allocateHost("input " + describe(t), bytes, 64, &own); !s)
      return s;
  if (bytes)
    std::memcpy(own.get(), data, bytes);
  b = Impl::Bound();
  b.data = own.get();
  b.bytes = bytes;
  b.set = true;
  return Status::success();
}

Status ExecutionContext::readOutput(size_t index, void *data, size_t bytes) {
  if (Status s = impl_->checkIndex(index, false); !s)
    return s;
  const TensorInfo &t = impl_->engine->outputs[index];
  if (Status s = checkUserMemory(t, "output", data, bytes); !s)
    return s;
  const Impl::Bound &b = impl_->outputs[index];
  if (impl_->gpu && b.onDevice)
    return bytes ? impl_->gpu->copyToHost(data, b.devptr, bytes)
                       .withContext("reading output " + describe(t))
                 : Status::success();
  if (Status s = synchronize(); !s)
    return s;
  if (bytes && data != b.data)
    std::memcpy(data, b.data, bytes);
  return Status::success();
}

Status ExecutionContext::Impl::runHost() {
  const Engine::State &s = *engine;
  const plan::Plan &p = s.plan;
  // Buffer base addresses for this run.
  std::vector<void *> &bases = bufferBases;
  for (size_t i = 0; i < p.buffers.size(); ++i) {
    const plan::Buffer &b = p.buffers[i];
    switch (b.kind) {
    case plan::BufferKind::Weight:
      bases[i] = const_cast<uint8_t *>(p.weights.data) + b.offset;
      break;
    case plan::BufferKind::Activation:
    case plan::BufferKind::Scratch:
      bases[i] = arenaBase + b.offset;
      break;
    case plan::BufferKind::Input:
    case plan::BufferKind::Output:
      bases[i] = nullptr; // set from the bindings below
      break;
    case plan::BufferKind::TensorMap:
      bases[i] = nullptr; // no host step takes one (loadHost)
      break;
    }
  }
  for (size_t i = 0; i < p.inputs.size(); ++i)
    bases[p.inputs[i].buffer] = inputs[i].data;
  for (size_t i = 0; i < p.outputs.size(); ++i)
    bases[p.outputs[i].buffer] = outputs[i].data;

  std::vector<void *> &args = argPointers;
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

Status ExecutionContext::Impl::enqueueGpu(cuda::CUstream stream) {
  const plan::Plan &p = engine->plan;
  io.copiesIn.clear();
  io.copiesOut.clear();
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    const Bound &b = inputs[i];
    uint64_t base = b.onDevice ? b.devptr : gpu->ownInput(i);
    io.ioBases[p.inputs[i].buffer] = base;
    if (!b.onDevice && b.bytes)
      io.copiesIn.push_back({base, b.data, b.bytes});
  }
  for (size_t i = 0; i < p.outputs.size(); ++i) {
    const Bound &b = outputs[i];
    uint64_t base = b.onDevice ? b.devptr : gpu->ownOutput(i);
    io.ioBases[p.outputs[i].buffer] = base;
    if (!b.onDevice && b.bytes)
      io.copiesOut.push_back({b.data, base, b.bytes});
  }
  return gpu->enqueue(stream, io);
}

Status ExecutionContext::run() {
  return noThrow("running the plan", [&] {
    if (Status s = impl_->checkInputsSet(); !s)
      return s;
    if (!impl_->gpu)
      return impl_->runHost();
    if (Status s = impl_->enqueueGpu(impl_->gpu->stream()); !s)
      return s;
    return impl_->gpu->synchronize();
  });
}

Status ExecutionContext::enqueue(void *stream) {
  return noThrow("enqueuing the plan", [&] { return enqueueImpl(stream); });
}

Status ExecutionContext::enqueueImpl(void *stream) {
  if (Status s = impl_->checkInputsSet(); !s)
    return s;
  if (!impl_->gpu) {
    if (stream)
      return Status(StatusCode::InvalidArgument,
                    "enqueue: this engine runs on the host, which has no "
                    "streams: pass a null stream (the plan then runs "
                    "synchronously) or load the plan on a GPU");
    return impl_->runHost();
  }
  return impl_->enqueueGpu(static_cast<cuda::CUstream>(stream));
}

Status ExecutionContext::synchronize() {
  return impl_->gpu ? impl_->gpu->synchronize() : Status::success();
}

ContextMemory ExecutionContext::deviceMemory() const {
  return impl_->gpu ? impl_->gpu->memory() : ContextMemory();
}
bool ExecutionContext::usesCudaGraphs() const {
  return impl_->gpu && impl_->gpu->usesGraphs();
}
Status ExecutionContext::profile(int iterations,
                                 std::vector<KernelTime> *times) {
  return noThrow("profiling the plan",
                 [&] { return profileImpl(iterations, times); });
}

Status ExecutionContext::profileImpl(int iterations,
                                     std::vector<KernelTime> *times) {
  if (!times || iterations < 1)
    return Status(StatusCode::InvalidArgument,
                  "profile: needs an output vector and at least 1 iteration");
  if (!impl_->gpu)
    return Status(StatusCode::NotImplemented,
                  "profile: per-kernel times are measured on GPU engines only");
  if (Status s = enqueue(nullptr); !s)
    return s;
  std::vector<double> ms;
  if (Status s = impl_->gpu->profileLaunches(iterations, ms); !s)
    return s;
  const plan::Plan &p = impl_->engine->plan;
  const auto &launches = impl_->engine->gpu->launches();
  times->clear();
  for (size_t l = 0; l < launches.size(); ++l) {
    const plan::Step &s = *launches[l].step;
    times->push_back({p.kernels[s.kernel].name, p.kernels[s.kernel].symbol,
                      s.grid, s.block, ms[l], size_t(&s - p.steps.data())});
  }
  return Status::success();
}

uint64_t ExecutionContext::graphCaptures() const {
  return impl_->gpu ? impl_->gpu->graphCaptures() : 0;
}
