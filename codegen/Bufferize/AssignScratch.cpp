//===- AssignScratch.cpp - a GPU kernel function's buffers in scratch -----===//
//
// kiln-gpu-assign-scratch: see codegen/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_GPUASSIGNSCRATCHPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;

namespace {

struct GpuAssignScratchPass
    : kiln::codegen::impl::GpuAssignScratchPassBase<GpuAssignScratchPass> {
  KILN_PASS_STATISTICS_GpuAssignScratchPass void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    SmallVector<memref::AllocOp> allocs;
    bool bad = false;
    func.walk([&](Operation *op) {
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        allocs.push_back(alloc);
      } else if (isa<memref::DeallocOp>(op)) {
        op->erase();
      } else if (isa<memref::AllocaOp>(op)) {
        op->emitOpError("stack allocations are not supported in GPU kernels");
        bad = true;
      }
      return WalkResult::advance();
    });
    if (bad)
      return signalPassFailure();
    if (allocs.empty())
      return;
    constexpr uint64_t kAlign = 256;
    uint64_t size = 0;
    SmallVector<uint64_t> offsets;
    for (memref::AllocOp alloc : allocs) {
      MemRefType t = alloc.getType();
      if (!t.hasStaticShape() || !t.getLayout().isIdentity() ||
          !t.getElementType().isIntOrFloat()) {
        alloc.emitOpError("needs a statically shaped, identity-layout "
                          "buffer of scalars to become GPU scratch "
                          "memory, got ")
            << t;
        return signalPassFailure();
      }
      uint64_t bytes =
          t.getNumElements() * ((t.getElementTypeBitWidth() + 7) / 8);
      size = (size + kAlign - 1) / kAlign * kAlign;
      offsets.push_back(size);
      size += std::max<uint64_t>(bytes, 1);
    }
    MLIRContext *ctx = func.getContext();
    auto scratchType =
        MemRefType::get({(int64_t)size}, IntegerType::get(ctx, 8));
    unsigned index = func.getNumArguments();
    if (failed(func.insertArgument(
            index, scratchType,
            DictionaryAttr::get(
                ctx, {NamedAttribute(
                         StringAttr::get(ctx, kiln::codegen::kScratchAttr),
                         UnitAttr::get(ctx))}),
            func.getLoc())))
      return signalPassFailure();
    Value scratch = func.getArgument(index);
    for (auto [alloc, offset] : llvm::zip(allocs, offsets)) {
      OpBuilder b(alloc);
      Value off = arith::ConstantIndexOp::create(b, alloc.getLoc(), offset);
      Value view = memref::ViewOp::create(b, alloc.getLoc(), alloc.getType(),
                                          scratch, off, ValueRange{});
      alloc.replaceAllUsesWith(view);
      alloc.erase();
    }
    numBuffers += allocs.size();
  }
};

} // namespace
