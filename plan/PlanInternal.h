//===- PlanInternal.h - Helpers shared by the plan library's sources ------===//
#ifndef KILN_PLAN_PLANINTERNAL_H
#define KILN_PLAN_PLANINTERNAL_H

#include "kiln/Plan/PlanIO.h"

#include <cstring>
#include <string>

namespace kiln::plan::detail {

/// InvalidPlan with the "invalid plan: " prefix every semantic refusal has.
inline Status invalid(const std::string &message) {
  return Status(StatusCode::InvalidPlan, "invalid plan: " + message);
}

inline std::string u64(uint64_t v) { return std::to_string(v); }

/// Whether [offset, offset + size) lies within [0, limit), without overflow.
inline bool fits(uint64_t offset, uint64_t size, uint64_t limit) {
  return offset <= limit && size <= limit - offset;
}

/// IOError "<what> '<path>': <strerror(err)>".
inline Status ioError(const std::string &what, const std::string &path,
                      int err) {
  return Status(StatusCode::IOError,
                what + " '" + path + "': " + std::strerror(err));
}

/// FlatBuffers' own limit (32-bit offsets), with room for the tables.
inline constexpr uint64_t kMaxFlatbufferBytes = (uint64_t(1) << 31) - (1 << 20);

/// Copies the fields a plan's profiles share with it (compiler, targets,
/// driver, weights, provenance) into each of `plan.profiles`, which the file
/// stores once.
inline void shareWithProfiles(Plan &plan) {
  for (Plan &p : plan.profiles) {
    p.compilerVersion = plan.compilerVersion;
    p.targets = plan.targets;
    p.minDriverVersion = plan.minDriverVersion;
    p.weights = plan.weights;
    p.strippedWeightsSize = plan.strippedWeightsSize;
    p.provenance = plan.provenance;
  }
}

} // namespace kiln::plan::detail

#endif // KILN_PLAN_PLANINTERNAL_H
