#!/usr/bin/env bash
# 23-cli-redis-down.sh -- the CLI login and DPoP without Redis (decisions §1, §6, §11): with
# Redis stopped a login still completes (the token long-poll re-reads the database every
# second) and a replayed proof is still refused (the Postgres replay table serves); once Redis
# is back, long-polls are woken at once again and a proof first seen during the outage stays
# refused. Relies on tests/smoke/lib.sh, flows.sh, psql and the stack's redis-ctl.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

# Later scripts expect Redis running, whatever happens here.
trap 'stack_redis_start >/dev/null 2>&1 || true; rm -rf "$SMOKE_TMP"' EXIT

flow_user nored
flow_device before  # a device enrolled while Redis runs, for the replay checks
KEY_BEFORE=$DEVICE_KEY AT_BEFORE=$ACCESS

subscriber_connects() { grep -c 'redis subscriber connected' "$(stack_log cliauth)" || true; }
reconnected() { (($(subscriber_connects) > connects_before)); }
connects_before=$(subscriber_connects)
stack_redis_stop

# --- a whole login without Redis ---------------------------------------------------------------
flow_cli_keys during
flow_start_login
expect_status 200
check start_works_without_redis

flow_redeem_bg "$REQ" 30 "$SMOKE_TMP/lp"
retry 10 flow_polling_started "$REQ"
sleep 0.3
flow_approve_timed "$REQ"
expect_status 200
wait "$BG_PID" || true
lp_ms=$(($(cat "$SMOKE_TMP/lp.end") - APPROVE_SENT))
expect_true "long-poll answered 200" test "$(cat "$SMOKE_TMP/lp.status")" = 200
expect_true "approved form" test "$(jq -r .data.status "$SMOKE_TMP/lp.body")" = approved
expect_true "answered ${lp_ms} ms after the approval was sent (want < 2500: one database re-read a second)" \
    test "$lp_ms" -lt 2500
expect_true "request redeemed" \
    test "$(sql "SELECT status FROM cli_login_requests WHERE id = '$REQ'")" = redeemed
check login_completes_without_redis_by_polling_the_database
echo "  (without Redis the long-poll answered ${lp_ms} ms after the approval was sent)"
AT_DURING=$(jq -r .data.access_token "$SMOKE_TMP/lp.body")
KEY_DURING=$DEVICE_KEY

DEVICE_KEY=$KEY_DURING ACCESS=$AT_DURING cli_req GET /v1/devices
expect_status 200
check token_issued_without_redis_works

# --- DPoP replay protection without Redis --------------------------------------------------------
proof=$(flow_dpop "$KEY_BEFORE" GET /v1/devices "$AT_BEFORE")
jti=$(b64url_decode "$(cut -d. -f2 <<<"$proof")" | jq -r .jti)
req GET /v1/devices "" -H "Authorization: DPoP $AT_BEFORE" -H "DPoP: $proof"
expect_status 200
expect_true "jti recorded in the Postgres replay table" \
    test "$(sql "SELECT count(*) FROM dpop_replay WHERE jti = '$jti' AND expires_at > now()")" = 1
req GET /v1/devices "" -H "Authorization: DPoP $AT_BEFORE" -H "DPoP: $proof"
expect_error 401 invalid_dpop_proof
check replayed_proof_is_refused_without_redis

flow_cli_keys again
start_proof=$(flow_dpop "$DEVICE_KEY" POST /v1/cli-auth/requests)
req POST /v1/cli-auth/requests "$(flow_start_body)" -H "DPoP: $start_proof"
expect_status 200
req POST /v1/cli-auth/requests "$(flow_start_body)" -H "DPoP: $start_proof"
expect_error 401 invalid_dpop_proof
check replayed_login_start_is_refused_without_redis

# --- Redis back ----------------------------------------------------------------------------------
stack_redis_start
req GET /v1/devices "" -H "Authorization: DPoP $AT_BEFORE" -H "DPoP: $proof"
expect_error 401 invalid_dpop_proof
check proof_first_seen_during_the_outage_stays_refused_after_it

# cliauth's subscriber reconnects within about a second and says so in its log.
expect_true "cliauth's Redis subscriber reconnected" retry 10 reconnected
flow_cli_keys after
flow_start_login
flow_redeem_bg "$REQ" 30 "$SMOKE_TMP/lp2"
retry 10 flow_polling_started "$REQ"
sleep 0.3
flow_approve_timed "$REQ"
expect_status 200
wait "$BG_PID" || true
lp_ms=$(($(cat "$SMOKE_TMP/lp2.end") - APPROVE_SENT))
expect_true "long-poll answered 200" test "$(cat "$SMOKE_TMP/lp2.status")" = 200
expect_true "answered ${lp_ms} ms after the approval was sent (want < 1000 with Redis back)" \
    test "$lp_ms" -lt 1000
check long_poll_is_woken_at_once_again_after_redis_returns

smoke_done
