#!/usr/bin/env bash
# 61-shares-lifecycle.sh -- a share through every state (decisions §8) with the stored row
# checked at each step: active (public fetch counts views, imports by another user), revoked
# (idempotent), consumed (one_time: the first fetch consumes, its single import still counts),
# expired. Expiry is tested without waiting a day: the test backdates expires_at with psql,
# which exercises the same state computation the handler runs on read. Relies on
# tests/smoke/lib.sh and flows.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

# counters ID: "views|imports|consumed|revoked|last_imported" of the stored row.
counters() {
    sql "SELECT views, imports, consumed_at IS NOT NULL, revoked_at IS NOT NULL,
                last_imported_at IS NOT NULL FROM shares WHERE id = '$1'"
}

# Owner A with a CLI device; B, another signed-in user, imports.
flow_user
A_TOKEN=$WEB_TOKEN A_POUCH=$POUCH
flow_device laptop
flow_web_user
B_TOKEN=$WEB_TOKEN
a=(-H "Authorization: Bearer $A_TOKEN")
b=(-H "Authorization: Bearer $B_TOKEN")
create() { req POST "/v1/pouches/$A_POUCH/shares" "$(flow_share_body "$1" "${2:-{\}}")" "${a[@]}"; }
list_state() {
    req GET "/v1/pouches/$A_POUCH/shares" "" "${a[@]}"
    json ".data.items[] | select(.id == \"$1\") | .state"
}

# --- active: fetch and import count --------------------------------------------------------------
S=$(flow_uuid)
create "$S"
expires=$(json .data.expires_at)
req GET "/v1/shares/$S"
expect_status 200
expect_true "exactly the fetch fields" test "$(json '.data | keys_unsorted | join(",")')" = \
    "id,label_enc,bundle,size,expires_at,one_time"
expect_json .data.id "$S"
expect_json .data.label_enc bGFiZWw
expect_json .data.bundle c2VhbGVkLWJ1bmRsZQ
expect_json .data.size 13
expect_json .data.expires_at "$expires"
expect_json .data.one_time false
expect_header Cache-Control no-store
expect_true "one view counted" test "$(counters "$S")" = "1|0|f|f|f"
req GET "/v1/shares/$S"
expect_status 200
expect_true "two views, never consumed" test "$(counters "$S")" = "2|0|f|f|f"
check public_fetch_of_an_active_share_answers_the_bundle_and_counts_a_view

req POST "/v1/shares/$S/import" "" "${b[@]}"
expect_status 200
expect_true "exactly id, imports, last_imported_at" test "$(json '.data | keys_unsorted | join(",")')" = \
    "id,imports,last_imported_at"
expect_json .data.id "$S"
expect_json .data.imports 1
expect_json .data.last_imported_at "$(sql "SELECT iso(last_imported_at) FROM shares WHERE id = '$S'")"
expect_true "one import stored" test "$(counters "$S")" = "2|1|f|f|t"
req POST "/v1/shares/$S/import" '{}' "${a[@]}"
expect_status 200
expect_json .data.imports 2
check import_by_any_web_user_counts_and_sets_last_imported_at

cli_req POST "/v1/shares/$S/import"
expect_error 403 wrong_caller
req POST "/v1/shares/$S/import"
expect_error 401 unauthenticated
req POST "/v1/shares/$S/import" '{"pouch_id":"x"}' "${b[@]}"
expect_error 400 validation_failed
expect_json .error.field /pouch_id
expect_true "none of these counted" test "$(counters "$S")" = "2|2|f|f|t"
check import_needs_a_web_caller_and_no_body

req GET "/v1/pouches/$A_POUCH/shares" "" "${a[@]}"
expect_status 200
expect_json '.data.items | length' 1
expect_json '.data.items[0].id' "$S"
expect_json '.data.items[0].state' active
expect_json '.data.items[0].views' 2
expect_json '.data.items[0].imports' 2
expect_json '.data.items[0].last_imported_at' "$(sql "SELECT iso(last_imported_at) FROM shares WHERE id = '$S'")"
expect_json '.data.items[0] | has("bundle")' false
expect_json .meta.next_cursor null
cli_req GET "/v1/pouches/$A_POUCH/shares"
expect_status 200
expect_json '.data.items[0].id' "$S"
check list_shows_counters_to_the_owners_web_and_cli_callers

