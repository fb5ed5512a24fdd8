#!/usr/bin/env bash
# 20-cli-login.sh -- the CLI device login through nginx (decisions §1, §4, §6; docs/LOGIN.md):
# signup -> genesis (its statement 0 checked) -> start -> details (confirm code as the CLI
# computes it) -> approve -> long-polled redeem -> DPoP-authenticated calls -> refresh ->
# revoke -> refused, and every failure of the flow with its exact status, code and what is
# stored. Relies on
# tests/smoke/lib.sh, tests/smoke/flows.sh, pouchctl and psql.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

req_status() { sql "SELECT status FROM cli_login_requests WHERE id = '$1'"; }

# --- before genesis --------------------------------------------------------------------------
flow_web_user ada
ADA=$WEB_TOKEN ADA_ACCOUNT=$WEB_ACCOUNT
flow_cli_keys early
flow_start_login
expect_status 200
early_req=$REQ
flow_approve "$early_req" "$(flow_approve_body "$(flow_uuid)" "$(flow_uuid)" "$(flow_uuid)")"
expect_error 409 genesis_required
expect_true "request still pending" test "$(req_status "$early_req")" = pending
expect_true "no device created" test "$(sql "SELECT count(*) FROM devices WHERE account_id = '$ADA_ACCOUNT'")" = 0
check approve_before_genesis_is_409_genesis_required

# --- genesis -----------------------------------------------------------------------------------
twice=$(jq -c '.statements = [.statements[0], .statements[0]]' <<<"$(flow_genesis_body "$(flow_uuid)" "$(flow_uuid)")")
req POST /v1/account/roster/genesis "$twice" -H "Authorization: Bearer $ADA"
expect_error 400 validation_failed
expect_json .error.field /statements/1/statement
expect_true "nothing stored" test "$(sql "SELECT count(*) FROM roster_entries WHERE account_id = '$ADA_ACCOUNT'")" = 0
check genesis_with_a_repeated_statement_is_rejected

# Statement 0 must be a genesis of the envelopes' creator, by itself, with its own valid
# signature (decisions §15): anything else is 400 invalid_field and stores nothing.
nothing_stored() {
    expect_true "no roster entry" test "$(sql "SELECT count(*) FROM roster_entries WHERE account_id = '$ADA_ACCOUNT'")" = 0
    expect_true "no member" test "$(sql "SELECT count(*) FROM members WHERE account_id = '$ADA_ACCOUNT'")" = 0
    expect_true "no pouch" test "$(sql "SELECT count(*) FROM pouches WHERE account_id = '$ADA_ACCOUNT'")" = 0
    expect_true "no web member" test "$(sql "SELECT web_member_id IS NULL FROM storage_accounts WHERE id = '$ADA_ACCOUNT'")" = t
}
# genesis_refused NAME FIELD STATEMENT0_JSON: a genesis of member m0 whose statement 0 is that.
m0=$(flow_uuid)
genesis_refused() {
    req POST /v1/account/roster/genesis \
        "$(flow_genesis_body "$(flow_uuid)" "$m0" | jq -c --argjson st "$3" '.statements[0] = $st')" \
        -H "Authorization: Bearer $ADA"
    expect_error 400 invalid_field
    expect_json .error.field "$2"
    nothing_stored
    check "$1"
}
other=$(flow_uuid)
genesis_refused genesis_of_another_member_than_the_envelopes_creator_is_refused \
    /statements/0/statement "$("$POUCHCTL" genesis-statement --member "$other")"
expect_json .error.message "names member $other, not the envelopes' created_by_member $m0"
check genesis_refusal_names_both_members
genesis_refused genesis_signed_by_another_member_is_refused /statements/0/statement \
    "$("$POUCHCTL" genesis-statement --member "$m0" --by "$other")"
genesis_refused genesis_that_is_not_kind_genesis_is_refused /statements/0/statement \
    "$("$POUCHCTL" genesis-statement --member "$m0" --kind add)"
genesis_refused genesis_label_outside_the_label_alphabet_is_refused /statements/0/statement \
    "$("$POUCHCTL" genesis-statement --member "$m0" --label 'x/../y')"
genesis_refused genesis_statement_that_does_not_decode_is_refused /statements/0/statement \
    "$(jq -nc --arg s "$(flow_b64 64)" --arg g "$(flow_b64 64)" '{statement:$s,signature:$g}')"
# Its own statement, another statement's signature (a valid ES256 signature by another key).
genesis_refused genesis_signature_by_another_key_is_refused /statements/0/signature \
    "$(jq -c --arg g "$("$POUCHCTL" genesis-statement --member "$m0" | jq -r .signature)" '.signature = $g' \
        <<<"$("$POUCHCTL" genesis-statement --member "$m0")")"

