//===- ConvertPrecision.cpp - f32 computation of @main in f16 or bf16 -----===//
//
// kiln-convert-precision: see passes/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "kiln/Plan/Float16.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Verifier.h"

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>

namespace kiln::graph {
#define GEN_PASS_DEF_CONVERTPRECISIONPASS
#include "passes/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;
using namespace kiln::graph;

namespace {

/// The model node an op was imported from ("" when its location names
/// none).
StringRef nodeOf(Operation *op) {
  if (auto name = dyn_cast<NameLoc>(op->getLoc()))
    return name.getName().strref();
  return {};
}

/// The largest |x| of an f32 elements attribute (0 for other values, -1
/// when it holds a NaN).
double maxAbs(ElementsAttr value) {
  auto fold = [](ArrayRef<float> data) {
    double m = 0;
    for (float f : data) {
      if (std::isnan(f))
        return -1.0;
      m = std::max(m, double(std::fabs(f)));
    }
    return m;
  };
  if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
    if (!dense.getElementType().isF32())
      return 0;
    std::vector<float> data(dense.getValues<float>().begin(),
                            dense.getValues<float>().end());
    return fold(data);
  }
  if (auto res = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = res.getRawHandle().getBlob();
    if (!blob || blob->getData().size() % 4)
      return 0;
    ArrayRef<char> raw = blob->getData();
    std::vector<float> data(raw.size() / 4);
    std::memcpy(data.data(), raw.data(), raw.size());
    return fold(data);
  }
  return 0;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", v);
  return buf;
}

struct Converter {
  FloatType target;
  bool bf16;
  int64_t values = 0, weights = 0;
  /// NODE (or graph input) -> largest |x| over calibration data.
  llvm::StringMap<double> ranges;
  /// fp16 keeps an op in f32 when a value it touches reaches this.
  static constexpr double kIslandLimit = 16384;
  static constexpr double kF16Max = 65504;
  llvm::SmallPtrSet<Operation *, 16> kept;
  /// Kept weights f16 cannot hold -> their largest |w| (scanned once).
  llvm::DenseMap<Operation *, double> bigWeights;
  std::vector<std::string> islands; ///< "node: reason", in op order

  RankedTensorType convert(RankedTensorType t) const {
    return t.getElementType().isF32() ? t.clone(target) : t;
  }

  std::vector<uint16_t> convertData(ArrayRef<float> in) const {
    std::vector<uint16_t> out(in.size());
    for (size_t i = 0; i < in.size(); ++i)
      out[i] =
          bf16 ? kiln::plan::floatToBF16(in[i]) : kiln::plan::floatToF16(in[i]);
    return out;
  }

  /// The attribute `value` converted to the reduced type; null if it is not
  /// an f32 elements attribute kiln knows how to read.
  ElementsAttr convertAttr(ElementsAttr value, RankedTensorType newType) const {
    std::vector<float> data;
    if (auto dense = dyn_cast<DenseElementsAttr>(value)) {
      if (!dense.getElementType().isF32())
        return {};
      if (dense.isSplat()) {
        std::vector<uint16_t> one = convertData({dense.getSplatValue<float>()});
        return DenseElementsAttr::getFromRawBuffer(
            newType, ArrayRef<char>((const char *)one.data(), 2));
      }
      auto vals = dense.getValues<float>();
      data.assign(vals.begin(), vals.end());
      std::vector<uint16_t> out = convertData(data);
      return DenseElementsAttr::getFromRawBuffer(
          newType, ArrayRef<char>((const char *)out.data(), out.size() * 2));
    }
    if (auto res = dyn_cast<DenseResourceElementsAttr>(value)) {
      AsmResourceBlob *blob = res.getRawHandle().getBlob();
      if (!blob)
        return {};
      ArrayRef<char> raw = blob->getData();
      if (raw.size() % 4 != 0)
        return {};
      data.resize(raw.size() / 4);
      std::memcpy(data.data(), raw.data(), raw.size());
      std::vector<uint16_t> out = convertData(data);
      AsmResourceBlob newBlob = HeapAsmResourceBlob::allocateAndCopyWithAlign(
          ArrayRef<char>((const char *)out.data(), out.size() * 2), 8);
      std::string key =
          (res.getRawHandle().getKey() + "_" + (bf16 ? "bf16" : "f16")).str();
      return DenseResourceElementsAttr::get(newType, key, std::move(newBlob));
    }
    return {};
  }

