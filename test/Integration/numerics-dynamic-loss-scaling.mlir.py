# Inputs and checks of numerics-dynamic-loss-scaling.mlir.
#   inputs DIR: 16 batches of 4 samples in file order: x (arg4), targets
#               (arg5) and the multiplier k (arg6), 1e30 on injected steps
#   check DIR:  replays GradScaler on DIR/run.json
import json
import os
import sys

import numpy as np

STEPS, BATCH, INJECTED = 16, 4, {4, 5, 11}
INIT_SCALE, GROWTH, BACKOFF, INTERVAL = 1024.0, 2.0, 0.5, 3

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
    # torch._amp_update_scale_
    if skipped:
        scale, tracker = scale * BACKOFF, 0
    else:
        tracker += 1
        if tracker == INTERVAL:
            scale, tracker = scale * GROWTH, 0
ok &= run["final_loss_scale"] == scale and len(run["steps"]) == STEPS
print("final scale %g (reference %g)" % (run["final_loss_scale"], scale))
print("TRAJECTORY %s" % ("MATCHES GRADSCALER" if ok else "DIFFERS"))
