# scenarios.sh -- what `make test-cluster` does to the cluster of tests/cluster/run.sh, in one
# function (cluster_scenarios) sourced after the smoke helpers: a steady CLI-path commit load
# and parked events long-polls run throughout while
#   (a) every process of handler host 1 is killed (-9): nginx moves requests to host 2; then
#       host 1 comes back and takes requests again;
#   (b) the PostgreSQL primary (its keeper, postmaster and backends) is killed (-9):
#       pg_auto_failover promotes the standby, requests answer 503 `unavailable` during the
#       switch and succeed afterwards with the same handler processes;
#   (c) the old primary's keeper starts again and it rejoins as the synchronous standby;
# then the loads stop and are settled and checked: every op answered `applied` stored once
# with its seq, seqs gap-free, exactly-once retries, no long-poll past its wait.
# shellcheck shell=bash

FIGURES="{}"
# figure KEY JSON: adds one figure to the FIGURES line.
figure() { FIGURES=$(jq -c --arg k "$1" --argjson v "$2" '. + {($k): $v}' <<<"$FIGURES"); }

now_s() { date +%s.%N; }
reqs() { echo "$LOAD_DIR/requests.jsonl"; }

# ops_counted I: the sync handler of host I's count of answered commits (every status), from
# its metrics through nginx's internal metrics server.
ops_counted() {
    curl -sS --max-time 5 "$POUCH_METRICS_URL/metrics/sync/${NET_HOST_ADDRS[$1 - 1]}" 2>/dev/null |
        awk 'index($0, "pouch_http_requests_total{group=\"sync\",method=\"POST\",route=\"/v1/pouches/{pouchId:uuid}/operations\"") == 1 { n += $NF } END { print n + 0 }'
}

# answers_between A B [FILTER]: {"what": count} of the commit load's requests sent at or after
# A and answered by B (epoch seconds).
answers_between() {
    jq -sc --argjson a "$1" --argjson b "$2" \
        '[.[] | select(.w0 >= $a and .w1 <= $b)] | group_by(.what) | map({key: .[0].what, value: length}) | from_entries' "$(reqs)"
}

# first_applied_after T: seconds from T to the first applied commit sent after T (99: none).
first_applied_after() {
    jq -s --argjson t "$1" '[.[] | select(.w0 >= $t and .status == 200) | .w1 - $t] | min // 99' "$(reqs)"
}

# redis_reached I: host I's sync and cliauth handlers report no Redis fallback.
redis_reached() {
    local g out
    for g in sync cliauth; do
        out=$(curl -sS --max-time 5 "$POUCH_METRICS_URL/metrics/$g/${NET_HOST_ADDRS[$1 - 1]}" 2>/dev/null)
        grep -q "^pouch_redis_fallback_active{group=\"$g\"} 0$" <<<"$out" || return 1
    done
}

# host_counted_commits I: host I's sync handler has answered at least one commit.
host_counted_commits() { (($(ops_counted "$1") > 0)); }

lt() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a < b) }'; }

# --- the loads ------------------------------------------------------------------------------
loads_start() {
    LOAD_DIR=$STACK_DIR/load-cli
    POLL_DIR=$STACK_DIR/load-poll
    mkdir -p "$LOAD_DIR" "$POLL_DIR"
    python3 tests/faults/cli_load.py run "$POUCH_URL" "$LOAD_DIR" "$POUCHCTL" --workers 4 --pouches 2 \
        >"$LOAD_DIR/run.log" 2>&1 &
    LOAD_PID=$!
    # The long-polls wait on a pouch of their own, which only their waker commits to.
    flow_user polls
    POLL_TOKEN=$WEB_TOKEN POLL_POUCH=$POUCH POLL_EPOCH=$EPOCH POLL_MEMBER=$WEB_MEMBER
    python3 tests/cluster/longpoll.py run "$POUCH_URL" "$POLL_DIR" --token "$POLL_TOKEN" \
        --pouch "$POLL_POUCH" --epoch "$POLL_EPOCH" --member "$POLL_MEMBER" --pollers 6 --wait 8 \
        >"$POLL_DIR/run.log" 2>&1 &
    POLL_PID=$!
    retry 120 test -e "$LOAD_DIR/ready" || { smoke_fail "cli_load.py did not start: $(tail -n 3 "$LOAD_DIR/run.log")"; return 1; }
    retry 30 test -e "$POLL_DIR/ready" || { smoke_fail "longpoll.py did not start: $(tail -n 3 "$POLL_DIR/run.log")"; return 1; }
}

