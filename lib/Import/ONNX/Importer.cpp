//===- Importer.cpp - ONNX ModelProto to kiln graph dialect ---------------===//
//
// Reads and validates a model (IR version, opsets, domains), optionally runs
// libonnx's checker and shape inference, then walks the graph in order and
// dispatches each node to the handler registered for its op type and
// since-version. Values are created with kiln's own result-type inference,
// refined by (and checked against) ONNX's shapes, and folded on the spot so
// shape subgraphs disappear. NodeContext.cpp holds what handlers call.
//
//===----------------------------------------------------------------------===//
#include "kiln/Import/ONNX.h"

#include "GraphImporter.h"
#include "NodeContext.h"
#include "Tensors.h"
#include "dialects/Graph/IR/ShapeUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <set>

using namespace mlir;
using kiln::graph::kDynamic;

namespace kiln::onnx_import {

//===----------------------------------------------------------------------===//
// Loading and validation
//===----------------------------------------------------------------------===//

static bool readModelFile(StringRef path, std::string &data,
                          std::string &error) {
  if (!llvm::sys::fs::exists(path)) {
    error = "no such file";
    return false;
  }
  if (llvm::sys::fs::is_directory(path)) {
    error = "is a directory, not an ONNX file";
    return false;
  }
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) {
    error = "cannot read: " + buffer.getError().message();
    return false;
  }
  data = (*buffer)->getBuffer().str();
  return true;
}

/// Parses and validates the model; on failure `error` says why.
static bool parseModel(StringRef buffer, onnx::ModelProto &model,
                       std::string &error) {
  if (buffer.empty()) {
    error = "file is empty";
    return false;
  }
  if (buffer.size() > (size_t)INT32_MAX) {
    error = "file is over 2 GB: keep the weights in external data files";
    return false;
  }
  if (!model.ParseFromArray(buffer.data(), (int)buffer.size())) {
    error = "not a valid ONNX model: the protobuf does not parse (truncated "
            "or not an ONNX file)";
    return false;
  }
  if (!model.has_graph() || model.ir_version() <= 0) {
    error = "not a valid ONNX model: no graph or no IR version";
    return false;
  }
  if (model.ir_version() > kMaxIrVersion) {
    error = "IR version " + std::to_string(model.ir_version()) +
            " is newer than supported (at most " +
            std::to_string(kMaxIrVersion) + "): re-export with an older ONNX";
    return false;
  }
  return true;
}

/// The model's opset for the default domain, or an error.
static bool defaultOpset(const onnx::ModelProto &model, int64_t &opset,
                         std::string &error) {
  opset = -1;
  for (const auto &imp : model.opset_import())
    if (imp.domain().empty() || imp.domain() == "ai.onnx")
      opset = imp.version();
  if (opset < 0 && model.ir_version() < 3)
    opset = 1;
  if (opset < 0) {
    error = "model imports no ai.onnx opset";
    return false;
  }
  if (opset > kMaxOpset) {
    error = "opset " + std::to_string(opset) + " is newer than supported (" +
            std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
            "): convert it with onnx.version_converter";
    return false;
  }
  if (opset < kMinOpset) {
    error = "opset " + std::to_string(opset) + " is older than supported (" +
            std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
            "): convert it with onnx.version_converter";
    return false;
  }
  return true;
}

