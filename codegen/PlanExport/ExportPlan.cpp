//===- ExportPlan.cpp - @main, kernels and records into a plan ------------===//
//
// kiln-export-plan: see codegen/Passes.td. The plan format is
// include/kiln/Plan/PlanIO.h (runtime/PLAN_FORMAT.md).
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "codegen/PlanExport/PlanExport.h"
#include "codegen/Targets/Targets.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Plan/IR/PlanDialect.h"
#include "kiln/Plan/PlanIO.h"
#include "kiln/Provenance.h"
#include "passes/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/DenseMap.h"

#include <map>
#include <tuple>

namespace kiln::codegen {
#define GEN_PASS_DEF_EXPORTPLANPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;
using namespace kiln;
using namespace kiln::codegen;
namespace plan = kiln::plan;

namespace {

std::optional<plan::DType> toDType(Type t) {
  if (t.isF32())
    return plan::DType::f32;
  if (t.isF16())
    return plan::DType::f16;
  if (t.isBF16())
    return plan::DType::bf16;
  if (t.isF64())
    return plan::DType::f64;
  if (t.isInteger(1))
    return plan::DType::boolean;
  if (auto i = dyn_cast<IntegerType>(t)) {
    bool u = i.isUnsigned();
    switch (i.getWidth()) {
    case 8:
      return u ? plan::DType::u8 : plan::DType::i8;
    case 16:
      return u ? plan::DType::u16 : plan::DType::i16;
    case 32:
      return u ? plan::DType::u32 : plan::DType::i32;
    case 64:
      return u ? plan::DType::u64 : plan::DType::i64;
    default:
      break;
    }
  }
  return std::nullopt;
}

uint64_t byteSize(RankedTensorType t) {
  unsigned bits = t.getElementType().getIntOrFloatBitWidth();
  return t.getNumElements() * ((bits + 7) / 8);
}

/// The ONNX node a location names ("" if none): kernels are reported by it.
std::string nodeNameOf(Location loc) {
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

/// The row-major bytes of a constant's value (bool: one byte per element);
/// on failure `error` says why.
bool elementsBytes(Attribute value, RankedTensorType type,
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
LogicalResult weightBytes(graph::ConstantOp cst, std::vector<char> &out) {
  auto type = cast<RankedTensorType>(cst.getType());
  std::string error;
  if (!elementsBytes(cst.getValue(), type, out, error))
    return cst.emitOpError("weight ") << error;
  return success();
}

/// A view shares its source's buffer.
Value viewRoot(Value v) {
  while (Operation *def = v.getDefiningOp())
    if (graph::isStaticView(def))
      v = def->getOperand(0);
    else
      break;
  return v;
}

/// A GPU target's PTX (NUL-terminated, as the runtime hands it to the JIT)
/// and cubin.
struct GpuBinary {
  std::string target;
  std::string ptx;
  StringRef cubin;
};

struct ExportPlanPass
    : kiln::codegen::impl::ExportPlanPassBase<ExportPlanPass> {
  KILN_PASS_STATISTICS_ExportPlanPass using Base::Base;
  ExportPlanPass(const ExportPlanPassOptions &options,
                 std::vector<uint8_t> *sink,
                 const CompileOptions *compileOptions)
      : Base(options), sink(sink) {
    if (compileOptions)
      this->compileOptions = *compileOptions;
  }

  void runOnOperation() override {
    if (failed(exportPlan()))
      signalPassFailure();
    markAllAnalysesPreserved();
  }

  LogicalResult exportPlan();

  /// The plan's provenance: the model's entries on the module, then the
  /// compiler's and the build's.
  LogicalResult addProvenance(ModuleOp module, plan::PlanWriter &writer);

  /// kilnc's copy of the serialized plan (null: none).
  std::vector<uint8_t> *sink = nullptr;
  /// The whole pipeline's options (kiln-compile); none when the pass runs
  /// alone, which records only its own options.
  std::optional<CompileOptions> compileOptions;
};

LogicalResult ExportPlanPass::addProvenance(ModuleOp module,
                                            plan::PlanWriter &writer) {
  if (Attribute attr = module->getAttr(kProvenanceAttr)) {
    auto entries = dyn_cast<ArrayAttr>(attr);
    if (!entries)
      return module.emitError(kProvenanceAttr)
             << " must be an array of [key, value] string pairs";
    for (Attribute e : entries) {
      auto pair = dyn_cast<ArrayAttr>(e);
      if (!pair || pair.size() != 2 || !isa<StringAttr>(pair[0]) ||
          !isa<StringAttr>(pair[1]))
        return module.emitError(kProvenanceAttr)
               << " must be an array of [key, value] string pairs, got " << e;
      writer.addProvenance(cast<StringAttr>(pair[0]).getValue().str(),
                           cast<StringAttr>(pair[1]).getValue().str());
    }
  }
  ProvenanceEntries entries;
  std::string error;
  if (compileOptions) {
    if (!compilerProvenance(*compileOptions, entries, error))
      return module.emitError(error);
  } else {
    entries.emplace_back("compiler.version",
                         std::string("kilnc ") + plan::kilnVersion());
    entries.emplace_back("options.targets", llvm::join(targets, ","));
    entries.emplace_back("options.strip_weights",
                         stripWeightsProvenance(stripWeights, stripThreshold));
  }
  if (!buildProvenance(entries, error))
    return module.emitError(error);
  for (auto &[key, value] : entries)
    writer.addProvenance(key, value);
  return success();
}

LogicalResult ExportPlanPass::exportPlan() {
  ModuleOp module = getOperation();
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main)
    return module.emitError("expected a func.func @main (the imported graph)");
  std::vector<std::string> targetList(targets.begin(), targets.end());
  if (targetList.empty())
    return module.emitError("kiln-export-plan needs the plan's targets");
  std::vector<std::string> gpuTargets;
  bool wantHost = false;
  for (const std::string &t : targetList) {
    if (t == "host")
      wantHost = true;
    else if (isGpuTarget(t))
      gpuTargets.push_back(t);
    else
      return module.emitError("unknown target '")
             << t << "': use host or one of " << knownGpuTargets();
  }

  // What codegen made: the host shared object, the GPU binaries and the
  // launch records of each kernel function.
  StringRef so;
  if (wantHost) {
    auto hosts = module.getOps<planir::HostKernelsOp>();
    StringAttr object =
        hosts.empty()
            ? StringAttr()
            : (*hosts.begin())
                  .getModule()
                  ->getAttrOfType<StringAttr>(planir::kSharedObjectAttr);
    if (!object)
      return module.emitError("expected the host kernels' shared object "
                              "(run the host pipeline first)");
    so = object.getValue();
  }
  std::vector<GpuBinary> binaries;
  llvm::StringMap<planir::KernelOp> records;
  if (!gpuTargets.empty()) {
    auto gpuOps = module.getOps<planir::GpuKernelsOp>();
    if (gpuOps.empty())
      return module.emitError("expected the GPU kernels (run the GPU "
                              "pipeline first)");
    ModuleOp kernels = (*gpuOps.begin()).getModule();
    auto binary = kernels.lookupSymbol<gpu::BinaryOp>(kMergedName);
    if (!binary)
      return module.emitError("expected gpu.binary @")
             << kMergedName << " in the GPU kernels";
    for (Attribute a : binary.getObjects()) {
      auto object = cast<gpu::ObjectAttr>(a);
      auto target = dyn_cast<NVVM::NVVMTargetAttr>(object.getTarget());
      if (!target)
        return binary.emitOpError("has a non-NVVM object");
      StringRef chip = target.getChip();
      auto it = llvm::find_if(
          binaries, [&](const GpuBinary &b) { return b.target == chip; });
      if (it == binaries.end()) {
        binaries.push_back({chip.str(), "", ""});
        it = std::prev(binaries.end());
      }
      if (object.getFormat() == gpu::CompilationTarget::Assembly)
        it->ptx = object.getObject().getValue().str();
      else if (object.getFormat() == gpu::CompilationTarget::Binary)
        it->cubin = object.getObject().getValue();
    }
    for (const GpuBinary &b : binaries)
      if (b.ptx.empty() || b.cubin.empty())
        return binary.emitOpError("needs PTX and a cubin for ")
               << b.target << " (run kiln-gpu-ptxas)";
    for (auto record : kernels.getOps<planir::KernelOp>())
      records[record.getSymName()] = record;
  }

  // The step list: calls of @main in order.
  Block &body = main.getBody().front();
  SmallVector<func::CallOp> calls;
  SmallVector<func::CallOp> elidedConcats;
  for (Operation &op : body.without_terminator()) {
    if (auto call = dyn_cast<func::CallOp>(op)) {
      if (call->hasAttr(planir::kElidedConcatAttr))
        elidedConcats.push_back(call);
      else
        calls.push_back(call);
      continue;
    }
    if (isa<graph::ConstantOp>(op) || graph::isStaticView(&op))
      continue;
    return op.emitOpError("was not placed in a kernel");
  }
  // The kernel functions of a call's region: itself, or its tactic
  // variants (--tactics all; the first is itself).
  auto variantsOf = [&](StringRef name) {
    std::vector<std::string> fns;
    planir::KernelOp record = records.lookup(name);
    std::optional<planir::ChoiceAttr> choice =
        record ? record.getChoice() : std::nullopt;
    if (!choice)
      return std::vector<std::string>{name.str()};
    for (Attribute v : choice->getVariants())
      fns.push_back(
          cast<planir::VariantAttr>(v).getFunction().getValue().str());
    return fns;
  };
  if (!gpuTargets.empty())
    for (func::CallOp call : calls)
      for (const std::string &fn : variantsOf(call.getCallee()))
        if (!records.lookup(fn))
          return call.emitOpError("calls a kernel function with no launch "
                                  "record: @")
                 << fn;

  plan::PlanWriter writer;
  for (const std::string &t : targetList)
    writer.addTarget(t);
  llvm::DenseMap<Value, uint32_t> bufferOf;
  for (auto [i, arg] : llvm::enumerate(main.getArguments())) {
    auto t = cast<RankedTensorType>(arg.getType());
    auto dtype = toDType(t.getElementType());
    if (!dtype)
      return emitError(arg.getLoc(), "input element type ")
             << t.getElementType() << " is not supported by plans";
    plan::TensorDesc desc{
        graph::graphValueName(main, /*input=*/true, i),
        *dtype,
        std::vector<int64_t>(t.getShape().begin(), t.getShape().end()),
        {}};
    // An input fixed at build time (kilnc --input-value) stays bound; the
    // runtime checks that callers bind exactly this value.
    std::vector<uint8_t> fixed;
    if (auto value =
            main.getArgAttrOfType<ElementsAttr>(i, "kiln.fixed_value")) {
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
      return emitError(v.getLoc(), "output element type ")
             << t.getElementType() << " is not supported by plans";
    plan::TensorDesc desc{
        graph::graphValueName(main, /*input=*/false, i),
        *dtype,
        std::vector<int64_t>(t.getShape().begin(), t.getShape().end()),
        {}};
    bufferOf[v] = writer.addOutput(desc);
  }
  // Weights: constants that kernels read (maybe through a view).
  for (func::CallOp call : calls)
    for (Value operand : call.getOperands()) {
      Value r = viewRoot(operand);
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
      bool strip = stripWeights &&
                   bytes.size() >= std::max<uint64_t>(stripThreshold, 1) &&
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
            strip && partBytes >= std::max<uint64_t>(stripThreshold, 1);
        uint32_t index = stripPart
                             ? writer.addStrippedWeightBuffer(data, partBytes)
                             : writer.addWeightBuffer(data, partBytes);
        if (p == 0)
          bufferOf[r] = index;
        ++numWeights;
        numWeightBytes += partBytes;
        if (stripPart) {
          ++numStripped;
          numStrippedBytes += partBytes;
        }
      }
    }
  // Activations: kernel results not bound to outputs, live from their step
  // to the last step reading them or a view of them.
  llvm::DenseMap<Value, int64_t> lastUse;
  for (auto [step, call] : llvm::enumerate(calls))
    for (Value operand : call.getOperands())
      lastUse[viewRoot(operand)] = step;
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
      for (const std::string &fn : variantsOf(call.getCallee()))
        bytes = std::max<uint64_t>(
            bytes, records.lookup(fn).getScratchBytesAttr().getInt());
      if (bytes == 0)
        continue;
      scratchOf.push_back({(int64_t)step, intervals.size()});
      intervals.push_back({bytes, (int64_t)step, (int64_t)step});
    }
  uint64_t peak = 0, withoutReuse = 0;
  std::vector<uint64_t> offsets = planArena(intervals, 64, peak, withoutReuse);
  for (auto [v, interval, offset] : llvm::zip(
           activations, ArrayRef(intervals).take_front(activations.size()),
           ArrayRef(offsets).take_front(activations.size())))
    bufferOf[v] =
        writer.addBuffer(plan::BufferKind::Activation,
                         std::max<uint64_t>(interval.size, 1), offset, 64);
  for (auto [slice, whole] : sliceOf)
    bufferOf[slice] = bufferOf.lookup(whole);
  llvm::DenseMap<int64_t, uint32_t> scratchBuffer; // step -> buffer
  for (auto [step, index] : scratchOf)
    scratchBuffer[step] = writer.addBuffer(
        plan::BufferKind::Scratch, intervals[index].size, offsets[index], 64);
  writer.setArenaBytes(peak, withoutReuse);
  numArenaBytes += peak;
  numArenaBytesWithoutReuse += withoutReuse;

  // The buffers of a call's kernel function arguments: operands, results.
  auto callBuffers = [&](func::CallOp call) {
    SmallVector<uint32_t> buffers;
    for (Value v : llvm::concat<Value>(call.getOperands(), call.getResults())) {
      auto it = bufferOf.find(viewRoot(v));
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
    numHostModuleBytes += so.size();
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
  if (!gpuTargets.empty())
    for (auto [step, call] : llvm::enumerate(calls)) {
      std::optional<planir::ChoiceAttr> c =
          records.lookup(call.getCallee()).getChoice();
      if (!c)
        continue;
      plan::Choice choice;
      choice.key = c->getKey().str();
      choice.name = kernelLabel(call, call.getCallee());
      if (!c->getShapes().empty())
        choice.name += " GEMM " + c->getShapes().str();
      for (Attribute v : c->getVariants())
        choice.variants.push_back(
            cast<planir::VariantAttr>(v).getTactics().str());
      choiceOf[step] = writer.addChoice(std::move(choice));
    }
  // TMA tensor maps: a TensorMap buffer (128 bytes of the context's table)
  // per (step, kernel function, argument), shared by the cubin and PTX
  // modules' step lists, encoded by the runtime over the source buffer.
  std::map<std::tuple<size_t, std::string, unsigned>, uint32_t> tensorMapOf;
  uint64_t tensorMapTable = 0;
  auto tensorMapBuffer =
      [&](size_t step, const std::string &fn, unsigned arg,
          planir::TensorMapAttr t,
          ArrayRef<uint32_t> buffers) -> FailureOr<uint32_t> {
    auto key = std::make_tuple(step, fn, arg);
    if (auto it = tensorMapOf.find(key); it != tensorMapOf.end())
      return it->second;
    std::optional<plan::DType> dtype = toDType(t.getElementType());
    if (!dtype || t.getSource() < 0 || size_t(t.getSource()) >= buffers.size())
      return module.emitError("GPU kernel function ")
             << fn << ": tensor map argument " << arg
             << " has no plan buffer for its source argument " << t.getSource();
    plan::TensorMap map;
    uint32_t mapBuffer =
        writer.addBuffer(plan::BufferKind::TensorMap, 128, tensorMapTable, 64);
    map.buffer = mapBuffer;
    tensorMapTable += 128;
    map.source = buffers[t.getSource()];
    map.sourceOffset = uint64_t(t.getOffset());
    map.dtype = *dtype;
    map.dims.assign(t.getDims().asArrayRef().begin(),
                    t.getDims().asArrayRef().end());
    map.strides.assign(t.getStrides().asArrayRef().begin(),
                       t.getStrides().asArrayRef().end());
    map.box.assign(t.getBox().asArrayRef().begin(),
                   t.getBox().asArrayRef().end());
    map.swizzle = uint8_t(t.getSwizzle());
    writer.addTensorMap(std::move(map));
    ++numTensorMaps;
    tensorMapOf[key] = mapBuffer;
    return mapBuffer;
  };
  // Per GPU target: the cubin module, then the PTX module (kept for JIT on
  // newer GPUs); each with the whole step list.
  for (const GpuBinary &bin : binaries) {
    std::string ptx = bin.ptx;
    ptx.push_back('\0');
    std::pair<plan::ModuleFormat, std::pair<const char *, size_t>> mods[] = {
        {plan::ModuleFormat::Cubin, {bin.cubin.data(), bin.cubin.size()}},
        {plan::ModuleFormat::Ptx, {ptx.data(), ptx.size()}}};
    for (auto &[format, data] : mods) {
      uint32_t mod =
          writer.addModule(bin.target, format, data.first, data.second);
      llvm::StringMap<uint32_t> kernelIndex;
      for (auto [step, call] : llvm::enumerate(calls)) {
        SmallVector<uint32_t> buffers = callBuffers(call);
        auto scratch = scratchBuffer.find(step);
        std::vector<std::string> fns = variantsOf(call.getCallee());
        for (auto [variant, fn] : llvm::enumerate(fns)) {
          planir::KernelOp info = records.lookup(fn);
          int64_t scratchArg = info.getScratchArgAttr().getInt();
          ArrayRef<int64_t> mapArgs = info.getTensorMapArgs();
          for (Attribute a : info.getLaunches()) {
            auto launch = cast<planir::LaunchAttr>(a);
            StringRef symbol = launch.getKernel().getLeafReference();
            auto [it, fresh] = kernelIndex.try_emplace(symbol, 0);
            if (fresh)
              it->second = writer.addKernel(kernelLabel(call, symbol), mod,
                                            symbol.str());
            plan::Step s;
            s.kernel = it->second;
            if (fns.size() > 1) {
              s.choice = choiceOf.lookup(step);
              s.variant = variant;
            }
            for (int64_t arg : launch.getArgs().asArrayRef()) {
              unsigned a = unsigned(arg);
              if (auto m = llvm::find(mapArgs, arg); m != mapArgs.end()) {
                auto map = cast<planir::TensorMapAttr>(
                    info.getTensorMaps()[m - mapArgs.begin()]);
                FailureOr<uint32_t> buffer =
                    tensorMapBuffer(step, fn, a, map, buffers);
                if (failed(buffer))
                  return failure();
                s.args.push_back({*buffer, 0});
                continue;
              }
              if (arg == scratchArg && scratch != scratchBuffer.end()) {
                s.args.push_back({scratch->second, 0});
                continue;
              }
              if (a >= buffers.size())
                return module.emitError("GPU kernel ")
                       << symbol << " takes argument " << a << " of " << fn
                       << ", which has " << buffers.size();
              s.args.push_back({buffers[a], 0});
            }
            ArrayRef<int64_t> grid = launch.getGrid().asArrayRef();
            ArrayRef<int64_t> block = launch.getBlock().asArrayRef();
            for (int d = 0; d < 3; ++d) {
              s.grid[d] = uint32_t(grid[d]);
              s.block[d] = uint32_t(block[d]);
            }
            s.sharedMemBytes = uint32_t(launch.getSharedMemory());
            writer.addStep(std::move(s));
          }
        }
      }
    }
  }
  writer.setMinDriverVersion(gpuMinDriverVersion(gpuTargets));
  if (failed(addProvenance(module, writer)))
    return failure();
  std::vector<uint8_t> bytes;
  plan::Status st = writer.serialize(bytes);
  if (st.ok() && !output.empty())
    st = plan::writeFileAtomically(
        output, {plan::ByteSpan{bytes.data(), bytes.size()}}, "plan");
  if (!st.ok())
    return module.emitError("cannot write plan '")
           << (output.empty() ? std::string("(in memory)") : output)
           << "': " << st.message();
  numPlanBytes += bytes.size();
  if (sink)
    *sink = std::move(bytes);
  return success();
}

} // namespace

std::unique_ptr<Pass>
kiln::codegen::createExportPlanPass(const ExportPlanPassOptions &options,
                                    std::vector<uint8_t> *planBytes,
                                    const CompileOptions *compileOptions) {
  return std::make_unique<ExportPlanPass>(options, planBytes, compileOptions);
}
