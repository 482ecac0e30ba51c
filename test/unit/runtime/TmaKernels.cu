// TMA test kernel for the GPU runtime tests, sm_90a only (cp.async.bulk.tensor
// and the mbarrier transaction count exist from sm_90 on; GpuKernels.cu is
// also built for sm_80). Kernel ABI as in runtime/PLAN_FORMAT.md: every
// parameter is a 64-bit device pointer; `map` is the address of a CUtensorMap
// that the runtime encoded into the context's tensor-map table.

#include <cstdint>

namespace {
/// The box of the test's tensor maps: 32 columns x 16 rows of f32.
constexpr int kBoxCols = 32, kBoxRows = 16;
constexpr unsigned kBoxBytes = kBoxCols * kBoxRows * sizeof(float);
} // namespace

/// out (f32 [16, 32]) = the box at column coords[0], row coords[1] of the
/// tensor `map` describes, as one TMA copy moves it into shared memory
/// (elements outside the tensor read as zeros). One block; any thread count.
extern "C" __global__ void
kiln_test_tma_box(const void *map, const int32_t *coords, float *out) {
  // TMA writes whole 128-byte lines; the mbarrier needs 8 bytes.
  __shared__ alignas(128) float tile[kBoxRows * kBoxCols];
  __shared__ alignas(8) uint64_t barrier;
  unsigned bar = unsigned(__cvta_generic_to_shared(&barrier));
  unsigned dst = unsigned(__cvta_generic_to_shared(tile));
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    // Make the initialized barrier visible to the async (TMA) proxy.
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile(
        "mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar),
        "r"(kBoxBytes)
        : "memory");
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile"
        ".mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(dst),
        "l"(map), "r"(coords[0]), "r"(coords[1]), "r"(bar)
        : "memory");
  }
  // Phase 0 completes when the one arrival and all kBoxBytes have landed.
  asm volatile("{\n"
               ".reg .pred done;\n"
               "wait:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
               "@!done bra wait;\n"
               "}" ::"r"(bar)
               : "memory");
  for (unsigned i = threadIdx.x; i < kBoxRows * kBoxCols; i += blockDim.x)
    out[i] = tile[i];
}
