# Writes the corrupt and truncated data sets of mp-run-errors.mlir under DIR
# (standard library only):
#   npy-truncated/arg0.npy     header says (2,) f4, 4 data bytes
#   npy-header/arg0.npy        magic and header length, header cut short
#   npy-huge/arg0.npy          a shape whose byte count overflows 64 bits
#   idx-truncated/             raw IDX images whose data is cut short
#   idx-type/                  IDX images of type 0x0D (float), not bytes
#   idx-size/                  29x28 images
#   idx-huge/                  dimensions 0xFFFFFFFF (overflowing sizes)
#   idx-gz-truncated/          a valid gzip stream cut in half
#   idx-labels/                3 images, 2 labels
#   idx-label-range/           a label 10
#   idx-no-labels/             images only
import gzip
import os
import struct
import sys

root = sys.argv[1]


def npy(directory, header, data):
    os.makedirs(os.path.join(root, directory), exist_ok=True)
    header = header.ljust(117).encode() + b"\n"
    with open(os.path.join(root, directory, "arg0.npy"), "wb") as out:
        out.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) +
                  header + data)


def idx(directory, name, type_byte, dims, data, compress=False, cut=None):
    os.makedirs(os.path.join(root, directory), exist_ok=True)
    payload = (bytes([0, 0, type_byte, len(dims)]) +
               b"".join(struct.pack(">I", d) for d in dims) + data)
    if compress:
        payload = gzip.compress(payload)
        name += ".gz"
    if cut is not None:
        payload = payload[:cut(len(payload))]
    with open(os.path.join(root, directory, name), "wb") as out:
        out.write(payload)


def images(directory, count=2, rows=28, cols=28, **kwargs):
    idx(directory, "train-images-idx3-ubyte", kwargs.pop("type_byte", 8),
        [count, rows, cols], kwargs.pop("data", bytes(count * rows * cols)),
        **kwargs)


def labels(directory, values):
    idx(directory, "train-labels-idx1-ubyte", 8, [len(values)], bytes(values))


npy("npy-truncated", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
    bytes(4))
with open(os.path.join(root, "npy-header.npy"), "wb") as out:
    out.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", 118) + b"{'descr'")
os.makedirs(os.path.join(root, "npy-header"), exist_ok=True)
os.replace(os.path.join(root, "npy-header.npy"),
           os.path.join(root, "npy-header", "arg0.npy"))
npy("npy-huge", "{'descr': '<f4', 'fortran_order': False, "
    "'shape': (4294967296, 4294967296, 2), }", bytes(8))

images("idx-truncated", data=bytes(10))
labels("idx-truncated", [1, 2])
images("idx-type", type_byte=0x0D)
labels("idx-type", [1, 2])
images("idx-size", rows=29)
labels("idx-size", [1, 2])
idx("idx-huge", "train-images-idx3-ubyte", 8, [0xFFFFFFFF] * 3, bytes(16))
labels("idx-huge", [1, 2])
images("idx-gz-truncated", compress=True, cut=lambda n: n // 2)
labels("idx-gz-truncated", [1, 2])
images("idx-labels", count=3)
labels("idx-labels", [1, 2])
images("idx-label-range")
labels("idx-label-range", [1, 10])
images("idx-no-labels")
