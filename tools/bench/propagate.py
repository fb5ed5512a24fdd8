#!/usr/bin/env python3
"""propagate.py -- the propagation row of make bench's clients section (issue 25).

  propagate.py A_FILE B_FILE --edits N --interval S --out DAT [--timeout S] [--poll-ms MS]
               [--tmp DIR]

Edits A_FILE N times, one edit every S seconds, and after each edit reads B_FILE every
POLL-MS milliseconds (default 5) until it holds the new content: the latency of that edit is
from just before the write on A to the first read on B that returned the new bytes. Each
edit is a whole new content (a first line "LABEL I TOKEN", TOKEN random, then 2 KiB of filler)
written to a temporary file in TMP (outside both watched folders, same file system) and
renamed over A_FILE, as an editor saves: no watcher ever sees a half-written file. An edit
not seen on B within TIMEOUT seconds (default 30) counts as lost; the next edit starts anyway,
unless 3 in a row were lost: then the rest count as lost too and it stops (a dead client).

Writes the latencies in ms, one a line in edit order, to DAT (lost ones left out) and prints
one JSON object: {"edits":N,"seen":n,"lost":n,"p50_ms":..,"p99_ms":..,"max_ms":..,"min_ms":..}.
p99 by nearest rank: of 50 edits, the 50th when sorted, i.e. the slowest.
"""
import argparse
import json
import math
import os
import secrets
import sys
import time


def rank(sorted_values, p):
    if not sorted_values:
        return None
    return sorted_values[max(0, math.ceil(p / 100 * len(sorted_values)) - 1)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--edits", type=int, default=50)
    ap.add_argument("--interval", type=float, default=2.0)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--poll-ms", type=float, default=5.0)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tmp", default=None)
    ap.add_argument("--label", default="edit")
    a = ap.parse_args()
    tmp = os.path.join(a.tmp or os.path.dirname(os.path.dirname(os.path.abspath(a.a))), ".propagate.tmp")
    filler = ("x" * 63 + "\n") * 32
    latencies = []
    lost = in_a_row = 0
    for i in range(a.edits):
        marker = f"{a.label} {i} {secrets.token_hex(8)}\n".encode()
        body = marker + filler.encode()
        t0 = time.monotonic()
        with open(tmp, "wb") as f:
            f.write(body)
        os.replace(tmp, a.a)
        seen = None
        while True:
            try:
                with open(a.b, "rb") as f:
                    if f.read(len(marker)) == marker:
                        seen = time.monotonic()
                        break
            except OSError:
                pass
            if time.monotonic() - t0 > a.timeout:
                break
            time.sleep(a.poll_ms / 1000)
        if seen is None:
            lost += 1
            in_a_row += 1
            print(f"propagate: edit {i} not seen on B within {a.timeout} s", file=sys.stderr)
            if in_a_row == 3:
                lost += a.edits - i - 1
                print("propagate: 3 edits in a row lost, giving up", file=sys.stderr)
                break
        else:
            in_a_row = 0
            latencies.append((seen - t0) * 1000)
        wait = t0 + a.interval - time.monotonic()
        if wait > 0 and i + 1 < a.edits:
            time.sleep(wait)
    with open(a.out, "w") as f:
        for ms in latencies:
            f.write(f"{ms:.1f}\n")
    s = sorted(latencies)
    r = lambda v: None if v is None else round(v, 1)
    print(json.dumps({"edits": a.edits, "seen": len(s), "lost": lost, "p50_ms": r(rank(s, 50)),
                      "p99_ms": r(rank(s, 99)), "max_ms": r(s[-1] if s else None),
                      "min_ms": r(s[0] if s else None)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
