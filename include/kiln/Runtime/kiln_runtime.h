/*===- kiln_runtime.h - C API of the kiln runtime ---------------------------===
 *
 * A C wrapper over kiln/Runtime/Runtime.h for applications and bindings.
 * Every fallible function returns a kiln_status; on failure,
 * kiln_last_error() gives the message (per thread, until the next failing
 * call on that thread). Nothing aborts or throws across this API.
 *
 *===------------------------------------------------------------------------===*/
#ifndef KILN_RUNTIME_KILN_RUNTIME_H
#define KILN_RUNTIME_KILN_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define KILN_API __attribute__((visibility("default")))
#else
#define KILN_API
#endif

/* Values equal kiln::plan::StatusCode. */
typedef enum kiln_status {
  KILN_OK = 0,
  KILN_ERROR_INVALID_ARGUMENT = 1,
  KILN_ERROR_NOT_FOUND = 2,
  KILN_ERROR_IO = 3,
  KILN_ERROR_INVALID_PLAN = 4,
  KILN_ERROR_UNSUPPORTED_VERSION = 5,
  KILN_ERROR_UNSUPPORTED_TARGET = 6,
  KILN_ERROR_NOT_IMPLEMENTED = 7,
  KILN_ERROR_OUT_OF_MEMORY = 8,
  KILN_ERROR_INTERNAL = 9
} kiln_status;

/* Values equal the plan format's DType. */
typedef enum kiln_dtype {
  KILN_F32 = 0,
  KILN_F16,
  KILN_BF16,
  KILN_F64,
  KILN_I8,
  KILN_U8,
  KILN_I16,
  KILN_U16,
  KILN_I32,
  KILN_I64,
  KILN_U32,
  KILN_U64,
  KILN_BOOL,
  KILN_F8E4M3FN,
  KILN_F8E5M2
} kiln_dtype;

typedef struct kiln_engine kiln_engine;
typedef struct kiln_context kiln_context;
typedef struct kiln_host_buffer kiln_host_buffer;

/* Where an engine runs (EngineOptions::device). */
typedef enum kiln_device_kind {
  KILN_DEVICE_AUTO = 0, /* GPU if the plan has GPU kernels and one is usable,
                           else host */
  KILN_DEVICE_HOST = 1,
  KILN_DEVICE_GPU = 2
} kiln_device_kind;

/* Engine options; initialize with kiln_engine_options_init. */
typedef struct kiln_engine_options {
  kiln_device_kind device;
  int device_ordinal;      /* CUDA device ordinal, default 0 */
  int allow_ptx_jit;       /* non-zero: JIT PTX modules when no cubin fits
                              (also KILN_ALLOW_PTX_JIT=1) */
  const char *cuda_driver; /* NULL: $KILN_CUDA_DRIVER, else libcuda.so.1 */
} kiln_engine_options;

/* Context options; initialize with kiln_context_options_init. */
typedef struct kiln_context_options {
  int cuda_graphs; /* non-zero (default): replay kernels as a CUDA graph
                      (KILN_CUDA_GRAPH=0 turns it off for all contexts) */
} kiln_context_options;

/* Device memory: what an engine or context holds. */
typedef struct kiln_device_memory {
  uint64_t weights_bytes; /* engine: the weights allocation */
  uint64_t arena_bytes;   /* context: the activation arena (and the table of
                             TMA tensor maps, for plans that have one) */
  uint64_t io_bytes;      /* context: its own input/output device buffers */
} kiln_device_memory;

/* Versions and messages. */
KILN_API const char *kiln_runtime_version(void);
KILN_API uint32_t kiln_plan_format_version(void);
/* Message of the last failing call on this thread ("" if none). */
KILN_API const char *kiln_last_error(void);
KILN_API const char *kiln_status_string(kiln_status status);
/* "f32", "bool", ...; "invalid" for other values. */
KILN_API const char *kiln_dtype_name(kiln_dtype dtype);
KILN_API size_t kiln_dtype_size(kiln_dtype dtype);

/* Engines: a loaded, validated plan. */
KILN_API kiln_status kiln_engine_load_file(const char *path,
                                           kiln_engine **engine);
/* The bytes are copied; the caller keeps ownership of `data`. */
KILN_API kiln_status kiln_engine_load_memory(const void *data, size_t size,
                                             kiln_engine **engine);
KILN_API void kiln_engine_options_init(kiln_engine_options *options);
/* options may be NULL (defaults). */
KILN_API kiln_status kiln_engine_load_file_with_options(
    const char *path, const kiln_engine_options *options, kiln_engine **engine);
KILN_API kiln_status kiln_engine_load_memory_with_options(
    const void *data, size_t size, const kiln_engine_options *options,
    kiln_engine **engine);
