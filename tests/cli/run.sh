#!/usr/bin/env bash
# run.sh -- the CLI suite: two `pouch` devices of one account (approved by pouch-testweb, the
# dev/test browser member) keep a folder in sync both ways against the real stack: small
# files, a 20 MB file in chunks (an unchanged chunk is not sent again), a rename, a delete, a
# conflict made on purpose, --watch, a push killed mid-way and rerun, a revoked device, a
# logout that signs its removal with rotated_to, a key sealed late, a rolled-back generation and
# removed members' keys refused or waited out, files crossing between the web member's and the
# CLI's code, tokens refreshed, the file system side (tests/cli/files.sh: symlinks, type
# clashes, unsafe names, modes, a folder of 100,000 files), and the help/man page. Prints
# PASS/FAIL lines and SMOKE END
# (tools/stack/test.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
source tests/smoke/lib.sh
source tests/cli/lib.sh

A=$CLI_TMP/A
B=$CLI_TMP/B
mkdir -p "$A" "$B"

# --- login -------------------------------------------------------------------------------------

web_account || { echo "FAIL setup: no web account"; smoke_done; }
login laptop-a
expect_true "login exits 0 (got $RC: $LOGIN_OUT)" test "$RC" = 0
expect_true "login prints the approval link it built: its server, the request, the four key coordinates and a nonce" \
    grep -Eqx "  $POUCH_URL/cli/approve\?request=$REQ#keys=[A-Za-z0-9_-]{43}(\.[A-Za-z0-9_-]{43}){3}&n=[A-Za-z0-9_-]{22}" <<<"$LOGIN_OUT"
expect_true "login says to type a 12-digit code on the page ($CODE)" grep -Eq '^[0-9]{4}-[0-9]{4}-[0-9]{4}$' <<<"$CODE"
cfg=$CLI_TMP/laptop-a/pouch
jkt=$("$POUCHCTL" jwk --key "$cfg/sign.pem" | jq -r .jkt)
expect_true "login prints the key fingerprint: sign_jkt's first 16 characters by 4 ($jkt)" \
    grep -qxF "The page must show this device key fingerprint: ${jkt:0:4} ${jkt:4:4} ${jkt:8:4} ${jkt:12:4}" <<<"$LOGIN_OUT"
expect_true "login says it is done" grep -q "Logged in to" <<<"$LOGIN_OUT"
expect_true "the config directory is 0700" test "$(mode_of "$cfg")" = 700
for f in sign.pem enc.pem device.json keys.json; do
    expect_true "$f is 0600" test "$(mode_of "$cfg/$f")" = 600
done
expect_true "the login file is gone" test ! -e "$cfg/login.json"
expect_json_db() { [[ $(sql "$1") == "$2" ]]; }
expect_true "the roster holds genesis and the device's add" expect_json_db \
    "SELECT count(*) FROM roster_entries r JOIN storage_accounts a ON a.id = r.account_id WHERE a.id = '$(jq -r .account_id "$cfg/device.json")'" 2
check login_enrols_the_device_and_verifies_the_roster

# --- what login refuses: plain HTTP to another computer, an approval address not its own --------

dev nobody login --server http://pouch.example.com --name x
expect_true "plain http:// to another host exits 2 ($RC: $ERR)" test "$RC" = 2
expect_true "and names --insecure-http" grep -q -- "--insecure-http" <<<"$ERR"
expect_true "and made no keys" test ! -e "$CLI_TMP/nobody/pouch/sign.pem"
dev nobody login --server https://h/x?y --name x
expect_true "a --server with a query exits 2 ($RC)" test "$RC" = 2
dev nobody login --server "$POUCH_URL" --name 'x/../../PWNED'
expect_true "a name with / exits 2 ($RC: $ERR)" test "$RC" = 2
dev nobody login --server http://0.0.0.0:9 --name x --insecure-http
expect_true "--insecure-http lets plain http to 0.0.0.0 through and says so ($RC: $ERR)" \
    grep -q "warning: this device talks plain HTTP to 0.0.0.0" <<<"$ERR"
expect_true "and then the server is unreachable (exit 4, got $RC)" test "$RC" = 4
# A device whose device.json names plain http to another host: refused without the flag, said
# on every run with it.
rm -rf "$CLI_TMP/edited" && cp -r "$CLI_TMP/laptop-a" "$CLI_TMP/edited"
jq '.server = "http://0.0.0.0:9"' "$cfg/device.json" >"$CLI_TMP/edited/pouch/device.json"
dev edited status
expect_true "a device.json with plain http elsewhere is refused (exit 1, got $RC: $ERR)" test "$RC" = 1
jq '.server = "http://0.0.0.0:9" | .insecure_http = true' "$cfg/device.json" >"$CLI_TMP/edited/pouch/device.json"
dev edited status
expect_true "with insecure_http every run warns ($RC: $ERR)" grep -q "warning: this device talks plain HTTP" <<<"$ERR"
expect_true "status then finds the server unreachable (exit 4, got $RC)" test "$RC" = 4
rm -rf "$CLI_TMP/edited"
# A server that answers another approval address (hidden in a terminal escape) or a request id
# that is not a UUID: the login stops with exit 5, prints the address defanged, keeps nothing.
# The fake's answers are not the service's: they stay out of the OpenAPI check's log.
api_log=${POUCH_API_LOG-}
unset POUCH_API_LOG
fake_start() {  # fake_start AUTHORIZE_URL_JSON REQUEST_ID_JSON: one answer (or 60 s), then it exits
    python3 - "$1" "$2" "$CLI_TMP/fake.port" <<'PY' &
import http.server, sys
url, rid, portfile = sys.argv[1:4]
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        self.rfile.read(int(self.headers.get('Content-Length', 0)))
        base = 'http://127.0.0.1:%d' % self.server.server_port
        body = ('{"data":{"request_id":%s,"authorize_url":%s,"expires_in":600,"interval":5}}'
                % (rid, url.replace('BASE', base))).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a): pass
