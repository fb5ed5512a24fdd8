#!/usr/bin/env bash
# 72-admin-roles.sh -- set role (op 12, decisions §1, §7) through nginx: responses, stored
# roles and exact audit rows (actor, action, target, before, after, reason, request_id equal
# to the response's meta.request_id), a repeated role changing nothing, path ids that are not
# uuids or unknown (404 JSON), body validation, the last admin refused (409 last_admin), and
# concurrent self-demotions of the last two admins leaving one. Relies on lib.sh, flows.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

flow_web_user
"$POUCHCTL" user role "$WEB_EMAIL" admin >/dev/null
admin_token=$WEB_TOKEN admin_id=$WEB_USER
admin=(-H "Authorization: Bearer $admin_token")
flow_web_user
target_token=$WEB_TOKEN target_id=$WEB_USER target_email=$WEB_EMAIL
set_role() { req POST "/v1/admin/users/$1/role" "$2" "${admin[@]}"; }
audit_rows() { sql "SELECT count(*) FROM audit_log WHERE target = '$1'"; }

# --- changes and their audit rows --------------------------------------------------------------
set_role "$target_id" '{"role":"support","reason":"helps customers"}'
expect_status 200
expect_true "data: $BODY" test "$(jq -c .data <<<"$BODY")" = \
    "$(jq -nc --arg id "$target_id" '{id:$id,role:"support",previous_role:"user"}')"
rid=$(json .meta.request_id)
expect_header X-Request-Id "$rid"
expect_true "role stored" test "$(sql "SELECT role FROM users WHERE id = '$target_id'")" = support
row=$(sql "SELECT actor_user_id, action, target, before, after, reason, request_id FROM audit_log WHERE target = '$target_id'")
expect_true "audit row $row" test "$row" = \
    "$admin_id|user.role|$target_id|{\"role\": \"user\"}|{\"role\": \"support\"}|helps customers|$rid"
check set_role_answers_id_role_previous_role_and_audits_exactly

set_role "$target_id" '{"role":"support","reason":"again"}'
expect_status 200
expect_json .data.role support
expect_json .data.previous_role support
expect_true "no audit row for an unchanged role" test "$(audit_rows "$target_id")" = 1
check setting_the_same_role_changes_and_audits_nothing

req GET /v1/admin/plans "" -H "Authorization: Bearer $target_token"
expect_error 403 forbidden
set_role "${target_id^^}" '{"role":"admin"}'
expect_status 200
expect_json .data.id "$target_id"
expect_json .data.previous_role support
req GET /v1/admin/plans "" -H "Authorization: Bearer $target_token"
expect_status 200
row=$(sql "SELECT before, after, reason IS NULL FROM audit_log WHERE target = '$target_id' ORDER BY id DESC LIMIT 1")
expect_true "audit row without reason $row" test "$row" = '{"role": "support"}|{"role": "admin"}|t'
check promoted_user_may_call_admin_paths_at_once

set_role "$target_id" '{"role":"user"}'
expect_status 200
expect_json .data.previous_role admin
req GET /v1/admin/audit "" -H "Authorization: Bearer $target_token"
expect_error 403 forbidden
check demoted_admin_is_refused_at_once

# --- finding a user by e-mail (the role form's lookup) -----------------------------------------
find_user() { req GET "/v1/admin/users?email=$(jq -rn --arg e "$1" '$e|@uri')" "" "${admin[@]}"; }
n=$(sql "SELECT count(*) FROM audit_log")
find_user " ${target_email^^} "
expect_status 200
expect_true "user: $BODY" test "$(jq -c .data <<<"$BODY")" = "$(jq -nc --arg id "$target_id" \
    --arg e "$target_email" --arg at "$(sql "SELECT iso(created_at) FROM users WHERE id = '$target_id'")" \
    '{id:$id,email:$e,role:"user",created_at:$at}')"
expect_true "a lookup is not audited" test "$(sql "SELECT count(*) FROM audit_log")" = "$n"
check admin_finds_a_user_by_email_ignoring_case_and_spaces

find_user "nobody.$(flow_uuid)@example.com"
expect_error 404 not_found
find_user "${target_email%@*}"                 # a prefix is not a match
expect_error 404 not_found
check an_unknown_email_or_a_prefix_is_404

find_user "   "
expect_error 400 validation_failed
expect_json .error.field '?email'
req GET /v1/admin/users "" "${admin[@]}"
expect_error 400 validation_failed
expect_json .error.field '?email'
find_user "$(repeat a 243)@example.com"        # 255 characters: one over the bound
expect_error 400 validation_failed
find_user "$(repeat a 242)@example.com"        # 254: a legal (unknown) address
expect_error 404 not_found
req GET "/v1/admin/users?email=$target_email" "" -H "Authorization: Bearer $target_token"
expect_error 403 forbidden
check user_lookup_is_validated_and_admin_only

