"""kiln: ahead-of-time ONNX compiler and runtime, from Python.

    import kiln, numpy as np
    plan = kiln.compile("model.onnx", target="host")      # kilnc, in process
    plan.save("model.plan")
    session = kiln.Session("model.plan")                  # or Session(plan)
    y = session.run(None, {"x": np.ones((1, 3), np.float32)})["y"]

compile() runs the same build as ``kilnc MODEL -o PLAN`` (byte-identical
plans for the same options); Session runs plans with kiln's runtime, on the
host or a GPU, from numpy arrays or device arrays (objects with
``__cuda_array_interface__`` or ``__dlpack__``, such as PyTorch CUDA tensors,
CuPy and JAX arrays) without copies. python/README.md is the manual.
"""

from __future__ import annotations

import os
import tempfile
import threading

import numpy as np

from . import _kiln

__all__ = [
    "Error",
    "CompileError",
    "Plan",
    "PlanInfo",
    "TensorInfo",
    "Session",
    "load",
    "compile",
]

__version__: str = _kiln.version

#: Raised for what the runtime refuses (plans it cannot read or run, feeds
#: of the wrong name, type or shape, failed runs) with the runtime's
#: message. A ValueError.
Error = _kiln.Error
#: Raised when a build fails, with the compiler's diagnostics as kilnc
#: prints them ("error: model.onnx: node 'conv1': ..."). A kiln.Error.
CompileError = _kiln.CompileError
Error.__module__ = CompileError.__module__ = __name__

