#!/usr/bin/env bash
# run.sh -- `make bench` (issue 6): starts the real stack in a temporary directory (rate limits
# off, PostgreSQL in test mode: fsync off, for the stack and its baseline alike), runs each
# benchmark beside its baseline in the same run, prints a table of ratios against the
# targets of docs/PERFORMANCE.md, writes it to BUILD/bench/results.md (raw outputs beside it)
# and always tears down. Each row carries the 1-minute load average when it was measured: the
# machine is shared. BENCH_ONLY="crypto rss health get commit pages login events" picks sections;
# BENCH_SECONDS (default 10) is the length of each wrk/pgbench run; BENCH_PERF=1 records
# each wrk run with perf. Relies on
# tools/stack/lib.sh, tests/smoke/{lib,flows}.sh, wrk, pgbench, openssl.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tools/stack/lib.sh
source tools/stack/lib.sh

only=${BENCH_ONLY:-crypto rss health get commit pages login events}
secs=${BENCH_SECONDS:-10}
for cmd in wrk pgbench openssl jq; do
    command -v "$cmd" >/dev/null || stack_die "$cmd not found (apt-get install wrk postgresql-contrib)"
done
PGBENCH=$(command -v pgbench)

OUT_DIR=$STACK_ROOT/${BUILD:-build}/bench
mkdir -p "$OUT_DIR"
RESULTS=$OUT_DIR/results.md
BENCH_VAR=$(mktemp -d /tmp/pouch-bench.XXXXXX)
EXTRA_PIDS=()
cleanup() {
    local pid
    for pid in "${EXTRA_PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    stack_stop
    rm -rf "$BENCH_VAR" "${SMOKE_TMP:-/nonexistent}"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

unset POUCH_PUBLIC_URL POUCH_WEB_URL
export POUCH_RATE_LIMITS=off
# The handlers' production defaults (common/config/config.h, systemd/pouch.env.example); the
# local stack of make run / make test uses a pool of 4 to keep its connection count low.
# shellcheck disable=SC2031  # exported here for the handlers lib.sh starts
export POUCH_THREADS=${POUCH_THREADS:-16} POUCH_DB_POOL=${POUCH_DB_POOL:-8}
http_port=""
stack_free_port http_port
stack_init "$BENCH_VAR" "$http_port" test
stack_start

stack_export_client_env
# shellcheck source=tests/smoke/lib.sh
source tests/smoke/lib.sh
# shellcheck source=tests/smoke/flows.sh
source tests/smoke/flows.sh
trap cleanup EXIT

load() { cut -d' ' -f1 /proc/loadavg; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
verdict() { awk -v r="$1" -v t="$2" -v d="${3:-ge}" 'BEGIN {
    if (r == "n/a") { print "?"; exit }
    ok = (d == "ge") ? (r >= t) : (r <= t); print ok ? "met" : "MISSED" }'; }

{
    echo "# make bench results"
    echo
    echo "$(date -u +%FT%TZ), $(nproc) cores, $(uname -r), git $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo
    echo "| benchmark | measured | baseline | ratio | target | verdict | load avg |"
    echo "|---|---|---|---|---|---|---|"
} >"$RESULTS.new"
if [[ ${BENCH_APPEND:-0} == 1 ]]; then rm -f "$RESULTS.new"; else mv "$RESULTS.new" "$RESULTS"; fi
row() { echo "| $* |" | tee -a "$RESULTS"; }
note() { echo "$*" | tee -a "$OUT_DIR/notes.txt"; }
[[ ${BENCH_APPEND:-0} == 1 ]] || { : >"$OUT_DIR/notes.txt"; rm -f "$OUT_DIR"/perf-*.data* "$OUT_DIR/perf-runs" "$OUT_DIR/perf.txt"; }

# --- 6. crypto ---------------------------------------------------------------------------------
bench_crypto() {
    local json=$OUT_DIR/crypto.json l ours theirs r
    l=$(load)
    "$STACK_BUILD/bin/bench_crypto" --benchmark_min_time=1 --benchmark_out="$json" \
        --benchmark_out_format=json | tee "$OUT_DIR/crypto.txt"
    # Wall clock against wall clock (-elapsed), and CPU time against CPU time: on a shared
    # machine the second is the steadier of the two.
    openssl speed -elapsed -seconds 3 ecdsap256 2>/dev/null | tee "$OUT_DIR/openssl-speed.txt"
    openssl speed -seconds 3 ecdsap256 2>/dev/null | tee "$OUT_DIR/openssl-speed-cpu.txt"
    ours=$(jq '.benchmarks[] | select(.name == "BM_ES256Verify") | 1e9 / .real_time' "$json")
    theirs=$(awk '/ecdsa \(nistp256\)/ { print $NF }' "$OUT_DIR/openssl-speed.txt")
    r=$(ratio "$ours" "$theirs")
    row "ES256 verify/s, wall (P256PublicKey::verify vs openssl speed -elapsed) | $(printf %.0f "$ours") | $(printf %.0f "$theirs") | $r | >= 0.8 | $(verdict "$r" 0.8) | $l"
    ours=$(jq '.benchmarks[] | select(.name == "BM_ES256Verify") | 1e9 / .cpu_time' "$json")
    theirs=$(awk '/ecdsa \(nistp256\)/ { print $NF }' "$OUT_DIR/openssl-speed-cpu.txt")
    r=$(ratio "$ours" "$theirs")
    row "ES256 verify/s, CPU time (same, openssl speed without -elapsed) | $(printf %.0f "$ours") | $(printf %.0f "$theirs") | $r | >= 0.8 | $(verdict "$r" 0.8) | $l"
    local name t
    for name in BM_CommitBodyParseJcsBlake3 BM_CommitBodyJcsBlake3 BM_DpopVerify BM_DpopVerifyWithReplayCheck BM_ES256Sign; do
        t=$(jq -r --arg n "$name" '.benchmarks[] | select(.name == $n) | "\(.real_time|.*100|round/100) \(.time_unit) wall, \(.cpu_time|.*100|round/100) \(.time_unit) CPU"' "$json")
        row "$name (time per op) | $t | - | - | report | - | $l"
    done
}

# --- 7. idle RSS -----------------------------------------------------------------------------------
# shellcheck disable=SC2031  # POUCH_THREADS is read, not set, here
bench_rss() {
    local group pid kb l
    l=$(load)
    for group in "${STACK_HANDLERS[@]}"; do
        pid=$(cat "$STACK_DIR/pids/$group.pid")
        kb=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
        row "idle RSS pouch-$group (POUCH_THREADS=${POUCH_THREADS:-16}) | $((kb / 1024)).$((kb % 1024 * 10 / 1024)) MiB | 16 MiB limit | $(ratio "$kb" 16384) | <= 1.0 | $(verdict "$(ratio "$kb" 16384)" 1.0 le) | $l"
    done
}

# wrk_rps URL [extra wrk args]: requests/s over BENCH_SECONDS with 2 threads, 32 connections.
# BENCH_PERF=1: each wrk run is also recorded system-wide with perf (OUT_DIR/perf-N.data) and
# its CPU split by process is appended to OUT_DIR/perf.txt.
# (Called in $(...): the run counter lives in a file, a variable would not survive.)
wrk_rps() {
    local url=$1 out perf_pid="" perf_runs
    shift
    if [[ ${BENCH_PERF:-0} == 1 ]]; then
        perf_runs=$(($(cat "$OUT_DIR/perf-runs" 2>/dev/null || echo 0) + 1))
        echo "$perf_runs" >"$OUT_DIR/perf-runs"
        perf record -a -g -q -o "$OUT_DIR/perf-$perf_runs.data" -- sleep $((secs > 2 ? secs - 2 : 1)) 2>/dev/null &
        perf_pid=$!
    fi
    out=$(wrk -t2 -c32 -d"${secs}s" --latency "$@" "$url")
    if [[ -n $perf_pid ]]; then
        wait "$perf_pid" || true
        { echo "== perf-$perf_runs: wrk $url"
          perf report -i "$OUT_DIR/perf-$perf_runs.data" --no-children --sort comm --stdio -g none 2>/dev/null |
              grep -v '^#' | grep -v '^$' | head -8; } >>"$OUT_DIR/perf.txt"
    fi
    echo "$out" >>"$OUT_DIR/wrk.txt"
    if grep -q 'Non-2xx' <<<"$out"; then note "wrk $url: $(grep 'Non-2xx' <<<"$out")"; fi
    awk '/^Requests\/sec/ { print $2 }' <<<"$out"
}

# --- 4a. health through nginx + FastCGI vs nginx answering itself --------------------------------
bench_health() {
    local sport pport dir body ours theirs proxied l r
    stack_free_port sport
    stack_free_port pport
    dir=$STACK_DIR/nginx-static
    mkdir -p "$dir/tmp"
    body=$(curl -fsS "$STACK_URL/v1/health")
    # Same worker count and keep-alive defaults as the stack's nginx; the body is the
    # handler's own answer, byte for byte.
    cat >"$dir/nginx.conf" <<EOF
daemon off;
worker_processes 2;
pid $dir/nginx.pid;
error_log $STACK_DIR/log/nginx-static-error.log warn;
events { worker_connections 1024; }
http {
    client_body_temp_path $dir/tmp/client_body;
    fastcgi_temp_path $dir/tmp/fastcgi;
    proxy_temp_path $dir/tmp/proxy;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    access_log $STACK_DIR/log/nginx-static-access.log;
    server {
        listen 127.0.0.1:$sport;
        location = /v1/health {
            default_type application/json;
            return 200 '$body';
        }
    }
    # The physical limit of a proxied request here: the same nginx passing the request over
    # a unix socket, a new connection per request (as fastcgi_keep_conn off), to an nginx
    # server that answers the body itself.
    server {
        listen unix:$dir/backend.sock;
        access_log off;
        location = /v1/health {
            default_type application/json;
            return 200 '$body';
        }
    }
    server {
        listen 127.0.0.1:$pport;
        location = /v1/health { proxy_pass http://unix:$dir/backend.sock; }
    }
}
EOF
    stack_own "$dir"
    (cd "$STACK_DIR" && exec setsid "${STACK_AS[@]}" nginx -p "$dir/" -c "$dir/nginx.conf" -e "$STACK_DIR/log/nginx-static-error.log") &
    EXTRA_PIDS+=("$!")
    for _ in {1..50}; do stack_port_in_use "$sport" && break; sleep 0.1; done
    [[ $(curl -fsS "http://127.0.0.1:$sport/v1/health") == "$body" ]] || stack_die "static nginx does not answer the health body"
    l=$(load)
    ours=$(wrk_rps "$STACK_URL/v1/health")
    theirs=$(wrk_rps "http://127.0.0.1:$sport/v1/health")
    proxied=$(wrk_rps "http://127.0.0.1:$pport/v1/health")
    r=$(ratio "$ours" "$theirs")
    row "GET /v1/health req/s (nginx+FastCGI vs nginx return, wrk -c32) | $ours | $theirs | $r | >= 0.5 | $(verdict "$r" 0.5) | $l"
    row "reference: nginx proxying to an nginx that returns the body (unix socket, connection per request) vs nginx return | $proxied | $theirs | $(ratio "$proxied" "$theirs") | report | - | $l"
    row "GET /v1/health req/s: nginx+FastCGI vs that proxied nginx | $ours | $proxied | $(ratio "$ours" "$proxied") | report | - | $l"
}

# --- 4b. authenticated GET /v1/pouches/{id} vs pgbench of its SQL ----------------------------------
bench_get() {
    local hash script=$OUT_DIR/get-pouch.sql ours theirs l r
    flow_web_user
    flow_genesis
    hash=$(printf '%s' "$WEB_TOKEN" | openssl dgst -sha256 -binary | base64 -w0 | tr '+/' '-_' | tr -d '=')
    [[ $(psql "$POUCH_DATABASE_URL" -XAtc "SELECT count(*) FROM web_sessions WHERE token_hash = '$hash'") == 1 ]] ||
        stack_die "web session hash not found"
    cat >"$script" <<EOF
SELECT s.id, s.user_id, u.role, a.id AS account_id, a.web_member_id, s.expires_at <= now() AS expired, s.last_used_at < now() - interval '1 minute' AS stale FROM web_sessions s JOIN users u ON u.id = s.user_id JOIN storage_accounts a ON a.owner_user_id = u.id WHERE s.token_hash = '$hash';
SELECT id, account_id, epoch, key_gen, high_water, stored_bytes, iso(created_at) AS created_at FROM pouches WHERE id = '$POUCH' AND account_id = '$WEB_ACCOUNT';
EOF
    l=$(load)
    ours=$(wrk_rps "$STACK_URL/v1/pouches/$POUCH" -H "Authorization: Bearer $WEB_TOKEN")
    # The handler pool holds POUCH_DB_POOL (8) connections per process; pgbench gets as many
    # clients as wrk has connections, prepared statements like the handlers.
    theirs=$("$PGBENCH" -n -M prepared -c 32 -j 2 -T "$secs" -f "$script" "$POUCH_DATABASE_URL" 2>&1 |
        tee -a "$OUT_DIR/pgbench.txt" | awk '/^tps/ && !n++ { print $3 }')
    r=$(ratio "$ours" "$theirs")
    row "GET /v1/pouches/{id} req/s (web bearer, wrk -c32 vs pgbench -c32 of its 2 queries) | $ours | $theirs | $r | >= 0.6 | $(verdict "$r" 0.6) | $l"
    # The ceiling of that ratio on this machine: a request costs at least the FastCGI round
    # trip with no work (GET /v1/health, its probe shared) plus the SQL, all on the same
    # cores, so even a handler with no cost of its own reaches only H / (H + P).
    local health bound
    health=$(wrk_rps "$STACK_URL/v1/health")
    bound=$(awk -v h="$health" -v p="$theirs" 'BEGIN { printf "%.2f", h / (h + p) }')
    row "reference: ceiling of the GET ratio, H / (H + P) with H = GET /v1/health req/s, P = the pgbench tps above | $health | $theirs | $bound | report | - | $l"
    row "GET /v1/pouches/{id}: share of that ceiling reached | $r | $bound | $(ratio "$r" "$bound") | report | - | $l"
}

# --- 1. commit throughput ------------------------------------------------------------------------
bench_commit() {
    local batch conc out ours theirs l r p50 p99 reqs script token_hash bl_pouch
    [[ -n ${WEB_TOKEN:-} ]] || { flow_web_user; flow_genesis; }
    flow_device bench
    token_hash=$(printf '%s' "$ACCESS" | openssl dgst -sha256 -binary | base64 -w0 | tr '+/' '-_' | tr -d '=')
    # The baseline writes into its own pouch of the same account, so both start alike.
    bl_pouch=$(flow_uuid)
    psql "$POUCH_DATABASE_URL" -Xq -c "INSERT INTO pouches (id, account_id, epoch, key_gen) VALUES ('$bl_pouch', '$WEB_ACCOUNT', gen_random_uuid(), 1)"
    for batch in 1 10 50; do
        for conc in 8 32; do
            reqs=$((batch == 50 ? 400 : batch == 10 ? 1500 : 3000))
            l=$(load)
            out=$("$STACK_BUILD/bin/pouch-loadgen" --url "$STACK_URL" --key "$DEVICE_KEY" --access "$ACCESS" \
                --pouch "$POUCH" --epoch "$EPOCH" --member "$DEVICE_MEMBER" --batch "$batch" \
                --concurrency "$conc" --requests "$reqs") || note "loadgen batch $batch c$conc: errors"
            echo "$out" >>"$OUT_DIR/loadgen.jsonl"
            EPOCH=$(psql "$POUCH_DATABASE_URL" -XAtc "SELECT epoch FROM pouches WHERE id = '$POUCH'")
            ours=$(jq .ops_per_s <<<"$out")
            p50=$(jq .p50_ms <<<"$out")
            p99=$(jq .p99_ms <<<"$out")
            script=$OUT_DIR/commit-b$batch.sql
            tools/bench/pgbench-commit.sh "$batch" "$token_hash" "$bl_pouch" "$WEB_ACCOUNT" \
                "$DEVICE_MEMBER" "$DEVICE_ID" >"$script"
            theirs=$("$PGBENCH" -n -M prepared -c "$conc" -j 2 -t $((reqs / conc)) -f "$script" \
                -r "$POUCH_DATABASE_URL" 2>&1 | tee -a "$OUT_DIR/pgbench.txt" | awk '/^tps/ && !n++ { print $3 }')
            theirs=$(awk -v t="$theirs" -v b="$batch" 'BEGIN { printf "%.1f", t * b }')
            r=$(ratio "$ours" "$theirs")
            if ((batch == 50)); then
                row "commit ops/s batch $batch c$conc (loadgen p50 $p50 ms, p99 $p99 ms) vs pgbench | $ours | $theirs | $r | >= 0.7 | $(verdict "$r" 0.7) | $l"
            else
                row "commit ops/s batch $batch c$conc (loadgen p50 $p50 ms, p99 $p99 ms) vs pgbench | $ours | $theirs | $r | report | - | $l"
            fi
        done
    done
}

# --- 5. deep pages: first vs last page of 200,000 artifacts -----------------------------------------
bench_pages() {
    local deep n=200000 last_key cursor first last l r
    [[ -n ${WEB_TOKEN:-} ]] || { flow_web_user; flow_genesis; }
    deep=$(flow_uuid)
    psql "$POUCH_DATABASE_URL" -Xq -v ON_ERROR_STOP=1 >/dev/null <<EOF
BEGIN;
INSERT INTO pouches (id, account_id, epoch, key_gen, high_water) VALUES ('$deep', '$WEB_ACCOUNT', gen_random_uuid(), 1, $n);
CREATE TEMP TABLE bench_rows AS SELECT g AS seq, gen_random_uuid() AS art, gen_random_uuid() AS rev FROM generate_series(1, $n) g;
INSERT INTO revisions (pouch_id, id, artifact_id, seq, kind, key_gen, envelope, envelope_hash, signature, signer_member_id, stored_size, origin)
  SELECT '$deep', rev, art, seq, 'put', 1, repeat('e', 128), 'hash', 'sig', '$WEB_MEMBER', 128, 'web' FROM bench_rows;
INSERT INTO artifacts (pouch_id, id, head_revision_id, head_seq) SELECT '$deep', art, rev, seq FROM bench_rows;
COMMIT;
ANALYZE revisions;
ANALYZE artifacts;
EOF
    # The cursor is b64url(scope|seq|id) (handlers/sync/artifacts.cpp): the key just before
    # the last page of 100.
    last_key=$(psql "$POUCH_DATABASE_URL" -XAtc "SELECT 'artifacts/' || p.id || '/' || p.epoch || '|' || a.head_seq || '|' || a.id FROM artifacts a JOIN pouches p ON p.id = a.pouch_id WHERE a.pouch_id = '$deep' ORDER BY a.head_seq, a.id OFFSET $((n - 101)) LIMIT 1")
    cursor=$(printf '%s' "$last_key" | base64 -w0 | tr '+/' '-_' | tr -d '=')
    req GET "/v1/pouches/$deep/artifacts?cursor=$cursor" "" -H "Authorization: Bearer $WEB_TOKEN"
    [[ $STATUS == 200 && $(json '.data.items | length') == 100 && $(json .meta.next_cursor) == null ]] ||
        stack_die "last page: $STATUS $(json '.data.items | length') items"
    l=$(load)
    first=$(wrk_rps "$STACK_URL/v1/pouches/$deep/artifacts" -H "Authorization: Bearer $WEB_TOKEN")
    last=$(wrk_rps "$STACK_URL/v1/pouches/$deep/artifacts?cursor=$cursor" -H "Authorization: Bearer $WEB_TOKEN")
    r=$(ratio "$first" "$last")
    row "artifacts page of 100 at 200,000: cost last/first (req/s first vs last, wrk -c32) | $last | $first | $r | <= 1.3 | $(verdict "$r" 1.3 le) | $l"
}

# --- 2. login long-poll: 1,000 CLIs wait for their token, the browser approves each -------------
# bench_restart_handler GROUP [THREADS]: restarts one handler, with its supervisor (which holds
# the environment), with POUCH_THREADS=THREADS, or with the stack's own threads without it.
# shellcheck disable=SC2031  # POUCH_THREADS is read, not set, here
bench_restart_handler() {
    local group=$1 entry pid kept=() all=("${STACK_HANDLERS[@]}")
    for entry in "${STACK_SUPERVISORS[@]}"; do
        if [[ ${entry%%:*} != "$group" ]]; then
            kept+=("$entry")
            continue
        fi
        pid=${entry#*:}
        kill -TERM "$pid" 2>/dev/null || true
        stack_wait_gone "$pid" 150 || stack_die "the supervisor of $group did not stop"
        wait "$pid" 2>/dev/null || true
    done
    STACK_SUPERVISORS=("${kept[@]}")
    rm -f "$STACK_RUN/$group.sock"
    STACK_HANDLERS=("$group")
    POUCH_THREADS=${2:-${POUCH_THREADS:-16}} stack_start_handlers
    STACK_HANDLERS=("${all[@]}")
}

# The waiters are counted as waiting once the token endpoint stamped last_poll_at, which it
# does just before it parks the request (handlers/cliauth/token.cpp).
login_polling() {
    psql "$POUCH_DATABASE_URL" -XAtc "SELECT count(*) FROM cli_login_requests WHERE status = 'pending' AND last_poll_at IS NOT NULL"
}

# shellcheck disable=SC2031  # POUCH_THREADS and POUCH_DB_POOL are read, not set, here
bench_login() {
    # cliauth's handler threads for this section. Empty: the stack's own (POUCH_THREADS,
    # default 16); a waiting token request is parked (common/http/parking.h) and holds no
    # thread. A number restarts cliauth alone with that many threads for the section (1100 is
    # one per waiter, what 1,000 waiters needed before parking) and with the stack's afterwards.
    local login_threads=${BENCH_LOGIN_THREADS:-}
    local n=${BENCH_WAITERS:-1000} pool=$POUCH_DB_POOL ready=$OUT_DIR/login.ready
    local threads=${login_threads:-${POUCH_THREADS:-16}} lg pid polled=0 kb nthreads ports conns out l r v label
    local c_all c_idle a_all a_idle
    flow_web_user
    flow_genesis
    if [[ -n $login_threads ]]; then bench_restart_handler cliauth "$login_threads"; fi
    pid=$(cat "$STACK_DIR/pids/cliauth.pid")
    rm -f "$ready"
    "$STACK_BUILD/bin/pouch-loadgen" login --url "$STACK_URL" --web-token "$WEB_TOKEN" \
        --pouch "$POUCH" --member "$WEB_MEMBER" --n "$n" --wait 30 --connections 4 \
        --ready-file "$ready" >"$OUT_DIR/login.json" 2>"$OUT_DIR/login.err" &
    lg=$!
    # The loadgen starts n logins (not timed), sends the n token requests and writes $ready.
    for _ in {1..1800}; do
        [[ -e $ready ]] || ! kill -0 "$lg" 2>/dev/null && break
        sleep 0.1
    done
    if [[ -e $ready ]]; then
        for _ in {1..100}; do
            polled=$(login_polling)
            ((polled >= n)) && break
            sleep 0.1
        done
        ((polled >= n)) || note "login: only $polled of $n token requests were waiting when measured"
        sleep 0.5
        # While they wait: cliauth's memory and threads, and the database backends, cliauth's
        # own told apart by their client ports (its TCP connections to PostgreSQL).
        l=$(load)
        kb=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid/status")
        nthreads=$(awk '/^Threads/ { print $2 }' "/proc/$pid/status")
        ports=$(ss -Htnp state established "( dport = :$STACK_PG_PORT )" | { grep "pid=$pid," || true; } |
            awk '{ n = split($3, a, ":"); printf "%s%s", sep, a[n]; sep = "," }')
        conns=$(psql "$POUCH_DATABASE_URL" -XAtF' ' -c "SELECT
            count(*) FILTER (WHERE client_port IN (${ports:-0})),
            count(*) FILTER (WHERE client_port IN (${ports:-0}) AND state = 'idle'),
            count(*), count(*) FILTER (WHERE state = 'idle')
            FROM pg_stat_activity WHERE datname = 'pouch' AND backend_type = 'client backend'
            AND pid <> pg_backend_pid()")
        psql "$POUCH_DATABASE_URL" -XAc "SELECT pid, client_port, client_port IN (${ports:-0}) AS cliauth, state, wait_event, left(query, 60) AS query
            FROM pg_stat_activity WHERE datname = 'pouch' AND backend_type = 'client backend'
            AND pid <> pg_backend_pid() ORDER BY client_port" >"$OUT_DIR/login-pg_stat_activity.txt"
        rm -f "$ready"
    else
        note "login: the loadgen ended before its token requests were waiting"
    fi
    wait "$lg" || note "login: loadgen reported failures"
    cat "$OUT_DIR/login.err" >&2
    out=$(cat "$OUT_DIR/login.json")
    echo "$out" | tee -a "$OUT_DIR/loadgen.jsonl"
    if [[ -n $login_threads ]]; then bench_restart_handler cliauth; fi
    [[ -n $out && -n ${kb:-} ]] || { row "login long-poll: no result (see $OUT_DIR/login.err) | - | - | - | - | MISSED | $(load)"; return 0; }
    r=n/a
    [[ $(jq .tokens <<<"$out") == 0 ]] || r=$(ratio "$(jq .p99_ms <<<"$out")" 100)
    v=$(verdict "$r" 1.0 le)
    [[ $(jq .tokens <<<"$out") == "$n" ]] || v=MISSED
    label=$(jq -r '"\(.tokens)/\(.waiters) CLIs got their tokens (\(.answered_before_approve) answered before approval, \(.not_200) not 200), \(.approved) approvals in \(.approve_s) s over \(.connections) connections"' <<<"$out")
    row "login long-poll: $label; approve answer -> token answer p50 $(jq .p50_ms <<<"$out") ms (POUCH_THREADS=$threads) | p99 $(jq .p99_ms <<<"$out") ms, max $(jq .max_ms <<<"$out") ms | 100 ms | $r | all answered, <= 1.0 | $v | $l"
    # Both figures are for n waiting requests: with fewer they do not answer the target.
    r=$(ratio "$kb" $((256 * 1024)))
    v=$(verdict "$r" 1.0 le)
    ((polled >= n)) || v="? (only $polled waiting)"
    row "login long-poll: VmRSS pouch-cliauth while $polled wait (POUCH_THREADS=$threads, $nthreads threads) | $((kb / 1024)).$((kb % 1024 * 10 / 1024)) MiB | 256 MiB limit | $r | <= 1.0 | $v | $l"
    read -r c_all c_idle a_all a_idle <<<"$conns"
    r=$(ratio "$c_all" "$pool")
    v=$(verdict "$r" 1.0 le)
    ((polled >= n)) || v="? (only $polled waiting)"
    row "login long-poll: database backends of pouch-cliauth while $polled wait ($c_idle idle; all handlers: $a_all, $a_idle idle) | $c_all | POUCH_DB_POOL $pool | $r | <= 1.0 | $v | $l"
}

# --- 3. events long-poll: 1,000 waiters, one commit wakes them all ---------------------------------
# The stack's default handler threads: waiting requests are parked (common/http/parking.h).
bench_events() {
    local n=${BENCH_WAITERS:-1000} trig=$OUT_DIR/events-trigger.http body out l conns r
    flow_web_user
    flow_genesis
    body=$(jq -nc --arg o "$(flow_uuid)" --arg e "$EPOCH" --arg a "$(flow_uuid)" --arg r "$(flow_uuid)" \
        --arg m "$WEB_MEMBER" '{operation_id:$o,epoch:$e,ops:[{type:"put",artifact_id:$a,revision_id:$r,
        base_revision_id:null,key_gen:1,envelope:"ZW52ZWxvcGU",signature:"c2ln",signer_member_id:$m,blob_ids:[]}]}')
    printf 'POST /v1/pouches/%s/operations HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %s\r\n\r\n%s' \
        "$POUCH" "$STACK_HTTP_PORT" "$WEB_TOKEN" "${#body}" "$body" >"$trig"
    ulimit -n 8192 2>/dev/null || true
    l=$(load)
    "$STACK_BUILD/bin/pouch-loadgen" wait --url "$STACK_URL" --n "$n" --trigger-file "$trig" \
        --path "/v1/pouches/$POUCH/events?epoch=$EPOCH&after=0&wait=25" \
        --header "Authorization: Bearer $WEB_TOKEN" >"$OUT_DIR/events.json" || note "events: loadgen reported failures"
    out=$(cat "$OUT_DIR/events.json")
    echo "$out"
    r=$(jq -r '"\(.answered_200)/\(.waiters) answered 200 (\(.answered_before_trigger) before the commit), commit took \(.trigger_ms) ms"' <<<"$out")
    row "events long-poll: $r; wake p50 $(jq .p50_ms <<<"$out") ms (from commit sent) | p99 $(jq .p99_ms <<<"$out") ms, max $(jq .max_ms <<<"$out") ms | 200 ms | $(ratio "$(jq .p99_ms <<<"$out")" 200) | <= 1.0 | $(verdict "$(ratio "$(jq .p99_ms <<<"$out")" 200)" 1.0 le) | $l"
    conns=$(psql "$POUCH_DATABASE_URL" -XAtc "SELECT count(*) FROM pg_stat_activity WHERE datname = 'pouch'")
    note "events: database connections after the run: $conns"
}

if [[ ${BENCH_APPEND:-0} != 1 ]]; then
    : >"$OUT_DIR/wrk.txt"
    : >"$OUT_DIR/pgbench.txt"
    : >"$OUT_DIR/loadgen.jsonl"
fi
for section in crypto rss health get commit pages login events; do
    [[ " $only " == *" $section "* ]] || continue
    echo "=== $section" >&2
    "bench_$section"
done
echo
echo "results: $RESULTS"
