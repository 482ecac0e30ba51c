//===- GeneralizeContractions.cpp - transposes and matmuls as generics ---===//
//
// kiln-linalg-generalize-contractions: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_LINALGGENERALIZECONTRACTIONSPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;

namespace {

/// Drops the broadcast unit dims of `generic`'s inputs: an operand whose
/// map reads a dim of size 1 at constant 0 is read through a collapse_shape
/// without that dim instead. The reshape propagation of
/// linalg-fuse-elementwise-ops expands only generics whose maps are all
/// projected permutations; with this, an elementwise op reading an
/// attention mask [B*H, 1, S] still fuses through the reshapes around a
/// batched contraction.
void dropBroadcastUnitDims(RewriterBase &rewriter, linalg::GenericOp generic) {
  if (!generic.hasPureTensorSemantics())
    return;
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  bool changed = false;
  for (OpOperand *operand : generic.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand->get().getType());
    AffineMap map = maps[operand->getOperandNumber()];
    if (!type || type.getRank() == 0 || map.getNumResults() != type.getRank())
      continue;
    SmallVector<int64_t> keep;
    for (auto [d, e] : llvm::enumerate(map.getResults())) {
      auto c = dyn_cast<AffineConstantExpr>(e);
      if (!(c && c.getValue() == 0 && type.getDimSize(d) == 1))
        keep.push_back(d);
    }
    if (keep.size() == (size_t)type.getRank())
      continue;
    // Leading unit dims join the first kept dim, the others the kept dim
    // before them; with none kept, the operand becomes rank 0.
    SmallVector<ReassociationIndices> re;
    SmallVector<AffineExpr> results;
    if (!keep.empty()) {
      for (int64_t k : keep) {
        re.push_back({});
        results.push_back(map.getResult(k));
      }
      size_t g = 0;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (g + 1 < keep.size() && d >= keep[g + 1])
          ++g;
        re[g].push_back(d);
      }
    }
    SmallVector<int64_t> shape;
    for (int64_t k : keep)
      shape.push_back(type.getDimSize(k));
    rewriter.setInsertionPoint(generic);
    Value collapsed = tensor::CollapseShapeOp::create(
        rewriter, generic.getLoc(), type.clone(shape), operand->get(), re);
    rewriter.modifyOpInPlace(generic, [&] { operand->set(collapsed); });
    maps[operand->getOperandNumber()] =
        AffineMap::get(map.getNumDims(), 0, results, generic.getContext());
    changed = true;
  }
  if (changed)
    rewriter.modifyOpInPlace(generic, [&] {
      generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
}

struct LinalgGeneralizeContractionsPass
    : kiln::codegen::impl::LinalgGeneralizeContractionsPassBase<
          LinalgGeneralizeContractionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::TransposeOp, linalg::MatmulOp, linalg::BatchMatmulOp>(
              op.getOperation()))
        ops.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      rewriter.setInsertionPoint(op);
      if (failed(linalg::generalizeNamedOp(rewriter, op))) {
        op.emitOpError("cannot be generalized");
        return signalPassFailure();
      }
    }
    // In kernels with a contraction, the elementwise ops around it.
    SmallVector<linalg::GenericOp> generics;
    bool contraction = false;
    getOperation().walk([&](linalg::GenericOp op) {
      generics.push_back(op);
      contraction |= linalg::isaContractionOpInterface(op);
    });
    if (contraction)
      for (linalg::GenericOp op : generics)
        dropBroadcastUnitDims(rewriter, op);
  }
};

} // namespace
