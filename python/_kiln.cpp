//===- _kiln.cpp - the C++ half of the kiln Python package ----------------===//
//
// kiln._kiln: the runtime (engines, execution contexts, plan inspection)
// and, in builds with the compiler, kilnc's build in process
// (include/kiln/Driver.h). The Python API (kiln/__init__.py) validates
// feeds and maps numpy and device arrays onto these bindings; this file
// only converts, releases the GIL around the runtime's blocking calls and
// turns a Status into kiln.Error carrying its message.
//
//===----------------------------------------------------------------------===//
#include "kiln/Plan/PlanIO.h"
#include "kiln/Runtime/Runtime.h"

#ifdef KILN_PYTHON_COMPILER
#include "kiln/Driver.h"
#include "llvm/Support/FormatVariadic.h"
#endif

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace py = pybind11;
namespace rt = kiln::runtime;
namespace plan = kiln::plan;

namespace {

/// A runtime Status that is not ok; becomes kiln.Error.
struct RuntimeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// A failed build; becomes kiln.CompileError.
struct BuildError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void check(const rt::Status &st) {
  if (!st.ok())
    throw RuntimeError(st.message());
}

py::dict tensorDict(const plan::TensorDesc &d, bool fixed) {
  py::dict t;
  t["name"] = d.name;
  t["dtype"] = plan::dtypeName(d.dtype);
  t["shape"] = py::tuple(py::cast(d.shape));
  t["dim_names"] = d.dimNames;
  t["fixed_value"] = fixed;
  return t;
}

py::dict tensorDict(const rt::TensorInfo &t) {
  plan::TensorDesc d;
  d.name = t.name;
  d.dtype = t.dtype;
  d.shape = t.shape;
  d.dimNames = t.dimNames;
  return tensorDict(d, !t.fixedValue.empty());
}

py::list provenanceList(const std::vector<plan::ProvenanceEntry> &entries) {
  py::list out;
  for (const plan::ProvenanceEntry &e : entries)
    out.append(py::make_tuple(e.key, e.value));
  return out;
}

/// What a plan declares, read without loading it (weight-stripped plans
/// too): raises kiln.Error on bytes that are no valid plan.
py::dict planInfo(const py::bytes &bytes) {
  std::string_view view = bytes;
  // PlanReader wants 8-byte aligned data that outlives the reader.
  std::vector<uint64_t> copy((view.size() + 7) / 8);
  std::memcpy(copy.data(), view.data(), view.size());
  plan::PlanReader reader;
  plan::PlanReader::Options options;
  options.allowWeightStripped = true;
  check(reader.open(copy.data(), view.size(), options));
  const plan::Plan &p = reader.plan();
  py::dict info;
  py::list inputs, outputs;
  for (const plan::Binding &b : p.inputs)
    inputs.append(tensorDict(b.desc, !b.fixedValue.empty()));
  for (const plan::Binding &b : p.outputs)
    outputs.append(tensorDict(b.desc, false));
  info["inputs"] = inputs;
  info["outputs"] = outputs;
  info["targets"] = p.targets;
  info["compiler_version"] = p.compilerVersion;
  info["format_version"] = reader.header().formatVersion;
  info["weight_stripped"] = p.isWeightStripped();
  info["arena_bytes"] = p.arenaBytes;
  info["provenance"] = provenanceList(p.provenance);
  return info;
}

// DLPack's ABI (dlpack.h, v0.8; the capsule `__dlpack__()` returns without
// max_version), declared here rather than depending on a header for four
// structs.
struct DLDevice {
  int32_t device_type; ///< 1 CPU, 2 CUDA, 3 CUDA host, 13 CUDA managed
  int32_t device_id;
};
struct DLDataType {
  uint8_t code; ///< 0 int, 1 uint, 2 float, 4 bfloat, 6 bool
  uint8_t bits;
  uint16_t lanes;
};
struct DLTensor {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides; ///< in elements; null = C-contiguous
  uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(DLManagedTensor *self);
};

/// A tensor taken from a DLPack capsule: the producer's memory stays valid
/// until this is destroyed (the deleter runs then).
class DLPackTensor {
public:
  explicit DLPackTensor(const py::capsule &capsule) {
    if (std::strcmp(capsule.name(), "dltensor") != 0)
      throw py::value_error("not a DLPack capsule (named '" +
                            std::string(capsule.name()) +
                            "'; used_dltensor: consumed already)");
    managed = static_cast<DLManagedTensor *>(capsule.get_pointer());
    // The capsule is ours now: renamed, so its destructor leaves it alone.
    if (PyCapsule_SetName(capsule.ptr(), "used_dltensor") != 0)
      throw py::error_already_set();
  }
  ~DLPackTensor() {
    if (managed && managed->deleter)
      managed->deleter(managed);
  }
  DLPackTensor(const DLPackTensor &) = delete;
  DLPackTensor &operator=(const DLPackTensor &) = delete;

