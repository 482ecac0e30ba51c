//===- GpuCodegen.cpp - kernel functions to PTX and cubins ----------------===//
//
// Tensor kernels → linalg → one-shot bufferization → scratch memory for
// intermediate buffers → parallel loops mapped to blocks/threads → gpu.launch
// → outlined gpu.funcs in one gpu.module → NVVM → PTX per target
// (gpu-module-to-binary, format=isa) → cubin per target (ptxas). The host
// side of each kernel function is read back as a list of launches (kernel,
// grid, block, arguments) for the plan; it is not compiled.
//
//===----------------------------------------------------------------------===//
#include "CompilerInternal.h"

#include "codegen/GPU/TensorCoreGemm.h"
#include "codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/RegionUtils.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"


using namespace mlir;
using namespace kiln;
using namespace kiln::compiler;

namespace {
/// GPU targets kiln compiles for, with the PTX ISA they are generated with
/// and the CUDA driver that ISA needs (cuDriverGetVersion encoding).
/// `sms`: multiprocessors of the architecture's usual data-center part, the
/// tensor-core cost model's guess (A100's 108 where none is assumed).
struct GpuTargetInfo {
  const char *name;
  const char *ptxFeature;
  uint32_t minDriver;
  int64_t sms;
};
constexpr GpuTargetInfo kGpuTargets[] = {
    {"sm_70", "+ptx80", 12000, 108},  {"sm_75", "+ptx80", 12000, 108},
    {"sm_80", "+ptx80", 12000, 108},  // A100
    {"sm_86", "+ptx80", 12000, 84},   // A40
    {"sm_87", "+ptx80", 12000, 108},
    {"sm_89", "+ptx80", 12000, 128},  // L40S
    {"sm_90", "+ptx80", 12000, 132},  {"sm_90a", "+ptx80", 12000, 132}, // H100/H200
    {"sm_100", "+ptx86", 12080, 148}, {"sm_100a", "+ptx86", 12080, 148}, // B200
    {"sm_120", "+ptx87", 12080, 108}, {"sm_120a", "+ptx87", 12080, 108},
};

/// 80 for "sm_80", 90 for "sm_90a".
int64_t smVersion(StringRef target) {
  int64_t v = 0;
  target.drop_front(3).take_while(llvm::isDigit).getAsInteger(10, v);
  return v;
}

const GpuTargetInfo *findGpuTarget(StringRef name) {
  for (const GpuTargetInfo &t : kGpuTargets)
    if (name == t.name)
      return &t;
  return nullptr;
}
} // namespace

bool kiln::compiler::isGpuTarget(StringRef target) {
  return findGpuTarget(target) != nullptr;
}

std::string kiln::compiler::knownGpuTargets() {
  std::string s;
  for (const GpuTargetInfo &t : kGpuTargets)
    s += (s.empty() ? "" : ", ") + std::string(t.name);
  return s;
}

uint32_t kiln::compiler::gpuMinDriverVersion(ArrayRef<std::string> targets) {
  uint32_t v = 0;
  for (const std::string &t : targets)
    if (const GpuTargetInfo *info = findGpuTarget(t))
      v = std::max(v, info->minDriver);
  return v;
}

