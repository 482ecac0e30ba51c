//===- Model.cpp - kiln-serve: model repository, executors, batching queue ===//
//
// A model version runs on a BatchExecutor. kiln plans have static shapes per
// profile, so a batching executor runs merged requests on the smallest batch
// size it has that holds them, zero-filling the rows left over: either a set
// of static plans that differ only in their leading (batch) dimension
// (config.json batch_plans), or one plan with a profile per batch size
// (max_batch_size alone; kilnc --profile). A model without batching is the
// set {1: model.plan} with one request per execution.
//
//===----------------------------------------------------------------------===//
#include "Serve.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace kiln;
using namespace kiln::serve;
namespace fs = std::filesystem;
using runtime::Engine;
using runtime::ExecutionContext;
using runtime::StatusCode;
using runtime::TensorInfo;

//===----------------------------------------------------------------------===//
// Datatypes, shapes, config.json
//===----------------------------------------------------------------------===//

namespace {
struct DTypeName {
  DType dtype;
  const char *name;
};
constexpr DTypeName kDTypeNames[] = {
    {DType::boolean, "BOOL"}, {DType::u8, "UINT8"},   {DType::u16, "UINT16"},
    {DType::u32, "UINT32"},   {DType::u64, "UINT64"}, {DType::i8, "INT8"},
    {DType::i16, "INT16"},    {DType::i32, "INT32"},  {DType::i64, "INT64"},
    {DType::f16, "FP16"},     {DType::f32, "FP32"},   {DType::f64, "FP64"},
    {DType::bf16, "BF16"},
};
} // namespace

const char *kiln::serve::v2DataType(DType dtype) {
  for (const auto &d : kDTypeNames)
    if (d.dtype == dtype)
      return d.name;
  return nullptr;
}

std::optional<DType> kiln::serve::parseV2DataType(std::string_view name) {
  for (const auto &d : kDTypeNames)
    if (name == d.name)
      return d.dtype;
  return std::nullopt;
}

int64_t kiln::serve::elementCount(const std::vector<int64_t> &shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0 || (d && n > (int64_t(1) << 50) / d))
      return -1;
    n *= d;
  }
  return n;
}

std::string kiln::serve::shapeText(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

Status kiln::serve::parseModelConfig(const std::string &text,
                                     ModelConfig *config) {
  auto bad = [](const std::string &m) {
    return Status(StatusCode::InvalidArgument, "config.json: " + m);
  };
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    return bad("not a JSON object");
  auto integer = [&](const nlohmann::json &v, const char *key, int64_t lo,
                     int64_t hi, int64_t *out) -> Status {
    if (!v.is_number_integer() || v.get<int64_t>() < lo ||
        v.get<int64_t>() > hi)
      return bad(std::string(key) + " must be an integer in [" +
                 std::to_string(lo) + ", " + std::to_string(hi) + "]");
    *out = v.get<int64_t>();
    return Status::success();
  };
  ModelConfig c;
  for (const auto &[key, v] : j.items()) {
    Status s;
    if (key == "max_batch_size") {
      s = integer(v, "max_batch_size", 0, 1 << 16, &c.maxBatchSize);
    } else if (key == "max_queue_delay_microseconds") {
      s = integer(v, "max_queue_delay_microseconds", 0, 10'000'000,
                  &c.maxQueueDelayMicroseconds);
    } else if (key == "instance_count") {
      int64_t n = 0;
      s = integer(v, "instance_count", 1, 64, &n);
      c.instanceCount = int(n);
    } else if (key == "preferred_batch_sizes") {
      if (!v.is_array())
        return bad("preferred_batch_sizes must be an array of integers");
      for (const auto &e : v) {
        int64_t n = 0;
        if (Status es = integer(e, "preferred_batch_sizes[]", 1, 1 << 16, &n);
            !es)
          return es;
        c.preferredBatchSizes.push_back(n);
      }
    } else if (key == "batch_plans") {
      if (!v.is_object() || v.empty())
        return bad("batch_plans must be an object {\"BATCH\": \"FILE\", ...}");
      for (const auto &[b, file] : v.items()) {
        char *end = nullptr;
        long long n = std::strtoll(b.c_str(), &end, 10);
        if (b.empty() || *end || n < 1 || n > (1 << 16))
          return bad("batch_plans key '" + b + "' is not a batch size >= 1");
        if (!file.is_string() || file.get<std::string>().empty() ||
            file.get<std::string>().find('/') != std::string::npos)
          return bad("batch_plans[\"" + b +
                     "\"] must be a file name in the version folder");
        c.batchPlans[n] = file.get<std::string>();
      }
    } else {
      return bad("unknown key '" + key + "'");
    }
    if (!s)
      return s;
  }
  if (!c.batchPlans.empty() && c.maxBatchSize == 0)
    c.maxBatchSize = c.batchPlans.rbegin()->first;
  // max_batch_size without batch_plans needs a model.plan with a profile
  // per batch size (kilnc --profile): checked when the plan is loaded.
  if (!c.batchPlans.empty() && c.maxBatchSize > c.batchPlans.rbegin()->first)
    return bad("max_batch_size " + std::to_string(c.maxBatchSize) +
               " exceeds the largest batch plan (" +
               std::to_string(c.batchPlans.rbegin()->first) + ")");
  for (int64_t p : c.preferredBatchSizes)
    if (p > c.maxBatchSize)
      return bad("preferred batch size " + std::to_string(p) +
                 " exceeds max_batch_size");
  *config = std::move(c);
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Metrics
//===----------------------------------------------------------------------===//

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), counts_(bounds_.size() + 1) {}

void Histogram::observe(double value) {
  size_t i = std::lower_bound(bounds_.begin(), bounds_.end(), value) -
             bounds_.begin();
  std::lock_guard<std::mutex> lock(mutex_);
  counts_[i]++;
  sum_ += value;
  count_++;
}

void Histogram::render(std::string &out, const std::string &name,
                       const std::string &labels) const {
  std::lock_guard<std::mutex> lock(mutex_);
  uint64_t cumulative = 0;
  char buf[64];
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    cumulative += counts_[i];
    if (i < bounds_.size())
      std::snprintf(buf, sizeof(buf), "%g", bounds_[i]);
    out += name + "_bucket{" + labels + ",le=\"" +
           (i < bounds_.size() ? std::string(buf) : "+Inf") + "\"} " +
           std::to_string(cumulative) + "\n";
  }
  std::snprintf(buf, sizeof(buf), "%.9g", sum_);
  out += name + "_sum{" + labels + "} " + buf + "\n";
  out += name + "_count{" + labels + "} " + std::to_string(count_) + "\n";
}

