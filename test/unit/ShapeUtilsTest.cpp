//===- ShapeUtilsTest.cpp - shape arithmetic shared by ops and importer ---===//
#include "dialects/Graph/IR/ShapeUtils.h"

#include <gtest/gtest.h>

using namespace kiln::graph;

namespace {

TEST(Broadcast, NumpyRules) {
  auto r = broadcastShapes({2, 1, 4}, {3, 1});
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(*r, (llvm::SmallVector<int64_t>{2, 3, 4}));
  EXPECT_TRUE(failed(broadcastShapes({2, 3}, {4})));
  // Scalars broadcast to anything.
  auto s = broadcastShapes({}, {5, 6});
  ASSERT_TRUE(succeeded(s));
  EXPECT_EQ(*s, (llvm::SmallVector<int64_t>{5, 6}));
}

TEST(Broadcast, DynamicDims) {
  // A dynamic dim against a static dim > 1 must be that dim at run time.
  auto r = broadcastShapes({kDynamic, 1}, {7, kDynamic});
  ASSERT_TRUE(succeeded(r));
  EXPECT_EQ(*r, (llvm::SmallVector<int64_t>{7, kDynamic}));
  auto d = broadcastShapes({kDynamic}, {kDynamic});
  ASSERT_TRUE(succeeded(d));
  EXPECT_EQ((*d)[0], kDynamic);
}

TEST(Broadcast, Unidirectional) {
  EXPECT_TRUE(isUnidirectionalBroadcastable({64, 1, 1}, {8, 64, 7, 7}));
  EXPECT_FALSE(isUnidirectionalBroadcastable({8, 64, 7, 7}, {64, 1, 1}));
  EXPECT_FALSE(isUnidirectionalBroadcastable({3}, {4}));
}

TEST(Window, ConvAndPoolSizes) {
  // ResNet stem: 224, k7, s2, p3 -> 112.
  EXPECT_EQ(*windowOutputSize(224, 7, 2, 3, 3, 1, false), 112);
  // Max pool k3 s2 p1 on 112 -> 56.
  EXPECT_EQ(*windowOutputSize(112, 3, 2, 1, 1, 1, false), 56);
  // Dilation 2 widens a k3 window to 5.
  EXPECT_EQ(*windowOutputSize(10, 3, 1, 0, 0, 2, false), 6);
  // ceil_mode rounds up: 6, k3, s2 -> floor 2, ceil 3.
  EXPECT_EQ(*windowOutputSize(6, 3, 2, 0, 0, 1, false), 2);
  EXPECT_EQ(*windowOutputSize(6, 3, 2, 0, 0, 1, true), 3);
  // ...but a window may not start in the end padding: 5, k2, s2, pad end 1.
  EXPECT_EQ(*windowOutputSize(5, 2, 2, 0, 1, 1, true), 3);
  EXPECT_EQ(*windowOutputSize(kDynamic, 3, 1, 1, 1, 1, false), kDynamic);
  EXPECT_TRUE(failed(windowOutputSize(2, 5, 1, 0, 0, 1, false)));
  EXPECT_TRUE(failed(windowOutputSize(8, 3, 0, 0, 0, 1, false)));
}

TEST(MatMul, NumpySemantics) {
  EXPECT_EQ(*matmulShape({2, 3}, {3, 4}), (llvm::SmallVector<int64_t>{2, 4}));
  EXPECT_EQ(*matmulShape({3}, {3, 4}), (llvm::SmallVector<int64_t>{4}));
  EXPECT_EQ(*matmulShape({5, 2, 3}, {3}), (llvm::SmallVector<int64_t>{5, 2}));
  EXPECT_EQ(*matmulShape({5, 1, 2, 3}, {4, 3, 6}),
            (llvm::SmallVector<int64_t>{5, 4, 2, 6}));
  EXPECT_TRUE(failed(matmulShape({2, 3}, {4, 5})));
  EXPECT_TRUE(failed(matmulShape({}, {4, 5})));
}

TEST(Conv, OutputShape) {
  auto s = convShape({1, 3, 224, 224}, {64, 3, 7, 7}, 64, {2, 2}, {3, 3, 3, 3},
                     {1, 1});
  ASSERT_TRUE(succeeded(s));
  EXPECT_EQ(*s, (llvm::SmallVector<int64_t>{1, 64, 112, 112}));
  EXPECT_TRUE(failed(
      convShape({1, 3, 224}, {64, 3, 7, 7}, 64, {2, 2}, {3, 3, 3, 3}, {1, 1})));
}

TEST(Product, Static) {
  EXPECT_EQ(staticProduct({2, 3, 4}), 24);
  EXPECT_EQ(staticProduct({}), 1);
  EXPECT_EQ(staticProduct({2, kDynamic}), kDynamic);
}

} // namespace
