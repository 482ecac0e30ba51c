//===- HostCodegen.cpp - kernel functions to a host ELF shared object -----===//
//
// Tensor kernels → linalg → loops → LLVM dialect (bare-pointer memrefs) →
// ABI wrappers → LLVM IR → O3 → object for a portable CPU → ld.lld -shared.
//
//===----------------------------------------------------------------------===//
#include "CompilerInternal.h"

#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"


using namespace mlir;
using namespace kiln;
using namespace kiln::compiler;

void kiln::compiler::addPipeline(OpPassManager &pm, StringRef pipeline) {
  if (failed(parsePassPipeline(pipeline, pm, llvm::errs())))
    llvm::report_fatal_error("kiln: malformed built-in pass pipeline");
}

void kiln::compiler::buildGraphToLinalgPipeline(OpPassManager &pm) {
  addPipeline(pm, "kiln-convert-graph-to-linalg,"
                  "func.func(kiln-linalg-generalize-contractions)");
}

void kiln::compiler::buildFuseAndBufferizePipeline(OpPassManager &pm) {
  addPipeline(pm, "linalg-fuse-elementwise-ops,"
                  "canonicalize,cse,"
                  "one-shot-bufferize{bufferize-function-boundaries "
                  "function-boundary-type-conversion=identity-layout-map},"
                  "canonicalize");
}

void kiln::compiler::buildHostBufferizePipeline(OpPassManager &pm) {
  buildGraphToLinalgPipeline(pm);
  buildFuseAndBufferizePipeline(pm);
}

void kiln::compiler::buildHostToLLVMPipeline(OpPassManager &pm) {
  addPipeline(pm, "convert-linalg-to-loops,convert-scf-to-cf,"
                  "expand-strided-metadata,lower-affine,"
                  // x86 has no bf16 arithmetic and LLVM would call libgcc's
                  // __truncsfbf2, which plans cannot rely on: compute bf16
                  // (and f16 math functions) in f32, round with integer ops.
                  "math-extend-to-supported-types{target-type=f32},"
                  "arith-emulate-unsupported-floats{source-types=bf16 target-type=f32},"
                  "arith-expand{include-bf16=1},"
                  "finalize-memref-to-llvm,convert-math-to-funcs,"
                  "convert-math-to-llvm,convert-math-to-libm,"
                  "convert-arith-to-llvm,convert-index-to-llvm,"
                  "convert-cf-to-llvm,"
                  "convert-func-to-llvm{use-bare-ptr-memref-call-conv=1},"
                  "convert-ub-to-llvm,reconcile-unrealized-casts");
}

void kiln::compiler::lowerMemrefCopies(ModuleOp module) {
  SmallVector<memref::CopyOp> copies;
  module.walk([&](memref::CopyOp op) { copies.push_back(op); });
  for (memref::CopyOp op : copies) {
    OpBuilder b(op);
    linalg::CopyOp::create(b, op.getLoc(), op.getSource(), op.getTarget());
    op.erase();
  }
}

/// `kiln_NAME(ptr buffers, ptr dims)`: loads one pointer per argument of
/// NAME (bare-pointer memrefs) and calls it; NAME becomes internal.
static LogicalResult addAbiWrapper(ModuleOp module, StringRef name) {
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
  auto type = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(ctx),
                                          {ptr, ptr});
  auto wrapper =
      LLVM::LLVMFuncOp::create(b, loc, ("kiln_" + name).str(), type);
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

static LogicalResult optimizeAndEmitObject(llvm::Module &m,
                                           const CompileOptions &options,
                                           SmallVectorImpl<char> &object,
                                           Location loc) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getProcessTriple());
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return emitError(loc, "no LLVM target for ") << triple.str() << ": " << error;
  std::string cpu = options.hostCpu;
  if (cpu.empty())
    cpu = triple.getArch() == llvm::Triple::x86_64 ? "x86-64-v2" : "generic";
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
    return emitError(loc, "LLVM cannot emit an object file for ") << triple.str();
  codegen.run(m);
  return success();
}

