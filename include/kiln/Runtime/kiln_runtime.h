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

/* Contexts: one per concurrent inference. */
KILN_API kiln_status kiln_context_create(const kiln_engine *engine,
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

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* KILN_RUNTIME_KILN_RUNTIME_H */
