# scenarios.sh -- the fault scenarios of `make test-faults`, one function fault_NAME each,
# sourced by tests/faults/run.sh after tools/stack/lib.sh and the smoke helpers
# (tests/smoke/lib.sh, flows.sh). Each starts a commit load (load.py or cli_load.py run), injects its
# fault, stops the load, settles it (retries every op without an `applied` answer with its
# operation_id and checks the database) and reports with check lines.
# shellcheck shell=bash

LOAD_DIR=""
LOAD_REPORT="{}"

LOAD_SCRIPT=""
LOAD_EXTRA=()

# load_start NAME SCRIPT [ARG...]: a load in the background, once it runs: SCRIPT is load.py
# (the commit load) or cli_load.py (the CLI-path load: DPoP, Service-Signature, puts,
# updates, deletes, restores, stale bases, blob references; ARG is POUCHCTL). Its files go to
# FAULT_VAR/load-NAME. A load that dies or is not ready within 120 s fails the check with the
# end of its log, and returns 1.
load_start() {
    LOAD_DIR=$FAULT_VAR/load-$1
    LOAD_SCRIPT=$2
    LOAD_EXTRA=("${@:3}")
    mkdir -p "$LOAD_DIR"
    python3 "tests/faults/$LOAD_SCRIPT" run "$POUCH_URL" "$LOAD_DIR" "${LOAD_EXTRA[@]}" >"$LOAD_DIR/run.log" 2>&1 &
    LOAD_PID=$!
    # Ready, or dead (then not worth waiting for).
    retry 120 bash -c "test -e '$LOAD_DIR/ready' || ! kill -0 $LOAD_PID 2>/dev/null" || true
    if [[ ! -e $LOAD_DIR/ready ]]; then
        smoke_fail "$LOAD_SCRIPT did not start: $(tail -n 3 "$LOAD_DIR/run.log")"
        return 1
    fi
}

# load_stop: ends the load, waits for its requests in flight, settles and verifies it; sets
# LOAD_REPORT (the script's JSON report). Returns the script's status.
load_stop() {
    local status=0
    touch "$LOAD_DIR/stop"
    wait "$LOAD_PID" || status=$?
    LOAD_PID=0
    if ((status != 0)); then
        smoke_fail "$LOAD_SCRIPT run exited with $status: $(tail -n 3 "$LOAD_DIR/run.log")"
        LOAD_REPORT="{}"
        return 1
    fi
    LOAD_REPORT=$(python3 "tests/faults/$LOAD_SCRIPT" settle "$POUCH_URL" "$LOAD_DIR" "$POUCH_DATABASE_URL" \
        "${LOAD_EXTRA[@]}" 2>"$LOAD_DIR/settle.err") || status=$?
    [[ -n $LOAD_REPORT ]] || LOAD_REPORT="{}"
    return "$status"
}

# load_abort: stops a load a failed scenario left running (no checks).
load_abort() {
    if ((LOAD_PID)); then
        touch "$LOAD_DIR/stop"
        wait "$LOAD_PID" 2>/dev/null || true
        LOAD_PID=0
    fi
}

# report FILTER: jq -r FILTER of the last load report.
report() { jq -r "$1" <<<"$LOAD_REPORT"; }

# expect_settled: the load lost nothing and its database checks held.
expect_settled() {
    expect_true "ops lost: $(report .lost)" test "$(report .lost)" = 0
    expect_true "problems: $(report '.problems | join("; ")')" test "$(report .problem_count)" = 0
}

# statuses_except_applied: "what" of every request that was not applied, counted, one line.
statuses_except_applied() { report '.statuses | to_entries | map(select(.key != "applied")) | map("\(.key)=\(.value)") | join(" ")'; }

figures() { echo "FIGURES $1 $2"; }

handler_pids() {
    local g
    for g in "${STACK_HANDLERS[@]}"; do printf '%s=%s ' "$g" "$(stack_handler_pid "$g")"; done
}

now_s() { date +%s.%N; }

# pid_changed GROUP OLD_PID: the supervisor has started a new handler process.
pid_changed() {
    local p
    p=$(stack_handler_pid "$1" 2>/dev/null) || return 1
    [[ -n $p && $p != "$2" ]]
}