flow_genesis
expect_status 201
expect_json .data.pouch_id "$POUCH"
first_statement=$(sql "SELECT statement FROM roster_entries WHERE account_id = '$ADA_ACCOUNT' AND idx = 0")
expect_json .data.genesis_hash "$(printf '%s' "$first_statement" | b3sum --no-names --raw | base64 -w0 | tr '+/' '-_' | tr -d '=')"
expect_true "one roster entry" test "$(sql "SELECT count(*) FROM roster_entries WHERE account_id = '$ADA_ACCOUNT'")" = 1
expect_true "web member recorded" test "$(sql "SELECT web_member_id FROM storage_accounts WHERE id = '$ADA_ACCOUNT'")" = "$WEB_MEMBER"
expect_true "web member row" test "$(sql "SELECT kind || ':' || user_id FROM members WHERE id = '$WEB_MEMBER'")" = "web:$WEB_USER"
expect_true "first pouch, key_gen 1, high_water 0" \
    test "$(sql "SELECT key_gen || ':' || high_water FROM pouches WHERE id = '$POUCH' AND account_id = '$ADA_ACCOUNT'")" = 1:0
expect_true "genesis envelope stored" test "$(sql "SELECT count(*) FROM key_envelopes WHERE pouch_id = '$POUCH' AND member_id = '$WEB_MEMBER'")" = 1
check genesis_creates_roster_member_pouch_and_envelopes
ADA_MEMBER=$WEB_MEMBER ADA_POUCH=$POUCH

req POST /v1/account/roster/genesis "$(flow_genesis_body "$(flow_uuid)" "$(flow_uuid)")" -H "Authorization: Bearer $ADA"
expect_error 409 genesis_exists
expect_true "still one roster entry" test "$(sql "SELECT count(*) FROM roster_entries WHERE account_id = '$ADA_ACCOUNT'")" = 1
expect_true "still one pouch" test "$(sql "SELECT count(*) FROM pouches WHERE account_id = '$ADA_ACCOUNT'")" = 1
check genesis_twice_is_409_genesis_exists

# --- start and details -------------------------------------------------------------------------
flow_cli_keys laptop
flow_start_login
expect_status 200
expect_json_match .data.request_id '^[0-9a-f-]{36}$'
expect_json .data.authorize_url "$POUCH_URL/cli/approve?request=$REQ"
expect_json .data.expires_in 600
expect_json .data.interval 5
expect_true "request stored pending with the key's thumbprint" \
    test "$(sql "SELECT status || ':' || sign_jkt || ':' || (connect_account_id IS NULL) FROM cli_login_requests WHERE id = '$REQ'")" = "pending:$JKT:true"
expect_true "expires in 600 s" \
    test "$(sql "SELECT round(extract(epoch FROM expires_at - created_at)) FROM cli_login_requests WHERE id = '$REQ'")" = 600
check start_creates_a_pending_request

cli_code=$("$POUCHCTL" confirm-code "$REQ" "$JKT")
web_req GET "/v1/cli-auth/requests/$REQ"
expect_status 200
expect_json .data.id "$REQ"
expect_json .data.confirm_code "$cli_code"
expect_json_match .data.confirm_code '^[0-9]{4}-[0-9]{4}$'
expect_json .data.device_name laptop
expect_json .data.os linux
expect_json .data.arch x86_64
expect_json .data.cli_version 1.0.0
expect_json '.data.assistants | tojson' '["claude"]'
expect_json .data.key_storage file
expect_json .data.sign_jkt "$JKT"
expect_json .data.status pending
expect_json_match .data.expires_at '^20[0-9]{2}-.*Z$'
expect_json '.data.sign_pub | tojson' "$(jq -c '{kty, crv, x, y}' <<<"$SIGN_PUB")"
expect_json '.data.enc_pub | tojson' "$(jq -c '{kty, crv, x, y}' <<<"$ENC_PUB")"
expect_json .data.started_ip 127.0.0.1
expect_json .data.connect_token_used false
check details_show_the_confirm_code_the_cli_computes

# started_ip is the client nginx saw: an X-Forwarded-For from an untrusted peer is ignored;
# the nginx that trusts 127.0.0.1 as a TLS proxy takes the client from it (IPv4 and IPv6).
# (The proof names the public URL, whichever nginx carries it.)
started_from() {
    local url=$1 xff=$2 saved=$POUCH_URL proof
    proof=$(flow_dpop "$DEVICE_KEY" POST /v1/cli-auth/requests)
    POUCH_URL=$url
    req POST /v1/cli-auth/requests "$(flow_start_body)" -H "DPoP: $proof" -H "X-Forwarded-For: $xff"
    POUCH_URL=$saved
    expect_status 200
    STARTED_REQ=$(json .data.request_id)
    web_req GET "/v1/cli-auth/requests/$STARTED_REQ"
    expect_status 200
}
started_from "$POUCH_URL" 203.0.113.9
expect_json .data.started_ip 127.0.0.1
started_from "$POUCH_URL_RATE_LIMITED" 203.0.113.9
expect_json .data.started_ip 203.0.113.9
expect_true "stored" test "$(sql "SELECT started_ip FROM cli_login_requests WHERE id = '$STARTED_REQ'")" = 203.0.113.9
started_from "$POUCH_URL_RATE_LIMITED" 2001:DB8:0:0::7
expect_json .data.started_ip 2001:db8::7
check details_show_the_address_the_login_started_from

req GET "/v1/cli-auth/requests/$(flow_uuid)" "" -H "Authorization: Bearer $ADA"
expect_error 404 not_found
check details_of_an_unknown_request_is_404

