//===- Provenance.h - kilnc's side of a plan's provenance ---------*- C++
//-*-===//
//
// `kilnc --check-plan`, which says whether a plan was built from a model
// with the given options (what a build records of its model is in
// include/kiln/Driver.h).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILNC_PROVENANCE_H
#define KILN_TOOLS_KILNC_PROVENANCE_H

#include "kiln/Import/ONNX.h"
#include "kiln/Provenance.h"

#include <string>
#include <vector>

namespace kiln::kilnc {

/// kilnc --check-plan PLAN MODEL: compares the plan's provenance with the
/// model's and the options' (build time, host and refit entries aside).
/// Exit status: 0 when the plan is up to date, 1 when not (the differences
/// listed), 2 when the plan or the model cannot be read. `profiles`: the
/// --profile specs (options.profiles of a multi-profile plan).
int checkPlan(llvm::StringRef planPath, llvm::StringRef modelPath,
              const onnx_import::ImportOptions &importOptions,
              const CompileOptions &options,
              const std::vector<std::string> &profiles, bool json);

} // namespace kiln::kilnc

#endif // KILN_TOOLS_KILNC_PROVENANCE_H
