"""An independent reference of the mp dialect's random bit stream
(docs/Random.md): Philox4x32-10 as in Random123 (Salmon et al., SC'11) and
cuRAND, written from the paper's definition with Python integers, and the
stream's mapping of a state [seed, offset] and an element index to draws,
uniform floats, dropout masks and Box-Muller normals (NumPy, f32).

Run directly, it checks the known-answer vectors of Random123's
kat_vectors file and prints one line per vector.
"""

import numpy as np

M0, M1 = 0xD2511F53, 0xCD9E8D57
W0, W1 = 0x9E3779B9, 0xBB67AE85
MASK = 0xFFFFFFFF


def philox4x32(counter, key, rounds=10):
    """The four 32-bit output words of Philox4x32-`rounds` for the counter
    words (c0, c1, c2, c3) and the key words (k0, k1)."""
    c0, c1, c2, c3 = counter
    k0, k1 = key
    for r in range(rounds):
        if r > 0:
            k0, k1 = (k0 + W0) & MASK, (k1 + W1) & MASK
        p0 = M0 * c0
        p1 = M1 * c2
        c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0, p1 & MASK,
                          (p0 >> 32) ^ c3 ^ k1, p0 & MASK)
    return c0, c1, c2, c3


def draw(seed, d):
    """The 32-bit draw number `d` (mod 2^64) of the stream of `seed`."""
    seed &= (1 << 64) - 1
    d &= (1 << 64) - 1
    n = d >> 2
    words = philox4x32((n & MASK, n >> 32, 0, 0), (seed & MASK, seed >> 32))
    return words[d & 3]


def draws(seed, offset, count):
    """Draws offset, offset + 1, ..., as a uint32 array."""
    return np.array([draw(seed, offset + i) for i in range(count)],
                    dtype=np.uint32)


def advanced(offset, count):
    """The offset after an op with `count` elements: + 4·ceil(count/4)."""
    return (offset + (count + 3) // 4 * 4) & ((1 << 64) - 1)


def unit(bits, bias=0):
    """(bits >> 8 [+ bias]) · 2^-24 as f32 (exact)."""
    return ((np.asarray(bits, dtype=np.uint32) >> 8).astype(np.float64)
            + bias).astype(np.float32) * np.float32(2.0 ** -24)


def dropout_keep(seed, offset, count, p):
    """The keep mask of mp.dropout: u < f32(1 - p)."""
    return unit(draws(seed, offset, count)) < np.float32(1.0 - p)


def uniform(seed, offset, count, low, high):
    """mp.random_uniform in f32: f32(low) + (f32(high) - f32(low)) · u."""
    lo, hi = np.float32(low), np.float32(high)
    return lo + (hi - lo) * unit(draws(seed, offset, count))


def normal(seed, offset, count, mean, std):
    """mp.random_normal in f32 (NumPy's f32 log/sqrt/cos/sin)."""
    pairs = (count + 1) // 2
    bits = draws(seed, offset, 2 * pairs)
    u1 = unit(bits[0::2], bias=1)
    u2 = unit(bits[1::2])
    r = np.sqrt(np.float32(-2.0) * np.log(u1))
    theta = np.float32(2.0 * np.pi) * u2
    z = np.empty(2 * pairs, dtype=np.float32)
    z[0::2] = r * np.cos(theta)
    z[1::2] = r * np.sin(theta)
    return np.float32(mean) + np.float32(std) * z[:count]


# Random123 kat_vectors, philox4x32 10: (counter, key, output).
KNOWN_ANSWERS = [
    ((0, 0, 0, 0), (0, 0),
     (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8)),
    ((MASK, MASK, MASK, MASK), (MASK, MASK),
     (0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd)),
    ((0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344),
     (0xa4093822, 0x299f31d0),
     (0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1)),
]


def main():
    failures = 0
    for counter, key, expected in KNOWN_ANSWERS:
        got = philox4x32(counter, key)
        ok = tuple(got) == expected
        failures += not ok
        print('philox4x32-10 ctr=%s key=%s -> %s %s' % (
            ' '.join('%08x' % w for w in counter),
            ' '.join('%08x' % w for w in key),
            ' '.join('%08x' % w for w in got), 'ok' if ok else 'MISMATCH'))
    return 1 if failures else 0


if __name__ == '__main__':
    raise SystemExit(main())
