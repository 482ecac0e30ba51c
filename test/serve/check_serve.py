#!/usr/bin/python3
"""kiln-serve end to end on host plans: REST, gRPC, batching, errors, shutdown.

  check_serve.py BIN_DIR WORK_DIR

Builds a tiny ONNX model (y = x @ W + b, z = relu(y); x is [N, 4]), compiles
it with kilnc at batch 1, 4 and 8, serves a repository of it and checks the
protocol's REST examples (health, metadata, infer), the binary tensor
extension, errors (400, 404, 413), a gRPC client, dynamic batching (merged
requests whose outputs equal the numpy reference and the unbatched plan's)
and a graceful shutdown with requests in flight. Exit 0 when every check
passes.
"""
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

BIN, WORK = sys.argv[1], sys.argv[2]
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SERVE = os.path.join(BIN, "kiln-serve")
# One plan's f32 matmul of 4 terms against numpy's: a few ulps of reordering.
RTOL, ATOL = 1e-5, 1e-6
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
rng = np.random.default_rng(1)
W = rng.standard_normal((4, 3)).astype(np.float32)
B = rng.standard_normal((3,)).astype(np.float32)
graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "W"], ["m"]),
     helper.make_node("Add", ["m", "b"], ["y"]),
     helper.make_node("Relu", ["y"], ["z"])],
    "tiny",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 4])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3]),
     helper.make_tensor_value_info("z", TensorProto.FLOAT, ["N", 3])],
    [numpy_helper.from_array(W, "W"), numpy_helper.from_array(B, "b")])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
model.ir_version = 8
onnx.save(model, os.path.join(WORK, "tiny.onnx"))
plans = {}
for b in (1, 4, 8):
    plans[b] = os.path.join(WORK, "b%d.plan" % b)
    subprocess.run([os.path.join(BIN, "kilnc"), os.path.join(WORK, "tiny.onnx"),
                    "--input-shape=x=%dx4" % b, "-o", plans[b], "-q"], check=True)


# One plan with a profile per batch size (kilnc --profile), batched by
# max_batch_size alone.
plans["profiles"] = os.path.join(WORK, "profiles.plan")
subprocess.run([os.path.join(BIN, "kilnc"), os.path.join(WORK, "tiny.onnx"),
                "--profile=x=1x4", "--profile=x=4x4", "--profile=x=8x4",
                "-o", plans["profiles"], "-q"], check=True)


def reference(x):
    y = x.astype(np.float64) @ W.astype(np.float64) + B
    return y, np.maximum(y, 0)


repo = os.path.join(WORK, "repo")
for d in ("tiny/1", "tiny/2", "tinyb/1", "tinyp/1", "slow/1", "broken/1", "badconfig/1"):
    os.makedirs(os.path.join(repo, d))
shutil.copy(plans[1], os.path.join(repo, "tiny/1/model.plan"))
shutil.copy(plans[1], os.path.join(repo, "tiny/2/model.plan"))
for name in ("tinyb", "slow"):
    for b in (1, 4, 8):
        shutil.copy(plans[b], os.path.join(repo, name, "1", "b%d.plan" % b))
batch_plans = {"1": "b1.plan", "4": "b4.plan", "8": "b8.plan"}
with open(os.path.join(repo, "tinyb/config.json"), "w") as f:
    json.dump({"max_batch_size": 8, "max_queue_delay_microseconds": 20000,
               "instance_count": 1, "batch_plans": batch_plans}, f)
shutil.copy(plans["profiles"], os.path.join(repo, "tinyp/1/model.plan"))
with open(os.path.join(repo, "tinyp/config.json"), "w") as f:
    json.dump({"max_batch_size": 8, "max_queue_delay_microseconds": 20000,
               "instance_count": 1}, f)
with open(os.path.join(repo, "slow/config.json"), "w") as f:
    json.dump({"max_batch_size": 8, "max_queue_delay_microseconds": 500000,
               "batch_plans": batch_plans}, f)
