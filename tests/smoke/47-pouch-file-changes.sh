#!/usr/bin/env bash
# 47-pouch-file-changes.sh -- a pouch's `file_changes` (sql/013): the revision events of its log,
# what a person calls changes. Commits count each applied op; a refused op, a roster or key
# event counts nothing; `pouchctl pouch reset-epoch` (old events deleted, history replayed)
# leaves it equal to the revisions; the list and the single pouch agree with the stored rows.
# Relies on lib.sh and flows.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

flow_user
revision_events() { sql "SELECT count(*) FROM events WHERE pouch_id = '$POUCH' AND kind = 'revision'"; }
# changes N: the pouch, listed and alone, and its column say N, equal to its revision events.
changes() {
    web_req GET "/v1/pouches/$POUCH"
    expect_status 200
    expect_json .data.file_changes "$1"
    web_req GET /v1/pouches
    expect_json ".data.items[] | select(.id == \"$POUCH\") | .file_changes" "$1"
    expect_true "column = revision events = $1" \
        test "$(sql "SELECT file_changes FROM pouches WHERE id = '$POUCH'")|$(revision_events)" = "$1|$1"
}

changes 0
check a_new_pouch_has_no_file_changes

read -r a1 r1 < <(flow_put_new "$WEB_TOKEN" "$POUCH" "$EPOCH" "$WEB_MEMBER" env-1)
a2=$(flow_uuid) r2=$(flow_uuid) a3=$(flow_uuid) r3=$(flow_uuid)
flow_commit "$WEB_TOKEN" "$POUCH" "$EPOCH" "$(flow_op put "$a2" "$r2" null env-2 "$WEB_MEMBER")" \
    "$(flow_op put "$a3" "$r3" null env-3 "$WEB_MEMBER")"
changes 3
flow_commit "$WEB_TOKEN" "$POUCH" "$EPOCH" "$(flow_op delete "$a1" "$(flow_uuid)" "$r1" del "$WEB_MEMBER")"
changes 4
check each_applied_op_is_one_file_change_deletes_included

# A stale base is refused: nothing stored, nothing counted.
jq -nc --arg o "$(flow_uuid)" --arg e "$EPOCH" --argjson op "$(flow_op put "$a2" "$(flow_uuid)" "$(flow_uuid)" stale "$WEB_MEMBER")" \
    '{operation_id:$o, epoch:$e, ops:[$op]}' >"$SMOKE_TMP/stale.json"
web_req POST "/v1/pouches/$POUCH/operations" "@$SMOKE_TMP/stale.json"
expect_status 200
expect_true "the op was not applied" test "$(json '.data.results[0].status')" != applied
changes 4
check a_refused_op_is_no_file_change

# Roster and key events share the log (high_water) but are no file changes.
hw=$(sql "SELECT high_water FROM pouches WHERE id = '$POUCH'")
sql "INSERT INTO events (pouch_id, epoch, seq, kind, key_gen) VALUES
     ('$POUCH', '$EPOCH', $((hw + 1)), 'key_rotation', 2), ('$POUCH', '$EPOCH', $((hw + 2)), 'roster', 2)" >/dev/null
sql "UPDATE pouches SET high_water = $((hw + 2)) WHERE id = '$POUCH'" >/dev/null
changes 4
web_req GET "/v1/pouches/$POUCH"
expect_json .data.high_water $((hw + 2))
check key_and_roster_events_are_not_file_changes

"$POUCHCTL" pouch reset-epoch "$POUCH" >/dev/null
expect_true "revisions kept: $(sql "SELECT count(*) FROM revisions WHERE pouch_id = '$POUCH'")" \
    test "$(sql "SELECT count(*) FROM revisions WHERE pouch_id = '$POUCH'")" = 4
changes 4
check a_rebuilt_log_keeps_the_count

smoke_done
