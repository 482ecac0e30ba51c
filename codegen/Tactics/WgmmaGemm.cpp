//===- WgmmaGemm.cpp - sm_90a wgmma GEMM kernel generator -----------------===//
//
// The Hopper tactic. Per CTA of W warpgroups (128 threads each) and a
// BM x BN tile of C (BM = 64 W), K walked in steps of 64:
//
//   ring of S shared stages, each holding A[BM x 64] and B[BN x 64] in the
//   128-byte-swizzled layout wgmma reads (the 16-byte chunk c of 128-byte
//   row r is stored at chunk c ^ (r % 8), so the 8 rows of a core matrix
//   hit distinct banks); the ring is aligned to 1024 bytes, the period of
//   the swizzle, because the hardware applies it to absolute addresses.
//
//   prologue: cp.async steps 0 .. S-3 (one commit group per step)
//   for each K step s:
//     wait until step s's group has landed; fence.proxy.async (cp.async
//       writes through the generic proxy, wgmma reads through the async
//       one); CTA barrier
//     wgmma.mma_async m64nBNk16 x 4 on stage s % S (each warpgroup its 64
//       rows; descriptors computed from the stage address), commit
//     cp.async step s + A into the stage step s - D - 1 used, commit
//     wgmma.wait_group D: the last D steps' MMAs stay in flight while the
//       next iteration waits for its data
//   store the accumulators through storeC (bounds-checked)
//
// The CTAs are persistent: as many as fit at once, each walking tiles
// blockIdx, blockIdx + CTAs, ...; once a tile's MMAs are done, the first
// steps of its next tile are issued before its epilogue, so the loads'
// latency hides behind the stores.
//
// With D steps of MMAs in flight (1 or 2), A = S - 1 - D steps of loads
// are: step s - D - 1's stage is free at step s, since every warpgroup
// waited for those MMAs (wait_group D at step s - 1) before step s's
// barrier.
//
// TMA: an operand with a tensor map (GemmSpec::tmaA/tmaB) is copied by the
// Tensor Memory Accelerator instead: thread 0 arms stage s's mbarrier with
// the bytes of its boxes (mbarrier.arrive.expect_tx) and issues them
// (cp.async.bulk.tensor, 128-byte swizzle: the same layout as above, zeros
// outside the tensor); every thread waits on the barrier's phase before
// the step's CTA barrier. Phase parity of stage i at step s of the j-th
// tile this CTA runs: (j * uses_i + s / S) % 2, uses_i being the steps of
// a tile that use stage i. The stage is reused only after the CTA barrier
// that follows every thread's wait, so no thread falls a phase behind.
//
// An operand contiguous along K is staged K-major (a 128-byte row per M/N
// index); one contiguous along M/N is staged MN-major (64-element blocks
// of 64 K rows), and the instruction's transpose bit says which. The loads
// are 16-byte cp.async, zero-filled outside the matrix.
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

#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace kiln::codegen;

namespace {
constexpr int64_t kBlockK = 64;       // K per stage: one 128-byte row of f16
constexpr int64_t kRowBytes = 128;    // a swizzled row
constexpr int64_t kAtomBytes = 1024;  // 8 rows: the swizzle's period
constexpr int64_t kChunks = 8;        // 16-byte chunks per row
constexpr int64_t kBarrierBytes = 64; // an mbarrier per stage (8 at most)

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The tiles the generator offers, largest first.
const WgmmaTile kTiles[] = {
    {2, 256, 4},
    {2, 128, 5},
    {2, 128, 4},
    {2, 64, 5},
    {1, 128, 5},
    // Short K (fewer steps than a deeper ring holds): the shallowest ring.
    {2, 128, 3},
    {2, 256, 3},
    {2, 64, 3}};

/// Multiprocessor shared memory the tiles share (H100/H200: 228 KB), and
/// the most one CTA may take.
constexpr int64_t kSmBytes = 228 * 1024;
constexpr int64_t kCtaBytes = 227 * 1024;
} // namespace

int64_t WgmmaTile::sharedBytes() const {
  return stages * (tileM() + tileN) * kRowBytes + kAtomBytes + kBarrierBytes;
}

int64_t WgmmaTile::residentPerSm() const {
  return std::max<int64_t>(1, kSmBytes / sharedBytes());
}

std::string WgmmaTile::str() const {
  std::string r = std::to_string(tileM()) + "x" + std::to_string(tileN) + "x" +
                  std::to_string(kBlockK) + " " + std::to_string(stages) +
                  " stages";
  if (inFlight != 1)
    r += ", " + std::to_string(inFlight) + " steps of MMAs in flight";
  return r;
}

bool kiln::codegen::wgmmaApplies(const GemmSpec &s) {
  if (!s.vecA || !s.vecB)
    return false;
  if (s.elementType.isF16() || s.elementType.isBF16())
    return true;
  // tf32 wgmma reads K-major operands only (no transpose bit).
  return s.elementType.isF32() && !s.aContiguousM && !s.bContiguousN;
}

