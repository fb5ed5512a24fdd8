#!/usr/bin/env bash
# 40-events.sh -- GET /v1/pouches/{id}/events (decisions §5.2): the page of events after a
# seq with high_water, epoch checks, query bounds, long-polls woken by a commit (through
# Redis, and by the one-second database fallback without it), long-polls holding no database
# connection, and other accounts' pouches answering 404. Relies on lib.sh and flows.sh.
set -euo pipefail
# shellcheck source=tests/smoke/lib.sh
source "$(dirname "$0")/lib.sh"
# shellcheck source=tests/smoke/flows.sh
source "$(dirname "$0")/flows.sh"

flow_user
A_TOKEN=$WEB_TOKEN A_POUCH=$POUCH A_EPOCH=$EPOCH A_MEMBER=$WEB_MEMBER
flow_user
B_TOKEN=$WEB_TOKEN
auth=(-H "Authorization: Bearer $A_TOKEN")
events="/v1/pouches/$A_POUCH/events"

# --- an empty log ---------------------------------------------------------------------------
req GET "$events?epoch=$A_EPOCH" "" "${auth[@]}"
expect_status 200
expect_json '.data.items | length' 0
expect_json .data.high_water 0
check events_of_a_new_pouch_are_empty_with_high_water_0

# --- a page of events -----------------------------------------------------------------------
read -r art1 rev1 < <(flow_put_new "$A_TOKEN" "$A_POUCH" "$A_EPOCH" "$A_MEMBER" "env-one")
read -r art2 rev2 < <(flow_put_new "$A_TOKEN" "$A_POUCH" "$A_EPOCH" "$A_MEMBER" "env-two")
read -r art3 rev3 < <(flow_put_new "$A_TOKEN" "$A_POUCH" "$A_EPOCH" "$A_MEMBER" "env-three")

req GET "$events?epoch=$A_EPOCH" "" "${auth[@]}"
expect_status 200
expect_json '[.data.items[].seq] | join(",")' 1,2,3
expect_json '[.data.items[].kind] | unique | join(",")' revision
expect_json '[.data.items[].artifact_id] | join(",")' "$art1,$art2,$art3"
expect_json '[.data.items[].revision_id] | join(",")' "$rev1,$rev2,$rev3"
expect_json '[.data.items[].device_id] | unique | join(",")' ""
expect_json '.data.items[0].device_id' null
expect_json_match '.data.items[2].created_at' '^20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$'
# The contract's fields, plus the extension's key_gen and revision (46-events-inline.sh).
expect_json '.data.items[0] | keys | join(",")' \
    artifact_id,created_at,device_id,key_gen,kind,revision,revision_id,seq
expect_json .data.high_water 3
expect_true "high_water matches the pouch row" \
    test "$(sql "SELECT high_water FROM pouches WHERE id = '$A_POUCH'")" = 3
check events_list_commits_in_seq_order_with_web_device_null

req GET "$events?epoch=$A_EPOCH&after=1" "" "${auth[@]}"
expect_json '[.data.items[].seq] | join(",")' 2,3
expect_json .data.high_water 3
req GET "$events?epoch=$A_EPOCH&after=1&limit=1" "" "${auth[@]}"
expect_json '[.data.items[].seq] | join(",")' 2
expect_json .data.high_water 3
req GET "$events?epoch=$A_EPOCH&after=3" "" "${auth[@]}"
expect_json '.data.items | length' 0
expect_json .data.high_water 3
check events_after_and_limit_select_the_page

req GET "$events?epoch=${A_EPOCH^^}&after=2" "" "${auth[@]}"
expect_status 200
expect_json '[.data.items[].seq] | join(",")' 3
check events_epoch_compares_case_insensitively

# --- epoch ----------------------------------------------------------------------------------
req GET "$events" "" "${auth[@]}"
expect_error 400 validation_failed
expect_json .error.field '?epoch'
check events_without_epoch_is_400

req GET "$events?epoch=not-a-uuid" "" "${auth[@]}"
expect_error 400 validation_failed
expect_json .error.field '?epoch'
check events_with_malformed_epoch_is_400

req GET "$events?epoch=$(flow_uuid)" "" "${auth[@]}"
expect_error 409 epoch_mismatch
expect_json .error.details.current_epoch "$A_EPOCH"
expect_json .error.details.high_water 3
check events_with_wrong_epoch_is_409_with_current_epoch_and_high_water

# --- query bounds ---------------------------------------------------------------------------
for bad in limit=0 limit=1001 limit=-1 limit=01 limit=abc after=-1 after=9007199254740992 \
    wait=31 wait=-1 "limit=1&limit=2" nope=1; do
    req GET "$events?epoch=$A_EPOCH&$bad" "" "${auth[@]}"
    expect_error 400 validation_failed
    name=${bad%%=*}
    expect_json .error.field "?$name"
done
check events_query_out_of_bounds_is_400_naming_the_parameter

req GET "$events?epoch=$A_EPOCH&limit=1" "" "${auth[@]}"
expect_status 200
expect_json '.data.items | length' 1
req GET "$events?epoch=$A_EPOCH&limit=1000&after=9007199254740991" "" "${auth[@]}"
expect_status 200
expect_json '.data.items | length' 0
req GET "$events?epoch=$A_EPOCH&limit=1000&wait=0" "" "${auth[@]}"
expect_status 200
expect_json '.data.items | length' 3
check events_limit_1_and_1000_are_accepted