# --- revoked ----------------------------------------------------------------------------------
req POST "/v1/shares/$S/revoke" "" "${b[@]}"
expect_error 404 not_found
cli_req POST "/v1/shares/$S/revoke"
expect_error 403 wrong_caller
expect_true "not revoked" test "$(counters "$S")" = "2|2|f|f|t"
check revoke_by_another_account_is_404_and_by_a_cli_403

req POST "/v1/shares/$S/revoke" "" "${a[@]}"
expect_status 200
expect_json .data.id "$S"
expect_json .data.state revoked
expect_json .data.views 2
expect_json .data.imports 2
expect_json .data.revoked_at "$(sql "SELECT iso(revoked_at) FROM shares WHERE id = '$S'")"
first=$(jq -c .data <<<"$BODY")
stored=$(sql "SELECT revoked_at FROM shares WHERE id = '$S'")
sleep 0.01
req POST "/v1/shares/$S/revoke" '{}' "${a[@]}"
expect_status 200
expect_true "the same object again" test "$(jq -c .data <<<"$BODY")" = "$first"
expect_true "revoked_at kept" test "$(sql "SELECT revoked_at FROM shares WHERE id = '$S'")" = "$stored"
check revoke_sets_revoked_at_once_and_is_idempotent

req GET "/v1/shares/$S"
expect_error 410 share_unavailable
expect_json .error.details.state revoked
req POST "/v1/shares/$S/import" "" "${b[@]}"
expect_error 410 share_unavailable
expect_json .error.details.state revoked
expect_true "no view or import counted" test "$(counters "$S")" = "2|2|f|t|t"
expect_true "listed as revoked" test "$(list_state "$S")" = revoked
check a_revoked_share_is_410_for_fetch_and_import

# --- consumed (one_time) ----------------------------------------------------------------------
O=$(flow_uuid)
create "$O" '{"one_time":true}'
expect_json .data.one_time true
req POST "/v1/shares/$O/import" "" "${b[@]}"
expect_status 200
expect_json .data.imports 1
req POST "/v1/shares/$O/import" "" "${b[@]}"
expect_error 410 share_unavailable
expect_json .error.details.state consumed
expect_true "one import, not consumed by importing" test "$(counters "$O")" = "0|1|f|f|t"
check a_one_time_share_counts_a_single_import

O=$(flow_uuid)
create "$O" '{"one_time":true,"expires":"never"}'
req GET "/v1/shares/$O"
expect_status 200
expect_json .data.one_time true
expect_json .data.expires_at null
expect_true "consumed by the first fetch" test "$(counters "$O")" = "1|0|t|f|f"
expect_true "listed as consumed" test "$(list_state "$O")" = consumed
req GET "/v1/shares/$O"
expect_error 410 share_unavailable
expect_true "the refused fetch is not a view" test "$(counters "$O")" = "1|0|t|f|f"
check a_one_time_share_is_consumed_by_its_first_fetch

req POST "/v1/shares/$O/import" "" "${b[@]}"
expect_status 200
expect_json .data.imports 1
req POST "/v1/shares/$O/import" "" "${b[@]}"
expect_error 410 share_unavailable
expect_true "one import of the consumed share" test "$(counters "$O")" = "1|1|t|f|t"
expect_true "still consumed" test "$(list_state "$O")" = consumed
check the_fetch_that_consumed_a_one_time_share_may_be_followed_by_one_import

req POST "/v1/shares/$O/revoke" "" "${a[@]}"
expect_status 200
expect_json .data.state revoked
check revoking_a_consumed_share_makes_it_revoked