s = http.server.HTTPServer(('127.0.0.1', 0), H)
open(portfile + '.tmp', 'w').write(str(s.server_port))
__import__('os').rename(portfile + '.tmp', portfile)
s.timeout = 60  # a login that never calls must not keep the suite waiting
s.handle_request()
PY
    FAKE_PID=$!
    retry 30 test -s "$CLI_TMP/fake.port" || smoke_fail "the fake server did not start"
    FAKE=http://127.0.0.1:$(cat "$CLI_TMP/fake.port")
    rm -f "$CLI_TMP/fake.port"
}
rid=3f2a4c1e-8b7d-4e6f-9a0b-1c2d3e4f5a6b
fake_start "\"https://evil.example/cli/approve?request=$rid\\u001b[8m#keys=x\"" "\"$rid\""
dev fake login --server "$FAKE" --name x
wait "$FAKE_PID"
expect_true "an authorize_url on another host stops the login with exit 5 ($RC: $ERR)" test "$RC" = 5
expect_true "and no ESC reaches the terminal" test -z "$(grep $'\x1b' <<<"$ERR")"
expect_true "it shows the address with U+FFFD in the ESC's place" \
    grep -qF "\"https://evil.example/cli/approve?request=$rid"$'\xef\xbf\xbd'"[8m#keys=x\"" <<<"$ERR"
expect_true "and printed no link or code" test -z "$OUT"
expect_true "and keeps no pending login" test ! -e "$CLI_TMP/fake/pouch/login.json"
fake_start "\"BASE/cli/approve?request=$rid&x=1\"" "\"$rid\""
dev fake login --server "$FAKE" --name x
wait "$FAKE_PID"
expect_true "an authorize_url with more in its query stops the login with exit 5 ($RC)" test "$RC" = 5
fake_start "\"BASE/cli/approve?request=$rid\"" "\"$rid#keys=x\""
dev fake login --server "$FAKE" --name x
wait "$FAKE_PID"
expect_true "a request id that is not a UUID stops the login with exit 5 ($RC: $ERR)" test "$RC" = 5
# One the CLI accepts: while it waits (the fake is gone, so it waits for ever), status shows
# what the terminal showed.
fake_start "\"BASE/cli/approve?request=$rid\"" "\"$rid\""
XDG_CONFIG_HOME=$CLI_TMP/fake "$POUCH" login --server "$FAKE" --name x >"$CLI_TMP/fake.out" 2>&1 &
waiting=$!
expect_true "the login shows its link, code and fingerprint, then waits ($(tr '\n' ' ' <"$CLI_TMP/fake.out"))" \
    retry 30 grep -q "fingerprint:" "$CLI_TMP/fake.out"
dev fake status --json
expect_true "status exits 3 while the login waits ($RC)" test "$RC" = 3
expect_true "and shows the link, the code and the fingerprint the terminal showed ($OUT)" test \
    "$(jq -r '.pending_login | [.approval_link, .confirm_code, .fingerprint] | join(" ")' <<<"$OUT")" = \
    "$(sed -n 's/^  \(http.*\)$/\1/p; s/^then type this code on the page: //p; s/^The page must show this device key fingerprint: //p' "$CLI_TMP/fake.out" | paste -sd ' ')"
kill "$waiting" 2>/dev/null
wait "$waiting" "$FAKE_PID" 2>/dev/null
rm -rf "$CLI_TMP/fake"
[[ -n $api_log ]] && export POUCH_API_LOG=$api_log
check login_refuses_plain_http_elsewhere_and_an_approval_address_not_its_own

dev laptop-a status --json
expect_true "status --json is JSON with logged_in true" test "$(jq -r .logged_in <<<"$OUT")" = true
expect_true "status shows the pouch with key generation 1" test "$(jq -r '.pouches[0].key_gens[0]' <<<"$OUT")" = 1
expect_true "status names the device" test "$(jq -r .device_name <<<"$OUT")" = laptop-a
check status_json_describes_the_device

login laptop-b
expect_true "second login exits 0 ($RC)" test "$RC" = 0
dev laptop-b devices --json
expect_true "devices --json lists both devices" test "$(jq '.items | length' <<<"$OUT")" = 2
expect_true "devices --json names this device" test "$(jq -r .this_device <<<"$OUT")" = "$(device_id laptop-b)"
dev laptop-b rename "laptop b"
expect_true "rename exits 0" test "$RC" = 0
dev laptop-b devices
expect_true "devices shows the new name and marks this device" grep -q '^\* laptop b' <<<"$OUT"
dev laptop-b rename ""
expect_true "an empty name is a usage error (exit 2, got $RC)" test "$RC" = 2
check devices_lists_and_rename_renames

# --- push and pull ------------------------------------------------------------------------------

