//===- DropArgMarks.cpp - no GPU argument marks in host code --------------===//
//
// kiln-host-drop-arg-marks: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_HOSTDROPARGMARKSPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;

namespace {

struct HostDropArgMarksPass
    : kiln::codegen::impl::HostDropArgMarksPassBase<HostDropArgMarksPass> {
  void runOnOperation() override {
    getOperation().walk([](func::FuncOp f) {
      for (unsigned i = 0; i < f.getNumArguments(); ++i) {
        DictionaryAttr attrs = f.getArgAttrDict(i);
        if (!attrs)
          continue;
        for (NamedAttribute a : llvm::to_vector(attrs.getValue()))
          if (a.getName().strref().starts_with("kiln.") ||
              a.getName().strref().starts_with("kiln_plan."))
            f.removeArgAttr(i, a.getName());
      }
    });
  }
};

} // namespace
