//===- QdqModel.cpp - post-training quantization of ONNX models -----------===//
//
// include/kiln/Quant/QdqModel.h. The Q/DQ nodes go right before the first
// layer that reads their tensor, so the node list stays topologically
// sorted; only the quantized layers read the dequantized tensor, every other
// consumer keeps the f32 one.
//
//===----------------------------------------------------------------------===//
#include "kiln/Quant/QdqModel.h"

#include "kiln/Quant/Calibration.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

using namespace kiln::quant;

static bool parse(const std::string &bytes, onnx::ModelProto &model,
                  std::string &error) {
  if (!model.ParseFromString(bytes)) {
    error = "the model is not a valid ONNX ModelProto";
    return false;
  }
  return true;
}

static bool serialize(const onnx::ModelProto &model, std::string &out,
                      std::string &error) {
  if (!model.SerializeToString(&out)) {
    error = "cannot serialize the quantized model (over 2 GB?)";
    return false;
  }
  return true;
}

static bool isDefaultDomain(const std::string &d) {
  return d.empty() || d == "ai.onnx";
}

/// The names constant at build time: initializers and Constant outputs.
static std::set<std::string> constants(const onnx::GraphProto &g) {
  std::set<std::string> out;
  for (const auto &t : g.initializer())
    out.insert(t.name());
  for (const auto &n : g.node())
    if (isDefaultDomain(n.domain()) && n.op_type() == "Constant")
      for (const auto &o : n.output())
        out.insert(o);
  return out;
}

static const onnx::TensorProto *initializer(const onnx::GraphProto &g,
                                            const std::string &name) {
  for (const auto &t : g.initializer())
    if (t.name() == name)
      return &t;
  return nullptr;
}

static std::string nodeName(const onnx::NodeProto &n, int index) {
  return n.name().empty() ? n.op_type() + "#" + std::to_string(index)
                          : n.name();
}

bool kiln::quant::quantLayers(const std::string &bytes,
                              std::vector<QuantLayer> &layers,
                              std::string &error) {
  onnx::ModelProto model;
  if (!parse(bytes, model, error))
    return false;
  const onnx::GraphProto &g = model.graph();
  std::set<std::string> fixed = constants(g);
  auto isActivation = [&](const onnx::NodeProto &n, int i) {
    return i < n.input_size() && !n.input(i).empty() &&
           !fixed.count(n.input(i));
  };
  int quantized = 0;
  for (const auto &n : g.node())
    quantized += isDefaultDomain(n.domain()) &&
                 (n.op_type() == "QuantizeLinear" ||
                  n.op_type() == "DequantizeLinear" ||
                  n.op_type() == "QLinearConv" ||
                  n.op_type() == "QLinearMatMul");
  if (quantized) {
    error = "the model is quantized already (" + std::to_string(quantized) +
            " QuantizeLinear/DequantizeLinear/QLinear* nodes): build it "
            "without --precision int8, its own Q/DQ are kept";
    return false;
  }
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto &n = g.node(i);
    const std::string &op = n.op_type();
    if (!isDefaultDomain(n.domain()) ||
        (op != "Conv" && op != "Gemm" && op != "MatMul"))
      continue;
    QuantLayer layer{nodeName(n, i), op, size_t(i), {}, "", -1};
    if (isActivation(n, 0))
      layer.activations.push_back(n.input(0));
    if (n.input_size() > 1) {
      const onnx::TensorProto *w = initializer(g, n.input(1));
      if (w) {
        layer.weight = w->name();
        if (op == "Conv") {
          layer.weightAxis = 0;
        } else if (op == "Gemm") {
          bool transB = false;
          for (const auto &a : n.attribute())
            if (a.name() == "transB")
              transB = a.i() != 0;
          layer.weightAxis = transB ? 0 : 1;
        } else if (w->dims_size() == 2) {
          layer.weightAxis = 1; // MatMul [K, N]: N output channels
        }
      } else if (isActivation(n, 1)) {
        layer.activations.push_back(n.input(1));
      }
    }
    if (!layer.activations.empty() || !layer.weight.empty())
      layers.push_back(std::move(layer));
  }
  return true;
}

