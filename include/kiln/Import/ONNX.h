//===- ONNX.h - ONNX model import into the kiln graph dialect -----*- C++
//-*-===//
#ifndef KILN_IMPORT_ONNX_H
#define KILN_IMPORT_ONNX_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/StringRef.h"

#include <map>
#include <string>
#include <vector>

namespace kiln::onnx_import {

/// Newest ONNX IR version and default-domain opset the importer accepts.
constexpr int64_t kMaxIrVersion = 11;
constexpr int64_t kMinOpset = 1;
constexpr int64_t kMaxOpset = 21;

/// Module attribute: the external data files the model's weights are read
/// from (locations relative to its directory, sorted), when it has any.
constexpr const char *kExternalDataAttr = "kiln.onnx.external_data";

struct ImportOptions {
  /// Run libonnx's checker first (it rejects IR versions above 8).
  bool runChecker = false;
  /// Run libonnx's shape inference (opsets it knows, up to 17) and use its
  /// shapes to refine kiln's own inference; disagreements are errors.
  bool runOnnxShapeInference = true;
  /// Verify the module after import.
  bool verify = true;
  /// Overrides of graph input shapes (name -> dims, -1 for dynamic).
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Graph inputs whose value is fixed at build time (name -> tensor file,
  /// `.pb` TensorProto or `.npy`): they import as constants (so operands that
  /// must be constants, like axes or shapes, may come from them), the
  /// function keeps the argument with the value in its `kiln.fixed_value`
  /// attribute, and plans record the value for the runtime to check.
  std::map<std::string, std::string> inputValues;
};

/// Imports the ONNX model at `path` into a new module of kiln graph ops
/// (one `func.func @main`). On failure, diagnostics that name the file, node,
/// op type and opset are emitted to `context` and a null module returned.
mlir::OwningOpRef<mlir::ModuleOp> importONNXFile(mlir::MLIRContext &context,
                                                 llvm::StringRef path,
                                                 const ImportOptions &options);

/// Same, for a model already in memory; `path` names it in messages and is
/// the base for external data.
mlir::OwningOpRef<mlir::ModuleOp>
importONNXBuffer(mlir::MLIRContext &context, llvm::StringRef buffer,
                 llvm::StringRef path, const ImportOptions &options);

/// A graph input as the model declares it (initializers excluded).
struct GraphInputDecl {
  std::string name;
  /// False when the model gives no shape (not even a rank).
  bool hasShape = false;
  /// -1 for a dim the model leaves open.
  std::vector<int64_t> dims;
  /// Per dim: its ONNX dim_param ("batch"), "" for fixed and unnamed dims.
  std::vector<std::string> dimParams;
};

/// Parses the model in `buffer` and lists its graph inputs (what kilnc
/// --profile checks its shapes against). False with `error` set when the
/// model does not parse.
bool readGraphInputs(llvm::StringRef buffer,
                     std::vector<GraphInputDecl> &inputs, std::string &error);

/// One op type of a coverage report.
struct OpCoverage {
  std::string domain;
  std::string opType;
  int64_t opset = 0;        ///< the model's opset for the op's domain
  int64_t sinceVersion = 0; ///< since-version of kiln's handler, 0 if none
  int64_t count = 0;
  bool supported = false;
  std::string reason; ///< why not, when unsupported
};

struct CoverageReport {
  std::string path;
  int64_t irVersion = 0;
  std::string producer;
  std::vector<std::pair<std::string, int64_t>> opsets;
  std::vector<OpCoverage> ops;
  /// Model-level problems (IR version, opset, unreadable file), if any.
  std::vector<std::string> problems;
  /// Whether a full import (with shape inference) succeeded.
  bool importOk = false;
  std::string importError;
};

/// Reads the model and reports, per op type, whether kiln can import it.
/// Returns false if the file cannot be read or parsed at all (problems says
/// why).
/// `options` (input shapes and values) apply to the full import.
bool checkONNXFile(llvm::StringRef path, CoverageReport &report,
                   const ImportOptions &options = ImportOptions());

/// All op types (default domain) with a handler, and their since-versions.
std::vector<std::pair<std::string, std::vector<int>>> supportedOps();

} // namespace kiln::onnx_import

#endif // KILN_IMPORT_ONNX_H
