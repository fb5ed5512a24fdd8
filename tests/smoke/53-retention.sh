#!/usr/bin/env bash
# 53-retention.sh -- what the service keeps and for how long (decisions §13, issue 13): a web
# session ends 30 days after login or after 14 days unused; `pouchctl gc` deletes ended web
# sessions, access and refresh tokens a day past expiry, login requests a day after they
# ended, DPoP replay rows 5 minutes past expiry (51-blobs-gc) and commit answers older than
# POUCH_IDEMPOTENCY_DAYS, each at its edge (just past goes, just before stays). Ages are set
# by backdating rows with psql. Relies on tests/smoke/lib.sh, flows.sh and pouchctl.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

gc() { POUCH_DATABASE_URL=$POUCH_DATABASE_URL "$POUCHCTL" gc >"$SMOKE_TMP/gc.out"; }
exists() { sql "SELECT count(*) FROM $1 WHERE $2"; }

# --- web sessions: 30 days absolute, 14 days idle ----------------------------------------------
flow_web_user retention
A=$WEB_TOKEN A_USER=$WEB_USER
web_req GET /v1/account
expect_status 200
login=$(sql "SELECT expires_at - created_at FROM web_sessions WHERE user_id = '$A_USER'")
expect_true "a session is given 30 days ($login)" test "$login" = "30 days"
# Used a minute ago but begun 30 days ago: over.
sql "UPDATE web_sessions SET created_at = now() - interval '30 days', expires_at = now() - interval '1 second',
                             last_used_at = now() - interval '2 minutes' WHERE user_id = '$A_USER'" >/dev/null
web_req GET /v1/account
expect_error 401 token_expired
check a_session_ends_30_days_after_login_even_when_used

flow_web_user idle
B=$WEB_TOKEN B_USER=$WEB_USER
sql "UPDATE web_sessions SET last_used_at = now() - interval '13 days 23 hours' WHERE user_id = '$B_USER'" >/dev/null
WEB_TOKEN=$B web_req GET /v1/account
expect_status 200
expect_true "using it moved last_used_at" \
    test "$(sql "SELECT last_used_at > now() - interval '1 minute' FROM web_sessions WHERE user_id = '$B_USER'")" = t
sql "UPDATE web_sessions SET last_used_at = now() - interval '14 days 1 minute' WHERE user_id = '$B_USER'" >/dev/null
WEB_TOKEN=$B web_req GET /v1/account
expect_error 401 token_expired
check a_session_unused_for_14_days_ends

flow_web_user fresh
C_USER=$WEB_USER
sql "UPDATE web_sessions SET last_used_at = now() - interval '13 days' WHERE user_id = '$C_USER'" >/dev/null
gc
expect_true "gc deleted the two ended sessions, kept the 13-day one" \
    test "$(exists web_sessions "user_id IN ('$A_USER', '$B_USER')"):$(exists web_sessions "user_id = '$C_USER'")" = 0:1
expect_true "gc said so: $(grep sessions "$SMOKE_TMP/gc.out")" grep -q "deleted [1-9][0-9]* web sessions" "$SMOKE_TMP/gc.out"
check gc_deletes_ended_sessions_and_keeps_live_ones

# --- tokens, login requests, commit answers -------------------------------------------------------
flow_user tokens
flow_device gone
dev=$DEVICE_ID
# Access and refresh tokens: one 25 hours past expiry (goes), one 23 hours past (stays).
sql "INSERT INTO access_tokens (token_hash, device_id, jkt, expires_at) VALUES
       ('old-at-$dev', '$dev', 'j', now() - interval '25 hours'), ('new-at-$dev', '$dev', 'j', now() - interval '23 hours')" >/dev/null
sql "INSERT INTO refresh_tokens (token_hash, device_id, jkt, expires_at, used_at) VALUES
       ('old-rt-$dev', '$dev', 'j', now() - interval '25 hours', now() - interval '31 days'),
       ('new-rt-$dev', '$dev', 'j', now() - interval '23 hours', now() - interval '29 days')" >/dev/null
