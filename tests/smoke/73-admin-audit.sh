#!/usr/bin/env bash
# 73-admin-audit.sh -- GET /v1/admin/audit (decisions §7): newest first, keyset pages that
# together list every record exactly once, the item shape for API and operator (pouchctl)
# records, limit bounds, and malformed or foreign cursors (400 invalid_cursor).
# Relies on lib.sh and flows.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

flow_web_user
"$POUCHCTL" user role "$WEB_EMAIL" admin --reason "audit test admin" >/dev/null
admin=(-H "Authorization: Bearer $WEB_TOKEN")
admin_id=$WEB_USER admin_email=$WEB_EMAIL
flow_web_user
other=$WEB_USER other_email=$WEB_EMAIL
audit() { req GET "/v1/admin/audit$1" "" "${admin[@]}"; }

# Six fresh records: three role changes through the API, after the operator's one above.
rids=()
for role in support admin user; do
    req POST "/v1/admin/users/$other/role" '{"role":"'$role'","reason":"step '$role'"}' "${admin[@]}"
    rids+=("$(json .meta.request_id)")
done

audit ""
expect_status 200
expect_json '.data.items | length' "$(sql "SELECT least(count(*), 100) FROM audit_log")"
expect_true "newest first" test "$(json '[.data.items[].id] | join(",")')" = \
    "$(sql "SELECT string_agg(id::text, ',' ORDER BY id DESC) FROM (SELECT id FROM audit_log ORDER BY id DESC LIMIT 100) t")"
newest=$(jq -c '.data.items[0]' <<<"$BODY")
id=$(sql "SELECT max(id) FROM audit_log")
at=$(sql "SELECT iso(at) FROM audit_log WHERE id = $id")
expect_true "item $newest" test "$newest" = "$(jq -nc --argjson id "$id" --arg a "$admin_id" \
    --arg ae "$admin_email" --arg t "$other" --arg te "$other_email" --arg r "${rids[2]}" --arg at "$at" \
    '{id:$id,actor:$a,actor_email:$ae,action:"user.role",target:$t,target_name:$te,
      before:{role:"admin"},after:{role:"user"},reason:"step user",request_id:$r,at:$at}')"
check audit_lists_newest_first_with_the_full_item

op=$(jq -c --arg t "$admin_id" '[.data.items[] | select(.target == $t and .action == "user.role")][0]' <<<"$BODY")
expect_true "operator item $op" test "$(jq -c '[.actor, .actor_email, .target_name, .before, .after, .reason, .request_id]' <<<"$op")" = \
    "[\"operator\",null,\"$admin_email\",{\"role\":\"user\"},{\"role\":\"admin\"},\"audit test admin\",null]"
check operator_records_show_actor_operator

# A plan change names its plan by slug; a record whose target is not a uuid, or names nothing any
# more, has no target_name (and the list does not fail on it).
plan_id=$(sql "SELECT id FROM plans WHERE is_default")
slug=$(sql "SELECT slug FROM plans WHERE id = '$plan_id'")
req PUT "/v1/admin/plans/$plan_id" '{"description":"audit names '"$(flow_uuid)"'"}' "${admin[@]}"
expect_status 200
sql "INSERT INTO audit_log (action, target) VALUES ('user.role', 'not-a-uuid'), ('user.role', '$(flow_uuid)')" >/dev/null
audit "?limit=3"
expect_status 200
expect_true "names: $(jq -c "[.data.items[] | [.action, .target_name]]" <<<"$BODY")" \
    test "$(jq -c '[.data.items[] | [.action, .target_name]]' <<<"$BODY")" = \
    "[[\"user.role\",null],[\"user.role\",null],[\"plan.update\",\"$slug\"]]"
expect_json '.data.items[2].actor_email' "$admin_email"
check audit_items_name_actor_and_target_for_a_person

# Paging with limit 2 walks the whole log once, newest first, and ends with a null cursor.
all=$(sql "SELECT string_agg(id::text, ',' ORDER BY id DESC) FROM audit_log")
seen=() cursor="" pages=0
while :; do
    audit "?limit=2${cursor:+&cursor=$cursor}"
    [[ $STATUS == 200 ]] || break
    pages=$((pages + 1))
    mapfile -t ids < <(json '.data.items[].id')
    seen+=("${ids[@]}")
    cursor=$(json .meta.next_cursor)
    [[ $cursor != null ]] || break
    expect_true "full page before a cursor" test "${#ids[@]}" = 2
    ((pages < 1000)) || break
done
expect_status 200
expect_true "pages list every record once: got $(IFS=,; echo "${seen[*]}") want $all" \
    test "$(IFS=,; echo "${seen[*]}")" = "$all"
check audit_pages_walk_the_log_once_newest_first

n=$(sql "SELECT count(*) FROM audit_log")
audit "?limit=$n"
expect_json '.data.items | length' "$n"
expect_json .meta.next_cursor null
check last_page_has_a_null_cursor

audit "?limit=1"
c1=$(json .meta.next_cursor)
expect_json_match .meta.next_cursor '^[A-Za-z0-9_-]+$'
audit "?limit=1&cursor=$c1"
expect_json '.data.items[0].id' "$(sql "SELECT id FROM audit_log ORDER BY id DESC OFFSET 1 LIMIT 1")"
check a_cursor_continues_after_the_last_item

audit "?limit=1000"
expect_status 200
audit "?limit=1001"
expect_error 400 validation_failed
expect_json .error.field '?limit'
audit "?limit=0"
expect_error 400 validation_failed
audit "?limit=abc"
expect_error 400 validation_failed
audit "?cursor="
expect_error 400 validation_failed
expect_json .error.field '?cursor'
audit "?after=3"
expect_error 400 validation_failed
expect_json .error.field '?after'
audit "?limit=2&limit=3"
expect_error 400 validation_failed
check audit_query_is_validated

for bad in 'not*b64' "$(b64url 'audit|')" "$(b64url 'audit|0')" "$(b64url 'audit|012')" \
    "$(b64url 'audit|-5')" "$(b64url 'audit|12x')" "$(b64url 'audit|1234567890123456789')" \
    "$(b64url "artifacts/$(flow_uuid)/$(flow_uuid)|1|$(flow_uuid)")" "$(b64url '12')" A; do
    audit "?cursor=$bad"
    expect_error 400 invalid_cursor
done
check malformed_or_foreign_cursor_is_400_invalid_cursor

audit "?cursor=$(b64url 'audit|1')"
expect_status 200
expect_json '.data.items | length' 0
expect_json .meta.next_cursor null
check cursor_before_the_first_record_answers_an_empty_page

smoke_done
