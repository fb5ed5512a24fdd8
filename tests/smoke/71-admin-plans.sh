#!/usr/bin/env bash
# 71-admin-plans.sh -- plans through the admin paths (decisions §7, op 2): listing order, one
# plan equal to what GET /v1/account shows, partial updates checked in SQL with their audit
# rows, every field's bound at its edge and one past it, slug_taken, unknown and null fields,
# ids that are not uuids or unknown, and a lowered limit taking effect at once: the next
# growth of an account over it is refused and nothing is deleted. Relies on lib.sh, flows.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

run=$(date +%s%N | tail -c 9)
MAX=9007199254740991

flow_web_user
"$POUCHCTL" user role "$WEB_EMAIL" admin >/dev/null
admin=(-H "Authorization: Bearer $WEB_TOKEN")
admin_id=$WEB_USER

# A plan of our own, so edits do not disturb other tests.
plan=$(flow_uuid)
sql "INSERT INTO plans (id, slug, name, description, price_cents, currency, interval, pouch_limit,
         storage_bytes, billing_product_id, is_public, is_active, sort)
     VALUES ('$plan', 'p-$run', 'Plan $run', 'for 71-admin-plans', 500, 'USD', 'month', 3,
             1000000, 'prod_$run', true, true, 7)" >/dev/null
plan_row() {
    sql "SELECT slug, name, description, price_cents, currency, interval, pouch_limit,
                storage_bytes, coalesce(billing_product_id, '~'), is_default, is_public,
                is_active, sort FROM plans WHERE id = '$plan'"
}
audit_count() { sql "SELECT count(*) FROM audit_log WHERE target = '$plan'"; }
edit() { req PUT "/v1/admin/plans/$plan" "$1" "${admin[@]}"; }

# --- reads -----------------------------------------------------------------------------------
sql "INSERT INTO plans (slug, name, pouch_limit, storage_bytes, sort) VALUES
     ('zz-first-$run', 'Sorted first', 1, 0, -1000000), ('aa-last-$run', 'Sorted last', 1, 0, 1000000)" >/dev/null
req GET /v1/admin/plans "" "${admin[@]}"
expect_status 200
expect_json .meta.next_cursor null
want=$(sql "SELECT string_agg(id::text, ',' ORDER BY sort, slug) FROM plans")
expect_true "order by sort then slug" test "$(json '[.data.items[].id] | join(",")')" = "$want"
expect_json '.data.items[0].slug' "zz-first-$run"
expect_json '.data.items[-1].slug' "aa-last-$run"
check plans_are_listed_by_sort_then_slug

# Paged like every list (decisions §13): one plan a page, in the same order, to the end.
got="" cursor="" pages=0
while :; do
    req GET "/v1/admin/plans?limit=1${cursor:+&cursor=$cursor}" "" "${admin[@]}"
    [[ $STATUS == 200 ]] || { smoke_fail "page $pages answered $STATUS"; break; }
    got+="$(json '.data.items[0].id'),"
    pages=$((pages + 1))
    cursor=$(json .meta.next_cursor)
    [[ $cursor != null && $pages -lt 100 ]] || break
done
expect_true "one plan a page, in order, $pages pages" test "${got%,}" = "$want"
req GET "/v1/admin/plans?limit=1001" "" "${admin[@]}"
expect_error 400 validation_failed
req GET "/v1/admin/plans?cursor=$(b64url 'plans|x|y')" "" "${admin[@]}"
expect_error 400 invalid_cursor
check plans_page_by_sort_then_slug

req GET "/v1/admin/plans/$plan" "" "${admin[@]}"
expect_status 200
expect_true "plan object: $BODY" test "$(jq -c .data <<<"$BODY")" = \
    "$(jq -nc --arg id "$plan" --arg r "$run" '{id:$id,slug:("p-"+$r),name:("Plan "+$r),description:"for 71-admin-plans",
      price_cents:500,currency:"USD",interval:"month",pouch_limit:3,storage_bytes:1000000,
      billing_product_id:("prod_"+$r),is_default:false,is_public:true,is_active:true,sort:7}')"
check one_plan_is_the_plan_object

# The same object as GET /v1/account shows to an account on that plan.
flow_web_user
sql "UPDATE storage_accounts SET plan_id = '$plan' WHERE id = '$WEB_ACCOUNT'" >/dev/null
req GET /v1/account "" -H "Authorization: Bearer $WEB_TOKEN"
account_plan=$(jq -S -c .data.plan <<<"$BODY")
req GET "/v1/admin/plans/$plan" "" "${admin[@]}"
expect_true "account plan $account_plan" test "$(jq -S -c .data <<<"$BODY")" = "$account_plan"
check admin_and_account_show_the_same_plan_object

req GET "/v1/admin/plans/$(flow_uuid)" "" "${admin[@]}"
expect_error 404 not_found
req GET /v1/admin/plans/not-a-uuid "" "${admin[@]}"
expect_error 404 not_found
req PUT "/v1/admin/plans/$(flow_uuid)" '{"name":"x"}' "${admin[@]}"
expect_error 404 not_found
req PUT /v1/admin/plans/12345 '{"name":"x"}' "${admin[@]}"
expect_error 404 not_found
check unknown_or_non_uuid_plan_id_is_404