static std::vector<double> secondsBuckets() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
          0.05,   0.1,     0.25,   0.5,   1,      2.5,   5,     10};
}

ModelMetrics::ModelMetrics()
    : requestSeconds(secondsBuckets()), queueSeconds(secondsBuckets()),
      batchSize({1, 2, 4, 8, 16, 32, 64, 128, 256}),
      computeInputSeconds(secondsBuckets()),
      computeInferSeconds(secondsBuckets()),
      computeOutputSeconds(secondsBuckets()) {}

std::string ServerState::renderMetrics() {
  std::string out;
  auto models = repository.all();
  auto labels = [](ModelVersion *m) {
    return "model=\"" + m->name() + "\",version=\"" +
           std::to_string(m->version()) + "\"";
  };
  auto counter = [&](const char *name, const char *help,
                     std::atomic<uint64_t> ModelMetrics::*field) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name +
           " counter\n";
    for (ModelVersion *m : models)
      out += std::string(name) + "{" + labels(m) + "} " +
             std::to_string((m->metrics().*field).load()) + "\n";
  };
  counter("kiln_inference_request_success_total",
          "Inference requests answered with outputs", &ModelMetrics::success);
  counter("kiln_inference_request_failure_total",
          "Inference requests of a known model that failed",
          &ModelMetrics::failure);
  counter("kiln_inference_count_total",
          "Batch rows inferred for requests (padding excluded)",
          &ModelMetrics::inferences);
  counter("kiln_inference_exec_count_total", "Plan executions",
          &ModelMetrics::executions);
  out += "# HELP kiln_inference_exec_by_plan_total Plan executions per plan "
         "batch size\n# TYPE kiln_inference_exec_by_plan_total counter\n";
  for (ModelVersion *m : models) {
    std::lock_guard<std::mutex> lock(m->metrics().execMutex);
    for (const auto &[rows, n] : m->metrics().executionsByPlan)
      out += "kiln_inference_exec_by_plan_total{" + labels(m) +
             ",plan_batch=\"" + std::to_string(rows) + "\"} " +
             std::to_string(n) + "\n";
  }
  auto histogram = [&](const char *name, const char *help,
                       Histogram ModelMetrics::*field) {
    out += std::string("# HELP ") + name + " " + help + "\n# TYPE " + name +
           " histogram\n";
    for (ModelVersion *m : models)
      (m->metrics().*field).render(out, name, labels(m));
  };
  histogram("kiln_inference_request_duration_seconds",
            "Inference request latency, queue and execution",
            &ModelMetrics::requestSeconds);
  histogram("kiln_inference_queue_duration_seconds",
            "Time a request waited in the batching queue",
            &ModelMetrics::queueSeconds);
  histogram("kiln_inference_batch_size",
            "Rows merged into one execution (before padding to a plan)",
            &ModelMetrics::batchSize);
  histogram("kiln_inference_compute_input_duration_seconds",
            "Per execution: copying the requests' inputs into the batch",
            &ModelMetrics::computeInputSeconds);
  histogram("kiln_inference_compute_infer_duration_seconds",
            "Per execution: the plan's run (device copies included)",
            &ModelMetrics::computeInferSeconds);
  histogram("kiln_inference_compute_output_duration_seconds",
            "Per execution: copying the outputs into the responses",
            &ModelMetrics::computeOutputSeconds);

  // GPU memory of each device a model runs on.
  std::map<int, const runtime::Engine *> gpus;
  for (ModelVersion *m : models)
    if (m->executor().anyEngine().onGpu())
      gpus.emplace(m->executor().device().ordinal, &m->executor().anyEngine());
  if (!gpus.empty()) {
    std::string total, used;
    for (const auto &[ordinal, engine] : gpus) {
      uint64_t freeBytes = 0, totalBytes = 0;
      if (!engine->queryDeviceMemory(&freeBytes, &totalBytes))
        continue;
      std::string l = "{gpu=\"" + std::to_string(ordinal) + "\",name=\"" +
                      engine->device().name + "\"} ";
      total += "kiln_gpu_memory_total_bytes" + l + std::to_string(totalBytes) +
               "\n";
      used += "kiln_gpu_memory_used_bytes" + l +
              std::to_string(totalBytes - freeBytes) + "\n";
    }
    out += "# HELP kiln_gpu_memory_total_bytes GPU memory\n# TYPE "
           "kiln_gpu_memory_total_bytes gauge\n" +
           total +
           "# HELP kiln_gpu_memory_used_bytes GPU memory in use (all "
           "processes)\n# TYPE kiln_gpu_memory_used_bytes gauge\n" +
           used;
    out += "# HELP kiln_model_weights_device_bytes Device memory of a model's "
           "weights\n# TYPE kiln_model_weights_device_bytes gauge\n";
    for (ModelVersion *m : models)
      if (m->executor().anyEngine().onGpu())
        out += "kiln_model_weights_device_bytes{" + labels(m) + "} " +
               std::to_string(m->executor().anyEngine().deviceWeightsBytes()) +
               "\n";
  }
  return out;
}