req GET "/v1/cli-auth/requests/$REQ"
expect_error 401 unauthenticated
check details_need_a_web_session

# --- polling while pending ---------------------------------------------------------------------
flow_redeem "$REQ" 0
expect_status 200
expect_json .data.status pending
expect_json .data.interval 5
check token_while_pending_answers_pending

flow_redeem "$REQ" 0
expect_error 429 slow_down
expect_header Retry-After 5
check token_polled_faster_than_interval_is_slow_down

flow_redeem "$REQ" 0 "$(repeat A 43)"
expect_error 400 invalid_grant
expect_true "state unchanged" test "$(req_status "$REQ")" = pending
check token_with_a_wrong_verifier_is_invalid_grant

other_key=$SMOKE_TMP/other.pem
"$POUCHCTL" keygen --out "$other_key" >/dev/null
flow_redeem "$REQ" 0 "$VERIFIER" "$other_key"
expect_error 401 invalid_dpop_proof
expect_header WWW-Authenticate 'DPoP error="invalid_dpop_proof"'
expect_true "state unchanged" test "$(req_status "$REQ")" = pending
check token_with_another_dpop_key_is_invalid_dpop_proof

flow_redeem "$(flow_uuid)" 0
expect_error 400 invalid_grant
check token_for_an_unknown_request_is_invalid_grant

# --- approve ------------------------------------------------------------------------------------
flow_approve "$REQ" "$(flow_approve_body | jq -c '.confirm_code = "0000-0000"')"
if [[ $cli_code == 0000-0000 ]]; then expect_status 200; else expect_error 400 confirm_code_mismatch; fi
expect_true "request still pending" test "$(req_status "$REQ")" = pending
expect_true "nothing stored" test "$(sql "SELECT count(*) FROM roster_entries WHERE account_id = '$ADA_ACCOUNT'")" = 1
check approve_with_a_wrong_confirm_code_is_rejected

flow_approve "$REQ" "$(flow_approve_body "$(flow_uuid)" "$(flow_uuid)")"
expect_error 400 validation_failed
expect_json .error.field /key_envelopes/0/created_by_member
check approve_envelope_must_be_created_by_the_approver

flow_approve "$REQ" "$(flow_approve_body "$(flow_uuid)" "$ADA_MEMBER" "$(flow_uuid)")"
expect_error 400 validation_failed
expect_json .error.field /key_envelopes/0/pouch_id
check approve_envelope_must_name_a_pouch_of_the_account

flow_approve "$REQ" "$(flow_approve_body "$ADA_MEMBER")"
expect_error 400 validation_failed
expect_json .error.field /key_envelopes/0/member_id
check approve_member_id_must_be_new

flow_approve "$REQ" "$(flow_approve_body | jq -c '.key_envelopes += [.key_envelopes[0] | .member_id = "'"$(flow_uuid)"'"]')"
expect_error 400 validation_failed
expect_json .error.field /key_envelopes/1/member_id
expect_true "request still pending, nothing stored" \
    test "$(req_status "$REQ"):$(sql "SELECT count(*) FROM members WHERE account_id = '$ADA_ACCOUNT'")" = pending:1
check approve_envelopes_must_name_one_member

flow_approve "$REQ" "$(flow_approve_body | jq -c --arg s "$first_statement" '.statement.statement = $s')"
expect_error 400 validation_failed
expect_json .error.field /statement/statement
expect_true "request still pending, roster unchanged" \
    test "$(req_status "$REQ"):$(sql "SELECT count(*) FROM roster_entries WHERE account_id = '$ADA_ACCOUNT'")" = pending:1
check approve_with_a_statement_already_in_the_roster_is_rejected

# The CLI waits (wait=30) while the browser approves: the answer comes at approval.
sql "UPDATE cli_login_requests SET last_poll_at = NULL WHERE id = '$REQ'" >/dev/null
flow_redeem_bg "$REQ" 30 "$SMOKE_TMP/lp"
retry 10 flow_polling_started "$REQ"
sleep 0.2
DEVICE_MEMBER=$(flow_uuid)
flow_approve "$REQ" "$(flow_approve_body "$DEVICE_MEMBER" | jq -c --arg c "${cli_code/-/}" '.confirm_code = $c')"
approved_at=$(now_ms)
expect_status 200
expect_json_match .data.device_id '^[0-9a-f-]{36}$'
DEVICE_ID=$(json .data.device_id)
wait "$BG_PID" || true
expect_true "long-poll answered 200" test "$(cat "$SMOKE_TMP/lp.status")" = 200
lp_ms=$(($(cat "$SMOKE_TMP/lp.end") - approved_at))
expect_true "long-poll answered ${lp_ms} ms after approval (want < 1000)" test "$lp_ms" -lt 1000
check approve_with_the_code_without_hyphen_wakes_the_waiting_cli
echo "  (long-poll answered ${lp_ms} ms after the approval returned)"

