//===- Runner.h - kiln-run: one run of a plan, its report and benchmark ---===//
#ifndef KILN_TOOLS_KILNRUN_RUNNER_H
#define KILN_TOOLS_KILNRUN_RUNNER_H

#include "tools/common/Json.h"
#include "tools/common/OutputFile.h"
#include "tools/common/Tensor.h"

#include "kiln/Runtime/Runtime.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::run {

using tools::CompareResult;
using tools::Json;
using tools::Status;
using tools::Tensor;
using Clock = std::chrono::steady_clock;

constexpr int kExitOk = 0;
constexpr int kExitMismatch = 1;
constexpr int kExitError = 2;

// Defaults of the ONNX backend test runner, whose reference outputs
// (output_K.pb) --compare usually reads.
constexpr double kDefaultRtol = 1e-3;
constexpr double kDefaultAtol = 1e-7;

struct Options {
  std::string plan;
  std::vector<std::pair<std::string, std::string>> inputs; // name, file
  std::string inputDir, outputDir, compareDir;
  double rtol = kDefaultRtol, atol = kDefaultAtol;
  uint64_t seed = 0;
  bool json = false;
  std::string jsonFile; ///< --json=FILE
  runtime::EngineOptions engine;
  bool cudaGraphs = true;
  bool bench = false;
  bool profile = false;
  std::string profileFile; ///< --profile=FILE
  uint64_t warmup = 20, iterations = 200, streams = 1;
  bool info = false; ///< --info: describe the plan, run nothing
  /// --profile-index: the plan profile to run; UINT64_MAX = the one whose
  /// shapes the input files have (profile 0 for random inputs).
  uint64_t profileIndex = UINT64_MAX;
};

/// kiln-run --info: the plan's format, targets, driver, sizes, inputs and
/// outputs, choices and provenance, as text or JSON (--json, --json=FILE).
int printPlanInfo(const Options &opt);

/// Results of --bench.
struct BenchReport {
  uint64_t batch = 1;
  double p50 = 0, p90 = 0, p99 = 0, mean = 0, min = 0, max = 0;
  double wallSeconds = 0;
  double itemsPerSecond = 0, inferencesPerSecond = 0;
  double loadMs = 0, firstResultMs = 0;
  bool cudaGraphs = false;
  uint64_t weightsBytes = 0, arenaBytesPerContext = 0, ioBytesPerContext = 0,
           tensorMapBytesPerContext = 0;
  uint64_t peakAccountedBytes = 0;
  bool measured = false; ///< cuMemGetInfo values valid
  uint64_t measuredContextsBytes = 0, freeBytesAfter = 0, totalBytes = 0;
  std::optional<bool> identical; ///< streams > 1
};

/// Accumulates the report; printed as text or JSON at the end.
struct InputReport {
  std::string name, dtype, shape, source;
};
struct OutputReport {
  std::string name, dtype, shape, file;
  std::vector<int64_t> shapeValues;
  double minValue = 0, maxValue = 0, mean = 0;
  std::optional<CompareResult> compare;
};

/// Milliseconds since `t`.
double msSince(Clock::time_point t);
/// "%.6g".
std::string fmt(double v);
/// DIR/output_I.pb (the ONNX test-data layout).
std::string outputPath(const std::string &dir, size_t i);
/// "1.50 MiB".
std::string bytesText(uint64_t bytes);

/// Runs the plan of `Options` once (then profiles or benchmarks it) and
/// reports; run() returns the exit status.
class Runner {
public:
  explicit Runner(Options options) : opt_(std::move(options)) {}
  int run();

private:
  int fail(const std::string &message);
  bool loadInputs(std::vector<Tensor> &tensors);
  bool checkInput(const runtime::TensorInfo &info, Tensor &t,
                  const std::string &source);
  void printText(bool compared, bool allOk) const;
  /// Checks every output path before the run (refused paths, a
  /// --output-dir that is no directory, two outputs of one name).
  bool checkOutputs();
  /// Writes one output file by tools::writeOutputFile's rule, never over
  /// the plan, an input, a reference or an earlier output of this run.
  Status writeOutput(const std::string &path, std::string_view bytes);
  /// printJson and emitJson return false when the report file could not be
  /// written (the error printed).
  bool printJson(bool compared, bool allOk, const std::string &error);
  bool emitJson(const std::string &json);
  int profile(runtime::ExecutionContext &context);
  int bench(std::unique_ptr<runtime::ExecutionContext> first,
            const std::vector<Tensor> &inputs);
  void printBenchText() const;
  void addBenchJson(Json &report) const;

  Options opt_;
  Clock::time_point start_ = Clock::now();
  double loadMs_ = 0, firstResultMs_ = 0;
  uint64_t freeBeforeContexts_ = 0;
  std::optional<BenchReport> bench_;
  std::unique_ptr<runtime::Engine> engine_;
  /// The plan profile this run uses (loadInputs picks it).
  size_t profile_ = 0;
  /// Picks profile_ for these inputs (--profile-index, or by their shapes).
  bool selectProfile(const std::vector<Tensor> &tensors,
                     const std::vector<std::string> &sources);
  std::vector<InputReport> inputReports_;
  std::vector<OutputReport> outputReports_;
  /// Files the outputs may not replace: the plan, inputs, references and
  /// the outputs already written.
  std::vector<tools::ProtectedInput> protected_;
};

} // namespace kiln::run

#endif // KILN_TOOLS_KILNRUN_RUNNER_H
