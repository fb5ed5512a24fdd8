#!/usr/bin/env bash
# 46-events-inline.sh -- the events extension (docs/SYNC.md "Following the event log"): every
# event carries key_gen, a revision event its Revision while the page's revisions fit the
# 1 MiB inline budget of stored bytes (at the budget inlined, one byte past null), and the
# fields the contract fixes stay as they are. Relies on lib.sh and flows.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

BUDGET=1048576
flow_user
auth=(-H "Authorization: Bearer $WEB_TOKEN")
events="/v1/pouches/$POUCH/events"

# chars N: N b64url characters (an opaque envelope of exactly N bytes).
chars() { head -c "$1" /dev/zero | tr '\0' 'A'; }
# put_sized N: one new artifact whose revision stores exactly N bytes (envelope + a signature
# of 86 characters, flow_b64 64); prints "artifact revision". The envelope goes through a file.
put_sized() {
    local a r f=$SMOKE_TMP/env-$1
    a=$(flow_uuid)
    r=$(flow_uuid)
    chars $(($1 - 86)) >"$f"
    jq -nc --rawfile e "$f" --arg a "$a" --arg r "$r" --arg m "$WEB_MEMBER" --arg s "$(flow_b64 64)" \
        '{type:"put", artifact_id:$a, revision_id:$r, base_revision_id:null, key_gen:1,
          envelope:$e, signature:$s, signer_member_id:$m, blob_ids:[]}' >"$f.op"
    flow_commit "$WEB_TOKEN" "$POUCH" "$EPOCH" "@$f.op" || return 1
    echo "$a $r"
}
stored() { sql "SELECT stored_size FROM revisions WHERE id = '$1'"; }

# seq 1 stores 1000 bytes, seq 2 the rest of the budget, seq 3 1001 bytes: pages after 0 and
# after 1 each sum seqs to exactly the budget and one byte past it.
read -r art1 rev1 < <(put_sized 1000)
read -r art2 rev2 < <(put_sized $((BUDGET - 1000)))
read -r art3 rev3 < <(put_sized 1001)
expect_true "the three revisions store 1000, budget - 1000 and 1001 bytes" \
    test "$(stored "$rev1"),$(stored "$rev2"),$(stored "$rev3")" = "1000,$((BUDGET - 1000)),1001"
check inline_setup_stores_revisions_of_exact_sizes

req GET "$events?epoch=$EPOCH" "" "${auth[@]}"
expect_status 200
expect_json '[.data.items[].seq] | join(",")' 1,2,3
expect_json '.data.items[0] | keys | join(",")' \
    artifact_id,created_at,device_id,key_gen,kind,revision,revision_id,seq
expect_json '[.data.items[].key_gen] | join(",")' 1,1,1
expect_json '.data.items[0].revision.id' "$rev1"
expect_json '.data.items[0].revision.artifact_id' "$art1"
expect_json '.data.items[0].revision.seq' 1
expect_json '.data.items[0].revision.kind' put
expect_json '.data.items[0].revision.stored_size' 1000
expect_json '.data.items[0].revision.envelope | length' 914
expect_json '.data.items[1].revision.id' "$rev2"
expect_json '.data.items[1].revision.envelope | length' $((BUDGET - 1000 - 86))
expect_json '.data.items[2].revision' null
expect_json '.data.items[2].revision_id' "$rev3"
check events_inline_revisions_up_to_exactly_the_budget

# The inlined Revision is the one the history answers, field for field.
inlined=$(json '.data.items[0].revision')
req GET "/v1/pouches/$POUCH/artifacts/$art1/revisions" "" "${auth[@]}"
expect_status 200
expect_true "the inlined revision equals the history's" \
    test "$(jq -S . <<<"$inlined")" = "$(json '.data.items[0]' | jq -S .)"
check events_inline_the_same_revision_object_as_the_history

req GET "$events?epoch=$EPOCH&after=1" "" "${auth[@]}"
expect_json '[.data.items[].seq] | join(",")' 2,3
expect_json '.data.items[0].revision.id' "$rev2"
expect_json '.data.items[1].revision' null
check events_one_byte_past_the_budget_are_not_inlined

req GET "$events?epoch=$EPOCH&after=2" "" "${auth[@]}"
expect_json '.data.items[0].revision.id' "$rev3"
req GET "$events?epoch=$EPOCH&after=1&limit=1" "" "${auth[@]}"
expect_json '.data.items[0].revision.id' "$rev2"
check events_budget_counts_from_the_first_event_of_the_page

# A revision of more than the budget on its own (a 1 MiB envelope and its signature) is never
# inlined; the event still names it.
read -r _ rev4 < <(put_sized $((BUDGET + 1)))
req GET "$events?epoch=$EPOCH&after=3" "" "${auth[@]}"
expect_json '.data.items[0].revision_id' "$rev4"
expect_json '.data.items[0].revision' null
expect_json '.data.items[0].key_gen' 1
check events_a_revision_over_the_budget_alone_is_not_inlined

# --- a key_rotation event carries the new key_gen -------------------------------------------
env2=$(jq -nc --arg p "$POUCH" --arg m "$WEB_MEMBER" --arg h "$(flow_b64 65)" \
    --arg c "$(flow_b64 48)" --arg s "$(flow_b64 64)" \
    '{pouch_id:$p, member_id:$m, key_gen:2, hpke_enc:$h, ciphertext:$c, created_by_member:$m, signature:$s}')
web_req POST "/v1/pouches/$POUCH/key-envelopes" "$(jq -c '{key_envelopes:[.]}' <<<"$env2")"
expect_status 200
req GET "$events?epoch=$EPOCH&after=4" "" "${auth[@]}"
expect_json '[.data.items[].kind] | join(",")' key_rotation
expect_json '.data.items[0].key_gen' 2
expect_json '.data.items[0].artifact_id' null
expect_json '.data.items[0] | keys | join(",")' artifact_id,created_at,device_id,key_gen,kind,revision_id,seq
expect_true "the event row records key_gen 2" \
    test "$(sql "SELECT key_gen FROM events WHERE pouch_id = '$POUCH' AND seq = 5")" = 2
check events_key_rotation_carries_the_new_key_gen

# An event written before the column existed (key_gen NULL) answers null.
sql "UPDATE events SET key_gen = NULL WHERE pouch_id = '$POUCH' AND seq = 5" >/dev/null
req GET "$events?epoch=$EPOCH&after=4" "" "${auth[@]}"
expect_json '.data.items[0].key_gen' null
check events_without_a_recorded_key_gen_answer_null

smoke_done