# --- 1. kill -9 the sync handler under load -------------------------------------------------
fault_handler_kill() {
    local kills=${POUCH_FAULT_KILLS:-10} i pid pids=() restarts
    load_start kill load.py
    sleep 2
    for ((i = 0; i < kills; i++)); do
        pid=$(stack_handler_pid sync)
        pids+=("$pid")
        kill -KILL "$pid"
        # The supervisor writes the new pid when it starts the handler (0.2..2 s later).
        retry 10 pid_changed sync "$pid" ||
            smoke_fail "kill $((i + 1)): sync was not restarted within 10 s"
        retry 10 test -S "$STACK_RUN/sync.sock"
        sleep 1.2
    done
    sleep 1
    load_stop
    restarts=$(grep -c 'supervisor: handler killed by signal 9' "$(stack_log sync)" || true)
    expect_true "restarts logged by the supervisor: $restarts, want $kills" test "$restarts" -ge "$kills"
    expect_true "distinct pids killed: $(printf '%s\n' "${pids[@]}" | sort -u | wc -l)" \
        test "$(printf '%s\n' "${pids[@]}" | sort -u | wc -l)" = "$kills"
    check sync_handler_restarted_after_every_kill_9

    expect_settled
    expect_true "requests without an applied answer: $(report .unanswered) (want some: the kills hit requests in flight)" \
        test "$(report .unanswered)" -gt 0
    check every_op_of_the_killed_handler_is_stored_exactly_once_after_retries

    expect_true "no 500: $(statuses_except_applied)" \
        test "$(report '[.statuses | keys[] | select(startswith("500"))] | length')" = 0
    check kill_9_never_answers_500
    figures handler_kill "$(jq -c --argjson k "$kills" --argjson r "$restarts" \
        '{kills:$k, restarts_logged:$r} + del(.problems)' <<<"$LOAD_REPORT")"
}

# --- 1b. kill -9 cliauth with logins parked on the token long-poll -------------------------
# Each waiting CLI loses its connection (nginx answers 502 in the JSON envelope), polls again,
# and its login completes once approved: no login is lost or redeemed twice, none hangs.
fault_cliauth_kill() {
    local n=4 i pid t_kill answered=0 waited ok=0 twice=0
    local reqs=() keys=() verifiers=() bgs=()
    flow_user logins
    for ((i = 0; i < n; i++)); do
        flow_cli_keys "parked$i"
        flow_start_login
        reqs+=("$REQ") keys+=("$DEVICE_KEY") verifiers+=("$VERIFIER")
        flow_redeem_bg "$REQ" 30 "$SMOKE_TMP/parked$i"
        bgs+=("$BG_PID")
    done
    for ((i = 0; i < n; i++)); do retry 10 flow_polling_started "${reqs[i]}"; done
    sleep 0.3
    pid=$(stack_handler_pid cliauth)
    t_kill=$(now_ms)
    kill -KILL "$pid"
    for ((i = 0; i < n; i++)); do
        wait "${bgs[i]}" || true
        [[ $(cat "$SMOKE_TMP/parked$i.status" 2>/dev/null) == 502 &&
            $(jq -r .error.code "$SMOKE_TMP/parked$i.body" 2>/dev/null) == unavailable ]] && answered=$((answered + 1))
    done
    waited=$(($(now_ms) - t_kill))
    expect_true "parked waits answered 502 unavailable when cliauth died: $answered of $n, after ${waited} ms"         test "$answered" = "$n" -a "$waited" -lt 5000
    retry 10 pid_changed cliauth "$pid" || smoke_fail "cliauth was not restarted within 10 s"
    check parked_logins_are_answered_when_cliauth_is_killed

    # The CLIs wait again (the restarted handler parks them) and their approvals wake them.
    for ((i = 0; i < n; i++)); do
        DEVICE_KEY=${keys[i]} VERIFIER=${verifiers[i]} flow_redeem_bg "${reqs[i]}" 30 "$SMOKE_TMP/again$i"
        bgs[i]=$BG_PID
    done
    for ((i = 0; i < n; i++)); do retry 10 flow_polling_started "${reqs[i]}"; done
    for ((i = 0; i < n; i++)); do flow_approve "${reqs[i]}"; done
    for ((i = 0; i < n; i++)); do
        wait "${bgs[i]}" || true
        local at
        at=$(jq -r .data.access_token "$SMOKE_TMP/again$i.body" 2>/dev/null)
        DEVICE_KEY=${keys[i]} ACCESS=$at cli_req GET /v1/devices
        [[ $STATUS == 200 ]] && ok=$((ok + 1))
        DEVICE_KEY=${keys[i]} VERIFIER=${verifiers[i]} flow_redeem "${reqs[i]}"
        [[ $STATUS == 400 && $(json .error.code) == invalid_grant ]] && twice=$((twice + 1))
    done
    expect_true "logins completed after the restart with working tokens: $ok of $n" test "$ok" = "$n"
    expect_true "a second redeem is invalid_grant: $twice of $n" test "$twice" = "$n"
    expect_true "each request redeemed once, one device each"         test "$(sql "SELECT count(*) FILTER (WHERE status = 'redeemed') || ':' || count(DISTINCT device_id) FROM cli_login_requests WHERE id IN ($(printf "'%s'," "${reqs[@]}" | sed 's/,$//'))")" = "$n:$n"
    check every_parked_login_completes_exactly_once_after_the_restart
    figures cliauth_kill "{\"parked\":$n,\"answered_502_within_ms\":$waited,\"completed\":$ok}"
}