//===----------------------------------------------------------------------===//
// Executors
//===----------------------------------------------------------------------===//

BatchExecutor::~BatchExecutor() = default;

namespace {

/// Static plans that differ only in their batch dimension, each with one
/// execution context per worker. An unbatched model is the one plan {1}.
class StaticPlanExecutor : public BatchExecutor {
public:
  struct Plan {
    int64_t rows = 1;
    std::unique_ptr<Engine> engine;
    std::vector<std::unique_ptr<ExecutionContext>> contexts;
    std::vector<size_t> inputIndex;  ///< model input -> engine input
    std::vector<size_t> outputIndex; ///< model output -> engine output
  };
  explicit StaticPlanExecutor(std::vector<Plan> plans)
      : plans_(std::move(plans)) {}

  int64_t maxRows() const override { return plans_.back().rows; }
  int64_t executionRows(int64_t rows) const override {
    for (const Plan &p : plans_)
      if (p.rows >= rows)
        return p.rows;
    return -1;
  }
  Status execute(size_t instance, int64_t rows,
                 const std::vector<const uint8_t *> &inputs,
                 std::vector<const uint8_t *> *outputs) override {
    Plan *plan = nullptr;
    for (Plan &p : plans_)
      if (p.rows == rows)
        plan = &p;
    if (!plan || instance >= plan->contexts.size())
      return Status(StatusCode::Internal, "no plan of batch " +
                                              std::to_string(rows));
    ExecutionContext &ctx = *plan->contexts[instance];
    const auto &infos = plan->engine->inputs();
    for (size_t k = 0; k < inputs.size(); ++k) {
      size_t i = plan->inputIndex[k];
      if (Status s = ctx.setInput(i, inputs[k], infos[i].byteSize); !s)
        return s;
    }
    if (Status s = ctx.run(); !s)
      return s;
    outputs->resize(plan->outputIndex.size());
    for (size_t k = 0; k < plan->outputIndex.size(); ++k) {
      const void *data = nullptr;
      size_t bytes = 0;
      if (Status s = ctx.getOutput(plan->outputIndex[k], &data, &bytes); !s)
        return s;
      (*outputs)[k] = static_cast<const uint8_t *>(data);
    }
    return Status::success();
  }
  const runtime::DeviceInfo &device() const override {
    return plans_.front().engine->device();
  }
  const Engine &anyEngine() const override { return *plans_.front().engine; }

private:
  std::vector<Plan> plans_; ///< ascending rows
};

/// One plan with a profile per batch size (kilnc --profile 'x=1x...'
/// --profile 'x=8x...'): merged requests run on the profile of the smallest
/// batch that holds them, on one execution context per worker, which
/// switches profiles as the batches come.
class ProfilePlanExecutor : public BatchExecutor {
public:
  ProfilePlanExecutor(std::unique_ptr<Engine> engine,
                      std::vector<std::pair<int64_t, size_t>> profiles,
                      std::vector<std::unique_ptr<ExecutionContext>> contexts)
      : engine_(std::move(engine)), profiles_(std::move(profiles)),
        contexts_(std::move(contexts)) {}

