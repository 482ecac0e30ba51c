//===- HostModule.h - Loads a plan's host shared object from memory -------===//
#ifndef KILN_RUNTIME_HOST_HOSTMODULE_H
#define KILN_RUNTIME_HOST_HOSTMODULE_H

#include "kiln/Plan/Status.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace kiln::runtime::host {

/// The host kernel ABI (runtime/PLAN_FORMAT.md): buffers[i] is the address of
/// step argument i, dims the step's dims (nullptr when it has none).
using KernelFn = void (*)(void **buffers, const int64_t *dims);

/// A dlopen'ed ELF shared object whose bytes came from the plan. It is loaded
/// through an anonymous memfd, so nothing is left on disk.
class HostModule {
public:
  /// `label` names the module in messages ("module 0").
  static plan::Status load(const uint8_t *data, size_t size,
                           const std::string &label,
                           std::unique_ptr<HostModule> *module);
  ~HostModule();
  HostModule(const HostModule &) = delete;
  HostModule &operator=(const HostModule &) = delete;

  plan::Status lookup(const std::string &symbol, KernelFn *fn) const;
  /// "memfd" or "temporary file": how the object was loaded.
  const char *loadedFrom() const { return loadedFrom_; }

private:
  HostModule(void *handle, std::string label, const char *loadedFrom)
      : handle_(handle), label_(std::move(label)), loadedFrom_(loadedFrom) {}
  void *handle_;
  std::string label_;
  const char *loadedFrom_;
};

} // namespace kiln::runtime::host

#endif // KILN_RUNTIME_HOST_HOSTMODULE_H