# --- 1c. kill -9 devices while devices are revoked with roster rotations ---------------------
# A revoke cut off by the kill is retried with the same body: every device ends revoked once,
# its removal statement in the roster exactly once, its tokens refused.
fault_devices_kill() {
    local n=10 i kills=2 pid code ids=() bodies=() pending=() retried=0
    flow_user revokes
    for ((i = 0; i < n; i++)); do
        flow_device "rv$i"
        ids+=("$DEVICE_ID")
        bodies+=("$(jq -nc --arg s "removal-$DEVICE_ID" --arg g "$(flow_b64 64)" '{reason:"faults", roster:{statements:[{statement:($s | @base64 | gsub("[+/=]"; "")), signature:$g}]}}')")
    done
    (
        for ((i = 0; i < n; i++)); do
            code=$(curl -sS -o /dev/null -w '%{http_code}' --max-time 10 -X POST -H 'Content-Type: application/json' \
                -H "Authorization: Bearer $WEB_TOKEN" --data-binary "${bodies[i]}" "$POUCH_URL/v1/devices/${ids[i]}/revoke" 2>/dev/null) || code=000
            echo "$i $code" >>"$SMOKE_TMP/revokes"
            sleep 0.15
        done
    ) &
    local loop=$!
    for ((k = 0; k < kills; k++)); do
        sleep 0.5
        pid=$(stack_handler_pid devices)
        kill -KILL "$pid"
        retry 10 pid_changed devices "$pid" || smoke_fail "devices was not restarted within 10 s"
    done
    wait "$loop" || true
    for ((i = 0; i < n; i++)); do
        grep -q "^$i 200\$" "$SMOKE_TMP/revokes" || pending+=("$i")
    done
    for i in "${pending[@]}"; do
        retry 20 bash -c "[[ \$(curl -sS -o /dev/null -w '%{http_code}' -X POST -H 'Content-Type: application/json' \
            -H 'Authorization: Bearer $WEB_TOKEN' --data-binary '${bodies[i]}' '$POUCH_URL/v1/devices/${ids[i]}/revoke') == 200 ]]" ||
            smoke_fail "revoke $i never answered 200"
        retried=$((retried + 1))
    done
    local list
    list=$(printf "'%s'," "${ids[@]}" | sed 's/,$//')
    expect_true "every device revoked" test "$(sql "SELECT count(*) FROM devices WHERE id IN ($list) AND revoked_at IS NOT NULL")" = "$n"
    expect_true "every removal statement in the roster exactly once" \
        test "$(sql "SELECT count(*) || ':' || count(DISTINCT statement) FROM roster_entries WHERE account_id = '$WEB_ACCOUNT' AND idx > $n")" = "$n:$n"
    expect_true "roster indexes 0..$((2 * n)) without gaps" \
        test "$(sql "SELECT count(*) || ':' || max(idx) FROM roster_entries WHERE account_id = '$WEB_ACCOUNT'")" = "$((2 * n + 1)):$((2 * n))"
    expect_true "no token of a revoked device left" \
        test "$(sql "SELECT count(*) FROM access_tokens WHERE device_id IN ($list) AND revoked_at IS NULL")" = 0
    cli_req GET /v1/devices
    expect_error 401 device_revoked
    check every_revoke_cut_off_by_a_kill_completes_exactly_once
    figures devices_kill "{\"devices\":$n,\"kills\":$kills,\"revokes_retried\":$retried,\"first_answers\":\"$(cut -d' ' -f2 "$SMOKE_TMP/revokes" | sort | uniq -c | tr -s ' ' | tr '\n' ' ')\"}"
}

