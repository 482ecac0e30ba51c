// Test kernels for the GPU runtime tests, in the plan's GPU kernel ABI: every
// parameter is a 64-bit device pointer (runtime/PLAN_FORMAT.md). Element
// counts are fixed by the launch (one thread per element), as kiln's
// static-shape kernels do. __fmaf_rn makes the result exactly reproducible
// on the host with std::fma.

extern "C" __global__ void kiln_test_axpb(const float *x, const float *a,
                                          const float *b, float *y) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  y[i] = __fmaf_rn(a[i], x[i], b[i]);
}

extern "C" __global__ void kiln_test_relu_square(const float *t, float *y) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = t[i];
  y[i] = v > 0.0f ? __fmul_rn(v, v) : 0.0f;
}
