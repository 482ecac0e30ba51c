//===- TensorCoreGemm.cpp - what both GEMM generators share ---------------===//
//
// The pieces of TensorCoreGemm.h that both kernel generators use (tf32
// rounding, the bounds-checked epilogue, operand sizes) and the mma.sync
// tile cost model. The kernels: MmaGemm.cpp (mma.sync), WgmmaGemm.cpp
// (sm_90a wgmma).
//
//===----------------------------------------------------------------------===//
#include "codegen/Tactics/TensorCoreGemm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <algorithm>
#include <cmath>

using namespace mlir;
using namespace kiln::codegen;

namespace {
constexpr int64_t kStepK = MmaTile::kStepK;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// f32 operands: the kernel runs them as tf32.
bool isTf32(const GemmSpec &s) {
  return s.elementType && s.elementType.isF32();
}

} // namespace

Value kiln::codegen::roundToTf32(OpBuilder &b, Location loc, Value v) {
  // (cvt.rna.tf32.f32 is a conversion at a quarter of the integer rate:
  // the wgmma kernel's rounding of every loaded chunk ran 60 % slower with
  // it. Unlike it, this turns a NaN whose payload lies in the low 13 bits
  // into an infinity.)
  Type i32 = b.getI32Type();
  Value bits = arith::BitcastOp::create(b, loc, i32, v);
  bits = arith::AddIOp::create(
      b, loc, bits, arith::ConstantIntOp::create(b, loc, i32, 0x1000));
  bits = arith::AndIOp::create(
      b, loc, bits,
      arith::ConstantIntOp::create(b, loc, i32, int64_t(int32_t(0xFFFFE000u))));
  return arith::BitcastOp::create(b, loc, b.getF32Type(), bits);
}

void kiln::codegen::emitInBounds(
    OpBuilder &b, Location loc, const GemmSpec &s, int64_t tileM, int64_t tileN,
    Value m, Value n, llvm::function_ref<void(OpBuilder &, Location)> emit) {
  IndexMath im{b, loc};
  Value inBounds;
  if (s.m % tileM != 0)
    inBounds = im.lt(m, s.m);
  if (s.n % tileN != 0)
    inBounds = im.andI(inBounds, im.lt(n, s.n));
  if (!inBounds) {
    emit(b, loc);
    return;
  }
  auto ifOp = scf::IfOp::create(b, loc, inBounds, false);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(ifOp.thenBlock());
  emit(b, loc);
}

std::string MmaTile::str() const {
  std::string s = std::to_string(tileM()) + "x" + std::to_string(tileN()) +
                  "x" + std::to_string(kStepK);
  if (stages > 2)
    s += " ring " + std::to_string(stages);
  if (splitK > 1)
    s += " split-k " + std::to_string(splitK) + (cluster ? " cluster" : "");
  return s;
}

MmaTile kiln::codegen::chooseMmaTile(const GemmSpec &spec, int64_t sms,
                                     double kLatency, bool clusters) {
  return rankMmaTiles(spec, sms, kLatency, clusters).front();
}

std::vector<MmaTile> kiln::codegen::rankMmaTiles(const GemmSpec &spec,
                                                 int64_t sms, double kLatency,
                                                 bool clusters) {
  // A small model of the kernel, in SM clock cycles (a guess until
  // kiln-tune measures; constants for an H100/H200-class SM):
  //  - one K step of a CTA costs max(latency, work): the global loads of
  //    the next step are in flight for ~kLatency cycles (measured on an
  //    H200: ResNet-50's convs, see bench/README.md); the work is the
  //    load instructions (BM + BN) * 32 elements * spec.loadCost over 128
  //    lanes issued per cycle, plus the mma.sync flops at kMmaRate;
  //  - r CTAs resident on one SM overlap their latencies: a step of the
  //    r of them costs max(kLatency, r * work);
  //  - registers bound r (~128 per thread, 64 K per SM);
  //  - split-K adds a kernel boundary and a pass over f32 partials; in a
  //    cluster, two cluster barriers and each CTA reading a tile's worth of
  //    f32 from its peers' shared memory instead.
  constexpr double kMmaRate = 2500, kLaunchGap = 1500, kBytesPerCycle = 2000;
  constexpr double kClusterSync = 600, kDsmemBytesPerCycle = 32;
  static const int64_t shapes[][2] = {{4, 4}, {4, 2}, {2, 4}, {2, 2},
                                      {2, 1}, {1, 2}, {1, 1}};
  int64_t kSteps = ceilDiv(spec.k, kStepK);
  std::vector<std::pair<double, MmaTile>> ranked;
  int64_t bestIndex = -1;
  double bestCost = INFINITY;
  for (auto [wm, wn] : shapes) {
    MmaTile t;
    t.warpsM = wm;
    t.warpsN = wn;
    int64_t bm = t.tileM(), bn = t.tileN();
    // (tf32 MMAs run at half the f16 rate.)
    double work =
        double(bm + bn) * kStepK * spec.loadCost / 128.0 +
        double(bm * bn * kStepK * 2) / kMmaRate * (isTf32(spec) ? 2 : 1);
    int64_t maxResident = std::max<int64_t>(1, 65536 / (t.threads() * 128));
    int64_t tiles = ceilDiv(spec.m, bm) * ceilDiv(spec.n, bn) * spec.batch;
    for (int64_t split : {1, 2, 3, 4, 6, 8, 12, 16}) {
      if (split > 1 && kSteps / split < 2)
        break;
      if (clusters && split > MmaTile::kMaxClusterSplit)
        break;
      int64_t perSm = ceilDiv(tiles * split, sms);
      int64_t resident = std::min(maxResident, perSm);
      double round = double(ceilDiv(kSteps, split)) *
                     std::max(kLatency, double(resident) * work);
      // Each round of resident CTAs ends with its cluster reduction.
      if (split > 1 && clusters)
        round += kClusterSync +
                 double(resident * bm * bn) * 4.0 / kDsmemBytesPerCycle;
      double cost = double(ceilDiv(perSm, resident)) * round;
      if (split > 1 && !clusters)
        cost += kLaunchGap + double(split * spec.batch * spec.m * spec.n) *
                                 8.0 / kBytesPerCycle;
      MmaTile c = t;
      c.splitK = split;
      c.cluster = clusters && split > 1;
      // Ties go to the earlier (larger) tile and the smaller split.
      if (cost < bestCost * 0.999) {
        bestCost = cost;
        bestIndex = int64_t(ranked.size());
      }
      ranked.push_back({cost, c});
    }
  }
  // The best first (with the tie rule above), then by estimated cost.
  std::vector<MmaTile> out;
  out.push_back(ranked[bestIndex].second);
  ranked.erase(ranked.begin() + bestIndex);
  std::stable_sort(
      ranked.begin(), ranked.end(),
      [](const auto &x, const auto &y) { return x.first < y.first; });
  for (auto &[cost, tile] : ranked)
    out.push_back(tile);
  return out;
}

int64_t kiln::codegen::elementBytes(const GemmSpec &s) {
  return isTf32(s) ? 4 : 2;
}
