#!/usr/bin/env python3
# proxy.py -- the hostile suite's tampering HTTP proxy (Python 3 stdlib only): it stands in
# front of the stack's nginx as "the server" the real clients talk to, and plays a malicious
# server or network by rewriting requests and answers per scenario (rules file, below).
# Every request is logged as one JSON line (method, path, caller, body, status, the rules that
# matched and those that changed the request or the answer).
#
#   proxy.py --listen PORT --upstream http://127.0.0.1:NGINX_PORT --rules FILE --log FILE
#
# The rules file is a JSON list, read again on every request (write it to a temporary file
# and rename it over the old one). Each rule, all keys optional except `path`:
#   name               shown in the log
#   method, path       the request's method; a regex that must match its whole path (no query)
#   query              a regex searched in the query string
#   caller             "cli" (Authorization: DPoP ...) or "web" (Authorization: Bearer ...)
#   request_path_sub   [regex, replacement] applied to the path before it goes upstream
#   request_body_sub   [[regex, replacement], ...] applied to the request body
#   respond            {"status": N, "body": JSON} answered without asking upstream
#   response_body_sub  [[regex, replacement], ...] applied to the answer's text
#   json_set           {"/json/pointer": value}: replaces (or adds) a member of the JSON
#                      answer; in string values "${/pointer}" is the original answer's value
#   json_append        {"/pointer/to/array": [items]}: appended to an array of the answer
#   json_append_copy   [{"to": "/data/items", "from": "/data/items/-1", "set": {"/rel": v}}]:
#                      appends a copy of an item of the answer with some members replaced
#                      (a forged item that has every member a real one has); "at": N inserts
#                      it at index N instead
# Matching rules apply in file order; request changes first, then answer changes.
import argparse
import http.client
import http.server
import json
import re
import sys
import threading
import time
import urllib.parse

HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer",
       "upgrade", "proxy-authenticate", "proxy-authorization", "content-length",
       "accept-encoding", "content-encoding"}

ARGS = None
LOG_LOCK = threading.Lock()


def load_rules():
    try:
        with open(ARGS.rules, "r", encoding="utf-8") as f:
            rules = json.load(f)
        return rules if isinstance(rules, list) else []
    except (OSError, ValueError):
        return []


def pointer_parts(ptr):
    if ptr == "":
        return []
    if not ptr.startswith("/"):
        raise ValueError("bad JSON pointer " + ptr)
    return [p.replace("~1", "/").replace("~0", "~") for p in ptr[1:].split("/")]


def pointer_get(doc, ptr):
    cur = doc
    for p in pointer_parts(ptr):
        if isinstance(cur, list):
            cur = cur[int(p)]
        else:
            cur = cur[p]
    return cur


def pointer_set(doc, ptr, value):
    parts = pointer_parts(ptr)
    if not parts:
        return value
    cur = doc
    for p in parts[:-1]:
        cur = cur[int(p)] if isinstance(cur, list) else cur.setdefault(p, {})
    last = parts[-1]
    if isinstance(cur, list):
        cur[int(last)] = value
    else:
        cur[last] = value
    return doc


def expand(value, original):
    """"${/pointer}" inside strings (also nested) becomes the original answer's value there."""
    if isinstance(value, str):
        def one(m):
            try:
                v = pointer_get(original, m.group(1))
            except (KeyError, IndexError, ValueError, TypeError):
                return m.group(0)
            return v if isinstance(v, str) else json.dumps(v)
        return re.sub(r"\$\{(/[^}]*)\}", one, value)
    if isinstance(value, list):
        return [expand(v, original) for v in value]
    if isinstance(value, dict):
        return {k: expand(v, original) for k, v in value.items()}
    return value


def caller_of(headers):
    auth = headers.get("Authorization", "")
    if auth.startswith("DPoP "):
        return "cli"
    if auth.startswith("Bearer "):
        return "web"
    return "anonymous"


def matches(rule, method, path, query, caller):
    if rule.get("method") and rule["method"] != method:
        return False
    if "path" not in rule or not re.fullmatch(rule["path"], path):
        return False
    if rule.get("query") and not re.search(rule["query"], query):
        return False
    if rule.get("caller") and rule["caller"] != caller:
        return False
    return True


