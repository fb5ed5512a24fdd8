#!/usr/bin/env python3
"""cli_load.py -- a commit load on the CLI path for the crash scenarios (issue 13 part 10).

  cli_load.py run URL DIR POUCHCTL [--workers N] [--pouches N] [--timeout S] [--fresh-blobs]
      For each pouch: a web user with genesis, then a CLI device enrolled through the real
      login (keys, PKCE, a DPoP-proved start, approval, redeem) that uploads one blob. Then W
      threads commit as the devices (Authorization: DPoP, a fresh DPoP proof and a
      Service-Signature over the body for every request, made by `pouchctl dpop` and
      `pouchctl sign-body`) until DIR/stop exists. A commit holds 1 to 3 ops, each one of:
      a new artifact (a quarter of them referencing the blob), an update of the worker's own
      artifact at its head, a delete at its head, a restore of a deleted one, or an update on
      purpose at a base that is no longer the head (expected: conflict/stale_base). A worker
      builds only on answers it received: an artifact whose request got no answer is never
      touched again. With --fresh-blobs each op that names a blob uploads one of its own
      first (2-64 KiB; the restore drill). Every request goes to DIR/requests.jsonl;
      DIR/state.json holds the devices, every commit's body and expected results and the
      uploads; DIR/ready appears once it runs.
  cli_load.py settle URL DIR DATABASE_URL POUCHCTL
      Retries every commit that got no 200 answer with the same body (same operation_id,
      fresh proof and signature) until it answers, sends every commit once more, then
      checks: each answer holds one result per op and every op's result is the expected one;
      every answer of a commit (first, retries, the replay) holds the same results
      (exactly-once); every op answered `applied` is stored exactly once with that seq, every
      stale op is not stored; each pouch's events are 1..high_water without gaps and its
      revision events are its revisions. Prints one JSON report and exits 1 on any problem.

  cli_load.py restored URL DIR DATABASE_URL POUCHCTL --mark T --backup-end T --blob-dir D
      After a restore (tests/faults/scenarios.sh fault_restore_drill): every op answered
      `applied` before the mark is stored with its seq, one answered after it with its seq or
      not at all, none answered otherwise is stored, nothing stored was never sent; every blob
      a stored revision names is in the blob directory and hashes to its id (counting those
      uploaded after the backup ended); each pouch's events are 1..high_water, the service
      pages the same events to the device, serves its blobs byte for byte and gives a new
      commit the next seq. Prints one JSON report and exits 1 on any problem.

Standard library (and loadlib.py beside it), pouchctl and b3sum; psql does the database
checks.
"""
import argparse
import collections
import concurrent.futures
import http.client
import json
import os
import random
import subprocess
import sys
import time
import uuid

import loadlib
from loadlib import (RequestLog, b64url, check_events, emit, error_what, must, rand64,
                     read_requests, retry_until, run_workers, stop_requested, stored_revisions,
                     web_user_with_pouch)


class Client(loadlib.Client):
    """loadlib's HTTP client, plus the CLI's proofs made by pouchctl."""

    def __init__(self, url, timeout, pouchctl):
        super().__init__(url, timeout)
        self.pouchctl = pouchctl

    def ctl(self, *args, stdin=None):
        return subprocess.run([self.pouchctl, *args], input=stdin, check=True,
                              capture_output=True, text=True).stdout.strip()

    def proof(self, key, method, path, token=None):
        args = ["dpop", "--key", key, "--method", method, "--url", self.url + path]
        if token:
            args += ["--token", token]
        return self.ctl(*args)

    def cli(self, method, path, dev, body=None, raw=None, ctype="application/json", sign=False):
        h = {"Authorization": "DPoP " + dev["access"],
             "DPoP": self.proof(dev["key"], method, path, dev["access"])}
        if sign:
            h["Service-Signature"] = self.ctl("sign-body", "--key", dev["key"],
                                              stdin=json.dumps(body))
        return self.call(method, path, body, h, raw, ctype)

    def download(self, path, dev):
        """(status, body bytes) of a GET as the device (a blob, which is not JSON)."""
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            conn.request("GET", path, headers={
                "Connection": "close", "Authorization": "DPoP " + dev["access"],
                "DPoP": self.proof(dev["key"], "GET", path, dev["access"])})
            r = conn.getresponse()
            return r.status, r.read()
        finally:
            conn.close()


