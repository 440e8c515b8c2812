#!/usr/bin/python3
"""Where the threads of a multi-threaded mp-run step wait: runs mp-run with
the OMPT tool tools/bench/omp_waits.c and prints, per function of the step
that starts parallel regions (the outlined loop nests of mp-cpu-pipeline,
named from the JIT's perf dump), per step: the regions it starts, thread 0's
time inside them, the serial time of thread 0 before them, and each
thread's time waiting in their barriers; then the totals.

    tools/bench/omp_waits.py [--build DIR] [--top N] STEP.mlir MP_RUN_ARGS...

e.g. `tools/bench/omp_waits.py /tmp/r_bf16.mlir --pipeline=none --steps 40
--threads=2` (the conv net's step of `conv_nets.py`). Two threads are
measured (threads 0 and 1). The first region's serial time holds what mp-run
does between steps (making the next batch), and the last region's waits the
worker's wait through it. Figures are microseconds per step over every step
(the first included); the tool's own callbacks add a little to each region.

Needs clang (the tool is built with /usr/lib/llvm-22/bin/clang, whose
headers have omp-tools.h) and mp-run from --build.
"""

import argparse
import bisect
import collections
import os
import shutil
import struct
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def read_jitdump(path):
    """The (start, end, name) of every function in a perf jitdump file
    (JIT_CODE_LOAD records), sorted by address."""
    with open(path, "rb") as f:
        data = f.read()
    offset = struct.unpack_from("<I", data, 8)[0]  # the header's size
    functions = []
    while offset + 16 <= len(data):
        record, size = struct.unpack_from("<II", data, offset)
        if size == 0:
            break
        if record == 0:  # JIT_CODE_LOAD
            _, _, _, address, code_size, _ = struct.unpack_from(
                "<IIQQQQ", data, offset + 16)
            name_end = data.index(b"\0", offset + 56)
            functions.append((address, address + code_size,
                              data[offset + 56:name_end].decode()))
        offset += size
    return sorted(functions)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=os.environ.get(
        "MP_BUILD_DIR", os.path.join(ROOT, "build")))
    parser.add_argument("--top", type=int, default=20,
                        help="functions printed, most time first")
    parser.add_argument("mp_run_args", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    steps = next((int(a.split("=", 1)[1]) for a in args.mp_run_args
                  if a.startswith("--steps=")), None)
    if steps is None:
        sys.exit("omp_waits.py: give mp-run's --steps=N")
    clang = ("/usr/lib/llvm-22/bin/clang"
             if os.path.exists("/usr/lib/llvm-22/bin/clang")
             else shutil.which("clang"))
    with tempfile.TemporaryDirectory() as tmp:
        tool = os.path.join(tmp, "omp_waits.so")
        subprocess.run([clang, "-O2", "-shared", "-fPIC",
                        os.path.join(HERE, "omp_waits.c"), "-o", tool],
                       check=True)
        out = os.path.join(tmp, "waits.txt")
        env = dict(os.environ, OMP_TOOL_LIBRARIES=tool, OMP_WAITS_OUT=out,
                   JITDUMPDIR=tmp)
        subprocess.run([os.path.join(args.build, "bin", "mp-run")]
                       + args.mp_run_args + ["--print-every=0"], check=True,
                       env=env, stdout=subprocess.DEVNULL)
        dumps = [os.path.join(d, f) for d, _, files in os.walk(tmp)
                 for f in files if f.startswith("jit-") and f.endswith(".dump")]
        functions = read_jitdump(dumps[0]) if dumps else []
        with open(out) as f:
            lines = [line.split() for line in f]
    starts = [start for start, _, _ in functions]

    def name_of(address):
        i = bisect.bisect_right(starts, address) - 1
        if i >= 0 and address < functions[i][1]:
            return functions[i][2]
        return hex(address)

    # Per function: regions, inside, gap before, wait 0, wait 1.
    per = collections.defaultdict(lambda: [0.0] * 5)
    for address, count, *figures in lines:
        row = per[name_of(int(address, 16))]
        row[0] += int(count)
        for i, value in enumerate(figures):
            row[i + 1] += float(value)
    print("%-32s %8s %10s %10s %10s %10s" % (
        "function (per step, us)", "regions", "inside", "serial", "wait 0",
        "wait 1"))
    rows = sorted(per.items(), key=lambda kv: -(kv[1][1] + kv[1][2]))
    for name, row in rows[:args.top]:
        print("%-32s %8.1f %10.1f %10.1f %10.1f %10.1f" % (
            name, *(value / steps for value in row)))
    totals = [sum(row[i] for row in per.values()) / steps for i in range(5)]
    print("%-32s %8.1f %10.1f %10.1f %10.1f %10.1f" % ("total", *totals))


if __name__ == "__main__":
    main()
