//===- EmitObject.cpp - host kernels: LLVM IR, O3, an object file ---------===//
//
// kiln-host-emit-object: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "dialects/Plan/IR/PlanDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_HOSTEMITOBJECTPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;

namespace {

LogicalResult optimizeAndEmitObject(llvm::Module &m, StringRef cpuOption,
                                    SmallVectorImpl<char> &object,
                                    Location loc) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitError(loc, "no LLVM target for ")
           << triple.str() << ": " << error;
  std::string cpu = cpuOption.str();
  if (cpu.empty())
    cpu = triple.getArch() == llvm::Triple::x86_64 ? "x86-64-v2" : "generic";
  // LLVM only warns about a CPU it does not know, then fails hard.
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(triple, cpu, ""));
  if (!subtarget || !subtarget->isCPUStringValid(cpu))
    return emitError(loc, "unknown host CPU '")
           << cpu << "' for " << triple.str()
           << ": pass an LLVM CPU name (llc -mcpu=help lists them) or none "
              "for a portable baseline";
  llvm::TargetOptions targetOptions;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, cpu, "", targetOptions, llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (!tm)
    return emitError(loc, "cannot create an LLVM target machine for ")
           << triple.str() << " cpu " << cpu;
  m.setTargetTriple(triple);
  m.setDataLayout(tm->createDataLayout());

  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(tm.get());
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm =
      pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  mpm.run(m, mam);

  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager codegen;
  if (tm->addPassesToEmitFile(codegen, os, nullptr,
                              llvm::CodeGenFileType::ObjectFile))
    return emitError(loc, "LLVM cannot emit an object file for ")
           << triple.str();
  codegen.run(m);
  return success();
}

struct HostEmitObjectPass
    : kiln::codegen::impl::HostEmitObjectPassBase<HostEmitObjectPass> {
  KILN_PASS_STATISTICS_HostEmitObjectPass using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::LLVMContext llvmContext;
    std::unique_ptr<llvm::Module> m =
        translateModuleToLLVMIR(module, llvmContext, "kiln_host");
    if (!m) {
      module.emitError("cannot translate host kernels to LLVM IR");
      return signalPassFailure();
    }
    SmallVector<char> object;
    if (failed(optimizeAndEmitObject(*m, cpu, object, module.getLoc())))
      return signalPassFailure();
    // The object replaces the LLVM dialect it was made from.
    module.getBody()->clear();
    module->setAttr(kiln::planir::kObjectFileAttr,
                    StringAttr::get(&getContext(),
                                    StringRef(object.data(), object.size())));
    numObjectBytes += object.size();
  }
};

} // namespace
