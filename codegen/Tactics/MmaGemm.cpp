//===- MmaGemm.cpp - mma.sync GEMM kernel generator -----------------------===//
//
// The kernel, per CTA of T = 32 * warpsM * warpsN threads and a BM x BN tile
// of C (BM = 32 * warpsM, BN = 32 * warpsN), K walked in steps of 32:
//
//   regs = load A[BM x 32] and B[32 x BN] slices of step 0 (global -> regs)
//   for each K step s:
//     store regs to shared buffer s % 2 (A as [m][k], B as [n][k]; rows
//       padded by 8 elements, so the 8 row addresses of one ldmatrix hit
//       distinct banks)
//     barrier
//     regs = load the slices of step s + 1 (in flight during the math)
//     for kk in 0, 16: ldmatrix.x4 (A) / .x2 (B) fragments, 8 mma.sync
//       m16n8k16 per warp into 2 x 4 f32 accumulators of its 32 x 32 tile
//   store the accumulators through the storeC callback (bounds-checked)
//
// Two shared buffers need one barrier per step: step s + 1 writes the buffer
// step s - 1 read, and every thread has passed step s's barrier by then.
// Global indices are clamped into range and out-of-range elements replaced by
// zero, so any M, N, K works; the loads walk each operand's contiguous index
// across neighbouring threads.
//
//===----------------------------------------------------------------------===//
#include "codegen/Tactics/TensorCoreGemm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace kiln::codegen;

namespace {
constexpr int64_t kStepK = MmaTile::kStepK;
constexpr int64_t kPad = 8; // f16 elements of padding per shared row
constexpr int64_t kWarpTile = 32;
constexpr int64_t kVec = 8; // elements per vector slot: 16 bytes of f16

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// f32 operands: the kernel runs them as tf32.
bool isTf32(const GemmSpec &s) {
  return s.elementType && s.elementType.isF32();
}

} // namespace

/// One m16n8k16 mma.sync: D = A * B + C on the fragments (A vector<4x2xT>,
/// B vector<2x2xT>, C vector<2x2xf32>). f16 goes through nvgpu.mma.sync;
/// bf16, which MLIR 22's nvgpu lowering cannot type, through nvvm.mma.sync
/// directly, its operands packed two per 32-bit register as PTX wants.
/// f32 operands (A vector<4x1xf32>, B vector<2x1xf32>, already rounded by
/// roundToTf32) run as tf32 m16n8k8.
static Value mma(OpBuilder &b, Location loc, Value a, Value bFrag, Value c) {
  Type elem = cast<VectorType>(a.getType()).getElementType();
  if (elem.isF16())
    return nvgpu::MmaSyncOp::create(b, loc, a, bFrag, c,
                                    ArrayRef<int64_t>{16, 8, 16});
  if (elem.isF32())
    return nvgpu::MmaSyncOp::create(b, loc, a, bFrag, c,
                                    ArrayRef<int64_t>{16, 8, 8},
                                    /*tf32Enabled=*/true);
  Type i32 = b.getI32Type(), f32 = b.getF32Type();
  auto packed = [&](Value frag) {
    SmallVector<Value> regs;
    int64_t rows = cast<VectorType>(frag.getType()).getDimSize(0);
    for (int64_t r = 0; r < rows; ++r) {
      Value pair =
          vector::ExtractOp::create(b, loc, frag, ArrayRef<int64_t>{r});
      Value word =
          vector::BitCastOp::create(b, loc, VectorType::get({1}, i32), pair);
      regs.push_back(
          vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0}));
    }
    return regs;
  };
  SmallVector<Value> accIn;
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t e = 0; e < 2; ++e)
      accIn.push_back(
          vector::ExtractOp::create(b, loc, c, ArrayRef<int64_t>{r, e}));
  auto resultType =
      LLVM::LLVMStructType::getLiteral(b.getContext(), {f32, f32, f32, f32});
  Value d = NVVM::MmaOp::create(
      b, loc, resultType, packed(a), packed(bFrag), accIn,
      ArrayRef<int64_t>{16, 8, 16}, std::nullopt, std::nullopt,
      std::array<NVVM::MMATypes, 2>{NVVM::MMATypes::bf16, NVVM::MMATypes::bf16},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> out;
  for (int64_t i = 0; i < 4; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, d, i));
  return vector::FromElementsOp::create(b, loc, c.getType(), out);
}

/// A tf32 fragment of f32 values rounded to nearest (ties away from zero:
/// sign, 8 exponent and 10 mantissa bits); the tensor cores would
/// otherwise truncate the low 13 bits.
static Value roundFragment(OpBuilder &b, Location loc, Value frag) {
  auto type = cast<VectorType>(frag.getType());
  SmallVector<Value> out;
  for (int64_t r = 0; r < type.getDimSize(0); ++r)
    out.push_back(roundToTf32(
        b, loc,
        vector::ExtractOp::create(b, loc, frag, ArrayRef<int64_t>{r, 0})));
  return vector::FromElementsOp::create(b, loc, type, out);
}

/// Views of the kernel's dynamic shared memory: each (type, byte offset).
static SmallVector<Value>
dynamicSharedViews(OpBuilder &b, Location loc,
                   ArrayRef<std::pair<MemRefType, int64_t>> views) {
  auto rawType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                 MemRefLayoutAttrInterface(),
                                 views.front().first.getMemorySpace());
  Value raw = gpu::DynamicSharedMemoryOp::create(b, loc, rawType);
  SmallVector<Value> out;
  for (auto [type, byteOffset] : views)
    out.push_back(memref::ViewOp::create(
        b, loc, type, raw, arith::ConstantIndexOp::create(b, loc, byteOffset),
        ValueRange{}));
  return out;
}