static bool runLibOnnx(onnx::ModelProto &model, int64_t opset,
                       const ImportOptions &options, std::string &error) {
  if (options.runChecker) {
    try {
      onnx::checker::check_model(model);
    } catch (const std::exception &e) {
      error = std::string("the ONNX checker rejects the model: ") + e.what();
      return false;
    }
  }
  // libonnx 1.12 knows the schemas up to opset 17; beyond, kiln's own
  // inference does the work.
  if (options.runOnnxShapeInference && opset <= 17) {
    // Exporters write -1 for unknown dims; libonnx would do arithmetic on it
    // (Pad of -1 by 2 gives 1). Make them unknown first.
    auto clearNegative = [](onnx::ValueInfoProto &vi) {
      if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape())
        return;
      for (auto &dim : *vi.mutable_type()
                            ->mutable_tensor_type()
                            ->mutable_shape()
                            ->mutable_dim())
        if (dim.has_dim_value() && dim.dim_value() < 0)
          dim.clear_dim_value();
    };
    auto *graph = model.mutable_graph();
    for (auto &vi : *graph->mutable_input())
      clearNegative(vi);
    for (auto &vi : *graph->mutable_output())
      clearNegative(vi);
    for (auto &vi : *graph->mutable_value_info())
      clearNegative(vi);
    try {
      onnx::ShapeInferenceOptions inferOptions{
          /*check_type=*/false,
          /*error_mode=*/0,
          /*enable_data_propagation=*/false};
      onnx::shape_inference::InferShapes(
          model, onnx::OpSchemaRegistry::Instance(), inferOptions);
    } catch (const std::exception &) {
      // Shapes from libonnx only refine kiln's; carry on without them.
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// Graph import
//===----------------------------------------------------------------------===//

/// The name a node's diagnostics and location use: its own, or OpType_index.
static std::string nodeName(const onnx::NodeProto &node, size_t index) {
  return node.name().empty() ? node.op_type() + "_" + std::to_string(index)
                             : node.name();
}

/// Calls `fn(node, name)` for every node of `graph` and, recursively, of its
/// subgraph attributes; a subgraph's nodes are named NODE/ATTRIBUTE/NAME, as
/// GraphImporter::inlineSubgraph names them.
static void
forEachNode(const onnx::GraphProto &graph, const std::string &scope,
            llvm::function_ref<void(const onnx::NodeProto &, StringRef)> fn) {
  for (auto [i, node] : llvm::enumerate(graph.node())) {
    std::string name = scope + nodeName(node, i);
    fn(node, name);
    for (const auto &attr : node.attribute()) {
      if (attr.has_g())
        forEachNode(attr.g(), name + "/" + attr.name() + "/", fn);
      for (const auto &g : attr.graphs())
        forEachNode(g, name + "/" + attr.name() + "/", fn);
    }
  }
}

ElementsAttr GraphImporter::loadInputValue(StringRef name, StringRef file,
                                           Type declared) {
  std::string error;
  onnx::TensorProto tensor;
  std::string what = ("--input-value " + name + "=" + file).str();
  if (!readTensorFile(file, tensor, error)) {
    emitError(fileLoc) << what << ": " << error;
    return {};
  }
  ElementsAttr value = convertTensor(&ctx, tensor, baseDir, error, name);
  if (!value) {
    emitError(fileLoc) << what << ": " << error;
    return {};
  }
  auto type = cast<RankedTensorType>(value.getType());
  auto mismatch = [&]() {
    emitError(fileLoc) << what << ": the file holds " << type
                       << " but graph input '" << name << "' is " << declared;
    return ElementsAttr();
  };
  if (type.getElementType() != getElementTypeOrSelf(declared))
    return mismatch();
  if (auto ranked = dyn_cast<RankedTensorType>(declared)) {
    if (ranked.getRank() != type.getRank())
      return mismatch();
    for (auto [d, v] : llvm::zip(ranked.getShape(), type.getShape()))
      if (!ShapedType::isDynamic(d) && d != v)
        return mismatch();
  }
  return value;
}

Type GraphImporter::convertType(const onnx::TypeProto &type, StringRef what,
                                Location loc,
                                SmallVectorImpl<std::string> *dimNames) {
  if (!type.has_tensor_type()) {
    emitError(loc) << what << " is not a tensor (sequence, map and optional "
                   << "values are not supported)";
    return {};
  }
  const auto &tt = type.tensor_type();
  Type et = convertElementType(&ctx, tt.elem_type());
  if (!et) {
    emitError(loc) << "element type " << dataTypeName(tt.elem_type()) << " of "
                   << what << " is not supported";
    return {};
  }
  if (!tt.has_shape())
    return UnrankedTensorType::get(et);
  SmallVector<int64_t> shape;
  for (const auto &dim : tt.shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      shape.push_back(dim.dim_value());
      if (dimNames)
        dimNames->push_back("");
    } else {
      shape.push_back(kDynamic);
      if (dimNames)
        dimNames->push_back(dim.has_dim_param() ? dim.dim_param() : "?");
    }
  }
  return RankedTensorType::get(shape, et);
}

/// Compares kiln's type `ours` with an ONNX type; on an authoritative
/// conflict sets `error`; fills `refined` with static dims ONNX knows.
static LogicalResult compareWithOnnx(MLIRContext &ctx, RankedTensorType ours,
                                     const onnx::TypeProto &type,
                                     StringRef name, bool authoritative,
                                     SmallVectorImpl<int64_t> &refined,
                                     std::string &error) {
  if (!type.has_tensor_type())
    return success();
  const auto &tt = type.tensor_type();
  std::string oursText;
  llvm::raw_string_ostream(oursText) << ours;
  Type et = convertElementType(&ctx, tt.elem_type());
  if (et && et != ours.getElementType()) {
    if (!authoritative)
      return success();
    std::string etText;
    llvm::raw_string_ostream(etText) << et;
    error = "value '" + name.str() + "' is declared with element type " +
            etText + " but computes " + oursText;
    return failure();
  }
  if (!tt.has_shape())
    return success();
  if (tt.shape().dim_size() != ours.getRank()) {
    if (!authoritative)
      return success();
    error = "inconsistent shapes: value '" + name.str() +
            "' is declared with rank " + std::to_string(tt.shape().dim_size()) +
            " but kiln computes " + oursText;
    return failure();
  }
  SmallVector<int64_t> candidate(refined.begin(), refined.end());
  for (int i = 0; i < ours.getRank(); ++i) {
    const auto &dim = tt.shape().dim(i);
    if (!dim.has_dim_value() || dim.dim_value() < 0)
      continue;
    int64_t d = dim.dim_value();
    if (ours.isDynamicDim(i)) {
      candidate[i] = d;
    } else if (ours.getDimSize(i) != d) {
      if (!authoritative)
        return success();
      std::string declaredText;
      for (int j = 0; j < tt.shape().dim_size(); ++j)
        declaredText += (j ? "x" : "") +
                        (tt.shape().dim(j).has_dim_value()
                             ? std::to_string(tt.shape().dim(j).dim_value())
                             : std::string("?"));
      error = "inconsistent shapes: value '" + name.str() +
              "' is declared as [" + declaredText + "] but kiln computes " +
              oursText;
      return failure();
    }
  }
  refined.assign(candidate.begin(), candidate.end());
  return success();
}

LogicalResult
GraphImporter::refine(Value &v, StringRef name,
                      const llvm::SmallPtrSetImpl<Operation *> &ownOps,
                      std::string &error) {
  auto ours = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> refined(ours.getShape());
  auto decl = declaredTypes.find(name);
  if (decl != declaredTypes.end() &&
      failed(
          compareWithOnnx(ctx, ours, decl->second, name, true, refined, error)))
    return failure();
  auto inferred = onnxTypes.find(name);
  if (inferred != onnxTypes.end() &&
      failed(compareWithOnnx(ctx, ours, *inferred->second, name, false, refined,
                             error)))
    return failure();
  Operation *def = v.getDefiningOp();
  if (ArrayRef<int64_t>(refined) == ours.getShape() || !def ||
      !ownOps.contains(def) || !v.use_empty() || isa<graph::ConstantOp>(def))
    return success();
  auto type = RankedTensorType::get(refined, ours.getElementType());
  // A reshape whose shape kiln could not compute takes the declared one,
  // which must still hold the input's elements.
  if (auto reshape = dyn_cast<graph::ReshapeOp>(def)) {
    auto input = cast<RankedTensorType>(reshape.getInput().getType());
    if (input.hasStaticShape() && type.hasStaticShape() &&
        input.getNumElements() != type.getNumElements()) {
      std::string text;
      llvm::raw_string_ostream os(text);
      os << "value '" << name << "' is declared as " << type << " ("
         << type.getNumElements() << " elements) but it reshapes " << input
         << " (" << input.getNumElements() << " elements)";
      error = text;
      return failure();
    }
  }
  v.setType(type);
  return success();
}

OwningOpRef<ModuleOp>
GraphImporter::run(const onnx::ModelProto &model, int64_t modelOpset,
                   llvm::StringMap<onnx::TypeProto> declared) {
  opset = modelOpset;
  declaredTypes = std::move(declared);
  const onnx::GraphProto &graph = model.graph();
  OpBuilder b(&ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  (*module)->setAttr("kiln.source",
                     b.getStringAttr(llvm::sys::path::filename(path)));
  (*module)->setAttr("kiln.onnx.ir_version",
                     b.getI64IntegerAttr(model.ir_version()));
  (*module)->setAttr("kiln.onnx.opset", b.getI64IntegerAttr(opset));
  if (!model.producer_name().empty())
    (*module)->setAttr("kiln.onnx.producer",
                       b.getStringAttr(model.producer_name() + " " +
                                       model.producer_version()));

  // The external data files the weights come from (relative to the model's
  // directory), for the plan's provenance.
  std::set<std::string> externalFiles;
  auto noteExternal = [&](const onnx::TensorProto &t) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL)
      return;
    for (const auto &kv : t.external_data())
      if (kv.key() == "location" && !kv.value().empty())
        externalFiles.insert(kv.value());
  };
  for (const auto &t : graph.initializer())
    noteExternal(t);
  for (const auto &node : graph.node())
    for (const auto &attr : node.attribute())
      if (attr.has_t())
        noteExternal(attr.t());
  if (!externalFiles.empty()) {
    SmallVector<Attribute> files;
    for (const std::string &f : externalFiles)
      files.push_back(b.getStringAttr(f));
    (*module)->setAttr(kExternalDataAttr, b.getArrayAttr(files));
  }

  for (const auto &imp : model.opset_import())
    domainOpsets[imp.domain() == "ai.onnx" ? "" : imp.domain()] = imp.version();
  for (const auto &vi : graph.value_info())
    onnxTypes[vi.name()] = &vi.type();
  for (const auto &vi : graph.output())
    onnxTypes[vi.name()] = &vi.type();

  // ONNX requires at least one output; a graph without any computes nothing
  // and would compile to an empty plan.
  if (graph.output_size() == 0) {
    emitError(fileLoc) << "graph '" << graph.name()
                       << "' has no outputs; an ONNX graph must declare at "
                          "least one (graph.output is empty)";
    return nullptr;
  }

  llvm::StringMap<const onnx::TensorProto *> initializers;
  for (const auto &t : graph.initializer()) {
    if (t.name().empty()) {
      emitError(fileLoc) << "an initializer has no name";
      return nullptr;
    }
    if (!initializers.try_emplace(t.name(), &t).second) {
      emitError(fileLoc) << "initializer '" << t.name() << "' is defined twice";
      return nullptr;
    }
  }
  // Subgraphs (If branches) read values of the outer scope by name.
  forEachNode(graph, "", [&](const onnx::NodeProto &node, StringRef) {
    for (const auto &in : node.input())
      used.insert(in);
    for (const auto &attr : node.attribute())
      if (attr.has_g())
        for (const auto &out : attr.g().output())
          used.insert(out.name());
  });
  for (const auto &out : graph.output())
    used.insert(out.name());
  for (const auto &sparse : graph.sparse_initializer())
    if (used.contains(sparse.values().name())) {
      emitError(fileLoc) << "sparse initializer '" << sparse.values().name()
                         << "' is not supported";
      return nullptr;
    }

  // Options naming graph inputs must name real ones (initializers aside).
  std::string inputList;
  llvm::StringSet<> declaredInputs;
  for (const auto &in : graph.input())
    if (!initializers.count(in.name()) &&
        declaredInputs.insert(in.name()).second)
      inputList += (inputList.empty() ? "'" : ", '") + in.name() + "'";
  if (inputList.empty())
    inputList = "none";
  for (const auto &entry : options.inputShapes) {
    const std::string &name = entry.first;
    if (declaredInputs.contains(name))
      continue;
    emitError(fileLoc) << "--input-shape " << name
                       << ": the model has no graph input named '" << name
                       << "'"
                       << (initializers.count(name)
                               ? " ('" + name +
                                     "' is an initializer, whose "
                                     "shape the model fixes)"
                               : std::string())
                       << " (its inputs: " << inputList << ")";
    return nullptr;
  }

  // Graph inputs (IR < 4 also lists initializers as inputs: those are weights).
  SmallVector<Type> argTypes;
  SmallVector<DictionaryAttr> argAttrs;
  SmallVector<std::string> argNames;
  llvm::StringSet<> inputNames;
  for (const auto &in : graph.input()) {
    if (initializers.count(in.name()))
      continue;
    if (!inputNames.insert(in.name()).second) {
      emitError(fileLoc) << "graph input '" << in.name() << "' is listed twice";
      return nullptr;
    }
    SmallVector<std::string> dimNames;
    Type t = convertType(in.type(), "graph input '" + in.name() + "'", fileLoc,
                         &dimNames);
    if (!t)
      return nullptr;
    auto over = options.inputShapes.find(in.name());
    if (over != options.inputShapes.end()) {
      SmallVector<int64_t> shape;
      for (int64_t d : over->second)
        shape.push_back(d < 0 ? kDynamic : d);
      auto ranked = dyn_cast<RankedTensorType>(t);
      if (ranked && ranked.getRank() != (int64_t)shape.size()) {
        emitError(fileLoc) << "--input-shape for '" << in.name()
                           << "' has rank " << shape.size()
                           << " but the model says " << ranked;
        return nullptr;
      }
      t = RankedTensorType::get(shape, getElementTypeOrSelf(t));
      dimNames.assign(shape.size(), "");
    }
    if (auto fixedIt = options.inputValues.find(in.name());
        fixedIt != options.inputValues.end()) {
      ElementsAttr value = loadInputValue(in.name(), fixedIt->second, t);
      if (!value)
        return nullptr;
      t = value.getType();
      dimNames.assign(value.getShapedType().getRank(), "");
      fixedValues[in.name()] = value;
    }
    if (!isa<RankedTensorType>(t)) {
      emitError(fileLoc) << "graph input '" << in.name()
                         << "' has no shape; kiln needs at least its rank: "
                            "give it with --input-shape "
                         << in.name() << "=1x3x224x224 (say)";
      return nullptr;
    }
    SmallVector<NamedAttribute> attrs{
        b.getNamedAttr("kiln.name", b.getStringAttr(in.name()))};
    if (llvm::any_of(dimNames,
                     [](const std::string &s) { return !s.empty(); })) {
      SmallVector<Attribute> names;
      for (const auto &s : dimNames)
        names.push_back(b.getStringAttr(s));
      attrs.push_back(b.getNamedAttr("kiln.dims", b.getArrayAttr(names)));
    }
    argTypes.push_back(t);
    argAttrs.push_back(b.getDictionaryAttr(attrs));
    argNames.push_back(in.name());
  }

  for (const auto &[name, file] : options.inputValues) {
    if (inputNames.contains(name))
      continue;
    if (initializers.count(name)) {
      emitError(fileLoc) << "--input-value " << name << "=" << file << ": '"
                         << name
                         << "' is an initializer, whose value the model "
                            "already fixes; only graph inputs can be fixed";
      return nullptr;
    }
    emitError(fileLoc) << "--input-value " << name << "=" << file
                       << ": the model has no graph input named '" << name
                       << "' (its inputs: " << inputList << ")";
    return nullptr;
  }

  b.setInsertionPointToEnd(module->getBody());
  auto func =
      func::FuncOp::create(b, fileLoc, "main", b.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  b.setInsertionPointToEnd(entry);
  for (auto [i, name] : llvm::enumerate(argNames)) {
    values[name] = entry->getArgument(i);
    func.setArgAttrs(i, argAttrs[i]);
    // A fixed input stays an argument (callers still bind it and the runtime
    // checks the value), but the graph reads the constant.
    if (auto fixed = fixedValues.lookup(name)) {
      func.setArgAttr(i, "kiln.fixed_value", fixed);
      values[name] = graph::ConstantOp::create(
          b, NameLoc::get(b.getStringAttr(name), fileLoc), fixed);
    }
  }

  // Weights used by the graph, in initializer order.
  for (const auto &t : graph.initializer()) {
    if (!used.contains(t.name()) || inputNames.contains(t.name()))
      continue;
    std::string error;
    ElementsAttr attr = convertTensor(&ctx, t, baseDir, error);
    if (!attr) {
      emitError(fileLoc) << "initializer: " << error;
      return nullptr;
    }
    values[t.name()] = graph::ConstantOp::create(
        b, NameLoc::get(b.getStringAttr(t.name()), fileLoc), attr);
  }

  for (auto [i, node] : llvm::enumerate(graph.node()))
    if (failed(importNode(node, nodeName(node, i), b)))
      return nullptr;

  SmallVector<Value> results;
  SmallVector<DictionaryAttr> resultAttrs;
  for (const auto &out : graph.output()) {
    Value v = values.lookup(out.name());
    if (!v) {
      emitError(fileLoc) << "graph output '" << out.name()
                         << "' is not produced by any node";
      return nullptr;
    }
    llvm::SmallPtrSet<Operation *, 1> none;
    std::string error;
    if (failed(refine(v, out.name(), none, error))) {
      emitError(fileLoc) << "graph output: " << error;
      return nullptr;
    }
    results.push_back(v);
    resultAttrs.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("kiln.name", b.getStringAttr(out.name()))}));
  }
  func::ReturnOp::create(b, fileLoc, results);
  // Folding leaves the operands of folded ops (shape constants, say) unused.
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*entry)))
    if (isOpTriviallyDead(&op))
      op.erase();
  func.setType(b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  for (auto [i, attrs] : llvm::enumerate(resultAttrs))
    func.setResultAttrs(i, attrs);
  return module;
}

