//===- HandlersControlFlow.cpp - If, Loop and Scan at build time ----------===//
//
// Plans are static, so kiln runs control flow at build time:
// - If: the branch its condition selects is imported in place, where its
//   nodes read values of the outer scope by name; its outputs become the
//   If's. The condition must be known at build time: a constant or an
//   initializer, a graph input fixed with kilnc --input-value, or anything
//   the importer folds to a constant on the way (comparisons of static
//   shapes, say).
// - Loop: unrolled. The trip count and the condition must be known at build
//   time, and the body's condition output must fold to a constant in every
//   iteration; each iteration's body is imported with its inputs bound (the
//   iteration number as a constant, the condition, the loop-carried values);
//   scan outputs are the iterations' values stacked along a new axis 0.
// - Scan: unrolled over the scan inputs' static extent along their axes;
//   each iteration's body gets the states and one slice of every scan input
//   (in either direction); scan outputs are stacked along their axes.
//   Scan-8 (a batch axis first, optional sequence lengths) runs the same
//   per batch entry; variable sequence lengths are refused.
// A value known only at run time is refused, naming the graph inputs it
// depends on and the remedy.
//
//===----------------------------------------------------------------------===//
#include "NodeContext.h"

#include "dialects/Graph/IR/ShapeUtils.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

using namespace mlir;
using namespace kiln::graph;

