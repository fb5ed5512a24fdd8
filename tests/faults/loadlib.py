"""loadlib.py -- the pieces the commit loads of the fault tests share (load.py, cli_load.py):
one HTTP call per fresh connection, psql, the web user with a pouch (its genesis statement by
pouchctl), an answer's short
description, the retry-until loop of settle, the gap-free events check, the worker threads
with their request log and ready file, and the JSON report.

Standard library only; imported from the scripts' own folder (python3 tests/faults/X.py puts
it first on sys.path).
"""
import base64
import http.client
import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse
import uuid


def b64url(raw):
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def rand64(n):
    """n random bytes as unpadded b64url."""
    return b64url(os.urandom(n))


def fail(message):
    """Ends the script with its name and the message (set-up that cannot go on)."""
    raise SystemExit("%s: %s" % (os.path.basename(sys.argv[0]), message))


class Client:
    def __init__(self, url, timeout):
        u = urllib.parse.urlsplit(url)
        self.url = url.rstrip("/")
        self.host, self.port, self.timeout = u.hostname, u.port or 80, timeout

    def call(self, method, path, body=None, headers=None, raw=None, ctype="application/json"):
        """(status, parsed JSON or None, seconds); status 0 when no HTTP answer came. The
        connection is closed after each request, so a killed backend costs one request."""
        return self.call_ra(method, path, body, headers, raw, ctype)[:3]

    def call_ra(self, method, path, body=None, headers=None, raw=None, ctype="application/json"):
        """call's answer and the Retry-After header (None when absent or no answer came)."""
        h = {"Connection": "close"}
        h.update(headers or {})
        data = raw
        if body is not None:
            data = json.dumps(body, separators=(",", ":")).encode()
        if data is not None:
            h["Content-Type"] = ctype
        t0 = time.monotonic()
        conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        try:
            conn.request(method, path, body=data, headers=h)
            r = conn.getresponse()
            payload = r.read()
            status, retry_after = r.status, r.getheader("Retry-After")
        except (OSError, http.client.HTTPException) as e:
            return 0, {"exception": type(e).__name__ + ": " + str(e)[:120]}, time.monotonic() - t0, None
        finally:
            conn.close()
        try:
            doc = json.loads(payload)
        except ValueError:
            doc = None
        return status, doc, time.monotonic() - t0, retry_after

    def web(self, method, path, body, token):
        return self.call(method, path, body, {"Authorization": "Bearer " + token})


def must(what, got, want):
    """The data of an answer that had to be `want`; ends the script otherwise."""
    st, doc, _ = got
    if st != want:
        fail("%s answered %s: %s" % (what, st, doc))
    return doc["data"] if doc else None


def genesis_statement(member):
    """A real, signed genesis statement of `member` (the service checks statement 0), made by
    `pouchctl genesis-statement` ($POUCHCTL, as tools/stack exports it)."""
    out = subprocess.run([os.environ["POUCHCTL"], "genesis-statement", "--member", member],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def web_user_with_pouch(cl, email_prefix):
    """Signs up a web user and runs its genesis (one pouch); {token, pouch, member, epoch}."""
    email = "%s.%s@example.com" % (email_prefix, uuid.uuid4())
    token = must("signup", cl.call("POST", "/v1/account/signup",
                                   {"email": email, "password": "correct horse battery"}),
                 201)["session_token"]
    pouch, member = str(uuid.uuid4()), str(uuid.uuid4())
    sig = rand64(64)
    must("genesis", cl.web("POST", "/v1/account/roster/genesis", {
        "statements": [genesis_statement(member)],
        "key_envelopes": [{"pouch_id": pouch, "member_id": member, "key_gen": 1,
                           "hpke_enc": rand64(65), "ciphertext": rand64(48),
                           "created_by_member": member, "signature": sig}]}, token), 201)
    epoch = must("pouch read", cl.web("GET", "/v1/pouches/" + pouch, None, token), 200)["epoch"]
    return {"token": token, "pouch": pouch, "member": member, "epoch": epoch}


def error_what(status, doc):
    """"STATUS:CODE" of an answer that is not a 200 (CODE: the envelope's error code, or the
    exception when no answer came)."""
    code = None
    if isinstance(doc, dict):
        code = (doc.get("error") or {}).get("code") or doc.get("exception")
    return "%s:%s" % (status, code)


def psql(db, sql):
    """Rows of a query, each a list of its columns as text."""
    out = subprocess.run(["psql", db, "-XtAq", "-F", "|", "-c", sql], check=True,
                         capture_output=True, text=True).stdout
    return [line.split("|") for line in out.splitlines() if line]


def retry_until(attempt, seconds=30, pause=0.2):
    """Calls attempt() until it returns True or `seconds` have passed; (done, tries)."""
    deadline = time.monotonic() + seconds
    tries = 0
    while True:
        tries += 1
        if attempt():
            return True, tries
        if time.monotonic() > deadline:
            return False, tries
        time.sleep(pause)


def check_events(db, pouch, problems):
    """Appends a problem unless the pouch's events of its current epoch are exactly
    1..high_water, each seq once. Returns (high_water, revision events)."""
    hw, n, distinct, lo, hi, revision_events = (int(x) for x in psql(
        db, "SELECT p.high_water, count(e.seq), count(DISTINCT e.seq), "
            "coalesce(min(e.seq), 0), coalesce(max(e.seq), 0), "
            "count(*) FILTER (WHERE e.kind = 'revision') FROM pouches p "
            "LEFT JOIN events e ON e.pouch_id = p.id AND e.epoch = p.epoch "
            "WHERE p.id = '%s' GROUP BY p.high_water" % pouch)[0])
    if not (n == distinct == hw == hi and (hw == 0 or lo == 1)):
        problems.append("pouch %s: high_water %d, events %d (%d distinct, %d..%d)"
                        % (pouch, hw, n, distinct, lo, hi))
    return hw, revision_events


def stored_revisions(db, pouches, problems):
    """{revision id: (seq, pouch id)} of the pouches; a revision stored twice is a problem."""
    stored = {}
    ids = ",".join("'%s'" % p for p in pouches)
    for rev, seq, pouch in psql(db, "SELECT id, seq, pouch_id FROM revisions "
                                    "WHERE pouch_id IN (%s)" % ids):
        if rev in stored:
            problems.append("revision %s stored twice" % rev)
        stored[rev] = (int(seq), pouch)
    return stored


class RequestLog:
    """DIR/requests.jsonl, one JSON line per request, written by many threads."""

    def __init__(self, directory):
        self.lock = threading.Lock()
        self.f = open(os.path.join(directory, "requests.jsonl"), "w")

    def write(self, entry):
        with self.lock:
            self.f.write(json.dumps(entry) + "\n")
            self.f.flush()

    def close(self):
        self.f.close()


def read_requests(directory):
    with open(os.path.join(directory, "requests.jsonl")) as f:
        return [json.loads(line) for line in f]


def run_workers(directory, workers, body):
    """Runs body(n) in `workers` threads until each returns; DIR/ready appears once they are
    started. body should loop until stop_requested(directory)."""
    threads = [threading.Thread(target=body, args=(n,)) for n in range(workers)]
    for t in threads:
        t.start()
    open(os.path.join(directory, "ready"), "w").close()
    for t in threads:
        t.join()


def stop_requested(directory):
    return os.path.exists(os.path.join(directory, "stop"))


def emit(report, problems):
    """Prints the report (the first 20 problems and their count) as one JSON line; the exit
    status: 1 if there is any problem."""
    report = dict(report, problems=problems[:20], problem_count=len(problems))
    print(json.dumps(report))
    return 1 if problems else 0
