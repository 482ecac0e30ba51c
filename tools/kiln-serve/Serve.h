//===- Serve.h - kiln-serve: models, the batching scheduler, metrics ------===//
//
// What the REST and gRPC front ends share: the v2 protocol's tensors and
// errors, the model repository (one Engine per plan, a pool of execution
// contexts per engine, worker threads), the request queue that merges
// requests for batching executors, and the Prometheus metrics.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TOOLS_KILNSERVE_SERVE_H
#define KILN_TOOLS_KILNSERVE_SERVE_H

#include "kiln/Runtime/Runtime.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace kiln::serve {

using runtime::DType;
using runtime::Status;
using Clock = std::chrono::steady_clock;

/// A request's failure as the protocol reports it: an HTTP status (400, 404,
/// 413, 500, 503; gRPC maps it to a status code) and a message.
struct Error {
  int httpStatus = 0; ///< 0 = no error
  std::string message;
  explicit operator bool() const { return httpStatus != 0; }
};
inline Error noError() { return {}; }
inline Error badRequest(std::string m) { return {400, std::move(m)}; }
inline Error notFound(std::string m) { return {404, std::move(m)}; }
inline Error unavailable(std::string m) { return {503, std::move(m)}; }
inline Error internalError(std::string m) { return {500, std::move(m)}; }

/// The protocol's datatype name of `dtype` ("FP32", "INT64", ...), or
/// nullptr for element types it has none for (fp8).
const char *v2DataType(DType dtype);
std::optional<DType> parseV2DataType(std::string_view name);

/// A tensor of a request or response: row-major little-endian bytes, owned
/// (`data`) or, for binary request tensors, a view of the request body
/// (`view`, `viewBytes`) that the front end keeps alive while it is served:
/// image-sized inputs are not copied on their way to the batch.
struct Tensor {
  std::string name;
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
  const uint8_t *view = nullptr;
  size_t viewBytes = 0;
  const uint8_t *bytes() const { return view ? view : data.data(); }
  size_t byteSize() const { return view ? viewBytes : data.size(); }
  /// Views `n` bytes at `p` (set `dtype` first) when they are aligned to
  /// the element size, as the runtime binds only such memory; else copies.
  void viewOrCopy(const uint8_t *p, size_t n) {
    if (reinterpret_cast<uintptr_t>(p) % runtime::dtypeSize(dtype) == 0) {
      view = p;
      viewBytes = n;
    } else {
      data.assign(p, p + n);
    }
  }
};
/// Elements of `shape`; -1 when a dimension is negative or it overflows.
int64_t elementCount(const std::vector<int64_t> &shape);
std::string shapeText(const std::vector<int64_t> &shape);

/// An input or output as model metadata shows it (-1 = the batch dimension).
struct TensorSpec {
  std::string name;
  DType dtype = DType::f32;
  std::vector<int64_t> shape;
  uint64_t rowBytes = 0; ///< bytes of one batch row (the whole tensor unbatched)
};

/// REPO/<model>/config.json.
struct ModelConfig {
  int64_t maxBatchSize = 0; ///< 0 = no batching
  std::vector<int64_t> preferredBatchSizes;
  int64_t maxQueueDelayMicroseconds = 0;
  int instanceCount = 1;
  std::map<int64_t, std::string> batchPlans; ///< batch -> file in the version folder
};
/// Parses config.json's text; an error names the bad key.
Status parseModelConfig(const std::string &text, ModelConfig *config);

/// Histogram with fixed upper bounds (Prometheus cumulative buckets).
class Histogram {
public:
  explicit Histogram(std::vector<double> bounds);
  void observe(double value);
  /// The series NAME_bucket/_sum/_count with `labels` ("model=\"m\"").
  void render(std::string &out, const std::string &name,
              const std::string &labels) const;

private:
  std::vector<double> bounds_;
  mutable std::mutex mutex_;
  std::vector<uint64_t> counts_; ///< per bucket, +Inf last
  double sum_ = 0;
  uint64_t count_ = 0;
};

/// What /metrics reports for one model version.
struct ModelMetrics {
  ModelMetrics();
  std::atomic<uint64_t> success{0}, failure{0}, executions{0},
      inferences{0}; ///< inferences: rows run for requests (padding excluded)
  Histogram requestSeconds, queueSeconds, batchSize;
  /// Per execution: gathering the requests' inputs into the batch, running
  /// the plan (input and output copies included), copying the outputs
  /// into the responses.
  Histogram computeInputSeconds, computeInferSeconds, computeOutputSeconds;
  std::mutex execMutex;
  std::map<int64_t, uint64_t> executionsByPlan; ///< plan batch -> runs
};

/// Runs n merged requests: the rows of the requests, concatenated along the
/// leading dimension, in one execution. The scheduler asks how many rows an
/// execution of n rows really runs (the rows past n are zero-filled and
/// their outputs ignored) and binds buffers of that many rows.
class BatchExecutor {
public:
  virtual ~BatchExecutor();
  /// The most rows one execution takes.
  virtual int64_t maxRows() const = 0;
  /// The rows an execution of `rows` merged rows runs (>= rows).
  virtual int64_t executionRows(int64_t rows) const = 0;
  /// Runs `rows` (an executionRows() value) rows on execution context
  /// `instance` (one per worker thread): inputs[i] holds rows * input i's
  /// row bytes; *outputs gets, per output, where its rows * row bytes lie
  /// (valid until the next execute() on that instance).
  virtual Status execute(size_t instance, int64_t rows,
                         const std::vector<const uint8_t *> &inputs,
                         std::vector<const uint8_t *> *outputs) = 0;
  /// GPU engines: the device (ordinal -1 on the host).
  virtual const runtime::DeviceInfo &device() const = 0;
  virtual const runtime::Engine &anyEngine() const = 0;
};