def setup_device(cl, workdir, n):
    """A web user with genesis and one enrolled CLI device with an uploaded blob."""
    user = web_user_with_pouch(cl, "crash")
    token, pouch, web_member, epoch = user["token"], user["pouch"], user["member"], user["epoch"]

    key, enc = os.path.join(workdir, "sign%d.pem" % n), os.path.join(workdir, "enc%d.pem" % n)
    sign_pub = json.loads(cl.ctl("keygen", "--out", key))
    enc_pub = json.loads(cl.ctl("keygen", "--out", enc))
    pkce = json.loads(cl.ctl("pkce"))
    start = must("login start", cl.call("POST", "/v1/cli-auth/requests", {
        "code_challenge": pkce["challenge"], "device_name": "crash-%d" % n, "os": "linux",
        "arch": "x86_64", "cli_version": "1.0.0", "sign_pub": sign_pub, "enc_pub": enc_pub,
        "key_storage": "file"}, {"DPoP": cl.proof(key, "POST", "/v1/cli-auth/requests")}), 200)
    req = start["request_id"]
    member = str(uuid.uuid4())
    must("approve", cl.web("POST", "/v1/cli-auth/requests/%s/approve" % req, {
        "statement": {"statement": rand64(64), "signature": rand64(64)}, "welcome": rand64(96),
        "key_envelopes": [{"pouch_id": pouch, "member_id": member, "key_gen": 1,
                           "hpke_enc": rand64(65), "ciphertext": rand64(48),
                           "created_by_member": web_member, "signature": rand64(64)}]}, token),
         200)
    redeemed = must("redeem", cl.call("POST", "/v1/cli-auth/token",
                                      {"request_id": req, "code_verifier": pkce["verifier"]},
                                      {"DPoP": cl.proof(key, "POST", "/v1/cli-auth/token")}), 200)
    dev = {"key": key, "access": redeemed["access_token"], "pouch": pouch, "epoch": epoch,
           "member": member, "device_id": redeemed["device_id"]}

    blob_id, what = upload_blob(cl, dev, os.urandom(1000))
    if blob_id is None:
        loadlib.fail("blob upload: %s" % what)
    dev["blob"] = blob_id
    return dev


def blob_id_of(data):
    """The id of a blob: its BLAKE3 digest (b3sum), b64url."""
    return b64url(subprocess.run(["b3sum", "--no-names", "--raw"], input=data, check=True,
                                 capture_output=True).stdout)


def upload_blob(cl, dev, data):
    """Checks and uploads a blob as the device; (id, "ok") or (None, what went wrong)."""
    blob_id = blob_id_of(data)
    base = "/v1/pouches/%s/blobs" % dev["pouch"]
    st, doc, _ = cl.cli("POST", base + "/check", dev,
                        {"blobs": [{"id": blob_id, "stored_size": len(data)}]})
    if st != 200:
        return None, "check " + error_what(st, doc)
    st, doc, _ = cl.cli("PUT", "%s/%s" % (base, blob_id), dev, raw=data,
                        ctype="application/octet-stream")
    if st not in (200, 201):
        return None, "put " + error_what(st, doc)
    return blob_id, "ok"


