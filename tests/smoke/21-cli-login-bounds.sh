#!/usr/bin/env bash
# 21-cli-login-bounds.sh -- every bound of the login start (op 5) and of approve (op 3), at the
# edge and one past it (interface "Limits", decisions §3, §6), through nginx: the exact status,
# code and JSON Pointer, and that a rejected request stores nothing. Relies on
# tests/smoke/lib.sh, tests/smoke/flows.sh, pouchctl and psql.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

count_requests() { sql "SELECT count(*) FROM cli_login_requests"; }
# accepts NAME FILTER / rejects NAME FILTER FIELD [CODE]: a start whose body is flow_start_body
# FILTER (CODE: validation_failed unless given).
accepts() {
    flow_start_login "$(flow_start_body "$2")"
    expect_status 200
    check "$1"
}
rejects() {
    local before
    before=$(count_requests)
    flow_start_login "$(flow_start_body "$2")"
    expect_error 400 "${4:-validation_failed}"
    expect_json .error.field "$3"
    expect_true "nothing stored" test "$(count_requests)" = "$before"
    check "$1"
}

flow_user bounds
flow_cli_keys bounds

# --- start (op 5) --------------------------------------------------------------------------------
accepts start_device_name_of_64_characters_is_accepted ".device_name = (\"é\" * 64)"
expect_true "stored as sent" test "$(sql "SELECT char_length(device_name) FROM cli_login_requests WHERE id = '$REQ'")" = 64
check start_device_name_is_counted_in_characters
rejects start_device_name_of_65_characters_is_rejected ".device_name = (\"é\" * 65)" /device_name invalid_field
rejects start_empty_device_name_is_rejected '.device_name = ""' /device_name invalid_field
# Labels (decisions §15): 64 four-byte characters are 64 scalar values, 65 one past; each
# forbidden class is 400 invalid_field and stores nothing.
accepts start_device_name_of_64_four_byte_characters_is_accepted '.device_name = ("\ud83d\ude00" * 64)'
rejects start_device_name_of_65_four_byte_characters_is_rejected '.device_name = ("\ud83d\ude00" * 65)' /device_name invalid_field
rejects start_device_name_with_a_path_is_rejected '.device_name = "x/../../../../../../SOMEWHERE/PWNED"' /device_name invalid_field
rejects start_device_name_with_a_backslash_is_rejected '.device_name = "x\\..\\y"' /device_name invalid_field
rejects start_device_name_with_a_c0_control_is_rejected '.device_name = "a\u001b[8mb"' /device_name invalid_field
rejects start_device_name_with_del_is_rejected '.device_name = "a\u007fb"' /device_name invalid_field
rejects start_device_name_with_a_c1_control_is_rejected '.device_name = "a\u009bb"' /device_name invalid_field
rejects start_device_name_with_a_bidi_override_is_rejected '.device_name = "evil\u202egpj.exe"' /device_name invalid_field
rejects start_device_name_with_a_bidi_isolate_is_rejected '.device_name = "a\u2066b"' /device_name invalid_field
rejects start_device_name_with_leading_white_space_is_rejected '.device_name = " laptop"' /device_name invalid_field
rejects start_device_name_with_trailing_white_space_is_rejected '.device_name = "laptop\u3000"' /device_name invalid_field
rejects start_device_name_in_nfd_is_rejected '.device_name = "cafe\u0301"' /device_name invalid_field
accepts start_device_name_in_nfc_is_accepted '.device_name = "caf\u00e9 laptop"'
expect_true "stored as sent" test "$(sql "SELECT device_name FROM cli_login_requests WHERE id = '$REQ'")" = "café laptop"
check start_device_name_in_nfc_is_stored_as_sent
accepts start_arch_of_32_characters_is_accepted ".arch = (\"a\" * 32)"
rejects start_arch_of_33_characters_is_rejected ".arch = (\"a\" * 33)" /arch
rejects start_empty_arch_is_rejected '.arch = ""' /arch
accepts start_cli_version_of_32_characters_is_accepted ".cli_version = (\"9\" * 32)"
rejects start_cli_version_of_33_characters_is_rejected ".cli_version = (\"9\" * 33)" /cli_version
accepts start_32_assistants_are_accepted '.assistants = [range(32) | "a\(.)"]'
expect_true "assistants stored" test "$(sql "SELECT jsonb_array_length(assistants) FROM cli_login_requests WHERE id = '$REQ'")" = 32
check start_assistants_are_stored
rejects start_33_assistants_are_rejected '.assistants = [range(33) | "a\(.)"]' /assistants
accepts start_without_assistants_is_accepted 'del(.assistants)'
web_req GET "/v1/cli-auth/requests/$REQ"
expect_json '.data.assistants | tojson' '[]'
check start_without_assistants_lists_none
rejects start_assistant_that_is_not_a_string_is_rejected '.assistants = [1]' /assistants/0
accepts start_code_challenge_of_43_characters_is_accepted '.'
rejects start_code_challenge_of_42_characters_is_rejected '.code_challenge |= .[0:42]' /code_challenge
rejects start_code_challenge_of_44_characters_is_rejected '.code_challenge += "A"' /code_challenge
rejects start_code_challenge_outside_b64url_is_rejected '.code_challenge |= "+" + .[1:]' /code_challenge
for os in linux macos windows; do accepts "start_os_${os}_is_accepted" ".os = \"$os\""; done
rejects start_unknown_os_is_rejected '.os = "freebsd"' /os
rejects start_os_in_other_case_is_rejected '.os = "Linux"' /os
for ks in tpm secure_enclave os_keystore file; do accepts "start_key_storage_${ks}_is_accepted" ".key_storage = \"$ks\""; done
rejects start_unknown_key_storage_is_rejected '.key_storage = "hsm"' /key_storage