std::optional<WgmmaTile> kiln::codegen::parseWgmmaTile(llvm::StringRef text) {
  SmallVector<StringRef> parts;
  text.split(parts, 'x');
  int64_t v[4] = {0, 0, 0, 1};
  if (parts.size() != 3 && parts.size() != 4)
    return std::nullopt;
  for (size_t i = 0; i < parts.size(); ++i)
    if (!llvm::to_integer(parts[i], v[i]))
      return std::nullopt;
  if ((v[0] != 64 && v[0] != 128) ||
      (v[1] != 64 && v[1] != 128 && v[1] != 256) || v[2] > 8 || v[3] < 1 ||
      v[3] > 2 || v[2] < v[3] + 2)
    return std::nullopt;
  WgmmaTile t{v[0] / 64, v[1], v[2], v[3]};
  if (t.sharedBytes() > kCtaBytes)
    return std::nullopt;
  return t;
}

namespace {
/// The estimated time of `t` on `s` (arbitrary units), or none where the
/// tile does not apply; `fills`: whether it has enough tiles to fill the GPU.
std::optional<double> wgmmaCost(const WgmmaTile &t, const GemmSpec &s,
                                int64_t sms, bool &fills) {
  // The time of a tile is proportional to its area over its efficiency
  // (bigger tiles read less shared memory per flop); CTAs resident on one
  // SM share it. A ring deeper than K's steps has nothing to overlap, so
  // short K gets the 3-stage ring. Efficiencies relative to 128x256 were
  // measured on an H200 with BERT-base's GEMMs at batch 32 (bench/README.md):
  // 128x128 0.8, 128x64 0.5, 64x128 0.55; so a 128x256 tile wins even with
  // fewer tiles than SMs (4096x768x3072: one wave of 96 tiles in 37 us
  // against 55 us for three waves of 128x64). With fewer tiles than that
  // (see `fills`), mma.sync with split-K spreads the work better.
  // The short-K rings (3 stages, two CTAs per SM overlapping each other's
  // epilogues) keep the older rule: half the largest area or more is as
  // good as it.
  // An epilogue that reads a residual as large as C, after a short K loop
  // (at most 8 steps of 128 bytes), is a large part of the tile's time: the
  // 3-stage 128x128 ring, two CTAs per SM, overlaps one CTA's epilogue with
  // the other's MMAs. kiln-tune on an H200 (ResNet-50 b64 fp16, the
  // expansion convs with their residual add): 12544x1024x256 1.26x over
  // 128x256x4 (the tie the area rule left), 3136x2048x512 1.09-1.20x.
  // K steps: 128 bytes of K each (64 f16, 32 f32).
  const int64_t kSteps = ceilDiv(s.k, kRowBytes / elementBytes(s));
  const bool overlapEpilogues =
      s.epilogueReads && kSteps <= 8 && elementBytes(s) == 2;
  auto efficiency = [&](const WgmmaTile &t) {
    if (t.stages <= 3) {
      double e = t.tileM() * t.tileN >= 128 * 128 ? 1.0 : 0.8;
      if (overlapEpilogues && t.residentPerSm() >= 2)
        e *= 1.15;
      return e;
    }
    if (t.tileM() == 128 && t.tileN == 256)
      return 1.0;
    if (t.tileM() == 128 && t.tileN == 128)
      return 0.8;
    return t.tileM() == 128 ? 0.5 : 0.55;
  };
  if (kSteps < t.stages && t.stages > 3)
    return std::nullopt;
  // The 3-stage 128x64 ring is for N = 64 (where a 128x128 tile wastes
  // half its columns) with K too short for the 5-stage ring. Measured on
  // an H200 (ResNet-50 b64 convs, N = 64): K 256, 128x64x3 beats
  // 128x128x3 by 3 %; K 576, 128x64x5 beats 128x64x3 by 2 %.
  if (t.stages == 3 && t.tileN == 64 && (s.n > 64 || kSteps >= 5))
    return std::nullopt;
  int64_t tiles = ceilDiv(s.m, t.tileM()) * ceilDiv(s.n, t.tileN) * s.batch;
  // Enough tiles for the Hopper kernel: half the SMs, or a sixth when the
  // GEMM is at least as wide as the narrowest tile. kiln-tune on an H200
  // (batch-1 ResNet-50, ResNeXt-50, BERT: 174 regions, bench/README.md):
  // from about 22 tiles on, wgmma beats mma.sync with cluster split-K by
  // 10-30 % (ResNet-50 layer1, BERT's QKV and FFN-up GEMMs); at 16 tiles
  // they tie, at 13 and fewer split-K wins by up to 2.5x; GEMMs narrower
  // than 64 (ResNeXt's groups of 16 and 32 filters) lose 12 % to wgmma's
  // padding even at 64 tiles.
  fills = 2 * tiles >= sms || (6 * tiles >= sms && s.n >= 64);
  int64_t resident = t.residentPerSm();
  double area = double(t.tileM() * t.tileN);
  return double(ceilDiv(tiles, sms * resident)) * double(resident) * area /
         efficiency(t);
}
} // namespace

std::optional<WgmmaTile> kiln::codegen::chooseWgmmaTile(const GemmSpec &s,
                                                        int64_t sms) {
  std::optional<WgmmaTile> best;
  double bestCost = INFINITY;
  for (const WgmmaTile &t : kTiles) {
    bool fills = false;
    std::optional<double> cost = wgmmaCost(t, s, sms, fills);
    if (!cost || !fills)
      continue;
    if (*cost < bestCost * 0.999) {
      bestCost = *cost;
      best = t;
    }
  }
  return best;
}