LogicalResult GraphImporter::inlineSubgraph(const onnx::GraphProto &graph,
                                            StringRef scope, OpBuilder &b,
                                            SmallVectorImpl<Value> &outs,
                                            ValueRange inputs) {
  Location scopeLoc = NameLoc::get(b.getStringAttr(scope), fileLoc);
  if (inputs.empty() && graph.input_size() != 0)
    return emitError(scopeLoc)
           << "subgraph '" << graph.name() << "' declares "
           << graph.input_size()
           << " inputs; an If branch takes none (it reads the outer scope)";
  if (graph.input_size() != (int)inputs.size())
    return emitError(scopeLoc)
           << "subgraph '" << graph.name() << "' declares "
           << graph.input_size() << " inputs; it is given " << inputs.size();
  if (graph.sparse_initializer_size() != 0)
    return emitError(scopeLoc) << "subgraph '" << graph.name()
                               << "': sparse initializers are not supported";
  // Names the subgraph defines shadow the outer scope's until it is done.
  llvm::StringMap<Value> outerValues = values;
  llvm::StringMap<const onnx::TypeProto *> outerTypes = onnxTypes;
  llvm::scope_exit restore([&] {
    values = std::move(outerValues);
    onnxTypes = std::move(outerTypes);
  });
  for (const auto &node : graph.node())
    for (const auto &out : node.output())
      values.erase(out);
  for (auto [in, v] : llvm::zip(graph.input(), inputs))
    values[in.name()] = v;
  for (const auto &vi : graph.value_info())
    onnxTypes[vi.name()] = &vi.type();
  for (const auto &vi : graph.output())
    onnxTypes[vi.name()] = &vi.type();
  for (const auto &t : graph.initializer()) {
    values.erase(t.name());
    if (!used.contains(t.name()))
      continue;
    std::string error;
    ElementsAttr attr = convertTensor(&ctx, t, baseDir, error);
    if (!attr)
      return emitError(scopeLoc) << "initializer: " << error;
    values[t.name()] = graph::ConstantOp::create(
        b, NameLoc::get(b.getStringAttr(t.name()), fileLoc), attr);
  }
  for (auto [i, node] : llvm::enumerate(graph.node()))
    if (failed(importNode(node, (scope + "/" + nodeName(node, i)).str(), b)))
      return failure();
  outs.clear();
  for (const auto &out : graph.output()) {
    Value v = values.lookup(out.name());
    if (!v)
      return emitError(scopeLoc) << "subgraph output '" << out.name()
                                 << "' is not produced by any node";
    outs.push_back(v);
  }
  return success();
}

