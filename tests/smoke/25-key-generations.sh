#!/usr/bin/env bash
# 25-key-generations.sh -- key generations cannot be hijacked (decisions §13, issue 13): new
# envelopes only at a pouch's current key_gen or the next (one per pouch per request), an
# envelope already stored is a retry when identical and 409 key_gen_conflict when not, a
# revocation drops what the revoked member staged above the current key_gen so its rotation
# goes through, a second revoke stores nothing, and approve may hand out older generations.
# The attack of the issue (a device posting at key_gen 2^53 - 1, after which the owner's
# rotation was silently dropped) is the first check. Relies on tests/smoke/lib.sh, flows.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

MAX=9007199254740991

# env_json POUCH MEMBER GEN CREATOR [HPKE]: one key envelope (JSON object).
env_json() {
    jq -nc --arg p "$1" --arg m "$2" --argjson g "$3" --arg by "$4" --arg h "${5:-$(flow_b64 65)}" \
        --arg c "$(flow_b64 48)" --arg s "$(flow_b64 64)" \
        '{pouch_id:$p, member_id:$m, key_gen:$g, hpke_enc:$h, ciphertext:$c, created_by_member:$by, signature:$s}'
}
# post_envs AS_CLI|AS_WEB ENVELOPES...: POST key-envelopes of POUCH.
post_envs() {
    local who=$1 body
    shift
    body=$(printf '%s\n' "$@" | jq -sc '{key_envelopes:.}')
    if [[ $who == cli ]]; then
        cli_req POST "/v1/pouches/$POUCH/key-envelopes" "$body"
    else
        web_req POST "/v1/pouches/$POUCH/key-envelopes" "$body"
    fi
}
pouch_gen() { sql "SELECT key_gen FROM pouches WHERE id = '$POUCH'"; }
envelopes() { sql "SELECT count(*) FROM key_envelopes WHERE pouch_id = '$POUCH'"; }
rotations() { sql "SELECT count(*) FROM events WHERE pouch_id = '$POUCH' AND kind = 'key_rotation'"; }

flow_user keys
flow_device laptop
LAPTOP_MEMBER=$DEVICE_MEMBER LAPTOP_DEVICE=$DEVICE_ID LAPTOP_KEY=$DEVICE_KEY LAPTOP_AT=$ACCESS

# --- the attack: a device claims the last key generation ------------------------------------
before=$(envelopes)
post_envs cli "$(env_json "$POUCH" "$LAPTOP_MEMBER" "$MAX" "$LAPTOP_MEMBER")"
expect_error 409 key_gen_conflict
expect_json .error.details.current_key_gen 1
expect_json .error.details.pouch_id "$POUCH"
expect_json .error.field /key_envelopes/0/key_gen
expect_true "nothing stored, key_gen still 1" test "$(envelopes):$(pouch_gen)" = "$before:1"
check a_device_cannot_claim_key_gen_2_pow_53_minus_1

post_envs web "$(env_json "$POUCH" "$WEB_MEMBER" 3 "$WEB_MEMBER")"
expect_error 409 key_gen_conflict
expect_json .error.details.current_key_gen 1
expect_true "nothing stored" test "$(envelopes):$(pouch_gen)" = "$before:1"
check key_gen_two_above_the_current_is_key_gen_conflict

post_envs web "$(env_json "$POUCH" "$WEB_MEMBER" 2 "$WEB_MEMBER")" "$(env_json "$POUCH" "$LAPTOP_MEMBER" 1 "$WEB_MEMBER")"
expect_error 409 key_gen_conflict
expect_json .error.field /key_envelopes/1/key_gen
expect_true "nothing stored" test "$(envelopes):$(pouch_gen)" = "$before:1"
check one_request_stores_one_key_gen_per_pouch

e=$(env_json "$POUCH" "$WEB_MEMBER" 2 "$WEB_MEMBER")
post_envs web "$e" "$e"
expect_error 400 validation_failed
expect_json .error.field /key_envelopes/1
expect_true "nothing stored" test "$(envelopes):$(pouch_gen)" = "$before:1"
check the_same_pouch_member_and_key_gen_twice_in_one_request_is_400