  int64_t maxRows() const override { return profiles_.back().first; }
  int64_t executionRows(int64_t rows) const override {
    for (const auto &[batch, index] : profiles_)
      if (batch >= rows)
        return batch;
    return -1;
  }
  Status execute(size_t instance, int64_t rows,
                 const std::vector<const uint8_t *> &inputs,
                 std::vector<const uint8_t *> *outputs) override {
    const std::pair<int64_t, size_t> *profile = nullptr;
    for (const auto &p : profiles_)
      if (p.first == rows)
        profile = &p;
    if (!profile || instance >= contexts_.size())
      return Status(StatusCode::Internal,
                    "no profile of batch " + std::to_string(rows));
    ExecutionContext &ctx = *contexts_[instance];
    if (Status s = ctx.setProfile(profile->second); !s)
      return s;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (Status s = ctx.setInput(i, inputs[i], ctx.inputBytes(i)); !s)
        return s;
    if (Status s = ctx.run(); !s)
      return s;
    outputs->resize(ctx.numOutputs());
    for (size_t i = 0; i < outputs->size(); ++i) {
      const void *data = nullptr;
      size_t bytes = 0;
      if (Status s = ctx.getOutput(i, &data, &bytes); !s)
        return s;
      (*outputs)[i] = static_cast<const uint8_t *>(data);
    }
    return Status::success();
  }
  const runtime::DeviceInfo &device() const override {
    return engine_->device();
  }
  const Engine &anyEngine() const override { return *engine_; }

private:
  std::unique_ptr<Engine> engine_;
  std::vector<std::pair<int64_t, size_t>> profiles_; ///< (batch, profile)
  std::vector<std::unique_ptr<ExecutionContext>> contexts_;
};

Status loadEngine(const std::string &path,
                  const runtime::EngineOptions &options,
                  std::unique_ptr<Engine> *engine) {
  return Engine::loadFile(path, options, engine); // names the file
}

std::vector<int64_t> trailing(const std::vector<int64_t> &shape) {
  return std::vector<int64_t>(shape.begin() + 1, shape.end());
}

/// The model's tensors from a plan's (inputs fixed at build time are the
/// server's to bind and left out). `batch` > 0: every tensor must have that
/// leading dimension, which the spec shows as -1.
Status tensorSpecs(const std::string &path,
                   const std::vector<TensorInfo> &infos, int64_t batch,
                   bool isInput, std::vector<TensorSpec> *specs) {
  for (const TensorInfo &t : infos) {
    const char *what = isInput ? "input" : "output";
    if (!t.fixedValue.empty())
      return Status(StatusCode::NotImplemented,
                    path + ": input '" + t.name +
                        "' is fixed at build time (kilnc --input-value); "
                        "kiln-serve serves plans whose inputs all come from "
                        "requests");
    if (t.isDynamic())
      return Status(StatusCode::NotImplemented,
                    path + ": " + what + " '" + t.name +
                        "' has a dynamic dimension: a plan with a profile "
                        "per batch size is served with max_batch_size in "
                        "config.json; kiln-serve runs no other dynamic plans");
    if (!v2DataType(t.dtype))
      return Status(StatusCode::NotImplemented,
                    path + ": " + what + " '" + t.name + "' is " +
                        runtime::dtypeName(t.dtype) +
                        ", which the inference protocol has no datatype for");
    TensorSpec spec{t.name, t.dtype, t.shape, t.byteSize};
    if (batch > 0) {
      if (t.shape.empty() || t.shape[0] != batch)
        return Status(StatusCode::InvalidArgument,
                      path + ": " + what + " '" + t.name + "' has shape " +
                          shapeText(t.shape) +
                          ", a batch plan needs leading dimension " +
                          std::to_string(batch));
      spec.shape[0] = -1;
      spec.rowBytes = t.byteSize / uint64_t(batch);
    }
    specs->push_back(std::move(spec));
  }
  return Status::success();
}

bool sameSpecs(const std::vector<TensorSpec> &a,
               const std::vector<TensorSpec> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].dtype != b[i].dtype ||
        a[i].shape != b[i].shape)
      return false;
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// ModelVersion
//===----------------------------------------------------------------------===//