LogicalResult GraphImporter::importNode(const onnx::NodeProto &node,
                                        StringRef name, OpBuilder &builder) {
  Location loc = NameLoc::get(builder.getStringAttr(name), fileLoc);
  StringRef opType = node.op_type();
  StringRef domain = node.domain();
  if (!domain.empty() && domain != "ai.onnx") {
    auto it = domainOpsets.find(domain.str());
    std::string version = it == domainOpsets.end() ? "not imported by the model"
                                                   : std::to_string(it->second);
    return emitError(loc) << opType << " (domain '" << domain << "', opset "
                          << version << "): ops of domain '" << domain
                          << "' are not supported; kiln imports the default "
                             "ai.onnx domain";
  }
  StringRef reason = knownUnsupportedReason(opType);
  if (!reason.empty())
    return emitError(loc) << opType << " (opset " << opset << "): " << reason;
  const HandlerRegistry &registry = HandlerRegistry::get();
  if (!registry.knows(opType))
    return emitError(loc) << "unsupported op type '" << opType << "' (opset "
                          << opset
                          << "): kiln has no importer for it; `kilnc check` "
                             "lists every op of the model";
  auto handler = registry.lookup(opType, opset);
  if (!handler)
    return emitError(loc) << opType << " (opset " << opset
                          << "): not defined at this opset";
  for (const auto &out : node.output())
    if (!out.empty() && values.count(out))
      return emitError(loc)
             << opType << " (opset " << opset << "): output '" << out
             << "' is already defined by an earlier node, a "
                "graph input or an initializer (ONNX values are "
                "assigned once)";
  for (const auto &in : node.input())
    if (!in.empty() && !values.count(in))
      return emitError(loc)
             << opType << " (opset " << opset << "): input '" << in
             << "' is not defined before this node (unknown "
                "name, or the graph is not topologically sorted)";
  NodeContext context(*this, node, opset, builder, loc);
  if (failed(handler->second(context)) || context.hadError()) {
    if (!context.hadError())
      (void)context.fail("import failed");
    return failure();
  }
  for (int i = 0; i < node.output_size(); ++i)
    if (!node.output(i).empty() && !values.count(node.output(i)) &&
        context.outputUsed(i))
      return context.fail("output " + std::to_string(i) + " ('" +
                          node.output(i) + "') was not produced");
  return success();
}