/// Replaces every memref.alloc of `func` with a view into one new trailing
/// argument `memref<Nxi8>` (the kernel's scratch memory, an arena slice in
/// the plan), `kiln.scratch`. Returns the scratch size (0: no argument
/// added).
static FailureOr<uint64_t> assignScratch(func::FuncOp func) {
  SmallVector<memref::AllocOp> allocs;
  bool bad = false;
  func.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
      allocs.push_back(alloc);
    } else if (isa<memref::DeallocOp>(op)) {
      op->erase();
    } else if (isa<memref::AllocaOp>(op)) {
      op->emitOpError("stack allocations are not supported in GPU kernels");
      bad = true;
    }
    return WalkResult::advance();
  });
  if (bad)
    return failure();
  if (allocs.empty())
    return uint64_t(0);
  constexpr uint64_t kAlign = 256;
  uint64_t size = 0;
  SmallVector<uint64_t> offsets;
  for (memref::AllocOp alloc : allocs) {
    MemRefType t = alloc.getType();
    if (!t.hasStaticShape() || !t.getLayout().isIdentity() ||
        !t.getElementType().isIntOrFloat())
      return alloc.emitOpError("needs a statically shaped, identity-layout "
                               "buffer of scalars to become GPU scratch "
                               "memory, got ")
             << t;
    uint64_t bytes = t.getNumElements() *
                     ((t.getElementTypeBitWidth() + 7) / 8);
    size = (size + kAlign - 1) / kAlign * kAlign;
    offsets.push_back(size);
    size += std::max<uint64_t>(bytes, 1);
  }
  MLIRContext *ctx = func.getContext();
  auto scratchType = MemRefType::get({(int64_t)size}, IntegerType::get(ctx, 8));
  unsigned index = func.getNumArguments();
  if (failed(func.insertArgument(
          index, scratchType,
          DictionaryAttr::get(ctx, {NamedAttribute(
                                       StringAttr::get(ctx, "kiln.scratch"),
                                       UnitAttr::get(ctx))}),
          func.getLoc())))
    return failure();
  Value scratch = func.getArgument(index);
  for (auto [alloc, offset] : llvm::zip(allocs, offsets)) {
    OpBuilder b(alloc);
    Value off = arith::ConstantIndexOp::create(b, alloc.getLoc(), offset);
    Value view = memref::ViewOp::create(b, alloc.getLoc(), alloc.getType(),
                                        scratch, off, ValueRange{});
    alloc.replaceAllUsesWith(view);
    alloc.erase();
  }
  return size;
}

/// Results of kernel functions marked kRoundTf32ResultsAttr go through an
/// elementwise rounding to tf32 (codegen::roundToTf32) before they are
/// returned; elementwise fusion then merges it into the kernel's epilogue.
static void roundResultsToTf32(ModuleOp kernels) {
  kernels.walk([](func::FuncOp func) {
    auto results =
        func->getAttrOfType<DenseI64ArrayAttr>(kRoundTf32ResultsAttr);
    if (!results)
      return;
    func.walk([&](func::ReturnOp ret) {
      OpBuilder b(ret);
      Location loc = ret.getLoc();
      for (int64_t i : results.asArrayRef()) {
        Value v = ret.getOperand(i);
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (!type || !type.getElementType().isF32() || !type.hasStaticShape())
          continue;
        Value init = tensor::EmptyOp::create(b, loc, type.getShape(),
                                             type.getElementType());
        AffineMap id = b.getMultiDimIdentityMap(type.getRank());
        SmallVector<utils::IteratorType> iterators(
            type.getRank(), utils::IteratorType::parallel);
        auto round = linalg::GenericOp::create(
            b, loc, type, ValueRange{v}, ValueRange{init},
            ArrayRef<AffineMap>{id, id}, iterators,
            [](OpBuilder &nb, Location nl, ValueRange args) {
              linalg::YieldOp::create(nb, nl,
                                      codegen::roundToTf32(nb, nl, args[0]));
            });
        ret.setOperand(i, round.getResult(0));
      }
    });
  });
}

static bool isSinkable(Operation *op) {
  return op->getNumRegions() == 0 &&
         (isMemoryEffectFree(op) || isa<ViewLikeOpInterface>(op) ||
          codegen::isReadOnlyArgumentLoad(op));
}

/// Views, constants and index arithmetic used by a launch are recomputed
/// inside it (with everything they depend on, down to the function's
/// arguments), so that kernels take only the function's buffers.
/// (Upstream's sinkOperationsIntoLaunchOp stops at values the launch does
/// not already use, such as the arguments a view is taken of.)
static void sinkIntoLaunches(ModuleOp module) {
  SmallVector<gpu::LaunchOp> launches;
  module.walk([&](gpu::LaunchOp op) { launches.push_back(op); });
  for (gpu::LaunchOp launch : launches) {
    Region &body = launch.getBody();
    OpBuilder b(launch.getContext());
    b.setInsertionPointToStart(&body.front());
    IRMapping map;
    std::function<void(Value)> materialize = [&](Value v) {
      Operation *def = v.getDefiningOp();
      if (!def || map.contains(v) || !isSinkable(def))
        return;
      for (Value operand : def->getOperands())
        materialize(operand);
      b.clone(*def, map);
    };
    SetVector<Value> used;
    getUsedValuesDefinedAbove(body, used);
    for (Value v : used)
      materialize(v);
    for (Value v : used)
      if (Value inside = map.lookupOrNull(v))
        replaceAllUsesInRegionWith(v, inside, body);
  }
}

