//===- CApi.cpp - C API over the C++ runtime ------------------------------===//
//
// Every entry point catches everything: no C++ exception may cross into C.
//
//===----------------------------------------------------------------------===//

#include "kiln/Runtime/Runtime.h"
#include "kiln/Runtime/kiln_runtime.h"

#include <cstring>
#include <string>

using namespace kiln::runtime;

struct kiln_engine {
  std::unique_ptr<Engine> engine;
};
struct kiln_host_buffer {
  std::unique_ptr<kiln::runtime::HostBuffer> buffer;
};
struct kiln_context {
  std::unique_ptr<ExecutionContext> context;
};

static_assert(int(StatusCode::Internal) == KILN_ERROR_INTERNAL, "");
static_assert(int(kiln::plan::DType::f8e5m2) == KILN_F8E5M2, "");
static_assert(sizeof(kiln_device_kind) == sizeof(int), "");

static thread_local std::string lastError;

static kiln_status record(const Status &status) {
  if (!status.ok()) {
    try {
      lastError = status.message();
    } catch (...) {
    }
  }
  return kiln_status(status.code());
}

static kiln_status fail(kiln_status code, const char *message) {
  try {
    lastError = message;
  } catch (...) {
  }
  return code;
}

/// Runs `body` (returning a Status), turning exceptions into statuses.
template <typename F> static kiln_status guarded(F &&body) {
  try {
    return record(body());
  } catch (const std::bad_alloc &) {
    return fail(KILN_ERROR_OUT_OF_MEMORY, "out of memory");
  } catch (...) {
    return fail(KILN_ERROR_INTERNAL, "internal error: unexpected exception");
  }
}