req GET "/v1/admin/plans/${plan^^}" "" "${admin[@]}"
expect_status 200
expect_json .data.id "$plan"
check upper_case_plan_id_names_the_same_plan

# --- partial update --------------------------------------------------------------------------
before=$(plan_row)
edit '{"name":"Renamed","storage_bytes":2000000,"reason":"bigger"}'
expect_status 200
expect_json .data.name Renamed
expect_json .data.storage_bytes 2000000
expect_json .data.slug "p-$run"
expect_json .data.price_cents 500
rid=$(json .meta.request_id)
want=$(sed -e "s/|Plan $run|/|Renamed|/" -e 's/|1000000|/|2000000|/' <<<"$before")
expect_true "row $(plan_row), want $want" test "$(plan_row)" = "$want"
row=$(sql "SELECT actor_user_id, action, target, before, after, reason, request_id FROM audit_log WHERE target = '$plan'")
expect_true "audit row $row" test "$row" = \
    "$admin_id|plan.update|$plan|{\"name\": \"Plan $run\", \"storage_bytes\": 1000000}|{\"name\": \"Renamed\", \"storage_bytes\": 2000000}|bigger|$rid"
check plan_edit_changes_only_the_sent_fields_and_audits_them

edit '{"slug":"q-'"$run"'","description":"","price_cents":0,"currency":"EUR","interval":"year","pouch_limit":9,"is_public":false,"is_active":false,"sort":-3}'
expect_status 200
expect_true "row $(plan_row)" test "$(plan_row)" = "q-$run|Renamed||0|EUR|year|9|2000000|prod_$run|f|f|f|-3"
expect_json .data.is_public false
expect_json .data.interval year
row=$(sql "SELECT json_build_array(before, after, reason) FROM audit_log WHERE target = '$plan' ORDER BY id DESC LIMIT 1")
want=$(jq -nc --arg r "$run" '[{sort:7,slug:("p-"+$r),currency:"USD",interval:"month",is_active:true,
    is_public:true,description:"for 71-admin-plans",pouch_limit:3,price_cents:500},
    {sort:-3,slug:("q-"+$r),currency:"EUR",interval:"year",is_active:false,is_public:false,
    description:"",pouch_limit:9,price_cents:0},null]')
expect_true "audit $row" test "$(jq -S -c . <<<"$row")" = "$(jq -S -c . <<<"$want")"
check plan_edit_of_every_field_at_once

n=$(audit_count)
row=$(plan_row)
edit '{}'
expect_status 200
expect_json .data.id "$plan"
expect_json .data.slug "q-$run"
edit '{"name":"Renamed","currency":"EUR","reason":"no change"}'
expect_status 200
expect_true "row unchanged" test "$(plan_row)" = "$row"
expect_true "no audit row for a no-op" test "$(audit_count)" = "$n"
check edit_that_changes_nothing_answers_the_plan_and_writes_no_audit

# --- bounds: at the edge 200, one past 400 with the field's pointer --------------------------
ok() {
    edit "$1"
    expect_status 200
}
bad() {
    local field=$2
    edit "$1"
    expect_error 400 validation_failed
    expect_json .error.field "$field"
}
ok '{"slug":"'"s$(repeat 0 63)"'"}'
bad '{"slug":"'"s$(repeat 0 64)"'"}' /slug
ok '{"slug":"0-'"$run"'"}'
bad '{"slug":"-a'"$run"'"}' /slug
bad '{"slug":"A'"$run"'"}' /slug
bad '{"slug":"a_'"$run"'"}' /slug
bad '{"slug":""}' /slug
check slug_bounds

ok '{"name":"'"$(repeat n 64)"'"}'
ok '{"name":"'"$(printf 'é%.0s' $(seq 64))"'"}'
bad '{"name":"'"$(printf 'é%.0s' $(seq 65))"'"}' /name
bad '{"name":"'"$(repeat n 65)"'"}' /name
bad '{"name":""}' /name
ok '{"name":"x"}'
check name_is_1_to_64_characters

ok '{"description":"'"$(repeat d 500)"'"}'
bad '{"description":"'"$(repeat d 501)"'"}' /description
ok '{"description":""}'
check description_is_at_most_500_characters

for f in price_cents storage_bytes; do
    ok '{"'$f'":0}'
    bad '{"'$f'":-1}' /$f
    ok '{"'$f'":'$MAX'}'
    bad '{"'$f'":9007199254740992}' /$f
    bad '{"'$f'":1.5}' /$f
    bad '{"'$f'":"5"}' /$f
    check "${f}_is_0_to_2_53_minus_1"
done
expect_true "storage_bytes stored" test "$(sql "SELECT storage_bytes, price_cents FROM plans WHERE id = '$plan'")" = "$MAX|$MAX"

