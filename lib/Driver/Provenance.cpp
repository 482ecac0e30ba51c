//===- Provenance.cpp - what a build records of its model -----------------===//
#include "kiln/Driver.h"

#include "Profiles.h"

#include "tools/common/Sha256.h"

#include "mlir/IR/Builders.h"

using namespace llvm;
using namespace kiln;

/// modelProvenance for a model in memory: its bytes hashed, the external
/// data files read from the directory of its name.
static bool inMemoryModelProvenance(const driver::Model &model,
                                    const std::vector<std::string> &external,
                                    ProvenanceEntries &out,
                                    std::string &error) {
  std::string hex = model.sha256.value_or("");
  if (plan::Status st = model.sha256
                            ? plan::Status()
                            : tools::sha256Bytes(model.bytes->data(),
                                                 model.bytes->size(), hex);
      !st) {
    error = st.message();
    return false;
  }
  out.emplace_back("model.path", model.path);
  out.emplace_back("model.sha256", hex);
  return externalDataProvenance(model.path, external, out, error);
}

bool driver::importProvenance(const Model &model,
                              const onnx_import::ImportOptions &options,
                              const std::vector<std::string> &externalFiles,
                              ProvenanceEntries &out, std::string &error) {
  if (model.bytes ? !inMemoryModelProvenance(model, externalFiles, out, error)
                  : !modelProvenance(model.path, externalFiles, out, error))
    return false;
  if (!options.inputShapes.empty())
    out.emplace_back("options.input_shapes",
                     driver::inputShapesText(options.inputShapes));
  if (!options.inputValues.empty()) {
    std::string text;
    for (const auto &[name, file] : options.inputValues) {
      std::string hex;
      if (!sha256(file, hex, error))
        return false;
      if (!text.empty())
        text += "\n";
      text += name + "=" + file + " " + hex;
    }
    out.emplace_back("options.input_values", text);
  }
  out.insert(out.end(), model.extraProvenance.begin(),
             model.extraProvenance.end());
  return true;
}

bool driver::recordImportProvenance(mlir::ModuleOp module, const Model &model,
                                    const onnx_import::ImportOptions &options,
                                    std::string &error) {
  std::vector<std::string> external;
  if (auto files = module->getAttrOfType<mlir::ArrayAttr>(
          onnx_import::kExternalDataAttr))
    for (mlir::Attribute f : files)
      external.push_back(cast<mlir::StringAttr>(f).getValue().str());
  ProvenanceEntries entries;
  if (!importProvenance(model, options, external, entries, error))
    return false;
  mlir::Builder b(module.getContext());
  SmallVector<mlir::Attribute> pairs;
  for (const auto &[key, value] : entries)
    pairs.push_back(
        b.getArrayAttr({b.getStringAttr(key), b.getStringAttr(value)}));
  module->setAttr(kProvenanceAttr, b.getArrayAttr(pairs));
  return true;
}
