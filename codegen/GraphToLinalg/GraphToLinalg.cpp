//===- GraphToLinalg.cpp - the kiln-convert-graph-to-linalg pass ----------===//
//
// The pass, the type conversion and the list of what is not lowered yet; the
// patterns live in one file per op family (Elementwise, Contraction,
// Reduction, DataMovement).
//
//===----------------------------------------------------------------------===//
#include "codegen/GraphToLinalg/GraphToLinalg.h"
#include "codegen/GraphToLinalg/LoweringUtils.h"

#include "dialects/Graph/IR/GraphDialect.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/ShapeUtils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/DenseSet.h"

namespace kiln::codegen {
#define GEN_PASS_DEF_CONVERTGRAPHTOLINALGPASS
#include "codegen/Passes.h.inc"
} // namespace kiln::codegen

using namespace mlir;
using namespace kiln::graph;
using namespace kiln::codegen;
using namespace kiln::codegen::detail;

//===----------------------------------------------------------------------===//
// What is not lowered yet
//===----------------------------------------------------------------------===//

static bool isCastableType(Type t) {
  return isa<IntegerType>(t) || t.isF16() || t.isBF16() || t.isF32() ||
         t.isF64();
}

std::optional<std::string> kiln::codegen::getUnsupportedReason(Operation *op) {
  if (isa<QuantizeLinearOp>(op) &&
      !isa<IntegerType>(getElementTypeOrSelf(op->getResult(0).getType())))
    return std::string("float8 results");
  if (isa<DequantizeLinearOp>(op) &&
      !isa<IntegerType>(getElementTypeOrSelf(op->getOperand(0).getType())))
    return std::string("float8 inputs");
  auto runTimePads = [](AutoPad autoPad) -> std::optional<std::string> {
    if (autoPad == AutoPad::NotSet)
      return std::nullopt;
    return ("auto_pad \"" + stringifyAutoPad(autoPad) +
            "\" needs padding computed at run time")
        .str();
  };
  if (auto conv = dyn_cast<ConvOp>(op)) {
    auto filterType = cast<RankedTensorType>(conv.getFilter().getType());
    if (llvm::any_of(filterType.getShape().drop_front(2),
                     ShapedType::isDynamic))
      return std::string("a filter of dynamic spatial size");
    return runTimePads(conv.getAutoPad());
  }
  if (auto pool = dyn_cast<MaxPoolOp>(op))
    return runTimePads(pool.getAutoPad());
  if (auto pool = dyn_cast<AvgPoolOp>(op))
    return runTimePads(pool.getAutoPad());
  if (auto resize = dyn_cast<ResizeOp>(op)) {
    if (resize.getMode() != InterpolationMode::Nearest &&
        !isa<FloatType>(getElementTypeOrSelf(resize.getInput().getType())))
      return ("mode \"" + stringifyInterpolationMode(resize.getMode()) +
              "\" on integer tensors")
          .str();
    return std::nullopt;
  }
  if (auto convT = dyn_cast<ConvTransposeOp>(op)) {
    auto filterType = cast<RankedTensorType>(convT.getFilter().getType());
    if (!filterType.hasStaticShape())
      return std::string("a filter of dynamic shape");
    return std::nullopt;
  }
  if (isa<ReduceL2Op, ReduceLogSumOp, ReduceLogSumExpOp>(op) &&
      !isa<FloatType>(getElementTypeOrSelf(op->getOperand(0).getType())))
    return std::string("integer element types (the result is a root or a "
                       "logarithm)");
  if (auto slice = dyn_cast<SliceOp>(op)) {
    if (!getConstantInts(slice.getAxes()))
      return std::string("axes that are not a constant");
    return std::nullopt;
  }
  if (auto castOp = dyn_cast<CastOp>(op)) {
    Type from = getElementTypeOrSelf(castOp.getInput().getType());
    Type to = getElementTypeOrSelf(castOp.getOutput().getType());
    if (!isCastableType(from) || !isCastableType(to))
      return std::string("cast to or from element types other than integers, "
                         "f16, bf16, f32 and f64");
    return std::nullopt;
  }
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

namespace {

/// kiln.constant -> arith.constant; unsigned element types are retyped to
/// signless with the same bits (resource blobs keep their handle).
struct ConstantLowering : OpConversionPattern<ConstantOp> {
  using OpConversionPattern::OpConversionPattern;

  LogicalResult
  matchAndRewrite(ConstantOp op, OpAdaptor /*adaptor*/,
                  ConversionPatternRewriter &rewriter) const override {
    RankedTensorType type = getResultType(*getTypeConverter(), op);
    Attribute value = op.getValue();
    if (cast<TypedAttr>(value).getType() != type) {
      if (auto dense = dyn_cast<DenseElementsAttr>(value))
        value = dense.bitcast(type.getElementType());
      else if (auto blob = dyn_cast<DenseResourceElementsAttr>(value))
        value = DenseResourceElementsAttr::get(type, blob.getRawHandle());
      else
        return rewriter.notifyMatchFailure(op, "unhandled elements attribute");
    }
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(op, type,
                                                   cast<TypedAttr>(value));
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Type conversion and pattern sets
//===----------------------------------------------------------------------===//

static Type toSignless(Type t) {
  if (auto it = dyn_cast<IntegerType>(t); it && !it.isSignless())
    return IntegerType::get(t.getContext(), it.getWidth());
  return t;
}

void kiln::codegen::populateGraphToLinalgTypeConversion(
    TypeConverter &converter) {
  // Conversions are tried last-added first: the identity is the fallback.
  converter.addConversion([](Type t) { return t; });
  converter.addConversion([](IntegerType t) { return toSignless(t); });
  converter.addConversion([](RankedTensorType t) -> Type {
    return t.clone(toSignless(t.getElementType()));
  });
  auto materialize = [](OpBuilder &b, Type type, ValueRange inputs,
                        Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, type, inputs)
        .getResult(0);
  };
  converter.addSourceMaterialization(materialize);
  converter.addTargetMaterialization(materialize);
}

void kiln::codegen::populateGraphToLinalgPatterns(
    const TypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<ConstantLowering>(converter, patterns.getContext());
  populateElementwisePatterns(converter, patterns);
  populateContractionPatterns(converter, patterns);
  populateReductionPatterns(converter, patterns);
  populateDataMovementPatterns(converter, patterns);
  populateQuantizationPatterns(converter, patterns);
}

void kiln::codegen::populateGraphToLinalgPatterns(RewritePatternSet &patterns) {
  static const TypeConverter *converter = [] {
    auto *c = new TypeConverter();
    populateGraphToLinalgTypeConversion(*c);
    return c;
  }();
  populateGraphToLinalgPatterns(*converter, patterns);
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

namespace {

struct ConvertGraphToLinalgPass
    : kiln::codegen::impl::ConvertGraphToLinalgPassBase<
          ConvertGraphToLinalgPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();

    TypeConverter converter;
    populateGraphToLinalgTypeConversion(converter);
    RewritePatternSet patterns(ctx);
    populateGraphToLinalgPatterns(converter, patterns);

    // Report every op that cannot be lowered, with its reason, before
    // converting: the conversion driver would only name the first one and
    // not say why. Ops without any pattern (added to the dialect after this
    // pass) are reported the same way.
    llvm::DenseSet<OperationName> lowered;
    for (const std::unique_ptr<RewritePattern> &p :
         patterns.getNativePatterns())
      if (std::optional<OperationName> root = p->getRootKind())
        lowered.insert(*root);
    bool unsupported = false;
    module.walk([&](Operation *op) {
      if (!isa<GraphDialect>(op->getDialect()))
        return;
      std::optional<std::string> reason = getUnsupportedReason(op);
      if (!reason && lowered.contains(op->getName()))
        return;
      InFlightDiagnostic diag = op->emitOpError(
          "is not supported by kiln-convert-graph-to-linalg yet");
      if (reason && !reason->empty())
        diag << ": " << *reason;
      unsupported = true;
    });
    if (unsupported)
      return signalPassFailure();

    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateReturnOpTypeConversionPattern(patterns, converter);
    populateCallOpTypeConversionPattern(patterns, converter);

    ConversionTarget target(*ctx);
    target.addIllegalDialect<GraphDialect>();
    target.addLegalDialect<arith::ArithDialect, linalg::LinalgDialect,
                           math::MathDialect, tensor::TensorDialect>();
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp f) {
      return converter.isSignatureLegal(f.getFunctionType()) &&
             converter.isLegal(&f.getBody());
    });
    target.addDynamicallyLegalOp<func::ReturnOp, func::CallOp>(
        [&](Operation *op) { return converter.isLegal(op); });
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