std::vector<std::string> kiln::quant::graphInputs(const std::string &bytes) {
  onnx::ModelProto model;
  std::vector<std::string> out;
  if (!model.ParseFromString(bytes))
    return out;
  std::set<std::string> inits;
  for (const auto &t : model.graph().initializer())
    inits.insert(t.name());
  for (const auto &v : model.graph().input())
    if (!inits.count(v.name()))
      out.push_back(v.name());
  return out;
}

bool kiln::quant::withOutputs(const std::string &bytes,
                              const std::vector<std::string> &tensors,
                              std::string &out, std::string &error) {
  onnx::ModelProto model;
  if (!parse(bytes, model, error))
    return false;
  std::set<std::string> outputs;
  for (const auto &v : model.graph().output())
    outputs.insert(v.name());
  for (const std::string &t : tensors) {
    if (outputs.count(t))
      continue;
    onnx::ValueInfoProto *v = model.mutable_graph()->add_output();
    v->set_name(t);
    v->mutable_type()->mutable_tensor_type()->set_elem_type(
        onnx::TensorProto::FLOAT);
  }
  return serialize(model, out, error);
}

/// The f32 values of initializer `t`, false with `error` when it holds
/// anything else.
static bool floatData(const onnx::TensorProto &t, std::vector<float> &values,
                      std::string &error) {
  if (t.data_type() != onnx::TensorProto::FLOAT) {
    error = "weight '" + t.name() +
            "' is not f32: int8 quantization calibrates f32 models";
    return false;
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    error = "weight '" + t.name() +
            "' is in external data, which --precision int8 does not read "
            "yet: save the model with its weights inside (onnx.save(model, "
            "path, save_as_external_data=False))";
    return false;
  }
  uint64_t n = 1;
  for (int64_t d : t.dims())
    n *= uint64_t(d);
  if (t.has_raw_data()) {
    if (t.raw_data().size() != n * sizeof(float)) {
      error = "weight '" + t.name() + "' has " +
              std::to_string(t.raw_data().size()) + " bytes of data for " +
              std::to_string(n) + " f32 values";
      return false;
    }
    values.resize(n);
    std::memcpy(values.data(), t.raw_data().data(), n * sizeof(float));
    return true;
  }
  if (uint64_t(t.float_data_size()) != n) {
    error = "weight '" + t.name() + "' has " +
            std::to_string(t.float_data_size()) + " values for its " +
            std::to_string(n) + " elements";
    return false;
  }
  values.assign(t.float_data().begin(), t.float_data().end());
  return true;
}

/// Per-channel (or, axis -1, per-tensor) symmetric int8 scales of `w`.
static bool weightScales(const onnx::TensorProto &w, int axis,
                         WeightScales &out, std::string &error) {
  std::vector<float> values;
  if (!floatData(w, values, error))
    return false;
  out.axis = axis;
  int64_t channels = 1, inner = 1;
  if (axis >= 0) {
    channels = w.dims(axis);
    for (int d = axis + 1; d < w.dims_size(); ++d)
      inner *= w.dims(d);
  }
  std::vector<double> amax(size_t(channels), 0.0);
  for (size_t i = 0; i < values.size(); ++i) {
    size_t c = axis < 0 ? 0 : (i / size_t(inner)) % size_t(channels);
    if (!std::isfinite(values[i])) {
      error = "weight '" + w.name() + "' holds a NaN or infinity at element " +
              std::to_string(i);
      return false;
    }
    amax[c] = std::max(amax[c], double(std::fabs(values[i])));
  }
  out.scales.resize(amax.size());
  for (size_t c = 0; c < amax.size(); ++c)
    if (!int8Scale(amax[c], out.scales[c], error))
      return false;
  return true;
}

namespace {
/// The Q/DQ pair of one tensor: the names it adds to the graph.
struct Pair {
  std::string dequantized;
  std::vector<onnx::NodeProto> nodes;
  bool emitted = false;
};
} // namespace

static onnx::TensorProto scalesTensor(const std::string &name,
                                      const std::vector<float> &scales,
                                      bool vector) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  if (vector)
    t.add_dims(int64_t(scales.size()));
  t.set_raw_data(scales.data(), scales.size() * sizeof(float));
  return t;
}

static onnx::TensorProto zeroPoints(const std::string &name, size_t n,
                                    bool vector) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::INT8);
  if (vector)
    t.add_dims(int64_t(n));
  t.set_raw_data(std::string(n, '\0'));
  return t;
}