/// The end of a cluster split-K kernel: every CTA of the cluster stores its
/// accumulators (partial sums over its K range) to its own shared memory;
/// after a cluster barrier, CTA `part` adds up its 1/split of the tile's
/// groups of 4 (or 8) consecutive elements over all the cluster's CTAs in
/// rank order (deterministic), reading their shared memory through
/// `mapa`/`ld.shared::cluster`, and stores the sums through the epilogue; a
/// second barrier keeps every CTA's shared memory alive until its peers
/// have read it.
static void emitClusterReduction(OpBuilder &b, Location loc, const GemmSpec &s,
                                 const MmaTile &t, scf::ForOp loop, Value part,
                                 Value batch, Value m0, Value n0, Value wm,
                                 Value wn, Value lane, Value tid, int64_t redW,
                                 int64_t redH, int64_t redPitch) {
  MLIRContext *ctx = b.getContext();
  IndexMath im{b, loc};
  const int64_t bm = t.tileM(), bn = t.tileN(), nt = t.threads();
  const int64_t split = t.splitK;
  const int64_t fragM = kWarpTile / 16, fragN = kWarpTile / 8;
  Type f32 = b.getF32Type(), i64 = b.getI64Type();
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Value red = dynamicSharedViews(
      b, loc,
      {{MemRefType::get({redH * redPitch}, f32, MemRefLayoutAttrInterface(),
                        workgroup),
        0}})[0];

  // The dynamic buffer may overlap the operand buffers (where the static
  // ones lie relative to it is up to ptxas): every warp is done reading
  // them first.
  gpu::BarrierOp::create(b, loc);
  // Accumulators to shared memory: lane l holds rows l/4 (+ 8), columns
  // 2 (l % 4) (+ 1) of each 16 x 8 fragment.
  Value rowL = im.add(im.mul(wm, kWarpTile), im.div(lane, 4));
  Value colL = im.add(im.mul(wn, kWarpTile), im.mul(im.rem(lane, 4), 2));
  for (int64_t i = 0; i < fragM; ++i)
    for (int64_t j = 0; j < fragN; ++j) {
      Value acc = loop.getResult(i * fragN + j);
      for (int64_t h = 0; h < 2; ++h) {
        Value r = im.add(rowL, i * 16 + h * 8), c = im.add(colL, j * 8);
        if (!s.cContiguousM) {
          Value pair =
              vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{h});
          vector::StoreOp::create(
              b, loc, pair, red,
              ValueRange{im.index(im.add(im.mul(r, redPitch), c))},
              /*nontemporal=*/false, llvm::MaybeAlign(8));
          continue;
        }
        for (int64_t e = 0; e < 2; ++e) {
          Value v =
              vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{h, e});
          memref::StoreOp::create(
              b, loc, v, red,
              ValueRange{im.index(im.add(im.mul(im.add(c, e), redPitch), r))});
        }
      }
    }
  // Release this CTA's stores, acquire the peers'.
  NVVM::ClusterArriveOp::create(b, loc, /*aligned=*/b.getUnitAttr());
  NVVM::ClusterWaitOp::create(b, loc, /*aligned=*/b.getUnitAttr());

  // Groups of `width` consecutive elements along C's contiguous index; this
  // CTA finishes groups [part * G / split, (part + 1) * G / split).
  const bool wide = !s.cContiguousM && s.storeC8 && s.n % 8 == 0;
  const int64_t width = wide ? 8 : 4;
  const int64_t perRow = redW / width, groups = redH * perRow;
  Value gBegin = im.div(im.mul(part, groups), split);
  Value gEnd = im.div(im.mul(im.add(part, 1), groups), split);
  auto sharedPtr = LLVM::LLVMPointerType::get(ctx, 3);
  auto clusterPtr = LLVM::LLVMPointerType::get(ctx, 7);
  Value base = LLVM::IntToPtrOp::create(
      b, loc, sharedPtr,
      arith::IndexCastUIOp::create(
          b, loc, i64,
          memref::ExtractAlignedPointerAsIndexOp::create(b, loc, red))
          .getResult());
  auto quadType = VectorType::get({4}, f32);
  auto groupLoop =
      scf::ForOp::create(b, loc, im.add(gBegin, tid), gEnd, im.c(nt));
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(groupLoop.getBody());
    Value gi = groupLoop.getInductionVar();
    Value row = im.div(gi, perRow), col = im.mul(im.rem(gi, perRow), width);
    Value offset = im.add(im.mul(row, redPitch), col);
    SmallVector<Value> sums;
    for (int64_t q = 0; q < width / 4; ++q) {
      Value local = LLVM::GEPOp::create(b, loc, sharedPtr, f32, base,
                                        ValueRange{im.add(offset, 4 * q)});
      Value sum;
      for (int64_t p = 0; p < split; ++p) {
        Value peer = NVVM::MapaOp::create(b, loc, clusterPtr, local, im.c(p));
        Value v =
            LLVM::LoadOp::create(b, loc, quadType, peer, /*alignment=*/16);
        sum = sum ? arith::AddFOp::create(b, loc, sum, v).getResult() : v;
      }
      for (int64_t e = 0; e < 4; ++e)
        sums.push_back(vector::ExtractOp::create(b, loc, sum, e));
    }
    if (wide) {
      Value m = im.add(m0, row), n = im.add(n0, col);
      // A group is wholly in or out of C (n and N multiples of 8).
      emitInBounds(b, loc, s, bm, bn, m, n, [&](OpBuilder &nb, Location nl) {
        s.storeC8(nb, nl, batch, m, n, sums);
      });
    } else {
      for (int64_t e = 0; e < width; ++e) {
        Value m = s.cContiguousM ? im.add(m0, im.add(col, e)) : im.add(m0, row);
        Value n = s.cContiguousM ? im.add(n0, row) : im.add(n0, im.add(col, e));
        emitInBounds(b, loc, s, bm, bn, m, n, [&](OpBuilder &nb, Location nl) {
          s.storeC(nb, nl, batch, m, n, sums[e]);
        });
      }
    }
  }
  // No CTA leaves (and frees its shared memory) while a peer may read it.
  NVVM::ClusterArriveOp::create(b, loc, /*aligned=*/b.getUnitAttr());
  NVVM::ClusterWaitOp::create(b, loc, /*aligned=*/b.getUnitAttr());
}