LogicalResult kiln::compiler::runToolOnFile(
    StringRef program, StringRef what, ArrayRef<char> input, StringRef inName,
    StringRef outName, function_ref<void(SmallVectorImpl<StringRef> &)> flags,
    std::vector<char> &output, Location loc) {
  SmallString<128> dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory("kiln-tool", dir))
    return emitError(loc, "cannot create a temporary directory: ") << ec.message();
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

/// Links `object` into a shared object with ld.lld.
static LogicalResult linkSharedObject(ArrayRef<char> object,
                                      std::vector<char> &so, Location loc) {
  auto lld = llvm::sys::findProgramByName("ld.lld");
  if (!lld)
    lld = llvm::sys::findProgramByName("ld.lld", {"/usr/lib/llvm-22/bin"});
  if (!lld)
    return emitError(loc, "cannot find ld.lld to link host kernels: install "
                          "lld (Debian package lld)");
  return runToolOnFile(
      *lld, "ld.lld", object, "kernels.o", "kernels.so",
      [](SmallVectorImpl<StringRef> &args) {
        args.append({"-shared", "--hash-style=gnu", "-z", "noexecstack"});
      },
      so, loc);
}

/// A kernel that returns one buffer twice (its results were CSE'd, as the
/// empty pieces of a split) returns a copy for each repeat: MLIR 22's
/// promoteBufferResultsToOutParams crashes when hoisting an allocation that
/// is returned more than once.
static void copyRepeatedResults(ModuleOp kernels) {
  kernels.walk([](func::ReturnOp ret) {
    llvm::SmallPtrSet<Value, 4> seen;
    for (OpOperand &operand : ret->getOpOperands()) {
      Value v = operand.get();
      auto type = dyn_cast<MemRefType>(v.getType());
      if (seen.insert(v).second || !type || !type.hasStaticShape() ||
          !type.getLayout().isIdentity())
        continue;
      OpBuilder b(ret);
      Value copy = memref::AllocOp::create(b, ret.getLoc(), type);
      memref::CopyOp::create(b, ret.getLoc(), v, copy);
      operand.set(copy);
    }
  });
}

/// A kernel result that is a reshaped view of a fresh buffer reaches its
/// out-param through a memref.copy (promoteBufferResultsToOutParams hoists
/// only buffers returned as they are); the buffer becomes the inverse view
/// of the out-param instead, so that its writers write the result in place
/// and the copy (a launch on the GPU) disappears.
static void forwardViewCopies(ModuleOp kernels) {
  SmallVector<memref::CopyOp> copies;
  kernels.walk([&](memref::CopyOp copy) { copies.push_back(copy); });
  for (memref::CopyOp copy : copies) {
    auto target = dyn_cast<BlockArgument>(copy.getTarget());
    auto targetType = cast<MemRefType>(copy.getTarget().getType());
    if (!target || !target.hasOneUse() || !targetType.getLayout().isIdentity())
      continue;
    // The views from the copied value back to the buffer, outermost first.
    SmallVector<Operation *> views;
    Value v = copy.getSource();
    while (Operation *def = v.getDefiningOp()) {
      if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(def))
        break;
      views.push_back(def);
      v = def->getOperand(0);
    }
    auto alloc = v.getDefiningOp<memref::AllocOp>();
    if (views.empty() || !alloc || alloc->getBlock() != copy->getBlock() ||
        !alloc.getType().getLayout().isIdentity() ||
        !alloc.getType().hasStaticShape())
      continue;
    if (llvm::any_of(views, [](Operation *view) {
          auto t = cast<MemRefType>(view->getOperand(0).getType());
          return !t.getLayout().isIdentity() || !t.hasStaticShape();
        }))
      continue;
    // Undo the views on the out-param, outermost first, right after the
    // buffer's allocation.
    OpBuilder b(alloc);
    b.setInsertionPointAfter(alloc);
    Value inverse = copy.getTarget();
    for (Operation *view : views) {
      auto srcType = cast<MemRefType>(view->getOperand(0).getType());
      if (auto collapse = dyn_cast<memref::CollapseShapeOp>(view))
        inverse = memref::ExpandShapeOp::create(
            b, view->getLoc(), srcType.getShape(), inverse,
            collapse.getReassociationIndices());
      else
        inverse = memref::CollapseShapeOp::create(
            b, view->getLoc(), inverse,
            cast<memref::ExpandShapeOp>(view).getReassociationIndices());
    }
    alloc.getResult().replaceAllUsesWith(inverse);
    alloc.erase();
    copy.erase();
  }
}