# --- expired (backdated in SQL: the state is computed on read) ----------------------------------
E=$(flow_uuid)
create "$E" '{"expires":"1d"}'
req GET "/v1/shares/$E"
expect_status 200
sql "UPDATE shares SET expires_at = now() - interval '1 second' WHERE id = '$E'"
req GET "/v1/shares/$E"
expect_error 410 share_unavailable
expect_json .error.details.state expired
req POST "/v1/shares/$E/import" "" "${b[@]}"
expect_error 410 share_unavailable
expect_json .error.details.state expired
expect_true "one view, no import" test "$(counters "$E")" = "1|0|f|f|f"
expect_true "listed as expired" test "$(list_state "$E")" = expired
check an_expired_share_is_410_for_fetch_and_import

E1=$(flow_uuid)
create "$E1" '{"one_time":true}'
sql "UPDATE shares SET expires_at = now() WHERE id = '$E1'"
req GET "/v1/shares/$E1"
expect_error 410 share_unavailable
expect_true "expired at expires_at exactly, not consumed" test "$(counters "$E1")" = "0|0|f|f|f"
check a_share_is_expired_from_expires_at_on

# --- unknown ids and other accounts -------------------------------------------------------------
U=$(flow_uuid)
req GET "/v1/shares/$U"
expect_error 404 not_found
req POST "/v1/shares/$U/import" "" "${b[@]}"
expect_error 404 not_found
req POST "/v1/shares/$U/revoke" "" "${a[@]}"
expect_error 404 not_found
req GET /v1/shares/not-a-uuid
expect_error 404 not_found
check unknown_shares_are_404

req GET "/v1/pouches/$A_POUCH/shares" "" "${b[@]}"
expect_error 404 not_found
req GET "/v1/pouches/$(flow_uuid)/shares" "" "${a[@]}"
expect_error 404 not_found
req GET "/v1/pouches/$A_POUCH/shares"
expect_error 401 unauthenticated
check list_of_another_accounts_pouch_is_404

# --- list paging: newest first, keyset cursor ---------------------------------------------------
flow_genesis   # B's own pouch, empty of shares
c=(-H "Authorization: Bearer $B_TOKEN")
ids=()
for _ in 1 2 3 4 5; do
    id=$(flow_uuid)
    req POST "/v1/pouches/$POUCH/shares" "$(flow_share_body "$id")" "${c[@]}"
    ids+=("$id")
done
# Two shares with the same created_at are ordered by id (the keyset's tie-break).
sql "UPDATE shares SET created_at = (SELECT created_at FROM shares WHERE id = '${ids[2]}') WHERE id = '${ids[3]}'"
want=$(sql "SELECT string_agg(id::text, ',' ORDER BY created_at DESC, id DESC) FROM shares WHERE pouch_id = '$POUCH'")
got="" cursor="" pages=0
while :; do
    req GET "/v1/pouches/$POUCH/shares?limit=2${cursor:+&cursor=$cursor}" "" "${c[@]}"
    expect_status 200
    pages=$((pages + 1))
    got+=$(json '[.data.items[].id] | join(",")'),
    cursor=$(json .meta.next_cursor)
    [[ $cursor != null && $pages -lt 5 ]] || break
done
expect_true "three pages" test "$pages" = 3
expect_true "all five newest first: $got" test "${got%,}" = "$want"
req GET "/v1/pouches/$POUCH/shares" "" "${c[@]}"
expect_true "default limit shows all" test "$(json '[.data.items[].id] | join(",")')" = "$want"
expect_json .meta.next_cursor null
check list_pages_newest_first_by_cursor

for q in limit=0 limit=1001 limit=x cursor=abc 'cursor=1.not-a-uuid' 'cursor=99999999999999999999.'"${ids[0]}" other=1; do
    req GET "/v1/pouches/$POUCH/shares?$q" "" "${c[@]}"
    if [[ $q == cursor=* ]]; then
        expect_error 400 invalid_cursor
    else
        expect_error 400 validation_failed
        expect_json .error.field "?${q%%=*}"
    fi
done
check bad_list_parameters_are_400

smoke_done
