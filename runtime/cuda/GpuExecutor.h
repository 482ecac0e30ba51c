//===- GpuExecutor.h - Plans on an NVIDIA GPU through the driver API ------===//
//
// GpuEngine: one device, its primary context, the selected module with its
// functions, and the weights (uploaded once, read-only, shared by every
// context). GpuContext: one context's device arena, its tensor-map table
// (TMA descriptors, encoded whenever the I/O addresses change), its own I/O
// buffers and stream, and its CUDA graph. The kernel ABI is in
// runtime/PLAN_FORMAT.md: parameter i is the 64-bit device address of step
// argument i.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_CUDA_GPUEXECUTOR_H
#define KILN_RUNTIME_CUDA_GPUEXECUTOR_H

#include "CudaDriver.h"
#include "GpuTarget.h"

#include "kiln/Runtime/Runtime.h"

#include <memory>
#include <vector>

namespace kiln::runtime::cuda {

class GpuEngine {
public:
  /// Loads the driver (`driverLibrary`, "" = default), opens device
  /// `ordinal` and retains its primary context. UnsupportedTarget when there
  /// is no driver, no device or no such ordinal.
  static plan::Status open(const std::string &driverLibrary, int ordinal,
                           std::unique_ptr<GpuEngine> *engine);
  ~GpuEngine();
  GpuEngine(const GpuEngine &) = delete;
  GpuEngine &operator=(const GpuEngine &) = delete;

  /// Refuses a plan that needs a newer driver than this one.
  plan::Status checkDriverVersion(uint32_t minDriverVersion) const;
  /// Loads module `module` of `p` (JIT for PTX), resolves the functions of
  /// its kernels, checks its steps and uploads the weights they use (through
  /// their arguments or their tensor maps). Steps of tactic variants other
  /// than `selectedVariants` (one per plan choice) are left out. `p` must
  /// outlive this engine. UnsupportedTarget only when the steps need what
  /// this driver lacks (TMA tensor maps without cuTensorMapEncodeTiled).
  plan::Status load(const plan::Plan &p, size_t module,
                    const std::vector<uint32_t> &selectedVariants);
  /// Multi-profile plans, before load(): profile 0's engine uploads the
  /// whole weights section (every profile's weights), the other profiles'
  /// engines use that upload (`owner` must outlive this engine).
  void uploadWholeWeightsSection() { wholeWeights_ = true; }
  void shareWeightsOf(const GpuEngine &owner) { weightsOwner_ = &owner; }

  /// Makes the engine's context current on the calling thread.
  plan::Status makeCurrent() const;

  const Driver &driver() const { return *driver_; }
  const DeviceInfo &info() const { return info_; }
  GpuDeviceDesc desc() const {
    return {info_.name, info_.ordinal, info_.computeMajor, info_.computeMinor};
  }
  const plan::Plan &plan() const { return *plan_; }
  bool isPtx() const { return isPtx_; }
  /// Device address of weights-section offset 0 (only the used range is
  /// allocated: addresses outside it are never formed by valid steps).
  CUdeviceptr weightsBase() const { return weightsBase_; }
  uint64_t weightsAllocatedBytes() const { return weightsBytes_; }

  struct Launch {
    CUfunction fn;
    const plan::Step *step;
  };
  const std::vector<Launch> &launches() const { return launches_; }
  /// Indices into plan().tensorMaps of the tensor maps the launches use
  /// (those whose TensorMap buffer is an argument of one of them).
  const std::vector<uint32_t> &tensorMaps() const { return tensorMaps_; }
  /// Bytes of each context's tensor-map table; 0 when no launch uses one.
  uint64_t tensorMapTableBytes() const { return tensorMapTableBytes_; }

private:
  GpuEngine() = default;
  /// Reads the device's launch limits into limits_.
  plan::Status queryLaunchLimits();
  /// Step `index` (of function `fn`) within the device's and the function's
  /// limits: block and grid dims, threads per block, static + dynamic
  /// shared memory. The plan's validation checks CUDA's hard limits; these
  /// are the actual device's, and the errors name the step and its kernel.
  plan::Status checkLaunchLimits(const plan::Plan &p, size_t index,
                                 CUfunction fn) const;
  struct LaunchLimits {
    int threads = 0;
    int block[3] = {0, 0, 0};
    int grid[3] = {0, 0, 0};
    int sharedOptin = 0;
  };
  LaunchLimits limits_;
  const Driver *driver_ = nullptr;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  DeviceInfo info_;
  const plan::Plan *plan_ = nullptr;
  bool isPtx_ = false;
  CUmodule module_ = nullptr;
  CUdeviceptr weightsAlloc_ = 0, weightsBase_ = 0;
  uint64_t weightsBytes_ = 0;
  bool wholeWeights_ = false;
  const GpuEngine *weightsOwner_ = nullptr;
  std::vector<Launch> launches_;
  std::vector<uint32_t> tensorMaps_;
  uint64_t tensorMapTableBytes_ = 0;
};

/// Where one inference's inputs come from and outputs go (built by the
/// ExecutionContext from its bindings for each enqueue).
struct IoPlan {
  /// Device address of every plan buffer of kind Input/Output (by buffer
  /// index; other entries unused).
  std::vector<CUdeviceptr> ioBases;
  struct HostToDevice {
    CUdeviceptr dst;
    const void *src;
    size_t bytes;
  };
  struct DeviceToHost {
    void *dst;
    CUdeviceptr src;
    size_t bytes;
  };
  std::vector<HostToDevice> copiesIn;
  std::vector<DeviceToHost> copiesOut;
};

class GpuContext {
public:
  /// Allocates the arena (`arenaAlignment`-aligned, zeroed), the tensor-map
  /// table (when the launches use tensor maps), one device buffer per input
  /// and output (outputs zeroed) and a stream.
  /// Multi-profile contexts share one arena: `arenaBytes` (0 = the plan's)
  /// sizes it; with `sharedArena` != 0 the context allocates none and uses
  /// that one (of at least its plan's size; it must outlive the context).
  static plan::Status create(const GpuEngine &engine, uint64_t arenaAlignment,
                             bool cudaGraphs, std::unique_ptr<GpuContext> *out,
                             uint64_t arenaBytes = 0,
                             CUdeviceptr sharedArena = 0);
  ~GpuContext();
  GpuContext(const GpuContext &) = delete;
  GpuContext &operator=(const GpuContext &) = delete;