echo "hello" >"$A/hello.txt"
mkdir -p "$A/notes/deep"
printf 'α and ω\n' >"$A/notes/deep/greek.md"
: >"$A/empty.txt"
head -c $((20 * 1024 * 1024)) /dev/urandom >"$A/big.bin"
chmod 600 "$A/notes/deep/greek.md"
dev laptop-a push "$A"
expect_true "push exits 0 ($RC: $ERR)" test "$RC" = 0
expect_true "push reports 4 files sent" said 4 sent
dev laptop-b sync "$B"
expect_true "sync exits 0 ($RC: $ERR)" test "$RC" = 0
expect_true "B holds A's files byte for byte" same_tree "$A" "$B"
expect_true "the mode travels" test "$(mode_of "$B/notes/deep/greek.md")" = 600
expect_true "the mtime travels (to the millisecond)" test "$(stat -c %Y "$A/big.bin")" = "$(stat -c %Y "$B/big.bin")"
expect_true "no temporary file is left" test -z "$(find "$B" -name '.pouch-tmp-*')"
chunks=$(sql "SELECT cardinality(blob_ids) FROM revisions WHERE pouch_id = '$POUCH_ID' AND cardinality(blob_ids) > 0")
# Content-defined chunks (docs/CLIENT-FORMAT.md "Chunk boundaries"): 512 KiB to 4 MiB each,
# 2 MiB or so on average, so 20 MiB is between 5 and 40 of them.
expect_true "the 20 MB file is 5 to 40 chunks (got '$chunks')" test "${chunks:-0}" -ge 5 -a "${chunks:-0}" -le 40
inline=$(sql "SELECT count(*) FROM revisions WHERE pouch_id = '$POUCH_ID' AND cardinality(blob_ids) = 0")
expect_true "the three small files are inline ($inline)" test "$inline" = 3
check two_devices_sync_small_files_and_a_20mb_file_in_chunks

blobs_before=$(sql "SELECT count(*) FROM blobs b JOIN pouches p ON p.account_id = b.account_id WHERE p.id = '$POUCH_ID'")
printf 'tail' >>"$A/big.bin"
dev laptop-a sync "$A"
blobs_after=$(sql "SELECT count(*) FROM blobs b JOIN pouches p ON p.account_id = b.account_id WHERE p.id = '$POUCH_ID'")
expect_true "only the new last chunk is uploaded ($blobs_before -> $blobs_after)" test "$((blobs_after - blobs_before))" = 1
expect_true "push says the $((chunks - 1)) old chunks were already stored ($ERR)" said "$((chunks - 1))" "chunks already stored"
dev laptop-b sync "$B"
expect_true "B gets the changed big file" cmp -s "$A/big.bin" "$B/big.bin"
check an_unchanged_chunk_is_never_sent_twice

# One byte inserted at the start: content-defined boundaries move only near it, so one or two
# chunks are new and the rest are reused (a fixed 4 MiB cut would send every chunk again).
blobs_before=$blobs_after
{ printf 'x'; cat "$A/big.bin"; } >"$CLI_TMP/shifted.bin" && mv "$CLI_TMP/shifted.bin" "$A/big.bin"
dev laptop-a sync "$A"
blobs_after=$(sql "SELECT count(*) FROM blobs b JOIN pouches p ON p.account_id = b.account_id WHERE p.id = '$POUCH_ID'")
expect_true "a byte inserted at the start uploads 1 or 2 chunks ($blobs_before -> $blobs_after)" test "$((blobs_after - blobs_before))" -ge 1 -a "$((blobs_after - blobs_before))" -le 2
dev laptop-b sync "$B"
expect_true "B gets the shifted big file" cmp -s "$A/big.bin" "$B/big.bin"
check a_shifted_file_reuses_its_chunks

artifact=$(sql "SELECT count(*) FROM artifacts WHERE pouch_id = '$POUCH_ID'")
mv "$A/hello.txt" "$A/notes/hello-renamed.txt"
dev laptop-a sync "$A"
expect_true "the rename is reported ($ERR)" said 1 renamed
dev laptop-b sync "$B"
expect_true "B has the new name and not the old" test -f "$B/notes/hello-renamed.txt" -a ! -e "$B/hello.txt"
expect_true "no artifact was added by the rename" test "$(sql "SELECT count(*) FROM artifacts WHERE pouch_id = '$POUCH_ID'")" = "$artifact"
expect_true "the trees agree" same_tree "$A" "$B"
check a_rename_is_a_put_on_the_same_artifact

rm "$B/empty.txt"
dev laptop-b sync "$B"
expect_true "the delete is reported" said 1 deleted
dev laptop-a sync "$A"
expect_true "A loses the file too" test ! -e "$A/empty.txt"
dev laptop-a ls "$POUCH_ID" --deleted --json
expect_true "ls --deleted shows it as deleted" test "$(jq -r '.items[] | select(.name == "empty.txt") | .deleted' <<<"$OUT")" = true
dev laptop-a ls "${POUCH_ID:0:8}" --json
expect_true "ls by id prefix lists the 3 live files" test "$(jq '.items | length' <<<"$OUT")" = 3
expect_true "ls decrypts names" test "$(jq -r '[.items[].name] | sort | join(",")' <<<"$OUT")" = "big.bin,notes/deep/greek.md,notes/hello-renamed.txt"
check a_delete_reaches_the_other_device

# --- a conflict made on purpose ----------------------------------------------------------------