/* Contexts created from the engine stay usable after this. NULL is a no-op. */
KILN_API void kiln_engine_destroy(kiln_engine *engine);

KILN_API size_t kiln_engine_num_inputs(const kiln_engine *engine);
KILN_API size_t kiln_engine_num_outputs(const kiln_engine *engine);
/* Index of a named input/output, or -1. */
KILN_API int64_t kiln_engine_input_index(const kiln_engine *engine,
                                         const char *name);
KILN_API int64_t kiln_engine_output_index(const kiln_engine *engine,
                                          const char *name);
/* NULL / KILN_F32 / 0 for an index out of range (and kiln_last_error set).
 * Returned pointers live as long as the engine. Shapes use -1 for dynamic
 * dimensions; byte sizes are 0 for dynamic tensors. */
KILN_API const char *kiln_engine_input_name(const kiln_engine *engine,
                                            size_t index);
KILN_API kiln_dtype kiln_engine_input_dtype(const kiln_engine *engine,
                                            size_t index);
KILN_API const int64_t *kiln_engine_input_shape(const kiln_engine *engine,
                                                size_t index, size_t *rank);
KILN_API uint64_t kiln_engine_input_bytes(const kiln_engine *engine,
                                          size_t index);
KILN_API const char *kiln_engine_output_name(const kiln_engine *engine,
                                             size_t index);
KILN_API kiln_dtype kiln_engine_output_dtype(const kiln_engine *engine,
                                             size_t index);
KILN_API const int64_t *kiln_engine_output_shape(const kiln_engine *engine,
                                                 size_t index, size_t *rank);
KILN_API uint64_t kiln_engine_output_bytes(const kiln_engine *engine,
                                           size_t index);
/* Targets the plan was built for, and the one this engine runs. */
KILN_API size_t kiln_engine_num_targets(const kiln_engine *engine);
KILN_API const char *kiln_engine_target_name(const kiln_engine *engine,
                                             size_t index);
KILN_API const char *kiln_engine_selected_target(const kiln_engine *engine);
/* 1 when the engine runs on a GPU. */
KILN_API int kiln_engine_on_gpu(const kiln_engine *engine);
/* GPU engines: device name ("NVIDIA H200"), ordinal, compute capability and
 * driver version (12040 = 12.4); "" / -1 / 0 for host engines. */
KILN_API const char *kiln_engine_device_name(const kiln_engine *engine);
KILN_API int kiln_engine_device_ordinal(const kiln_engine *engine);
KILN_API void kiln_engine_compute_capability(const kiln_engine *engine,
                                             int *major, int *minor);
/* Why auto selection ran a plan with GPU kernels on the host ("" if not). */
KILN_API const char *kiln_engine_device_note(const kiln_engine *engine);
/* The plan's provenance (model, compiler, options, refits) as a JSON object
 * of strings, {"key": "value", ...} in the plan's order; "{}" without any.
 * Owned by the engine: valid until kiln_engine_destroy. NULL for a NULL
 * engine. */
KILN_API const char *kiln_engine_provenance_json(const kiln_engine *engine);
/* Device memory the engine holds (weights_bytes; the other fields 0). */
KILN_API kiln_device_memory
kiln_engine_device_memory(const kiln_engine *engine);
/* cuMemGetInfo of the engine's GPU. */
KILN_API kiln_status kiln_engine_query_device_memory(const kiln_engine *engine,
                                                     uint64_t *free_bytes,
                                                     uint64_t *total_bytes);

/* Host memory for bindings, 64-byte aligned: page-locked on a GPU engine
 * (inputs bound in it reach the device by DMA at the link's speed; pageable
 * memory is staged by the driver first), ordinary memory on the host.
 * KILN_ERROR_OUT_OF_MEMORY when the system refuses to lock `bytes`. The
 * buffer keeps the engine's device alive. */
KILN_API kiln_status kiln_host_buffer_create(const kiln_engine *engine,
                                             size_t bytes,
                                             kiln_host_buffer **buffer);
KILN_API void *kiln_host_buffer_data(const kiln_host_buffer *buffer);
KILN_API size_t kiln_host_buffer_size(const kiln_host_buffer *buffer);
/* 1 when page-locked. */
KILN_API int kiln_host_buffer_pinned(const kiln_host_buffer *buffer);
KILN_API void kiln_host_buffer_destroy(kiln_host_buffer *buffer);

/* Contexts: one per concurrent inference. */
KILN_API kiln_status kiln_context_create(const kiln_engine *engine,
                                         kiln_context **context);
KILN_API void kiln_context_options_init(kiln_context_options *options);
/* options may be NULL (defaults). */
KILN_API kiln_status kiln_context_create_with_options(
    const kiln_engine *engine, const kiln_context_options *options,
    kiln_context **context);
