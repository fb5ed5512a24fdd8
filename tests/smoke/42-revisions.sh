#!/usr/bin/env bash
# 42-revisions.sh -- GET /v1/pouches/{id}/artifacts/{artifactId}/revisions (op 10, decisions
# §5.4): an artifact's history newest first, paging with next_cursor, limit bounds, cursors of
# other lists refused, unknown artifacts and other accounts 404; and every read path open to a
# CLI device of the account (its own commits carry its device_id in events). Relies on lib.sh
# and flows.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

flow_user
A_TOKEN=$WEB_TOKEN A_POUCH=$POUCH A_EPOCH=$EPOCH A_MEMBER=$WEB_MEMBER
flow_device laptop  # a CLI device of A (uses POUCH, WEB_MEMBER, WEB_TOKEN of A)
auth=(-H "Authorization: Bearer $A_TOKEN")

# X: put, put, delete, put (restore); Y: one put.
X=$(flow_uuid) r1=$(flow_uuid) r2=$(flow_uuid) r3=$(flow_uuid) r4=$(flow_uuid)
flow_commit "$A_TOKEN" "$A_POUCH" "$A_EPOCH" "$(flow_op put "$X" "$r1" null x-1 "$A_MEMBER")" \
    "$(flow_op put "$X" "$r2" "$r1" x-2 "$A_MEMBER")"
flow_commit "$A_TOKEN" "$A_POUCH" "$A_EPOCH" "$(flow_op delete "$X" "$r3" "$r2" x-3 "$A_MEMBER")"
flow_commit "$A_TOKEN" "$A_POUCH" "$A_EPOCH" "$(flow_op put "$X" "$r4" "$r3" x-4 "$A_MEMBER")"
read -r Y _ < <(flow_put_new "$A_TOKEN" "$A_POUCH" "$A_EPOCH" "$A_MEMBER" y-1)
history="/v1/pouches/$A_POUCH/artifacts/$X/revisions"

ids() { json '[.data.items[].id] | join(",")'; }

req GET "$history" "" "${auth[@]}"
expect_status 200
expect_true "newest first: $(ids)" test "$(ids)" = "$r4,$r3,$r2,$r1"
# (seq 1 is the roster event of the device's approval)
expect_json '[.data.items[].seq] | join(",")' 5,4,3,2
expect_json '[.data.items[].kind] | join(",")' put,delete,put,put
expect_json '[.data.items[].envelope] | join(",")' x-4,x-3,x-2,x-1
expect_json '[.data.items[].base_revision_id] | map(. // "null") | join(",")' "$r3,$r2,$r1,null"
expect_json '[.data.items[].artifact_id] | unique | join(",")' "$X"
expect_json '.data.items[0] | keys | join(",")' \
    artifact_id,base_revision_id,blob_ids,conflict_id,created_at,envelope,envelope_hash,id,key_gen,kind,merge_parent_id,origin,seq,signature,signer_member_id,stored_size
expect_json .meta.next_cursor null
row=$(sql "SELECT envelope_hash || ' ' || signature || ' ' || stored_size || ' ' || origin FROM revisions WHERE pouch_id = '$A_POUCH' AND id = '$r3'")
expect_json '.data.items[1] | "\(.envelope_hash) \(.signature) \(.stored_size) \(.origin)"' "$row"
check revisions_list_history_newest_first_with_stored_fields

req GET "/v1/pouches/$A_POUCH/artifacts/${X^^}/revisions" "" "${auth[@]}"
expect_status 200
expect_true "upper-case artifact id: $(ids)" test "$(ids)" = "$r4,$r3,$r2,$r1"
check revisions_accept_an_upper_case_artifact_id

# --- paging ---------------------------------------------------------------------------------
seen=()
cursor=""
pages=0
while :; do
    req GET "$history?limit=1${cursor:+&cursor=$cursor}" "" "${auth[@]}"
    expect_status 200
    pages=$((pages + 1))
    seen+=("$(ids)")
    cursor=$(json '.meta.next_cursor // empty')
    [[ -n $cursor && $pages -lt 10 ]] || break
