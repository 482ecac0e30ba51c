//===- kiln-serve.cpp - Inference server for kiln plans (KServe v2) -------===//
//
// Serves a model repository over the Open Inference Protocol v2: REST
// (--http-port), gRPC (--grpc-port) and Prometheus metrics (--metrics-port).
// Exit status: 0 after a graceful shutdown (SIGINT/SIGTERM), 1 on bad
// options or when the server cannot start (no model loaded, port in use).
//
//===----------------------------------------------------------------------===//
#include "Serve.h"

#include "tools/common/CommandLine.h"

#include <csignal>
#include <cstdio>
#include <cstring>

#include <pthread.h>

using namespace kiln;
using namespace kiln::serve;

namespace {

const char *kUsage =
    "usage: kiln-serve --model-repository DIR [options]\n"
    "\n"
    "Serves the plans of DIR/<model>/<version>/model.plan (and the batch "
    "plans a\n"
    "DIR/<model>/config.json lists) over the KServe / Triton inference "
    "protocol v2.\n"
    "\n"
    "  --model-repository DIR  the model repository (required)\n"
    "  --http-port N           REST port (default 8000; 0 disables)\n"
    "  --grpc-port N           gRPC port (default 8001; 0 disables)\n"
    "  --metrics-port N        Prometheus /metrics port (default 8002; 0 "
    "disables;\n"
    "                          /metrics is on the REST port too)\n"
    "  --device D              auto (default), host or gpu\n"
    "  --max-request-size B    largest request body in bytes (default "
    "67108864);\n"
    "                          larger ones get 413 / RESOURCE_EXHAUSTED\n"
    "  --http-thread-count N   REST worker threads (default 64): one per "
    "concurrent\n"
    "                          keep-alive client\n"
    "  --log-verbose N         0 (default): start-up and errors; 1: every "
    "failed\n"
    "                          request too\n"
    "  --version, -h/--help\n";

int usageError(const std::string &message) {
  std::fprintf(stderr, "kiln-serve: error: %s\n%s", message.c_str(), kUsage);
  return 1;
}

bool parsePort(const tools::CommandLine &cl, const char *name, int fallback,
               int *port, std::string *error) {
  *port = fallback;
  if (auto v = cl.value(name)) {
    uint64_t n = 0;
    if (!tools::parseUnsigned(*v, n) || n > 65535) {
      *error = std::string(name) + " needs a port number 0-65535, got '" +
               *v + "'";
      return false;
    }
    *port = int(n);
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  tools::CommandLine cl("kiln-serve");
  for (const char *f : {"-h", "--help", "--version"})
    cl.flag(f);
  cl.option("--model-repository", "a directory");
  cl.option("--http-port", "a port number");
  cl.option("--grpc-port", "a port number");
  cl.option("--metrics-port", "a port number");
  cl.option("--device", "auto, host or gpu");
  cl.option("--max-request-size", "a size in bytes");
  cl.option("--http-thread-count", "a thread count");
  cl.option("--log-verbose", "a level (0 or 1)");
  std::string error;
  if (!cl.parse(argc, argv, error))
    return usageError(error);
  if (cl.has("-h") || cl.has("--help")) {
    std::printf("%s", kUsage);
    return 0;
  }
  if (cl.has("--version")) {
    std::printf("kiln-serve %s\n", runtime::runtimeVersion());
    return 0;
  }
  if (!cl.positional().empty())
    return usageError("unexpected argument '" + cl.positional()[0] + "'");
  std::string repo = cl.value("--model-repository").value_or("");
  if (repo.empty())
    return usageError("--model-repository DIR is required");
  int httpPort = 0, grpcPort = 0, metricsPort = 0;
  if (!parsePort(cl, "--http-port", 8000, &httpPort, &error) ||
      !parsePort(cl, "--grpc-port", 8001, &grpcPort, &error) ||
      !parsePort(cl, "--metrics-port", 8002, &metricsPort, &error))
    return usageError(error);
  runtime::EngineOptions options;
  std::string device = cl.value("--device").value_or("auto");
  if (device == "auto")
    options.device = runtime::DeviceKind::Auto;
  else if (device == "host")
    options.device = runtime::DeviceKind::Host;
  else if (device == "gpu")
    options.device = runtime::DeviceKind::Gpu;
  else
    return usageError("--device needs auto, host or gpu, got '" + device +
                      "'");
  uint64_t maxRequest = 64 << 20, httpThreads = 64, verbose = 0;
  if (auto v = cl.value("--max-request-size");
      v && (!tools::parseUnsigned(*v, maxRequest) || maxRequest < 1024))
    return usageError("--max-request-size needs a byte count >= 1024, got '" +
                      *v + "'");
  if (auto v = cl.value("--http-thread-count");
      v && (!tools::parseUnsigned(*v, httpThreads) || httpThreads < 1 ||
            httpThreads > 4096))
    return usageError("--http-thread-count needs 1-4096, got '" + *v + "'");
  if (auto v = cl.value("--log-verbose");
      v && (!tools::parseUnsigned(*v, verbose) || verbose > 1))
    return usageError("--log-verbose needs 0 or 1, got '" + *v + "'");
  if (!httpPort && !grpcPort)
    return usageError("--http-port and --grpc-port are both 0: nothing to "
                      "serve");
  if (metricsPort && (metricsPort == httpPort || metricsPort == grpcPort))
    return usageError("--metrics-port must differ from the other ports (0 "
                      "disables it; /metrics is on the REST port too)");
  if (httpPort && httpPort == grpcPort)
    return usageError("--http-port and --grpc-port must differ");

  // Every thread started from here on inherits the blocked signals; this
  // thread takes them with sigwait. A client that goes away mid-response
  // must not kill the server with SIGPIPE.
  std::signal(SIGPIPE, SIG_IGN);
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  ServerState state;
  state.verbose = int(verbose);
  if (Status s = state.repository.load(repo, options, int(verbose)); !s) {
    std::fprintf(stderr, "kiln-serve: error: %s\n", s.message().c_str());
    return 1;
  }
  HttpFrontend http(state, size_t(maxRequest), int(httpThreads));
  HttpFrontend metrics(state, size_t(maxRequest), 4);
  GrpcFrontend grpc(state, size_t(maxRequest));
  auto startFailed = [&](const Status &s) {
    std::fprintf(stderr, "kiln-serve: error: %s\n", s.message().c_str());
    state.repository.stop();
    return 1;
  };
  if (httpPort)
    if (Status s = http.start(httpPort, false); !s)
      return startFailed(s);
  if (grpcPort)
    if (Status s = grpc.start(grpcPort); !s)
      return startFailed(s);
  if (metricsPort)
    if (Status s = metrics.start(metricsPort, true); !s)
      return startFailed(s);
  state.ready = true;
  std::fprintf(stderr,
               "kiln-serve: ready: HTTP port %d, gRPC port %d, metrics port "
               "%d (0 = off)\n",
               httpPort, grpcPort, metricsPort);

  int sig = 0;
  sigwait(&signals, &sig);
  std::fprintf(stderr, "kiln-serve: %s: finishing requests in flight\n",
               sig == SIGINT ? "SIGINT" : "SIGTERM");
  state.shuttingDown = true;
  http.stop();
  grpc.stop();
  state.repository.stop();
  metrics.stop();
  std::fprintf(stderr, "kiln-serve: stopped\n");
  return 0;
}
