//===- AbiWrappers.cpp - kiln_NAME(void **buffers, const int64_t *dims) ---===//
//
// kiln-host-abi-wrappers: see codegen/Passes.td. The host runtime
// (runtime/host/HostModule.cpp) calls the wrappers through dlsym.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "dialects/Plan/IR/PlanDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_HOSTABIWRAPPERSPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;

namespace {

/// `kiln_NAME(ptr buffers, ptr dims)`: loads one pointer per argument of
/// NAME (bare-pointer memrefs) and calls it; NAME becomes internal.
LogicalResult addAbiWrapper(ModuleOp module, StringRef name) {
  MLIRContext *ctx = module.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx);
  auto kernel = module.lookupSymbol<LLVM::LLVMFuncOp>(name);
  if (!kernel) {
    // The bare-pointer convention refuses memrefs without elements, so a
    // kernel over empty tensors keeps its func.func signature. When its body
    // is only the return (it reads and writes nothing), an llvm.func of
    // pointers that returns is the same kernel.
    auto unlowered = module.lookupSymbol<func::FuncOp>(name);
    if (!unlowered || unlowered.isExternal() ||
        !llvm::hasSingleElement(unlowered.getBody().front()) ||
        !isa<LLVM::ReturnOp>(unlowered.getBody().front().front()))
      return module.emitError("lowered kernel @") << name << " is missing";
    OpBuilder b(unlowered);
    SmallVector<Type> params(unlowered.getNumArguments(), ptr);
    kernel = LLVM::LLVMFuncOp::create(
        b, unlowered.getLoc(), name,
        LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), params));
    Block *entry = kernel.addEntryBlock(b);
    b.setInsertionPointToStart(entry);
    LLVM::ReturnOp::create(b, unlowered.getLoc(), ValueRange{});
    unlowered.erase();
  }
  for (Type t : kernel.getFunctionType().getParams())
    if (t != ptr)
      return kernel.emitOpError("expected only pointer arguments after "
                                "bare-pointer lowering, got ")
             << t;
  kernel.setLinkage(LLVM::Linkage::Internal);
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  Location loc = kernel.getLoc();
  auto type =
      LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx), {ptr, ptr});
  auto wrapper = LLVM::LLVMFuncOp::create(b, loc, ("kiln_" + name).str(), type);
  Block *entry = wrapper.addEntryBlock(b);
  b.setInsertionPointToStart(entry);
  SmallVector<Value> args;
  for (unsigned i = 0, e = kernel.getNumArguments(); i < e; ++i) {
    Value slot = LLVM::GEPOp::create(b, loc, ptr, ptr, entry->getArgument(0),
                                     ArrayRef<LLVM::GEPArg>{(int32_t)i});
    args.push_back(LLVM::LoadOp::create(b, loc, ptr, slot));
  }
  LLVM::CallOp::create(b, loc, kernel, args);
  LLVM::ReturnOp::create(b, loc, ValueRange{});
  return success();
}

struct HostAbiWrappersPass
    : kiln::codegen::impl::HostAbiWrappersPassBase<HostAbiWrappersPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto kernels = module->getAttrOfType<ArrayAttr>(kiln::planir::kKernelsAttr);
    if (!kernels) {
      module.emitError("expected the kernel functions in call order "
                       "(module attribute ")
          << kiln::planir::kKernelsAttr << ", see kiln-outline-target-kernels)";
      return signalPassFailure();
    }
    for (Attribute a : kernels)
      if (failed(addAbiWrapper(module, cast<FlatSymbolRefAttr>(a).getValue())))
        return signalPassFailure();
    // LLVM IR translation has no use for it.
    module->removeAttr(kiln::planir::kKernelsAttr);
  }
};

} // namespace