/// Elements of padding per shared row: rows staged [outer][k] get 16 bytes
/// (8 f16 or 4 f32), so that the 8 row addresses of one ldmatrix hit
/// distinct banks; rows staged [k][outer] get 8 elements (f32 fragments are
/// then read element by element: lane l's (k = l % 4, outer = l / 4) hits
/// bank 8 (l % 4) + l / 4, all distinct).
static int64_t rowPad(const GemmSpec &s, bool trans) {
  return trans ? kPad : 16 / elementBytes(s);
}

/// Shared-memory bytes of `stages` stages of both operands' slices.
static int64_t stagedBytes(const GemmSpec &s, const MmaTile &t,
                           int64_t stages) {
  auto operand = [&](int64_t outer, bool trans) {
    return trans ? kStepK * (outer + rowPad(s, true))
                 : outer * (kStepK + rowPad(s, false));
  };
  return stages * elementBytes(s) *
         (operand(t.tileM(), s.aContiguousM) +
          operand(t.tileN(), s.bContiguousN));
}

/// The shared stages the kernel uses: the tile's ring where both operands
/// have 16-byte addresses (cp.async moves 16 bytes), else 2; at most as
/// many as fit the 227 KB of an sm_90 CTA (f32 slices are twice as large).
static int64_t ringStages(const GemmSpec &s, const MmaTile &t) {
  if (!s.vecA || !s.vecB || t.stages <= 2)
    return 2;
  int64_t stages = t.stages;
  while (stages > 3 && stagedBytes(s, t, stages) > 227 * 1024)
    --stages;
  return stages;
}

namespace {
/// What the stages of buildMmaGemm share: the tile's sizes and shared-memory
/// layout (fixed by the constructor, which creates no IR), the launch, and
/// the per-thread values its prologue computes. The stages run in order:
/// emitLaunch, emitPrologue, emitMainLoop, then emitEpilogue (or the
/// cluster reduction), then emitSplitKReduction where split-K needs it.
struct MmaGemmBuilder {
  /// Per-thread (row, k) coordinates inside a step's slices; a thread
  /// moves `width` consecutive elements along the operand's contiguous
  /// index per slot (8 with a vector load, else 1).
  struct Slot {
    Value outer, k; // outer: m for A, n for B
  };
  /// Where the `width` elements of a slot lie in a K step: the (clamped)
  /// global reference or indices and whether they are in the operand
  /// (null: always).
  struct Source {
    GemmSpec::Ref ref; // vector slots
    Value value;       // scalar slots: the loaded element
    Value inBounds;
  };

  MmaGemmBuilder(OpBuilder &b, Location loc, const GemmSpec &s,
                 const MmaTile &t, Value partials);

  /// The gpu.launch: grid (M tiles, N tiles, batch x split), the operands'
  /// shared memory (static workgroup buffers, or dynamic for a ring, f32
  /// and the cluster reduction), the cluster shape with a cluster split.
  gpu::LaunchOp emitLaunch();
  /// At the start of the launch body: the shared-memory views, the CTA's
  /// tile origin, batch, split part and K range, the thread's warp and
  /// lane, its load slots, and the lane offsets of its ldmatrix fragments.
  void emitPrologue();
  /// The K loop over [kBegin, kEnd): its results are the 2 x 4 f32
  /// accumulators of the warp's 32 x 32 tile (then register slices, unused).
  scf::ForOp emitMainLoop();
  /// Stores each accumulator element through storeC, or into `partials`
  /// with a global split-K (bounds-checked); ends the launch body.
  void emitEpilogue(scf::ForOp loop);
  /// The second launch of a global split-K: one thread per element of C
  /// adds up its partial sums and stores them through storeC.
  void emitSplitKReduction();