extern "C" {

const char *kiln_runtime_version(void) { return runtimeVersion(); }
uint32_t kiln_plan_format_version(void) { return planFormatVersion(); }
const char *kiln_last_error(void) { return lastError.c_str(); }

const char *kiln_status_string(kiln_status status) {
  return kiln::plan::statusCodeName(StatusCode(status));
}

const char *kiln_dtype_name(kiln_dtype dtype) {
  return unsigned(dtype) < 256 ? dtypeName(DType(uint8_t(dtype))) : "invalid";
}

size_t kiln_dtype_size(kiln_dtype dtype) {
  return unsigned(dtype) < 256 ? dtypeSize(DType(uint8_t(dtype))) : 0;
}

kiln_status kiln_engine_load_file(const char *path, kiln_engine **engine) {
  if (!path || !engine)
    return fail(KILN_ERROR_INVALID_ARGUMENT,
                "kiln_engine_load_file: path and engine must not be null");
  *engine = nullptr;
  return guarded([&] {
    std::unique_ptr<Engine> e;
    Status s = Engine::loadFile(path, &e);
    if (s.ok())
      *engine = new kiln_engine{std::move(e)};
    return s;
  });
}

kiln_status kiln_engine_load_memory(const void *data, size_t size,
                                    kiln_engine **engine) {
  if (!engine)
    return fail(KILN_ERROR_INVALID_ARGUMENT,
                "kiln_engine_load_memory: engine must not be null");
  *engine = nullptr;
  return guarded([&] {
    std::unique_ptr<Engine> e;
    Status s = Engine::loadMemory(data, size, &e);
    if (s.ok())
      *engine = new kiln_engine{std::move(e)};
    return s;
  });
}

void kiln_engine_options_init(kiln_engine_options *options) {
  if (!options)
    return;
  options->device = KILN_DEVICE_AUTO;
  options->device_ordinal = 0;
  options->allow_ptx_jit = 0;
  options->cuda_driver = nullptr;
}

static kiln_status toOptions(const kiln_engine_options *in,
                             EngineOptions *out) {
  if (!in)
    return KILN_OK;
  // Read as an int: a C caller may store any value in the enum field, and
  // loading an out-of-range enumerator is undefined behaviour in C++.
  int device;
  std::memcpy(&device, &in->device, sizeof(device));
  switch (device) {
  case KILN_DEVICE_AUTO:
    out->device = DeviceKind::Auto;
    break;
  case KILN_DEVICE_HOST:
    out->device = DeviceKind::Host;
    break;
  case KILN_DEVICE_GPU:
    out->device = DeviceKind::Gpu;
    break;
  default:
    return fail(KILN_ERROR_INVALID_ARGUMENT,
                "kiln_engine_options.device must be KILN_DEVICE_AUTO, "
                "KILN_DEVICE_HOST or KILN_DEVICE_GPU");
  }
  out->deviceOrdinal = in->device_ordinal;
  out->allowPtxJit = in->allow_ptx_jit != 0;
  if (in->cuda_driver)
    out->cudaDriver = in->cuda_driver;
  return KILN_OK;
}

kiln_status
kiln_engine_load_file_with_options(const char *path,
                                   const kiln_engine_options *options,
                                   kiln_engine **engine) {
  if (!path || !engine)
    return fail(KILN_ERROR_INVALID_ARGUMENT,
                "kiln_engine_load_file_with_options: path and engine must "
                "not be null");
  *engine = nullptr;
  return guarded([&] {
    EngineOptions o;
    if (kiln_status st = toOptions(options, &o); st != KILN_OK)
      return Status(StatusCode(st), kiln_last_error());
    std::unique_ptr<Engine> e;
    Status s = Engine::loadFile(path, o, &e);
    if (s.ok())
      *engine = new kiln_engine{std::move(e)};
    return s;
  });
}

kiln_status
kiln_engine_load_memory_with_options(const void *data, size_t size,
                                     const kiln_engine_options *options,
                                     kiln_engine **engine) {
  if (!engine)
    return fail(KILN_ERROR_INVALID_ARGUMENT,
                "kiln_engine_load_memory_with_options: engine must not be "
                "null");
  *engine = nullptr;
  return guarded([&] {
    EngineOptions o;
    if (kiln_status st = toOptions(options, &o); st != KILN_OK)
      return Status(StatusCode(st), kiln_last_error());
    std::unique_ptr<Engine> e;
    Status s = Engine::loadMemory(data, size, o, &e);
    if (s.ok())
      *engine = new kiln_engine{std::move(e)};
    return s;
  });
}

void kiln_engine_destroy(kiln_engine *engine) { delete engine; }

size_t kiln_engine_num_inputs(const kiln_engine *engine) {
  return engine ? engine->engine->inputs().size() : 0;
}
size_t kiln_engine_num_outputs(const kiln_engine *engine) {
  return engine ? engine->engine->outputs().size() : 0;
}

int64_t kiln_engine_input_index(const kiln_engine *engine, const char *name) {
  if (!engine || !name)
    return -1;
  std::optional<size_t> i = engine->engine->findInput(name);
  return i ? int64_t(*i) : -1;
}
int64_t kiln_engine_output_index(const kiln_engine *engine, const char *name) {
  if (!engine || !name)
    return -1;
  std::optional<size_t> i = engine->engine->findOutput(name);
  return i ? int64_t(*i) : -1;
}

/// The tensor at `index` of inputs (isInput) or outputs, or null with
/// kiln_last_error set.
static const TensorInfo *tensorAt(const kiln_engine *engine, size_t index,
                                  bool isInput) {
  if (!engine) {
    fail(KILN_ERROR_INVALID_ARGUMENT, "engine is null");
    return nullptr;
  }
  const std::vector<TensorInfo> &list =
      isInput ? engine->engine->inputs() : engine->engine->outputs();
  if (index >= list.size()) {
    fail(KILN_ERROR_INVALID_ARGUMENT,
         isInput ? "input index out of range" : "output index out of range");
    return nullptr;
  }
  return &list[index];
}

static const int64_t *shapeOf(const TensorInfo *t, size_t *rank) {
  if (rank)
    *rank = t ? t->shape.size() : 0;
  return t ? t->shape.data() : nullptr;
}

const char *kiln_engine_input_name(const kiln_engine *e, size_t i) {
  const TensorInfo *t = tensorAt(e, i, true);
  return t ? t->name.c_str() : nullptr;
}
kiln_dtype kiln_engine_input_dtype(const kiln_engine *e, size_t i) {
  const TensorInfo *t = tensorAt(e, i, true);
  return t ? kiln_dtype(t->dtype) : KILN_F32;
}
const int64_t *kiln_engine_input_shape(const kiln_engine *e, size_t i,
                                       size_t *rank) {
  return shapeOf(tensorAt(e, i, true), rank);
}
uint64_t kiln_engine_input_bytes(const kiln_engine *e, size_t i) {
  const TensorInfo *t = tensorAt(e, i, true);
  return t ? t->byteSize : 0;
}
const char *kiln_engine_output_name(const kiln_engine *e, size_t i) {
  const TensorInfo *t = tensorAt(e, i, false);
  return t ? t->name.c_str() : nullptr;
}
kiln_dtype kiln_engine_output_dtype(const kiln_engine *e, size_t i) {
  const TensorInfo *t = tensorAt(e, i, false);
  return t ? kiln_dtype(t->dtype) : KILN_F32;
}
const int64_t *kiln_engine_output_shape(const kiln_engine *e, size_t i,
                                        size_t *rank) {
  return shapeOf(tensorAt(e, i, false), rank);
}
uint64_t kiln_engine_output_bytes(const kiln_engine *e, size_t i) {
  const TensorInfo *t = tensorAt(e, i, false);
  return t ? t->byteSize : 0;
}

size_t kiln_engine_num_targets(const kiln_engine *engine) {
  return engine ? engine->engine->planTargets().size() : 0;
}
const char *kiln_engine_target_name(const kiln_engine *engine, size_t index) {
  if (!engine || index >= engine->engine->planTargets().size())
    return nullptr;
  return engine->engine->planTargets()[index].c_str();
}
const char *kiln_engine_selected_target(const kiln_engine *engine) {
  return engine ? engine->engine->target().c_str() : nullptr;
}

const char *kiln_engine_provenance_json(const kiln_engine *engine) {
  return engine ? engine->engine->provenanceJson().c_str() : nullptr;
}

int kiln_engine_on_gpu(const kiln_engine *engine) {
  return engine && engine->engine->onGpu() ? 1 : 0;
}
const char *kiln_engine_device_name(const kiln_engine *engine) {
  return engine ? engine->engine->device().name.c_str() : "";
}
int kiln_engine_device_ordinal(const kiln_engine *engine) {
  return engine ? engine->engine->device().ordinal : -1;
}
void kiln_engine_compute_capability(const kiln_engine *engine, int *major,
                                    int *minor) {
  if (major)
    *major = engine ? engine->engine->device().computeMajor : 0;
  if (minor)
    *minor = engine ? engine->engine->device().computeMinor : 0;
}
const char *kiln_engine_device_note(const kiln_engine *engine) {
  return engine ? engine->engine->deviceNote().c_str() : "";
}
kiln_device_memory kiln_engine_device_memory(const kiln_engine *engine) {
  kiln_device_memory m = {0, 0, 0};
  if (engine)
    m.weights_bytes = engine->engine->deviceWeightsBytes();
  return m;
}
kiln_status kiln_engine_query_device_memory(const kiln_engine *engine,
                                            uint64_t *free_bytes,
                                            uint64_t *total_bytes) {
  if (!engine)
    return fail(KILN_ERROR_INVALID_ARGUMENT,
                "kiln_engine_query_device_memory: engine is null");
  return guarded([&] {
    return engine->engine->queryDeviceMemory(free_bytes, total_bytes);
  });
}

kiln_status kiln_host_buffer_create(const kiln_engine *engine, size_t bytes,
                                    kiln_host_buffer **buffer) {
  if (!engine || !buffer)
    return fail(KILN_ERROR_INVALID_ARGUMENT,
                "kiln_host_buffer_create: engine and buffer must not be null");
  *buffer = nullptr;
  return guarded([&] {
    auto b = std::make_unique<kiln_host_buffer>();
    Status s = engine->engine->allocateHostBuffer(bytes, &b->buffer);
    if (s)
      *buffer = b.release();
    return s;
  });
}
void *kiln_host_buffer_data(const kiln_host_buffer *buffer) {
  return buffer ? buffer->buffer->data() : nullptr;
}
size_t kiln_host_buffer_size(const kiln_host_buffer *buffer) {
  return buffer ? buffer->buffer->size() : 0;
}
int kiln_host_buffer_pinned(const kiln_host_buffer *buffer) {
  return buffer && buffer->buffer->pinned() ? 1 : 0;
}
void kiln_host_buffer_destroy(kiln_host_buffer *buffer) { delete buffer; }

void kiln_context_options_init(kiln_context_options *options) {
  if (options)
    options->cuda_graphs = 1;
}

kiln_status
kiln_context_create_with_options(const kiln_engine *engine,
                                 const kiln_context_options *options,
                                 kiln_context **context) {
  if (!engine || !context)
    return fail(KILN_ERROR_INVALID_ARGUMENT,
                "kiln_context_create_with_options: engine and context must "
                "not be null");
  *context = nullptr;
  return guarded([&] {
    ContextOptions o;
    if (options)
      o.cudaGraphs = options->cuda_graphs != 0;
    std::unique_ptr<ExecutionContext> c;
    Status s = engine->engine->createContext(o, &c);
    if (s.ok())
      *context = new kiln_context{std::move(c)};
    return s;
  });
}

kiln_status kiln_context_create(const kiln_engine *engine,
                                kiln_context **context) {
  if (!engine || !context)
    return fail(KILN_ERROR_INVALID_ARGUMENT,
                "kiln_context_create: engine and context must not be null");
  *context = nullptr;
  return guarded([&] {
    std::unique_ptr<ExecutionContext> c;
    Status s = engine->engine->createContext(&c);
    if (s.ok())
      *context = new kiln_context{std::move(c)};
    return s;
  });
}

void kiln_context_destroy(kiln_context *context) { delete context; }

#define KILN_CHECK_CONTEXT(context, name)                                      \
  if (!(context))                                                              \
    return fail(KILN_ERROR_INVALID_ARGUMENT, name ": context is null");

kiln_status kiln_context_set_input(kiln_context *context, const char *name,
                                   const void *data, size_t bytes) {
  KILN_CHECK_CONTEXT(context, "kiln_context_set_input")
  if (!name)
    return fail(KILN_ERROR_INVALID_ARGUMENT,
                "kiln_context_set_input: name is null");
  return guarded([&] {
    return context->context->setInput(std::string_view(name), data, bytes);
  });
}

kiln_status kiln_context_set_input_by_index(kiln_context *context, size_t index,
                                            const void *data, size_t bytes) {
  KILN_CHECK_CONTEXT(context, "kiln_context_set_input_by_index")
  return guarded(
      [&] { return context->context->setInput(index, data, bytes); });
}

kiln_status kiln_context_set_output(kiln_context *context, const char *name,
                                    void *data, size_t bytes) {
  KILN_CHECK_CONTEXT(context, "kiln_context_set_output")
  if (!name)
    return fail(KILN_ERROR_INVALID_ARGUMENT,
                "kiln_context_set_output: name is null");
  return guarded([&] {
    return context->context->setOutput(std::string_view(name), data, bytes);
  });
}

kiln_status kiln_context_set_output_by_index(kiln_context *context,
                                             size_t index, void *data,
                                             size_t bytes) {
  KILN_CHECK_CONTEXT(context, "kiln_context_set_output_by_index")
  return guarded(
      [&] { return context->context->setOutput(index, data, bytes); });
}

kiln_status kiln_context_get_output(const kiln_context *context,
                                    const char *name, const void **data,
                                    size_t *bytes) {
  KILN_CHECK_CONTEXT(context, "kiln_context_get_output")
  if (!name)
    return fail(KILN_ERROR_INVALID_ARGUMENT,
                "kiln_context_get_output: name is null");
  return guarded([&] {
    return context->context->getOutput(std::string_view(name), data, bytes);
  });
}

kiln_status kiln_context_get_output_by_index(const kiln_context *context,
                                             size_t index, const void **data,
                                             size_t *bytes) {
  KILN_CHECK_CONTEXT(context, "kiln_context_get_output_by_index")
  return guarded(
      [&] { return context->context->getOutput(index, data, bytes); });
}

kiln_status kiln_context_run(kiln_context *context) {
  KILN_CHECK_CONTEXT(context, "kiln_context_run")
  return guarded([&] { return context->context->run(); });
}

kiln_status kiln_context_set_input_device(kiln_context *context, size_t index,
                                          uint64_t devptr, size_t bytes) {
  KILN_CHECK_CONTEXT(context, "kiln_context_set_input_device")
  return guarded(
      [&] { return context->context->setInputDevice(index, devptr, bytes); });
}

kiln_status kiln_context_set_output_device(kiln_context *context, size_t index,
                                           uint64_t devptr, size_t bytes) {
  KILN_CHECK_CONTEXT(context, "kiln_context_set_output_device")
  return guarded(
      [&] { return context->context->setOutputDevice(index, devptr, bytes); });
}

kiln_status kiln_context_get_output_device(const kiln_context *context,
                                           size_t index, uint64_t *devptr) {
  KILN_CHECK_CONTEXT(context, "kiln_context_get_output_device")
  return guarded(
      [&] { return context->context->getOutputDevice(index, devptr); });
}

kiln_status kiln_context_upload_input(kiln_context *context, size_t index,
                                      const void *data, size_t bytes) {
  KILN_CHECK_CONTEXT(context, "kiln_context_upload_input")
  return guarded(
      [&] { return context->context->uploadInput(index, data, bytes); });
}

kiln_status kiln_context_read_output(kiln_context *context, size_t index,
                                     void *data, size_t bytes) {
  KILN_CHECK_CONTEXT(context, "kiln_context_read_output")
  return guarded(
      [&] { return context->context->readOutput(index, data, bytes); });
}

kiln_status kiln_context_enqueue(kiln_context *context, void *stream) {
  KILN_CHECK_CONTEXT(context, "kiln_context_enqueue")
  return guarded([&] { return context->context->enqueue(stream); });
}

kiln_status kiln_context_synchronize(kiln_context *context) {
  KILN_CHECK_CONTEXT(context, "kiln_context_synchronize")
  return guarded([&] { return context->context->synchronize(); });
}

kiln_device_memory kiln_context_device_memory(const kiln_context *context) {
  kiln_device_memory m = {0, 0, 0};
  if (context) {
    ContextMemory c = context->context->deviceMemory();
    // The C struct keeps its layout: the (small) tensor-map table is
    // reported with the arena.
    m.arena_bytes = c.arenaBytes + c.tensorMapBytes;
    m.io_bytes = c.ioBytes;
  }
  return m;
}

int kiln_context_uses_cuda_graphs(const kiln_context *context) {
  return context && context->context->usesCudaGraphs() ? 1 : 0;
}

} // extern "C"

