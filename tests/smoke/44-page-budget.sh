#!/usr/bin/env bash
# 44-page-budget.sh -- the 4 MiB page budget of the artifact list and the revision history
# (decisions §5.4): a page stops once its items pass 4 MiB of JSON, always holds at least one
# item, says next_cursor while more follow, and measures JSON (an envelope of quotes counts
# twice), not stored bytes. Envelopes of 1 MiB (the op maximum) go through real commits.
# Relies on lib.sh and flows.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

MiB=1048576
flow_user
auth=(-H "Authorization: Bearer $WEB_TOKEN")

# envelope_file NAME CHAR: 1 MiB of CHAR, no newline.
envelope_file() {
    head -c $MiB /dev/zero | tr '\0' "$2" >"$SMOKE_TMP/$1"
    echo "$SMOKE_TMP/$1"
}
# big_op FILE ARTIFACT REVISION BASE|null: an op whose envelope is the file's content, written
# to a file (a megabyte does not fit in one command-line argument); prints "@file".
big_op() {
    local out=$SMOKE_TMP/op-$3.json
    jq -nc --rawfile e "$1" --arg a "$2" --arg r "$3" --arg b "$4" --arg m "$WEB_MEMBER" \
        --arg s "$(flow_b64 64)" \
        '{type:"put", artifact_id:$a, revision_id:$r,
          base_revision_id:(if $b == "null" then null else $b end), key_gen:1, envelope:$e,
          signature:$s, signer_member_id:$m, blob_ids:[]}' >"$out"
    echo "@$out"
}
page_bytes() { printf '%s' "$(json .data)" | wc -c; }

plain=$(envelope_file plain E)
quotes=$(envelope_file quotes '"')

# --- artifact list: six artifacts of 1 MiB --------------------------------------------------
ops=()
arts=()
for i in 1 2 3 4 5; do
    a=$(flow_uuid)
    arts+=("$a")
    ops+=("$(big_op "$plain" "$a" "$(flow_uuid)" null)")
done
flow_commit "$WEB_TOKEN" "$POUCH" "$EPOCH" "${ops[@]}"
expect_status 200
a=$(flow_uuid)
arts+=("$a")
flow_commit "$WEB_TOKEN" "$POUCH" "$EPOCH" "$(big_op "$plain" "$a" "$(flow_uuid)" null)"
expect_status 200
check budget_setup_commits_six_envelopes_of_1_mib

list="/v1/pouches/$POUCH/artifacts"
req GET "$list" "" "${auth[@]}"
expect_status 200
expect_json '.data.items | length' 4
expect_json '[.data.items[].id] | join(",")' "$(IFS=,; echo "${arts[*]:0:4}")"
expect_json '.data.items[0].head.envelope | length' $MiB
expect_json_match .meta.next_cursor '^[A-Za-z0-9_-]+$'
bytes=$(page_bytes)
expect_true "page of $bytes bytes passes 4 MiB by less than one item" \
    test "$bytes" -gt $((4 * MiB)) -a "$bytes" -lt $((5 * MiB + 65536))
cursor=$(json .meta.next_cursor)
req GET "$list?cursor=$cursor" "" "${auth[@]}"
expect_status 200
expect_json '[.data.items[].id] | join(",")' "$(IFS=,; echo "${arts[*]:4:2}")"
expect_json .meta.next_cursor null
check artifacts_page_stops_once_past_4_mib_and_continues_by_cursor

req GET "$list?limit=2" "" "${auth[@]}"
expect_json '.data.items | length' 2
expect_json_match .meta.next_cursor '^[A-Za-z0-9_-]+$'
check artifacts_limit_applies_before_the_budget

# --- JSON, not stored bytes: an envelope of quotes is 2 MiB of JSON -------------------------
flow_user
auth=(-H "Authorization: Bearer $WEB_TOKEN")
list="/v1/pouches/$POUCH/artifacts"
qarts=()
ops=()
for _ in 1 2 3; do
    a=$(flow_uuid)
    qarts+=("$a")
    ops+=("$(big_op "$quotes" "$a" "$(flow_uuid)" null)")
done
flow_commit "$WEB_TOKEN" "$POUCH" "$EPOCH" "${ops[@]}"
req GET "$list" "" "${auth[@]}"
expect_status 200
expect_json '[.data.items[].id] | join(",")' "$(IFS=,; echo "${qarts[*]:0:2}")"
expect_json '.data.items[1].head.envelope | test("^\"+$")' true
expect_json '.data.items[1].head.envelope | length' $MiB
req GET "$list?cursor=$(json .meta.next_cursor)" "" "${auth[@]}"
expect_json '[.data.items[].id] | join(",")' "${qarts[2]}"
expect_json .meta.next_cursor null
check artifacts_budget_counts_json_bytes_not_stored_bytes

# --- revision history: one artifact, five revisions of 1 MiB in one commit ------------------
X=$(flow_uuid)
revs=()
ops=()
base=null
for _ in 1 2 3 4 5; do
    r=$(flow_uuid)
    revs=("$r" "${revs[@]}")  # newest first
    ops+=("$(big_op "$plain" "$X" "$r" "$base")")
    base=$r
done
flow_commit "$WEB_TOKEN" "$POUCH" "$EPOCH" "${ops[@]}"
expect_status 200
history="/v1/pouches/$POUCH/artifacts/$X/revisions"
req GET "$history" "" "${auth[@]}"
expect_status 200
expect_json '[.data.items[].id] | join(",")' "$(IFS=,; echo "${revs[*]:0:4}")"
expect_json_match .meta.next_cursor '^[A-Za-z0-9_-]+$'
req GET "$history?cursor=$(json .meta.next_cursor)" "" "${auth[@]}"
expect_json '[.data.items[].id] | join(",")' "${revs[4]}"
expect_json .meta.next_cursor null
check revisions_page_stops_once_past_4_mib_and_continues_by_cursor

smoke_done
