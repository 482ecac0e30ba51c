//===- NodeContext.h - what an ONNX op handler sees of its node ---*- C++
//-*-===//
//
// Handlers (one per op type and since-version) read inputs and attributes
// through NodeContext, which checks attribute types and reports errors with
// the file, node name, op type and opset; they build kiln ops with
// create<Op>(), which infers result types and folds constants on the spot.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIB_IMPORT_ONNX_NODECONTEXT_H
#define KILN_LIB_IMPORT_ONNX_NODECONTEXT_H

#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <vector>

namespace kiln::onnx_import {

class GraphImporter;

class NodeContext {
public:
  NodeContext(GraphImporter &importer, const onnx::NodeProto &node,
              int64_t opset, mlir::OpBuilder &builder, mlir::Location loc)
      : importer(importer), node(node), opset(opset), b(builder), loc(loc) {}

  const onnx::NodeProto &node_() const { return node; }
  llvm::StringRef opType() const { return node.op_type(); }
  int64_t getOpset() const { return opset; }
  mlir::OpBuilder &builder() { return b; }
  mlir::Location getLoc() const { return loc; }
  mlir::MLIRContext *getContext() const { return b.getContext(); }

  //===--- Inputs --------------------------------------------------------===//
  int numInputs() const { return node.input_size(); }
  bool hasInput(int i) const {
    return i < node.input_size() && !node.input(i).empty();
  }
  /// Required input i; reports an error and returns null if absent.
  mlir::Value input(int i);
  /// Optional input i, null if absent.
  mlir::Value optionalInput(int i);
  /// All present inputs.
  llvm::SmallVector<mlir::Value> inputs();

  //===--- Attributes (type-checked; a wrong type is reported) ------------===//
  bool hasAttr(llvm::StringRef name) const { return findAttr(name) != nullptr; }
  int64_t attrInt(llvm::StringRef name, int64_t dflt);
  std::optional<int64_t> attrIntOpt(llvm::StringRef name);
  float attrFloat(llvm::StringRef name, float dflt);
  std::optional<float> attrFloatOpt(llvm::StringRef name);
  std::string attrString(llvm::StringRef name, llvm::StringRef dflt);
  std::optional<llvm::SmallVector<int64_t>> attrInts(llvm::StringRef name);
  std::optional<llvm::SmallVector<float>> attrFloats(llvm::StringRef name);
  const onnx::TensorProto *attrTensor(llvm::StringRef name);
  const onnx::GraphProto *attrGraph(llvm::StringRef name);

  //===--- Errors ---------------------------------------------------------===//
  /// Reports `message` for this node and returns failure.
  mlir::LogicalResult fail(const llvm::Twine &message);
  bool hadError() const { return error; }

  //===--- Results --------------------------------------------------------===//
  /// Binds the node's outputs to `values` (extra node outputs must be unused).
  mlir::LogicalResult setResults(mlir::ValueRange values);
  /// Whether node output i exists and is consumed by something.
  bool outputUsed(int i) const;

  //===--- Building
  //--------------------------------------------------------===//
  /// Builds a single-result kiln op with inferred result type (placeholder
  /// given to the builder), folds it when possible, and returns its value;
  /// null after an error.
  template <typename OpTy, typename... Args>
  mlir::Value create(Args &&...args) {
    auto op =
        OpTy::create(b, loc, placeholderType(), std::forward<Args>(args)...);
    return finalizeSingle(op.getOperation());
  }
  /// Same with an explicit result type (ops without type inference).
  template <typename OpTy, typename... Args>
  mlir::Value createTyped(mlir::Type type, Args &&...args) {
    auto op = OpTy::create(b, loc, type, std::forward<Args>(args)...);
    return finalizeSingle(op.getOperation());
  }
  /// Multi-result form.
  template <typename OpTy, typename... Args>
  llvm::SmallVector<mlir::Value> createMulti(unsigned numResults,
                                             Args &&...args) {
    llvm::SmallVector<mlir::Type> types(numResults, placeholderType());
    auto op = OpTy::create(b, loc, mlir::TypeRange(types),
                           std::forward<Args>(args)...);
    return finalize(op.getOperation());
  }

  /// 1-D i64 constant.
  mlir::Value constI64(llvm::ArrayRef<int64_t> values);
  /// Scalar (rank-0) or splat constant of `type`.
  mlir::Value constSplat(mlir::RankedTensorType type, double value);
  /// Integer values of a constant operand; reports an error naming `what`
  /// when it is not a constant.
  std::optional<llvm::SmallVector<int64_t>>
  requireConstInts(mlir::Value v, llvm::StringRef what);
  /// Float values of a constant operand (any numeric type).
  std::optional<llvm::SmallVector<double>> constDoubles(mlir::Value v);
  /// Reports that operand `what` (value `v`) must be known at build time,
  /// as `requirement` ("a constant", "a one-element constant"). When `v` is a
  /// graph input (maybe through a cast), the message names the remedy:
  /// `kilnc --input-value NAME=FILE`.
  mlir::LogicalResult
  failNotConstant(mlir::Value v, llvm::StringRef what,
                  llvm::StringRef requirement = "a constant");
  /// Refuses `op` when its result shape is read from an operand (Reshape's
  /// shape, Slice's starts, ...) computed from the values of a graph input:
  /// plans fix shapes at build time. The error names the inputs and the
  /// remedy, kilnc --input-value NAME=FILE.
  mlir::LogicalResult checkShapeOperands(mlir::Operation *op);

