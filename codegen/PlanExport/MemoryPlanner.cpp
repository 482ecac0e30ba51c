//===- MemoryPlanner.cpp - liveness-based arena offsets for activations ---===//
#include "codegen/PlanExport/PlanExport.h"

#include <algorithm>
#include <numeric>

using namespace kiln::codegen;

static uint64_t alignTo(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

std::vector<uint64_t>
kiln::codegen::planArena(llvm::ArrayRef<Interval> intervals, uint64_t alignment,
                         uint64_t &peak, uint64_t &withoutReuse) {
  size_t n = intervals.size();
  std::vector<uint64_t> offsets(n, 0);
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  // Largest first (ties: earlier first) packs big buffers tightly; the
  // small ones fill the holes.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return intervals[a].size > intervals[b].size;
  });
  peak = 0;
  withoutReuse = 0;
  std::vector<size_t> placed;
  for (size_t i : order) {
    const Interval &cur = intervals[i];
    uint64_t size = alignTo(std::max<uint64_t>(cur.size, 1), alignment);
    withoutReuse += size;
    // Occupied ranges of placed buffers live at the same time, by offset.
    std::vector<std::pair<uint64_t, uint64_t>> busy;
    for (size_t j : placed) {
      const Interval &o = intervals[j];
      if (o.first <= cur.last && cur.first <= o.last)
        busy.push_back(
            {offsets[j],
             offsets[j] + alignTo(std::max<uint64_t>(o.size, 1), alignment)});
    }
    std::sort(busy.begin(), busy.end());
    uint64_t offset = 0;
    for (auto [begin, end] : busy) {
      if (offset + size <= begin)
        break;
      offset = std::max(offset, end);
    }
    offsets[i] = offset;
    peak = std::max(peak, offset + size);
    placed.push_back(i);
  }
  return offsets;
}