  uint64_t address() const {
    return reinterpret_cast<uint64_t>(t().data) + t().byte_offset;
  }
  int deviceType() const { return t().device.device_type; }
  int deviceId() const { return t().device.device_id; }
  std::vector<int64_t> shape() const {
    return std::vector<int64_t>(t().shape, t().shape + t().ndim);
  }
  /// In elements; None when C-contiguous.
  std::optional<std::vector<int64_t>> strides() const {
    if (!t().strides)
      return std::nullopt;
    return std::vector<int64_t>(t().strides, t().strides + t().ndim);
  }
  /// numpy's typestr ("<f4", "|b1", ...); bfloat16 as "bf16" (no numpy
  /// type), "" for what kiln has no type for.
  std::string typestr() const {
    const DLDataType &d = t().dtype;
    if (d.lanes != 1)
      return "";
    unsigned bytes = d.bits / 8;
    switch (d.code) {
    case 0:
      return "<i" + std::to_string(bytes);
    case 1:
      return (bytes == 1 ? "|u" : "<u") + std::to_string(bytes);
    case 2:
      return "<f" + std::to_string(bytes);
    case 4:
      return d.bits == 16 ? "bf16" : "";
    case 6:
      return "|b1";
    }
    return "";
  }

private:
  const DLTensor &t() const { return managed->dl_tensor; }
  DLManagedTensor *managed = nullptr;
};

rt::DeviceKind parseDevice(const std::string &device) {
  if (device == "auto")
    return rt::DeviceKind::Auto;
  if (device == "host")
    return rt::DeviceKind::Host;
  if (device == "gpu")
    return rt::DeviceKind::Gpu;
  throw py::value_error("device must be 'auto', 'gpu' or 'host', got '" +
                        device + "'");
}

/// One execution context; the Python Session pools them, one per thread
/// running at a time.
class Context {
public:
  explicit Context(std::unique_ptr<rt::ExecutionContext> ctx)
      : ctx(std::move(ctx)) {}