BODY=$(cat "$SMOKE_TMP/lp.body")
expect_json .data.status approved
expect_json .data.token_type DPoP
expect_json_match .data.access_token '^svc_at_[A-Za-z0-9_-]{43}$'
expect_json_match .data.refresh_token '^svc_rt_[A-Za-z0-9_-]{43}$'
expect_json .data.expires_in 3600
expect_json .data.device_id "$DEVICE_ID"
expect_json .data.storage_account_id "$ADA_ACCOUNT"
expect_json .data.member_id "$DEVICE_MEMBER"
welcome=$(json .data.welcome)
ACCESS=$(json .data.access_token)
REFRESH=$(json .data.refresh_token)
expect_true "welcome stored and returned" test "$(sql "SELECT welcome FROM devices WHERE id = '$DEVICE_ID'")" = "$welcome"
check redeem_returns_the_approved_form

expect_true "request redeemed, bound to the device" \
    test "$(sql "SELECT status || ':' || account_id || ':' || device_id FROM cli_login_requests WHERE id = '$REQ'")" = "redeemed:$ADA_ACCOUNT:$DEVICE_ID"
expect_true "device row" \
    test "$(sql "SELECT account_id || ':' || member_id || ':' || name || ':' || sign_jkt || ':' || key_storage FROM devices WHERE id = '$DEVICE_ID'")" = "$ADA_ACCOUNT:$DEVICE_MEMBER:laptop:$JKT:file"
expect_true "device member at roster index 1" \
    test "$(sql "SELECT kind || ':' || device_id || ':' || roster_index FROM members WHERE id = '$DEVICE_MEMBER'")" = "device:$DEVICE_ID:1"
expect_true "roster entry appended" test "$(sql "SELECT count(*) FROM roster_entries WHERE account_id = '$ADA_ACCOUNT'")" = 2
expect_true "envelope stored for the device member" \
    test "$(sql "SELECT count(*) FROM key_envelopes WHERE pouch_id = '$ADA_POUCH' AND member_id = '$DEVICE_MEMBER' AND created_by_member = '$ADA_MEMBER'")" = 1
expect_true "roster event on the pouch" \
    test "$(sql "SELECT high_water || ':' || (SELECT string_agg(kind, ',') FROM events WHERE pouch_id = '$ADA_POUCH') FROM pouches WHERE id = '$ADA_POUCH'")" = 1:roster
expect_true "one access and one refresh token, stored as hashes" \
    test "$(sql "SELECT (SELECT count(*) FROM access_tokens WHERE device_id = '$DEVICE_ID' AND jkt = '$JKT' AND token_hash <> '$ACCESS') || ':' || (SELECT count(*) FROM refresh_tokens WHERE device_id = '$DEVICE_ID' AND token_hash <> '$REFRESH')")" = 1:1
check approval_stores_device_member_roster_envelopes_and_tokens

flow_redeem "$REQ" 0
expect_error 400 invalid_grant
check second_redeem_is_invalid_grant

flow_approve "$REQ"
expect_error 409 already_decided
check approving_a_decided_request_is_409

# --- authenticated CLI calls -------------------------------------------------------------------
cli_req GET /v1/devices
expect_status 200
expect_json '.data.items | length' 1
expect_json '.data.items[0].id' "$DEVICE_ID"
expect_json '.data.items[0].member_id' "$DEVICE_MEMBER"
expect_json_match '.data.items[0].last_seen_at' '^20[0-9]{2}-'
check cli_lists_devices_with_a_dpop_bound_token

cli_req GET "/v1/account/roster?limit=10"
expect_status 200
expect_json '.data.items | length' 2
expect_json '.data.items[1].index' 1
check cli_reads_the_roster_with_the_query_outside_htu

req GET /v1/devices "" -H "Authorization: Bearer $ACCESS"
expect_error 401 unauthenticated
check access_token_as_bearer_is_refused

req GET /v1/devices "" -H "Authorization: DPoP $ACCESS"
expect_error 401 invalid_dpop_proof
check call_without_a_proof_is_refused

proof=$(flow_dpop "$DEVICE_KEY" GET /v1/devices "$ACCESS")
req GET /v1/devices "" -H "Authorization: DPoP $ACCESS" -H "DPoP: $proof"
expect_status 200
req GET /v1/devices "" -H "Authorization: DPoP $ACCESS" -H "DPoP: $proof"
expect_error 401 invalid_dpop_proof
expect_header WWW-Authenticate 'DPoP error="invalid_dpop_proof"'
check replayed_proof_is_refused

req GET /v1/devices "" -H "Authorization: DPoP $ACCESS" -H "DPoP: $(flow_dpop "$other_key" GET /v1/devices "$ACCESS")"
expect_error 401 invalid_dpop_proof
check proof_of_another_key_is_refused

req GET /v1/devices "" -H "Authorization: DPoP $ACCESS" -H "DPoP: $(flow_dpop "$DEVICE_KEY" GET /v1/account/roster "$ACCESS")"
expect_error 401 invalid_dpop_proof
check proof_for_another_url_is_refused

req GET /v1/devices "" -H "Authorization: DPoP $ACCESS" -H "DPoP: $(flow_dpop "$DEVICE_KEY" POST /v1/devices "$ACCESS")"
expect_error 401 invalid_dpop_proof
check proof_for_another_method_is_refused

req GET /v1/devices "" -H "Authorization: DPoP $ACCESS" -H "DPoP: $(flow_dpop "$DEVICE_KEY" GET /v1/devices)"
expect_error 401 invalid_dpop_proof
check proof_without_ath_is_refused

