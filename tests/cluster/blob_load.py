#!/usr/bin/env python3
"""blob_load.py -- a blob upload and commit load for the cluster test's object-store scenario
(issue 27), and the check of what the store and the database hold afterwards.

  blob_load.py run URL DIR [--workers N] [--users N] [--timeout S]
      N web users with a pouch each (signup, genesis). Each worker thread, until DIR/stop
      exists: makes a blob of random bytes (4 KiB..384 KiB; every fourth one a copy of a blob
      of the same user uploaded before), checks it (POST .../blobs/check), uploads it (PUT
      .../blobs/{id}: 201; a copy, which the check reports stored, is uploaded all the same
      and must answer 200 -- the existing-blob path), then commits a new artifact naming it
      (POST .../operations). A step that gets no 2xx is retried -- the same body, the same
      operation_id -- after the answer's Retry-After (at most 2 s) or 0.2 s, until it
      succeeds; a worker told to stop finishes its blob first (30 s at most). Every request
      goes to DIR/requests.jsonl with its kind (check, put, commit), blob, times, status,
      error code and Retry-After; DIR/state.json holds the users, every blob finished (id,
      size, user) and every commit's result.
  blob_load.py check DIR DATABASE_URL
      What must hold after the load, read from the database and from the bucket
      (POUCH_BLOB_STORE, POUCH_S3_ENDPOINT, POUCH_S3_REGION, POUCH_S3_ACCESS_KEY,
      POUCH_S3_SECRET_KEY of the environment; listed with curl --aws-sigv4): every blob row
      has its object, of its size; every blob id a revision names has a row and an object;
      every blob the load finished has a row, and each commit it got applied is stored once;
      each account's blob_bytes is the sum of its blob rows' sizes, and for the load's
      accounts the sum of the sizes of the distinct blobs the load finished. Prints one JSON
      report (with the object and row counts) and exits 1 on any problem.

Standard library (and tests/faults/loadlib.py), b3sum, curl and psql.
"""
import argparse
import collections
import json
import os
import random
import subprocess
import sys
import threading
import time
import uuid
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "faults"))
import loadlib  # noqa: E402
from loadlib import (RequestLog, b64url, emit, error_what, psql, rand64,  # noqa: E402
                     run_workers, stop_requested, web_user_with_pouch)


def blob_id(data):
    digest = subprocess.run(["b3sum", "--no-names", "--raw"], input=data, check=True,
                            capture_output=True).stdout
    return b64url(digest)


