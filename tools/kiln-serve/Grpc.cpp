//===- Grpc.cpp - kiln-serve: inference.GRPCInferenceService (gRPC++) -----===//
//
// The synchronous gRPC server: each call runs on one of gRPC's threads and
// waits there for its batch, as REST requests do on the HTTP pool. Inputs
// come as raw_input_contents (one entry per input) or typed contents;
// outputs go back as raw_output_contents.
//
//===----------------------------------------------------------------------===//
#include "Serve.h"

#include "grpc_service.grpc.pb.h"

#include <grpcpp/grpcpp.h>

#include <cstring>

using namespace kiln;
using namespace kiln::serve;
using grpc::ServerContext;

namespace {

grpc::Status toGrpc(const Error &e) {
  grpc::StatusCode code = grpc::StatusCode::INTERNAL;
  switch (e.httpStatus) {
  case 400:
    code = grpc::StatusCode::INVALID_ARGUMENT;
    break;
  case 404:
    code = grpc::StatusCode::NOT_FOUND;
    break;
  case 413:
    code = grpc::StatusCode::RESOURCE_EXHAUSTED;
    break;
  case 503:
    code = grpc::StatusCode::UNAVAILABLE;
    break;
  }
  return grpc::Status(code, e.message);
}

template <typename T, typename Repeated>
void appendAs(const Repeated &values, std::vector<uint8_t> &out) {
  for (auto v : values) {
    T x = T(v);
    uint8_t b[sizeof(T)];
    std::memcpy(b, &x, sizeof(T));
    out.insert(out.end(), b, b + sizeof(T));
  }
}

/// Typed contents as bytes of `dtype`; false when the field does not fit it.
Error typedContents(const inference::InferTensorContents &c, DType dtype,
                    const std::string &name, std::vector<uint8_t> &out) {
  switch (dtype) {
  case DType::boolean:
    appendAs<uint8_t>(c.bool_contents(), out);
    break;
  case DType::i8:
    appendAs<int8_t>(c.int_contents(), out);
    break;
  case DType::i16:
    appendAs<int16_t>(c.int_contents(), out);
    break;
  case DType::i32:
    appendAs<int32_t>(c.int_contents(), out);
    break;
  case DType::i64:
    appendAs<int64_t>(c.int64_contents(), out);
    break;
  case DType::u8:
    appendAs<uint8_t>(c.uint_contents(), out);
    break;
  case DType::u16:
    appendAs<uint16_t>(c.uint_contents(), out);
    break;
  case DType::u32:
    appendAs<uint32_t>(c.uint_contents(), out);
    break;
  case DType::u64:
    appendAs<uint64_t>(c.uint64_contents(), out);
    break;
  case DType::f32:
    appendAs<float>(c.fp32_contents(), out);
    break;
  case DType::f64:
    appendAs<double>(c.fp64_contents(), out);
    break;
  default:
    return badRequest("input '" + name + "': " + v2DataType(dtype) +
                      " has no typed contents field; send raw_input_contents");
  }
  return noError();
}

class Service final : public inference::GRPCInferenceService::Service {
public:
  explicit Service(ServerState &state) : state_(state) {}

  grpc::Status ServerLive(ServerContext *, const inference::ServerLiveRequest *,
                          inference::ServerLiveResponse *res) override {
    res->set_live(true);
    return grpc::Status::OK;
  }
  grpc::Status ServerReady(ServerContext *,
                           const inference::ServerReadyRequest *,
                           inference::ServerReadyResponse *res) override {
    res->set_ready(state_.ready && !state_.shuttingDown);
    return grpc::Status::OK;
  }
  grpc::Status ModelReady(ServerContext *,
                          const inference::ModelReadyRequest *req,
                          inference::ModelReadyResponse *res) override {
    ModelVersion *m = nullptr;
    if (Error e = state_.repository.find(req->name(), req->version(), &m))
      return toGrpc(e);
    res->set_ready(m->ready() && !state_.shuttingDown);
    return grpc::Status::OK;
  }
  grpc::Status ServerMetadata(ServerContext *,
                              const inference::ServerMetadataRequest *,
                              inference::ServerMetadataResponse *res) override {
    res->set_name("kiln-serve");
    res->set_version(runtime::runtimeVersion());
    return grpc::Status::OK;
  }
  grpc::Status ModelMetadata(ServerContext *,
                             const inference::ModelMetadataRequest *req,
                             inference::ModelMetadataResponse *res) override {
    ModelVersion *m = nullptr;
    if (Error e = state_.repository.find(req->name(), req->version(), &m))
      return toGrpc(e);
    res->set_name(m->name());
    res->set_platform("kiln_plan");
    if (!req->version().empty())
      res->add_versions(req->version());
    else
      for (ModelVersion *v : state_.repository.all())
        if (v->name() == m->name())
          res->add_versions(std::to_string(v->version()));
    auto fill = [](const TensorSpec &s,
                   inference::ModelMetadataResponse::TensorMetadata *t) {
      t->set_name(s.name);
      t->set_datatype(v2DataType(s.dtype));
      for (int64_t d : s.shape)
        t->add_shape(d);
    };
    for (const TensorSpec &s : m->inputs())
      fill(s, res->add_inputs());
    for (const TensorSpec &s : m->outputs())
      fill(s, res->add_outputs());
    return grpc::Status::OK;
  }

