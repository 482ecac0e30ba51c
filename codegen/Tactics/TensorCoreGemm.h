//===- TensorCoreGemm.h - mma.sync GEMM kernel generator --------*- C++ -*-===//
//
// A parameterized generator of tensor-core GEMM kernels, the "tactic" behind
// matmul, batch matmul and implicit-GEMM convolution on sm_80 and newer:
//
//   C[b, m, n] = sum_k A(b, m, k) * B(b, k, n)      (f16 in, f32 accumulate)
//
// The operands are not memrefs but callbacks that emit the load of one
// element, so the same kernel reads a row-major matrix, a transposed one or
// the im2col view of an NCHW image without materializing anything.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_CODEGEN_GPU_TENSORCOREGEMM_H
#define KILN_CODEGEN_GPU_TENSORCOREGEMM_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kiln::codegen {

/// Small arithmetic helpers on integer values of one type: the kernels
/// compute their (row, column, tap, pixel) coordinates in i32, which the
/// GPU divides by constants far faster than 64-bit `index`, and convert to
/// `index` only to address memory.
struct IndexMath {
  mlir::OpBuilder &b;
  mlir::Location loc;
  mlir::Type type;
  IndexMath(mlir::OpBuilder &b, mlir::Location loc)
      : b(b), loc(loc), type(b.getI32Type()) {}
  mlir::Value c(int64_t v) {
    return mlir::arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, v));
  }
  /// `v` (index or any integer) in this helper's type.
  mlir::Value cast(mlir::Value v) {
    if (v.getType() == type)
      return v;
    return mlir::arith::IndexCastUIOp::create(b, loc, type, v);
  }
  /// `v` as an `index`, for memref accesses.
  mlir::Value index(mlir::Value v) {
    if (v.getType().isIndex())
      return v;
    return mlir::arith::IndexCastUIOp::create(b, loc, b.getIndexType(), v);
  }
  llvm::SmallVector<mlir::Value> index(mlir::ValueRange vs) {
    llvm::SmallVector<mlir::Value> r;
    for (mlir::Value v : vs)
      r.push_back(index(v));
    return r;
  }
  mlir::Value add(mlir::Value x, mlir::Value y) {
    return mlir::arith::AddIOp::create(b, loc, x, y);
  }
  mlir::Value add(mlir::Value x, int64_t y) {
    return y == 0 ? x : add(x, c(y));
  }
  mlir::Value sub(mlir::Value x, int64_t y) {
    return y == 0 ? x
                  : mlir::arith::SubIOp::create(b, loc, x, c(y)).getResult();
  }
  mlir::Value mul(mlir::Value x, int64_t y) {
    return y == 1 ? x
                  : mlir::arith::MulIOp::create(b, loc, x, c(y)).getResult();
  }
  mlir::Value div(mlir::Value x, int64_t y) {
    return y == 1 ? x
                  : mlir::arith::DivUIOp::create(b, loc, x, c(y)).getResult();
  }
  mlir::Value rem(mlir::Value x, int64_t y) {
    return mlir::arith::RemUIOp::create(b, loc, x, c(y));
  }
  mlir::Value min(mlir::Value x, int64_t y) {
    return mlir::arith::MinUIOp::create(b, loc, x, c(y));
  }
  mlir::Value lt(mlir::Value x, int64_t y) {
    return mlir::arith::CmpIOp::create(b, loc, mlir::arith::CmpIPredicate::ult,
                                       x, c(y));
  }
  mlir::Value andI(mlir::Value x, mlir::Value y) {
    if (!x)
      return y;
    if (!y)
      return x;
    return mlir::arith::AndIOp::create(b, loc, x, y);
  }
};

/// Tile shape of one kernel: a CTA of warpsM x warpsN warps computes a
/// (32 * warpsM) x (32 * warpsN) tile of C, 32 deep along K per step; each
/// warp owns a 32 x 32 sub-tile (2 x 4 mma.sync m16n8k16). splitK > 1 splits
/// the K range over that many CTAs: their partial sums go to global memory
/// and a second kernel adds them up, or, with `cluster` (sm_90, splitK <= 8),
/// the splitK CTAs of a tile form one thread-block cluster and add each
/// other's partial sums through distributed shared memory, each finishing
/// 1/splitK of the tile (no second launch, no global round trip).
struct MmaTile {
  int64_t warpsM = 4, warpsN = 2, splitK = 1;
  bool cluster = false;
  /// 2: each step's slices go through registers into two shared buffers.
  /// 3 and more (operands with 16-byte addresses only): a ring of that many
  /// shared stages filled by cp.async, stages - 1 steps ahead of the math.
  int64_t stages = 2;
  /// The largest cluster the kernel forms (portable on sm_90).
  static constexpr int64_t kMaxClusterSplit = 8;
  /// K per main-loop step.
  static constexpr int64_t kStepK = 32;
  int64_t tileM() const { return 32 * warpsM; }
  int64_t tileN() const { return 32 * warpsN; }
  int64_t threads() const { return 32 * warpsM * warpsN; }
  std::string str() const;
};

