#!/usr/bin/env python3
"""longpoll.py -- parked events long-polls across handler hosts, for the cluster test (issue 18).

  longpoll.py run URL DIR --token T --pouch P --epoch E --member M [--pollers N] [--wait W]
      N pollers long-poll GET /v1/pouches/P/events?epoch=E&after=HW&wait=W in a loop, each
      request on a new connection (nginx spreads them over the handler hosts) with a client
      timeout of W + 15 s, so a hang shows up as a timeout rather than never; and a waker
      commits one new artifact to P every 2 s as the web user, so parked polls are woken through
      Redis on whichever host parked them. Until DIR/stop exists. Every poll goes to
      DIR/polls.jsonl {t0, t1, status, code, seqs}, every wake commit to DIR/wakes.jsonl
      {t0, t1, status, seq}; DIR/ready appears once the pollers run.
  longpoll.py report DIR --wait W
      Prints one JSON report: polls and their statuses, the slowest poll, the polls that took
      longer than W + 1.5 s (nginx may pass a just-parked poll to the next host within its
      first second), unanswered polls (client timeout), and for each applied wake commit the
      seconds from its answer to the first poll that returned its seq (max, median), and the
      wakes no poll ever returned.

Standard library only.
"""
import argparse
import http.client
import json
import os
import statistics
import sys
import threading
import time
import urllib.parse
import uuid


def call(url, method, path, token, body=None, timeout=30):
    u = urllib.parse.urlsplit(url)
    h = {"Authorization": "Bearer " + token, "Connection": "close"}
    data = None
    if body is not None:
        data = json.dumps(body, separators=(",", ":")).encode()
        h["Content-Type"] = "application/json"
    conn = http.client.HTTPConnection(u.hostname, u.port or 80, timeout=timeout)
    try:
        conn.request(method, path, body=data, headers=h)
        r = conn.getresponse()
        payload = r.read()
        status = r.status
    except (OSError, http.client.HTTPException) as e:
        return 0, {"exception": type(e).__name__}
    finally:
        conn.close()
    try:
        return status, json.loads(payload)
    except ValueError:
        return status, None


def code_of(doc):
    if isinstance(doc, dict):
        return (doc.get("error") or {}).get("code") or doc.get("exception")
    return None


def cmd_run(a):
    stop = os.path.join(a.dir, "stop")
    lock = threading.Lock()
    polls = open(os.path.join(a.dir, "polls.jsonl"), "w")
    wakes = open(os.path.join(a.dir, "wakes.jsonl"), "w")
    base = "/v1/pouches/%s" % a.pouch

    def write(f, rec):
        with lock:
            f.write(json.dumps(rec) + "\n")
            f.flush()

    def poller():
        hw = 0
        while not os.path.exists(stop):
            t0 = time.time()
            st, doc = call(a.url, "GET", "%s/events?epoch=%s&after=%d&wait=%d"
                           % (base, a.epoch, hw, a.wait), a.token, timeout=a.wait + 15)
            seqs = []
            if st == 200 and doc and doc.get("ok"):
                seqs = [it["seq"] for it in doc["data"]["items"]]
                hw = max([hw, doc["data"]["high_water"]] + seqs)
            write(polls, {"t0": round(t0, 3), "t1": round(time.time(), 3), "status": st,
                          "code": None if st == 200 else code_of(doc), "seqs": seqs})
            if st != 200:
                time.sleep(0.2)

    def waker():
        while not os.path.exists(stop):
            time.sleep(2)
            rev = str(uuid.uuid4())
            body = {"operation_id": str(uuid.uuid4()), "epoch": a.epoch, "ops": [{
                "type": "put", "artifact_id": str(uuid.uuid4()), "revision_id": rev,
                "base_revision_id": None, "key_gen": 1, "envelope": "wake-" + rev,
                "signature": "c2ln", "signer_member_id": a.member, "blob_ids": []}]}
            t0 = time.time()
            st, doc = call(a.url, "POST", base + "/operations", a.token, body, timeout=15)
            seq = None
            if st == 200 and doc and doc.get("ok"):
                res = doc["data"]["results"][0]
                seq = res.get("seq") if res.get("status") == "applied" else None
            write(wakes, {"t0": round(t0, 3), "t1": round(time.time(), 3), "status": st,
                          "seq": seq})

    threads = [threading.Thread(target=poller) for _ in range(a.pollers)]
    threads.append(threading.Thread(target=waker))
    for t in threads:
        t.start()
    open(os.path.join(a.dir, "ready"), "w").close()
    for t in threads:
        t.join()
    polls.close()
    wakes.close()


def cmd_report(a):
    polls = [json.loads(x) for x in open(os.path.join(a.dir, "polls.jsonl"))]
    wakes = [json.loads(x) for x in open(os.path.join(a.dir, "wakes.jsonl"))]
    statuses = {}
    for p in polls:
        k = "200" if p["status"] == 200 else "%s:%s" % (p["status"], p["code"])
        statuses[k] = statuses.get(k, 0) + 1
    secs = [p["t1"] - p["t0"] for p in polls]
    over = [p for p in polls if p["t1"] - p["t0"] > a.wait + 1.5]
    first_seen = {}
    for p in sorted(polls, key=lambda p: p["t1"]):
        for s in p["seqs"]:
            first_seen.setdefault(s, p["t1"])
    delays, unseen = [], []
    for w in wakes:
        if w["seq"] is None:
            continue
        if w["seq"] in first_seen:
            delays.append(max(0.0, first_seen[w["seq"]] - w["t1"]))
        else:
            unseen.append(w["seq"])
    report = {
        "polls": len(polls), "statuses": statuses,
        "slowest_s": round(max(secs), 3) if secs else 0,
        "over_wait": len(over), "over_wait_examples": over[:3],
        "unanswered": sum(1 for p in polls if p["status"] == 0),
        "wakes": len(wakes), "wakes_applied": len(delays) + len(unseen),
        "wake_delay_max_s": round(max(delays), 3) if delays else None,
        "wake_delay_median_s": round(statistics.median(delays), 3) if delays else None,
        "wakes_never_seen": unseen,
    }
    print(json.dumps(report))
    return 0


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("url")
    r.add_argument("dir")
    r.add_argument("--token", required=True)
    r.add_argument("--pouch", required=True)
    r.add_argument("--epoch", required=True)
    r.add_argument("--member", required=True)
    r.add_argument("--pollers", type=int, default=6)
    r.add_argument("--wait", type=int, default=8)
    s = sub.add_parser("report")
    s.add_argument("dir")
    s.add_argument("--wait", type=int, default=8)
    a = ap.parse_args()
    return cmd_run(a) if a.cmd == "run" else cmd_report(a)


if __name__ == "__main__":
    sys.exit(main() or 0)
