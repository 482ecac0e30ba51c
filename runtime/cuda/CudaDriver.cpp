//===- CudaDriver.cpp - dlopen libcuda and resolve its entry points -------===//

#include "CudaDriver.h"

#include <cstdlib>
#include <map>
#include <mutex>

#include <dlfcn.h>

using namespace kiln::runtime::cuda;
using kiln::plan::Status;
using kiln::plan::StatusCode;

namespace {
/// The ABI version our prototypes follow (cuGetProcAddress's cudaVersion).
constexpr int kAbiVersion = 12000;
/// cuGetProcAddress flags: legacy default-stream flavours (we never use the
/// default stream implicitly, and the application decides its own).
constexpr unsigned long long kLegacyStream = 1;

using GetProcAddressFn = CUresult (*)(const char *symbol, void **fn,
                                      int cudaVersion, unsigned long long flags,
                                      int *symbolStatus);

/// One entry point: its base name (for cuGetProcAddress), the versioned
/// symbol the 12.0 headers map it to (for dlsym), where to store it, and
/// whether the driver may lack it (then it stays null).
struct Entry {
  const char *base;
  const char *versioned;
  void **slot;
  bool optional = false;
};

template <typename F> void **slot(F *&member) {
  return reinterpret_cast<void **>(&member);
}
} // namespace

std::string kiln::runtime::cuda::defaultDriverLibrary() {
  const char *env = std::getenv("KILN_CUDA_DRIVER");
  return env && *env ? env : "libcuda.so.1";
}

std::string kiln::runtime::cuda::driverVersionString(int version) {
  return std::to_string(version / 1000) + "." +
         std::to_string((version % 1000) / 10);
}

std::string Driver::describe(CUresult result) const {
  const char *name = nullptr, *text = nullptr;
  if (cuGetErrorName && cuGetErrorName(result, &name) != CUDA_SUCCESS)
    name = nullptr;
  if (cuGetErrorString && cuGetErrorString(result, &text) != CUDA_SUCCESS)
    text = nullptr;
  std::string s = name ? name : "CUresult " + std::to_string(result);
  if (text)
    s += std::string(" (") + text + ")";
  return s;
}

Status Driver::check(CUresult result, const char *call) const {
  if (result == CUDA_SUCCESS)
    return Status::success();
  // Out-of-memory keeps its own code so that callers can tell it apart.
  StatusCode code =
      result == 2 ? StatusCode::OutOfMemory : StatusCode::Internal;
  return Status(code, std::string(call) + ": " + describe(result));
}

