/* The C API used from C: load a plan file (the relu plan of TestPlans.h),
 * inspect it, run it, check the numbers and a few errors. Called by
 * CApiTest.cpp; returns 0 on success or writes what failed into `why`. */
#include "kiln/Runtime/kiln_runtime.h"

#include <stdio.h>
#include <string.h>

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      snprintf(why, whyLen, "%s:%d: %s (last error: %s)", __FILE__, __LINE__,  \
               #cond, kiln_last_error());                                      \
      goto done;                                                               \
    }                                                                          \
  } while (0)

int kiln_test_c_api(const char *planPath, const float *weights, char *why,
                    size_t whyLen) {
  int result = 1;
  kiln_engine *engine = NULL;
  kiln_context *context = NULL;
  const float x[8] = {1.0f, 2.0f, -3.0f, 4.0f, -0.25f, -1.5f, 1.0f, -5.0f};
  float y[8];
  const void *out = NULL;
  size_t outBytes = 0, rank = 0;
  const int64_t *shape;
  int i;

  CHECK(kiln_plan_format_version() == 4);
  CHECK(strlen(kiln_runtime_version()) > 0);
  CHECK(kiln_engine_load_file(planPath, &engine) == KILN_OK);
  CHECK(engine != NULL);

  CHECK(kiln_engine_num_inputs(engine) == 1);
  CHECK(kiln_engine_num_outputs(engine) == 1);
  CHECK(strcmp(kiln_engine_input_name(engine, 0), "x") == 0);
  CHECK(strcmp(kiln_engine_output_name(engine, 0), "y") == 0);
  CHECK(kiln_engine_input_dtype(engine, 0) == KILN_F32);
  CHECK(strcmp(kiln_dtype_name(kiln_engine_output_dtype(engine, 0)), "f32") ==
        0);
  CHECK(kiln_dtype_size(KILN_BF16) == 2);
  shape = kiln_engine_input_shape(engine, 0, &rank);
  CHECK(rank == 2 && shape[0] == 2 && shape[1] == 4);
  CHECK(kiln_engine_input_bytes(engine, 0) == 32);
  CHECK(kiln_engine_output_bytes(engine, 0) == 32);
  CHECK(kiln_engine_input_index(engine, "x") == 0);
  CHECK(kiln_engine_input_index(engine, "nope") == -1);
  CHECK(kiln_engine_output_index(engine, "y") == 0);
  CHECK(kiln_engine_input_name(engine, 3) == NULL);
  CHECK(strstr(kiln_last_error(), "out of range") != NULL);
  CHECK(kiln_engine_num_targets(engine) == 1);
  CHECK(strcmp(kiln_engine_target_name(engine, 0), "host") == 0);
  CHECK(strcmp(kiln_engine_selected_target(engine), "host") == 0);
  CHECK(strcmp(kiln_engine_provenance_json(engine),
               "{\"model.path\": \"tests/\\\"relu\\\"\\\\x.onnx\", "
               "\"options.targets\": \"host\\n\"}") == 0);
  CHECK(kiln_engine_provenance_json(NULL) == NULL);

  CHECK(kiln_context_create(engine, &context) == KILN_OK);
  CHECK(kiln_context_run(context) == KILN_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(kiln_last_error(), "is not set") != NULL);
  CHECK(kiln_context_set_input(context, "z", x, sizeof(x)) ==
        KILN_ERROR_NOT_FOUND);
  CHECK(strcmp(kiln_last_error(),
               "the plan has no input named 'z' (its inputs: 'x')") == 0);
  CHECK(kiln_context_set_input(context, "x", x, 4) ==
        KILN_ERROR_INVALID_ARGUMENT);
  CHECK(kiln_context_set_input(context, "x", x, sizeof(x)) == KILN_OK);
  CHECK(kiln_context_run(context) == KILN_OK);
  CHECK(kiln_context_get_output(context, "y", &out, &outBytes) == KILN_OK);
  CHECK(outBytes == sizeof(y));
  memcpy(y, out, sizeof(y));
  for (i = 0; i < 8; ++i) {
    float t = x[i] + weights[i];
    CHECK(y[i] == (t > 0.0f ? t : 0.0f));
  }

  /* Into caller memory, by index; the engine may go first. */
  memset(y, 0xff, sizeof(y));
  CHECK(kiln_context_set_input_by_index(context, 0, x, sizeof(x)) == KILN_OK);
  CHECK(kiln_context_set_output_by_index(context, 0, y, sizeof(y)) == KILN_OK);
  kiln_engine_destroy(engine);
  engine = NULL;
  CHECK(kiln_context_run(context) == KILN_OK);
  CHECK(kiln_context_get_output_by_index(context, 0, &out, NULL) == KILN_OK);
  CHECK(out == (const void *)y);
  for (i = 0; i < 8; ++i) {
    float t = x[i] + weights[i];
    CHECK(y[i] == (t > 0.0f ? t : 0.0f));
  }

  /* Errors without crashing. */
  CHECK(kiln_context_run(NULL) == KILN_ERROR_INVALID_ARGUMENT);
  CHECK(kiln_context_set_input(context, NULL, x, 1) ==
        KILN_ERROR_INVALID_ARGUMENT);
  CHECK(kiln_engine_load_file("/nonexistent.plan", &engine) ==
        KILN_ERROR_NOT_FOUND);
  CHECK(engine == NULL);
  CHECK(strstr(kiln_last_error(), "/nonexistent.plan") != NULL);
  CHECK(strcmp(kiln_status_string(KILN_ERROR_INVALID_PLAN), "invalid plan") ==
        0);
  kiln_context_destroy(context);
  context = NULL;

  /* Options, device queries and the stream API on a host engine. */
  {
    kiln_engine_options options;
    kiln_context_options contextOptions;
    kiln_device_memory memory;
    int major = -1, minor = -1;
    uint64_t devptr = 0, freeBytes = 0;
    kiln_host_buffer *buffer = NULL;
    kiln_engine_options_init(&options);
    CHECK(options.device == KILN_DEVICE_AUTO && options.device_ordinal == 0);
    options.device = (kiln_device_kind)7;
    CHECK(kiln_engine_load_file_with_options(planPath, &options, &engine) ==
          KILN_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(kiln_last_error(), "KILN_DEVICE_AUTO") != NULL);
    options.device = KILN_DEVICE_GPU;
    options.cuda_driver = "/nonexistent/libcuda.so.1";
    CHECK(kiln_engine_load_file_with_options(planPath, &options, &engine) ==
          KILN_ERROR_UNSUPPORTED_TARGET);
    CHECK(strstr(kiln_last_error(), "no GPU kernels") != NULL);
    options.device = KILN_DEVICE_HOST;
    CHECK(kiln_engine_load_file_with_options(planPath, &options, &engine) ==
          KILN_OK);
    CHECK(kiln_engine_on_gpu(engine) == 0);
    CHECK(strcmp(kiln_engine_device_name(engine), "") == 0);
    CHECK(kiln_engine_device_ordinal(engine) == -1);
    kiln_engine_compute_capability(engine, &major, &minor);
    CHECK(major == 0 && minor == 0);
    CHECK(strcmp(kiln_engine_device_note(engine), "") == 0);
    memory = kiln_engine_device_memory(engine);
    CHECK(memory.weights_bytes == 0);
    CHECK(kiln_engine_query_device_memory(engine, &freeBytes, NULL) ==
          KILN_ERROR_INVALID_ARGUMENT);
    kiln_context_options_init(&contextOptions);
    CHECK(contextOptions.cuda_graphs == 1);
    CHECK(kiln_context_create_with_options(engine, &contextOptions, &context) ==
          KILN_OK);
    CHECK(kiln_context_uses_cuda_graphs(context) == 0);
    memory = kiln_context_device_memory(context);
    CHECK(memory.arena_bytes == 0 && memory.io_bytes == 0);
    CHECK(kiln_context_set_input_device(context, 0, 4096, sizeof(x)) ==
          KILN_ERROR_INVALID_ARGUMENT);
    CHECK(kiln_context_set_output_device(context, 0, 0, 0) ==
          KILN_ERROR_INVALID_ARGUMENT);
    CHECK(kiln_context_get_output_device(context, 0, &devptr) ==
          KILN_ERROR_INVALID_ARGUMENT);
    CHECK(kiln_host_buffer_create(engine, 0, &buffer) ==
          KILN_ERROR_INVALID_ARGUMENT);
    CHECK(buffer == NULL);
    CHECK(kiln_host_buffer_create(engine, sizeof(x), &buffer) == KILN_OK);
    CHECK(kiln_host_buffer_size(buffer) == sizeof(x));
    CHECK(kiln_host_buffer_pinned(buffer) == 0);
    CHECK(((uintptr_t)kiln_host_buffer_data(buffer)) % 64 == 0);
    memcpy(kiln_host_buffer_data(buffer), x, sizeof(x));
    CHECK(kiln_context_set_input(context, "x", kiln_host_buffer_data(buffer),
                                 sizeof(x)) == KILN_OK);
    CHECK(kiln_context_run(context) == KILN_OK);
    kiln_host_buffer_destroy(buffer);
    buffer = NULL;
    CHECK(kiln_context_upload_input(context, 0, x, sizeof(x)) == KILN_OK);
    CHECK(kiln_context_enqueue(context, (void *)&major) ==
          KILN_ERROR_INVALID_ARGUMENT);
    CHECK(kiln_context_enqueue(context, NULL) == KILN_OK);
    CHECK(kiln_context_synchronize(context) == KILN_OK);
    memset(y, 0xff, sizeof(y));
    CHECK(kiln_context_read_output(context, 0, y, sizeof(y)) == KILN_OK);
    for (i = 0; i < 8; ++i) {
      float t = x[i] + weights[i];
      CHECK(y[i] == (t > 0.0f ? t : 0.0f));
    }
  }
  result = 0;

done:
  kiln_context_destroy(context);
  kiln_engine_destroy(engine);
  return result;
}
