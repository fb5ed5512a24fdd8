# clients.sh -- the `clients` section of make bench (issue 25, rows 1-5): the reference clients
# side by side with Syncthing (Debian's syncthing, two instances on loopback) in the same run.
# Sourced by tools/bench/run.sh after its helpers (row, report, ratio, verdict, note, load,
# EXTRA_PIDS, OUT_DIR, BENCH_VAR, the stack's environment); defines bench_clients. The method
# of every row is written up in docs/PERFORMANCE.md, "Clients side by side with Syncthing".
#
# 1. initial sync of a generated 1 GiB folder (tools/bench/genfolder.py, seed 25, cached in
#    BENCH_CLIENTS_CACHE, default /var/tmp/pouch-bench-clients, and checked against its b3sum
#    list on every run): Pouch `pouch push` on A then `pouch pull` on B, against Syncthing A and
#    B from their start-up until B's REST API says the folder is complete; B byte-identical
#    (b3sum list) in both cases, checked after the clock stops;
# 2. propagation: 50 single-file edits on A with both sides watching (tools/bench/propagate.py);
# 3. shifted data: one byte inserted at the start of a 256 MiB file both sides hold;
# 4. CPU of that `pouch push` against openssl speed's AES-256-GCM plus b3sum of the same bytes;
# 5. the web app (tools/bench/web.mjs, when present).
# BENCH_CLIENT_EDITS (50) and BENCH_CLIENT_INTERVAL (2) shape row 2.
# shellcheck shell=bash disable=SC2030,SC2031  # POUCH is local to bench_clients on purpose

CLIENTS_CACHE=${BENCH_CLIENTS_CACHE:-/var/tmp/pouch-bench-clients}
CLIENTS_FILES=10000
CLIENTS_SHIFT_SIZE=$((256 * 1024 * 1024))

# clients_sums DIR: "b3hash  ./path" of every regular file under DIR, sorted by path, with
# Syncthing's folder marker left out (anything else, a client's temporary file too, counts).
clients_sums() {
    (cd "$1" && find . -type f ! -path './.stfolder/*' -print0 | sort -z | xargs -0 -r b3sum)
}