# --- 2. restart PostgreSQL under load --------------------------------------------------------
fault_postgres_restart() {
    local outage=${POUCH_FAULT_OUTAGE:-6} before t_stop t_back t_up first health_status=() end
    before=$(handler_pids)
    load_start postgres load.py
    sleep 2
    t_stop=$(now_s)
    if ! (cd "$STACK_DIR" && stack_as "$PG_BIN/pg_ctl" stop -D "$STACK_DIR/pg" -m fast -w) >/dev/null 2>&1; then
        smoke_fail "pg_ctl stop failed"
    fi
    wait "$STACK_PG_PID" 2>/dev/null || true
    STACK_PG_PID=0
    sleep 1.2  # /v1/health shares one probe per second (common/http/health.cpp)
    end=$((SECONDS + outage))
    while ((SECONDS < end)); do
        SMOKE_TIMEOUT=8 req GET /v1/health
        health_status+=("$STATUS:$(json .error.code):$(json .error.details.database)")
        sleep 1
    done
    # The outage ends when the postmaster starts (it accepts connections moments later).
    t_back=$(now_s)
    stack_start_postgres 2>/dev/null
    t_up=$(now_s)
    sleep 4
    load_stop

    local reqs=$LOAD_DIR/requests.jsonl
    # Requests sent after the stop and answered before PostgreSQL was back.
    local during
    during=$(jq -sc --argjson a "$t_stop" --argjson b "$t_back" \
        '[.[] | select(.w0 >= $a + 0.5 and .w1 <= $b)] | group_by(.what) | map({key: .[0].what, value: length}) | from_entries' "$reqs")
    expect_true "answers during the outage: $during (want only 503:unavailable)" \
        test "$(jq -r 'keys | join(",")' <<<"$during")" = "503:unavailable"
    expect_true "health during the outage: ${health_status[*]}" \
        test "$(printf '%s\n' "${health_status[@]}" | sort -u)" = "503:unavailable:down"
    check requests_answer_503_unavailable_while_postgres_is_down

    local slowest
    slowest=$(jq -s --argjson a "$t_stop" --argjson b "$t_up" '[.[] | select(.w1 >= $a and .w0 <= $b) | .secs] | max // 0' "$reqs")
    expect_true "slowest answer around the outage ${slowest} s (want < 6)" \
        awk -v s="$slowest" 'BEGIN { exit !(s < 6) }'
    expect_true "no 500, no missing answer: $(statuses_except_applied)" \
        test "$(report '[.statuses | keys[] | select(startswith("500") or startswith("0:") or startswith("502"))] | length')" = 0
    check no_500_and_no_hang_during_the_postgres_outage

    first=$(jq -s --argjson b "$t_up" '[.[] | select(.w0 >= $b and .what == "applied") | .w1 - $b] | min // 99' "$reqs")
    expect_true "first applied commit ${first} s after PostgreSQL was back (want < 3)" \
        awk -v s="$first" 'BEGIN { exit !(s < 3) }'
    expect_true "handler pids changed: before $before, after $(handler_pids)" test "$before" = "$(handler_pids)"
    req GET /v1/health
    expect_status 200
    check commits_succeed_after_postgres_returns_without_a_handler_restart

    expect_settled
    check every_op_of_the_postgres_outage_is_stored_exactly_once_after_retries
    figures postgres_restart "$(jq -c --argjson d "$during" --arg o "$outage" --argjson f "$first" \
        --argjson s "$slowest" '{outage_s:($o|tonumber), answers_during_outage:$d, first_applied_after_s:$f,
        slowest_s:$s} + del(.problems)' <<<"$LOAD_REPORT")"
}

