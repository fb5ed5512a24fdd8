#!/usr/bin/env bash
# 22-devices.sh -- the devices group through nginx (decisions §5.2, §6; ops 9, 11, 14): list,
# rename (web any device, CLI only itself), revoke (idempotent, optional roster rotation,
# rotation_pending) and the acknowledged-seq cursor (CLI only, never moves back), each with
# its exact status, code and stored rows. Relies on tests/smoke/lib.sh, flows.sh, psql.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

# keep NAME: remembers the device that flow_device just made under NAME_KEY, NAME_AT, ...
keep() {
    printf -v "${1}_KEY" %s "$DEVICE_KEY"
    printf -v "${1}_AT" %s "$ACCESS"
    printf -v "${1}_DEVICE" %s "$DEVICE_ID"
    printf -v "${1}_MEMBER" %s "$DEVICE_MEMBER"
}
as() { # as NAME: the next cli_req calls run as that device
    local k=${1}_KEY a=${1}_AT
    DEVICE_KEY=${!k} ACCESS=${!a}
}
device_name() { sql "SELECT name FROM devices WHERE id = '$1'"; }

flow_web_user bob
BOB=$WEB_TOKEN
flow_genesis
flow_device bobs
keep BOBS
BOB_POUCH=$POUCH

flow_web_user ada
ADA=$WEB_TOKEN ADA_ACCOUNT=$WEB_ACCOUNT
flow_genesis
ADA_MEMBER=$WEB_MEMBER ADA_POUCH=$POUCH
flow_device laptop
keep A
flow_device desk
keep B
flow_device spare
keep C

# --- list --------------------------------------------------------------------------------------
web_req GET /v1/devices
expect_status 200
expect_json '.data.items | length' 3
expect_json '[.data.items[].id] | join(",")' "$A_DEVICE,$B_DEVICE,$C_DEVICE"
expect_json '.data.items[0].name' laptop
expect_json '.data.items[0].member_id' "$A_MEMBER"
expect_json '.data.items[0].os' linux
expect_json '.data.items[0].arch' x86_64
expect_json '.data.items[0].cli_version' 1.0.0
expect_json '.data.items[0].key_storage' file
expect_json_match '.data.items[0].created_at' '^20[0-9]{2}-.*Z$'
expect_json '.data.items[0].revoked_at' null
expect_json '.data.items[0] | keys | join(",")' arch,cli_version,created_at,id,key_storage,last_seen_at,member_id,name,os,revoked_at,rotation_pending
expect_json .meta.next_cursor null
check web_lists_the_accounts_devices_in_creation_order

as A
cli_req GET /v1/devices
expect_status 200
expect_json '.data.items | length' 3
check cli_lists_the_same_devices

WEB_TOKEN=$BOB
web_req GET /v1/devices
expect_json '.data.items | length' 1
expect_json '.data.items[0].id' "$BOBS_DEVICE"
check another_account_sees_only_its_own_devices

# --- last seen: the device's last request, moved in the authentication path at most once a
# minute (a request within the minute after the recorded one leaves it as it is) ---------------
seen_age() { sql "SELECT round(extract(epoch FROM now() - last_seen_at)) FROM devices WHERE id = '$1'"; }
seen_at() { sql "SELECT last_seen_at FROM devices WHERE id = '$1'"; }
sql "UPDATE devices SET last_seen_at = now() - interval '5 minutes' WHERE id = '$B_DEVICE'" >/dev/null
as B
cli_req GET /v1/devices
expect_status 200
expect_true "last seen now, $(seen_age "$B_DEVICE") s ago" test "$(seen_age "$B_DEVICE")" -le 5
WEB_TOKEN=$ADA
web_req GET /v1/devices
WEB_TOKEN=$BOB
expect_json ".data.items[] | select(.id == \"$B_DEVICE\") | .last_seen_at" \
    "$(sql "SELECT iso(last_seen_at) FROM devices WHERE id = '$B_DEVICE'")"
check a_request_records_the_devices_last_seen_time