  // Main-loop helpers.
  /// Two shared buffers filled through registers: each step stores the
  /// slices loaded during the previous one, then loads the next.
  scf::ForOp emitRegisterLoop(SmallVector<Value> init);
  /// A ring of `stages` shared stages filled by cp.async, stages - 1 steps
  /// ahead of the MMAs (its prologue issues the first ones).
  scf::ForOp emitRingLoop(SmallVector<Value> init);
  SmallVector<Slot> slots(int64_t elems, int64_t outerSize, bool outerFastest,
                          int64_t width);
  Source source(Value step, const Slot &slot, bool isA, bool loadScalar);
  SmallVector<Value> staged(Value buf, bool trans, const Slot &slot);
  /// Loads the slices of K step `step` into registers.
  SmallVector<Value> loadStep(Value step);
  /// Issues the cp.async of K step `step` into ring stage `stage`.
  void issueStep(Value step, Value stage);
  /// One K step of MMAs on stage `buf`: the accumulators after it.
  SmallVector<Value> mmaStep(Value buf, SmallVector<Value> acc);
  SmallVector<Value> mmaStepTf32(Value buf, SmallVector<Value> acc);

  Value dim(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  OpBuilder &b;
  Location loc;
  const GemmSpec &s;
  const MmaTile &t;
  Value partials;
  MLIRContext *ctx;
  IndexMath im;

  // The tile.
  int64_t bm, bn, nt;
  // tf32 (f32 operands): 4-byte elements and m16n8k8 MMAs.
  bool tf32;
  int64_t mmaK, lds, kSteps, split, stepsPerSplit, elemsA, elemsB;
  int64_t fragM = kWarpTile / 16, fragN = kWarpTile / 8; // 2 x 4 mma
  Type elem, f32;
  // An operand whose contiguous index is m (n) is staged as [k][m] ([k][n])
  // and read with ldmatrix.trans, so that the global loads of neighbouring
  // threads and their shared stores walk the same direction (no bank
  // conflicts); rows are padded (rowPad).
  bool transA, transB;
  MemRefType smemA, smemB;
  // Cluster split-K: the `split` CTAs of a tile (consecutive blockIdx.z,
  // cluster rank = part) leave their f32 partial sums in dynamic shared
  // memory, rows along C's contiguous index, padded by 8 floats.
  bool cluster;
  int64_t redW, redH, redPitch;
  // With 16-byte addresses of both operands, the stages are a ring in
  // dynamic shared memory filled by cp.async, `stages - 1` steps ahead.
  // Without, two buffers: static shared memory, or dynamic with f32 (two
  // f32 buffers of a large tile pass the 48 KB of static shared memory).
  int64_t stages;
  bool ring, dynamicOperands;
  MemRefType ringA, ringB;
  int64_t ringBytesA, dynamicBytes;
  SmallVector<Type, 2> staticBuffers;

  gpu::LaunchOp launch;
  // emitPrologue's values.
  Value sA, sB, tid, m0, n0, batch, part, kBegin, kEnd, lane, wm, wn;
  SmallVector<Slot> slotsA, slotsB;
  VectorType vecType;
  Value zero, zeroVec;
  Value warpM, warpN, l8, l16, hi, odd;
};
} // namespace

MmaGemmBuilder::MmaGemmBuilder(OpBuilder &b, Location loc, const GemmSpec &s,
                               const MmaTile &t, Value partials)
    : b(b), loc(loc), s(s), t(t), partials(partials),
      ctx(b.getContext()), im{b, loc} {
  bm = t.tileM();
  bn = t.tileN();
  nt = t.threads();
  tf32 = isTf32(s);
  mmaK = tf32 ? 8 : 16;
  lds = kStepK + rowPad(s, false);
  kSteps = ceilDiv(s.k, kStepK);
  split = std::max<int64_t>(t.splitK, 1);
  stepsPerSplit = ceilDiv(kSteps, split);
  elemsA = bm * kStepK / nt;
  elemsB = bn * kStepK / nt;
  elem = s.elementType;
  f32 = Float32Type::get(ctx);

  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  transA = s.aContiguousM;
  transB = s.bContiguousN;
  smemA = MemRefType::get(transA ? ArrayRef<int64_t>{2, kStepK, bm + kPad}
                                 : ArrayRef<int64_t>{2, bm, lds},
                          elem, MemRefLayoutAttrInterface(), workgroup);
  smemB = MemRefType::get(transB ? ArrayRef<int64_t>{2, kStepK, bn + kPad}
                                 : ArrayRef<int64_t>{2, bn, lds},
                          elem, MemRefLayoutAttrInterface(), workgroup);
  cluster = split > 1 && t.cluster;
  assert((!cluster || split <= MmaTile::kMaxClusterSplit) && "cluster too big");
  redW = s.cContiguousM ? bm : bn;
  redH = s.cContiguousM ? bn : bm;
  redPitch = redW + 8;
  stages = ringStages(s, t);
  ring = stages > 2;
  dynamicOperands = ring || tf32;
  ringA = MemRefType::get({stages, smemA.getDimSize(1), smemA.getDimSize(2)},
                          elem, MemRefLayoutAttrInterface(), workgroup);
  ringB = MemRefType::get({stages, smemB.getDimSize(1), smemB.getDimSize(2)},
                          elem, MemRefLayoutAttrInterface(), workgroup);
  ringBytesA = ringA.getNumElements() * elementBytes(s);
  const int64_t ringBytes =
      dynamicOperands ? ringBytesA + ringB.getNumElements() * elementBytes(s)
                      : 0;
  dynamicBytes =
      std::max(ringBytes, cluster ? redH * redPitch * 4 : int64_t(0));
  if (!dynamicOperands)
    staticBuffers = {smemA, smemB};
}

gpu::LaunchOp MmaGemmBuilder::emitLaunch() {
  launch = gpu::LaunchOp::create(
      b, loc, dim(ceilDiv(s.m, bm)), dim(ceilDiv(s.n, bn)),
      dim(s.batch * split), dim(nt), dim(1), dim(1),
      dynamicBytes
          ? arith::ConstantIntOp::create(b, loc, b.getI32Type(), dynamicBytes)
                .getResult()
          : Value(),
      Type(), ValueRange{}, staticBuffers, TypeRange{},
      cluster ? dim(1) : Value(), cluster ? dim(1) : Value(),
      cluster ? dim(split) : Value());
  if (cluster) {
    // MLIR 22's builder gives the body only the 12 grid/block arguments;
    // a launch with clusters also has the cluster ids and sizes (12..17).
    Block &body = launch.getBody().front();
    unsigned expected =
        gpu::LaunchOp::kNumConfigRegionAttributes + 6 + staticBuffers.size();
    for (unsigned i = body.getNumArguments(); i < expected; ++i)
      body.insertArgument(gpu::LaunchOp::kNumConfigRegionAttributes,
                          b.getIndexType(), loc);
  }
  return launch;
}

void MmaGemmBuilder::emitPrologue() {
  if (dynamicOperands) {
    SmallVector<Value> views =
        dynamicSharedViews(b, loc, {{ringA, 0}, {ringB, ringBytesA}});
    sA = views[0];
    sB = views[1];
  } else {
    sA = launch.getWorkgroupAttributions()[0];
    sB = launch.getWorkgroupAttributions()[1];
  }
  tid = im.cast(launch.getThreadIds().x);
  m0 = im.mul(im.cast(launch.getBlockIds().x), bm);
  n0 = im.mul(im.cast(launch.getBlockIds().y), bn);
  Value z = im.cast(launch.getBlockIds().z);
  // z = part * batch + b (global partials), or b * split + part (a
  // cluster's CTAs are consecutive along z).
  batch = split == 1 ? z : cluster ? im.div(z, split) : im.rem(z, s.batch);
  part = split == 1 ? Value() : cluster ? im.rem(z, split) : im.div(z, s.batch);
  kBegin = split > 1 ? im.mul(part, stepsPerSplit) : im.c(0);
  kEnd = split > 1 ? arith::MinUIOp::create(
                         b, loc, im.add(kBegin, stepsPerSplit), im.c(kSteps))
                   : im.c(kSteps);
  Value warp = im.div(tid, 32);
  lane = im.rem(tid, 32);
  wm = im.rem(warp, t.warpsM);
  wn = im.div(warp, t.warpsM);

  const int64_t widthA = s.vecA ? kVec : 1, widthB = s.vecB ? kVec : 1;
  slotsA = slots(elemsA, bm, s.aContiguousM, widthA);
  slotsB = slots(elemsB, bn, s.bContiguousN, widthB);
  zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(elem, 0.0));
  vecType = VectorType::get({kVec}, elem);
  zeroVec = arith::ConstantOp::create(
      b, loc, vecType,
      DenseElementsAttr::get(vecType, b.getFloatAttr(elem, 0.0)));