class Worker:
    """One thread's own artifacts: heads it knows from answers, old revisions, deletions."""

    def __init__(self, n, dev):
        self.rnd, self.dev = random.Random(n), dev
        self.live = {}      # artifact -> head revision (known from an `applied` answer)
        self.deleted = {}   # artifact -> tombstone revision
        self.old = {}       # artifact -> an earlier revision (stale base on purpose)

    def op(self, kind, artifact, base, blob=False):
        rev = str(uuid.uuid4())
        return {"type": "delete" if kind == "delete" else "put", "artifact_id": artifact,
                "revision_id": rev, "base_revision_id": base, "key_gen": 1,
                "envelope": "%s-%s" % (kind, rev), "signature": rand64(64),
                "signer_member_id": self.dev["member"],
                "blob_ids": [self.dev["blob"]] if blob else []}

    def next_commit(self):
        """(body, expected results, kinds) of 1..3 ops on distinct artifacts."""
        ops, expect, kinds, used = [], [], [], set()
        for _ in range(self.rnd.randint(1, 3)):
            r = self.rnd.random()
            live = [a for a in self.live if a not in used]
            gone = [a for a in self.deleted if a not in used]
            stale = [a for a in self.old if a not in used and a in self.live]
            if r < 0.3 or len(live) < 3:
                a = str(uuid.uuid4())
                ops.append(self.op("new", a, None, blob=self.rnd.random() < 0.25))
                kinds.append("new")
            elif r < 0.6:
                a = self.rnd.choice(live)
                ops.append(self.op("update", a, self.live[a]))
                kinds.append("update")
            elif r < 0.72:
                a = self.rnd.choice(live)
                ops.append(self.op("delete", a, self.live[a]))
                kinds.append("delete")
            elif r < 0.84 and gone:
                a = self.rnd.choice(gone)
                ops.append(self.op("restore", a, self.deleted[a]))
                kinds.append("restore")
            elif stale:
                a = self.rnd.choice(stale)
                ops.append(self.op("stale", a, self.old[a]))
                kinds.append("stale")
            else:
                a = str(uuid.uuid4())
                ops.append(self.op("new", a, None))
                kinds.append("new")
            used.add(a)
            expect.append("conflict:stale_base" if kinds[-1] == "stale" else "applied")
        body = {"operation_id": str(uuid.uuid4()), "epoch": self.dev["epoch"], "ops": ops}
        return body, expect, kinds

    def learn(self, body, kinds, results):
        """Updates what the worker knows from an answer; None = no answer (forget them)."""
        for op, kind, res in zip(body["ops"], kinds, results or [None] * len(kinds)):
            a = op["artifact_id"]
            if res is None or (res["what"] != "applied" and kind != "stale"):
                self.live.pop(a, None)
                self.deleted.pop(a, None)
                self.old.pop(a, None)
                continue
            if kind == "stale":
                continue
            if kind == "delete":
                self.old[a] = self.live.pop(a)
                self.deleted[a] = op["revision_id"]
            else:
                if a in self.live:
                    self.old[a] = self.live[a]
                self.deleted.pop(a, None)
                self.live[a] = op["revision_id"]


def results_of(status, doc, body):
    """[{rev, what, seq}] for a 200 answer, one per result it holds (rev: the op at the same
    index, None past the last op), else None; plus a short description."""
    if status == 200 and doc and doc.get("ok"):
        ops, out = body["ops"], []
        for i, res in enumerate(doc["data"]["results"]):
            what = res["status"] if res["status"] == "applied" else "%s:%s" % (res["status"], res.get("code"))
            out.append({"rev": ops[i]["revision_id"] if i < len(ops) else None, "what": what,
                        "seq": res.get("seq")})
        return out, "200"
    return None, error_what(status, doc)


