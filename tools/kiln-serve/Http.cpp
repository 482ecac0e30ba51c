//===- Http.cpp - kiln-serve: the v2 REST API and /metrics (cpp-httplib) --===//
//
// JSON tensors ("data" flat or nested) and the binary tensor data extension
// (Inference-Header-Content-Length: the JSON header, then the binary inputs
// in order; "binary_data_size" per input; "binary_data" per requested output
// or "binary_data_output" for all). Errors are {"error": "..."}.
//
//===----------------------------------------------------------------------===//
#include "Serve.h"

#include "tools/common/Tensor.h"

#include <httplib.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>

#include <sys/socket.h>

using namespace kiln;
using namespace kiln::serve;
using json = nlohmann::json;

namespace {

void setJson(httplib::Response &res, int status, const json &body) {
  res.status = status;
  res.set_content(body.dump(), "application/json");
}
void setError(httplib::Response &res, const Error &e) {
  setJson(res, e.httpStatus, json{{"error", e.message}});
}

/// Appends `v` (a JSON scalar) to `out` as one element of `dtype`.
bool appendElement(const json &v, DType dtype, std::vector<uint8_t> &out) {
  auto put = [&](auto x) {
    uint8_t b[sizeof(x)];
    std::memcpy(b, &x, sizeof(x));
    out.insert(out.end(), b, b + sizeof(x));
    return true;
  };
  if (dtype == DType::boolean) {
    if (v.is_boolean())
      return put(uint8_t(v.get<bool>()));
    if (v.is_number_integer() && (v.get<int64_t>() == 0 || v.get<int64_t>() == 1))
      return put(uint8_t(v.get<int64_t>()));
    return false;
  }
  if (!v.is_number())
    return false;
  bool isFloat = dtype == DType::f32 || dtype == DType::f64 ||
                 dtype == DType::f16 || dtype == DType::bf16;
  if (isFloat) {
    double d = v.get<double>();
    switch (dtype) {
    case DType::f32:
      return put(float(d));
    case DType::f64:
      return put(d);
    case DType::f16:
      return put(tools::floatToHalf(float(d)));
    default:
      return put(tools::floatToBf16(float(d)));
    }
  }
  if (!v.is_number_integer())
    return false;
  // Integers must fit their type: a value that wraps is a client error.
  auto ranged = [&](auto type, int64_t lo, uint64_t hi) {
    using T = decltype(type);
    if (v.is_number_unsigned()) {
      uint64_t u = v.get<uint64_t>();
      return u <= hi && put(T(u));
    }
    int64_t s = v.get<int64_t>();
    return s >= lo && (s < 0 || uint64_t(s) <= hi) && put(T(s));
  };
  switch (dtype) {
  case DType::i8:
    return ranged(int8_t(), INT8_MIN, INT8_MAX);
  case DType::u8:
    return ranged(uint8_t(), 0, UINT8_MAX);
  case DType::i16:
    return ranged(int16_t(), INT16_MIN, INT16_MAX);
  case DType::u16:
    return ranged(uint16_t(), 0, UINT16_MAX);
  case DType::i32:
    return ranged(int32_t(), INT32_MIN, INT32_MAX);
  case DType::u32:
    return ranged(uint32_t(), 0, UINT32_MAX);
  case DType::i64:
    return ranged(int64_t(), INT64_MIN, INT64_MAX);
  case DType::u64:
    return ranged(uint64_t(), 0, UINT64_MAX);
  default:
    return false;
  }
}

/// Flattens "data" (nested arrays in row-major order, or flat).
bool flatten(const json &v, DType dtype, std::vector<uint8_t> &out,
             int depth) {
  if (v.is_array()) {
    if (depth > 64)
      return false;
    for (const json &e : v)
      if (!flatten(e, dtype, out, depth + 1))
        return false;
    return true;
  }
  return appendElement(v, dtype, out);
}

json elementsToJson(const Tensor &t) {
  json data = json::array();
  size_t n = t.data.size() / std::max<size_t>(1, runtime::dtypeSize(t.dtype));
  const uint8_t *p = t.data.data();
  auto get = [&](auto type, size_t i) {
    decltype(type) x;
    std::memcpy(&x, p + i * sizeof(x), sizeof(x));
    return x;
  };
  auto number = [](double d) { return std::isfinite(d) ? json(d) : json(nullptr); };
  for (size_t i = 0; i < n; ++i) {
    switch (t.dtype) {
    case DType::f32: data.push_back(number(get(float(), i))); break;
    case DType::f64: data.push_back(number(get(double(), i))); break;
    case DType::f16: data.push_back(number(tools::halfToFloat(get(uint16_t(), i)))); break;
    case DType::bf16: data.push_back(number(tools::bf16ToFloat(get(uint16_t(), i)))); break;
    case DType::i8: data.push_back(get(int8_t(), i)); break;
    case DType::u8: data.push_back(get(uint8_t(), i)); break;
    case DType::i16: data.push_back(get(int16_t(), i)); break;
    case DType::u16: data.push_back(get(uint16_t(), i)); break;
    case DType::i32: data.push_back(get(int32_t(), i)); break;
    case DType::u32: data.push_back(get(uint32_t(), i)); break;
    case DType::i64: data.push_back(get(int64_t(), i)); break;
    case DType::u64: data.push_back(get(uint64_t(), i)); break;
    case DType::boolean: data.push_back(get(uint8_t(), i) != 0); break;
    default: data.push_back(nullptr); break;
    }
  }
  return data;
}

json specJson(const TensorSpec &s) {
  return json{{"name", s.name},
              {"datatype", v2DataType(s.dtype)},
              {"shape", s.shape}};
}

/// A header's value as a byte count (strtoull's reading of all of it):
/// nullopt when it is absent or not a number.
std::optional<uint64_t> sizeHeader(const httplib::Request &req,
                                   const char *name) {
  if (!req.has_header(name))
    return std::nullopt;
  const std::string v = req.get_header_value(name);
  char *end = nullptr;
  unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (v.empty() || *end)
    return std::nullopt;
  return uint64_t(n);
}

/// A boolean parameter of a "parameters" object (absent = false).
Error boolParameter(const json &holder, const char *key, bool *value) {
  *value = false;
  if (!holder.contains("parameters"))
    return noError();
  const json &p = holder["parameters"];
  if (!p.is_object())
    return badRequest("\"parameters\" must be an object");
  if (!p.contains(key))
    return noError();
  if (!p[key].is_boolean())
    return badRequest(std::string("parameter \"") + key + "\" must be a boolean");
  *value = p[key].get<bool>();
  return noError();
}

} // namespace

