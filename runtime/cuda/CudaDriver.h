//===- CudaDriver.h - The CUDA driver API, loaded with dlopen -------------===//
//
// The runtime never links libcuda and needs no CUDA headers: this file
// declares the few driver types and entry points it uses, with the ABI of the
// CUDA 12.0 headers. Entry points are resolved with cuGetProcAddress_v2 at
// that ABI version (so a newer driver hands back the 12.0 flavour of each
// function), or with dlsym of the versioned symbol names (cuMemAlloc_v2, ...)
// when the driver has no cuGetProcAddress_v2. Every failure is a Status:
// a machine without a driver gets a message, never an abort.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_CUDA_CUDADRIVER_H
#define KILN_RUNTIME_CUDA_CUDADRIVER_H

#include "kiln/Plan/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace kiln::runtime::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUgraph = struct CUgraph_st *;
using CUgraphExec = struct CUgraphExec_st *;
using CUevent = struct CUevent_st *;
/// A TMA descriptor, opaque; the driver wants it 64-byte aligned.
struct alignas(64) CUtensorMap {
  uint64_t opaque[16];
};
static_assert(sizeof(CUtensorMap) == 128, "CUtensorMap is 128 bytes");

// Values from cuda.h (stable across driver versions).
inline constexpr CUresult CUDA_SUCCESS = 0;
inline constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
inline constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
inline constexpr int CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2; // Y 3, Z 4
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5;  // Y 6, Z 7
inline constexpr int CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;
inline constexpr int CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
inline constexpr int CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
inline constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
inline constexpr int CU_JIT_INFO_LOG_BUFFER = 3;
inline constexpr int CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
inline constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
inline constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
// CUtensorMapDataType.
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT8 = 0;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT16 = 1;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT32 = 2;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_INT32 = 3;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_UINT64 = 4;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_INT64 = 5;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT16 = 6;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT32 = 7;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_FLOAT64 = 8;
inline constexpr int CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9;
inline constexpr int CU_TENSOR_MAP_INTERLEAVE_NONE = 0;
inline constexpr int CU_TENSOR_MAP_L2_PROMOTION_L2_128B = 2;
inline constexpr int CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE = 0; // zeros

/// The driver's entry points. Members are null until Driver::load succeeds;
/// after that every one is set (a missing one fails the load), except the
/// optional ones marked below, which stay null on drivers without them.
struct Driver {
  CUresult (*cuInit)(unsigned flags) = nullptr;
  CUresult (*cuDriverGetVersion)(int *version) = nullptr;
  CUresult (*cuGetErrorName)(CUresult error, const char **name) = nullptr;
  CUresult (*cuGetErrorString)(CUresult error, const char **text) = nullptr;
  CUresult (*cuDeviceGetCount)(int *count) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal) = nullptr;
  CUresult (*cuDeviceGetName)(char *name, int len, CUdevice dev) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *value, int attribute,
                                   CUdevice dev) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice dev) = nullptr;
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice dev) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext ctx) = nullptr;
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image,
                                 unsigned numOptions, int *options,
                                 void **optionValues) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule module) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *fn, CUmodule module,
                                  const char *name) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction fn, int attribute,
                                 int value) = nullptr;
  CUresult (*cuFuncGetAttribute)(int *value, int attribute,
                                 CUfunction fn) = nullptr;
  CUresult (*cuMemAlloc)(CUdeviceptr *ptr, size_t bytes) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr ptr) = nullptr;
  CUresult (*cuMemGetInfo)(size_t *freeBytes, size_t *totalBytes) = nullptr;
  CUresult (*cuMemHostAlloc)(void **ptr, size_t bytes,
                             unsigned int flags) = nullptr;
  CUresult (*cuMemFreeHost)(void *ptr) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr dst, const void *src,
                           size_t bytes) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes) = nullptr;
  CUresult (*cuMemcpyHtoDAsync)(CUdeviceptr dst, const void *src, size_t bytes,
                                CUstream stream) = nullptr;
  CUresult (*cuMemcpyDtoHAsync)(void *dst, CUdeviceptr src, size_t bytes,
                                CUstream stream) = nullptr;
  CUresult (*cuMemsetD8)(CUdeviceptr dst, unsigned char value,
                         size_t bytes) = nullptr;
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream stream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream stream) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction fn, unsigned gridX, unsigned gridY,
                             unsigned gridZ, unsigned blockX, unsigned blockY,
                             unsigned blockZ, unsigned sharedMemBytes,
                             CUstream stream, void **params,
                             void **extra) = nullptr;
  CUresult (*cuStreamBeginCapture)(CUstream stream, int mode) = nullptr;
  CUresult (*cuStreamEndCapture)(CUstream stream, CUgraph *graph) = nullptr;
  CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *exec, CUgraph graph,
                                          unsigned long long flags) = nullptr;
  CUresult (*cuGraphLaunch)(CUgraphExec exec, CUstream stream) = nullptr;
  CUresult (*cuGraphExecDestroy)(CUgraphExec exec) = nullptr;
  CUresult (*cuGraphDestroy)(CUgraph graph) = nullptr;
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags) = nullptr;
  CUresult (*cuEventRecord)(CUevent event, CUstream stream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent event) = nullptr;
  CUresult (*cuEventElapsedTime)(float *ms, CUevent start,
                                 CUevent end) = nullptr;
  CUresult (*cuEventDestroy)(CUevent event) = nullptr;
  /// Optional (CUDA 12.0 and newer): null when the driver has none, and then
  /// plans with tensor maps do not load.
  CUresult (*cuTensorMapEncodeTiled)(
      CUtensorMap *tensorMap, int dataType, uint32_t rank, void *globalAddress,
      const uint64_t *globalDim, const uint64_t *globalStrides /*rank-1*/,
      const uint32_t *boxDim, const uint32_t *elementStrides, int interleave,
      int swizzle, int l2Promotion, int oobFill) = nullptr;

  /// Path given to dlopen, the driver version (cuDriverGetVersion: 12040 =
  /// 12.4) and how the entry points were found ("cuGetProcAddress_v2" or
  /// "dlsym").
  std::string library;
  int version = 0;
  const char *resolvedWith = "";

  /// Turns a CUresult into a Status naming the call and the driver's error
  /// name and text: "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  plan::Status check(CUresult result, const char *call) const;
  /// "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  std::string describe(CUresult result) const;

  /// Opens `library` (a soname or path), resolves every entry point and runs
  /// cuInit(0). Fails with UnsupportedTarget and the dlopen/dlsym/cuInit
  /// message when there is no usable driver. Never aborts.
  static plan::Status load(const std::string &library,
                           std::unique_ptr<Driver> *driver);

  /// The process-wide driver for `library` ("" = $KILN_CUDA_DRIVER, else
  /// "libcuda.so.1"), loaded once per library and never unloaded (libcuda
  /// does not support being unloaded). Returns the same failure every time
  /// when it cannot be loaded.
  static plan::Status get(const std::string &library, const Driver **driver);
};

/// Default library name: $KILN_CUDA_DRIVER if set and non-empty, else
/// "libcuda.so.1".
std::string defaultDriverLibrary();

/// "12.4" for 12040.
std::string driverVersionString(int version);

} // namespace kiln::runtime::cuda

#endif // KILN_RUNTIME_CUDA_CUDADRIVER_H
