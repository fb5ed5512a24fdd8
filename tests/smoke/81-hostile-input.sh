#!/usr/bin/env bash
# 81-hostile-input.sh -- hostile input (issue 7 part 5): SQL metacharacters and Unicode edge
# cases (quotes, backslashes, "'; DROP TABLE", emoji and other 4-byte characters, RTL marks,
# combining characters, U+FFFF, escaped surrogate pairs) stored and answered byte for byte
# where a field is free text (plan names, commit envelopes, genesis statements, passwords;
# device names too, within the label alphabet of decisions §15, invalid_field outside it),
# refused where the field is b64url (name_index, share label_enc);
# and every request body limit through nginx at its edge (reaches the handler) and one byte
# past it (413 from nginx). Relies on lib.sh, flows.sh, psql and truncate.
set -euo pipefail
export LC_ALL=C.UTF-8
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

# hex TEXT: the UTF-8 bytes of TEXT in hex.
hex() { printf '%s' "$1" | od -An -tx1 -v | tr -d ' \n'; }

# Hostile strings, each at most 64 characters (the bound of names).
# shellcheck disable=SC2016  # [percent] is meant literally
declare -A HOSTILE=(
    [sql_quote]="Robert'); DROP TABLE devices; --"
    [sql_comment]="x' OR '1'='1' /* */ -- \\"
    [quotes]="\"double\" 'single' \`back\` \\\\ \\n \\u0000"
    [emoji]=$'\U0001F600\U0001F469\u200D\U0001F4BB\U0001F1FA\U0001F1F3 4-byte'
    [rtl]=$'\u202Eevil\u202C \u200Fright-to-left\u200E'
    [combining]=$'e\u0301\u0301\u0301 a\u0308\u20DD Z\u0335\u0336'
    [noncharacter]=$'\uFFFF\uFFFE \uFDD0 \U0010FFFF end'
    [percent]='%s %n %x {0} ${HOME} $(id) <script>'
)

flow_user
web=(-H "Authorization: Bearer $WEB_TOKEN")
flow_device laptop

# --- device names: PATCH, then GET /v1/devices and the stored bytes ----------------------------
# A device name is a label (decisions §15): these hostile strings break its alphabet ('/' or
# '\', bidi controls, not NFC) and are refused with invalid_field; the others round-trip.
declare -A LABEL_REFUSED=([sql_comment]=1 [quotes]=1 [rtl]=1 [combining]=1)
for key in "${!HOSTILE[@]}"; do
    value=${HOSTILE[$key]}
    before=$(sql "SELECT name FROM devices WHERE id = '$DEVICE_ID'")
    req PATCH "/v1/devices/$DEVICE_ID" "$(jq -nc --arg n "$value" '{name:$n}')" "${web[@]}"
    if [[ -n ${LABEL_REFUSED[$key]:-} ]]; then
        expect_error 400 invalid_field
        expect_json .error.field /name
        expect_true "name unchanged" test "$(sql "SELECT name FROM devices WHERE id = '$DEVICE_ID'")" == "$before"
        check "device_name_outside_the_label_alphabet_is_refused_$key"
        continue
    fi
    expect_status 200
    expect_json .data.name "$value"
    req GET /v1/devices "" "${web[@]}"
    got=$(jq -r --arg id "$DEVICE_ID" '.data.items[] | select(.id == $id) | .name' <<<"$BODY")
    expect_true "listed name $(hex "$got") != $(hex "$value")" test "$got" == "$value"
    stored=$(sql "SELECT encode(convert_to(name, 'UTF8'), 'hex') FROM devices WHERE id = '$DEVICE_ID'")
    expect_true "stored name $stored != $(hex "$value")" test "$stored" == "$(hex "$value")"
    check "device_name_round_trips_byte_for_byte_$key"
done

