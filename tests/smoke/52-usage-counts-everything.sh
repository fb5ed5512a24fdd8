#!/usr/bin/env bash
# 52-usage-counts-everything.sh -- everything a tenant stores counts (decisions §13, issue 13):
# key envelopes, roster statements and kept share bundles are in `usage.stored_bytes` to the
# byte, their writers refuse growth past the plan with 403 quota_exceeded (at the limit passes,
# one byte past fails, nothing half-written), an account holds at most 1,000 live shares, and
# `pouchctl gc` drops the bundles of revoked, consumed and expired shares and gives their
# bytes back. Before, 10 POSTs stored 20,000 envelopes (135 MB) while usage stayed 0.
# Relies on tests/smoke/lib.sh, flows.sh and pouchctl.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

stored() { web_req GET /v1/account; json .data.usage.stored_bytes; }
# plan_limit BYTES: moves the account to a fresh plan of that storage limit.
plan_limit() {
    local plan
    plan=$(flow_uuid)
    sql "INSERT INTO plans (id, slug, name, pouch_limit, storage_bytes) VALUES ('$plan', 'u-${plan:0:8}', 'Usage test', 5, $1)" >/dev/null
    sql "UPDATE storage_accounts SET plan_id = '$plan' WHERE id = '$WEB_ACCOUNT'" >/dev/null
}
# env_json GEN MEMBER CIPHERTEXT: an envelope of POUCH by the web member (hpke_enc 4, signature 4).
env_json() {
    jq -nc --arg p "$POUCH" --arg m "$2" --argjson g "$1" --arg by "$WEB_MEMBER" --arg c "$3" \
        '{pouch_id:$p, member_id:$m, key_gen:$g, hpke_enc:"ZW5j", ciphertext:$c, created_by_member:$by, signature:"c2ln"}'
}

