#!/usr/bin/env bash
# 82-slow-body.sh -- slow-loris style request bodies (issue 7 part 5): more connections than a
# handler has threads (POUCH_THREADS, 16 on the test stack) each send a body at 1 byte per
# 200 ms. nginx buffers a request body before it opens the FastCGI connection
# (fastcgi_request_buffering is on by default), so no handler thread waits on them: while they
# dribble, the handler's socket gains no connection from them (nginx keeps idle connections to
# the handler open, fastcgi_keep_conn on: those present before are the baseline), ordinary
# requests to the same handler answer quickly, and each slow request is answered once its
# body is complete.
# Relies on lib.sh, bash /dev/tcp and ss (iproute2).
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"

threads=${POUCH_THREADS:-16}
slow=$((threads + 8))
body='{"email":"slow@example.com","password":"slow but steady"}'   # 55 bytes: 11 s at 5 B/s
hostport=${POUCH_URL#http://}
host=${hostport%%:*}
port=${hostport##*:}
sock=$POUCH_VAR/run/account.sock
[[ -S $sock ]] || sock=$(find "$POUCH_VAR" /tmp -maxdepth 3 -name account.sock -type s 2>/dev/null | head -n 1)

# slow_request N: one login whose body trickles in at 1 byte per 200 ms; the status line of
# the answer lands in $SMOKE_TMP/slow.N.
slow_request() {
    local n=$1 fd i
    exec {fd}<>"/dev/tcp/$host/$port"
    printf 'POST /v1/account/login HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n' \
        "$hostport" "${#body}" >&"$fd"
    for ((i = 0; i < ${#body}; i++)); do
        printf '%s' "${body:i:1}" >&"$fd"
        sleep 0.2
    done
    head -n 1 <&"$fd" | tr -d '\r' >"$SMOKE_TMP/slow.$n"
    exec {fd}>&-
}

# handler_connections: connections currently open on the account handler's unix socket.
handler_connections() { ss -xH state connected 2>/dev/null | grep -c -F "$sock" || true; }

# refused_total: the account handler's count of logins the hashing pool answered 503 ("absent"
# or "scrape-failed" when it cannot be read).
refused_total() {
    local page
    page=$(curl -fsS --max-time 10 "$POUCH_METRICS_URL/metrics/account" 2>/dev/null) || { echo scrape-failed; return 0; }
    awk '/^pouch_argon2_refused_total\{group="account"\} / { print $2; found = 1 }
        END { if (!found) print "absent" }' <<<"$page"
}
refused_before=$(refused_total)
conns_before=$(handler_connections)

pids=()
for ((n = 0; n < slow; n++)); do
    slow_request "$n" &
    pids+=($!)
done
sleep 2    # every slow connection is open and has sent its headers and a few bytes

worst=0
max_conns=0
for _ in $(seq 1 20); do
    t0=$(date +%s%N)
    req GET /v1/health
    ms=$((($(date +%s%N) - t0) / 1000000))
    ((ms > worst)) && worst=$ms
    [[ $STATUS == 200 ]] || smoke_fail "health answered $STATUS while bodies trickled in"
    c=$(handler_connections)
    ((c > max_conns)) && max_conns=$c
    sleep 0.2
done
echo "slow bodies: $slow connections at 5 B/s; health worst ${worst} ms; handler socket connections seen at most $max_conns ($conns_before kept-alive before)"
expect_true "health took $worst ms (want < 2500 on a busy machine) with $slow slow bodies in flight" test "$worst" -lt 2500
check requests_answer_quickly_while_slow_bodies_trickle_in

if [[ -S $sock ]]; then
    # Each check sees at most the health request in flight (on a kept connection or a new
    # one), never the slow ones.
    expect_true "handler socket had $max_conns connections, $conns_before before (slow bodies reached it)" test "$max_conns" -le $((conns_before + 2))
else
    smoke_fail "account.sock not found under $POUCH_VAR"
fi
check nginx_buffers_slow_bodies_before_the_handler

# A normal login while they still trickle: the handler is free for real work too.
req POST /v1/account/login '{"email":"nobody@example.com","password":"wrong password"}'
expect_error 401 invalid_credentials
check login_answers_while_slow_bodies_trickle_in

for pid in "${pids[@]}"; do wait "$pid" || true; done
# They complete together, so the bounded password-hashing pool (2 running, 8 queued; decisions
# §13) hashes some and answers the rest 503: every one is answered, none hangs. How many of
# the queued ones start within their 2 s depends on the machine's speed, so the count proves
# instead that every 503 is the pool's own refusal (its counter moved by exactly that many)
# and that at least the two the pool runs at once were hashed.
answered=0 hashed=0 refused=0
for ((n = 0; n < slow; n++)); do
    line=$(cat "$SMOKE_TMP/slow.$n" 2>/dev/null || true)
    [[ $line == "HTTP/1.1 401"* ]] && hashed=$((hashed + 1))
    [[ $line == "HTTP/1.1 503"* ]] && refused=$((refused + 1))
    [[ $line == "HTTP/1.1 401"* || $line == "HTTP/1.1 503"* ]] && answered=$((answered + 1))
done
refused_after=$(refused_total)
echo "slow logins: $hashed hashed (401), $refused refused (503); pool refusals counted $refused_before -> $refused_after"
expect_true "$answered of $slow slow logins answered 401 or 503 once complete" test "$answered" -eq "$slow"
expect_true "$hashed of $slow hashed (want at least the pool's 2 threads)" test "$hashed" -ge 2
expect_true "pool refusals $refused_before -> $refused_after, want +$refused (each 503 is the pool's)" \
    test "$(growth "$refused_before" "$refused_after")" = "$refused"
check slow_bodies_are_answered_once_complete

smoke_done