/// max_batch_size without batch_plans: model.plan must have a profile per
/// batch size, every input and output with that leading dimension and the
/// same trailing ones.
static Status loadProfilePlan(const std::string &dir, const std::string &name,
                              int64_t version, const ModelConfig &config,
                              const runtime::EngineOptions &options,
                              std::unique_ptr<ModelVersion> *model) {
  std::string path = (fs::path(dir) / "model.plan").string();
  std::unique_ptr<Engine> engine;
  if (Status s = loadEngine(path, options, &engine); !s)
    return s;
  if (engine->numProfiles() < 2)
    return Status(StatusCode::InvalidArgument,
                  path + ": max_batch_size " +
                      std::to_string(config.maxBatchSize) +
                      " needs batch_plans (one static plan per batch size) "
                      "or a plan with one profile per batch size (kilnc "
                      "--profile 'x=1x...' --profile 'x=8x...'); this plan "
                      "has one profile");
  std::vector<std::pair<int64_t, size_t>> profiles;
  std::vector<TensorSpec> inputs, outputs;
  for (size_t k = 0; k < engine->numProfiles(); ++k) {
    const std::vector<TensorInfo> &in = engine->profileInputs(k);
    int64_t batch = !in.empty() && !in[0].shape.empty() ? in[0].shape[0] : 0;
    std::string label = path + " profile " + std::to_string(k);
    std::vector<TensorSpec> ins, outs;
    if (Status s = tensorSpecs(label, in, batch, true, &ins); !s)
      return s;
    if (Status s = tensorSpecs(label, engine->profileOutputs(k), batch, false,
                               &outs);
        !s)
      return s;
    if (k == 0) {
      inputs = ins;
      outputs = outs;
    } else if (!sameSpecs(ins, inputs) || !sameSpecs(outs, outputs)) {
      return Status(StatusCode::InvalidArgument,
                    label + ": inputs/outputs differ from profile 0's beyond "
                            "the batch dimension; kiln-serve batches plans "
                            "whose profiles differ in batch size only");
    }
    for (const auto &p : profiles)
      if (p.first == batch)
        return Status(StatusCode::InvalidArgument,
                      label + ": two profiles of batch " +
                          std::to_string(batch));
    profiles.emplace_back(batch, k);
  }
  std::sort(profiles.begin(), profiles.end());
  if (config.maxBatchSize > profiles.back().first)
    return Status(StatusCode::InvalidArgument,
                  path + ": max_batch_size " +
                      std::to_string(config.maxBatchSize) +
                      " exceeds the largest profile's batch (" +
                      std::to_string(profiles.back().first) + ")");
  std::vector<std::unique_ptr<ExecutionContext>> contexts;
  for (int k = 0; k < config.instanceCount; ++k) {
    std::unique_ptr<ExecutionContext> ctx;
    if (Status s = engine->createContext(&ctx); !s)
      return Status(s.code(), path + ": " + s.message());
    contexts.push_back(std::move(ctx));
  }
  auto executor = std::make_unique<ProfilePlanExecutor>(
      std::move(engine), std::move(profiles), std::move(contexts));
  *model = std::make_unique<ModelVersion>(name, version, config,
                                          std::move(inputs), std::move(outputs),
                                          std::move(executor));
  return (*model)->start();
}

Status ModelVersion::load(const std::string &dir, const std::string &name,
                          int64_t version, const ModelConfig &config,
                          const runtime::EngineOptions &options,
                          std::unique_ptr<ModelVersion> *model) {
  std::map<int64_t, std::string> files = config.batchPlans;
  bool batching = config.maxBatchSize > 0;
  if (batching && files.empty())
    return loadProfilePlan(dir, name, version, config, options, model);
  if (files.empty())
    files[1] = "model.plan";
  std::vector<StaticPlanExecutor::Plan> plans;
  std::vector<TensorSpec> inputs, outputs;
  for (const auto &[rows, file] : files) {
    std::string path = (fs::path(dir) / file).string();
    StaticPlanExecutor::Plan plan;
    plan.rows = rows;
    if (Status s = loadEngine(path, options, &plan.engine); !s)
      return s;
    std::vector<TensorSpec> in, out;
    int64_t batch = batching ? rows : 0;
    if (Status s = tensorSpecs(path, plan.engine->inputs(), batch, true, &in);
        !s)
      return s;
    if (Status s =
            tensorSpecs(path, plan.engine->outputs(), batch, false, &out);
        !s)
      return s;
    if (plans.empty()) {
      inputs = in;
      outputs = out;
    } else if (!sameSpecs(in, inputs) || !sameSpecs(out, outputs)) {
      return Status(StatusCode::InvalidArgument,
                    path + ": inputs/outputs differ from the plan of batch " +
                        std::to_string(plans.front().rows) +
                        " beyond the batch dimension");
    }
    for (size_t i = 0; i < in.size(); ++i)
      plan.inputIndex.push_back(i);
    for (size_t i = 0; i < out.size(); ++i)
      plan.outputIndex.push_back(i);
    for (int k = 0; k < config.instanceCount; ++k) {
      std::unique_ptr<ExecutionContext> ctx;
      if (Status s = plan.engine->createContext(&ctx); !s)
        return Status(s.code(), path + ": " + s.message());
      plan.contexts.push_back(std::move(ctx));
    }
    plans.push_back(std::move(plan));
  }
  auto executor = std::make_unique<StaticPlanExecutor>(std::move(plans));
  *model = std::make_unique<ModelVersion>(name, version, config,
                                          std::move(inputs), std::move(outputs),
                                          std::move(executor));
  return (*model)->start();
}

ModelVersion::ModelVersion(std::string name, int64_t version,
                           ModelConfig config, std::vector<TensorSpec> inputs,
                           std::vector<TensorSpec> outputs,
                           std::unique_ptr<BatchExecutor> executor)
    : name_(std::move(name)), version_(version), config_(std::move(config)),
      inputs_(std::move(inputs)), outputs_(std::move(outputs)),
      executor_(std::move(executor)) {
  if (!batching())
    config_.maxBatchSize = 0;
}

Status ModelVersion::start() {
  // Merged requests are gathered into page-locked memory on a GPU: the
  // batch then reaches the device by DMA at the link's speed, where a
  // pageable buffer is staged by the driver first.
  staging_.resize(size_t(config_.instanceCount));
  if (batching()) {
    for (auto &buffers : staging_) {
      for (const TensorSpec &spec : inputs_) {
        std::unique_ptr<runtime::HostBuffer> b;
        uint64_t bytes = uint64_t(executor_->maxRows()) * spec.rowBytes;
        if (Status s = executor_->anyEngine().allocateHostBuffer(
                size_t(std::max<uint64_t>(bytes, 1)), &b);
            !s)
          return Status(s.code(), "model '" + name_ + "' input '" + spec.name +
                                      "' staging buffer: " + s.message());
        buffers.push_back(std::move(b));
      }
    }
  }
  for (int i = 0; i < config_.instanceCount; ++i)
    workers_.emplace_back([this, i] { workerLoop(size_t(i)); });
  return Status::success();
}

