/* Links libkiln_runtime.so from a C program: the exported C API works
 * without any C++ on the application side. Exit status 0 on success. */
#include "kiln/Runtime/kiln_runtime.h"

#include <stdio.h>
#include <string.h>

static int failures = 0;

#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: expected %s (last error: %s)\n", __FILE__,       \
              __LINE__, #cond, kiln_last_error());                             \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

int main(void) {
  static const char garbage[100] = "ONNX? no: not a kiln plan";
  kiln_engine *engine = (kiln_engine *)&failures; /* must be reset to NULL */
  EXPECT(kiln_plan_format_version() == 4);
  EXPECT(strcmp(kiln_dtype_name(KILN_F8E4M3FN), "f8e4m3fn") == 0);
  EXPECT(strcmp(kiln_dtype_name((kiln_dtype)77), "invalid") == 0);
  EXPECT(kiln_engine_load_memory(garbage, sizeof(garbage), &engine) ==
         KILN_ERROR_INVALID_PLAN);
  EXPECT(engine == NULL);
  EXPECT(strstr(kiln_last_error(), "not a kiln plan") != NULL);
  EXPECT(kiln_engine_load_file("/nonexistent/x.plan", &engine) ==
         KILN_ERROR_NOT_FOUND);
  EXPECT(kiln_engine_load_memory(NULL, 0, NULL) == KILN_ERROR_INVALID_ARGUMENT);
  EXPECT(kiln_engine_num_inputs(NULL) == 0);
  kiln_engine_destroy(NULL);
  kiln_context_destroy(NULL);
  if (failures == 0)
    printf("C API through libkiln_runtime.so: ok\n");
  return failures == 0 ? 0 : 1;
}
