//===- Compiler.cpp - graph module → kernels → host module → plan file ----===//
#include "CompilerInternal.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "kiln/Plan/PlanIO.h"
#include "codegen/Passes.h"
#include "passes/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"

#include <chrono>

using namespace mlir;
using namespace kiln;
using namespace kiln::compiler;
namespace plan = kiln::plan;

static std::optional<plan::DType> toDType(Type t) {
  if (t.isF32()) return plan::DType::f32;
  if (t.isF16()) return plan::DType::f16;
  if (t.isBF16()) return plan::DType::bf16;
  if (t.isF64()) return plan::DType::f64;
  if (t.isInteger(1)) return plan::DType::boolean;
  if (auto i = dyn_cast<IntegerType>(t)) {
    bool u = i.isUnsigned();
    switch (i.getWidth()) {
    case 8: return u ? plan::DType::u8 : plan::DType::i8;
    case 16: return u ? plan::DType::u16 : plan::DType::i16;
    case 32: return u ? plan::DType::u32 : plan::DType::i32;
    case 64: return u ? plan::DType::u64 : plan::DType::i64;
    default: break;
    }
  }
  return std::nullopt;
}

static uint64_t byteSize(RankedTensorType t) {
  unsigned bits = t.getElementType().getIntOrFloatBitWidth();
  return t.getNumElements() * ((bits + 7) / 8);
}

static std::string nameOf(DictionaryAttr attrs, StringRef fallback, unsigned i) {
  if (attrs)
    if (auto name = attrs.getAs<StringAttr>("kiln.name"))
      return name.str();
  return (fallback + Twine(i)).str();
}

/// The ONNX node a location names ("" if none): kernels are reported by it.
static std::string nodeNameOf(Location loc) {
  if (auto n = dyn_cast<NameLoc>(loc))
    return n.getName().str();
  if (auto f = dyn_cast<FusedLoc>(loc))
    for (Location l : f.getLocations())
      if (std::string s = nodeNameOf(l); !s.empty())
        return s;
  if (auto c = dyn_cast<CallSiteLoc>(loc))
    return nodeNameOf(c.getCallee());
  return "";
}

/// Graph inputs (by name) that `op`'s operands are computed from and that
/// are small enough to be shape-like values (at most 64 elements, rank <= 1):
/// candidates for kilnc --input-value.
static SmallVector<std::string> shapeInputsOf(func::FuncOp main, Operation *op) {
  SmallVector<std::string> names;
  llvm::SmallPtrSet<Operation *, 16> seen;
  llvm::SmallDenseSet<unsigned> args;
  SmallVector<Value> work(op->getOperands());
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      auto t = dyn_cast<RankedTensorType>(arg.getType());
      if (arg.getOwner()->getParentOp() == main && t && t.hasStaticShape() &&
          t.getRank() <= 1 && t.getNumElements() <= 64 &&
          args.insert(arg.getArgNumber()).second)
        names.push_back(nameOf(main.getArgAttrDict(arg.getArgNumber()),
                               "input_", arg.getArgNumber()));
      continue;
    }
    if (Operation *def = v.getDefiningOp(); def && seen.insert(def).second)
      work.append(def->operand_begin(), def->operand_end());
  }
  llvm::sort(names);
  return names;
}