def cmd_run(a):
    cl = loadlib.Client(a.url, a.timeout)
    users = [web_user_with_pouch(cl, "blobload%d" % n) for n in range(a.users)]
    log = RequestLog(a.dir)
    lock = threading.Lock()
    finished = []    # {id, size, user}
    commits = []     # {user, operation_id, revision_id, blob_id}
    recent = collections.deque(maxlen=16)   # (user index, bytes) of blobs uploaded
    odd = []         # answers a step should not have had

    def step(kind, user, method, path, stop_by, tag, **kw):
        """Sends one request until it answers 2xx; the last (status, doc), or None when the
        deadline after a stop passed. tag goes into each log line."""
        while True:
            w0 = time.time()
            st, doc, secs, ra = cl.call_ra(method, path, headers={"Authorization": "Bearer " + user["token"]}, **kw)
            what = str(st) if 200 <= st < 300 else error_what(st, doc)
            log.write(dict(tag, kind=kind, w0=round(w0, 3), w1=round(time.time(), 3),
                           secs=round(secs, 3), status=st, what=what, retry_after=ra))
            if 200 <= st < 300:
                return st, doc
            if stop_requested(a.dir) and stop_by[0] is None:
                stop_by[0] = time.monotonic() + 30
            if stop_by[0] is not None and time.monotonic() > stop_by[0]:
                return None
            pause = 0.2
            if ra and ra.isdigit():
                pause = min(int(ra), 2)
            time.sleep(pause)

    def worker(n):
        rnd = random.Random(n * 7919 + int(time.time()))
        while not stop_requested(a.dir):
            ui = n % len(users)
            data = None
            with lock:
                if rnd.random() < 0.25:
                    same = [b for u, b in recent if u == ui]
                    if same:
                        data = rnd.choice(same)
            if data is None:
                data = os.urandom(rnd.randint(4096, 393216))
            user, bid, stop_by = users[ui], blob_id(data), [None]
            pre = "/v1/pouches/%s" % user["pouch"]
            got = step("check", user, "POST", pre + "/blobs/check", stop_by, {"blob": bid},
                       body={"blobs": [{"id": bid, "stored_size": len(data)}]})
            if got is None:
                break
            # A copy is uploaded again all the same (a client that did not check): the
            # existing-blob path answers 200 from the database.
            new = bid in got[1]["data"].get("missing", [])
            got = step("put", user, "PUT", pre + "/blobs/" + bid, stop_by,
                       {"blob": bid, "new": new}, raw=data, ctype="application/octet-stream")
            if got is None:
                break
            if got[0] != (201 if new else 200):
                with lock:
                    odd.append("PUT of %s blob %s answered %d" % ("new" if new else "stored", bid, got[0]))
            with lock:
                finished.append({"id": bid, "size": len(data), "user": ui})
                recent.append((ui, data))
            rev = str(uuid.uuid4())
            body = {"operation_id": str(uuid.uuid4()), "epoch": user["epoch"], "ops": [{
                "type": "put", "artifact_id": str(uuid.uuid4()), "revision_id": rev,
                "base_revision_id": None, "key_gen": 1, "envelope": "blob-" + rev,
                "signature": rand64(64), "signer_member_id": user["member"],
                "blob_ids": [bid]}]}
            got = step("commit", user, "POST", pre + "/operations", stop_by, {"blob": bid}, body=body)
            if got is None:
                break
            res = got[1]["data"]["results"][0]
            with lock:
                commits.append({"user": ui, "operation_id": body["operation_id"],
                                "revision_id": rev, "blob_id": bid, "status": res["status"],
                                "seq": res.get("seq")})

    run_workers(a.dir, a.workers, worker)
    log.close()
    with open(os.path.join(a.dir, "state.json"), "w") as f:
        json.dump({"users": users, "finished": finished, "commits": commits, "odd": odd}, f)


# --- the bucket --------------------------------------------------------------------------------
def s3_env():
    store = os.environ.get("POUCH_BLOB_STORE", "")
    if not store.startswith("s3://"):
        loadlib.fail("POUCH_BLOB_STORE is not s3://BUCKET: %r" % store)
    return {"bucket": store[5:].strip("/"), "endpoint": os.environ["POUCH_S3_ENDPOINT"].rstrip("/"),
            "region": os.environ["POUCH_S3_REGION"], "key": os.environ["POUCH_S3_ACCESS_KEY"],
            "secret": os.environ["POUCH_S3_SECRET_KEY"]}


def s3_list(env, prefix=""):
    """{key: size} of every object in the bucket (ListObjectsV2, in pages, by curl's SigV4)."""
    objects, token = {}, None
    ns = "{http://s3.amazonaws.com/doc/2006-03-01/}"
    while True:
        q = "list-type=2&max-keys=1000"
        if prefix:
            q += "&prefix=" + urllib_quote(prefix)
        if token:
            q += "&continuation-token=" + urllib_quote(token)
        out = subprocess.run(
            ["curl", "-sS", "--fail-with-body", "--max-time", "30", "--aws-sigv4",
             "aws:amz:%s:s3" % env["region"], "--user", env["key"] + ":" + env["secret"],
             "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD",
             "%s/%s?%s" % (env["endpoint"], env["bucket"], q)],
            check=True, capture_output=True).stdout
        root = ET.fromstring(out)
        for c in root.iter(ns + "Contents"):
            objects[c.find(ns + "Key").text] = int(c.find(ns + "Size").text)
        if (root.findtext(ns + "IsTruncated") or "false") != "true":
            return objects
        token = root.findtext(ns + "NextContinuationToken")


def urllib_quote(s):
    import urllib.parse
    return urllib.parse.quote(s, safe="")


def blob_keys(objects):
    """{(account id, blob id): size} of the objects named <...>/<account uuid>/<43-char id>;
    the other keys (staging, anything else) apart."""
    blobs, other = {}, {}
    for key, size in objects.items():
        parts = key.split("/")
        if len(parts) >= 2 and len(parts[-1]) == 43 and len(parts[-2]) == 36:
            blobs[(parts[-2], parts[-1])] = size
        else:
            other[key] = size
    return blobs, other


