//===- PaddedImage.cpp - recognize a padded copy of an image --------------===//
#include "codegen/Tactics/PaddedImage.h"
#include "codegen/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;
using namespace kiln::codegen;

std::optional<PaddedImage>
kiln::codegen::matchPaddedImage(Operation *conv, Value padded,
                                bool channelsLast,
                                function_ref<bool(Value)> isPadValue) {
  auto alloc = padded.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != conv->getBlock())
    return std::nullopt;
  Operation *fill = nullptr;
  memref::SubViewOp subview;
  for (Operation *user : alloc->getUsers()) {
    if (user == conv)
      continue;
    if (auto sv = dyn_cast<memref::SubViewOp>(user)) {
      if (subview)
        return std::nullopt;
      subview = sv;
      continue;
    }
    Value fillValue;
    if (auto f = dyn_cast<linalg::FillOp>(user))
      fillValue = f.getInputs()[0];
    else if (auto map = dyn_cast<linalg::MapOp>(user);
             map && map.getInputs().empty())
      fillValue = cast<linalg::YieldOp>(map.getMapper().front().getTerminator())
                      .getOperand(0);
    if (fill || !fillValue || !isPadValue(fillValue))
      return std::nullopt;
    fill = user;
  }
  if (!fill || !subview || !subview->hasOneUse() || !subview.hasUnitStride())
    return std::nullopt;
  auto copy = dyn_cast<linalg::CopyOp>(*subview->user_begin());
  if (!copy || copy.getOutputs()[0] != subview.getResult() ||
      copy->getBlock() != conv->getBlock() || !fill->isBeforeInBlock(copy) ||
      !copy->isBeforeInBlock(conv))
    return std::nullopt;
  // Nothing between the copy and the conv may write memory: the conv will
  // read the source later than the copy did.
  for (Operation *o = copy->getNextNode(); o != conv; o = o->getNextNode())
    if (!isMovable(o) && !isa<linalg::FillOp>(o))
      return std::nullopt;
  ArrayRef<int64_t> offsets = subview.getStaticOffsets();
  ArrayRef<int64_t> sizes = subview.getStaticSizes();
  // Spatial dims y, x; the others (batch, channels: [G, C/G] for a grouped
  // channels-last image) are whole.
  int64_t y = channelsLast ? 1 : 2, x = y + 1;
  auto at = cast<MemRefType>(padded.getType());
  int64_t rank = offsets.size();
  if ((rank != 4 && !(channelsLast && rank == 5)) ||
      ShapedType::isDynamicShape(offsets) || ShapedType::isDynamicShape(sizes))
    return std::nullopt;
  for (int64_t d = 0; d < rank; ++d)
    if (d != y && d != x && (offsets[d] != 0 || sizes[d] != at.getDimSize(d)))
      return std::nullopt;
  PaddedImage pad;
  pad.source = copy.getInputs()[0];
  pad.top = offsets[y];
  pad.left = offsets[x];
  pad.height = sizes[y];
  pad.width = sizes[x];
  pad.dead = {fill, copy, subview, alloc};
  return pad;
}
