//===- Provenance.h - kilnc's side of a plan's provenance ---------*- C++
//-*-===//
//
// What kilnc records at import (the model, its external data, the input
// shapes and values fixed at build time) and `kilnc --check-plan`, which
// says whether a plan was built from a model with the given options.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILNC_PROVENANCE_H
#define KILN_TOOLS_KILNC_PROVENANCE_H

#include "kiln/Import/ONNX.h"
#include "kiln/Provenance.h"

#include "mlir/IR/BuiltinOps.h"

namespace kiln::kilnc {

/// model.*, options.input_shapes and options.input_values (each file's
/// SHA-256) for `modelPath` imported with `options`; `externalFiles` are the
/// model's external data files (relative to its directory).
bool importProvenance(llvm::StringRef modelPath,
                      const onnx_import::ImportOptions &options,
                      const std::vector<std::string> &externalFiles,
                      ProvenanceEntries &out, std::string &error);

/// Puts importProvenance's entries on the imported module (kProvenanceAttr).
bool recordImportProvenance(mlir::ModuleOp module, llvm::StringRef modelPath,
                            const onnx_import::ImportOptions &options,
                            std::string &error);

/// kilnc --check-plan PLAN MODEL: compares the plan's provenance with the
/// model's and the options' (build time, host and refit entries aside).
/// Exit status: 0 when the plan is up to date, 1 when not (the differences
/// listed), 2 when the plan or the model cannot be read.
int checkPlan(llvm::StringRef planPath, llvm::StringRef modelPath,
              const onnx_import::ImportOptions &importOptions,
              const CompileOptions &options, bool json);

} // namespace kiln::kilnc

#endif // KILN_TOOLS_KILNC_PROVENANCE_H