# --- an envelope already stored: retry or conflict -------------------------------------------
web_req GET "/v1/pouches/$POUCH/key-envelopes?member_id=$WEB_MEMBER&key_gen=1"
stored=$(json '.data.items[0] | {pouch_id, member_id, key_gen, hpke_enc, ciphertext, created_by_member, signature}')
post_envs web "$stored"
expect_status 200
expect_json .data.key_gen 1
expect_true "nothing added" test "$(envelopes)" = "$before"
check the_identical_envelope_again_is_a_retry

post_envs web "$(env_json "$POUCH" "$WEB_MEMBER" 1 "$WEB_MEMBER")"
expect_error 409 key_gen_conflict
expect_json .error.details.current_key_gen 1
expect_true "the stored envelope is unchanged" \
    test "$(sql "SELECT hpke_enc FROM key_envelopes WHERE pouch_id = '$POUCH' AND member_id = '$WEB_MEMBER' AND key_gen = 1")" = "$(jq -r .hpke_enc <<<"$stored")"
check a_different_envelope_for_a_stored_key_gen_is_key_gen_conflict

# --- rotation to the next generation ------------------------------------------------------
web_env2=$(env_json "$POUCH" "$WEB_MEMBER" 2 "$WEB_MEMBER")
laptop_env2=$(env_json "$POUCH" "$LAPTOP_MEMBER" 2 "$WEB_MEMBER")
post_envs web "$web_env2" "$laptop_env2"
expect_status 200
expect_json .data.key_gen 2
expect_json .data.rotation_pending false
expect_true "key_gen 2, one key_rotation event, two more envelopes" \
    test "$(pouch_gen):$(rotations):$(envelopes)" = "2:1:$((before + 2))"
check key_gen_one_above_the_current_raises_it

post_envs web "$web_env2" "$laptop_env2"
expect_status 200
expect_json .data.key_gen 2
expect_true "still key_gen 2, no second event" test "$(pouch_gen):$(rotations):$(envelopes)" = "2:1:$((before + 2))"
check a_retried_rotation_changes_nothing

# Upper-case ids name the same pouch and members (decisions §13).
up_env=$(jq -c '.pouch_id |= ascii_upcase | .member_id |= ascii_upcase | .created_by_member |= ascii_upcase' <<<"$web_env2")
web_req POST "/v1/pouches/${POUCH^^}/key-envelopes" "$(jq -c '{key_envelopes:[.]}' <<<"$up_env")"
expect_status 200
expect_json .data.key_gen 2
web_req GET "/v1/pouches/${POUCH^^}/key-envelopes?member_id=${WEB_MEMBER^^}&key_gen=2"
expect_json '.data.items[0].pouch_id' "$POUCH"
expect_json '.data.items[0].member_id' "$WEB_MEMBER"
check upper_case_ids_are_the_same_ids_and_answers_are_lower_case

# --- revocation drops what the revoked member staged, and its rotation goes through --------
# Envelopes above the current key_gen can only predate the rule: put one there as it was.
sql "INSERT INTO key_envelopes (pouch_id, member_id, key_gen, hpke_enc, ciphertext, created_by_member, signature)
     VALUES ('$POUCH', '$LAPTOP_MEMBER', $MAX, 'x', 'y', '$LAPTOP_MEMBER', 'z'),
            ('$POUCH', '$LAPTOP_MEMBER', 3, 'x', 'y', '$LAPTOP_MEMBER', 'z')" >/dev/null