with open(os.path.join(repo, "broken/1/model.plan"), "w") as f:
    f.write("not a plan")
with open(os.path.join(repo, "badconfig/config.json"), "w") as f:
    f.write('{"max_batch_size": 4}')
shutil.copy(plans[1], os.path.join(repo, "badconfig/1/model.plan"))

# Start-up failures: bad flags, nothing to serve.
r = subprocess.run([SERVE, "--model-repository", repo, "--bogus"],
                   capture_output=True, text=True)
check(r.returncode == 1 and "unknown option" in r.stderr, "unknown flag: exit 1")
r = subprocess.run([SERVE, "--model-repository", repo, "--http-port", "x"],
                   capture_output=True, text=True)
check(r.returncode == 1 and "--http-port" in r.stderr, "bad --http-port: exit 1")
empty = os.path.join(WORK, "empty")
os.makedirs(os.path.join(empty, "broken/1"))
shutil.copy(os.path.join(repo, "broken/1/model.plan"), os.path.join(empty, "broken/1"))
r = subprocess.run([SERVE, "--model-repository", empty, "--http-port",
                    str(free_port()), "--grpc-port", "0", "--metrics-port", "0"],
                   capture_output=True, text=True, timeout=30)
check(r.returncode == 1 and "no model loaded" in r.stderr,
      "repository where nothing loads: exit 1 with a message")

HTTP, GRPC, METRICS = free_port(), free_port(), free_port()
log = open(os.path.join(WORK, "serve.log"), "w")
server = subprocess.Popen([SERVE, "--model-repository", repo, "--http-port", str(HTTP),
                           "--grpc-port", str(GRPC), "--metrics-port", str(METRICS),
                           "--max-request-size", "65536", "--device", "host"],
                          stdout=log, stderr=subprocess.STDOUT)
URL = "http://127.0.0.1:%d" % HTTP


def request(path, body=None, headers=None, port=HTTP, method=None):
    """(status, headers, body bytes)."""
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), data=body,
                                 headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def rest_json(path, obj=None, raw=None):
    body = raw if raw is not None else (json.dumps(obj).encode() if obj is not None else None)
    status, _, data = request(path, body)
    try:
        return status, json.loads(data)
    except ValueError:
        return status, data


for _ in range(100):
    try:
        if request("/v2/health/ready")[0] == 200:
            break
    except OSError:
        pass
    time.sleep(0.1)

