#!/usr/bin/env python3
"""cpu_categories.py -- where a CLI run's CPU goes, by category (issue 25, row 4).

  perf record -F 999 --call-graph dwarf,16384 -o perf.data pouch push DIR
  perf script -i perf.data -F comm,tid,time,ip,sym,dso | tools/bench/cpu_categories.py [SECONDS]

Every sample goes to one category by its stack, leaf first: a kernel sample by the fault or
the system call it serves (a page fault, a write to a file, a socket send, a read of a file,
an open), a user sample by its function (BLAKE3, OpenSSL under aes_gcm_seal, the ES256
signer, cdc_cut, b64url, memcpy, malloc, the JSON code, libcurl). Prints each category's
share of the samples and, given SECONDS (the run's user+sys CPU from GNU time), its seconds.
docs/PERFORMANCE.md ("CPU per GiB") has a push's table made with it.
"""
import collections
import re
import sys

CATEGORIES = [
    "BLAKE3", "AES-GCM", "chunker (cdc_cut)", "base64", "JSON", "ES256 signatures",
    "SHA-256/HKDF/HMAC/random", "kernel: read of files", "kernel: open/stat/readdir",
    "kernel: socket send", "kernel: socket recv", "journal + state files (write, rename, sync)",
    "page faults (kernel)", "memcpy/memset (user)", "malloc/free", "libcurl",
    "kernel: poll/scheduler", "other",
]


def samples(lines):
    """The stacks of `perf script` output, each a list of (symbol, dso), leaf first."""
    cur = None
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            if cur:
                yield cur
            cur = None
        elif not line.startswith((" ", "\t")):
            cur = []
        else:
            m = re.match(r"\s+[0-9a-f]+\s+(.*?)\s+\((.*)\)$", line)
            if m and cur is not None:
                cur.append((m.group(1), m.group(2)))
    if cur:
        yield cur


# A kernel sample's category: the first of these whose pattern matches a frame of its stack.
KERNEL = [
    (r"exc_page_fault", "page faults (kernel)"),
    (r"fdatasync|fsync|ext4_|generic_perform_write|do_renameat|do_truncate|unlink",
     "journal + state files (write, rename, sync)"),
    (r"tcp_sendmsg|__sys_sendto|sock_sendmsg", "kernel: socket send"),
    (r"tcp_recvmsg|__sys_recvfrom|sock_recvmsg", "kernel: socket recv"),
    (r"filemap_read|ksys_read|vfs_read", "kernel: read of files"),
    (r"openat|statx|newfstat|getdents|do_sys_open|link_path_walk|__x64_sys_close",
     "kernel: open/stat/readdir"),
    (r"poll|epoll|schedule|futex|nanosleep", "kernel: poll/scheduler"),
]


def category(st):
    def has(pat, frames=st):
        return any(re.search(pat, s) for s, _ in frames)

    leaf, dso = st[0]
    if "kernel" in dso:
        for pat, name in KERNEL:
            if has(pat):
                return name
        return "other"
    top = st[:1]
    if has(r"blake3", top):
        return "BLAKE3"
    if "libcrypto" in dso:
        if has(r"aes_gcm_seal|aes_gcm_open"):
            return "AES-GCM"
        if has(r"sign_es256|ecdsa|ECDSA"):
            return "ES256 signatures"
        return "SHA-256/HKDF/HMAC/random"
    if has(r"sign_es256") and has(r"BN_|EC_|ec_|bn_", top):
        return "ES256 signatures"
    if has(r"cdc_cut", top):
        return "chunker (cdc_cut)"
    if has(r"b64url", top):
        return "base64"
    if has(r"memmove|memcpy|memset", top):
        return "memcpy/memset (user)"
    if has(r"malloc|free|_int_|unlink_chunk|consolidate|tcache", top):
        return "malloc/free"
    if has(r"json|rapidjson|jcs|utf8_valid|quote", top):
        return "JSON"
    if "libcurl" in dso or has(r"curl", st[:3]):
        return "libcurl"
    if has(r"json::|rapidjson|jcs"):
        return "JSON"
    return "other"


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else None
    count = collections.Counter(category(st) for st in samples(sys.stdin) if st)
    total = sum(count.values()) or 1
    print(f"{total} samples")
    for name in CATEGORIES:
        share = count[name] / total
        extra = f"  {share * seconds:6.2f} s" if seconds is not None else ""
        print(f"{share * 100:6.1f} %{extra}  {name}")


if __name__ == "__main__":
    main()
