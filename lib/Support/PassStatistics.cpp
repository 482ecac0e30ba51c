//===- PassStatistics.cpp - the registry of kiln's pass statistics --------===//
#include "kiln/Support/PassStatistics.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <mutex>

using namespace kiln;

namespace {
/// Each live pass's statistics, in declaration order.
struct Registry {
  std::mutex mutex;
  llvm::DenseMap<const mlir::Pass *, llvm::SmallVector<PassStatistic *, 4>>
      statistics;
};
Registry &registry() {
  static Registry r;
  return r;
}
void add(const mlir::Pass *owner, PassStatistic *s) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.statistics[owner].push_back(s);
}
} // namespace

PassStatistic::PassStatistic(mlir::Pass *owner, const char *name,
                             const char *description)
    : name(name), description(description),
      offset(reinterpret_cast<const char *>(this) -
             reinterpret_cast<const char *>(owner)) {
  add(owner, this);
}

PassStatistic::PassStatistic(const PassStatistic &other)
    : name(other.name), description(other.description), offset(other.offset) {
  add(reinterpret_cast<const mlir::Pass *>(
          reinterpret_cast<const char *>(this) - offset),
      this);
}

PassStatistic::~PassStatistic() {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const auto *owner = reinterpret_cast<const mlir::Pass *>(
      reinterpret_cast<const char *>(this) - offset);
  auto it = r.statistics.find(owner);
  if (it == r.statistics.end())
    return;
  llvm::erase(it->second, this);
  if (it->second.empty())
    r.statistics.erase(it);
}

void kiln::forEachStatistic(
    const mlir::Pass *pass,
    llvm::function_ref<void(llvm::StringRef, uint64_t)> fn) {
  llvm::SmallVector<std::pair<const char *, uint64_t>, 8> values;
  {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.statistics.find(pass);
    if (it == r.statistics.end())
      return;
    for (PassStatistic *s : it->second)
      values.push_back({s->getName(), s->getValue()});
  }
  for (auto [name, value] : values)
    fn(name, value);
}