/// Moves every outlined gpu.func into one gpu.module named `kiln_kernels`,
/// renamed `<kernel function>_<k>` in launch order, and points the launches
/// at them.
static FailureOr<gpu::GPUModuleOp>
mergeGpuModules(ModuleOp module, ArrayRef<std::string> kernelNames) {
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  auto merged = gpu::GPUModuleOp::create(b, module.getLoc(), "kiln_kernels");
  SymbolTable mergedTable(merged);
  SymbolTable top(module);
  for (const std::string &name : kernelNames) {
    auto func = top.lookup<func::FuncOp>(name);
    if (!func)
      return module.emitError("kernel function @") << name << " is missing";
    int k = 0;
    WalkResult r = func.walk([&](gpu::LaunchFuncOp launch) {
      auto old = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernelAttr());
      if (!old) {
        launch.emitOpError("refers to a kernel that does not exist");
        return WalkResult::interrupt();
      }
      std::string newName = (name + "_" + Twine(k++)).str();
      old->remove();
      old.setName(newName);
      mergedTable.insert(old);
      launch.setKernelAttr(SymbolRefAttr::get(
          merged.getNameAttr(), {FlatSymbolRefAttr::get(ctx, newName)}));
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      return failure();
  }
  // What else the kernels use (constants as memref.global): copies of the
  // same top-level symbol, so one of each name is kept.
  SmallVector<gpu::GPUModuleOp> rest;
  module.walk([&](gpu::GPUModuleOp m) {
    if (m != merged)
      rest.push_back(m);
  });
  for (gpu::GPUModuleOp m : rest) {
    for (Operation &op :
         llvm::make_early_inc_range(m.getBody()->without_terminator())) {
      auto sym = dyn_cast<SymbolOpInterface>(op);
      if (!sym || isa<gpu::GPUFuncOp>(op))
        return op.emitOpError("is left in an outlined GPU module");
      if (mergedTable.lookup(sym.getNameAttr()))
        continue;
      op.remove();
      mergedTable.insert(&op);
    }
    m.erase();
  }
  return merged;
}

static FailureOr<uint32_t> constantDim(Value v, gpu::LaunchFuncOp launch,
                                       const char *what) {
  std::optional<int64_t> c = getConstantIntValue(v);
  if (!c || *c <= 0 || *c > (int64_t(1) << 31) - 1)
    return launch.emitOpError("has a ")
           << what << " that is not a positive constant";
  return uint32_t(*c);
}

/// Per-kernel attributes the launches imply, after outlining:
///  - shared buffers (workgroup attributions) are 16-byte aligned, since the
///    kernels move 16 bytes at a time through them (LLVM would otherwise
///    align them to their element type only, and a dynamic shared buffer
///    placed next to them can shift them off 16 bytes);
///  - a launch in thread-block clusters (the cluster split-K GEMM) gets its
///    cluster shape compiled into its kernel (`nvvm.cluster_dim`, PTX
///    `.reqnctapercluster`), so that a plain cuLaunchKernel forms the
///    clusters and the plan needs no launch attribute.
static LogicalResult annotateKernels(ModuleOp module) {
  Builder b(module.getContext());
  module.walk([&](gpu::GPUFuncOp func) {
    for (unsigned i = 0; i < func.getNumWorkgroupAttributions(); ++i)
      if (!func.getWorkgroupAttributionAttr(i, "llvm.align"))
        func.setWorkgroupAttributionAttr(i, "llvm.align", b.getI64IntegerAttr(16));
  });
  WalkResult r = module.walk([&](gpu::LaunchFuncOp launch) {
    if (!launch.hasClusterSize())
      return WalkResult::advance();
    gpu::KernelDim3 cluster = launch.getClusterSizeOperandValues();
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    Value dims[3] = {cluster.x, cluster.y, cluster.z};
    Value grids[3] = {grid.x, grid.y, grid.z};
    SmallVector<int32_t> shape;
    for (int d = 0; d < 3; ++d) {
      std::optional<int64_t> c = getConstantIntValue(dims[d]);
      std::optional<int64_t> g = getConstantIntValue(grids[d]);
      if (!c || !g || *c <= 0 || *c > 16 || *g % *c != 0) {
        launch.emitOpError("has a cluster shape that is not a constant "
                           "divisor of its grid");
        return WalkResult::interrupt();
      }
      shape.push_back(int32_t(*c));
    }
    auto func = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
        launch, launch.getKernelAttr());
    if (!func) {
      launch.emitOpError("launches a kernel that is missing");
      return WalkResult::interrupt();
    }
    func->setAttr(NVVM::NVVMDialect::getClusterDimAttrName(),
                  DenseI32ArrayAttr::get(launch.getContext(), shape));
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

/// Reads each kernel function's launches back.
static LogicalResult recordLaunches(ModuleOp module,
                                    ArrayRef<std::string> kernelNames,
                                    GpuModuleResult &out) {
  SymbolTable top(module);
  for (const std::string &name : kernelNames) {
    auto func = top.lookup<func::FuncOp>(name);
    GpuKernelLaunches &kernel = out.kernels[name];
    // What was recomputed inside the launches is dead here now.
    Block &body = func.getBody().front();
    SmallVector<Operation *> ops;
    for (Operation &op : body.without_terminator())
      ops.push_back(&op);
    for (Operation *op : llvm::reverse(ops))
      if (op->use_empty() && (isSinkable(op) || isa<memref::LoadOp>(op)))
        op->erase();
    for (Operation &op : body.without_terminator()) {
      auto launch = dyn_cast<gpu::LaunchFuncOp>(op);
      if (!launch) {
        if (isSinkable(&op))
          continue; // still used by other host-side values only
        return op.emitOpError("was left outside every GPU kernel");
      }
      GpuLaunch l;
      l.symbol = launch.getKernelName().str();
      gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
      gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
      Value dims[6] = {grid.x, grid.y, grid.z, block.x, block.y, block.z};
      for (int d = 0; d < 6; ++d) {
        FailureOr<uint32_t> v =
            constantDim(dims[d], launch, d < 3 ? "grid size" : "block size");
        if (failed(v))
          return failure();
        (d < 3 ? l.grid[d] : l.block[d - 3]) = *v;
      }
      if (Value smem = launch.getDynamicSharedMemorySize()) {
        FailureOr<uint32_t> v = constantDim(smem, launch, "shared memory size");
        if (failed(v))
          return failure();
        l.sharedMemBytes = *v;
      }
      for (Value arg : launch.getKernelOperands()) {
        auto ba = dyn_cast<BlockArgument>(arg);
        if (!ba || ba.getOwner() != &func.getBody().front())
          return launch.emitOpError("passes a value that is not an argument "
                                    "of @")
                 << name << " to its kernel: " << arg;
        unsigned a = ba.getArgNumber();
        l.args.push_back(a);
        if (func.getArgAttr(a, "kiln.scratch"))
          kernel.scratchArg = a;
        auto map = func.getArgAttrOfType<DictionaryAttr>(
            a, codegen::kTensorMapAttr);
        if (!map || kernel.tensorMaps.count(a))
          continue;
        GpuTensorMapArg t;
        auto i64 = [&](StringRef field) {
          auto v = map.getAs<IntegerAttr>(field);
          return v ? v.getInt() : int64_t(-1);
        };
        auto array = [&](StringRef field) {
          auto v = map.getAs<DenseI64ArrayAttr>(field);
          return v ? std::vector<int64_t>(v.asArrayRef().begin(),
                                          v.asArrayRef().end())
                   : std::vector<int64_t>();
        };
        auto dtype = map.getAs<TypeAttr>("dtype");
        t.source = i64("source");
        t.offset = i64("offset");
        t.swizzle = i64("swizzle");
        t.dims = array("dims");
        t.strides = array("strides");
        t.box = array("box");
        if (!dtype || t.source < 0 || t.offset < 0 || t.swizzle < 0 ||
            t.dims.empty())
          return func.emitOpError("argument ")
                 << a << " has a malformed " << codegen::kTensorMapAttr << ": "
                 << map;
        t.elementType = dtype.getValue();
        kernel.tensorMaps[a] = std::move(t);
      }
      kernel.launches.push_back(std::move(l));
    }
  }
  return success();
}

/// Whether kiln-gpu-tensor-core has a conv or contraction to consider in
/// `func` (the kernel functions that get tactic variants).
static bool hasTensorCoreAnchor(func::FuncOp func) {
  return func
      .walk([](Operation *op) {
        return codegen::isTensorCoreAnchor(op) ? WalkResult::interrupt()
                                               : WalkResult::advance();
      })
      .wasInterrupted();
}

/// The timing-cache key of a kernel function: a hash of its IR before the
/// tactics (under a fixed name) and of the constants it reads, so the same
/// region gets the same key in any model and build.
static std::string regionKey(func::FuncOp func, ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  StringAttr name = func.getSymNameAttr();
  func.setSymName("kernel");
  func.print(os);
  func.setSymNameAttr(name);
  func.walk([&](memref::GetGlobalOp get) {
    if (auto global = module.lookupSymbol<memref::GlobalOp>(get.getNameAttr()))
      global.print(os);
  });
  return llvm::utohexstr(llvm::xxh3_64bits(text), /*LowerCase=*/true,
                         /*Width=*/16);
}

/// The best tactic of each region key that kiln-tune recorded for `target`
/// in the timing cache at `path` (format: tools/kiln-tune/TimingCache.h).
static LogicalResult readTimingCache(StringRef path, StringRef target,
                                     llvm::StringMap<std::string> &best,
                                     Location loc) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return emitError(loc, "cannot read timing cache '")
           << path << "': " << file.getError().message();
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*file)->getBuffer());
  if (!json)
    return emitError(loc, "timing cache '")
           << path << "' is not valid JSON: "
           << llvm::toString(json.takeError());
  const llvm::json::Object *root = json->getAsObject();
  std::optional<int64_t> version =
      root ? root->getInteger("kiln_timing_cache") : std::nullopt;
  const llvm::json::Array *entries = root ? root->getArray("entries") : nullptr;
  if (!version || *version != 1 || !entries)
    return emitError(loc, "'")
           << path << "' is not a kiln timing cache (version 1): write it "
                      "with kiln-tune --timing-cache";
  for (const llvm::json::Value &e : *entries) {
    const llvm::json::Object *entry = e.getAsObject();
    std::optional<StringRef> t = entry ? entry->getString("target") : std::nullopt;
    std::optional<StringRef> key = entry ? entry->getString("key") : std::nullopt;
    std::optional<StringRef> tactic =
        entry ? entry->getString("best") : std::nullopt;
    if (!t || !key || !tactic)
      return emitError(loc, "timing cache '")
             << path << "' has an entry without target, key or best";
    if (*t == target)
      best[*key] = tactic->str();
  }
  return success();
}

