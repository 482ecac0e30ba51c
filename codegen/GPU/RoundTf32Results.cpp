//===- RoundTf32Results.cpp - results stored rounded to tf32 --------------===//
//
// kiln-gpu-round-tf32-results: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "codegen/Tactics/TensorCoreGemm.h"

#include "dialects/Plan/IR/PlanDialect.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_GPUROUNDTF32RESULTSPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;

namespace {

struct GpuRoundTf32ResultsPass
    : kiln::codegen::impl::GpuRoundTf32ResultsPassBase<
          GpuRoundTf32ResultsPass> {
  KILN_PASS_STATISTICS_GpuRoundTf32ResultsPass void runOnOperation() override {
    func::FuncOp func = getOperation();
    auto results = func->getAttrOfType<DenseI64ArrayAttr>(
        kiln::planir::kRoundTf32ResultsAttr);
    if (!results)
      return;
    WalkResult r = func.walk([&](func::ReturnOp ret) {
      OpBuilder b(ret);
      Location loc = ret.getLoc();
      for (int64_t i : results.asArrayRef()) {
        if (i < 0 || i >= int64_t(ret.getNumOperands())) {
          func.emitOpError("lists result ")
              << i << " in " << kiln::planir::kRoundTf32ResultsAttr
              << " but has " << ret.getNumOperands();
          return WalkResult::interrupt();
        }
        Value v = ret.getOperand(i);
        auto type = dyn_cast<RankedTensorType>(v.getType());
        if (!type || !type.getElementType().isF32() || !type.hasStaticShape()) {
          func.emitOpError("can round only static f32 tensors to tf32, "
                           "result ")
              << i << " is " << v.getType();
          return WalkResult::interrupt();
        }
        Value init = tensor::EmptyOp::create(b, loc, type.getShape(),
                                             type.getElementType());
        AffineMap id = b.getMultiDimIdentityMap(type.getRank());
        SmallVector<utils::IteratorType> iterators(
            type.getRank(), utils::IteratorType::parallel);
        auto round = linalg::GenericOp::create(
            b, loc, type, ValueRange{v}, ValueRange{init},
            ArrayRef<AffineMap>{id, id}, iterators,
            [](OpBuilder &nb, Location nl, ValueRange args) {
              linalg::YieldOp::create(
                  nb, nl, kiln::codegen::roundToTf32(nb, nl, args[0]));
            });
        ret.setOperand(i, round.getResult(0));
        ++numRounded;
      }
      return WalkResult::advance();
    });
    if (r.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