/// A GEMM as the generator sees it.
struct GemmSpec {
  int64_t batch = 1, m = 0, n = 0, k = 0;
  mlir::Type elementType; // of A and B: f16
  /// Which global index of A (B) is contiguous in memory: threads of a warp
  /// walk it so that their loads coalesce.
  bool aContiguousM = false, bContiguousN = true;
  /// Whether C's contiguous index is m (else n): the split-K reduction walks
  /// it.
  bool cContiguousM = false;
  /// Instructions per loaded element (index math, bounds): the cost model's
  /// view of the loads (an im2col gather costs more than a row).
  double loadCost = 4;
  /// Whether the fused epilogue also reads a tensor of C's size (a residual
  /// add): it then moves as many bytes again as it stores.
  bool epilogueReads = false;
  using Load = std::function<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                         mlir::Value batch, mlir::Value row,
                                         mlir::Value col)>;
  /// A memref element: where a vector of 8 starts.
  struct Ref {
    mlir::Value memref;
    llvm::SmallVector<mlir::Value> indices;
    /// Optional i1: false where the 8 elements lie in a zero region of the
    /// operand that memory does not hold (a convolution's padding); they
    /// then read as zeros (the indices must still be in bounds).
    mlir::Value valid = {};
  };
  using Address =
      std::function<Ref(mlir::OpBuilder &, mlir::Location, mlir::Value batch,
                        mlir::Value row, mlir::Value col)>;
  /// A(b, m, k) and B(b, k, n); the indices (i32) are always in bounds (the
  /// kernel clamps them and zeroes what lies outside).
  Load loadA, loadB;
  /// Optional: where the 8 consecutive elements of A (B) along its
  /// contiguous index starting at the given (row, col) lie, 16-byte aligned
  /// (the caller checked sizes, strides and offsets: the contiguous extent is
  /// a multiple of 8 and the start always is). With it the kernel moves 16
  /// bytes per load and shared store (or per cp.async).
  Address vecA, vecB;
  /// Optional (sm_90a wgmma kernel): A (B) as a strided tensor that the
  /// Tensor Memory Accelerator copies a tile at a time (cp.async.bulk.tensor,
  /// 128-byte swizzle) instead of each thread issuing 16-byte cp.async.
  /// `dims` and element `strides` go innermost first: the operand's
  /// contiguous index (K, or M/N for an MN-contiguous one; stride 1), the
  /// other of (M/N, K), then batch dims (the linear batch index spread over
  /// them, the first fastest). Out-of-bounds elements read as zeros.
  struct TmaView {
    mlir::Value memref; ///< the operand (a view of a kernel argument)
    llvm::SmallVector<int64_t> dims, strides;
  };
  std::optional<TmaView> tmaA, tmaB;
  /// Makes the kernel argument holding the tensor map (CUtensorMap) of
  /// `view` (the kernel passes *tmaA or *tmaB itself) with box `box`
  /// (innermost first); a null Value where it cannot
  /// (the operand is no kernel argument at a static offset): the kernel
  /// then loads that operand with cp.async. Unset: no TMA.
  std::function<mlir::Value(const TmaView &view, llvm::ArrayRef<int64_t> box)>
      tensorMap;
  /// tf32 (f32 operands): A (B) holds tf32 values already (weights rounded
  /// at build time), so the kernel need not round it on the way to the MMA.
  bool aRounded = false, bRounded = false;
  /// Stores the finished f32 value of C(b, m, n) (in bounds; i32 indices).
  std::function<void(mlir::OpBuilder &, mlir::Location, mlir::Value batch,
                     mlir::Value m, mlir::Value n, mlir::Value value)>
      storeC;
  /// Optional (C contiguous along n, n a multiple of 8): stores the 8
  /// finished values C(b, m, n .. n+7), all in bounds, with 16-byte
  /// accesses where the memory allows. With it the wgmma kernel stages its
  /// accumulators through shared memory so that each thread finishes 8
  /// consecutive columns of one row.
  std::function<void(mlir::OpBuilder &, mlir::Location, mlir::Value batch,
                     mlir::Value m, mlir::Value n,
                     llvm::ArrayRef<mlir::Value> values)>
      storeC8;
};

/// Bytes of one operand element of `spec`: 2 (f16, bf16) or 4 (f32, run
/// as tf32).
int64_t elementBytes(const GemmSpec &spec);