before=$(seen_at "$B_DEVICE")
sql "UPDATE devices SET last_seen_at = now() - interval '50 seconds' WHERE id = '$B_DEVICE'" >/dev/null
before=$(seen_at "$B_DEVICE")
cli_req GET /v1/devices
expect_status 200
expect_true "within the minute: unchanged" test "$(seen_at "$B_DEVICE")" = "$before"
sql "UPDATE devices SET last_seen_at = now() - interval '61 seconds' WHERE id = '$B_DEVICE'" >/dev/null
cli_req GET /v1/devices
expect_true "after the minute: moved ($(seen_age "$B_DEVICE") s ago)" test "$(seen_age "$B_DEVICE")" -le 5
check last_seen_moves_at_most_once_a_minute
WEB_TOKEN=$ADA

req GET /v1/devices
expect_error 401 unauthenticated
check list_needs_credentials

# --- rename (op 14) ------------------------------------------------------------------------------
web_req PATCH "/v1/devices/$A_DEVICE" '{"name":"work laptop"}'
expect_status 200
expect_json .data.id "$A_DEVICE"
expect_json .data.name "work laptop"
expect_json '.data | keys | join(",")' id,name
expect_true "stored" test "$(device_name "$A_DEVICE")" = "work laptop"
check web_renames_a_device_of_its_account

as A
cli_req PATCH "/v1/devices/$A_DEVICE" '{"name":"my laptop"}'
expect_status 200
expect_json .data.name "my laptop"
expect_true "stored" test "$(device_name "$A_DEVICE")" = "my laptop"
check cli_renames_itself

cli_req PATCH "/v1/devices/$B_DEVICE" '{"name":"hijacked"}'
expect_error 403 forbidden
expect_true "unchanged" test "$(device_name "$B_DEVICE")" = desk
check cli_renaming_another_device_is_403

cli_req PATCH "/v1/devices/$BOBS_DEVICE" '{"name":"hijacked"}'
expect_error 404 not_found
web_req PATCH "/v1/devices/$BOBS_DEVICE" '{"name":"hijacked"}'
expect_error 404 not_found
web_req PATCH "/v1/devices/$(flow_uuid)" '{"name":"ghost"}'
expect_error 404 not_found
expect_true "bob's device unchanged" test "$(device_name "$BOBS_DEVICE")" = bobs
check renaming_a_device_of_another_account_is_404

web_req PATCH /v1/devices/not-a-uuid '{"name":"x"}'
expect_error 404 not_found
check device_path_that_is_not_a_uuid_is_404

web_req PATCH "/v1/devices/$B_DEVICE" "{\"name\":\"$(repeat é 64)\"}"
expect_status 200
check device_name_of_64_characters_is_accepted
for bad in '{"name":7} => /name' '{} => /name' '{"name":"x","os":"linux"} => /os'; do
    web_req PATCH "/v1/devices/$B_DEVICE" "${bad% => *}"
    expect_error 400 validation_failed
    expect_json .error.field "${bad##* => }"
done
expect_true "unchanged" test "$(device_name "$B_DEVICE")" = "$(repeat é 64)"
check device_name_of_the_wrong_type_is_rejected

# Labels (decisions §15): outside the alphabet is 400 invalid_field at /name, for the web and
# for a CLI renaming itself, and the stored name stays.
for bad in "$(repeat é 65)" "$(repeat $'\U0001F600' 65)" "" 'x/../../../../../../SOMEWHERE/PWNED' 'a\b' \
    $'a\x1b[8mb' $'a\x7fb' $'a\u009bb' $'evil\u202egpj.exe' $'a\u061cb' $'a\u200fb' $'a\u2069b' \
    ' laptop' 'laptop ' $'laptop\u00a0' $'\u3000laptop' $'cafe\u0301'; do
    web_req PATCH "/v1/devices/$B_DEVICE" "$(jq -nc --arg n "$bad" '{name:$n}')"
    expect_error 400 invalid_field
    expect_json .error.field /name
