# mixedprec.run(device="cuda") on the simulated CUDA driver (test/lib/CudaSim,
# each launch run by tools/bench/ptx_sim.py): the MLP step of
# test/Integration/GPU (16-32-10, batch 8, Adam) in BF16 AMP with dynamic
# loss scaling (so that the loss-scale state is staged too; growth interval
# 1, so that the scale doubles every step and a stale state read back would
# show), lowered device-resident with sequential full reductions,
# trains 3 steps on device buffers as mixedprec.run on the CPU does
# (vectorize=false: the CPU's reduction order), bit for bit: the losses, the
# loss scales and the final parameters. The loss, skipped flag and
# loss-scale state of each step are read after the next step is queued;
# each step's batch goes in through page-locked memory (the simulated
# driver's counts at exit: the 17 arguments copied once from pageable
# memory, then 2 data arguments a step from the two page-locked batch slots;
# 4 page-locked allocations: those slots and the two staging slots). What
# a step's runner reads back (the loss, the skipped flag, the loss scale
# and growth tracker) shares one device allocation
# (runner.device_step_packing), so it comes back in one copy a step (3 in
# all, not one per value: 12), whichever of the state's two buffers the
# step fed back.
# Then the errors: no CUDA driver (DeviceError), an unknown device,
# options of the other device, eval_data on the device.
#
# About 10 s a step in the simulator.
# REQUIRES: numpy
# RUN: env MP_CUDA_SIM_STATS=1 %python %s %S/../Integration/GPU/Inputs/mlp_16_32_10.mlir %mp_cuda_sim 2>&1 | FileCheck %s

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
import mixedprec  # noqa: E402
from errors import fails  # noqa: E402

source, simulator = sys.argv[1], sys.argv[2]
text = mixedprec.compile(open(source).read(), compute_type="bf16", loss_scaling="dynamic",
                        growth_interval=1)

# No driver: a DeviceError before anything is lowered.
os.environ["MP_CUDA_DRIVER"] = os.path.join(os.path.dirname(simulator), "no-such-libcuda.so")
# CHECK: no driver: DeviceError device error: --device=cuda needs the NVIDIA driver ({{.*}}no-such-libcuda.so): {{.*}}cannot open shared object file
fails("no driver", lambda: mixedprec.run(text, steps=1, device="cuda"))
# CHECK: unknown device: ValueError device: 'tpu' is not 'cpu' or 'cuda'
fails("unknown device", lambda: mixedprec.run(text, steps=1, device="tpu"))
# CHECK: eval on the device: ValueError eval_data runs the classifier on host buffers
fails("eval on the device", lambda: mixedprec.run(text, steps=1, device="cuda",
                                                 data="fashion-mnist", eval_data=True))
# CHECK: cpu options on the device: ValueError cpu_pipeline_options applies to device='cpu'
fails("cpu options on the device", lambda: mixedprec.run(
    text, steps=1, device="cuda", cpu_pipeline_options="vectorize=false"))
# CHECK: gpu options on the cpu: ValueError gpu_pipeline_options needs device='cuda'
fails("gpu options on the cpu", lambda: mixedprec.run(
    text, steps=1, gpu_pipeline_options="chip=sm_80"))

os.environ["MP_CUDA_DRIVER"] = simulator
cpu = mixedprec.run(text, steps=3, seed=1, cpu_pipeline_options="vectorize=false")
gpu = mixedprec.run(text, steps=3, seed=1, device="cuda",
                    gpu_pipeline_options="chip=sm_80 binary-format=isa sequential-reductions=true")
# CHECK: devices: cpu cuda
print("devices:", cpu.trajectory["device"], gpu.trajectory["device"])
for i in range(3):
    same = cpu.losses[i] == gpu.losses[i] and cpu.loss_scales[i] == gpu.loss_scales[i] \
        and cpu.skipped[i] == gpu.skipped[i]
    print("step %d loss %r scale %r skipped %s: %s" % (
        i + 1, gpu.losses[i], gpu.loss_scales[i], gpu.skipped[i], "equal" if same else
        "FAIL cpu %r %r" % (cpu.losses[i], cpu.loss_scales[i])))
# CHECK: step 1 loss {{.*}} scale 65536.0 skipped False: equal
# CHECK: step 2 loss {{.*}} scale 131072.0 skipped False: equal
# CHECK: step 3 loss {{.*}} scale 262144.0 skipped False: equal
differ = [i for i, (a, b) in enumerate(zip(cpu.params, gpu.params))
          if a.tobytes() != b.tobytes()]
# CHECK: final parameters: 4 equal
print("final parameters:", "%d equal" % len(gpu.params) if not differ else "FAIL %s" % differ)
# CHECK-NOT: FAIL
sys.stdout.flush()
# CHECK: mp-cuda-sim: {{[0-9]+}} launches, {{[0-9]+}} cuStreamSynchronize, 3 cuEventSynchronize, 6 cuEventRecord; copies: 17 pageable host to device, 6 pinned host to device, 17 device to pageable host, 3 device to pinned host, {{[0-9]+}} device to device; 4 cuMemHostAlloc