/// Runs ptxas on `ptx` for `arch`; the cubin goes to `cubin`.
static LogicalResult runPtxas(const std::string &ptx, StringRef arch,
                              const CompileOptions &options,
                              std::vector<char> &cubin, Location loc) {
  std::string ptxas = options.ptxasPath;
  if (ptxas.empty()) {
    SmallVector<StringRef> dirs;
    std::string fromEnv;
    if (std::optional<std::string> cuda = llvm::sys::Process::GetEnv("CUDA_HOME"))
      fromEnv = *cuda + "/bin";
    if (!fromEnv.empty())
      dirs.push_back(fromEnv);
    dirs.push_back(options.cudaToolkitPath + "/bin");
    if (auto p = llvm::sys::findProgramByName("ptxas", dirs))
      ptxas = *p;
    else if (auto q = llvm::sys::findProgramByName("ptxas"))
      ptxas = *q;
  }
  if (ptxas.empty() || !llvm::sys::fs::can_execute(ptxas))
    return emitError(loc, "cannot find ptxas (CUDA toolkit) to build cubins "
                          "for ")
           << arch << ": install the CUDA toolkit, set CUDA_HOME, or pass "
                      "--cuda-path";
  std::string archFlag = ("-arch=" + arch).str();
  return runToolOnFile(
      ptxas, ("ptxas for " + arch).str(), ArrayRef<char>(ptx.data(), ptx.size()),
      "kernels.ptx", "kernels.cubin",
      [&](SmallVectorImpl<StringRef> &args) { args.append({archFlag, "-O3"}); },
      cubin, loc);
}

