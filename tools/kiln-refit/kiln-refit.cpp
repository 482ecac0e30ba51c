//===- kiln-refit.cpp - Put the weights of an ONNX model into a stripped plan //
//
// Exit status: 0 success, 1 stripped weights without a match in the model,
// 2 any other error (usage, plan, model, files).
//
//===----------------------------------------------------------------------===//

#include "Refit.h"

#include "tools/common/CommandLine.h"
#include "tools/common/InputFile.h"
#include "tools/common/OutputFile.h"
#include "tools/common/Sha256.h"
#include "tools/common/ToolMain.h"

#include "kiln/Plan/PlanIO.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace kiln;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitMissing = 1;
constexpr int kExitError = 2;
/// Unmatched buffers listed one per line before "... and N more".
constexpr size_t kMaxListed = 20;

const char *kUsage =
    "usage: kiln-refit STRIPPED.plan --weights-from MODEL.onnx -o FULL.plan\n"
    "       kiln-refit STRIPPED.plan --weights-from MODEL.onnx --check\n"
    "\n"
    "Fills the weights that 'kilnc --strip-weights' left out of a plan with\n"
    "the tensors of MODEL.onnx (initializers and Constant values, external\n"
    "data included) whose size and XXH64 match, and writes a complete plan.\n"
    "\n"
    "  --weights-from M  the ONNX model the plan was compiled from (or one\n"
    "                    with the same weights)\n"
    "  -o FILE           the complete plan (written atomically; not written\n"
    "                    when a weight has no match)\n"
    "  --check           only report which weights the model provides\n"
    "\n"
    "exit status: 0 ok, 1 weights without a match, 2 error\n";

int error(const std::string &message) {
  std::fprintf(stderr, "kiln-refit: error: %s\n", message.c_str());
  return kExitError;
}

std::string mib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f MiB", double(bytes) / (1 << 20));
  return buf;
}

} // namespace

static int toolMain(int argc, char **argv) {
  tools::CommandLine cl("kiln-refit");
  for (const char *name : {"-h", "--help", "--check"})
    cl.flag(name);
  cl.option("--weights-from", "an ONNX file");
  cl.option("-o", "a file name");
  std::string message;
  if (!cl.parse(argc, argv, message))
    return error(message + " (see --help)");
  if (cl.has("-h") || cl.has("--help")) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  bool check = cl.has("--check");
  std::string modelPath = cl.value("--weights-from").value_or("");
  std::string outPath = cl.value("-o").value_or("");
  if (cl.has("--weights-from") && modelPath.empty())
    return error(cl.needs("--weights-from"));
  if (cl.has("-o") && outPath.empty())
    return error(cl.needs("-o"));
  const std::vector<std::string> &words = cl.positional();
  if (words.size() > 1)
    return error("more than one plan given ('" + words[0] + "', '" + words[1] +
                 "')");
  std::string planPath = words.empty() ? "" : words[0];
  if (planPath.empty() || modelPath.empty() || (outPath.empty() != check))
    return error(planPath.empty()    ? "no plan given (see --help)"
                 : modelPath.empty() ? "--weights-from MODEL.onnx is required"
                 : check             ? "--check and -o exclude each other"
                                     : "-o FULL.plan or --check is required");

  // Neither input may be replaced by the output; checked before the work.
  const std::vector<tools::ProtectedInput> inputs = {
      {planPath, "stripped plan"}, {modelPath, "weights model"}};
  if (!check)
    if (plan::Status s = tools::checkOutputPath(outPath, inputs); !s)
      return error(s.message());

  std::vector<uint8_t> bytes;
  if (plan::Status s = tools::readInputFile(planPath, bytes); !s)
    return error(s.message());
  plan::PlanReader reader;
  plan::PlanReader::Options options;
  options.allowWeightStripped = true;
  if (plan::Status s = reader.open(bytes.data(), bytes.size(), options); !s)
    return error("'" + planPath + "': " + s.message());
  const plan::Plan &stripped = reader.plan();
  if (!stripped.isWeightStripped())
    return error("'" + planPath +
                 "' is a complete plan (not compiled with --strip-weights): "
                 "nothing to refit");

  plan::PlanWriter writer = plan::PlanWriter::fromPlan(stripped);
  uint64_t strippedCount = 0, strippedBytes = 0;
  for (uint32_t b : writer.unfilledStrippedBuffers()) {
    ++strippedCount;
    strippedBytes += stripped.buffers[b].sizeBytes;
  }
  refit::RefitResult result;
  if (plan::Status s = refit::refitFromOnnx(modelPath, writer, result); !s)
    return error(s.message());

  if (!result.missing.empty()) {
    std::fprintf(stderr,
                 "kiln-refit: error: %zu of %" PRIu64
                 " stripped weights have no tensor of the same size and "
                 "XXH64 in '%s' (%zu tensors, %zu of a matching size):\n",
                 result.missing.size(), strippedCount, modelPath.c_str(),
                 result.tensors, result.candidates);
    for (size_t i = 0; i < result.missing.size() && i < kMaxListed; ++i) {
      const plan::Buffer &b = stripped.buffers[result.missing[i]];
      std::fprintf(stderr,
                   "  buffer %" PRIu32 ": %" PRIu64 " bytes, XXH64 %016" PRIx64
                   "\n",
                   result.missing[i], b.sizeBytes, b.contentHash);
    }
    if (result.missing.size() > kMaxListed)
      std::fprintf(stderr, "  ... and %zu more\n",
                   result.missing.size() - kMaxListed);
    std::fprintf(stderr, "kiln-refit: %s\n",
                 check ? "the model cannot refit this plan"
                       : "no plan written; refit with the model the plan was "
                         "compiled from");
    return kExitMissing;
  }
  if (check) {
    std::printf("kiln-refit: '%s' provides all %" PRIu64
                " stripped weights (%s) of '%s'\n",
                modelPath.c_str(), strippedCount, mib(strippedBytes).c_str(),
                planPath.c_str());
    return kExitOk;
  }
  // The plan keeps where it came from and adds where its weights did.
  std::string sha256, now;
  if (plan::Status s = tools::sha256File(modelPath, sha256); !s)
    return error(s.message());
  if (plan::Status s = tools::utcTimestamp(now); !s)
    return error(s.message());
  writer.addProvenance("refit.weights", modelPath + " sha256 " + sha256);
  writer.addProvenance("refit.time", now);
  if (plan::Status s = tools::writePlanFile(writer, outPath, inputs); !s)
    return error(s.message());
  std::printf("kiln-refit: filled %" PRIu64 " stripped weights (%s) from '%s'; "
              "wrote '%s'\n",
              strippedCount, mib(strippedBytes).c_str(), modelPath.c_str(),
              outPath.c_str());
  return kExitOk;
}

int main(int argc, char **argv) {
  return kiln::tools::guardedMain("kiln-refit", kExitError,
                                  [&] { return toolMain(argc, argv); });
}