removal() { jq -nc --arg s "$(flow_b64 64)" --arg g "$(flow_b64 64)" '{statement:$s, signature:$g}'; }
statement=$(removal)
revoke_body() { # GEN
    jq -nc --argjson st "$statement" --argjson e "$(env_json "$POUCH" "$WEB_MEMBER" "$1" "$WEB_MEMBER")" \
        '{roster:{statements:[$st], key_envelopes:[$e]}}'
}
roster_len() { sql "SELECT count(*) FROM roster_entries WHERE account_id = '$WEB_ACCOUNT'"; }
roster_before=$(roster_len)
web_req POST "/v1/devices/$LAPTOP_DEVICE/revoke" "$(revoke_body 4)"
expect_error 409 key_gen_conflict
expect_json .error.details.current_key_gen 2
expect_true "a refused revoke changes nothing: device active, roster and staged envelopes kept" \
    test "$(sql "SELECT revoked_at IS NULL FROM devices WHERE id = '$LAPTOP_DEVICE'"):$(roster_len):$(sql "SELECT count(*) FROM key_envelopes WHERE pouch_id = '$POUCH' AND key_gen > 2")" = "t:$roster_before:2"
check a_rotation_two_generations_ahead_is_refused_as_a_whole

web_req POST "/v1/devices/$LAPTOP_DEVICE/revoke" "$(revoke_body 3)"
expect_status 200
expect_json .data.revoked true
expect_json .data.rotation_pending false
expect_true "key_gen 3; the staged envelopes gone, the rotation's stored" \
    test "$(pouch_gen):$(sql "SELECT string_agg(member_id || '@' || key_gen || ':' || created_by_member, ',') FROM key_envelopes WHERE pouch_id = '$POUCH' AND key_gen > 2")" = "3:$WEB_MEMBER@3:$WEB_MEMBER"
expect_true "roster grew by the removal" test "$(roster_len)" = $((roster_before + 1))
check revocation_drops_envelopes_the_member_staged_and_its_rotation_goes_through

envs_before=$(envelopes)
web_req POST "/v1/devices/$LAPTOP_DEVICE/revoke" \
    "$(jq -nc --argjson e "$(env_json "$POUCH" "$WEB_MEMBER" 4 "$WEB_MEMBER")" \
        '{roster:{statements:[range(16) | {statement:("s" + (. | tostring)), signature:"sig"}], key_envelopes:[$e]}}')"
expect_status 200
expect_json .data.revoked true
expect_true "nothing stored: roster, envelopes and key_gen unchanged" \
    test "$(roster_len):$(envelopes):$(pouch_gen)" = "$((roster_before + 1)):$envs_before:3"
check revoking_a_revoked_device_again_stores_nothing

# --- approve may give a new member every generation up to the current one ------------------
flow_cli_keys desk
flow_start_login "$(flow_start_body '.device_name = "desk"')"
desk=$(flow_uuid)
approve_body() { # GENS...
    local g envs=()
    for g in "$@"; do envs+=("$(env_json "$POUCH" "$desk" "$g" "$WEB_MEMBER")"); done
    jq -nc --arg s "$(flow_b64 64)" --arg g "$(flow_b64 64)" --arg w "$(flow_b64 96)" \
        --argjson e "$(printf '%s\n' "${envs[@]}" | jq -sc .)" \
        '{statement:{statement:$s, signature:$g}, welcome:$w, key_envelopes:$e}'
}
flow_approve "$REQ" "$(approve_body 1 2 3 4)"
expect_error 409 key_gen_conflict
expect_json .error.field /key_envelopes/3/key_gen
expect_json .error.details.current_key_gen 3
expect_true "the request is still pending, no member made" \
    test "$(sql "SELECT status FROM cli_login_requests WHERE id = '$REQ'"):$(sql "SELECT count(*) FROM members WHERE id = '$desk'")" = pending:0
flow_approve "$REQ" "$(approve_body 1 2 3)"
expect_status 200
expect_true "the new member holds generations 1, 2 and 3" \
    test "$(sql "SELECT string_agg(key_gen::text, ',' ORDER BY key_gen) FROM key_envelopes WHERE member_id = '$desk'")" = 1,2,3
check approve_hands_out_every_generation_up_to_the_current_one

smoke_done
