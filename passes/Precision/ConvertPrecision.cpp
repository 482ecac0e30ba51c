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

#include <cstring>

namespace kiln::graph {
#define GEN_PASS_DEF_CONVERTPRECISIONPASS
#include "passes/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;
using namespace kiln::graph;

namespace {

struct Converter {
  FloatType target;
  bool bf16;
  int64_t values = 0, weights = 0;

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

  LogicalResult run(func::FuncOp main) {
    Block &body = main.getBody().front();
    OpBuilder b(main.getContext());
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
    int64_t v = 0, w = 0;
    if (failed(convertPrecision(getOperation(), precision, &v, &w)))
      return signalPassFailure();
    numConverted += v;
    numWeights += w;
  }
};

} // namespace

LogicalResult kiln::graph::convertPrecision(ModuleOp module,
                                            Precision precision,
                                            int64_t *convertedValues,
                                            int64_t *convertedWeights) {
  MLIRContext *ctx = module.getContext();
  Converter c;
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
  if (convertedValues)
    *convertedValues = c.values;
  if (convertedWeights)
    *convertedWeights = c.weights;
  return success();
}