done
expect_true "unchanged" test "$(device_name "$B_DEVICE")" = "$(repeat é 64)"
as A
cli_req PATCH "/v1/devices/$A_DEVICE" '{"name":"a/b"}'
expect_error 400 invalid_field
expect_json .error.field /name
expect_true "unchanged" test "$(device_name "$A_DEVICE")" = "my laptop"
check device_name_outside_the_label_alphabet_is_invalid_field
web_req PATCH "/v1/devices/$B_DEVICE" "$(jq -nc --arg n "$(repeat $'\U0001F600' 64)" '{name:$n}')"
expect_status 200
expect_true "stored" test "$(device_name "$B_DEVICE")" = "$(repeat $'\U0001F600' 64)"
web_req PATCH "/v1/devices/$B_DEVICE" "$(jq -nc '{name:"caf\u00e9 \u6771\u4eac a\u2002b"}')"
expect_status 200
expect_true "stored as sent" test "$(device_name "$B_DEVICE")" = $'caf\u00e9 \u6771\u4eac a\u2002b'
check device_name_inside_the_label_alphabet_is_stored_as_sent

# --- cursor (op 9) -------------------------------------------------------------------------------
read -r epoch high_water < <(sql "SELECT epoch || ' ' || high_water FROM pouches WHERE id = '$ADA_POUCH'" | tr -d '\r')
cursor_body() { jq -nc --arg p "${3:-$ADA_POUCH}" --arg e "${2:-$epoch}" --argjson s "$1" '{pouch_id:$p,epoch:$e,acked_seq:$s}'; }
stored_cursor() { sql "SELECT acked_seq FROM device_cursors WHERE device_id = '$A_DEVICE' AND pouch_id = '$ADA_POUCH' AND epoch = '$epoch'"; }
expect_true "the pouch has events (roster, one per enrolment): $high_water" test "$high_water" -ge 3
check pouch_has_events_to_acknowledge

as A
cli_req PUT /v1/devices/me/cursor "$(cursor_body 2)"
expect_status 200
expect_json .data.pouch_id "$ADA_POUCH"
expect_json .data.epoch "$epoch"
expect_json .data.acked_seq 2
expect_true "stored" test "$(stored_cursor)" = 2
check cursor_stores_the_acknowledged_seq

cli_req PUT /v1/devices/me/cursor "$(cursor_body 1)"
expect_status 200
expect_json .data.acked_seq 2
expect_true "still 2" test "$(stored_cursor)" = 2
check cursor_never_moves_back

cli_req PUT /v1/devices/me/cursor "$(cursor_body "$high_water")"
expect_status 200
expect_json .data.acked_seq "$high_water"
cli_req PUT /v1/devices/me/cursor "$(cursor_body 0)"
expect_status 200
expect_json .data.acked_seq "$high_water"
check cursor_accepts_high_water_and_zero

cli_req PUT /v1/devices/me/cursor "$(cursor_body $((high_water + 1)))"
expect_error 400 validation_failed
expect_json .error.field /acked_seq
expect_true "unchanged" test "$(stored_cursor)" = "$high_water"
check cursor_beyond_high_water_is_rejected

other_epoch=$(flow_uuid)
cli_req PUT /v1/devices/me/cursor "$(cursor_body 1 "$other_epoch")"
expect_error 409 epoch_mismatch
expect_json .error.details.current_epoch "$epoch"
expect_json .error.details.high_water "$high_water"
expect_true "nothing stored for the other epoch" \
    test "$(sql "SELECT count(*) FROM device_cursors WHERE epoch = '$other_epoch'")" = 0
check cursor_with_another_epoch_is_409_with_details

bob_epoch=$(sql "SELECT epoch FROM pouches WHERE id = '$BOB_POUCH'")
cli_req PUT /v1/devices/me/cursor "$(cursor_body 0 "$bob_epoch" "$BOB_POUCH")"
expect_error 404 not_found
cli_req PUT /v1/devices/me/cursor "$(cursor_body 0 "$epoch" "$(flow_uuid)")"
expect_error 404 not_found
check cursor_for_a_pouch_of_another_account_is_404