req GET /v1/devices "" -H "Authorization: DPoP $ACCESS" -H "DPoP: $(flow_dpop "$DEVICE_KEY" GET /v1/devices "svc_at_$(repeat B 43)")"
expect_error 401 invalid_dpop_proof
check proof_with_the_ath_of_another_token_is_refused

now=$(date +%s)
req GET /v1/devices "" -H "Authorization: DPoP $ACCESS" -H "DPoP: $(flow_dpop "$DEVICE_KEY" GET /v1/devices "$ACCESS" --iat $((now - 130)))"
expect_error 401 invalid_dpop_proof
check proof_with_a_stale_iat_is_refused

req GET /v1/devices "" -H "Authorization: DPoP $ACCESS" -H "DPoP: $(flow_dpop "$DEVICE_KEY" GET /v1/devices "$ACCESS" --iat $((now + 70)))"
expect_error 401 invalid_dpop_proof
check proof_from_the_future_is_refused

req GET /v1/devices "" -H "Authorization: DPoP $ACCESS" -H "DPoP: $(flow_dpop "$DEVICE_KEY" GET /v1/devices "$ACCESS" --iat $((now - 100)))"
expect_status 200
check proof_inside_the_iat_window_is_accepted

req GET /v1/devices "" -H "Authorization: DPoP $ACCESS" -H "DPoP: $(flow_dpop "$DEVICE_KEY" GET /v1/devices "$ACCESS")" \
    -H "DPoP: $(flow_dpop "$DEVICE_KEY" GET /v1/devices "$ACCESS")"
expect_error 401 invalid_dpop_proof
check two_dpop_headers_are_refused

ACCESS="svc_at_$(repeat C 43)" cli_req GET /v1/devices
expect_error 401 unauthenticated
check unknown_access_token_is_401

sql "UPDATE access_tokens SET expires_at = now() - interval '1 second' WHERE device_id = '$DEVICE_ID'" >/dev/null
cli_req GET /v1/devices
expect_error 401 token_expired
sql "UPDATE access_tokens SET expires_at = now() + interval '1 hour' WHERE device_id = '$DEVICE_ID'" >/dev/null
cli_req GET /v1/devices
expect_status 200
check expired_access_token_is_token_expired

# web-only operations refuse a CLI caller
cli_req GET "/v1/cli-auth/requests/$REQ"
expect_error 403 wrong_caller
cli_req POST "/v1/cli-auth/requests/$REQ/approve" "$(flow_approve_body)"
expect_error 403 wrong_caller
cli_req POST "/v1/cli-auth/requests/$REQ/deny" ""
expect_error 403 wrong_caller
cli_req POST /v1/cli-auth/connect-tokens ""
expect_error 403 wrong_caller
cli_req POST /v1/account/roster/genesis "$(flow_genesis_body "$(flow_uuid)" "$(flow_uuid)")"
expect_error 403 wrong_caller
check web_only_operations_refuse_a_cli_with_wrong_caller

# --- refresh -----------------------------------------------------------------------------------
refresh() { # refresh TOKEN [KEYFILE]
    req POST /v1/cli-auth/refresh "$(jq -nc --arg t "$1" '{refresh_token:$t}')" \
        -H "DPoP: $(flow_dpop "${2:-$DEVICE_KEY}" POST /v1/cli-auth/refresh)"
}
refresh "$REFRESH" "$other_key"
expect_error 401 invalid_dpop_proof
expect_true "refresh token unused" test "$(sql "SELECT used_at IS NULL FROM refresh_tokens WHERE device_id = '$DEVICE_ID'")" = t
check refresh_with_another_key_is_invalid_dpop_proof

refresh "$REFRESH"
expect_status 200
expect_json .data.status approved
expect_json .data.token_type DPoP
expect_json .data.device_id "$DEVICE_ID"
expect_json .data.member_id "$DEVICE_MEMBER"
expect_json .data.storage_account_id "$ADA_ACCOUNT"
expect_json .data.expires_in 3600
expect_json .data.welcome null
AT2=$(json .data.access_token)
RT2=$(json .data.refresh_token)
expect_true "rotated" test "$RT2" != "$REFRESH" -a "$AT2" != "$ACCESS"
expect_true "old refresh token used, replaced by the new one" \
    test "$(sql "SELECT count(*) FROM refresh_tokens WHERE device_id = '$DEVICE_ID' AND used_at IS NOT NULL AND replaced_by IS NOT NULL")" = 1
check refresh_rotates_the_token_pair

ACCESS=$AT2 cli_req GET /v1/devices
expect_status 200
check refreshed_access_token_works

# A proof is recorded by the pipeline before the refresh token is even looked up, so one spent
# on an unknown token cannot be replayed for a good one (docs/DECISIONS.md, "DPoP replays").
proof=$(flow_dpop "$DEVICE_KEY" POST /v1/cli-auth/refresh)
req POST /v1/cli-auth/refresh "$(jq -nc --arg t "svc_rt_$(repeat E 43)" '{refresh_token:$t}')" -H "DPoP: $proof"
expect_error 400 invalid_grant
req POST /v1/cli-auth/refresh "$(jq -nc --arg t "$RT2" '{refresh_token:$t}')" -H "DPoP: $proof"
expect_error 401 invalid_dpop_proof
expect_header WWW-Authenticate 'DPoP error="invalid_dpop_proof"'
expect_true "RT2 still unused" \
    test "$(sql "SELECT count(*) FROM refresh_tokens WHERE device_id = '$DEVICE_ID' AND used_at IS NULL")" = 1
