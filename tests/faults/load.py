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

Standard library only (and loadlib.py beside it); psql does the database checks.
"""
import argparse
import collections
import json
import os
import random
import sys
import time
import uuid

from loadlib import (Client, RequestLog, check_events, emit, error_what, psql, read_requests,
                     retry_until, run_workers, stop_requested, stored_revisions,
                     web_user_with_pouch)


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
    return error_what(status, doc), None


def cmd_run(a):
    cl = Client(a.url, a.timeout)
    pouches = [web_user_with_pouch(cl, "faults") for _ in range(a.pouches)]
    ops = {}             # operation_id -> {"pouch": index, "body": ...}
    log = RequestLog(a.dir)

    def worker(n):
        rnd = random.Random(n)
        while not stop_requested(a.dir):
            i = rnd.randrange(len(pouches))
            p = pouches[i]
            body = commit_body(p)
            ops[body["operation_id"]] = {"pouch": i, "body": body}
            w0 = time.time()
            st, doc, secs = cl.web("POST", "/v1/pouches/%s/operations" % p["pouch"], body,
                                   p["token"])
            what, seq = outcome(st, doc)
            log.write({"op": body["operation_id"], "w0": round(w0, 3),
                       "w1": round(time.time(), 3), "secs": round(secs, 3), "status": st,
                       "what": what, "seq": seq})
            if what != "applied":
                time.sleep(0.05)  # no busy loop against a failing backend

    run_workers(a.dir, a.workers, worker)
    log.close()
    with open(os.path.join(a.dir, "state.json"), "w") as f:
        json.dump({"pouches": pouches, "ops": ops}, f)


def cmd_settle(a):
    cl = Client(a.url, a.timeout)
    with open(os.path.join(a.dir, "state.json")) as f:
        state = json.load(f)
    pouches, ops = state["pouches"], state["ops"]
    reqs = read_requests(a.dir)
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
        last = [None]

        def attempt():
            st, doc, _ = cl.web("POST", "/v1/pouches/%s/operations" % p["pouch"],
                                ops[o]["body"], p["token"])
            what, seq = outcome(st, doc)
            retry_statuses[what] += 1
            last[0] = what
            if what == "applied":
                answered[o].append(seq)
                return True
            return False

        done, tries = retry_until(attempt)
        retried += tries
        if not done:
            problems.append("op %s: retries did not apply it (last %s)" % (o, last[0]))

    # The database: one revision per op, with the seq every answer gave; gap-free events.
    stored = stored_revisions(a.db, [p["pouch"] for p in pouches], problems)
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
        # The load's pouches never change epoch: every event is of the current one.
        hw, _ = check_events(a.db, p["pouch"], problems)
        revs = sum(1 for s in stored.values() if s[1] == p["pouch"])
        if revs != per_pouch[i] or revs != hw:
            problems.append("pouch %s: %d revisions stored for %d ops, high_water %d"
                            % (p["pouch"], revs, per_pouch[i], hw))

    secs = sorted(r["secs"] for r in reqs)
    return emit({
        "requests": len(reqs), "ops": len(ops), "applied_first_try": len(ops) - len(unanswered),
        "unanswered": len(unanswered), "unanswered_but_stored": stored_unanswered,
        "retries": retried, "lost": lost,
        "statuses": dict(statuses), "retry_statuses": dict(retry_statuses),
        "max_secs": secs[-1] if secs else 0,
        "p99_secs": secs[int(len(secs) * 0.99)] if secs else 0,
    }, problems)


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
