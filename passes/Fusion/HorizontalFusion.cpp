//===- HorizontalFusion.cpp - sibling matmuls with one input as one -------===//
//
// kiln-fuse-sibling-matmuls: see passes/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/ADT/MapVector.h"

#include <optional>

namespace kiln::graph {
#define GEN_PASS_DEF_FUSESIBLINGMATMULSPASS
#include "passes/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;
using namespace kiln::graph;

namespace {

/// The constants `parts` (equal types) stacked along a new leading dim, as
/// one constant marked kiln.stack_parts = G: the plan stores each part as
/// its own weight buffer, back to back, so that the parts stay tensors of
/// the model (weight stripping and kiln-refit see them one by one).
Value stack(OpBuilder &b, Location loc, MutableArrayRef<ConstantOp> parts,
            RankedTensorType stackedType) {
  std::vector<char> data;
  for (ConstantOp &c : parts) {
    std::optional<ArrayRef<char>> raw = rawElements(c.getValue());
    data.insert(data.end(), raw->begin(), raw->end());
  }
  auto cst = ConstantOp::create(
      b, loc, stackedType,
      elementsLike(parts.front().getValue(), stackedType, data, "_stacked"));
  cst->setAttr(kStackPartsAttr, b.getI64IntegerAttr(parts.size()));
  return cst;
}

Value shapeConstant(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get({int64_t(shape.size())}, b.getI64Type());
  return ConstantOp::create(b, loc, type, DenseElementsAttr::get(type, shape));
}

/// A constant operand whose bytes stack() can read.
ConstantOp stackable(Value v) {
  auto cst = v.getDefiningOp<ConstantOp>();
  if (!cst || !rawElements(cst.getValue()))
    return {};
  auto type = dyn_cast<RankedTensorType>(cst.getType());
  return type && type.hasStaticShape() ? cst : ConstantOp();
}

/// The bias of `mm`'s only reader when that is `add(mm, c)` (either order)
/// with `c` a constant of N elements along the last dim; none otherwise.
std::pair<AddOp, ConstantOp> biasOf(MatMulOp mm, int64_t n) {
  if (!mm->hasOneUse())
    return {};
  auto add = dyn_cast<AddOp>(*mm->user_begin());
  if (!add || add.getType() != mm.getType())
    return {};
  Value other = add.getLhs() == mm.getResult() ? add.getRhs() : add.getLhs();
  ConstantOp c = stackable(other);
  if (!c)
    return {};
  auto t = cast<RankedTensorType>(c.getType());
  if (t.getNumElements() != n || t.getRank() == 0 || t.getShape().back() != n ||
      t.getRank() > mm.getType().getRank())
    return {};
  return {add, c};
}

/// Rewrites `group` (matmuls of one left-hand side, constant right-hand
/// sides of one type [K, N]) into one batched matmul.
void fuse(MutableArrayRef<MatMulOp> group, FuseSiblingMatmulsStats &stats) {
  MatMulOp first = group.front();
  OpBuilder b(first);
  Location loc = first.getLoc();
  auto xType = cast<RankedTensorType>(first.getLhs().getType());
  auto wType = cast<RankedTensorType>(first.getRhs().getType());
  auto yType = cast<RankedTensorType>(first.getType());
  int64_t g = group.size(), k = wType.getDimSize(0), n = wType.getDimSize(1);
  int64_t rows = xType.getNumElements() / k;
  Type elem = yType.getElementType();

  SmallVector<ConstantOp> weights, biases;
  SmallVector<AddOp> adds;
  for (MatMulOp &mm : group) {
    weights.push_back(mm.getRhs().getDefiningOp<ConstantOp>());
    auto [add, bias] = biasOf(mm, n);
    if (add) {
      adds.push_back(add);
      biases.push_back(bias);
    }
  }
  // Every bias folds (same type), or none does.
  bool withBias = int64_t(adds.size()) == g &&
                  llvm::all_of(biases, [&](ConstantOp c) {
                    return c.getType() == biases.front().getType();
                  });

  Value x = first.getLhs();
  if (xType.getRank() != 2)
    x = ReshapeOp::create(b, loc, RankedTensorType::get({rows, k}, elem), x,
                          shapeConstant(b, loc, {rows, k}),
                          b.getBoolAttr(false));
  Value w = stack(b, loc, weights, RankedTensorType::get({g, k, n}, elem));
  auto stackedType = RankedTensorType::get({g, rows, n}, elem);
  Value y = MatMulOp::create(b, loc, stackedType, x, w);
  if (withBias) {
    Value bias =
        stack(b, loc, biases, RankedTensorType::get({g, 1, n}, elem));
    y = AddOp::create(b, loc, stackedType, y, bias);
  }
  auto one = [&](int64_t v) { return shapeConstant(b, loc, {v}); };
  for (int64_t i = 0; i < g; ++i) {
    Value part = SliceOp::create(b, loc, RankedTensorType::get({1, rows, n}, elem),
                                 y, one(i), one(i + 1), one(0), one(1));
    Value out = ReshapeOp::create(b, loc, yType, part,
                                  shapeConstant(b, loc, yType.getShape()),
                                  b.getBoolAttr(false));
    Operation *old = withBias ? adds[i].getOperation() : group[i].getOperation();
    old->getResult(0).replaceAllUsesWith(out);
  }
  for (int64_t i = 0; i < g; ++i) {
    if (withBias)
      adds[i]->erase();
    group[i]->erase();
  }
  for (ConstantOp c : weights)
    if (c->use_empty())
      c->erase();
  if (withBias)
    for (ConstantOp c : biases)
      if (c && c->use_empty())
        c->erase();
  ++stats.groups;
  stats.matmuls += g;
  stats.biases += withBias ? g : 0;
}

struct FuseSiblingMatmulsPass
    : public kiln::graph::impl::FuseSiblingMatmulsPassBase<
          FuseSiblingMatmulsPass> {
  using FuseSiblingMatmulsPassBase::FuseSiblingMatmulsPassBase;
  void runOnOperation() override {
    FuseSiblingMatmulsStats stats = fuseSiblingMatmuls(getOperation());
    numGroups = stats.groups;
    numMatmuls = stats.matmuls;
  }
};

} // namespace

FuseSiblingMatmulsStats kiln::graph::fuseSiblingMatmuls(func::FuncOp func) {
  FuseSiblingMatmulsStats stats;
  if (func.getBody().empty())
    return stats;
  // Matmuls by left-hand side, in program order; within one, by the type
  // of the (constant) right-hand side.
  llvm::MapVector<std::pair<Value, Type>, SmallVector<MatMulOp>> groups;
  func.walk([&](MatMulOp mm) {
    auto x = dyn_cast<RankedTensorType>(mm.getLhs().getType());
    auto y = dyn_cast<RankedTensorType>(mm.getType());
    ConstantOp w = stackable(mm.getRhs());
    if (!x || !y || !w || !x.hasStaticShape() || !y.hasStaticShape() ||
        x.getRank() < 2 || cast<RankedTensorType>(w.getType()).getRank() != 2 ||
        mm->getBlock() != &func.getBody().front())
      return;
    groups[{mm.getLhs(), w.getType()}].push_back(mm);
  });
  for (auto &[key, group] : groups)
    if (group.size() >= 2)
      fuse(group, stats);
  return stats;
}