check refresh_with_a_replayed_proof_is_401

# AT2 was used: presenting REFRESH again is no retry of a lost answer, but within 60 s it
# revokes nothing either.
refresh "$REFRESH"
expect_error 400 invalid_grant
expect_true "no token revoked by a reuse within 60 s" \
    test "$(sql "SELECT count(*) FROM access_tokens WHERE device_id = '$DEVICE_ID' AND revoked_at IS NOT NULL")" = 0
ACCESS=$AT2 cli_req GET /v1/devices
expect_status 200
check reused_refresh_token_within_60s_after_its_new_tokens_were_used_is_only_invalid_grant

refresh "svc_rt_$(repeat D 43)"
expect_error 400 invalid_grant
refresh "not-a-token"
expect_error 400 invalid_grant
check unknown_refresh_token_is_invalid_grant

# --- revoke ------------------------------------------------------------------------------------
web_req POST "/v1/devices/$DEVICE_ID/revoke" '{"reason":"lost laptop"}'
expect_status 200
expect_json .data.revoked true
expect_true "device revoked, member removed, tokens revoked" \
    test "$(sql "SELECT (d.revoked_at IS NOT NULL) || ':' || (m.removed_at IS NOT NULL) || ':' ||
                 (SELECT count(*) FROM access_tokens WHERE device_id = d.id AND revoked_at IS NULL) || ':' ||
                 (SELECT count(*) FROM refresh_tokens WHERE device_id = d.id AND revoked_at IS NULL)
               FROM devices d JOIN members m ON m.id = d.member_id WHERE d.id = '$DEVICE_ID'")" = true:true:0:0
check web_revokes_the_device

ACCESS=$AT2 cli_req GET /v1/devices
expect_error 401 device_revoked
check revoked_device_is_refused_on_its_next_request

refresh "$RT2"
expect_error 401 device_revoked
check revoked_device_cannot_refresh

# --- refresh reuse detection after 60 s --------------------------------------------------------
flow_device desk
refresh "$REFRESH"
expect_status 200
AT3=$(json .data.access_token)
# Pretend the rotation happened 61 s ago: a presentation now is no retry of a lost response.
sql "UPDATE refresh_tokens SET used_at = now() - interval '61 seconds' WHERE device_id = '$DEVICE_ID' AND used_at IS NOT NULL" >/dev/null
refresh "$REFRESH"
expect_error 400 invalid_grant
expect_true "every token of the device revoked" \
    test "$(sql "SELECT (SELECT count(*) FROM access_tokens WHERE device_id = '$DEVICE_ID' AND revoked_at IS NULL) || ':' || (SELECT count(*) FROM refresh_tokens WHERE device_id = '$DEVICE_ID' AND revoked_at IS NULL)")" = 0:0
expect_true "device itself not revoked" test "$(sql "SELECT revoked_at IS NULL FROM devices WHERE id = '$DEVICE_ID'")" = t
ACCESS=$AT3 cli_req GET /v1/devices
expect_error 401 unauthenticated
check reused_refresh_token_after_60s_revokes_every_token_of_the_device

# --- a refresh retried after a lost answer (docs/LOGIN.md §6) --------------------------------
flow_device retrying
R0=$REFRESH
refresh "$R0"
expect_status 200
LOST_AT=$(json .data.access_token) LOST_RT=$(json .data.refresh_token)  # the answer that is lost
refresh "$R0" "$other_key"
expect_error 401 invalid_dpop_proof
refresh "$R0"
expect_status 200
expect_json .data.device_id "$DEVICE_ID"
NEW_AT=$(json .data.access_token) NEW_RT=$(json .data.refresh_token)
expect_true "a pair other than the lost one" test "$NEW_RT" != "$LOST_RT" -a "$NEW_AT" != "$LOST_AT"
# The stored form of a token: b64url(SHA-256), as common/crypto/random.h makes it.
hash_of() { sql "SELECT rtrim(translate(encode(sha256(convert_to('$1', 'UTF8')), 'base64'), '+/', '-_'), '=')"; }
expect_true "the lost pair revoked" test "$(sql "SELECT
    (SELECT revoked_at IS NOT NULL FROM refresh_tokens WHERE token_hash = '$(hash_of "$LOST_RT")') || ':' ||
    (SELECT revoked_at IS NOT NULL FROM access_tokens WHERE token_hash = '$(hash_of "$LOST_AT")')")" = true:true
expect_true "the presented token retried once, replaced by the new one" test "$(sql "SELECT
    (retried_at IS NOT NULL) || ':' || (replaced_by = '$(hash_of "$NEW_RT")')
    FROM refresh_tokens WHERE token_hash = '$(hash_of "$R0")'")" = true:true