  /// The calibrated range of `v` (graph inputs by their kiln.name, op
  /// results by their node), or nothing.
  std::optional<double> rangeOf(func::FuncOp main, Value v) const {
    std::string name;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (auto n = main.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                     "kiln.name"))
        name = n.str();
    } else {
      name = nodeOf(v.getDefiningOp()).str();
    }
    auto it = ranges.find(name);
    if (name.empty() || it == ranges.end())
      return std::nullopt;
    return it->second;
  }

  /// fp16: which ops stay in f32, and why.
  void chooseIslands(func::FuncOp main) {
    if (bf16)
      return; // bf16 has f32's range
    auto isF32 = [](Value v) {
      auto t = dyn_cast<RankedTensorType>(v.getType());
      return t && t.getElementType().isF32();
    };
    for (Operation &op : main.getBody().front().without_terminator()) {
      if (auto cst = dyn_cast<ConstantOp>(op)) {
        // A weight f16 cannot hold stays f32 (its readers too, below).
        if (!isF32(cst.getResult()))
          continue;
        if (double m = maxAbs(cst.getValue()); m > kF16Max) {
          kept.insert(cst);
          bigWeights[cst] = m;
        }
        continue;
      }
      if (op.getNumRegions())
        continue;
      std::string reason;
      for (Value r : op.getResults())
        if (std::optional<double> m = rangeOf(main, r);
            isF32(r) && m && *m >= kIslandLimit && reason.empty())
          reason = "output max |x| " + number(*m) + " on the calibration data";
      for (Value v : op.getOperands()) {
        if (!isF32(v) || !reason.empty())
          continue;
        Operation *def = v.getDefiningOp();
        if (def && !isa<ConstantOp>(def) && kept.contains(def) &&
            !rangeOf(main, v)) {
          // An island's value of unknown range (no calibration data):
          // narrowing it could overflow, so its readers stay f32 too.
          StringRef from = nodeOf(def);
          reason = "reads the f32 value of " +
                   (from.empty() ? std::string("an island")
                                 : "'" + from.str() + "'") +
                   ", whose range no calibration data gives";
          continue;
        }
        if (isa_and_nonnull<ConstantOp>(def)) {
          if (auto big = bigWeights.find(def); big != bigWeights.end())
            reason = "a weight with |w| up to " + number(big->second) +
                     ", beyond f16's 65504";
        } else if (std::optional<double> m = rangeOf(main, v);
                   m && *m >= kIslandLimit) {
          reason = "an input with max |x| " + number(*m) +
                   " on the calibration data";
        }
      }
      if (reason.empty())
        continue;
      kept.insert(&op);
      StringRef node = nodeOf(&op);
      islands.push_back(
          (node.empty() ? op.getName().getStringRef() : node).str() + " (" +
          op.getName().getStringRef().str() + "): " + reason);
    }
  }

  /// Joins the islands to the converted ops with casts.
  void joinIslands(func::FuncOp main) {
    OpBuilder b(main.getContext());
    llvm::DenseMap<Value, Value> narrowed; // island value -> reduced copy
    for (Operation &op : llvm::make_early_inc_range(
             main.getBody().front().without_terminator())) {
      if (kept.contains(&op)) {
        for (OpOperand &use : op.getOpOperands()) {
          auto t = dyn_cast<RankedTensorType>(use.get().getType());
          if (!t || t.getElementType() != target)
            continue;
          auto f32 = t.clone(Float32Type::get(main.getContext()));
          if (auto cast = use.get().getDefiningOp<CastOp>();
              cast && cast.getOperand().getType() == f32) {
            use.set(cast.getOperand()); // a graph input's entry cast
            continue;
          }
          b.setInsertionPoint(&op);
          use.set(CastOp::create(b, op.getLoc(), f32, use.get()));
        }
        continue;
      }
      for (OpOperand &use : op.getOpOperands()) {
        Operation *def = use.get().getDefiningOp();
        if (!def || !kept.contains(def))
          continue;
        auto t = dyn_cast<RankedTensorType>(use.get().getType());
        if (!t || !t.getElementType().isF32())
          continue;
        Value &n = narrowed[use.get()];
        if (!n) {
          b.setInsertionPointAfter(def);
          n = CastOp::create(b, def->getLoc(), t.clone(target), use.get());
        }
        use.set(n);
      }
    }
  }

  LogicalResult run(func::FuncOp main) {
    Block &body = main.getBody().front();
    OpBuilder b(main.getContext());
    chooseIslands(main);
    // Weights read by islands stay f32: a copy for the islands when
    // converted ops read them too.
    for (Operation &op :
         llvm::make_early_inc_range(body.without_terminator())) {
      auto cst = dyn_cast<ConstantOp>(op);
      if (!cst || kept.empty() || kept.contains(cst))
        continue;
      bool byIslands = false, byOthers = false;
      for (Operation *user : cst->getUsers())
        (kept.contains(user) ? byIslands : byOthers) = true;
      if (!byIslands)
        continue;
      if (!byOthers) {
        kept.insert(cst);
        continue;
      }
      b.setInsertionPointAfter(cst);
      Operation *copy = b.clone(*cst);
      kept.insert(copy);
      cst.getResult().replaceUsesWithIf(copy->getResult(0), [&](OpOperand &u) {
        return kept.contains(u.getOwner());
      });
    }
    // Inputs: cast on entry.
    b.setInsertionPointToStart(&body);
    for (BlockArgument arg : body.getArguments()) {
      auto t = dyn_cast<RankedTensorType>(arg.getType());
      if (!t || !t.getElementType().isF32() || arg.use_empty())
        continue;
      auto cast = CastOp::create(b, arg.getLoc(), convert(t), arg);
      arg.replaceAllUsesExcept(cast.getResult(), cast);
      ++values;
    }
    for (Operation &op : body.without_terminator()) {
      if (kept.contains(&op))
        continue;
      if (auto cst = dyn_cast<ConstantOp>(op)) {
        auto t = cast<RankedTensorType>(cst.getType());
        if (!t.getElementType().isF32())
          continue;
        ElementsAttr v = convertAttr(cst.getValue(), convert(t));
        if (!v)
          return cst.emitOpError("has an f32 value kiln cannot convert to ")
                 << target;
        cst.setValueAttr(v);
        cst.getResult().setType(convert(t));
        ++weights;
        continue;
      }
      if (auto cos = dyn_cast<ConstantOfShapeOp>(op)) {
        auto t = cast<RankedTensorType>(cos.getType());
        if (t.getElementType().isF32()) {
          auto vt = cast<RankedTensorType>(cos.getValue().getType());
          ElementsAttr v = convertAttr(cos.getValue(), convert(vt));
          if (!v)
            return cos.emitOpError("has a value kiln cannot convert");
          cos.setValueAttr(v);
        }
      }
      for (OpResult r : op.getResults())
        if (auto t = dyn_cast<RankedTensorType>(r.getType());
            t && t.getElementType().isF32()) {
          r.setType(convert(t));
          ++values;
        }
    }
    joinIslands(main);
    // Entry casts that only islands read are gone.
    for (Operation &op : llvm::make_early_inc_range(body.without_terminator()))
      if (auto cast = dyn_cast<CastOp>(op);
          cast && cast.use_empty() && isa<BlockArgument>(cast.getOperand()))
        cast.erase();
    // Outputs: back to f32.
    Operation *ret = body.getTerminator();
    b.setInsertionPoint(ret);
    for (OpOperand &operand : ret->getOpOperands()) {
      auto t = dyn_cast<RankedTensorType>(operand.get().getType());
      auto declared = dyn_cast<RankedTensorType>(
          main.getFunctionType().getResult(operand.getOperandNumber()));
      if (!t || !declared || t == declared)
        continue;
      operand.set(
          CastOp::create(b, operand.get().getLoc(), declared, operand.get()));
    }
    return verify(main);
  }
};

