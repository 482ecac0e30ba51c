//===- GpuTarget.h - Which of a plan's GPU modules a device can run -------===//
//
// Pure functions (no driver): parsing "sm_90a" and choosing the cubin or PTX
// module for a device of a given compute capability. The rules are in
// runtime/PLAN_FORMAT.md ("GPU targets and module selection").
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_CUDA_GPUTARGET_H
#define KILN_RUNTIME_CUDA_GPUTARGET_H

#include "kiln/Plan/PlanIO.h"
#include "kiln/Plan/Status.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::runtime::cuda {

/// "sm_XY" or "sm_XYa": compute capability X.Y (X may have two digits:
/// sm_100 = 10.0, sm_120a = 12.0 arch-specific).
struct SmTarget {
  int major = 0;
  int minor = 0;
  bool archSpecific = false; ///< the 'a' suffix: runs on exactly X.Y
  bool operator==(const SmTarget &o) const {
    return major == o.major && minor == o.minor &&
           archSpecific == o.archSpecific;
  }
};

/// nullopt for anything that is not sm_<2-3 digits>[a].
std::optional<SmTarget> parseSmTarget(std::string_view target);

/// What the selection needs to know about the device.
struct GpuDeviceDesc {
  std::string name; ///< "NVIDIA H200"
  int ordinal = 0;
  int major = 0, minor = 0;
};

/// Whether a Cubin (isPtx false) or Ptx module for `target` can run on a
/// device of compute capability major.minor. Cubin "sm_XY": X == major and
/// Y <= minor; PTX "sm_XY": XY <= device (JIT compiles forward); "sm_XYa":
/// exactly the device, both formats.
bool moduleRunsOn(const SmTarget &target, bool isPtx, int major, int minor);

/// Picks the module of `modules` (a plan's) to run on `device`: a usable
/// cubin first (exact 'a', exact, then the highest minor), then, only when
/// `allowPtxJit`, a usable PTX module (exact 'a', then the highest). Host
/// modules are ignored. Returns UnsupportedTarget with a message that names
/// the plan's GPU targets, the device and what to rebuild for when none fits.
plan::Status selectGpuModule(const std::vector<plan::Module> &modules,
                             const GpuDeviceDesc &device, bool allowPtxJit,
                             size_t *moduleIndex);

/// The target kilnc should be given for this device: "sm_90a" for 9.0 and
/// other arch-specific-capable majors (>= 9), "sm_89" below.
std::string recommendedTarget(int major, int minor);

/// GPU targets of the plan's modules in plan order, each once ("sm_80, sm_89";
/// a target that has only PTX is written "sm_80 (PTX)").
std::string gpuTargetList(const std::vector<plan::Module> &modules);

} // namespace kiln::runtime::cuda

#endif // KILN_RUNTIME_CUDA_GPUTARGET_H