ACCESS=$NEW_AT cli_req GET /v1/devices
expect_status 200
ACCESS=$LOST_AT cli_req GET /v1/devices
expect_error 401 unauthenticated
refresh "$LOST_RT"
expect_error 400 invalid_grant
check a_refresh_retried_within_the_window_gets_a_new_pair_and_the_lost_pair_stops

# A second retry of the same token is reuse: refused, and within 60 s nothing is revoked.
refresh "$R0"
expect_error 400 invalid_grant
ACCESS=$NEW_AT cli_req GET /v1/devices
expect_status 200
check a_second_retry_of_a_refresh_is_refused

# A token presented again after the refresh token it was rotated to was itself used is reuse.
refresh "$NEW_RT"
expect_status 200
NEXT_RT=$(json .data.refresh_token)
refresh "$NEXT_RT"
expect_status 200
LAST_AT=$(json .data.access_token)
refresh "$NEW_RT"
expect_error 400 invalid_grant
ACCESS=$LAST_AT cli_req GET /v1/devices
expect_status 200
check a_retry_after_the_new_refresh_token_was_used_is_refused

# Retries in flight at once: the presented token's row is held locked (as a slow first retry
# would hold it) until every retry waits on it; then exactly one gets through, the others find
# the token retried (invalid_grant, nothing revoked), and the device keeps one live pair.
flow_device racing
refresh "$REFRESH"
expect_status 200
racers=4 race_args=()
race_body=$(jq -nc --arg t "$REFRESH" '{refresh_token:$t}')
for i in $(seq "$racers"); do
    ((i == 1)) || race_args+=(--next)
    race_args+=(-sS -o "$SMOKE_TMP/race$i" -w "%{http_code}\n" --max-time 20 -X POST
        -H 'Content-Type: application/json' --data-binary "$race_body"
        -H "DPoP: $(flow_dpop "$DEVICE_KEY" POST /v1/cli-auth/refresh)"
        "$POUCH_URL/v1/cli-auth/refresh")
done
psql "$POUCH_DATABASE_URL" -XtAq -c "BEGIN" \
    -c "SELECT 1 FROM refresh_tokens WHERE token_hash = '$(hash_of "$REFRESH")' FOR UPDATE" \
    -c "SELECT pg_sleep(4)" -c "COMMIT" >/dev/null &
holder=$!
sleep 0.5
curl --parallel --parallel-immediate "${race_args[@]}" >"$SMOKE_TMP/race.status" 2>"$SMOKE_TMP/race.err" &
racing=$!
# shellcheck disable=SC2317  # called through retry
lock_waits() { test "$(sql "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")" -ge "$1"; }
expect_true "every retry waits on the token's row" retry 3 lock_waits "$racers"
wait "$holder" "$racing" || true
granted=0 refused=0
for i in $(seq "$racers"); do
    case "$(jq -r '.data.token_type // .error.code' "$SMOKE_TMP/race$i")" in
        DPoP) granted=$((granted + 1)) ;;
        invalid_grant) refused=$((refused + 1)) ;;
    esac
done
expect_true "one retry granted, $((racers - 1)) refused (got $granted and $refused)" \
    test "$granted:$refused" = "1:$((racers - 1))"
expect_true "statuses: one 200, the rest 400" \
    test "$(sort "$SMOKE_TMP/race.status" | uniq -c | awk '{printf "%s:%s ", $2, $1}')" = "200:1 400:$((racers - 1)) "
expect_true "one live refresh token left, the presented one retried once" test "$(sql "SELECT
    (SELECT count(*) FROM refresh_tokens WHERE device_id = '$DEVICE_ID' AND used_at IS NULL
       AND revoked_at IS NULL) || ':' ||
    (SELECT count(*) FROM refresh_tokens WHERE device_id = '$DEVICE_ID' AND retried_at IS NOT NULL)")" = 1:1
check concurrent_retries_of_a_refresh_grant_exactly_one

# --- expiry ------------------------------------------------------------------------------------
# The stack runs with the default POUCH_LOGIN_TTL (600 s); moving expires_at into the past
# takes the very code path a real expiry takes (the status is computed from expires_at).
flow_cli_keys late
flow_start_login
expired_req=$REQ
sql "UPDATE cli_login_requests SET expires_at = now() - interval '1 second' WHERE id = '$expired_req'" >/dev/null
flow_redeem "$expired_req" 0
expect_error 410 expired_token
flow_redeem "$expired_req" 5
expect_error 410 expired_token
web_req GET "/v1/cli-auth/requests/$expired_req"
expect_status 200
expect_json .data.status expired
flow_approve "$expired_req"
expect_error 410 expired_token
web_req POST "/v1/cli-auth/requests/$expired_req/deny" ""
expect_error 410 expired_token
check expired_request_is_410_everywhere

flow_cli_keys slow
flow_start_login
flow_approve "$REQ"
expect_status 200
sql "UPDATE cli_login_requests SET expires_at = now() - interval '1 second' WHERE id = '$REQ'" >/dev/null
flow_redeem "$REQ" 0
expect_error 410 expired_token
expect_true "no token issued" test "$(sql "SELECT count(*) FROM access_tokens t JOIN cli_login_requests r ON r.device_id = t.device_id WHERE r.id = '$REQ'")" = 0
check approved_but_unredeemed_request_expires