for bad in '-1 => /acked_seq' '9007199254740992 => /acked_seq' '9007199254740991 => /acked_seq' \
    '1.5 => /acked_seq' '"1" => /acked_seq'; do
    cli_req PUT /v1/devices/me/cursor "$(cursor_body "${bad% => *}")"
    expect_error 400 validation_failed
    expect_json .error.field "${bad##* => }"
done
cli_req PUT /v1/devices/me/cursor "$(cursor_body 0 | jq -c 'del(.epoch)')"
expect_error 400 validation_failed
expect_json .error.field /epoch
cli_req PUT /v1/devices/me/cursor "$(cursor_body 0 | jq -c '.pouch_id = "p1"')"
expect_error 400 validation_failed
expect_json .error.field /pouch_id
cli_req PUT /v1/devices/me/cursor "$(cursor_body 0 | jq -c '.seen = 1')"
expect_error 400 validation_failed
expect_json .error.field /seen
check cursor_rejects_out_of_bounds_fields

web_req PUT /v1/devices/me/cursor "$(cursor_body 1)"
expect_error 403 wrong_caller
check cursor_is_cli_only

web_req GET /v1/devices/me/cursor
expect_error 405 method_not_allowed
expect_header Allow PUT
check cursor_other_method_is_405

# --- revoke (op 11) ------------------------------------------------------------------------------
active() { sql "SELECT revoked_at IS NULL FROM devices WHERE id = '$1'"; }
as A
cli_req POST "/v1/devices/$B_DEVICE/revoke" ""
expect_error 403 forbidden
expect_true "B still active" test "$(active "$B_DEVICE")" = t
check cli_revoking_another_device_is_403

WEB_TOKEN=$BOB
web_req POST "/v1/devices/$B_DEVICE/revoke" ""
expect_error 404 not_found
WEB_TOKEN=$ADA
web_req POST "/v1/devices/$(flow_uuid)/revoke" ""
expect_error 404 not_found
expect_true "B still active" test "$(active "$B_DEVICE")" = t
check revoking_a_device_of_another_account_is_404

# Bounds first, on C: a rejected revoke must not revoke.
revoke_rejects() { # BODY FIELD
    web_req POST "/v1/devices/$C_DEVICE/revoke" "$1"
    expect_error 400 validation_failed
    expect_json .error.field "$2"
}
statements() { jq -nc --argjson n "$1" --arg s "$(flow_b64 40)" --arg g "$(flow_b64 64)" '[range($n) | {statement: ($s + "x\(.)"), signature: $g}]'; }
revoke_rejects "{\"reason\":\"$(repeat r 201)\"}" /reason
revoke_rejects '{"roster":{"statements":[]}}' /roster/statements
revoke_rejects "{\"roster\":{\"statements\":$(statements 17)}}" /roster/statements
revoke_rejects '{"roster":{}}' /roster/statements
revoke_rejects '{"revoked":true}' /revoked
jq -nc --argjson st "$(statements 1)" --arg p "$ADA_POUCH" --arg m "$ADA_MEMBER" --arg g "$(flow_b64 64)" \
    '{roster: {statements: $st, key_envelopes: [range(2001) | {pouch_id:$p, member_id:$m, key_gen:2,
      hpke_enc:"AAAA", ciphertext:"AAAA", created_by_member:$m, signature:$g}]}}' >"$SMOKE_TMP/big-revoke.json"
revoke_rejects "@$SMOKE_TMP/big-revoke.json" /roster/key_envelopes
expect_true "C still active, its tokens too" \
    test "$(active "$C_DEVICE"):$(sql "SELECT count(*) FROM access_tokens WHERE device_id = '$C_DEVICE' AND revoked_at IS NULL")" = t:1
check revoke_bounds_are_checked_before_anything_changes

web_req POST "/v1/devices/$C_DEVICE/revoke" "{\"reason\":\"$(repeat r 200)\"}"
expect_status 200
expect_json .data.revoked true
check revoke_reason_of_200_characters_is_accepted

