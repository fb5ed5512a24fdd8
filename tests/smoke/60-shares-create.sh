#!/usr/bin/env bash
# 60-shares-create.sh -- creating a share (op 13, decisions §8, §3) through nginx: the Share
# object answered and the row stored, expires values and their stored expires_at, bounds of
# bundle and label_enc at their edges (the largest legal body passes nginx's 12 MiB limit and
# the handler; one character more is a 400 from the handler, not a 413), id reuse across
# accounts, caller kinds and cross-account pouches. Relies on tests/smoke/lib.sh and flows.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

# big_body FILE ID BUNDLE_CHARS LABEL_CHARS: a create body with bundle and label of "A"s
# (all-zero bits, so every length but 4k+1 is canonical b64url), written to FILE.
big_body() {
    {
        printf '{"id":"%s","label_enc":"' "$2"
        head -c "$4" /dev/zero | tr '\0' A
        printf '","bundle":"'
        head -c "$3" /dev/zero | tr '\0' A
        printf '"}'
    } >"$1"
}

flow_user
A_TOKEN=$WEB_TOKEN A_USER=$WEB_USER A_ACCOUNT=$WEB_ACCOUNT A_POUCH=$POUCH
flow_device laptop
web=(-H "Authorization: Bearer $A_TOKEN")
create() { req POST "/v1/pouches/$A_POUCH/shares" "$1" "${web[@]}"; }

# --- the Share object and the stored row ------------------------------------------------------
S1=$(flow_uuid)
create "$(flow_share_body "$S1")"
expect_status 201
expect_json .ok true
expect_true "exactly the Share fields" test "$(json '.data | keys_unsorted | join(",")')" = \
    "id,pouch_id,label_enc,state,one_time,size,views,imports,expires_at,revoked_at,last_imported_at,created_at"