std::vector<WgmmaTile> kiln::codegen::rankWgmmaTiles(const GemmSpec &s,
                                                     int64_t sms) {
  std::optional<WgmmaTile> best = chooseWgmmaTile(s, sms);
  std::vector<std::pair<double, WgmmaTile>> ranked;
  for (const WgmmaTile &t : kTiles) {
    bool fills = false;
    std::optional<double> cost = wgmmaCost(t, s, sms, fills);
    if (!cost || (best && t.str() == best->str()))
      continue;
    // Tiles too few to fill the GPU after those that fill it.
    ranked.push_back({*cost * (fills ? 1.0 : 1e6), t});
  }
  std::stable_sort(
      ranked.begin(), ranked.end(),
      [](const auto &x, const auto &y) { return x.first < y.first; });
  std::vector<WgmmaTile> out;
  if (best)
    out.push_back(*best);
  for (auto &[cost, t] : ranked)
    out.push_back(t);
  return out;
}

namespace {
/// What the stages of buildWgmmaGemm share: the tile's sizes (fixed by the
/// constructor, which creates no IR), the launch, and the per-thread values
/// its prologue computes. The stages run in order: emitLaunch, emitPrologue,
/// then emitTileLoop (per tile: emitMainLoop, the next tile's first loads,
/// emitEpilogue).
struct WgmmaGemmBuilder {
  /// Where a tile of C starts.
  struct Origin {
    Value m0, n0, batch;
  };
  /// One of this thread's 16-byte chunks of a stage: global (outer, k)
  /// offsets from the tile origin and the swizzled element offset in the
  /// stage.
  struct Chunk {
    Value outer, k, offset;
  };

  WgmmaGemmBuilder(OpBuilder &b, Location loc, const GemmSpec &s,
                   const WgmmaTile &t, int64_t sms);

  /// The operands' tensor maps (new kernel arguments, where spec.tensorMap
  /// gives them) and the gpu.launch of the persistent CTAs.
  gpu::LaunchOp emitLaunch();
  /// At the start of the launch body: the thread's warpgroup, the ring
  /// (aligned to 1024 bytes), the stages' mbarriers with TMA, the thread's
  /// cp.async chunks, and the first tile's first `ahead` steps in flight.
  void emitPrologue();
  /// The loop over this CTA's tiles; the builder is left inside its body.
  scf::ForOp emitTileLoop();
  /// The K loop of the tile at `here`: its result is the accumulator
  /// struct (bn / 2 f32 per thread).
  scf::ForOp emitMainLoop(const Origin &here, Value tilesBefore);
  /// Stores the accumulators `result` of the tile at `here` through
  /// storeC8 (staged through the free stages) or storeC.
  void emitEpilogue(Value result, const Origin &here);