# Login requests: redeemed 25 h ago (goes) and 23 h ago (stays); pending, expired 25 h ago (goes).
old_req=$REQ
sql "UPDATE cli_login_requests SET redeemed_at = now() - interval '25 hours' WHERE id = '$old_req'" >/dev/null
flow_cli_keys kept
flow_start_login
kept_req=$REQ
sql "UPDATE cli_login_requests SET status = 'redeemed', redeemed_at = now() - interval '23 hours' WHERE id = '$kept_req'" >/dev/null
flow_start_login
lapsed_req=$REQ
sql "UPDATE cli_login_requests SET created_at = now() - interval '26 hours', expires_at = now() - interval '25 hours' WHERE id = '$lapsed_req'" >/dev/null
# Commit answers: 31 days old (goes) and 29 days old (stays), then a replay of the old one.
old_op=$(flow_uuid)
a=$(flow_uuid) r=$(flow_uuid)
old_body=$(jq -nc --arg o "$old_op" --arg e "$EPOCH" --argjson op "$(flow_op put "$a" "$r" null env "$WEB_MEMBER")" '{operation_id:$o, epoch:$e, ops:[$op]}')
web_req POST "/v1/pouches/$POUCH/operations" "$old_body"
expect_json '.data.results[0].status' applied
old_seq=$(json '.data.results[0].seq')
flow_put_new "$WEB_TOKEN" "$POUCH" "$EPOCH" "$WEB_MEMBER" kept >/dev/null
sql "UPDATE commit_log SET created_at = now() - interval '31 days' WHERE operation_id = '$old_op'" >/dev/null
sql "UPDATE commit_log SET created_at = now() - interval '29 days' WHERE pouch_id = '$POUCH' AND operation_id <> '$old_op'" >/dev/null
gc
expect_true "tokens: the 25-hour-old ones gone, the 23-hour-old kept" \
    test "$(sql "SELECT string_agg(token_hash, ',' ORDER BY token_hash) FROM (SELECT token_hash FROM access_tokens WHERE device_id = '$dev' AND token_hash LIKE '%-at-%' UNION ALL SELECT token_hash FROM refresh_tokens WHERE device_id = '$dev' AND token_hash LIKE '%-rt-%') t")" = "new-at-$dev,new-rt-$dev"
expect_true "the device's live tokens kept" test "$(exists access_tokens "device_id = '$dev' AND token_hash NOT LIKE '%-at-%'")" = 1
expect_true "login requests: redeemed 25 h ago and expired 25 h ago gone, redeemed 23 h ago kept" \
    test "$(exists cli_login_requests "id IN ('$old_req', '$lapsed_req')"):$(exists cli_login_requests "id = '$kept_req'")" = 0:1
expect_true "commit answers: the 31-day-old one gone, the 29-day-old kept" \
    test "$(exists commit_log "operation_id = '$old_op'"):$(exists commit_log "pouch_id = '$POUCH'")" = 0:1
check gc_deletes_tokens_login_requests_and_commit_answers_past_their_retention

# The replay of the forgotten operation_id: its op names a revision already stored, which the
# commit answers as `applied` with its original seq (decisions §5.3), storing nothing twice.
web_req POST "/v1/pouches/$POUCH/operations" "$old_body"
expect_status 200
expect_json '.data.results[0].status' applied
expect_json '.data.results[0].seq' "$old_seq"
expect_true "the revision stored once" test "$(exists revisions "id = '$r'")" = 1
check a_replay_after_retention_applies_nothing_twice

POUCH_IDEMPOTENCY_DAYS=0 POUCH_DATABASE_URL=$POUCH_DATABASE_URL "$POUCHCTL" gc >/dev/null 2>"$SMOKE_TMP/gc.err" && status=0 || status=$?
expect_true "POUCH_IDEMPOTENCY_DAYS=0 refused (exit $status): $(cat "$SMOKE_TMP/gc.err")" test "$status" = 2
check gc_refuses_an_idempotency_window_below_a_day

smoke_done
