//===- fuzz_plan.cpp - libFuzzer target over the plan reader and validator ===//
//
// Each input is a plan file. The reader (header, checksum, FlatBuffer
// verifier, validatePlan) must refuse it with a message or accept it; an
// accepted plan must survive PlanWriter::fromPlan + serialize and read back
// equal. A violated property traps, so the fuzzer (or the replay test)
// reports it like a crash. Modules are never loaded: executing fuzzed native
// code would only test the dynamic loader.
//
// Inputs with a wrong checksum are refused at step 4 and reach nothing else,
// so the target also retries every input with its checksum recomputed.
//
//===----------------------------------------------------------------------===//

#include "kiln/Plan/PlanHeader.h"
#include "kiln/Plan/PlanIO.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace kiln::plan;

[[noreturn]] static void violated(const char *what, const Status &s) {
  std::fprintf(stderr, "fuzz_plan: property violated: %s (%s)\n", what,
               s.message().c_str());
  std::abort();
}

static bool samePlan(const Plan &a, const Plan &b) {
  return a.compilerVersion == b.compilerVersion && a.targets == b.targets &&
         a.minDriverVersion == b.minDriverVersion && a.inputs == b.inputs &&
         a.outputs == b.outputs && a.buffers == b.buffers &&
         a.arenaBytes == b.arenaBytes && a.kernels == b.kernels &&
         a.steps == b.steps && a.choices == b.choices &&
         a.tensorMaps == b.tensorMaps && a.provenance == b.provenance &&
         a.strippedWeightsSize == b.strippedWeightsSize &&
         a.weights.size == b.weights.size &&
         a.modules.size() == b.modules.size();
}

static void check(const std::vector<uint64_t> &aligned, size_t size) {
  PlanReader reader;
  PlanReader::Options options;
  options.allowWeightStripped = true;
  Status s = reader.open(aligned.data(), size, options);
  if (!s) {
    if (s.message().empty())
      violated("a refusal without a message", s);
    return;
  }
  const Plan &plan = reader.plan();
  if (Status v = validatePlan(plan); !v)
    violated("an accepted plan fails validatePlan", v);
  // Whatever the reader accepts, the writer can write back.
  std::vector<uint8_t> again;
  if (Status w = PlanWriter::fromPlan(plan).serialize(again); !w)
    violated("fromPlan cannot write an accepted plan", w);
  std::vector<uint64_t> copy((again.size() + 7) / 8);
  std::memcpy(copy.data(), again.data(), again.size());
  PlanReader back;
  if (Status r = back.open(copy.data(), again.size(), options); !r)
    violated("a rewritten plan does not read back", r);
  if (!samePlan(plan, back.plan()))
    violated("a rewritten plan reads back different", Status::success());
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // The reader wants 8-byte aligned bytes, as a loaded file is.
  std::vector<uint64_t> aligned((size + 7) / 8);
  if (size)
    std::memcpy(aligned.data(), data, size);
  check(aligned, size);
  if (size >= kPlanHeaderSize) {
    uint8_t *bytes = reinterpret_cast<uint8_t *>(aligned.data());
    PlanHeader h = decodeHeader(bytes);
    uint64_t fixed = computePlanChecksum(bytes, bytes + kPlanHeaderSize,
                                         size - kPlanHeaderSize);
    if (fixed != h.checksum) {
      h.checksum = fixed;
      encodeHeader(h, bytes);
      check(aligned, size);
    }
  }
  return 0;
}
