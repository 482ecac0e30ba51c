//===- HoistScales.cpp - scalar factors of matmul operands to the result --===//
//
// kiln-hoist-matmul-scales: see passes/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cmath>

namespace kiln::graph {
#define GEN_PASS_DEF_HOISTMATMULSCALESPASS
#include "passes/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;
using namespace kiln::graph;

namespace {

/// A finite, non-zero float constant of one element whose rank is at most
/// `maxRank` (so that it broadcasts without changing a shape of that rank).
bool isScalarFactor(Value v, int64_t maxRank) {
  auto cst = v.getDefiningOp<ConstantOp>();
  if (!cst)
    return false;
  auto dense = dyn_cast<DenseFPElementsAttr>(cst.getValue());
  if (!dense || dense.getNumElements() != 1 ||
      cast<ShapedType>(dense.getType()).getRank() > maxRank)
    return false;
  APFloat f = *dense.value_begin<APFloat>();
  return f.isFinite() && !f.isZero();
}

/// The scaling op feeding operand `operand` of `matmul`, when the matmul is
/// its only reader and it multiplies (or divides) a value of its own type
/// by a scalar factor; `factor` is that factor's operand index.
Operation *scaleOf(MatMulOp matmul, unsigned operand, unsigned &factor) {
  Operation *def = matmul->getOperand(operand).getDefiningOp();
  if (!def || !isa<MulOp, DivOp>(def) || !def->getResult(0).hasOneUse() ||
      def->getBlock() != matmul->getBlock())
    return nullptr;
  auto out = cast<RankedTensorType>(matmul.getType());
  if (!isa<FloatType>(out.getElementType()))
    return nullptr;
  Type type = def->getResult(0).getType();
  for (unsigned i = 0; i < 2; ++i) {
    if (isa<DivOp>(def) && i == 0)
      continue; // c / x is no scaling of x
    if (isScalarFactor(def->getOperand(i), out.getRank()) &&
        def->getOperand(1 - i).getType() == type) {
      factor = i;
      return def;
    }
  }
  return nullptr;
}

} // namespace

int64_t kiln::graph::hoistMatmulScales(func::FuncOp func) {
  SmallVector<MatMulOp> matmuls;
  func.walk([&](MatMulOp op) { matmuls.push_back(op); });
  int64_t hoisted = 0;
  for (MatMulOp matmul : matmuls) {
    // Both operands may be scaled: each factor moves after the product.
    SmallVector<std::pair<Operation *, unsigned>> scales;
    SmallVector<Value> operands{matmul.getLhs(), matmul.getRhs()};
    for (unsigned i = 0; i < 2; ++i) {
      unsigned factor = 0;
      if (Operation *scale = scaleOf(matmul, i, factor)) {
        scales.push_back({scale, factor});
        operands[i] = scale->getOperand(1 - factor);
      }
    }
    if (scales.empty())
      continue;
    OpBuilder b(matmul);
    Location loc = matmul.getLoc();
    Type type = matmul.getType();
    Value v = MatMulOp::create(b, loc, type, operands[0], operands[1]);
    for (auto [scale, factor] : scales) {
      Value c = scale->getOperand(factor);
      v = isa<DivOp>(scale)
              ? DivOp::create(b, scale->getLoc(), type, v, c).getResult()
              : MulOp::create(b, scale->getLoc(), type, v, c).getResult();
    }
    matmul.getResult().replaceAllUsesWith(v);
    matmul.erase();
    for (auto [scale, factor] : scales)
      scale->erase();
    hoisted += scales.size();
  }
  return hoisted;
}

namespace {
struct HoistMatmulScalesPass
    : kiln::graph::impl::HoistMatmulScalesPassBase<HoistMatmulScalesPass> {
  KILN_PASS_STATISTICS_HoistMatmulScalesPass void runOnOperation() override {
    numHoisted += hoistMatmulScales(getOperation());
  }
};
} // namespace