  // Helpers.
  Origin origin(Value index);
  SmallVector<Chunk> chunks(int64_t rows, bool outerContiguous, int64_t base);
  /// The first `ahead` steps of a tile, one commit group each (empty ones
  /// too, so that the group count stays the same for every tile).
  void emitTilePrologue(const Origin &at, Value valid);
  /// Issues the loads of K step `step` of tile `at` into stage `stage`.
  void issue(const Origin &at, Value step, Value stage);
  /// The TMA part of issue(): thread 0 arms the stage's mbarrier and
  /// copies the boxes of K offset `k0`.
  void issueTma(const Origin &at, Value k0, Value stage);
  void roundStage(Value stage);
  /// One K step's wgmma.mma_async ops on stage `stage`, from `acc`.
  Value emitMmas(Value stage, Value acc);
  /// The 16-byte stores of storeC8, through `chunk` columns of the tile at
  /// a time in f32 shared memory (row pitch `pitch`).
  void emitStagedEpilogue(Value result, const Origin &here, int64_t chunk,
                          int64_t pitch, Value local, Value lane);
  Value descriptor(Value byteAddress, bool mnMajor);
  NVVM::WGMMATypesAttr wgType();
  Value sharedPtr(Value address32, unsigned addrSpace = 3);
  Value stageBarrier(Value stage);
  Value mapPointer(Value map);
  Value xorI(Value x, Value y) { return arith::XOrIOp::create(b, loc, x, y); }
  Value dim(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

  OpBuilder &b;
  Location loc;
  const GemmSpec &s;
  const WgmmaTile &t;
  MLIRContext *ctx;
  IndexMath im;

  int64_t bm, bn, nt, ns;
  // A stage row is 128 bytes of K: 64 f16/bf16, or 32 f32 (tf32, whose
  // wgmma takes K 8 at a time where f16 takes 16: 32 bytes either way).
  Type elem;
  bool tf32;
  int64_t elemBytes, blockK, mmaK;
  int64_t kChunk; // elements per 16-byte cp.async
  int64_t kSteps, bytesA, stageBytes;
  Type f32, i64;
  // Persistent CTAs: as many as fit on the GPU at once, each walking tiles
  // t, t + ctas, ... (M tiles fastest, then N tiles, then batches).
  int64_t tilesM, tilesN, tiles, ctas;
  // tf32: the MMA would read the 19 high bits of each f32, truncating the
  // rest (a bias toward zero that adds up over a deep network: ResNet-50's
  // logits off by 1.1 % of the largest instead of 0.056 %, cuDNN's TF32
  // level). Each thread rounds the chunks it copied into stage `stage` to
  // nearest instead (roundToTf32), once they have landed and before the
  // barrier that hands the stage to the MMAs; operands rounded at build
  // time (weights) are left alone. This costs a shared-memory read and
  // write of what it rounds: a 4096^3 GEMM of two activations takes 0.58
  // instead of 0.38 ms. (Going through registers instead of cp.async, to
  // round on the way, was slower still: 0.86 ms, the loads' latency no
  // longer hidden two steps ahead.)
  bool roundA, roundB;
  int64_t inFlight, ahead;
  gpu::AddressSpaceAttr workgroup;

  // emitLaunch's values.
  Value mapA, mapB;
  bool tmaA = false, tmaB = false, anyTma = false, anyCpAsync = false;
  int64_t txBytes = 0; // bytes one stage's boxes bring in
  gpu::LaunchOp launch;
  // emitPrologue's values.
  Value tid, wg, raw, pad, ringAddress, ring, barriers, leader;
  Value mapPtrA, mapPtrB;
  SmallVector<Chunk> chunksA, chunksB;
  Value first; // this CTA's first tile
};
} // namespace

WgmmaGemmBuilder::WgmmaGemmBuilder(OpBuilder &b, Location loc,
                                   const GemmSpec &s, const WgmmaTile &t,
                                   int64_t sms)
    : b(b), loc(loc), s(s), t(t), ctx(b.getContext()), im{b, loc} {
  bm = t.tileM();
  bn = t.tileN;
  nt = t.threads();
  ns = t.stages;
  elem = s.elementType;
  tf32 = elem.isF32();
  assert((!tf32 || (!s.aContiguousM && !s.bContiguousN)) &&
         "tf32 wgmma needs K-major operands");
  elemBytes = elementBytes(s);
  blockK = kRowBytes / elemBytes;
  mmaK = 32 / elemBytes;
  kChunk = 16 / elemBytes;
  kSteps = ceilDiv(s.k, blockK);
  bytesA = bm * kRowBytes;
  stageBytes = (bm + bn) * kRowBytes;
  f32 = b.getF32Type();
  i64 = b.getI64Type();
  tilesM = ceilDiv(s.m, bm);
  tilesN = ceilDiv(s.n, bn);
  tiles = tilesM * tilesN * s.batch;
  ctas = std::min(tiles, sms * t.residentPerSm());
  roundA = tf32 && !s.aRounded;
  roundB = tf32 && !s.bRounded;
  inFlight = t.inFlight;
  ahead = ns - 1 - inFlight;
  workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
}

gpu::LaunchOp WgmmaGemmBuilder::emitLaunch() {
  // TMA boxes: a K-major operand's stage is one box of 128 bytes of K by
  // its rows; an MN-major one's is rows / 64 boxes of 64 M/N elements by
  // blockK rows of K (one 8 KB block each). Batch dims: one at a time.
  auto boxOf = [&](const GemmSpec::TmaView &v, int64_t rows,
                   bool outerContiguous) {
    SmallVector<int64_t> box(v.dims.size(), 1);
    box[0] = outerContiguous ? kRowBytes / elemBytes : blockK;
    box[1] = outerContiguous ? blockK : rows;
    return box;
  };
  if (s.tensorMap && s.tmaA)
    mapA = s.tensorMap(*s.tmaA, boxOf(*s.tmaA, bm, s.aContiguousM));
  if (s.tensorMap && s.tmaB)
    mapB = s.tensorMap(*s.tmaB, boxOf(*s.tmaB, bn, s.bContiguousN));
  tmaA = bool(mapA);
  tmaB = bool(mapB);
  anyTma = tmaA || tmaB;
  anyCpAsync = !tmaA || !tmaB;
  // (Out-of-bounds parts count too.)
  txBytes = (tmaA ? bytesA : 0) + (tmaB ? bn * kRowBytes : 0);
  Value smemSize =
      arith::ConstantIntOp::create(b, loc, b.getI32Type(), t.sharedBytes());
  launch = gpu::LaunchOp::create(b, loc, dim(ctas), dim(1), dim(1), dim(nt),
                                 dim(1), dim(1), smemSize);
  return launch;
}

WgmmaGemmBuilder::Origin WgmmaGemmBuilder::origin(Value index) {
  Value rest = im.div(index, tilesM);
  return Origin{im.mul(im.rem(index, tilesM), bm),
                im.mul(im.rem(rest, tilesN), bn), im.div(rest, tilesN)};
}

// (A CTA's shared::cta addresses are its shared::cluster addresses too:
// addrSpace 7 for the TMA destination, as its PTX form wants.)
Value WgmmaGemmBuilder::sharedPtr(Value address32, unsigned addrSpace) {
  return LLVM::IntToPtrOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, addrSpace),
      arith::ExtUIOp::create(b, loc, i64, address32).getResult());
}

Value WgmmaGemmBuilder::stageBarrier(Value stage) {
  return sharedPtr(im.add(barriers, im.mul(stage, 8)));
}

Value WgmmaGemmBuilder::mapPointer(Value map) {
  if (!map)
    return {};
  Value address = arith::IndexCastUIOp::create(
      b, loc, i64, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, map));
  return LLVM::IntToPtrOp::create(b, loc, LLVM::LLVMPointerType::get(ctx),
                                  address);
}