/// The types the views of `v` get when `v` becomes `type` (a strided
/// slice of a bigger buffer), by view op; false where one cannot follow
/// (a view other than subview/collapse/expand, or dims that no longer
/// collapse).
static bool retypedViews(Value v, MemRefType type,
                         llvm::DenseMap<Operation *, MemRefType> &types) {
  for (Operation *user : v.getUsers()) {
    MemRefType next;
    if (auto sub = dyn_cast<memref::SubViewOp>(user)) {
      next = memref::SubViewOp::inferRankReducedResultType(
          sub.getType().getShape(), type, sub.getMixedOffsets(),
          sub.getMixedSizes(), sub.getMixedStrides());
    } else if (auto collapse = dyn_cast<memref::CollapseShapeOp>(user)) {
      if (!memref::CollapseShapeOp::isGuaranteedCollapsible(
              type, collapse.getReassociationIndices()))
        return false;
      next = memref::CollapseShapeOp::computeCollapsedType(
          type, collapse.getReassociationIndices());
    } else if (auto expand = dyn_cast<memref::ExpandShapeOp>(user)) {
      FailureOr<MemRefType> t = memref::ExpandShapeOp::computeExpandedType(
          type, expand.getType().getShape(),
          expand.getReassociationIndices());
      if (failed(t))
        return false;
      next = *t;
    } else if (isa<ViewLikeOpInterface>(user) || isa<func::ReturnOp>(user)) {
      return false;
    } else {
      continue; // reads or writes the buffer: any layout
    }
    types[user] = next;
    if (!retypedViews(user->getResult(0), next, types))
      return false;
  }
  return true;
}

/// Kernel results that the compiler places in a slice of another buffer
/// (`kiln.into_slices`: an elided concat's inputs, see Compiler.cpp): the
/// out-param becomes that whole buffer and the kernel writes the result
/// through a subview of it at the slice's offsets. Where a view of the
/// result cannot become strided, the kernel computes it into a buffer of
/// its own and copies that into the slice at the end.
static LogicalResult redirectSliceResults(ModuleOp /*kernels*/,
                                          const llvm::DenseMap<Operation *, unsigned> &argsBefore) {
  for (auto [op, numArgs] : argsBefore) {
    auto func = cast<func::FuncOp>(op);
    auto slices = func->getAttrOfType<ArrayAttr>(kIntoSlicesAttr);
    if (!slices)
      continue;
    for (Attribute a : slices) {
      auto slice = cast<DictionaryAttr>(a);
      int64_t result = slice.getAs<IntegerAttr>("result").getInt();
      ArrayRef<int64_t> shape = slice.getAs<DenseI64ArrayAttr>("shape").asArrayRef();
      ArrayRef<int64_t> offsets =
          slice.getAs<DenseI64ArrayAttr>("offsets").asArrayRef();
      unsigned index = numArgs + unsigned(result);
      if (index >= func.getNumArguments())
        return func.emitOpError("has no out-param for result ") << result;
      BlockArgument arg = func.getArgument(index);
      auto sliceType = cast<MemRefType>(arg.getType());
      if (!sliceType.hasStaticShape() || !sliceType.getLayout().isIdentity() ||
          sliceType.getRank() != int64_t(shape.size()))
        return func.emitOpError("cannot place result ")
               << result << " of type " << sliceType << " in a slice";
      auto fullType = MemRefType::get(shape, sliceType.getElementType());
      SmallVector<int64_t> ones(shape.size(), 1);
      auto viewType = memref::SubViewOp::inferResultType(
          fullType, offsets, sliceType.getShape(), ones);
      llvm::DenseMap<Operation *, MemRefType> types;
      bool inPlace = retypedViews(arg, cast<MemRefType>(viewType), types);
      OpBuilder b(func.getBody());
      b.setInsertionPointToStart(&func.getBody().front());
      Location loc = func.getLoc();
      Value own;
      if (!inPlace) {
        own = memref::AllocOp::create(b, loc, sliceType);
        arg.replaceAllUsesWith(own);
      }
      arg.setType(fullType);
      SmallVector<Type> inputs(func.getBody().front().getArgumentTypes());
      func.setType(FunctionType::get(func.getContext(), inputs,
                                     func.getResultTypes()));
      Value view = memref::SubViewOp::create(b, loc, arg, offsets,
                                             sliceType.getShape(), ones);
      if (inPlace) {
        arg.replaceAllUsesExcept(view, view.getDefiningOp());
        for (auto [user, type] : types)
          user->getResult(0).setType(type);
      } else {
        func.walk([&](func::ReturnOp ret) {
          OpBuilder rb(ret);
          memref::CopyOp::create(rb, ret.getLoc(), own, view);
        });
      }
    }
  }
  return success();
}