# A point off the curve: flip the last character of y (x, y stay 43 b64url characters).
off_curve() { jq -c '.y |= (.[0:42] + (if .[42:43] == "A" then "B" else "A" end))' <<<"$1"; }
bad_sign=$(off_curve "$SIGN_PUB")
rejects start_sign_pub_off_the_curve_is_rejected ".sign_pub = $bad_sign" /sign_pub
rejects start_enc_pub_off_the_curve_is_rejected ".enc_pub = $(off_curve "$ENC_PUB")" /enc_pub
rejects start_jwk_with_a_private_member_is_rejected '.enc_pub.d = "AAAA"' /enc_pub/d
rejects start_jwk_of_another_curve_is_rejected '.enc_pub.crv = "P-384"' /enc_pub/crv
rejects start_jwk_with_a_short_coordinate_is_rejected '.enc_pub.x |= .[0:42]' /enc_pub/x

rejects start_connect_token_of_31_characters_is_rejected ".connect_token = \"svc_lt_$(repeat A 31)\"" /connect_token
rejects start_connect_token_of_33_characters_is_rejected ".connect_token = \"svc_lt_$(repeat A 33)\"" /connect_token
rejects start_connect_token_with_another_prefix_is_rejected ".connect_token = \"svc_at_$(repeat A 32)\"" /connect_token
rejects start_connect_token_outside_b64url_is_rejected ".connect_token = \"svc_lt_$(repeat . 32)\"" /connect_token
rejects start_unknown_connect_token_is_rejected ".connect_token = \"svc_lt_$(repeat A 32)\"" /connect_token
rejects start_unknown_field_is_rejected '.color = "blue"' /color
rejects start_missing_field_is_rejected 'del(.enc_pub)' /enc_pub

before=$(count_requests)
req POST /v1/cli-auth/requests "$(flow_start_body)"
expect_error 401 invalid_dpop_proof
expect_header WWW-Authenticate 'DPoP error="invalid_dpop_proof"'
check start_without_a_proof_is_401

other_key=$SMOKE_TMP/other.pem
"$POUCHCTL" keygen --out "$other_key" >/dev/null
req POST /v1/cli-auth/requests "$(flow_start_body)" -H "DPoP: $(flow_dpop "$other_key" POST /v1/cli-auth/requests)"
expect_error 401 invalid_dpop_proof
check start_with_a_proof_not_signed_by_sign_pub_is_401

proof=$(flow_dpop "$DEVICE_KEY" POST /v1/cli-auth/requests)
req POST /v1/cli-auth/requests "$(flow_start_body)" -H "DPoP: $proof"
expect_status 200
req POST /v1/cli-auth/requests "$(flow_start_body)" -H "DPoP: $proof"
expect_error 401 invalid_dpop_proof
check start_with_a_replayed_proof_is_401