ModelVersion::~ModelVersion() { stop(); }

void ModelVersion::stop() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (std::thread &t : workers_)
    if (t.joinable())
      t.join();
}

Error ModelVersion::infer(const std::vector<Tensor> &inputs,
                          std::vector<Tensor> *outputs) {
  Clock::time_point start = Clock::now();
  auto fail = [&](Error e) {
    metrics_.failure++;
    return e;
  };
  auto pending = std::make_unique<Pending>();
  pending->inputs.assign(inputs_.size(), nullptr);
  for (const Tensor &t : inputs) {
    auto it = std::find_if(inputs_.begin(), inputs_.end(),
                           [&](const TensorSpec &s) { return s.name == t.name; });
    if (it == inputs_.end())
      return fail(badRequest("unexpected input '" + t.name + "' for model '" +
                             name_ + "'"));
    size_t k = size_t(it - inputs_.begin());
    if (pending->inputs[k])
      return fail(badRequest("input '" + t.name + "' given twice"));
    pending->inputs[k] = &t;
  }
  int64_t rows = -1;
  for (size_t k = 0; k < inputs_.size(); ++k) {
    const TensorSpec &spec = inputs_[k];
    const Tensor *t = pending->inputs[k];
    if (!t)
      return fail(badRequest("missing input '" + spec.name + "' for model '" +
                             name_ + "'"));
    if (t->dtype != spec.dtype)
      return fail(badRequest("input '" + spec.name + "': datatype " +
                             v2DataType(t->dtype) + ", the model takes " +
                             v2DataType(spec.dtype)));
    bool shapeOk = t->shape.size() == spec.shape.size();
    if (shapeOk && batching()) {
      shapeOk = !t->shape.empty() &&
                trailing(t->shape) == trailing(spec.shape) &&
                t->shape[0] >= 1 && t->shape[0] <= config_.maxBatchSize;
      if (shapeOk && rows >= 0 && t->shape[0] != rows)
        return fail(badRequest("inputs have different batch sizes (" +
                               std::to_string(rows) + " and " +
                               std::to_string(t->shape[0]) + ")"));
      if (shapeOk)
        rows = t->shape[0];
    } else if (shapeOk) {
      shapeOk = t->shape == spec.shape;
      rows = 1;
    }
    if (!shapeOk) {
      std::string want = shapeText(spec.shape);
      if (batching())
        want += " with batch 1.." + std::to_string(config_.maxBatchSize);
      return fail(badRequest("input '" + spec.name + "': shape " +
                             shapeText(t->shape) + ", the model takes " +
                             want));
    }
    uint64_t bytes = uint64_t(elementCount(t->shape)) * dtypeSize(t->dtype);
    if (t->byteSize() != bytes)
      return fail(badRequest("input '" + spec.name +
                             "': " + std::to_string(t->byteSize()) +
                             " bytes of data, shape " + shapeText(t->shape) +
                             " needs " + std::to_string(bytes)));
  }
  if (inputs_.empty())
    rows = 1;
  pending->rows = rows;
  pending->outputs = outputs;
  std::future<Error> done = pending->done.get_future();
  std::future<std::shared_ptr<Gather>> placed = pending->placed.get_future();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stopping_)
      return fail(unavailable("model '" + name_ + "' is shutting down"));
    pending->queued = Clock::now();
    queue_.push_back(std::move(pending));
  }
  cv_.notify_all();
  // A merged batch: this thread helps copy the rows into the batch.
  if (std::shared_ptr<Gather> gather = placed.get())
    gather->help();
  Error e = done.get();
  if (e)
    return fail(e);
  metrics_.success++;
  metrics_.requestSeconds.observe(
      std::chrono::duration<double>(Clock::now() - start).count());
  return noError();
}

std::vector<std::unique_ptr<ModelVersion::Pending>> ModelVersion::nextBatch() {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [&] {
    return (stopping_ && queue_.empty()) || (!collecting_ && !queue_.empty());
  });
  std::vector<std::unique_ptr<Pending>> batch;
  if (queue_.empty())
    return batch;
  collecting_ = true;
  int64_t maxRows = batching() ? config_.maxBatchSize : 1;
  int64_t rows = 0;
  // Requests leave the queue in arrival order: one that does not fit ends
  // the batch and opens the next.
  auto take = [&] {
    while (!queue_.empty() && rows + queue_.front()->rows <= maxRows) {
      rows += queue_.front()->rows;
      batch.push_back(std::move(queue_.front()));
      queue_.pop_front();
    }
  };
  take();
  auto preferred = [&] {
    const auto &p = config_.preferredBatchSizes;
    return std::find(p.begin(), p.end(), rows) != p.end();
  };
  if (batching() && config_.maxQueueDelayMicroseconds > 0) {
    Clock::time_point deadline =
        batch.front()->queued +
        std::chrono::microseconds(config_.maxQueueDelayMicroseconds);
    while (rows < maxRows && !preferred() && queue_.empty() && !stopping_) {
      if (cv_.wait_until(lock, deadline) == std::cv_status::timeout) {
        take();
        break;
      }
      take();
    }
  }
  collecting_ = false;
  lock.unlock();
  cv_.notify_all();
  return batch;
}