# Plan element types as numpy dtypes. bfloat16 and the fp8 types have no
# numpy type of their own: they need the ml_dtypes package.
_DTYPES = {
    "f32": np.dtype(np.float32),
    "f16": np.dtype(np.float16),
    "f64": np.dtype(np.float64),
    "i8": np.dtype(np.int8),
    "u8": np.dtype(np.uint8),
    "i16": np.dtype(np.int16),
    "u16": np.dtype(np.uint16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
    "bool": np.dtype(np.bool_),
}
try:  # pragma: no cover - ml_dtypes is optional
    import ml_dtypes

    _DTYPES["bf16"] = np.dtype(ml_dtypes.bfloat16)
    _DTYPES["f8e4m3fn"] = np.dtype(ml_dtypes.float8_e4m3fn)
    _DTYPES["f8e5m2"] = np.dtype(ml_dtypes.float8_e5m2)
except ImportError:
    pass


def _numpy_dtype(name: str) -> np.dtype:
    try:
        return _DTYPES[name]
    except KeyError:
        raise Error(
            f"plan element type {name} has no numpy dtype here "
            "(bf16 and fp8 need the ml_dtypes package)"
        ) from None


class TensorInfo:
    """A plan input or output, like onnxruntime's NodeArg.

    ``dtype`` is a numpy dtype, ``shape`` a tuple of ints (-1 for a dynamic
    dimension), ``dim_names`` the model's dimension names (or empty),
    ``fixed_value`` whether the input was fixed at build time
    (``input_values``): it must still be fed, with that value.
    """

    __slots__ = ("name", "dtype", "shape", "dim_names", "fixed_value", "_kind")

    def __init__(self, d: dict):
        self.name: str = d["name"]
        self._kind: str = d["dtype"]
        # None for bf16/fp8 without ml_dtypes.
        self.dtype: np.dtype | None = _DTYPES.get(d["dtype"])
        self.shape: tuple = tuple(d["shape"])
        self.dim_names: tuple = tuple(d["dim_names"])
        self.fixed_value: bool = d["fixed_value"]

    @property
    def type(self) -> str:
        """The plan's name of the element type ("f32", "i64", ...)."""
        return self._kind

    @property
    def nbytes(self) -> int:
        n = int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1
        return n * _numpy_dtype(self._kind).itemsize

    def __repr__(self) -> str:
        return (
            f"TensorInfo(name={self.name!r}, dtype={self._kind}, "
            f"shape={self.shape})"
        )


class PlanInfo:
    """What a plan declares: ``inputs`` and ``outputs`` (TensorInfo lists),
    ``targets``, ``provenance`` (dict of the plan's provenance entries,
    runtime/PLAN_FORMAT.md), ``compiler_version``, ``format_version``,
    ``weight_stripped``."""

    def __init__(self, d: dict):
        self.inputs = [TensorInfo(t) for t in d["inputs"]]
        self.outputs = [TensorInfo(t) for t in d["outputs"]]
        self.targets: list = list(d["targets"])
        self.provenance: dict = dict(d["provenance"])
        self.compiler_version: str = d["compiler_version"]
        self.format_version: int = d["format_version"]
        self.weight_stripped: bool = d["weight_stripped"]
        self.arena_bytes: int = d["arena_bytes"]

    def __repr__(self) -> str:
        return (
            f"PlanInfo(targets={self.targets}, inputs={self.inputs}, "
            f"outputs={self.outputs})"
        )


class Plan:
    """A compiled plan: its bytes, and for a plan built by compile(), the
    build report (``report``, the dict ``kilnc --json`` prints; None for a
    loaded plan)."""

    def __init__(self, data: bytes, report: dict | None = None):
        self._data = bytes(data)
        self._report = report
        self._info = PlanInfo(_kiln.plan_info(self._data))

    @property
    def report(self) -> dict | None:
        """The build report (compile() only)."""
        return self._report

    @property
    def info(self) -> PlanInfo:
        """Inputs, outputs, targets and provenance of the plan."""
        return self._info

    def save(self, path: str | os.PathLike) -> None:
        """Writes the plan to ``path`` (what kilnc -o writes)."""
        with open(path, "wb") as f:
            f.write(self._data)

    def __bytes__(self) -> bytes:
        return self._data

    def __len__(self) -> int:
        return len(self._data)

    def __repr__(self) -> str:
        return f"Plan({len(self._data)} bytes, targets={self._info.targets})"


def load(plan: str | os.PathLike | bytes | bytearray | memoryview) -> Plan:
    """Reads a plan from a file or bytes; raises kiln.Error when they are
    no valid plan."""
    if isinstance(plan, (bytes, bytearray, memoryview)):
        return Plan(bytes(plan))
    if isinstance(plan, (str, os.PathLike)):
        with open(plan, "rb") as f:
            return Plan(f.read())
    raise TypeError(f"load() takes a path or bytes, not {type(plan).__name__}")


def _model_source(model):
    """(path, bytes or None) of compile()'s model argument."""
    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model), None
    if isinstance(model, (bytes, bytearray, memoryview)):
        return "<bytes>", bytes(model)
    if hasattr(model, "SerializeToString"):  # onnx.ModelProto
        return "<ModelProto>", model.SerializeToString()
    raise TypeError(
        "compile() takes a model path, bytes or an onnx.ModelProto, not "
        + type(model).__name__
    )


def _targets(target) -> list:
    if isinstance(target, str):
        return [t for t in target.split(",") if t]
    if isinstance(target, (list, tuple)) and all(isinstance(t, str) for t in target):
        return list(target)
    raise TypeError("target must be a string or a list of strings")


def _shapes(input_shapes) -> dict:
    out = {}
    for name, dims in (input_shapes or {}).items():
        if isinstance(dims, str):
            dims = dims.split("x")
        shape = []
        for d in dims:
            if d is None or d == "?" or d == -1:
                shape.append(-1)
            elif isinstance(d, (int, np.integer)) and d >= 0:
                shape.append(int(d))
            elif isinstance(d, str) and d.isdigit():
                shape.append(int(d))
            else:
                raise ValueError(
                    f"input_shapes[{name!r}]: bad dim {d!r} (an int >= 0, "
                    "or None for dynamic)"
                )
        out[str(name)] = shape
    return out