echo "version from A" >"$A/notes/deep/greek.md"
echo "version from B" >"$B/notes/deep/greek.md"
dev laptop-a sync "$A"
head_a=$(sql "SELECT a.head_revision_id FROM artifacts a WHERE a.pouch_id = '$POUCH_ID' AND a.head_seq = (SELECT max(head_seq) FROM artifacts WHERE pouch_id = '$POUCH_ID')")
dev laptop-b sync "$B"
expect_true "B says it kept both ($ERR)" grep -q "conflict" <<<"$ERR"
# The label is the device's roster label (its name when it was approved), not its new name.
copy=$(cd "$B" && ls notes/deep/ | grep 'conflict laptop-b')
expect_true "the copy is named after the device and the date ($copy)" \
    test "$copy" = "greek (conflict laptop-b $(date -u +%F)).md"
expect_true "the winning version stays at its name on B" grep -qx "version from A" "$B/notes/deep/greek.md"
expect_true "B's own version is in the copy" grep -qx "version from B" "$B/notes/deep/$copy"
cid=$(sql "SELECT conflict_id FROM revisions WHERE pouch_id = '$POUCH_ID' AND conflict_id IS NOT NULL")
expect_true "the copy's revision carries conflict_id = the winning head ($cid vs $head_a)" test "$cid" = "$head_a"
dev laptop-a sync "$A"
expect_true "A receives the copy" test -f "$A/notes/deep/$copy"
expect_true "both devices agree" same_tree "$A" "$B"
check a_stale_base_keeps_both_versions

# --- files between the web member and the CLI ------------------------------------------------------

printf 'written in the browser\n' >"$CLI_TMP/web.txt"
head -c 100000 /dev/urandom >"$CLI_TMP/web.bin"
web put "from-web.txt" --file "$CLI_TMP/web.txt" >/dev/null
web put "from-web.bin" --file "$CLI_TMP/web.bin" >/dev/null
dev laptop-a sync "$A"
expect_true "a web file opens in the CLI" cmp -s "$CLI_TMP/web.txt" "$A/from-web.txt"
expect_true "a chunked web file opens in the CLI" cmp -s "$CLI_TMP/web.bin" "$A/from-web.bin"
web get "notes/hello-renamed.txt" >"$CLI_TMP/got.txt"
expect_true "a CLI file opens in the web member" cmp -s "$A/notes/hello-renamed.txt" "$CLI_TMP/got.txt"
web get "big.bin" >"$CLI_TMP/got.bin"
expect_true "a chunked CLI file opens in the web member" cmp -s "$A/big.bin" "$CLI_TMP/got.bin"
check files_cross_between_web_and_cli

# --- --watch ----------------------------------------------------------------------------------------

dev laptop-b sync "$B"
XDG_CONFIG_HOME=$CLI_TMP/laptop-b "$POUCH" sync "$B" --watch >"$CLI_TMP/watch.out" 2>&1 &
watch_pid=$!
sleep 1
echo "pushed by A while B watches" >"$A/watched.txt"
start=$(now_ms)
dev laptop-a push "$A"
expect_true "a remote change reaches the watching device within 10 s" retry 10 test -f "$B/watched.txt"
remote_ms=$(($(now_ms) - start))
echo "written on B while it watches" >"$B/local.txt"
start=$(now_ms)
expect_true "a local change is pushed within 10 s" retry 10 bash -c \
    "[[ \$(XDG_CONFIG_HOME=$CLI_TMP/laptop-a $POUCH ls $POUCH_ID --json | jq '[.items[] | select(.name == \"local.txt\")] | length') == 1 ]]"
local_ms=$(($(now_ms) - start))
kill -INT "$watch_pid"
wait "$watch_pid"
watch_rc=$?
expect_true "--watch stops on SIGINT with exit 130 (got $watch_rc)" test "$watch_rc" = 130
echo "# watch: remote change in ${remote_ms} ms, local change in ${local_ms} ms"
check sync_watch_follows_both_sides

# pull --watch: a receive-only folder. Remote changes arrive; a local file stays unsent.
XDG_CONFIG_HOME=$CLI_TMP/laptop-b "$POUCH" pull "$B" --watch >"$CLI_TMP/pull-watch.out" 2>&1 &
watch_pid=$!
sleep 1
echo "pushed by A while B follows" >"$A/followed.txt"
dev laptop-a push "$A"
expect_true "a remote change reaches the following device within 10 s" retry 10 test -f "$B/followed.txt"
expect_true "it is A's content" grep -qx "pushed by A while B follows" "$B/followed.txt"
echo "written on B while it only pulls" >"$B/kept-local.txt"
sleep 2
kill -INT "$watch_pid"
wait "$watch_pid"
watch_rc=$?
expect_true "pull --watch stops on SIGINT with exit 130 (got $watch_rc)" test "$watch_rc" = 130
expect_true "kept-local.txt was not sent" bash -c \
    "! XDG_CONFIG_HOME=$CLI_TMP/laptop-a $POUCH ls $POUCH_ID --json | jq -e '.items[] | select(.name == \"kept-local.txt\")' >/dev/null"
expect_true "kept-local.txt stays on B as written" grep -qx "written on B while it only pulls" "$B/kept-local.txt"
rm -f "$B/kept-local.txt"
check pull_watch_follows_the_pouch_and_sends_nothing

# --- a push killed mid-way ------------------------------------------------------------------------

