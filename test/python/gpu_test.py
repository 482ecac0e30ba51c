#!/usr/bin/env python3
"""The kiln Python package on a GPU, with PyTorch CUDA tensors.

    PYTHONPATH=build-rt/python python3 test/python/gpu_test.py PLAN_DIR [-v]

PLAN_DIR comes from test/python/make_gpu_plans.py (compiled where the
compiler is). Checks: numpy feeds on the GPU against the host run of the
same plan; torch CUDA tensors in and preallocated torch CUDA tensors out
(the same objects and device addresses, values as on the host, also
through objects offering nothing but __cuda_array_interface__ or DLPack,
so no host copy is possible); a side stream; several threads with a stream each; refusals
(dtype, strides, alignment) with the runtime's message.

Without a CUDA GPU (or PyTorch) it prints SKIPPED and exits 77: a skip,
never a pass. It is not registered in ctest for that reason.
"""
import os
import sys
import threading
import unittest

import numpy as np

sys.dont_write_bytecode = True
import kiln  # noqa: E402

try:
    import torch

    HAVE_GPU = torch.cuda.is_available()
except ImportError:
    torch = None
    HAVE_GPU = False

PLAN_DIR = os.environ.get("KILN_GPU_PLANS", "")

# fp32 kernels on the GPU sum in another order than the host's: a few ulps
# on the MLP; on Fashion-MNIST's logits (~10, K up to 800) 1e-4 relative.
MLP_TOL = dict(rtol=1e-5, atol=1e-5)
FMNIST_TOL = dict(rtol=1e-4, atol=1e-4)


class DeviceOnly:
    """A device array that can only be read as __cuda_array_interface__."""

    def __init__(self, tensor):
        self.__cuda_array_interface__ = tensor.__cuda_array_interface__