//===----------------------------------------------------------------------===//
// Registry
//===----------------------------------------------------------------------===//

void HandlerRegistry::add(StringRef opType, int sinceVersion, Handler handler) {
  auto &versions = table[opType];
  versions.emplace_back(sinceVersion, handler);
  llvm::sort(versions, [](auto &a, auto &b) { return a.first < b.first; });
}

std::optional<std::pair<int, Handler>>
HandlerRegistry::lookup(StringRef opType, int64_t opset) const {
  auto it = table.find(opType);
  if (it == table.end())
    return std::nullopt;
  std::optional<std::pair<int, Handler>> best;
  for (const auto &entry : it->second)
    if (entry.first <= opset)
      best = entry;
  return best;
}

const HandlerRegistry &HandlerRegistry::get() {
  static const HandlerRegistry registry = [] {
    HandlerRegistry r;
    registerElementwiseHandlers(r);
    registerNNHandlers(r);
    registerTensorHandlers(r);
    registerQuantHandlers(r);
    registerExtraHandlers(r);
    registerRecurrentHandlers(r);
    registerControlFlowHandlers(r);
    return r;
  }();
  return registry;
}

StringRef knownUnsupportedReason(StringRef opType) {
  // If, Loop and Scan run at build time (HandlersControlFlow.cpp).
  if (opType == "SequenceConstruct" || opType == "SequenceAt" ||
      opType == "SequenceInsert" || opType == "SplitToSequence" ||
      opType == "ConcatFromSequence" || opType == "SequenceEmpty" ||
      opType == "SequenceLength" || opType == "SequenceErase")
    return "sequence values are not supported";
  if (opType == "Optional" || opType == "OptionalHasElement" ||
      opType == "OptionalGetElement")
    return "optional values are not supported";
  return "";
}

