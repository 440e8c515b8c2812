"""Runs the ```python blocks of a Markdown file, in order, as one program (in
the current directory), so that a guide's examples are checked as written."""
import re
import sys

text = open(sys.argv[1], encoding="utf-8").read()
blocks = re.findall(r"^```python\n(.*?)^```", text, re.S | re.M)
if not blocks:
    sys.exit("no ```python blocks in " + sys.argv[1])
namespace = {"__name__": "__main__"}
for index, block in enumerate(blocks):
    print("== block %d" % index, flush=True)
    exec(compile(block, "%s (block %d)" % (sys.argv[1], index), "exec"), namespace)
print("== %d blocks ran" % len(blocks))