done
joined=$(IFS=,; echo "${seen[*]}")
expect_true "pages give $joined" test "$joined" = "$r4,$r3,$r2,$r1"
expect_true "4 pages of 1 (got $pages)" test "$pages" = 4
check revisions_pages_of_one_walk_the_whole_history

req GET "$history?limit=3" "" "${auth[@]}"
expect_true "first 3: $(ids)" test "$(ids)" = "$r4,$r3,$r2"
cursor3=$(json .meta.next_cursor)
req GET "$history?limit=3&cursor=$cursor3" "" "${auth[@]}"
expect_true "rest: $(ids)" test "$(ids)" = "$r1"
expect_json .meta.next_cursor null
check revisions_next_cursor_is_null_on_the_last_page

# A revision committed after the first page is newer than the cursor: the walk does not
# repeat or skip the older ones.
r5=$(flow_uuid)
flow_commit "$A_TOKEN" "$A_POUCH" "$A_EPOCH" "$(flow_op put "$X" "$r5" "$r4" x-5 "$A_MEMBER")"
req GET "$history?limit=3&cursor=$cursor3" "" "${auth[@]}"
expect_true "still the rest: $(ids)" test "$(ids)" = "$r1"
req GET "$history?limit=1" "" "${auth[@]}"
expect_json '.data.items[0].id' "$r5"
check revisions_cursor_is_stable_while_new_revisions_land

for v in 0 501 -1 1.5; do
    req GET "$history?limit=$v" "" "${auth[@]}"
    expect_error 400 validation_failed
    expect_json .error.field '?limit'
done
req GET "$history?limit=500" "" "${auth[@]}"
expect_status 200
expect_json '.data.items | length' 5
req GET "$history?include_deleted=true" "" "${auth[@]}"
expect_error 400 validation_failed
expect_json .error.field '?include_deleted'
check revisions_limit_is_1_to_500_and_unknown_parameters_are_400

# --- cursors of other lists -----------------------------------------------------------------
req GET "/v1/pouches/$A_POUCH/artifacts?limit=1" "" "${auth[@]}"
art_cursor=$(json .meta.next_cursor)
req GET "$history?cursor=$art_cursor" "" "${auth[@]}"
expect_error 400 invalid_cursor
check revisions_with_an_artifacts_cursor_is_invalid_cursor

req GET "/v1/pouches/$A_POUCH/artifacts/$Y/revisions?cursor=$cursor3" "" "${auth[@]}"
expect_error 400 invalid_cursor
check revisions_cursor_of_another_artifact_is_invalid_cursor

for bad in '~~' 'AAAA' "$(printf 'x|1|%s' "$r1" | base64 -w0 | tr '+/' '-_' | tr -d '=')"; do
    req GET "$history?cursor=$bad" "" "${auth[@]}"
    expect_error 400 invalid_cursor
done
check revisions_malformed_cursor_is_invalid_cursor

# --- not found ------------------------------------------------------------------------------
req GET "/v1/pouches/$A_POUCH/artifacts/$(flow_uuid)/revisions" "" "${auth[@]}"
expect_error 404 not_found
read -r P2 P2_EPOCH < <(flow_new_pouch "$A_TOKEN" "$A_MEMBER")
read -r Z z1 < <(flow_put_new "$A_TOKEN" "$P2" "$P2_EPOCH" "$A_MEMBER" z-1)
req GET "/v1/pouches/$A_POUCH/artifacts/$Z/revisions" "" "${auth[@]}"
expect_error 404 not_found
req GET "/v1/pouches/$P2/artifacts/$Z/revisions" "" "${auth[@]}"
expect_status 200
expect_json '.data.items[0].id' "$z1"
req GET "/v1/pouches/$A_POUCH/artifacts/not-a-uuid/revisions" "" "${auth[@]}"
expect_error 404 not_found
check revisions_of_an_artifact_not_in_this_pouch_are_404

