"""Prints the accuracy table of mp-run --json outputs given as NAME=FILE.

Columns: test accuracy, final loss, skipped steps, final loss scale; then
whether the first run reaches 84% and all are within 0.5 points of each
other (--min-accuracy=A and --within=P change the two thresholds).
"""

import json
import sys

runs = []
min_accuracy, within = 84.0, 0.5
for argument in sys.argv[1:]:
    if argument.startswith("--min-accuracy="):
        min_accuracy = float(argument.split("=", 1)[1])
        continue
    if argument.startswith("--within="):
        within = float(argument.split("=", 1)[1])
        continue
    name, path = argument.split("=", 1)
    runs.append((name, json.load(open(path))))

print("%-10s  %8s  %10s  %7s  %s"
      % ("mode", "accuracy", "final loss", "skipped", "final S"))
accuracies = []
for name, run in runs:
    accuracy = 100.0 * run["eval"]["accuracy"]
    accuracies.append(accuracy)
    scale = run["final_loss_scale"]
    print("%-10s  %7.2f%%  %10.4f  %7d  %s"
          % (name, accuracy, run["final_loss"], run["skipped_steps"],
             "-" if scale is None else "%g" % scale))
print("%s reaches %g%%: %s"
      % (runs[0][0], min_accuracy, accuracies[0] >= min_accuracy))
print("all within %g points of each other: %s"
      % (within, max(accuracies) - min(accuracies) <= within))
