//===- GpuExecutor.cpp - GpuEngine and GpuContext -------------------------===//

#include "GpuExecutor.h"

#include <algorithm>
#include <array>
#include <cinttypes>
#include <cstdio>
#include <cstring>

using namespace kiln::runtime::cuda;
using kiln::plan::BufferKind;
using kiln::plan::ModuleFormat;
using kiln::plan::Status;
using kiln::plan::StatusCode;
namespace plan = kiln::plan;

/// cuMemAlloc's guaranteed alignment.
static constexpr uint64_t kAllocAlignment = 256;
static_assert(kAllocAlignment % plan::kTensorMapAlignment == 0,
              "tensor-map tables come straight from cuMemAlloc");

/// The CUtensorMapDataType that copies `dtype`'s bytes. TMA converts
/// nothing, so 1-byte types (f8 included) travel as UINT8; bool is refused
/// by validatePlan.
static int tensorMapDataType(plan::DType dtype) {
  using plan::DType;
  switch (dtype) {
  case DType::f16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case DType::bf16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case DType::f32:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  case DType::f64:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
  case DType::i8:
  case DType::u8:
  case DType::boolean:
  case DType::f8e4m3fn:
  case DType::f8e5m2:
    return CU_TENSOR_MAP_DATA_TYPE_UINT8;
  case DType::i16:
  case DType::u16:
    return CU_TENSOR_MAP_DATA_TYPE_UINT16;
  case DType::i32:
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  case DType::u32:
    return CU_TENSOR_MAP_DATA_TYPE_UINT32;
  case DType::i64:
    return CU_TENSOR_MAP_DATA_TYPE_INT64;
  case DType::u64:
    return CU_TENSOR_MAP_DATA_TYPE_UINT64;
  }
  return CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

template <typename T> static std::string listString(const std::vector<T> &v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i)
    s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

//===----------------------------------------------------------------------===//
// GpuEngine
//===----------------------------------------------------------------------===//

Status GpuEngine::open(const std::string &driverLibrary, int ordinal,
                       std::unique_ptr<GpuEngine> *out) {
  out->reset();
  const Driver *d = nullptr;
  if (Status s = Driver::get(driverLibrary, &d); !s)
    return s;
  int count = 0;
  CUresult r = d->cuDeviceGetCount(&count);
  if (r == CUDA_ERROR_NO_DEVICE || (r == CUDA_SUCCESS && count == 0))
    return Status(StatusCode::UnsupportedTarget,
                  "the CUDA driver " + driverVersionString(d->version) +
                      " sees no GPU (CUDA_VISIBLE_DEVICES='" +
                      std::string(std::getenv("CUDA_VISIBLE_DEVICES")
                                      ? std::getenv("CUDA_VISIBLE_DEVICES")
                                      : "<unset>") +
                      "')");
  if (Status s = d->check(r, "cuDeviceGetCount"); !s)
    return s;
  if (ordinal < 0 || ordinal >= count)
    return Status(StatusCode::UnsupportedTarget,
                  "GPU device " + std::to_string(ordinal) +
                      " does not exist: this machine has " +
                      std::to_string(count) + " GPU" + (count == 1 ? "" : "s") +
                      " (devices 0.." + std::to_string(count - 1) + ")");
  std::unique_ptr<GpuEngine> e(new GpuEngine());
  e->driver_ = d;
  if (Status s = d->check(d->cuDeviceGet(&e->device_, ordinal), "cuDeviceGet");
      !s)
    return s;
  char name[256] = {};
  if (Status s =
          d->check(d->cuDeviceGetName(name, sizeof(name) - 1, e->device_),
                   "cuDeviceGetName");
      !s)
    return s;
  e->info_.name = name;
  e->info_.ordinal = ordinal;
  e->info_.driverVersion = d->version;
  if (Status s = d->check(
          d->cuDeviceGetAttribute(&e->info_.computeMajor,
                                  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                                  e->device_),
          "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)");
      !s)
    return s;
  if (Status s = d->check(
          d->cuDeviceGetAttribute(&e->info_.computeMinor,
                                  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                                  e->device_),
          "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)");
      !s)
    return s;
  size_t total = 0;
  if (Status s =
          d->check(d->cuDeviceTotalMem(&total, e->device_), "cuDeviceTotalMem");
      !s)
    return s;
  e->info_.totalMemoryBytes = total;
  // The primary context is the one the CUDA runtime API uses, so streams
  // and device pointers of applications using cudaMalloc/cudaStream_t work
  // with ours.
  if (Status s = d->check(d->cuDevicePrimaryCtxRetain(&e->context_, e->device_),
                          "cuDevicePrimaryCtxRetain");
      !s) {
    e->context_ = nullptr;
    return s;
  }
  *out = std::move(e);
  return Status::success();
}

GpuEngine::~GpuEngine() {
  if (!driver_ || !context_)
    return;
  // Best effort: nothing to report to from a destructor.
  if (driver_->cuCtxSetCurrent(context_) == CUDA_SUCCESS) {
    if (weightsAlloc_)
      driver_->cuMemFree(weightsAlloc_);
    if (module_)
      driver_->cuModuleUnload(module_);
  }
  driver_->cuDevicePrimaryCtxRelease(device_);
}

Status GpuEngine::makeCurrent() const {
  return driver_->check(driver_->cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

Status GpuEngine::checkDriverVersion(uint32_t minDriverVersion) const {
  if (minDriverVersion == 0 || uint32_t(driver_->version) >= minDriverVersion)
    return Status::success();
  return Status(StatusCode::UnsupportedVersion,
                "the plan needs CUDA driver " +
                    driverVersionString(int(minDriverVersion)) + " (" +
                    std::to_string(minDriverVersion) +
                    ") or newer; this machine's driver is " +
                    driverVersionString(driver_->version) + " (" +
                    std::to_string(driver_->version) +
                    "): update the NVIDIA driver or rebuild the plan with "
                    "an older CUDA toolkit");
}

Status GpuEngine::queryLaunchLimits() {
  const int attributes[] = {
      CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X,
      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + 1,
      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X + 2,
      CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X,
      CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + 1,
      CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X + 2,
      CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN};
  int *values[] = {&limits_.threads,  &limits_.block[0],   &limits_.block[1],
                   &limits_.block[2], &limits_.grid[0],    &limits_.grid[1],
                   &limits_.grid[2],  &limits_.sharedOptin};
  for (size_t i = 0; i < 8; ++i)
    if (Status s = driver_->check(
            driver_->cuDeviceGetAttribute(values[i], attributes[i], device_),
            "cuDeviceGetAttribute");
        !s)
      return s.withContext("reading attribute " +
                           std::to_string(attributes[i]) + " of " + info_.name);
  return Status::success();
}

Status GpuEngine::checkLaunchLimits(const plan::Plan &p, size_t index,
                                    CUfunction fn) const {
  const plan::Step &step = p.steps[index];
  const plan::Kernel &k = p.kernels[step.kernel];
  std::string label =
      "step " + std::to_string(index) + " (kernel '" + k.name + "')";
  std::string device = info_.name + " (sm_" +
                       std::to_string(info_.computeMajor) +
                       std::to_string(info_.computeMinor) + ")";
  auto dims = [](const std::array<uint32_t, 3> &d) {
    return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " +
           std::to_string(d[2]) + ")";
  };
  for (int d = 0; d < 3; ++d) {
    if (int64_t(step.block[d]) > limits_.block[d])
      return Status(StatusCode::InvalidPlan,
                    label + " has block " + dims(step.block) + "; " + device +
                        " allows (" + std::to_string(limits_.block[0]) + ", " +
                        std::to_string(limits_.block[1]) + ", " +
                        std::to_string(limits_.block[2]) + ")");
    if (int64_t(step.grid[d]) > limits_.grid[d])
      return Status(StatusCode::InvalidPlan,
                    label + " has grid " + dims(step.grid) + "; " + device +
                        " allows (" + std::to_string(limits_.grid[0]) + ", " +
                        std::to_string(limits_.grid[1]) + ", " +
                        std::to_string(limits_.grid[2]) + ")");
  }
  // The function's own limits depend on its registers and static shared
  // memory, which only the loaded module knows.
  int fnThreads = 0, fnStatic = 0;
  if (Status s = driver_->check(
          driver_->cuFuncGetAttribute(
              &fnThreads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, fn),
          "cuFuncGetAttribute(MAX_THREADS_PER_BLOCK)");
      !s)
    return s.withContext(label);
  if (Status s = driver_->check(
          driver_->cuFuncGetAttribute(&fnStatic,
                                      CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, fn),
          "cuFuncGetAttribute(SHARED_SIZE_BYTES)");
      !s)
    return s.withContext(label);
  uint64_t threads = uint64_t(step.block[0]) * step.block[1] * step.block[2];
  int64_t maxThreads = std::min(limits_.threads, fnThreads);
  if (int64_t(threads) > maxThreads)
    return Status(StatusCode::InvalidPlan,
                  label + " launches " + std::to_string(threads) +
                      " threads per block (block " + dims(step.block) +
                      "); on " + device + " the kernel can have at most " +
                      std::to_string(maxThreads));
  uint64_t shared = uint64_t(step.sharedMemBytes) + uint64_t(fnStatic);
  if (int64_t(shared) > limits_.sharedOptin)
    return Status(StatusCode::InvalidPlan,
                  label + " needs " + std::to_string(step.sharedMemBytes) +
                      " bytes of dynamic and " + std::to_string(fnStatic) +
                      " of static shared memory per block; " + device +
                      " allows " + std::to_string(limits_.sharedOptin));
  return Status::success();
}

Status GpuEngine::load(const plan::Plan &p, size_t moduleIndex,
                       const std::vector<uint32_t> &selectedVariants) {
  plan_ = &p;
  const plan::Module &m = p.modules[moduleIndex];
  isPtx_ = m.format == ModuleFormat::Ptx;
  if (Status s = makeCurrent(); !s)
    return s;
  std::string label = "module " + std::to_string(moduleIndex) + " (" +
                      m.target + " " + plan::moduleFormatName(m.format) + ")";

  // PTX must be NUL-terminated text; the plan format stores the NUL, but a
  // copy costs nothing next to the JIT and protects against a plan without.
  std::string ptx;
  const void *image = m.data.data;
  if (isPtx_) {
    ptx.assign(reinterpret_cast<const char *>(m.data.data), m.data.size);
    image = ptx.c_str();
  }
  char errorLog[8192] = {}, infoLog[8192] = {};
  int options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                   CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errorLog, reinterpret_cast<void *>(sizeof(errorLog) - 1),
                    infoLog, reinterpret_cast<void *>(sizeof(infoLog) - 1)};
  CUresult r = driver_->cuModuleLoadDataEx(&module_, image, 4, options, values);
  if (r != CUDA_SUCCESS) {
    module_ = nullptr;
    std::string log = errorLog;
    while (!log.empty() && (log.back() == '\n' || log.back() == '\0'))
      log.pop_back();
    return Status(StatusCode::InvalidPlan,
                  "cannot load " + label + " on " + info_.name + " (sm_" +
                      std::to_string(info_.computeMajor) +
                      std::to_string(info_.computeMinor) +
                      "): cuModuleLoadDataEx: " + driver_->describe(r) +
                      (log.empty() ? "" : "; log: " + log));
  }

  if (Status s = queryLaunchLimits(); !s)
    return s;
  std::vector<CUfunction> functions(p.kernels.size(), nullptr);
  std::vector<uint32_t> maxShared(p.kernels.size(), 0);
  for (size_t i = 0; i < p.kernels.size(); ++i) {
    const plan::Kernel &k = p.kernels[i];
    if (k.module != moduleIndex)
      continue;
    if (Status s = driver_->check(driver_->cuModuleGetFunction(
                                      &functions[i], module_, k.symbol.c_str()),
                                  "cuModuleGetFunction");
        !s)
      return s.withContext("kernel '" + k.name + "': symbol '" + k.symbol +
                           "' of " + label);
  }

  // The steps of this module and of the selected variants, in order; the
  // weight range they use. Other variants' kernels stay resolved (cheap) but
  // are never launched or captured.
  uint64_t weightsLo = UINT64_MAX, weightsHi = 0;
  // A stacked weight's first part stands for all its parts.
  std::vector<uint64_t> readableOf =
      plan::readableBytesOfAll(p, plan::namedBuffers(p));
  for (size_t i = 0; i < p.steps.size(); ++i) {
    const plan::Step &step = p.steps[i];
    if (!functions[step.kernel] || !plan::stepRuns(step, selectedVariants))
      continue;
    const plan::Kernel &k = p.kernels[step.kernel];
    if (!step.dims.empty())
      return Status(StatusCode::NotImplemented,
                    "step " + std::to_string(i) + " (kernel '" + k.name +
                        "') passes " + std::to_string(step.dims.size()) +
                        " dims; GPU steps with dims (dynamic shapes) are not "
                        "implemented in this runtime");
    if (Status s = checkLaunchLimits(p, i, functions[step.kernel]); !s)
      return s;
    maxShared[step.kernel] =
        std::max(maxShared[step.kernel], step.sharedMemBytes);
    for (const plan::Arg &a : step.args) {
      const plan::Buffer &b = p.buffers[a.buffer];
      if (b.kind != BufferKind::Weight)
        continue;
      weightsLo = std::min(weightsLo, b.offset);
      weightsHi = std::max(weightsHi, b.offset + readableOf[a.buffer]);
    }
    launches_.push_back(Launch{functions[step.kernel], &step});
  }

  // The tensor maps of these launches. Their sources are read by TMA, not
  // through an argument: a Weight source must be uploaded all the same.
  std::vector<bool> mapUsed(p.buffers.size(), false);
  for (const Launch &l : launches_)
    for (const plan::Arg &a : l.step->args)
      if (p.buffers[a.buffer].kind == BufferKind::TensorMap)
        mapUsed[a.buffer] = true;
  for (uint32_t t = 0; t < p.tensorMaps.size(); ++t) {
    const plan::TensorMap &m = p.tensorMaps[t];
    if (!mapUsed[m.buffer])
      continue;
    tensorMaps_.push_back(t);
    const plan::Buffer &src = p.buffers[m.source];
    if (src.kind == BufferKind::Weight) {
      weightsLo = std::min(weightsLo, src.offset);
      weightsHi = std::max(weightsHi, src.offset + readableOf[m.source]);
    }
  }
  if (!tensorMaps_.empty()) {
    if (!driver_->cuTensorMapEncodeTiled)
      return Status(StatusCode::UnsupportedTarget,
                    "this CUDA driver has no cuTensorMapEncodeTiled (TMA "
                    "needs CUDA 12.0 or newer), and " +
                        label + " uses " + std::to_string(tensorMaps_.size()) +
                        " tensor maps: update the NVIDIA driver");
    tensorMapTableBytes_ = plan::tensorMapTableBytes(p);
  }
  // Any dynamic shared memory opts in: the default limit (48 KB) counts a
  // kernel's static shared memory too, so even a small dynamic buffer next
  // to static ones can exceed it.
  for (size_t i = 0; i < p.kernels.size(); ++i)
    if (maxShared[i] > 0)
      if (Status s = driver_->check(
              driver_->cuFuncSetAttribute(
                  functions[i], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                  int(maxShared[i])),
              "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
          !s)
        return s.withContext("kernel '" + p.kernels[i].name + "' needs " +
                             std::to_string(maxShared[i]) +
                             " bytes of dynamic shared memory");

  if (weightsOwner_) {
    // Profile 0's engine uploaded the whole section.
    weightsBase_ = weightsOwner_->weightsBase_;
    return Status::success();
  }
  if (wholeWeights_ && p.weights.size) {
    weightsLo = 0;
    weightsHi = p.weights.size;
  }
  if (weightsHi > weightsLo) {
    // Start the allocation at a 64-byte aligned section offset so that
    // buffer alignments (<= 64 in the weights section) hold on the device.
    weightsLo = weightsLo / plan::kWeightsAlignment * plan::kWeightsAlignment;
    weightsBytes_ = weightsHi - weightsLo;
    if (Status s = driver_->check(
            driver_->cuMemAlloc(&weightsAlloc_, size_t(weightsBytes_)),
            "cuMemAlloc");
        !s) {
      weightsAlloc_ = 0;
      return s.withContext("allocating " + std::to_string(weightsBytes_) +
                           " bytes of weights on " + info_.name);
    }
    if (Status s = driver_->check(
            driver_->cuMemcpyHtoD(weightsAlloc_, p.weights.data + weightsLo,
                                  size_t(weightsBytes_)),
            "cuMemcpyHtoD");
        !s)
      return s.withContext("uploading the weights");
    // A "synchronous" copy from pageable memory may return before its DMA
    // lands, and it runs on the legacy stream, which the contexts'
    // non-blocking streams do not wait for: wait for it here.
    if (Status s = driver_->check(driver_->cuStreamSynchronize(nullptr),
                                  "cuStreamSynchronize");
        !s)
      return s.withContext("uploading the weights");
    weightsBase_ = weightsAlloc_ - weightsLo;
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// GpuContext
//===----------------------------------------------------------------------===//

Status GpuContext::create(const GpuEngine &engine, uint64_t arenaAlignment,
                          bool cudaGraphs, std::unique_ptr<GpuContext> *out,
                          uint64_t arenaBytes, CUdeviceptr sharedArena) {
  out->reset();
  const Driver &d = engine.driver();
  const plan::Plan &p = engine.plan();
  if (Status s = engine.makeCurrent(); !s)
    return s;
  std::unique_ptr<GpuContext> c(new GpuContext(engine));
  c->graphs_ = cudaGraphs;
  if (Status s = d.check(d.cuStreamCreate(&c->stream_, CU_STREAM_NON_BLOCKING),
                         "cuStreamCreate");
      !s) {
    c->stream_ = nullptr;
    return s;
  }
  auto allocate = [&](uint64_t bytes, CUdeviceptr *ptr,
                      const std::string &what) -> Status {
    *ptr = 0;
    if (bytes == 0)
      return Status::success();
    if (Status s = d.check(d.cuMemAlloc(ptr, size_t(bytes)), "cuMemAlloc");
        !s) {
      *ptr = 0;
      return s.withContext("allocating " + std::to_string(bytes) +
                           " bytes for " + what + " on " + engine.info().name);
    }
    // Zeroed so that a kernel reading before writing is deterministic, as
    // on the host.
    return d.check(d.cuMemsetD8(*ptr, 0, size_t(bytes)), "cuMemsetD8");
  };
  if (sharedArena) {
    c->arena_ = sharedArena;
  } else if (uint64_t bytes = std::max(arenaBytes, p.arenaBytes)) {
    uint64_t slack =
        arenaAlignment > kAllocAlignment ? arenaAlignment - kAllocAlignment : 0;
    c->memory_.arenaBytes = bytes + slack;
    if (Status s = allocate(c->memory_.arenaBytes, &c->arenaAlloc_,
                            "the activation arena");
        !s)
      return s;
    c->arena_ =
        (c->arenaAlloc_ + arenaAlignment - 1) / arenaAlignment * arenaAlignment;
  }
  if (uint64_t bytes = engine.tensorMapTableBytes()) {
    // Zeroed like the arena; the image starts equal to it, so the first
    // setArguments uploads the encoded maps.
    c->memory_.tensorMapBytes = bytes;
    if (Status s = allocate(bytes, &c->tensorMapTable_, "the tensor-map table");
        !s)
      return s;
    c->tensorMapImage_.assign(size_t(bytes), 0);
    c->uploadedTensorMaps_.assign(size_t(bytes), 0);
  }
  c->inputs_.assign(p.inputs.size(), 0);
  c->outputs_.assign(p.outputs.size(), 0);
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    uint64_t bytes = p.inputs[i].desc.byteSize().value_or(0);
    c->memory_.ioBytes += bytes;
    if (Status s = allocate(bytes, &c->inputs_[i],
                            "input '" + p.inputs[i].desc.name + "'");
        !s)
      return s;
  }
  for (size_t i = 0; i < p.outputs.size(); ++i) {
    uint64_t bytes = p.outputs[i].desc.byteSize().value_or(0);
    c->memory_.ioBytes += bytes;
    if (Status s = allocate(bytes, &c->outputs_[i],
                            "output '" + p.outputs[i].desc.name + "'");
        !s)
      return s;
  }

  // The zeroing ran on the legacy stream, which the context's non-blocking
  // stream does not wait for: finish it before any kernel can run (under
  // load, kernels otherwise raced with it and read or wrote zeros).
  if (Status s = d.check(d.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
      !s)
    return s.withContext("clearing the context's device memory");

  // Parameter storage: fixed layout, values filled per binding set.
  size_t total = 0;
  for (const GpuEngine::Launch &l : engine.launches()) {
    c->argStart_.push_back(total);
    total += l.step->args.size();
  }
  c->argValues_.assign(total, 0);
  c->argPointers_.resize(total);
  for (size_t i = 0; i < total; ++i)
    c->argPointers_[i] = &c->argValues_[i];
  *out = std::move(c);
  return Status::success();
}

GpuContext::~GpuContext() {
  const Driver &d = engine_.driver();
  if (!engine_.makeCurrent().ok())
    return;
  // Work in flight may still use our memory: wait for it first.
  if (enqueued_)
    d.cuStreamSynchronize(lastStream_);
  if (graph_)
    d.cuGraphExecDestroy(graph_);
  for (CUdeviceptr p : inputs_)
    if (p)
      d.cuMemFree(p);
  for (CUdeviceptr p : outputs_)
    if (p)
      d.cuMemFree(p);
  if (arenaAlloc_)
    d.cuMemFree(arenaAlloc_);
  if (tensorMapTable_)
    d.cuMemFree(tensorMapTable_);
  if (stream_)
    d.cuStreamDestroy(stream_);
}

CUdeviceptr
GpuContext::bufferAddress(uint32_t buffer,
                          const std::vector<CUdeviceptr> &ioBases) const {
  const plan::Buffer &b = engine_.plan().buffers[buffer];
  switch (b.kind) {
  case BufferKind::Weight:
    return engine_.weightsBase() + b.offset;
  case BufferKind::Activation:
  case BufferKind::Scratch:
    return arena_ + b.offset;
  case BufferKind::Input:
  case BufferKind::Output:
    return ioBases[buffer];
  case BufferKind::TensorMap:
    return tensorMapTable_ + b.offset;
  }
  return 0; // validatePlan refuses other kinds
}

Status GpuContext::setArguments(const std::vector<CUdeviceptr> &ioBases) {
  if (argumentsSet_ && ioBases == boundIoBases_)
    return Status::success();
  // Until the tensor maps match the new addresses too.
  argumentsSet_ = false;
  const std::vector<GpuEngine::Launch> &launches = engine_.launches();
  for (size_t l = 0; l < launches.size(); ++l) {
    const plan::Step &step = *launches[l].step;
    for (size_t a = 0; a < step.args.size(); ++a) {
      const plan::Arg &arg = step.args[a];
      argValues_[argStart_[l] + a] =
          bufferAddress(arg.buffer, ioBases) + arg.offset;
    }
  }
  if (Status s = encodeTensorMaps(ioBases); !s)
    return s;
  boundIoBases_ = ioBases;
  argumentsSet_ = true;
  return Status::success();
}

Status GpuContext::encodeTensorMaps(const std::vector<CUdeviceptr> &ioBases) {
  const std::vector<uint32_t> &maps = engine_.tensorMaps();
  if (maps.empty())
    return Status::success();
  const Driver &d = engine_.driver();
  const plan::Plan &p = engine_.plan();
  for (uint32_t t : maps) {
    const plan::TensorMap &m = p.tensorMaps[t];
    const plan::Buffer &src = p.buffers[m.source];
    CUdeviceptr address = bufferAddress(m.source, ioBases) + m.sourceOffset;
    // Fixed-size copies: the driver reads rank (validated <= 5) entries of
    // each, and a rank-1 map has no strides to point at.
    std::array<uint64_t, plan::kMaxTensorMapRank> dims{}, strides{};
    std::array<uint32_t, plan::kMaxTensorMapRank> box{}, elementStrides{};
    std::copy(m.dims.begin(), m.dims.end(), dims.begin());
    std::copy(m.strides.begin(), m.strides.end(), strides.begin());
    std::copy(m.box.begin(), m.box.end(), box.begin());
    elementStrides.fill(1);
    CUtensorMap encoded; // 64-byte aligned, as the driver requires
    CUresult r = d.cuTensorMapEncodeTiled(
        &encoded, tensorMapDataType(m.dtype), uint32_t(m.dims.size()),
        reinterpret_cast<void *>(address), dims.data(), strides.data(),
        box.data(), elementStrides.data(), CU_TENSOR_MAP_INTERLEAVE_NONE,
        int(m.swizzle), CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS) {
      char where[32];
      std::snprintf(where, sizeof(where), "0x%" PRIx64, uint64_t(address));
      return d.check(r, "cuTensorMapEncodeTiled")
          .withContext("encoding tensor map " + std::to_string(t) + " (" +
                       plan::dtypeName(m.dtype) + ", dims " +
                       listString(m.dims) + ", strides " +
                       listString(m.strides) + ", box " + listString(m.box) +
                       ", swizzle " + std::to_string(m.swizzle) +
                       ") over buffer " + std::to_string(m.source) + " (" +
                       plan::bufferKindName(src.kind) + ") + " +
                       std::to_string(m.sourceOffset) + " at " + where);
    }
    std::memcpy(tensorMapImage_.data() + p.buffers[m.buffer].offset, &encoded,
                sizeof(encoded));
  }
  if (tensorMapImage_ == uploadedTensorMaps_)
    return Status::success();
  // The kernels of the last enqueue may still read the old descriptors (a
  // graph reads the table when it runs, not when it is captured): replace
  // them only once those kernels are done.
  if (Status s = synchronize(); !s)
    return s;
  if (Status s = d.check(d.cuMemcpyHtoD(tensorMapTable_, tensorMapImage_.data(),
                                        tensorMapImage_.size()),
                         "cuMemcpyHtoD");
      !s)
    return s.withContext("uploading the tensor maps");
  // As in copyToDevice: the DMA may still be in flight on the legacy stream,
  // which the context's non-blocking stream does not wait for.
  if (Status s = d.check(d.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
      !s)
    return s.withContext("uploading the tensor maps");
  uploadedTensorMaps_ = tensorMapImage_;
  return Status::success();
}

Status GpuContext::launch(size_t l, CUstream stream) {
  const Driver &d = engine_.driver();
  const plan::Step &s = *engine_.launches()[l].step;
  CUresult r = d.cuLaunchKernel(
      engine_.launches()[l].fn, s.grid[0], s.grid[1], s.grid[2], s.block[0],
      s.block[1], s.block[2], s.sharedMemBytes, stream,
      s.args.empty() ? nullptr : &argPointers_[argStart_[l]], nullptr);
  if (r == CUDA_SUCCESS)
    return Status::success();
  const plan::Plan &p = engine_.plan();
  size_t stepIndex = size_t(&s - p.steps.data());
  return d.check(r, "cuLaunchKernel")
      .withContext(
          "step " + std::to_string(stepIndex) + " (kernel '" +
          p.kernels[s.kernel].name + "', grid " + std::to_string(s.grid[0]) +
          "x" + std::to_string(s.grid[1]) + "x" + std::to_string(s.grid[2]) +
          ", block " + std::to_string(s.block[0]) + "x" +
          std::to_string(s.block[1]) + "x" + std::to_string(s.block[2]) + ", " +
          std::to_string(s.sharedMemBytes) + " bytes shared memory)");
}

Status GpuContext::launchAll(CUstream stream) {
  for (size_t l = 0; l < engine_.launches().size(); ++l)
    if (Status s = launch(l, stream); !s)
      return s;
  return Status::success();
}

Status GpuContext::profileLaunches(int iterations, std::vector<double> &ms) {
  const Driver &d = engine_.driver();
  if (Status s = engine_.makeCurrent(); !s)
    return s;
  if (!argumentsSet_)
    return Status(StatusCode::InvalidArgument,
                  "profile: run the context once before profiling it");
  if (Status s = synchronize(); !s)
    return s;
  const std::vector<GpuEngine::Launch> &launches = engine_.launches();
  std::vector<CUevent> events(launches.size() + 1, nullptr);
  auto destroy = [&] {
    for (CUevent e : events)
      if (e)
        d.cuEventDestroy(e);
  };
  for (CUevent &e : events)
    if (Status s = d.check(d.cuEventCreate(&e, 0), "cuEventCreate"); !s) {
      destroy();
      return s;
    }
  ms.assign(launches.size(), 0.0);
  Status st = Status::success();
  for (int it = 0; it < iterations && st.ok(); ++it) {
    for (size_t l = 0; l < launches.size() && st.ok(); ++l) {
      st = d.check(d.cuEventRecord(events[l], stream_), "cuEventRecord");
      if (st.ok())
        st = launch(l, stream_);
    }
    if (st.ok())
      st = d.check(d.cuEventRecord(events.back(), stream_), "cuEventRecord");
    if (st.ok())
      st = d.check(d.cuEventSynchronize(events.back()), "cuEventSynchronize");
    for (size_t l = 0; l < launches.size() && st.ok(); ++l) {
      float t = 0;
      st = d.check(d.cuEventElapsedTime(&t, events[l], events[l + 1]),
                   "cuEventElapsedTime");
      ms[l] += t / iterations;
    }
  }
  destroy();
  return st.ok() ? st : st.withContext("profiling the plan's kernels");
}

Status GpuContext::capture() {
  const Driver &d = engine_.driver();
  if (graph_) {
    d.cuGraphExecDestroy(graph_);
    graph_ = nullptr;
  }
  // Captured on the context's own (non-blocking) stream whatever stream the
  // graph is launched on: the caller's stream may be the legacy default
  // stream, which cannot be captured. Thread-local mode: other threads
  // (other contexts) stay free to allocate and capture meanwhile.
  if (Status s = d.check(
          d.cuStreamBeginCapture(stream_, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL),
          "cuStreamBeginCapture");
      !s)
    return s.withContext("capturing the CUDA graph");
  Status launched = launchAll(stream_);
  CUgraph graph = nullptr;
  Status ended =
      d.check(d.cuStreamEndCapture(stream_, &graph), "cuStreamEndCapture");
  if (!launched.ok() || !ended.ok()) {
    if (graph)
      d.cuGraphDestroy(graph);
    return (launched.ok() ? ended : launched)
        .withContext("capturing the CUDA graph");
  }
  CUgraphExec exec = nullptr;
  Status instantiated = d.check(d.cuGraphInstantiateWithFlags(&exec, graph, 0),
                                "cuGraphInstantiateWithFlags");
  d.cuGraphDestroy(graph);
  if (!instantiated)
    return instantiated.withContext("capturing the CUDA graph");
  graph_ = exec;
  capturedIoBases_ = boundIoBases_;
  ++captures_;
  return Status::success();
}

Status GpuContext::enqueue(CUstream stream, const IoPlan &io) {
  const Driver &d = engine_.driver();
  if (Status s = engine_.makeCurrent(); !s)
    return s;
  if (Status s = setArguments(io.ioBases); !s)
    return s;
  for (const IoPlan::HostToDevice &c : io.copiesIn)
    if (Status s = d.check(d.cuMemcpyHtoDAsync(c.dst, c.src, c.bytes, stream),
                           "cuMemcpyHtoDAsync");
        !s)
      return s.withContext("copying an input to the device");
  if (graphs_) {
    if (!graph_ || capturedIoBases_ != boundIoBases_)
      if (Status s = capture(); !s)
        return s;
    if (Status s = d.check(d.cuGraphLaunch(graph_, stream), "cuGraphLaunch");
        !s)
      return s;
  } else if (Status s = launchAll(stream); !s) {
    return s;
  }
  for (const IoPlan::DeviceToHost &c : io.copiesOut)
    if (Status s = d.check(d.cuMemcpyDtoHAsync(c.dst, c.src, c.bytes, stream),
                           "cuMemcpyDtoHAsync");
        !s)
      return s.withContext("copying an output to the host");
  lastStream_ = stream;
  enqueued_ = true;
  return Status::success();
}

Status GpuContext::synchronize() {
  if (!enqueued_)
    return Status::success();
  const Driver &d = engine_.driver();
  if (Status s = engine_.makeCurrent(); !s)
    return s;
  return d.check(d.cuStreamSynchronize(lastStream_), "cuStreamSynchronize")
      .withContext("running the plan on " + engine_.info().name);
}

Status GpuContext::copyToDevice(CUdeviceptr dst, const void *src,
                                size_t bytes) {
  const Driver &d = engine_.driver();
  if (Status s = synchronize(); !s)
    return s;
  if (Status s = d.check(d.cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD"); !s)
    return s;
  // See GpuEngine::load: the copy's DMA may still be in flight on the legacy
  // stream, which kernels on the context's stream would not wait for.
  return d.check(d.cuStreamSynchronize(nullptr), "cuStreamSynchronize");
}

Status GpuContext::copyToHost(void *dst, CUdeviceptr src, size_t bytes) {
  const Driver &d = engine_.driver();
  if (Status s = synchronize(); !s)
    return s;
  return d.check(d.cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}