# --- 2b. crash PostgreSQL (kill -9) under the CLI-path load, with fsync on ------------------
# The stack runs PostgreSQL as production does (tests/faults/run.sh: stack mode "durable",
# fsync and synchronous_commit on). The postmaster and its backends are killed at once, as a
# machine that loses power loses them; the restart replays the WAL. Every op answered
# `applied` before, during or after must be stored with its seq, seqs gap-free, and every
# retry of an unanswered commit (same operation_id) exactly-once.
fault_postgres_crash() {
    local t_kill t_up first before_crash recovered
    load_start crash cli_load.py "$POUCHCTL"
    sleep 4
    t_kill=$(now_s)
    before_crash=$(jq -s --argjson t "$t_kill" '[.[] | select(.w1 < $t and .status == 200)] | length' "$LOAD_DIR/requests.jsonl")
    kill -KILL "$STACK_PG_PID"
    kill -KILL -- "-$STACK_PG_PID" 2>/dev/null || true
    wait "$STACK_PG_PID" 2>/dev/null || true
    STACK_PG_PID=0
    sleep 2
    stack_start_postgres 2>/dev/null
    t_up=$(now_s)
    sleep 5
    load_stop
    recovered=$(grep -c 'database system was interrupted\|was not properly shut down' "$STACK_DIR/log/postgres.log" || true)
    expect_true "PostgreSQL recovered from the crash (log: $recovered recovery lines)" test "$recovered" -gt 0
    expect_true "fsync on: $(sql 'SHOW fsync'), synchronous_commit: $(sql 'SHOW synchronous_commit')" \
        test "$(sql 'SHOW fsync'):$(sql 'SHOW synchronous_commit')" = on:on
    check postgres_ran_durable_and_recovered_from_kill_9

    expect_settled
    expect_true "commits answered before the crash: $before_crash (want some)" test "$before_crash" -gt 0
    expect_true "ops applied: $(report .ops_applied), stale bases refused: $(report .ops_stale_refused)" \
        test "$(report .ops_applied)" -gt 0 -a "$(report .ops_stale_refused)" -gt 0
    check every_op_answered_applied_survives_the_crash_with_its_seq_and_retries_are_exactly_once

    expect_true "no 500: $(report '.statuses | to_entries | map("\(.key)=\(.value)") | join(" ")')" \
        test "$(report '[.statuses | keys[] | select(startswith("500"))] | length')" = 0
    first=$(jq -s --argjson b "$t_up" '[.[] | select(.w0 >= $b and .status == 200) | .w1 - $b] | min // 99' "$LOAD_DIR/requests.jsonl")
    expect_true "first answered commit ${first} s after PostgreSQL was back (want < 3)" \
        awk -v s="$first" 'BEGIN { exit !(s < 3) }'
    check commits_resume_after_the_crash_without_a_handler_restart
    figures postgres_crash "$(jq -c --argjson f "$first" --argjson b "$before_crash" \
        '{answered_before_crash:$b, first_answer_after_recovery_s:$f} + del(.problems)' <<<"$LOAD_REPORT")"
}

# --- 3. stop Redis: database fallbacks, then back to Redis -----------------------------------
# events_poll_bg AFTER WAIT OUT: GET events?after=AFTER&wait=WAIT in the background for the web
# user's POUCH; OUT.status and OUT.end (ms) appear when it answers. Sets POLL_PID.
events_poll_bg() {
    rm -f "$3".status "$3".end
    (
        code=$(curl -sS -o "$3.body" -w '%{http_code}' --max-time 30 -H "Authorization: Bearer $WEB_TOKEN" \
            "$POUCH_URL/v1/pouches/$POUCH/events?epoch=$EPOCH&after=$1&wait=$2" 2>/dev/null) || code=000
        now_ms >"$3.end"
        echo "$code" >"$3.status"
    ) &
    POLL_PID=$!
}

# commit_body_new: a commit of one new artifact in the web user's POUCH (JSON).
commit_body_new() {
    local r
    r=$(flow_uuid)
    jq -nc --arg o "$(flow_uuid)" --arg e "$EPOCH" --arg a "$(flow_uuid)" --arg r "$r" --arg m "$WEB_MEMBER" \
        '{operation_id:$o,epoch:$e,ops:[{type:"put",artifact_id:$a,revision_id:$r,base_revision_id:null,
          key_gen:1,envelope:("env-" + $r),signature:"sig",signer_member_id:$m,blob_ids:[]}]}'
}

# web_commit: one new artifact in the web user's POUCH; sets HW to the answer's high_water.
web_commit() {
    web_req POST "/v1/pouches/$POUCH/operations" "$(commit_body_new)"
    HW=$(json .data.high_water)
}

# events_wake_ms: sets WAKE_MS to the ms from sending a commit to the answer of an events
# long-poll waiting for it (99999: the poll failed).
events_wake_ms() {
    WAKE_MS=99999
    web_commit
    events_poll_bg "$HW" 15 "$SMOKE_TMP/ev"
    sleep 1.2   # the poll is waiting (past its first database read)
    local sent body
    body=$(commit_body_new)
    sent=$(now_ms)
    web_req POST "/v1/pouches/$POUCH/operations" "$body"
    wait "$POLL_PID" || true
    [[ $(cat "$SMOKE_TMP/ev.status") == 200 ]] || return 0
    [[ $(jq -r '.data.items | length' "$SMOKE_TMP/ev.body") -ge 1 ]] || return 0
    WAKE_MS=$(($(cat "$SMOKE_TMP/ev.end") - sent))
}