def _compile(
    model,
    target="host",
    precision="fp32",
    input_shapes=None,
    input_values=None,
    profiles=None,
    **options,
) -> Plan:
    """Compiles an ONNX model to a plan, in process: the build of
    ``kilnc MODEL -o PLAN`` with the matching flags.

    model: a path, the bytes of a ModelProto, or an onnx.ModelProto (models
      in memory are named "<bytes>"/"<ModelProto>" in messages and
      provenance; external data is then looked up in the working directory).
    target: "host", a GPU architecture ("sm_90a"), or a list of them
      (kilnc --target).
    precision: "fp32", "tf32", "fp16", "bf16" or "int8" (kilnc --precision;
      int8 takes calib="DIR" and/or calib_cache="FILE", and calib_method,
      qdq_model, as kilnc's --calib flags; host plans only so far).
    input_shapes: {name: dims} overriding graph input shapes, None for a
      dynamic dimension (kilnc --input-shape).
    input_values: {name: numpy array or .npy/.pb path} fixing inputs at
      build time (kilnc --input-value); arrays are written to a temporary
      .npy file, whose path and SHA-256 the plan's provenance records.
    profiles: a list of {name: dims}, one optimization profile each (kilnc
      --profile): the plan runs each of those shapes, weights stored once;
      Session picks the profile from the feeds' shapes.
    options: kilnc's other flags with '_' for '-': strip_weights,
      strip_threshold, tactics, tactic_candidates, timing_cache, layout,
      cuda_path, onnx_checker, onnx_shape_inference (kilnc
      --no-onnx-shape-inference is onnx_shape_inference=False) and the
      tuning flags (gpu_wgmma, gpu_split_k, ...), and for int8 calib,
      calib_method, calib_cache, qdq_model, int8_tolerance. fp16 takes calib="DIR" too
      (the ops near f16's limit on those samples stay f32: the report's
      "fp32_islands"), and fp16/bf16 validate="DIR" with
      validate_tolerance (kilnc --validate: CompileError when an output
      is off by more than the tolerance of its largest value on the
      samples). Unknown ones raise TypeError.

    Returns a Plan with the build report; raises CompileError with the
    compiler's message when the build fails.
    """
    unknown = sorted(k for k in options if k not in _kiln.compile_options)
    if unknown:
        raise TypeError(
            "compile() got unexpected keyword argument(s): "
            + ", ".join(repr(k) for k in unknown)
        )
    path, data = _model_source(model)
    targets = _targets(target)
    shapes = _shapes(input_shapes)
    specs = []
    for k, profile in enumerate(profiles or []):
        if not isinstance(profile, dict) or not profile:
            raise TypeError(f"profiles[{k}] must be a non-empty dict of input shapes")
        dims = _shapes(profile)
        if any(d < 0 for shape in dims.values() for d in shape):
            raise ValueError(f"profiles[{k}]: every dim must be given (>= 0)")
        specs.append(",".join(n + "=" + "x".join(str(d) for d in shape)
                              for n, shape in dims.items()))
    with tempfile.TemporaryDirectory(prefix="kiln-input-values-") as tmp:
        values = {}
        for i, (name, value) in enumerate((input_values or {}).items()):
            if isinstance(value, (str, os.PathLike)):
                values[str(name)] = os.fspath(value)
            else:
                file = os.path.join(tmp, f"{i}.npy")
                np.save(file, np.asarray(value), allow_pickle=False)
                values[str(name)] = file
        plan, report = _kiln.compile(
            path, data, targets, str(precision), shapes, values, specs, options
        )
    import json

    return Plan(plan, json.loads(report))


if _kiln.has_compiler:
    compile = _compile
    compile.__name__ = "compile"
    compile.__qualname__ = "compile"