std::vector<std::pair<std::string, std::vector<int>>> supportedOps() {
  std::vector<std::pair<std::string, std::vector<int>>> out;
  for (const auto &entry : HandlerRegistry::get().all()) {
    std::vector<int> versions;
    for (const auto &v : entry.second)
      versions.push_back(v.first);
    out.emplace_back(entry.first().str(), versions);
  }
  llvm::sort(out);
  return out;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

/// Verifies the module; diagnostics get the ONNX op type of the failing node.
static LogicalResult
verifyImported(ModuleOp module, const onnx::GraphProto &graph, int64_t opset) {
  MLIRContext *ctx = module.getContext();
  llvm::StringMap<std::string> opTypes;
  forEachNode(graph, "", [&](const onnx::NodeProto &node, StringRef name) {
    opTypes[name] = node.op_type();
  });
  SmallVector<std::pair<Location, std::string>> errors;
  LogicalResult result = success();
  {
    ScopedDiagnosticHandler capture(ctx, [&](Diagnostic &d) {
      errors.emplace_back(d.getLocation(), d.str());
      return success();
    });
    result = verify(module);
  }
  for (auto &[loc, message] : errors) {
    std::string prefix;
    if (auto name = dyn_cast<NameLoc>(loc)) {
      auto it = opTypes.find(name.getName().getValue());
      if (it != opTypes.end())
        prefix = it->second + " (opset " + std::to_string(opset) + "): ";
    }
    emitError(loc) << prefix << message;
  }
  return result;
}

OwningOpRef<ModuleOp> importONNXBuffer(MLIRContext &context, StringRef buffer,
                                       StringRef path,
                                       const ImportOptions &options) {
  context.loadDialect<graph::GraphDialect, func::FuncDialect>();
  Location fileLoc = FileLineColLoc::get(&context, path, 0, 0);
  onnx::ModelProto model;
  std::string error;
  int64_t opset = 0;
  if (!parseModel(buffer, model, error) || !defaultOpset(model, opset, error)) {
    emitError(fileLoc) << error;
    return nullptr;
  }
  // What the file declares, before libonnx adds what it infers.
  llvm::StringMap<onnx::TypeProto> declared;
  for (const auto &vi : model.graph().value_info())
    declared[vi.name()] = vi.type();
  for (const auto &vi : model.graph().output())
    declared[vi.name()] = vi.type();
  // libonnx's checker and shape inference trust models more than kiln does
  // and crash on some malformed ones (fuzzing found ConvTranspose and pooling
  // shape inference, Scan). They only run on models kiln's own import
  // accepts; for any other model, the import below reports kiln's errors.
  bool libOnnx =
      options.runChecker || (options.runOnnxShapeInference && opset <= 17);
  if (libOnnx) {
    MLIRContext scratch;
    scratch.disableMultithreading();
    scratch.loadDialect<graph::GraphDialect, func::FuncDialect>();
    ScopedDiagnosticHandler quiet(&scratch,
                                  [](Diagnostic &) { return success(); });
    ImportOptions plain = options;
    plain.runChecker = false;
    plain.runOnnxShapeInference = false;
    GraphImporter probe(scratch, path, plain);
    OwningOpRef<ModuleOp> probeModule = probe.run(model, opset, declared);
    libOnnx = probeModule && succeeded(verify(*probeModule));
  }
  if (libOnnx && !runLibOnnx(model, opset, options, error)) {
    emitError(fileLoc) << error;
    return nullptr;
  }
  GraphImporter importer(context, path, options);
  OwningOpRef<ModuleOp> module =
      importer.run(model, opset, std::move(declared));
  if (!module)
    return nullptr;
  if (options.verify && failed(verifyImported(*module, model.graph(), opset)))
    return nullptr;
  return module;
}

OwningOpRef<ModuleOp> importONNXFile(MLIRContext &context, StringRef path,
                                     const ImportOptions &options) {
  std::string data, error;
  if (!readModelFile(path, data, error)) {
    emitError(FileLineColLoc::get(&context, path, 0, 0)) << error;
    return nullptr;
  }
  return importONNXBuffer(context, data, path, options);
}

bool readGraphInputs(StringRef buffer, std::vector<GraphInputDecl> &inputs,
                     std::string &error) {
  onnx::ModelProto model;
  if (!parseModel(buffer, model, error))
    return false;
  std::set<std::string> initializers;
  for (const auto &t : model.graph().initializer())
    initializers.insert(t.name());
  inputs.clear();
  for (const auto &in : model.graph().input()) {
    if (initializers.count(in.name()))
      continue;
    GraphInputDecl decl;
    decl.name = in.name();
    if (in.type().has_tensor_type() && in.type().tensor_type().has_shape()) {
      decl.hasShape = true;
      for (const auto &dim : in.type().tensor_type().shape().dim()) {
        bool fixed = dim.has_dim_value() && dim.dim_value() >= 0;
        decl.dims.push_back(fixed ? dim.dim_value() : -1);
        decl.dimParams.push_back(!fixed && dim.has_dim_param() ? dim.dim_param()
                                                               : "");
      }
    }
    inputs.push_back(std::move(decl));
  }
  return true;
}

bool checkONNXFile(StringRef path, CoverageReport &report,
                   const ImportOptions &checkOptions) {
  report.path = path.str();
  std::string data, error;
  onnx::ModelProto model;
  if (!readModelFile(path, data, error) || !parseModel(data, model, error)) {
    report.problems.push_back(error);
    return false;
  }
  report.irVersion = model.ir_version();
  report.producer =
      model.producer_name() +
      (model.producer_version().empty() ? "" : " " + model.producer_version());
  std::map<std::string, int64_t> opsets;
  for (const auto &imp : model.opset_import()) {
    std::string d = imp.domain() == "ai.onnx" ? "" : imp.domain();
    opsets[d] = imp.version();
    report.opsets.emplace_back(d.empty() ? "ai.onnx" : d, imp.version());
  }
  int64_t opset = 0;
  if (!defaultOpset(model, opset, error))
    report.problems.push_back(error);

  std::map<std::pair<std::string, std::string>, OpCoverage> ops;
  const HandlerRegistry &registry = HandlerRegistry::get();
  // Ops of subgraphs (If branches) count too: kiln imports the taken branch.
  forEachNode(model.graph(), "", [&](const onnx::NodeProto &node, StringRef) {
    std::string domain = node.domain() == "ai.onnx" ? "" : node.domain();
    OpCoverage &c = ops[{domain, node.op_type()}];
    c.domain = domain.empty() ? "ai.onnx" : domain;
    c.opType = node.op_type();
    c.opset = opsets.count(domain) ? opsets[domain] : 0;
    ++c.count;
  });
  for (auto &[key, c] : ops) {
    if (!key.first.empty()) {
      c.reason = "domain '" + key.first + "' is not supported";
    } else if (StringRef r = knownUnsupportedReason(c.opType); !r.empty()) {
      c.reason = r.str();
    } else if (!registry.knows(c.opType)) {
      c.reason = "no importer for this op type";
    } else if (auto h = registry.lookup(c.opType, c.opset)) {
      c.supported = opset >= kMinOpset && opset <= kMaxOpset;
      c.sinceVersion = h->first;
      if (!c.supported)
        c.reason = "model opset outside " + std::to_string(kMinOpset) + "-" +
                   std::to_string(kMaxOpset);
    } else {
      c.reason = "not defined at opset " + std::to_string(c.opset);
    }
    report.ops.push_back(c);
  }

  // A full import says whether the supported ops also accept this model's
  // attributes, shapes and types.
  if (report.problems.empty()) {
    MLIRContext context;
    std::string firstError;
    ScopedDiagnosticHandler capture(&context, [&](Diagnostic &d) {
      if (firstError.empty() && d.getSeverity() == DiagnosticSeverity::Error) {
        std::string where;
        if (auto name = dyn_cast<NameLoc>(d.getLocation()))
          where = "node '" + name.getName().getValue().str() + "': ";
        firstError = where + d.str();
      }
      return success();
    });
    ImportOptions options;
    options.inputShapes = checkOptions.inputShapes;
    options.inputValues = checkOptions.inputValues;
    report.importOk = (bool)importONNXBuffer(context, data, path, options);
    report.importError = firstError;
  }
  return true;
}

} // namespace kiln::onnx_import
