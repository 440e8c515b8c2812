#!/usr/bin/env python3
"""Registers, spills and shared memory of MixedPrec's Tensor Core kernels.

Two commands:

  ptxas_report.py extract [FILE]
      Prints the PTX held by the `gpu.binary` ops of an MLIR file (the output
      of gpu-module-to-binary{format=isa}, e.g. mp-gpu-pipeline with
      binary-format=isa), decoded from the attribute's string escapes. Reads
      stdin without FILE.

  ptxas_report.py report --chip sm_80 [--options "format=bf16 ..."]
                         [--mp-opt PATH] [--ptxas PATH] [--fail-on-spills]
                         FILE.mlir...
      Lowers the matmul-likes of each file with
      `convert-mp-to-nvvm{chip=... <options>}`, compiles the kernels to PTX with
      mp-opt, assembles the PTX with `ptxas -v -arch=<chip>`, and prints one
      line per kernel: threads and dynamic shared memory per block (from the
      kernel's `mp_tensor_core` attribute) and registers, spill stores/loads,
      stack and static shared memory (from ptxas). --fail-on-spills exits
      with status 1 if a kernel spills. With --pipeline, each file is a
      whole step lowered by `mp-gpu-pipeline{chip=... binary-format=isa
      <options>}` instead, and every kernel of its gpu.binary ops is
      reported (threads and dynamic shared memory then print as `?`).

Standard library only. mp-opt is looked up next to this script's build
(`build/bin`), then on PATH; ptxas in /usr/local/cuda/bin, then on PATH.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The passes that take a module after convert-mp-to-nvvm to PTX, leaving the
# host code alone (gpu-module-to-binary only touches gpu.module ops).
KERNELS_TO_PTX = (
    "builtin.module(gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,"
    "convert-nvvm-to-llvm,canonicalize,cse,reconcile-unrealized-casts),"
    "gpu-module-to-binary{format=isa})"
)


def decode_mlir_string(text):
    """Undoes MLIR's string attribute escapes (\\XX hex bytes, \\\\)."""
    data = bytearray()
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\\":
            if text[i + 1] == "\\":
                data.append(ord("\\"))
                i += 2
            else:
                data.append(int(text[i + 1 : i + 3], 16))
                i += 3
        else:
            data.extend(c.encode("utf-8"))
            i += 1
    return data.decode("utf-8")


def extract_ptx(mlir_text):
    """Returns the PTX strings of every `assembly = "..."` object."""
    return [
        decode_mlir_string(match.group(1))
        for match in re.finditer(r'assembly = "((?:[^"\\]|\\.)*)"', mlir_text)
    ]


def parse_kernel_descriptions(mlir_text):
    """Maps kernel names to the fields of their mp_tensor_core attribute."""
    kernels = {}
    pattern = re.compile(
        r"gpu\.func @(\w+)\(.*?mp_tensor_core = \{([^{}]*)\}", re.S
    )
    for match in pattern.finditer(mlir_text):
        fields = {}
        for key, value in re.findall(
            r"(\w+) = (array<[^>]*>|\"[^\"]*\"|[^,]+)", match.group(2)
        ):
            value = value.strip()
            if value.startswith('"'):
                fields[key] = value.strip('"')
            elif value.startswith("array<"):
                fields[key] = [int(v) for v in value.split(":")[1].strip(" >").split(",")]
            elif re.match(r"^-?\d+( : i64)?$", value):
                fields[key] = int(value.split(" ")[0])
            elif value in ("true", "false"):
                fields[key] = value == "true"
            else:
                fields[key] = value
        kernels[match.group(1)] = fields
    return kernels


def parse_ptxas_verbose(output):
    """Maps entry names to their ptxas -v statistics."""
    stats = {}
    current = None
    for line in output.splitlines():
        match = re.search(r"Compiling entry function '(\w+)'", line)
        if match:
            current = stats.setdefault(match.group(1), {})
            continue
        if current is None:
            continue
        match = re.search(
            r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads",
            line,
        )
        if match:
            current["stack"], current["spill_stores"], current["spill_loads"] = map(
                int, match.groups()
            )
        match = re.search(r"Used (\d+) registers", line)
        if match:
            current["registers"] = int(match.group(1))
            smem = re.search(r"(\d+) bytes smem", line)
            current["static_smem"] = int(smem.group(1)) if smem else 0
    return stats


