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

// At most 128 threads per block: the runtime must refuse larger blocks.
extern "C" __global__ void __launch_bounds__(128) kiln_test_bounded(float *y) {
  y[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
}

// 32 KiB of static shared memory, which counts against the per-block limit
// together with the launch's dynamic shared memory.
extern "C" __global__ void kiln_test_static_shared(float *y) {
  __shared__ float buf[8192];
  buf[threadIdx.x] = float(threadIdx.x);
  __syncthreads();
  y[threadIdx.x] = buf[(threadIdx.x + 1) % blockDim.x];
}