  void setInput(size_t index, const py::buffer &buffer) {
    py::buffer_info info = buffer.request();
    check(ctx->setInput(index, info.ptr,
                        size_t(info.size) * size_t(info.itemsize)));
  }
  /// None: the context's own storage again.
  void setOutput(size_t index, const py::object &buffer) {
    if (buffer.is_none()) {
      check(ctx->setOutput(index, nullptr, 0));
      return;
    }
    py::buffer_info info =
        py::reinterpret_borrow<py::buffer>(buffer).request(/*writable=*/true);
    check(ctx->setOutput(index, info.ptr,
                         size_t(info.size) * size_t(info.itemsize)));
  }
  void setInputDevice(size_t index, uint64_t devptr, size_t bytes) {
    check(ctx->setInputDevice(index, devptr, bytes));
  }
  void setOutputDevice(size_t index, uint64_t devptr, size_t bytes) {
    check(ctx->setOutputDevice(index, devptr, bytes));
  }
  /// Without a stream: run() (the context's own stream on a GPU). With one:
  /// enqueue on it, then wait for the work.
  void run(std::optional<uint64_t> stream) {
    rt::Status st;
    {
      py::gil_scoped_release release;
      if (!stream) {
        st = ctx->run();
      } else {
        st = ctx->enqueue(reinterpret_cast<void *>(*stream));
        if (st.ok())
          st = ctx->synchronize();
      }
    }
    check(st);
  }
  uint64_t graphCaptures() const { return ctx->graphCaptures(); }
  bool usesCudaGraphs() const { return ctx->usesCudaGraphs(); }
  /// Plans with several profiles: selects the one with this input shape.
  void setInputShape(size_t index, const std::vector<int64_t> &dims) {
    check(ctx->setInputShape(index, dims));
  }
  std::vector<int64_t> outputShape(size_t index) const {
    return ctx->outputShape(index);
  }
  size_t profile() const { return ctx->profile(); }

private:
  std::unique_ptr<rt::ExecutionContext> ctx;
};

/// A loaded plan (kiln::runtime::Engine), shared by its contexts.
class Engine {
public:
  static std::shared_ptr<Engine> load(const py::bytes &bytes,
                                      const std::string &device, int ordinal,
                                      bool allowPtxJit) {
    rt::EngineOptions options;
    options.device = parseDevice(device);
    options.deviceOrdinal = ordinal;
    options.allowPtxJit = allowPtxJit;
    std::string_view view = bytes;
    std::unique_ptr<rt::Engine> engine;
    rt::Status st;
    {
      py::gil_scoped_release release;
      st = rt::Engine::loadMemory(view.data(), view.size(), options, &engine);
    }
    check(st);
    return std::make_shared<Engine>(std::move(engine));
  }
  explicit Engine(std::unique_ptr<rt::Engine> engine)
      : engine(std::move(engine)) {}

