//===- RegionKey.cpp - timing-cache keys of kernel functions --------------===//
#include "codegen/Tactics/TacticVariants.h"

#include "codegen/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/AsmState.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

using namespace mlir;

bool kiln::codegen::hasTensorCoreAnchor(func::FuncOp func) {
  return func
      .walk([](Operation *op) {
        return isTensorCoreAnchor(op) ? WalkResult::interrupt()
                                      : WalkResult::advance();
      })
      .wasInterrupted();
}

std::string kiln::codegen::regionKey(func::FuncOp func, ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  StringAttr name = func.getSymNameAttr();
  func.setSymName("kernel");
  {
    // Aliases (#map, ...) are numbered within the kernels' module, whatever
    // else the IR around it holds.
    AsmState state(module);
    func->print(os, state);
    func.walk([&](memref::GetGlobalOp get) {
      if (auto global =
              module.lookupSymbol<memref::GlobalOp>(get.getNameAttr()))
        global->print(os, state);
    });
  }
  func.setSymNameAttr(name);
  return llvm::utohexstr(llvm::xxh3_64bits(text), /*LowerCase=*/true,
                         /*Width=*/16);
}
