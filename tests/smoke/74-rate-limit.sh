#!/usr/bin/env bash
# 74-rate-limit.sh -- the general rate limit (decisions §9: 50 r/s, burst 100, per address)
# on the nginx that runs with limits on (POUCH_URL_RATE_LIMITED): a burst of 300 parallel
# GET /v1/health requests gets some 429 rate_limited answers in the JSON envelope with
# Retry-After, and at least the burst is served. Also an admin path behind the same limit.
# Relies on lib.sh; skipped (no checks) when test.sh runs no rate-limited nginx.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"

if [[ -z ${POUCH_URL_RATE_LIMITED:-} ]]; then
    echo "74-rate-limit: POUCH_URL_RATE_LIMITED is not set; nothing to test"
    smoke_done
fi

# burst PATH COUNT: COUNT GETs from one curl, up to 100 at once (separate curl processes
# start too slowly on a busy machine to beat 50 r/s). Each answer, headers included, lands
# in BURST_DIR/N; the statuses in BURST_DIR/statuses.
burst() {
    BURST_DIR=$SMOKE_TMP/burst$(date +%s%N)
    mkdir -p "$BURST_DIR"
    local i
    for ((i = 1; i <= $2; i++)); do
        printf 'url = "%s"\noutput = "%s"\n' "$POUCH_URL_RATE_LIMITED$1" "$BURST_DIR/$i"
    done >"$BURST_DIR/config"
    curl -sS --parallel --parallel-immediate --parallel-max 100 --max-time 20 -i \
        -w '%{http_code}\n' -K "$BURST_DIR/config" >"$BURST_DIR/statuses" 2>/dev/null || true
}
count() { grep -c "^$1\$" "$BURST_DIR/statuses" || true; }

burst /v1/health 300
ok=$(count 200) limited=$(count 429)
expect_true "statuses other than 200 and 429: $(sort "$BURST_DIR/statuses" | uniq -c | tr '\n' ' ')" \
    test "$((ok + limited))" = 300
expect_true "some requests limited ($limited)" test "$limited" -gt 0
expect_true "at least the burst served ($ok)" test "$ok" -ge 100
# One of the refused answers: headers, a blank line, the body.
f=$(grep -l '^HTTP/1.1 429' "$BURST_DIR"/[0-9]* | head -1 || true)
HEADERS=$(sed -n '1,/^\r\?$/p' "${f:-/dev/null}" | tr -d '\r')
BODY=$(sed '1,/^\r\?$/d' "${f:-/dev/null}")
STATUS=$(head -1 "${f:-/dev/null}" | cut -d' ' -f2)
expect_error 429 rate_limited
expect_header Retry-After 1
expect_header Content-Type application/json
check api_burst_over_the_limit_answers_json_429_with_retry_after

# The limit refills at 50 r/s: after two seconds requests pass again.
sleep 2.5
POUCH_URL=$POUCH_URL_RATE_LIMITED req GET /v1/health
expect_status 200
check rate_limit_recovers_after_the_burst

burst /v1/admin/plans 300
expect_true "admin path limited too ($(count 429))" test "$(count 429)" -gt 0
expect_true "others are JSON 401 ($(count 401))" test "$(($(count 401) + $(count 429)))" = 300
check admin_paths_share_the_general_limit

sleep 2.5 # leave the limiter empty for later scripts
smoke_done
