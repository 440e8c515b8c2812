#!/usr/bin/python3
"""Runs generated train steps through mp-opt's pipelines and mp-run.

For each seed, gen_train_steps.py writes a valid train step (checked: it must
parse and verify, a generator bug is reported as GENBUG, not as a finding),
then every pipeline runs on it through BUILD/bin/mp-opt with a timeout:

- the pipelines of the libFuzzer `passes` target (`kPipelines` in
  tools/mp-fuzz/mp-fuzz-passes.cpp, parsed from that file: one list), and
- full chains mp-mixed-precision-pipeline{...} followed by mp-cpu-pipeline
  (FULL_CHAINS below).

mp-opt runs with `--verify-each=false`, so a pass that leaves invalid IR is
not turned into a verifier error; instead each run is classified as

- OK: exit status 0, and the output parses and verifies again;
- ERROR: exit status 1 with an `error:` diagnostic at a location. Deliberate
  rejections are fine; the summary lists the distinct messages (numbers and
  types abstracted) with their counts, so that a person can judge them;
- CRASH (a finding): a signal, an assertion, "PLEASE submit a bug report", a
  sanitizer report, a timeout, a failure without an error diagnostic,
  success with output that does not verify, or (for a pipeline ending in
  mp-cpu-pipeline) success with output that mlir-translate cannot turn into
  LLVM IR.

With `--run-every K`, every K-th seed whose lowering succeeded also runs a
few steps with BUILD/bin/mp-run (FP32 and mixed precision, random data); a
crash, a non-finite loss in an FP32 run of an all-f32 step, or, for such a
step, losses of `mp-mixed-precision-pipeline{compute-type=f32}` that differ
from FP32 (that pipeline must not change an f32 step's numerics), is a
finding.

Findings are written to BUILD/fuzz-gen/findings/ (the module, and a .txt with
the pipeline and the output). Exit status: 0 when there is no finding and no
generator bug, 1 otherwise.

  fuzz_train_steps.py --build BUILD --seconds N [--start-seed S] [--jobs J]
  fuzz_train_steps.py --build BUILD --seeds 10 --pipelines quick
"""

import argparse
import collections
import concurrent.futures
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import gen_train_steps  # noqa: E402

# Full chains: the mixed-precision pipeline with various options, then the
# CPU lowering (what mp-run does).
FULL_CHAINS = [
    "builtin.module(mp-mixed-precision-pipeline{compute-type=f16},mp-cpu-pipeline)",
    "builtin.module(mp-mixed-precision-pipeline{compute-type=bf16},mp-cpu-pipeline)",
    "builtin.module(mp-mixed-precision-pipeline{compute-type=f16 "
    "master-weights=stored-copy},mp-cpu-pipeline)",
    "builtin.module(mp-mixed-precision-pipeline{compute-type=bf16 "
    "master-weights=stored-copy loss-scaling=dynamic hysteresis=2},mp-cpu-pipeline)",
    "builtin.module(mp-mixed-precision-pipeline{compute-type=f16 "
    "loss-scaling=static init-scale=1024},mp-cpu-pipeline)",
    "builtin.module(mp-mixed-precision-pipeline{compute-type=f32},mp-cpu-pipeline)",
    "builtin.module(mp-mixed-precision-pipeline{fp8=delayed "
    "fp8-amax-history-len=4},mp-cpu-pipeline)",
    "builtin.module(mp-mixed-precision-pipeline{fp8=current fp8-format=e4m3 "
    "fp8-include-first-last=true},mp-cpu-pipeline)",
    "builtin.module(mp-mixed-precision-pipeline{compute-type=bf16 fp8=delayed "
    "master-weights=stored-copy},mp-cpu-pipeline)",
    "builtin.module(mp-mixed-precision-pipeline{data-parallel=true "
    "grid-size=2 reduce-type=f16},mp-cpu-pipeline{grid-size=2})",
    "builtin.module(mp-mixed-precision-pipeline{compute-type=bf16 "
    "data-parallel=true reduce-type=bf16 master-weights=stored-copy},"
    "mp-cpu-pipeline{grid-size=3})",
    "builtin.module(func.func(mp-autodiff),mp-cpu-pipeline)",
]

# A handful of pipelines for a quick run (the lit test): the passes alone,
# the mixed-precision pipeline and two full chains.
QUICK = [
    "builtin.module(mp-autocast)",
    "builtin.module(mp-master-weights{style=stored-copy})",
    "builtin.module(mp-loss-scaling)",
    "builtin.module(mp-mixed-precision-pipeline{fp8=delayed})",
    "builtin.module(mp-mixed-precision-pipeline{compute-type=f16},mp-cpu-pipeline)",
]

