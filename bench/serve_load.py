#!/usr/bin/python3
"""Load test for kiln-serve: N inference requests from C concurrent clients.

Each client keeps one connection (REST keep-alive, or a gRPC channel) and
sends requests back to back. Inputs are a pool of seeded random tensors of
the model's shape (batch --batch where the model batches); before the load,
every pool entry is sent once on its own (one client, nothing to merge with)
and its outputs are the reference: every response under load must match its
input's reference within --rtol/--atol (or, with --max-scaled-error E,
max|got - ref| <= E * max|ref| per output: the measure for fp16 plans, whose
batched executions may use other tactics than the reference's batch-1 one),
or the run fails (exit 1). The largest scaled error seen is reported.

  bench/serve_load.py --model resnet50 [--protocol rest|grpc] [--url HOST:PORT]
                      [--requests 2000] [--concurrency 32]

Prints throughput (requests/s and rows/s) and p50/p99 latency; with --json,
one JSON object. Needs Debian's python3-numpy (and python3-grpcio, protoc for
--protocol grpc).
"""
import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

DTYPES = {
    "BOOL": np.bool_, "UINT8": np.uint8, "UINT16": np.uint16,
    "UINT32": np.uint32, "UINT64": np.uint64, "INT8": np.int8,
    "INT16": np.int16, "INT32": np.int32, "INT64": np.int64,
    "FP16": np.float16, "FP32": np.float32, "FP64": np.float64,
}
HERE = os.path.dirname(os.path.abspath(__file__))
PROTO_DIR = os.path.join(HERE, "..", "tools", "kiln-serve")


def grpc_messages():
    """The protocol's messages, generated with protoc --python_out."""
    out = tempfile.mkdtemp(prefix="kiln-serve-proto-")
    subprocess.run(["protoc", "-I", PROTO_DIR, "--python_out=" + out,
                    os.path.join(PROTO_DIR, "grpc_service.proto")], check=True)
    sys.path.insert(0, out)
    import grpc_service_pb2  # noqa: E402
    return grpc_service_pb2


class RestClient:
    def __init__(self, host, port, model):
        self.conn = http.client.HTTPConnection(host, port, timeout=120)
        self.conn.connect()
        self.conn.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.model = model

    def get(self, path):
        self.conn.request("GET", path)
        r = self.conn.getresponse()
        return r.status, r.read()

    def infer(self, inputs, outputs):
        """inputs: [(name, datatype, array)], binary; returns {name: array}."""
        header = {"inputs": [], "outputs": [
            {"name": o, "parameters": {"binary_data": True}} for o in outputs]}
        blobs = []
        for name, dt, a in inputs:
            b = np.ascontiguousarray(a).tobytes()
            header["inputs"].append({"name": name, "datatype": dt,
                                     "shape": list(a.shape),
                                     "parameters": {"binary_data_size": len(b)}})
            blobs.append(b)
        h = json.dumps(header).encode()
        self.conn.request("POST", "/v2/models/%s/infer" % self.model,
                          body=h + b"".join(blobs),
                          headers={"Inference-Header-Content-Length": str(len(h)),
                                   "Content-Type": "application/octet-stream"})
        r = self.conn.getresponse()
        body = r.read()
        if r.status != 200:
            raise RuntimeError("HTTP %d: %s" % (r.status, body[:300]))
        n = int(r.getheader("Inference-Header-Content-Length", len(body)))
        meta = json.loads(body[:n])
        offset, result = n, {}
        for o in meta["outputs"]:
            size = o["parameters"]["binary_data_size"]
            result[o["name"]] = np.frombuffer(
                body[offset:offset + size],
                dtype=DTYPES[o["datatype"]]).reshape(o["shape"])
            offset += size
        return result