/// Q/DQ of `tensor` with `scales` (one per channel of `axis`, or one).
static Pair makePair(onnx::GraphProto &g, const std::string &tensor,
                     const std::vector<float> &scales, int axis) {
  const std::string base = tensor + "_kiln_int8";
  bool vector = axis >= 0;
  *g.add_initializer() = scalesTensor(base + "_scale", scales, vector);
  *g.add_initializer() =
      zeroPoints(base + "_zero_point", scales.size(), vector);
  Pair p;
  p.dequantized = base + "_dq";
  for (int k = 0; k < 2; ++k) {
    onnx::NodeProto n;
    n.set_op_type(k == 0 ? "QuantizeLinear" : "DequantizeLinear");
    n.set_name(base + (k == 0 ? "_quantize" : "_dequantize"));
    n.add_input(k == 0 ? tensor : base + "_q");
    n.add_input(base + "_scale");
    n.add_input(base + "_zero_point");
    n.add_output(k == 0 ? base + "_q" : p.dequantized);
    if (vector) {
      onnx::AttributeProto *a = n.add_attribute();
      a->set_name("axis");
      a->set_type(onnx::AttributeProto::INT);
      a->set_i(axis);
    }
    p.nodes.push_back(std::move(n));
  }
  return p;
}

static int64_t defaultOpset(const onnx::ModelProto &m) {
  for (const auto &o : m.opset_import())
    if (isDefaultDomain(o.domain()))
      return o.version();
  return 1;
}

bool kiln::quant::insertQdq(const std::string &bytes,
                            const std::vector<QuantLayer> &layers,
                            const std::map<std::string, double> &amax,
                            std::string &out,
                            std::map<std::string, WeightScales> &weights,
                            std::string &error) {
  onnx::ModelProto model;
  if (!parse(bytes, model, error))
    return false;
  if (defaultOpset(model) < 10) {
    error = "the model's opset " + std::to_string(defaultOpset(model)) +
            " has no QuantizeLinear (opset 10): re-export it at opset 13 or "
            "later for --precision int8";
    return false;
  }
  bool perAxis = defaultOpset(model) >= 13;
  onnx::GraphProto &g = *model.mutable_graph();
  std::map<std::string, Pair> pairs;
  for (const QuantLayer &l : layers) {
    for (const std::string &a : l.activations) {
      if (pairs.count(a))
        continue;
      auto it = amax.find(a);
      if (it == amax.end()) {
        error = "no calibrated range for '" + a + "', read by " + l.op +
                " node '" + l.node + "'";
        return false;
      }
      float scale;
      if (!int8Scale(it->second, scale, error)) {
        error = "tensor '" + a + "': " + error;
        return false;
      }
      pairs.emplace(a, makePair(g, a, {scale}, -1));
    }
    if (l.weight.empty() || pairs.count(l.weight))
      continue;
    const onnx::TensorProto *w = initializer(g, l.weight);
    if (!w) {
      error = "weight '" + l.weight + "' of " + l.op + " node '" + l.node +
              "' is no initializer";
      return false;
    }
    WeightScales ws;
    if (!weightScales(*w, perAxis ? l.weightAxis : -1, ws, error))
      return false;
    weights[l.weight] = ws;
    pairs.emplace(l.weight, makePair(g, l.weight, ws.scales, ws.axis));
  }
  // The nodes again, each layer's pairs right before it, its inputs renamed.
  std::map<size_t, const QuantLayer *> byNode;
  for (const QuantLayer &l : layers)
    byNode[l.index] = &l;
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  nodes.Swap(g.mutable_node());
  for (int i = 0; i < nodes.size(); ++i) {
    onnx::NodeProto &n = nodes[i];
    auto layer = byNode.find(size_t(i));
    if (layer != byNode.end() && n.op_type() == layer->second->op) {
      for (int k = 0; k < std::min(n.input_size(), 2); ++k) {
        auto p = pairs.find(n.input(k));
        if (p == pairs.end())
          continue;
        if (!p->second.emitted)
          for (const onnx::NodeProto &q : p->second.nodes)
            *g.add_node() = q;
        p->second.emitted = true;
        n.set_input(k, p->second.dequantized);
      }
    }
    *g.add_node() = std::move(n);
  }
  return serialize(model, out, error);
}