# mp-run's --pipeline for the numerics runs: FP32 ("" = auto), then one of
# these by seed.
MP_RUN_MIXED = [
    "mp-mixed-precision-pipeline{compute-type=f16}",
    "mp-mixed-precision-pipeline{compute-type=bf16 master-weights=stored-copy}",
    "mp-mixed-precision-pipeline{fp8=delayed}",
    "mp-mixed-precision-pipeline{compute-type=f16 loss-scaling=static init-scale=128}",
]

# Must leave an all-f32 step's numerics unchanged (compared with FP32).
F32_PIPELINE = "mp-mixed-precision-pipeline{compute-type=f32}"

CRASH_MARKERS = ("PLEASE submit a bug report", "Assertion", "AddressSanitizer",
                 "LeakSanitizer", "UndefinedBehaviorSanitizer", "runtime error:",
                 "Stack dump", "LLVM ERROR", "UNREACHABLE")

# An `error:` diagnostic at a location: FILE:LINE:COL: error: MESSAGE.
DIAG_RE = re.compile(r"^(?:[^\s:]+|loc\(.*\)|<unknown>):\d+:\d+: error: (.*)$", re.M)


def parse_kpipelines(path):
    """The pipelines of `kPipelines` in mp-fuzz-passes.cpp: C string
    literals, adjacent ones concatenated, separated by commas."""
    text = open(path).read()
    match = re.search(r"kPipelines\[\]\s*=\s*\{(.*?)\n\};", text, re.S)
    if not match:
        raise SystemExit("fuzz_train_steps: no kPipelines in " + path)
    body = re.sub(r"//[^\n]*", "", match.group(1))
    pipelines, current = [], ""
    for token in re.findall(r'"(?:[^"\\]|\\.)*"|,', body):
        if token == ",":
            if current:
                pipelines.append(current)
            current = ""
        else:
            current += token[1:-1]
    if current:
        pipelines.append(current)
    return pipelines


def normalise(message):
    """A diagnostic message with its numbers, types and names abstracted,
    so that messages differing only in them count as one."""
    message = re.sub(r"tensor<[^>]*>", "tensor<..>", message)
    message = re.sub(r"'\([^']*\)'", "'(..)'", message)
    message = re.sub(r"@[\w.$]+", "@..", message)
    message = re.sub(r"%[\w.$#]+", "%..", message)
    message = re.sub(r"\b\d+(\.\d+)?(e[-+]?\d+)?\b", "N", message)
    return message


class Result:
    def __init__(self, kind, message="", detail=""):
        self.kind = kind  # OK, ERROR, CRASH
        self.message = message
        self.detail = detail


def run(cmd, timeout, stdin=None):
    """(returncode, output, timed_out) of a command, in its own process
    group so that a timeout kills everything it started."""
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE if stdin is not None else None,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(stdin, timeout=timeout)
        return proc.returncode, out, err, False
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return None, out, err, True


MLIR_TRANSLATE = "/usr/lib/llvm-22/bin/mlir-translate"


def classify(mp_opt, path, pipeline, timeout):
    rc, out, err, timed_out = run(
        [mp_opt, path, "--verify-each=false", "--pass-pipeline=" + pipeline],
        timeout)
    err = err.decode(errors="replace")
    if timed_out:
        return Result("CRASH", "timeout after %d s" % timeout, err)
    marker = next((m for m in CRASH_MARKERS if m in err), None)
    if rc < 0 or rc not in (0, 1) or marker:
        return Result("CRASH", "exit status %s%s" % (rc, (", " + marker) if marker else ""), err)
    if rc == 1:
        messages = DIAG_RE.findall(err)
        if not messages:
            return Result("CRASH", "failed without an error diagnostic", err)
        return Result("ERROR", messages[0], err)
    # Success: the output must parse and verify again.
    rc2, _, err2, timed_out2 = run([mp_opt, "-", "-o", "/dev/null"], timeout, out)
    if timed_out2 or rc2 != 0:
        return Result("CRASH", "succeeded with output that does not verify",
                      err2.decode(errors="replace"))
    # A module lowered by mp-cpu-pipeline must translate to LLVM IR (an op
    # left unlowered verifies, but mp-run cannot compile it).
    if pipeline.rstrip(")").split(",")[-1].startswith("mp-cpu-pipeline") and \
            os.path.exists(MLIR_TRANSLATE):
        rc3, _, err3, timed_out3 = run([MLIR_TRANSLATE, "--mlir-to-llvmir", "-",
                                        "-o", "/dev/null"], timeout, out)
        if timed_out3 or rc3 != 0:
            return Result("CRASH", "mp-cpu-pipeline succeeded with output that "
                          "does not translate to LLVM IR",
                          err3.decode(errors="replace"))
    return Result("OK")