class GrpcClient:
    def __init__(self, target, model, pb):
        import grpc
        self.pb = pb
        self.model = model
        self.channel = grpc.insecure_channel(target, options=[
            ("grpc.max_receive_message_length", 1 << 30),
            ("grpc.max_send_message_length", 1 << 30)])
        svc = "/inference.GRPCInferenceService/"
        self.metadata = self.channel.unary_unary(
            svc + "ModelMetadata",
            request_serializer=pb.ModelMetadataRequest.SerializeToString,
            response_deserializer=pb.ModelMetadataResponse.FromString)
        self.model_infer = self.channel.unary_unary(
            svc + "ModelInfer",
            request_serializer=pb.ModelInferRequest.SerializeToString,
            response_deserializer=pb.ModelInferResponse.FromString)

    def infer(self, inputs, outputs):
        req = self.pb.ModelInferRequest(model_name=self.model)
        for name, dt, a in inputs:
            t = req.inputs.add(name=name, datatype=dt)
            t.shape.extend(a.shape)
            req.raw_input_contents.append(np.ascontiguousarray(a).tobytes())
        for o in outputs:
            req.outputs.add(name=o)
        res = self.model_infer(req, timeout=120)
        return {o.name: np.frombuffer(raw, dtype=DTYPES[o.datatype]).reshape(
                    list(o.shape))
                for o, raw in zip(res.outputs, res.raw_output_contents)}


def model_metadata(args, pb):
    if args.protocol == "grpc":
        c = GrpcClient(args.url, args.model, pb)
        m = c.metadata(pb.ModelMetadataRequest(name=args.model), timeout=30)
        return ([(t.name, t.datatype, list(t.shape)) for t in m.inputs],
                [t.name for t in m.outputs])
    host, port = args.url.rsplit(":", 1)
    status, body = RestClient(host, int(port), args.model).get(
        "/v2/models/" + args.model)
    if status != 200:
        sys.exit("serve_load: model metadata: HTTP %d %s" % (status, body))
    m = json.loads(body)
    return ([(t["name"], t["datatype"], t["shape"]) for t in m["inputs"]],
            [t["name"] for t in m["outputs"]])


