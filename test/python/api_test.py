#!/usr/bin/python3
"""The kiln Python package on the host: compile, plans, sessions, errors, threads.

    PYTHONPATH=build/python KILN_BIN=build/bin /usr/bin/python3 -m unittest -v test/python/api_test.py

Models are built with onnx.helper (references in numpy) plus
examples/fashion-mnist/model.onnx (reference: its graph run with PyTorch's
functional ops on the ONNX weights). KILN_BIN (kilnc's folder) enables the
comparison with kilnc's plans and reports.
"""
import json
import os
import subprocess
import sys
import tempfile
import threading
import unittest

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.dont_write_bytecode = True
import kiln  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FMNIST = os.path.join(ROOT, "examples", "fashion-mnist", "model.onnx")
KILNC = os.path.join(os.environ.get("KILN_BIN", ""), "kilnc")


def mlp_model(batch=2):
    """y = relu(x @ W + b), s = x + x2: two inputs, two outputs."""
    rng = np.random.default_rng(0)
    w = rng.standard_normal((3, 4)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    nodes = [
        helper.make_node("MatMul", ["x", "W"], ["t"], name="matmul"),
        helper.make_node("Add", ["t", "b"], ["u"], name="bias"),
        helper.make_node("Relu", ["u"], ["y"], name="relu"),
        helper.make_node("Add", ["x", "x2"], ["s"], name="sum"),
    ]
    graph = helper.make_graph(
        nodes,
        "mlp",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3]),
            helper.make_tensor_value_info("x2", TensorProto.FLOAT, [batch, 3]),
        ],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 4]),
            helper.make_tensor_value_info("s", TensorProto.FLOAT, [batch, 3]),
        ],
        initializer=[numpy_helper.from_array(w, "W"), numpy_helper.from_array(b, "b")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model, w, b


def mlp_reference(x, x2, w, b):
    return {"y": np.maximum(x @ w + b, 0), "s": x + x2}


def int_model():
    """z = x * 3 + 1 on int64: the session must keep integer types."""
    nodes = [
        helper.make_node("Mul", ["x", "three"], ["t"]),
        helper.make_node("Add", ["t", "one"], ["z"]),
    ]
    graph = helper.make_graph(
        nodes,
        "ints",
        [helper.make_tensor_value_info("x", TensorProto.INT64, [5])],
        [helper.make_tensor_value_info("z", TensorProto.INT64, [5])],
        initializer=[
            numpy_helper.from_array(np.array(3, np.int64), "three"),
            numpy_helper.from_array(np.array(1, np.int64), "one"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    return model


def fmnist_reference(images):
    """Runs examples/fashion-mnist/model.onnx with torch.nn.functional."""
    import torch
    import torch.nn.functional as F

    model = onnx.load(FMNIST)
    values = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in model.graph.initializer}
    values["image"] = torch.from_numpy(images)
    for n in model.graph.node:
        a = {x.name: helper.get_attribute_value(x) for x in n.attribute}
        ins = [values[i] for i in n.input]
        if n.op_type == "Conv":
            p = a.get("pads", [0, 0, 0, 0])
            assert p[:2] == p[2:]
            out = F.conv2d(ins[0], ins[1], ins[2], a.get("strides", 1), p[:2], a.get("dilations", 1), a.get("group", 1))
        elif n.op_type == "Relu":
            out = F.relu(ins[0])
        elif n.op_type == "MaxPool":
            p = a.get("pads", [0, 0, 0, 0])
            out = F.max_pool2d(ins[0], a["kernel_shape"], a.get("strides"), p[:2], ceil_mode=bool(a.get("ceil_mode", 0)))
        elif n.op_type == "Flatten":
            out = torch.flatten(ins[0], a.get("axis", 1))
        elif n.op_type == "Gemm":
            wt = ins[1].t() if a.get("transB", 0) else ins[1]
            out = a.get("alpha", 1.0) * (ins[0] @ wt) + a.get("beta", 1.0) * ins[2]
        else:
            raise AssertionError("no reference for " + n.op_type)
        values[n.output[0]] = out
    return values[model.graph.output[0].name].numpy()


class CompileTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model, cls.w, cls.b = mlp_model()
        cls.tmp = tempfile.TemporaryDirectory(prefix="kiln-python-test-")
        cls.path = os.path.join(cls.tmp.name, "mlp.onnx")
        onnx.save(cls.model, cls.path)
        cls.plan = kiln.compile(cls.path)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def feeds(self, seed=1):
        rng = np.random.default_rng(seed)
        return {
            "x": rng.standard_normal((2, 3)).astype(np.float32),
            "x2": rng.standard_normal((2, 3)).astype(np.float32),
        }

    def check(self, session, seed=1):
        f = self.feeds(seed)
        got = session.run(None, f)
        want = mlp_reference(f["x"], f["x2"], self.w, self.b)
        self.assertEqual(sorted(got), ["s", "y"])
        for k in want:
            # f32 sums of three products: a few ulps.
            np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6)

    def test_path_bytes_and_modelproto(self):
        from_bytes = kiln.compile(self.model.SerializeToString())
        from_proto = kiln.compile(self.model)
        for plan in (self.plan, from_bytes, from_proto):
            self.check(kiln.Session(plan))
        sha = {p.info.provenance["model.sha256"] for p in (self.plan, from_bytes, from_proto)}
        self.assertEqual(len(sha), 1, "the three sources are the same model bytes")
        self.assertEqual(self.plan.info.provenance["model.path"], self.path)
        self.assertEqual(from_bytes.info.provenance["model.path"], "<bytes>")

    def test_report_and_info(self):
        r = self.plan.report
        self.assertEqual(r["targets"], ["host"])
        self.assertEqual(r["precision"], "fp32")
        self.assertGreater(r["kernels"], 0)
        self.assertEqual(r["plan_bytes"], len(bytes(self.plan)))
        self.assertIsNone(r["plan"])
        self.assertEqual(r["model"], self.path)
        self.assertEqual([s["name"] for s in r["stages"]][0], "import")
        info = self.plan.info
        self.assertEqual(info.targets, ["host"])
        self.assertEqual([(t.name, t.dtype, t.shape) for t in info.inputs],
                         [("x", np.dtype(np.float32), (2, 3)), ("x2", np.dtype(np.float32), (2, 3))])
        self.assertEqual([(t.name, t.shape) for t in info.outputs], [("y", (2, 4)), ("s", (2, 3))])
        self.assertEqual(info.provenance["options.targets"], "host")
        self.assertFalse(info.weight_stripped)

    def test_save_load_round_trip(self):
        path = os.path.join(self.tmp.name, "mlp.plan")
        self.plan.save(path)
        loaded = kiln.load(path)
        self.assertEqual(bytes(loaded), bytes(self.plan))
        self.assertIsNone(loaded.report)
        self.assertEqual(kiln.load(bytes(self.plan)).info.provenance, self.plan.info.provenance)
        self.check(kiln.Session(path))
        self.check(kiln.Session(bytes(self.plan)))
        s = kiln.Session(loaded, device="host")
        self.assertEqual(s.target, "host")
        self.assertFalse(s.on_gpu)
        self.assertEqual([t.name for t in s.get_inputs()], ["x", "x2"])
        self.assertEqual([t.name for t in s.get_outputs()], ["y", "s"])

    def test_output_names_and_preallocated_outputs(self):
        s = kiln.Session(self.plan)
        f = self.feeds(2)
        want = mlp_reference(f["x"], f["x2"], self.w, self.b)
        only = s.run(["s"], f)
        self.assertEqual(list(only), ["s"])
        np.testing.assert_allclose(only["s"], want["s"], rtol=1e-6)
        y = np.full((2, 4), np.nan, np.float32)
        got = s.run(["y"], f, outputs={"y": y})
        self.assertIs(got["y"], y)
        np.testing.assert_allclose(y, want["y"], rtol=1e-5, atol=1e-6)
        # Outputs given but not named are returned too.
        got = s.run(["s"], f, outputs={"y": y})
        self.assertEqual(sorted(got), ["s", "y"])

    def test_non_contiguous_feed(self):
        s = kiln.Session(self.plan)
        f = self.feeds(3)
        f["x"] = np.asfortranarray(f["x"])
        want = mlp_reference(f["x"], f["x2"], self.w, self.b)
        np.testing.assert_allclose(s.run(None, f)["y"], want["y"], rtol=1e-5, atol=1e-6)

    def test_integer_model(self):
        s = kiln.Session(kiln.compile(int_model()))
        self.assertEqual(s.get_inputs()[0].dtype, np.dtype(np.int64))
        x = np.array([-2, -1, 0, 7, 1 << 40], np.int64)
        z = s.run(None, {"x": x})["z"]
        self.assertEqual(z.dtype, np.int64)
        np.testing.assert_array_equal(z, x * 3 + 1)

    def test_input_shapes_and_values(self):
        model, w, b = mlp_model(batch="N")
        plan = kiln.compile(model, input_shapes={"x": [4, 3], "x2": "4x3"})
        self.assertEqual(plan.info.inputs[0].shape, (4, 3))
        self.assertEqual(plan.info.provenance["options.input_shapes"], "x=4x3\nx2=4x3")
        # None keeps a dimension dynamic, which plans cannot be.
        with self.assertRaisesRegex(kiln.CompileError, "x2.*dynamic shape"):
            kiln.compile(model, input_shapes={"x": [4, 3], "x2": (4, None)})
        fixed = np.arange(6, dtype=np.float32).reshape(2, 3)
        plan = kiln.compile(self.model, input_values={"x2": fixed})
        self.assertTrue(plan.info.inputs[1].fixed_value)
        s = kiln.Session(plan)
        f = self.feeds(4)
        f["x2"] = fixed
        np.testing.assert_allclose(s.run(["s"], f)["s"], f["x"] + fixed, rtol=1e-6)
        f["x2"] = fixed + 1
        with self.assertRaisesRegex(kiln.Error, "x2"):
            s.run(None, f)

    def test_profiles(self):
        # One plan for batch 1, 2 and 5 (kilnc --profile); run() picks the
        # profile from the feeds' shapes.
        model, w, b = mlp_model(batch="N")
        plan = kiln.compile(model, profiles=[{"x": [1, 3], "x2": [1, 3]},
                                             {"x": [2, 3], "x2": [2, 3]},
                                             {"x": "5x3", "x2": "5x3"}])
        self.assertEqual(plan.report["profiles"][2]["profile"], "x=5x3,x2=5x3")
        self.assertEqual(plan.info.provenance["options.profiles"],
                         "x=1x3,x2=1x3; x=2x3,x2=2x3; x=5x3,x2=5x3")
        s = kiln.Session(plan)
        rng = np.random.default_rng(3)
        for n in (5, 1, 2, 5):
            x = rng.standard_normal((n, 3)).astype(np.float32)
            x2 = rng.standard_normal((n, 3)).astype(np.float32)
            got = s.run(None, {"x": x, "x2": x2})
            ref = mlp_reference(x, x2, w, b)
            self.assertEqual(got["y"].shape, (n, 4))
            np.testing.assert_allclose(got["y"], ref["y"], rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(got["s"], ref["s"], rtol=1e-6)
        x = np.zeros((3, 3), np.float32)
        with self.assertRaisesRegex(kiln.Error, "dim 0 is 3, but the plan's profiles have 1, 2, 5"):
            s.run(None, {"x": x, "x2": x})
        with self.assertRaisesRegex(kiln.CompileError, "dynamic dim 0 .'N'. that the profile does not give"):
            kiln.compile(model, profiles=[{"x": [1, 3]}])
        with self.assertRaisesRegex(ValueError, "every dim must be given"):
            kiln.compile(model, profiles=[{"x": [None, 3], "x2": [1, 3]}])

    def test_fashion_mnist(self):
        plan = kiln.compile(FMNIST)
        s = kiln.Session(plan)
        (inp,) = s.get_inputs()
        self.assertEqual((inp.name, inp.shape), ("image", (100, 1, 28, 28)))
        images = np.random.default_rng(5).standard_normal(inp.shape).astype(np.float32)
        got = s.run(None, {"image": images})["logits"]
        want = fmnist_reference(images)
        # Two convs and two GEMMs (K up to 800) summed in another order than
        # PyTorch's: relative errors ~1e-6, a few 1e-5 absolute on logits ~10.
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)

    def test_int8(self):
        # Three random calibration samples of the Fashion-MNIST input; the
        # plan's logits stay close to fp32's (int8 steps of ~1 % of each
        # range through 4 layers), the cache written is read back alone.
        rng = np.random.default_rng(7)
        calib = os.path.join(self.tmp.name, "calib")
        os.makedirs(calib)
        for k in range(3):
            np.save(os.path.join(calib, f"s{k}.npy"),
                    rng.standard_normal((100, 1, 28, 28)).astype(np.float32))
        cache = os.path.join(self.tmp.name, "int8.json")
        plan = kiln.compile(FMNIST, precision="int8", calib=calib, calib_method="minmax",
                            calib_cache=cache)
        self.assertEqual(plan.report["precision"], "int8")
        self.assertEqual(plan.report["int8"]["method"], "minmax")
        self.assertEqual([l["op"] for l in plan.report["int8"]["layers"]],
                         ["Conv", "Conv", "Gemm", "Gemm"])
        with open(cache) as f:
            self.assertEqual(json.load(f)["format"], "kiln-int8-calibration-1")
        images = np.load(os.path.join(calib, "s0.npy"))
        got = kiln.Session(plan).run(None, {"image": images})["logits"]
        want = fmnist_reference(images)
        err = np.abs(got - want).max() / np.abs(want).max()
        self.assertLess(err, 0.05)
        self.assertGreater(err, 0)  # really quantized, not the fp32 plan
        again = kiln.compile(FMNIST, precision="int8", calib_cache=cache, calib_method="minmax")
        np.testing.assert_array_equal(
            kiln.Session(again).run(None, {"image": images})["logits"], got)
        with self.assertRaisesRegex(ValueError, "needs calib"):
            kiln.compile(FMNIST, precision="int8")
        with self.assertRaisesRegex(ValueError, "apply to precision='int8'"):
            kiln.compile(FMNIST, calib=calib)
        with self.assertRaisesRegex(ValueError, "unknown calibration method 'kl'"):
            kiln.compile(FMNIST, precision="int8", calib=calib, calib_method="kl")
        with self.assertRaisesRegex(kiln.CompileError, "host plans only"):
            kiln.compile(FMNIST, precision="int8", calib=calib, target="sm_90a")
        tol = kiln.compile(FMNIST, precision="int8", calib=calib, calib_method="minmax",
                           int8_tolerance=0.02)
        self.assertLessEqual(tol.report["int8"]["error"], 0.02)
        self.assertEqual(len(tol.report["int8"]["tolerance_kept"]),
                         4 - len(tol.report["int8"]["layers"]))
        with self.assertRaisesRegex(ValueError, "int8_tolerance measures"):
            kiln.compile(FMNIST, precision="int8", calib_cache=cache, calib_method="minmax",
                         int8_tolerance=0.02)

    def test_fp16_islands_and_validate(self):
        # test/e2e/gen_fp16_range_cases.py's model: squares summed to ~1e7.
        work = os.path.join(self.tmp.name, "fp16")
        subprocess.run(["/usr/bin/python3",
                        os.path.join(ROOT, "test", "e2e", "gen_fp16_range_cases.py"),
                        work], check=True, capture_output=True)
        model = os.path.join(work, "model.onnx")
        calib = os.path.join(work, "calib")
        with self.assertRaisesRegex(kiln.CompileError, "first node beyond the tolerance is 'sumsq'"):
            kiln.compile(model, precision="fp16", validate=calib)
        plan = kiln.compile(model, precision="fp16", calib=calib, validate=calib)
        self.assertEqual([i.split(" ")[0] for i in plan.report["fp32_islands"]], ["sumsq", "norm"])
        self.assertTrue(plan.report["validation"]["passed"])
        x = np.load(os.path.join(calib, "sample_0.npy"))
        ref = kiln.Session(kiln.compile(model)).run(None, {"x": x})["y"]
        got = kiln.Session(plan).run(None, {"x": x})["y"]
        self.assertLess(np.abs(got - ref).max() / np.abs(ref).max(), 1e-2)
        with self.assertRaisesRegex(ValueError, "validate compares an fp16 or bf16 build"):
            kiln.compile(model, validate=calib)
        with self.assertRaisesRegex(ValueError, "validate_tolerance must be a number > 0"):
            kiln.compile(model, precision="fp16", validate=calib, validate_tolerance=0)
        with self.assertRaisesRegex(ValueError, "apply to precision='int8'"):
            kiln.compile(model, precision="fp16", calib=calib, calib_method="minmax")

    @unittest.skipUnless(os.path.exists(KILNC), "KILN_BIN has no kilnc")
    def test_same_plan_and_report_as_kilnc(self):
        env = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")
        out = os.path.join(self.tmp.name, "kilnc.plan")
        r = subprocess.run([KILNC, FMNIST, "-o", out, "--target", "host", "--precision", "fp16",
                            "--json", "-q"], env=env, check=True, capture_output=True, text=True)
        kilnc_report = json.loads(r.stdout)
        old = os.environ.get("SOURCE_DATE_EPOCH")
        os.environ["SOURCE_DATE_EPOCH"] = "1700000000"
        try:
            plan = kiln.compile(FMNIST, target="host", precision="fp16")
        finally:
            if old is None:
                del os.environ["SOURCE_DATE_EPOCH"]
            else:
                os.environ["SOURCE_DATE_EPOCH"] = old
        with open(out, "rb") as f:
            self.assertEqual(bytes(plan), f.read(), "kiln.compile and kilnc build the same plan")
        mine = dict(plan.report)
        for k in ("plan", "stages", "total_seconds"):
            mine.pop(k)
            kilnc_report.pop(k)
        self.assertEqual(mine, kilnc_report)


class ErrorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.model, _, _ = mlp_model()
        cls.plan = kiln.compile(cls.model)
        cls.session = kiln.Session(cls.plan)

    def feeds(self):
        return {"x": np.zeros((2, 3), np.float32), "x2": np.zeros((2, 3), np.float32)}

    def test_bad_models(self):
        with self.assertRaises(kiln.CompileError) as e:
            kiln.compile(b"this is no ONNX model")
        self.assertIn("<bytes>", str(e.exception))
        with self.assertRaisesRegex(kiln.CompileError, "no-such-model.onnx"):
            kiln.compile("/nonexistent/no-such-model.onnx")
        node = helper.make_node("FancyOp", ["x"], ["y"], domain="com.example", name="fancy")
        graph = helper.make_graph([node], "g",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13),
                                                        helper.make_opsetid("com.example", 1)])
        with self.assertRaisesRegex(kiln.CompileError, "FancyOp"):
            kiln.compile(model)
        self.assertTrue(issubclass(kiln.CompileError, kiln.Error))
        self.assertTrue(issubclass(kiln.Error, ValueError))
        with self.assertRaises(TypeError):
            kiln.compile(12)

    def test_bad_options(self):
        with self.assertRaisesRegex(TypeError, "'fast_math'.*'turbo'"):
            kiln.compile(self.model, turbo=True, fast_math=1)
        with self.assertRaisesRegex(ValueError, "precision must be one of 'fp32'"):
            kiln.compile(self.model, precision="fp8")
        with self.assertRaisesRegex(ValueError, "tactics='all'"):
            kiln.compile(self.model, tactic_candidates=3)
        with self.assertRaisesRegex(kiln.CompileError, "sm_1"):
            kiln.compile(self.model, target="sm_1")
        with self.assertRaises(ValueError):
            kiln.compile(self.model, input_shapes={"x": [2, "y"]})

    def test_bad_feeds(self):
        s = self.session
        f = self.feeds()
        del f["x2"]
        with self.assertRaisesRegex(kiln.Error, "missing input.*'x2'"):
            s.run(None, f)
        f = self.feeds()
        f["z"] = f["x"]
        with self.assertRaisesRegex(kiln.Error, "unknown input 'z'"):
            s.run(None, f)
        f = self.feeds()
        f["x"] = f["x"].astype(np.float64)
        with self.assertRaisesRegex(kiln.Error, "'x'.*float64.*float32"):
            s.run(None, f)
        f = self.feeds()
        f["x"] = np.zeros((3, 2), np.float32)
        with self.assertRaisesRegex(kiln.Error, r"'x'.*\(3, 2\).*\(2, 3\)"):
            s.run(None, f)
        with self.assertRaisesRegex(kiln.Error, "unknown output 'q'"):
            s.run(["q"], self.feeds())
        with self.assertRaisesRegex(kiln.Error, "'y'.*shape"):
            s.run(None, self.feeds(), outputs={"y": np.empty((4, 2), np.float32)})
        with self.assertRaisesRegex(kiln.Error, "writable"):
            ro = np.empty((2, 4), np.float32)
            ro.flags.writeable = False
            s.run(None, self.feeds(), outputs={"y": ro})
        with self.assertRaisesRegex(kiln.Error, "on the GPU"):
            s.run(None, self.feeds(), stream=0)

        class FakeDevice:
            __cuda_array_interface__ = {"shape": (2, 3), "typestr": "<f4", "data": (4096, False),
                                        "version": 3, "strides": None}

        class FakeDLPack:  # host bytes claiming to be on CUDA device 0
            def __init__(self):
                self.a = np.zeros((2, 3), np.float32)

            def __dlpack_device__(self):
                return (2, 0)

            def __dlpack__(self, stream=None):
                return self.a.__dlpack__()

        for fake in (FakeDevice(), FakeDLPack()):
            f = self.feeds()
            f["x"] = fake
            with self.assertRaisesRegex(kiln.Error, "device memory.*host"):
                s.run(None, f)
        # The session still runs after refusals.
        self.assertEqual(s.run(None, self.feeds())["y"].shape, (2, 4))

    def test_corrupt_plans(self):
        data = bytes(self.plan)
        with self.assertRaises(kiln.Error):
            kiln.load(b"not a plan at all")
        with self.assertRaises(kiln.Error):
            kiln.load(data[: len(data) // 2])
        bad = bytearray(data)
        bad[0:8] = b"NOTAPLAN"
        with self.assertRaises(kiln.Error):
            kiln.Session(bytes(bad))
        with self.assertRaises(kiln.Error):
            kiln.Session(self.plan, device="gpu")  # a host-only plan
        with self.assertRaises(ValueError):
            kiln.Session(self.plan, device="tpu")


class ThreadTest(unittest.TestCase):
    def test_threads_share_a_session(self):
        plan = kiln.compile(FMNIST)
        s = kiln.Session(plan)
        rng = np.random.default_rng(7)
        batches = [rng.standard_normal((100, 1, 28, 28)).astype(np.float32) for _ in range(4)]
        want = [s.run(None, {"image": b})["logits"] for b in batches]
        errors, results = [], {}

        def work(t):
            try:
                for i in range(12):
                    k = (t + i) % len(batches)
                    got = s.run(None, {"image": batches[k]})["logits"]
                    results[(t, i)] = (k, got)
            except Exception as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(results), 6 * 12)
        for k, got in results.values():
            # Same plan, same inputs: bit-identical on the host.
            np.testing.assert_array_equal(got, want[k])


if __name__ == "__main__":
    unittest.main()
