# scenarios.sh -- what `make test-cluster` does to the cluster of tests/cluster/run.sh, in one
# function (cluster_scenarios) sourced after the smoke helpers: a steady CLI-path commit load
# and parked events long-polls run throughout while
#   (a) every process of handler host 1 is killed (-9): nginx moves requests to host 2, and
#       blobs uploaded through host 1 download through host 2; then host 1 comes back and
#       takes requests again;
#   (s) radosgw is killed (-9) under a blob upload and commit load (blob_load.py): uploads
#       answer 503 `unavailable` with Retry-After meanwhile, the retried ones succeed once it
#       is back, and no revision names a blob missing from the bucket, no blob is counted
#       twice (skipped with POUCH_CLUSTER_BLOBS=dir);
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
# blob_put_host I ID: nginx passed the upload of blob ID to host I (its access log).
blob_put_host() {
    grep -F "\"method\":\"PUT\",\"uri\":\"/v1/pouches/$POLL_POUCH/blobs/$2\"" "$STACK_DIR/log/nginx-access.log" |
        grep -qF "\"upstream\":\"${NET_HOST_ADDRS[$1 - 1]}:"
}

# blobs_upload: blobs uploaded by the polls' web user until nginx has passed at least two
# uploads to each host (at most 24); their ids in BLOB_IDS, the host of each in BLOB_HOSTS,
# their bytes in SMOKE_TMP/blob-<i>.
blobs_upload() {
    local i id size on1=0 on2=0
    BLOB_IDS=() BLOB_HOSTS=()
    for ((i = 0; i < 24 && (on1 < 2 || on2 < 2); i++)); do
        size=$((1000 + i * 4099))
        head -c "$size" /dev/urandom >"$SMOKE_TMP/blob-$i"
        id=$(b3sum --raw "$SMOKE_TMP/blob-$i" | basenc --base64url | tr -d '=')
        WEB_TOKEN=$POLL_TOKEN web_req POST "/v1/pouches/$POLL_POUCH/blobs/check" \
            "{\"blobs\":[{\"id\":\"$id\",\"stored_size\":$size}]}"
        expect_status 200
        req PUT "/v1/pouches/$POLL_POUCH/blobs/$id" "@$SMOKE_TMP/blob-$i" \
            -H 'Content-Type: application/octet-stream' -H "Authorization: Bearer $POLL_TOKEN"
        expect_status 201
        BLOB_IDS+=("$id")
        if blob_put_host 1 "$id"; then
            BLOB_HOSTS+=(1) on1=$((on1 + 1))
        elif blob_put_host 2 "$id"; then
            BLOB_HOSTS+=(2) on2=$((on2 + 1))
        else
            BLOB_HOSTS+=(0)
        fi
    done
    expect_true "uploads passed to host 1: $on1, to host 2: $on2 (want 2 each)" test "$on1" -ge 2 -a "$on2" -ge 2
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

# host_blob_files: regular files in the hosts' own blob directories (with Ceph: none may be
# left there, every blob is in the bucket).
host_blob_files() { find "$STACK_DIR"/h*/blobs -type f 2>/dev/null | wc -l; }

# store_check [LOAD DIR]: blob_load.py check of the bucket and the database; sets STORE_REPORT.
store_check() {
    STORE_REPORT=$(python3 tests/cluster/blob_load.py check "${1:-}" "$POUCH_DATABASE_URL" 2>"$STACK_DIR/log/store-check.err") || true
    [[ -n $STORE_REPORT ]] || STORE_REPORT=$(jq -nc --arg e "$(tail -n 3 "$STACK_DIR/log/store-check.err")" '{problem_count: 1, problems: [$e]}')
}
store_report() { jq -r "$1" <<<"$STORE_REPORT"; }

# --- the object store lost under load --------------------------------------------------------
blob_reqs() { echo "$BLOB_LOAD_DIR/requests.jsonl"; }

# blob_answers KIND A B [JQ FILTER]: {"what": count} of the blob load's requests of KIND sent
# at or after A and answered by B, among those the filter keeps.
blob_answers() {
    jq -sc --arg k "$1" --argjson a "$2" --argjson b "$3" \
        "[.[] | select(.kind == \$k and .w0 >= \$a and .w1 <= \$b) | select(${4:-true})] | group_by(.what) | map({key: .[0].what, value: length}) | from_entries" "$(blob_reqs)"
}

store_loss() {
    local t_pre t_kill t_back t_up during before after first_up no_ra status retried unfinished i
    BLOB_LOAD_DIR=$STACK_DIR/load-blobs
    mkdir -p "$BLOB_LOAD_DIR"
    python3 tests/cluster/blob_load.py run "$POUCH_URL" "$BLOB_LOAD_DIR" --workers 4 --users 2 \
        >"$BLOB_LOAD_DIR/run.log" 2>&1 &
    BLOB_LOAD_PID=$!
    retry 60 test -e "$BLOB_LOAD_DIR/ready" || { smoke_fail "blob_load.py did not start: $(tail -n 3 "$BLOB_LOAD_DIR/run.log")"; return 1; }
    sleep 4
    # The outage lies between t_pre (kill-rgw starts) and t_kill (it returned: radosgw is gone;
    # the script itself takes a moment).
    t_pre=$(now_s)
    tools/stack/ceph.sh kill-rgw "$CLUSTER_CEPH" 2>>"$STACK_DIR/log/ceph.log"
    t_kill=$(now_s)
    sleep 8
    t_back=$(now_s)
    tools/stack/ceph.sh start-rgw "$CLUSTER_CEPH" 2>>"$STACK_DIR/log/ceph.log" ||
        smoke_fail "radosgw did not start again: $(tail -n 3 "$STACK_DIR/log/ceph.log")"
    t_up=$(now_s)
    sleep 6
    touch "$BLOB_LOAD_DIR/stop"
    status=0
    wait "$BLOB_LOAD_PID" || status=$?
    BLOB_LOAD_PID=0
    expect_true "blob_load.py run exited with $status: $(tail -n 3 "$BLOB_LOAD_DIR/run.log")" test "$status" = 0

    before=$(blob_answers put 0 "$t_pre" '.new')
    # Uploads sent after the kill and answered before the restart began.
    during=$(blob_answers put "$t_kill" "$t_back" '.new')
    after=$(blob_answers put "$t_up" 1e12 '.new')
    expect_true "new blobs' uploads before the kill: $before (want only 201)" \
        bash -c "[[ \$(jq -r 'keys | join(\",\")' <<<'$before') == 201 ]]"
    expect_true "new blobs' uploads while radosgw is gone: $during (want only 503:unavailable)" \
        bash -c "[[ \$(jq -r 'keys | join(\",\")' <<<'$during') == 503:unavailable ]]"
    no_ra=$(jq -s '[.[] | select(.status == 503 and (.retry_after // "") == "")] | length' "$(blob_reqs)")
    expect_true "503 answers without Retry-After: $no_ra" test "$no_ra" = 0
    check uploads_answer_503_unavailable_with_retry_after_while_the_store_is_gone

    first_up=$(jq -s --argjson t "$t_up" '[.[] | select(.kind == "put" and .new and .status == 201 and .w0 >= $t) | .w1 - $t] | min // 99' "$(blob_reqs)")
    expect_true "new blobs' uploads since radosgw is back: $after (want 201 only)" \
        bash -c "[[ \$(jq -r 'keys | join(\",\")' <<<'$after') == 201 ]]"
    expect_true "first upload stored ${first_up} s after radosgw answered again (want < 3)" lt "$first_up" 3
    # Every blob whose upload was refused was uploaded by a retry, and committed.
    retried=$(jq -s '[.[] | select(.kind == "put" and .status == 503) | .blob] | unique' "$(blob_reqs)")
    unfinished=$(jq -n --argjson r "$retried" --slurpfile s "$BLOB_LOAD_DIR/state.json" \
        '$r - [$s[0].finished[].id] | length')
    expect_true "blobs refused with 503: $(jq length <<<"$retried"), not uploaded later: $unfinished" \
        test "$(jq length <<<"$retried")" -gt 0 -a "$unfinished" = 0
    check retried_uploads_succeed_once_the_store_is_back

    store_check "$BLOB_LOAD_DIR"
    expect_true "store problems: $(store_report '.problems | join("; ")')" test "$(store_report .problem_count)" = 0
    expect_true "load: $(store_report '"\(.load_blobs_finished) blobs (\(.load_blobs_distinct) distinct), \(.load_commits_applied) commits applied"')" \
        test "$(store_report .load_commits_applied)" -gt 0
    check no_revision_names_a_missing_object_and_no_blob_is_counted_twice
    local all_500
    all_500=$(jq -s '[.[] | select(.status >= 500 and .status != 503)] | length' "$(blob_reqs)")
    expect_true "blob load answers other than 503 among the 5xx: $all_500" test "$all_500" = 0

    # A sample of the load's blobs download through nginx with the bytes that hash to their id.
    local n ok=0 tok pouch id
    n=$(jq '.finished | length' "$BLOB_LOAD_DIR/state.json")
    for ((i = 0; i < n && i < 8; i++)); do
        id=$(jq -r ".finished[$i].id" "$BLOB_LOAD_DIR/state.json")
        tok=$(jq -r ".users[.finished[$i].user].token" "$BLOB_LOAD_DIR/state.json")
        pouch=$(jq -r ".users[.finished[$i].user].pouch" "$BLOB_LOAD_DIR/state.json")
        [[ $(curl -sS --max-time 10 -H "Authorization: Bearer $tok" "$POUCH_URL/v1/pouches/$pouch/blobs/$id" |
            b3sum --raw | basenc --base64url | tr -d '=') == "$id" ]] && ok=$((ok + 1))
    done
    expect_true "load blobs downloaded with their bytes: $ok of $((n < 8 ? n : 8))" test "$ok" = "$((n < 8 ? n : 8))" -a "$ok" -gt 0
    check blobs_uploaded_around_the_outage_download_intact

    STORE_FIGURES=$(jq -nc --argjson b "$before" --argjson d "$during" --argjson a "$after" \
        --argjson f "$first_up" --argjson r "$(jq length <<<"$retried")" --argjson s "$STORE_REPORT" \
        --argjson c "$(blob_answers commit "$t_kill" "$t_back")" \
        '{uploads_before: $b, uploads_while_gone: $d, uploads_after: $a, first_upload_after_restart_s: $f,
          blobs_refused_then_uploaded: $r, commits_while_gone: $c, store: ($s | del(.problems))}')
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
    blobs_upload
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
    if [[ $CLUSTER_BLOBS == ceph ]]; then
        store_check
        expect_true "every blob row has its object in the bucket: $(store_report '"\(.blob_rows) rows, \(.blob_objects) objects; \(.problems | join("; "))"')" \
            test "$(store_report .problem_count)" = 0 -a "$(store_report .blob_objects)" -ge "${#BLOB_IDS[@]}"
        expect_true "the hosts' own blob directories hold no file: $(host_blob_files)" test "$(host_blob_files)" = 0
    fi
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

    # (s) ------------------------------------------------------------------------------------
    echo "=== cluster/store_loss"
    if [[ $CLUSTER_BLOBS == ceph ]]; then
        store_loss || return 1
        figure store_loss "${STORE_FIGURES:-null}"
    else
        echo "  (skipped: POUCH_CLUSTER_BLOBS=dir, no object store)"
    fi

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