flow_web_user usage
body=$(flow_genesis_body "$(flow_uuid)" "$(flow_uuid)")
WEB_MEMBER=$(jq -r '.key_envelopes[0].created_by_member' <<<"$body")
POUCH=$(jq -r '.key_envelopes[0].pouch_id' <<<"$body")
web_req POST /v1/account/roster/genesis "$body"
expect_status 201
genesis_bytes=$(jq '(.statements[0] | (.statement | length) + (.signature | length))
                  + (.key_envelopes[0] | (.hpke_enc | length) + (.ciphertext | length) + (.signature | length))' <<<"$body")
expect_true "usage after genesis $(stored), want the statement and the envelope: $genesis_bytes" \
    test "$(stored)" = "$genesis_bytes"
check genesis_statement_and_envelope_count_in_usage_to_the_byte

web_req POST "/v1/pouches/$POUCH/key-envelopes" "{\"key_envelopes\":[$(env_json 2 "$WEB_MEMBER" "$(repeat c 100)")]}"
expect_status 200
expect_true "usage grew by the envelope's 108 bytes" test "$(stored)" = $((genesis_bytes + 108))
check a_stored_envelope_counts_in_usage

# --- quota at the exact byte for envelopes ----------------------------------------------------
used=$(stored)
plan_limit $((used + 108))
web_req POST "/v1/pouches/$POUCH/key-envelopes" "{\"key_envelopes\":[$(env_json 3 "$WEB_MEMBER" "$(repeat d 101)")]}"
expect_error 403 quota_exceeded
expect_json .error.details.limit_bytes $((used + 108))
expect_json .error.details.used_bytes "$used"
expect_json .error.details.requested_bytes 109
expect_true "nothing stored: usage and key_gen unchanged" \
    test "$(stored):$(sql "SELECT key_gen FROM pouches WHERE id = '$POUCH'")" = "$used:2"
web_req POST "/v1/pouches/$POUCH/key-envelopes" "{\"key_envelopes\":[$(env_json 3 "$WEB_MEMBER" "$(repeat d 100)")]}"
expect_status 200
expect_true "at the limit exactly" test "$(stored)" = $((used + 108))
check envelopes_fill_the_plan_to_the_byte_and_one_byte_more_is_refused

# --- the roster counts too: an approval past the limit is refused whole --------------------------
flow_cli_keys desk
flow_start_login "$(flow_start_body '.device_name = "desk"')"
flow_approve "$REQ"
expect_error 403 quota_exceeded
expect_true "no device, no roster entry, request still pending" \
    test "$(sql "SELECT count(*) FROM devices WHERE account_id = '$WEB_ACCOUNT'"):$(sql "SELECT count(*) FROM roster_entries WHERE account_id = '$WEB_ACCOUNT'"):$(sql "SELECT status FROM cli_login_requests WHERE id = '$REQ'")" = 0:1:pending
plan_limit 1073741824
flow_approve "$REQ" "$(flow_approve_body "$(flow_uuid)" "$WEB_MEMBER" "$POUCH" | jq -c '.key_envelopes[0].key_gen = 3')"
expect_status 200
statement_bytes=$(sql "SELECT octet_length(statement) + octet_length(signature) FROM roster_entries WHERE account_id = '$WEB_ACCOUNT' AND idx = 1")
env_bytes=$(sql "SELECT sum(octet_length(hpke_enc) + octet_length(ciphertext) + octet_length(signature)) FROM key_envelopes WHERE pouch_id = '$POUCH' AND member_id <> '$WEB_MEMBER'")
expect_true "usage grew by the statement ($statement_bytes) and the envelope ($env_bytes)" \
    test "$(stored)" = $((used + 108 + statement_bytes + env_bytes))
check roster_statements_count_and_an_approval_past_the_plan_is_refused_whole

# --- shares: bundles count while they are kept; gc gives them back ----------------------------
used=$(stored)
share=$(flow_uuid)
web_req POST "/v1/pouches/$POUCH/shares" "$(flow_share_body "$share")"
expect_status 201
share_bytes=$(($(jq -r '.bundle + .label_enc | length' <<<"$(flow_share_body x)")))
expect_true "usage grew by bundle + label ($share_bytes)" test "$(stored)" = $((used + share_bytes))
plan_limit $((used + share_bytes + share_bytes - 1))
web_req POST "/v1/pouches/$POUCH/shares" "$(flow_share_body "$(flow_uuid)")"
expect_error 403 quota_exceeded
expect_json .error.details.requested_bytes "$share_bytes"
expect_true "the refused share is not stored" test "$(sql "SELECT count(*) FROM shares WHERE account_id = '$WEB_ACCOUNT'")" = 1
plan_limit 1073741824
check share_bundles_count_against_the_plan

web_req POST "/v1/shares/$share/revoke"
expect_status 200
expect_true "a revoked share still holds its bytes until gc" test "$(stored)" = $((used + share_bytes))
POUCH_DATABASE_URL=$POUCH_DATABASE_URL "$POUCHCTL" gc >"$SMOKE_TMP/gc.out"
expect_true "gc said: $(grep bundles "$SMOKE_TMP/gc.out")" grep -q "dropped the bundles of [1-9]" "$SMOKE_TMP/gc.out"
expect_true "usage back to $used" test "$(stored)" = "$used"
expect_true "bundle gone, share still listed" \
    test "$(sql "SELECT bundle IS NULL FROM shares WHERE id = '$share'")" = t
web_req GET "/v1/pouches/$POUCH/shares"
expect_json '.data.items[0].state' revoked
req GET "/v1/shares/$share"
expect_error 410 share_unavailable
check gc_drops_bundles_of_revoked_shares_and_gives_their_bytes_back

# An expired and a consumed share lose their bundles too; an active one keeps it.
expired=$(flow_uuid) consumed=$(flow_uuid) live=$(flow_uuid)
for s in "$expired" "$consumed" "$live"; do
    web_req POST "/v1/pouches/$POUCH/shares" "$(flow_share_body "$s" '{"one_time":true}')"
done
sql "UPDATE shares SET expires_at = now() - interval '1 second' WHERE id = '$expired'" >/dev/null
req GET "/v1/shares/$consumed"
expect_status 200
POUCH_DATABASE_URL=$POUCH_DATABASE_URL "$POUCHCTL" gc >/dev/null
expect_true "expired and consumed dropped, live kept" \
    test "$(sql "SELECT string_agg((bundle IS NULL)::text, ',' ORDER BY id = '$expired' DESC, id = '$consumed' DESC) FROM shares WHERE id IN ('$expired', '$consumed', '$live')")" = true,true,false
expect_true "usage holds the live share only" test "$(stored)" = $((used + share_bytes))
check gc_drops_bundles_of_expired_and_consumed_shares_and_keeps_live_ones

# --- at most 1,000 live shares ------------------------------------------------------------------
# 998 more live ones made directly (the API path is the same insert); the live one above is #1.
sql "INSERT INTO shares (id, account_id, pouch_id, label_enc, bundle, size, expires_at)
     SELECT gen_random_uuid(), '$WEB_ACCOUNT', '$POUCH', 'bA', 'YQ', 1, now() + interval '1 day'
       FROM generate_series(1, 998)" >/dev/null
web_req POST "/v1/pouches/$POUCH/shares" "$(flow_share_body "$(flow_uuid)")"
expect_status 201
refused=$(flow_uuid)
web_req POST "/v1/pouches/$POUCH/shares" "$(flow_share_body "$refused")"
expect_error 403 quota_exceeded
expect_json .error.details.limit_shares 1000
expect_json .error.details.live_shares 1000
# Nothing stored: live as handlers/shares/sql.h's kLiveShares counts them, and no row at all.
expect_true "still 1000 live shares and the refused one not stored" \
    test "$(sql "SELECT count(*) FILTER (WHERE revoked_at IS NULL AND consumed_at IS NULL
                        AND (expires_at IS NULL OR expires_at > now())) || ':' ||
                 count(*) FILTER (WHERE id = '$refused') FROM shares WHERE account_id = '$WEB_ACCOUNT'")" = 1000:0
web_req POST "/v1/shares/$live/revoke"
web_req POST "/v1/pouches/$POUCH/shares" "$(flow_share_body "$(flow_uuid)")"
expect_status 201
check an_account_holds_at_most_1000_live_shares

smoke_done
