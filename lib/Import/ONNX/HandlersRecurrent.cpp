//===- HandlersRecurrent.cpp - ONNX RNN, GRU and LSTM ---------------------===//
//
// RNN, GRU and LSTM are unrolled over the static sequence into kiln ops
// (slices, matmuls, activations, elementwise gates), one step per time step
// and direction, so every later pass and target handles them without a
// recurrent kernel.
//
//===----------------------------------------------------------------------===//
#include "NodeContext.h"
#include "Tensors.h"

#include <cmath>

using namespace mlir;
using namespace kiln::graph;

namespace kiln::onnx_import {
namespace {

//===--- RNN, GRU, LSTM (unrolled)
//---------------------------------------------===//

/// Fails the handler when a value is null (an error was reported).
#define KILN_TRY(v)                                                            \
  if (!(v))                                                                    \
    return failure();

/// `x[start:start+size]` along `axis`, with that dim squeezed away when
/// `squeeze`.
Value sliceAlong(NodeContext &n, Value x, int64_t axis, int64_t start,
                 int64_t size, bool squeeze) {
  Value s =
      n.create<SliceOp>(x, n.constI64({start}), n.constI64({start + size}),
                        n.constI64({axis}), n.constI64({1}));
  if (!s || !squeeze)
    return s;
  return n.create<SqueezeOp>(s, n.builder().getDenseI64ArrayAttr({axis}));
}

/// One ONNX RNN activation by name (with its alpha/beta where it has them).
struct Activation {
  std::string name;
  float alpha = 0, beta = 0;
};

Value applyActivation(NodeContext &n, const Activation &f, Value x) {
  if (!x)
    return x;
  auto &b = n.builder();
  Type elem = n.typeOf(x).getElementType();
  if (f.name == "Tanh")
    return n.create<TanhOp>(x);
  if (f.name == "Sigmoid")
    return n.create<SigmoidOp>(x);
  if (f.name == "Relu")
    return n.create<ReluOp>(x);
  if (f.name == "Softsign")
    return n.create<SoftsignOp>(x);
  if (f.name == "Softplus")
    return n.create<SoftplusOp>(x);
  if (f.name == "LeakyRelu")
    return n.create<LeakyReluOp>(x, b.getF32FloatAttr(f.alpha));
  if (f.name == "ThresholdedRelu")
    return n.create<ThresholdedReluOp>(x, b.getF32FloatAttr(f.alpha));
  if (f.name == "Elu")
    return n.create<EluOp>(x, b.getF32FloatAttr(f.alpha));
  if (f.name == "HardSigmoid")
    return n.create<HardSigmoidOp>(x, b.getF32FloatAttr(f.alpha),
                                   b.getF32FloatAttr(f.beta));
  if (f.name == "Affine" || f.name == "ScaledTanh") {
    Value v =
        f.name == "Affine" ? x : n.create<MulOp>(x, scalar(n, elem, f.beta));
    if (f.name == "ScaledTanh")
      v = v ? n.create<TanhOp>(v) : v;
    if (!v)
      return v;
    v = n.create<MulOp>(v, scalar(n, elem, f.alpha));
    return f.name == "Affine" && v ? n.create<AddOp>(v, scalar(n, elem, f.beta))
                                   : v;
  }
  (void)n.fail("activation \"" + f.name + "\" is not supported");
  return {};
}

/// The activations of a recurrent node, `perDirection` per direction, from
/// `activations`/`activation_alpha`/`activation_beta` or `defaults`.
std::optional<SmallVector<Activation>>
readActivations(NodeContext &n, ArrayRef<StringRef> defaults, int64_t dirs) {
  SmallVector<Activation> out;
  std::optional<SmallVector<std::string>> names;
  if (n.hasAttr("activations")) {
    names.emplace();
    for (const auto &a : n.node_().attribute())
      if (a.name() == "activations")
        for (const auto &s : a.strings())
          names->push_back(s);
  }
  auto alphas = n.attrFloats("activation_alpha");
  auto betas = n.attrFloats("activation_beta");
  size_t count = defaults.size() * dirs;
  if (names && names->size() != count) {
    (void)n.fail("expected " + std::to_string(count) + " activations, got " +
                 std::to_string(names->size()));
    return std::nullopt;
  }
  // Defaults of the parameterized activations (ONNX operator docs).
  auto defaultAlpha = [](StringRef name) -> float {
    if (name == "LeakyRelu")
      return 0.01f;
    if (name == "HardSigmoid")
      return 0.2f;
    return 1.0f;
  };
  auto defaultBeta = [](StringRef name) -> float {
    return name == "HardSigmoid" ? 0.5f : name == "ScaledTanh" ? 1.0f : 0.0f;
  };
  size_t param = 0;
  for (size_t i = 0; i < count; ++i) {
    Activation f;
    f.name = names ? (*names)[i] : defaults[i % defaults.size()].str();
    bool hasParams = f.name == "LeakyRelu" || f.name == "ThresholdedRelu" ||
                     f.name == "Elu" || f.name == "HardSigmoid" ||
                     f.name == "Affine" || f.name == "ScaledTanh";
    f.alpha = defaultAlpha(f.name);
    f.beta = defaultBeta(f.name);
    if (hasParams) {
      if (alphas && param < alphas->size())
        f.alpha = (*alphas)[param];
      if (betas && param < betas->size())
        f.beta = (*betas)[param];
      ++param;
    }
    out.push_back(f);
  }
  return out;
}

enum class CellKind { RNN, GRU, LSTM };

/// RNN 7, 14; GRU 7, 14; LSTM 7, 14, unrolled over the (static) sequence:
/// per direction, X * W^T + Wb for all steps at once, then per step one
/// matmul with R^T and the gate arithmetic. sequence_lens (possibly a
/// run-time value) masks steps past each batch entry's length: the state is
/// kept and Y is 0 there, as ONNX specifies.
template <CellKind kind> LogicalResult importRecurrent(NodeContext &n) {
  Value x = n.input(0), w = n.input(1), r = n.input(2);
  KILN_TRY(x && w && r);
  auto &b = n.builder();
  int64_t layout = n.getOpset() >= 14 ? n.attrInt("layout", 0) : 0;
  if (layout != 0 && layout != 1)
    return n.fail("layout must be 0 or 1, got " + std::to_string(layout));
  auto xType = n.typeOf(x);
  if (xType.getRank() != 3 || !xType.hasStaticShape())
    return n.fail("X must be 3-D with a static shape (the sequence is "
                  "unrolled at import)");
  if (layout == 1)
    KILN_TRY(x = n.create<TransposeOp>(x, b.getDenseI64ArrayAttr({1, 0, 2})));
  int64_t seq = n.typeOf(x).getDimSize(0), batch = n.typeOf(x).getDimSize(1);
  auto hidden = n.attrIntOpt("hidden_size");
  if (!hidden || *hidden < 1)
    return n.fail("missing or non-positive hidden_size");
  int64_t h = *hidden;
  std::string direction = n.attrString("direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return n.fail("direction \"" + direction +
                  "\" is not one of forward, "
                  "reverse, bidirectional");
  int64_t dirs = direction == "bidirectional" ? 2 : 1;
  int64_t gates = kind == CellKind::RNN ? 1 : kind == CellKind::GRU ? 3 : 4;
  auto wType = n.typeOf(w), rType = n.typeOf(r);
  if (wType.getRank() != 3 || wType.getDimSize(0) != dirs ||
      wType.getDimSize(1) != gates * h || rType.getRank() != 3 ||
      rType.getDimSize(0) != dirs || rType.getDimSize(1) != gates * h ||
      rType.getDimSize(2) != h)
    return n.fail("W and R must be [" + std::to_string(dirs) + ", " +
                  std::to_string(gates * h) + ", *] and [" +
                  std::to_string(dirs) + ", " + std::to_string(gates * h) +
                  ", " + std::to_string(h) + "]");
  if (kind == CellKind::LSTM && n.attrInt("input_forget", 0) != 0)
    return n.fail("input_forget = 1 is not supported");
  bool linearBeforeReset =
      kind == CellKind::GRU && n.attrInt("linear_before_reset", 0) != 0;
  std::optional<float> clip = n.attrFloatOpt("clip");
  SmallVector<StringRef> defaults =
      kind == CellKind::RNN ? SmallVector<StringRef>{"Tanh"}
      : kind == CellKind::GRU
          ? SmallVector<StringRef>{"Sigmoid", "Tanh"}
          : SmallVector<StringRef>{"Sigmoid", "Tanh", "Tanh"};
  auto acts = readActivations(n, defaults, dirs);
  if (!acts || n.hadError())
    return failure();
  Value bias = n.optionalInput(3), lens = n.optionalInput(4),
        initH = n.optionalInput(5);
  Value initC = kind == CellKind::LSTM ? n.optionalInput(6) : Value();
  Value peep = kind == CellKind::LSTM ? n.optionalInput(7) : Value();
  Type elem = xType.getElementType(), i64 = b.getI64Type();
  auto stateType = RankedTensorType::get({batch, h}, elem);
  if (layout == 1) {
    if (initH)
      KILN_TRY(initH = n.create<TransposeOp>(
                   initH, b.getDenseI64ArrayAttr({1, 0, 2})));
    if (initC)
      KILN_TRY(initC = n.create<TransposeOp>(
                   initC, b.getDenseI64ArrayAttr({1, 0, 2})));
  }
  // mask[t]: [batch, 1] "step t is inside the sequence".
  Value lens2;
  if (lens) {
    KILN_TRY(lens2 = indicesToI64(n, lens, "sequence_lens"));
    KILN_TRY(lens2 = n.create<UnsqueezeOp>(lens2, b.getDenseI64ArrayAttr({1})));
  }
  auto gateClip = [&](Value v) -> Value {
    if (!clip || !v)
      return v;
    return n.create<ClipOp>(v, b.getF64FloatAttr(-*clip),
                            b.getF64FloatAttr(*clip));
  };

  SmallVector<Value> ysPerDir, lastH, lastC;
  for (int64_t d = 0; d < dirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    const Activation *f = &(*acts)[d * defaults.size()];
    Value wd = sliceAlong(n, w, 0, d, 1, true);
    Value rd = sliceAlong(n, r, 0, d, 1, true);
    KILN_TRY(wd && rd);
    Value wt = n.create<TransposeOp>(wd, b.getDenseI64ArrayAttr({1, 0}));
    Value rt = n.create<TransposeOp>(rd, b.getDenseI64ArrayAttr({1, 0}));
    KILN_TRY(wt && rt);
    Value xw = n.create<MatMulOp>(x, wt); // [seq, batch, G*H]
    Value rb;
    KILN_TRY(xw);
    if (bias) {
      Value bd = sliceAlong(n, bias, 0, d, 1, true);
      KILN_TRY(bd);
      Value wb = sliceAlong(n, bd, 0, 0, gates * h, false);
      KILN_TRY(rb = sliceAlong(n, bd, 0, gates * h, gates * h, false));
      KILN_TRY(wb && (xw = n.create<AddOp>(xw, wb)));
    }
    // GRU's hidden gate takes R_h separately (reset applies around it).
    Value rtZR = rt, rtH, rbZR = rb, rbH;
    if (kind == CellKind::GRU) {
      KILN_TRY(rtZR = sliceAlong(n, rt, 1, 0, 2 * h, false));
      KILN_TRY(rtH = sliceAlong(n, rt, 1, 2 * h, h, false));
      if (rb) {
        KILN_TRY(rbZR = sliceAlong(n, rb, 0, 0, 2 * h, false));
        KILN_TRY(rbH = sliceAlong(n, rb, 0, 2 * h, h, false));
      }
    }
    Value pI, pO, pF;
    if (peep) {
      Value pd = sliceAlong(n, peep, 0, d, 1, true);
      KILN_TRY(pd);
      pI = sliceAlong(n, pd, 0, 0, h, false);
      pO = sliceAlong(n, pd, 0, h, h, false);
      pF = sliceAlong(n, pd, 0, 2 * h, h, false);
      KILN_TRY(pI && pO && pF);
    }
    Value hPrev = initH ? sliceAlong(n, initH, 0, d, 1, true)
                        : n.constSplat(stateType, 0);
    Value cPrev;
    if (kind == CellKind::LSTM)
      cPrev = initC ? sliceAlong(n, initC, 0, d, 1, true)
                    : n.constSplat(stateType, 0);
    KILN_TRY(hPrev && (kind != CellKind::LSTM || cPrev));
    SmallVector<Value> ys(seq);
    for (int64_t step = 0; step < seq; ++step) {
      int64_t t = reverse ? seq - 1 - step : step;
      Value xt = sliceAlong(n, xw, 0, t, 1, true); // [batch, G*H]
      KILN_TRY(xt);
      Value hr = n.create<MatMulOp>(hPrev, kind == CellKind::GRU ? rtZR : rt);
      KILN_TRY(hr);
      if (rbZR)
        KILN_TRY(hr = n.create<AddOp>(hr, rbZR));
      auto gate = [&](Value all, int64_t i) {
        return sliceAlong(n, all, 1, i * h, h, false);
      };
      Value hNew, cNew;
      if (kind == CellKind::RNN) {
        Value pre = n.create<AddOp>(xt, hr);
        KILN_TRY(hNew = applyActivation(n, f[0], gateClip(pre)));
      } else if (kind == CellKind::GRU) {
        Value z = n.create<AddOp>(gate(xt, 0), gate(hr, 0));
        Value rr = n.create<AddOp>(gate(xt, 1), gate(hr, 1));
        KILN_TRY(z && rr);
        z = applyActivation(n, f[0], gateClip(z));
        rr = applyActivation(n, f[0], gateClip(rr));
        KILN_TRY(z && rr);
        Value hh;
        if (linearBeforeReset) {
          hh = n.create<MatMulOp>(hPrev, rtH);
          if (hh && rbH)
            hh = n.create<AddOp>(hh, rbH);
          KILN_TRY(hh && (hh = n.create<MulOp>(rr, hh)));
        } else {
          Value reset = n.create<MulOp>(rr, hPrev);
          KILN_TRY(reset && (hh = n.create<MatMulOp>(reset, rtH)));
          if (rbH)
            KILN_TRY(hh = n.create<AddOp>(hh, rbH));
        }
        Value xh = gate(xt, 2);
        KILN_TRY(xh && (hh = n.create<AddOp>(xh, hh)));
        KILN_TRY(hh = applyActivation(n, f[1], gateClip(hh)));
        // (1 - z) * hh + z * hPrev
        Value oneMinus = n.create<SubOp>(scalar(n, elem, 1), z);
        Value keep = n.create<MulOp>(z, hPrev);
        KILN_TRY(oneMinus && keep);
        Value fresh = n.create<MulOp>(oneMinus, hh);
        KILN_TRY(fresh && (hNew = n.create<AddOp>(fresh, keep)));
      } else {
        Value pre = n.create<AddOp>(xt, hr); // gates i, o, f, c
        KILN_TRY(pre);
        Value gi = gate(pre, 0), go = gate(pre, 1), gf = gate(pre, 2),
              gc = gate(pre, 3);
        KILN_TRY(gi && go && gf && gc);
        if (pI) {
          Value pic = n.create<MulOp>(pI, cPrev),
                pfc = n.create<MulOp>(pF, cPrev);
          KILN_TRY(pic && pfc);
          gi = n.create<AddOp>(gi, pic);
          gf = n.create<AddOp>(gf, pfc);
        }
        KILN_TRY(gi && gf);
        gi = applyActivation(n, f[0], gateClip(gi));
        gf = applyActivation(n, f[0], gateClip(gf));
        gc = applyActivation(n, f[1], gateClip(gc));
        KILN_TRY(gi && gf && gc);
        Value fc = n.create<MulOp>(gf, cPrev), ic = n.create<MulOp>(gi, gc);
        KILN_TRY(fc && ic && (cNew = n.create<AddOp>(fc, ic)));
        if (pO) {
          Value poc = n.create<MulOp>(pO, cNew);
          KILN_TRY(poc && (go = n.create<AddOp>(go, poc)));
        }
        KILN_TRY(go = applyActivation(n, f[0], gateClip(go)));
        Value hc = applyActivation(n, f[2], cNew);
        KILN_TRY(hc && (hNew = n.create<MulOp>(go, hc)));
      }
      Value y = hNew;
      if (lens2) {
        Value inside = n.create<GreaterOp>(lens2, scalar(n, i64, t));
        KILN_TRY(inside);
        KILN_TRY(y = n.create<WhereOp>(inside, hNew, scalar(n, elem, 0)));
        KILN_TRY(hNew = n.create<WhereOp>(inside, hNew, hPrev));
        if (cNew)
          KILN_TRY(cNew = n.create<WhereOp>(inside, cNew, cPrev));
      }
      KILN_TRY(ys[t] =
                   n.create<UnsqueezeOp>(y, b.getDenseI64ArrayAttr({0, 1})));
      hPrev = hNew;
      cPrev = cNew;
    }
    Value yd =
        seq == 1 ? ys[0] : n.create<ConcatOp>(ys, b.getI64IntegerAttr(0));
    KILN_TRY(yd);
    ysPerDir.push_back(yd);
    Value hLast = n.create<UnsqueezeOp>(hPrev, b.getDenseI64ArrayAttr({0}));
    KILN_TRY(hLast);
    lastH.push_back(hLast);
    if (cPrev) {
      Value cLast = n.create<UnsqueezeOp>(cPrev, b.getDenseI64ArrayAttr({0}));
      KILN_TRY(cLast);
      lastC.push_back(cLast);
    }
  }
  auto joined = [&](ArrayRef<Value> parts, int64_t axis) -> Value {
    return parts.size() == 1
               ? parts[0]
               : n.create<ConcatOp>(parts, b.getI64IntegerAttr(axis));
  };
  Value y = joined(ysPerDir, 1), yh = joined(lastH, 0);
  KILN_TRY(y && yh);
  Value yc;
  if (kind == CellKind::LSTM)
    KILN_TRY(yc = joined(lastC, 0));
  if (layout == 1) {
    KILN_TRY(
        y = n.create<TransposeOp>(y, b.getDenseI64ArrayAttr({2, 0, 1, 3})));
    KILN_TRY(yh = n.create<TransposeOp>(yh, b.getDenseI64ArrayAttr({1, 0, 2})));
    if (yc)
      KILN_TRY(
          yc = n.create<TransposeOp>(yc, b.getDenseI64ArrayAttr({1, 0, 2})));
  }
  if (yc)
    return n.setResults({y, yh, yc});
  return n.setResults({y, yh});
}

#undef KILN_TRY

} // namespace

void registerRecurrentHandlers(HandlerRegistry &r) {
  r.add("RNN", 7, importRecurrent<CellKind::RNN>);
  r.add("GRU", 7, importRecurrent<CellKind::GRU>);
  r.add("LSTM", 7, importRecurrent<CellKind::LSTM>);
}

} // namespace kiln::onnx_import