flow_cli_keys revoked_early
flow_start_login
flow_approve "$REQ"
expect_status 200
early_device=$(json .data.device_id)
web_req POST "/v1/devices/$early_device/revoke" ""
expect_status 200
flow_redeem "$REQ" 0
expect_error 403 access_denied
expect_true "no token issued, request left approved" \
    test "$(sql "SELECT count(*) FROM access_tokens WHERE device_id = '$early_device'"):$(req_status "$REQ")" = 0:approved
check device_revoked_before_redemption_gets_no_tokens

# --- deny --------------------------------------------------------------------------------------
flow_cli_keys denied
flow_start_login
denied_req=$REQ
flow_redeem_bg "$denied_req" 30 "$SMOKE_TMP/deny"
retry 10 flow_polling_started "$denied_req"
web_req POST "/v1/cli-auth/requests/$denied_req/deny" ""
expect_status 200
expect_json .data.status denied
wait "$BG_PID" || true
expect_true "waiting CLI answered 403" test "$(cat "$SMOKE_TMP/deny.status")" = 403
expect_true "access_denied" test "$(jq -r .error.code "$SMOKE_TMP/deny.body")" = access_denied
expect_true "stored denied" test "$(req_status "$denied_req")" = denied
check deny_wakes_the_cli_with_access_denied

flow_redeem "$denied_req" 0
expect_error 403 access_denied
flow_approve "$denied_req"
expect_error 409 already_decided
web_req POST "/v1/cli-auth/requests/$denied_req/deny" ""
expect_error 409 already_decided
check denied_request_stays_denied

# --- connect tokens and other accounts ---------------------------------------------------------
flow_web_user bob
BOB=$WEB_TOKEN BOB_ACCOUNT=$WEB_ACCOUNT
flow_genesis
BOB_MEMBER=$WEB_MEMBER BOB_POUCH=$POUCH
web_req POST /v1/cli-auth/connect-tokens ""
expect_status 200
expect_json_match .data.connect_token '^svc_lt_[A-Za-z0-9_-]{32}$'
expect_json .data.expires_in 600
connect=$(json .data.connect_token)
expect_true "stored as a hash" test "$(sql "SELECT count(*) FROM connect_tokens WHERE account_id = '$BOB_ACCOUNT' AND token_hash <> '$connect' AND used_at IS NULL")" = 1
check connect_token_is_issued_to_a_web_user

flow_cli_keys bound
flow_start_login "$(flow_start_body ".connect_token = \"$connect\"")"
expect_status 200
bound_req=$REQ
expect_true "bound to bob's account" test "$(sql "SELECT connect_account_id FROM cli_login_requests WHERE id = '$bound_req'")" = "$BOB_ACCOUNT"
expect_true "connect token used" test "$(sql "SELECT count(*) FROM connect_tokens WHERE account_id = '$BOB_ACCOUNT' AND used_at IS NOT NULL")" = 1
web_req GET "/v1/cli-auth/requests/$bound_req"
expect_status 200
expect_json .data.connect_token_used true
check start_with_a_connect_token_binds_the_request

flow_start_login "$(flow_start_body ".connect_token = \"$connect\"")"
expect_error 400 validation_failed
expect_json .error.field /connect_token
check connect_token_is_single_use

WEB_TOKEN=$ADA WEB_MEMBER=$ADA_MEMBER POUCH=$ADA_POUCH
web_req GET "/v1/cli-auth/requests/$bound_req"
expect_error 404 not_found
flow_approve "$bound_req"
expect_error 404 not_found
web_req POST "/v1/cli-auth/requests/$bound_req/deny" ""
expect_error 404 not_found
expect_true "still pending" test "$(req_status "$bound_req")" = pending
check request_bound_to_another_account_is_404

WEB_TOKEN=$BOB WEB_MEMBER=$BOB_MEMBER POUCH=$BOB_POUCH
flow_approve "$bound_req"
expect_status 200
bound_device=$(json .data.device_id)
expect_true "device in bob's account" test "$(sql "SELECT account_id FROM devices WHERE id = '$bound_device'")" = "$BOB_ACCOUNT"
check bound_request_is_approved_by_its_account

# By design an unbound request is approved by whoever signs in to approve it: the device
# joins the approver's account (the confirm code is what protects the user).
WEB_TOKEN=$ADA
flow_cli_keys stray
flow_start_login
WEB_TOKEN=$BOB
flow_approve "$REQ"
expect_status 200
stray_device=$(json .data.device_id)
expect_true "device in the approver's account" test "$(sql "SELECT account_id FROM devices WHERE id = '$stray_device'")" = "$BOB_ACCOUNT"
flow_redeem "$REQ" 0
expect_json .data.storage_account_id "$BOB_ACCOUNT"
check unbound_request_joins_the_approvers_account

# --- the request that waited since before genesis is still approvable ---------------------------
WEB_TOKEN=$ADA WEB_MEMBER=$ADA_MEMBER POUCH=$ADA_POUCH
flow_approve "$early_req"
expect_status 200
check request_started_before_genesis_is_approved_after_it

smoke_done