# An escaped surrogate pair is the same character as its raw UTF-8; a lone one is refused,
# and so is NUL.
req PATCH "/v1/devices/$DEVICE_ID" '{"name":"\ud83d\ude00 escaped"}' "${web[@]}"
expect_status 200
expect_json .data.name $'\U0001F600 escaped'
check escaped_surrogate_pair_is_stored_as_the_character
req PATCH "/v1/devices/$DEVICE_ID" '{"name":"lone \ud83d surrogate"}' "${web[@]}"
expect_true "lone surrogate answered $STATUS" test "$STATUS" == 400
req PATCH "/v1/devices/$DEVICE_ID" '{"name":"nul \u0000 inside"}' "${web[@]}"
expect_true "NUL answered $STATUS" test "$STATUS" == 400
expect_true "name unchanged" test "$(sql "SELECT name FROM devices WHERE id = '$DEVICE_ID'")" == $'\U0001F600 escaped'
check lone_surrogate_and_nul_in_a_name_are_refused
# 64 four-byte characters are 64 characters (256 bytes): at the bound; 65 are one past.
name64=$(printf '\U0001F600%.0s' $(seq 64))
req PATCH "/v1/devices/$DEVICE_ID" "$(jq -nc --arg n "$name64" '{name:$n}')" "${web[@]}"
expect_status 200
expect_json .data.name "$name64"
req PATCH "/v1/devices/$DEVICE_ID" "$(jq -nc --arg n "${name64}x" '{name:$n}')" "${web[@]}"
expect_error 400 invalid_field
check device_name_bound_counts_characters_not_bytes

# --- commit envelopes: stored and answered byte for byte -------------------------------------
envelope=""
for key in "${!HOSTILE[@]}"; do envelope+="${HOSTILE[$key]}|"; done
ARTIFACT=$(flow_uuid)
REVISION=$(flow_uuid)
req POST "/v1/pouches/$POUCH/operations" "$(jq -nc --arg o "$(flow_uuid)" --arg e "$EPOCH" \
    --arg a "$ARTIFACT" --arg r "$REVISION" --arg m "$WEB_MEMBER" --arg env "$envelope" \
    '{operation_id:$o,epoch:$e,ops:[{type:"put",artifact_id:$a,revision_id:$r,base_revision_id:null,
      key_gen:1,envelope:$env,signature:"c2ln",signer_member_id:$m,blob_ids:[]}]}')" "${web[@]}"
expect_status 200
expect_json '.data.results[0].status' applied
req GET "/v1/pouches/$POUCH/artifacts" "" "${web[@]}"
got=$(jq -r --arg a "$ARTIFACT" '.data.items[] | select(.id == $a) | .head.envelope' <<<"$BODY")
expect_true "artifact head envelope differs" test "$got" == "$envelope"
req GET "/v1/pouches/$POUCH/artifacts/$ARTIFACT/revisions" "" "${web[@]}"
expect_json '.data.items[0].envelope' "$envelope"
stored=$(sql "SELECT encode(convert_to(envelope, 'UTF8'), 'hex') FROM revisions WHERE id = '$REVISION'")
expect_true "stored envelope bytes differ" test "$stored" == "$(hex "$envelope")"
check commit_envelope_round_trips_byte_for_byte

# b64url fields refuse anything else: name_index and a share's label_enc.
hw_before=$(sql "SELECT high_water FROM pouches WHERE id = '$POUCH'")
for key in sql_quote emoji rtl; do
    req POST "/v1/pouches/$POUCH/operations" "$(jq -nc --arg o "$(flow_uuid)" --arg e "$EPOCH" \
        --arg a "$(flow_uuid)" --arg r "$(flow_uuid)" --arg m "$WEB_MEMBER" --arg n "${HOSTILE[$key]}" \
        '{operation_id:$o,epoch:$e,ops:[{type:"put",artifact_id:$a,revision_id:$r,base_revision_id:null,
          name_index:$n,key_gen:1,envelope:"ZW52",signature:"c2ln",signer_member_id:$m,blob_ids:[]}]}')" "${web[@]}"
    expect_error 400 validation_failed
    expect_json .error.field /ops/0/name_index
    req POST "/v1/pouches/$POUCH/shares" "$(jq -nc --arg i "$(flow_uuid)" --arg l "${HOSTILE[$key]}" \
        '{id:$i,bundle:"YnVuZGxl",label_enc:$l}')" "${web[@]}"
    expect_error 400 validation_failed
    expect_json .error.field /label_enc
    check "b64url_fields_refuse_${key}"