req POST /v1/cli-auth/requests "$(flow_start_body)" -H "DPoP: $(flow_dpop "$DEVICE_KEY" POST /v1/cli-auth/token)"
expect_error 401 invalid_dpop_proof
check start_with_a_proof_for_another_url_is_401
expect_true "only the one accepted start stored" test "$(count_requests)" = $((before + 1))
check refused_starts_store_nothing

# --- token (op 6) bounds ---------------------------------------------------------------------
flow_start_login
token_body() { jq -nc --arg i "$REQ" --arg v "$VERIFIER" "{request_id:\$i,code_verifier:\$v} | $1"; }
for case in '.wait = 31 => /wait' '.wait = -1 => /wait' '.wait = 1.5 => /wait' \
    '.code_verifier |= .[0:42] => /code_verifier' '.code_verifier = ("a" * 129) => /code_verifier' \
    '.code_verifier |= "+" + .[1:] => /code_verifier' '.request_id = "nope" => /request_id' \
    '.extra = 1 => /extra'; do
    req POST /v1/cli-auth/token "$(token_body "${case% => *}")" -H "DPoP: $(flow_dpop "$DEVICE_KEY" POST /v1/cli-auth/token)"
    expect_error 400 validation_failed
    expect_json .error.field "${case##* => }"
done
expect_true "request untouched" test "$(sql "SELECT status || ':' || (last_poll_at IS NULL) FROM cli_login_requests WHERE id = '$REQ'")" = pending:true
check token_rejects_out_of_bounds_fields

# The pipeline records every proof before the handler runs (docs/DECISIONS.md, "DPoP
# replays"): the replay is refused before the poll limit (429 slow_down) is even looked at.
proof=$(flow_dpop "$DEVICE_KEY" POST /v1/cli-auth/token)
req POST /v1/cli-auth/token "$(token_body .)" -H "DPoP: $proof"
expect_status 200
expect_json .data.status pending
req POST /v1/cli-auth/token "$(token_body .)" -H "DPoP: $proof"
expect_error 401 invalid_dpop_proof
expect_header WWW-Authenticate 'DPoP error="invalid_dpop_proof"'
expect_true "request still pending" test "$(sql "SELECT status FROM cli_login_requests WHERE id = '$REQ'")" = pending
check token_with_a_replayed_proof_is_401

# --- approve (op 3) ------------------------------------------------------------------------------
snapshot() {
    sql "SELECT (SELECT count(*) FROM roster_entries WHERE account_id = '$WEB_ACCOUNT') || ':' ||
                (SELECT count(*) FROM members WHERE account_id = '$WEB_ACCOUNT') || ':' ||
                (SELECT count(*) FROM devices WHERE account_id = '$WEB_ACCOUNT') || ':' ||
                (SELECT count(*) FROM key_envelopes k JOIN pouches p ON p.id = k.pouch_id WHERE p.account_id = '$WEB_ACCOUNT')"
}
# approve_file FILTER: an approve body (flow_approve_body piped through FILTER) in a file,
# as "@file".
approve_file() {
    flow_approve_body | jq -c "$1" >"$SMOKE_TMP/approve.json"
    echo "@$SMOKE_TMP/approve.json"
}
approve_rejects() { # NAME FILTER FIELD
    local before
    before=$(snapshot)
    flow_approve "$REQ" "$(approve_file "$2")"
    expect_error 400 validation_failed
    expect_json .error.field "$3"
    expect_true "nothing stored" test "$(snapshot)" = "$before"
    expect_true "request still pending" test "$(sql "SELECT status FROM cli_login_requests WHERE id = '$REQ'")" = pending
    check "$1"
}
approve_accepts() { # NAME FILTER
    flow_approve "$REQ" "$(approve_file "$2")"
    expect_status 200
    check "$1"
    flow_start_login  # the next case needs a pending request
}