try:
    with open(os.path.join(WORK, "serve.log")) as f:
        text = f.read()
    check("model 'broken'" in text and "(skipped)" in text,
          "a bad plan is reported and skipped")
    check("needs batch_plans (one static plan per batch size) or a plan with one "
          "profile per batch size" in text,
          "max_batch_size over a single-profile plan is reported and skipped")

    for flags, what in ((["--http-port", str(HTTP), "--grpc-port", "0"], "REST"),
                        (["--http-port", "0", "--grpc-port", str(GRPC)], "gRPC")):
        r = subprocess.run([SERVE, "--model-repository", repo, "--metrics-port", "0"] + flags,
                           capture_output=True, text=True, timeout=60)
        check(r.returncode == 1 and "cannot listen" in r.stderr,
              "a second server on the %s port: exit 1" % what)

    # Health and metadata (the protocol's REST examples).
    check(rest_json("/v2/health/live") == (200, {"live": True}), "GET /v2/health/live")
    check(rest_json("/v2/health/ready") == (200, {"ready": True}), "GET /v2/health/ready")
    s, meta = rest_json("/v2")
    check(s == 200 and meta["name"] == "kiln-serve"
          and "binary_tensor_data" in meta["extensions"], "GET /v2 server metadata")
    s, meta = rest_json("/v2/models/tiny")
    check(s == 200 and meta["versions"] == ["1", "2"] and meta["platform"] == "kiln_plan"
          and meta["inputs"] == [{"name": "x", "datatype": "FP32", "shape": [1, 4]}]
          and [o["name"] for o in meta["outputs"]] == ["y", "z"],
          "GET /v2/models/tiny: versions, static shapes")
    s, meta = rest_json("/v2/models/tinyb/versions/1")
    check(s == 200 and meta["inputs"][0]["shape"] == [-1, 4]
          and meta["outputs"][1]["shape"] == [-1, 3],
          "GET /v2/models/tinyb/versions/1: -1 batch dimension")
    check(rest_json("/v2/models/tiny/versions/2/ready")[0] == 200, "model version ready")
    check(rest_json("/v2/models/nope")[0] == 404, "unknown model metadata: 404")
    check(rest_json("/v2/models/tiny/versions/7/ready")[0] == 404, "unknown version: 404")
    check(rest_json("/v2/models/broken/ready")[0] == 404, "skipped model: 404")

    # Inference with JSON tensors.
    x = rng.uniform(-1, 1, (1, 4)).astype(np.float32)
    ry, rz = reference(x)
    s, res = rest_json("/v2/models/tiny/infer", {
        "id": "42", "inputs": [{"name": "x", "shape": [1, 4], "datatype": "FP32",
                                "data": x.flatten().tolist()}],
        "outputs": [{"name": "z"}]})
    check(s == 200 and res["id"] == "42" and res["model_name"] == "tiny"
          and res["model_version"] == "2" and len(res["outputs"]) == 1
          and res["outputs"][0]["shape"] == [1, 3] and res["outputs"][0]["datatype"] == "FP32"
          and np.allclose(res["outputs"][0]["data"], rz.flatten(), rtol=RTOL, atol=ATOL),
          "POST infer, flat data, requested output, id echoed")
    s, res = rest_json("/v2/models/tinyb/versions/1/infer", {
        "inputs": [{"name": "x", "shape": [2, 4], "datatype": "FP32",
                    "data": np.concatenate([x, x]).tolist(), "parameters": {}}]})
    check(s == 200 and [o["name"] for o in res["outputs"]] == ["y", "z"]
          and res["outputs"][0]["shape"] == [2, 3] and "id" not in res
          and np.allclose(res["outputs"][0]["data"], np.concatenate([ry, ry]).flatten(),
                          rtol=RTOL, atol=ATOL),
          "POST infer, nested data, batch 2 on batch plans, every output")

    # Binary tensor data extension.
    xb = rng.uniform(-1, 1, (3, 4)).astype(np.float32)
    header = json.dumps({"inputs": [{"name": "x", "shape": [3, 4], "datatype": "FP32",
                                     "parameters": {"binary_data_size": 48}}],
                         "outputs": [{"name": "y", "parameters": {"binary_data": True}},
                                     {"name": "z"}]}).encode()
    s, h, body = request("/v2/models/tinyb/infer", header + xb.tobytes(),
                         {"Inference-Header-Content-Length": str(len(header))})
    ry, rz = reference(xb)
    ok = s == 200 and h.get("Inference-Header-Content-Length") is not None
    if ok:
        n = int(h["Inference-Header-Content-Length"])
        meta = json.loads(body[:n])
        y = np.frombuffer(body[n:], dtype=np.float32)
        ok = (meta["outputs"][0]["parameters"]["binary_data_size"] == 36 and len(y) == 9
              and np.allclose(y, ry.flatten(), rtol=RTOL, atol=ATOL)
              and np.allclose(meta["outputs"][1]["data"], rz.flatten(), rtol=RTOL, atol=ATOL))
    check(ok, "binary input, one binary and one JSON output")
    header = json.dumps({"inputs": [{"name": "x", "shape": [1, 4], "datatype": "FP32",
                                     "parameters": {"binary_data_size": 16}}],
                         "parameters": {"binary_data_output": True}}).encode()
    s, h, body = request("/v2/models/tiny/infer", header + x.tobytes(),
                         {"Inference-Header-Content-Length": str(len(header))})
    n = int(h.get("Inference-Header-Content-Length", 0))
    check(s == 200 and len(body) - n == 24, "binary_data_output: both outputs binary")

    # Errors: 400, 404, 413; the server keeps serving.
    def error(path, raw, headers=None):
        s, _, data = request(path, raw, headers or {})
        try:
            return s, json.loads(data).get("error", "")
        except ValueError:
            return s, None
    good = {"name": "x", "shape": [1, 4], "datatype": "FP32", "data": [0, 1, 2, 3]}
    cases = [
        ("garbage body", b"\x00\xff{{not json", 400, "malformed JSON"),
        ("JSON array body", b"[1, 2]", 400, "JSON object"),
        ("no inputs", b"{}", 400, "inputs"),
        ("wrong shape", json.dumps({"inputs": [dict(good, shape=[2, 4], data=[0] * 8)]}).encode(),
         400, "the model takes [1, 4]"),
        ("wrong datatype", json.dumps({"inputs": [dict(good, datatype="INT64")]}).encode(), 400, "datatype"),
        ("unknown datatype", json.dumps({"inputs": [dict(good, datatype="FP99")]}).encode(), 400, "datatype"),
        ("too few elements", json.dumps({"inputs": [dict(good, data=[1, 2])]}).encode(), 400, "elements"),
        ("non-numbers", json.dumps({"inputs": [dict(good, data=["a", 1, 2, 3])]}).encode(), 400, "not FP32"),
        ("missing input", json.dumps({"inputs": []}).encode(), 400, "missing input 'x'"),
        ("unknown input", json.dumps({"inputs": [good, dict(good, name="q")]}).encode(), 400, "unexpected input"),
        ("unknown output", json.dumps({"inputs": [good], "outputs": [{"name": "w"}]}).encode(), 400, "unknown output"),
    ]
    for what, raw, want, text in cases:
        s, msg = error("/v2/models/tiny/infer", raw)
        check(s == want and msg is not None and text in msg, "%s: %d (%s)" % (what, s, msg))
    s, msg = error("/v2/models/tinyb/infer", json.dumps(
        {"inputs": [dict(good, shape=[9, 4], data=[0] * 36)]}).encode())
    check(s == 400 and "batch 1..8" in msg, "batch above max_batch_size: 400")
    s, msg = error("/v2/models/tiny/infer", header + b"\x00" * 8,
                   {"Inference-Header-Content-Length": str(len(header))})
    check(s == 400 and "binary_data_size" in msg, "short binary data: 400 (%s)" % msg)
    s, msg = error("/v2/models/tiny/infer", header + x.tobytes(),
                   {"Inference-Header-Content-Length": "999999"})
    check(s == 400, "Inference-Header-Content-Length past the body: 400")
    s, msg = error("/v2/models/nope/infer", json.dumps({"inputs": [good]}).encode())
    check(s == 404 and "unknown model" in msg, "unknown model: 404")
    s, msg = error("/v2/models/tiny/versions/9/infer", json.dumps({"inputs": [good]}).encode())
    check(s == 404, "unknown version: 404")
    s, msg = error("/v2/models/tiny/infer", b"[" + b"0," * 50000 + b"0]")
    check(s == 413 and msg and "exceeds" in msg, "body over --max-request-size: 413")
    # A client that dies mid-request, and raw garbage on the socket.
    for payload in (b"POST /v2/models/tiny/infer HTTP/1.1\r\nContent-Length: 1000\r\n\r\n{\"in",
                    b"\x16\x03\x01garbage\r\n\r\n", b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n"):
        c = socket.create_connection(("127.0.0.1", HTTP))
        c.sendall(payload)
        c.close()
    s, res = rest_json("/v2/models/tiny/infer", {"inputs": [good]})
    check(s == 200, "still serving after dropped clients and garbage")

    # gRPC: messages from protoc --python_out, methods through unary_unary.
    import grpc
    pbdir = os.path.join(WORK, "pb")
    os.makedirs(pbdir)
    proto_dir = os.path.join(ROOT, "tools", "kiln-serve")
    subprocess.run(["protoc", "-I", proto_dir, "--python_out=" + pbdir,
                    os.path.join(proto_dir, "grpc_service.proto")], check=True)
    sys.path.insert(0, pbdir)
    import grpc_service_pb2 as pb
    channel = grpc.insecure_channel("127.0.0.1:%d" % GRPC)

    def method(name, req, res):
        return channel.unary_unary("/inference.GRPCInferenceService/" + name,
                                   request_serializer=req.SerializeToString,
                                   response_deserializer=res.FromString)
    live = method("ServerLive", pb.ServerLiveRequest, pb.ServerLiveResponse)
    ready = method("ServerReady", pb.ServerReadyRequest, pb.ServerReadyResponse)
    mready = method("ModelReady", pb.ModelReadyRequest, pb.ModelReadyResponse)
    smeta = method("ServerMetadata", pb.ServerMetadataRequest, pb.ServerMetadataResponse)
    mmeta = method("ModelMetadata", pb.ModelMetadataRequest, pb.ModelMetadataResponse)
    infer = method("ModelInfer", pb.ModelInferRequest, pb.ModelInferResponse)
    check(live(pb.ServerLiveRequest(), timeout=10).live, "gRPC ServerLive")
    check(ready(pb.ServerReadyRequest(), timeout=10).ready, "gRPC ServerReady")
    check(mready(pb.ModelReadyRequest(name="tinyb", version="1"), timeout=10).ready,
          "gRPC ModelReady")
    check(smeta(pb.ServerMetadataRequest(), timeout=10).name == "kiln-serve",
          "gRPC ServerMetadata")
    m = mmeta(pb.ModelMetadataRequest(name="tinyb"), timeout=10)
    check(m.name == "tinyb" and list(m.inputs[0].shape) == [-1, 4]
          and m.inputs[0].datatype == "FP32" and [o.name for o in m.outputs] == ["y", "z"],
          "gRPC ModelMetadata")
    req = pb.ModelInferRequest(model_name="tinyb", id="g1")
    t = req.inputs.add(name="x", datatype="FP32")
    t.shape.extend([3, 4])
    req.raw_input_contents.append(xb.tobytes())
    req.outputs.add(name="z")
    res = infer(req, timeout=30)
    ry, rz = reference(xb)
    z = np.frombuffer(res.raw_output_contents[0], dtype=np.float32)
    check(res.id == "g1" and len(res.outputs) == 1 and list(res.outputs[0].shape) == [3, 3]
          and np.allclose(z, rz.flatten(), rtol=RTOL, atol=ATOL),
          "gRPC ModelInfer, raw_input_contents -> raw_output_contents")
    req = pb.ModelInferRequest(model_name="tiny", model_version="1")
    t = req.inputs.add(name="x", datatype="FP32")
    t.shape.extend([1, 4])
    t.contents.fp32_contents.extend(x.flatten().tolist())
    res = infer(req, timeout=30)
    ry, rz = reference(x)
    check(res.model_version == "1" and np.allclose(
        np.frombuffer(res.raw_output_contents[0], dtype=np.float32), ry.flatten(),
        rtol=RTOL, atol=ATOL), "gRPC ModelInfer, typed fp32_contents")

    def grpc_code(req):
        try:
            infer(req, timeout=30)
            return None
        except grpc.RpcError as e:
            return e.code()
    check(grpc_code(pb.ModelInferRequest(model_name="nope")) == grpc.StatusCode.NOT_FOUND,
          "gRPC unknown model: NOT_FOUND")
    req = pb.ModelInferRequest(model_name="tiny")
    t = req.inputs.add(name="x", datatype="FP32")
    t.shape.extend([2, 4])
    t.contents.fp32_contents.extend([0.0] * 8)
    check(grpc_code(req) == grpc.StatusCode.INVALID_ARGUMENT, "gRPC wrong shape: INVALID_ARGUMENT")
    req = pb.ModelInferRequest(model_name="tiny")
    t = req.inputs.add(name="x", datatype="FP32")
    t.shape.extend([1, 4])
    req.raw_input_contents.append(b"\x00" * 100000)
    check(grpc_code(req) == grpc.StatusCode.RESOURCE_EXHAUSTED,
          "gRPC message over --max-request-size: RESOURCE_EXHAUSTED")

    # Dynamic batching: 48 concurrent clients, batch 1-3 each, against the
    # numpy reference and the unbatched plan (model 'tiny', one request each);
    # over batch plans (tinyb) and over one plan's profiles (tinyp).
    def burst(model):
        inputs = [rng.uniform(-1, 1, (1 + i % 3, 4)).astype(np.float32) for i in range(48)]
        results = [None] * len(inputs)
        go = threading.Barrier(len(inputs))

        def client(i):
            go.wait()
            try:
                conn = http.client.HTTPConnection("127.0.0.1", HTTP, timeout=60)
                conn.request("POST", "/v2/models/%s/infer" % model, json.dumps(
                    {"inputs": [{"name": "x", "shape": list(inputs[i].shape),
                                 "datatype": "FP32", "data": inputs[i].tolist()}]}))
                r = conn.getresponse()
                results[i] = (r.status, json.loads(r.read()))
            except Exception as e:  # noqa: BLE001
                results[i] = (str(e), None)
        threads = [threading.Thread(target=client, args=(i,)) for i in range(len(inputs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        bad = 0
        for i, (s, res) in enumerate(results):
            if s != 200:
                print("     request %d: %s" % (i, s))
                bad += 1
                continue
            ry, rz = reference(inputs[i])
            single = [rest_json("/v2/models/tiny/infer", {"inputs": [{
                "name": "x", "shape": [1, 4], "datatype": "FP32", "data": row.tolist()}]})[1]
                for row in inputs[i]]
            single_y = np.concatenate([np.array(q["outputs"][0]["data"]) for q in single])
            y = np.array(res["outputs"][0]["data"]) if s == 200 else None
            if (s != 200 or res["outputs"][0]["shape"] != [len(inputs[i]), 3]
                    or not np.allclose(y, ry.flatten(), rtol=RTOL, atol=ATOL)
                    or not np.allclose(y, single_y, rtol=RTOL, atol=ATOL)
                    or not np.allclose(res["outputs"][1]["data"], rz.flatten(),
                                       rtol=RTOL, atol=ATOL)):
                bad += 1
        check(bad == 0, "48 concurrent requests merged (%s): every output equals the "
              "reference and the single-request result (%d bad)" % (model, bad))
    burst("tinyp")
    s, meta = rest_json("/v2/models/tinyp")
    check(s == 200 and meta["inputs"][0]["shape"] == [-1, 4],
          "GET /v2/models/tinyp: a multi-profile plan shows the batch dimension as -1")
    _, _, ptext = request("/metrics", port=METRICS)
    ptext = ptext.decode()
    pcount = [float(l.split()[-1]) for l in ptext.splitlines()
              if l.startswith('kiln_inference_batch_size_count{model="tinyp"')]
    psum = [float(l.split()[-1]) for l in ptext.splitlines()
            if l.startswith('kiln_inference_batch_size_sum{model="tinyp"')]
    check(pcount and psum and psum[0] / pcount[0] > 1.5,
          "tinyp: executions merged requests (%s rows per execution)" %
          (psum[0] / pcount[0] if pcount and pcount[0] else "no"))
    burst("tinyb")
    s, _, text = request("/metrics", port=METRICS)
    text = text.decode()

    def metric(line_start):
        for line in text.splitlines():
            if line.startswith(line_start):
                return float(line.split()[-1])
        return None
    le1 = metric('kiln_inference_batch_size_bucket{model="tinyb",version="1",le="1"}')
    count = metric('kiln_inference_batch_size_count{model="tinyb",version="1"}')
    rows = metric('kiln_inference_batch_size_sum{model="tinyb",version="1"}')
    check(s == 200 and count is not None and le1 is not None and le1 < count
          and rows / count > 2,
          "batch-size histogram: batches > 1 (%s of %s executions had 1 row, %.1f rows "
          "each on average)" % (le1, count, (rows or 0) / (count or 1)))
    check((metric('kiln_inference_exec_by_plan_total{model="tinyb",version="1",plan_batch="8"}')
           or 0) > 0, "executions on the batch-8 plan")
    check((metric('kiln_inference_request_success_total{model="tiny",version="2"}') or 0) > 0
          and (metric('kiln_inference_request_failure_total{model="tiny",version="2"}') or 0) >= 10,
          "success and failure counters")
    check('kiln_inference_request_duration_seconds_bucket{model="tinyb"' in text
          and 'kiln_inference_queue_duration_seconds_count{model="tinyb"' in text,
          "latency and queue-time histograms")
    stages = {}
    for stage in ("input", "infer", "output"):
        m = re.search(r'^kiln_inference_compute_%s_duration_seconds_count\{model="tinyb",'
                      r'version="1"\} (\d+)$' % stage, text, re.M)
        stages[stage] = int(m.group(1)) if m else -1
    check(len(set(stages.values())) == 1 and stages["infer"] > 0,
          "compute input/infer/output histograms, one observation per execution (%s)" % stages)
    check(request("/metrics")[0] == 200, "/metrics on the REST port too")

    # The load generator, both protocols.
    for proto, port in (("rest", HTTP), ("grpc", GRPC)):
        r = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "bench", "serve_load.py"),
                            "--model", "tinyb", "--protocol", proto, "--url",
                            "127.0.0.1:%d" % port, "--requests", "400", "--concurrency", "16",
                            "--reference-model", "tiny", "--batch", "2"],
                           capture_output=True, text=True, timeout=300)
        print(r.stdout.strip())
        if r.returncode != 0:
            print(r.stderr.strip()[-2000:])
        check(r.returncode == 0, "bench/serve_load.py %s: no errors" % proto)
    # The C++ load generator against the multi-profile model, references from
    # the unbatched one; and a refusal it must report (an unknown model).
    load = os.path.join(BIN, "kiln-serve-load")
    r = subprocess.run([load, "--url", "127.0.0.1:%d" % HTTP, "--model", "tinyp",
                        "--reference-model", "tiny", "--requests", "400",
                        "--concurrency", "16", "--max-scaled-error", "1e-5"],
                       capture_output=True, text=True, timeout=300)
    print(r.stdout.strip())
    check(r.returncode == 0 and "0 errors" in r.stdout, "kiln-serve-load tinyp: no errors")
    r = subprocess.run([load, "--url", "127.0.0.1:%d" % HTTP, "--model", "nosuch"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 1 and "nosuch" in r.stderr, "kiln-serve-load: an unknown model is an error")

    # Graceful shutdown: requests waiting in 'slow''s 0.5 s batching window
    # are answered, the process exits 0.
    slow = [None] * 3

    def slow_client(i):
        try:
            slow[i] = rest_json("/v2/models/slow/infer", {"inputs": [good]})[0]
        except Exception as e:  # noqa: BLE001
            slow[i] = str(e)
    threads = [threading.Thread(target=slow_client, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    time.sleep(0.2)
    server.send_signal(signal.SIGTERM)
    for t in threads:
        t.join()
    rc = server.wait(timeout=60)
    check(slow == [200, 200, 200], "requests in flight at SIGTERM answered (%s)" % slow)
    check(rc == 0, "SIGTERM: exit 0 (got %s)" % rc)
finally:
    if server.poll() is None:
        server.kill()
        server.wait()
    log.close()

if failures:
    print("%d check(s) failed; server log: %s" % (len(failures), os.path.join(WORK, "serve.log")))
    sys.exit(1)
print("all kiln-serve checks passed")
