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
# A fresh build directory has no timing file of its own, so lit falls back to
# test/.lit_test_times.txt (copied from a build's test/ after a full run) and
# starts the slowest tests first: the suite's tail on two workers is shorter.

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%mp_src_root", config.mp_source_dir))
config.substitutions.append(("%mp_obj_root", config.mp_obj_root))
# The C++ compiler of this build, for projects the tests configure.
config.substitutions.append(("%cxx_compiler", config.cxx_compiler))
config.substitutions.append(("%c_compiler", config.c_compiler))
# MLIR's headers (mlir-c/), for the C programs tests compile.
config.substitutions.append(("%mlir_include_dir", os.path.join(
    os.path.dirname(config.llvm_tools_dir), "include")))
# Debian's interpreter (it sees python3-* packages such as numpy).
config.substitutions.append(("%python", "/usr/bin/python3"))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
# lit runs tests side by side on every core: mp-run and mixedprec.run, whose
# default is all cores (--threads=0), run one thread here (no OpenMP), as
# does PyTorch; tests that ask for threads get them, and their threads sleep
# between parallel loops instead of spinning (libomp's default is to spin
# for 200 ms).
config.environment["OMP_NUM_THREADS"] = "1"
config.environment["OMP_WAIT_POLICY"] = "passive"

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

# The numerics tests (Integration/Numerics, Integration/Torch) lower convert-mp-to-linalg's output to LLVM with plain
# upstream passes plus the exact conversions (bf16: arith-expand, FP8:
# mp-expand-fp8-conversions) and mp-cpu-pipeline's tanh (mp-expand-tanh),
# then execute it with %mlir_runner.
config.substitutions.append(("%lower_to_llvm", " ".join([
    "--convert-elementwise-to-linalg",
    # Loops over train steps yield freshly allocated tensors.
    "--one-shot-bufferize='bufferize-function-boundaries allow-return-allocs-from-loops'",
    "--convert-linalg-to-loops",
    "--convert-vector-to-scf",
    "--arith-expand=include-bf16=true",
    "--mp-expand-fp8-conversions",
    "--mp-expand-tanh",
    "--convert-scf-to-cf",
    "--expand-strided-metadata",
    "--lower-affine",
    "--finalize-memref-to-llvm",
    "--convert-vector-to-llvm",
    # math-to-llvm first (it expands rsqrt); libm calls for the rest (erf).
    "--convert-math-to-llvm",
    "--convert-math-to-libm",
    "--convert-arith-to-llvm",
    "--convert-index-to-llvm",
    "--convert-func-to-llvm",
    "--convert-cf-to-llvm",
    "--reconcile-unrealized-casts",
])))

tool_dirs = [config.mp_tools_dir, config.llvm_tools_dir]
tools = ["mp-opt", "mp-run", "mp-capi-test", "mp-lr-schedule-test"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# Integration tests that check numerics with numpy (Debian python3-numpy) or
# train on Fashion-MNIST (Debian dataset-fashion-mnist) skip cleanly without.
import subprocess
if subprocess.run(["/usr/bin/python3", "-c", "import numpy"],
                  capture_output=True).returncode == 0:
    config.available_features.add("numpy")
# Tests against PyTorch (Debian python3-torch) skip cleanly without it.
if subprocess.run(["/usr/bin/python3", "-c", "import torch"],
                  capture_output=True).returncode == 0:
    config.available_features.add("torch")
if os.path.exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"):
    config.available_features.add("fashion-mnist")
# Tests of the AVX512_BF16 kernels (mp-bf16-dot-products) need a host with
# vdpbf16ps.
try:
    with open("/proc/cpuinfo") as cpuinfo:
        if " avx512_bf16" in cpuinfo.read():
            config.available_features.add("avx512bf16")
except OSError:
    pass
# The text of --data=text tests (Debian base-files ships it everywhere).
if os.path.exists("/usr/share/common-licenses/GPL-3"):
    config.available_features.add("gpl-3")

# Data-parallel tests run mp-run under OpenMPI's mpirun (Debian openmpi-bin),
# as root and with more processes than cores; they skip cleanly without it,
# or when mp-run was built without MPI (Debian libopenmpi-dev).
mpirun = shutil.which("mpirun")
if mpirun and config.mp_run_have_mpi:
    config.available_features.add("mpi")
    config.substitutions.append(("%mpirun", " ".join([
        mpirun, "--allow-run-as-root", "--oversubscribe",
        "--mca mpi_yield_when_idle 1"])))

# The simulated CUDA driver (test/lib/CudaSim) that runs mp-run --device=cuda
# on the CPU through tools/bench/ptx_sim.py.
config.substitutions.append(("%mp_cuda_sim", os.path.join(
    config.mp_obj_root, "lib", "libmp_cuda_sim.so")))

# Tests that assemble PTX need CUDA's ptxas; they skip cleanly without it.
ptxas = shutil.which("ptxas", path=os.pathsep.join(
    ["/usr/local/cuda/bin", config.environment.get("PATH", "")]))
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# A build with -DMP_ENABLE_SANITIZERS=ON (docs/Reliability.md): feature `asan`
# (tests too slow under ASan say `UNSUPPORTED: asan`); any report fails the
# test; leaks inside Debian's uninstrumented libMLIR/libLLVM are suppressed by
# the documented list in test/lsan.supp.
if getattr(config, "mp_enable_sanitizers", False):
    config.available_features.add("asan")
    # allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons its slabs by
    # hand when compiled with ASan; its inline copies in MixedPrec's code do,
    # those inside the uninstrumented libMLIR do not unpoison what they
    # allocate from the same slab, which ASan then reports as
    # use-after-poison (a false positive of mixing the two).
    config.environment["ASAN_OPTIONS"] = (
        "detect_leaks=1:abort_on_error=0:allow_user_poisoning=0")
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    config.environment["LSAN_OPTIONS"] = "suppressions=" + os.path.join(
        config.mp_source_dir, "test", "lsan.supp") + ":print_suppressions=0"