/// Plans v1 are static: every tensor in @main must have a static shape.
static LogicalResult checkStatic(func::FuncOp main) {
  for (auto [i, arg] : llvm::enumerate(main.getArguments())) {
    auto t = dyn_cast<RankedTensorType>(arg.getType());
    if (!t)
      return main.emitError("input ") << i << " is not a ranked tensor: " << arg.getType();
    if (!t.hasStaticShape()) {
      std::string name = nameOf(main.getArgAttrDict(i), "input_", i);
      std::string dims;
      llvm::raw_string_ostream os(dims);
      llvm::interleave(t.getShape(), os, [&](int64_t d) {
        if (ShapedType::isDynamic(d)) os << "N"; else os << d;
      }, "x");
      return emitError(arg.getLoc(), "input '")
             << name << "' has a dynamic shape " << t
             << ": plans need static shapes; pass --input-shape " << name << "="
             << dims << " with N replaced by the size to compile for";
    }
  }
  WalkResult r = main.walk([&](Operation *op) {
    for (Type t : op->getResultTypes())
      if (auto rt = dyn_cast<RankedTensorType>(t); rt && !rt.hasStaticShape()) {
        InFlightDiagnostic diag = op->emitOpError("has a dynamic result shape ")
                                  << rt;
        // Every input has a static shape here, so the shape depends on
        // values: name the small graph inputs it is computed from.
        SmallVector<std::string> names = shapeInputsOf(main, op);
        if (names.empty()) {
          diag << ": plans need static shapes (set every input's shape "
                  "with --input-shape)";
        } else {
          diag << ": it depends on the values of graph input";
          diag << (names.size() > 1 ? "s " : " ");
          for (auto [i, name] : llvm::enumerate(names))
            diag << (i ? ", '" : "'") << name << "'";
          diag << ", known only at run time; plans need static shapes: fix "
               << (names.size() > 1 ? "them" : "it")
               << " at build time with kilnc";
          for (const std::string &name : names)
            diag << " --input-value " << name << "=FILE";
        }
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

/// Graph outputs the plan cannot bind to a kernel result directly (inputs,
/// weights, views, a value returned twice) get a copy kernel.
static int64_t materializeOutputCopies(ModuleOp module, func::FuncOp main,
                                       int64_t &nextKernel) {
  auto ret = cast<func::ReturnOp>(main.getBody().front().getTerminator());
  llvm::SmallPtrSet<Value, 8> bound;
  OpBuilder b(module.getContext());
  Operation *insertAfter = main;
  int64_t copies = 0;
  for (OpOperand &operand : ret->getOpOperands()) {
    Value v = operand.get();
    if (v.getDefiningOp<func::CallOp>() && bound.insert(v).second)
      continue;
    auto type = cast<RankedTensorType>(v.getType());
    b.setInsertionPointAfter(insertAfter);
    Location loc = v.getLoc();
    auto kernel = func::FuncOp::create(
        b, loc, ("kernel_" + Twine(nextKernel++)).str(),
        b.getFunctionType({type}, {type}));
    kernel.setPrivate();
    insertAfter = kernel;
    Block *entry = kernel.addEntryBlock();
    b.setInsertionPointToStart(entry);
    Value empty = tensor::EmptyOp::create(b, loc, type.getShape(),
                                          type.getElementType());
    Value copy = linalg::CopyOp::create(b, loc, entry->getArgument(0), empty)
                     .getResult(0);
    func::ReturnOp::create(b, loc, copy);
    b.setInsertionPoint(ret);
    auto call = func::CallOp::create(b, loc, kernel, ValueRange{v});
    operand.set(call.getResult(0));
    bound.insert(call.getResult(0));
    ++copies;
  }
  return copies;
}

/// Call attribute: a concat whose inputs its producers write into their
/// slices of its buffer (elideConcats); it is no step of the plan.
static constexpr llvm::StringLiteral kElidedConcatAttr = "kiln.elided_concat";

/// Concat kernels (a lone kiln.concat of their arguments, in order) whose
/// every input is the only use of another kernel's result (a kernel called
/// once): those kernels write their results straight into their slices of
/// the concat's buffer (compiler::kIntoSlicesAttr, see
/// redirectSliceResults) and the concat never runs. Returns the concats
/// elided and, in `inputs`, their inputs.
static int64_t elideConcats(ModuleOp module, func::FuncOp main,
                            int64_t &inputs) {
  SymbolTable symbols(module);
  llvm::StringMap<int64_t> callsOf;
  main.walk([&](func::CallOp call) { ++callsOf[call.getCallee()]; });
  MLIRContext *ctx = module.getContext();
  Builder b(ctx);
  int64_t elided = 0;
  for (auto call : main.getBody().front().getOps<func::CallOp>()) {
    auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
    if (!callee || callee.getBody().front().getOperations().size() != 2)
      continue;
    auto cat = dyn_cast<graph::ConcatOp>(callee.getBody().front().front());
    auto ret = dyn_cast<func::ReturnOp>(callee.getBody().front().back());
    if (!cat || !ret || ret.getNumOperands() != 1 ||
        ret.getOperand(0) != cat.getResult() ||
        cat.getInputs().size() != callee.getNumArguments() ||
        !llvm::equal(cat.getInputs(), callee.getArguments()))
      continue;
    auto type = cast<RankedTensorType>(cat.getType());
    if (!type.hasStaticShape())
      continue;
    SmallVector<std::pair<func::CallOp, unsigned>> producers;
    for (Value operand : call.getOperands()) {
      auto result = dyn_cast<OpResult>(operand);
      auto producer = result ? dyn_cast<func::CallOp>(result.getOwner())
                             : func::CallOp();
      if (!producer || !operand.hasOneUse() ||
          producer->hasAttr(kElidedConcatAttr) ||
          callsOf[producer.getCallee()] != 1 ||
          !cast<RankedTensorType>(operand.getType()).hasStaticShape())
        break;
      producers.push_back({producer, result.getResultNumber()});
    }
    if (producers.size() != call.getNumOperands())
      continue;
    int64_t axis = cat.getAxis(), at = 0;
    for (auto [producer, result] : producers) {
      auto callee = symbols.lookup<func::FuncOp>(producer.getCallee());
      SmallVector<int64_t> offsets(type.getRank(), 0);
      offsets[axis] = at;
      at += cast<RankedTensorType>(producer.getResult(result).getType())
                .getDimSize(axis);
      SmallVector<Attribute> slices;
      if (auto old = callee->getAttrOfType<ArrayAttr>(compiler::kIntoSlicesAttr))
        slices.assign(old.begin(), old.end());
      slices.push_back(b.getDictionaryAttr(
          {b.getNamedAttr("result", b.getI64IntegerAttr(result)),
           b.getNamedAttr("shape", b.getDenseI64ArrayAttr(type.getShape())),
           b.getNamedAttr("offsets", b.getDenseI64ArrayAttr(offsets))}));
      callee->setAttr(compiler::kIntoSlicesAttr, b.getArrayAttr(slices));
    }
    call->setAttr(kElidedConcatAttr, b.getUnitAttr());
    ++elided;
    inputs += producers.size();
  }
  return elided;
}

/// Whether kernel argument (or value) `v` is read only as a data operand of
/// convs and matmuls/gemms (A or B), maybe through views, transposes,
/// slices and zero pads: a value those read as tf32 anyway.
static bool readOnlyByTensorCores(Value v) {
  for (OpOperand &use : v.getUses()) {
    Operation *user = use.getOwner();
    unsigned n = use.getOperandNumber();
    if ((isa<graph::ConvOp, graph::MatMulOp, graph::GemmOp>(user) && n < 2))
      continue;
    if (auto pad = dyn_cast<graph::PadOp>(user);
        pad && n == 0 && pad.getMode() == "constant" &&
        pad.getValue().convertToDouble() == 0.0 &&
        readOnlyByTensorCores(pad.getResult()))
      continue;
    if ((isa<graph::TransposeOp, graph::SliceOp>(user) ||
         graph::isStaticView(user)) &&
        n == 0 && readOnlyByTensorCores(user->getResult(0)))
      continue;
    return false;
  }
  return !v.use_empty();
}

/// --precision tf32 on the GPU: results of conv/matmul kernels read only
/// by convs and matmuls of other kernels (readOnlyByTensorCores, also through views in
/// @main) are rounded to tf32 where they are produced (the producing
/// function gets compiler::kRoundTf32ResultsAttr: a rounding in its
/// epilogue), and the reading functions' arguments kTf32RoundedAttr, so
/// that their tensor-core kernels need not round them again. Kernels
/// called more than once are left alone. Returns the values rounded.
static int64_t roundTf32AtProducers(ModuleOp module, func::FuncOp main) {
  SymbolTable symbols(module);
  llvm::StringMap<int64_t> callsOf;
  main.walk([&](func::CallOp call) { ++callsOf[call.getCallee()]; });
  MLIRContext *ctx = module.getContext();
  // The call operands `v` reaches through @main's views; false if it
  // reaches anything else.
  std::function<bool(Value, SmallVectorImpl<OpOperand *> &)> readers =
      [&](Value v, SmallVectorImpl<OpOperand *> &out) {
        for (OpOperand &use : v.getUses()) {
          Operation *user = use.getOwner();
          if (graph::isStaticView(user)) {
            if (!readers(user->getResult(0), out))
              return false;
          } else if (isa<func::CallOp>(user)) {
            out.push_back(&use);
          } else {
            return false;
          }
        }
        return true;
      };
  int64_t rounded = 0;
  for (auto call : main.getBody().front().getOps<func::CallOp>()) {
    auto producer = symbols.lookup<func::FuncOp>(call.getCallee());
    // Only a conv/matmul kernel rounds for free, in its epilogue (a pool or
    // pad kernel would need a launch of its own for it).
    if (!producer || callsOf[call.getCallee()] != 1 ||
        !producer
             .walk([](Operation *op) {
               return isa<graph::ConvOp, graph::MatMulOp, graph::GemmOp>(op)
                          ? WalkResult::interrupt()
                          : WalkResult::advance();
             })
             .wasInterrupted())
      continue;
    SmallVector<int64_t> results;
    for (OpResult res : call->getResults()) {
      auto type = cast<RankedTensorType>(res.getType());
      SmallVector<OpOperand *> uses;
      if (!type.getElementType().isF32() || !readers(res, uses) ||
          uses.empty())
        continue;
      bool ok = llvm::all_of(uses, [&](OpOperand *use) {
        auto reader = cast<func::CallOp>(use->getOwner());
        auto callee = symbols.lookup<func::FuncOp>(reader.getCallee());
        return callee && callsOf[reader.getCallee()] == 1 &&
               readOnlyByTensorCores(
                   callee.getArgument(use->getOperandNumber()));
      });
      if (!ok)
        continue;
      for (OpOperand *use : uses)
        symbols.lookup<func::FuncOp>(
                   cast<func::CallOp>(use->getOwner()).getCallee())
            .setArgAttr(use->getOperandNumber(), codegen::kTf32RoundedAttr,
                        UnitAttr::get(ctx));
      results.push_back(res.getResultNumber());
    }
    if (results.empty())
      continue;
    producer->setAttr(compiler::kRoundTf32ResultsAttr,
                      DenseI64ArrayAttr::get(ctx, results));
    rounded += results.size();
  }
  return rounded;
}

/// The row-major bytes of a constant's value (bool: one byte per element);
/// on failure `error` says why.
static bool elementsBytes(Attribute value, RankedTensorType type,
                          std::vector<char> &out, std::string &error) {
  uint64_t expected = byteSize(type);
  if (auto res = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob) {
      error = "blob has no data (elided?)";
      return false;
    }
    ArrayRef<char> data = blob->getData();
    out.assign(data.begin(), data.end());
  } else if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (type.getElementType().isInteger(1)) {
      // DenseElementsAttr packs bools; plans hold one byte per element.
      out.clear();
      for (bool v : dense.getValues<bool>())
        out.push_back(v ? 1 : 0);
    } else if (dense.isSplat()) {
      ArrayRef<char> raw = dense.getRawData();
      out.clear();
      out.reserve(expected);
      for (int64_t i = 0, e = type.getNumElements(); i < e; ++i)
        out.insert(out.end(), raw.begin(), raw.end());
    } else {
      ArrayRef<char> raw = dense.getRawData();
      out.assign(raw.begin(), raw.end());
    }
  } else {
    error = "cannot serialize this kind of constant";
    return false;
  }
  if (out.size() != expected) {
    error = "has " + std::to_string(out.size()) + " bytes, expected " +
            std::to_string(expected);
    return false;
  }
  return true;
}

/// The bytes of a weight constant.
static LogicalResult weightBytes(graph::ConstantOp cst, std::vector<char> &out) {
  auto type = cast<RankedTensorType>(cst.getType());
  std::string error;
  if (!elementsBytes(cst.getValue(), type, out, error))
    return cst.emitOpError("weight ") << error;
  return success();
}

LogicalResult kiln::compileToPlanFile(ModuleOp module,
                                      const CompileOptions &options,
                                      StringRef outputPath,
                                      BuildReport &report) {
  using Clock = std::chrono::steady_clock;
  auto lapStart = Clock::now();
  auto lap = [&](const char *name) {
    auto now = Clock::now();
    report.stages.push_back({name, std::chrono::duration<double>(now - lapStart).count()});
    lapStart = now;
  };
  MLIRContext *ctx = module.getContext();
  ctx->loadDialect<func::FuncDialect, linalg::LinalgDialect,
                   tensor::TensorDialect>();
  if (options.targets.empty())
    return module.emitError("no target: pass --target host and/or GPU "
                            "architectures (")
           << compiler::knownGpuTargets() << ")";
  bool wantHost = false;
  std::vector<std::string> gpuTargets;
  for (const std::string &t : options.targets) {
    if (t == "host")
      wantHost = true;
    else if (compiler::isGpuTarget(t))
      gpuTargets.push_back(t);
    else
      return module.emitError("unknown target '")
             << t << "': use host or one of " << compiler::knownGpuTargets();
  }
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main)
    return module.emitError("expected a func.func @main (the imported graph)");
  if (failed(checkStatic(main)))
    return failure();

  if (options.precision != "fp32" && options.precision != "tf32" &&
      options.precision != "fp16" && options.precision != "bf16")
    return module.emitError("unknown precision '")
           << options.precision << "': use fp32, tf32, fp16 or bf16";
  // tf32 keeps f32 values: only the tensor-core tactics read it.
  if (options.precision == "fp16" || options.precision == "bf16") {
    if (failed(graph::convertPrecision(module, options.precision,
                                       &report.precisionValues,
                                       &report.precisionWeights)))
      return failure();
    lap("precision");
  }

  // Sibling matmuls of one input (attention's Q, K, V projections) as one
  // batched matmul.
  if (options.fuseSiblingMatmuls) {
    graph::FuseSiblingMatmulsStats siblings = graph::fuseSiblingMatmuls(main);
    report.siblingGroups = siblings.groups;
    report.siblingMatmuls = siblings.matmuls;
  }

  // Channels-last convolutions for the tensor-core tactics.
  if (options.layout != "auto" && options.layout != "nhwc" &&
      options.layout != "nchw")
    return module.emitError("unknown layout '")
           << options.layout << "': use auto, nhwc or nchw";
  bool nhwc = options.layout == "nhwc" ||
              (options.layout == "auto" && !gpuTargets.empty() &&
               options.precision != "fp32" && options.gpuTactics != "generic");
  if (nhwc) {
    graph::LayoutNhwcStats layout;
    if (failed(graph::layoutNhwc(module, layout,
                                 /*tf32=*/options.precision == "tf32")) ||
        failed(verify(module)))
      return failure();
    report.layout = "nhwc";
    report.nhwcConvs = layout.convs;
    report.denseGroupedConvs = layout.denseGrouped;
    report.kMajorWeights = layout.kMajorWeights;
    report.roundedWeights = layout.roundedWeights;
    report.layoutTransposes = layout.transposes;
    lap("layout");
  }

  // Scalar factors of matmul operands move after the product, where the
  // matmul's epilogue applies them (attention's 1/sqrt(d)).
  report.hoistedScales = graph::hoistMatmulScales(main);

  // Identical pure ops (the per-layer copies of an attention mask, repeated
  // constants) are computed once.
  {
    PassManager pm(module.getContext());
    pm.addNestedPass<func::FuncOp>(createCSEPass());
    if (failed(pm.run(module)))
      return failure();
  }

  // Sibling convs of one input (ResNet's reduction and downsample, an
  // Inception block's reductions) as one; after the layout pass, which
  // packs the filters that are concatenated here, and after CSE, which
  // merges its per-conv transposes of a graph input.
  if (options.fuseSiblingConvs) {
    graph::FuseSiblingConvsStats siblings = graph::fuseSiblingConvs(main);
    report.siblingConvGroups = siblings.groups;
    report.siblingConvs = siblings.convs;
    report.siblingConvsMixed = siblings.mixedActivations;
  }

  graph::FormKernelsResult formed;
  if (failed(graph::formKernels(module, main, /*maxInlineConstantElements=*/64,
                                formed)))
    return failure();
  // tf32 activations read only by convs and matmuls: rounded by their
  // producers, so that the readers need not round them.
  if (options.precision == "tf32" && !gpuTargets.empty() &&
      options.tf32RoundAtProducers)
    report.tf32RoundedActivations = roundTf32AtProducers(module, main);
  // Kernel arguments that are weights rounded to tf32 at build time: the
  // tensor-core kernels need not round them again.
  main.walk([&](func::CallOp call) {
    auto callee = module.lookupSymbol<func::FuncOp>(call.getCallee());
    if (!callee)
      return;
    for (auto [i, operand] : llvm::enumerate(call.getOperands()))
      if (auto cst = operand.getDefiningOp<graph::ConstantOp>();
          cst && cst->hasAttr(codegen::kTf32RoundedAttr))
        callee.setArgAttr(i, codegen::kTf32RoundedAttr,
                          UnitAttr::get(module.getContext()));
  });
  int64_t nextKernel = 0;
  module.walk([&](func::FuncOp f) { nextKernel += f != main; });
  report.outputCopies = materializeOutputCopies(module, main, nextKernel);
  if (options.concatInPlace)
    report.elidedConcats =
        elideConcats(module, main, report.elidedConcatInputs);
  report.kernels =
      formed.kernels + report.outputCopies - report.elidedConcats;
  report.fusedOps = formed.fusedOps;
  report.views = formed.views;
  report.prologueOps = formed.prologueOps;
  report.padPrologueOps = formed.padPrologueOps;
  report.sliceReads = formed.sliceReads;
  lap("form kernels");

  // The step list: calls of @main in order.
  Block &body = main.getBody().front();
  SmallVector<func::CallOp> calls;
  SmallVector<func::CallOp> elidedConcats;
  for (Operation &op : body.without_terminator()) {
    if (auto call = dyn_cast<func::CallOp>(op)) {
      if (call->hasAttr(kElidedConcatAttr))
        elidedConcats.push_back(call);
      else
        calls.push_back(call);
      continue;
    }
    if (isa<graph::ConstantOp>(op) || graph::isStaticView(&op))
      continue;
    return op.emitOpError("was not placed in a kernel");
  }
  std::vector<std::string> kernelNames;
  for (func::CallOp call : calls)
    kernelNames.push_back(call.getCallee().str());

  // Lower copies holding only the kernels, one per kind of target.
  OwningOpRef<ModuleOp> kernels(cast<ModuleOp>(module->clone()));
  kernels->lookupSymbol<func::FuncOp>("main")->erase();
  for (func::CallOp call : elidedConcats)
    kernels->lookupSymbol<func::FuncOp>(call.getCallee())->erase();
  // kiln.* module attributes mean nothing to LLVM IR translation.
  kernels.get()->setAttrs(DictionaryAttr::get(ctx));
  std::vector<char> so;
  if (wantHost) {
    OwningOpRef<ModuleOp> hostKernels(cast<ModuleOp>(kernels->clone()));
    if (failed(buildHostModule(*hostKernels, kernelNames, options, so,
                               report.stages)))
      return failure();
    report.hostModuleBytes = so.size();
  }
  compiler::GpuModuleResult gpu;
  if (!gpuTargets.empty()) {
    if (failed(buildGpuModule(*kernels, kernelNames, gpuTargets, options, gpu,
                              report.stages)))
      return failure();
    for (const compiler::GpuBinary &bin : gpu.binaries) {
      report.ptxBytes += bin.ptx.size();
      report.cubinBytes += bin.cubin.size();
    }
    for (const std::string &name : kernelNames)
      report.gpuLaunches += gpu.kernels[name].launches.size();
    report.tensorCoreOps = gpu.tensorCoreOps;
    report.fusedEpilogues = gpu.fusedEpilogues;
    report.wgmmaOps = gpu.wgmmaOps;
    report.tmaOps = gpu.tmaOps;
    report.warpReductions = gpu.warpReductions;
    report.rowFusions = gpu.rowFusions;
    report.windowPools = gpu.windowPools;
    report.tacticChoices = gpu.choices.size();
    for (auto &[name, choice] : gpu.choices)
      report.tacticVariants += choice.variants.size();
    report.timingCacheEntries = gpu.timingCacheEntries;
    report.timingCacheHits = gpu.timingCacheHits;
    report.timingCacheStale = gpu.timingCacheStale;
  }
  lapStart = Clock::now();

  // Buffers. A view shares its source's buffer.
  auto root = [](Value v) {
    while (Operation *def = v.getDefiningOp())
      if (graph::isStaticView(def))
        v = def->getOperand(0);
      else
        break;
    return v;
  };
  plan::PlanWriter writer;
  for (const std::string &t : options.targets)
    writer.addTarget(t);
  llvm::DenseMap<Value, uint32_t> bufferOf;
  for (auto [i, arg] : llvm::enumerate(main.getArguments())) {
    auto t = cast<RankedTensorType>(arg.getType());
    auto dtype = toDType(t.getElementType());
    if (!dtype)
      return emitError(arg.getLoc(), "input element type ") << t.getElementType()
                                                          << " is not supported by plans";
    plan::TensorDesc desc{nameOf(main.getArgAttrDict(i), "input_", i), *dtype,
                          std::vector<int64_t>(t.getShape().begin(), t.getShape().end()), {}};
    // An input fixed at build time (kilnc --input-value) stays bound; the
    // runtime checks that callers bind exactly this value.
    std::vector<uint8_t> fixed;
    if (auto value = main.getArgAttrOfType<ElementsAttr>(i, "kiln.fixed_value")) {
      std::vector<char> bytes;
      std::string error;
      if (!elementsBytes(value, t, bytes, error))
        return emitError(arg.getLoc(), "fixed value of input '")
               << desc.name << "' " << error;
      fixed.assign(bytes.begin(), bytes.end());
    }
    bufferOf[arg] = writer.addInput(desc, std::move(fixed));
  }
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    auto t = cast<RankedTensorType>(v.getType());
    auto dtype = toDType(t.getElementType());
    if (!dtype)
      return emitError(v.getLoc(), "output element type ") << t.getElementType()
                                                         << " is not supported by plans";
    plan::TensorDesc desc{nameOf(main.getResultAttrDict(i), "output_", i), *dtype,
                          std::vector<int64_t>(t.getShape().begin(), t.getShape().end()), {}};
    bufferOf[v] = writer.addOutput(desc);
  }
  // Weights: constants that kernels read (maybe through a view).
  for (func::CallOp call : calls)
    for (Value operand : call.getOperands()) {
      Value r = root(operand);
      auto cst = r.getDefiningOp<graph::ConstantOp>();
      if (!cst || bufferOf.count(r))
        continue;
      std::vector<char> bytes;
      if (failed(weightBytes(cst, bytes)))
        return failure();
      // Splat constants are not tensors of the ONNX model: refit could not
      // find them, so they stay inline.
      auto dense = dyn_cast<DenseElementsAttr>(cst.getValue());
      // Nor are constants kiln derived from them (a zero-padded filter).
      bool strip = options.stripWeights &&
                   bytes.size() >= std::max<uint64_t>(options.stripThreshold, 1) &&
                   !(dense && dense.isSplat()) && !cst->hasAttr("kiln.derived");
      // A stack of G tensors of the model (kiln.stack_parts: G of one
      // type, or the leading dims of parts concatenated): G buffers back
      // to back (each a multiple of the 64-byte alignment, so no padding
      // between them), the kernels reading all G from the first.
      std::vector<size_t> partSizes = {bytes.size()};
      Attribute partsAttr = cst->getAttr(graph::kStackPartsAttr);
      if (auto p = dyn_cast_or_null<IntegerAttr>(partsAttr)) {
        if (p.getInt() > 1 && bytes.size() % p.getInt() == 0)
          partSizes.assign(p.getInt(), bytes.size() / p.getInt());
      } else if (auto rows = dyn_cast_or_null<DenseI64ArrayAttr>(partsAttr)) {
        auto type = cast<RankedTensorType>(cst.getType());
        int64_t total = 0;
        for (int64_t n : rows.asArrayRef())
          total += n;
        if (type.getRank() > 0 && total == type.getDimSize(0) && total > 0 &&
            bytes.size() % total == 0) {
          partSizes.clear();
          for (int64_t n : rows.asArrayRef())
            partSizes.push_back(bytes.size() / total * n);
        }
      }
      if (llvm::any_of(partSizes, [](size_t n) { return n % 64 != 0; }))
        partSizes = {bytes.size()};
      size_t at = 0;
      for (auto [p, partBytes] : llvm::enumerate(partSizes)) {
        const char *data = bytes.data() + at;
        at += partBytes;
        bool stripPart =
            strip && partBytes >= std::max<uint64_t>(options.stripThreshold, 1);
        uint32_t index = stripPart
                             ? writer.addStrippedWeightBuffer(data, partBytes)
                             : writer.addWeightBuffer(data, partBytes);
        if (p == 0)
          bufferOf[r] = index;
        ++report.weights;
        report.weightBytes += partBytes;
        if (stripPart) {
          ++report.strippedWeights;
          report.strippedWeightBytes += partBytes;
        }
      }
    }
  // The kernel functions of a call's region: itself, or its tactic
  // variants (--tactics all; the first is itself).
  auto variantsOf = [&](const std::string &name) {
    std::vector<std::string> fns;
    auto it = gpu.choices.find(name);
    if (it == gpu.choices.end())
      return std::vector<std::string>{name};
    for (const compiler::GpuModuleResult::Variant &v : it->second.variants)
      fns.push_back(v.function);
    return fns;
  };
  // Activations: kernel results not bound to outputs, live from their step
  // to the last step reading them or a view of them.
  llvm::DenseMap<Value, int64_t> lastUse;
  for (auto [step, call] : llvm::enumerate(calls))
    for (Value operand : call.getOperands())
      lastUse[root(operand)] = step;
  // An elided concat's inputs are slices of its buffer, which lives from
  // the first of their steps.
  llvm::DenseMap<Value, Value> sliceOf;
  llvm::DenseMap<Operation *, int64_t> stepOf;
  for (auto [step, call] : llvm::enumerate(calls))
    stepOf[call] = step;
  for (func::CallOp cat : elidedConcats)
    for (Value operand : cat.getOperands())
      sliceOf[operand] = cat.getResult(0);
  SmallVector<Value> activations;
  SmallVector<Interval> intervals;
  for (auto [step, call] : llvm::enumerate(calls))
    for (Value res : call.getResults()) {
      if (bufferOf.count(res) || sliceOf.count(res))
        continue;
      auto it = lastUse.find(res);
      activations.push_back(res);
      intervals.push_back({byteSize(cast<RankedTensorType>(res.getType())),
                           (int64_t)step,
                           it == lastUse.end() ? (int64_t)step : it->second});
    }
  for (func::CallOp cat : elidedConcats) {
    Value res = cat.getResult(0);
    if (bufferOf.count(res))
      continue; // a graph output
    int64_t first = INT64_MAX, last = 0;
    for (Value operand : cat.getOperands()) {
      int64_t step = stepOf.lookup(operand.getDefiningOp());
      first = std::min(first, step);
      last = std::max(last, step);
    }
    if (auto it = lastUse.find(res); it != lastUse.end())
      last = std::max(last, it->second);
    activations.push_back(res);
    intervals.push_back(
        {byteSize(cast<RankedTensorType>(res.getType())), first, last});
  }
  // GPU scratch (a kernel's intermediate buffers): live during its step.
  SmallVector<std::pair<int64_t, size_t>> scratchOf; // step -> interval
  if (!gpuTargets.empty())
    for (auto [step, call] : llvm::enumerate(calls)) {
      // Variants of a region run one at a time: the largest scratch.
      uint64_t bytes = 0;
      for (const std::string &fn : variantsOf(call.getCallee().str()))
        bytes = std::max(bytes, gpu.kernels[fn].scratchBytes);
      if (bytes == 0)
        continue;
      scratchOf.push_back({(int64_t)step, intervals.size()});
      intervals.push_back({bytes, (int64_t)step, (int64_t)step});
    }
  uint64_t peak = 0, withoutReuse = 0;
  std::vector<uint64_t> offsets = planArena(intervals, 64, peak, withoutReuse);
  for (auto [v, interval, offset] :
       llvm::zip(activations, ArrayRef(intervals).take_front(activations.size()),
                 ArrayRef(offsets).take_front(activations.size())))
    bufferOf[v] = writer.addBuffer(plan::BufferKind::Activation,
                                   std::max<uint64_t>(interval.size, 1), offset, 64);
  for (auto [slice, whole] : sliceOf)
    bufferOf[slice] = bufferOf.lookup(whole);
  llvm::DenseMap<int64_t, uint32_t> scratchBuffer; // step -> buffer
  for (auto [step, index] : scratchOf)
    scratchBuffer[step] = writer.addBuffer(plan::BufferKind::Scratch,
                                           intervals[index].size,
                                           offsets[index], 64);
  writer.setArenaBytes(peak, withoutReuse);
  report.arenaBytes = peak;
  report.arenaBytesWithoutReuse = withoutReuse;

  // The buffers of a call's kernel function arguments: operands, results.
  auto callBuffers = [&](func::CallOp call) {
    SmallVector<uint32_t> buffers;
    for (Value v : llvm::concat<Value>(call.getOperands(), call.getResults())) {
      auto it = bufferOf.find(root(v));
      assert(it != bufferOf.end() && "every kernel operand has a buffer");
      buffers.push_back(it->second);
    }
    return buffers;
  };
  // Kernels are named after the model node of their region (the anchor).
  auto kernelLabel = [](func::CallOp call, StringRef symbol) {
    std::string node = nodeNameOf(call.getLoc());
    return node.empty() ? symbol.str() : node + " [" + symbol.str() + "]";
  };
  if (wantHost) {
    uint32_t hostModule = writer.addModule(
        "host", plan::ModuleFormat::HostSharedObject, so.data(), so.size());
    for (func::CallOp call : calls) {
      plan::Step step;
      step.kernel = writer.addKernel(call.getCallee().str(), hostModule,
                                     ("kiln_" + call.getCallee()).str());
      for (uint32_t buffer : callBuffers(call))
        step.args.push_back({buffer, 0});
      writer.addStep(std::move(step));
    }
  }
  // Regions with tactic variants: one choice each (variant 0, the cost
  // model's pick, selected until kiln-tune measures them).
  llvm::DenseMap<int64_t, uint32_t> choiceOf; // step -> Step::choice
  for (auto [step, call] : llvm::enumerate(calls)) {
    auto it = gpu.choices.find(call.getCallee().str());
    if (it == gpu.choices.end())
      continue;
    plan::Choice choice;
    choice.key = it->second.key;
    choice.name = kernelLabel(call, call.getCallee());
    if (!it->second.shapes.empty())
      choice.name += " GEMM " + it->second.shapes;
    for (const compiler::GpuModuleResult::Variant &v : it->second.variants)
      choice.variants.push_back(v.tactics);
    choiceOf[step] = writer.addChoice(std::move(choice));
  }
  // TMA tensor maps: a TensorMap buffer (128 bytes of the context's table)
  // per (step, kernel function, argument), shared by the cubin and PTX
  // modules' step lists, encoded by the runtime over the source buffer.
  std::map<std::tuple<size_t, std::string, unsigned>, uint32_t> tensorMapOf;
  uint64_t tensorMapTable = 0;
  auto tensorMapBuffer = [&](size_t step, const std::string &fn, unsigned arg,
                             const compiler::GpuTensorMapArg &t,
                             ArrayRef<uint32_t> buffers) -> FailureOr<uint32_t> {
    auto key = std::make_tuple(step, fn, arg);
    if (auto it = tensorMapOf.find(key); it != tensorMapOf.end())
      return it->second;
    std::optional<plan::DType> dtype = toDType(t.elementType);
    if (!dtype || size_t(t.source) >= buffers.size())
      return module.emitError("GPU kernel function ")
             << fn << ": tensor map argument " << arg
             << " has no plan buffer for its source argument " << t.source;
    plan::TensorMap map;
    uint32_t mapBuffer = writer.addBuffer(plan::BufferKind::TensorMap, 128,
                                           tensorMapTable, 64);
    map.buffer = mapBuffer;
    tensorMapTable += 128;
    map.source = buffers[t.source];
    map.sourceOffset = uint64_t(t.offset);
    map.dtype = *dtype;
    map.dims.assign(t.dims.begin(), t.dims.end());
    map.strides.assign(t.strides.begin(), t.strides.end());
    map.box.assign(t.box.begin(), t.box.end());
    map.swizzle = uint8_t(t.swizzle);
    writer.addTensorMap(std::move(map));
    ++report.tensorMaps;
    tensorMapOf[key] = mapBuffer;
    return mapBuffer;
  };
  // Per GPU target: the cubin module, then the PTX module (kept for JIT on
  // newer GPUs); each with the whole step list.
  for (const compiler::GpuBinary &bin : gpu.binaries) {
    std::string ptx = bin.ptx;
    ptx.push_back('\0');
    std::pair<plan::ModuleFormat, std::pair<const char *, size_t>> mods[] = {
        {plan::ModuleFormat::Cubin, {bin.cubin.data(), bin.cubin.size()}},
        {plan::ModuleFormat::Ptx, {ptx.data(), ptx.size()}}};
    for (auto &[format, data] : mods) {
      uint32_t mod = writer.addModule(bin.target, format, data.first, data.second);
      llvm::StringMap<uint32_t> kernelIndex;
      for (auto [step, call] : llvm::enumerate(calls)) {
        SmallVector<uint32_t> buffers = callBuffers(call);
        auto scratch = scratchBuffer.find(step);
        std::vector<std::string> fns = variantsOf(call.getCallee().str());
        for (auto [variant, fn] : llvm::enumerate(fns)) {
          const compiler::GpuKernelLaunches &info = gpu.kernels[fn];
          for (const compiler::GpuLaunch &launch : info.launches) {
            auto [it, fresh] = kernelIndex.try_emplace(launch.symbol, 0);
            if (fresh)
              it->second = writer.addKernel(kernelLabel(call, launch.symbol),
                                            mod, launch.symbol);
            plan::Step s;
            s.kernel = it->second;
            if (fns.size() > 1) {
              s.choice = choiceOf.lookup(step);
              s.variant = variant;
            }
            for (unsigned a : launch.args) {
              if (auto t = info.tensorMaps.find(a);
                  t != info.tensorMaps.end()) {
                FailureOr<uint32_t> buffer =
                    tensorMapBuffer(step, fn, a, t->second, buffers);
                if (failed(buffer))
                  return failure();
                s.args.push_back({*buffer, 0});
                continue;
              }
              if (int64_t(a) == info.scratchArg &&
                  scratch != scratchBuffer.end()) {
                s.args.push_back({scratch->second, 0});
                continue;
              }
              if (a >= buffers.size())
                return module.emitError("GPU kernel ")
                       << launch.symbol << " takes argument " << a << " of "
                       << fn << ", which has " << buffers.size();
              s.args.push_back({buffers[a], 0});
            }
            s.grid = launch.grid;
            s.block = launch.block;
            s.sharedMemBytes = launch.sharedMemBytes;
            writer.addStep(std::move(s));
          }
        }
      }
    }
  }
  writer.setMinDriverVersion(compiler::gpuMinDriverVersion(gpuTargets));
  std::vector<uint8_t> bytes;
  plan::Status st = writer.serialize(bytes);
  if (st.ok())
    st = writer.writeFileAtomically(outputPath.str());
  if (!st.ok())
    return module.emitError("cannot write plan '")
           << outputPath << "': " << st.message();
  report.planBytes = bytes.size();
  lap("plan export");
  return success();
}
