#!/usr/bin/env python3
"""genfolder.py -- the deterministic test data of make bench's clients section (issue 25).

  genfolder.py folder DIR [--seed N]   1 GiB (2**30 bytes) in 10,000 files: 9,900 of 1-64 KiB
                                       and 100 of 1-40 MiB, in a few nested directories
  genfolder.py file PATH SIZE [--seed N]   one file of SIZE bytes

The same seed gives the same names and the same bytes (Python's Mersenne Twister,
random.Random(seed).randbytes), on any machine with Python 3.9 or later. The bytes are
incompressible, so no client saves anything by compressing them. DIR must not exist yet.
"""
import argparse
import os
import random
import sys

KIB = 1024
MIB = 1024 * KIB
TOTAL = 1 << 30
SMALL, LARGE = 9900, 100


def plan(seed):
    """[(relative path, size)] of the folder: sizes first, all from one generator."""
    rng = random.Random(seed)
    small = [rng.randint(1 * KIB, 64 * KIB) for _ in range(SMALL)]
    # The large files fill the rest of the GiB: one of 1 MiB, one of 40 MiB, 97 spread by a
    # squared uniform weight (many small, a few large) over 1-40 MiB, and the last one the
    # exact remainder (within 1-40 MiB for any seed: the rest is about 7 MiB a file).
    rest = TOTAL - sum(small) - 1 * MIB - 40 * MIB
    weights = [rng.random() ** 2 for _ in range(LARGE - 3)]
    spread = rest - (LARGE - 2) * MIB
    large = [1 * MIB, 40 * MIB]
    large += [1 * MIB + int(spread * w / sum(weights) * 0.98) for w in weights]
    large.append(TOTAL - sum(small) - sum(large))
    assert all(1 * MIB <= s <= 40 * MIB for s in large), large
    files = []
    for i, size in enumerate(small):
        files.append((f"docs/d{i % 10}/s{(i // 10) % 5}/f{i:04d}.dat", size))
    for i, size in enumerate(large):
        sub = "media" if i % 2 else "media/raw/2024"
        files.append((f"{sub}/big{i:03d}.bin", size))
    assert len(files) == SMALL + LARGE and sum(s for _, s in files) == TOTAL
    return files


def write(path, size, rng):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as f:
        left = size
        while left:
            n = min(left, 8 * MIB)
            f.write(rng.randbytes(n))
            left -= n


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    fo = sub.add_parser("folder")
    fo.add_argument("dir")
    fo.add_argument("--seed", type=int, default=25)
    fi = sub.add_parser("file")
    fi.add_argument("path")
    fi.add_argument("size", type=int)
    fi.add_argument("--seed", type=int, default=256)
    a = ap.parse_args()
    if a.cmd == "file":
        write(a.path, a.size, random.Random(a.seed))
        return 0
    if os.path.exists(a.dir):
        sys.exit(f"genfolder.py: {a.dir} exists")
    files = plan(a.seed)
    # The contents from a second generator, so the names and sizes do not depend on them.
    rng = random.Random(a.seed * 1000003 + 1)
    for rel, size in files:
        write(os.path.join(a.dir, rel), size, rng)
    return 0


if __name__ == "__main__":
    sys.exit(main())