  py::list inputs() const {
    py::list out;
    for (const rt::TensorInfo &t : engine->inputs())
      out.append(tensorDict(t));
    return out;
  }
  py::list outputs() const {
    py::list out;
    for (const rt::TensorInfo &t : engine->outputs())
      out.append(tensorDict(t));
    return out;
  }
  std::unique_ptr<Context> createContext() const {
    std::unique_ptr<rt::ExecutionContext> ctx;
    check(engine->createContext(&ctx));
    return std::make_unique<Context>(std::move(ctx));
  }
  const rt::Engine &get() const { return *engine; }

private:
  std::unique_ptr<rt::Engine> engine;
};

#ifdef KILN_PYTHON_COMPILER
/// The keyword options of kiln.compile besides model, target, precision,
/// input_shapes and input_values, each a kilnc flag (its name with '_' for
/// '-'); kiln/__init__.py refuses others with TypeError.
const std::vector<std::string> &compileOptionNames() {
  static const std::vector<std::string> names = {"strip_weights",
                                                 "strip_threshold",
                                                 "tactics",
                                                 "tactic_candidates",
                                                 "timing_cache",
                                                 "layout",
                                                 "cuda_path",
                                                 "onnx_checker",
                                                 "onnx_shape_inference",
                                                 "gpu_cost_latency",
                                                 "gpu_split_k",
                                                 "gpu_cluster_split_k",
                                                 "gpu_mma_stages",
                                                 "gpu_wgmma",
                                                 "gpu_tma",
                                                 "fuse_sibling_matmuls",
                                                 "fuse_sibling_convs",
                                                 "concat_in_place",
                                                 "tf32_round_at_producers",
                                                 "calib",
                                                 "calib_method",
                                                 "calib_cache",
                                                 "qdq_model",
                                                 "int8_tolerance",
                                                 "validate",
                                                 "validate_tolerance"};
  return names;
}

template <typename E>
E parseEnum(const py::handle &value, const char *what,
            std::initializer_list<E> values) {
  if (!PyUnicode_Check(value.ptr()))
    throw py::type_error(std::string(what) + " must be a str");
  std::string s = py::cast<std::string>(value);
  std::string listed;
  for (E e : values) {
    if (kiln::stringify(e) == s)
      return e;
    listed += (listed.empty() ? "'" : ", '") + kiln::stringify(e).str() + "'";
  }
  throw py::value_error(std::string(what) + " must be one of " + listed +
                        ", got '" + s + "'");
}

std::mutex buildMutex;

/// kilnc MODEL -o PLAN --json, in process: (plan bytes, report JSON).
py::tuple compile(const std::string &path, std::optional<py::bytes> bytes,
                  const std::vector<std::string> &targets,
                  const std::string &precision,
                  const std::map<std::string, std::vector<int64_t>> &shapes,
                  const std::map<std::string, std::string> &values,
                  const std::vector<std::string> &profiles,
                  const py::dict &options) {
  kiln::driver::BuildOptions build;
  build.profiles = profiles;
  kiln::CompileOptions &c = build.compile;
  if (targets.empty())
    throw py::value_error("target: at least one target is needed");
  c.targets = targets;
  // int8: calibrated Q/DQ on an f32 build (kilnc --precision int8).
  kiln::driver::Int8Options int8;
  bool int8Given = false, int8OnlyGiven = false, toleranceGiven = false;
  if (precision == "int8")
    build.int8.emplace();
  else
    c.precision = parseEnum(py::str(precision), "precision",
                            {kiln::Precision::fp32, kiln::Precision::tf32,
                             kiln::Precision::fp16, kiln::Precision::bf16});
  build.import.inputShapes = shapes;
  build.import.inputValues = values;
  bool candidatesGiven = false;
  for (auto [key, value] : options) {
    std::string k = py::cast<std::string>(key);
    auto wrongType = [&](const char *type) {
      return py::type_error(
          "compile(): " + k + " takes " + type + ", got " +
          std::string(py::str(value.get_type().attr("__name__"))));
    };
    auto boolean = [&] {
      if (!PyBool_Check(value.ptr()))
        throw wrongType("a bool");
      return value.ptr() == Py_True;
    };
    auto integer = [&] {
      if (PyBool_Check(value.ptr()) || !PyLong_Check(value.ptr()))
        throw wrongType("an int");
      return py::cast<int64_t>(value);
    };
    auto string = [&] {
      if (!PyUnicode_Check(value.ptr()))
        throw wrongType("a str");
      return py::cast<std::string>(value);
    };
    if (k == "strip_weights")
      c.stripWeights = boolean();
    else if (k == "strip_threshold") {
      int64_t bytes = integer();
      if (bytes < 0)
        throw py::value_error("strip_threshold must be >= 0");
      c.stripThreshold = uint64_t(bytes);
    } else if (k == "tactics")
      c.gpuTactics =
          parseEnum(value, "tactics",
                    {kiln::GpuTactics::automatic, kiln::GpuTactics::all,
                     kiln::GpuTactics::generic});
    else if (k == "tactic_candidates")
      c.gpuTacticCandidates = integer(), candidatesGiven = true;
    else if (k == "timing_cache")
      c.timingCachePath = string();
    else if (k == "layout")
      c.layout = parseEnum(
          value, "layout",
          {kiln::Layout::automatic, kiln::Layout::nhwc, kiln::Layout::nchw});
    else if (k == "cuda_path")
      c.cudaToolkitPath = string();
    else if (k == "onnx_checker")
      build.import.runChecker = boolean();
    else if (k == "onnx_shape_inference")
      build.import.runOnnxShapeInference = boolean();
    else if (k == "gpu_cost_latency")
      c.gpuLatencyCycles = integer();
    else if (k == "gpu_split_k")
      c.gpuSplitK = integer();
    else if (k == "gpu_cluster_split_k")
      c.gpuClusterSplitK = boolean();
    else if (k == "gpu_mma_stages")
      c.gpuMmaStages = integer();
    else if (k == "gpu_wgmma")
      c.gpuWgmma = string();
    else if (k == "gpu_tma")
      c.gpuTma = boolean();
    else if (k == "fuse_sibling_matmuls")
      c.fuseSiblingMatmuls = boolean();
    else if (k == "fuse_sibling_convs")
      c.fuseSiblingConvs = boolean();
    else if (k == "concat_in_place")
      c.concatInPlace = boolean();
    else if (k == "tf32_round_at_producers")
      c.tf32RoundAtProducers = boolean();
    else if (k == "calib")
      int8.calibDir = string(), int8Given = true;
    else if (k == "calib_method")
      int8.method = string(), int8Given = int8OnlyGiven = true;
    else if (k == "calib_cache")
      int8.cachePath = string(), int8Given = int8OnlyGiven = true;
    else if (k == "qdq_model")
      int8.qdqModelPath = string(), int8Given = int8OnlyGiven = true;
    else if (k == "int8_tolerance")
      int8.tolerance = value.cast<double>(), int8Given = int8OnlyGiven = true;
    else if (k == "validate")
      build.validateDir = string();
    else if (k == "validate_tolerance")
      build.validateTolerance = value.cast<double>(), toleranceGiven = true;
    else
      throw py::type_error("compile() got an unexpected keyword argument '" +
                           k + "'");
  }
  // As kilnc: options that would be silently ignored are refused.
  if (candidatesGiven && c.gpuTactics != kiln::GpuTactics::all)
    throw py::value_error("tactic_candidates applies to tactics='all'");
  // fp16: calib ranges every node for the fp32 islands (kilnc --calib).
  bool fp16 = !build.int8 && c.precision == kiln::Precision::fp16;
  if (fp16 && int8Given && !int8OnlyGiven) {
    build.rangeCalibDir = int8.calibDir;
    int8Given = false;
  }
  if (int8Given && !build.int8)
    throw py::value_error(
        "calib, calib_method, calib_cache, qdq_model and int8_tolerance "
        "apply to precision='int8' (calib alone also to 'fp16': fp32 "
        "islands)");
  if ((!build.validateDir.empty() || toleranceGiven) &&
      c.precision != kiln::Precision::fp16 &&
      c.precision != kiln::Precision::bf16)
    throw py::value_error("validate compares an fp16 or bf16 build with "
                          "f32: give precision='fp16' or 'bf16'");
  if (toleranceGiven && build.validateDir.empty())
    throw py::value_error("validate_tolerance needs validate='DIR'");
  if (!(build.validateTolerance > 0) || !std::isfinite(build.validateTolerance))
    throw py::value_error("validate_tolerance must be a number > 0");
  if (build.int8) {
    *build.int8 = int8;
    std::string error;
    if (int8.calibDir.empty() && int8.cachePath.empty())
      throw py::value_error("precision='int8' needs calib (a folder of "
                            "samples) or calib_cache (a calibration cache)");
    if (!kiln::driver::checkCalibMethod(int8.method, error))
      throw py::value_error("calib_method: " + error);
    if (int8.tolerance < 0 || !std::isfinite(int8.tolerance))
      throw py::value_error("int8_tolerance must be a number > 0");
    if (int8.tolerance > 0 && int8.calibDir.empty())
      throw py::value_error("int8_tolerance measures the error on the "
                            "calibration samples: give calib='DIR'");
  }

  kiln::driver::Model model{path, std::nullopt};
  std::string data;
  if (bytes) {
    data = *bytes;
    model.bytes = llvm::StringRef(data);
  }
  std::vector<uint8_t> planBytes;
  kiln::BuildReport report;
  std::string diagnostics;
  bool ok;
  {
    py::gil_scoped_release release;
    // One build at a time: the pass registry and LLVM's options are
    // process-wide.
    std::lock_guard<std::mutex> lock(buildMutex);
    llvm::raw_string_ostream os(diagnostics);
    ok = kiln::driver::buildPlan(model, build, planBytes, report, os);
  }
  if (!ok) {
    while (!diagnostics.empty() && diagnostics.back() == '\n')
      diagnostics.pop_back();
    throw BuildError(diagnostics.empty() ? "the build failed" : diagnostics);
  }
  std::string json = llvm::formatv(
      "{0}", kiln::driver::reportJson(report, c, path, /*planPath=*/""));
  return py::make_tuple(
      py::bytes(reinterpret_cast<const char *>(planBytes.data()),
                planBytes.size()),
      json);
}
#endif

} // namespace

