//===- TacticChoiceTest.cpp - tensor-core tile choice and parsing ---------===//
//
// The non-IR logic of the tensor-core tactics: which GEMMs the sm_90a wgmma
// kernel takes, which tile the cost model picks, and the forced-tile syntax
// of `kilnc --gpu-wgmma`.
//
//===----------------------------------------------------------------------===//
#include "codegen/Tactics/TensorCoreGemm.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <set>
#include <tuple>

using namespace kiln::codegen;

namespace {

/// A GEMM whose operands allow 16-byte loads (the callbacks are never
/// called: only their presence matters for the choice).
GemmSpec vectorGemm(mlir::MLIRContext &ctx, int64_t batch, int64_t m, int64_t n,
                    int64_t k) {
  GemmSpec s;
  s.batch = batch;
  s.m = m;
  s.n = n;
  s.k = k;
  s.elementType = mlir::Float16Type::get(&ctx);
  s.vecA = [](mlir::OpBuilder &, mlir::Location, mlir::Value, mlir::Value,
              mlir::Value) { return GemmSpec::Ref{}; };
  s.vecB = s.vecA;
  return s;
}

TEST(WgmmaTile, Parse) {
  std::optional<WgmmaTile> t = parseWgmmaTile("128x256x4");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->warpGroups, 2);
  EXPECT_EQ(t->tileN, 256);
  EXPECT_EQ(t->stages, 4);
  EXPECT_EQ(t->inFlight, 1);
  EXPECT_EQ(t->threads(), 256);
  // 4 stages of (128 + 256) rows of 128 bytes, plus 1 KB to align and 64
  // bytes of mbarriers (TMA: one per stage).
  EXPECT_EQ(t->sharedBytes(), 4 * 384 * 128 + 1024 + 64);
  std::optional<WgmmaTile> d = parseWgmmaTile("64x128x5x2");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->warpGroups, 1);
  EXPECT_EQ(d->inFlight, 2);
  EXPECT_EQ(d->str(), "64x128x64 5 stages, 2 steps of MMAs in flight");
}

TEST(WgmmaTile, ParseRejects) {
  for (const char *bad :
       {"", "128", "128x256", "96x128x3", "128x96x3", "128x256x5" /*smem*/,
        "128x128x3x2" /*no load ahead*/, "128x128x9", "128x128x4x3",
        "128x128x4x0", "axbxc", "128x128x4x1x1"})
    EXPECT_FALSE(parseWgmmaTile(bad)) << bad;
}

TEST(WgmmaTile, Applies) {
  mlir::MLIRContext ctx;
  GemmSpec s = vectorGemm(ctx, 1, 4096, 4096, 4096);
  EXPECT_TRUE(wgmmaApplies(s));
  s.vecB = nullptr; // B not loadable 16 bytes at a time
  EXPECT_FALSE(wgmmaApplies(s));
  GemmSpec f = vectorGemm(ctx, 1, 4096, 4096, 4096);
  f.elementType = mlir::Float32Type::get(&ctx);
  EXPECT_FALSE(wgmmaApplies(f));
}

TEST(WgmmaTile, CostModel) {
  mlir::MLIRContext ctx;
  // Large square GEMM: the largest tile (measured best on an H200).
  std::optional<WgmmaTile> big =
      chooseWgmmaTile(vectorGemm(ctx, 1, 4096, 4096, 4096), 132);
  ASSERT_TRUE(big);
  EXPECT_EQ(big->tileM(), 128);
  EXPECT_EQ(big->tileN, 256);
  // BERT b1's projections: 6 tiles cannot fill 132 SMs (mma.sync + split-K).
  EXPECT_FALSE(chooseWgmmaTile(vectorGemm(ctx, 1, 128, 768, 768), 132));
  // K = 64 is one step (ResNet-50 b64's 1x1 convs): the 3-stage ring, whose
  // loads for the next tile overlap this tile's (staged, 16-byte) epilogue.
  std::optional<WgmmaTile> shortK =
      chooseWgmmaTile(vectorGemm(ctx, 1, 200704, 256, 64), 132);
  ASSERT_TRUE(shortK);
  EXPECT_EQ(shortK->stages, 3);
  // N = 64 with short K (ResNet-50 b64's 1x1 256 -> 64 convs, K 256): the
  // 3-stage 128x64 ring, not a 128x128 tile half of which is wasted; with
  // K 576 (3x3 64 -> 64) the 5-stage 128x64 ring (both measured on an H200).
  std::optional<WgmmaTile> narrow =
      chooseWgmmaTile(vectorGemm(ctx, 1, 200704, 64, 256), 132);
  ASSERT_TRUE(narrow);
  EXPECT_EQ(narrow->tileN, 64);
  EXPECT_EQ(narrow->stages, 3);
  std::optional<WgmmaTile> narrowLong =
      chooseWgmmaTile(vectorGemm(ctx, 1, 200704, 64, 576), 132);
  ASSERT_TRUE(narrowLong);
  EXPECT_EQ(narrowLong->tileN, 64);
  EXPECT_EQ(narrowLong->stages, 5);
  // BERT b32's FFN: enough tiles and K.
  std::optional<WgmmaTile> ffn =
      chooseWgmmaTile(vectorGemm(ctx, 1, 4096, 3072, 768), 132);
  ASSERT_TRUE(ffn);
  EXPECT_LE(ffn->sharedBytes(), 227 * 1024);
  EXPECT_GE(ffn->stages, ffn->inFlight + 2);
  // BERT b32's second FFN GEMM and output projection: one wave of 96
  // 128x256 tiles beats three waves of 128x64 (37 vs 55 us on an H200).
  for (int64_t k : {3072, 768}) {
    std::optional<WgmmaTile> wide =
        chooseWgmmaTile(vectorGemm(ctx, 1, 4096, 768, k), 132);
    ASSERT_TRUE(wide) << k;
    EXPECT_EQ(wide->tileM(), 128) << k;
    EXPECT_EQ(wide->tileN, 256) << k;
  }
  // Fewer tiles than SMs (kiln-tune on an H200, batch 1): from a sixth of
  // the SMs on wgmma wins (BERT's QKV projection, 36 tiles of 64x128:
  // 10.7 -> 8.6 us), below it mma.sync with split-K (ResNet-50 layer2's 3x3,
  // 13 tiles: 11.2 vs 12.8 us), and GEMMs narrower than 64 keep mma.sync
  // (ResNeXt-50's 32 groups of 32 filters: 7.2 vs 8.2 us).
  EXPECT_TRUE(chooseWgmmaTile(vectorGemm(ctx, 1, 128, 2304, 768), 132));
  EXPECT_FALSE(chooseWgmmaTile(vectorGemm(ctx, 1, 784, 128, 1152), 132));
  EXPECT_FALSE(chooseWgmmaTile(vectorGemm(ctx, 32, 49, 32, 288), 132));
}

