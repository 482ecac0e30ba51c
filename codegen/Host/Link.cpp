//===- Link.cpp - the host object file as a shared object (ld.lld) --------===//
//
// kiln-host-link: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "codegen/Targets/Targets.h"
#include "dialects/Plan/IR/PlanDialect.h"
#include "mlir/IR/Builders.h"
#include "llvm/Support/Program.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_HOSTLINKPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;
namespace planir = kiln::planir;

namespace {

struct HostLinkPass : kiln::codegen::impl::HostLinkPassBase<HostLinkPass> {
  KILN_PASS_STATISTICS_HostLinkPass void runOnOperation() override {
    ModuleOp module = getOperation();
    auto object = module->getAttrOfType<StringAttr>(planir::kObjectFileAttr);
    if (!object) {
      module.emitError("expected an object file to link (module attribute ")
          << planir::kObjectFileAttr << ", see kiln-host-emit-object)";
      return signalPassFailure();
    }
    auto lld = llvm::sys::findProgramByName("ld.lld");
    if (!lld)
      lld = llvm::sys::findProgramByName("ld.lld", {"/usr/lib/llvm-22/bin"});
    if (!lld) {
      module.emitError("cannot find ld.lld to link host kernels: install "
                       "lld (Debian package lld)");
      return signalPassFailure();
    }
    std::vector<char> so;
    ArrayRef<char> bytes(object.getValue().data(), object.getValue().size());
    if (failed(kiln::codegen::runToolOnFile(
            *lld, "ld.lld", bytes, "kernels.o", "kernels.so",
            [](SmallVectorImpl<StringRef> &args) {
              args.append({"-shared", "--hash-style=gnu", "-z", "noexecstack"});
            },
            so, module.getLoc())))
      return signalPassFailure();
    module->removeAttr(planir::kObjectFileAttr);
    module->setAttr(
        planir::kSharedObjectAttr,
        StringAttr::get(&getContext(), StringRef(so.data(), so.size())));
    numBytes += so.size();
  }
};

} // namespace
