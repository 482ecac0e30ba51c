/* Host kernels for the runtime tests, following the kiln host kernel ABI:
 * void SYMBOL(void **buffers, const int64_t *dims). Compiled at build time
 * into a shared object with the system C compiler. KILN_TEST_VARIANT builds
 * a second object with the same symbols and different arithmetic. */
#include <stdint.h>

/* out = x + y (variant: x - y) over dims[0] floats; buffers: x, y, out. */
void kiln_kernel_add(void **buffers, const int64_t *dims) {
  const float *x = (const float *)buffers[0];
  const float *y = (const float *)buffers[1];
  float *out = (float *)buffers[2];
  for (int64_t i = 0; i < dims[0]; ++i)
#ifdef KILN_TEST_VARIANT
    out[i] = x[i] - y[i];
#else
    out[i] = x[i] + y[i];
#endif
}

/* out = max(x, 0) over dims[0] floats; buffers: x, out. */
void kiln_kernel_relu(void **buffers, const int64_t *dims) {
  const float *x = (const float *)buffers[0];
  float *out = (float *)buffers[1];
  for (int64_t i = 0; i < dims[0]; ++i)
    out[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

/* Records how it was called: out[0] = 1 if dims is null, out[1] = number of
 * non-null buffers among buffers[1..2]; buffers: out (int64[2]), a, b. */
void kiln_kernel_probe(void **buffers, const int64_t *dims) {
  int64_t *out = (int64_t *)buffers[0];
  out[0] = dims == 0 ? 1 : 0;
  out[1] = (buffers[1] != 0) + (buffers[2] != 0);
}