# token_wake_ms: a CLI login whose token long-poll waits for the approval; sets WAKE_MS to
# the ms from sending the approval to the poll's answer, WAKE_AFTER_MS to the ms from the
# approval's answer to it (99999: it failed), and LAST_AT.
token_wake_ms() {
    WAKE_MS=99999 WAKE_AFTER_MS=99999 LAST_AT=""
    flow_cli_keys "tok$RANDOM"
    flow_start_login
    [[ $STATUS == 200 ]] || return 0
    flow_redeem_bg "$REQ" 30 "$SMOKE_TMP/lp"
    retry 10 flow_polling_started "$REQ"
    sleep 0.3
    flow_approve_timed "$REQ"
    wait "$BG_PID" || true
    [[ $(cat "$SMOKE_TMP/lp.status") == 200 && $(jq -r .data.status "$SMOKE_TMP/lp.body") == approved ]] ||
        return 0
    LAST_AT=$(jq -r .data.access_token "$SMOKE_TMP/lp.body")
    WAKE_MS=$(($(cat "$SMOKE_TMP/lp.end") - APPROVE_SENT))
    WAKE_AFTER_MS=$(($(cat "$SMOKE_TMP/lp.end") - APPROVE_ANSWERED))
}

subscriber_connects() { cat "$(stack_log sync)" "$(stack_log cliauth)" | grep -c 'redis subscriber connected' || true; }
# subscribers_reconnected N: sync and cliauth have both logged a reconnect since N were logged.
subscribers_reconnected() { (($(subscriber_connects) >= $1 + 2)); }

fault_redis_stop() {
    local email password="correct horse battery" ev_down tok_down ev_up tok_up proof connects
    flow_user faults
    email="login.$(flow_uuid)@example.com"
    req POST /v1/account/signup "$(jq -nc --arg e "$email" --arg p "$password" '{email:$e,password:$p}')"
    flow_device before
    local key_before=$DEVICE_KEY at_before=$ACCESS
    load_start redis load.py
    sleep 1
    connects=$(subscriber_connects)
    stack_redis_stop
    sleep 1.2  # /v1/health shares one probe per second (common/http/health.cpp)

    req GET /v1/health
    expect_status 200
    expect_json .data.status degraded
    expect_json .data.redis down
    check health_reports_degraded_without_redis

    req POST /v1/account/login "$(jq -nc --arg e "$email" --arg p "$password" '{email:$e,password:$p}')"
    expect_status 200
    expect_json_match .data.session_token '^svc_ws_'
    check web_login_works_without_redis

    token_wake_ms
    tok_down=$WAKE_MS
    expect_true "token long-poll answered ${tok_down} ms after the approval (want < 2500)" test "$tok_down" -lt 2500
    ACCESS=$LAST_AT cli_req GET /v1/devices
    expect_status 200
    check cli_login_long_poll_completes_on_the_database_fallback

    events_wake_ms
    ev_down=$WAKE_MS
    expect_true "events long-poll answered ${ev_down} ms after the commit was sent (want < 2500)" test "$ev_down" -lt 2500
    check events_long_poll_is_woken_by_the_database_fallback

    proof=$(flow_dpop "$key_before" GET /v1/devices "$at_before")
    req GET /v1/devices "" -H "Authorization: DPoP $at_before" -H "DPoP: $proof"
    expect_status 200
    req GET /v1/devices "" -H "Authorization: DPoP $at_before" -H "DPoP: $proof"
    expect_error 401 invalid_dpop_proof
    check dpop_replay_is_refused_without_redis

    stack_redis_start
    # sync and cliauth each log their subscriber's reconnect.
    expect_true "both Redis subscribers reconnected" retry 10 subscribers_reconnected "$connects"
    sleep 1.2
    req GET /v1/health
    expect_json .data.status ok
    events_wake_ms
    ev_up=$WAKE_MS
    # Three tries: a single one could beat the one-second database fallback by luck.
    for _ in 1 2; do
        events_wake_ms
        ((WAKE_MS > ev_up)) && ev_up=$WAKE_MS
    done
    expect_true "slowest of 3 events long-polls answered ${ev_up} ms after the commit was sent, Redis back (want < 500)" test "$ev_up" -lt 500
    # Slowest of three here too: the database re-read wakes a single one in time half the time.
    local tok_after=-99999
    tok_up=0
    for _ in 1 2 3; do
        token_wake_ms
        ((WAKE_MS > tok_up)) && tok_up=$WAKE_MS
        ((WAKE_AFTER_MS > tok_after)) && tok_after=$WAKE_AFTER_MS
    done
    expect_true "slowest of 3 token long-polls answered ${tok_up} ms after the approval was sent, Redis back (want < 1000)" \
        test "$tok_up" -lt 1000
    expect_true "slowest of 3 token long-polls answered ${tok_after} ms after the approval's answer, Redis back (want < 500)" \
        test "$tok_after" -lt 500
    req GET /v1/devices "" -H "Authorization: DPoP $at_before" -H "DPoP: $proof"
    expect_error 401 invalid_dpop_proof
    check long_polls_are_woken_through_redis_again_after_it_returns

    load_stop
    expect_settled
    expect_true "answers other than applied under load: $(statuses_except_applied)" test -z "$(statuses_except_applied)"
    check commit_load_unaffected_by_the_redis_outage
    figures redis_stop "$(jq -c --argjson a "$tok_down" --argjson b "$ev_down" --argjson c "$tok_up" \
        --argjson d "$ev_up" --argjson w "$tok_after" '{token_wake_ms_down:$a, events_wake_ms_down:$b, token_wake_ms_up:$c,
        events_wake_ms_up:$d, token_wake_ms_after_approval_answer_up:$w} + del(.problems)' <<<"$LOAD_REPORT")"
}

