//===- Targets.cpp - GPU architectures and external tools -----------------===//
#include "codegen/Targets/Targets.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace kiln::codegen;

namespace {
constexpr GpuTargetInfo kGpuTargets[] = {
    {"sm_70", "+ptx80", 12000, 108},
    {"sm_75", "+ptx80", 12000, 108},
    {"sm_80", "+ptx80", 12000, 108}, // A100
    {"sm_86", "+ptx80", 12000, 84},  // A40
    {"sm_87", "+ptx80", 12000, 108},
    {"sm_89", "+ptx80", 12000, 128}, // L40S
    {"sm_90", "+ptx80", 12000, 132},
    {"sm_90a", "+ptx80", 12000, 132}, // H100/H200
    {"sm_100", "+ptx86", 12080, 148},
    {"sm_100a", "+ptx86", 12080, 148}, // B200
    {"sm_120", "+ptx87", 12080, 108},
    {"sm_120a", "+ptx87", 12080, 108},
};
} // namespace

const GpuTargetInfo *kiln::codegen::findGpuTarget(StringRef name) {
  for (const GpuTargetInfo &t : kGpuTargets)
    if (name == t.name)
      return &t;
  return nullptr;
}

bool kiln::codegen::isGpuTarget(StringRef target) {
  return findGpuTarget(target) != nullptr;
}

std::string kiln::codegen::knownGpuTargets() {
  std::string s;
  for (const GpuTargetInfo &t : kGpuTargets)
    s += (s.empty() ? "" : ", ") + std::string(t.name);
  return s;
}

int64_t kiln::codegen::smVersion(StringRef target) {
  int64_t v = 0;
  if (target.starts_with("sm_"))
    (void)target.drop_front(3).take_while(llvm::isDigit).getAsInteger(10, v);
  return v;
}

uint32_t kiln::codegen::gpuMinDriverVersion(ArrayRef<std::string> targets) {
  uint32_t v = 0;
  for (const std::string &t : targets)
    if (const GpuTargetInfo *info = findGpuTarget(t))
      v = std::max(v, info->minDriver);
  return v;
}

LogicalResult kiln::codegen::runToolOnFile(
    StringRef program, StringRef what, ArrayRef<char> input, StringRef inName,
    StringRef outName, function_ref<void(SmallVectorImpl<StringRef> &)> flags,
    std::vector<char> &output, Location loc) {
  SmallString<128> dir;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("kiln-tool", dir))
    return emitError(loc, "cannot create a temporary directory: ")
           << ec.message();
  llvm::scope_exit cleanup([&] { llvm::sys::fs::remove_directories(dir); });
  SmallString<128> in(dir), out(dir), log(dir);
  llvm::sys::path::append(in, inName);
  llvm::sys::path::append(out, outName);
  llvm::sys::path::append(log, "tool.log");
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(in, ec);
    if (ec)
      return emitError(loc, "cannot write ") << in << ": " << ec.message();
    os.write(input.data(), input.size());
  }
  SmallVector<StringRef> args = {program};
  flags(args);
  args.append({"-o", out, in});
  std::optional<StringRef> redirects[] = {std::nullopt, log, log};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(program, args, std::nullopt, redirects, 0,
                                     0, &message);
  if (rc != 0) {
    std::string text;
    if (auto buf = llvm::MemoryBuffer::getFile(log))
      text = (*buf)->getBuffer().str();
    return emitError(loc) << what << " failed (exit " << rc
                          << (message.empty() ? "" : ", " + message)
                          << "): " << text;
  }
  auto buf = llvm::MemoryBuffer::getFile(out, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf)
    return emitError(loc, "cannot read what ")
           << what << " wrote: " << buf.getError().message();
  output.assign((*buf)->getBufferStart(), (*buf)->getBufferEnd());
  return success();
}

std::string kiln::codegen::findPtxas(llvm::StringRef ptxasOption,
                                     llvm::StringRef cudaPath) {
  if (!ptxasOption.empty())
    return ptxasOption.str();
  llvm::SmallVector<llvm::StringRef> dirs;
  std::string fromEnv;
  if (std::optional<std::string> cuda = llvm::sys::Process::GetEnv("CUDA_HOME"))
    fromEnv = *cuda + "/bin";
  if (!fromEnv.empty())
    dirs.push_back(fromEnv);
  std::string toolkitBin = (cudaPath + "/bin").str();
  dirs.push_back(toolkitBin);
  if (auto p = llvm::sys::findProgramByName("ptxas", dirs))
    return *p;
  if (auto q = llvm::sys::findProgramByName("ptxas"))
    return *q;
  return "";
}
