#!/usr/bin/env python3
"""Kernel launches of the simulated CUDA driver, run by ptx_sim.py.

The simulated driver (test/lib/CudaSim/CudaSim.cpp, libmp_cuda_sim.so) keeps
device memory in a shared memory arena: a file mapped at the same size in the
driver's process and in this one. A device pointer is an address in the
driver's mapping, so this process subtracts the mapping's base there.

The driver starts this script once per process as

    python3 ptx_sim_launch.py --serve FD SIZE BASE

(FD: the arena's file descriptor, inherited; SIZE: its bytes; BASE: its
address in the driver, hexadecimal) and sends requests on stdin, one line
each, answered by one line on stdout:

    load ID NBYTES          followed by NBYTES of PTX text
                            -> "ok NAME:SIZE,SIZE,... NAME:..." (the kernels
                               and the bytes of each parameter), then
                               "@NAME:BYTES:ALIGN" for each module variable
                               (`.global`/`.const`, ptx_sim.parse_globals)
    place ID NAME=ADDRESS...
                            the device address (hexadecimal) the driver
                            allocated for each module variable of module
                            ID: written with its initial bytes, the
                            address of its name in the module's kernels
                            -> "ok"
    launch ID NAME GX GY GZ BX BY BZ SMEM HEX...
                            one hexadecimal string per parameter (its
                            bytes) -> "ok" or "error MESSAGE"

A launch runs every block of the grid through ptx_sim.simulate_grid, with
scalar parameters as unsigned little-endian integers and array parameters
(`.param .align 64 .b8 name[128]`: a by-value tensor map) as bytes.
Standard library only (ptx_sim uses NumPy when present).
"""

import mmap
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ptx_sim  # noqa: E402

TYPE_BYTES = {"8": 1, "16": 2, "32": 4, "64": 8}


class ArenaMemory:
    """ptx_sim's global memory over the driver's arena."""

    def __init__(self, arena, base):
        self.arena = arena
        self.base = base

    def _offset(self, address, size):
        offset = address - self.base
        if offset < 0 or offset + size > len(self.arena):
            raise ptx_sim.SimulationError(
                f"global access of {size} bytes at {address:#x} is outside "
                f"the device memory [{self.base:#x}, "
                f"{self.base + len(self.arena):#x})")
        return offset

    def read(self, address, size):
        offset = self._offset(address, size)
        return bytes(self.arena[offset:offset + size])

    def write(self, address, payload):
        offset = self._offset(address, len(payload))
        self.arena[offset:offset + len(payload)] = payload


def kernel_param_sizes(text):
    """{kernel: [bytes of each parameter]} from the .entry headers."""
    text = re.sub(r"//[^\n]*", "", text)
    sizes = {}
    for match in re.finditer(r"\.entry\s+(\w+)\s*\((.*?)\)", text, re.S):
        params = []
        for param in re.finditer(
                r"\.param\s+(?:\.align\s+\d+\s+)?\.[a-z]+(\d+)\s+"
                r"(?:\.ptr\s+(?:\.\w+\s+)?\.align\s+\d+\s+)?\w+(?:\[(\d+)\])?",
                match.group(2)):
            params.append(TYPE_BYTES[param.group(1)] * int(param.group(2) or 1))
        sizes[match.group(1)] = params
    return sizes


def serve(fd, size, base):
    arena = mmap.mmap(fd, size)
    memory = ArenaMemory(arena, base)
    # id: (kernels, shared symbols, param sizes, module variables,
    #      {variable: device address})
    modules = {}
    stdin, stdout = sys.stdin.buffer, sys.stdout
    while True:
        line = stdin.readline()
        if not line:
            return
        words = line.decode().split()
        try:
            if words[0] == "load":
                text = stdin.read(int(words[2])).decode()
                kernels, shared_symbols = ptx_sim.parse_ptx(text)
                sizes = kernel_param_sizes(text)
                variables = ptx_sim.parse_globals(text)
                modules[words[1]] = (kernels, shared_symbols, sizes,
                                     variables, {})
                reply = "ok " + " ".join(
                    [f"{name}:{','.join(map(str, params))}"
                     for name, params in sizes.items()] +
                    [f"@{name}:{len(data)}:{align}"
                     for name, align, data in variables])
            elif words[0] == "place":
                _, _, _, variables, addresses = modules[words[1]]
                placed = dict(word.split("=") for word in words[2:])
                for name, _, data in variables:
                    address = int(placed[name], 16)
                    memory.write(address, data)
                    addresses[name] = address
                reply = "ok"
            elif words[0] == "launch":
                kernels, shared_symbols, sizes, _, addresses = \
                    modules[words[1]]
                name = words[2]
                grid = tuple(int(w) for w in words[3:6])
                block = [int(w) for w in words[6:9]]
                shared_bytes = int(words[9])
                if block[1] != 1 or block[2] != 1:
                    raise ptx_sim.SimulationError(
                        f"block {tuple(block)}: the simulator runs "
                        "one-dimensional blocks")
                params = []
                for data in (bytes.fromhex(w) for w in words[10:]):
                    params.append(int.from_bytes(data, "little")
                                  if len(data) <= 8 else data)
                ptx_sim.simulate_grid(kernels[name], shared_symbols, memory,
                                      params, block[0], grid, shared_bytes,
                                      global_symbols=addresses)
                reply = "ok"
            else:
                reply = f"error unknown request {words[0]!r}"
        except (ptx_sim.SimulationError, KeyError, ValueError) as error:
            reply = "error " + " ".join(str(error).split())
        stdout.write(reply + "\n")
        stdout.flush()


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] != "--serve":
        sys.exit("usage: ptx_sim_launch.py --serve FD SIZE BASE")
    serve(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4], 16))