MP_RUN_LOSS = re.compile(r"^step\s+\d+\s+loss\s+(\S+)", re.M)


def run_mp_run(mp_run, path, meta, pipeline, timeout, steps):
    """Runs a few steps; returns (the finding, or None; the detail)."""
    cmd = [mp_run, path, "--function=train_step", "--steps=%d" % steps,
           "--seed=%d" % meta["seed"]]
    if meta.get("num_classes"):
        cmd.append("--num-classes=%d" % meta["num_classes"])
    if pipeline:
        cmd.append("--pipeline=" + pipeline)
    rc, out, err, timed_out = run(cmd, timeout)
    out = out.decode(errors="replace")
    err = err.decode(errors="replace")
    if timed_out:
        return "mp-run timeout", out + err
    if rc != 0:
        if rc == 1 and "mp-run: error:" in err and not any(m in err for m in CRASH_MARKERS):
            return None, "ERROR " + err.strip().splitlines()[-1]
        return "mp-run exit status %s" % rc, out + err
    losses = MP_RUN_LOSS.findall(out)
    if not losses:
        return "mp-run printed no loss", out + err
    if not pipeline and not meta["low_precision"]:
        for loss in losses:
            if loss.lower() in ("nan", "-nan", "inf", "-inf") or "nan" in loss.lower() \
                    or "inf" in loss.lower():
                return "non-finite loss %s in an f32 run" % loss, out
    return None, "OK " + " ".join(losses)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", required=True, help="build directory (BUILD/bin/mp-opt)")
    parser.add_argument("--seconds", type=float, default=0,
                        help="generate seeds until this much time has passed")
    parser.add_argument("--seeds", type=int, default=0,
                        help="run this many seeds (instead of --seconds)")
    parser.add_argument("--start-seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="seeds in parallel (at most 2 here)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per mp-opt run")
    parser.add_argument("--pipelines", default="all",
                        help="all (kPipelines + full chains), quick, kpipelines or chains")
    parser.add_argument("--run-every", type=int, default=0,
                        help="run mp-run on every K-th seed whose lowering succeeds (0: never)")
    parser.add_argument("--run-steps", type=int, default=3)
    parser.add_argument("--no-caller", action="store_true",
                        help="never generate a caller of the train step")
    parser.add_argument("--findings", help="directory for findings "
                        "(default BUILD/fuzz-gen/findings)")
    parser.add_argument("--list-pipelines", action="store_true",
                        help="print the selected pipelines and exit")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()

    build = os.path.abspath(args.build)
    mp_opt = os.path.join(build, "bin", "mp-opt")
    mp_run = os.path.join(build, "bin", "mp-run")
    kpipelines = parse_kpipelines(os.path.join(HERE, "mp-fuzz-passes.cpp"))
    pipelines = {"all": kpipelines + FULL_CHAINS, "quick": QUICK,
                 "kpipelines": kpipelines, "chains": FULL_CHAINS}[args.pipelines]
    if args.list_pipelines:
        print("\n".join(pipelines))
        return 0
    if not args.seconds and not args.seeds:
        parser.error("give --seconds or --seeds")
    work = os.path.join(build, "fuzz-gen")
    findings_dir = args.findings or os.path.join(work, "findings")
    os.makedirs(findings_dir, exist_ok=True)
    os.makedirs(work, exist_ok=True)
    tmp_dir = tempfile.mkdtemp(prefix="work-", dir=work)

    lock = threading.Lock()
    counts = collections.Counter()
    errors = collections.Counter()
    error_example = {}
    crashes = []
    genbugs = []
    mp_runs = collections.Counter()
    seeds_done = [0]
    start = time.time()
    next_seed = [args.start_seed]
    end_seed = args.start_seed + args.seeds if args.seeds else None

    def take_seed():
        with lock:
            if end_seed is not None and next_seed[0] >= end_seed:
                return None
            if args.seconds and time.time() - start >= args.seconds:
                return None
            seed = next_seed[0]
            next_seed[0] += 1
            return seed

    def save_finding(seed, text, pipeline, result):
        index = len(crashes)
        base = os.path.join(findings_dir, "seed-%d-%d" % (seed, index))
        with open(base + ".mlir", "w") as f:
            f.write(text)
        with open(base + ".txt", "w") as f:
            f.write("seed %d\npipeline %s\n%s\n\n%s" % (seed, pipeline, result.message,
                                                        result.detail))
        crashes.append((seed, pipeline, result.message, base + ".mlir"))

    def worker():
        while True:
            seed = take_seed()
            if seed is None:
                return
            text, meta = gen_train_steps.generate(seed, not args.no_caller)
            path = os.path.join(tmp_dir, "seed-%d.mlir" % seed)
            with open(path, "w") as f:
                f.write(text)
            rc, _, err, _ = run([mp_opt, path, "-o", "/dev/null"], args.timeout)
            if rc != 0:
                with lock:
                    genbugs.append((seed, err.decode(errors="replace").strip()[:500]))
                    counts["GENBUG"] += 1
                continue
            lowered = False
            for pipeline in pipelines:
                result = classify(mp_opt, path, pipeline, args.timeout)
                with lock:
                    counts[result.kind] += 1
                    if result.kind == "ERROR":
                        key = normalise(result.message)
                        errors[key] += 1
                        error_example.setdefault(key, (seed, pipeline))
                    elif result.kind == "CRASH":
                        save_finding(seed, text, pipeline, result)
                        print("CRASH seed %d: %s: %s" % (seed, pipeline, result.message),
                              flush=True)
                if args.verbose:
                    print("seed %d %s %s %s" % (seed, result.kind, pipeline,
                                                result.message), flush=True)
                if result.kind == "OK" and "mp-cpu-pipeline" in pipeline:
                    lowered = True
            if args.run_every and lowered and not meta["caller"] and \
                    seed % args.run_every == 0:
                mixed = MP_RUN_MIXED[(seed // args.run_every) % len(MP_RUN_MIXED)]
                run_pipelines = ["", mixed]
                if not meta["low_precision"]:
                    run_pipelines.append(F32_PIPELINE)
                fp32_losses = None
                for run_pipeline in run_pipelines:
                    problem, detail = run_mp_run(mp_run, path, meta, run_pipeline,
                                                 args.timeout, args.run_steps)
                    if not problem and detail.startswith("OK"):
                        if run_pipeline == "":
                            fp32_losses = detail
                        elif run_pipeline == F32_PIPELINE and fp32_losses and \
                                detail != fp32_losses:
                            problem = "compute-type=f32 changed the losses of an f32 step"
                            detail = "fp32: %s\n%s: %s" % (fp32_losses, run_pipeline, detail)
                    with lock:
                        if problem:
                            mp_runs["CRASH"] += 1
                            save_finding(seed, text, "mp-run " + (run_pipeline or "fp32"),
                                         Result("CRASH", problem, detail))
                            print("CRASH seed %d: mp-run %s: %s" % (
                                seed, run_pipeline or "fp32", problem), flush=True)
                        else:
                            mp_runs[detail.split(" ")[0]] += 1
                            if detail.startswith("ERROR"):
                                key = normalise("mp-run: " + detail[6:])
                                errors[key] += 1
                                error_example.setdefault(key, (seed, "mp-run " + run_pipeline))
            os.unlink(path)
            with lock:
                seeds_done[0] += 1

    jobs = max(1, args.jobs)
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for future in [pool.submit(worker) for _ in range(jobs)]:
            future.result()
    try:
        os.rmdir(tmp_dir)
    except OSError:
        pass

    elapsed = time.time() - start
    runs = counts["OK"] + counts["ERROR"] + counts["CRASH"]
    print("summary: seeds %d (%d..%d), %d pipelines, %.0f s" % (
        seeds_done[0], args.start_seed, next_seed[0] - 1, len(pipelines), elapsed))
    print("generated modules that do not verify (GENBUG): %d" % counts["GENBUG"])
    for seed, err in genbugs[:10]:
        print("  GENBUG seed %d: %s" % (seed, err.splitlines()[0] if err else ""))
    print("runs: %d  OK: %d  ERROR: %d  CRASH: %d" % (runs, counts["OK"], counts["ERROR"],
                                                      counts["CRASH"]))
    if args.run_every:
        print("mp-run: OK: %d  ERROR: %d  CRASH: %d" % (mp_runs["OK"], mp_runs["ERROR"],
                                                       mp_runs["CRASH"]))
    print("distinct error messages: %d" % len(errors))
    for message, count in errors.most_common():
        seed, pipeline = error_example[message]
        print("  %6d  %s   [e.g. seed %d, %s]" % (count, message, seed, pipeline))
    print("findings: %d" % len(crashes))
    for seed, pipeline, message, path in crashes:
        print("  seed %d: %s: %s -> %s" % (seed, pipeline, message, path))
    return 1 if crashes or genbugs else 0


if __name__ == "__main__":
    sys.exit(main())
