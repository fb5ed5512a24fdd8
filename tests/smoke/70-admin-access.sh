#!/usr/bin/env bash
# 70-admin-access.sh -- who may call the admin paths (decisions §1, §7): every admin endpoint
# called by no credentials, an admin, a support and a user web caller, and a CLI device (of
# an admin's account too), with exact statuses and codes. The gate runs authenticate (401),
# caller kind (403 wrong_caller), role (403 forbidden), then path ids and bodies.
# The first admin is made with `pouchctl user role EMAIL admin`. Relies on lib.sh and flows.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

free_plan=00000000-0000-4000-8000-000000000001

# --- callers ---------------------------------------------------------------------------------
flow_web_user
user_token=$WEB_TOKEN user_id=$WEB_USER
flow_web_user
support_token=$WEB_TOKEN support_email=$WEB_EMAIL
"$POUCHCTL" user role "$support_email" support >/dev/null
flow_web_user
admin_token=$WEB_TOKEN admin_email=$WEB_EMAIL admin_id=$WEB_USER
out=$("$POUCHCTL" user role "$admin_email" admin --reason "first admin of 70-admin-access")
expect_true "pouchctl said: $out" grep -q "role user -> admin" <<<"$out"
expect_true "role stored" test "$(sql "SELECT role FROM users WHERE id = '$admin_id'")" = admin
row=$(sql "SELECT actor_user_id IS NULL, action, target, before, after, reason, request_id IS NULL FROM audit_log WHERE target = '$admin_id'")
expect_true "operator audit row: $row" test "$row" = \
    't|user.role|'"$admin_id"'|{"role": "user"}|{"role": "admin"}|first admin of 70-admin-access|t'
check pouchctl_makes_the_first_admin_and_audits_it

# A CLI device of the admin's own account: the caller kind is refused before the role.
WEB_TOKEN=$admin_token
flow_genesis
flow_device admin-laptop
admin_access=$ACCESS admin_device_key=$DEVICE_KEY
# And a CLI device of a plain user.
flow_user
flow_device user-laptop

cli_as_admin() { ACCESS=$admin_access DEVICE_KEY=$admin_device_key cli_req "$@"; }

# endpoint table: NAME|METHOD|PATH|BODY
endpoints=(
    "list_plans|GET|/v1/admin/plans|"
    "get_plan|GET|/v1/admin/plans/$free_plan|"
    "edit_plan|PUT|/v1/admin/plans/$free_plan|{}"
    "set_role|POST|/v1/admin/users/$user_id/role|{\"role\":\"user\"}"
    "list_audit|GET|/v1/admin/audit|"
)
for e in "${endpoints[@]}"; do
    IFS='|' read -r name method path body <<<"$e"

    req "$method" "$path" "$body"
    expect_error 401 unauthenticated
    req "$method" "$path" "$body" -H "Authorization: Bearer svc_ws_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
    expect_error 401 unauthenticated
    check "admin_${name}_without_credentials_is_401"

    req "$method" "$path" "$body" -H "Authorization: Bearer $user_token"
    expect_error 403 forbidden
    check "admin_${name}_by_a_user_is_403_forbidden"

    req "$method" "$path" "$body" -H "Authorization: Bearer $support_token"
    expect_error 403 forbidden
    check "admin_${name}_by_support_is_403_forbidden"

    cli_req "$method" "$path" "$body"
    expect_error 403 wrong_caller
    cli_as_admin "$method" "$path" "$body"
    expect_error 403 wrong_caller
    check "admin_${name}_by_a_cli_device_is_403_wrong_caller_even_for_an_admin"

    req "$method" "$path" "$body" -H "Authorization: Bearer $admin_token"
    expect_status 200
    expect_json .ok true
    expect_json_match .meta.request_id '^[0-9a-f]{32}$'
    check "admin_${name}_by_an_admin_is_200"
done

# The role gate comes before the path: a non-admin gets 403 for any id, an admin 404.
req GET /v1/admin/plans/not-a-uuid "" -H "Authorization: Bearer $user_token"
expect_error 403 forbidden
req POST /v1/admin/users/not-a-uuid/role '{"role":"user"}' -H "Authorization: Bearer $support_token"
expect_error 403 forbidden
req GET /v1/admin/plans/not-a-uuid "" -H "Authorization: Bearer $admin_token"
expect_error 404 not_found
check role_is_checked_before_the_path_id

# A demoted admin loses access on the next request (the role is read per request).
flow_web_user
"$POUCHCTL" user role "$WEB_EMAIL" admin >/dev/null
req GET /v1/admin/plans "" -H "Authorization: Bearer $WEB_TOKEN"
expect_status 200
"$POUCHCTL" user role "$WEB_EMAIL" user >/dev/null
req GET /v1/admin/plans "" -H "Authorization: Bearer $WEB_TOKEN"
expect_error 403 forbidden
check demoted_admin_is_refused_on_the_next_request

# Unknown admin paths and methods answer in the envelope.
req GET /v1/admin/nothing "" -H "Authorization: Bearer $admin_token"
expect_error 404 not_found
req DELETE "/v1/admin/plans/$free_plan" "" -H "Authorization: Bearer $admin_token"
expect_error 405 method_not_allowed
expect_header_match Allow 'GET'
expect_header_match Allow 'PUT'
req PUT "/v1/admin/plans/$free_plan" '{}' -H "Authorization: Bearer $admin_token" -H 'Content-Type: text/plain'
expect_error 415 unsupported_media_type
check unknown_admin_paths_and_methods_answer_json

smoke_done