TEST(MmaTile, CostModelSplitsSmallGemms) {
  mlir::MLIRContext ctx;
  // A few output tiles and a long K: split-K spreads them over the SMs.
  MmaTile t = chooseMmaTile(vectorGemm(ctx, 1, 128, 768, 3072), 132, 400);
  EXPECT_GT(t.splitK, 1);
  EXPECT_LE(t.threads(), 512);
  // Plenty of tiles: no split.
  MmaTile u = chooseMmaTile(vectorGemm(ctx, 1, 8192, 8192, 512), 132, 400);
  EXPECT_EQ(u.splitK, 1);
  EXPECT_FALSE(t.cluster); // not offered
}

TEST(MmaTile, ClusterSplitStaysWithinPortableClusters) {
  mlir::MLIRContext ctx;
  // With clusters the split reduces in shared memory: still split, at most
  // 8 ways, and marked as a cluster reduction.
  MmaTile t = chooseMmaTile(vectorGemm(ctx, 1, 128, 768, 3072), 132, 400, true);
  EXPECT_GT(t.splitK, 1);
  EXPECT_LE(t.splitK, MmaTile::kMaxClusterSplit);
  EXPECT_TRUE(t.cluster);
  EXPECT_NE(t.str().find("cluster"), std::string::npos);
  // A very long K still stays within a portable cluster.
  MmaTile k = chooseMmaTile(vectorGemm(ctx, 1, 64, 64, 65536), 132, 400, true);
  EXPECT_LE(k.splitK, MmaTile::kMaxClusterSplit);
  // No split, no cluster.
  MmaTile u =
      chooseMmaTile(vectorGemm(ctx, 1, 8192, 8192, 512), 132, 400, true);
  EXPECT_EQ(u.splitK, 1);
  EXPECT_FALSE(u.cluster);
}

// The candidates of `kilnc --tactics all`: the cost model's choice first,
// then every other option once.
TEST(MmaTile, RankStartsWithTheChoice) {
  mlir::MLIRContext ctx;
  for (auto [m, n, k] : {std::tuple<int64_t, int64_t, int64_t>{128, 768, 3072},
                         {8192, 8192, 512},
                         {3136, 64, 576}}) {
    GemmSpec s = vectorGemm(ctx, 1, m, n, k);
    for (bool clusters : {false, true}) {
      std::vector<MmaTile> ranked = rankMmaTiles(s, 132, 400, clusters);
      ASSERT_GT(ranked.size(), 7u);
      EXPECT_EQ(ranked.front().str(),
                chooseMmaTile(s, 132, 400, clusters).str());
      std::set<std::string> names;
      for (const MmaTile &t : ranked) {
        EXPECT_TRUE(names.insert(t.str()).second) << t.str();
        EXPECT_EQ(t.cluster, clusters && t.splitK > 1);
        if (clusters) {
          EXPECT_LE(t.splitK, MmaTile::kMaxClusterSplit);
        }
      }
    }
  }
}

TEST(WgmmaTile, RankStartsWithTheChoice) {
  mlir::MLIRContext ctx;
  GemmSpec big = vectorGemm(ctx, 1, 4096, 4096, 4096);
  std::vector<WgmmaTile> ranked = rankWgmmaTiles(big, 132);
  ASSERT_GT(ranked.size(), 3u);
  EXPECT_EQ(ranked.front().str(), chooseWgmmaTile(big, 132)->str());
  std::set<std::string> names;
  for (const WgmmaTile &t : ranked)
    EXPECT_TRUE(names.insert(t.str()).second) << t.str();
  // Too few tiles for the cost model's wgmma: candidates all the same.
  GemmSpec small = vectorGemm(ctx, 1, 128, 768, 768);
  EXPECT_FALSE(chooseWgmmaTile(small, 132));
  EXPECT_FALSE(rankWgmmaTiles(small, 132).empty());
}

} // namespace