Status Driver::load(const std::string &library,
                    std::unique_ptr<Driver> *driver) {
  driver->reset();
  ::dlerror();
  void *handle = ::dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *e = ::dlerror();
    return Status(StatusCode::UnsupportedTarget,
                  "no CUDA driver was found (" +
                      std::string(e ? e : library + ": dlopen failed") + ")");
  }
  auto d = std::make_unique<Driver>();
  d->library = library;
  Entry entries[] = {
      {"cuInit", "cuInit", slot(d->cuInit)},
      {"cuDriverGetVersion", "cuDriverGetVersion", slot(d->cuDriverGetVersion)},
      {"cuGetErrorName", "cuGetErrorName", slot(d->cuGetErrorName)},
      {"cuGetErrorString", "cuGetErrorString", slot(d->cuGetErrorString)},
      {"cuDeviceGetCount", "cuDeviceGetCount", slot(d->cuDeviceGetCount)},
      {"cuDeviceGet", "cuDeviceGet", slot(d->cuDeviceGet)},
      {"cuDeviceGetName", "cuDeviceGetName", slot(d->cuDeviceGetName)},
      {"cuDeviceGetAttribute", "cuDeviceGetAttribute",
       slot(d->cuDeviceGetAttribute)},
      {"cuDeviceTotalMem", "cuDeviceTotalMem_v2", slot(d->cuDeviceTotalMem)},
      {"cuDevicePrimaryCtxRetain", "cuDevicePrimaryCtxRetain",
       slot(d->cuDevicePrimaryCtxRetain)},
      {"cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2",
       slot(d->cuDevicePrimaryCtxRelease)},
      {"cuCtxSetCurrent", "cuCtxSetCurrent", slot(d->cuCtxSetCurrent)},
      {"cuModuleLoadDataEx", "cuModuleLoadDataEx", slot(d->cuModuleLoadDataEx)},
      {"cuModuleUnload", "cuModuleUnload", slot(d->cuModuleUnload)},
      {"cuModuleGetFunction", "cuModuleGetFunction",
       slot(d->cuModuleGetFunction)},
      {"cuFuncSetAttribute", "cuFuncSetAttribute", slot(d->cuFuncSetAttribute)},
      {"cuFuncGetAttribute", "cuFuncGetAttribute", slot(d->cuFuncGetAttribute)},
      {"cuMemAlloc", "cuMemAlloc_v2", slot(d->cuMemAlloc)},
      {"cuMemFree", "cuMemFree_v2", slot(d->cuMemFree)},
      {"cuMemGetInfo", "cuMemGetInfo_v2", slot(d->cuMemGetInfo)},
      {"cuMemHostAlloc", "cuMemHostAlloc", slot(d->cuMemHostAlloc)},
      {"cuMemFreeHost", "cuMemFreeHost", slot(d->cuMemFreeHost)},
      {"cuMemcpyHtoD", "cuMemcpyHtoD_v2", slot(d->cuMemcpyHtoD)},
      {"cuMemcpyDtoH", "cuMemcpyDtoH_v2", slot(d->cuMemcpyDtoH)},
      {"cuMemcpyHtoDAsync", "cuMemcpyHtoDAsync_v2", slot(d->cuMemcpyHtoDAsync)},
      {"cuMemcpyDtoHAsync", "cuMemcpyDtoHAsync_v2", slot(d->cuMemcpyDtoHAsync)},
      {"cuMemsetD8", "cuMemsetD8_v2", slot(d->cuMemsetD8)},
      {"cuStreamCreate", "cuStreamCreate", slot(d->cuStreamCreate)},
      {"cuStreamDestroy", "cuStreamDestroy_v2", slot(d->cuStreamDestroy)},
      {"cuStreamSynchronize", "cuStreamSynchronize",
       slot(d->cuStreamSynchronize)},
      {"cuLaunchKernel", "cuLaunchKernel", slot(d->cuLaunchKernel)},
      {"cuStreamBeginCapture", "cuStreamBeginCapture_v2",
       slot(d->cuStreamBeginCapture)},
      {"cuStreamEndCapture", "cuStreamEndCapture", slot(d->cuStreamEndCapture)},
      {"cuGraphInstantiateWithFlags", "cuGraphInstantiateWithFlags",
       slot(d->cuGraphInstantiateWithFlags)},
      {"cuGraphLaunch", "cuGraphLaunch", slot(d->cuGraphLaunch)},
      {"cuGraphExecDestroy", "cuGraphExecDestroy", slot(d->cuGraphExecDestroy)},
      {"cuGraphDestroy", "cuGraphDestroy", slot(d->cuGraphDestroy)},
      {"cuEventCreate", "cuEventCreate", slot(d->cuEventCreate)},
      {"cuEventRecord", "cuEventRecord", slot(d->cuEventRecord)},
      {"cuEventSynchronize", "cuEventSynchronize", slot(d->cuEventSynchronize)},
      {"cuEventElapsedTime", "cuEventElapsedTime", slot(d->cuEventElapsedTime)},
      {"cuEventDestroy", "cuEventDestroy_v2", slot(d->cuEventDestroy)},
      // Only plans with TMA tensor maps need it; GpuEngine::load refuses
      // those when it is missing.
      {"cuTensorMapEncodeTiled", "cuTensorMapEncodeTiled",
       slot(d->cuTensorMapEncodeTiled), /*optional=*/true},
  };

  auto getProc = reinterpret_cast<GetProcAddressFn>(
      ::dlsym(handle, "cuGetProcAddress_v2"));
  d->resolvedWith = getProc ? "cuGetProcAddress_v2" : "dlsym";
  for (const Entry &e : entries) {
    *e.slot = nullptr;
    if (getProc) {
      int found = -1;
      if (getProc(e.base, e.slot, kAbiVersion, kLegacyStream, &found) !=
              CUDA_SUCCESS ||
          found != 0)
        *e.slot = nullptr;
    }
    // Also when cuGetProcAddress does not know the name (older drivers
    // answer for fewer names): the versioned symbol has the same ABI.
    if (!*e.slot)
      *e.slot = ::dlsym(handle, e.versioned);
    if (!*e.slot && !e.optional)
      return Status(StatusCode::UnsupportedTarget,
                    "the CUDA driver '" + library + "' has no entry point " +
                        e.versioned +
                        " (driver too old? kiln needs a CUDA 12 driver)");
  }
  CUresult r = d->cuInit(0);
  if (r != CUDA_SUCCESS)
    return Status(StatusCode::UnsupportedTarget,
                  "the CUDA driver '" + library +
                      "' failed to initialize: cuInit: " + d->describe(r));
  if (Status s =
          d->check(d->cuDriverGetVersion(&d->version), "cuDriverGetVersion");
      !s)
    return s;
  *driver = std::move(d);
  return Status::success();
}

Status Driver::get(const std::string &library, const Driver **driver) {
  struct Loaded {
    Status status;
    std::unique_ptr<Driver> driver;
  };
  // Leaked on purpose: drivers stay loaded until the process exits, and
  // static destructors must not run cuda calls after libcuda's own teardown.
  static std::mutex *mutex = new std::mutex;
  static auto *loaded = new std::map<std::string, Loaded>;
  std::string name = library.empty() ? defaultDriverLibrary() : library;
  std::lock_guard<std::mutex> lock(*mutex);
  auto it = loaded->find(name);
  if (it == loaded->end()) {
    Loaded l;
    l.status = load(name, &l.driver);
    it = loaded->emplace(name, std::move(l)).first;
  }
  *driver = it->second.driver.get();
  return it->second.status;
}