# clients_data: the cached folder and 256 MiB file, made once (under a lock, as several
# worktrees share the cache) and checked against their b3sum list on every run; remade when
# the list does not match, or the generator changed.
clients_data() {
    local stamp
    stamp="genfolder $(b3sum --no-names tools/bench/genfolder.py) files $CLIENTS_FILES shift $CLIENTS_SHIFT_SIZE"
    mkdir -p "$CLIENTS_CACHE"
    (
        flock 9
        if [[ -f $CLIENTS_CACHE/stamp && $(cat "$CLIENTS_CACHE/stamp") == "$stamp" ]] &&
            [[ $(wc -l <"$CLIENTS_CACHE/folder.b3") == "$CLIENTS_FILES" ]] &&
            [[ $(find "$CLIENTS_CACHE/folder" -type f | wc -l) == "$CLIENTS_FILES" ]] &&
            (cd "$CLIENTS_CACHE/folder" && b3sum --check --quiet ../folder.b3 >/dev/null) &&
            (cd "$CLIENTS_CACHE" && b3sum --check --quiet shift.b3 >/dev/null); then
            echo "clients: cached data in $CLIENTS_CACHE checked" >&2
            exit 0
        fi
        echo "clients: generating 1 GiB in $CLIENTS_FILES files and a 256 MiB file in $CLIENTS_CACHE" >&2
        rm -rf "$CLIENTS_CACHE/folder" "$CLIENTS_CACHE/shift.bin" "$CLIENTS_CACHE"/*.b3 "$CLIENTS_CACHE/stamp"
        python3 tools/bench/genfolder.py folder "$CLIENTS_CACHE/folder" --seed 25 &&
            python3 tools/bench/genfolder.py file "$CLIENTS_CACHE/shift.bin" "$CLIENTS_SHIFT_SIZE" --seed 256 &&
            clients_sums "$CLIENTS_CACHE/folder" >"$CLIENTS_CACHE/folder.b3" &&
            (cd "$CLIENTS_CACHE" && b3sum shift.bin >shift.b3) &&
            echo "$stamp" >"$CLIENTS_CACHE/stamp"
    ) 9>"$CLIENTS_CACHE.lock"
}

# clients_same DIR: DIR holds exactly the cached folder's files and bytes.
clients_same() { [[ $(clients_sums "$1") == "$(cat "$CLIENTS_CACHE/folder.b3")" ]]; }

# share BYTES SIZE: BYTES / SIZE to 4 places (the shifted-data rows: 3 % is 0.0300).
share() { awk -v a="$1" -v b="$2" 'BEGIN { if (a != "" && b > 0) printf "%.4f", a / b; else print "n/a" }'; }

# clients_cpu FILE: "user+sys" seconds from /usr/bin/time -f '%e %U %S' output.
clients_cpu() { awk 'END { printf "%.2f", $2 + $3 }' "$1"; }

# --- Syncthing -----------------------------------------------------------------------------------
# st NAME PATH: REST GET on instance NAME (a or b).
st() {
    local port=ST_GUI_$1 key=ST_KEY_$1
    curl -fsS --max-time 5 -H "X-API-Key: ${!key}" "http://127.0.0.1:${!port}$2"
}

# clients_st_setup: two homes, each paired with the other, sharing folder "bench" (A: SA, B: SB).
clients_st_setup() {
    local s id_a id_b
    for s in a b; do
        STNODEFAULTFOLDER=1 syncthing generate --home="$CL/st-$s" >"$CL/st-$s.gen" 2>&1 ||
            { note "clients: syncthing generate failed: $(cat "$CL/st-$s.gen")"; return 1; }
    done
    id_a=$(sed -n 's/^Device ID: //p' "$CL/st-a.gen")
    id_b=$(sed -n 's/^Device ID: //p' "$CL/st-b.gen")
    stack_free_port ST_PORT_a
    stack_free_port ST_GUI_a
    stack_free_port ST_PORT_b
    stack_free_port ST_GUI_b
    ST_KEY_a=$(openssl rand -hex 16)
    ST_KEY_b=$(openssl rand -hex 16)
    python3 tools/bench/syncthing_config.py "$CL/st-a" --name a --listen "$ST_PORT_a" --gui "$ST_GUI_a" \
        --apikey "$ST_KEY_a" --folder "$SA" --peer-id "$id_b" --peer-port "$ST_PORT_b" --watch-delay 1 &&
        python3 tools/bench/syncthing_config.py "$CL/st-b" --name b --listen "$ST_PORT_b" --gui "$ST_GUI_b" \
            --apikey "$ST_KEY_b" --folder "$SB" --peer-id "$id_a" --peer-port "$ST_PORT_a" --watch-delay 1
}

clients_st_start() {
    local s
    for s in a b; do
        STNOUPGRADE=1 syncthing serve --home="$CL/st-$s" --no-browser --no-restart \
            --logfile="$OUT_DIR/syncthing-$s.log" >/dev/null 2>&1 </dev/null &
        EXTRA_PIDS+=("$!")
        ST_PIDS+=("$!")
    done
}

# clients_st_procs: the Syncthing processes: the two started and their children (1.19 runs
# its work in a child of a monitor process even with --no-restart).
clients_st_procs() {
    local pid
    for pid in "${ST_PIDS[@]}"; do
        echo "$pid"
        pgrep -P "$pid" || true
    done
}

# clients_st_cpu: user+sys CPU seconds of all Syncthing processes so far (/proc/PID/stat).
clients_st_cpu() {
    local pid ticks=0 t
    for pid in $(clients_st_procs); do
        t=$(awk '{ sub(/^.*\) /, ""); print $12 + $13 }' "/proc/$pid/stat" 2>/dev/null) || t=0
        ticks=$((ticks + ${t:-0}))
    done
    awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", t / hz }'
}

clients_st_stop() {
    local pid children
    children=$(for pid in "${ST_PIDS[@]}"; do pgrep -P "$pid" || true; done)
    for pid in "${ST_PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    for pid in $children; do
        stack_wait_gone "$pid" 50 || kill -KILL "$pid" 2>/dev/null || true
    done
    ST_PIDS=()
}

# clients_st_done NAME FILES: instance NAME's folder is idle with FILES local files and none
# needed (and FILES in the global view, so a B that has not heard of A yet is not "done").
clients_st_done() {
    local s pid
    for pid in "${ST_PIDS[@]}"; do
        kill -0 "$pid" 2>/dev/null || { note "clients: a Syncthing process ended (see $OUT_DIR/syncthing-?.log)"; return 2; }
    done
    s=$(st "$1" "/rest/db/status?folder=bench" 2>/dev/null) || return 1
    [[ $(jq -r '"\(.state) \(.globalFiles) \(.localFiles) \(.needFiles)"' <<<"$s") == "idle $2 $2 0" ]]
}

# clients_caught_up NAME DEVICE_ID: device NAME has reported the pouch's last event as applied
# (its cursor, PUT /v1/devices/me/cursor after each run of pages, at the pouch's high water);
# status 2 when its follower (pid CLIENTS_FOLLOWER) has ended.
clients_caught_up() {
    kill -0 "$CLIENTS_FOLLOWER" 2>/dev/null || { note "clients: pouch pull --watch on $1 ended (see $OUT_DIR/clients-$1.log)"; return 2; }
    [[ $(psql "$POUCH_DATABASE_URL" -XAtc "SELECT coalesce(bool_or(c.acked_seq >= p.high_water), false)
        FROM pouches p JOIN device_cursors c ON c.pouch_id = p.id AND c.epoch = p.epoch
        WHERE p.id = '$POUCH_ID' AND c.device_id = '$2' AND p.high_water > 0") == t ]]
}

# clients_wait SECONDS INTERVAL COMMAND...: runs COMMAND every INTERVAL s until it succeeds.
# Status 2 from COMMAND (a Syncthing process ended) stops the wait at once.
clients_wait() {
    local deadline=$((SECONDS + $1)) interval=$2 rc
    shift 2
    while true; do
        rc=0
        "$@" || rc=$?
        ((rc == 0)) && return 0
        ((rc != 2 && SECONDS < deadline)) || return 1
        sleep "$interval"
    done
}

# clients_st_bytes: "A's outBytesTotal B's inBytesTotal" from their own statistics.
clients_st_bytes() {
    echo "$(st a /rest/system/connections | jq .total.outBytesTotal) $(st b /rest/system/connections | jq .total.inBytesTotal)"
}

# --- Pouch -----------------------------------------------------------------------------------------
# pc NAME ARGS...: the pouch CLI as device NAME (pa or pb), output to OUT_DIR/clients-NAME.log.
pc() {
    local name=$1
    shift
    XDG_CONFIG_HOME=$DEVICES/$name timeout --kill-after=5 900 "$POUCH" "$@" \
        >>"$OUT_DIR/clients-$name.log" 2>&1 </dev/null
}

# The blob bytes the service stored for the account after MARK (a timestamp of PostgreSQL's).
clients_blob_bytes() {
    psql "$POUCH_DATABASE_URL" -XAtF' ' -c "SELECT coalesce(sum(stored_size), 0), count(*) FROM blobs
        WHERE account_id = '$PC_ACCOUNT' AND created_at > '$1'"
}

bench_clients() {
    # devices.sh sets POUCH (the CLI's path), BIN and TESTWEB; POUCH is the smoke flows' pouch id
    # elsewhere in run.sh, so they stay local here.
    local POUCH BIN TESTWEB DEVICES WEB_STATE CL SA SB PA PB ST_PIDS=()
    local ST_PORT_a ST_PORT_b ST_GUI_a ST_GUI_b ST_KEY_a ST_KEY_b PC_ACCOUNT
    local t0 t1 t2 f r
    for cmd in syncthing b3sum python3 /usr/bin/time flock; do
        command -v "$cmd" >/dev/null || {
            row "clients: $cmd not found (make bench-deps)" - - - "all rows" MISSED
            return 0
        }
    done
    CL=$BENCH_VAR/clients
    [[ ${BENCH_APPEND:-0} == 1 ]] || : >"$OUT_DIR/clients.jsonl"
    DEVICES=$CL/devices
    WEB_STATE=$DEVICES/web
    SA=$CL/st-a-folder SB=$CL/st-b-folder PA=$CL/pouch-a-folder PB=$CL/pouch-b-folder
    mkdir -p "$CL"
    : >"$OUT_DIR/clients-pa.log"
    : >"$OUT_DIR/clients-pb.log"
    clients_data || { row "clients: the test data could not be made (see the log)" - - - "all rows" MISSED; return 0; }
    # Both A sides are hard links to the cache (cheap, and neither client writes to A's files
    # in rows 1 and 2; copies when the cache is on another file system); B sides start empty.
    cp -al "$CLIENTS_CACHE/folder" "$PA" 2>/dev/null || { rm -rf "$PA"; cp -a "$CLIENTS_CACHE/folder" "$PA"; }
    cp -al "$CLIENTS_CACHE/folder" "$SA" 2>/dev/null || { rm -rf "$SA"; cp -a "$CLIENTS_CACHE/folder" "$SA"; }
    mkdir -p "$PB" "$SA/.stfolder" "$SB/.stfolder"

    # shellcheck source=tests/lib/devices.sh
    source tests/lib/devices.sh
    if ! web_account || ! login pa || ! login pb; then
        row "clients: no logged-in Pouch devices (${SMOKE_ERRORS[*]:-})" - - - "all rows" MISSED
        return 0
    fi
    # The default plan holds 1 GiB; the bench account gets a plan that holds the run.
    PC_ACCOUNT=$(jq -r .account_id "$(cfg pa)/device.json")
    psql "$POUCH_DATABASE_URL" -Xq -v ON_ERROR_STOP=1 >/dev/null <<EOF
INSERT INTO plans (slug, name, pouch_limit, storage_bytes, is_default, is_public)
VALUES ('bench-clients', 'bench clients', 5, 1099511627776, false, false) ON CONFLICT (slug) DO NOTHING;
UPDATE storage_accounts SET plan_id = (SELECT id FROM plans WHERE slug = 'bench-clients') WHERE id = '$PC_ACCOUNT';
EOF

    # --- 4 (baseline). The unavoidable CPU of 1 GiB: AES-256-GCM and BLAKE3 ------------------------
    # openssl speed counts user CPU time; its 16384-byte figure (1000s of bytes per second)
    # becomes CPU seconds per GiB. b3sum on one thread (the least CPU it can spend) over the
    # files of the folder, user+sys of the whole pipeline; this also warms the page cache for
    # both clients alike.
    local aes_kbs aes_s b3_s base_s
    aes_kbs=$(openssl speed -evp aes-256-gcm -bytes 16384 -seconds 3 2>/dev/null | tee "$OUT_DIR/openssl-speed-aes.txt" |
        awk 'tolower($1) == "aes-256-gcm" { sub(/k$/, "", $NF); print $NF }')
    aes_s=$(awk -v k="$aes_kbs" 'BEGIN { if (k > 0) printf "%.3f", 1073741824 / (k * 1000); else print "" }')
    /usr/bin/time -f '%e %U %S' -o "$CL/b3sum.time" sh -c \
        "cd '$CLIENTS_CACHE/folder' && find . -type f -print0 | xargs -0 b3sum --num-threads 1 >/dev/null" || true
    b3_s=$(clients_cpu "$CL/b3sum.time")
    base_s=$(awk -v a="$aes_s" -v b="$b3_s" 'BEGIN { if (a != "") printf "%.2f", a + b }')

    # --- 1. initial sync -------------------------------------------------------------------------
    # As Syncthing's two instances run at once, so do the two devices: B follows the pouch
    # (`pouch pull --watch`, the event feed's long-poll) while A pushes. B is complete when its
    # reported cursor reaches the pouch's last event (polled once A's push has ended); its
    # folder is compared with A's afterwards, untimed, as Syncthing's is.
    local push_rc=0 pull_rc=0 push_s pull_s pouch_s pouch_ok=0 push_cpu tpid bpid
    t0=$(now_ms)
    /usr/bin/time -f '%e %U %S' -o "$CL/pull.time" env XDG_CONFIG_HOME="$DEVICES/pb" \
        "$POUCH" pull "$PB" --watch >>"$OUT_DIR/clients-pb.log" 2>&1 </dev/null &
    tpid=$!
    CLIENTS_FOLLOWER=$tpid
    EXTRA_PIDS+=("$tpid")
    /usr/bin/time -f '%e %U %S' -o "$CL/push.time" env XDG_CONFIG_HOME="$DEVICES/pa" \
        timeout --kill-after=5 900 "$POUCH" push "$PA" >>"$OUT_DIR/clients-pa.log" 2>&1 </dev/null || push_rc=$?
    t1=$(now_ms)
    clients_wait 600 0.1 clients_caught_up pb "$(device_id pb)" || pull_rc=1
    t2=$(now_ms)
    bpid=$(pgrep -P "$tpid" || true)
    [[ -n $bpid ]] && kill -INT "$bpid" 2>/dev/null
    wait "$tpid" 2>/dev/null || true
    push_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1000 }')
    pull_s=$(awk -v a="$t1" -v b="$t2" 'BEGIN { printf "%.1f", (b - a) / 1000 }')
    pouch_s=$(awk -v a="$t0" -v b="$t2" 'BEGIN { printf "%.1f", (b - a) / 1000 }')
    push_cpu=$(clients_cpu "$CL/push.time")
    ((push_rc == 0 && pull_rc == 0)) && clients_same "$PB" && pouch_ok=1
    ((pouch_ok)) || note "clients: Pouch initial sync: push exit $push_rc, B caught up: $( ((pull_rc)) && echo no || echo yes), B byte-identical: $(clients_same "$PB" && echo yes || echo no)"

    local st_s="" st_ok=0 st_cpu=""
    if clients_st_setup; then
        t0=$(now_ms)
        clients_st_start
    fi
    if ((${#ST_PIDS[@]})) && clients_wait 600 0.1 clients_st_done b "$CLIENTS_FILES"; then
        t1=$(now_ms)
        st_cpu=$(clients_st_cpu)
        st_s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) / 1000 }')
        clients_same "$SB" && st_ok=1
    fi
    ((st_ok)) || note "clients: Syncthing initial sync did not complete byte-identical (${st_s:-no completion} s; see $OUT_DIR/syncthing-b.log)"
    printf '"Pouch (push %s s, B done %s s later)" %s\n"Syncthing (start-up to B complete)" %s\n' "$push_s" "$pull_s" \
        "${pouch_s:-0}" "${st_s:-0}" >"$OUT_DIR/clients-sync.dat"
    r=$(ratio "$pouch_s" "$st_s")
    f=$((2 - pouch_ok - st_ok))
    row "clients: initial sync of 1 GiB in 10,000 files A -> B, Pouch vs Syncthing, s (Pouch: pouch push on A ${push_s} s while pouch pull --watch on B follows, B complete ${pull_s} s after A's push ended; Syncthing: from start-up to B complete; B byte-identical: Pouch $( ((pouch_ok)) && echo yes || echo no), Syncthing $( ((st_ok)) && echo yes || echo no))" \
        "$pouch_s" "${st_s:-n/a}" "$r" "<= 1.0" "$(verdict "$r" 1.0 le "$f")"

    report "clients: CPU of the initial sync, Pouch push + pull --watch (user+sys s; the service's handlers not counted) vs Syncthing A + B at completion" \
        "$(awk -v a="$push_cpu" -v b="$(clients_cpu "$CL/pull.time")" 'BEGIN { printf "%.2f", a + b }')" "${st_cpu:-n/a}" \
        "$(ratio "$(awk -v a="$push_cpu" -v b="$(clients_cpu "$CL/pull.time")" 'BEGIN { printf "%.2f", a + b }')" "$st_cpu")" "$f"

    # --- 4. CPU per GiB, from row 1's push --------------------------------------------------------
    r=$(ratio "$push_cpu" "$base_s")
    row "clients: CPU of pouch push of 1 GiB (user+sys s) vs AES-256-GCM (openssl speed, ${aes_s:-?} s) + b3sum (${b3_s} s) of the same bytes" \
        "$push_cpu" "$base_s" "$r" "<= 2.0" "$(verdict "$r" 2.0 le $((push_rc != 0)))"

    # --- 2. propagation of one edit, both sides watching -----------------------------------------
    local edits=${BENCH_CLIENT_EDITS:-50} interval=${BENCH_CLIENT_INTERVAL:-2} wa wb pj="" sj=""
    XDG_CONFIG_HOME=$DEVICES/pa "$POUCH" sync "$PA" --watch >"$OUT_DIR/clients-watch-a.log" 2>&1 </dev/null &
    wa=$!
    XDG_CONFIG_HOME=$DEVICES/pb "$POUCH" sync "$PB" --watch >"$OUT_DIR/clients-watch-b.log" 2>&1 </dev/null &
    wb=$!
    EXTRA_PIDS+=("$wa" "$wb")
    # One edit first, untimed: both watchers are up and through their first pass.
    python3 tools/bench/propagate.py "$PA/edit.txt" "$PB/edit.txt" --edits 1 --timeout 180 --tmp "$CL" \
        --out "$CL/warm.dat" --label warm >/dev/null || true
    pj=$(python3 tools/bench/propagate.py "$PA/edit.txt" "$PB/edit.txt" --edits "$edits" --interval "$interval" \
        --tmp "$CL" --out "$OUT_DIR/clients-prop-pouch.dat" --label pouch) || true
    kill -INT "$wa" "$wb" 2>/dev/null || true
    wait "$wa" "$wb" 2>/dev/null || true
    if ((${#ST_PIDS[@]})); then
        python3 tools/bench/propagate.py "$SA/edit.txt" "$SB/edit.txt" --edits 1 --timeout 180 --tmp "$CL" \
            --out "$CL/warm.dat" --label warm >/dev/null || true
        sj=$(python3 tools/bench/propagate.py "$SA/edit.txt" "$SB/edit.txt" --edits "$edits" --interval "$interval" \
            --tmp "$CL" --out "$OUT_DIR/clients-prop-syncthing.dat" --label syncthing) || true
    fi
    [[ -n ${pj:-} ]] || pj='{}'
    [[ -n ${sj:-} ]] || sj='{}'
    jq -c '{client: "pouch"} + .' <<<"$pj" | tee -a "$OUT_DIR/clients.jsonl" >&2
    jq -c '{client: "syncthing"} + .' <<<"$sj" | tee -a "$OUT_DIR/clients.jsonl" >&2
    local pp99 sp99 plost slost
    pp99=$(jq -r '.p99_ms // empty' <<<"$pj")
    plost=$(jq -r '.lost // 1' <<<"$pj")
    sp99=$(jq -r '.p99_ms // empty' <<<"$sj")
    slost=$(jq -r '.lost // 1' <<<"$sj")
    local pdesc sdesc
    pdesc=$(jq -r '"\(.seen)/\(.edits) seen; p50 \(.p50_ms) ms, max \(.max_ms) ms"' <<<"$pj")
    sdesc=$(jq -r '"\(.seen)/\(.edits) seen; p50 \(.p50_ms) ms, max \(.max_ms) ms"' <<<"$sj")
    r=$(ratio "$pp99" 1000)
    row "clients: propagation of one edit A -> B, both watching, Pouch p99 ms ($edits edits one every ${interval} s; $pdesc)" \
        "${pp99:-n/a}" "1000 ms" "$r" "<= 1000 ms" "$(verdict "$r" 1.0 le "$plost")"
    r=$(ratio "$pp99" "$sp99")
    row "clients: propagation of one edit, Pouch p99 vs Syncthing p99, ms (Syncthing: watcher delay 1 s; $sdesc)" \
        "${pp99:-n/a}" "${sp99:-n/a}" "$r" "<= 0.5" "$(verdict "$r" 0.5 le $((plost + slost)))"

    # --- 3. shifted data: one byte inserted at the start of a 256 MiB file both sides hold --------
    local mark pbytes pblobs shifted=$CL/shift-shifted.bin pshift_ok=0 sshift_ok=0 before after sa_out sb_in
    { printf 'X'; cat "$CLIENTS_CACHE/shift.bin"; } >"$shifted"
    cp "$CLIENTS_CACHE/shift.bin" "$PA/shift.bin"
    { pc pa push "$PA" && pc pb pull "$PB"; } || true
    if cmp -s "$CLIENTS_CACHE/shift.bin" "$PB/shift.bin"; then
        mark=$(psql "$POUCH_DATABASE_URL" -XAtc "SELECT clock_timestamp()")
        cp "$shifted" "$CL/shift.tmp"
        mv "$CL/shift.tmp" "$PA/shift.bin"
        { pc pa push "$PA" && pc pb pull "$PB"; } || true
        read -r pbytes pblobs <<<"$(clients_blob_bytes "$mark")"
        cmp -s "$shifted" "$PB/shift.bin" && pshift_ok=1
    fi
    ((pshift_ok)) || note "clients: Pouch shifted file: B does not hold the file (see $OUT_DIR/clients-p?.log)"
    r=$(share "${pbytes:-}" "$CLIENTS_SHIFT_SIZE")
    row "clients: shifted data, one byte inserted at the start of a 256 MiB file, Pouch blob bytes uploaded / file size (${pblobs:-?} blobs stored)" \
        "${pbytes:-n/a}" "$CLIENTS_SHIFT_SIZE" "$r" "<= 0.03" "$(verdict "$r" 0.03 le $((1 - pshift_ok)))"

    if ((${#ST_PIDS[@]})); then
        cp "$CLIENTS_CACHE/shift.bin" "$CL/shift.tmp"
        mv "$CL/shift.tmp" "$SA/shift.bin"
        # +2: edit.txt and shift.bin.
        if clients_wait 600 0.2 clients_st_done b $((CLIENTS_FILES + 2)) && clients_wait 60 0.2 clients_st_done a $((CLIENTS_FILES + 2)) &&
            cmp -s "$CLIENTS_CACHE/shift.bin" "$SB/shift.bin"; then
            sleep 2
            before=$(clients_st_bytes)
            cp "$shifted" "$CL/shift.tmp"
            mv "$CL/shift.tmp" "$SA/shift.bin"
            clients_wait 600 0.2 sh -c "cmp -s '$shifted' '$SB/shift.bin' || exit 1" || true
            clients_wait 60 0.2 clients_st_done b $((CLIENTS_FILES + 2)) || true
            sleep 2
            after=$(clients_st_bytes)
            cmp -s "$shifted" "$SB/shift.bin" && sshift_ok=1
            read -r sa_out sb_in <<<"$(awk -v b="$before" -v a="$after" 'BEGIN { split(b, x, " "); split(a, y, " "); print y[1] - x[1], y[2] - x[2] }')"
        fi
    fi
    ((sshift_ok)) || note "clients: Syncthing shifted file: B does not hold the file"
    r=$(share "${sa_out:-}" "$CLIENTS_SHIFT_SIZE")
    report "clients: shifted data, Syncthing bytes sent by A / file size (its /rest/system/connections outBytesTotal; B received ${sb_in:-?}; reference for the 0.03 target)" \
        "${sa_out:-n/a}" "$CLIENTS_SHIFT_SIZE" "$r" $((1 - sshift_ok))
    clients_st_stop

    clients_web

}

# --- 5. the web app: tools/bench/web.mjs (Chromium through playwright-core) uploads and downloads
# a 100 MiB file with the app and with a plain fetch PUT/GET of the same bytes in the same page;
# its JSON: {"upload_ms","fetch_put_ms","download_ms","fetch_get_ms","max_main_thread_block_ms",
# the reference figures, "cpu_ms" (the machine's CPU during each), "cores",
# "ok","error"}. A missing script, a failed run or "ok": false makes the rows MISSED.
clients_web() {
    local wj ok r err up fput down fget block
    if [[ ! -f tools/bench/web.mjs ]]; then
        row "clients: web app upload of 100 MiB in Chromium vs a plain fetch PUT (tools/bench/web.mjs missing)" n/a n/a n/a ">= 0.5" MISSED
        row "clients: web app download of 100 MiB in Chromium vs a plain fetch GET (tools/bench/web.mjs missing)" n/a n/a n/a ">= 0.5" MISSED
        report "clients: web app, longest main-thread block during upload and download, ms (tools/bench/web.mjs missing)" n/a - - 1
    else
        rm -f "$OUT_DIR/web.json"
        BUILD=$STACK_BUILD timeout --kill-after=5 600 node tools/bench/web.mjs --url "$STACK_URL" --size-mib 100 --rounds 3 --out "$OUT_DIR/web.json" \
            >"$OUT_DIR/web.log" 2>&1 || note "clients: tools/bench/web.mjs exited non-zero (see $OUT_DIR/web.log)"
        wj=$(jq -c . "$OUT_DIR/web.json" 2>/dev/null || echo '{}')
        ok=$(jq -r 'if .ok == true then 0 else 1 end' <<<"$wj")
        err=$(jq -j '.error // "" | tostring' <<<"$wj" | tr '\n|' '  ' | cut -c1-120)
        [[ $ok == 0 || -n $err ]] || err="no result (see $OUT_DIR/web.log)"
        IFS='|' read -r up fput down fget block <<<"$(jq -r '[.upload_ms, .fetch_put_ms, .download_ms, .fetch_get_ms, .max_main_thread_block_ms] | map(if type == "number" then tostring else "" end) | join("|")' <<<"$wj")"
        r=$(ratio "$fput" "$up")
        row "clients: web app upload of 100 MiB in Chromium, ms (baseline: a plain fetch PUT of the same bytes in the same page; ratio fetch / app = the app's share of fetch's throughput)${err:+; $err}" \
            "${up:-n/a}" "${fput:-n/a}" "$r" ">= 0.5" "$(verdict "$r" 0.5 ge "$ok")"
        r=$(ratio "$fget" "$down")
        row "clients: web app download of 100 MiB in Chromium, ms (baseline: a plain fetch GET; ratio fetch / app)" \
            "${down:-n/a}" "${fget:-n/a}" "$r" ">= 0.5" "$(verdict "$r" 0.5 ge "$ok")"
        # Responsive: no main-thread gap over RAIL's 100 ms input budget (the probe ticks every 10 ms).
        r=$(ratio "$block" 100)
        row "clients: web app, longest main-thread gap during upload and download (setInterval 10 ms probe), ms" \
            "${block:-n/a}" "100 ms" "$r" "<= 1.0" "$(verdict "$r" 1.0 le "$ok")"
        # What bounds the upload, from the same page after the rounds (web.mjs's reference
        # figures, medians): each a time against the plain fetch PUT, ratio fetch / it, so
        # the last is the best the upload row could read with the app's own steps free.
        local aes seal sput ssvc rcut fosvc rf
        IFS='|' read -r aes seal sput ssvc rcut fosvc <<<"$(jq -r '[.crypto_ms, .crypto_hash_ms, .seal_put_ms, .seal_service_ms, .read_cut_ms, .fetch_open_service_ms] | map(if type == "number" and . > 0 then tostring else "" end) | join("|")' <<<"$wj")"
        rf=$(jq -r 'if .ok == true and (.ref_error // "") == "" then 0 else 1 end' <<<"$wj")
        report "clients: web app reference, AES-256-GCM alone of the 100 MiB in the app's worker count and pipeline (WebCrypto, no network), ms (baseline: the plain fetch PUT; ratio fetch / this)" \
            "${aes:-n/a}" "${fput:-n/a}" "$(ratio "$fput" "$aes")" "$rf"
        report "clients: web app reference, the app's sealing (its chunk worker: AES-256-GCM + BLAKE3 of plaintext and sealed bytes, no network), ms (ratio fetch / this)" \
            "${seal:-n/a}" "${fput:-n/a}" "$(ratio "$fput" "$seal")" "$rf"
        report "clients: web app reference, the app's sealing + each chunk PUT to a plain nginx location (its client side), ms (ratio fetch / this)" \
            "${sput:-n/a}" "${fput:-n/a}" "$(ratio "$fput" "$sput")" "$rf"
        report "clients: web app reference, the app's sealing + the service's blob check and blob PUT (no file read, no commit), ms (ratio fetch / this: the best the upload row can read)" \
            "${ssvc:-n/a}" "${fput:-n/a}" "$(ratio "$fput" "$ssvc")" "$rf"
        report "clients: web app reference, reading and cutting the file as the app does, here on the page's main thread (the app cuts in a worker), ms" \
            "${rcut:-n/a}" - - "$rf"
        report "clients: web app reference, those blobs fetched back from the service and opened by the app's worker (no file written), ms (baseline: the plain fetch GET; ratio fetch / this: the best the download row can read)" \
            "${fosvc:-n/a}" "${fget:-n/a}" "$(ratio "$fget" "$fosvc")" "$rf"
        # The machine's CPU (all cores) during the rows above (web.mjs cpu_ms): when the app
        # keeps every core busy, 0.5 needs its work to fit in twice fetch's time on all cores.
        local cores cu cp cd cg
        IFS='|' read -r cores cu cp cd cg <<<"$(jq -r '[.cores, .cpu_ms.upload, .cpu_ms.fetch_put, .cpu_ms.download, .cpu_ms.fetch_get] | map(if type == "number" then tostring else "" end) | join("|")' <<<"$wj")"
        budget() { awk -v f="$1" -v c="$cores" 'BEGIN { if (f != "" && c != "") printf "%d", 2 * f * c; else print "n/a" }'; }
        busy() { awk -v x="$1" -v t="$2" -v c="$cores" 'BEGIN { if (x != "" && t > 0 && c > 0) printf "%d %%", 100 * x / (t * c); else print "n/a" }'; }
        report "clients: web app upload, the machine's CPU during it, all $cores cores, ms (baseline: during the plain fetch PUT; ratio fetch / app)" \
            "${cu:-n/a}" "${cp:-n/a}" "$(ratio "$cp" "$cu")" "$ok" \
            "cores busy $(busy "$cu" "$up") of the app's upload, $(busy "$cp" "$fput") of fetch's; 0.5 means at most $(budget "$fput") ms of CPU; the references' CPU: sealing $(jq -r '.cpu_ms.crypto_hash // "n/a"' <<<"$wj"), sealing + the service's check and PUT $(jq -r '.cpu_ms.seal_service // "n/a"' <<<"$wj"), reading and cutting $(jq -r '.cpu_ms.read_cut // "n/a"' <<<"$wj")"
        report "clients: web app download, the machine's CPU during it, all $cores cores, ms (baseline: during the plain fetch GET; ratio fetch / app)" \
            "${cd:-n/a}" "${cg:-n/a}" "$(ratio "$cg" "$cd")" "$ok" \
            "cores busy $(busy "$cd" "$down") of the app's download, $(busy "$cg" "$fget") of fetch's; 0.5 means at most $(budget "$fget") ms of CPU; the reference's CPU: fetched back and opened $(jq -r '.cpu_ms.fetch_open_service // "n/a"' <<<"$wj")"
    fi
}
