//===- HostModule.cpp - dlopen a shared object held in memory -------------===//
//
// The object is written to an anonymous memfd and opened as
// /proc/self/fd/N, so no file is ever created. glibc identifies loaded objects
// by the path given to dlopen, and fd numbers are reused: before opening we
// check (RTLD_NOLOAD) that no object is loaded under that path yet, and move
// to another fd number if one is, or dlopen would hand back an older plan's
// kernels. Only when memfd is unavailable (or its dlopen fails: /proc not
// mounted, memfd exec disabled) is a temporary file used; it is unlinked right
// after dlopen.
//
//===----------------------------------------------------------------------===//

#include "HostModule.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

using namespace kiln::runtime::host;
using kiln::plan::Status;
using kiln::plan::StatusCode;

static bool writeAll(int fd, const uint8_t *p, size_t size) {
  while (size) {
    ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return false;
    p += n;
    size -= size_t(n);
  }
  return true;
}

static std::string dlerrorString() {
  const char *e = ::dlerror();
  return e ? e : "unknown dlopen error";
}

/// Tries the memfd route; returns the handle or nullptr with `error` set.
static void *openViaMemfd(const uint8_t *data, size_t size,
                          std::string &error) {
#if defined(__linux__) && defined(MFD_CLOEXEC)
  int fd = ::memfd_create("kiln-host-module", MFD_CLOEXEC);
  if (fd < 0) {
    error = std::string("memfd_create failed: ") + std::strerror(errno);
    return nullptr;
  }
  if (!writeAll(fd, data, size)) {
    error = std::string("writing the memfd failed: ") + std::strerror(errno);
    ::close(fd);
    return nullptr;
  }
  std::vector<int> fds = {fd};
  std::string path;
  for (int attempt = 0; attempt < 64; ++attempt) {
    path = "/proc/self/fd/" + std::to_string(fds.back());
    void *existing = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!existing)
      break;
    ::dlclose(existing);
    int next = ::fcntl(fds.back(), F_DUPFD_CLOEXEC, fds.back() + 1);
    if (next < 0)
      break;
    fds.push_back(next);
  }
  ::dlerror();
  void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    error = "dlopen of the memfd failed: " + dlerrorString();
  // The mapping keeps the object alive; the descriptors are not needed.
  for (int f : fds)
    ::close(f);
  return handle;
#else
  (void)data;
  (void)size;
  error = "memfd_create is not available on this system";
  return nullptr;
#endif
}

/// Fallback: a temporary file, unlinked as soon as dlopen has mapped it.
static void *openViaTempFile(const uint8_t *data, size_t size,
                             std::string &error) {
  const char *tmpdir = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/kiln-module-XXXXXX";
  std::vector<char> path(pattern.begin(), pattern.end());
  path.push_back('\0');
  int fd = ::mkstemp(path.data());
  if (fd < 0) {
    error = "cannot create a temporary file in " + pattern + ": " +
            std::strerror(errno);
    return nullptr;
  }
  bool written = writeAll(fd, data, size);
  int err = errno;
  ::close(fd);
  void *handle = nullptr;
  if (!written) {
    error =
        std::string("writing a temporary file failed: ") + std::strerror(err);
  } else {
    ::dlerror();
    handle = ::dlopen(path.data(), RTLD_NOW | RTLD_LOCAL);
    if (!handle)
      error = "dlopen of a temporary file failed: " + dlerrorString();
  }
  ::unlink(path.data());
  return handle;
}

static const char *machineName(unsigned machine) {
  switch (machine) {
  case EM_X86_64:
    return "x86-64";
  case EM_AARCH64:
    return "aarch64";
  case EM_386:
    return "i386";
  case EM_ARM:
    return "arm";
  case EM_PPC64:
    return "ppc64";
  case EM_RISCV:
    return "riscv";
  default:
    return "another machine";
  }
}