namespace kiln::onnx_import {

namespace {

std::string quotedList(ArrayRef<std::string> names) {
  std::string list;
  for (auto [i, name] : llvm::enumerate(names))
    list += (i ? ", '" : "'") + name + "'";
  return list;
}

/// Refuses control flow that depends on `v`, known only at run time: names
/// the graph inputs it comes from (fix them with --input-value) or their
/// dynamic dims (give static shapes).
LogicalResult failRunTime(NodeContext &n, Value v, const std::string &what,
                          const std::string &because) {
  std::string why = what + " is not known at build time; " + because;
  SmallVector<std::string> inputs = runTimeValueSources(v);
  if (!inputs.empty()) {
    std::string remedy;
    for (const std::string &name : inputs)
      remedy += " --input-value " + name + "=FILE";
    bool several = inputs.size() > 1;
    std::string source =
        isa<BlockArgument>(v)
            ? "it is graph input " + quotedList(inputs)
            : "it is computed from the values of graph input" +
                  std::string(several ? "s " : " ") + quotedList(inputs);
    return n.fail(why + ": " + source + ", known only at run time: fix " +
                  (several ? "them" : "it") + " at build time with kilnc" +
                  remedy + " (.pb or .npy)");
  }
  SmallVector<std::string> dynamic = dynamicShapeSources(v);
  if (!dynamic.empty())
    return n.fail(why + ": it is computed from the dynamic dims of graph "
                        "input" +
                  (dynamic.size() > 1 ? "s " : " ") + quotedList(dynamic) +
                  ": give static shapes with kilnc --input-shape "
                  "NAME=DIMS");
  return n.fail(why + ": it is computed by ops kiln does not fold at "
                      "build time");
}

/// If (1, 11, 13, 16, 19 differ only in the types branches may produce).
LogicalResult importIf(NodeContext &n) {
  Value cond = n.input(0);
  const onnx::GraphProto *thenBranch = n.attrGraph("then_branch");
  const onnx::GraphProto *elseBranch = n.attrGraph("else_branch");
  if (!cond || n.hadError())
    return failure();
  if (!thenBranch || !elseBranch)
    return n.fail("needs both graph attributes 'then_branch' and "
                  "'else_branch'");
  std::string condName = n.node_().input(0);
  RankedTensorType condType = n.typeOf(cond);
  if (!condType.getElementType().isInteger(1))
    return n.fail("condition '" + condName + "' must be a bool tensor");
  if (condType.hasStaticShape() && condType.getNumElements() != 1)
    return n.fail("condition '" + condName +
                  "' must hold one element, it has " +
                  std::to_string(condType.getNumElements()));

  DenseElementsAttr value = getConstantDense(cond);
  if (!value)
    return failRunTime(n, cond, "condition '" + condName + "'",
                       "kiln builds only the branch a condition known at "
                       "build time selects (plans are static)");
  bool taken = value.getValues<bool>()[0];
  SmallVector<Value> outs;
  if (failed(n.inlineSubgraph(taken ? *thenBranch : *elseBranch,
                              taken ? "then_branch" : "else_branch", outs)))
    return failure();
  int used = 0;
  for (int i = 0; i < n.node_().output_size(); ++i)
    if (!n.node_().output(i).empty())
      used = i + 1;
  if ((int)outs.size() < used)
    return n.fail(std::string(taken ? "then_branch" : "else_branch") +
                  " has " + std::to_string(outs.size()) +
                  " outputs but the node has " +
                  std::to_string(n.node_().output_size()));
  for (Value v : outs)
    if (!isa<RankedTensorType>(v.getType()))
      return n.fail("a branch output is not a ranked tensor");
  return n.setResults(outs);
}


/// Most iterations a Loop or Scan is unrolled into.
constexpr int64_t kMaxIterations = 4096;

/// The one value of a constant scalar (bool or integer), or nullopt.
std::optional<int64_t> constScalar(Value v) {
  DenseElementsAttr a = v ? getConstantDense(v) : DenseElementsAttr();
  if (!a || a.getNumElements() != 1)
    return std::nullopt;
  if (a.getElementType().isInteger(1))
    return a.getValues<bool>()[0] ? 1 : 0;
  if (!isa<IntegerType>(a.getElementType()))
    return std::nullopt;
  return a.getValues<APInt>()[0].getSExtValue();
}

/// `values` (equal types) stacked along a new axis `axis`.
Value stack(NodeContext &n, ArrayRef<Value> values, int64_t axis) {
  OpBuilder &b = n.builder();
  SmallVector<Value> parts;
  for (Value v : values)
    parts.push_back(n.create<UnsqueezeOp>(v, b.getDenseI64ArrayAttr({axis})));
  if (parts.size() == 1)
    return parts.front();
  return n.create<ConcatOp>(parts, b.getI64IntegerAttr(axis));
}

/// Slice `t` of `v` along `axis`, the axis dropped.
Value sliceAt(NodeContext &n, Value v, int64_t t, int64_t axis) {
  Value index = n.constSplat(
      RankedTensorType::get({}, n.builder().getI64Type()), (double)t);
  return n.create<GatherOp>(v, index, n.builder().getI64IntegerAttr(axis));
}

/// Checks that `body` takes `inputs` and gives at least `minOutputs`.
LogicalResult checkBody(NodeContext &n, const onnx::GraphProto &body,
                        int inputs, int minOutputs) {
  if (body.input_size() != inputs)
    return n.fail("body takes " + std::to_string(body.input_size()) +
                  " inputs; this node gives it " + std::to_string(inputs));
  if (body.output_size() < minOutputs)
    return n.fail("body has " + std::to_string(body.output_size()) +
                  " outputs; this node needs at least " +
                  std::to_string(minOutputs));
  return success();
}

/// Loop (1, 11, 13, 16, 19: they differ in the types the body may carry).
LogicalResult importLoop(NodeContext &n) {
  const onnx::GraphProto *body = n.attrGraph("body");
  if (!body)
    return n.fail("needs graph attribute 'body'");
  if (n.numInputs() < 2)
    return n.fail("needs inputs M and cond (either may be empty)");
  Value trip = n.optionalInput(0), cond = n.optionalInput(1);
  SmallVector<Value> carried;
  for (int i = 2; i < n.numInputs(); ++i)
    carried.push_back(n.input(i));
  if (n.hadError())
    return failure();
  int numCarried = carried.size();
  if (failed(checkBody(n, *body, 2 + numCarried, 1 + numCarried)))
    return failure();
  int numScans = body->output_size() - 1 - numCarried;
  const std::string because =
      "kiln unrolls loops at build time (plans are static)";
  std::optional<int64_t> trips;
  if (trip) {
    trips = constScalar(trip);
    if (!trips)
      return failRunTime(n, trip, "trip count '" + n.node_().input(0) + "'",
                         because);
  }
  std::optional<int64_t> go = 1;
  if (cond) {
    go = constScalar(cond);
    if (!go)
      return failRunTime(n, cond, "condition '" + n.node_().input(1) + "'",
                         because);
  }
  if (!trip && !cond)
    return n.fail("has neither a trip count nor a condition: it would never "
                  "end");
  OpBuilder &b = n.builder();
  auto i64 = RankedTensorType::get({}, b.getI64Type());
  auto i1 = RankedTensorType::get({}, b.getI1Type());
  SmallVector<SmallVector<Value>> scans(numScans);
  int64_t i = 0;
  for (; (!trips || i < *trips) && *go; ++i) {
    if (i == kMaxIterations)
      return n.fail("runs more than " + std::to_string(kMaxIterations) +
                    " iterations; kiln unrolls loops and stops there");
    SmallVector<Value> ins = {n.constSplat(i64, (double)i),
                              n.constSplat(i1, 1)};
    llvm::append_range(ins, carried);
    SmallVector<Value> outs;
    if (failed(n.inlineSubgraph(*body, "body/" + std::to_string(i), outs,
                                ins)))
      return failure();
    for (int k = 0; k < numCarried; ++k)
      carried[k] = outs[1 + k];
    for (int k = 0; k < numScans; ++k)
      scans[k].push_back(outs[1 + numCarried + k]);
    if (cond) {
      go = constScalar(outs[0]);
      if (!go)
        return failRunTime(n, outs[0],
                           "the body's condition output in iteration " +
                               std::to_string(i),
                           because);
    }
  }
  SmallVector<Value> results(carried);
  for (int k = 0; k < numScans; ++k) {
    if (scans[k].empty())
      return n.fail("runs no iteration, so its scan output " +
                    std::to_string(k) +
                    " would be empty; kiln builds no empty tensors");
    for (Value v : scans[k])
      if (v.getType() != scans[k].front().getType())
        return n.fail("scan output " + std::to_string(k) +
                      " changes its shape between iterations");
    results.push_back(stack(n, scans[k], 0));
  }
  return n.setResults(results);
}

/// The scan of `states` and `scanIns` (no batch axis): each iteration's body
/// gets the states and a slice of each scan input; `results` gets the final
/// states, then the scan outputs.
LogicalResult runScan(NodeContext &n, const onnx::GraphProto &body,
                      SmallVector<Value> states, ArrayRef<Value> scanIns,
                      ArrayRef<int64_t> inAxes, ArrayRef<int64_t> inDirs,
                      ArrayRef<int64_t> outAxes, ArrayRef<int64_t> outDirs,
                      const std::string &scope,
                      SmallVectorImpl<Value> &results) {
  int numStates = states.size(), numScanIns = scanIns.size();
  int numScans = body.output_size() - numStates;
  int64_t steps = -1;
  for (auto [j, v] : llvm::enumerate(scanIns)) {
    RankedTensorType t = n.typeOf(v);
    if (t.isDynamicDim(inAxes[j]))
      return n.fail("scan input " + std::to_string(j) +
                    " has a dynamic extent along its scan axis; kiln unrolls "
                    "scans at build time: give static shapes with kilnc "
                    "--input-shape NAME=DIMS");
    int64_t len = t.getDimSize(inAxes[j]);
    if (steps >= 0 && len != steps)
      return n.fail("scan inputs have different lengths (" +
                    std::to_string(steps) + " and " + std::to_string(len) +
                    ")");
    steps = len;
  }
  if (steps <= 0)
    return n.fail("scans no element; kiln builds no empty scan outputs");
  if (steps > kMaxIterations)
    return n.fail("scans " + std::to_string(steps) + " elements; kiln "
                  "unrolls scans and stops at " +
                  std::to_string(kMaxIterations));
  SmallVector<SmallVector<Value>> scans(numScans);
  for (int64_t t = 0; t < steps; ++t) {
    SmallVector<Value> ins(states);
    for (int j = 0; j < numScanIns; ++j)
      ins.push_back(
          sliceAt(n, scanIns[j], inDirs[j] ? steps - 1 - t : t, inAxes[j]));
    SmallVector<Value> outs;
    if (failed(n.inlineSubgraph(body, scope + "/" + std::to_string(t), outs,
                                ins)))
      return failure();
    for (int k = 0; k < numStates; ++k)
      states[k] = outs[k];
    for (int k = 0; k < numScans; ++k)
      scans[k].push_back(outs[numStates + k]);
  }
  results.assign(states.begin(), states.end());
  for (int k = 0; k < numScans; ++k) {
    SmallVector<Value> &vs = scans[k];
    for (Value v : vs)
      if (v.getType() != vs.front().getType())
        return n.fail("scan output " + std::to_string(k) +
                      " changes its shape between iterations");
    if (outDirs[k])
      std::reverse(vs.begin(), vs.end());
    int64_t rank = n.typeOf(vs.front()).getRank() + 1;
    std::optional<int64_t> axis = n.normalizeAxis(outAxes[k], rank);
    if (!axis)
      return failure();
    results.push_back(stack(n, vs, *axis));
  }
  return success();
}

/// The ints of attribute `name`, `count` of them (default all zeros), or
/// nullopt after an error.
std::optional<SmallVector<int64_t>> perScan(NodeContext &n, StringRef name,
                                            int count) {
  std::optional<SmallVector<int64_t>> v = n.attrInts(name);
  if (n.hadError())
    return std::nullopt;
  if (!v)
    return SmallVector<int64_t>(count, 0);
  if ((int)v->size() != count) {
    (void)n.fail("attribute '" + name.str() + "' has " +
                 std::to_string(v->size()) + " entries; expected " +
                 std::to_string(count));
    return std::nullopt;
  }
  return v;
}

/// Scan (9, 11, 16, 19; 8: a batch axis first).
LogicalResult importScan(NodeContext &n) {
  const onnx::GraphProto *body = n.attrGraph("body");
  if (!body)
    return n.fail("needs graph attribute 'body'");
  int64_t numScanIns = n.attrInt("num_scan_inputs", -1);
  if (n.hadError())
    return failure();
  bool batched = n.getOpset() < 9;
  int first = batched ? 1 : 0; // Scan-8's optional sequence_lens
  int numStates = n.numInputs() - first - numScanIns;
  if (numScanIns < 1 || numStates < 0)
    return n.fail("needs attribute 'num_scan_inputs' between 1 and its " +
                  std::to_string(n.numInputs() - first) + " inputs");
  if (batched && n.hasInput(0))
    return n.fail("has sequence lengths (input 'sequence_lens'); kiln scans "
                  "every batch entry to the full length only");
  SmallVector<Value> ins;
  for (int i = first; i < n.numInputs(); ++i)
    ins.push_back(n.input(i));
  if (n.hadError())
    return failure();
  if (failed(checkBody(n, *body, numStates + numScanIns, numStates)))
    return failure();
  int numScans = body->output_size() - numStates;
  SmallVector<Value> states(ins.begin(), ins.begin() + numStates);
  SmallVector<Value> scanIns(ins.begin() + numStates, ins.end());
  std::optional<SmallVector<int64_t>> inDirs = perScan(
      n, batched ? "directions" : "scan_input_directions", numScanIns);
  std::optional<SmallVector<int64_t>> inAxes =
      batched ? SmallVector<int64_t>(numScanIns, 0)
              : perScan(n, "scan_input_axes", numScanIns);
  std::optional<SmallVector<int64_t>> outAxes =
      batched ? SmallVector<int64_t>(numScans, 0)
              : perScan(n, "scan_output_axes", numScans);
  std::optional<SmallVector<int64_t>> outDirs =
      batched ? SmallVector<int64_t>(numScans, 0)
              : perScan(n, "scan_output_directions", numScans);
  if (!inDirs || !inAxes || !outAxes || !outDirs)
    return failure();
  // Scan axes of the inputs as given (Scan-8: the axis after the batch).
  for (auto [j, v] : llvm::enumerate(scanIns)) {
    std::optional<int64_t> a =
        n.normalizeAxis((*inAxes)[j], n.typeOf(v).getRank() - (batched ? 1 : 0));
    if (!a)
      return failure();
    (*inAxes)[j] = *a;
  }
  if (!batched) {
    SmallVector<Value> results;
    if (failed(runScan(n, *body, states, scanIns, *inAxes, *inDirs, *outAxes,
                       *outDirs, "body", results)))
      return failure();
    return n.setResults(results);
  }
  // Scan-8: the scan of each batch entry, the results stacked along axis 0.
  int64_t batch = -1;
  for (Value v : ins) {
    RankedTensorType t = n.typeOf(v);
    if (t.getRank() < 1 || t.isDynamicDim(0))
      return n.fail("needs a static batch axis 0 on every input");
    if (batch >= 0 && t.getDimSize(0) != batch)
      return n.fail("inputs have different batch sizes");
    batch = t.getDimSize(0);
  }
  SmallVector<SmallVector<Value>> perEntry(numStates + numScans);
  for (int64_t e = 0; e < batch; ++e) {
    SmallVector<Value> entryStates, entryScans, results;
    for (Value v : states)
      entryStates.push_back(sliceAt(n, v, e, 0));
    for (Value v : scanIns)
      entryScans.push_back(sliceAt(n, v, e, 0));
    if (failed(runScan(n, *body, entryStates, entryScans, *inAxes, *inDirs,
                       *outAxes, *outDirs,
                       "body/batch" + std::to_string(e), results)))
      return failure();
    for (auto [k, v] : llvm::enumerate(results))
      perEntry[k].push_back(v);
  }
  SmallVector<Value> results;
  for (auto &vs : perEntry)
    results.push_back(stack(n, vs, 0));
  return n.setResults(results);
}

} // namespace

void registerControlFlowHandlers(HandlerRegistry &r) {
  r.add("If", 1, importIf);
  r.add("Loop", 1, importLoop);
  r.add("Scan", 8, importScan);
}

} // namespace kiln::onnx_import