else:
    del _compile

    def __getattr__(name):
        if name == "compile":
            raise AttributeError(
                "kiln.compile is not available: this kiln was built without "
                "the compiler (-DKILN_BUILD_COMPILER=OFF); compile plans with "
                "kilnc elsewhere and load them here"
            )
        raise AttributeError(f"module 'kiln' has no attribute {name!r}")


def _contiguous(shape, strides, itemsize) -> bool:
    """Whether strides (in bytes) are C-contiguous for shape."""
    if strides is None or int(np.prod(shape, dtype=np.int64)) <= 1:
        return True
    step = itemsize
    for d, s in zip(reversed(shape), reversed(strides)):
        if d != 1 and s != step:
            return False
        step *= d
    return True


_DL_DEVICE = (2, 13)  # DLPack's kDLCUDA, kDLCUDAManaged


def _device_array(obj, stream=None):
    """(address, nbytes, dtype, shape, readonly, keepalive) of a device array,
    None for anything else: objects with __cuda_array_interface__ (PyTorch
    CUDA tensors, CuPy, Numba), or __dlpack__ on a CUDA device."""
    cai = getattr(obj, "__cuda_array_interface__", None)
    if cai is not None:
        dtype = np.dtype(cai["typestr"])
        shape = tuple(int(d) for d in cai["shape"])
        strides = cai.get("strides")
        ptr, readonly = int(cai["data"][0]), bool(cai["data"][1])
        keep = None
    elif hasattr(obj, "__dlpack_device__") and not isinstance(obj, np.ndarray):
        if obj.__dlpack_device__()[0] not in _DL_DEVICE:
            return None  # host memory: np.asarray takes it
        # The producer orders its work before `stream` (1: the legacy
        # default stream, DLPack's spelling).
        t = _kiln.DLPackTensor(obj.__dlpack__(stream=1 if not stream else stream))
        if t.typestr == "bf16":
            dtype = _numpy_dtype("bf16")
        elif t.typestr:
            dtype = np.dtype(t.typestr)
        else:
            raise Error("a DLPack tensor of a type kiln has no name for")
        shape = tuple(t.shape)
        strides = None if t.strides is None else [s * dtype.itemsize for s in t.strides]
        ptr, readonly, keep = t.address, False, t
    else:
        return None
    if not _contiguous(shape, strides, dtype.itemsize):
        raise Error(
            "device arrays must be C-contiguous (strides "
            f"{tuple(strides)} for shape {shape})"
        )
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    return ptr, nbytes, dtype, shape, readonly, keep


def _stream_handle(stream) -> int:
    if isinstance(stream, (int, np.integer)):
        return int(stream)
    for attr in ("cuda_stream", "ptr", "handle"):
        h = getattr(stream, attr, None)
        if isinstance(h, (int, np.integer)):
            return int(h)
    raise TypeError(
        "stream must be an int (a CUstream/cudaStream_t) or an object with "
        "cuda_stream (torch.cuda.Stream) or ptr (cupy.cuda.Stream)"
    )


def _describe(t: TensorInfo) -> str:
    return f"'{t.name}' ({t.type}[{'x'.join(str(d) for d in t.shape)}])"


