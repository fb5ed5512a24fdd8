#!/usr/bin/env python3
"""load.py -- steady commit load with known operation_ids for the fault tests (make test-faults).

  load.py run URL DIR [--workers N] [--pouches N] [--timeout S]
      Signs up N web users (genesis each: one pouch per user), then W threads commit one new
      artifact per request (fresh operation_id, artifact and revision ids), choosing a pouch
      at random, over a fresh connection each (Connection: close), until DIR/stop exists.
      Every request is appended to DIR/requests.jsonl (op, w0/w1: wall clock at send and
      answer, secs, status, what: "applied" or "STATUS:CODE"); DIR/state.json holds the pouches and
      every op's body; DIR/ready appears once the load runs.
  load.py settle URL DIR DATABASE_URL
      Retries every op whose request got no `applied` answer with the same body (same
      operation_id) until it is applied, then checks the database: each op's revision is
      stored exactly once with the seq its answers gave, each pouch's events are 1..high_water
      without gaps and hold exactly one revision per op. Prints one JSON report on stdout
      (counts, statuses, latencies, problems) and exits 1 if there is any problem.

Standard library only; psql does the database checks.
"""
import argparse
import collections
import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid


def b64(n):
    import base64
    return base64.urlsafe_b64encode(os.urandom(n)).rstrip(b"=").decode()


class Client:
    def __init__(self, url, timeout):
        u = urllib.parse.urlsplit(url)
        self.host, self.port, self.timeout = u.hostname, u.port or 80, timeout

    def call(self, method, path, body=None, token=None):
        """(status, parsed JSON or None, seconds); status 0 when no HTTP answer came."""
        headers = {"Connection": "close"}
        data = None
        if body is not None:
            data = json.dumps(body, separators=(",", ":")).encode()
            headers["Content-Type"] = "application/json"
        if token:
            headers["Authorization"] = "Bearer " + token
        t0 = time.monotonic()
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            conn.request(method, path, body=data, headers=headers)
            r = conn.getresponse()
            raw = r.read()
            status = r.status
        except (OSError, http.client.HTTPException) as e:
            return 0, {"exception": type(e).__name__ + ": " + str(e)[:120]}, time.monotonic() - t0
        finally:
            conn.close()
        try:
            doc = json.loads(raw)
        except ValueError:
            doc = None
        return status, doc, time.monotonic() - t0


def setup_user(cl):
    email = "faults.%s@example.com" % uuid.uuid4()
    st, doc, _ = cl.call("POST", "/v1/account/signup",
                         {"email": email, "password": "correct horse battery"})
    if st != 201:
        raise SystemExit("load.py: signup answered %s: %s" % (st, doc))
    token = doc["data"]["session_token"]
    pouch, member = str(uuid.uuid4()), str(uuid.uuid4())
    sig = b64(64)
    body = {"statements": [{"statement": b64(64), "signature": sig}],
            "key_envelopes": [{"pouch_id": pouch, "member_id": member, "key_gen": 1,
                               "hpke_enc": b64(65), "ciphertext": b64(48),
                               "created_by_member": member, "signature": sig}]}
    st, doc, _ = cl.call("POST", "/v1/account/roster/genesis", body, token)
    if st != 201:
        raise SystemExit("load.py: genesis answered %s: %s" % (st, doc))
    st, doc, _ = cl.call("GET", "/v1/pouches/" + pouch, None, token)
    if st != 200:
        raise SystemExit("load.py: pouch read answered %s: %s" % (st, doc))
    return {"token": token, "pouch": pouch, "member": member, "epoch": doc["data"]["epoch"]}


def commit_body(p):
    rev = str(uuid.uuid4())
    return {"operation_id": str(uuid.uuid4()), "epoch": p["epoch"],
            "ops": [{"type": "put", "artifact_id": str(uuid.uuid4()), "revision_id": rev,
                     "base_revision_id": None, "key_gen": 1, "envelope": "env-" + rev,
                     "signature": "sig", "signer_member_id": p["member"], "blob_ids": []}]}


def outcome(status, doc):
    """('applied', seq) or (short description, None)."""
    if status == 200 and doc and doc.get("ok"):
        res = doc["data"]["results"][0]
        if res.get("status") == "applied":
            return "applied", res["seq"]
        return "%s:%s" % (res.get("status"), res.get("code")), None
    code = None
    if isinstance(doc, dict):
        code = (doc.get("error") or {}).get("code") or doc.get("exception")
    return "%s:%s" % (status, code), None


def cmd_run(a):
    cl = Client(a.url, a.timeout)
    pouches = [setup_user(cl) for _ in range(a.pouches)]
    ops = {}             # operation_id -> {"pouch": index, "body": ...}
    lock = threading.Lock()
    log = open(os.path.join(a.dir, "requests.jsonl"), "w")
    stop = os.path.join(a.dir, "stop")

    def worker(n):
        rnd = random.Random(n)
        while not os.path.exists(stop):
            i = rnd.randrange(len(pouches))
            p = pouches[i]
            body = commit_body(p)
            with lock:
                ops[body["operation_id"]] = {"pouch": i, "body": body}
            w0 = time.time()
            st, doc, secs = cl.call("POST", "/v1/pouches/%s/operations" % p["pouch"], body,
                                    p["token"])
            what, seq = outcome(st, doc)
            with lock:
                log.write(json.dumps({"op": body["operation_id"], "w0": round(w0, 3),
                                      "w1": round(time.time(), 3),
                                      "secs": round(secs, 3), "status": st, "what": what,
                                      "seq": seq}) + "\n")
                log.flush()
            if what != "applied":
                time.sleep(0.05)  # no busy loop against a failing backend

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(a.workers)]
    for t in threads:
        t.start()
    open(os.path.join(a.dir, "ready"), "w").close()
    for t in threads:
        t.join()
    log.close()
    with open(os.path.join(a.dir, "state.json"), "w") as f:
        json.dump({"pouches": pouches, "ops": ops}, f)


