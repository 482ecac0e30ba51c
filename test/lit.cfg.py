# lit configuration for kiln's tests.
import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "kiln"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs", "regressions"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.kiln_obj_root, "test")

llvm_config.with_system_environment(["HOME", "TMPDIR"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.kiln_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# Plans record their build time (provenance): a fixed one makes builds of
# the same model byte-identical, as tests compare them.
config.environment["SOURCE_DATE_EPOCH"] = "1764633600"

config.substitutions.append(("%kiln_src", config.kiln_src_root))
config.substitutions.append(("%python_onnx", config.python_onnx))
config.substitutions.append(
    ("%gen_onnx", config.python_onnx + " " +
     os.path.join(config.kiln_src_root, "test", "Import", "gen_onnx.py")))
# Codegen e2e tests run lowered code with upstream's mlir-runner; the
# longer names go first so that %mlir_runner does not eat their prefix.
config.substitutions.append(
    ("%mlir_runner_utils", os.path.normpath(os.path.join(
        config.llvm_tools_dir, "..", "lib", "libmlir_runner_utils.so"))))
config.substitutions.append(
    ("%mlir_c_runner_utils", os.path.normpath(os.path.join(
        config.llvm_tools_dir, "..", "lib", "libmlir_c_runner_utils.so"))))
config.substitutions.append(
    ("%mlir_runner", os.path.join(config.llvm_tools_dir, "mlir-runner")))
config.substitutions.append(
    ("%light_models", os.path.join(config.kiln_src_root, "test", "Import",
                                    "models", "light")))

# Import tests build their ONNX files with Debian's python3-onnx.
try:
    subprocess.run([config.python_onnx, "-c", "import onnx"], check=True,
                   capture_output=True)
    config.available_features.add("onnx")
except Exception:
    lit_config.warning("python3-onnx is not importable by /usr/bin/python3; "
                       "ONNX import tests will be unsupported")

# A few tests export their models with Debian's python3-torch.
try:
    subprocess.run([config.python_onnx, "-c", "import torch"], check=True,
                   capture_output=True)
    config.available_features.add("torch")
except Exception:
    lit_config.note("python3-torch is not importable by /usr/bin/python3; "
                    "tests that export with torch will be unsupported")

if shutil.which("nvidia-smi") and subprocess.run(
        ["nvidia-smi", "-L"], capture_output=True).returncode == 0:
    config.available_features.add("gpu")

# GPU plans are built with the CUDA toolkit's ptxas (no GPU needed).
cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
if os.access(os.path.join(cuda_home, "bin", "ptxas"), os.X_OK) or shutil.which("ptxas"):
    config.available_features.add("ptxas")
else:
    lit_config.warning("ptxas (CUDA toolkit) not found: GPU plan builds are untested")