/// `v` (f32) rounded to the nearest tf32 value, ties away from zero (what
/// cvt.rna.tf32.f32 computes, with two integer ops: add half of the 13
/// dropped bits' unit, clear them).
mlir::Value roundToTf32(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);

/// Runs `emit` for element (m, n) of C (i32 indices), inside a bounds check
/// where a tileM x tileN tile can overhang the matrix: the epilogue of
/// both GEMM kernels.
void emitInBounds(
    mlir::OpBuilder &b, mlir::Location loc, const GemmSpec &spec, int64_t tileM,
    int64_t tileN, mlir::Value m, mlir::Value n,
    llvm::function_ref<void(mlir::OpBuilder &, mlir::Location)> emit);

/// The estimated best tile for `spec` on a GPU with `sms` multiprocessors
/// whose global loads take about `latencyCycles` to arrive; `clusters`:
/// split-K may reduce within a thread-block cluster (sm_90 and newer).
MmaTile chooseMmaTile(const GemmSpec &spec, int64_t sms, double latencyCycles,
                      bool clusters = false);

/// Every tile and split the cost model considers for `spec`, its choice
/// (chooseMmaTile) first, then by estimated cost: the candidates of `kilnc
/// --tactics all`, which kiln-tune times on the GPU.
std::vector<MmaTile> rankMmaTiles(const GemmSpec &spec, int64_t sms,
                                  double latencyCycles, bool clusters = false);

/// Emits the kernel(s) of `spec` with `tile` at the builder's position as
/// gpu.launch ops and returns the GEMM's. With splitK > 1 and no cluster,
/// `partials` is a memref<splitK x batch x m x n x f32> to hold the partial
/// sums, which a second launch adds up; with a cluster it is unused.
mlir::gpu::LaunchOp buildMmaGemm(mlir::OpBuilder &b, mlir::Location loc,
                                 const GemmSpec &spec, const MmaTile &tile,
                                 mlir::Value partials);

/// Tile of the sm_90a kernel: warpGroups warpgroups (128 threads each, 64
/// rows of C apiece) and tileN columns, K in steps of 64 through a ring of
/// `stages` shared-memory buffers filled by cp.async ahead of the math,
/// wgmma.mma_async m64nNk16 reading both operands from 128-byte-swizzled
/// shared memory.
struct WgmmaTile {
  int64_t warpGroups = 2, tileN = 128, stages = 5;
  /// Steps whose MMAs stay in flight (1 or 2); stages - 1 - inFlight steps
  /// of loads are ahead.
  int64_t inFlight = 1;
  int64_t tileM() const { return 64 * warpGroups; }
  int64_t threads() const { return 128 * warpGroups; }
  /// Dynamic shared memory of one CTA (the ring, plus 1 KB to align it).
  int64_t sharedBytes() const;
  /// CTAs of this tile one multiprocessor holds (by shared memory).
  int64_t residentPerSm() const;
  std::string str() const;
};

/// Whether `spec` can run as a wgmma kernel at all: 16-byte vector
/// addresses of both operands (cp.async moves 16 bytes).
bool wgmmaApplies(const GemmSpec &spec);

/// The wgmma tile for `spec` on `sms` multiprocessors, or none where the
/// problem has too few tiles to fill the GPU (mma.sync with split-K wins).
std::optional<WgmmaTile> chooseWgmmaTile(const GemmSpec &spec, int64_t sms);

/// Every wgmma tile the generator offers for `spec` (also those with too few
/// tiles to fill the GPU), chooseWgmmaTile's first when it has one, then by
/// estimated cost.
std::vector<WgmmaTile> rankWgmmaTiles(const GemmSpec &spec, int64_t sms);

/// Parses "MxNxS[xD]" (tile M 64|128, tile N 64|128|256, stages up to 8
/// within 227 KB of shared memory, D steps of MMAs in flight, 1 or 2, at
/// least 2 fewer than S); none if malformed.
std::optional<WgmmaTile> parseWgmmaTile(llvm::StringRef text);

/// Emits the sm_90a kernel of `spec` (wgmmaApplies) at the builder's
/// position: persistent CTAs, as many as `sms` multiprocessors hold. An
/// operand with a TmaView and a tensor map (spec.tensorMap) is loaded by
/// TMA into the ring, each stage's arrival tracked by an mbarrier; the
/// others by cp.async.
mlir::gpu::LaunchOp buildWgmmaGemm(mlir::OpBuilder &b, mlir::Location loc,
                                   const GemmSpec &spec, const WgmmaTile &tile,
                                   int64_t sms);

} // namespace kiln::codegen

#endif // KILN_CODEGEN_GPU_TENSORCOREGEMM_H