  /// Enqueues copies in, the kernels (replaying the CUDA graph, recaptured
  /// when `io.ioBases` changed) and copies out on `stream`.
  plan::Status enqueue(CUstream stream, const IoPlan &io);
  /// Waits for the stream of the last enqueue.
  plan::Status synchronize();
  /// Synchronous copies (for uploadInput/readOutput).
  plan::Status copyToDevice(CUdeviceptr dst, const void *src, size_t bytes);
  plan::Status copyToHost(void *dst, CUdeviceptr src, size_t bytes);

  CUstream stream() const { return stream_; }
  /// The (aligned) activation arena; 0 when the plan needs none.
  CUdeviceptr arena() const { return arena_; }
  CUdeviceptr ownInput(size_t i) const { return inputs_[i]; }
  CUdeviceptr ownOutput(size_t i) const { return outputs_[i]; }
  bool usesGraphs() const { return graphs_; }
  uint64_t graphCaptures() const { return captures_; }
  /// Times every launch on its own (CUDA events around each, no graph) over
  /// `iterations` runs after one enqueue has set the arguments; `ms[l]` is
  /// the mean time of launch l (engine().launches() order).
  plan::Status profileLaunches(int iterations, std::vector<double> &ms);
  ContextMemory memory() const { return memory_; }

private:
  explicit GpuContext(const GpuEngine &engine) : engine_(engine) {}
  /// Kernel parameters and tensor maps for these I/O addresses (a no-op
  /// when they are the ones set last).
  plan::Status setArguments(const std::vector<CUdeviceptr> &ioBases);
  /// Device address of plan buffer `buffer` with these I/O addresses.
  CUdeviceptr bufferAddress(uint32_t buffer,
                            const std::vector<CUdeviceptr> &ioBases) const;
  /// Encodes the engine's tensor maps over these I/O addresses and uploads
  /// the table if it changed (after the last enqueue has finished with it).
  plan::Status encodeTensorMaps(const std::vector<CUdeviceptr> &ioBases);
  /// Launches engine().launches()[l] on `stream`; errors name the step.
  plan::Status launch(size_t l, CUstream stream);
  plan::Status launchAll(CUstream stream);
  plan::Status capture();

  const GpuEngine &engine_;
  bool graphs_ = true;
  CUstream stream_ = nullptr;
  CUstream lastStream_ = nullptr;
  bool enqueued_ = false;
  CUdeviceptr arenaAlloc_ = 0, arena_ = 0;
  /// The tensor-map table (cuMemAlloc: 256-byte aligned, more than the 64
  /// bytes a CUtensorMap needs), its host image, and what the device holds.
  CUdeviceptr tensorMapTable_ = 0;
  std::vector<uint8_t> tensorMapImage_, uploadedTensorMaps_;
  std::vector<CUdeviceptr> inputs_, outputs_;
  ContextMemory memory_;
  /// Kernel parameters: one CUdeviceptr per argument of every launch, and
  /// the pointers to them that cuLaunchKernel takes.
  std::vector<CUdeviceptr> argValues_;
  std::vector<void *> argPointers_;
  std::vector<size_t> argStart_; ///< per launch, into argValues_
  std::vector<CUdeviceptr> boundIoBases_;
  bool argumentsSet_ = false;
  CUgraphExec graph_ = nullptr;
  std::vector<CUdeviceptr> capturedIoBases_;
  uint64_t captures_ = 0;
};

} // namespace kiln::runtime::cuda

#endif // KILN_RUNTIME_CUDA_GPUEXECUTOR_H
