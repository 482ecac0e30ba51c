#!/usr/bin/env node
// Runs an ONNX model with ONNX Runtime (CPU) on ONNX test-data inputs.
//
//   node ort_run.js MODEL.onnx INPUT_DIR OUTPUT_DIR
//
// Reads INPUT_DIR/input_0.pb, input_1.pb, ... (serialized onnx.TensorProto), feeds them to the model's
// inputs (by TensorProto name when it matches an input, else in order), and writes OUTPUT_DIR/output_K.pb
// in the model's output order. The TensorProto codec below is a minimal hand-written protobuf reader/writer
// (onnxruntime-node ships no protobuf), covering fields dims=1, data_type=2, float_data=4, int32_data=5,
// int64_data=7, name=8, raw_data=9, double_data=10.
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

// onnx.TensorProto.DataType -> [ort type, typed array, bytes per element]
const TYPES = {
  1: ['float32', Float32Array, 4],
  2: ['uint8', Uint8Array, 1],
  3: ['int8', Int8Array, 1],
  4: ['uint16', Uint16Array, 2],
  5: ['int16', Int16Array, 2],
  6: ['int32', Int32Array, 4],
  7: ['int64', BigInt64Array, 8],
  9: ['bool', Uint8Array, 1],
  11: ['float64', Float64Array, 8],
  12: ['uint32', Uint32Array, 4],
  13: ['uint64', BigUint64Array, 8],
};
const ORT_TO_ONNX = {};
for (const [k, v] of Object.entries(TYPES)) ORT_TO_ONNX[v[0]] = Number(k);

// ---- protobuf reading ----
class Reader {
  constructor(buf) { this.buf = buf; this.pos = 0; }
  done() { return this.pos >= this.buf.length; }
  varint() { // as BigInt (int64 fields may be negative: 10-byte two's complement)
    let result = 0n, shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw new Error('truncated varint');
      const b = this.buf[this.pos++];
      result |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
      shift += 7n;
    }
    return BigInt.asIntN(64, result);
  }
  bytes() {
    const n = Number(this.varint());
    const out = this.buf.subarray(this.pos, this.pos + n);
    if (out.length !== n) throw new Error('truncated field');
    this.pos += n;
    return out;
  }
  skip(wire) {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
}

function readTensor(buf) {
  const r = new Reader(buf);
  const t = { dims: [], dataType: 0, name: '', raw: null, floats: [], ints32: [], ints64: [], doubles: [] };
  // Repeated scalar field: packed (wire 2) or one element per tag.
  const repeated = (wire, one, wireOne) => {
    if (wire === 2) {
      const sub = new Reader(r.bytes());
      const vals = [];
      while (!sub.done()) vals.push(one(sub));
      return vals;
    }
    if (wire !== wireOne) throw new Error(`bad wire type ${wire}`);
    return [one(r)];
  };
  const f32 = (rd) => { const v = rd.buf.readFloatLE(rd.pos); rd.pos += 4; return v; };
  const f64 = (rd) => { const v = rd.buf.readDoubleLE(rd.pos); rd.pos += 8; return v; };
  while (!r.done()) {
    const key = Number(r.varint());
    const field = key >>> 3, wire = key & 7;
    switch (field) {
      case 1: t.dims.push(...repeated(wire, (rd) => rd.varint(), 0)); break;
      case 2: t.dataType = Number(r.varint()); break;
      case 4: t.floats.push(...repeated(wire, f32, 5)); break;
      case 5: t.ints32.push(...repeated(wire, (rd) => rd.varint(), 0)); break;
      case 7: t.ints64.push(...repeated(wire, (rd) => rd.varint(), 0)); break;
      case 8: t.name = r.bytes().toString('utf8'); break;
      case 9: t.raw = Buffer.from(r.bytes()); break;
      case 10: t.doubles.push(...repeated(wire, f64, 1)); break;
      default: r.skip(wire);
    }
  }
  const info = TYPES[t.dataType];
  if (!info) throw new Error(`unsupported TensorProto data_type ${t.dataType}`);
  const [ortType, Arr, size] = info;
  const dims = t.dims.map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  let data;
  if (t.raw) {
    if (t.raw.length !== count * size) throw new Error(`raw_data has ${t.raw.length} bytes, expected ${count * size}`);
    const aligned = new ArrayBuffer(t.raw.length); // copy: typed arrays need aligned offsets
    new Uint8Array(aligned).set(t.raw);
    data = new Arr(aligned); // little-endian host assumed (x86-64, aarch64)
  } else {
    let src;
    if (t.dataType === 1) src = t.floats;
    else if (t.dataType === 11) src = t.doubles;
    else if (t.dataType === 7) src = t.ints64;
    else if (t.dataType === 13) src = t.ints64.map((v) => BigInt.asUintN(64, v));
    else src = t.ints32.map(Number); // int32, int16, int8, uint8, uint16, bool (and uint32 in uint64_data is rare)
    if (src.length !== count) throw new Error(`tensor '${t.name}' has ${src.length} values, expected ${count}`);
    data = Arr.from(src);
  }
  return { name: t.name, tensor: new ort.Tensor(ortType, data, dims) };
}

// ---- protobuf writing ----
function varintBytes(v) { // v: BigInt, non-negative or int64 (two's complement, 10 bytes)
  let u = BigInt.asUintN(64, BigInt(v));
  const out = [];
  do {
    let b = Number(u & 0x7fn);
    u >>= 7n;
    if (u) b |= 0x80;
    out.push(b);
  } while (u);
  return Buffer.from(out);
}
const tag = (field, wire) => varintBytes(BigInt((field << 3) | wire));
const lenField = (field, bytes) => Buffer.concat([tag(field, 2), varintBytes(BigInt(bytes.length)), bytes]);

function writeTensor(name, tensor) {
  const dt = ORT_TO_ONNX[tensor.type];
  if (!dt) throw new Error(`output '${name}': unsupported type ${tensor.type}`);
  const parts = [];
  for (const d of tensor.dims) parts.push(tag(1, 0), varintBytes(BigInt(d)));
  parts.push(tag(2, 0), varintBytes(BigInt(dt)));
  parts.push(lenField(8, Buffer.from(name, 'utf8')));
  const d = tensor.data;
  parts.push(lenField(9, Buffer.from(d.buffer, d.byteOffset, d.byteLength)));
  return Buffer.concat(parts);
}

async function main() {
  const [model, inDir, outDir] = process.argv.slice(2);
  if (!outDir) {
    console.error('usage: node ort_run.js MODEL.onnx INPUT_DIR OUTPUT_DIR');
    process.exit(2);
  }
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['cpu'],
    graphOptimizationLevel: 'all',
  });
  const feeds = {};
  const inputs = session.inputNames;
  for (let k = 0; ; k++) {
    const file = path.join(inDir, `input_${k}.pb`);
    if (!fs.existsSync(file)) break;
    const { name, tensor } = readTensor(fs.readFileSync(file));
    const key = inputs.includes(name) ? name : inputs[k];
    if (key === undefined) throw new Error(`${file}: model has only ${inputs.length} inputs`);
    feeds[key] = tensor;
  }
  for (const n of inputs) if (!(n in feeds)) throw new Error(`no input file for model input '${n}'`);
  const results = await session.run(feeds);
  fs.mkdirSync(outDir, { recursive: true });
  session.outputNames.forEach((n, k) => {
    fs.writeFileSync(path.join(outDir, `output_${k}.pb`), writeTensor(n, results[n]));
  });
}

main().catch((e) => { console.error(`ort_run.js: ${e.stack || e}`); process.exit(2); });