  // The warp's offsets in the tile and the lanes' in the ldmatrix
  // fragments (mmaStep).
  warpM = im.mul(wm, kWarpTile);
  warpN = im.mul(wn, kWarpTile);
  l8 = im.rem(lane, 8);
  l16 = im.rem(lane, 16);
  hi = im.mul(im.div(lane, 16), 8);            // matrices 2, 3
  odd = im.mul(im.rem(im.div(lane, 8), 2), 8); // matrices 1, 3
}

SmallVector<MmaGemmBuilder::Slot> MmaGemmBuilder::slots(int64_t elems,
                                                        int64_t outerSize,
                                                        bool outerFastest,
                                                        int64_t width) {
  SmallVector<Slot> out;
  for (int64_t i = 0; i < elems / width; ++i) {
    Value e = im.add(tid, i * nt);
    if (outerFastest) {
      int64_t perRow = outerSize / width;
      out.push_back({im.mul(im.rem(e, perRow), width), im.div(e, perRow)});
    } else {
      int64_t perRow = kStepK / width;
      out.push_back({im.div(e, perRow), im.mul(im.rem(e, perRow), width)});
    }
  }
  return out;
}

MmaGemmBuilder::Source MmaGemmBuilder::source(Value step, const Slot &slot,
                                              bool isA, bool loadScalar) {
  Value k0 = im.mul(step, kStepK);
  Value outer0 = isA ? m0 : n0;
  int64_t outerSize = isA ? s.m : s.n;
  int64_t tile = isA ? bm : bn;
  bool outerContiguous = isA ? s.aContiguousM : s.bContiguousN;
  const GemmSpec::Address &vec = isA ? s.vecA : s.vecB;
  int64_t width = vec ? kVec : 1;
  Value outer = im.add(outer0, slot.outer);
  Value k = im.add(k0, slot.k);
  Source src;
  if (outerSize % tile != 0)
    src.inBounds = im.lt(outer, outerSize);
  if (s.k % kStepK != 0)
    src.inBounds = im.andI(src.inBounds, im.lt(k, s.k));
  // Clamped into range (a vector's start stays a multiple of 8).
  int64_t outerLast = outerSize - (width > 1 && outerContiguous ? width : 1);
  int64_t kLast = s.k - (width > 1 && !outerContiguous ? width : 1);
  Value oc = outerSize % tile != 0 ? im.min(outer, outerLast) : outer;
  Value kc = im.min(k, kLast);
  if (vec) {
    src.ref = isA ? vec(b, loc, batch, oc, kc) : vec(b, loc, batch, kc, oc);
    src.inBounds = im.andI(src.inBounds, src.ref.valid);
  } else if (loadScalar) {
    const GemmSpec::Load &load = isA ? s.loadA : s.loadB;
    src.value = isA ? load(b, loc, batch, oc, kc) : load(b, loc, batch, kc, oc);
  }
  return src;
}

