//===- Driver.h - kilnc's build, as a library -------------------*- C++ -*-===//
//
// What `kilnc MODEL.onnx -o MODEL.plan` does, for kilnc and for programs
// that build plans in process (the Python package): import the ONNX model,
// record its provenance, compile it to plan bytes, and describe the build as
// kilnc's report (text or JSON). The flags stay in kilnc; BuildOptions is
// what they set.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DRIVER_H
#define KILN_DRIVER_H

#include "kiln/Compiler.h"
#include "kiln/Import/ONNX.h"
#include "kiln/Provenance.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::driver {

/// An ONNX model: a file, or bytes in memory.
struct Model {
  /// The file; for a model in memory, its name in messages and in the
  /// plan's provenance (model.path), and the base of its external data.
  std::string path;
  /// The serialized ModelProto, when the model is in memory.
  std::optional<llvm::StringRef> bytes;
  /// A model rewritten in memory (--precision int8 inserts Q/DQ) records
  /// the file it came from: that file's SHA-256 instead of the bytes', and
  /// these entries (the calibration) after the import's.
  std::optional<std::string> sha256 = std::nullopt;
  ProvenanceEntries extraProvenance = {};
};

/// --precision int8: post-training calibration (host plans for now).
struct Int8Options {
  /// --calib: the calibration samples (see calibrationSamples).
  std::string calibDir;
  /// --calib-method: minmax, entropy, percentile=P (0 < P <= 100), mse.
  std::string method = "percentile=99.99";
  /// --calib-cache: ranges read from it when it was made for this model,
  /// method and (with calibDir) data; written after a calibration.
  std::string cachePath;
  /// --qdq-model: where to write the quantized (Q/DQ) ONNX model too, for
  /// another runtime to compare with ("" for nowhere).
  std::string qdqModelPath = "";
  /// --layer-precision PATTERN=fp32: layers whose node name matches one of
  /// these globs stay unquantized; each must match a layer.
  std::vector<std::string> keepFp32 = {};
  /// --int8-tolerance (> 0; 0 = off): layers return to fp32 one by one,
  /// most sensitive first (each one's error when it alone is quantized),
  /// until the model's outputs on the calibration samples are within this
  /// fraction of their largest value of the f32 model's.
  double tolerance = 0;
};

/// What a build is asked to do: kilnc's import and compile flags.
struct BuildOptions {
  onnx_import::ImportOptions import;
  CompileOptions compile;
  /// Optimization profiles (kilnc --profile): empty for a plan of the
  /// import options' shapes; otherwise one spec per profile,
  /// "NAME=DIMS[,NAME=DIMS...]", checked against the model's inputs, each
  /// built with those shapes and merged into one plan (weights shared).
  std::vector<std::string> profiles;
  /// Where a multi-profile build reports each profile as it is built (none
  /// when null).
  llvm::raw_ostream *progress = nullptr;
  /// --precision int8: the model calibrated and quantized (Q/DQ) before the
  /// build; the compile options' precision is that of the rest (fp32).
  std::optional<Int8Options> int8;
  /// --precision fp16 --calib DIR: the samples (calibrationSamples' layout)
  /// over which every node's values are ranged, so that the ops near f16's
  /// limit stay in f32 (the compile options' precisionRanges are set from
  /// them; the report lists the fp32 islands).
  std::string rangeCalibDir;
  /// --validate DIR (fp16/bf16): after the build, host builds in f32 and in
  /// the plan's precision run the samples of DIR; the build fails when an
  /// output's max |error| passes `validateTolerance` times its max |value|,
  /// naming the first node beyond it.
  std::string validateDir;
  double validateTolerance = 1e-2;
};

/// Checks an Int8Options::method value; false with `error` listing them.
bool checkCalibMethod(llvm::StringRef text, std::string &error);

/// model.*, options.input_shapes and options.input_values (each file's
/// SHA-256) for `model` imported with `options`; `externalFiles` are the
/// model's external data files (relative to its directory).
bool importProvenance(const Model &model,
                      const onnx_import::ImportOptions &options,
                      const std::vector<std::string> &externalFiles,
                      ProvenanceEntries &out, std::string &error);

/// Puts importProvenance's entries on the imported module (kProvenanceAttr).
bool recordImportProvenance(mlir::ModuleOp module, const Model &model,
                            const onnx_import::ImportOptions &options,
                            std::string &error);

/// Imports `model` into `context` (which has the graph and func dialects)
/// and records its provenance. On failure returns null: the importer's
/// diagnostics went to `context`, a provenance error is in `error`.
mlir::OwningOpRef<mlir::ModuleOp>
importModel(mlir::MLIRContext &context, const Model &model,
            const onnx_import::ImportOptions &options, std::string &error);

/// Imports and compiles `model` to plan bytes in an MLIR context of its own
/// (so builds on several threads do not share one), timing the import as
/// the report's first stage. With BuildOptions::profiles it builds once per
/// profile and merges the plans; the report is then profile 0's, with
/// BuildReport::profiles listing each. Diagnostics go to `diagnostics` as kilnc prints
/// them ("error: <location>: <message>"); returns false after any error.
bool buildPlan(const Model &model, const BuildOptions &options,
               std::vector<uint8_t> &plan, BuildReport &report,
               llvm::raw_ostream &diagnostics);

/// The build report as `kilnc --json` prints it; `planPath` empty: "plan"
/// is null (a plan not written to a file).
llvm::json::Value reportJson(const BuildReport &report,
                             const CompileOptions &options,
                             llvm::StringRef modelPath,
                             llvm::StringRef planPath);

/// The build report as kilnc prints it on stderr.
void printReport(llvm::raw_ostream &os, const BuildReport &report,
                 const CompileOptions &options, llvm::StringRef modelPath,
                 llvm::StringRef planPath);

} // namespace kiln::driver

#endif // KILN_DRIVER_H
