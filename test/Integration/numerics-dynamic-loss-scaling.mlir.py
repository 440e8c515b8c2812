# Inputs and checks of numerics-dynamic-loss-scaling.mlir.
#   inputs DIR: 16 batches of 4 samples in file order: x (arg4), targets
#               (arg5) and the multiplier k (arg6), 1e30 on injected steps
#   check DIR:  replays GradScaler on DIR/run.json
#   faults-inputs DIR: the data of @two_layers (x arg7, targets arg8, the
#               gradient probes p1 arg9 and p2 arg10) with faults injected
#   faults-check DIR JSON PARAMS: checks the run of @two_layers (see the .mlir)
import json
import os
import sys

import numpy as np

STEPS, BATCH, INJECTED = 16, 4, {4, 5, 11}
INIT_SCALE, GROWTH, BACKOFF, INTERVAL = 1024.0, 2.0, 0.5, 3

# @two_layers: step -> (file argument, row in the batch, column, value).
FAULTS = {2: (8, 3, 5, np.nan), 5: (10, 3, 5, np.nan), 6: (9, 0, 7, np.inf),
          9: (10, 6, 1, -np.inf), 12: (7, 4, 2, 1e6)}
FAULT_BATCH = 8


def update_scale(scale, tracker, skipped):
    """GradScaler's torch._amp_update_scale_: (new scale, new tracker)."""
    if skipped:
        return scale * BACKOFF, 0
    tracker += 1
    if tracker == INTERVAL:
        return scale * GROWTH, 0
    return scale, tracker

if sys.argv[1] == "faults-inputs":
    rng = np.random.default_rng(2)
    rows = STEPS * FAULT_BATCH
    data = {7: rng.uniform(-1, 1, (rows, 16)).astype(np.float32),
            8: rng.uniform(-0.5, 0.5, (rows, 8)).astype(np.float32),
            9: np.zeros((rows, 16), np.float32),
            10: np.zeros((rows, 8), np.float32)}
    for step, (arg, row, column, value) in FAULTS.items():
        data[arg][(step - 1) * FAULT_BATCH + row, column] = value
    for index, array in data.items():
        np.save(os.path.join(sys.argv[2], "arg%d.npy" % index), array)
    sys.exit(0)

if sys.argv[1] == "faults-check":
    run = json.load(open(os.path.join(sys.argv[2], sys.argv[3])))
    scale, tracker, ok = INIT_SCALE, 0, len(run["steps"]) == STEPS
    for record in run["steps"]:
        step = record["step"]
        skipped = step in FAULTS
        match = (record["loss_scale"] == scale and record["skipped"] == skipped
                 and record["unchanged"] == skipped
                 and (skipped or np.isfinite(record["loss"])))
        ok &= match
        print("step %2d skipped %s (reference %s) unchanged %s scale %g "
              "(reference %g) loss %g%s" % (
                  step, record["skipped"], skipped, record["unchanged"],
                  record["loss_scale"], scale, record["loss"],
                  "" if match else "  MISMATCH"))
        scale, tracker = update_scale(scale, tracker, skipped)
    for index in (0, 1):
        params = np.load(os.path.join(sys.argv[2], sys.argv[4],
                                      "arg%d.npy" % index))
        finite = bool(np.isfinite(params).all())
        print("saved parameter %d finite: %s" % (index, finite))
        ok &= finite
    print("FAULTS SKIPPED, STATE KEPT, TRAINING CONTINUED" if ok
          else "FAULT HANDLING DIFFERS")
    sys.exit(0)

if sys.argv[1] == "inputs":
    rng = np.random.default_rng(1)
    x = rng.uniform(-1, 1, (STEPS * BATCH, 16)).astype(np.float32)
    target = rng.uniform(-0.5, 0.5, (STEPS * BATCH, 8)).astype(np.float32)
    k = np.ones((STEPS * BATCH, 8), np.float32)
    for step in INJECTED:
        k[(step - 1) * BATCH:step * BATCH] = 1e30
    for index, array in [(4, x), (5, target), (6, k)]:
        np.save(os.path.join(sys.argv[2], "arg%d.npy" % index), array)
    sys.exit(0)

run = json.load(open(os.path.join(sys.argv[2], "run.json")))
scale, tracker, ok = INIT_SCALE, 0, True
for record in run["steps"]:
    step = record["step"]
    skipped = step in INJECTED
    match = (record["loss_scale"] == scale and record["skipped"] == skipped
             and record["unchanged"] == skipped)
    ok &= match
    print("step %2d scale %g (reference %g) skipped %s (reference %s) "
          "unchanged %s%s" % (step, record["loss_scale"], scale,
                              record["skipped"], skipped, record["unchanged"],
                              "" if match else "  MISMATCH"))
    scale, tracker = update_scale(scale, tracker, skipped)
ok &= run["final_loss_scale"] == scale and len(run["steps"]) == STEPS
print("final scale %g (reference %g)" % (run["final_loss_scale"], scale))
print("TRAJECTORY %s" % ("MATCHES GRADSCALER" if ok else "DIFFERS"))