/// One version of a model: its executor, request queue and workers.
class ModelVersion {
public:
  ModelVersion(std::string name, int64_t version, ModelConfig config,
               std::vector<TensorSpec> inputs, std::vector<TensorSpec> outputs,
               std::unique_ptr<BatchExecutor> executor);
  ~ModelVersion();
  /// Allocates the staging buffers and starts the workers (once).
  Status start();

  /// Loads REPO/<name>/<version>/ with `config`.
  static Status load(const std::string &dir, const std::string &name,
                     int64_t version, const ModelConfig &config,
                     const runtime::EngineOptions &options,
                     std::unique_ptr<ModelVersion> *model);

  /// Checks the inputs against the model (names, datatypes, shapes, sizes),
  /// queues the request and waits for its outputs (every output, in model
  /// order). Thread-safe.
  Error infer(const std::vector<Tensor> &inputs, std::vector<Tensor> *outputs);
  /// Stops taking requests (503), runs the queued ones, joins the workers.
  void stop();

  const std::string &name() const { return name_; }
  int64_t version() const { return version_; }
  const ModelConfig &config() const { return config_; }
  const std::vector<TensorSpec> &inputs() const { return inputs_; }
  const std::vector<TensorSpec> &outputs() const { return outputs_; }
  bool ready() const { return !stopping_.load(); }
  bool batching() const { return config_.maxBatchSize > 0; }
  const BatchExecutor &executor() const { return *executor_; }
  ModelMetrics &metrics() { return metrics_; }

private:
  /// A merged batch's gather: copies of the requests' rows into the
  /// staging buffers, in chunks that the worker and the requests' own
  /// threads (waiting for their answers anyway) claim in turn, so that the
  /// copies run in parallel when cores are free and on the worker when not.
  struct Gather {
    struct Chunk {
      const uint8_t *src; ///< null: zero-fill
      uint8_t *dst;
      size_t bytes;
    };
    std::vector<Chunk> chunks;
    std::atomic<size_t> next{0};
    std::mutex mutex;
    std::condition_variable cv;
    size_t copied = 0;
    /// Copies chunks until none is left unclaimed.
    void help();
    /// help(), then waits for the chunks others claimed.
    void finish();
  };
  struct Pending {
    std::vector<const Tensor *> inputs; ///< in model input order
    int64_t rows = 1;
    Clock::time_point queued;
    std::vector<Tensor> *outputs = nullptr;
    /// Set once, before `done`: the batch's gather when the request's rows
    /// are copied into it (null: its own memory is bound, or it failed).
    std::promise<std::shared_ptr<Gather>> placed;
    std::promise<Error> done;
  };
  void workerLoop(size_t instance);
  /// Takes the next batch off the queue (blocks; empty when stopping).
  std::vector<std::unique_ptr<Pending>> nextBatch();
  void runBatch(size_t instance, std::vector<std::unique_ptr<Pending>> &batch);

  std::string name_;
  int64_t version_;
  ModelConfig config_;
  std::vector<TensorSpec> inputs_, outputs_;
  std::unique_ptr<BatchExecutor> executor_;
  ModelMetrics metrics_;

  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::unique_ptr<Pending>> queue_;
  bool collecting_ = false; ///< a worker is forming a batch
  std::atomic<bool> stopping_{false};
  std::vector<std::thread> workers_;
  /// Per worker, per input: the merged-rows buffer (max rows; page-locked
  /// on a GPU). Batching models only.
  std::vector<std::vector<std::unique_ptr<runtime::HostBuffer>>> staging_;
};

/// Every model version of a repository.
class Repository {
public:
  /// Loads every REPO/<model>/<version>/; a model or version that fails is
  /// reported on stderr and skipped. Fails when nothing loaded.
  Status load(const std::string &dir, const runtime::EngineOptions &options,
              int verbose);
  /// The model's version `version` ("" = the newest).
  Error find(const std::string &model, const std::string &version,
             ModelVersion **out) const;
  std::vector<ModelVersion *> all() const;
  void stop();

private:
  std::map<std::string, std::map<int64_t, std::unique_ptr<ModelVersion>>>
      models_;
};

/// Process-wide state the front ends consult.
struct ServerState {
  Repository repository;
  std::atomic<bool> ready{false};
  std::atomic<bool> shuttingDown{false};
  int verbose = 0;
  /// Prometheus text exposition of every model's metrics.
  std::string renderMetrics();
};

/// Front ends; each start() returns once listening, or an error.
class HttpFrontend {
public:
  HttpFrontend(ServerState &state, size_t maxRequestBytes, int threads);
  ~HttpFrontend();
  /// `metricsOnly`: serves GET /metrics only.
  Status start(int port, bool metricsOnly);
  /// Stops listening; returns once in-flight requests have been answered.
  void stop();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class GrpcFrontend {
public:
  GrpcFrontend(ServerState &state, size_t maxRequestBytes);
  ~GrpcFrontend();
  Status start(int port);
  void stop();

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace kiln::serve

#endif // KILN_TOOLS_KILNSERVE_SERVE_H