void WgmmaGemmBuilder::emitPrologue() {
  tid = im.cast(launch.getThreadIds().x);
  wg = im.div(tid, 128);

  // The ring: dynamic shared memory, aligned up to 1024 bytes.
  auto rawType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                 MemRefLayoutAttrInterface(), workgroup);
  raw = gpu::DynamicSharedMemoryOp::create(b, loc, rawType);
  Value address =
      im.cast(memref::ExtractAlignedPointerAsIndexOp::create(b, loc, raw));
  // (-address) mod 1024, in unsigned 32-bit arithmetic.
  pad = im.rem(arith::SubIOp::create(b, loc, im.c(0), address), kAtomBytes);
  ringAddress = im.add(address, pad);
  auto ringType = MemRefType::get({ns * stageBytes / elemBytes}, elem,
                                  MemRefLayoutAttrInterface(), workgroup);
  ring = memref::ViewOp::create(b, loc, ringType, raw, im.index(pad),
                                ValueRange{});

  // TMA: an mbarrier per stage after the ring, initialized by thread 0 for
  // one arrival (its expect_tx) per phase; the tensor maps' addresses.
  barriers = im.add(ringAddress, ns * stageBytes);
  leader =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, im.c(0));
  mapPtrA = mapPointer(mapA);
  mapPtrB = mapPointer(mapB);
  if (anyTma) {
    auto init = scf::IfOp::create(b, loc, leader, false);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(init.thenBlock());
      for (int64_t i = 0; i < ns; ++i)
        NVVM::MBarrierInitOp::create(b, loc, stageBarrier(im.c(i)), im.c(1),
                                     Value());
      NVVM::FenceMbarrierInitOp::create(b, loc);
    }
    gpu::BarrierOp::create(b, loc);
  }

  chunksA = chunks(bm, s.aContiguousM, 0);
  chunksB = chunks(bn, s.bContiguousN, bytesA);

  first = im.cast(launch.getBlockIds().x);
  emitTilePrologue(origin(first), arith::ConstantIntOp::create(b, loc, 1, 1));
}

SmallVector<WgmmaGemmBuilder::Chunk>
WgmmaGemmBuilder::chunks(int64_t rows, bool outerContiguous, int64_t base) {
  SmallVector<Chunk> out;
  for (int64_t i = 0; i < rows * kChunks / nt; ++i) {
    Value e = im.add(tid, i * nt);
    Chunk c;
    if (!outerContiguous) {
      // K-major: row r = outer index, chunk q along K.
      Value r = im.div(e, kChunks), q = im.rem(e, kChunks);
      c.outer = r;
      c.k = im.mul(q, kChunk);
      c.offset = im.add(im.mul(r, kRowBytes / elemBytes),
                        im.mul(xorI(q, im.rem(r, 8)), kChunk));
    } else {
      // MN-major: row = k, chunk q along M/N; 64-wide blocks of 64 rows.
      int64_t perRow = rows / kChunk;
      Value k = im.div(e, perRow), q = im.rem(e, perRow);
      c.outer = im.mul(q, kChunk);
      c.k = k;
      Value block = im.div(q, 8), within = im.rem(q, 8);
      c.offset = im.add(im.add(im.mul(block, blockK * kRowBytes / elemBytes),
                               im.mul(k, kRowBytes / elemBytes)),
                        im.mul(xorI(within, im.rem(k, 8)), kChunk));
    }
    c.offset = im.add(c.offset, base / elemBytes);
    out.push_back(c);
  }
  return out;
}

void WgmmaGemmBuilder::issue(const Origin &at, Value step, Value stage) {
  Value m0 = at.m0, n0 = at.n0, batch = at.batch;
  Value k0 = im.mul(step, blockK);
  Value stageOffset = im.mul(stage, stageBytes / elemBytes);
  auto tokenType = nvgpu::DeviceAsyncTokenType::get(ctx);
  auto one = [&](const Chunk &c, bool isA) {
    Value origin = isA ? m0 : n0;
    int64_t size = isA ? s.m : s.n, tile = isA ? bm : bn;
    bool outerContiguous = isA ? s.aContiguousM : s.bContiguousN;
    Value outer = im.add(origin, c.outer), k = im.add(k0, c.k);
    Value valid;
    if (size % tile != 0)
      valid = im.lt(outer, size);
    if (s.k % blockK != 0)
      valid = im.andI(valid, im.lt(k, s.k));
    Value oc = size % tile != 0
                   ? im.min(outer, size - (outerContiguous ? kChunk : 1))
                   : outer;
    Value kc =
        s.k % blockK != 0 ? im.min(k, s.k - (outerContiguous ? 1 : kChunk)) : k;
    GemmSpec::Ref ref =
        isA ? s.vecA(b, loc, batch, oc, kc) : s.vecB(b, loc, batch, kc, oc);
    valid = im.andI(valid, ref.valid);
    Value srcElements;
    if (valid)
      srcElements = arith::SelectOp::create(b, loc, valid, dim(kChunk), dim(0));
    nvgpu::DeviceAsyncCopyOp::create(
        b, loc, tokenType, ring,
        ValueRange{im.index(im.add(stageOffset, c.offset))}, ref.memref,
        ref.indices, b.getIndexAttr(kChunk), srcElements, b.getUnitAttr());
  };
  if (!tmaA)
    for (const Chunk &c : chunksA)
      one(c, true);
  if (!tmaB)
    for (const Chunk &c : chunksB)
      one(c, false);
  if (anyTma)
    issueTma(at, k0, stage);
}

