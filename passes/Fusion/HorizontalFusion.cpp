//===- HorizontalFusion.cpp - sibling matmuls/convs with one input as one -===//
//
// kiln-fuse-sibling-matmuls and kiln-fuse-sibling-convs: see
// passes/Passes.td.
//
//===----------------------------------------------------------------------===//
#include "passes/Passes.h"

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

#include <optional>

namespace kiln::graph {
#define GEN_PASS_DEF_FUSESIBLINGMATMULSPASS
#define GEN_PASS_DEF_FUSESIBLINGCONVSPASS
#include "passes/Passes.h.inc"
} // namespace kiln::graph

using namespace mlir;
using namespace kiln::graph;

namespace {

/// The constants `parts` (equal types) stacked along a new leading dim, as
/// one constant marked kiln.stack_parts = G: the plan stores each part as
/// its own weight buffer, back to back, so that the parts stay tensors of
/// the model (weight stripping and kiln-refit see them one by one).
Value stack(OpBuilder &b, Location loc, MutableArrayRef<ConstantOp> parts,
            RankedTensorType stackedType) {
  std::vector<char> data;
  for (ConstantOp &c : parts) {
    std::optional<ArrayRef<char>> raw = rawElements(c.getValue());
    data.insert(data.end(), raw->begin(), raw->end());
  }
  auto cst = ConstantOp::create(
      b, loc, stackedType,
      elementsLike(parts.front().getValue(), stackedType, data, "_stacked"));
  cst->setAttr(kStackPartsAttr, b.getI64IntegerAttr(parts.size()));
  return cst;
}

/// The bytes of a constant's elements, a splat's repeated; none for other
/// attributes.
std::optional<std::vector<char>> bytesOf(ConstantOp c) {
  if (std::optional<ArrayRef<char>> raw = rawElements(c.getValue()))
    return std::vector<char>(raw->begin(), raw->end());
  auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
  auto type = dyn_cast<RankedTensorType>(c.getType());
  if (!dense || !dense.isSplat() || !type || !type.hasStaticShape() ||
      type.getElementTypeBitWidth() % 8 != 0)
    return std::nullopt;
  ArrayRef<char> one = dense.getRawData();
  if (one.size() * 8 != type.getElementTypeBitWidth())
    return std::nullopt;
  std::vector<char> out;
  out.reserve(one.size() * type.getNumElements());
  for (int64_t i = 0; i < type.getNumElements(); ++i)
    out.insert(out.end(), one.begin(), one.end());
  return out;
}

/// The constants `parts` (equal types but for the leading dim) concatenated
/// along their leading dim into `type`. Each part a tensor of the model
/// (no splat) and a multiple of the plans' 64-byte weight alignment: marked
/// kiln.stack_parts = [leading dims] (a plan stores the parts back to back
/// as the model's tensors). Otherwise kiln.derived (stored whole, never
/// stripped: refit could not find it).
Value concatenate(OpBuilder &b, Location loc, ArrayRef<ConstantOp> parts,
                  RankedTensorType type) {
  std::vector<char> data;
  SmallVector<int64_t> rows;
  bool modelTensors = true;
  for (ConstantOp c : parts) {
    std::optional<std::vector<char>> bytes = bytesOf(c);
    data.insert(data.end(), bytes->begin(), bytes->end());
    rows.push_back(cast<RankedTensorType>(c.getType()).getDimSize(0));
    modelTensors = modelTensors && bytes->size() % 64 == 0 &&
                   rawElements(c.getValue()) && !c->hasAttr("kiln.derived");
  }
  ConstantOp front = parts.front();
  auto cst = ConstantOp::create(
      b, loc, type, elementsLike(front.getValue(), type, data, "_cat"));
  if (modelTensors)
    cst->setAttr(kStackPartsAttr, b.getDenseI64ArrayAttr(rows));
  else
    cst->setAttr("kiln.derived", b.getUnitAttr());
  if (llvm::all_of(
          parts, [](ConstantOp c) { return c->hasAttr("kiln.tf32_rounded"); }))
    cst->setAttr("kiln.tf32_rounded", b.getUnitAttr());
  return cst;
}

Value shapeConstant(OpBuilder &b, Location loc, ArrayRef<int64_t> shape) {
  auto type = RankedTensorType::get({int64_t(shape.size())}, b.getI64Type());
  return ConstantOp::create(b, loc, type, DenseElementsAttr::get(type, shape));
}

/// A constant operand whose bytes stack() can read.
ConstantOp stackable(Value v) {
  auto cst = v.getDefiningOp<ConstantOp>();
  if (!cst || !rawElements(cst.getValue()))
    return {};
  auto type = dyn_cast<RankedTensorType>(cst.getType());
  return type && type.hasStaticShape() ? cst : ConstantOp();
}

/// Erases the ops of `ops` (each listed once) that nothing uses any more.
void eraseUnused(const llvm::SetVector<Operation *> &ops) {
  for (Operation *op : ops)
    if (op->use_empty())
      op->erase();
}

/// The bias of `mm`'s only reader when that is `add(mm, c)` (either order)
/// with `c` a constant of N elements along the last dim; none otherwise.
std::pair<AddOp, ConstantOp> biasOf(MatMulOp mm, int64_t n) {
  if (!mm->hasOneUse())
    return {};
  auto add = dyn_cast<AddOp>(*mm->user_begin());
  if (!add || add.getType() != mm.getType())
    return {};
  Value other = add.getLhs() == mm.getResult() ? add.getRhs() : add.getLhs();
  ConstantOp c = stackable(other);
  if (!c)
    return {};
  auto t = cast<RankedTensorType>(c.getType());
  if (t.getNumElements() != n || t.getRank() == 0 || t.getShape().back() != n ||
      t.getRank() > mm.getType().getRank())
    return {};
  return {add, c};
}

/// Rewrites `group` (matmuls of one left-hand side, constant right-hand
/// sides of one type [K, N]) into one batched matmul.
void fuse(MutableArrayRef<MatMulOp> group, FuseSiblingMatmulsStats &stats) {
  MatMulOp first = group.front();
  OpBuilder b(first);
  Location loc = first.getLoc();
  auto xType = cast<RankedTensorType>(first.getLhs().getType());
  auto wType = cast<RankedTensorType>(first.getRhs().getType());
  auto yType = cast<RankedTensorType>(first.getType());
  int64_t g = group.size(), k = wType.getDimSize(0), n = wType.getDimSize(1);
  int64_t rows = xType.getNumElements() / k;
  Type elem = yType.getElementType();

  SmallVector<ConstantOp> weights, biases;
  SmallVector<AddOp> adds;
  for (MatMulOp &mm : group) {
    weights.push_back(mm.getRhs().getDefiningOp<ConstantOp>());
    auto [add, bias] = biasOf(mm, n);
    if (add) {
      adds.push_back(add);
      biases.push_back(bias);
    }
  }
  // Every bias folds (same type), or none does.
  bool withBias =
      int64_t(adds.size()) == g && llvm::all_of(biases, [&](ConstantOp c) {
        return c.getType() == biases.front().getType();
      });

  Value x = first.getLhs();
  if (xType.getRank() != 2)
    x = ReshapeOp::create(b, loc, RankedTensorType::get({rows, k}, elem), x,
                          shapeConstant(b, loc, {rows, k}),
                          b.getBoolAttr(false));
  Value w = stack(b, loc, weights, RankedTensorType::get({g, k, n}, elem));
  auto stackedType = RankedTensorType::get({g, rows, n}, elem);
  Value y = MatMulOp::create(b, loc, stackedType, x, w);
  if (withBias) {
    Value bias = stack(b, loc, biases, RankedTensorType::get({g, 1, n}, elem));
    y = AddOp::create(b, loc, stackedType, y, bias);
  }
  auto one = [&](int64_t v) { return shapeConstant(b, loc, {v}); };
  for (int64_t i = 0; i < g; ++i) {
    Value part =
        SliceOp::create(b, loc, RankedTensorType::get({1, rows, n}, elem), y,
                        one(i), one(i + 1), one(0), one(1));
    Value out = ReshapeOp::create(b, loc, yType, part,
                                  shapeConstant(b, loc, yType.getShape()),
                                  b.getBoolAttr(false));
    Operation *old =
        withBias ? adds[i].getOperation() : group[i].getOperation();
    old->getResult(0).replaceAllUsesWith(out);
  }
  for (int64_t i = 0; i < g; ++i) {
    if (withBias)
      adds[i]->erase();
    group[i]->erase();
  }
  // The old constants, each once (two matmuls may share one).
  llvm::SetVector<Operation *> constants;
  for (ConstantOp c : weights)
    constants.insert(c);
  if (withBias)
    for (ConstantOp c : biases)
      constants.insert(c);
  eraseUnused(constants);
  ++stats.groups;
  stats.matmuls += g;
  stats.biases += withBias ? g : 0;
}

/// One of the sibling convs: the conv, the single-use batch norms with
/// constant per-channel parameters after it, the single-use same-type
/// unary ops after those (its activation: relu, clip, ...), and the value
/// they end in.
struct ConvPart {
  ConvOp conv;
  SmallVector<BatchNormOp> norms;
  SmallVector<Operation *> tail;
  Value end;
};

bool isUnary(Operation *op) {
  return isa_and_nonnull<GraphDialect>(op->getDialect()) &&
         op->getNumOperands() == 1 && op->getNumResults() == 1 &&
         op->getNumRegions() == 0 &&
         op->getResult(0).getType() == op->getOperand(0).getType() &&
         isPure(op);
}

/// A constant of `channels` elements along one dim (rank 1), whose bytes
/// concatenate() can read.
bool perChannel(Value v, int64_t channels) {
  auto c = v.getDefiningOp<ConstantOp>();
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return c && type && type.getRank() == 1 && type.getDimSize(0) == channels &&
         bytesOf(c);
}

ConvPart partOf(ConvOp conv, int64_t channels) {
  ConvPart p{conv, {}, {}, conv.getResult()};
  while (p.end.hasOneUse()) {
    Operation *user = *p.end.getUsers().begin();
    if (user->getBlock() != conv->getBlock())
      break;
    auto bn = dyn_cast<BatchNormOp>(user);
    if (bn && p.tail.empty() && bn.getInput() == p.end &&
        bn.getType() == p.end.getType() &&
        llvm::all_of(bn->getOperands().drop_front(),
                     [&](Value v) { return perChannel(v, channels); })) {
      p.norms.push_back(bn);
    } else if (isUnary(user)) {
      p.tail.push_back(user);
    } else {
      break;
    }
    p.end = user->getResult(0);
  }
  return p;
}

/// The slope of a piecewise-linear activation chain (x if x >= 0 else
/// slope * x): 1 for none, 0 for relu, alpha for leaky_relu.
std::optional<double> slopeOf(ArrayRef<Operation *> tail) {
  if (tail.empty())
    return 1.0;
  if (tail.size() != 1)
    return std::nullopt;
  if (isa<ReluOp>(tail[0]))
    return 0.0;
  if (auto leaky = dyn_cast<LeakyReluOp>(tail[0]))
    return leaky.getAlpha().convertToDouble();
  return std::nullopt;
}

bool sameTail(ArrayRef<Operation *> a, ArrayRef<Operation *> b) {
  if (a.size() != b.size())
    return false;
  for (auto [x, y] : llvm::zip(a, b))
    if (x->getName() != y->getName() ||
        x->getAttrDictionary() != y->getAttrDictionary())
      return false;
  return true;
}

/// `conv` as a sibling conv: a plain 2-D conv (no groups, explicit pads)
/// with a constant filter that can stack (and bias, if any) whose result,
/// after its activation, has one reader that will read a slice of the fused
/// result in place (readsSliceInPlace: a conv's image, an elementwise op).
std::optional<ConvPart> candidate(ConvOp conv, Block *body) {
  auto x = dyn_cast<RankedTensorType>(conv.getInput().getType());
  auto y = dyn_cast<RankedTensorType>(conv.getType());
  ConstantOp f = stackable(conv.getFilter());
  if (conv->getBlock() != body || !x || !y || !x.hasStaticShape() ||
      !y.hasStaticShape() || x.getRank() != 4 || conv.getGroup() != 1 ||
      conv.getAutoPad() != AutoPad::NotSet || !f ||
      f->hasAttr("kiln.derived") || rawElements(f.getValue())->size() % 64 != 0)
    return std::nullopt;
  if (Value bias = conv.getBias()) {
    ConstantOp c = stackable(bias);
    if (!c || c->hasAttr("kiln.derived"))
      return std::nullopt;
  }
  ConvPart part = partOf(conv, y.getDimSize(conv.getChannelsLast() ? 3 : 1));
  if (!part.end.hasOneUse() ||
      !readsSliceInPlace(*part.end.getUsers().begin(), part.end))
    return std::nullopt;
  return part;
}

/// Whether `a` and `b` compute the same kind of conv of one input: filters
/// of one type but for the output channels, both with a bias or neither,
/// and alike batch norms after them.
bool sameGeometry(const ConvPart &pa, const ConvPart &pb) {
  ConvOp a = pa.conv, b = pb.conv;
  auto fa = cast<RankedTensorType>(a.getFilter().getType());
  auto fb = cast<RankedTensorType>(b.getFilter().getType());
  if (pa.norms.size() != pb.norms.size())
    return false;
  // Parameters of one element type (their lengths are the parts').
  auto elems = [](BatchNormOp bn) {
    SmallVector<Type> types;
    for (Value v : bn->getOperands().drop_front())
      types.push_back(getElementTypeOrSelf(v));
    return types;
  };
  for (auto [x, y] : llvm::zip(pa.norms, pb.norms))
    if (x->getAttrDictionary() != y->getAttrDictionary() ||
        elems(x) != elems(y))
      return false;
  return a.getInput() == b.getInput() &&
         fa.getElementType() == fb.getElementType() &&
         fa.getShape().drop_front() == fb.getShape().drop_front() &&
         a.getStrides() == b.getStrides() && a.getPads() == b.getPads() &&
         a.getDilations() == b.getDilations() &&
         a.getChannelsLast() == b.getChannelsLast() &&
         bool(a.getBias()) == bool(b.getBias());
}

/// Sibling convs that fuse: one geometry, and either one activation chain
/// for all or piecewise-linear ones (each its own slope).
struct ConvGroup {
  SmallVector<ConvPart> parts;
  bool sameTails = true, sloped = true;

