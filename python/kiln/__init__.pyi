# Type stubs of the kiln package (python/kiln/__init__.py; docstrings there).
import os
from typing import Any, Mapping, Sequence

import numpy as np

__version__: str

class Error(ValueError): ...
class CompileError(Error): ...

class TensorInfo:
    name: str
    dtype: np.dtype | None
    shape: tuple[int, ...]
    dim_names: tuple[str, ...]
    fixed_value: bool
    @property
    def type(self) -> str: ...
    @property
    def nbytes(self) -> int: ...

class PlanInfo:
    inputs: list[TensorInfo]
    outputs: list[TensorInfo]
    targets: list[str]
    provenance: dict[str, str]
    compiler_version: str
    format_version: int
    weight_stripped: bool
    arena_bytes: int

class Plan:
    def __init__(self, data: bytes, report: dict[str, Any] | None = ...) -> None: ...
    @property
    def report(self) -> dict[str, Any] | None: ...
    @property
    def info(self) -> PlanInfo: ...
    def save(self, path: str | os.PathLike[str]) -> None: ...
    def __bytes__(self) -> bytes: ...
    def __len__(self) -> int: ...

def load(plan: str | os.PathLike[str] | bytes | bytearray | memoryview) -> Plan: ...

# Only in builds with the compiler (-DKILN_BUILD_COMPILER=ON).
def compile(
    model: str | os.PathLike[str] | bytes | Any,
    target: str | Sequence[str] = ...,
    precision: str = ...,
    input_shapes: Mapping[str, Sequence[int | None] | str] | None = ...,
    input_values: Mapping[str, np.ndarray | str | os.PathLike[str]] | None = ...,
    profiles: Sequence[Mapping[str, Sequence[int] | str]] | None = ...,
    *,
    strip_weights: bool = ...,
    strip_threshold: int = ...,
    tactics: str = ...,
    tactic_candidates: int = ...,
    timing_cache: str = ...,
    layout: str = ...,
    cuda_path: str = ...,
    onnx_checker: bool = ...,
    onnx_shape_inference: bool = ...,
    gpu_cost_latency: int = ...,
    gpu_split_k: int = ...,
    gpu_cluster_split_k: bool = ...,
    gpu_mma_stages: int = ...,
    gpu_wgmma: str = ...,
    gpu_tma: bool = ...,
    fuse_sibling_matmuls: bool = ...,
    fuse_sibling_convs: bool = ...,
    concat_in_place: bool = ...,
    tf32_round_at_producers: bool = ...,
) -> Plan: ...

class Session:
    def __init__(
        self,
        plan_or_path: Plan | bytes | str | os.PathLike[str],
        device: str = ...,
        device_ordinal: int = ...,
        allow_ptx_jit: bool = ...,
    ) -> None: ...
    def get_inputs(self) -> list[TensorInfo]: ...
    def get_outputs(self) -> list[TensorInfo]: ...
    @property
    def plan(self) -> Plan: ...
    @property
    def target(self) -> str: ...
    @property
    def on_gpu(self) -> bool: ...
    @property
    def device_name(self) -> str: ...
    @property
    def device_note(self) -> str: ...
    def run(
        self,
        output_names: Sequence[str] | str | None = ...,
        feeds: Mapping[str, Any] | None = ...,
        *,
        outputs: Mapping[str, Any] | None = ...,
        stream: Any = ...,
    ) -> dict[str, Any]: ...