  grpc::Status ModelInfer(ServerContext *,
                          const inference::ModelInferRequest *req,
                          inference::ModelInferResponse *res) override {
    if (state_.shuttingDown)
      return toGrpc(unavailable("the server is shutting down"));
    ModelVersion *m = nullptr;
    if (Error e = state_.repository.find(req->model_name(),
                                         req->model_version(), &m))
      return toGrpc(e);
    Error e = infer(*m, *req, res);
    if (e && e.httpStatus == 400)
      m->metrics().failure++; // infer() counts the rest
    if (e && state_.verbose)
      std::fprintf(stderr, "kiln-serve: gRPC ModelInfer %s: %s\n",
                   req->model_name().c_str(), e.message.c_str());
    return e ? toGrpc(e) : grpc::Status::OK;
  }

private:
  Error infer(ModelVersion &m, const inference::ModelInferRequest &req,
              inference::ModelInferResponse *res) {
    bool raw = req.raw_input_contents_size() > 0;
    if (raw && req.raw_input_contents_size() != req.inputs_size())
      return badRequest(std::to_string(req.raw_input_contents_size()) +
                        " raw_input_contents for " +
                        std::to_string(req.inputs_size()) + " inputs");
    std::vector<Tensor> inputs;
    for (int i = 0; i < req.inputs_size(); ++i) {
      const auto &in = req.inputs(i);
      Tensor t;
      t.name = in.name();
      std::optional<DType> dtype = parseV2DataType(in.datatype());
      if (!dtype)
        return badRequest("input '" + t.name + "': unsupported datatype '" +
                          in.datatype() + "'");
      t.dtype = *dtype;
      for (int64_t d : in.shape()) {
        if (d < 0)
          return badRequest("input '" + t.name +
                            "': shape dimensions must be >= 0");
        t.shape.push_back(d);
      }
      if (elementCount(t.shape) < 0)
        return badRequest("input '" + t.name + "': shape too large");
      if (raw) {
        if (in.has_contents())
          return badRequest("input '" + t.name +
                            "': typed contents together with "
                            "raw_input_contents");
        // The request message outlives the inference.
        const std::string &bytes = req.raw_input_contents(i);
        t.viewOrCopy(reinterpret_cast<const uint8_t *>(bytes.data()),
                     bytes.size());
      } else if (Error e = typedContents(in.contents(), t.dtype, t.name,
                                         t.data)) {
        return e;
      }
      inputs.push_back(std::move(t));
    }
    std::vector<size_t> wanted;
    for (const auto &o : req.outputs()) {
      size_t k = 0;
      while (k < m.outputs().size() && m.outputs()[k].name != o.name())
        ++k;
      if (k == m.outputs().size())
        return badRequest("unknown output '" + o.name() + "' of model '" +
                          m.name() + "'");
      wanted.push_back(k);
    }
    if (wanted.empty())
      for (size_t k = 0; k < m.outputs().size(); ++k)
        wanted.push_back(k);

    std::vector<Tensor> outputs;
    if (Error e = m.infer(inputs, &outputs))
      return e;
    res->set_model_name(m.name());
    res->set_model_version(std::to_string(m.version()));
    res->set_id(req.id());
    for (size_t k : wanted) {
      const Tensor &t = outputs[k];
      auto *o = res->add_outputs();
      o->set_name(t.name);
      o->set_datatype(v2DataType(t.dtype));
      for (int64_t d : t.shape)
        o->add_shape(d);
      res->add_raw_output_contents(
          std::string(reinterpret_cast<const char *>(t.data.data()),
                      t.data.size()));
    }
    return noError();
  }

  ServerState &state_;
};

} // namespace

struct GrpcFrontend::Impl {
  ServerState &state;
  size_t maxRequestBytes;
  Service service;
  std::unique_ptr<grpc::Server> server;
  Impl(ServerState &state, size_t maxRequestBytes)
      : state(state), maxRequestBytes(maxRequestBytes), service(state) {}
};

GrpcFrontend::GrpcFrontend(ServerState &state, size_t maxRequestBytes)
    : impl_(std::make_unique<Impl>(state, maxRequestBytes)) {}

GrpcFrontend::~GrpcFrontend() { stop(); }

Status GrpcFrontend::start(int port) {
  grpc::ServerBuilder builder;
  int bound = 0;
  builder.AddListeningPort("0.0.0.0:" + std::to_string(port),
                           grpc::InsecureServerCredentials(), &bound);
  builder.SetMaxReceiveMessageSize(int(std::min<size_t>(
      impl_->maxRequestBytes, size_t(std::numeric_limits<int>::max()))));
  builder.SetMaxSendMessageSize(std::numeric_limits<int>::max());
  // gRPC shares ports between processes by default (SO_REUSEPORT): a
  // second server on the port must fail instead.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  builder.RegisterService(&impl_->service);
  impl_->server = builder.BuildAndStart();
  if (!impl_->server || bound == 0)
    return Status(runtime::StatusCode::IOError,
                  "cannot listen on gRPC port " + std::to_string(port) +
                      " (in use?)");
  return Status::success();
}

void GrpcFrontend::stop() {
  if (!impl_->server)
    return;
  // Waits for the calls in flight; the deadline cancels calls that never end.
  impl_->server->Shutdown(std::chrono::system_clock::now() +
                          std::chrono::seconds(30));
  impl_->server->Wait();
  impl_->server.reset();
}
