//===- QdqModel.h - post-training quantization of ONNX models ---*- C++ -*-===//
//
// What `kilnc --precision int8 --calib DIR` does to the model before it is
// imported (issue: INT8 and FP8): find the layers to quantize (Conv, Gemm
// and MatMul of the main graph) and the activations they read, expose those
// activations as graph outputs for the calibration run, and, once every
// activation has its range, insert QuantizeLinear/DequantizeLinear pairs:
// per tensor for activations, per output channel for weights (symmetric,
// int8 zero points 0), as NVIDIA's quantization tools and ONNX Runtime's
// QDQ format place them. The result is an explicitly quantized model, the
// same kind of model a QAT export gives. Models travel as serialized
// ModelProto bytes so that no ONNX header leaks from here.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_QUANT_QDQMODEL_H
#define KILN_QUANT_QDQMODEL_H

#include <map>
#include <string>
#include <vector>

namespace kiln::quant {

/// A layer that int8 quantization covers.
struct QuantLayer {
  std::string node; ///< the node's name ("op#index" when it has none)
  std::string op;   ///< Conv, Gemm or MatMul
  size_t index = 0; ///< its place in the graph's node list
  /// The activations it reads (calibrated per tensor): input 0, and input 1
  /// of a MatMul whose B is not a weight.
  std::vector<std::string> activations;
  /// Its weight initializer ("" when B is computed: no weight to quantize)
  /// and the axis of its output channels (-1: one scale for the tensor).
  std::string weight;
  int weightAxis = -1;
};

/// The layers of the model's main graph, in node order. False with `error`
/// when the bytes are no ModelProto or the model has Q/DQ nodes already.
bool quantLayers(const std::string &model, std::vector<QuantLayer> &layers,
                 std::string &error);

/// The graph's inputs that are not initializers, in order: the inputs a
/// calibration sample gives (none when the bytes are no ModelProto).
std::vector<std::string> graphInputs(const std::string &model);

/// `model` with `tensors` appended to the graph's outputs (f32, shape left
/// to the importer's inference), for the calibration run.
bool withOutputs(const std::string &model,
                 const std::vector<std::string> &tensors, std::string &out,
                 std::string &error);

/// A weight's per-channel scales, as insertQdq set them (for the report).
struct WeightScales {
  int axis = -1;
  std::vector<float> scales; ///< amax / 127 per channel (1 for all-zero)
};

/// `model` with Q/DQ pairs before every layer's activations (scale
/// amax / 127 from `amax`, which must hold each of them) and weights (per
/// channel of weightAxis; per tensor where the model's opset is below 13,
/// which has no per-axis Q/DQ). False with `error` naming the tensor when
/// an amax is missing or a weight is not plain f32 data (external data is
/// refused: read it into the model first).
bool insertQdq(const std::string &model, const std::vector<QuantLayer> &layers,
               const std::map<std::string, double> &amax, std::string &out,
               std::map<std::string, WeightScales> &weights,
               std::string &error);

} // namespace kiln::quant

#endif // KILN_QUANT_QDQMODEL_H