SmallVector<Value> MmaGemmBuilder::staged(Value buf, bool trans,
                                          const Slot &slot) {
  return im.index(trans ? ValueRange{buf, slot.k, slot.outer}
                        : ValueRange{buf, slot.outer, slot.k});
}

SmallVector<Value> MmaGemmBuilder::loadStep(Value step) {
  SmallVector<Value> regs;
  auto one = [&](const Slot &slot, bool isA) {
    bool vec = bool(isA ? s.vecA : s.vecB);
    Source src = source(step, slot, isA, /*loadScalar=*/true);
    Value v = src.value;
    if (vec)
      v = vector::LoadOp::create(b, loc, vecType, src.ref.memref,
                                 src.ref.indices, /*nontemporal=*/false,
                                 llvm::MaybeAlign(16));
    if (!src.inBounds)
      return v;
    return arith::SelectOp::create(b, loc, src.inBounds, v,
                                   vec ? zeroVec : zero)
        .getResult();
  };
  for (const Slot &slot : slotsA)
    regs.push_back(one(slot, true));
  for (const Slot &slot : slotsB)
    regs.push_back(one(slot, false));
  return regs;
}

void MmaGemmBuilder::issueStep(Value step, Value stage) {
  // 16 bytes per cp.async: a slot's 8 f32 take two; nothing read, zeros
  // written, outside the operand.
  auto tokenType = nvgpu::DeviceAsyncTokenType::get(ctx);
  const int64_t perCopy = 16 / elementBytes(s);
  auto one = [&](const Slot &slot, bool isA) {
    Source src = source(step, slot, isA, /*loadScalar=*/false);
    Value srcElements;
    if (src.inBounds)
      srcElements =
          arith::SelectOp::create(b, loc, src.inBounds, dim(perCopy), dim(0));
    SmallVector<Value> dst = staged(stage, isA ? transA : transB, slot);
    SmallVector<Value> from = src.ref.indices;
    for (int64_t c = 0; c < kVec; c += perCopy) {
      // Both walk the contiguous index, their last.
      if (c > 0) {
        dst.back() = arith::AddIOp::create(b, loc, dst.back(), dim(perCopy));
        from.back() = arith::AddIOp::create(b, loc, from.back(), dim(perCopy));
      }
      nvgpu::DeviceAsyncCopyOp::create(
          b, loc, tokenType, isA ? sA : sB, dst, src.ref.memref, from,
          b.getIndexAttr(perCopy), srcElements, b.getUnitAttr());
    }
  };
  for (const Slot &slot : slotsA)
    one(slot, true);
  for (const Slot &slot : slotsB)
    one(slot, false);
}

// tf32 m16n8k8: lane l holds A (m, k) = (g, t), (g + 8, t), (g, t + 4),
// (g + 8, t + 4) and B (k, n) = (t, g), (t + 4, g), g = l / 4,
// t = l % 4. Staged [outer][k], ldmatrix of 32-bit elements delivers
// exactly that: its 8x8 b16 matrices are 8x4 f32 ones, lane l getting
// row l / 4, element l % 4; A's four at (m 0-7 | 8-15, k 0-3 | 4-7),
// B's two at (n 0-7, k 0-3 | 4-7). Staged [k][outer] (ldmatrix.trans
// moves 16-bit halves), each lane reads its elements one by one.
SmallVector<Value> MmaGemmBuilder::mmaStepTf32(Value buf,
                                               SmallVector<Value> acc) {
  auto fragAType = VectorType::get({4, 1}, elem);
  auto fragBType = VectorType::get({2, 1}, elem);
  Value g = im.div(lane, 4), tq = im.rem(lane, 4);
  Value hi4 = im.mul(im.div(lane, 16), 4);            // A's matrices 2, 3
  Value odd4 = im.mul(im.rem(im.div(lane, 8), 2), 4); // B's matrix 1
  auto element = [&](Value smem, Value k, Value outer) {
    return memref::LoadOp::create(b, loc, smem,
                                  im.index(ValueRange{buf, k, outer}))
        .getResult();
  };
  for (int64_t kk = 0; kk < kStepK; kk += mmaK) {
    SmallVector<Value> fa, fb;
    for (int64_t i = 0; i < fragM; ++i) {
      Value m = im.add(warpM, i * 16);
      if (!transA) {
        fa.push_back(nvgpu::LdMatrixOp::create(
            b, loc, fragAType, sA,
            im.index(ValueRange{buf, im.add(m, l16), im.add(hi4, kk)}),
            /*transpose=*/false, /*numTiles=*/4));
        continue;
      }
      SmallVector<Value> e;
      for (int64_t r = 0; r < 4; ++r)
        e.push_back(element(sA, im.add(tq, kk + (r / 2) * 4),
                            im.add(m, im.add(g, (r % 2) * 8))));
      fa.push_back(vector::FromElementsOp::create(b, loc, fragAType, e));
    }
    if (!s.aRounded)
      for (Value &f : fa)
        f = roundFragment(b, loc, f);
    for (int64_t j = 0; j < fragN; ++j) {
      Value n = im.add(warpN, j * 8);
      if (!transB) {
        fb.push_back(nvgpu::LdMatrixOp::create(
            b, loc, fragBType, sB,
            im.index(ValueRange{buf, im.add(n, l8), im.add(odd4, kk)}),
            /*transpose=*/false, /*numTiles=*/2));
        continue;
      }
      SmallVector<Value> e;
      for (int64_t r = 0; r < 2; ++r)
        e.push_back(element(sB, im.add(tq, kk + r * 4), im.add(n, g)));
      fb.push_back(vector::FromElementsOp::create(b, loc, fragBType, e));
    }
    if (!s.bRounded)
      for (Value &f : fb)
        f = roundFragment(b, loc, f);
    for (int64_t i = 0; i < fragM; ++i)
      for (int64_t j = 0; j < fragN; ++j)
        acc[i * fragN + j] = mma(b, loc, fa[i], fb[j], acc[i * fragN + j]);
  }
  return acc;
}

