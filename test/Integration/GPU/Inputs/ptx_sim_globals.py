"""Module variables in tools/bench/ptx_sim.py (parse_globals): a hand-written
module with `.global` and `.const` variables of several forms (a byte
array with fewer initial values than bytes, an f32 array of hexadecimal
floats, a u64 scalar, an array without initialiser) placed in global
memory, as the simulated driver places them when it loads a module, and
read by a kernel of one thread through `mov.b64 %rd, name`; then the
forms it refuses. Standard library only.

    ptx_sim_globals.py SRC_ROOT
"""

import importlib
import os
import struct
import sys


def simulator(root):
    """tools/bench/ptx_sim.py of the source tree `root`."""
    sys.path.insert(0, os.path.join(root, "tools", "bench"))
    return importlib.import_module("ptx_sim")


ptx_sim = simulator(sys.argv[1])
PTX = r"""
.version 7.0
.target sm_80
.address_size 64

.global .align 64 .b8 table[16] = {0, 0, 128, 63, 0, 0, 0, 64, 0, 0, 64, 64};
.const .align 4 .f32 scale[2] = {0f40400000, 0fBF800000};
.visible .global .align 8 .u64 count = 0x10;
.global .align 2 .b16 zeros[3];

.visible .entry globals(.param .u64 globals_param_0)
{
  .reg .b16 %rs<2>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.b64 %rd1, [globals_param_0];
  mov.b64 %rd2, table;
  ld.global.nc.b32 %r1, [%rd2+8];
  ld.global.nc.b32 %r2, [%rd2+12];
  mov.b64 %rd3, scale;
  ld.const.f32 %r3, [%rd3+4];
  mul.rn.f32 %r4, %r1, %r3;
  st.global.b32 [%rd1], %r4;
  st.global.b32 [%rd1+4], %r2;
  mov.b64 %rd4, count;
  ld.global.b64 %rd5, [%rd4];
  st.global.b64 [%rd1+8], %rd5;
  mov.b64 %rd6, zeros;
  ld.global.b16 %rs1, [%rd6+4];
  cvt.u32.u16 %r5, %rs1;
  st.global.b32 [%rd1+16], %r5;
  ret;
}
"""

variables = ptx_sim.parse_globals(PTX)
for name, align, data in variables:
    print(f"{name} align {align} bytes {data.hex()}")
kernels, shared = ptx_sim.parse_ptx(PTX)
memory = ptx_sim.GlobalMemory()
addresses = {name: memory.allocate(data) for name, _, data in variables}
out = memory.allocate(bytes(20))
ptx_sim.simulate_grid(kernels["globals"], shared, memory, [out], 1, (1, 1, 1), 0,
                      global_symbols=addresses)
data = memory.buffer(out)
print("table[2] * scale[1] %r" % struct.unpack_from("<f", data, 0))
print("table[3] %#010x" % struct.unpack_from("<I", data, 4))
print("count %d" % struct.unpack_from("<Q", data, 8))
print("zeros[2] %d" % struct.unpack_from("<I", data, 16))

for text in (".extern .global .align 4 .b8 outside[4];",
             ".global .align 8 .u64 pointer = generic(table);",
             ".global .align 4 .b32 many[1] = {1, 2};"):
    try:
        ptx_sim.parse_globals(text)
        print("accepted:", text)
    except ptx_sim.SimulationError as error:
        print("refused:", error)