# --- a CLI device of the account reads every path -------------------------------------------
body=$(jq -nc --arg o "$(flow_uuid)" --arg e "$A_EPOCH" --arg a "$(flow_uuid)" --arg r "$(flow_uuid)" \
    --arg m "$DEVICE_MEMBER" --arg s "$(flow_b64 64)" \
    '{operation_id:$o,epoch:$e,ops:[{type:"put",artifact_id:$a,revision_id:$r,base_revision_id:null,
      key_gen:1,envelope:"from-cli",signature:$s,signer_member_id:$m,blob_ids:[]}]}')
cli_req POST "/v1/pouches/$A_POUCH/operations" "$body" \
    -H "Service-Signature: $("$POUCHCTL" sign-body --key "$DEVICE_KEY" <<<"$body")"
expect_status 200
expect_json '.data.results[0].status' applied
cli_art=$(jq -r '.ops[0].artifact_id' <<<"$body")
cli_rev=$(jq -r '.ops[0].revision_id' <<<"$body")
cli_seq=$(json '.data.results[0].seq')

cli_req GET "/v1/pouches/$A_POUCH/events?epoch=$A_EPOCH&after=$((cli_seq - 1))"
expect_status 200
expect_json '.data.items[0].revision_id' "$cli_rev"
expect_json '.data.items[0].device_id' "$DEVICE_ID"
cli_req GET "/v1/pouches/$A_POUCH/events?epoch=$A_EPOCH&after=1&limit=1"
expect_json '.data.items[0].revision_id' "$r1"
expect_json '.data.items[0].device_id' null
check events_carry_the_committing_cli_device_and_null_for_web

cli_req GET "/v1/pouches/$A_POUCH/events?epoch=$A_EPOCH&limit=1"
expect_json '.data.items[0] | "\(.seq) \(.kind) \(.artifact_id) \(.revision_id)"' "1 roster null null"
expect_json '.data.items[0].key_gen' 1  # the extension: the pouch's key_gen at the event
check events_list_the_roster_event_of_a_device_approval

cli_req GET "/v1/pouches/$A_POUCH/artifacts?limit=500"
expect_status 200
expect_json "[.data.items[] | select(.id == \"$cli_art\")][0].head.origin" cli
expect_json "[.data.items[] | select(.id == \"$cli_art\")][0].head.signer_member_id" "$DEVICE_MEMBER"
cli_req GET "$history?limit=2"
expect_status 200
expect_true "cli sees the history: $(ids)" test "$(ids)" = "$r5,$r4"
cli_req GET "$history?limit=2&cursor=$(json .meta.next_cursor)"
expect_status 200
expect_true "cli follows the cursor: $(ids)" test "$(ids)" = "$r3,$r2"
check cli_device_reads_events_artifacts_and_revisions

# --- other accounts -------------------------------------------------------------------------
flow_user
B_TOKEN=$WEB_TOKEN B_POUCH=$POUCH
req GET "$history" "" -H "Authorization: Bearer $B_TOKEN"
expect_error 404 not_found
req GET "$history?cursor=$cursor3" "" -H "Authorization: Bearer $B_TOKEN"
expect_error 404 not_found
req GET "/v1/pouches/$B_POUCH/artifacts/$X/revisions" "" -H "Authorization: Bearer $B_TOKEN"
expect_error 404 not_found
for path in "/v1/pouches/$A_POUCH/events?epoch=$A_EPOCH" "/v1/pouches/$A_POUCH/artifacts" \
    "/v1/pouches/$A_POUCH/artifacts?include_deleted=1&limit=5" "$history?limit=1"; do
    req GET "$path" "" -H "Authorization: Bearer $B_TOKEN"
    expect_error 404 not_found
done
check revisions_and_every_read_path_of_another_account_are_404

smoke_done