KILN_API void kiln_context_destroy(kiln_context *context);
/* Input memory must stay valid until kiln_context_run returns. */
KILN_API kiln_status kiln_context_set_input(kiln_context *context,
                                            const char *name, const void *data,
                                            size_t bytes);
KILN_API kiln_status kiln_context_set_input_by_index(kiln_context *context,
                                                     size_t index,
                                                     const void *data,
                                                     size_t bytes);
/* Write an output into caller memory; (NULL, 0) returns to the context's. */
KILN_API kiln_status kiln_context_set_output(kiln_context *context,
                                             const char *name, void *data,
                                             size_t bytes);
KILN_API kiln_status kiln_context_set_output_by_index(kiln_context *context,
                                                      size_t index, void *data,
                                                      size_t bytes);
/* Where an output is written; valid after a successful run. */
KILN_API kiln_status kiln_context_get_output(const kiln_context *context,
                                             const char *name,
                                             const void **data, size_t *bytes);
KILN_API kiln_status
kiln_context_get_output_by_index(const kiln_context *context, size_t index,
                                 const void **data, size_t *bytes);
KILN_API kiln_status kiln_context_run(kiln_context *context);

/* Optimization profiles (kilnc --profile): a plan built for several sets of
 * input shapes. kiln_engine_input_shape gives -1 for dims that differ
 * between profiles; the profile_* calls give one profile's shapes. */
KILN_API size_t kiln_engine_num_profiles(const kiln_engine *engine);
/* NULL (and kiln_last_error set) for a profile or index out of range. */
KILN_API const int64_t *kiln_engine_profile_input_shape(
    const kiln_engine *engine, size_t profile, size_t index, size_t *rank);
KILN_API const int64_t *kiln_engine_profile_output_shape(
    const kiln_engine *engine, size_t profile, size_t index, size_t *rank);
/* The profile a context runs (0 at first), and selecting one explicitly. */
KILN_API size_t kiln_context_profile(const kiln_context *context);
KILN_API kiln_status kiln_context_set_profile(kiln_context *context,
                                              size_t profile);
/* Declares an input's shape; selects the profile that has it (an error names
 * the input, dim, value and the profiles' values when none does). */
KILN_API kiln_status kiln_context_set_input_shape(kiln_context *context,
                                                  size_t index,
                                                  const int64_t *dims,
                                                  size_t rank);
/* Shapes and byte sizes in the selected profile, known before running;
 * NULL / 0 out of range. */
KILN_API const int64_t *kiln_context_input_shape(const kiln_context *context,
                                                 size_t index, size_t *rank);
KILN_API const int64_t *kiln_context_output_shape(const kiln_context *context,
                                                  size_t index, size_t *rank);
KILN_API uint64_t kiln_context_input_bytes(const kiln_context *context,
                                           size_t index);
KILN_API uint64_t kiln_context_output_bytes(const kiln_context *context,
                                            size_t index);

/* GPU engines: bind device memory (CUdeviceptr / cudaMalloc pointers).
 * set_output_device(ctx, i, 0, 0) uses the context's own device buffer
 * without copying it back. */
KILN_API kiln_status kiln_context_set_input_device(kiln_context *context,
                                                   size_t index,
                                                   uint64_t devptr,
                                                   size_t bytes);
KILN_API kiln_status kiln_context_set_output_device(kiln_context *context,
                                                    size_t index,
                                                    uint64_t devptr,
                                                    size_t bytes);
KILN_API kiln_status kiln_context_get_output_device(const kiln_context *context,
                                                    size_t index,
                                                    uint64_t *devptr);
/* Copies an input once into the context's storage (device memory on a GPU)
 * and binds it there. */
KILN_API kiln_status kiln_context_upload_input(kiln_context *context,
                                               size_t index, const void *data,
                                               size_t bytes);
/* Waits for the context, then copies an output (wherever bound) to data. */
KILN_API kiln_status kiln_context_read_output(kiln_context *context,
                                              size_t index, void *data,
                                              size_t bytes);
/* Enqueues one inference on a CUstream / cudaStream_t (NULL = the legacy
 * default stream) without waiting; host engines need NULL and run
 * synchronously. */
KILN_API kiln_status kiln_context_enqueue(kiln_context *context, void *stream);
/* Waits for the work of the last enqueue/run. */
KILN_API kiln_status kiln_context_synchronize(kiln_context *context);
/* Device memory the context holds (arena_bytes, io_bytes). */
KILN_API kiln_device_memory
kiln_context_device_memory(const kiln_context *context);
/* 1 when the context replays its kernels as a CUDA graph. */
KILN_API int kiln_context_uses_cuda_graphs(const kiln_context *context);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_RUNTIME_KILN_RUNTIME_H */