def make_inputs(specs, batch, seed, pool):
    rng = np.random.default_rng(seed)
    entries = []
    for _ in range(pool):
        entry = []
        for name, dt, shape in specs:
            shape = [batch if d < 0 else d for d in shape]
            kind = DTYPES[dt]
            if np.issubdtype(kind, np.floating):
                a = rng.uniform(-1, 1, shape).astype(kind)
            elif kind == np.bool_:
                a = rng.integers(0, 2, shape).astype(kind)
            else:
                a = rng.integers(0, 10, shape).astype(kind)
            entry.append((name, dt, a))
        entries.append(entry)
    return entries


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--protocol", choices=["rest", "grpc"], default="rest")
    p.add_argument("--url", help="HOST:PORT (default localhost:8000 REST, "
                   "localhost:8001 gRPC)")
    p.add_argument("--requests", type=int, default=2000)
    p.add_argument("--concurrency", type=int, default=32)
    p.add_argument("--batch", type=int, default=1,
                   help="rows per request where the model batches (-1 dims)")
    p.add_argument("--pool", type=int, default=32,
                   help="distinct inputs (each checked against its reference)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--reference-model",
                   help="model whose single-request outputs are the reference "
                   "(default: --model)")
    p.add_argument("--rtol", type=float, default=1e-4)
    p.add_argument("--atol", type=float, default=1e-5)
    p.add_argument("--max-scaled-error", type=float, default=None,
                   help="instead of --rtol/--atol: max|got-ref| / max|ref| "
                        "per output at most this")
    p.add_argument("--warmup", type=int, default=2,
                   help="requests per client before timing starts")
    p.add_argument("--json", action="store_true")
    p.add_argument("--latencies", metavar="FILE.npy",
                   help="save every request's latency (ms) to combine runs")
    args = p.parse_args()
    if args.url is None:
        args.url = "localhost:8001" if args.protocol == "grpc" else "localhost:8000"
    pb = grpc_messages() if args.protocol == "grpc" else None

    def client(model):
        if args.protocol == "grpc":
            return GrpcClient(args.url, model, pb)
        host, port = args.url.rsplit(":", 1)
        return RestClient(host, int(port), model)

    specs, outputs = model_metadata(args, pb)
    pool = make_inputs(specs, args.batch, args.seed, args.pool)
    ref_client = client(args.reference_model or args.model)
    references = []
    for entry in pool:
        if args.reference_model:
            # The reference model may not batch: send its rows one at a time.
            rows = entry[0][2].shape[0]
            parts = [ref_client.infer([(n, d, a[r:r + 1]) for n, d, a in entry],
                                      outputs) for r in range(rows)]
            references.append({o: np.concatenate([q[o] for q in parts])
                               for o in outputs})
        else:
            references.append(ref_client.infer(entry, outputs))

    latencies, errors = [], []
    worst = [0.0]  # largest max|got - ref| / max|ref| seen
    lock = threading.Lock()
    counter = [0]
    start_barrier = threading.Barrier(args.concurrency + 1)

    def worker(w):
        c = client(args.model)
        try:
            for i in range(args.warmup):
                c.infer(pool[(w + i) % len(pool)], outputs)
        except Exception as e:  # noqa: BLE001
            with lock:
                errors.append("warm-up: %s" % e)
        start_barrier.wait()
        while True:
            with lock:
                i = counter[0]
                counter[0] += 1
            if i >= args.requests:
                return
            k = i % len(pool)
            t0 = time.perf_counter()
            try:
                got = c.infer(pool[k], outputs)
            except Exception as e:  # noqa: BLE001
                with lock:
                    errors.append("request %d: %s" % (i, e))
                continue
            dt = time.perf_counter() - t0
            bad = []
            scaled = 0.0
            for o in outputs:
                a = got[o].astype(np.float64)
                r = references[k][o].astype(np.float64)
                if a.shape != r.shape:
                    bad.append(o)
                    continue
                e = float(np.abs(a - r).max() / max(np.abs(r).max(), 1e-30)) if r.size else 0.0
                scaled = max(scaled, e)
                if args.max_scaled_error is not None:
                    if not e <= args.max_scaled_error:
                        bad.append(o)
                elif not np.allclose(a, r, rtol=args.rtol, atol=args.atol, equal_nan=True):
                    bad.append(o)
            with lock:
                worst[0] = max(worst[0], scaled)
                latencies.append(dt)
                if bad:
                    errors.append("request %d (input %d): output %s differs "
                                  "from the reference" % (i, k, ", ".join(bad)))

    threads = [threading.Thread(target=worker, args=(w,))
               for w in range(args.concurrency)]
    for t in threads:
        t.start()
    start_barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0

    lat = np.sort(np.array(latencies)) * 1e3 if latencies else np.zeros(1)
    if args.latencies:
        np.save(args.latencies, lat if latencies else np.zeros(0))
    report = {
        "model": args.model, "protocol": args.protocol,
        "requests": args.requests, "concurrency": args.concurrency,
        "batch": args.batch, "errors": len(errors),
        "seconds": round(wall, 3),
        "requests_per_s": round(len(latencies) / wall, 1),
        "rows_per_s": round(len(latencies) * args.batch / wall, 1),
        "p50_ms": round(float(np.percentile(lat, 50)), 3),
        "p99_ms": round(float(np.percentile(lat, 99)), 3),
        "max_scaled_error": worst[0],
    }
    if args.json:
        print(json.dumps(report))
    else:
        print("%s (%s): %d requests, %d clients, batch %d: %.1f req/s "
              "(%.1f rows/s), latency p50 %.3f ms, p99 %.3f ms, %d errors "
              "(max scaled error %.2g)"
              % (args.model, args.protocol, args.requests, args.concurrency,
                 args.batch, report["requests_per_s"], report["rows_per_s"],
                 report["p50_ms"], report["p99_ms"], len(errors), worst[0]))
    for e in errors[:10]:
        print("serve_load: error: " + e, file=sys.stderr)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
