"""Writes each ```mlir fenced block of the given Markdown files to its own file."""
import argparse
import os
import re

parser = argparse.ArgumentParser()
parser.add_argument("files", nargs="+")
parser.add_argument("-o", dest="out", required=True)
args = parser.parse_args()
os.makedirs(args.out, exist_ok=True)
for old in os.listdir(args.out):
    os.remove(os.path.join(args.out, old))
index = 0
for path in args.files:
    text = open(path, encoding="utf-8").read()
    for block in re.findall(r"^```mlir\n(.*?)^```", text, re.S | re.M):
        name = "%s-%d.mlir" % (os.path.basename(path), index)
        with open(os.path.join(args.out, name), "w", encoding="utf-8") as f:
            f.write(block)
        index += 1
if index == 0:
    raise SystemExit("no ```mlir blocks found in " + ", ".join(args.files))
