//===- HandlersQuant.cpp - ONNX quantization ops --------------------------===//
#include "NodeContext.h"
#include "Tensors.h"

#include "dialects/Graph/IR/ShapeUtils.h"

using namespace mlir;
using namespace kiln::graph;

namespace kiln::onnx_import {
namespace {

/// A zero scalar of `elementType`, for absent zero points.
Value zeroPoint(NodeContext &n, Type elementType) {
  return n.constSplat(RankedTensorType::get({}, elementType), 0.0);
}

/// The quantization axis: only meaningful (and range-checked) when the scale
/// is per-axis; per-tensor ops keep the (unused) default 1.
std::optional<int64_t> quantAxis(NodeContext &n, Value x, Value scale) {
  int64_t raw = n.attrInt("axis", 1);
  auto s = n.typeOf(scale);
  if (s.getRank() == 0 || (s.hasStaticShape() && s.getNumElements() == 1))
    return 1;
  return n.normalizeAxis(raw, n.typeOf(x).getRank());
}

LogicalResult importQuantize(NodeContext &n) {
  Value x = n.input(0), scale = n.input(1), zp = n.optionalInput(2);
  if (!x || !scale)
    return failure();
  if (n.attrInt("block_size", 0) != 0)
    return n.fail("blocked quantization (block_size != 0) is not supported");
  if (!zp) {
    Type et = IntegerType::get(n.getContext(), 8, IntegerType::Unsigned);
    if (auto dtype = n.attrIntOpt("output_dtype"); dtype && *dtype != 0) {
      et = convertElementType(n.getContext(), *dtype);
      if (!et)
        return n.fail("unsupported output_dtype " + dataTypeName(*dtype));
    }
    zp = zeroPoint(n, et);
  }
  auto axis = quantAxis(n, x, scale);
  if (!axis)
    return failure();
  auto &b = n.builder();
  return n.setResults({n.createTyped<QuantizeLinearOp>(
      n.typeOf(x).clone(n.typeOf(zp).getElementType()), x, scale, zp,
      b.getI64IntegerAttr(*axis),
      b.getBoolAttr(n.attrInt("saturate", 1) != 0))});
}

LogicalResult importDequantize(NodeContext &n) {
  Value x = n.input(0), scale = n.input(1), zp = n.optionalInput(2);
  if (!x || !scale)
    return failure();
  if (n.attrInt("block_size", 0) != 0)
    return n.fail("blocked quantization (block_size != 0) is not supported");
  if (!zp)
    zp = zeroPoint(n, n.typeOf(x).getElementType());
  auto axis = quantAxis(n, x, scale);
  if (!axis)
    return failure();
  return n.setResults({n.createTyped<DequantizeLinearOp>(
      n.typeOf(x).clone(n.typeOf(scale).getElementType()), x, scale, zp,
      n.builder().getI64IntegerAttr(*axis))});
}

/// Shared by QLinearConv and ConvInteger: conv attributes and result shape.
struct ConvParams {
  SmallVector<int64_t> strides, pads, dilations, shape;
};

std::optional<ConvParams> convParams(NodeContext &n, Value x, Value w) {
  ConvParams p;
  if (n.typeOf(x).getRank() < 3 ||
      n.typeOf(w).getRank() != n.typeOf(x).getRank()) {
    (void)n.fail("expected input and filter of equal rank >= 3");
    return std::nullopt;
  }
  SmallVector<int64_t> kernel;
  if (!windowAttrs(n, n.typeOf(x), n.typeOf(w), kernel, p.strides, p.dilations))
    return std::nullopt;
  auto pads = resolvePads(n, n.typeOf(x), kernel, p.strides, p.dilations);
  if (!pads)
    return std::nullopt;
  if (pads->empty()) {
    (void)n.fail(
        "auto_pad SAME with stride > 1 on a dynamic spatial dim is not "
        "supported for quantized convolutions");
    return std::nullopt;
  }
  p.pads = *pads;
  auto shape =
      convShape(n.typeOf(x).getShape(), n.typeOf(w).getShape(),
                n.typeOf(w).getDimSize(0), p.strides, p.pads, p.dilations);
  if (failed(shape)) {
    (void)n.fail("convolution window does not fit the input");
    return std::nullopt;
  }
  p.shape = *shape;
  return p;
}

LogicalResult importQLinearConv(NodeContext &n) {
  Value x = n.input(0), xs = n.input(1), xz = n.input(2), w = n.input(3),
        ws = n.input(4), wz = n.input(5), ys = n.input(6), yz = n.input(7),
        bias = n.optionalInput(8);
  if (!x || !xs || !xz || !w || !ws || !wz || !ys || !yz)
    return failure();
  auto p = convParams(n, x, w);
  if (!p)
    return failure();
  auto &b = n.builder();
  return n.setResults({n.createTyped<QLinearConvOp>(
      RankedTensorType::get(p->shape, n.typeOf(yz).getElementType()), x, xs, xz,
      w, ws, wz, ys, yz, bias, b.getDenseI64ArrayAttr(p->strides),
      b.getDenseI64ArrayAttr(p->pads), b.getDenseI64ArrayAttr(p->dilations),
      b.getI64IntegerAttr(n.attrInt("group", 1)))});
}

LogicalResult importConvInteger(NodeContext &n) {
  Value x = n.input(0), w = n.input(1), xz = n.optionalInput(2),
        wz = n.optionalInput(3);
  if (!x || !w)
    return failure();
  auto p = convParams(n, x, w);
  if (!p)
    return failure();
  if (!xz)
    xz = zeroPoint(n, n.typeOf(x).getElementType());
  if (!wz)
    wz = zeroPoint(n, n.typeOf(w).getElementType());
  auto &b = n.builder();
  return n.setResults({n.createTyped<ConvIntegerOp>(
      RankedTensorType::get(p->shape, b.getI32Type()), x, w, xz, wz,
      b.getDenseI64ArrayAttr(p->strides), b.getDenseI64ArrayAttr(p->pads),
      b.getDenseI64ArrayAttr(p->dilations),
      b.getI64IntegerAttr(n.attrInt("group", 1)))});
}

std::optional<SmallVector<int64_t>> matmulResult(NodeContext &n, Value a,
                                                 Value b) {
  auto shape = matmulShape(n.typeOf(a).getShape(), n.typeOf(b).getShape());
  if (failed(shape)) {
    (void)n.fail("incompatible matmul operand shapes");
    return std::nullopt;
  }
  return *shape;
}

LogicalResult importQLinearMatMul(NodeContext &n) {
  Value a = n.input(0), as = n.input(1), az = n.input(2), b = n.input(3),
        bs = n.input(4), bz = n.input(5), ys = n.input(6), yz = n.input(7);
  if (!a || !as || !az || !b || !bs || !bz || !ys || !yz)
    return failure();
  auto shape = matmulResult(n, a, b);
  if (!shape)
    return failure();
  return n.setResults({n.createTyped<QLinearMatMulOp>(
      RankedTensorType::get(*shape, n.typeOf(yz).getElementType()), a, as, az,
      b, bs, bz, ys, yz)});
}

LogicalResult importMatMulInteger(NodeContext &n) {
  Value a = n.input(0), b = n.input(1), az = n.optionalInput(2),
        bz = n.optionalInput(3);
  if (!a || !b)
    return failure();
  auto shape = matmulResult(n, a, b);
  if (!shape)
    return failure();
  if (!az)
    az = zeroPoint(n, n.typeOf(a).getElementType());
  if (!bz)
    bz = zeroPoint(n, n.typeOf(b).getElementType());
  return n.setResults({n.createTyped<MatMulIntegerOp>(
      RankedTensorType::get(*shape, n.builder().getI32Type()), a, b, az, bz)});
}

/// DynamicQuantizeLinear 11 as ONNX's function body: the range [min(0,
/// min(x)), max(0, max(x))] maps onto [0, 255]; scale = range / 255, zero
/// point = saturate(round(-min / scale)) as ui8, y = QuantizeLinear(x, scale,
/// zero point). Results: y, the scale and the zero point (scalars).
LogicalResult importDynamicQuantize(NodeContext &n) {
  Value x = n.input(0);
  if (!x)
    return failure();
  auto xType = n.typeOf(x);
  if (!xType.getElementType().isF32())
    return n.fail("expected an f32 input");
  auto &b = n.builder();
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < xType.getRank(); ++d)
    all.push_back(d);
  auto axes = b.getDenseI64ArrayAttr(all);
  Type f32 = b.getF32Type();
  auto scalar = [&](double v) {
    return n.constSplat(RankedTensorType::get({}, f32), v);
  };
  Value lo = n.create<ReduceMinOp>(x, axes, b.getBoolAttr(false));
  Value hi = n.create<ReduceMaxOp>(x, axes, b.getBoolAttr(false));
  if (!lo || !hi)
    return failure();
  lo = n.create<MinOp>(lo, scalar(0.0));
  hi = n.create<MaxOp>(hi, scalar(0.0));
  Value range = lo && hi ? n.create<SubOp>(hi, lo) : Value();
  Value scale = range ? n.create<DivOp>(range, scalar(255.0)) : Value();
  Value shift = scale ? n.create<DivOp>(lo, scale) : Value();
  Value zpF = shift ? n.create<SubOp>(scalar(0.0), shift) : Value();
  Value rounded = zpF ? n.create<RoundOp>(zpF) : Value();
  Value clipped = rounded ? n.create<ClipOp>(rounded, b.getF64FloatAttr(0.0),
                                             b.getF64FloatAttr(255.0))
                          : Value();
  if (!clipped)
    return failure();
  Type ui8 = IntegerType::get(n.getContext(), 8, IntegerType::Unsigned);
  Value zp = n.createTyped<CastOp>(RankedTensorType::get({}, ui8), clipped);
  if (!zp)
    return failure();
  Value y = n.createTyped<QuantizeLinearOp>(xType.clone(ui8), x, scale, zp,
                                            b.getI64IntegerAttr(1),
                                            b.getBoolAttr(true));
  if (!y)
    return failure();
  return n.setResults({y, scale, zp});
}

} // namespace

void registerQuantHandlers(HandlerRegistry &r) {
  r.add("QuantizeLinear", 10, importQuantize);
  r.add("DequantizeLinear", 10, importDequantize);
  r.add("QLinearConv", 10, importQLinearConv);
  r.add("QLinearMatMul", 10, importQLinearMatMul);
  r.add("MatMulInteger", 10, importMatMulInteger);
  r.add("ConvInteger", 10, importConvInteger);
  r.add("DynamicQuantizeLinear", 11, importDynamicQuantize);
}

} // namespace kiln::onnx_import