void WgmmaGemmBuilder::issueTma(const Origin &at, Value k0, Value stage) {
  Value m0 = at.m0, n0 = at.n0, batch = at.batch;
  auto leaderOnly = scf::IfOp::create(b, loc, leader, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(leaderOnly.thenBlock());
  Value bar = stageBarrier(stage);
  NVVM::MBarrierArriveExpectTxOp::create(b, loc, Type(), bar, im.c(txBytes),
                                         nullptr, nullptr, Value());
  Value stageAddress = im.add(ringAddress, im.mul(stage, stageBytes));
  auto boxes = [&](const GemmSpec::TmaView &v, Value map, Value outer0,
                   int64_t rows, bool outerContiguous, int64_t base) {
    // Batch coordinates: the linear batch index over dims 2.. (first
    // fastest).
    SmallVector<Value> batchCoords;
    Value rest = batch;
    for (size_t d = 2; d < v.dims.size(); ++d) {
      bool last = d + 1 == v.dims.size();
      batchCoords.push_back(last ? rest : im.rem(rest, v.dims[d]));
      if (!last)
        rest = im.div(rest, v.dims[d]);
    }
    int64_t copies = outerContiguous ? rows / 64 : 1;
    for (int64_t j = 0; j < copies; ++j) {
      SmallVector<Value> coords;
      if (outerContiguous)
        coords = {im.add(outer0, 64 * j), k0};
      else
        coords = {k0, outer0};
      coords.append(batchCoords);
      Value dst =
          sharedPtr(im.add(stageAddress, base + j * blockK * kRowBytes), 7);
      NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
          b, loc, dst, map, coords, bar, ValueRange{}, Value(), Value(),
          NVVM::TMALoadMode::TILE, false, nullptr, Value());
    }
  };
  if (tmaA)
    boxes(*s.tmaA, mapPtrA, m0, bm, s.aContiguousM, 0);
  if (tmaB)
    boxes(*s.tmaB, mapPtrB, n0, bn, s.bContiguousN, bytesA);
}

void WgmmaGemmBuilder::roundStage(Value stage) {
  Value stageOffset = im.mul(stage, stageBytes / elemBytes);
  auto quadType = VectorType::get({4}, elem);
  for (int isA = 1; isA >= 0; --isA) {
    if (!(isA ? roundA : roundB))
      continue;
    for (const Chunk &c : isA ? chunksA : chunksB) {
      SmallVector<Value> at = {im.index(im.add(stageOffset, c.offset))};
      Value v =
          vector::LoadOp::create(b, loc, quadType, ring, at,
                                 /*nontemporal=*/false, llvm::MaybeAlign(16));
      SmallVector<Value> rounded;
      for (int64_t e = 0; e < 4; ++e)
        rounded.push_back(
            roundToTf32(b, loc, vector::ExtractOp::create(b, loc, v, e)));
      vector::StoreOp::create(
          b, loc, vector::FromElementsOp::create(b, loc, quadType, rounded),
          ring, at, /*nontemporal=*/false, llvm::MaybeAlign(16));
    }
  }
}

void WgmmaGemmBuilder::emitTilePrologue(const Origin &at, Value valid) {
  for (int64_t p = 0; p < ahead; ++p) {
    if (p < kSteps) {
      auto ifOp = scf::IfOp::create(b, loc, valid, false);
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(ifOp.thenBlock());
      issue(at, im.c(p), im.c(p));
    }
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
  }
}

// Shared-memory matrix descriptors: start address >> 4 in bits 0-13,
// leading byte offset >> 4 in 16-29, stride byte offset >> 4 in 32-45,
// 128-byte swizzle (1) in 62-63. K-major: rows of 128 bytes, 8-row groups
// 1024 apart (the leading offset is unused). MN-major: 8-row K groups
// 1024 apart, 64-element M/N blocks 8192 apart.
Value WgmmaGemmBuilder::descriptor(Value byteAddress, bool mnMajor) {
  int64_t lbo = mnMajor ? blockK * kRowBytes : 16;
  uint64_t bits = (uint64_t(lbo >> 4) << 16) |
                  (uint64_t(kAtomBytes >> 4) << 32) | (uint64_t(1) << 62);
  Value start = arith::ExtUIOp::create(
      b, loc, i64, im.rem(im.div(byteAddress, 16), 1 << 14));
  return arith::OrIOp::create(
             b, loc, start,
             arith::ConstantIntOp::create(b, loc, i64, int64_t(bits)))
      .getResult();
}

NVVM::WGMMATypesAttr WgmmaGemmBuilder::wgType() {
  return NVVM::WGMMATypesAttr::get(ctx, tf32 ? NVVM::WGMMATypes::tf32
                                        : elem.isF16()
                                            ? NVVM::WGMMATypes::f16
                                            : NVVM::WGMMATypes::bf16);
}