class Session:
    """Runs a plan, like onnxruntime.InferenceSession.

    plan_or_path: a Plan, plan bytes, or a plan file.
    device: "auto" (a GPU when the plan has GPU kernels and one is usable,
      else the host), "gpu" (an error without one) or "host".
    device_ordinal: the CUDA device.
    allow_ptx_jit: run PTX (JIT-compiled at load) when no cubin of the plan
      fits the GPU.

    run() may be called from several threads at once: each concurrent call
    gets an execution context of its own (created on demand, then reused),
    and the GIL is released while the plan runs.
    """

    def __init__(
        self,
        plan_or_path,
        device: str = "auto",
        device_ordinal: int = 0,
        allow_ptx_jit: bool = False,
    ):
        plan = plan_or_path if isinstance(plan_or_path, Plan) else load(plan_or_path)
        if plan.info.weight_stripped:
            raise Error(
                "the plan is weight-stripped (kilnc --strip-weights): put the "
                "weights back with kiln-refit PLAN --weights-from MODEL.onnx"
            )
        self._plan = plan
        self._engine = _kiln.Engine.load(
            bytes(plan), device, int(device_ordinal), bool(allow_ptx_jit)
        )
        self._inputs = [TensorInfo(t) for t in self._engine.inputs()]
        self._outputs = [TensorInfo(t) for t in self._engine.outputs()]
        # Plans built with profiles: run() selects one by the feeds' shapes.
        self._profiles = self._engine.num_profiles
        self._input_index = {t.name: i for i, t in enumerate(self._inputs)}
        self._output_index = {t.name: i for i, t in enumerate(self._outputs)}
        self._contexts: list = []
        self._lock = threading.Lock()

    def get_inputs(self) -> list:
        """The plan's inputs (TensorInfo), in order."""
        return list(self._inputs)

    def get_outputs(self) -> list:
        """The plan's outputs (TensorInfo), in order."""
        return list(self._outputs)

    @property
    def plan(self) -> Plan:
        return self._plan

    @property
    def target(self) -> str:
        """The target the session runs: "host" or the GPU module's ("sm_90a")."""
        return self._engine.target

    @property
    def on_gpu(self) -> bool:
        return self._engine.on_gpu

    @property
    def device_name(self) -> str:
        """The GPU's name ("NVIDIA H200"); "" on the host."""
        return self._engine.device_name

    @property
    def device_note(self) -> str:
        """Why device="auto" chose the host for a plan with GPU kernels."""
        return self._engine.device_note

    def _acquire(self):
        with self._lock:
            if self._contexts:
                return self._contexts.pop()
        return self._engine.create_context()

    def _release(self, ctx) -> None:
        with self._lock:
            self._contexts.append(ctx)

    def _bind_input(self, ctx, i, t, value, keep, stream) -> bool:
        """Binds feed `value` of input `t`; True when it is device memory."""
        dev = _device_array(value, stream)
        if dev is not None:
            ptr, nbytes, dtype, shape, _, holder = dev
            keep.append(holder)
            self._check(t, dtype, shape, "input")
            if not self.on_gpu:
                raise Error(
                    f"input {_describe(t)} is in device memory, but this "
                    "session runs on the host"
                )
            ctx.set_input_device(i, ptr, nbytes)
            return True
        if not isinstance(value, np.ndarray):
            value = np.asarray(value)
        self._check(t, value.dtype, value.shape, "input")
        value = np.ascontiguousarray(value)
        keep.append(value)
        ctx.set_input(i, value)
        return False

    @staticmethod
    def _check(t: TensorInfo, dtype, shape, what: str) -> None:
        want = _numpy_dtype(t.type)
        if np.dtype(dtype) != want:
            raise Error(
                f"{what} {_describe(t)}: got dtype {np.dtype(dtype)}, the plan "
                f"needs {want} (kiln does not convert)"
            )
        # -1: a dim the plan's profiles differ in (the runtime checks the
        # selected profile's size).
        if len(shape) != len(t.shape) or any(
            w >= 0 and int(d) != w for d, w in zip(shape, t.shape)
        ):
            raise Error(
                f"{what} {_describe(t)}: got shape {tuple(shape)}, the plan "
                f"needs {t.shape}"
            )

    def run(
        self,
        output_names=None,
        feeds=None,
        *,
        outputs=None,
        stream=None,
    ) -> dict:
        """Runs the plan once and returns {output name: array}.

        output_names: the outputs to return (None: all), as onnxruntime.
        feeds: {input name: array} for every input. numpy arrays (or
          anything np.asarray takes) must have the plan's dtype and shape
          exactly: kiln never converts (kiln.Error otherwise).
          Device arrays (__cuda_array_interface__: torch CUDA tensors,
          CuPy; or __dlpack__ on a CUDA device: JAX, ...) are read in place
          on the GPU, without a copy.
        outputs: {output name: preallocated array} to write results into:
          a device array (written in place on the GPU, nothing copied to the
          host) or a writable C-contiguous numpy array. These objects are
          what the result holds for their names.
        stream: a CUDA stream (int handle, torch.cuda.Stream, cupy Stream)
          to run on, ordered after the work already queued there. Without
          one, runs that bind device arrays use the legacy default stream
          (ordered with PyTorch's default stream), others the session's own.
          Either way run() returns once the results are ready.

        Unlike onnxruntime, which returns a list in output_names' order,
        the result is a dict.
        """
        if feeds is None:
            feeds = {}
        if not hasattr(feeds, "items"):
            raise TypeError("feeds must be a dict {input name: array}")
        unknown = [n for n in feeds if n not in self._input_index]
        if unknown:
            raise Error(
                f"unknown input '{unknown[0]}'; the plan's inputs: "
                + ", ".join(t.name for t in self._inputs)
            )
        missing = [t.name for t in self._inputs if t.name not in feeds]
        if missing:
            raise Error(
                "missing input(s): " + ", ".join(f"'{n}'" for n in missing)
            )
        outputs = dict(outputs or {})
        if output_names is None:
            names = [t.name for t in self._outputs]
        else:
            if isinstance(output_names, str):
                output_names = [output_names]
            names = list(output_names)
        for n in list(names) + list(outputs):
            if n not in self._output_index:
                raise Error(
                    f"unknown output '{n}'; the plan's outputs: "
                    + ", ".join(t.name for t in self._outputs)
                )
        if stream is not None and not self.on_gpu:
            raise Error("stream= needs a session on the GPU")
        handle = None if stream is None else _stream_handle(stream)

        ctx = self._acquire()
        try:
            keep = []
            device = False
            if self._profiles > 1:
                # The feeds' shapes select the plan's profile.
                for name, value in feeds.items():
                    dev = _device_array(value, handle)
                    shape = dev[3] if dev is not None else np.shape(value)
                    ctx.set_input_shape(self._input_index[name], [int(d) for d in shape])
            for name, value in feeds.items():
                i = self._input_index[name]
                device |= self._bind_input(ctx, i, self._inputs[i], value, keep, handle)
            result = {}
            for i, t in enumerate(self._outputs):
                if t.name in outputs:
                    obj = outputs[t.name]
                    dev = _device_array(obj, handle)
                    if dev is not None:
                        ptr, nbytes, dtype, shape, readonly, holder = dev
                        keep.append(holder)
                        self._check(t, dtype, shape, "output")
                        if readonly:
                            raise Error(f"output {_describe(t)}: the array is read-only")
                        if not self.on_gpu:
                            raise Error(
                                f"output {_describe(t)} is in device memory, "
                                "but this session runs on the host"
                            )
                        ctx.set_output_device(i, ptr, nbytes)
                        device = True
                    elif isinstance(obj, np.ndarray):
                        self._check(t, obj.dtype, obj.shape, "output")
                        if not obj.flags.c_contiguous or not obj.flags.writeable:
                            raise Error(
                                f"output {_describe(t)}: the array must be "
                                "writable and C-contiguous"
                            )
                        ctx.set_output(i, obj)
                    else:
                        raise TypeError(
                            f"outputs['{t.name}'] must be a numpy array or "
                            "a device array (__cuda_array_interface__ or "
                            "__dlpack__)"
                        )
                    result[t.name] = obj
                elif t.name in names:
                    out = np.empty(tuple(ctx.output_shape(i)), _numpy_dtype(t.type))
                    ctx.set_output(i, out)
                    result[t.name] = out
                else:
                    ctx.set_output(i, None)  # the context's own storage
            if handle is None and device:
                handle = 0
            ctx.run(handle)
        finally:
            self._release(ctx)
        return {n: result[n] for n in names + [n for n in outputs if n not in names]}