  bool admits(const ConvPart &p) const {
    if (!sameGeometry(parts.front(), p))
      return false;
    return sameTail(parts.front().tail, p.tail) || (sloped && slopeOf(p.tail));
  }
  void add(ConvPart p) {
    if (!parts.empty()) {
      sameTails = sameTails && sameTail(parts.front().tail, p.tail);
      sloped = sloped && slopeOf(p.tail).has_value();
    } else {
      sloped = slopeOf(p.tail).has_value();
    }
    parts.push_back(std::move(p));
  }
};

/// Whether running `group` as one conv should be faster. The fused GEMM has
/// the parts' rows and the sum of their columns, which the tensor-core
/// tiles pad to 64 (up to 64 columns) or to a multiple of 128. A GEMM of at
/// most about one wave of 128x128 tiles on a large GPU (2^21 outputs) is
/// bound by its latency: one launch instead of several pays (ResNet-50's
/// first bottleneck at batch 1, GoogLeNet at batch 1: 0.286 -> 0.261 ms on
/// an H200). A larger one must not pad more columns than the parts did
/// (ResNet-50 b64: 64 + 256 columns as 320 pad to 384 and ran 1 % slower;
/// GoogLeNet's 96 + 16 as 112 pad to 128 instead of 192).
bool pays(ConvGroup &group) {
  auto padded = [](int64_t n) { return n <= 64 ? 64 : (n + 127) / 128 * 128; };
  auto type = cast<RankedTensorType>(group.parts.front().conv.getType());
  int64_t axis = group.parts.front().conv.getChannelsLast() ? 3 : 1;
  int64_t rows = type.getNumElements() / type.getDimSize(axis);
  int64_t columns = 0, partsPadded = 0;
  for (ConvPart &p : group.parts) {
    int64_t n = cast<RankedTensorType>(p.conv.getType()).getDimSize(axis);
    columns += n;
    partsPadded += padded(n);
  }
  return rows * columns <= (int64_t(1) << 21) || padded(columns) < partsPadded;
}

/// Rewrites `group` into one conv with the filters (and biases)
/// concatenated along the output channels, its activation (the common
/// chain, or a prelu with each part's slope per channel), and a slice of
/// that per old result.
void fuse(ConvGroup &group, FuseSiblingConvsStats &stats) {
  ConvOp first = group.parts.front().conv;
  OpBuilder b(first);
  SmallVector<Location> locs;
  for (ConvPart &p : group.parts)
    locs.push_back(p.conv.getLoc());
  Location loc = b.getFusedLoc(locs);
  auto yType = cast<RankedTensorType>(first.getType());
  auto fType = cast<RankedTensorType>(first.getFilter().getType());
  Type elem = yType.getElementType();
  int64_t axis = first.getChannelsLast() ? 3 : 1;

  SmallVector<ConstantOp> filters, biases;
  SmallVector<int64_t> channels;
  int64_t m = 0;
  for (ConvPart &p : group.parts) {
    filters.push_back(p.conv.getFilter().getDefiningOp<ConstantOp>());
    if (Value bias = p.conv.getBias())
      biases.push_back(bias.getDefiningOp<ConstantOp>());
    channels.push_back(
        cast<RankedTensorType>(p.conv.getType()).getDimSize(axis));
    m += channels.back();
  }
  SmallVector<int64_t> fShape(fType.getShape());
  fShape[0] = m;
  Value filter =
      concatenate(b, loc, filters, RankedTensorType::get(fShape, elem));
  Value bias;
  if (!biases.empty())
    bias = concatenate(b, loc, biases, RankedTensorType::get({m}, elem));
  SmallVector<int64_t> shape(yType.getShape());
  shape[axis] = m;
  auto fusedType = RankedTensorType::get(shape, elem);
  Value y = ConvOp::create(b, loc, fusedType, first.getInput(), filter, bias,
                           first.getStridesAttr(), first.getPadsAttr(),
                           first.getDilationsAttr(), first.getGroupAttr(),
                           first.getAutoPadAttr(), first.getChannelsLastAttr());
  // The batch norms, their parameters concatenated.
  for (size_t j = 0; j < group.parts.front().norms.size(); ++j) {
    BatchNormOp norm = group.parts.front().norms[j];
    SmallVector<Value> operands = {y};
    for (unsigned k = 1; k < norm->getNumOperands(); ++k) {
      SmallVector<ConstantOp> params;
      for (ConvPart &p : group.parts)
        params.push_back(p.norms[j]->getOperand(k).getDefiningOp<ConstantOp>());
      operands.push_back(concatenate(
          b, loc, params,
          RankedTensorType::get({m}, getElementTypeOrSelf(params.front()))));
    }
    Operation *copy = b.clone(*norm);
    copy->setOperands(operands);
    copy->getResult(0).setType(fusedType);
    y = copy->getResult(0);
  }
  if (group.sameTails) {
    for (Operation *op : group.parts.front().tail) {
      Operation *copy = b.clone(*op);
      copy->setOperand(0, y);
      copy->getResult(0).setType(fusedType);
      y = copy->getResult(0);
    }
  } else {
    // Per output channel: x if x >= 0 else slope * x.
    SmallVector<Attribute> slopes;
    for (auto [p, c] : llvm::zip(group.parts, channels))
      slopes.append(c, b.getFloatAttr(elem, *slopeOf(p.tail)));
    SmallVector<int64_t> slopeShape = {m};
    if (axis == 1)
      slopeShape.append({1, 1});
    auto slopeType = RankedTensorType::get(slopeShape, elem);
    auto slope = ConstantOp::create(b, loc, slopeType,
                                    DenseElementsAttr::get(slopeType, slopes));
    slope->setAttr("kiln.derived", b.getUnitAttr());
    y = PReluOp::create(b, loc, fusedType, y, slope);
    ++stats.mixedActivations;
  }
  auto one = [&](int64_t v) { return shapeConstant(b, loc, {v}); };
  int64_t offset = 0;
  for (auto [p, c] : llvm::zip(group.parts, channels)) {
    Value part = SliceOp::create(b, loc, p.end.getType(), y, one(offset),
                                 one(offset + c), one(axis), one(1));
    p.end.replaceAllUsesWith(part);
    offset += c;
  }
  // The old constants, each once (parts and parameters may share one).
  llvm::SetVector<Operation *> constants;
  for (ConvPart &p : group.parts) {
    for (Operation *op : llvm::reverse(p.tail))
      op->erase();
    for (BatchNormOp bn : llvm::reverse(p.norms)) {
      for (Value v : bn->getOperands().drop_front())
        constants.insert(v.getDefiningOp());
      bn->erase();
    }
    p.conv->erase();
  }
  for (ConstantOp c : filters)
    constants.insert(c);
  for (ConstantOp c : biases)
    constants.insert(c);
  eraseUnused(constants);
  ++stats.groups;
  stats.convs += group.parts.size();
}

struct FuseSiblingMatmulsPass
    : public kiln::graph::impl::FuseSiblingMatmulsPassBase<
          FuseSiblingMatmulsPass> {
  KILN_PASS_STATISTICS_FuseSiblingMatmulsPass using FuseSiblingMatmulsPassBase::
      FuseSiblingMatmulsPassBase;
  void runOnOperation() override {
    FuseSiblingMatmulsStats stats = fuseSiblingMatmuls(getOperation());
    numGroups += stats.groups;
    numMatmuls += stats.matmuls;
  }
};

struct FuseSiblingConvsPass
    : public kiln::graph::impl::FuseSiblingConvsPassBase<FuseSiblingConvsPass> {
  KILN_PASS_STATISTICS_FuseSiblingConvsPass using FuseSiblingConvsPassBase::
      FuseSiblingConvsPassBase;
  void runOnOperation() override {
    FuseSiblingConvsStats stats = fuseSiblingConvs(getOperation());
    numGroups += stats.groups;
    numConvs += stats.convs;
    numMixed += stats.mixedActivations;
  }
};

} // namespace