class DLPackOnly:
    """A device array that can only be read through DLPack."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()

    def __dlpack__(self, stream=None):
        return self.tensor.__dlpack__(stream=stream)


def plan(name):
    return os.path.join(PLAN_DIR, name)


class GpuTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.gpu = kiln.Session(plan("mlp.plan"), device="gpu")
        cls.host = kiln.Session(plan("mlp.plan"), device="host")
        cls.fm_gpu = kiln.Session(plan("fmnist.plan"), device="gpu")
        cls.fm_host = kiln.Session(plan("fmnist.plan"), device="host")
        ref = np.load(plan("mlp.npz"))
        cls.w, cls.b = ref["W"], ref["b"]

    def feeds(self, seed):
        rng = np.random.default_rng(seed)
        return {k: rng.standard_normal((2, 3)).astype(np.float32) for k in ("x", "x2")}

    def test_session(self):
        self.assertTrue(self.gpu.on_gpu)
        self.assertTrue(self.gpu.target.startswith("sm_"), self.gpu.target)
        self.assertTrue(self.gpu.device_name)
        self.assertEqual(self.host.target, "host")

    def test_numpy_feeds_on_gpu(self):
        f = self.feeds(1)
        got = self.gpu.run(None, f)
        want = self.host.run(None, f)
        np.testing.assert_allclose(got["y"], np.maximum(f["x"] @ self.w + self.b, 0), **MLP_TOL)
        for k in want:
            np.testing.assert_allclose(got[k], want[k], **MLP_TOL)
        img = np.random.default_rng(2).standard_normal((100, 1, 28, 28)).astype(np.float32)
        np.testing.assert_allclose(self.fm_gpu.run(None, {"image": img})["logits"],
                                   self.fm_host.run(None, {"image": img})["logits"], **FMNIST_TOL)

    def check_torch(self, wrap):
        img = torch.randn(100, 1, 28, 28, device="cuda")
        out = torch.full((100, 10), float("nan"), device="cuda")
        ptr = out.data_ptr()
        torch.cuda.synchronize()
        before = torch.cuda.memory_allocated()
        res = self.fm_gpu.run(None, {"image": wrap(img)}, outputs={"logits": wrap(out)})
        self.assertEqual(torch.cuda.memory_allocated(), before, "no torch allocation")
        self.assertEqual(out.data_ptr(), ptr)
        want = self.fm_host.run(None, {"image": img.cpu().numpy()})["logits"]
        np.testing.assert_allclose(out.cpu().numpy(), want, **FMNIST_TOL)
        return res, out

    def test_torch_tensors_in_and_out(self):
        res, out = self.check_torch(lambda t: t)
        self.assertIs(res["logits"], out)

    def test_device_only_objects(self):
        # Nothing but a device address to read: kiln cannot have copied
        # through the host.
        self.check_torch(DeviceOnly)

    def test_dlpack_objects(self):
        self.check_torch(DLPackOnly)

    def test_side_stream(self):
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            x = torch.randn(2, 3, device="cuda") * 2  # queued on s
            x2 = torch.randn(2, 3, device="cuda")
            y = torch.empty(2, 4, device="cuda")
            sm = torch.empty(2, 3, device="cuda")
            self.gpu.run(None, {"x": x, "x2": x2}, outputs={"y": y, "s": sm}, stream=s)
            y2 = y * 1  # after kiln's kernels on s
        torch.cuda.synchronize()
        f = {"x": x.cpu().numpy(), "x2": x2.cpu().numpy()}
        want = self.host.run(None, f)
        np.testing.assert_allclose(y2.cpu().numpy(), want["y"], **MLP_TOL)
        np.testing.assert_allclose(sm.cpu().numpy(), want["s"], **MLP_TOL)
        # An int handle works the same.
        with torch.cuda.stream(s):
            self.gpu.run(None, {"x": x, "x2": x2}, outputs={"y": y}, stream=s.cuda_stream)
        np.testing.assert_allclose(y.cpu().numpy(), want["y"], **MLP_TOL)

    def test_mixed_host_and_device(self):
        f = self.feeds(3)
        x = torch.from_numpy(f["x"]).cuda()
        got = self.gpu.run(None, {"x": x, "x2": f["x2"]})  # outputs to numpy
        want = self.host.run(None, f)
        for k in want:
            self.assertIsInstance(got[k], np.ndarray)
            np.testing.assert_allclose(got[k], want[k], **MLP_TOL)

    def test_threads_with_streams(self):
        batches = [torch.randn(100, 1, 28, 28, device="cuda") for _ in range(4)]
        want = [self.fm_host.run(None, {"image": b.cpu().numpy()})["logits"] for b in batches]
        errors, results = [], []

        def work(t):
            try:
                stream = torch.cuda.Stream()
                with torch.cuda.stream(stream):
                    for i in range(10):
                        k = (t + i) % len(batches)
                        out = torch.empty(100, 10, device="cuda")
                        self.fm_gpu.run(None, {"image": batches[k]}, outputs={"logits": out},
                                        stream=stream)
                        results.append((k, out.cpu().numpy()))
            except Exception as e:  # reported below
                errors.append(e)

        threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(results), 40)
        for k, got in results:
            np.testing.assert_allclose(got, want[k], **FMNIST_TOL)

    def test_fp16_plan(self):
        s = kiln.Session(plan("fmnist_fp16.plan"), device="gpu")
        img = torch.randn(100, 1, 28, 28, device="cuda")
        out = torch.empty(100, 10, device="cuda")
        s.run(None, {"image": img}, outputs={"logits": out}, stream=torch.cuda.current_stream())
        want = self.fm_host.run(None, {"image": img.cpu().numpy()})["logits"]
        # fp16 weights and activations (11-bit significands) through two
        # convs and two GEMMs: about 1e-2 of the logits' range.
        np.testing.assert_allclose(out.cpu().numpy(), want, rtol=0, atol=5e-2 * np.abs(want).max())

    def test_refusals(self):
        x2 = torch.randn(2, 3, device="cuda")
        with self.assertRaisesRegex(kiln.Error, "float64"):
            self.gpu.run(None, {"x": torch.randn(2, 3, device="cuda", dtype=torch.float64), "x2": x2})
        with self.assertRaisesRegex(kiln.Error, "contiguous"):
            self.gpu.run(None, {"x": torch.randn(3, 2, device="cuda").t(), "x2": x2})
        # 4 bytes into a buffer: the runtime wants 16-byte aligned device
        # addresses and says so.
        base = torch.randn(7, device="cuda")
        with self.assertRaisesRegex(kiln.Error, "align"):
            self.gpu.run(None, {"x": base[1:7].view(2, 3), "x2": x2})
        with self.assertRaisesRegex(kiln.Error, "device memory.*host"):
            self.host.run(None, {"x": torch.randn(2, 3, device="cuda"), "x2": x2})


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        PLAN_DIR = sys.argv.pop(1)
    if not HAVE_GPU:
        print("SKIPPED: " + ("PyTorch has no CUDA GPU here" if torch else "no PyTorch"))
        sys.exit(77)
    if not os.path.exists(plan("mlp.plan")):
        print(f"error: no plans in '{PLAN_DIR}': make them with test/python/make_gpu_plans.py")
        sys.exit(2)
    unittest.main()