mkdir -p "$A/many"
for i in $(seq 1 120); do echo "file $i" >"$A/many/f$i.txt"; done
dev laptop-a sync "$A"  # nothing new on the server side first
rm -rf "$A/many"
mkdir -p "$A/many"
for i in $(seq 121 240); do echo "file $i" >"$A/many/f$i.txt"; done
artifacts_before=$(sql "SELECT count(*) FROM artifacts WHERE pouch_id = '$POUCH_ID'")
RC=0
XDG_CONFIG_HOME=$CLI_TMP/laptop-a POUCH_TEST_KILL_AFTER_COMMIT=2 "$POUCH" push "$A" >/dev/null 2>&1 || RC=$?
expect_true "the push died by SIGKILL after its second commit (status $RC)" test "$RC" = 137
dev laptop-a status --json
expect_true "its state holds the batch in flight" test "$(jq '.folders[0].pending_ops' <<<"$OUT")" -gt 0
dev laptop-a push "$A"
expect_true "the rerun exits 0 ($RC: $ERR)" test "$RC" = 0
expect_true "the rerun resends the interrupted batch" grep -q "resending" <<<"$ERR"
dup=$(sql "SELECT count(*) FROM (SELECT r.envelope_hash FROM revisions r WHERE pouch_id = '$POUCH_ID' GROUP BY artifact_id, envelope_hash HAVING count(*) > 1) d")
expect_true "no revision is stored twice ($dup)" test "$dup" = 0
dev laptop-a ls "$POUCH_ID" --json
for i in 121 180 240; do
    expect_true "f$i.txt is stored once" test "$(jq "[.items[] | select(.name == \"many/f$i.txt\")] | length" <<<"$OUT")" = 1
done
expect_true "the 120 new files are live, the 120 old ones deleted" \
    test "$(jq '[.items[] | select(.name | startswith("many/"))] | length' <<<"$OUT")" = 120
artifacts_after=$(sql "SELECT count(*) FROM artifacts WHERE pouch_id = '$POUCH_ID'")
expect_true "exactly 120 artifacts were made ($artifacts_before -> $artifacts_after)" \
    test $((artifacts_after - artifacts_before)) = 120
dev laptop-b sync "$B"
expect_true "B ends with the same tree" same_tree "$A" "$B"
check a_killed_push_resumes_and_stores_each_file_once

# --- a pull reads the event page, not one head per artifact ---------------------------------------
# The events bring each revision while a page's revisions fit 1 MiB (docs/SYNC.md): a pull of N
# changed files is one events request instead of 1 + N; the revisions past the budget, and only
# those, are read one by one. Counted from POUCH_API_LOG (every JSON answer the CLI receives).
count_pull() {  # count_pull LOG: syncs B, logging its requests to LOG (and the suite's log)
    rm -f "$1"
    export POUCH_API_LOG=$1
    dev laptop-b sync "$B"
    POUCH_API_LOG=$api_log
    [[ -n $api_log && -f $1 ]] && cat "$1" >>"$api_log"
    [[ -n $api_log ]] || unset POUCH_API_LOG
    events_calls=$(jq -s '[.[] | select(.path | test("/events"))] | length' "$1")
    head_calls=$(jq -s '[.[] | select(.path | test("/revisions"))] | length' "$1")
    not_inlined=$(jq -s '[.[] | select(.path | test("/events")) | .body | fromjson | .data.items[]
                          | select(.kind == "revision" and .revision == null)] | length' "$1")
}
mkdir -p "$A/burst"
for i in $(seq 1 30); do echo "burst $i" >"$A/burst/b$i.txt"; done
dev laptop-a push "$A"
count_pull "$CLI_TMP/pull-small.log"
expect_true "the pull exits 0 and receives the 30 files ($RC: $ERR)" said 30 received
expect_true "B holds them" same_tree "$A" "$B"
expect_true "one events request (got $events_calls)" test "$events_calls" = 1
expect_true "and no revision read one by one (got $head_calls; 30 before the events said enough)" test "$head_calls" = 0
echo "# pull of 30 changed files: $events_calls events + $head_calls revisions requests ($(wc -l <"$CLI_TMP/pull-small.log") in all)"
check a_pull_of_small_changes_reads_no_head_one_by_one

# 20 files of 60 KB (inline data, ~110 KB envelopes): about 2 MiB, past the 1 MiB budget. The
# pull applies a page up to its first revision past the budget and asks for the next page from
# there, which brings those along: none is read one by one (a device that missed 10,000 files
# would otherwise read most of them one request each).
for i in $(seq 1 20); do head -c 60000 /dev/urandom >"$A/burst/big$i.bin"; done
dev laptop-a push "$A"
count_pull "$CLI_TMP/pull-big.log"
expect_true "the pull exits 0 and receives the 20 files ($RC: $ERR)" said 20 received
expect_true "B holds them" same_tree "$A" "$B"
expect_true "some revisions were past a page's budget (got $not_inlined)" test "$not_inlined" -gt 0
expect_true "none was read one by one (got $head_calls)" test "$head_calls" = 0
expect_true "the events came in several pages (got $events_calls)" test "$events_calls" -ge 3
echo "# pull of 20 changed 60 KB files: $events_calls events + $head_calls revisions requests"
check a_pull_past_the_budget_reads_the_next_page_not_one_by_one

# --- tokens -----------------------------------------------------------------------------------------

cfgb=$CLI_TMP/laptop-b/pouch
old_rt=$(jq -r .refresh_token "$cfgb/device.json")
cp "$cfgb/device.json" "$CLI_TMP/device-b.json"
jq '.access_expires_at = 0' "$cfgb/device.json" >"$CLI_TMP/d.json" && cp "$CLI_TMP/d.json" "$cfgb/device.json"
dev laptop-b devices
expect_true "an expired access token is refreshed transparently ($RC: $ERR)" test "$RC" = 0
expect_true "the refresh token rotated" test "$(jq -r .refresh_token "$cfgb/device.json")" != "$old_rt"
good=$(cat "$cfgb/device.json")
jq '.access_expires_at = 0' "$CLI_TMP/device-b.json" >"$cfgb/device.json"
dev laptop-b devices
expect_true "a spent refresh token ends the session with exit 3 ($RC)" test "$RC" = 3
expect_true "and says to log in again ($ERR)" grep -q "pouch login" <<<"$ERR"
printf '%s\n' "$good" >"$cfgb/device.json"
dev laptop-b devices
expect_true "the device works again with its current tokens ($RC: $ERR)" test "$RC" = 0
check tokens_refresh_transparently_and_reuse_is_said_plainly

# --- revocation and logout --------------------------------------------------------------------------

gen_before=$(sql "SELECT key_gen FROM pouches WHERE id = '$POUCH_ID'")
web revoke "$(device_id laptop-b)" >/dev/null
dev laptop-b ls
expect_true "a revoked device is refused with exit 3 ($RC)" test "$RC" = 3
expect_true "and says it was revoked ($ERR)" grep -q "revoked" <<<"$ERR"
expect_true "the browser rotated the pouch key" test "$(sql "SELECT key_gen FROM pouches WHERE id = '$POUCH_ID'")" = $((gen_before + 1))
echo "after the rotation" >"$A/rotated.txt"
dev laptop-a sync "$A"
expect_true "A writes under the new key generation ($RC: $ERR)" test "$RC" = 0
expect_true "the new revision uses key_gen $((gen_before + 1))" \
    test "$(sql "SELECT key_gen FROM revisions WHERE pouch_id = '$POUCH_ID' ORDER BY seq DESC LIMIT 1")" = $((gen_before + 1))
web get rotated.txt >"$CLI_TMP/rot.txt"
expect_true "the web member reads it" cmp -s "$A/rotated.txt" "$CLI_TMP/rot.txt"
dev laptop-b logout --local
expect_true "logout --local forgets the revoked device" test "$RC" = 0 -a ! -e "$cfgb/device.json"
check a_revoked_device_is_refused_and_says_so

login laptop-c
gen_before=$(sql "SELECT key_gen FROM pouches WHERE id = '$POUCH_ID'")
member_c=$(member_id laptop-c)
account=$(jq -r .account_id "$cfg/device.json")
dev laptop-c logout
expect_true "logout exits 0 ($RC: $ERR)" test "$RC" = 0
expect_true "logout forgets the device locally" test ! -e "$CLI_TMP/laptop-c/pouch/device.json"
expect_true "the device is revoked on the server" test -n "$(sql "SELECT revoked_at FROM devices WHERE member_id = '$member_c'")"
removal=$(b64url_decode "$(sql "SELECT statement FROM roster_entries WHERE account_id = '$account' ORDER BY idx DESC LIMIT 1")")
expect_true "the removal is signed with rotated_to = generation + 1 ($removal)" \
    test "$(jq -r '"\(.kind) \(.member_id) \(.rotated_to)"' <<<"$removal")" = "remove $member_c $((gen_before + 1))"
expect_true "the device that left sent no new keys: the pouch key did not rotate" \
    test "$(sql "SELECT key_gen FROM pouches WHERE id = '$POUCH_ID'")" = "$gen_before"
expect_true "and no envelope of its making is stored" \
    test "$(sql "SELECT count(*) FROM key_envelopes WHERE created_by_member = '$member_c'")" = 0
expect_true "logout says the rotation is the web app's ($OUT)" grep -q "Rotate keys now" <<<"$OUT"
echo "after logout" >"$A/after-logout.txt"
dev laptop-a sync "$A"
expect_true "A verifies the removal and writes under the current key, made by the web member ($RC: $ERR)" test "$RC" = 0
web get after-logout.txt >"$CLI_TMP/al.txt"
expect_true "the web member verifies the roster and reads it" cmp -s "$A/after-logout.txt" "$CLI_TMP/al.txt"
web rotate >/dev/null
echo "after the owed rotation" >"$A/after-rotation.txt"
dev laptop-a sync "$A"
expect_true "once the web member rotates, A writes under generation $((gen_before + 1)) ($RC: $ERR)" \
    test "$RC" = 0 -a "$(sql "SELECT key_gen FROM revisions WHERE pouch_id = '$POUCH_ID' ORDER BY seq DESC LIMIT 1")" = $((gen_before + 1))
check logout_signs_a_removal_with_rotated_to_and_leaves_the_rotation_to_the_web_app

# --- a device given only the newest key generation -----------------------------------------------

APPROVE_ARGS=--current-only login laptop-d
D=$CLI_TMP/D
dev laptop-d sync "$D"
expect_true "a sync that meets revisions it has no key for exits 7 ($RC)" test "$RC" = 7
expect_true "and names what it cannot read ($ERR)" grep -q "skipped artifact" <<<"$ERR"
expect_true "files of the newest generation still arrive" cmp -s "$A/after-rotation.txt" "$D/after-rotation.txt"
expect_true "files of older generations do not" test ! -e "$D/big.bin"
check a_device_without_old_keys_reads_what_it_can_and_says_what_it_cannot

# --- a key sealed to the device after the revisions it opens ---------------------------------------

login laptop-f
F=$CLI_TMP/F
dev laptop-f sync "$F"
expect_true "F, given every generation, syncs the folder ($RC: $ERR)" test "$RC" = 0
member_f=$(member_id laptop-f)
web rotate --leave-out "$member_f" >/dev/null
echo "sealed late" >"$A/sealed-late.txt"
dev laptop-a sync "$A"
expect_true "A writes under the generation F was left out of ($RC: $ERR)" test "$RC" = 0
dev laptop-f sync "$F"
expect_true "F cannot read it yet and exits 7 ($RC)" test "$RC" = 7
expect_true "and names it ($ERR)" grep -q "skipped artifact" <<<"$ERR"
web seal "$member_f"
dev laptop-f sync "$F"
expect_true "once the key is sealed to F, its next sync reads what its cursor passed ($RC: $ERR)" test "$RC" = 0
expect_true "and the file arrives" cmp -s "$A/sealed-late.txt" "$F/sealed-late.txt"
check a_key_sealed_late_opens_what_an_earlier_sync_could_not_read

# --- key generations a server or a removed member cannot move back -------------------------------

# A rollback: the server names a generation below the one A holds. A reads on, writes nothing.
gen=$(sql "SELECT key_gen FROM pouches WHERE id = '$POUCH_ID'")
revs=$(sql "SELECT count(*) FROM revisions WHERE pouch_id = '$POUCH_ID'")
sql "UPDATE pouches SET key_gen = $((gen - 1)) WHERE id = '$POUCH_ID'"
echo "under a rollback" >"$A/rollback.txt"
dev laptop-a sync "$A"
expect_true "a sync under a rolled-back generation exits 5 ($RC)" test "$RC" = 5
expect_true "and says rollback ($ERR)" grep -q "rollback: the service names key generation $((gen - 1))" <<<"$ERR"
expect_true "nothing was written" test "$(growth "$revs" "$(sql "SELECT count(*) FROM revisions WHERE pouch_id = '$POUCH_ID'")")" = 0
expect_true "keys.json keeps the high-water mark $gen" \
    test "$(jq -r --arg p "$POUCH_ID" '.pouches[] | select(.id == $p) | .high' "$cfg/keys.json")" = "$gen"
sql "UPDATE pouches SET key_gen = $gen WHERE id = '$POUCH_ID'"
dev laptop-a sync "$A"
expect_true "with the generation back, the file is sent ($RC: $ERR)" test "$RC" = 0
web get rollback.txt >"$CLI_TMP/rb.txt"
expect_true "and reads back" cmp -s "$A/rollback.txt" "$CLI_TMP/rb.txt"
check a_rolled_back_key_generation_is_refused_and_nothing_written

# A keys.json of version 1 (keys only) is read, its keys' envelopes checked again, and rewritten.
jq '{v: 1, pouches: (.pouches | map({key: .id, value: (.keys | map({key: (.key_gen | tostring), value: .key}) | from_entries)}) | from_entries)}' \
    "$cfg/keys.json" >"$CLI_TMP/keys-v1.json" && cp "$CLI_TMP/keys-v1.json" "$cfg/keys.json"
echo "after the migration" >"$A/migrated.txt"
dev laptop-a sync "$A"
expect_true "a sync with a version 1 keys.json works ($RC: $ERR)" test "$RC" = 0
expect_true "keys.json is version 2 again, every key with its creator" \
    test "$(jq -r '[.v, ([.pouches[].keys[] | select(.creator == "")] | length)] | join(" ")' "$cfg/keys.json")" = "2 0"
check a_version_1_keys_json_is_checked_again_and_rewritten

# member_state NAME: a pouch-testweb state directory that acts with device NAME's member keys
# (the web member's session only lists): what a removed member could still sign.
member_state() {
    local d=$CLI_TMP/$1-member
    mkdir -p "$d"
    jq --arg m "$(member_id "$1")" '.member_id = $m' "$CLI_TMP/web/web.json" >"$d/web.json"
    cp "$CLI_TMP/$1/pouch/sign.pem" "$CLI_TMP/$1/pouch/enc.pem" "$d/"
    echo "$d"
}
# serve_envelopes BODY: the server stores the envelopes as if their maker had sent them, and
# names their generation current (what a server colluding with that member can do).
serve_envelopes() {
    sql "INSERT INTO key_envelopes (pouch_id, member_id, key_gen, hpke_enc, ciphertext, created_by_member, signature)
         SELECT * FROM jsonb_to_recordset('$1'::jsonb -> 'key_envelopes') AS x(pouch_id uuid, member_id uuid,
             key_gen bigint, hpke_enc text, ciphertext text, created_by_member uuid, signature text)"
    sql "UPDATE pouches SET key_gen = $(jq '.key_envelopes[0].key_gen' <<<"$1") WHERE id = '$POUCH_ID'"
}

# A removed member's key at its rotated_to: refused, nothing written with it.
login laptop-g
G=$(member_state laptop-g)
gen=$(sql "SELECT key_gen FROM pouches WHERE id = '$POUCH_ID'")
dev laptop-g logout
forged=$("$TESTWEB" rotate --state "$G" --print)
serve_envelopes "$forged"
revs=$(sql "SELECT count(*) FROM revisions WHERE pouch_id = '$POUCH_ID'")
echo "not under a removed member's key" >"$A/refused-key.txt"
dev laptop-a sync "$A"
expect_true "an envelope a removed member made at its rotated_to ($((gen + 1))) is refused: exit 7 ($RC)" test "$RC" = 7
expect_true "and says so ($ERR)" grep -q "removed from the roster with rotated_to $((gen + 1))" <<<"$ERR"
expect_true "nothing was written under it" test "$(growth "$revs" "$(sql "SELECT count(*) FROM revisions WHERE pouch_id = '$POUCH_ID'")")" = 0
web rotate >/dev/null
dev laptop-a sync "$A"
expect_true "after the web member's rotation the file is sent under generation $((gen + 2)) ($RC: $ERR)" \
    test "$RC" = 0 -a "$(sql "SELECT key_gen FROM revisions WHERE pouch_id = '$POUCH_ID' ORDER BY seq DESC LIMIT 1")" = $((gen + 2))
check a_key_envelope_by_a_removed_member_at_its_rotated_to_is_refused

# A key a member made before its removal (below its rotated_to) still opens what was written
# under it, but nothing new is written under it until a member that stays rotates.
login laptop-h
H=$(member_state laptop-h)
forged=$("$TESTWEB" rotate --state "$H" --print)
serve_envelopes "$forged"
gen=$(sql "SELECT key_gen FROM pouches WHERE id = '$POUCH_ID'")
dev laptop-h logout
revs=$(sql "SELECT count(*) FROM revisions WHERE pouch_id = '$POUCH_ID'")
blobs=$(sql "SELECT count(*) FROM blobs")
echo "held until the rotation" >"$A/held.txt"
head -c 100000 /dev/urandom >"$A/held-big.bin"
dev laptop-a sync "$A"
expect_true "writes under a key a removed member made are held: exit 7 ($RC)" test "$RC" = 7
expect_true "and it says it waits for a key rotation, once ($ERR)" \
    test "$(grep -c "made by a removed member; waiting for a key rotation" <<<"$ERR")" = 1
expect_true "no chunk of a held file was uploaded" test "$(growth "$blobs" "$(sql "SELECT count(*) FROM blobs")")" = 0
expect_true "nothing was written" test "$(growth "$revs" "$(sql "SELECT count(*) FROM revisions WHERE pouch_id = '$POUCH_ID'")")" = 0
expect_true "the local file stays" test -f "$A/held.txt"
web rotate >/dev/null
dev laptop-a sync "$A"
expect_true "after the rotation the held file is sent ($RC: $ERR)" \
    test "$RC" = 0 -a "$(sql "SELECT key_gen FROM revisions WHERE pouch_id = '$POUCH_ID' ORDER BY seq DESC LIMIT 1")" = $((gen + 1))
web get held.txt >"$CLI_TMP/held.txt"
expect_true "and reads back" cmp -s "$A/held.txt" "$CLI_TMP/held.txt"
check writes_under_a_key_a_removed_member_made_wait_for_a_rotation

# --- a login bound to the account by a connect token ----------------------------------------------

web_token=$(jq -r .session_token "$CLI_TMP/web/web.json")
connect=$(curl -sS -X POST -H "Authorization: Bearer $web_token" "$POUCH_URL/v1/cli-auth/connect-tokens" |
    jq -r .data.connect_token)
LOGIN_ARGS="--connect-token $connect" login laptop-e
expect_true "a login with a connect token exits 0 ($RC: $LOGIN_OUT)" test "$RC" = 0
expect_true "the request was bound to the web member's account" \
    test "$(sql "SELECT connect_account_id = account_id FROM cli_login_requests WHERE id = '$REQ'")" = t
expect_true "the token is used up" \
    test "$(sql "SELECT count(*) FROM connect_tokens WHERE used_at IS NOT NULL")" -ge 1
dev laptop-e status
expect_true "the device is enrolled ($RC: $ERR)" test "$RC" = 0
dev nobody login --server "$POUCH_URL" --connect-token svc_lt_short
expect_true "a malformed connect token exits 2 before any request" test "$RC" = 2
expect_true "and says what a token looks like ($ERR)" grep -q "svc_lt_ followed by 32" <<<"$ERR"
check a_connect_token_binds_the_login_to_the_account

# --- the file system side: symlinks, type clashes, unsafe names, modes, 100,000 files -------------

source tests/cli/sharing.sh
source tests/cli/files.sh

# --- the command line itself ----------------------------------------------------------------------

dev laptop-a help --man
expect_true "docs/pouch.1 is what \`pouch help --man\` prints" bash -c "diff -q <(printf '%s\n' \"\$1\") docs/pouch.1" _ "$OUT"
for c in login logout status devices rename ls push pull sync help; do
    dev laptop-a "$c" --help
    expect_true "$c --help exits 0" test "$RC" = 0
    expect_true "$c --help shows its usage" grep -q "usage: pouch $c" <<<"$OUT"
done
dev laptop-a push --nope
expect_true "an unknown option exits 2" test "$RC" = 2
dev nobody status
expect_true "status without a login exits 3" test "$RC" = 3
dev nobody ls
expect_true "ls without a login exits 3 and says so" test "$RC" = 3 -a -n "$(grep 'pouch login' <<<"$ERR")"
check help_man_page_and_exit_codes

smoke_done