SmallVector<Value> MmaGemmBuilder::mmaStep(Value buf, SmallVector<Value> acc) {
  if (tf32)
    return mmaStepTf32(buf, std::move(acc));
  auto fragAType = VectorType::get({4, 2}, elem);
  auto fragBType = VectorType::get({2, 2}, elem);
  // Lane l gives the row address of 8x8 matrix l / 8, row l % 8. A's
  // four matrices are (m 0-7, k 0-7), (m 8-15, k 0-7), (m 0-7, k 8-15),
  // (m 8-15, k 8-15); B's two are (n 0-7, k 0-7), (n 0-7, k 8-15).
  // Staged [m][k] the rows are m; staged [k][m] they are k and
  // ldmatrix.trans hands each lane the same fragment elements.
  auto fragA = [&](int64_t i, int64_t kk) {
    Value m = im.add(warpM, i * 16);
    return transA ? SmallVector<Value>{buf, im.add(im.add(hi, l8), kk),
                                       im.add(m, odd)}
                  : SmallVector<Value>{buf, im.add(m, l16), im.add(hi, kk)};
  };
  auto fragB = [&](int64_t j, int64_t kk) {
    Value n = im.add(warpN, j * 8);
    return transB ? SmallVector<Value>{buf, im.add(l16, kk), n}
                  : SmallVector<Value>{buf, im.add(n, l8), im.add(odd, kk)};
  };
  for (int64_t kk = 0; kk < kStepK; kk += mmaK) {
    SmallVector<Value> fa, fb;
    for (int64_t i = 0; i < fragM; ++i)
      fa.push_back(nvgpu::LdMatrixOp::create(b, loc, fragAType, sA,
                                             im.index(fragA(i, kk)), transA,
                                             /*numTiles=*/4));
    for (int64_t j = 0; j < fragN; ++j)
      fb.push_back(nvgpu::LdMatrixOp::create(b, loc, fragBType, sB,
                                             im.index(fragB(j, kk)), transB,
                                             /*numTiles=*/2));
    for (int64_t i = 0; i < fragM; ++i)
      for (int64_t j = 0; j < fragN; ++j)
        acc[i * fragN + j] = mma(b, loc, fa[i], fb[j], acc[i * fragN + j]);
  }
  return acc;
}

scf::ForOp MmaGemmBuilder::emitMainLoop() {
  SmallVector<Value> init;
  auto accType = VectorType::get({2, 2}, f32);
  Value accZero = arith::ConstantOp::create(
      b, loc, accType,
      DenseElementsAttr::get(accType, b.getFloatAttr(f32, 0.0)));
  for (int64_t i = 0; i < fragM * fragN; ++i)
    init.push_back(accZero);
  if (!ring)
    return emitRegisterLoop(std::move(init));
  scf::ForOp loop = emitRingLoop(std::move(init));
  // (Only empty groups can be pending; none may be when the CTA reuses
  // its shared memory or exits.)
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  return loop;
}

scf::ForOp MmaGemmBuilder::emitRingLoop(SmallVector<Value> init) {
  // Prologue: steps kBegin .. kBegin + stages - 2, one commit group
  // each (empty past kEnd, so that every step waits for the same
  // count). Step i of the loop waits for its group, then (after the
  // barrier every thread passes once done with step i - 1) refills the
  // stage step i - 1 read with step i + stages - 1.
  for (int64_t p = 0; p < stages - 1; ++p) {
    Value step = im.add(kBegin, p);
    auto ifOp = scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, step, kEnd),
        false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      issueStep(step, im.c(p));
    }
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }
  auto loop = scf::ForOp::create(b, loc, kBegin, kEnd, im.c(1), init);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(loop.getBody());
  Value step = loop.getInductionVar();
  Value i = arith::SubIOp::create(b, loc, step, kBegin);
  NVVM::CpAsyncWaitGroupOp::create(b, loc, uint32_t(stages - 2));
  gpu::BarrierOp::create(b, loc);
  Value next = im.add(step, stages - 1);
  auto more = scf::IfOp::create(
      b, loc,
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, next, kEnd),
      false);
  {
    OpBuilder::InsertionGuard gi(b);
    b.setInsertionPointToStart(more.thenBlock());
    issueStep(next, im.rem(im.add(i, stages - 1), stages));
  }
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
  SmallVector<Value> acc(loop.getRegionIterArgs().begin(),
                         loop.getRegionIterArgs().end());
  scf::YieldOp::create(b, loc, mmaStep(im.rem(i, stages), acc));
  return loop;
}