# --- ids -------------------------------------------------------------------------------------
for id in not-a-uuid 12345 "${target_id}x" "${target_id:0:35}" "$(repeat 0 36)"; do
    set_role "$id" '{"role":"user"}'
    expect_error 404 not_found
done
set_role "$(flow_uuid)" '{"role":"user"}'
expect_error 404 not_found
check non_uuid_or_unknown_user_id_is_404_json

# --- body ------------------------------------------------------------------------------------
n=$(audit_rows "$target_id")
for body in '{}' '{"role":"root"}' '{"role":"Admin"}' '{"role":null}' '{"role":1}' \
    '{"role":"user","reason":"'"$(repeat r 501)"'"}' '{"role":"user","reason":null}' \
    '{"role":"user","note":"x"}'; do
    set_role "$target_id" "$body"
    expect_error 400 validation_failed
done
set_role "$target_id" '{"role":"user","reason":"'"$(repeat r 500)"'"}'
expect_status 200
set_role "$target_id" 'role=user'
expect_error 400 invalid_json
expect_true "nothing audited" test "$(audit_rows "$target_id")" = "$n"
check role_body_is_validated

set_role "$target_id" '{"role":"user","name":"x"}'
expect_json .error.field /name
set_role "$target_id" '{"role":"owner"}'
expect_json .error.field /role
check validation_errors_name_the_field

# --- the last admin ----------------------------------------------------------------------------
# Leave exactly one admin (earlier scripts made others), then it may not demote itself.
sql "UPDATE users SET role = 'user' WHERE role = 'admin' AND id <> '$admin_id'" >/dev/null
n=$(audit_rows "$admin_id")
set_role "$admin_id" '{"role":"support"}'
expect_error 409 last_admin
expect_true "still admin" test "$(sql "SELECT role FROM users WHERE id = '$admin_id'")" = admin
expect_true "nothing audited" test "$(audit_rows "$admin_id")" = "$n"
set_role "$admin_id" '{"role":"admin"}'
expect_status 200
expect_json .data.previous_role admin
check last_admin_cannot_be_demoted

out=$("$POUCHCTL" user role "$(sql "SELECT email FROM users WHERE id = '$admin_id'")" user 2>&1) && status=0 || status=$?
expect_true "pouchctl refused: $status $out" test "$status" = 1
expect_true "pouchctl said why: $out" grep -q "last admin" <<<"$out"
check pouchctl_also_refuses_to_demote_the_last_admin

# With a second admin, demoting another admin works; demoting oneself too.
set_role "$target_id" '{"role":"admin"}'
expect_status 200
set_role "$admin_id" '{"role":"user"}'
expect_status 200
expect_json .data.previous_role admin
req GET /v1/admin/plans "" "${admin[@]}"
expect_error 403 forbidden
check an_admin_may_demote_itself_while_another_admin_remains

# Two admins demote themselves at the same moment, five times: exactly one succeeds each
# round (the other sees it was the last), never zero admins.
a_token=$target_token a_id=$target_id
flow_web_user
"$POUCHCTL" user role "$WEB_EMAIL" admin >/dev/null
b_token=$WEB_TOKEN b_id=$WEB_USER
self_demote() {
    curl -sS -o /dev/null -w '%{http_code}\n' -X POST "$POUCH_URL/v1/admin/users/$2/role" \
        -H 'Content-Type: application/json' -H "Authorization: Bearer $1" --data '{"role":"user"}'
}
for round in 1 2 3 4 5; do
    sql "UPDATE users SET role = 'admin' WHERE id IN ('$a_id', '$b_id')" >/dev/null
    sql "UPDATE users SET role = 'user' WHERE role = 'admin' AND id NOT IN ('$a_id', '$b_id')" >/dev/null
    self_demote "$a_token" "$a_id" >"$SMOKE_TMP/a" &
    self_demote "$b_token" "$b_id" >"$SMOKE_TMP/b" &
    wait
    got=$(sort "$SMOKE_TMP/a" "$SMOKE_TMP/b" | tr '\n' ' ')
    expect_true "round $round statuses: $got" test "$got" = "200 409 "
    expect_true "round $round admins left" test "$(sql "SELECT count(*) FROM users WHERE role = 'admin'")" = 1
done
check concurrent_demotions_never_remove_the_last_admin

smoke_done