scf::ForOp WgmmaGemmBuilder::emitTileLoop() {
  auto tileLoop = scf::ForOp::create(b, loc, first, im.c(tiles), im.c(ctas));
  b.setInsertionPointToStart(tileLoop.getBody());
  Value tileIndex = tileLoop.getInductionVar();
  Origin here = origin(tileIndex);
  Value tilesBefore =
      im.div(arith::SubIOp::create(b, loc, tileIndex, first), ctas);
  scf::ForOp loop = emitMainLoop(here, tilesBefore);
  // The last MMAs complete before the accumulators are read; once both
  // warpgroups are past them, the ring is free and the next tile's loads
  // start, in flight during this tile's epilogue.
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  gpu::BarrierOp::create(b, loc);
  Value nextTile = im.add(tileIndex, ctas);
  emitTilePrologue(origin(nextTile), im.lt(nextTile, tiles));
  emitEpilogue(loop.getResult(0), here);
  return tileLoop;
}

scf::ForOp WgmmaGemmBuilder::emitMainLoop(const Origin &here,
                                          Value tilesBefore) {
  SmallVector<Type> accTypes(bn / 2, f32);
  auto accType = LLVM::LLVMStructType::getLiteral(ctx, accTypes);
  Value acc = LLVM::PoisonOp::create(b, loc, accType);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0));
  for (int64_t i = 0; i < bn / 2; ++i)
    acc = LLVM::InsertValueOp::create(b, loc, acc, zero, i);
  auto loop = scf::ForOp::create(b, loc, im.c(0), im.c(kSteps), im.c(1),
                                 ValueRange{acc});
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(loop.getBody());
  Value step = loop.getInductionVar();
  Value accIn = loop.getRegionIterArgs()[0];
  if (anyCpAsync)
    NVVM::CpAsyncWaitGroupOp::create(b, loc, uint32_t(ahead - 1));
  if (anyTma) {
    // Fills of this stage before: uses per tile times the tiles this CTA
    // ran before, plus this tile's earlier ones.
    Value stageNow = im.rem(step, ns);
    Value uses = im.div(
        arith::SubIOp::create(b, loc, im.c(kSteps + ns - 1), stageNow), ns);
    Value fills = im.add(arith::MulIOp::create(b, loc, tilesBefore, uses),
                         im.div(step, ns));
    NVVM::MBarrierTryWaitParityOp::create(b, loc, stageBarrier(stageNow),
                                          im.rem(fills, 2), im.c(10000000));
  }
  if (roundA || roundB)
    roundStage(im.rem(step, ns));
  NVVM::FenceProxyOp::create(
      b, loc, NVVM::ProxyKindAttr::get(ctx, NVVM::ProxyKind::async_shared),
      NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  gpu::BarrierOp::create(b, loc);

  Value accV = emitMmas(im.rem(step, ns), accIn);
  Value next = im.add(step, ahead);
  auto more = scf::IfOp::create(b, loc, im.lt(next, kSteps), false);
  {
    OpBuilder::InsertionGuard gi(b);
    b.setInsertionPointToStart(more.thenBlock());
    issue(here, next, im.rem(next, ns));
  }
  NVVM::CpAsyncCommitGroupOp::create(b, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, inFlight);
  scf::YieldOp::create(b, loc, accV);
  return loop;
}

Value WgmmaGemmBuilder::emitMmas(Value stage, Value acc) {
  Value stageAddress = im.add(ringAddress, im.mul(stage, stageBytes));
  // This warpgroup's 64 rows of A: 64 K-major rows, or one MN block.
  Value aAddress = im.add(stageAddress, im.mul(wg, 64 * kRowBytes));
  Value bAddress = im.add(stageAddress, bytesA);
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  Type accType = acc.getType();
  for (int64_t kk = 0; kk < blockK; kk += mmaK) {
    // 32 bytes along a K-major row (16 f16 or 8 f32); 16 rows of an
    // MN-major block (f16 only).
    int64_t stepA = s.aContiguousM ? kk * kRowBytes : kk * elemBytes;
    int64_t stepB = s.bContiguousN ? kk * kRowBytes : kk * elemBytes;
    Value dA = descriptor(im.add(aAddress, stepA), s.aContiguousM);
    Value dB = descriptor(im.add(bAddress, stepB), s.bContiguousN);
    acc = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, accType, acc, dA, dB,
        NVVM::MMAShapeAttr::get(ctx, 64, bn, mmaK), wgType(), wgType(),
        NVVM::WGMMATypesAttr::get(ctx, NVVM::WGMMATypes::f32),
        NVVM::WGMMAScaleOutAttr::get(ctx, NVVM::WGMMAScaleOut::one),
        NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
        NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
        // row/col: K-major A/B; the other: transposed (MN-major).
        NVVM::MMALayoutAttr::get(ctx, s.aContiguousM ? NVVM::MMALayout::col
                                                     : NVVM::MMALayout::row),
        NVVM::MMALayoutAttr::get(ctx, s.bContiguousN ? NVVM::MMALayout::row
                                                     : NVVM::MMALayout::col),
        /*satfinite=*/nullptr);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  return acc;
}

