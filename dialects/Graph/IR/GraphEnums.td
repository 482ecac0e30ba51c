//===- GraphEnums.td - kiln graph dialect enum attributes ---*- tablegen -*-===//
//
// The closed sets of keywords that graph ops take as attributes (ONNX's string
// attributes that are really enums). Each prints as `#kiln.NAME<keyword>`; the
// keywords are ONNX's spelling, so the importer maps an ONNX string with
// `symbolize*` and reports anything else at the node.
//
//===----------------------------------------------------------------------===//

#ifndef KILN_GRAPH_ENUMS
#define KILN_GRAPH_ENUMS

include "dialects/Graph/IR/GraphDialect.td"
include "mlir/IR/EnumAttr.td"

/// An enum of `cases` with its attribute `#kiln.<mnemonic><keyword>`.
class Graph_Enum<string name, string summary, list<I32EnumAttrCase> cases>
    : I32EnumAttr<name, summary, cases> {
  let cppNamespace = "::kiln::graph";
  let genSpecializedAttr = 0;
}
class Graph_EnumAttr<EnumAttrInfo info, string mnemonic>
    : EnumAttr<Graph_Dialect, info, mnemonic> {
  let assemblyFormat = "`<` $value `>`";
}

def Graph_GeluApproximation : Graph_Enum<"GeluApproximation",
    "Gelu approximation (ONNX `approximate`)", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"Tanh", 1, "tanh">]>;
def Graph_GeluApproximationAttr
    : Graph_EnumAttr<Graph_GeluApproximation, "gelu_approximation">;

def Graph_BitShiftDirection : Graph_Enum<"BitShiftDirection",
    "BitShift direction", [
      I32EnumAttrCase<"Left", 0, "LEFT">,
      I32EnumAttrCase<"Right", 1, "RIGHT">]>;
def Graph_BitShiftDirectionAttr
    : Graph_EnumAttr<Graph_BitShiftDirection, "bit_shift_direction">;

def Graph_AutoPad : Graph_Enum<"AutoPad",
    "ONNX auto_pad left for run-time SAME padding (VALID is always resolved)", [
      I32EnumAttrCase<"NotSet", 0, "NOTSET">,
      I32EnumAttrCase<"SameUpper", 1, "SAME_UPPER">,
      I32EnumAttrCase<"SameLower", 2, "SAME_LOWER">]>;
def Graph_AutoPadAttr : Graph_EnumAttr<Graph_AutoPad, "auto_pad">;

def Graph_ScatterReduction : Graph_Enum<"ScatterReduction",
    "how a scatter combines an update with the element it lands on", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"Add", 1, "add">,
      I32EnumAttrCase<"Mul", 2, "mul">,
      I32EnumAttrCase<"Max", 3, "max">,
      I32EnumAttrCase<"Min", 4, "min">]>;
def Graph_ScatterReductionAttr
    : Graph_EnumAttr<Graph_ScatterReduction, "scatter_reduction">;

def Graph_PadMode : Graph_Enum<"PadMode", "what Pad writes outside the input", [
      I32EnumAttrCase<"Constant", 0, "constant">,
      I32EnumAttrCase<"Reflect", 1, "reflect">,
      I32EnumAttrCase<"Edge", 2, "edge">,
      I32EnumAttrCase<"Wrap", 3, "wrap">]>;
def Graph_PadModeAttr : Graph_EnumAttr<Graph_PadMode, "pad_mode">;

def Graph_InterpolationMode : Graph_Enum<"InterpolationMode",
    "interpolation of Resize and GridSample", [
      I32EnumAttrCase<"Nearest", 0, "nearest">,
      I32EnumAttrCase<"Linear", 1, "linear">,
      I32EnumAttrCase<"Cubic", 2, "cubic">]>;
def Graph_InterpolationModeAttr
    : Graph_EnumAttr<Graph_InterpolationMode, "interpolation_mode">;

def Graph_CoordinateTransformationMode : Graph_Enum<
    "CoordinateTransformationMode",
    "Resize's map from output to input coordinates (no tf_crop_and_resize)", [
      I32EnumAttrCase<"HalfPixel", 0, "half_pixel">,
      I32EnumAttrCase<"HalfPixelSymmetric", 1, "half_pixel_symmetric">,
      I32EnumAttrCase<"PytorchHalfPixel", 2, "pytorch_half_pixel">,
      I32EnumAttrCase<"AlignCorners", 3, "align_corners">,
      I32EnumAttrCase<"Asymmetric", 4, "asymmetric">,
      I32EnumAttrCase<"TfHalfPixelForNn", 5, "tf_half_pixel_for_nn">]>;
def Graph_CoordinateTransformationModeAttr
    : Graph_EnumAttr<Graph_CoordinateTransformationMode,
                     "coordinate_transformation_mode">;

def Graph_NearestMode : Graph_Enum<"NearestMode",
    "Resize's rounding of a coordinate to the nearest pixel", [
      I32EnumAttrCase<"RoundPreferFloor", 0, "round_prefer_floor">,
      I32EnumAttrCase<"RoundPreferCeil", 1, "round_prefer_ceil">,
      I32EnumAttrCase<"Floor", 2, "floor">,
      I32EnumAttrCase<"Ceil", 3, "ceil">]>;
def Graph_NearestModeAttr : Graph_EnumAttr<Graph_NearestMode, "nearest_mode">;

def Graph_GridSamplePaddingMode : Graph_Enum<"GridSamplePaddingMode",
    "what GridSample reads outside the image", [
      I32EnumAttrCase<"Zeros", 0, "zeros">,
      I32EnumAttrCase<"Border", 1, "border">,
      I32EnumAttrCase<"Reflection", 2, "reflection">]>;
def Graph_GridSamplePaddingModeAttr
    : Graph_EnumAttr<Graph_GridSamplePaddingMode, "grid_sample_padding_mode">;

def Graph_DepthToSpaceMode : Graph_Enum<"DepthToSpaceMode",
    "DepthToSpace channel order: depth-column-row or column-row-depth", [
      I32EnumAttrCase<"DCR", 0, "DCR">,
      I32EnumAttrCase<"CRD", 1, "CRD">]>;
def Graph_DepthToSpaceModeAttr
    : Graph_EnumAttr<Graph_DepthToSpaceMode, "depth_to_space_mode">;

#endif // KILN_GRAPH_ENUMS
