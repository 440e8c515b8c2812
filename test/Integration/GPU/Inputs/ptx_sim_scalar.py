"""Runs a hand-written PTX kernel of one thread on tools/bench/ptx_sim.py and
prints each result of the scalar instructions the device-resident kernels
use: a .func call with .param arguments and a return value, f64 fma, fma.rm
and fma.rn on f32 just above a tie (exact, rounded once: a double would
round to the tie), cvt.rn.f32.f64, cvt.rn.f64.s64, cvt.rzi.s32.f32,
cvt.sat.f32.f32, bfe.s32 and bfe.u32, ex2.approx.ftz.f32 on a subnormal
result, rcp.approx.ftz.f64, setp on f64, setp on f16 and bf16 registers
(what LLVM makes of an f16 ReLU: extf, maximumf, truncf) and setp.ftz.f32.
Standard library only.

    ptx_sim_scalar.py SRC_ROOT
"""

import os
import struct
import sys

sys.path.insert(0, os.path.join(sys.argv[1], "tools", "bench"))
import ptx_sim  # noqa: E402

PTX = r"""
.version 7.0
.target sm_80
.address_size 64
.func (.param .b64 func_retval0) twice_plus(.param .b64 twice_plus_param_0,
                                            .param .b64 twice_plus_param_1)
{
  .reg .b64 %rd<4>;
  ld.param.b64 %rd1, [twice_plus_param_0];
  ld.param.b64 %rd2, [twice_plus_param_1];
  fma.rn.f64 %rd3, %rd1, 0d4000000000000000, %rd2;
  st.param.b64 [func_retval0], %rd3;
  ret;
}
.visible .entry scalar(.param .u64 scalar_param_0)
{
  .reg .pred %p<8>;
  .reg .b16 %rs<8>;
  .reg .b32 %r<20>;
  .reg .b64 %rd<20>;
  ld.param.b64 %rd1, [scalar_param_0];
  { // callseq 0, 0
  .param .b64 param0;
  .param .b64 param1;
  .param .b64 retval0;
  st.param.b64 [param0], 0d3FF8000000000000;
  st.param.b64 [param1], 0d3FE0000000000000;
  call.uni (retval0), twice_plus, (param0, param1);
  ld.param.b64 %rd2, [retval0];
  }
  st.global.b64 [%rd1], %rd2;
  fma.rm.f32 %r1, 0f3F800001, 0f3F800001, 0f00000000;
  st.global.b32 [%rd1+8], %r1;
  fma.rn.f32 %r2, 0f3F800800, 0f3F800800, 0f21800000;
  st.global.b32 [%rd1+12], %r2;
  cvt.rn.f32.f64 %r3, 0d3FF0000010000000;
  st.global.b32 [%rd1+16], %r3;
  mov.b64 %rd3, 9007199254740993;
  cvt.rn.f64.s64 %rd4, %rd3;
  st.global.b64 [%rd1+24], %rd4;
  cvt.rzi.s32.f32 %r4, 0fC0700000;
  st.global.b32 [%rd1+32], %r4;
  cvt.sat.f32.f32 %r5, 0f3FC00000;
  st.global.b32 [%rd1+36], %r5;
  bfe.s32 %r6, 0x00000F00, 8, 4;
  st.global.b32 [%rd1+40], %r6;
  bfe.u32 %r7, 0x00000F00, 8, 4;
  st.global.b32 [%rd1+44], %r7;
  ex2.approx.ftz.f32 %r8, 0fC3010000;
  st.global.b32 [%rd1+48], %r8;
  rcp.approx.ftz.f64 %rd5, 0d4008000000000000;
  st.global.b64 [%rd1+56], %rd5;
  setp.lt.f64 %p1, 0dBFF0000000000000, 0d0000000000000000;
  selp.b32 %r9, 1, 0, %p1;
  st.global.b32 [%rd1+64], %r9;
  mov.b16 %rs1, 0xBC00;
  mov.b16 %rs2, 0x0000;
  setp.le.f16 %p2, %rs1, %rs2;
  selp.b16 %rs3, 0x0000, %rs1, %p2;
  st.global.b16 [%rd1+68], %rs3;
  mov.b16 %rs4, 0x3C00;
  setp.gt.f16 %p3, %rs4, %rs2;
  selp.b32 %r10, 1, 0, %p3;
  st.global.b32 [%rd1+72], %r10;
  mov.b16 %rs5, 0xBF80;
  setp.lt.bf16 %p4, %rs5, %rs2;
  selp.b32 %r11, 1, 0, %p4;
  st.global.b32 [%rd1+76], %r11;
  setp.eq.ftz.f32 %p5, 0f00000001, 0f80000000;
  selp.b32 %r12, 1, 0, %p5;
  st.global.b32 [%rd1+80], %r12;
  ret;
}
"""

kernels, shared = ptx_sim.parse_ptx(PTX)
memory = ptx_sim.GlobalMemory()
out = memory.allocate(bytes(88))
ptx_sim.simulate_grid(kernels["scalar"], shared, memory, [out], 1, (1, 1, 1), 0)
data = memory.buffer(out)
f64 = lambda offset: struct.unpack_from("<d", data, offset)[0]
u32 = lambda offset: struct.unpack_from("<I", data, offset)[0]
s32 = lambda offset: struct.unpack_from("<i", data, offset)[0]
print(f"call twice_plus(1.5, 0.5) {f64(0)}")
print(f"fma.rm.f32 {u32(8):#010x}")
print(f"fma.rn.f32 above a tie {u32(12):#010x}")
print(f"cvt.rn.f32.f64 {u32(16):#010x}")
print(f"cvt.rn.f64.s64 {f64(24):.0f}")
print(f"cvt.rzi.s32.f32 {s32(32)}")
print(f"cvt.sat.f32.f32 {u32(36):#010x}")
print(f"bfe.s32 {s32(40)}")
print(f"bfe.u32 {u32(44)}")
print(f"ex2.approx.ftz.f32 {u32(48):#010x}")
print(f"rcp.approx.ftz.f64 {struct.unpack_from('<Q', data, 56)[0]:#018x}")
print(f"setp.lt.f64 {u32(64)}")
print(f"relu.f16(-1) {struct.unpack_from('<H', data, 68)[0]:#06x}")
print(f"setp.gt.f16 {u32(72)}")
print(f"setp.lt.bf16 {u32(76)}")
print(f"setp.eq.ftz.f32 {u32(80)}")
