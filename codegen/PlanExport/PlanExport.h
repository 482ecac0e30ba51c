//===- PlanExport.h - pieces of plan export ----------------------*- C++
//-*-===//
#ifndef KILN_CODEGEN_PLANEXPORT_PLANEXPORT_H
#define KILN_CODEGEN_PLANEXPORT_PLANEXPORT_H

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <vector>

namespace kiln::codegen {

/// One buffer to place in the arena: live over steps [first, last].
struct Interval {
  uint64_t size = 0;
  int64_t first = 0;
  int64_t last = 0;
};

/// Greedy best-offset placement, largest first: each buffer goes to the
/// lowest `alignment`-aligned offset that does not overlap any placed buffer
/// whose live range intersects its own. Returns the offsets; `peak` is the
/// arena size and `withoutReuse` the sum of aligned sizes.
std::vector<uint64_t> planArena(llvm::ArrayRef<Interval> intervals,
                                uint64_t alignment, uint64_t &peak,
                                uint64_t &withoutReuse);

} // namespace kiln::codegen

#endif // KILN_CODEGEN_PLANEXPORT_PLANEXPORT_H