# --- 4. reload nginx under load --------------------------------------------------------------
fault_nginx_reload() {
    local reloads=${POUCH_FAULT_RELOADS:-5} i master ok=0 poll_status
    local dir=$STACK_DIR/nginx
    master=$(cat "$STACK_DIR/pids/nginx.pid")
    flow_user reload
    load_start nginx load.py
    sleep 1
    web_commit
    # A long-poll that spans the reloads: the old worker keeps serving it until it answers.
    events_poll_bg "$HW" 4 "$SMOKE_TMP/reload-poll"
    local poll=$POLL_PID
    for ((i = 0; i < reloads; i++)); do
        if stack_as nginx -p "$dir/" -c "$dir/nginx.conf" -e "$STACK_DIR/log/nginx-error.log" -s reload 2>>"$FAULT_VAR/reload.err"; then
            ok=$((ok + 1))
        fi
        sleep 1
    done
    wait "$poll" || true
    poll_status=$(cat "$SMOKE_TMP/reload-poll.status")
    sleep 1
    load_stop
    expect_true "reloads accepted: $ok of $reloads ($(cat "$FAULT_VAR/reload.err"))" test "$ok" = "$reloads"
    expect_true "nginx master changed" test "$(cat "$STACK_DIR/pids/nginx.pid")" = "$master"
    expect_true "long-poll across the reloads answered $poll_status" test "$poll_status" = 200
    expect_true "answers other than applied: $(statuses_except_applied)" test -z "$(statuses_except_applied)"
    expect_true "requests without an applied answer: $(report .unanswered)" test "$(report .unanswered)" = 0
    expect_settled
    check no_request_fails_while_nginx_reloads
    figures nginx_reload "$(jq -c --argjson n "$reloads" '{reloads:$n} + del(.problems)' <<<"$LOAD_REPORT")"
}

# --- 5. restore drill: the database and the blobs destroyed, restored to the latest point -----
# WAL archiving as production configures it (tools/stack/lib.sh stack_wal_archive: the
# archive_command copies the new blobs, then pushes the segment; archive_timeout 2 s). Under
# the CLI-path load, each blob-naming op uploading a blob of its own: a full backup
# (`pouchctl backup`), more load, a WAL switch that gets archived (the mark), more load, then
# PostgreSQL killed and its data directory and the blob directory deleted. `pouchctl restore`
# and a PostgreSQL start bring back the latest archived point: every op answered `applied`
# before the mark is there with its seq (one answered after it is there with its seq or not
# at all), every blob a restored revision names is there with the bytes of its id (blobs
# uploaded after the full backup among them), each pouch's feed is gap-free, and the service
# pages that feed, serves the blobs and takes the next commit with the next seq.

# restore_promoted: PostgreSQL has finished its recovery and takes writes.
restore_promoted() { [[ $(sql 'SELECT pg_is_in_recovery()' 2>/dev/null) == f ]]; }

# restore_archived SEGMENT: PostgreSQL has archived SEGMENT (or a later one).
restore_archived() { [[ $(sql "SELECT coalesce(last_archived_wal, '') >= '$1' FROM pg_stat_archiver") == t ]]; }

