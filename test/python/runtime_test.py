#!/usr/bin/python3
"""The runtime half of the kiln package, in every build (also
-DKILN_BUILD_COMPILER=OFF): kiln.compile exactly when there is a compiler,
plans refused with the runtime's message.

    PYTHONPATH=build/python /usr/bin/python3 -m unittest -v test/python/runtime_test.py
"""
import sys
import unittest

sys.dont_write_bytecode = True
import kiln  # noqa: E402


class RuntimeTest(unittest.TestCase):
    def test_compile_only_with_the_compiler(self):
        if kiln._kiln.has_compiler:
            self.assertTrue(callable(kiln.compile))
        else:
            with self.assertRaisesRegex(AttributeError, "KILN_BUILD_COMPILER=OFF"):
                kiln.compile
        self.assertIsInstance(kiln.__version__, str)

    def test_not_a_plan(self):
        with self.assertRaises(kiln.Error) as e:
            kiln.load(b"KILNPLAN" + b"\0" * 56)
        self.assertTrue(str(e.exception))
        with self.assertRaises(kiln.Error):
            kiln.Session(b"")
        with self.assertRaises(FileNotFoundError):
            kiln.load("/nonexistent/model.plan")
        with self.assertRaises(TypeError):
            kiln.load(3.5)

    def test_dlpack_capsules(self):
        import numpy as np

        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        t = kiln._kiln.DLPackTensor(a.__dlpack__())
        self.assertEqual(t.address, a.ctypes.data)
        self.assertEqual((t.device_type, t.shape, t.typestr), (1, [3, 4], "<f4"))
        self.assertIn(t.strides, (None, [4, 1]))
        b = np.zeros(5, dtype=np.int64)
        self.assertEqual(kiln._kiln.DLPackTensor(b.__dlpack__()).typestr, "<i8")
        capsule = a.__dlpack__()
        kiln._kiln.DLPackTensor(capsule)
        with self.assertRaisesRegex(ValueError, "used_dltensor"):
            kiln._kiln.DLPackTensor(capsule)  # consumed once only


if __name__ == "__main__":
    unittest.main()
