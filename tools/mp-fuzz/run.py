#!/usr/bin/env python3
"""Seeds and runs MixedPrec's libFuzzer targets (docs/Reliability.md).

    tools/mp-fuzz/run.py --build BUILD_DIR --seconds 420 [--targets parse,passes,policy]
                         [--work DIR]

BUILD_DIR is a build configured with -DMP_ENABLE_FUZZERS=ON and built with
`ninja mp-fuzzers`. Each target runs for --seconds under `nice -n 10` with
-max_len=4096 -timeout=10 -rss_limit_mb=4096 (and -only_ascii=1 for the IR
targets); its corpus lives in
WORK/<target>/corpus (kept between runs), crashes in WORK/<target>/artifacts.
Seeds: the .mlir tests and examples split on `// -----` (comment lines
dropped; a piece over --max-len also one seed per top-level function, with
the module's other top-level ops) for parse and passes, the .json policy
files under test/ for policy (both include the regression inputs of
test/Fuzz/). A dictionary of the mp
op names and attribute names is generated from MPOps.td. Prints one line per target:
executions, corpus size, findings; exits non-zero when a target found one.
"""
import argparse
import glob
import hashlib
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGETS = {"parse": "mp-fuzz-parse", "passes": "mp-fuzz-passes",
           "policy": "mp-fuzz-policy"}


def split_top_level(text):
    """The top-level ops of a module's text (a new op starts at column 0):
    each `func.func` with the other top-level ops (symbol declarations such as
    `shard.grid`) before it, so that a seed over -max_len, which libFuzzer
    would truncate into text that no longer parses, still reaches the passes
    one function at a time."""
    blocks = []
    for line in text.splitlines():
        starts_op = line and not line[0].isspace() and line[0] != "}"
        if starts_op or not blocks:
            blocks.append([])
        blocks[-1].append(line)
    blocks = ["\n".join(b) for b in blocks]
    functions = [b for b in blocks if b.startswith("func.func")]
    others = "\n".join(b for b in blocks if not b.startswith("func.func"))
    for function in functions:
        yield (others + "\n" + function).strip() + "\n"


def mlir_seeds(max_len):
    files = sorted(glob.glob(os.path.join(ROOT, "test", "**", "*.mlir"),
                             recursive=True) +
                   glob.glob(os.path.join(ROOT, "docs", "examples", "*.mlir")))
    for path in files:
        for chunk in re.split(r"^// -----.*$", open(path).read(), flags=re.M):
            lines = [l for l in chunk.splitlines()
                     if not l.lstrip().startswith("//")]
            text = "\n".join(lines).strip()
            if text:
                yield text + "\n"
                if len(text) + 1 > max_len:
                    yield from split_top_level(text)


def policy_seeds():
    for path in sorted(glob.glob(os.path.join(ROOT, "test", "**", "*.json"),
                                 recursive=True)):
        yield open(path).read()


def write_dictionary(path):
    td = open(os.path.join(ROOT, "include", "mp", "Dialect", "MP", "IR",
                           "MPOps.td")).read()
    words = set("mp." + n for n in re.findall(r'MP_Op<"([a-z0-9_]+)"', td))
    words |= set(re.findall(r"\$([a-z_]+)", td))
    words |= {"mp.param", "mp.state", "mp.loss", "mp.updates", "mp.init",
              "mp.autocast", "mp.precision", "func.func", "return", "tensor<",
              "xf32>", "xf16>", "xbf16>", "xf8E4M3FN>", "xf8E5M2>", "xi64>",
              "acc(f32)", "wrt", "dims", "arith.constant", "dense<",
              "// -----", "9223372036854775807", "4611686018427387903",
              "-1", "0x7FC00000", "1.0e+39", "nan", "inf", "?x"}
    with open(path, "w") as out:
        for word in sorted(words):
            out.write('"%s"\n' % word.replace("\\", "\\\\").replace('"', '\\"'))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", required=True)
    parser.add_argument("--seconds", type=int, default=420)
    parser.add_argument("--targets", default="parse,passes,policy")
    parser.add_argument("--work", default=None)
    parser.add_argument("--max-len", type=int, default=4096)
    parser.add_argument("--timeout", type=int, default=10,
                        help="seconds one input may take (libFuzzer -timeout)")
    args = parser.parse_args()
    work = args.work or os.path.join(args.build, "fuzz")
    found_any = False
    for target in args.targets.split(","):
        binary = os.path.join(args.build, "bin", TARGETS[target])
        corpus = os.path.join(work, target, "corpus")
        seeds = os.path.join(work, target, "seeds")
        artifacts = os.path.join(work, target, "artifacts") + os.sep
        for directory in (corpus, seeds, artifacts):
            os.makedirs(directory, exist_ok=True)
        inputs = list(policy_seeds() if target == "policy"
                      else mlir_seeds(args.max_len))
        for text in inputs:
            data = text.encode()
            name = hashlib.sha1(data).hexdigest()
            with open(os.path.join(seeds, name), "wb") as out:
                out.write(data)
        dictionary = os.path.join(work, "mp.dict")
        write_dictionary(dictionary)
        log_path = os.path.join(work, target, "log.txt")
        open(log_path, "w").close()
        # libFuzzer stops at the first finding: start it again (on the grown
        # corpus) until the time is used, so that every target runs as long.
        start, executions, runs, statuses = time.time(), 0, 0, []
        while time.time() - start < args.seconds - 5:
            remaining = int(args.seconds - (time.time() - start))
            command = ["nice", "-n", "10", binary, corpus, seeds,
                       "-max_total_time=%d" % remaining,
                       "-max_len=%d" % args.max_len,
                       "-timeout=%d" % args.timeout,
                       "-rss_limit_mb=4096", "-print_final_stats=1",
                       "-artifact_prefix=" + artifacts]
            if target != "policy":
                # MLIR is text: mutations stay printable ASCII.
                command += ["-dict=" + dictionary, "-only_ascii=1"]
            if runs == 0:
                print("== %s: %s" % (target, " ".join(command)), flush=True)
            with open(log_path, "a") as log:
                log.write("== %s\n" % " ".join(command))
                log.flush()
                statuses.append(subprocess.run(
                    command, stdout=log, stderr=subprocess.STDOUT).returncode)
            runs += 1
            # Each run's executions: its final stats, or what it reported
            # last when it died without them.
            executions = 0
            for segment in open(log_path, errors="replace").read().split("\n== "):
                stats = re.findall(r"stat::number_of_executed_units:\s*(\d+)",
                                   segment)
                last = re.findall(r"^#(\d+)", segment, re.M)
                executions += int(stats[-1]) if stats else (
                    int(last[-1]) if last else 0)
        elapsed = time.time() - start
        # slow-unit-* files name the slowest input, they are not findings.
        findings = sorted(f for f in os.listdir(artifacts)
                          if not f.startswith("slow-unit-"))
        found_any |= bool(findings) or any(statuses)
        print("%s: %d executions in %.0f s (%d runs), corpus %d files, "
              "findings: %s" % (target, executions, elapsed, runs,
                                len(os.listdir(corpus)),
                                ", ".join(findings) if findings else "none"),
              flush=True)
        if findings:
            print("   (log: %s)" % log_path)
    return 1 if found_any else 0


if __name__ == "__main__":
    sys.exit(main())