done
hw=$(sql "SELECT high_water FROM pouches WHERE id = '$POUCH'")
expect_true "refused commits wrote nothing (high_water $hw)" test "$hw" == "$hw_before"
expect_true "refused shares wrote nothing" test "$(sql "SELECT count(*) FROM shares WHERE pouch_id = '$POUCH'")" == 0
check refused_hostile_b64url_writes_nothing

# --- genesis statements (plain strings) and passwords ----------------------------------------
statement=""
for key in "${!HOSTILE[@]}"; do statement+="${HOSTILE[$key]}|"; done
HOSTILE_PASSWORD="${HOSTILE[sql_quote]}${HOSTILE[emoji]}"
email="hostile.$(flow_uuid)@example.com"
req POST /v1/account/signup "$(jq -nc --arg e "$email" --arg p "$HOSTILE_PASSWORD" '{email:$e,password:$p}')"
expect_status 201
token=$(json .data.session_token)
req POST /v1/account/login "$(jq -nc --arg e "$email" --arg p "$HOSTILE_PASSWORD" '{email:$e,password:$p}')"
expect_status 200
# The same characters decomposed differently are another password (no normalisation).
req POST /v1/account/login "$(jq -nc --arg e "$email" --arg p "${HOSTILE_PASSWORD}"$'\u0301' '{email:$e,password:$p}')"
expect_error 401 invalid_credentials
check hostile_password_signs_up_and_logs_in_exactly

# Statement 0 is decoded (decisions §15): a hostile string there is refused; after it,
# statements are opaque strings, stored and answered byte for byte.
member=$(flow_uuid)
pouch=$(flow_uuid)
genesis_with() {
    jq -nc --argjson st "$1" --arg p "$pouch" --arg m "$member" \
        '{statements:$st,
          key_envelopes:[{pouch_id:$p,member_id:$m,key_gen:1,hpke_enc:"ZW5j",ciphertext:"Y3Q",
                          created_by_member:$m,signature:"c2ln"}]}'
}
hostile=$(jq -nc --arg s "$statement" '{statement:$s,signature:"c2ln"}')
req POST /v1/account/roster/genesis "$(genesis_with "[$hostile]")" -H "Authorization: Bearer $token"
expect_error 400 invalid_field
expect_json .error.field /statements/0/statement
expect_true "no roster stored" test "$(sql "SELECT count(*) FROM roster_entries r JOIN storage_accounts a ON a.id = r.account_id JOIN users u ON u.id = a.owner_user_id WHERE u.email = '$email'")" == 0
req POST /v1/account/roster/genesis \
    "$(genesis_with "[$("$POUCHCTL" genesis-statement --member "$member"),$hostile]")" -H "Authorization: Bearer $token"
expect_status 201
req GET /v1/account/roster "" -H "Authorization: Bearer $token"
expect_json '.data.items[1].statement' "$statement"
check genesis_statement_round_trips_byte_for_byte

# --- plan names (admin) ------------------------------------------------------------------------
flow_web_user
"$POUCHCTL" user role "$WEB_EMAIL" admin --reason "81-hostile-input" >/dev/null
admin=(-H "Authorization: Bearer $WEB_TOKEN")
req GET /v1/admin/plans "" "${admin[@]}"
plan=$(json '.data.items[0].id')
original=$(jq -c '.data.items[0] | {name, description}' <<<"$BODY")
for key in "${!HOSTILE[@]}"; do
    value=${HOSTILE[$key]}
    req PUT "/v1/admin/plans/$plan" "$(jq -nc --arg n "$value" --arg d "$value$value" '{name:$n,description:$d,reason:$n}')" "${admin[@]}"
    expect_status 200
    expect_json .data.name "$value"
    req GET "/v1/admin/plans/$plan" "" "${admin[@]}"
    expect_json .data.name "$value"
    expect_json .data.description "$value$value"
    stored=$(sql "SELECT encode(convert_to(name, 'UTF8'), 'hex') FROM plans WHERE id = '$plan'")
    expect_true "stored plan name bytes differ" test "$stored" == "$(hex "$value")"
    check "plan_name_round_trips_byte_for_byte_$key"