expect_json .data.id "$S1"
expect_json .data.pouch_id "$A_POUCH"
expect_json .data.label_enc bGFiZWw
expect_json .data.state active
expect_json .data.one_time false
expect_json .data.size 13
expect_json .data.views 0
expect_json .data.imports 0
expect_json .data.revoked_at null
expect_json .data.last_imported_at null
expect_json_match .data.created_at '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$'
expect_json_match .data.expires_at '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$'
row=$(sql "SELECT account_id, pouch_id, created_by_user, label_enc, bundle, size, one_time, views, imports,
                  consumed_at IS NULL, revoked_at IS NULL, last_imported_at IS NULL,
                  expires_at - created_at = interval '7 days'
             FROM shares WHERE id = '$S1'")
expect_true "stored row $row" test "$row" = \
    "$A_ACCOUNT|$A_POUCH|$A_USER|bGFiZWw|c2VhbGVkLWJ1bmRsZQ|13|f|0|0|t|t|t|t"
check create_answers_the_share_and_stores_it_active_for_7_days_by_default

# --- expires and one_time ---------------------------------------------------------------------
for pair in "1d:1 day" "7d:7 days" "30d:30 days"; do
    id=$(flow_uuid)
    create "$(flow_share_body "$id" "{\"expires\":\"${pair%%:*}\"}")"
    expect_status 201
    expect_json .data.state active
    expect_true "expires ${pair%%:*} stored as created_at + ${pair#*:}" test \
        "$(sql "SELECT expires_at - created_at = interval '${pair#*:}' FROM shares WHERE id = '$id'")" = t
    expect_true "expires_at answered as stored" test \
        "$(json .data.expires_at)" = "$(sql "SELECT iso(expires_at) FROM shares WHERE id = '$id'")"
done
check expires_1d_7d_30d_set_expires_at_from_created_at

id=$(flow_uuid)
create "$(flow_share_body "$id" '{"expires":"never","one_time":true}')"
expect_status 201
expect_json .data.expires_at null
expect_json .data.one_time true
expect_json .data.state active
expect_true "stored without expiry, one_time" test \
    "$(sql "SELECT expires_at IS NULL, one_time FROM shares WHERE id = '$id'")" = "t|t"
check expires_never_stores_no_expiry

for bad in '"2d"' '"7D"' '""' 'null' '7'; do
    id=$(flow_uuid)
    create "$(flow_share_body "$id" "{\"expires\":$bad}")"
    expect_error 400 validation_failed
    expect_json .error.field /expires
    expect_true "nothing stored for expires $bad" test "$(sql "SELECT count(*) FROM shares WHERE id = '$id'")" = 0
done
check expires_outside_1d_7d_30d_never_is_400

id=$(flow_uuid)
create "$(flow_share_body "$id" '{"one_time":"yes"}')"
expect_error 400 validation_failed
expect_json .error.field /one_time
check one_time_must_be_a_boolean

# --- bounds of bundle and label_enc through nginx ----------------------------------------------
big=$SMOKE_TMP/big.json
id=$(flow_uuid)
big_body "$big" "$id" 11184811 683
expect_true "the largest legal body is under nginx's 12 MiB" test "$(stat -c %s "$big")" -lt $((12 * 1024 * 1024))
create "@$big"
expect_status 201
expect_json .data.size 8388608
expect_true "stored bundle of 11184811 chars, size 8 MiB" test \
    "$(sql "SELECT length(bundle), size, length(label_enc) FROM shares WHERE id = '$id'")" = "11184811|8388608|683"
req GET "/v1/shares/$id"
expect_status 200
expect_json '.data.bundle | length' 11184811
expect_json .data.size 8388608
check bundle_of_11184811_and_label_of_683_characters_are_accepted_and_fetched

id=$(flow_uuid)
big_body "$big" "$id" 11184812 683
create "@$big"
expect_error 400 validation_failed
expect_json .error.field /bundle
expect_true "nothing stored" test "$(sql "SELECT count(*) FROM shares WHERE id = '$id'")" = 0
check bundle_of_11184812_characters_is_400_from_the_handler

id=$(flow_uuid)
big_body "$big" "$id" 100 684
create "@$big"
expect_error 400 validation_failed
expect_json .error.field /label_enc
check label_enc_of_684_characters_is_400

id=$(flow_uuid)
{
    printf '{"id":"%s","label_enc":"bGFiZWw","bundle":"' "$id"
    head -c $((12 * 1024 * 1024)) /dev/zero | tr '\0' A
    printf '"}'
} >"$big"
create "@$big"
expect_error 413 payload_too_large
check body_over_12_mib_is_413_from_nginx

for n in 1 2 3 4 5; do
    id=$(flow_uuid)
    create "$(jq -nc --arg i "$id" --arg b "$(head -c "$n" /dev/zero | tr '\0' A)" '{id:$i,bundle:$b,label_enc:"QQ"}')"
    if ((n % 4 == 1)); then
        expect_error 400 validation_failed
        expect_json .error.field /bundle
    else
        expect_status 201
        expect_json .data.size $((n * 3 / 4))
    fi
done
check size_is_the_decoded_length_and_a_length_of_4k_plus_1_is_400

for case in 'bundle:""' 'label_enc:""' 'bundle:"QR"' 'label_enc:"QQ=="' 'bundle:"a+b/"'; do
    id=$(flow_uuid)
    create "$(flow_share_body "$id" "{\"${case%%:*}\":${case#*:}}")"
    expect_error 400 validation_failed
    expect_json .error.field "/${case%%:*}"
done
check empty_padded_or_non_canonical_b64url_is_400

create '{"bundle":"QQ","label_enc":"QQ"}'
expect_error 400 validation_failed
expect_json .error.field /id
create "$(flow_share_body "$(flow_uuid)" '{"pouch_id":"x"}')"
expect_error 400 validation_failed
expect_json .error.field /pouch_id
create "$(flow_share_body not-a-uuid)"
expect_error 400 validation_failed
expect_json .error.field /id
create '{"id":'
expect_error 400 invalid_json
check missing_unknown_or_malformed_fields_are_400

# --- id reuse, caller kinds, other accounts ----------------------------------------------------
create "$(flow_share_body "$S1" '{"one_time":true}')"
expect_error 409 share_exists
expect_true "the first share unchanged" test "$(sql "SELECT one_time FROM shares WHERE id = '$S1'")" = f
check an_id_in_use_is_409_share_exists

cli_req POST "/v1/pouches/$A_POUCH/shares" "$(flow_share_body "$(flow_uuid)")"
expect_error 403 wrong_caller
check a_cli_cannot_create_a_share

req POST "/v1/pouches/$A_POUCH/shares" "$(flow_share_body "$(flow_uuid)")"
expect_error 401 unauthenticated
check create_without_credentials_is_401

flow_user
B_POUCH=$POUCH
b=(-H "Authorization: Bearer $WEB_TOKEN")
id=$(flow_uuid)
req POST "/v1/pouches/$A_POUCH/shares" "$(flow_share_body "$id")" "${b[@]}"
expect_error 404 not_found
expect_true "nothing stored" test "$(sql "SELECT count(*) FROM shares WHERE id = '$id'")" = 0
req POST "/v1/pouches/$(flow_uuid)/shares" "$(flow_share_body "$id")" "${b[@]}"
expect_error 404 not_found
check create_on_another_accounts_or_an_unknown_pouch_is_404

req POST "/v1/pouches/$B_POUCH/shares" "$(flow_share_body "$S1")" "${b[@]}"
expect_error 409 share_exists
expect_true "still the first account's" test "$(sql "SELECT account_id FROM shares WHERE id = '$S1'")" = "$A_ACCOUNT"
check an_id_used_by_another_account_is_409_too

smoke_done