def find_tool(name, explicit, candidates):
    if explicit:
        return explicit
    for directory in candidates:
        path = os.path.join(directory, name)
        if os.access(path, os.X_OK):
            return path
    found = shutil.which(name)
    if not found:
        sys.exit(f"error: {name} not found; pass --{name}")
    return found


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(
            f"error: {' '.join(command)} failed ({result.returncode}):\n{result.stderr}"
        )
    return result.stdout + result.stderr


def report(args):
    mp_opt = find_tool(
        "mp-opt", args.mp_opt, [os.path.join(ROOT, "build", "bin")]
    )
    ptxas = find_tool("ptxas", args.ptxas, ["/usr/local/cuda/bin"])
    options = f"chip={args.chip} {args.options}".strip()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        for path in args.files:
            if args.pipeline:
                kernels = {}
                lowered = run(
                    [mp_opt, path,
                     f"--mp-gpu-pipeline={options} binary-format=isa", "-o", "-"]
                )
            else:
                converted = run([mp_opt, path, f"--convert-mp-to-nvvm={options}"])
                kernels = parse_kernel_descriptions(converted)
                lowered = run(
                    [mp_opt, "-", f"--pass-pipeline={KERNELS_TO_PTX}"],
                    input=converted,
                )
            for index, ptx in enumerate(extract_ptx(lowered)):
                ptx_path = os.path.join(scratch, f"kernels{index}.ptx")
                with open(ptx_path, "w") as f:
                    f.write(ptx)
                verbose = run(
                    [ptxas, "-v", f"-arch={args.chip}", ptx_path, "-o", os.devnull]
                )
                for name, stats in parse_ptxas_verbose(verbose).items():
                    description = kernels.get(name, {})
                    rows.append((name, description, stats))
    # The block-scaled kernels' names (…_mxf8f6f4_ue8m0x32) run past 72.
    width = max([72] + [len(name) for name, _, _ in rows])
    print(
        f"{'kernel':<{width}} {'threads':>7} {'dyn_smem':>8} {'regs':>5} "
        f"{'spill_st':>8} {'spill_ld':>8} {'stack':>5} {'smem':>5}"
    )
    spills = False
    for name, description, stats in rows:
        spills |= stats.get("spill_stores", 0) > 0 or stats.get("spill_loads", 0) > 0
        print(
            f"{name:<{width}} {description.get('threads', '?'):>7} "
            f"{description.get('shared_memory_bytes', '?'):>8} "
            f"{stats.get('registers', '?'):>5} {stats.get('spill_stores', '?'):>8} "
            f"{stats.get('spill_loads', '?'):>8} {stats.get('stack', '?'):>5} "
            f"{stats.get('static_smem', '?'):>5}"
        )
    if args.fail_on_spills and spills:
        print("error: a kernel spills registers", file=sys.stderr)
        return 1
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    extract = commands.add_parser("extract", help="print the PTX of gpu.binary ops")
    extract.add_argument("file", nargs="?", default="-")
    rep = commands.add_parser("report", help="ptxas statistics per kernel")
    rep.add_argument("--chip", required=True,
                     choices=["sm_80", "sm_86", "sm_89", "sm_90a", "sm_100a", "sm_120a"])
    rep.add_argument("--options", default="",
                     help="more convert-mp-to-nvvm options, space-separated")
    rep.add_argument("--mp-opt", dest="mp_opt")
    rep.add_argument("--ptxas")
    rep.add_argument("--fail-on-spills", action="store_true")
    rep.add_argument("--pipeline", action="store_true",
                     help="lower each file with mp-gpu-pipeline (a whole step)")
    rep.add_argument("files", nargs="+")
    args = parser.parse_args()
    if args.command == "extract":
        text = sys.stdin.read() if args.file == "-" else open(args.file).read()
        ptx = extract_ptx(text)
        if not ptx:
            sys.exit("error: no gpu.binary object with PTX (format=isa) found")
        sys.stdout.write("\n".join(ptx))
        return 0
    return report(args)


if __name__ == "__main__":
    sys.exit(main())
