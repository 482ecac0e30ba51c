//===- GraphImporter.h - the state of one ONNX graph import ------*- C++
//-*-===//
//
// Private to lib/Import/ONNX: the importer that Importer.cpp drives and whose
// values, types and options NodeContext (NodeContext.cpp) reads and updates.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_ONNX_GRAPHIMPORTER_H
#define KILN_LIB_IMPORT_ONNX_GRAPHIMPORTER_H

#include "kiln/Import/ONNX.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Path.h"

#include <onnx/onnx_pb.h>

#include <map>
#include <string>

namespace kiln::onnx_import {

/// Imports one ONNX graph into a module: values by ONNX name, the model's
/// declared and inferred types, and the options that fix inputs.
class GraphImporter {
public:
  GraphImporter(mlir::MLIRContext &ctx, llvm::StringRef path,
                const ImportOptions &options)
      : ctx(ctx), path(path.str()), options(options),
        fileLoc(mlir::FileLineColLoc::get(&ctx, path, 0, 0)) {
    baseDir = llvm::sys::path::parent_path(path).str();
    if (baseDir.empty())
      baseDir = ".";
  }

  mlir::OwningOpRef<mlir::ModuleOp>
  run(const onnx::ModelProto &model, int64_t opset,
      llvm::StringMap<onnx::TypeProto> declared);

  /// Type of an ONNX value (tensor types only); null after an error.
  mlir::Type
  convertType(const onnx::TypeProto &type, llvm::StringRef what,
              mlir::Location loc,
              llvm::SmallVectorImpl<std::string> *dimNames = nullptr);
  /// Checks `v` against ONNX's type for `name` and refines dynamic dims.
  /// Types the model declares are authoritative (a conflict is an error, in
  /// `error`); types only libonnx inferred refine dynamic dims but lose
  /// conflicts (libonnx 1.12 predates fixes such as ceil_mode pooling).
  mlir::LogicalResult
  refine(mlir::Value &v, llvm::StringRef name,
         const llvm::SmallPtrSetImpl<mlir::Operation *> &ownOps,
         std::string &error);

  mlir::MLIRContext &ctx;
  std::string path;
  std::string baseDir;
  const ImportOptions &options;
  mlir::Location fileLoc;
  int64_t opset = 0;
  llvm::StringMap<mlir::Value> values;
  llvm::StringMap<const onnx::TypeProto *> onnxTypes;
  /// Types the model file itself declares (before libonnx's inference).
  llvm::StringMap<onnx::TypeProto> declaredTypes;
  llvm::StringSet<> used;
  /// Opset of each imported domain ("" for ai.onnx).
  std::map<std::string, int64_t> domainOpsets;

  /// Values of graph inputs fixed with ImportOptions::inputValues.
  llvm::StringMap<mlir::ElementsAttr> fixedValues;

  /// Imports the nodes of `graph`, a subgraph without inputs (an If branch),
  /// in place at the builder's insertion point: its names shadow the outer
  /// scope's until it is done, its nodes are named `scope`/NAME, and `outs`
  /// gets the values of its outputs. Reports errors itself.
  mlir::LogicalResult inlineSubgraph(const onnx::GraphProto &graph,
                                     llvm::StringRef scope,
                                     mlir::OpBuilder &builder,
                                     llvm::SmallVectorImpl<mlir::Value> &outs,
                                     mlir::ValueRange inputs = {});

private:
  mlir::LogicalResult importNode(const onnx::NodeProto &node,
                                 llvm::StringRef name,
                                 mlir::OpBuilder &builder);
  /// Reads the fixed value of graph input `name` from `file` and checks it
  /// against the input's declared type `declared`; null after an error.
  mlir::ElementsAttr loadInputValue(llvm::StringRef name, llvm::StringRef file,
                                    mlir::Type declared);
};

} // namespace kiln::onnx_import

#endif // KILN_LIB_IMPORT_ONNX_GRAPHIMPORTER_H