struct HttpFrontend::Impl {
  ServerState &state;
  size_t maxRequestBytes;
  int threads;
  httplib::Server server;
  std::thread thread;

  Impl(ServerState &state, size_t maxRequestBytes, int threads)
      : state(state), maxRequestBytes(maxRequestBytes), threads(threads) {}

  Error findModel(const httplib::Request &req, ModelVersion **model) {
    std::string version = req.matches.size() > 2 ? std::string(req.matches[2]) : "";
    return state.repository.find(req.matches[1], version, model);
  }

  void routes() {
    server.Get("/v2/health/live", [](const httplib::Request &,
                                     httplib::Response &res) {
      setJson(res, 200, json{{"live", true}});
    });
    server.Get("/v2/health/ready", [this](const httplib::Request &,
                                          httplib::Response &res) {
      bool ready = state.ready && !state.shuttingDown;
      setJson(res, ready ? 200 : 503, json{{"ready", ready}});
    });
    server.Get("/v2", [](const httplib::Request &, httplib::Response &res) {
      setJson(res, 200,
              json{{"name", "kiln-serve"},
                   {"version", runtime::runtimeVersion()},
                   {"extensions", {"binary_tensor_data"}}});
    });
    const char *model = R"(/v2/models/([^/]+)(?:/versions/([^/]+))?)";
    server.Get(std::string(model) + "/ready", [this](const httplib::Request &req,
                                                     httplib::Response &res) {
      ModelVersion *m = nullptr;
      if (Error e = findModel(req, &m))
        return setError(res, e);
      bool ready = m->ready() && !state.shuttingDown;
      setJson(res, ready ? 200 : 503,
              json{{"name", m->name()}, {"ready", ready}});
    });
    server.Get(model, [this](const httplib::Request &req,
                             httplib::Response &res) {
      ModelVersion *m = nullptr;
      if (Error e = findModel(req, &m))
        return setError(res, e);
      json versions = json::array();
      for (ModelVersion *v : state.repository.all())
        if (v->name() == m->name())
          versions.push_back(std::to_string(v->version()));
      json in = json::array(), out = json::array();
      for (const TensorSpec &s : m->inputs())
        in.push_back(specJson(s));
      for (const TensorSpec &s : m->outputs())
        out.push_back(specJson(s));
      json body{{"name", m->name()},
                {"versions", versions},
                {"platform", "kiln_plan"},
                {"inputs", in},
                {"outputs", out}};
      if (!req.matches[2].str().empty())
        body["versions"] = json::array({req.matches[2].str()});
      setJson(res, 200, body);
    });
    server.Post(std::string(model) + "/infer",
                [this](const httplib::Request &req, httplib::Response &res,
                       const httplib::ContentReader &reader) {
                  infer(req, res, reader);
                });
    server.Get("/metrics", [this](const httplib::Request &,
                                  httplib::Response &res) {
      res.set_content(state.renderMetrics(), "text/plain; version=0.0.4");
    });
  }

