//===- PassStatistics.h - pass statistics that count in every build -*- C++
//-*-===//
//
// MLIR's Pass::Statistic is llvm::Statistic, an llvm::NoopStatistic where LLVM
// was built with NDEBUG (Debian's LLVM is), so the statistics a pass declares
// in TableGen count nothing there. kiln's passes declare the same statistics
// again as PassStatistic members, generated from TableGen
// (scripts/gen_pass_statistics.py: the KILN_PASS_STATISTICS_<Pass> macro in
// the pass's class body), and the build report reads them with
// forEachStatistic.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_SUPPORT_PASSSTATISTICS_H
#define KILN_SUPPORT_PASSSTATISTICS_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace mlir {
class Pass;
} // namespace mlir

namespace kiln {

/// A counter member of a pass, registered under its owner for as long as
/// both live; a pass's clone (the pass manager copies passes for threads)
/// gets its own counters, starting at 0.
class PassStatistic {
public:
  PassStatistic(mlir::Pass *owner, const char *name, const char *description);
  PassStatistic(const PassStatistic &other);
  PassStatistic &operator=(const PassStatistic &) = delete;
  ~PassStatistic();

  PassStatistic &operator+=(uint64_t n) {
    value.fetch_add(n, std::memory_order_relaxed);
    return *this;
  }
  PassStatistic &operator++() { return *this += 1; }
  uint64_t getValue() const { return value.load(std::memory_order_relaxed); }
  const char *getName() const { return name; }
  const char *getDescription() const { return description; }

private:
  const char *name;
  const char *description;
  /// Bytes from the owning pass to this member: a copy finds its owner.
  std::ptrdiff_t offset;
  std::atomic<uint64_t> value{0};
};

/// Calls `fn` with the name and value of each PassStatistic of `pass`, in
/// declaration order.
void forEachStatistic(
    const mlir::Pass *pass,
    llvm::function_ref<void(llvm::StringRef name, uint64_t value)> fn);

} // namespace kiln

#endif // KILN_SUPPORT_PASSSTATISTICS_H
