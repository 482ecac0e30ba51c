//===- ConvertPrecision.cpp - f32 computation of @main in f16 or bf16 -----===//
//
// kiln-convert-precision: see passes/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Graph/IR/GraphOps.h"

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

/// f32 → bf16, round to nearest even; NaNs stay quiet NaNs.
uint16_t toBF16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return uint16_t((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1u);
  return uint16_t(u >> 16);
}

/// f32 → f16, round to nearest even (subnormals, overflow to infinity, NaN).
uint16_t toF16(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  uint16_t sign = uint16_t((u >> 16) & 0x8000u);
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u)
    return sign | 0x7e00u; // NaN
  if (a >= 0x477ff000u)
    return sign | 0x7c00u; // rounds to infinity (>= 65520) or is one
  if (a >= 0x38800000u) {  // normal f16
    uint32_t r = a + 0x0fffu + ((a >> 13) & 1u);
    return sign | uint16_t((r - 0x38000000u) >> 13);
  }
  if (a < 0x33000000u) // below half the smallest subnormal: zero
    return sign;
  // Subnormal: value = m * 2^(e-150) with the hidden bit; f16 subnormal unit
  // is 2^-24, so shift right by (126 - e) - ... computed below.
  uint32_t e = a >> 23;
  uint32_t m = (a & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126 - e; // 14..24 for e in [102, 112]
  uint32_t q = m >> shift;
  uint32_t rem = m & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (q & 1u)))
    ++q;
  return sign | uint16_t(q);
}

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
      out[i] = bf16 ? toBF16(in[i]) : toF16(in[i]);
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
      std::string key = (res.getRawHandle().getKey() + "_" +
                         (bf16 ? "bf16" : "f16")).str();
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
      operand.set(CastOp::create(b, operand.get().getLoc(), declared,
                                 operand.get()));
    }
    return verify(main);
  }
};

struct ConvertPrecisionPass
    : kiln::graph::impl::ConvertPrecisionPassBase<ConvertPrecisionPass> {
  using Base::Base;
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
                                            StringRef precision,
                                            int64_t *convertedValues,
                                            int64_t *convertedWeights) {
  MLIRContext *ctx = module.getContext();
  Converter c;
  if (precision == "fp16") {
    c.target = Float16Type::get(ctx);
    c.bf16 = false;
  } else if (precision == "bf16") {
    c.target = BFloat16Type::get(ctx);
    c.bf16 = true;
  } else {
    return module.emitError("unknown precision '")
           << precision << "': use fp16 or bf16";
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