def cmd_run(a):
    cl = Client(a.url, a.timeout, a.pouchctl)
    devs = [setup_device(cl, a.dir, n) for n in range(a.pouches)]
    commits = {}   # operation_id -> {device, body, expect, kinds}
    log = RequestLog(a.dir)

    uploads = []   # blobs uploaded during the load (--fresh-blobs), with their answer

    def fresh_blobs(body):
        """Gives each op that names the device's blob a blob of its own, uploaded now (an
        upload that got no answer leaves the op without a blob)."""
        dev = devs[body_device(body)]
        for op in body["ops"]:
            if op["blob_ids"]:
                try:
                    blob_id, what = upload_blob(cl, dev, os.urandom(random.randint(2048, 65536)))
                except subprocess.CalledProcessError as e:
                    blob_id, what = None, "pouchctl: %s" % e
                uploads.append({"blob": blob_id, "what": what, "t": round(time.time(), 3)})
                op["blob_ids"] = [blob_id] if blob_id else []

    def body_device(body):
        return next(i for i, d in enumerate(devs) if d["member"] == body["ops"][0]["signer_member_id"])

    def worker(n):
        w = Worker(n, devs[n % len(devs)])
        while not stop_requested(a.dir):
            body, expect, kinds = w.next_commit()
            if a.fresh_blobs:
                fresh_blobs(body)
            commits[body["operation_id"]] = {"device": n % len(devs), "body": body,
                                             "expect": expect, "kinds": kinds}
            w0 = time.time()
            try:
                st, doc, secs = cl.cli("POST", "/v1/pouches/%s/operations" % w.dev["pouch"],
                                       w.dev, body, sign=True)
            except subprocess.CalledProcessError as e:
                st, doc, secs = 0, {"exception": "pouchctl: %s" % e}, 0
            results, what = results_of(st, doc, body)
            w.learn(body, kinds, results)
            log.write({"op": body["operation_id"], "w0": round(w0, 3),
                       "w1": round(time.time(), 3), "secs": round(secs, 3), "status": st,
                       "what": what, "results": results})
            if results is None:
                time.sleep(0.05)  # no busy loop against a failing backend

    run_workers(a.dir, a.workers, worker)
    log.close()
    with open(os.path.join(a.dir, "state.json"), "w") as f:
        json.dump({"devices": devs, "commits": commits, "uploads": uploads}, f)


def send_commit(cl, dev, c):
    """One more POST of a stored commit (same body, fresh proof and signature)."""
    st, doc, _ = cl.cli("POST", "/v1/pouches/%s/operations" % dev["pouch"], dev, c["body"],
                        sign=True)
    return results_of(st, doc, c["body"])


def cmd_settle(a):
    cl = Client(a.url, a.timeout, a.pouchctl)
    with open(os.path.join(a.dir, "state.json")) as f:
        state = json.load(f)
    devs, commits = state["devices"], state["commits"]
    reqs = read_requests(a.dir)
    problems = []
    answers = collections.defaultdict(list)   # operation_id -> [results of each 200 answer]
    statuses = collections.Counter()
    for r in reqs:
        statuses[r["what"]] += 1
        if r["results"] is not None:
            answers[r["op"]].append(r["results"])
    unanswered = [o for o in commits if o not in answers]

    retried, retry_statuses = 0, collections.Counter()
    for o in unanswered:
        c = commits[o]
        last = [None]

        def attempt():
            results, what = send_commit(cl, devs[c["device"]], c)
            retry_statuses[what] += 1
            last[0] = what
            if results is None:
                return False
            answers[o].append(results)
            return True

        done, tries = retry_until(attempt)
        retried += tries
        if not done:
            problems.append("commit %s: retries got no answer (last %s)" % (o, last[0]))
    # Every commit once more: the stored answer must come back (exactly-once). A few at a
    # time: each replay waits on two pouchctl runs more than on the service.
    def replay(item):
        o, c = item
        return o, send_commit(cl, devs[c["device"]], c)

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        replayed = list(pool.map(replay, commits.items()))
    for o, (results, what) in replayed:
        if results is None:
            problems.append("commit %s: replay answered %s" % (o, what))
        else:
            answers[o].append(results)

    stored = stored_revisions(a.db, [d["pouch"] for d in devs], problems)
    lost = applied_ops = stale_ops = 0
    for o, c in commits.items():
        got = answers.get(o, [])
        if not got:
            continue
        first = got[0]
        if any(g != first for g in got[1:]):
            problems.append("commit %s answered differently: %s" % (o, got[:3]))
        if len(first) != len(c["expect"]):
            problems.append("commit %s answered %d results for %d ops" % (o, len(first),
                                                                         len(c["expect"])))
            continue
        for want, res in zip(c["expect"], first):
            if res["what"] != want:
                problems.append("commit %s op %s: %s, expected %s" % (o, res["rev"], res["what"], want))
            if res["what"] == "applied":
                applied_ops += 1
                if res["rev"] not in stored:
                    lost += 1
                    problems.append("commit %s: revision %s answered applied (seq %s) is not stored"
                                    % (o, res["rev"], res["seq"]))
                elif stored[res["rev"]][0] != res["seq"]:
                    problems.append("revision %s answered seq %s, stored seq %d"
                                    % (res["rev"], res["seq"], stored[res["rev"]][0]))
            elif res["rev"] in stored:
                problems.append("revision %s answered %s but stored" % (res["rev"], res["what"]))
            else:
                stale_ops += 1
    for d in devs:
        _, revision_events = check_events(a.db, d["pouch"], problems)
        revs = sum(1 for s in stored.values() if s[1] == d["pouch"])
        if revs != revision_events:
            problems.append("pouch %s: %d revisions, %d revision events" % (d["pouch"], revs,
                                                                            revision_events))

    secs = sorted(r["secs"] for r in reqs)
    return emit({
        "requests": len(reqs), "commits": len(commits), "ops_applied": applied_ops,
        "ops_stale_refused": stale_ops, "unanswered": len(unanswered), "retries": retried,
        "replays": len(replayed), "lost": lost, "statuses": dict(statuses),
        "retry_statuses": dict(retry_statuses),
        "max_secs": secs[-1] if secs else 0,
    }, problems)