def text_of(body):
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return None


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):  # the JSON log is the record
        pass

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = b""
            while True:
                size = int(self.rfile.readline().strip().split(b";")[0], 16)
                if size == 0:
                    self.rfile.readline()
                    return out
                out += self.rfile.read(size)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def handle_any(self):
        try:
            self.handle_request()
        except Exception as e:  # a broken rule answers 502 and says why, never hangs a client
            msg = {"ok": False, "error": {"code": "proxy_error", "message": repr(e)},
                   "meta": {"request_id": "0" * 32}}
            data = json.dumps(msg).encode()
            print("proxy: %s %s: %r" % (self.command, self.path, e), file=sys.stderr, flush=True)
            self.send_response(502)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    def handle_request(self):
        started = time.time()
        body = self.read_body()
        split = urllib.parse.urlsplit(self.path)
        path, query = split.path, split.query
        method = self.command
        caller = caller_of(self.headers)
        rules = [r for r in load_rules() if matches(r, method, path, query, caller)]
        applied = [r.get("name", r["path"]) for r in rules]
        changed = []  # the rules that changed something: a scenario's proof its attack happened
        up_path = path
        for r in rules:
            before = (up_path, body)
            if r.get("request_path_sub"):
                up_path = re.sub(r["request_path_sub"][0], r["request_path_sub"][1], up_path)
            for pat, rep in r.get("request_body_sub", []):
                t = text_of(body)
                if t is not None:
                    body = re.sub(pat, rep, t).encode("utf-8")
            if (up_path, body) != before:
                changed.append(r.get("name", r["path"]))
        canned = next((r for r in rules if r.get("respond")), None)
        if canned:
            status = int(canned["respond"].get("status", 200))
            out = canned["respond"].get("body", {})
            data = (out if isinstance(out, str) else json.dumps(out)).encode("utf-8")
            headers = [("Content-Type", "application/json")]
            changed.append(canned.get("name", canned["path"]))
        else:
            status, headers, data = self.forward(method, up_path + ("?" + query if query else ""), body)
        data = self.rewrite_answer(rules, headers, data, changed)
        self.log(method, self.path, up_path, caller, body, status, applied, changed, started)
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if method != "HEAD":
            self.wfile.write(data)

    def forward(self, method, target, body):
        up = urllib.parse.urlsplit(ARGS.upstream)
        conn = http.client.HTTPConnection(up.hostname, up.port, timeout=120)
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP}
        headers["Connection"] = "close"
        if body or method in ("POST", "PUT", "PATCH"):
            headers["Content-Length"] = str(len(body))
        try:
            conn.request(method, target, body=body if body else None, headers=headers)
            res = conn.getresponse()
            data = res.read()
            out = [(k, v) for k, v in res.getheaders() if k.lower() not in HOP]
            return res.status, out, data
        except OSError as e:
            msg = {"ok": False, "error": {"code": "bad_gateway", "message": "proxy: " + str(e)},
                   "meta": {"request_id": "0" * 32}}
            return 502, [("Content-Type", "application/json")], json.dumps(msg).encode()
        finally:
            conn.close()

    def rewrite_answer(self, rules, headers, data, changed):
        for r in rules:
            data, did = self.rewrite_one(r, data)
            if did and r.get("name", r["path"]) not in changed:
                changed.append(r.get("name", r["path"]))
        return data

    @staticmethod
    def rewrite_one(r, data):
        """The answer after rule r, and whether r changed it (its text, or its JSON's value)."""
        did = False
        for pat, rep in r.get("response_body_sub", []):
            t = text_of(data)
            if t is not None:
                out = re.sub(pat, rep, t).encode("utf-8")
                did = did or out != data
                data = out
        if not (r.get("json_set") or r.get("json_append") or r.get("json_append_copy")):
            return data, did
        try:
            doc = json.loads(data)
        except ValueError:
            return data, did
        original = json.loads(data)
        for ptr, value in (r.get("json_set") or {}).items():
            doc = pointer_set(doc, ptr, expand(value, original))
        for ptr, items in (r.get("json_append") or {}).items():
            pointer_get(doc, ptr).extend(expand(items, original))
        for spec in r.get("json_append_copy") or []:
            target = pointer_get(doc, spec["to"])
            src = spec.get("from", spec["to"] + "/-1")
            parts = pointer_parts(src)
            container = pointer_get(original, "/" + "/".join(parts[:-1]) if len(parts) > 1 else "")
            if not container:
                continue
            item = json.loads(json.dumps(container[int(parts[-1])]))
            for rel, value in (spec.get("set") or {}).items():
                item = pointer_set(item, rel, expand(value, original))
            if "at" in spec:
                target.insert(int(spec["at"]), item)
            else:
                target.append(item)
        if doc == original:
            return data, did
        return json.dumps(doc, ensure_ascii=False).encode("utf-8"), True

    def log(self, method, full, up_path, caller, body, status, applied, changed, started):
        t = text_of(body) if body else ""
        rec = {"t": round(started, 3), "method": method, "path": full, "upstream_path": up_path,
               "caller": caller, "status": status, "rules": applied, "changed": changed,
               "body": t[:262144] if t is not None else "<%d bytes>" % len(body)}
        with LOG_LOCK, open(ARGS.log, "a", encoding="utf-8") as f:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = handle_any


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128


def main():
    global ARGS
    p = argparse.ArgumentParser(description="the hostile suite's tampering proxy")
    p.add_argument("--listen", type=int, required=True)
    p.add_argument("--upstream", required=True)
    p.add_argument("--rules", required=True)
    p.add_argument("--log", required=True)
    ARGS = p.parse_args()
    srv = Server(("127.0.0.1", ARGS.listen), Handler)
    print("proxy on 127.0.0.1:%d -> %s" % (ARGS.listen, ARGS.upstream), file=sys.stderr, flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