LogicalResult kiln::compiler::buildGpuModule(ModuleOp kernels,
                                             ArrayRef<std::string> kernelNames,
                                             ArrayRef<std::string> targets,
                                             const CompileOptions &options,
                                             GpuModuleResult &out,
                                             std::vector<StageTime> &stages) {
  MLIRContext *ctx = kernels.getContext();
  ctx->loadDialect<gpu::GPUDialect, NVVM::NVVMDialect>();
  Stopwatch watch;
  {
    PassManager pm(ctx);
    buildGraphToLinalgPipeline(pm);
    if (failed(pm.run(kernels)))
      return failure();
  }
  roundResultsToTf32(kernels);
  {
    PassManager pm(ctx);
    buildFuseAndBufferizePipeline(pm);
    if (failed(pm.run(kernels)))
      return failure();
  }
  if (failed(promoteResultsToOutParams(kernels)))
    return failure();
  lowerMemrefCopies(kernels);
  if (options.gpuTactics != "auto" && options.gpuTactics != "all" &&
      options.gpuTactics != "generic")
    return kernels.emitError("unknown GPU tactics '")
           << options.gpuTactics << "': use auto, all or generic";
  if (options.gpuTactics == "all" &&
      (options.gpuTacticCandidates < 2 || options.gpuTacticCandidates > 8))
    return kernels.emitError("--tactic-candidates must be 2 to 8, got ")
           << options.gpuTacticCandidates;
  // Every kernel function, with the tactic variants added below.
  std::vector<std::string> functions(kernelNames.begin(), kernelNames.end());
  if (options.gpuTactics != "generic") {
    // Tensor-core kernels must run on every target of the plan: the oldest
    // one decides; the first one's multiprocessor count feeds the cost model.
    // Long row reductions get a warp each.
    // wgmma exists on sm_90a only: every target must be it.
    int64_t minSm = 1000;
    bool allHopper = true;
    for (const std::string &t : targets) {
      minSm = std::min<int64_t>(minSm, smVersion(t));
      allHopper &= t == "sm_90a";
    }
    const GpuTargetInfo *first = findGpuTarget(targets.front());
    if (!first)
      return kernels.emitError("unknown GPU target '")
             << targets.front() << "'";
    // Regions the timing cache has measured take its tactic; with --tactics
    // all, the others get a clone per further candidate.
    llvm::StringMap<std::string> cached;
    if (!options.timingCachePath.empty()) {
      if (failed(readTimingCache(options.timingCachePath, targets.front(),
                                 cached, kernels.getLoc())))
        return failure();
      out.timingCacheEntries = cached.size();
    }
    SymbolTable table(kernels);
    for (const std::string &name : kernelNames) {
      auto func = table.lookup<func::FuncOp>(name);
      if (!func || !hasTensorCoreAnchor(func))
        continue;
      std::string key = regionKey(func, kernels);
      if (auto it = cached.find(key); it != cached.end()) {
        func->setAttr(codegen::kTacticForceAttr,
                      StringAttr::get(ctx, it->second));
        ++out.timingCacheHits;
        continue;
      }
      if (options.gpuTactics != "all")
        continue;
      GpuModuleResult::Choice &choice = out.choices[name];
      choice.key = key;
      choice.variants.push_back({name, ""});
      OpBuilder b(func);
      b.setInsertionPointAfter(func);
      for (int64_t v = 1; v < options.gpuTacticCandidates; ++v) {
        auto clone = cast<func::FuncOp>(b.clone(*func));
        std::string cloneName = name + "__v" + std::to_string(v);
        clone.setSymName(cloneName);
        clone->setAttr(codegen::kTacticVariantAttr, b.getI64IntegerAttr(v));
        choice.variants.push_back({cloneName, ""});
      }
    }
    PassManager pm(ctx);
    addPipeline(pm, "func.func(kiln-gpu-tensor-core{min-sm=" +
                        std::to_string(minSm) + " num-sms=" +
                        std::to_string(first->sms) +
                        " latency-cycles=" +
                        std::to_string(options.gpuLatencyCycles) +
                        " wgmma=" + (allHopper ? options.gpuWgmma : "off") +
                        " tma=" + (options.gpuTma ? "1" : "0") +
                        " split-k=" + std::to_string(options.gpuSplitK) +
                        " mma-stages=" + std::to_string(options.gpuMmaStages) +
                        " tf32=" + (options.precision == "tf32" ? "1" : "0") +
                        " cluster-split-k=" +
                        (minSm >= 90 && options.gpuClusterSplitK ? "1" : "0") +
                        "},kiln-gpu-window-pool,kiln-gpu-row-fuse,"
                        "kiln-gpu-row-reduce)");
    if (failed(pm.run(kernels)))
      return failure();
    // The variants that exist and differ: the others are dropped.
    SymbolTable after(kernels);
    for (auto &[name, choice] : out.choices) {
      std::vector<GpuModuleResult::Variant> kept;
      llvm::StringSet<> seen;
      for (GpuModuleResult::Variant &v : choice.variants) {
        auto func = after.lookup<func::FuncOp>(v.function);
        auto tactics = func->getAttrOfType<StringAttr>(codegen::kTacticsAttr);
        if (!func->hasAttr(codegen::kTacticVoidAttr) && tactics &&
            seen.insert(tactics.getValue()).second) {
          v.tactics = tactics.getValue().str();
          if (auto s = func->getAttrOfType<StringAttr>(codegen::kGemmShapesAttr))
            choice.shapes = s.getValue().str();
          kept.push_back(v);
          if (v.function != name)
            functions.push_back(v.function);
          continue;
        }
        if (v.function != name)
          after.erase(func);
      }
      choice.variants = std::move(kept);
    }
    for (auto it = out.choices.begin(); it != out.choices.end();)
      it = it->second.variants.size() < 2 ? out.choices.erase(it) : std::next(it);
    for (const std::string &name : kernelNames) {
      auto func = after.lookup<func::FuncOp>(name);
      if (!func || !func->hasAttr(codegen::kTacticStaleAttr))
        continue;
      ++out.timingCacheStale;
      mlir::emitWarning(func.getLoc(), "the timing cache's tactic '")
          << func->getAttrOfType<StringAttr>(codegen::kTacticForceAttr)
                 .getValue()
          << "' for kernel " << name
          << " is not a candidate here: the cost model's choice ("
          << func->getAttrOfType<StringAttr>(codegen::kTacticsAttr).getValue()
          << ") is used; re-run kiln-tune";
    }
    kernels.walk([&](gpu::LaunchOp launch) {
      // Counted once per region: not in the variants' clones.
      if (launch->getParentOfType<func::FuncOp>()->hasAttr(
              codegen::kTacticVariantAttr))
        return;
      auto tactic = launch->getAttrOfType<StringAttr>("kiln.tactic");
      if (tactic && tactic.getValue().starts_with("window")) {
        ++out.windowPools;
      } else if (tactic && tactic.getValue().starts_with("warp row fusion")) {
        ++out.rowFusions;
      } else if (tactic && tactic.getValue().starts_with("warp")) {
        ++out.warpReductions;
      } else if (tactic) {
        ++out.tensorCoreOps;
        out.wgmmaOps += tactic.getValue().starts_with("wgmma");
        out.tmaOps += tactic.getValue().contains(", TMA");
        out.fusedEpilogues += tactic.getValue().contains("epilogue");
      }
    });
  }
  SymbolTable top(kernels);
  for (const std::string &name : functions) {
    auto func = top.lookup<func::FuncOp>(name);
    if (!func)
      return kernels.emitError("kernel function @") << name << " is missing";
    FailureOr<uint64_t> scratch = assignScratch(func);
    if (failed(scratch))
      return failure();
    out.kernels[name].scratchBytes = *scratch;
  }
  watch.lap(stages, "bufferize");

  {
    PassManager pm(ctx);
    std::string map = "func.func(kiln-linalg-parallel-first,"
                      "convert-linalg-to-parallel-loops,kiln-gpu-map-loops{block-size=" +
                      std::to_string(options.gpuBlockSize) + "}),"
                      "convert-math-to-funcs,"
                      "convert-parallel-loops-to-gpu,canonicalize,cse";
    addPipeline(pm, map);
    if (failed(pm.run(kernels)))
      return failure();
  }
  sinkIntoLaunches(kernels);
  {
    PassManager pm(ctx);
    addPipeline(pm, "gpu-kernel-outlining");
    if (failed(pm.run(kernels)))
      return failure();
  }
  if (failed(annotateKernels(kernels)))
    return failure();
  FailureOr<gpu::GPUModuleOp> merged = mergeGpuModules(kernels, functions);
  if (failed(merged))
    return failure();
  if (failed(recordLaunches(kernels, functions, out)))
    return failure();
  // The host side has been read; only the device code is compiled.
  for (Operation &op : llvm::make_early_inc_range(kernels.getBody()->getOperations()))
    if (isa<func::FuncOp>(op))
      op.erase();
  watch.lap(stages, "map to GPU");

  SmallVector<Attribute> targetAttrs;
  for (const std::string &t : targets) {
    const GpuTargetInfo *info = findGpuTarget(t);
    if (!info)
      return kernels.emitError("unknown GPU target '") << t << "'";
    targetAttrs.push_back(NVVM::NVVMTargetAttr::get(
        ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda", t, info->ptxFeature));
  }
  merged->setTargetsAttr(ArrayAttr::get(ctx, targetAttrs));
  {
    PassManager pm(ctx);
    addPipeline(pm, "gpu.module(convert-nvgpu-to-nvvm,convert-scf-to-cf,"
                    "expand-strided-metadata,"
                    "lower-affine,arith-expand{include-bf16=1},"
                    "convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=1},"
                    "convert-nvvm-to-llvm,canonicalize,cse),"
                    "reconcile-unrealized-casts");
    if (failed(pm.run(kernels)))
      return failure();
  }
  watch.lap(stages, "lower to NVVM");
  {
    PassManager pm(ctx);
    addPipeline(pm, "gpu-module-to-binary{format=isa toolkit=" +
                        options.cudaToolkitPath + "}");
    if (failed(pm.run(kernels)))
      return failure();
  }
  auto binary = kernels.lookupSymbol<gpu::BinaryOp>("kiln_kernels");
  if (!binary)
    return kernels.emitError("gpu-module-to-binary produced no binary");
  for (Attribute a : binary.getObjects()) {
    auto object = cast<gpu::ObjectAttr>(a);
    auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
    if (!target)
      return binary.emitOpError("has a non-NVVM object");
    GpuBinary bin;
    bin.target = target.getChip().str();
    bin.ptx = object.getObject().str();
    out.binaries.push_back(std::move(bin));
  }
  watch.lap(stages, "PTX (LLVM NVPTX)");
  for (GpuBinary &bin : out.binaries)
    if (failed(runPtxas(bin.ptx, bin.target, options, bin.cubin,
                        kernels.getLoc())))
      return failure();
  watch.lap(stages, "cubin (ptxas)");
  return success();
}