# --- long-poll ------------------------------------------------------------------------------
# A waiting poll answers as soon as a commit lands: latency measured from the commit's answer.
out=$SMOKE_TMP/poll.json
(
    curl -sS --max-time 20 "${auth[@]}" -o "$out" "$POUCH_URL$events?epoch=$A_EPOCH&after=3&wait=15"
    now_ms >"$SMOKE_TMP/poll.done"
) &
poller=$!
sleep 1
expect_true "the poll is still waiting before the commit" test ! -e "$SMOKE_TMP/poll.done"
read -r _ rev4 < <(flow_put_new "$A_TOKEN" "$A_POUCH" "$A_EPOCH" "$A_MEMBER" "env-four")
committed=$(now_ms)
wait "$poller"
latency=$(($(cat "$SMOKE_TMP/poll.done") - committed))
BODY=$(cat "$out")
expect_json '[.data.items[].seq] | join(",")' 4
expect_json '.data.items[0].revision_id' "$rev4"
expect_json .data.high_water 4
expect_true "woken ${latency} ms after the commit (want < 1000)" test "$latency" -lt 1000
check events_long_poll_is_woken_by_a_commit_within_a_second

start=$(now_ms)
req GET "$events?epoch=$A_EPOCH&after=4&wait=1" "" "${auth[@]}"
elapsed=$(($(now_ms) - start))
expect_status 200
expect_json '.data.items | length' 0
expect_json .data.high_water 4
expect_true "answered after ${elapsed} ms (want 1000..3000)" \
    test "$elapsed" -ge 950 -a "$elapsed" -lt 3000
check events_long_poll_without_commits_answers_empty_after_wait

start=$(now_ms)
req GET "$events?epoch=$A_EPOCH&after=2&wait=10" "" "${auth[@]}"
elapsed=$(($(now_ms) - start))
expect_json '[.data.items[].seq] | join(",")' 3,4
expect_true "answered at once (${elapsed} ms)" test "$elapsed" -lt 1000
check events_with_wait_answers_at_once_when_events_exist

# Eight waiting polls with a pool of four connections per handler (tools/stack/lib.sh): the
# other requests of the group still get a connection, so the waits hold none.
pids=()
for i in 1 2 3 4 5 6 7 8; do
    curl -sS --max-time 20 "${auth[@]}" -o "$SMOKE_TMP/idle-$i.json" \
        "$POUCH_URL$events?epoch=$A_EPOCH&after=4&wait=4" &
    pids+=($!)
done
sleep 1
start=$(now_ms)
req GET "$events?epoch=$A_EPOCH&after=3" "" "${auth[@]}"
elapsed=$(($(now_ms) - start))
expect_status 200
expect_json '[.data.items[].seq] | join(",")' 4
expect_true "answered in ${elapsed} ms while 8 polls wait (want < 1000)" test "$elapsed" -lt 1000
wait "${pids[@]}"
for i in 1 2 3 4 5 6 7 8; do
    BODY=$(cat "$SMOKE_TMP/idle-$i.json")
    expect_json .data.high_water 4
done
check events_long_polls_hold_no_database_connection

# Without Redis the wait re-reads the database every second.
stack_redis_stop
rm -f "$SMOKE_TMP/poll.done"
(
    curl -sS --max-time 20 "${auth[@]}" -o "$out" "$POUCH_URL$events?epoch=$A_EPOCH&after=4&wait=15"
    now_ms >"$SMOKE_TMP/poll.done"
) &
poller=$!
sleep 1
read -r _ rev5 < <(flow_put_new "$A_TOKEN" "$A_POUCH" "$A_EPOCH" "$A_MEMBER" "env-five") || true
committed=$(now_ms)
wait "$poller"
stack_redis_start
latency=$(($(cat "$SMOKE_TMP/poll.done") - committed))
BODY=$(cat "$out")
expect_json '.data.items[0].seq' 5
expect_json '.data.items[0].revision_id' "$rev5"
expect_true "woken ${latency} ms after the commit without Redis (want < 2000)" \
    test "$latency" -lt 2000
check events_long_poll_without_redis_falls_back_to_database_polls

# Waiting polls are parked, not served by a thread each: three times as many waiters as the
# sync handler has threads (POUCH_THREADS 16 in tools/stack/lib.sh) leave room for the commit
# that wakes them, and every one of them gets it.
pids=()
for i in $(seq 1 48); do
    curl -sS --max-time 20 "${auth[@]}" -o "$SMOKE_TMP/parked-$i.json" \
        "$POUCH_URL$events?epoch=$A_EPOCH&after=5&wait=15" &
    pids+=($!)
done
sleep 1
start=$(now_ms)
read -r _ rev6 < <(flow_put_new "$A_TOKEN" "$A_POUCH" "$A_EPOCH" "$A_MEMBER" "env-six")
elapsed=$(($(now_ms) - start))
expect_true "commit answered in ${elapsed} ms while 48 polls wait (want < 1000)" \
    test "$elapsed" -lt 1000
wait "${pids[@]}"
woken=0
for i in $(seq 1 48); do
    [[ $(jq -r '[.data.items[].revision_id] | join(",")' "$SMOKE_TMP/parked-$i.json") == "$rev6" ]] &&
        woken=$((woken + 1))
done
expect_true "all 48 waiters got the commit (got $woken)" test "$woken" = 48
check events_long_polls_hold_no_handler_thread

# --- access ---------------------------------------------------------------------------------
req GET "$events?epoch=$A_EPOCH" "" -H "Authorization: Bearer $B_TOKEN"
expect_error 404 not_found
req GET "$events?epoch=$A_EPOCH&wait=2" "" -H "Authorization: Bearer $B_TOKEN"
expect_error 404 not_found
req GET "/v1/pouches/$(flow_uuid)/events?epoch=$A_EPOCH" "" "${auth[@]}"
expect_error 404 not_found
check events_of_another_accounts_pouch_are_404

req GET "$events?epoch=$A_EPOCH"
expect_error 401 unauthenticated
check events_without_credentials_are_401

smoke_done
