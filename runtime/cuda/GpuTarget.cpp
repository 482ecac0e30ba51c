//===- GpuTarget.cpp - GPU module selection rules -------------------------===//

#include "GpuTarget.h"

using namespace kiln::runtime::cuda;
using kiln::plan::Module;
using kiln::plan::ModuleFormat;
using kiln::plan::Status;
using kiln::plan::StatusCode;

std::optional<SmTarget>
kiln::runtime::cuda::parseSmTarget(std::string_view target) {
  if (target.substr(0, 3) != "sm_")
    return std::nullopt;
  std::string_view rest = target.substr(3);
  SmTarget t;
  if (!rest.empty() && rest.back() == 'a') {
    t.archSpecific = true;
    rest.remove_suffix(1);
  }
  if (rest.size() < 2 || rest.size() > 3 || rest[0] == '0')
    return std::nullopt;
  int value = 0;
  for (char c : rest) {
    if (c < '0' || c > '9')
      return std::nullopt;
    value = value * 10 + (c - '0');
  }
  t.major = value / 10;
  t.minor = value % 10;
  return t;
}

bool kiln::runtime::cuda::moduleRunsOn(const SmTarget &target, bool isPtx,
                                       int major, int minor) {
  if (target.archSpecific)
    return target.major == major && target.minor == minor;
  if (isPtx)
    return target.major < major ||
           (target.major == major && target.minor <= minor);
  return target.major == major && target.minor <= minor;
}

std::string kiln::runtime::cuda::recommendedTarget(int major, int minor) {
  std::string t = "sm_" + std::to_string(major) + std::to_string(minor);
  // Arch-specific features (wgmma, TMA multicast, tcgen05) need 'a' cubins;
  // they exist from Hopper on.
  return major >= 9 ? t + "a" : t;
}

static bool isGpuFormat(ModuleFormat f) {
  return f == ModuleFormat::Cubin || f == ModuleFormat::Ptx;
}

std::string
kiln::runtime::cuda::gpuTargetList(const std::vector<Module> &modules) {
  std::vector<std::string> order;
  std::vector<bool> hasCubin;
  for (const Module &m : modules) {
    if (!isGpuFormat(m.format))
      continue;
    size_t i = 0;
    while (i < order.size() && order[i] != m.target)
      ++i;
    if (i == order.size()) {
      order.push_back(m.target);
      hasCubin.push_back(false);
    }
    if (m.format == ModuleFormat::Cubin)
      hasCubin[i] = true;
  }
  std::string s;
  for (size_t i = 0; i < order.size(); ++i)
    s += (i ? ", " : "") + order[i] + (hasCubin[i] ? "" : " (PTX)");
  return s;
}

Status kiln::runtime::cuda::selectGpuModule(const std::vector<Module> &modules,
                                            const GpuDeviceDesc &device,
                                            bool allowPtxJit,
                                            size_t *moduleIndex) {
  // Score: higher is better; ties keep the plan's (preference) order.
  // Any cubin beats any PTX: JIT costs load time and a cubin built for a
  // lower minor of the same major runs natively.
  long best = -1;
  size_t bestIndex = 0;
  std::string usablePtx; // for the refusal message when JIT is off
  for (size_t i = 0; i < modules.size(); ++i) {
    const Module &m = modules[i];
    if (!isGpuFormat(m.format))
      continue;
    std::optional<SmTarget> t = parseSmTarget(m.target);
    if (!t)
      continue;
    bool ptx = m.format == ModuleFormat::Ptx;
    if (!moduleRunsOn(*t, ptx, device.major, device.minor))
      continue;
    if (ptx && !allowPtxJit) {
      if (usablePtx.empty())
        usablePtx = m.target;
      continue;
    }
    bool exact = t->major == device.major && t->minor == device.minor;
    long score = (ptx ? 0 : 1000) + (exact ? (t->archSpecific ? 500 : 400)
                                           : t->major * 10 + t->minor);
    if (score > best) {
      best = score;
      bestIndex = i;
    }
  }
  if (best >= 0) {
    *moduleIndex = bestIndex;
    return Status::success();
  }
  std::string deviceSm =
      "sm_" + std::to_string(device.major) + std::to_string(device.minor);
  std::string want = recommendedTarget(device.major, device.minor);
  std::string targets = gpuTargetList(modules);
  std::string msg = "plan has GPU kernels for " +
                    (targets.empty() ? std::string("no GPU target") : targets) +
                    "; this GPU (" + device.name + ", device " +
                    std::to_string(device.ordinal) + ") is " + deviceSm +
                    ": rebuild with kilnc --target " + want + " (or add " +
                    want + " to the list)";
  if (!usablePtx.empty())
    msg += ", or allow JIT compilation of the plan's " + usablePtx +
           " PTX (kiln-run --allow-ptx-jit, EngineOptions::allowPtxJit or "
           "KILN_ALLOW_PTX_JIT=1)";
  return Status(StatusCode::UnsupportedTarget, msg);
}