  /// The request body, received into memory placed so that the binary
  /// tensors after the JSON header start 64-byte aligned: they are then
  /// bound (or gathered into a batch) without another copy. Bodies without
  /// a Content-Length (chunked) grow as they come.
  struct Body {
    std::unique_ptr<char[]> storage;
    char *begin = nullptr;
    size_t size = 0, capacity = 0;
    std::string chunked;
    std::string_view view() const {
      return begin ? std::string_view(begin, size) : std::string_view(chunked);
    }
  };

  /// Reads the body; false with `res` set (413 from the size limit, 400).
  bool receive(const httplib::Request &req, httplib::Response &res,
               const httplib::ContentReader &reader, Body *body) {
    std::optional<uint64_t> length = sizeHeader(req, "Content-Length");
    bool sized = length && *length <= maxRequestBytes;
    // A bad header is parseAndRun's to report.
    uint64_t header =
        sizeHeader(req, "Inference-Header-Content-Length").value_or(0);
    if (!sized || header > *length)
      header = 0;
    if (sized) {
      body->capacity = size_t(*length);
      body->storage.reset(new char[body->capacity + 64]);
      uintptr_t binaryAt =
          reinterpret_cast<uintptr_t>(body->storage.get()) + uintptr_t(header);
      body->begin = body->storage.get() + (64 - binaryAt % 64) % 64;
    }
    // Over the limit (or without a length), httplib answers 413 itself
    // when the bytes exceed --max-request-size.
    bool ok = reader([&](const char *data, size_t n) {
      if (!sized) {
        if (body->chunked.size() + n > maxRequestBytes)
          return false;
        body->chunked.append(data, n);
        return true;
      }
      if (n > body->capacity - body->size)
        return false;
      std::memcpy(body->begin + body->size, data, n);
      body->size += n;
      return true;
    });
    if (!ok) {
      if (res.status == -1 || res.status == 200)
        setError(res, Error{413, "the request exceeds " +
                                     std::to_string(maxRequestBytes) +
                                     " bytes (--max-request-size)"});
      return false;
    }
    if (sized && body->size != body->capacity) {
      setError(res,
               badRequest("the body ended after " + std::to_string(body->size) +
                          " of " + std::to_string(body->capacity) + " bytes"));
      return false;
    }
    return true;
  }

  void infer(const httplib::Request &req, httplib::Response &res,
             const httplib::ContentReader &reader) {
    Body received;
    if (!receive(req, res, reader, &received))
      return;
    if (state.shuttingDown)
      return setError(res, unavailable("the server is shutting down"));
    ModelVersion *m = nullptr;
    if (Error e = findModel(req, &m))
      return setError(res, e);
    std::vector<Tensor> outputs;
    json body;
    std::string binary;
    if (Error e =
            parseAndRun(req, received.view(), m, &outputs, &body, &binary)) {
      if (e.httpStatus == 400 || e.httpStatus == 413)
        m->metrics().failure++; // infer() counts the rest
      if (state.verbose)
        std::fprintf(stderr, "kiln-serve: %s: %d %s\n", req.path.c_str(),
                     e.httpStatus, e.message.c_str());
      return setError(res, e);
    }
    std::string header = body.dump();
    if (binary.empty()) {
      res.set_content(header, "application/json");
      return;
    }
    res.set_header("Inference-Header-Content-Length",
                   std::to_string(header.size()));
    res.set_content(header + binary, "application/octet-stream");
  }