def served_events(cl, dev, problems):
    """{seq: revision id or None} of the pouch's events as the service pages them to the
    device."""
    got, after = {}, 0
    while True:
        path = "/v1/pouches/%s/events?epoch=%s&after=%d&limit=1000" % (dev["pouch"], dev["epoch"],
                                                                        after)
        st, doc, _ = cl.cli("GET", path, dev)
        if st != 200:
            problems.append("pouch %s: events after %d answered %s" % (dev["pouch"], after,
                                                                       error_what(st, doc)))
            return got
        items = doc["data"]["items"]
        for e in items:
            got[e["seq"]] = e.get("revision_id")
        if not items or items[-1]["seq"] >= doc["data"]["high_water"]:
            return got
        after = items[-1]["seq"]


def cmd_restored(a):
    """The checks of the restore drill (tests/faults/scenarios.sh fault_restore_drill)."""
    cl = Client(a.url, a.timeout, a.pouchctl)
    with open(os.path.join(a.dir, "state.json")) as f:
        state = json.load(f)
    devs, commits, uploads = state["devices"], state["commits"], state.get("uploads", [])
    reqs = read_requests(a.dir)
    problems = []
    pouches = [d["pouch"] for d in devs]
    stored = stored_revisions(a.db, pouches, problems)

    # Every op answered `applied` before the mark is there with its seq; one answered after it
    # may be lost (the WAL not archived yet), but if it is there, it has the seq answered.
    before = after_kept = after_lost = 0
    for r in reqs:
        for res in r["results"] or []:
            if res["what"] != "applied":
                if res["rev"] in stored:
                    problems.append("revision %s answered %s but restored" % (res["rev"], res["what"]))
                continue
            got = stored.get(res["rev"])
            if r["w1"] < a.mark:
                before += 1
                if got is None:
                    problems.append("revision %s answered applied (seq %s) at %.3f, before the "
                                    "mark, is not restored" % (res["rev"], res["seq"], r["w1"]))
            elif got is None:
                after_lost += 1
                continue
            else:
                after_kept += 1
            if got is not None and got[0] != res["seq"]:
                problems.append("revision %s answered seq %s, restored seq %d" % (res["rev"],
                                                                                  res["seq"], got[0]))
    sent = {op["revision_id"] for c in commits.values() for op in c["body"]["ops"]}
    for rev in stored:
        if rev not in sent:
            problems.append("revision %s restored but never sent" % rev)

    # Every blob a restored revision names is in the blob directory with the bytes of its id.
    backup_end = a.backup_end
    uploaded_at = {u["blob"]: u["t"] for u in uploads if u["blob"]}
    ids = ",".join("'%s'" % p for p in pouches)
    named = loadlib.psql(a.db, "SELECT DISTINCT r.pouch_id, p.account_id, b FROM revisions r "
                               "JOIN pouches p ON p.id = r.pouch_id, unnest(r.blob_ids) b "
                               "WHERE r.pouch_id IN (%s)" % ids)
    blobs_ok = blobs_after_backup = 0
    for _, account, blob in named:
        path = os.path.join(a.blob_dir, account, blob)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as e:
            problems.append("blob %s named by a restored revision: %s" % (blob, e))
            continue
        if blob_id_of(data) != blob:
            problems.append("blob %s: its file hashes to %s" % (blob, blob_id_of(data)))
            continue
        blobs_ok += 1
        if uploaded_at.get(blob, 0) > backup_end:
            blobs_after_backup += 1

    # The feed is gap-free, its revision events are the revisions, and the service serves it:
    # the events the device pages are the database's; a blob downloads with its bytes; a new
    # commit gets the next seq.
    served_ok = 0
    for d in devs:
        hw, revision_events = check_events(a.db, d["pouch"], problems)
        revs = sum(1 for s in stored.values() if s[1] == d["pouch"])
        if revs != revision_events:
            problems.append("pouch %s: %d revisions, %d revision events" % (d["pouch"], revs,
                                                                            revision_events))
        want = {int(seq): rev or None for seq, rev in loadlib.psql(
            a.db, "SELECT e.seq, coalesce(e.revision_id::text, '') FROM events e JOIN pouches p "
                  "ON p.id = e.pouch_id AND p.epoch = e.epoch WHERE p.id = '%s'" % d["pouch"])}
        got = served_events(cl, d, problems)
        if got != want:
            problems.append("pouch %s: the service pages %d events, the database holds %d"
                            % (d["pouch"], len(got), len(want)))
        else:
            served_ok += len(got)
        mine = [b for p, _, b in named if p == d["pouch"] and uploaded_at.get(b, 0) > backup_end]
        for blob in [d["blob"]] + mine[:1]:
            st, data = cl.download("/v1/pouches/%s/blobs/%s" % (d["pouch"], blob), d)
            if st != 200 or blob_id_of(data) != blob:
                problems.append("blob %s: GET answered %s with %d bytes hashing to %s"
                                % (blob, st, len(data), blob_id_of(data)))
        body = {"operation_id": str(uuid.uuid4()), "epoch": d["epoch"], "ops": [
            Worker(0, d).op("new", str(uuid.uuid4()), None)]}
        results, what = send_commit(cl, d, {"body": body})
        if not results or results[0]["what"] != "applied" or results[0]["seq"] != hw + 1:
            problems.append("pouch %s: a new commit after the restore answered %s %s (want "
                            "applied, seq %d)" % (d["pouch"], what, results, hw + 1))

    return emit({
        "applied_before_mark": before, "applied_after_mark_restored": after_kept,
        "applied_after_mark_lost": after_lost, "revisions_restored": len(stored),
        "blobs_named_and_verified": blobs_ok, "blobs_uploaded_after_backup_restored":
            blobs_after_backup, "uploads": len(uploads), "events_served": served_ok,
    }, problems)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("url")
    r.add_argument("dir")
    r.add_argument("pouchctl")
    r.add_argument("--workers", type=int, default=4)
    r.add_argument("--pouches", type=int, default=2)
    r.add_argument("--timeout", type=float, default=15)
    r.add_argument("--fresh-blobs", action="store_true",
                   help="ops that name a blob upload a new one first (the restore drill)")
    s = sub.add_parser("settle")
    s.add_argument("url")
    s.add_argument("dir")
    s.add_argument("db")
    s.add_argument("pouchctl")
    s.add_argument("--timeout", type=float, default=15)
    v = sub.add_parser("restored")
    v.add_argument("url")
    v.add_argument("dir")
    v.add_argument("db")
    v.add_argument("pouchctl")
    v.add_argument("--mark", type=float, required=True,
                   help="time before the last WAL switch archived before the disaster")
    v.add_argument("--backup-end", type=float, required=True, help="when the full backup ended")
    v.add_argument("--blob-dir", required=True)
    v.add_argument("--timeout", type=float, default=15)
    a = ap.parse_args()
    return {"run": cmd_run, "settle": cmd_settle, "restored": cmd_restored}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main() or 0)