void WgmmaGemmBuilder::emitEpilogue(Value result, const Origin &here) {
  Value m0 = here.m0, n0 = here.n0, batch = here.batch;
  // In warp w of a warpgroup, lane l holds rows 16 w + l / 4 (+ 8) and
  // columns 8 j + 2 (l % 4) (+ 1): register 4 j + 2 h + e.
  Value local = im.rem(tid, 128), lane = im.rem(tid, 32);
  Value rowC = im.add(im.add(m0, im.mul(wg, 64)),
                      im.add(im.mul(im.div(local, 32), 16), im.div(lane, 4)));
  Value colC = im.add(n0, im.mul(im.rem(lane, 4), 2));
  // Staged epilogue: the stages the next tile's first loads leave alone
  // ([ahead, ns)) hold a chunk of columns of the tile in f32; then every
  // thread finishes 8 consecutive columns of one row (16-byte stores
  // instead of the fragments' scattered 2-byte ones). Rows are padded by 8
  // floats so that the fragments' 8-byte writes avoid bank conflicts.
  const int64_t freeBytes = (ns - ahead) * stageBytes;
  int64_t chunk = bn;
  while (chunk > 8 && bm * (chunk + 8) * 4 > freeBytes)
    chunk /= 2;
  const int64_t pitch = chunk + 8;
  if (s.storeC8 && s.n % 8 == 0 && bm * pitch * 4 <= freeBytes &&
      (bm * chunk / 8) % nt == 0) {
    emitStagedEpilogue(result, here, chunk, pitch, local, lane);
    return;
  }
  for (int64_t j = 0; j < bn / 8; ++j)
    for (int64_t h = 0; h < 2; ++h)
      for (int64_t e = 0; e < 2; ++e) {
        Value m = im.add(rowC, h * 8), n = im.add(colC, j * 8 + e);
        Value v =
            LLVM::ExtractValueOp::create(b, loc, result, j * 4 + h * 2 + e);
        emitInBounds(b, loc, s, bm, bn, m, n, [&](OpBuilder &nb, Location nl) {
          s.storeC(nb, nl, batch, m, n, v);
        });
      }
}

void WgmmaGemmBuilder::emitStagedEpilogue(Value result, const Origin &here,
                                          int64_t chunk, int64_t pitch,
                                          Value local, Value lane) {
  Value m0 = here.m0, n0 = here.n0, batch = here.batch;
  auto stagingType = MemRefType::get({bm * pitch}, f32,
                                     MemRefLayoutAttrInterface(), workgroup);
  Value staging = memref::ViewOp::create(
      b, loc, stagingType, raw, im.index(im.add(pad, ahead * stageBytes)),
      ValueRange{});
  Value localRow = im.add(
      im.mul(wg, 64), im.add(im.mul(im.div(local, 32), 16), im.div(lane, 4)));
  Value localCol = im.mul(im.rem(lane, 4), 2);
  auto pairType = VectorType::get({2}, f32);
  auto quadType = VectorType::get({4}, f32);
  const int64_t perRow = chunk / 8;
  for (int64_t c0 = 0; c0 < bn; c0 += chunk) {
    if (c0 > 0)
      gpu::BarrierOp::create(b, loc);
    for (int64_t j = c0 / 8; j < (c0 + chunk) / 8; ++j)
      for (int64_t h = 0; h < 2; ++h) {
        Value pair = vector::FromElementsOp::create(
            b, loc, pairType,
            ValueRange{
                LLVM::ExtractValueOp::create(b, loc, result, j * 4 + h * 2),
                LLVM::ExtractValueOp::create(b, loc, result,
                                             j * 4 + h * 2 + 1)});
        Value at = im.add(im.mul(im.add(localRow, h * 8), pitch),
                          im.add(localCol, j * 8 - c0));
        vector::StoreOp::create(b, loc, pair, staging, ValueRange{im.index(at)},
                                /*nontemporal=*/false, llvm::MaybeAlign(8));
      }
    gpu::BarrierOp::create(b, loc);
    for (int64_t i = 0; i < bm * perRow / nt; ++i) {
      Value e = im.add(tid, i * nt);
      Value r = im.div(e, perRow), q = im.rem(e, perRow);
      Value at = im.add(im.mul(r, pitch), im.mul(q, 8));
      SmallVector<Value> vals;
      for (int64_t half = 0; half < 2; ++half) {
        Value v =
            vector::LoadOp::create(b, loc, quadType, staging,
                                   ValueRange{im.index(im.add(at, 4 * half))},
                                   /*nontemporal=*/false, llvm::MaybeAlign(16));
        for (int64_t k = 0; k < 4; ++k)
          vals.push_back(vector::ExtractOp::create(b, loc, v, k));
      }
      Value m = im.add(m0, r), n = im.add(n0, im.add(im.mul(q, 8), c0));
      // A vector is wholly in or out of C (n and N multiples of 8).
      emitInBounds(b, loc, s, bm, bn, m, n, [&](OpBuilder &nb, Location nl) {
        s.storeC8(nb, nl, batch, m, n, vals);
      });
    }
  }
}

gpu::LaunchOp kiln::codegen::buildWgmmaGemm(OpBuilder &b, Location loc,
                                            const GemmSpec &s,
                                            const WgmmaTile &t, int64_t sms) {
  WgmmaGemmBuilder g(b, loc, s, t, sms);
  gpu::LaunchOp launch = g.emitLaunch();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&launch.getBody().front());
  g.emitPrologue();
  scf::ForOp tileLoop = g.emitTileLoop();
  // No copy may be in flight when the CTA exits.
  b.setInsertionPointAfter(tileLoop);
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  gpu::TerminatorOp::create(b, loc);
  return launch;
}