def cmd_check(a):
    problems = []
    env = s3_env()
    objects = s3_list(env)
    stored, other = blob_keys(objects)
    rows = {(acc, bid): int(size) for acc, bid, size in
            psql(a.db, "SELECT account_id, id, stored_size FROM blobs")}
    for k, size in rows.items():
        if k not in stored:
            problems.append("blob row %s/%s has no object" % k)
        elif stored[k] != size:
            problems.append("blob %s/%s: row says %d bytes, object has %d" % (k + (size, stored[k])))
    refs = {(acc, bid) for acc, bid in psql(
        a.db, "SELECT DISTINCT p.account_id, b.id FROM revisions r JOIN pouches p ON p.id = r.pouch_id, "
              "unnest(r.blob_ids) AS b(id)")}
    for k in refs:
        if k not in rows:
            problems.append("a revision names blob %s/%s, which has no row" % k)
        if k not in stored:
            problems.append("a revision names blob %s/%s, which is not in the bucket" % k)
    for acc, blob_bytes, summed, n in psql(
            a.db, "SELECT a.id, a.blob_bytes, coalesce(sum(b.stored_size), 0), count(b.id) "
                  "FROM storage_accounts a LEFT JOIN blobs b ON b.account_id = a.id GROUP BY a.id"):
        if int(blob_bytes) != int(summed):
            problems.append("account %s: blob_bytes %s, its %s blobs hold %s" % (acc, blob_bytes, n, summed))
    report = {"objects": len(objects), "blob_objects": len(stored), "other_objects": len(other),
              "blob_rows": len(rows), "blobs_named_by_revisions": len(refs),
              "orphan_objects": len(set(stored) - set(rows))}
    if a.dir:
        with open(os.path.join(a.dir, "state.json")) as f:
            state = json.load(f)
        accounts = {}
        for i, u in enumerate(state["users"]):
            accounts[i] = psql(a.db, "SELECT account_id FROM pouches WHERE id = '%s'" % u["pouch"])[0][0]
        for b in state["finished"]:
            if (accounts[b["user"]], b["id"]) not in rows:
                problems.append("blob %s uploaded by the load has no row" % b["id"])
        revs = collections.Counter(r for (r,) in psql(
            a.db, "SELECT id FROM revisions WHERE pouch_id IN (%s)"
                  % ",".join("'%s'" % u["pouch"] for u in state["users"])))
        applied = [c for c in state["commits"] if c["status"] == "applied"]
        for c in applied:
            if revs[c["revision_id"]] != 1:
                problems.append("commit %s: revision stored %d times" % (c["operation_id"], revs[c["revision_id"]]))
        distinct = {(accounts[b["user"]], b["id"]): b["size"] for b in state["finished"]}
        # From the client's side: each load account's usage of blobs is the sum of the sizes
        # of the distinct blobs it finished (a copy uploaded again counts once).
        for i, acc in accounts.items():
            want = sum(size for (a, _), size in distinct.items() if a == acc)
            got = int(psql(a.db, "SELECT blob_bytes FROM storage_accounts WHERE id = '%s'" % acc)[0][0])
            if got != want:
                problems.append("load account %s: blob_bytes %d, its distinct blobs %d" % (acc, got, want))
        report.update(load_blobs_finished=len(state["finished"]), load_blobs_distinct=len(distinct),
                      load_commits_applied=len(applied),
                      load_commits_not_applied=len(state["commits"]) - len(applied))
        problems.extend(state["odd"])
        for c in state["commits"]:
            if c["status"] != "applied":
                problems.append("commit %s answered %s" % (c["operation_id"], c["status"]))
    return emit(report, problems)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("url")
    r.add_argument("dir")
    r.add_argument("--workers", type=int, default=4)
    r.add_argument("--users", type=int, default=2)
    r.add_argument("--timeout", type=float, default=20)
    c = sub.add_parser("check")
    c.add_argument("dir", help="the load's directory, or '' for the store and database alone")
    c.add_argument("db")
    a = p.parse_args()
    if a.cmd == "run":
        cmd_run(a)
        return 0
    return cmd_check(a)


if __name__ == "__main__":
    sys.exit(main())
