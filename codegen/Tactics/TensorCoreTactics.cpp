//===- TensorCoreTactics.cpp - conv/matmul onto tensor-core kernels -------===//
//
// kiln-gpu-tensor-core: see codegen/Passes.td. Per anchor op: its GEMM
// (AnchorGemm.h), the tactic (the cost models of TensorCoreGemm.h, a tactic
// variant, or a tactic forced by name), the kernel in its place.
//
//===----------------------------------------------------------------------===//
#include "codegen/Tactics/AnchorGemm.h"
#include "codegen/Tactics/TensorCoreGemm.h"
#include "codegen/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_GPUTENSORCOREPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;
using namespace kiln::codegen;

namespace {

struct TensorCorePass
    : public kiln::codegen::impl::GpuTensorCorePassBase<TensorCorePass> {
  KILN_PASS_STATISTICS_GpuTensorCorePass using GpuTensorCorePassBase::
      GpuTensorCorePassBase;

  /// One way to run a GEMM: a wgmma tile, or else an mma.sync tile.
  struct GemmTactic {
    std::optional<WgmmaTile> wgmma;
    MmaTile mma;
    std::string str() const {
      return wgmma ? "wgmma " + wgmma->str() : "mma.sync " + mma.str();
    }
  };

  /// The tactics for `spec`: the cost model's choice (or the forced one)
  /// first; with the cost model in charge, then the other wgmma tiles and
  /// mma.sync tiles by estimated cost, alternately (the candidates of
  /// `kilnc --tactics all`).
  std::vector<GemmTactic> tacticsFor(const GemmSpec &spec) {
    bool hopper = wgmma != "off" && wgmmaApplies(spec);
    auto mmaTile = [&](MmaTile tile) {
      if (spec.vecA && spec.vecB)
        tile.stages = mmaStages;
      return tile;
    };
    GemmTactic first;
    if (hopper)
      first.wgmma = wgmma == "auto" ? chooseWgmmaTile(spec, numSms)
                                    : parseWgmmaTile(wgmma);
    if (!first.wgmma) {
      first.mma = mmaTile(
          chooseMmaTile(spec, numSms, double(latencyCycles), clusterSplitK));
      if (forceSplitK > 0) {
        first.mma.splitK = forceSplitK;
        first.mma.cluster = clusterSplitK && forceSplitK > 1 &&
                            forceSplitK <= MmaTile::kMaxClusterSplit;
      }
    }
    std::vector<GemmTactic> out{first};
    if (forceSplitK > 0 || (hopper && wgmma != "auto"))
      return out;
    std::vector<GemmTactic> hoppers, mmas;
    if (hopper)
      for (const WgmmaTile &t : rankWgmmaTiles(spec, numSms))
        hoppers.push_back({t, MmaTile()});
    for (const MmaTile &t :
         rankMmaTiles(spec, numSms, double(latencyCycles), clusterSplitK))
      mmas.push_back({std::nullopt, mmaTile(t)});
    llvm::StringSet<> seen;
    seen.insert(first.str());
    for (size_t i = 0; i < std::max(hoppers.size(), mmas.size()); ++i)
      for (std::vector<GemmTactic> *list : {&hoppers, &mmas})
        if (i < list->size() && seen.insert((*list)[i].str()).second)
          out.push_back((*list)[i]);
    return out;
  }

  /// Emits `spec` in place of `anchor` and removes what the epilogue
  /// absorbed. The tactic is tacticsFor(spec)'s first, unless the kernel
  /// function asks for another one (`kiln.tactic_variant`: the N-th;
  /// `kiln.tactic_force`: by name, from a timing cache).
  void replace(Operation *anchor, GemmSpec &spec, GemmEpilogue &epilogue) {
    OpBuilder b(anchor);
    Location loc = anchor->getLoc();
    spec.epilogueReads = epilogue.readsFullOperand();
    std::vector<GemmTactic> tactics = tacticsFor(spec);
    const GemmTactic *pick = &tactics.front();
    if (variant >= 0) {
      if (size_t(variant) < tactics.size())
        pick = &tactics[variant];
      else
        voidVariant = true;
    }
    if (!forced.empty()) {
      StringRef want =
          forced.size() > chosen.size() ? forced[chosen.size()] : "";
      auto it = llvm::find_if(
          tactics, [&](const GemmTactic &t) { return t.str() == want; });
      if (it != tactics.end())
        pick = &*it;
      else
        staleForce = true;
    }
    chosen.push_back(pick->str());
    shapes.push_back((spec.batch > 1 ? std::to_string(spec.batch) + "x" : "") +
                     std::to_string(spec.m) + "x" + std::to_string(spec.n) +
                     "x" + std::to_string(spec.k));
    gpu::LaunchOp launch;
    std::string tactic = pick->str();
    if (pick->wgmma) {
      // Which operands got a tensor map (the kernel loads those by TMA).
      bool mapA = false, mapB = false;
      if (tma)
        spec.tensorMap = [&](const GemmSpec::TmaView &view,
                             ArrayRef<int64_t> box) {
          Value map = tensorMapArgument(anchor, view, box);
          if (map)
            (spec.tmaA && &view == &*spec.tmaA ? mapA : mapB) = true;
          return map;
        };
      launch = buildWgmmaGemm(b, loc, spec, *pick->wgmma, numSms);
      if (mapA || mapB)
        tactic += mapA && mapB ? ", TMA A, B" : mapA ? ", TMA A" : ", TMA B";
    } else {
      MmaTile tile = pick->mma;
      Value partials;
      if (tile.splitK > 1 && !tile.cluster)
        partials = memref::AllocOp::create(
            b, loc,
            MemRefType::get({tile.splitK, spec.batch, spec.m, spec.n},
                            b.getF32Type()));
      launch = buildMmaGemm(b, loc, spec, tile, partials);
    }
    // What was chosen, for the build report and tests.
    launch->setAttr(
        kTacticAttr,
        b.getStringAttr(tactic +
                        (epilogue.consumer ? " + fused epilogue" : "")));
    // Counted once per region: not in its tactic variants' clones.
    if (variant < 1) {
      ++numTensorCoreOps;
      numWgmmaOps += pick->wgmma.has_value();
      numTmaOps += pick->wgmma && tactic.find(", TMA") != std::string::npos;
      numFusedEpilogues += bool(epilogue.consumer);
    }
    anchor->erase();
    if (epilogue.fill)
      epilogue.fill.erase();
    if (epilogue.consumer) {
      epilogue.consumer.erase();
      // The f32 buffer (and its view) are dead now.
      eraseDeadBuffer(epilogue.out);
    }
  }

  /// A new argument of `anchor`'s kernel function for the TMA tensor map
  /// of `view` with `box` (kTensorMapAttr says what the runtime encodes),
  /// or null where `view` is no kernel argument at a static, 16-byte
  /// aligned offset with 16-byte multiple strides (TMA's rules).
  Value tensorMapArgument(Operation *anchor, const GemmSpec::TmaView &view,
                          ArrayRef<int64_t> box) {
    Value v = view.memref;
    while (Operation *def = v.getDefiningOp()) {
      // memref.view's byte shift is not in its type.
      auto like = dyn_cast<ViewLikeOpInterface>(def);
      if (!like || isa<memref::ViewOp>(def))
        return {};
      v = like.getViewSource();
    }
    auto func = anchor->getParentOfType<func::FuncOp>();
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg || arg.getOwner() != &func.getBody().front() ||
        !cast<MemRefType>(arg.getType()).getLayout().isIdentity())
      return {};
    auto type = cast<MemRefType>(view.memref.getType());
    SmallVector<int64_t> strides;
    int64_t offset;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        ShapedType::isDynamic(offset))
      return {};
    int64_t elemBytes = type.getElementTypeBitWidth() / 8;
    SmallVector<int64_t> byteStrides;
    for (int64_t st : ArrayRef(view.strides).drop_front()) {
      byteStrides.push_back(st * elemBytes);
      if (byteStrides.back() % 16 != 0 || byteStrides.back() <= 0)
        return {};
    }
    if ((offset * elemBytes) % 16 != 0)
      return {};
    MLIRContext *ctx = anchor->getContext();
    Builder b(ctx);
    auto map = kiln::planir::TensorMapAttr::get(
        ctx, arg.getArgNumber(), offset * elemBytes, type.getElementType(),
        b.getDenseI64ArrayAttr(view.dims), b.getDenseI64ArrayAttr(byteStrides),
        b.getDenseI64ArrayAttr(box), /*swizzle=*/3);
    unsigned index = func.getNumArguments();
    auto mapType = MemRefType::get({128}, b.getI8Type());
    if (failed(func.insertArgument(
            index, mapType,
            b.getDictionaryAttr(b.getNamedAttr(kTensorMapAttr, map)),
            anchor->getLoc())))
      return {};
    return func.getArgument(index);
  }

  void runOnOperation() override {
    if (minSm < 80)
      return; // mma.sync m16n8k16 needs sm_80
    if (mmaStages < 2 || mmaStages > 8) {
      getOperation().emitError("kiln-gpu-tensor-core: mma-stages must be 2 "
                               "(register double buffering) to 8, got ")
          << static_cast<int64_t>(mmaStages);
      return signalPassFailure();
    }
    if (wgmma != "off" && wgmma != "auto" && !parseWgmmaTile(wgmma)) {
      getOperation().emitError("kiln-gpu-tensor-core: bad wgmma tile '")
          << wgmma
          << "': use off, auto or MxNxS[xD] (M 64|128, N "
             "64|128|256, S stages up to 8 within 227 KB of shared "
             "memory, D = 1 or 2 steps of MMAs in flight, S >= D + "
             "2)";
      return signalPassFailure();
    }
    SmallVector<Operation *> anchors;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isTensorCoreAnchor(op))
        anchors.push_back(op);
    });
    func::FuncOp func = getOperation();
    variant = -1;
    if (auto v = func->getAttrOfType<IntegerAttr>(kTacticVariantAttr))
      variant = v.getInt();
    forced.clear();
    if (auto f = func->getAttrOfType<StringAttr>(kTacticForceAttr))
      llvm::SplitString(f.getValue(), forced, ";");
    for (StringRef &f : forced)
      f = f.trim();
    chosen.clear();
    shapes.clear();
    voidVariant = staleForce = false;
    for (Operation *op : anchors) {
      std::optional<AnchorGemm> gemm = anchorGemm(op, tf32);
      if (!gemm)
        continue;
      replace(op, gemm->spec, *gemm->epilogue);
      for (Operation *dead : gemm->dead)
        dead->erase();
    }
    Builder b(func.getContext());
    // A variant beyond every anchor's tactics (or of a function without
    // tensor-core work) duplicates variant 0: the compiler drops it.
    if (variant > 0 && (voidVariant || chosen.empty()))
      func->setAttr(kTacticVoidAttr, b.getUnitAttr());
    if (staleForce || (!forced.empty() && forced.size() != chosen.size()))
      func->setAttr(kTacticStaleAttr, b.getUnitAttr());
    if (!chosen.empty())
      func->setAttr(kTacticsAttr, b.getStringAttr(llvm::join(chosen, "; ")));
    if (!shapes.empty())
      func->setAttr(kGemmShapesAttr, b.getStringAttr(llvm::join(shapes, "; ")));
  }

  // Per kernel function (runOnOperation).
  int64_t variant = -1;
  SmallVector<StringRef> forced;
  SmallVector<std::string> chosen, shapes;
  bool voidVariant = false, staleForce = false;
};

} // namespace