//===----------------------------------------------------------------------===//
// Profiles
//===----------------------------------------------------------------------===//

size_t kiln_engine_num_profiles(const kiln_engine *engine) {
  return engine ? engine->engine->numProfiles() : 0;
}

static const int64_t *profileShape(const kiln_engine *engine, size_t profile,
                                   size_t index, bool isInput, size_t *rank) {
  if (rank)
    *rank = 0;
  if (!engine) {
    fail(KILN_ERROR_INVALID_ARGUMENT, "engine is null");
    return nullptr;
  }
  if (profile >= engine->engine->numProfiles()) {
    fail(KILN_ERROR_INVALID_ARGUMENT, "profile index out of range");
    return nullptr;
  }
  const std::vector<TensorInfo> &list =
      isInput ? engine->engine->profileInputs(profile)
              : engine->engine->profileOutputs(profile);
  if (index >= list.size()) {
    fail(KILN_ERROR_INVALID_ARGUMENT,
         isInput ? "input index out of range" : "output index out of range");
    return nullptr;
  }
  return shapeOf(&list[index], rank);
}

const int64_t *kiln_engine_profile_input_shape(const kiln_engine *engine,
                                               size_t profile, size_t index,
                                               size_t *rank) {
  return profileShape(engine, profile, index, true, rank);
}
const int64_t *kiln_engine_profile_output_shape(const kiln_engine *engine,
                                                size_t profile, size_t index,
                                                size_t *rank) {
  return profileShape(engine, profile, index, false, rank);
}