PYBIND11_MODULE(_kiln, m) {
  m.doc() = "kiln's C++ bindings; use the kiln package";
  static py::exception<RuntimeError> error(m, "Error", PyExc_ValueError);
  static py::exception<BuildError> compileError(m, "CompileError", error.ptr());
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p)
        std::rethrow_exception(p);
    } catch (const BuildError &e) {
      compileError(e.what());
    } catch (const RuntimeError &e) {
      error(e.what());
    }
  });
  m.attr("version") = rt::runtimeVersion();
  m.attr("plan_format_version") = rt::planFormatVersion();
  m.def("plan_info", &planInfo, py::arg("plan"));
#ifdef KILN_PYTHON_COMPILER
  m.attr("has_compiler") = true;
  m.attr("compile_options") = compileOptionNames();
  m.def("compile", &compile, py::arg("path"), py::arg("bytes"),
        py::arg("targets"), py::arg("precision"), py::arg("input_shapes"),
        py::arg("input_values"), py::arg("profiles"), py::arg("options"));
#else
  m.attr("has_compiler") = false;
#endif

  py::class_<DLPackTensor>(m, "DLPackTensor")
      .def(py::init<const py::capsule &>(), py::arg("capsule"))
      .def_property_readonly("address", &DLPackTensor::address)
      .def_property_readonly("device_type", &DLPackTensor::deviceType)
      .def_property_readonly("device_id", &DLPackTensor::deviceId)
      .def_property_readonly("shape", &DLPackTensor::shape)
      .def_property_readonly("strides", &DLPackTensor::strides)
      .def_property_readonly("typestr", &DLPackTensor::typestr);

  py::class_<Context>(m, "Context")
      .def("set_input", &Context::setInput)
      .def("set_output", &Context::setOutput)
      .def("set_input_device", &Context::setInputDevice)
      .def("set_output_device", &Context::setOutputDevice)
      .def("run", &Context::run, py::arg("stream") = py::none())
      .def("set_input_shape", &Context::setInputShape)
      .def("output_shape", &Context::outputShape)
      .def("profile", &Context::profile)
      .def_property_readonly("graph_captures", &Context::graphCaptures)
      .def_property_readonly("uses_cuda_graphs", &Context::usesCudaGraphs);

  py::class_<Engine, std::shared_ptr<Engine>>(m, "Engine")
      .def_static("load", &Engine::load, py::arg("plan"), py::arg("device"),
                  py::arg("device_ordinal"), py::arg("allow_ptx_jit"))
      .def("inputs", &Engine::inputs)
      .def("outputs", &Engine::outputs)
      .def("create_context", &Engine::createContext)
      .def_property_readonly(
          "num_profiles", [](const Engine &e) { return e.get().numProfiles(); })
      .def_property_readonly("target",
                             [](const Engine &e) { return e.get().target(); })
      .def_property_readonly(
          "plan_targets", [](const Engine &e) { return e.get().planTargets(); })
      .def_property_readonly("on_gpu",
                             [](const Engine &e) { return e.get().onGpu(); })
      .def_property_readonly(
          "module_format",
          [](const Engine &e) { return std::string(e.get().moduleFormat()); })
      .def_property_readonly(
          "device_name", [](const Engine &e) { return e.get().device().name; })
      .def_property_readonly(
          "device_ordinal",
          [](const Engine &e) { return e.get().device().ordinal; })
      .def_property_readonly(
          "device_note", [](const Engine &e) { return e.get().deviceNote(); })
      .def_property_readonly("provenance", [](const Engine &e) {
        return provenanceList(e.get().provenance());
      });
}