  /// Parses the request, runs it, builds the response JSON and binary tail.
  /// Errors from here on are the request's (400) unless the model's.
  Error parseAndRun(const httplib::Request &req, std::string_view body,
                    ModelVersion *m, std::vector<Tensor> *outputs,
                    json *response, std::string *binaryOut) {
    std::string_view binary;
    if (req.has_header("Inference-Header-Content-Length")) {
      std::optional<uint64_t> n =
          sizeHeader(req, "Inference-Header-Content-Length");
      if (!n || *n > body.size())
        return badRequest(
            "Inference-Header-Content-Length '" +
            req.get_header_value("Inference-Header-Content-Length") +
            "' is not a size within the body (" + std::to_string(body.size()) +
            " bytes)");
      binary = body.substr(*n);
      body = body.substr(0, *n);
    }
    json j = json::parse(body.begin(), body.end(), nullptr, false);
    if (j.is_discarded())
      return badRequest("malformed JSON in the request body");
    if (!j.is_object())
      return badRequest("the request body must be a JSON object");
    if (j.contains("id") && !j["id"].is_string())
      return badRequest("\"id\" must be a string");
    if (!j.contains("inputs") || !j["inputs"].is_array())
      return badRequest("the request needs an \"inputs\" array");
    bool allBinary = false;
    if (Error e = boolParameter(j, "binary_data_output", &allBinary))
      return e;

    std::vector<Tensor> inputs;
    size_t binaryOffset = 0;
    for (const json &in : j["inputs"]) {
      if (!in.is_object() || !in.contains("name") || !in["name"].is_string())
        return badRequest("every input needs a \"name\" string");
      Tensor t;
      t.name = in["name"].get<std::string>();
      std::string what = "input '" + t.name + "': ";
      if (!in.contains("datatype") || !in["datatype"].is_string())
        return badRequest(what + "needs a \"datatype\" string");
      std::string dt = in["datatype"].get<std::string>();
      std::optional<DType> dtype = parseV2DataType(dt);
      if (!dtype)
        return badRequest(what + "unsupported datatype '" + dt + "'");
      t.dtype = *dtype;
      if (!in.contains("shape") || !in["shape"].is_array())
        return badRequest(what + "needs a \"shape\" array");
      for (const json &d : in["shape"]) {
        if (!d.is_number_integer() || d.get<int64_t>() < 0)
          return badRequest(what + "shape dimensions must be integers >= 0");
        t.shape.push_back(d.get<int64_t>());
      }
      int64_t count = elementCount(t.shape);
      if (count < 0)
        return badRequest(what + "shape " + shapeText(t.shape) + " is too large");
      uint64_t bytes = uint64_t(count) * runtime::dtypeSize(t.dtype);
      const json *sizeParam = nullptr;
      if (in.contains("parameters")) {
        if (!in["parameters"].is_object())
          return badRequest(what + "\"parameters\" must be an object");
        if (in["parameters"].contains("binary_data_size"))
          sizeParam = &in["parameters"]["binary_data_size"];
      }
      if (sizeParam) {
        if (!sizeParam->is_number_unsigned())
          return badRequest(what + "binary_data_size must be an integer >= 0");
        uint64_t n = sizeParam->get<uint64_t>();
        if (n > binary.size() - binaryOffset)
          return badRequest(what + "binary_data_size " + std::to_string(n) +
                            " exceeds the binary data left in the body (" +
                            std::to_string(binary.size() - binaryOffset) + ")");
        if (n != bytes)
          return badRequest(what + std::to_string(n) + " bytes of binary data, " +
                            dt + " " + shapeText(t.shape) + " needs " +
                            std::to_string(bytes));
        // The request body outlives the inference.
        t.viewOrCopy(
            reinterpret_cast<const uint8_t *>(binary.data()) + binaryOffset, n);
        binaryOffset += n;
      } else {
        if (!in.contains("data"))
          return badRequest(what + "needs \"data\" (or binary_data_size)");
        if (bytes > maxRequestBytes)
          return {413, what + "too large"};
        t.data.reserve(bytes);
        if (!flatten(in["data"], t.dtype, t.data, 0))
          return badRequest(what + "\"data\" holds a value that is not " + dt);
        if (t.data.size() != bytes)
          return badRequest(what + std::to_string(t.data.size() /
                                                  runtime::dtypeSize(t.dtype)) +
                            " elements in \"data\", shape " +
                            shapeText(t.shape) + " has " + std::to_string(count));
      }
      inputs.push_back(std::move(t));
    }
    if (binaryOffset != binary.size())
      return badRequest(std::to_string(binary.size() - binaryOffset) +
                        " bytes of binary data not claimed by any input");

    // Requested outputs (all when absent), each JSON or binary.
    std::vector<std::pair<size_t, bool>> wanted; // model output, binary
    if (j.contains("outputs")) {
      if (!j["outputs"].is_array())
        return badRequest("\"outputs\" must be an array");
      for (const json &o : j["outputs"]) {
        if (!o.is_object() || !o.contains("name") || !o["name"].is_string())
          return badRequest("every requested output needs a \"name\" string");
        std::string name = o["name"].get<std::string>();
        size_t k = 0;
        while (k < m->outputs().size() && m->outputs()[k].name != name)
          ++k;
        if (k == m->outputs().size())
          return badRequest("unknown output '" + name + "' of model '" +
                            m->name() + "'");
        bool bin = false;
        if (Error e = boolParameter(o, "binary_data", &bin))
          return e;
        wanted.push_back({k, bin || allBinary});
      }
    } else {
      for (size_t k = 0; k < m->outputs().size(); ++k)
        wanted.push_back({k, allBinary});
    }

    if (Error e = m->infer(inputs, outputs))
      return e;

    json outs = json::array();
    for (const auto &[k, bin] : wanted) {
      const Tensor &t = (*outputs)[k];
      json o{{"name", t.name},
             {"datatype", v2DataType(t.dtype)},
             {"shape", t.shape}};
      if (bin) {
        o["parameters"] = json{{"binary_data_size", t.data.size()}};
        binaryOut->append(reinterpret_cast<const char *>(t.data.data()),
                          t.data.size());
      } else {
        o["data"] = elementsToJson(t);
      }
      outs.push_back(std::move(o));
    }
    *response = json{{"model_name", m->name()},
                     {"model_version", std::to_string(m->version())},
                     {"outputs", outs}};
    if (j.contains("id"))
      (*response)["id"] = j["id"];
    return noError();
  }
};

