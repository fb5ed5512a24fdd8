#!/usr/bin/env bash
# 41-artifacts.sh -- GET /v1/pouches/{id}/artifacts (op 7, decisions §5.4): live artifacts by
# head seq with their head Revision object, include_deleted values, limit bounds, keyset
# paging with next_cursor, cursors refused when malformed or from another list, and other
# accounts' pouches answering 404. Relies on lib.sh and flows.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

flow_user
A_TOKEN=$WEB_TOKEN A_POUCH=$POUCH A_EPOCH=$EPOCH A_MEMBER=$WEB_MEMBER
flow_user
B_TOKEN=$WEB_TOKEN B_POUCH=$POUCH
auth=(-H "Authorization: Bearer $A_TOKEN")
list="/v1/pouches/$A_POUCH/artifacts"

# ids of the items of the last page, comma-separated
ids() { json '[.data.items[].id] | join(",")'; }

req GET "$list" "" "${auth[@]}"
expect_status 200
expect_json '.data.items | length' 0
expect_json '.meta | has("next_cursor")' true
expect_json .meta.next_cursor null
check artifacts_of_a_new_pouch_are_an_empty_list

read -r art1 rev1 < <(flow_put_new "$A_TOKEN" "$A_POUCH" "$A_EPOCH" "$A_MEMBER" "envelope-1")
read -r art2 rev2 < <(flow_put_new "$A_TOKEN" "$A_POUCH" "$A_EPOCH" "$A_MEMBER" "envelope-2")
read -r art3 _ < <(flow_put_new "$A_TOKEN" "$A_POUCH" "$A_EPOCH" "$A_MEMBER" "envelope-3")

req GET "$list" "" "${auth[@]}"
expect_status 200
expect_true "ordered by head seq: $(ids)" test "$(ids)" = "$art1,$art2,$art3"
expect_json .meta.next_cursor null
expect_json '.data.items[0] | keys | join(",")' head,id,name_index,updated_at
expect_json '.data.items[0].name_index' ""
expect_json_match '.data.items[0].updated_at' '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$'
expect_json '.data.items[0].head | keys | join(",")' \
    artifact_id,base_revision_id,blob_ids,conflict_id,created_at,envelope,envelope_hash,id,key_gen,kind,merge_parent_id,origin,seq,signature,signer_member_id,stored_size
expect_json '.data.items[0].head.id' "$rev1"
expect_json '.data.items[0].head.artifact_id' "$art1"
expect_json '.data.items[0].head.envelope' envelope-1
expect_json '.data.items[0].head.signer_member_id' "$A_MEMBER"
expect_json '.data.items[0].head.key_gen' 1
expect_json '.data.items[0].head.origin' web
expect_json '.data.items[0].head.blob_ids | length' 0
expect_json '.data.items[0].head.kind' put
expect_json '.data.items[0].head.seq' 1
expect_json '.data.items[0].head.base_revision_id' null
expect_json '.data.items[0].head.merge_parent_id' null
expect_json '.data.items[0].head.conflict_id' null
expect_json_match '.data.items[0].head.created_at' '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$'
row=$(sql "SELECT envelope_hash || ' ' || signature || ' ' || stored_size FROM revisions WHERE pouch_id = '$A_POUCH' AND id = '$rev1'")
expect_json '.data.items[0].head | "\(.envelope_hash) \(.signature) \(.stored_size)"' "$row"
check artifacts_list_items_with_their_head_revision

# An update moves an artifact behind the others (its head seq grows).
rev1b=$(flow_uuid)
flow_commit "$A_TOKEN" "$A_POUCH" "$A_EPOCH" "$(flow_op put "$art1" "$rev1b" "$rev1" envelope-1b "$A_MEMBER")"
req GET "$list" "" "${auth[@]}"
expect_true "updated artifact last: $(ids)" test "$(ids)" = "$art2,$art3,$art1"
expect_json '.data.items[2].head.id' "$rev1b"
expect_json '.data.items[2].head.base_revision_id' "$rev1"
expect_json '.data.items[2].head.seq' 4
check artifacts_updated_artifact_moves_to_the_end_with_its_new_head

# --- include_deleted ------------------------------------------------------------------------
del2=$(flow_uuid)
flow_commit "$A_TOKEN" "$A_POUCH" "$A_EPOCH" "$(flow_op delete "$art2" "$del2" "$rev2" tombstone "$A_MEMBER")"
for v in "" "&include_deleted=false" "&include_deleted=0"; do
    req GET "$list?limit=100$v" "" "${auth[@]}"
    expect_status 200
    expect_true "'$v' hides the deleted: $(ids)" test "$(ids)" = "$art3,$art1"
done
for v in true 1; do
    req GET "$list?include_deleted=$v" "" "${auth[@]}"
    expect_status 200
    expect_true "'$v' shows the deleted: $(ids)" test "$(ids)" = "$art3,$art1,$art2"
    expect_json '.data.items[2].head.id' "$del2"
    expect_json '.data.items[2].head.kind' delete
done
check artifacts_include_deleted_accepts_true_false_1_0

for v in yes TRUE 2 "" on; do
    req GET "$list?include_deleted=$v" "" "${auth[@]}"
    expect_error 400 validation_failed
    expect_json .error.field '?include_deleted'
done
check artifacts_include_deleted_other_values_are_400

# --- limit and paging -----------------------------------------------------------------------
for v in 0 501 -1 x; do
    req GET "$list?limit=$v" "" "${auth[@]}"
    expect_error 400 validation_failed
    expect_json .error.field '?limit'
