#!/usr/bin/env bash
# 86-identity.sh -- account identities (docs/SHARING.md §1, §2, §8, §9): GET and PUT
# /v1/account/identity with real statements and envelopes (pouchctl identity-statement and
# identity-envelope), every refusal of the PUT (another account's statement, not by the
# genesis member, a bad signature or genesis hash, an envelope missing for an active member or
# for a stranger, a wrong creator, a CLI caller, a second PUT) with what is stored afterwards;
# the approval's identity_envelope; the lookup (known and unknown addresses answer one shape,
# stand-ins stay the same) and its rate limit at the edge on the rate-limited nginx; the
# account's audit log. Relies on lib.sh, flows.sh and pouchctl.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

# b64url_json S: the JSON inside a b64url statement string.
b64url_json() {
    local s=${1//-/+}
    s=${s//_//}
    while ((${#s} % 4)); do s+='='; done
    base64 -d <<<"$s"
}

# id_user PREFIX: a fresh web user whose genesis member key we keep: sets WEB_* of
# flow_web_user, WEB_MEMBER, POUCH, MKEY (the member's signing key file), GENESIS (statement 0
# as {statement, signature}) and MENC (the member's enc_pub JWK).
id_user() {
    flow_web_user "$1"
    WEB_MEMBER=$(flow_uuid)
    POUCH=$(flow_uuid)
    MKEY=$SMOKE_TMP/$1.member.pem
    "$POUCHCTL" keygen --out "$MKEY" >/dev/null
    GENESIS=$("$POUCHCTL" genesis-statement --member "$WEB_MEMBER" --key "$MKEY")
    MENC=$(b64url_json "$(jq -r .statement <<<"$GENESIS")" | jq -c .enc_pub)
    web_req POST /v1/account/roster/genesis "$(jq -nc --arg p "$POUCH" --arg m "$WEB_MEMBER" \
        --argjson st "$GENESIS" --arg g "$(flow_b64 64)" --arg e "$(flow_b64 32)" \
        --arg c "$(flow_b64 48)" '{statements: [$st], key_envelopes: [{pouch_id:$p,
        member_id:$m, key_gen:1, hpke_enc:$e, ciphertext:$c, created_by_member:$m,
        signature:$g}]}')"
    [[ $STATUS == 201 ]] || { echo "id_user: genesis answered $STATUS: $BODY" >&2; return 1; }
}

# envelope MEMBER TO [CREATOR] [CREATOR_KEY] [ACCOUNT]: the identity (ID_SIGN, ID_ENC) sealed to
# MEMBER's enc_pub TO, made by the genesis member unless told.
envelope() {
    "$POUCHCTL" identity-envelope --account "${5:-$A_ACCOUNT}" --member "$1" --to "$2" \
        --sign-key "$ID_SIGN" --enc-key "$ID_ENC" --creator "${3:-$A_MEMBER}" \
        --creator-key "${4:-$A_KEY}"
}

# identity_body STATEMENT ENVELOPE...: a PUT body.
identity_body() {
    local st=$1
    shift
    jq -nc --argjson st "$st" '$st + {envelopes: $ARGS.positional | map(fromjson)}' --args "$@"
}

stored_identities() { sql "SELECT count(*) FROM account_identities WHERE account_id = '$1'"; }
stored_envelopes() { sql "SELECT count(*) FROM identity_envelopes WHERE account_id = '$1'"; }

# --- B: another account (with genesis, no identity) ----------------------------------------------
id_user ident-b
B_TOKEN=$WEB_TOKEN B_ACCOUNT=$WEB_ACCOUNT B_EMAIL=$WEB_EMAIL

# --- A: genesis member, one CLI device enrolled before the identity ----------------------------
id_user ident-a
A_TOKEN=$WEB_TOKEN A_ACCOUNT=$WEB_ACCOUNT A_EMAIL=$WEB_EMAIL A_MEMBER=$WEB_MEMBER A_KEY=$MKEY
A_GENESIS=$GENESIS A_MENC=$MENC
flow_device ident-d1
D1_MEMBER=$DEVICE_MEMBER D1_ENC=$ENC_PUB D1_KEY=$DEVICE_KEY D1_ACCESS=$ACCESS
D1_SIGN_KEY=$D1_KEY

web_req GET /v1/account/identity
expect_status 200
expect_json .data.identity null
expect_json .data.envelope null
check identity_is_null_before_it_is_made

ID_SIGN=$SMOKE_TMP/id.sign.pem ID_ENC=$SMOKE_TMP/id.enc.pem
STATEMENT=$("$POUCHCTL" identity-statement --account "$A_ACCOUNT" --genesis "$A_GENESIS" \
    --key "$A_KEY" --sign-out "$ID_SIGN" --enc-out "$ID_ENC")
E_WEB=$(envelope "$A_MEMBER" "$A_MENC")
E_D1=$(envelope "$D1_MEMBER" "$D1_ENC")
GOOD=$(identity_body "$STATEMENT" "$E_WEB" "$E_D1")

# -- refusals: nothing stored after any of them
cli_req PUT /v1/account/identity "$GOOD"
expect_error 403 wrong_caller
check identity_put_from_a_cli_device_is_wrong_caller

web_req PUT /v1/account/identity "$(identity_body "$STATEMENT" "$E_WEB")"
expect_error 400 invalid_field
expect_json .error.field /envelopes
expect_json_match .error.message "$D1_MEMBER"
check identity_put_without_an_envelope_for_an_active_member_is_invalid_field

STRANGER=$(flow_uuid)
web_req PUT /v1/account/identity "$(identity_body "$STATEMENT" "$E_WEB" "$E_D1" \
    "$(envelope "$STRANGER" "$D1_ENC")")"
expect_error 400 invalid_field
expect_json .error.field /envelopes/2/member_id
check identity_put_with_an_envelope_for_a_stranger_is_invalid_field

web_req PUT /v1/account/identity "$(identity_body "$STATEMENT" "$E_WEB" "$E_D1" "$E_D1")"
expect_error 400 invalid_field
expect_json .error.field /envelopes/2/member_id
check identity_put_with_two_envelopes_for_one_member_is_invalid_field

web_req PUT /v1/account/identity "$(identity_body "$STATEMENT" "$E_WEB" \
    "$(envelope "$D1_MEMBER" "$D1_ENC" "$D1_MEMBER" "$D1_SIGN_KEY")")"
expect_error 400 invalid_field
expect_json .error.field /envelopes/1/created_by_member
check identity_put_with_an_envelope_made_by_another_member_is_invalid_field

web_req PUT /v1/account/identity "$(identity_body "$STATEMENT" "$E_WEB" \
    "$(jq -c '.signature = .hpke_enc' <<<"$E_D1")")"
expect_error 400 invalid_field
expect_json .error.field /envelopes/1/signature
check identity_put_with_an_envelope_signature_that_does_not_verify_is_invalid_field

web_req PUT /v1/account/identity "$(identity_body "$STATEMENT" "$E_WEB" \
    "$(envelope "$D1_MEMBER" "$D1_ENC" "$A_MEMBER" "$A_KEY" "$B_ACCOUNT")")"
expect_error 400 invalid_field
expect_json .error.field /envelopes/1/account_id
check identity_put_with_an_envelope_of_another_account_is_invalid_field

# identity-statement PEM-ARGS...: a statement with other arguments (fresh identity keys).
other_statement() {
    local d
    d=$(mktemp -d "$SMOKE_TMP/st.XXXXXX")
    "$POUCHCTL" identity-statement --genesis "$A_GENESIS" --sign-out "$d/s.pem" \
        --enc-out "$d/e.pem" "$@"
}
web_req PUT /v1/account/identity "$(identity_body "$(other_statement --account "$B_ACCOUNT" \
    --key "$A_KEY")" "$E_WEB" "$E_D1")"
expect_error 400 invalid_field
expect_json .error.field /statement
expect_json_match .error.message "$B_ACCOUNT"
check identity_put_of_a_statement_naming_another_account_is_invalid_field

web_req PUT /v1/account/identity "$(identity_body "$(other_statement --account "$A_ACCOUNT" \
    --key "$D1_SIGN_KEY" --by "$D1_MEMBER")" "$E_WEB" "$E_D1")"
expect_error 400 invalid_field
expect_json .error.field /statement
expect_json_match .error.message 'not by the genesis member'
check identity_put_of_a_statement_not_by_the_genesis_member_is_invalid_field

web_req PUT /v1/account/identity "$(identity_body "$(other_statement --account "$A_ACCOUNT" \
    --key "$D1_SIGN_KEY")" "$E_WEB" "$E_D1")"
expect_error 400 invalid_field
expect_json .error.field /signature
check identity_put_of_a_statement_signed_with_another_key_is_invalid_field

web_req PUT /v1/account/identity "$(identity_body "$(other_statement --account "$A_ACCOUNT" \
    --key "$A_KEY" --genesis-hash "$(flow_b64 32)")" "$E_WEB" "$E_D1")"
expect_error 400 invalid_field
expect_json .error.field /statement
check identity_put_of_a_statement_with_another_genesis_hash_is_invalid_field

web_req PUT /v1/account/identity "$(jq -c '.statement = "bm90IGEgc3RhdGVtZW50"' <<<"$GOOD")"
expect_error 400 invalid_field
expect_json .error.field /statement
check identity_put_of_garbage_is_invalid_field

# B puts A's statement (with A's envelopes) on its own account.
WEB_TOKEN=$B_TOKEN web_req PUT /v1/account/identity "$GOOD"
expect_error 400 invalid_field
expect_json .error.field /statement
expect_true "B's account stored an identity" test "$(stored_identities "$B_ACCOUNT")" = 0
check identity_put_of_another_accounts_statement_is_invalid_field

web_req PUT /v1/account/identity '{"statement":"YQ","signature":"YQ","envelopes":[]}'
expect_error 400 validation_failed
expect_json .error.field /envelopes
check identity_put_without_envelopes_is_validation_failed

expect_true "identity stored after refusals" test "$(stored_identities "$A_ACCOUNT")" = 0
expect_true "envelopes stored after refusals" test "$(stored_envelopes "$A_ACCOUNT")" = 0
check identity_refusals_store_nothing

# -- the identity
web_req PUT /v1/account/identity "$GOOD"
expect_status 201
expect_json .data.identity.statement "$(jq -r .statement <<<"$STATEMENT")"
expect_json .data.identity.signature "$(jq -r .signature <<<"$STATEMENT")"
expect_true "one identity stored" test "$(stored_identities "$A_ACCOUNT")" = 1
expect_true "two envelopes stored" test "$(stored_envelopes "$A_ACCOUNT")" = 2
SIGN_X=$(b64url_json "$(jq -r .statement <<<"$STATEMENT")" | jq -r .sign_pub.x)
expect_true "stored sign_pub" test \
    "$(sql "SELECT sign_pub::jsonb->>'x' FROM account_identities WHERE account_id = '$A_ACCOUNT'")" = "$SIGN_X"
check identity_put_stores_the_statement_and_every_members_envelope

web_req PUT /v1/account/identity "$GOOD"
expect_error 409 identity_exists
expect_true "envelopes after the second PUT" test "$(stored_envelopes "$A_ACCOUNT")" = 2
check identity_put_twice_is_identity_exists

web_req GET /v1/account/identity
expect_status 200
expect_json .data.identity.statement "$(jq -r .statement <<<"$STATEMENT")"
expect_json .data.envelope.member_id "$A_MEMBER"
expect_json .data.envelope.created_by_member "$A_MEMBER"
expect_json .data.envelope.ciphertext "$(jq -r .ciphertext <<<"$E_WEB")"
check identity_get_as_web_answers_the_web_members_envelope

DEVICE_KEY=$D1_KEY ACCESS=$D1_ACCESS cli_req GET /v1/account/identity
expect_status 200
expect_json .data.identity.signature "$(jq -r .signature <<<"$STATEMENT")"
expect_json .data.envelope.member_id "$D1_MEMBER"
expect_json .data.envelope.signature "$(jq -r .signature <<<"$E_D1")"
check identity_get_as_a_device_answers_its_own_envelope

WEB_TOKEN=$B_TOKEN web_req GET /v1/account/identity
expect_status 200
expect_json .data.identity null
check identity_get_of_another_account_stays_its_own

# --- approving a CLI login once the account has an identity ------------------------------------
WEB_TOKEN=$A_TOKEN
flow_cli_keys ident-d2
flow_start_login
D2_MEMBER=$(flow_uuid)
MEMBERS_BEFORE=$(sql "SELECT count(*) FROM members WHERE account_id = '$A_ACCOUNT'")
flow_approve "$REQ" "$(flow_approve_body "$D2_MEMBER")"
expect_error 400 validation_failed
expect_json .error.field /identity_envelope
check approve_without_identity_envelope_once_the_account_has_an_identity_is_refused

flow_approve "$REQ" "$(flow_approve_body "$D2_MEMBER" | jq -c --argjson e "$(envelope "$(flow_uuid)" "$ENC_PUB")" '.identity_envelope = $e')"
expect_error 400 invalid_field
expect_json .error.field /identity_envelope/member_id
check approve_with_an_identity_envelope_for_another_member_is_invalid_field

flow_approve "$REQ" "$(flow_approve_body "$D2_MEMBER" | jq -c --argjson e "$(envelope "$D2_MEMBER" "$ENC_PUB" "$D1_MEMBER" "$D1_SIGN_KEY")" '.identity_envelope = $e')"
expect_error 400 invalid_field
expect_json .error.field /identity_envelope/created_by_member
expect_true "members after refusals" test \
    "$(sql "SELECT count(*) FROM members WHERE account_id = '$A_ACCOUNT'")" = "$MEMBERS_BEFORE"
expect_true "request still pending" test \
    "$(sql "SELECT status FROM cli_login_requests WHERE id = '$REQ'")" = pending
check approve_with_an_identity_envelope_by_another_creator_is_invalid_field_and_stores_nothing

E_D2=$(envelope "$D2_MEMBER" "$ENC_PUB")
flow_approve "$REQ" "$(flow_approve_body "$D2_MEMBER" | jq -c --argjson e "$E_D2" '.identity_envelope = $e')"
expect_status 200
expect_true "three envelopes" test "$(stored_envelopes "$A_ACCOUNT")" = 3
expect_true "the new member's envelope" test \
    "$(sql "SELECT signature FROM identity_envelopes WHERE member_id = '$D2_MEMBER'")" = "$(jq -r .signature <<<"$E_D2")"
flow_redeem "$REQ"
expect_status 200
ACCESS=$(json .data.access_token)
cli_req GET /v1/account/identity
expect_status 200
expect_json .data.envelope.member_id "$D2_MEMBER"
check approve_with_the_identity_envelope_stores_it_for_the_new_device

# An account without an identity may not send one.
WEB_TOKEN=$B_TOKEN
flow_cli_keys ident-b1
flow_start_login
B1=$(flow_uuid)
B_MEMBER=$(sql "SELECT web_member_id FROM storage_accounts WHERE id = '$B_ACCOUNT'")
flow_approve "$REQ" "$(flow_approve_body "$B1" "$B_MEMBER" "$(sql "SELECT id FROM pouches WHERE account_id = '$B_ACCOUNT'")" |
    jq -c --argjson e "$(envelope "$B1" "$ENC_PUB" "$A_MEMBER" "$A_KEY" "$B_ACCOUNT")" '.identity_envelope = $e')"
expect_error 400 invalid_field
expect_json .error.field /identity_envelope
check approve_with_an_identity_envelope_before_the_account_has_an_identity_is_invalid_field

# --- lookup --------------------------------------------------------------------------------------
WEB_TOKEN=$B_TOKEN
web_req GET "/v1/identities?email=$A_EMAIL"
expect_status 200
expect_json .data.account_id "$A_ACCOUNT"
expect_json .data.email "$A_EMAIL"
expect_json .data.identity.statement "$(jq -r .statement <<<"$STATEMENT")"
expect_json .data.genesis.statement "$(jq -r .statement <<<"$A_GENESIS")"
expect_json .data.genesis.signature "$(jq -r .signature <<<"$A_GENESIS")"
KNOWN_SHAPE=$(json '.data | [paths | map(tostring) | join(".")] | join(",")')
check lookup_of_an_account_with_an_identity_answers_it_and_its_genesis

web_req GET "/v1/identities?email=%20${A_EMAIL^^}%20"
expect_status 200
expect_json .data.account_id "$A_ACCOUNT"
expect_json .data.email "$A_EMAIL"
check lookup_trims_and_lower_cases_the_address

UNKNOWN="nobody.$(flow_uuid)@example.com"
web_req GET "/v1/identities?email=$UNKNOWN"
expect_status 200
expect_json .data.email "$UNKNOWN"
expect_json_match .data.account_id '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$'
expect_json '.data | [paths | map(tostring) | join(".")] | join(",")' "$KNOWN_SHAPE"
ST_ACCOUNT=$(json .data.account_id)
ST_IDENTITY=$(b64url_json "$(json .data.identity.statement)")
ST_GENESIS=$(b64url_json "$(json .data.genesis.statement)")
expect_true "stand-in identity kind" test "$(jq -r .kind <<<"$ST_IDENTITY")" = identity
expect_true "stand-in identity names its account" test "$(jq -r .account_id <<<"$ST_IDENTITY")" = "$ST_ACCOUNT"
expect_true "stand-in genesis" test "$(jq -r '.kind + " " + .label' <<<"$ST_GENESIS")" = "genesis web"
expect_true "stand-in by its genesis member" test \
    "$(jq -r .by <<<"$ST_IDENTITY")" = "$(jq -r .member_id <<<"$ST_GENESIS")"
expect_true "no account has the stand-in's id" test \
    "$(sql "SELECT count(*) FROM storage_accounts WHERE id = '$ST_ACCOUNT'")" = 0
FIRST=$BODY
web_req GET "/v1/identities?email=$UNKNOWN"
expect_true "a second lookup answers other data" test "$(jq -c .data <<<"$BODY")" = "$(jq -c .data <<<"$FIRST")"
DEVICE_KEY=$D1_KEY ACCESS=$D1_ACCESS cli_req GET "/v1/identities?email=$UNKNOWN"
expect_status 200
expect_true "a device's lookup answers other data" test "$(jq -c .data <<<"$BODY")" = "$(jq -c .data <<<"$FIRST")"
check lookup_of_an_unknown_address_answers_the_same_shape_and_a_stable_stand_in

WEB_TOKEN=$A_TOKEN web_req GET "/v1/identities?email=$B_EMAIL"
expect_status 200
expect_json .data.email "$B_EMAIL"
expect_true "B without identity answers a stand-in" test "$(json .data.account_id)" != "$B_ACCOUNT"
expect_json '.data | [paths | map(tostring) | join(".")] | join(",")' "$KNOWN_SHAPE"
check lookup_of_an_account_without_identity_answers_a_stand_in

web_req GET "/v1/identities?email=not-an-address"
expect_error 400 validation_failed
expect_json .error.field '?email'
web_req GET /v1/identities
expect_error 400 validation_failed
expect_json .error.field '?email'
web_req GET "/v1/identities?email=$(printf 'a%.0s' {1..250})@x.io"
expect_error 400 validation_failed
check lookup_refuses_what_is_not_an_address

req GET "/v1/identities?email=$A_EMAIL"
expect_error 401 unauthenticated
check lookup_needs_a_signed_in_caller

if [[ -n ${POUCH_URL_RATE_LIMITED:-} ]]; then
    # 30 a minute with bursts of 10: the first 11 pass at once, the 12th is refused.
    lookups=() t0=$(now_ms)
    for ((i = 1; i <= 11; i++)); do
        POUCH_URL=$POUCH_URL_RATE_LIMITED web_req GET "/v1/identities?email=edge$i@example.com"
        lookups+=("$STATUS")
    done
    t1=$(now_ms)
    POUCH_URL=$POUCH_URL_RATE_LIMITED web_req GET "/v1/identities?email=edge12@example.com"
    expect_true "the burst: ${lookups[*]}" test "${lookups[*]}" = "$(printf '200 %.0s' {1..11} | sed 's/ $//')"
    if ((t1 - t0 < 1900)); then
        expect_error 429 rate_limited
        expect_header_match Retry-After '^[0-9]+$'
    else
        echo "86-identity: the burst took $((t1 - t0)) ms; a token refilled, the 12th is not judged"
    fi
    check lookup_rate_limit_passes_the_burst_and_refuses_the_next
else
    echo "86-identity: POUCH_URL_RATE_LIMITED is not set; the lookup limit is not tested"
fi

# --- the account's audit log ---------------------------------------------------------------------
WEB_TOKEN=$A_TOKEN web_req GET /v1/account/audit
expect_status 200
expect_json '.data.items | length' 0
check account_audit_is_empty_without_sharing_changes

sql "INSERT INTO audit_log (actor_user_id, action, target, after, account_id) VALUES
     ((SELECT owner_user_id FROM storage_accounts WHERE id = '$B_ACCOUNT'), 'pouch.invitation.accept',
      'pouch:$POUCH', '{\"role\":\"read\"}', '$A_ACCOUNT'),
     (NULL, 'pouch.access.role', 'pouch:$POUCH', '{\"role\":\"write\"}', '$A_ACCOUNT'),
     (NULL, 'pouch.access.remove', 'pouch:other', NULL, '$B_ACCOUNT'),
     (NULL, 'plan.update', 'plan:x', NULL, NULL)"
WEB_TOKEN=$A_TOKEN web_req GET "/v1/account/audit?limit=1"
expect_status 200
expect_json '.data.items | length' 1
expect_json '.data.items[0].action' pouch.access.role
expect_json '.data.items[0].actor' operator
expect_json '.data.items[0].actor_email' null
expect_json '.data.items[0].after.role' write
CURSOR=$(json .meta.next_cursor)
WEB_TOKEN=$A_TOKEN web_req GET "/v1/account/audit?limit=1&cursor=$CURSOR"
expect_status 200
expect_json '.data.items | length' 1
expect_json '.data.items[0].action' pouch.invitation.accept
expect_json '.data.items[0].actor_email' "$B_EMAIL"
expect_json .meta.next_cursor null
check account_audit_pages_the_accounts_own_entries_newest_first

WEB_TOKEN=$B_TOKEN web_req GET /v1/account/audit
expect_json '.data.items | map(.action) | join(",")' pouch.access.remove
WEB_TOKEN=$B_TOKEN web_req GET "/v1/account/audit?cursor=$CURSOR"
expect_error 400 invalid_cursor
check account_audit_shows_another_account_nothing_of_this_one

DEVICE_KEY=$D1_KEY ACCESS=$D1_ACCESS cli_req GET /v1/account/audit
expect_error 403 wrong_caller
check account_audit_is_web_only

smoke_done
