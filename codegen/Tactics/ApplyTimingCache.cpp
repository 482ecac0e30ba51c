//===- ApplyTimingCache.cpp - tactics measured by kiln-tune ---------------===//
//
// kiln-apply-timing-cache: see codegen/Passes.td. The cache's format is
// tools/kiln-tune/TimingCache.h's.
//
//===----------------------------------------------------------------------===//
#include "codegen/Passes.h"

#include "codegen/Tactics/TacticVariants.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_APPLYTIMINGCACHEPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;
using namespace kiln::codegen;

namespace {

/// The best tactic of each region key that kiln-tune recorded for `target`
/// in the timing cache at `path`.
LogicalResult readTimingCache(StringRef path, StringRef target,
                              llvm::StringMap<std::string> &best,
                              Location loc) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!file)
    return emitError(loc, "cannot read timing cache '")
           << path << "': " << file.getError().message();
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*file)->getBuffer());
  if (!json)
    return emitError(loc, "timing cache '")
           << path
           << "' is not valid JSON: " << llvm::toString(json.takeError());
  const llvm::json::Object *root = json->getAsObject();
  std::optional<int64_t> version =
      root ? root->getInteger("kiln_timing_cache") : std::nullopt;
  const llvm::json::Array *entries = root ? root->getArray("entries") : nullptr;
  if (!version || *version != 1 || !entries)
    return emitError(loc, "'")
           << path
           << "' is not a kiln timing cache (version 1): write it "
              "with kiln-tune --timing-cache";
  for (const llvm::json::Value &e : *entries) {
    const llvm::json::Object *entry = e.getAsObject();
    std::optional<StringRef> t =
        entry ? entry->getString("target") : std::nullopt;
    std::optional<StringRef> key =
        entry ? entry->getString("key") : std::nullopt;
    std::optional<StringRef> tactic =
        entry ? entry->getString("best") : std::nullopt;
    if (!t || !key || !tactic)
      return emitError(loc, "timing cache '")
             << path << "' has an entry without target, key or best";
    if (*t == target)
      best[*key] = tactic->str();
  }
  return success();
}

struct ApplyTimingCachePass
    : kiln::codegen::impl::ApplyTimingCachePassBase<ApplyTimingCachePass> {
  KILN_PASS_STATISTICS_ApplyTimingCachePass using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (path.empty()) {
      module.emitError("kiln-apply-timing-cache needs a cache: path=FILE");
      return signalPassFailure();
    }
    llvm::StringMap<std::string> cached;
    if (failed(readTimingCache(path, target, cached, module.getLoc())))
      return signalPassFailure();
    numEntries += cached.size();
    MLIRContext *ctx = module.getContext();
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal() || !hasTensorCoreAnchor(func))
        continue;
      auto it = cached.find(regionKey(func, module));
      if (it == cached.end())
        continue;
      func->setAttr(kTacticForceAttr, StringAttr::get(ctx, it->second));
      ++numHits;
    }
  }
};

} // namespace