size_t kiln_context_profile(const kiln_context *context) {
  return context ? context->context->profile() : 0;
}

kiln_status kiln_context_set_profile(kiln_context *context, size_t profile) {
  KILN_CHECK_CONTEXT(context, "kiln_context_set_profile")
  return guarded([&] { return context->context->setProfile(profile); });
}

kiln_status kiln_context_set_input_shape(kiln_context *context, size_t index,
                                         const int64_t *dims, size_t rank) {
  KILN_CHECK_CONTEXT(context, "kiln_context_set_input_shape")
  if (!dims && rank)
    return fail(KILN_ERROR_INVALID_ARGUMENT,
                "kiln_context_set_input_shape: dims is null");
  return guarded([&] {
    return context->context->setInputShape(
        index, std::vector<int64_t>(dims, dims + rank));
  });
}

static const int64_t *contextShape(const kiln_context *context, size_t index,
                                   bool isInput, size_t *rank) {
  if (rank)
    *rank = 0;
  if (!context) {
    fail(KILN_ERROR_INVALID_ARGUMENT, "context is null");
    return nullptr;
  }
  const ExecutionContext &c = *context->context;
  size_t count = isInput ? c.numInputs() : c.numOutputs();
  if (index >= count) {
    fail(KILN_ERROR_INVALID_ARGUMENT,
         isInput ? "input index out of range" : "output index out of range");
    return nullptr;
  }
  const std::vector<int64_t> &shape =
      isInput ? c.inputShape(index) : c.outputShape(index);
  if (rank)
    *rank = shape.size();
  return shape.data();
}

const int64_t *kiln_context_input_shape(const kiln_context *context,
                                        size_t index, size_t *rank) {
  return contextShape(context, index, true, rank);
}
const int64_t *kiln_context_output_shape(const kiln_context *context,
                                         size_t index, size_t *rank) {
  return contextShape(context, index, false, rank);
}
uint64_t kiln_context_input_bytes(const kiln_context *context, size_t index) {
  return context ? context->context->inputBytes(index) : 0;
}
uint64_t kiln_context_output_bytes(const kiln_context *context, size_t index) {
  return context ? context->context->outputBytes(index) : 0;
}