# loads_stop: ends both loads, settles the commit load (cli_load.py settle: retries, database
# checks) and reports the long-polls; sets LOAD_REPORT and POLL_REPORT.
loads_stop() {
    local status=0
    touch "$LOAD_DIR/stop" "$POLL_DIR/stop"
    wait "$LOAD_PID" || status=$?
    LOAD_PID=0
    wait "$POLL_PID" || true
    POLL_PID=0
    if ((status != 0)); then
        smoke_fail "cli_load.py run exited with $status: $(tail -n 3 "$LOAD_DIR/run.log")"
        LOAD_REPORT="{}"
    else
        LOAD_REPORT=$(python3 tests/faults/cli_load.py settle "$POUCH_URL" "$LOAD_DIR" \
            "$POUCH_DATABASE_URL" "$POUCHCTL" 2>"$LOAD_DIR/settle.err") || true
        [[ -n $LOAD_REPORT ]] || LOAD_REPORT="{}"
    fi
    POLL_REPORT=$(python3 tests/cluster/longpoll.py report "$POLL_DIR" --wait 8) || POLL_REPORT="{}"
}
report() { jq -r "$1" <<<"$LOAD_REPORT"; }
poll_report() { jq -r "$1" <<<"$POLL_REPORT"; }

# --- shared blobs ----------------------------------------------------------------------------
# blobs_upload N: N blobs uploaded by the polls' web user (nginx spreads the uploads over both
# hosts); their ids in BLOB_IDS, their bytes in SMOKE_TMP/blob-<i>.
blobs_upload() {
    local i id items='[]'
    BLOB_IDS=()
    for ((i = 0; i < $1; i++)); do
        head -c $((1000 + i)) /dev/urandom >"$SMOKE_TMP/blob-$i"
        id=$(b3sum --raw "$SMOKE_TMP/blob-$i" | basenc --base64url | tr -d '=')
        BLOB_IDS+=("$id")
        items=$(jq -c --arg id "$id" --argjson n $((1000 + i)) '. + [{id:$id, stored_size:$n}]' <<<"$items")
    done
    WEB_TOKEN=$POLL_TOKEN web_req POST "/v1/pouches/$POLL_POUCH/blobs/check" "{\"blobs\":$items}"
    expect_status 200
    for ((i = 0; i < $1; i++)); do
        req PUT "/v1/pouches/$POLL_POUCH/blobs/${BLOB_IDS[i]}" "@$SMOKE_TMP/blob-$i" \
            -H 'Content-Type: application/octet-stream' -H "Authorization: Bearer $POLL_TOKEN"
        expect_status 201
    done
}