done
req PUT "/v1/admin/plans/$plan" "$original" "${admin[@]}"
expect_status 200
check plan_restored
"$POUCHCTL" user role "$WEB_EMAIL" user >/dev/null 2>&1 || true   # the last admin stays
expect_true "tables intact" test "$(sql "SELECT count(*) > 0 FROM devices")" == t
check sql_metacharacters_dropped_no_table

# --- body limits through nginx: at the edge reaches the handler, one byte more is nginx's 413 ---
# body_file SIZE: SIZE bytes "{" spaces "}" (a valid empty object) in a file; prints its path.
body_file() {
    local f=$SMOKE_TMP/body.$1
    if [[ ! -f $f ]]; then
        { printf '{'; head -c $(($1 - 2)) /dev/zero | tr '\0' ' '; printf '}'; } >"$f"
    fi
    printf '%s' "$f"
}
# edge NAME METHOD PATH LIMIT WANT_AT_EDGE [CODE] [content type]: LIMIT bytes answer the
# handler's WANT_AT_EDGE (no credentials, so 401, or 400 for a public route); LIMIT+1: 413.
edge() {
    local name=$1 method=$2 path=$3 limit=$4 want=$5 code=$6 type=${7:-application/json}
    req "$method" "$path" "@$(body_file "$limit")" -H "Content-Type: $type"
    expect_error "$want" "$code"
    req "$method" "$path" "@$(body_file $((limit + 1)))" -H "Content-Type: $type"
    expect_error 413 payload_too_large
    check "body_limit_at_edge_and_one_past_$name"
    rm -f "$SMOKE_TMP/body.$limit" "$SMOKE_TMP/body.$((limit + 1))"
}
P=$(flow_uuid)
D=$(flow_uuid)
KiB=1024
MiB=$((1024 * KiB))
edge login POST /v1/account/login $((64 * KiB)) 400 validation_failed
edge account_logout POST /v1/account/logout $((64 * KiB)) 401 unauthenticated
edge genesis POST /v1/account/roster/genesis $((16 * MiB)) 401 unauthenticated
edge cli_start POST /v1/cli-auth/requests $((64 * KiB)) 401 invalid_dpop_proof
edge cli_refresh POST /v1/cli-auth/refresh $((64 * KiB)) 401 invalid_dpop_proof
edge approve POST "/v1/cli-auth/requests/$D/approve" $((16 * MiB)) 401 unauthenticated
edge rename PATCH "/v1/devices/$D" $((64 * KiB)) 401 unauthenticated
edge revoke POST "/v1/devices/$D/revoke" $((16 * MiB)) 401 unauthenticated
edge cursor PUT /v1/devices/me/cursor $((64 * KiB)) 401 unauthenticated
edge create_pouch POST /v1/pouches $((16 * MiB)) 401 unauthenticated
edge commit POST "/v1/pouches/$P/operations" $((8 * MiB)) 401 unauthenticated
edge key_envelopes POST "/v1/pouches/$P/key-envelopes" $((16 * MiB)) 401 unauthenticated
edge blob_check POST "/v1/pouches/$P/blobs/check" $((128 * KiB)) 401 unauthenticated
edge share_create POST "/v1/pouches/$P/shares" $((12 * MiB)) 401 unauthenticated
edge share_import POST "/v1/shares/$D/import" $((64 * KiB)) 401 unauthenticated
edge plan_edit PUT "/v1/admin/plans/$D" $((64 * KiB)) 401 unauthenticated
edge blob_upload PUT "/v1/pouches/$P/blobs/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" \
    $((64 * MiB)) 401 unauthenticated application/octet-stream

smoke_done