def psql(db, sql):
    out = subprocess.run(["psql", db, "-XtAq", "-F", "|", "-c", sql], check=True,
                         capture_output=True, text=True).stdout
    return [line.split("|") for line in out.splitlines() if line]


def cmd_settle(a):
    cl = Client(a.url, a.timeout)
    with open(os.path.join(a.dir, "state.json")) as f:
        state = json.load(f)
    pouches, ops = state["pouches"], state["ops"]
    reqs = [json.loads(line) for line in open(os.path.join(a.dir, "requests.jsonl"))]
    problems = []
    answered = collections.defaultdict(list)   # op -> seqs answered `applied`
    statuses = collections.Counter()
    for r in reqs:
        statuses[r["what"]] += 1
        if r["what"] == "applied":
            answered[r["op"]].append(r["seq"])
    unanswered = [o for o in ops if o not in answered]

    # Ops without an `applied` answer that were stored all the same (the fault came after the
    # commit, before the answer): their retries must answer the stored result.
    revs = {ops[o]["body"]["ops"][0]["revision_id"] for o in unanswered}
    stored_unanswered = 0
    if revs:
        stored_unanswered = int(psql(a.db, "SELECT count(*) FROM revisions WHERE id IN (%s)"
                                     % ",".join("'%s'" % r for r in revs))[0][0])

    # Retry each op without an `applied` answer, same body, until it is applied.
    retried = 0
    retry_statuses = collections.Counter()
    for o in unanswered:
        p = pouches[ops[o]["pouch"]]
        deadline = time.monotonic() + 30
        while True:
            st, doc, _ = cl.call("POST", "/v1/pouches/%s/operations" % p["pouch"],
                                 ops[o]["body"], p["token"])
            retried += 1
            what, seq = outcome(st, doc)
            retry_statuses[what] += 1
            if what == "applied":
                answered[o].append(seq)
                break
            if time.monotonic() > deadline:
                problems.append("op %s: retries did not apply it (last %s)" % (o, what))
                break
            time.sleep(0.2)

    # The database: one revision per op, with the seq every answer gave; gap-free events.
    stored = {}
    ids = ",".join("'%s'" % p["pouch"] for p in pouches)
    for rev, seq, pouch in psql(a.db, "SELECT id, seq, pouch_id FROM revisions "
                                      "WHERE pouch_id IN (%s)" % ids):
        if rev in stored:
            problems.append("revision %s stored twice" % rev)
        stored[rev] = (int(seq), pouch)
    lost = 0
    for o, info in ops.items():
        rev = info["body"]["ops"][0]["revision_id"]
        if rev not in stored:
            lost += 1
            problems.append("op %s (revision %s) not stored" % (o, rev))
            continue
        seqs = set(answered.get(o, []))
        if seqs and seqs != {stored[rev][0]}:
            problems.append("op %s answered seqs %s, stored seq %d" % (o, sorted(seqs),
                                                                         stored[rev][0]))
    per_pouch = collections.Counter(info["pouch"] for info in ops.values())
    for i, p in enumerate(pouches):
        row = psql(a.db, "SELECT p.high_water, count(e.seq), count(DISTINCT e.seq), "
                         "coalesce(min(e.seq), 0), coalesce(max(e.seq), 0) FROM pouches p "
                         "LEFT JOIN events e ON e.pouch_id = p.id WHERE p.id = '%s' "
                         "GROUP BY p.high_water" % p["pouch"])[0]
        hw, n, distinct, lo, hi = (int(x) for x in row)
        if not (n == distinct == hw == hi and (hw == 0 or lo == 1)):
            problems.append("pouch %s: high_water %d, events %d (%d distinct, %d..%d)"
                            % (p["pouch"], hw, n, distinct, lo, hi))
        revs = sum(1 for s in stored.values() if s[1] == p["pouch"])
        if revs != per_pouch[i] or revs != hw:
            problems.append("pouch %s: %d revisions stored for %d ops, high_water %d"
                            % (p["pouch"], revs, per_pouch[i], hw))

    secs = sorted(r["secs"] for r in reqs)
    report = {
        "requests": len(reqs), "ops": len(ops), "applied_first_try": len(ops) - len(unanswered),
        "unanswered": len(unanswered), "unanswered_but_stored": stored_unanswered,
        "retries": retried, "lost": lost,
        "statuses": dict(statuses), "retry_statuses": dict(retry_statuses),
        "max_secs": secs[-1] if secs else 0,
        "p99_secs": secs[int(len(secs) * 0.99)] if secs else 0,
        "problems": problems[:20], "problem_count": len(problems),
    }
    print(json.dumps(report))
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("url")
    r.add_argument("dir")
    r.add_argument("--workers", type=int, default=6)
    r.add_argument("--pouches", type=int, default=3)
    r.add_argument("--timeout", type=float, default=15)
    s = sub.add_parser("settle")
    s.add_argument("url")
    s.add_argument("dir")
    s.add_argument("db")
    s.add_argument("--timeout", type=float, default=15)
    a = ap.parse_args()
    return cmd_run(a) if a.cmd == "run" else cmd_settle(a)


if __name__ == "__main__":
    sys.exit(main() or 0)