as B
cli_req POST "/v1/devices/$B_DEVICE/revoke" ""
expect_status 200
expect_json .data.revoked true
expect_json .data.rotation_pending true
expect_true "B revoked, its member removed, its tokens revoked" \
    test "$(sql "SELECT (d.revoked_at IS NOT NULL) || ':' || (m.removed_at IS NOT NULL) || ':' ||
                 (SELECT count(*) FROM access_tokens WHERE device_id = d.id AND revoked_at IS NULL)
               FROM devices d JOIN members m ON m.id = d.member_id WHERE d.id = '$B_DEVICE'")" = true:true:0
WEB_TOKEN=$ADA web_req GET /v1/devices
expect_json "[.data.items[] | select(.id == \"$B_DEVICE\") | .rotation_pending] | join(\",\")" true
expect_json "[.data.items[] | select(.revoked_at == null) | .rotation_pending] | unique | join(\",\")" false
check cli_revokes_itself_and_rotation_is_pending

cli_req GET /v1/devices
expect_error 401 device_revoked
check self_revoked_device_is_refused_next

revoked_at=$(sql "SELECT revoked_at FROM devices WHERE id = '$B_DEVICE'")
web_req POST "/v1/devices/$B_DEVICE/revoke" ""
expect_status 200
expect_json .data.revoked true
expect_json .data.rotation_pending true
expect_true "revoked_at kept" test "$(sql "SELECT revoked_at FROM devices WHERE id = '$B_DEVICE'")" = "$revoked_at"
check revoking_again_answers_the_same

# Revoke A with a roster rotation: a removal statement and key_gen 2 for the one member left.
key_gen_before=$(sql "SELECT key_gen FROM pouches WHERE id = '$ADA_POUCH'")
roster_before=$(sql "SELECT count(*) FROM roster_entries WHERE account_id = '$ADA_ACCOUNT'")
hw_before=$(sql "SELECT high_water FROM pouches WHERE id = '$ADA_POUCH'")
rotation() { # MEMBER_OF_ENVELOPE
    jq -nc --argjson st "$(statements 1)" --arg p "$ADA_POUCH" --arg m "$1" --arg by "$ADA_MEMBER" \
        --arg g "$(flow_b64 64)" --arg e "$(flow_b64 32)" --arg c "$(flow_b64 48)" \
        '{roster: {statements: $st, key_envelopes: [{pouch_id:$p, member_id:$m, key_gen:2,
          hpke_enc:$e, ciphertext:$c, created_by_member:$by, signature:$g}]}, reason: "rotated"}'
}
web_req POST "/v1/devices/$A_DEVICE/revoke" "$(rotation "$B_MEMBER")"
expect_error 400 validation_failed
expect_json .error.field /roster/key_envelopes/0/member_id
expect_true "A still active, nothing appended" \
    test "$(active "$A_DEVICE"):$(sql "SELECT count(*) FROM roster_entries WHERE account_id = '$ADA_ACCOUNT'")" = "t:$roster_before"
check rotation_envelope_for_a_removed_member_is_rejected

web_req POST "/v1/devices/$A_DEVICE/revoke" "$(rotation "$ADA_MEMBER")"
expect_status 200
expect_json .data.revoked true
expect_json .data.rotation_pending false
expect_true "statement appended" \
    test "$(sql "SELECT count(*) FROM roster_entries WHERE account_id = '$ADA_ACCOUNT'")" = $((roster_before + 1))
expect_true "pouch key_gen raised from $key_gen_before to 2" \
    test "$(sql "SELECT key_gen FROM pouches WHERE id = '$ADA_POUCH'")" = 2
expect_true "envelope stored" \
    test "$(sql "SELECT count(*) FROM key_envelopes WHERE pouch_id = '$ADA_POUCH' AND member_id = '$ADA_MEMBER' AND key_gen = 2")" = 1
expect_true "roster and key_rotation events appended" \
    test "$(sql "SELECT string_agg(kind, ',' ORDER BY seq) FROM events WHERE pouch_id = '$ADA_POUCH' AND seq > $hw_before")" = roster,key_rotation
check web_revokes_with_a_roster_rotation

web_req GET /v1/devices
expect_json '[.data.items[] | .revoked_at != null | tostring] | join(",")' true,true,true
check listing_shows_revoked_devices

smoke_done