done
req GET "$list?limit=500" "" "${auth[@]}"
expect_status 200
expect_json '.data.items | length' 2
expect_json .meta.next_cursor null
check artifacts_limit_is_1_to_500

# Four more artifacts, then pages of 2: every live artifact once, in order, and a null cursor
# on the last page.
for i in 4 5 6 7; do flow_put_new "$A_TOKEN" "$A_POUCH" "$A_EPOCH" "$A_MEMBER" "envelope-$i" >/dev/null; done
req GET "$list?limit=500" "" "${auth[@]}"
all=$(ids)
seen=()
cursor=""
pages=0
while :; do
    req GET "$list?limit=2${cursor:+&cursor=$cursor}" "" "${auth[@]}"
    expect_status 200
    pages=$((pages + 1))
    seen+=("$(ids)")
    cursor=$(json '.meta.next_cursor // empty')
    [[ -n $cursor && $pages -lt 10 ]] || break
    expect_json_match .meta.next_cursor '^[A-Za-z0-9_-]+$'
done
joined=$(IFS=,; echo "${seen[*]}")
expect_true "pages give $joined, want $all" test "$joined" = "$all"
expect_true "3 pages of 2 for 6 artifacts (got $pages)" test "$pages" = 3
check artifacts_pages_follow_next_cursor_to_the_end

req GET "$list?limit=1" "" "${auth[@]}"
first_cursor=$(json .meta.next_cursor)
req GET "$list?limit=1&cursor=$first_cursor" "" "${auth[@]}"
expect_status 200
expect_json '.data.items[0].id' "$(cut -d, -f2 <<<"$all")"
req GET "$list?limit=1&include_deleted=true&cursor=$first_cursor" "" "${auth[@]}"
expect_status 200
check artifacts_cursor_also_serves_include_deleted_pages

# --- invalid cursors ------------------------------------------------------------------------
rev_cursor_of() {
    req GET "/v1/pouches/$1/artifacts/$2/revisions?limit=1" "" -H "Authorization: Bearer $3"
    json .meta.next_cursor
}
for bad in '!!!' 'AAAA' "$(b64url garbage)" "$(b64url "artifacts/$A_POUCH/$A_EPOCH|1")" \
    "$(b64url "artifacts/$A_POUCH/$A_EPOCH|01|$art1")" "$(b64url "artifacts/$A_POUCH/$A_EPOCH|-1|$art1")" \
    "$(b64url "artifacts/$A_POUCH/$A_EPOCH|1|nope")" "${first_cursor}A" "${first_cursor:0:20}"; do
    req GET "$list?cursor=$bad" "" "${auth[@]}"
    expect_error 400 invalid_cursor
done
check artifacts_malformed_cursor_is_invalid_cursor

# A second pouch of the same account.
read -r P2 P2_EPOCH < <(flow_new_pouch "$A_TOKEN" "$A_MEMBER")
for i in 1 2; do flow_put_new "$A_TOKEN" "$P2" "$P2_EPOCH" "$A_MEMBER" "p2-$i" >/dev/null; done
req GET "/v1/pouches/$P2/artifacts?limit=1" "" "${auth[@]}"
p2_cursor=$(json .meta.next_cursor)
expect_json_match .meta.next_cursor '^[A-Za-z0-9_-]+$'
req GET "$list?cursor=$p2_cursor" "" "${auth[@]}"
expect_error 400 invalid_cursor
check artifacts_cursor_of_another_pouch_is_invalid_cursor

rev_cursor=$(rev_cursor_of "$A_POUCH" "$art1" "$A_TOKEN")
expect_true "revisions cursor exists" test "$rev_cursor" != null
req GET "$list?cursor=$rev_cursor" "" "${auth[@]}"
expect_error 400 invalid_cursor
check artifacts_with_a_revisions_cursor_is_invalid_cursor

# After an operator resets the epoch, old cursors are refused rather than misread.
sql "UPDATE pouches SET epoch = gen_random_uuid() WHERE id = '$P2'" >/dev/null
req GET "/v1/pouches/$P2/artifacts?cursor=$p2_cursor" "" "${auth[@]}"
expect_error 400 invalid_cursor
check artifacts_cursor_from_before_an_epoch_reset_is_invalid_cursor

req GET "$list?cursor=" "" "${auth[@]}"
expect_error 400 validation_failed
expect_json .error.field '?cursor'
req GET "$list?cursor=$(printf 'A%.0s' {1..600})" "" "${auth[@]}"
expect_error 400 validation_failed
expect_json .error.field '?cursor'
req GET "$list?page=2" "" "${auth[@]}"
expect_error 400 validation_failed
expect_json .error.field '?page'
check artifacts_empty_overlong_or_unknown_query_is_validation_failed

# --- access ---------------------------------------------------------------------------------
req GET "$list" "" -H "Authorization: Bearer $B_TOKEN"
expect_error 404 not_found
req GET "$list?cursor=$first_cursor" "" -H "Authorization: Bearer $B_TOKEN"
expect_error 404 not_found
req GET "/v1/pouches/$B_POUCH/artifacts?cursor=$first_cursor" "" -H "Authorization: Bearer $B_TOKEN"
expect_error 400 invalid_cursor
req GET "/v1/pouches/$(flow_uuid)/artifacts" "" "${auth[@]}"
expect_error 404 not_found
req GET "/v1/pouches/not-a-uuid/artifacts" "" "${auth[@]}"
expect_error 404 not_found
req GET "$list"
expect_error 401 unauthenticated
check artifacts_of_another_accounts_pouch_are_404

smoke_done