LogicalResult kiln::compiler::promoteResultsToOutParams(ModuleOp kernels) {
  copyRepeatedResults(kernels);
  // Where each kernel's out-params will start.
  llvm::DenseMap<Operation *, unsigned> argsBefore;
  kernels.walk([&](func::FuncOp func) {
    if (func->hasAttr(kIntoSlicesAttr))
      argsBefore[func] = func.getNumArguments();
  });
  bufferization::BufferResultsToOutParamsOpts outParams;
  outParams.hoistStaticAllocs = true;
  if (failed(bufferization::promoteBufferResultsToOutParams(kernels, outParams)))
    return failure();
  forwardViewCopies(kernels);
  return redirectSliceResults(kernels, argsBefore);
}

LogicalResult kiln::compiler::buildHostModule(ModuleOp kernels,
                                              ArrayRef<std::string> kernelNames,
                                              const CompileOptions &options,
                                              std::vector<char> &so,
                                              std::vector<StageTime> &stages) {
  MLIRContext *ctx = kernels.getContext();
  Stopwatch watch;
  // kiln.* argument marks are for the GPU tactics (kiln.tf32_rounded); LLVM
  // IR translation would warn about each.
  kernels.walk([](func::FuncOp f) {
    for (unsigned i = 0; i < f.getNumArguments(); ++i)
      for (NamedAttribute a : llvm::to_vector(f.getArgAttrDict(i)
                                                  ? f.getArgAttrDict(i).getValue()
                                                  : ArrayRef<NamedAttribute>()))
        if (a.getName().strref().starts_with("kiln."))
          f.removeArgAttr(i, a.getName());
  });
  {
    PassManager pm(ctx);
    buildHostBufferizePipeline(pm);
    if (failed(pm.run(kernels)))
      return failure();
  }
  if (failed(promoteResultsToOutParams(kernels)))
    return failure();
  {
    PassManager pm(ctx);
    addPipeline(pm, "buffer-deallocation-pipeline,"
                    "convert-bufferization-to-memref,canonicalize");
    if (failed(pm.run(kernels)))
      return failure();
  }
  lowerMemrefCopies(kernels);
  watch.lap(stages, "bufferize");
  {
    PassManager pm(ctx);
    buildHostToLLVMPipeline(pm);
    if (failed(pm.run(kernels)))
      return failure();
  }
  for (const std::string &name : kernelNames)
    if (failed(addAbiWrapper(kernels, name)))
      return failure();
  watch.lap(stages, "lower to LLVM dialect");

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> m = translateModuleToLLVMIR(kernels, llvmContext, "kiln_host");
  if (!m)
    return kernels.emitError("cannot translate host kernels to LLVM IR");
  SmallVector<char> object;
  if (failed(optimizeAndEmitObject(*m, options, object, kernels.getLoc())))
    return failure();
  watch.lap(stages, "LLVM O3 + codegen");
  if (failed(linkSharedObject(object, so, kernels.getLoc())))
    return failure();
  watch.lap(stages, "link");
  return success();
}