struct ConvertPrecisionPass
    : kiln::graph::impl::ConvertPrecisionPassBase<ConvertPrecisionPass> {
  KILN_PASS_STATISTICS_ConvertPrecisionPass using Base::Base;
  void runOnOperation() override {
    int64_t v = 0, w = 0, k = 0;
    std::vector<std::string> r(ranges.begin(), ranges.end());
    if (failed(convertPrecision(getOperation(), precision, r, &v, &w, &k)))
      return signalPassFailure();
    numConverted += v;
    numWeights += w;
    numKept += k;
  }
};

} // namespace

LogicalResult kiln::graph::convertPrecision(
    ModuleOp module, Precision precision, ArrayRef<std::string> ranges,
    int64_t *convertedValues, int64_t *convertedWeights, int64_t *keptOps) {
  MLIRContext *ctx = module.getContext();
  Converter c;
  for (const std::string &entry : ranges) {
    size_t eq = entry.rfind('=');
    double amax = 0;
    if (eq == std::string::npos || eq == 0 ||
        StringRef(entry).substr(eq + 1).getAsDouble(amax) || amax < 0)
      return module.emitError("kiln-convert-precision: range '")
             << entry << "' is not NODE=AMAX with AMAX >= 0";
    c.ranges[entry.substr(0, eq)] = amax;
  }
  if (precision == Precision::fp16) {
    c.target = Float16Type::get(ctx);
    c.bf16 = false;
  } else if (precision == Precision::bf16) {
    c.target = BFloat16Type::get(ctx);
    c.bf16 = true;
  } else {
    return module.emitError("kiln-convert-precision converts to fp16 or "
                            "bf16, got ")
           << stringify(precision);
  }
  auto main = module.lookupSymbol<func::FuncOp>("main");
  if (!main)
    return module.emitError("expected a func.func @main");
  if (failed(c.run(main)))
    return failure();
  if (!c.islands.empty()) {
    SmallVector<Attribute> list;
    for (const std::string &i : c.islands)
      list.push_back(StringAttr::get(ctx, i));
    module->setAttr("kiln.fp32_islands", ArrayAttr::get(ctx, list));
  }
  if (keptOps)
    *keptOps = int64_t(c.islands.size());
  if (convertedValues)
    *convertedValues = c.values;
  if (convertedWeights)
    *convertedWeights = c.weights;
  return success();
}
