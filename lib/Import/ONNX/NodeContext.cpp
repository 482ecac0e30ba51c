//===- NodeContext.cpp - what an ONNX op handler sees of its node ---------===//
//
// NodeContext's inputs, type-checked attributes, errors and op building
// (type inference, refinement against ONNX's shapes, folding); see
// NodeContext.h.
//
//===----------------------------------------------------------------------===//
#include "NodeContext.h"
#include "GraphImporter.h"
#include "Tensors.h"
#include "dialects/Graph/IR/ShapeUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"

using namespace mlir;
using kiln::graph::kDynamic;

namespace kiln::onnx_import {

LogicalResult NodeContext::fail(const llvm::Twine &message) {
  // The first problem of a node is the one to report; later ones are often
  // its consequences (a mistyped attribute then reads as missing).
  if (error)
    return failure();
  error = true;
  return emitError(loc) << node.op_type() << " (opset " << opset
                        << "): " << message.str();
}

Value NodeContext::input(int i) {
  if (!hasInput(i)) {
    (void)fail("missing required input " + std::to_string(i));
    return {};
  }
  return importer.values.lookup(node.input(i));
}

Value NodeContext::optionalInput(int i) {
  return hasInput(i) ? importer.values.lookup(node.input(i)) : Value();
}

SmallVector<Value> NodeContext::inputs() {
  SmallVector<Value> out;
  for (int i = 0; i < node.input_size(); ++i)
    if (hasInput(i))
      out.push_back(importer.values.lookup(node.input(i)));
  return out;
}

const onnx::AttributeProto *NodeContext::findAttr(StringRef name) const {
  for (const auto &a : node.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

static const char *attrTypeName(int type) {
  switch (type) {
  case onnx::AttributeProto::FLOAT:
    return "FLOAT";
  case onnx::AttributeProto::INT:
    return "INT";
  case onnx::AttributeProto::STRING:
    return "STRING";
  case onnx::AttributeProto::TENSOR:
    return "TENSOR";
  case onnx::AttributeProto::GRAPH:
    return "GRAPH";
  case onnx::AttributeProto::FLOATS:
    return "FLOATS";
  case onnx::AttributeProto::INTS:
    return "INTS";
  case onnx::AttributeProto::STRINGS:
    return "STRINGS";
  case onnx::AttributeProto::TENSORS:
    return "TENSORS";
  case onnx::AttributeProto::GRAPHS:
    return "GRAPHS";
  case onnx::AttributeProto::SPARSE_TENSOR:
    return "SPARSE_TENSOR";
  default:
    return "UNDEFINED";
  }
}

/// The attribute's declared type, or the one implied by its populated field
/// for producers that leave `type` unset.
static int effectiveType(const onnx::AttributeProto &a) {
  if (a.type() != onnx::AttributeProto::UNDEFINED)
    return a.type();
  if (a.ints_size())
    return onnx::AttributeProto::INTS;
  if (a.floats_size())
    return onnx::AttributeProto::FLOATS;
  if (a.strings_size())
    return onnx::AttributeProto::STRINGS;
  if (a.has_t())
    return onnx::AttributeProto::TENSOR;
  if (a.has_g())
    return onnx::AttributeProto::GRAPH;
  if (a.has_s())
    return onnx::AttributeProto::STRING;
  if (a.has_f())
    return onnx::AttributeProto::FLOAT;
  if (a.has_i())
    return onnx::AttributeProto::INT;
  return onnx::AttributeProto::UNDEFINED;
}

const onnx::AttributeProto *NodeContext::typedAttr(StringRef name, int type,
                                                   StringRef typeName) {
  const onnx::AttributeProto *a = findAttr(name);
  if (!a)
    return nullptr;
  if (effectiveType(*a) != type) {
    (void)fail("attribute '" + name + "' must be " + typeName + ", got " +
               attrTypeName(effectiveType(*a)));
    return nullptr;
  }
  return a;
}

std::optional<int64_t> NodeContext::attrIntOpt(StringRef name) {
  if (auto *a = typedAttr(name, onnx::AttributeProto::INT, "INT"))
    return a->i();
  return std::nullopt;
}
int64_t NodeContext::attrInt(StringRef name, int64_t dflt) {
  return attrIntOpt(name).value_or(dflt);
}
std::optional<float> NodeContext::attrFloatOpt(StringRef name) {
  if (auto *a = typedAttr(name, onnx::AttributeProto::FLOAT, "FLOAT"))
    return a->f();
  return std::nullopt;
}
float NodeContext::attrFloat(StringRef name, float dflt) {
  return attrFloatOpt(name).value_or(dflt);
}
std::string NodeContext::attrString(StringRef name, StringRef dflt) {
  if (auto *a = typedAttr(name, onnx::AttributeProto::STRING, "STRING"))
    return a->s();
  return dflt.str();
}
std::optional<SmallVector<int64_t>> NodeContext::attrInts(StringRef name) {
  if (auto *a = typedAttr(name, onnx::AttributeProto::INTS, "INTS"))
    return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
  return std::nullopt;
}
std::optional<SmallVector<float>> NodeContext::attrFloats(StringRef name) {
  if (auto *a = typedAttr(name, onnx::AttributeProto::FLOATS, "FLOATS"))
    return SmallVector<float>(a->floats().begin(), a->floats().end());
  return std::nullopt;
}
const onnx::TensorProto *NodeContext::attrTensor(StringRef name) {
  if (auto *a = typedAttr(name, onnx::AttributeProto::TENSOR, "TENSOR"))
    return &a->t();
  return nullptr;
}

const onnx::GraphProto *NodeContext::attrGraph(StringRef name) {
  if (auto *a = typedAttr(name, onnx::AttributeProto::GRAPH, "GRAPH"))
    return &a->g();
  return nullptr;
}

LogicalResult NodeContext::inlineSubgraph(const onnx::GraphProto &g,
                                          StringRef scopeName,
                                          SmallVectorImpl<Value> &outs,
                                          ValueRange inputs) {
  auto name = dyn_cast<NameLoc>(loc);
  std::string scope =
      (name ? name.getName().str() : node.op_type()) + "/" + scopeName.str();
  if (failed(importer.inlineSubgraph(g, scope, b, outs, inputs))) {
    // The subgraph's node reported the problem.
    error = true;
    return failure();
  }
  return success();
}

bool NodeContext::outputUsed(int i) const {
  return i < node.output_size() && !node.output(i).empty() &&
         importer.used.contains(node.output(i));
}

LogicalResult NodeContext::setResults(ValueRange results) {
  if (error)
    return failure();
  for (int i = 0; i < node.output_size(); ++i) {
    const std::string &name = node.output(i);
    if (name.empty())
      continue;
    if (i >= (int)results.size()) {
      if (outputUsed(i))
        return fail("output " + std::to_string(i) + " ('" + name +
                    "') is not supported");
      continue;
    }
    Value v = results[i];
    if (!v)
      return failure();
    std::string message;
    if (failed(importer.refine(v, name, ownOps, message)))
      return fail(message);
    importer.values[name] = v;
  }
  return success();
}

SmallVector<Value> NodeContext::finalize(Operation *op) {
  ownOps.insert(op);
  if (failed(checkShapeOperands(op))) {
    ownOps.erase(op);
    op->erase();
    return {};
  }
  if (auto infer = dyn_cast<InferTypeOpInterface>(op)) {
    SmallVector<Type> types;
    std::string message;
    LogicalResult inferred = success();
    {
      ScopedDiagnosticHandler capture(getContext(), [&](Diagnostic &d) {
        message = d.str();
        return success();
      });
      inferred = infer.inferReturnTypes(
          getContext(), op->getLoc(), op->getOperands(),
          op->getRawDictionaryAttrs(), op->getPropertiesStorage(),
          op->getRegions(), types);
    }
    if (failed(inferred) || types.size() != op->getNumResults()) {
      std::string opName = op->getName().getStringRef().str();
      op->erase();
      (void)fail(opName + ": " +
                 (message.empty() ? "cannot infer result types" : message));
      return {};
    }
    for (auto [result, type] : llvm::zip(op->getResults(), types))
      result.setType(type);
  }
  SmallVector<OpFoldResult> folded;
  if (succeeded(op->fold(folded)) && folded.size() == op->getNumResults()) {
    SmallVector<Value> out;
    for (auto [result, f] : llvm::zip(op->getResults(), folded)) {
      if (auto v = dyn_cast<Value>(f)) {
        out.push_back(v);
        continue;
      }
      auto attr = dyn_cast<ElementsAttr>(cast<Attribute>(f));
      if (!attr || attr.getType() != result.getType())
        break;
      auto constant = graph::ConstantOp::create(b, loc, attr);
      ownOps.insert(constant);
      out.push_back(constant);
    }
    if (out.size() == op->getNumResults()) {
      op->erase();
      return out;
    }
    for (Value v : out)
      if (auto c = v.getDefiningOp<graph::ConstantOp>();
          c && c->use_empty() && ownOps.contains(c))
        c->erase();
  }
  // Shape chains through ops the dialect does not fold (ConstantEval.cpp).
  SmallVector<Attribute> values = evaluateShapeConstants(op);
  if (!values.empty() && values.size() == op->getNumResults()) {
    SmallVector<Value> out;
    for (Attribute value : values) {
      auto constant =
          graph::ConstantOp::create(b, loc, cast<ElementsAttr>(value));
      ownOps.insert(constant);
      out.push_back(constant);
    }
    ownOps.erase(op);
    op->erase();
    return out;
  }
  return SmallVector<Value>(op->getResults());
}

Value NodeContext::constI64(ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({(int64_t)values.size()}, b.getI64Type());
  auto c =
      graph::ConstantOp::create(b, loc, DenseElementsAttr::get(type, values));
  ownOps.insert(c);
  return c;
}

Value NodeContext::constSplat(RankedTensorType type, double value) {
  Type et = type.getElementType();
  Attribute scalar;
  if (auto ft = dyn_cast<FloatType>(et)) {
    APFloat f(value);
    bool lost;
    f.convert(ft.getFloatSemantics(), APFloat::rmNearestTiesToEven, &lost);
    scalar = FloatAttr::get(ft, f);
  } else {
    scalar = IntegerAttr::get(et, APInt(et.getIntOrFloatBitWidth(),
                                        (uint64_t)(int64_t)value,
                                        !et.isUnsignedInteger(), true));
  }
  auto c =
      graph::ConstantOp::create(b, loc, DenseElementsAttr::get(type, scalar));
  ownOps.insert(c);
  return c;
}

/// The ONNX name of the graph input `v` is, looking through casts; empty
/// when `v` is computed.
static std::string graphInputName(Value v) {
  while (auto cast = v.getDefiningOp<graph::CastOp>())
    v = cast->getOperand(0);
  auto arg = dyn_cast<BlockArgument>(v);
  if (!arg)
    return "";
  auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
  if (!func)
    return "";
  auto name =
      func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "kiln.name");
  return name ? name.str() : "";
}

LogicalResult NodeContext::failNotConstant(Value v, StringRef what,
                                           StringRef requirement) {
  std::string input = v ? graphInputName(v) : "";
  if (!input.empty())
    return fail(what + " must be " + requirement + ", but it is graph input '" +
                input +
                "', known only at run time: fix its value at build "
                "time with kilnc --input-value " +
                input + "=FILE (.pb or .npy)");
  return fail(what + " must be " + requirement +
              " (it is computed at run time here, which kiln does not support "
              "for this op)");
}

std::optional<SmallVector<int64_t>>
NodeContext::requireConstInts(Value v, StringRef what) {
  if (!v)
    return std::nullopt;
  if (auto ints = graph::getConstantInts(v))
    return ints;
  (void)failNotConstant(v, what);
  return std::nullopt;
}

std::optional<SmallVector<double>> NodeContext::constDoubles(Value v) {
  DenseElementsAttr dense = graph::getConstantDense(v);
  if (!dense)
    return std::nullopt;
  SmallVector<double> out;
  Type et = dense.getElementType();
  if (isa<FloatType>(et)) {
    for (const APFloat &f : dense.getValues<APFloat>())
      out.push_back(f.convertToDouble());
  } else if (et.isInteger()) {
    for (const APInt &i : dense.getValues<APInt>())
      out.push_back(et.isUnsignedInteger() || et.isInteger(1)
                        ? (double)i.getZExtValue()
                        : (double)i.getSExtValue());
  } else {
    return std::nullopt;
  }
  return out;
}

std::optional<int64_t> NodeContext::normalizeAxis(int64_t axis, int64_t rank) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) {
    (void)fail("axis " + std::to_string(axis) + " is out of range for rank " +
               std::to_string(rank));
    return std::nullopt;
  }
  return a;
}

} // namespace kiln::onnx_import
