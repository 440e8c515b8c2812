#!/usr/bin/env bash
# MixedPrec's one entry point for a fresh Debian 12 machine (run as root):
#
#   tools/run.sh demo    install what is missing, build, run the demo
#   tools/run.sh test    install what is missing, build, run the whole test suite;
#                        then the same suite on an ASan+UBSan build
#                        (docs/Reliability.md; MP_SKIP_SANITIZERS=1 skips it)
#   tools/run.sh build   install what is missing, build
#
# Each step is idempotent: packages already present are not reinstalled, an
# existing build directory is reused (incremental). MP_BUILD_DIR overrides the
# build directory (default: build/ in the checkout), MP_ASAN_BUILD_DIR the
# sanitizer build's (default: build-asan/).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${MP_BUILD_DIR:-$ROOT/build}
ASAN_BUILD=${MP_ASAN_BUILD_DIR:-$ROOT/build-asan}
LLVM_BIN=/usr/lib/llvm-22/bin
PACKAGES=(llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools clang-22
          cmake ninja-build python3-numpy zlib1g-dev libopenblas0
          dataset-fashion-mnist libclang-rt-22-dev libopenmpi-dev openmpi-bin
          python3-torch python3-torchvision libomp-22-dev)

install_dependencies() {
  local missing=()
  for pkg in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" \
      || missing+=("$pkg")
  done
  if ((${#missing[@]})); then
    echo "== installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
}

build() {
  install_dependencies
  if [[ ! -f "$BUILD/build.ninja" ]]; then
    cmake -G Ninja -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir >/dev/null
  fi
  cmake --build "$BUILD"
}

demo() {
  build
  local example="$ROOT/docs/examples/mlp_train_step.mlir"
  echo
  echo "== The example train step (784-256-10 MLP, cross entropy, Adam), verified and"
  echo "== printed back by mp-opt after canonicalization:"
  "$BUILD/bin/mp-opt" "$example" --canonicalize --cse
  echo
  echo "== Its operations:"
  "$BUILD/bin/mp-opt" "$example" --print-op-stats -o /dev/null 2>&1
  train_demo "$example"
}

# Trains the example on Fashion-MNIST with mp-run in FP32 and in mixed
# precision and prints both loss curves side by side.
train_demo() {
  local example=$1 steps=300 out
  local amp='mp-mixed-precision-pipeline{compute-type=f16}'
  out=$(mktemp -d)
  echo
  echo "== Training it on Fashion-MNIST for $steps steps of 64 images with mp-run,"
  echo "== in FP32 and in mixed precision (f16 compute, f32 master weights,"
  echo "== dynamic loss scaling), same seed and batch order (docs/MpRun.md):"
  echo "   mp-run $(basename "$example") --data=fashion-mnist --steps=$steps"
  "$BUILD/bin/mp-run" "$example" --data=fashion-mnist --steps=$steps \
    --print-every=0 --json="$out/fp32.json" | tail -n 1
  echo "   mp-run $(basename "$example") --data=fashion-mnist --steps=$steps --pipeline='$amp'"
  "$BUILD/bin/mp-run" "$example" --data=fashion-mnist --steps=$steps \
    --print-every=0 --json="$out/amp.json" --pipeline="$amp" | tail -n 1
  echo
  /usr/bin/python3 - "$out/fp32.json" "$out/amp.json" <<'PY'
import json, sys
fp32, amp = (json.load(open(path))["steps"] for path in sys.argv[1:])
print("  step  FP32 loss  AMP loss  AMP loss scale")
for a, b in zip(fp32, amp):
    if a["step"] == 1 or a["step"] % 25 == 0:
        print("%6d  %9.4f  %8.4f  %14g" % (a["step"], a["loss"], b["loss"],
                                           b["loss_scale"]))
PY
  rm -rf "$out"
}

# Runs the lit suite of build directory $1, appending its output to $2;
# returns lit's status.
run_suite() {
  set +e
  "$LLVM_BIN/lit" -sv "$1/test" 2>&1 | tee -a "$2"
  local status=${PIPESTATUS[0]}
  set -e
  return "$status"
}

# The ASan+UBSan build (-DMP_ENABLE_SANITIZERS=ON): what the suite runs.
build_sanitized() {
  if [[ ! -f "$ASAN_BUILD/build.ninja" ]]; then
    cmake -G Ninja -S "$ROOT" -B "$ASAN_BUILD" -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir -DMP_ENABLE_SANITIZERS=ON \
      >/dev/null
  fi
  cmake --build "$ASAN_BUILD"
  cmake --build "$ASAN_BUILD" --target mlir-doc
}

run_tests() {
  build
  # The generated reference the docs test compares with docs/ (not in `all`).
  cmake --build "$BUILD" --target mlir-doc
  local log status=0
  log=$(mktemp)
  run_suite "$BUILD" "$log" || status=$?
  if [[ "${MP_SKIP_SANITIZERS:-0}" != 1 ]]; then
    echo
    echo "== The same suite under AddressSanitizer + UndefinedBehaviorSanitizer"
    build_sanitized
    run_suite "$ASAN_BUILD" "$log" || status=$?
  fi
  # lit's totals of both runs as one line: "N passed, N failed, N skipped".
  /usr/bin/python3 - "$log" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
def count(*names):
    return sum(int(m.group(1)) for n in names
               for m in re.finditer(r"^\s*%s\s*:\s*(\d+)" % re.escape(n), text, re.M))
passed = count("Passed", "Expectedly Failed")
failed = count("Failed", "Unexpectedly Passed", "Timed Out", "Unresolved")
skipped = count("Unsupported", "Excluded", "Skipped")
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
  rm -f "$log"
  return "$status"
}

case "${1:-}" in
  demo) demo ;;
  test) run_tests ;;
  build) build ;;
  *) echo "usage: $0 demo|test|build" >&2; exit 2 ;;
esac