void ModelVersion::workerLoop(size_t instance) {
  for (;;) {
    std::vector<std::unique_ptr<Pending>> batch = nextBatch();
    if (batch.empty())
      return;
    runBatch(instance, batch);
  }
}

void ModelVersion::Gather::help() {
  size_t mine = 0;
  for (size_t i; (i = next.fetch_add(1)) < chunks.size(); ++mine) {
    const Chunk &c = chunks[i];
    if (c.src)
      std::memcpy(c.dst, c.src, c.bytes);
    else
      std::memset(c.dst, 0, c.bytes);
  }
  if (!mine)
    return;
  std::lock_guard<std::mutex> lock(mutex);
  copied += mine;
  if (copied == chunks.size())
    cv.notify_all();
}

void ModelVersion::Gather::finish() {
  help();
  std::unique_lock<std::mutex> lock(mutex);
  cv.wait(lock, [&] { return copied == chunks.size(); });
}

void ModelVersion::runBatch(size_t instance,
                            std::vector<std::unique_ptr<Pending>> &batch) {
  Clock::time_point dispatched = Clock::now();
  int64_t rows = 0;
  for (const auto &p : batch) {
    rows += p->rows;
    metrics_.queueSeconds.observe(
        std::chrono::duration<double>(dispatched - p->queued).count());
  }
  int64_t execRows = executor_->executionRows(rows);
  // Every request is placed exactly once (its thread waits for that), then
  // answered.
  auto failAll = [&](const std::string &message) {
    for (auto &p : batch)
      p->done.set_value(internalError(message));
  };
  if (execRows < rows) {
    for (auto &p : batch)
      p->placed.set_value(nullptr);
    return failAll("no plan takes a batch of " + std::to_string(rows));
  }

  // An unbatched model (one request, rows == 1) binds the request's data as
  // it is; merged requests are copied side by side into the staging buffers
  // (by the worker and the requests' threads), the rows past them zeroed.
  std::vector<const uint8_t *> in(inputs_.size());
  if (batch.size() == 1 && execRows == rows) {
    for (size_t k = 0; k < inputs_.size(); ++k)
      in[k] = batch[0]->inputs[k]->bytes();
    batch[0]->placed.set_value(nullptr);
  } else {
    constexpr size_t kChunkBytes = 256 << 10;
    auto &staging = staging_[instance];
    auto gather = std::make_shared<Gather>();
    for (size_t k = 0; k < inputs_.size(); ++k) {
      uint8_t *dst = staging[k]->data();
      for (const auto &p : batch) {
        const Tensor &t = *p->inputs[k];
        for (size_t at = 0; at < t.byteSize(); at += kChunkBytes)
          gather->chunks.push_back({t.bytes() + at, dst + at,
                                    std::min(kChunkBytes, t.byteSize() - at)});
        dst += t.byteSize();
      }
      uint8_t *end =
          staging[k]->data() + uint64_t(execRows) * inputs_[k].rowBytes;
      for (; dst < end; dst += kChunkBytes) // padding rows: zeros
        gather->chunks.push_back(
            {nullptr, dst, std::min(kChunkBytes, size_t(end - dst))});
      in[k] = staging[k]->data();
    }
    for (auto &p : batch)
      p->placed.set_value(gather);
    gather->finish();
  }
  Clock::time_point gathered = Clock::now();
  std::vector<const uint8_t *> out;
  if (Status s = executor_->execute(instance, execRows, in, &out); !s)
    return failAll("execution failed: " + s.message());
  Clock::time_point executed = Clock::now();
  metrics_.executions++;
  metrics_.inferences += uint64_t(rows);
  metrics_.batchSize.observe(double(rows));
  {
    std::lock_guard<std::mutex> lock(metrics_.execMutex);
    metrics_.executionsByPlan[execRows]++;
  }
  int64_t row = 0;
  for (auto &p : batch) {
    p->outputs->clear();
    for (size_t k = 0; k < outputs_.size(); ++k) {
      const TensorSpec &spec = outputs_[k];
      Tensor t;
      t.name = spec.name;
      t.dtype = spec.dtype;
      t.shape = spec.shape;
      if (batching())
        t.shape[0] = p->rows;
      const uint8_t *src = out[k] + uint64_t(row) * spec.rowBytes;
      t.data.assign(src, src + uint64_t(p->rows) * spec.rowBytes);
      p->outputs->push_back(std::move(t));
    }
    row += p->rows;
  }
  Clock::time_point copiedOut = Clock::now();
  auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  metrics_.computeInputSeconds.observe(seconds(dispatched, gathered));
  metrics_.computeInferSeconds.observe(seconds(gathered, executed));
  metrics_.computeOutputSeconds.observe(seconds(executed, copiedOut));
  for (auto &p : batch)
    p->done.set_value(noError());
}

