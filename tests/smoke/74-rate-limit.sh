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

# burst PATH COUNT: COUNT parallel GETs; each answer's status, headers and body in DIR/N.*
burst() {
    local dir=$SMOKE_TMP/burst$(date +%s%N)
    mkdir -p "$dir"
    seq "$2" | xargs -P 64 -I{} curl -sS --max-time 20 -o "$dir/{}.body" -D "$dir/{}.headers" \
        -w '%{http_code}\n' "$POUCH_URL_RATE_LIMITED$1" >"$dir/statuses" 2>/dev/null || true
    BURST_DIR=$dir
}
count() { grep -c "^$1\$" "$BURST_DIR/statuses" || true; }

burst /v1/health 300
ok=$(count 200) limited=$(count 429)
expect_true "statuses other than 200 and 429: $(sort "$BURST_DIR/statuses" | uniq -c | tr '\n' ' ')" \
    test "$((ok + limited))" = 300
expect_true "some requests limited ($limited)" test "$limited" -gt 0
expect_true "at least the burst served ($ok)" test "$ok" -ge 100
# One of the refused answers, found by its status line.
f=$(grep -l '^HTTP/1.1 429' "$BURST_DIR"/*.headers | head -1)
BODY=$(cat "${f%.headers}.body")
HEADERS=$(tr -d '\r' <"$f")
STATUS=429
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