  /// Imports subgraph attribute `g` of this node in place (see
  /// GraphImporter::inlineSubgraph); `outs` gets its output values.
  /// `inputs` are bound to the subgraph's declared inputs, in order (a
  /// loop body's); `scopeName` names its nodes `NODE/scopeName/...`.
  mlir::LogicalResult inlineSubgraph(const onnx::GraphProto &g,
                                     llvm::StringRef scopeName,
                                     llvm::SmallVectorImpl<mlir::Value> &outs,
                                     mlir::ValueRange inputs = {});

  mlir::RankedTensorType typeOf(mlir::Value v) const {
    return llvm::cast<mlir::RankedTensorType>(v.getType());
  }
  /// Normalizes a possibly negative axis for `rank`; reports out of range.
  std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank);

  mlir::Type placeholderType() {
    return mlir::UnrankedTensorType::get(b.getF32Type());
  }

  /// Runs type inference, ONNX-shape refinement and folding on a new op.
  llvm::SmallVector<mlir::Value> finalize(mlir::Operation *op);

private:
  mlir::Value finalizeSingle(mlir::Operation *op) {
    auto values = finalize(op);
    return values.empty() ? mlir::Value() : values.front();
  }
  const onnx::AttributeProto *findAttr(llvm::StringRef name) const;
  const onnx::AttributeProto *typedAttr(llvm::StringRef name, int type,
                                        llvm::StringRef typeName);

  GraphImporter &importer;
  const onnx::NodeProto &node;
  /// Ops this node created (their result types may still be refined).
  llvm::SmallPtrSet<mlir::Operation *, 8> ownOps;
  int64_t opset;
  mlir::OpBuilder &b;
  mlir::Location loc;
  bool error = false;
};

using Handler = mlir::LogicalResult (*)(NodeContext &);

/// Handlers by op type, each with the ONNX since-version it implements.
class HandlerRegistry {
public:
  void add(llvm::StringRef opType, int sinceVersion, Handler handler);
  /// The handler with the largest since-version <= opset, if any.
  std::optional<std::pair<int, Handler>> lookup(llvm::StringRef opType,
                                                int64_t opset) const;
  bool knows(llvm::StringRef opType) const { return table.count(opType); }
  const llvm::StringMap<std::vector<std::pair<int, Handler>>> &all() const {
    return table;
  }
  static const HandlerRegistry &get();

private:
  llvm::StringMap<std::vector<std::pair<int, Handler>>> table;
};

/// Explicit begin/end pads of a conv/pool node from `auto_pad` or `pads`;
/// empty when strided SAME padding meets a dynamic dim (run-time amounts).
std::optional<llvm::SmallVector<int64_t>>
resolvePads(NodeContext &n, mlir::RankedTensorType input,
            llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> strides,
            llvm::ArrayRef<int64_t> dilations);

/// Kernel shape (attribute or the filter's spatial dims), strides and
/// dilations (default 1) of a conv/pool node; false after an error.
bool windowAttrs(NodeContext &n, mlir::RankedTensorType input,
                 std::optional<mlir::RankedTensorType> filter,
                 llvm::SmallVectorImpl<int64_t> &kernel,
                 llvm::SmallVectorImpl<int64_t> &strides,
                 llvm::SmallVectorImpl<int64_t> &dilations);

void registerElementwiseHandlers(HandlerRegistry &registry);
void registerNNHandlers(HandlerRegistry &registry);
void registerTensorHandlers(HandlerRegistry &registry);
void registerQuantHandlers(HandlerRegistry &registry);
void registerExtraHandlers(HandlerRegistry &registry);
void registerRecurrentHandlers(HandlerRegistry &registry);
void registerControlFlowHandlers(HandlerRegistry &registry);

/// Rank-0 constant of `elem`.
mlir::Value scalar(NodeContext &n, mlir::Type elem, double value);
/// Casts an integer index tensor to i64 when needed (null after an error).
mlir::Value indicesToI64(NodeContext &n, mlir::Value v, llvm::StringRef what);

/// Names of the graph inputs whose values `v` is computed from, sorted
/// (kiln.shape and kiln.size read only shapes, so the walk stops there).
llvm::SmallVector<std::string> runTimeValueSources(mlir::Value v);
/// Names of the graph inputs with dynamic dims whose shapes `v` is computed
/// from (the walk goes through kiln.shape and kiln.size), sorted.
llvm::SmallVector<std::string> dynamicShapeSources(mlir::Value v);

/// The values of `op`'s results when every operand is a small constant and
/// the graph dialect has no folder for it (Floor, Not, Split, Tile, Clip,
/// ReduceMax, ...); empty otherwise (ConstantEval.cpp).
llvm::SmallVector<mlir::Attribute>
evaluateShapeConstants(mlir::Operation *op);

/// Why an op cannot be imported regardless of opset (control flow, ...), or
/// empty.
llvm::StringRef knownUnsupportedReason(llvm::StringRef opType);

} // namespace kiln::onnx_import

#endif // KILN_LIB_IMPORT_ONNX_NODECONTEXT_H