HttpFrontend::HttpFrontend(ServerState &state, size_t maxRequestBytes,
                           int threads)
    : impl_(std::make_unique<Impl>(state, maxRequestBytes, threads)) {}

HttpFrontend::~HttpFrontend() { stop(); }

Status HttpFrontend::start(int port, bool metricsOnly) {
  Impl &impl = *impl_;
  int threads = impl.threads;
  // Each keep-alive connection holds a thread while its request waits for a
  // batch: the pool must be as large as the clients that batch together.
  impl.server.new_task_queue = [threads] {
    return new httplib::ThreadPool(size_t(threads));
  };
  impl.server.set_payload_max_length(impl.maxRequestBytes);
  // Responses go out as header + body writes: without TCP_NODELAY, Nagle
  // and the client's delayed ACK add ~40 ms to each. Clients keep their
  // connection for as many requests as they like.
  impl.server.set_tcp_nodelay(true);
  impl.server.set_keep_alive_max_count(std::numeric_limits<int>::max());
  impl.server.set_error_handler(httplib::Server::HandlerWithResponse(
      [&impl](const httplib::Request &req, httplib::Response &res) {
    if (!res.body.empty())
      return httplib::Server::HandlerResponse::Unhandled;
    std::string message = res.status == 413
                              ? "the request exceeds " +
                                    std::to_string(impl.maxRequestBytes) +
                                    " bytes (--max-request-size)"
                          : res.status == 404
                              ? "no such endpoint: " + req.method + " " + req.path
                              : "HTTP error " + std::to_string(res.status);
    res.set_content(json{{"error", message}}.dump(), "application/json");
    return httplib::Server::HandlerResponse::Handled;
  }));
  impl.server.set_exception_handler([](const httplib::Request &,
                                       httplib::Response &res,
                                       std::exception_ptr ep) {
    std::string what = "internal error";
    try {
      std::rethrow_exception(ep);
    } catch (const std::exception &e) {
      what = e.what();
    } catch (...) {
    }
    setJson(res, 500, json{{"error", what}});
  });
  if (metricsOnly) {
    impl.server.Get("/metrics", [&impl](const httplib::Request &,
                                        httplib::Response &res) {
      res.set_content(impl.state.renderMetrics(), "text/plain; version=0.0.4");
    });
  } else {
    impl.routes();
  }
  // cpp-httplib 0.11 listens with a backlog of 5 and SO_REUSEPORT: a burst
  // of new clients overflowed it (connections reset), and a second server
  // could share the port unnoticed. SO_REUSEADDR only, then listen again
  // with a full backlog (Linux updates it on a listening socket).
  int listenFd = -1;
  impl.server.set_socket_options([&listenFd](socket_t sock) {
    int on = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    listenFd = sock;
  });
  if (!impl.server.bind_to_port("0.0.0.0", port))
    return Status(runtime::StatusCode::IOError,
                  "cannot listen on port " + std::to_string(port) +
                      " (in use?)");
  if (listenFd < 0 || ::listen(listenFd, SOMAXCONN) != 0)
    return Status(runtime::StatusCode::IOError,
                  "cannot listen on port " + std::to_string(port) + ": " +
                      std::strerror(errno));
  impl.thread = std::thread([&impl] { impl.server.listen_after_bind(); });
  return Status::success();
}

void HttpFrontend::stop() {
  if (!impl_->thread.joinable())
    return;
  impl_->server.stop();
  impl_->thread.join();
}