//===----------------------------------------------------------------------===//
// Repository
//===----------------------------------------------------------------------===//

static bool readFile(const fs::path &path, std::string *text) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return false;
  std::stringstream ss;
  ss << in.rdbuf();
  *text = ss.str();
  return bool(in) || in.eof();
}

Status Repository::load(const std::string &dir,
                        const runtime::EngineOptions &options, int verbose) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return Status(StatusCode::NotFound,
                  "model repository '" + dir + "' is not a directory");
  std::vector<fs::path> modelDirs;
  for (const auto &e : fs::directory_iterator(dir, ec))
    if (e.is_directory())
      modelDirs.push_back(e.path());
  std::sort(modelDirs.begin(), modelDirs.end());
  size_t failed = 0;
  auto report = [&](const std::string &m) {
    std::fprintf(stderr, "kiln-serve: error: %s (skipped)\n", m.c_str());
    failed++;
  };
  for (const fs::path &modelDir : modelDirs) {
    std::string name = modelDir.filename().string();
    ModelConfig config;
    fs::path configPath = modelDir / "config.json";
    if (fs::exists(configPath, ec)) {
      std::string text;
      if (!readFile(configPath, &text)) {
        report("model '" + name + "': cannot read " + configPath.string());
        continue;
      }
      if (Status s = parseModelConfig(text, &config); !s) {
        report("model '" + name + "': " + configPath.string() + ": " +
               s.message().substr(std::strlen("config.json: ")));
        continue;
      }
    }
    std::vector<int64_t> versions;
    for (const auto &e : fs::directory_iterator(modelDir, ec)) {
      std::string v = e.path().filename().string();
      if (!e.is_directory() || v.empty() || v.size() > 18 ||
          v.find_first_not_of("0123456789") != std::string::npos) {
        if (verbose && v != "config.json")
          std::fprintf(stderr, "kiln-serve: model '%s': ignoring '%s' (not a "
                               "version folder)\n",
                       name.c_str(), v.c_str());
        continue;
      }
      versions.push_back(std::stoll(v));
    }
    std::sort(versions.begin(), versions.end());
    if (versions.empty()) {
      report("model '" + name + "': no version folder (" + modelDir.string() +
             "/<version>/model.plan)");
      continue;
    }
    for (int64_t v : versions) {
      std::unique_ptr<ModelVersion> model;
      fs::path versionDir = modelDir / std::to_string(v);
      if (!fs::is_directory(versionDir, ec)) { // "01" and alike
        report("model '" + name + "': version folders are plain numbers");
        continue;
      }
      if (Status s = ModelVersion::load(versionDir.string(), name, v, config,
                                        options, &model);
          !s) {
        report("model '" + name + "' version " + std::to_string(v) + ": " +
               s.message());
        continue;
      }
      const BatchExecutor &ex = model->executor();
      std::fprintf(stderr,
                   "kiln-serve: loaded model '%s' version %lld on %s "
                   "(%s; %d instance%s)\n",
                   name.c_str(), (long long)v,
                   ex.anyEngine().onGpu() ? ex.device().name.c_str() : "host",
                   model->batching()
                       ? ("batching up to " +
                          std::to_string(model->config().maxBatchSize) + ", " +
                          (model->config().batchPlans.empty()
                               ? std::to_string(
                                     ex.anyEngine().numProfiles()) +
                                     " profiles of one plan"
                               : std::to_string(
                                     model->config().batchPlans.size()) +
                                     " plans"))
                             .c_str()
                       : "no batching",
                   model->config().instanceCount,
                   model->config().instanceCount == 1 ? "" : "s");
      if (!ex.anyEngine().deviceNote().empty())
        std::fprintf(stderr, "kiln-serve: note: %s\n",
                     ex.anyEngine().deviceNote().c_str());
      models_[name][v] = std::move(model);
    }
  }
  if (models_.empty())
    return Status(StatusCode::NotFound,
                  "no model loaded from '" + dir + "'" +
                      (failed ? " (" + std::to_string(failed) +
                                    " failed, see above)"
                              : " (expected DIR/<model>/<version>/model.plan)"));
  return Status::success();
}

Error Repository::find(const std::string &model, const std::string &version,
                       ModelVersion **out) const {
  auto it = models_.find(model);
  if (it == models_.end())
    return notFound("unknown model '" + model + "'");
  if (version.empty()) {
    *out = it->second.rbegin()->second.get();
    return noError();
  }
  char *end = nullptr;
  long long v = std::strtoll(version.c_str(), &end, 10);
  auto vit = *end ? it->second.end() : it->second.find(v);
  if (vit == it->second.end())
    return notFound("unknown version '" + version + "' of model '" + model +
                    "'");
  *out = vit->second.get();
  return noError();
}

std::vector<ModelVersion *> Repository::all() const {
  std::vector<ModelVersion *> out;
  for (const auto &[name, versions] : models_)
    for (const auto &[v, m] : versions)
      out.push_back(m.get());
  return out;
}

void Repository::stop() {
  for (ModelVersion *m : all())
    m->stop();
}