# blobs_download_match: every uploaded blob downloads through nginx with its exact bytes.
blobs_download_match() {
    local i ok=0
    for ((i = 0; i < ${#BLOB_IDS[@]}; i++)); do
        curl -sS -o "$SMOKE_TMP/got-$i" --max-time 10 -H "Authorization: Bearer $POLL_TOKEN" \
            "$POUCH_URL/v1/pouches/$POLL_POUCH/blobs/${BLOB_IDS[i]}" &&
            cmp -s "$SMOKE_TMP/got-$i" "$SMOKE_TMP/blob-$i" && ok=$((ok + 1))
    done
    [[ $ok == "${#BLOB_IDS[@]}" ]]
}

# --- a commit cut off in flight ----------------------------------------------------------------
# The host that holds a CLI commit (its backend waits for the pouch row, which a psql session
# holds) dies; nginx passes the commit to the other host (non_idempotent on the operations
# route). That host has seen the proof's jti in the shared replay cache, so it refuses the
# proof; the client retries with a fresh proof and the same operation_id, and the commit is
# applied exactly once. Sets CUT_FIGURES.
commit_cut_off_in_flight() {
    local op body sig proof lock_pid curl_pid addr i victim=0 first rev seq
    flow_user cut || return 1
    flow_device cutcli || return 1
    op=$(flow_op put "$(flow_uuid)" "$(flow_uuid)" null "cut-$(flow_uuid)" "$DEVICE_MEMBER")
    rev=$(jq -r .revision_id <<<"$op")
    body=$(jq -nc --arg o "$(flow_uuid)" --arg e "$EPOCH" --argjson op "$op" '{operation_id:$o, epoch:$e, ops:[$op]}')
    sig=$("$POUCHCTL" sign-body --key "$DEVICE_KEY" <<<"$body")
    psql "$POUCH_DATABASE_URL" -XqAt -c "BEGIN" -c "SELECT 1 FROM pouches WHERE id = '$POUCH' FOR UPDATE" \
        -c "SELECT pg_sleep(4)" -c "COMMIT" >/dev/null 2>&1 &
    lock_pid=$!
    sleep 0.5
    proof=$(flow_dpop "$DEVICE_KEY" POST "/v1/pouches/$POUCH/operations" "$ACCESS")
    curl -sS -o "$SMOKE_TMP/cut.body" -w '%{http_code}' --max-time 20 -X POST \
        -H 'Content-Type: application/json' -H "Authorization: DPoP $ACCESS" -H "DPoP: $proof" \
        -H "Service-Signature: $sig" --data-binary "$body" \
        "$POUCH_URL/v1/pouches/$POUCH/operations" >"$SMOKE_TMP/cut.status" 2>/dev/null &
    curl_pid=$!
    for ((i = 0; i < 50 && victim == 0; i++)); do
        addr=$(sql "SELECT host(client_addr) FROM pg_stat_activity WHERE datname = 'pouch'
                    AND wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE%' LIMIT 1")
        [[ $addr == "${NET_HOST_ADDRS[0]}" ]] && victim=1
        [[ $addr == "${NET_HOST_ADDRS[1]}" ]] && victim=2
        ((victim)) || sleep 0.1
    done
    if ((victim == 0)); then
        smoke_fail "no handler host waited for the held pouch row"
        wait "$curl_pid" "$lock_pid"
        return 0
    fi
    host_kill "$victim"
    wait "$curl_pid" || true
    first="$(cat "$SMOKE_TMP/cut.status"):$(jq -r '.error.code // .data.results[0].status' "$SMOKE_TMP/cut.body" 2>/dev/null)"
    wait "$lock_pid" || true
    local passed_on
    passed_on=$(grep -c "\"uri\":\"/v1/pouches/$POUCH/operations\".*\"upstream\":\"${NET_HOST_ADDRS[victim - 1]}:9104, " \
        "$STACK_DIR/log/nginx-access.log" || true)
    expect_true "nginx passed the cut-off commit to the other host ($passed_on)" test "$passed_on" = 1
    expect_true "the other host refused the proof already seen: $first" test "$first" = "401:invalid_dpop_proof"
    # The client's retry: same body, fresh proof and signature.
    cli_req POST "/v1/pouches/$POUCH/operations" "$body" -H "Service-Signature: $("$POUCHCTL" sign-body --key "$DEVICE_KEY" <<<"$body")"
    expect_status 200
    expect_json '.data.results[0].status' applied
    seq=$(json '.data.results[0].seq')
    cli_req POST "/v1/pouches/$POUCH/operations" "$body" -H "Service-Signature: $("$POUCHCTL" sign-body --key "$DEVICE_KEY" <<<"$body")"
    expect_json '.data.results[0].seq' "$seq"
    expect_true "stored once with seq $seq" \
        test "$(sql "SELECT count(*) || ':' || max(seq) FROM revisions WHERE pouch_id = '$POUCH' AND id = '$rev'")" = "1:$seq"
    check commit_cut_off_on_a_dying_host_is_applied_exactly_once_after_the_client_retries
    host_start "$victim"
    CUT_FIGURES=$(jq -nc --arg f "$first" --argjson v "$victim" '{killed_host: $v, answer_through_nginx: $f, client_retry: "200 applied, once"}')
}

# --- the scenarios ----------------------------------------------------------------------------
cluster_scenarios() {
    local before1 before2 after1 after2 t_kill t_back t_promoted t_rejoined during pids_before
    local sync_state

    echo "=== cluster/steady"
    loads_start || return 1
    sleep 3
    before1=$(ops_counted 1) before2=$(ops_counted 2)
    sleep 3
    after1=$(ops_counted 1) after2=$(ops_counted 2)
    expect_true "host 1 counted commits: $before1 -> $after1 (want a rise)" test "$after1" -gt "$before1"
    expect_true "host 2 counted commits: $before2 -> $after2 (want a rise)" test "$after2" -gt "$before2"
    check both_hosts_serve_commits_and_their_metrics_counters_move_under_load
    local i
    for i in 1 2; do
        expect_true "host $i reaches Redis (no database fallback)" retry 10 redis_reached "$i"
    done
    check both_hosts_use_the_shared_redis
    blobs_upload 4
    check blobs_upload_through_both_hosts

    # (a) ------------------------------------------------------------------------------------
    echo "=== cluster/host_loss"
    before2=$(ops_counted 2)
    t_kill=$(now_s)
    host_kill 1
    expect_true "host 1 has no process left" test -z "$(net_pids "${NET_NAMESPACES[0]}")"
    sleep 8
    t_back=$(now_s)
    after2=$(ops_counted 2)
    local failed_a applied_a
    during=$(answers_between "$t_kill" "$t_back")
    applied_a=$(jq -r '."200" // 0' <<<"$during")
    failed_a=$(jq -r '[to_entries[] | select(.key != "200") | .value] | add // 0' <<<"$during")
    expect_true "commits applied while host 1 is gone: $applied_a (answers: $during)" test "$applied_a" -gt 0
    expect_true "host 2 counted them: $before2 -> $after2" test "$after2" -gt "$before2"
    expect_true "no 500 while host 1 is gone: $during" \
        test "$(jq -r '[keys[] | select(startswith("500"))] | length' <<<"$during")" = 0
    check commits_move_to_host_2_when_host_1_dies
    expect_true "blobs uploaded through either host download while host 1 is gone" blobs_download_match
    check blobs_live_on_storage_every_host_reads
    # nginx passes a commit cut off by the kill to host 2 ("<host1>, <host2>" in the log).
    # Why nginx left host 1: refused connections (it was gone) or requests cut off in flight.
    local retried_by_nginx refused cut
    retried_by_nginx=$(grep -c "\"upstream\":\"${NET_HOST_ADDRS[0]}:9104, ${NET_HOST_ADDRS[1]}:9104\"" \
        "$STACK_DIR/log/nginx-access.log" || true)
    refused=$(grep -c "Connection refused) while connecting to upstream" "$STACK_DIR/log/nginx-error.log" || true)
    cut=$(grep -c "upstream prematurely closed connection\|Connection reset by peer) while reading" \
        "$STACK_DIR/log/nginx-error.log" || true)
    host_start 1
    # nginx tries host 1 again once its fail_timeout (5 s) has passed; its new sync process
    # counts from 0.
    expect_true "host 1 takes commits again after its restart" retry 20 host_counted_commits 1
    check host_1_takes_requests_again_after_it_returns
    figure host_loss "$(jq -nc --argjson d "$during" --argjson r "$retried_by_nginx" --argjson f "$failed_a" \
        --argjson rf "$refused" --argjson c "$cut" \
        '{answers_while_host1_gone: $d, requests_failed: $f, commits_nginx_passed_to_host2: $r,
          nginx_connects_refused_by_host1: $rf, nginx_requests_cut_off_on_host1: $c}')"

    echo "=== cluster/commit_cut_off"
    commit_cut_off_in_flight
    figure commit_cut_off "${CUT_FIGURES:-null}"

    # (b) ------------------------------------------------------------------------------------
    echo "=== cluster/primary_loss"
    expect_true "node1 is the primary: $(pgaf_states)" test "$(pgaf_primary)" = node1
    sync_state=$(pgaf_node_sql node1 "SELECT string_agg(application_name || '=' || sync_state, ',') FROM pg_stat_replication")
    expect_true "the standby replicates synchronously: $sync_state" \
        bash -c "[[ '$sync_state' =~ =(sync|quorum) ]]"
    expect_true "synchronous_commit on, fsync on" \
        test "$(pgaf_node_sql node1 "SELECT current_setting('synchronous_commit') || current_setting('fsync')")" = onon
    check acknowledged_commits_wait_for_the_synchronous_standby
    sleep 2
    pids_before="$(host_pids 1) $(host_pids 2)"
    t_kill=$(now_s)
    pgaf_kill_node node1
    retry 60 pgaf_state_is node2 wait_primary || retry 10 pgaf_state_is node2 primary ||
        smoke_fail "node2 was not promoted: $(pgaf_states)"
    t_promoted=$(now_s)
    sleep 6
    local promote_s first_s
    promote_s=$(awk -v a="$t_kill" -v b="$t_promoted" 'BEGIN { printf "%.1f", b - a }')
    during=$(answers_between "$t_kill" "$(now_s)")
    first_s=$(first_applied_after "$(awk -v t="$t_kill" 'BEGIN { printf "%.3f", t + 0.5 }')")
    expect_true "the standby was promoted ${promote_s} s after the kill (want < 30)" lt "$promote_s" 30
    expect_true "answers since the kill: $during (want only 200 and 503:unavailable)" \
        bash -c "[[ \$(jq -r 'keys | join(\",\")' <<<'$during') =~ ^(200,)?503:unavailable$ ]]"
    # The monitor shows the promotion a moment after the new primary takes writes.
    expect_true "first applied commit ${first_s} s after the kill, promotion seen at ${promote_s} s (want within 3 s of it)" \
        lt "$first_s" "$(awk -v p="$promote_s" 'BEGIN { print p + 3 }')"
    expect_true "no applied commit sent after the kill before the promotion could happen (first at ${first_s} s)" \
        lt "$(awk -v p="$promote_s" 'BEGIN { print p - 2 }')" "$first_s"
    expect_true "handler processes unchanged: before $pids_before, after $(host_pids 1) $(host_pids 2)" \
        test "$pids_before" = "$(host_pids 1) $(host_pids 2)"
    check requests_answer_503_during_the_failover_and_succeed_after_without_a_handler_restart
    local all_b
    all_b=$(answers_between "$t_kill" "$(now_s)")
    figure primary_loss "$(jq -nc --argjson d "$all_b" --argjson p "$promote_s" --argjson f "$first_s" \
        '{promoted_after_s: $p, first_applied_after_kill_s: $f, answers_from_kill_to_now: $d,
          requests_failed: ([$d | to_entries[] | select(.key != "200") | .value] | add // 0)}')"

    # (c) ------------------------------------------------------------------------------------
    echo "=== cluster/old_primary_rejoins"
    local t_start rejoin_s
    t_start=$(now_s)
    pgaf_keeper node1
    pgaf_wait_states 90 "node1:secondary:secondary node2:primary:primary" ||
        smoke_fail "node1 did not rejoin as secondary: $(pgaf_states)"
    t_rejoined=$(now_s)
    rejoin_s=$(awk -v a="$t_start" -v b="$t_rejoined" 'BEGIN { printf "%.1f", b - a }')
    sync_state=$(pgaf_node_sql node2 "SELECT string_agg(application_name || '=' || sync_state, ',') FROM pg_stat_replication")
    expect_true "node2 replicates synchronously to node1 again: $sync_state" \
        bash -c "[[ '$sync_state' =~ =(sync|quorum) ]]"
    expect_true "node1 is a standby: $(pgaf_node_sql node1 'SELECT pg_is_in_recovery()')" \
        test "$(pgaf_node_sql node1 'SELECT pg_is_in_recovery()')" = t
    check old_primary_rejoins_as_synchronous_standby
    sleep 3
    figure rejoin "$(jq -nc --argjson r "$rejoin_s" '{secondary_after_keeper_start_s: $r}')"

    # Settle and verify ----------------------------------------------------------------------
    echo "=== cluster/settle"
    loads_stop
    expect_true "ops lost: $(report .lost)" test "$(report .lost)" = 0
    expect_true "problems: $(report '.problems | join("; ")')" test "$(report .problem_count)" = 0
    expect_true "ops applied: $(report .ops_applied), stale bases refused: $(report .ops_stale_refused)" \
        test "$(report .ops_applied)" -gt 0 -a "$(report .ops_stale_refused)" -gt 0
    expect_true "no 500: $(report '.statuses | to_entries | map("\(.key)=\(.value)") | join(" ")')" \
        test "$(report '[.statuses | keys[] | select(startswith("500"))] | length')" = 0
    check every_op_answered_applied_is_stored_once_with_its_seq_and_seqs_are_gap_free

    local primary_revs
    primary_revs=$(pgaf_node_sql node2 "SELECT count(*) || ':' || coalesce(sum(seq), 0) FROM revisions")
    retry 15 bash -c "[[ \$(psql -X -q -At -h '$NET_GATEWAY' -p '${PGAF_PORT[node1]}' -U pouch -d pouch \
        -c 'SELECT count(*) || chr(58) || coalesce(sum(seq), 0) FROM revisions') == '$primary_revs' ]]" ||
        smoke_fail "the rejoined standby has $(pgaf_node_sql node1 "SELECT count(*) || ':' || coalesce(sum(seq), 0) FROM revisions"), the primary $primary_revs"
    check the_rejoined_standby_holds_every_revision

    expect_true "long-polls past their wait (+1.5 s): $(poll_report .over_wait) $(poll_report .over_wait_examples)" \
        test "$(poll_report .over_wait)" = 0
    expect_true "long-polls never answered: $(poll_report .unanswered)" test "$(poll_report .unanswered)" = 0
    expect_true "long-poll answers: $(poll_report '.statuses | to_entries | map("\(.key)=\(.value)") | join(" ")') (want 200, 502/503 unavailable)" \
        test "$(poll_report '[.statuses | keys[] | select(. != "200" and . != "502:unavailable" and . != "503:unavailable")] | length')" = 0
    expect_true "wake commits no poll returned: $(poll_report '.wakes_never_seen | length')" \
        test "$(poll_report '.wakes_never_seen | length')" = 0
    expect_true "median wake-up $(poll_report .wake_delay_median_s) s after the commit's answer, through Redis (want < 0.3)" \
        lt "$(poll_report .wake_delay_median_s)" 0.3
    check parked_long_polls_are_answered_within_their_wait_on_either_host

    figure load "$(jq -c 'del(.problems)' <<<"$LOAD_REPORT")"
    figure longpolls "$(jq -c 'del(.over_wait_examples)' <<<"$POLL_REPORT")"
    echo "FIGURES cluster $FIGURES"
}
