# -*- Python -*-
# lit configuration of the MixedPrec test suite.

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "MIXEDPREC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mp_obj_root, "test")
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%mp_src_root", config.mp_source_dir))
config.substitutions.append(("%mp_obj_root", config.mp_obj_root))
# The C++ compiler of this build, for projects the tests configure.
config.substitutions.append(("%cxx_compiler", config.cxx_compiler))
# Debian's interpreter (it sees python3-* packages such as numpy).
config.substitutions.append(("%python", "/usr/bin/python3"))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# mlir-runner with MLIR's runtime libraries, for tests that execute on the CPU
# (an entry point `main` returning nothing).
llvm_lib_dir = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
config.substitutions.append(("%mlir_runner", " ".join([
    os.path.join(config.llvm_tools_dir, "mlir-runner"),
    "-e main -entry-point-result=void",
    "-shared-libs=" + ",".join(
        os.path.join(llvm_lib_dir, lib)
        for lib in ["libmlir_c_runner_utils.so", "libmlir_runner_utils.so"]),
])))

tool_dirs = [config.mp_tools_dir, config.llvm_tools_dir]
tools = ["mp-opt", "mp-run"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Integration tests that check numerics with numpy (Debian python3-numpy) or
# train on Fashion-MNIST (Debian dataset-fashion-mnist) skip cleanly without.
import subprocess
if subprocess.run(["/usr/bin/python3", "-c", "import numpy"],
                  capture_output=True).returncode == 0:
    config.available_features.add("numpy")
if os.path.exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"):
    config.available_features.add("fashion-mnist")

# Tests that assemble PTX need CUDA's ptxas; they skip cleanly without it.
ptxas = shutil.which("ptxas", path=os.pathsep.join(
    ["/usr/local/cuda/bin", config.environment.get("PATH", "")]))
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