#if defined(__x86_64__)
static constexpr unsigned kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
static constexpr unsigned kHostMachine = EM_AARCH64;
#else
static constexpr unsigned kHostMachine = EM_NONE; // not checked
#endif

/// Checks what dlopen would otherwise trip over: the ELF class, byte order
/// and machine, and that the program headers and every loadable segment lie
/// within the bytes (a truncated object can be mapped but faults when used).
static Status checkElf(const uint8_t *data, size_t size,
                       const std::string &label) {
  auto invalid = [&](const std::string &why) {
    return Status(StatusCode::InvalidPlan,
                  "invalid plan: " + label + " (host) " + why);
  };
  static const uint8_t kElfMagic[4] = {0x7f, 'E', 'L', 'F'};
  if (size < sizeof(Elf64_Ehdr) || std::memcmp(data, kElfMagic, 4) != 0)
    return invalid("is not an ELF shared object");
  Elf64_Ehdr eh;
  std::memcpy(&eh, data, sizeof(eh));
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
    return invalid("is not a 64-bit little-endian ELF object");
  if (eh.e_type != ET_DYN)
    return invalid("is not an ELF shared object (e_type " +
                   std::to_string(eh.e_type) + ")");
  if (kHostMachine != EM_NONE && eh.e_machine != kHostMachine)
    return Status(StatusCode::UnsupportedTarget,
                  label + " (host) was compiled for " +
                      machineName(eh.e_machine) + ", this machine is " +
                      machineName(kHostMachine) +
                      ": rebuild the plan with --target host on (or for) "
                      "this machine");
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phoff > size ||
      uint64_t(eh.e_phnum) * sizeof(Elf64_Phdr) > size - eh.e_phoff)
    return invalid("is truncated or corrupt (program headers)");
  for (unsigned i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, data + eh.e_phoff + i * sizeof(Elf64_Phdr), sizeof(ph));
    if (ph.p_type == PT_LOAD &&
        (ph.p_offset > size || ph.p_filesz > size - ph.p_offset))
      return invalid("is truncated: a segment ends at byte " +
                     std::to_string(ph.p_offset + ph.p_filesz) +
                     ", the module has " + std::to_string(size));
  }
  return Status::success();
}

/// Host kernels call the compiler's runtime helpers (f16 conversions such
/// as __truncsfhf2 on x86-64 without F16C), which libgcc_s provides. A
/// module finds them only in the global scope, which lacks them when the
/// runtime itself was loaded into a local one (a Python extension module):
/// libgcc_s is made global once, before the first module.
static void makeCompilerRuntimeGlobal() {
  static const bool done = [] {
    ::dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_GLOBAL); // kept for good
    ::dlerror();
    return true;
  }();
  (void)done;
}

Status HostModule::load(const uint8_t *data, size_t size,
                        const std::string &label,
                        std::unique_ptr<HostModule> *module) {
  if (Status s = checkElf(data, size, label); !s)
    return s;
  makeCompilerRuntimeGlobal();
  std::string memfdError, tempError;
  if (void *handle = openViaMemfd(data, size, memfdError)) {
    module->reset(new HostModule(handle, label, "memfd"));
    return Status::success();
  }
  if (void *handle = openViaTempFile(data, size, tempError)) {
    module->reset(new HostModule(handle, label, "temporary file"));
    return Status::success();
  }
  return Status(StatusCode::InvalidPlan,
                "cannot load " + label +
                    " (host shared object): " + memfdError + "; " + tempError);
}

HostModule::~HostModule() {
  if (handle_)
    ::dlclose(handle_);
}

Status HostModule::lookup(const std::string &symbol, KernelFn *fn) const {
  ::dlerror();
  void *address = ::dlsym(handle_, symbol.c_str());
  if (!address)
    return Status(StatusCode::InvalidPlan, "invalid plan: symbol '" + symbol +
                                               "' is not defined in " + label_ +
                                               " (host shared object)");
  // POSIX guarantees function pointers round-trip through void *.
  *fn = reinterpret_cast<KernelFn>(address);
  return Status::success();
}