ok '{"pouch_limit":1}'
bad '{"pouch_limit":0}' /pouch_limit
ok '{"pouch_limit":2147483647}'
bad '{"pouch_limit":2147483648}' /pouch_limit
check pouch_limit_is_1_to_2_31_minus_1

ok '{"sort":-2147483648}'
bad '{"sort":-2147483649}' /sort
ok '{"sort":2147483647}'
bad '{"sort":2147483648}' /sort
check sort_is_a_32_bit_integer

ok '{"currency":"JPY"}'
for c in '"jpy"' '"JP"' '"JPYN"' '"J1Y"' '""' 392; do bad '{"currency":'"$c"'}' /currency; done
check currency_is_three_upper_case_letters

for i in month year none; do ok '{"interval":"'$i'"}'; done
for i in '"week"' '"Month"' '""' 1; do bad '{"interval":'"$i"'}' /interval; done
check interval_is_month_year_or_none

for f in is_public is_active; do
    ok '{"'$f'":true}'
    ok '{"'$f'":false}'
    bad '{"'$f'":"true"}' /$f
    bad '{"'$f'":1}' /$f
done
check flags_are_booleans

ok '{"reason":"'"$(repeat r 500)"'"}'
bad '{"reason":"'"$(repeat r 501)"'"}' /reason
bad '{"reason":5}' /reason
check reason_is_at_most_500_characters

row=$(plan_row)
n=$(audit_count)
bad '{"name":"Fine","billing_product_id":"x"}' /billing_product_id
bad '{"name":"Fine","is_default":true}' /is_default
bad '{"name":"Fine","id":"'"$plan"'"}' /id
bad '{"name":null}' /name
edit '{"name":"Fine","name":"Twice"}'
expect_error 400 invalid_json
edit '[{"name":"Fine"}]'
expect_error 400 invalid_json
edit 'name=Fine'
expect_error 400 invalid_json
expect_true "row unchanged by refused edits" test "$(plan_row)" = "$row"
expect_true "no audit rows for refused edits" test "$(audit_count)" = "$n"
check unknown_null_and_malformed_fields_are_refused_and_change_nothing

edit '{"slug":"free","name":"Stolen"}'
expect_error 409 slug_taken
expect_json .error.field /slug
expect_true "row unchanged by slug_taken" test "$(plan_row)" = "$row"
expect_true "no audit row for slug_taken" test "$(audit_count)" = "$n"
check slug_of_another_plan_is_409_slug_taken

# --- a lowered limit applies at once and deletes nothing -------------------------------------
flow_user
web=(-H "Authorization: Bearer $WEB_TOKEN")
sql "UPDATE storage_accounts SET plan_id = '$plan' WHERE id = '$WEB_ACCOUNT'" >/dev/null
edit '{"storage_bytes":1000000,"pouch_limit":5}'
expect_status 200
op() {
    jq -nc --arg a "$(flow_uuid)" --arg r "$(flow_uuid)" --arg e "$1" --arg m "$WEB_MEMBER" \
        '{type:"put",artifact_id:$a,revision_id:$r,base_revision_id:null,key_gen:1,envelope:$e,
          signature:"sig",signer_member_id:$m,blob_ids:[]}'
}
commit() {
    req POST "/v1/pouches/$POUCH/operations" \
        "$(jq -nc --arg o "$(flow_uuid)" --arg e "$EPOCH" --argjson op "$(op "$1")" '{operation_id:$o,epoch:$e,ops:[$op]}')" \
        "${web[@]}"
}
commit "$(repeat x 997)" # 997 + 3 bytes of signature = 1000
expect_json '.data.results[0].status' applied
used=$(sql "SELECT stored_bytes FROM pouches WHERE id = '$POUCH'")
expect_true "usage is 1000 bytes ($used)" test "$used" = 1000
edit '{"storage_bytes":500,"reason":"shrink below usage"}'
expect_status 200
expect_json .data.storage_bytes 500
commit "y"
expect_status 200
expect_json '.data.results[0].status' rejected
expect_json '.data.results[0].code' quota_exceeded
expect_true "data intact" test "$(sql "SELECT count(*), sum(stored_size) FROM revisions WHERE pouch_id = '$POUCH'")" = "1|1000"
expect_true "usage intact" test "$(sql "SELECT stored_bytes FROM pouches WHERE id = '$POUCH'")" = 1000
req GET "/v1/account" "" "${web[@]}"
expect_json .data.plan.storage_bytes 500
check lowered_storage_limit_refuses_the_next_growth_and_deletes_nothing

# Usage counts the genesis roster statement and key envelope too (decisions §13).
total=$(sql "SELECT account_stored_bytes('$WEB_ACCOUNT')")
edit "{\"storage_bytes\":$((total + 4))}"
expect_status 200
commit "y"
expect_json '.data.results[0].status' applied
commit "y"
expect_json '.data.results[0].code' quota_exceeded
check raised_storage_limit_applies_at_once_to_the_exact_byte

smoke_done