scf::ForOp MmaGemmBuilder::emitRegisterLoop(SmallVector<Value> init) {
  const int64_t numAcc = fragM * fragN;
  llvm::append_range(init, loadStep(kBegin));
  auto loop = scf::ForOp::create(b, loc, kBegin, kEnd, im.c(1), init);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(loop.getBody());
  Value step = loop.getInductionVar();
  ValueRange args = loop.getRegionIterArgs();
  Value buf = im.rem(step, 2);
  auto store = [&](Value v, Value smem, SmallVector<Value> at) {
    if (isa<VectorType>(v.getType()))
      vector::StoreOp::create(b, loc, v, smem, at, /*nontemporal=*/false,
                              llvm::MaybeAlign(16));
    else
      memref::StoreOp::create(b, loc, v, smem, at);
  };
  size_t numA = slotsA.size();
  for (size_t i = 0; i < numA; ++i)
    store(args[numAcc + i], sA, staged(buf, transA, slotsA[i]));
  for (size_t i = 0; i < slotsB.size(); ++i)
    store(args[numAcc + numA + i], sB, staged(buf, transB, slotsB[i]));
  gpu::BarrierOp::create(b, loc);
  SmallVector<Value> next = loadStep(im.add(step, 1));
  SmallVector<Value> yields =
      mmaStep(buf, SmallVector<Value>(args.begin(), args.begin() + numAcc));
  llvm::append_range(yields, next);
  scf::YieldOp::create(b, loc, yields);
  return loop;
}

void MmaGemmBuilder::emitEpilogue(scf::ForOp loop) {
  // Lane l holds rows l/4 and l/4 + 8, columns 2 (l % 4) + {0,1} of each
  // 16 x 8 accumulator.
  Value rowC = im.add(im.add(m0, im.mul(wm, kWarpTile)), im.div(lane, 4));
  Value colC =
      im.add(im.add(n0, im.mul(wn, kWarpTile)), im.mul(im.rem(lane, 4), 2));
  for (int64_t i = 0; i < fragM; ++i)
    for (int64_t j = 0; j < fragN; ++j) {
      Value accV = loop.getResult(i * fragN + j);
      for (int64_t h = 0; h < 2; ++h)
        for (int64_t e = 0; e < 2; ++e) {
          Value m = im.add(rowC, i * 16 + h * 8);
          Value n = im.add(colC, j * 8 + e);
          Value v =
              vector::ExtractOp::create(b, loc, accV, ArrayRef<int64_t>{h, e});
          emitInBounds(
              b, loc, s, bm, bn, m, n, [&](OpBuilder &nb, Location nl) {
                if (split > 1)
                  memref::StoreOp::create(
                      nb, nl, v, partials,
                      IndexMath(nb, nl).index(ValueRange{part, batch, m, n}));
                else
                  s.storeC(nb, nl, batch, m, n, v);
              });
        }
    }
  gpu::TerminatorOp::create(b, loc);
}

void MmaGemmBuilder::emitSplitKReduction() {
  // One thread per element of C sums the partials in a fixed order
  // (deterministic), then stores through storeC.
  int64_t total = s.batch * s.m * s.n;
  const int64_t threads = 256;
  auto reduce =
      gpu::LaunchOp::create(b, loc, dim(ceilDiv(total, threads)), dim(1),
                            dim(1), dim(threads), dim(1), dim(1));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&reduce.getBody().front());
  Value idx = im.add(im.mul(im.cast(reduce.getBlockIds().x), threads),
                     im.cast(reduce.getThreadIds().x));
  auto ifOp = scf::IfOp::create(b, loc, im.lt(idx, total), false);
  b.setInsertionPointToStart(ifOp.thenBlock());
  // C's contiguous index walks fastest across threads.
  Value batch, m, n;
  if (s.cContiguousM) {
    m = im.rem(idx, s.m);
    Value rest = im.div(idx, s.m);
    n = im.rem(rest, s.n);
    batch = im.div(rest, s.n);
  } else {
    n = im.rem(idx, s.n);
    Value rest = im.div(idx, s.n);
    m = im.rem(rest, s.m);
    batch = im.div(rest, s.m);
  }
  Value sum;
  for (int64_t p = 0; p < split; ++p) {
    Value v = memref::LoadOp::create(
        b, loc, partials, im.index(ValueRange{im.c(p), batch, m, n}));
    sum = sum ? arith::AddFOp::create(b, loc, sum, v).getResult() : v;
  }
  s.storeC(b, loc, batch, m, n, sum);
  b.setInsertionPointToEnd(&reduce.getBody().front());
  gpu::TerminatorOp::create(b, loc);
}

gpu::LaunchOp kiln::codegen::buildMmaGemm(OpBuilder &b, Location loc,
                                          const GemmSpec &s, const MmaTile &t,
                                          Value partials) {
  MmaGemmBuilder g(b, loc, s, t, partials);
  gpu::LaunchOp launch = g.emitLaunch();
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&launch.getBody().front());
    g.emitPrologue();
    scf::ForOp loop = g.emitMainLoop();
    if (g.cluster) {
      emitClusterReduction(b, loc, s, t, loop, g.part, g.batch, g.m0, g.n0,
                           g.wm, g.wn, g.lane, g.tid, g.redW, g.redH,
                           g.redPitch);
      gpu::TerminatorOp::create(b, loc);
      return launch;
    }
    g.emitEpilogue(loop);
  }
  if (g.split > 1)
    g.emitSplitKReduction();
  return launch;
}