approve_accepts approve_welcome_of_349526_characters_is_accepted ".welcome = (\"w\" * 349526)"
approve_rejects approve_welcome_of_349527_characters_is_rejected ".welcome = (\"w\" * 349527)" /welcome
approve_rejects approve_empty_welcome_is_rejected '.welcome = ""' /welcome
approve_rejects approve_welcome_outside_b64url_is_rejected '.welcome = "a+b/"' /welcome
approve_accepts approve_statement_of_87382_characters_is_accepted ".statement.statement = (\"s\" * 87382)"
approve_rejects approve_statement_of_87383_characters_is_rejected ".statement.statement = (\"s\" * 87383)" /statement/statement
approve_accepts approve_statement_signature_of_342_characters_is_accepted ".statement.signature = (\"g\" * 342)"
approve_rejects approve_statement_signature_of_343_characters_is_rejected ".statement.signature = (\"g\" * 343)" /statement/signature
approve_accepts approve_envelope_fields_at_their_bounds_are_accepted \
    ".key_envelopes[0] += {hpke_enc: (\"h\" * 342), ciphertext: (\"c\" * 5462), signature: (\"g\" * 342)}"
approve_rejects approve_hpke_enc_of_343_characters_is_rejected ".key_envelopes[0].hpke_enc = (\"h\" * 343)" /key_envelopes/0/hpke_enc
approve_rejects approve_ciphertext_of_5463_characters_is_rejected ".key_envelopes[0].ciphertext = (\"c\" * 5463)" /key_envelopes/0/ciphertext
approve_rejects approve_envelope_signature_of_343_characters_is_rejected ".key_envelopes[0].signature = (\"g\" * 343)" /key_envelopes/0/signature
approve_rejects approve_key_gen_0_is_rejected '.key_envelopes[0].key_gen = 0' /key_envelopes/0/key_gen
approve_rejects approve_key_gen_beyond_2_53_is_rejected '.key_envelopes[0].key_gen = 9007199254740992' /key_envelopes/0/key_gen
approve_rejects approve_without_envelopes_is_rejected '.key_envelopes = []' /key_envelopes
approve_rejects approve_confirm_code_with_a_space_is_rejected '.confirm_code = "1234 5678"' /confirm_code
approve_rejects approve_confirm_code_of_7_digits_is_rejected '.confirm_code = "1234-567"' /confirm_code
approve_rejects approve_unknown_field_is_rejected '.device_name = "x"' /device_name

# 2,000 envelopes, one per pouch: the account gets 1,999 more pouches straight in the
# database (creating pouches is another group's endpoint).
sql "INSERT INTO pouches (id, account_id, epoch, key_gen)
     SELECT gen_random_uuid(), '$WEB_ACCOUNT', gen_random_uuid(), 1 FROM generate_series(1, 1999)" >/dev/null
sql "SELECT id FROM pouches WHERE account_id = '$WEB_ACCOUNT'" >"$SMOKE_TMP/pouches"
big_approve() { # N MEMBER: envelopes for the first N pouches (N > 2000 repeats pouches)
    jq -Rn --arg m "$2" --arg by "$WEB_MEMBER" --arg s "$(flow_b64 64)" --arg g "$(flow_b64 64)" \
        --arg e "$(flow_b64 32)" --arg c "$(flow_b64 48)" --argjson n "$1" '
        [inputs] as $p | {statement: {statement:$s, signature:$g}, welcome: $s,
         key_envelopes: [range($n) | {pouch_id: $p[. % ($p | length)], member_id:$m, key_gen:1,
                         hpke_enc:$e, ciphertext:$c, created_by_member:$by, signature:$g}]}' \
        <"$SMOKE_TMP/pouches" >"$SMOKE_TMP/big.json"
    echo "@$SMOKE_TMP/big.json"
}
before=$(snapshot)
flow_approve "$REQ" "$(big_approve 2001 "$(flow_uuid)")"
expect_error 400 validation_failed
expect_json .error.field /key_envelopes
expect_true "nothing stored" test "$(snapshot)" = "$before"
check approve_with_2001_envelopes_is_rejected

DEVICE_MEMBER=$(flow_uuid)
flow_approve "$REQ" "$(big_approve 2000 "$DEVICE_MEMBER")"
expect_status 200
expect_true "2000 envelopes stored for the new member" \
    test "$(sql "SELECT count(*) FROM key_envelopes WHERE member_id = '$DEVICE_MEMBER'")" = 2000
expect_true "a roster event on every pouch" \
    test "$(sql "SELECT count(*) FROM pouches WHERE account_id = '$WEB_ACCOUNT' AND high_water >= 1")" = 2000
check approve_with_2000_envelopes_is_accepted

smoke_done