FuseSiblingMatmulsStats kiln::graph::fuseSiblingMatmuls(func::FuncOp func) {
  FuseSiblingMatmulsStats stats;
  if (func.getBody().empty())
    return stats;
  // Matmuls by left-hand side, in program order; within one, by the type
  // of the (constant) right-hand side.
  llvm::MapVector<std::pair<Value, Type>, SmallVector<MatMulOp>> groups;
  func.walk([&](MatMulOp mm) {
    auto x = dyn_cast<RankedTensorType>(mm.getLhs().getType());
    auto y = dyn_cast<RankedTensorType>(mm.getType());
    ConstantOp w = stackable(mm.getRhs());
    if (!x || !y || !w || !x.hasStaticShape() || !y.hasStaticShape() ||
        x.getRank() < 2 || cast<RankedTensorType>(w.getType()).getRank() != 2 ||
        mm->getBlock() != &func.getBody().front())
      return;
    groups[{mm.getLhs(), w.getType()}].push_back(mm);
  });
  for (auto &[key, group] : groups)
    if (group.size() >= 2)
      fuse(group, stats);
  return stats;
}

FuseSiblingConvsStats kiln::graph::fuseSiblingConvs(func::FuncOp func) {
  FuseSiblingConvsStats stats;
  if (func.getBody().empty())
    return stats;
  Block *body = &func.getBody().front();
  // Candidates by input, in program order, grouped greedily.
  llvm::MapVector<Value, SmallVector<ConvGroup>> byInput;
  for (Operation &op : *body) {
    auto conv = dyn_cast<ConvOp>(op);
    if (!conv)
      continue;
    std::optional<ConvPart> part = candidate(conv, body);
    if (!part)
      continue;
    SmallVector<ConvGroup> &groups = byInput[conv.getInput()];
    auto it = llvm::find_if(
        groups, [&](const ConvGroup &g) { return g.admits(*part); });
    if (it == groups.end()) {
      groups.emplace_back();
      it = std::prev(groups.end());
    }
    it->add(std::move(*part));
  }
  for (auto &[input, groups] : byInput)
    for (ConvGroup &group : groups)
      if (group.parts.size() >= 2 && pays(group))
        fuse(group, stats);
  return stats;
}