fault_restore_drill() {
    local backup_end mark seg t0 restore_s recovery_s status=0 report_json
    local ctl conf_args
    stack_wal_archive 2 2>>"$FAULT_VAR/restore.log"
    ctl=("$STACK_BACKUP_PCTL")
    conf_args=(--config "$STACK_BACKUP_CONF" --blob-dir "$STACK_DIR/blobs")
    load_start restore cli_load.py "$POUCHCTL" --fresh-blobs || return 1
    sleep 3
    if ! (cd "$STACK_DIR" && stack_as "${ctl[@]}" backup --type full "${conf_args[@]}") >>"$FAULT_VAR/restore.log" 2>&1; then
        smoke_fail "pouchctl backup --type full failed: $(tail -n 5 "$FAULT_VAR/restore.log")"
    fi
    backup_end=$(now_s)
    sleep 4
    mark=$(now_s)
    seg=$(sql "SELECT pg_walfile_name(pg_switch_wal())")
    retry 20 restore_archived "$seg" || smoke_fail "segment $seg was not archived within 20 s"
    sleep 3
    # The disaster: PostgreSQL dies with the machine, its data directory and the blobs are gone.
    kill -KILL "$STACK_PG_PID"
    kill -KILL -- "-$STACK_PG_PID" 2>/dev/null || true
    wait "$STACK_PG_PID" 2>/dev/null || true
    STACK_PG_PID=0
    touch "$LOAD_DIR/stop"
    wait "$LOAD_PID" || smoke_fail "cli_load.py run exited with $?: $(tail -n 3 "$LOAD_DIR/run.log")"
    LOAD_PID=0
    stack_stop_handlers
    rm -rf "$STACK_DIR/pg" "$STACK_DIR/blobs"
    mkdir -p "$STACK_DIR/pg" "$STACK_DIR/blobs"
    chmod 700 "$STACK_DIR/pg"
    stack_own "$STACK_DIR/pg" "$STACK_DIR/blobs"
    check restore_drill_backed_up_and_archived_under_load

    t0=$(now_s)
    if ! (cd "$STACK_DIR" && stack_as "${ctl[@]}" restore "${conf_args[@]}") >>"$FAULT_VAR/restore.log" 2>&1; then
        smoke_fail "pouchctl restore failed: $(tail -n 5 "$FAULT_VAR/restore.log")"
    fi
    restore_s=$(awk -v a="$t0" -v b="$(now_s)" 'BEGIN { printf "%.1f", b - a }')
    stack_start_postgres 2>>"$FAULT_VAR/restore.log"
    retry 60 restore_promoted || smoke_fail "PostgreSQL still in recovery after 60 s"
    recovery_s=$(awk -v a="$t0" -v b="$(now_s)" 'BEGIN { printf "%.1f", b - a }')
    stack_start_handlers 2>>"$FAULT_VAR/restore.log"
    expect_true "recovery replayed the archive: $(grep -c 'restored log file' "$STACK_DIR/log/postgres.log") segments" \
        test "$(grep -c 'restored log file' "$STACK_DIR/log/postgres.log")" -gt 0
    check restore_drill_restores_the_database_and_the_blobs

    report_json=$(python3 tests/faults/cli_load.py restored "$POUCH_URL" "$LOAD_DIR" "$POUCH_DATABASE_URL" \
        "$POUCHCTL" --mark "$mark" --backup-end "$backup_end" --blob-dir "$STACK_DIR/blobs" \
        2>"$LOAD_DIR/restored.err") || status=$?
    LOAD_REPORT=${report_json:-"{}"}
    expect_true "restored checks exited $status: $(report '.problems | join("; ")') $(tail -n 3 "$LOAD_DIR/restored.err")" \
        test "$status" = 0 -a "$(report .problem_count)" = 0
    expect_true "ops applied before the mark: $(report .applied_before_mark) (want some)" \
        test "$(report .applied_before_mark)" -gt 0
    check every_op_applied_before_the_last_archived_segment_is_restored_with_its_seq

    expect_true "blobs named by restored revisions and verified: $(report .blobs_named_and_verified), uploaded after the full backup: $(report .blobs_uploaded_after_backup_restored) (want some)" \
        test "$(report .blobs_uploaded_after_backup_restored)" -gt 0
    check every_blob_a_restored_revision_names_is_restored_with_its_bytes

    expect_true "events served after the restore: $(report .events_served)" test "$(report .events_served)" -gt 0
    check the_restored_feed_is_gap_free_and_served_and_takes_the_next_commit
    figures restore_drill "$(jq -c --argjson r "$restore_s" --argjson t "$recovery_s" \
        '{restore_s:$r, restore_and_recovery_s:$t} + del(.problems)' <<<"$LOAD_REPORT")"
}
