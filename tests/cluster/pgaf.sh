# pgaf.sh -- the cluster test's database tier (tests/cluster/run.sh): pg_auto_failover from
# Debian (postgresql-15-auto-failover, pg-auto-failover-cli) as production runs it -- a
# monitor, then node1 (primary) and node2 (a synchronous standby made by pg_basebackup) -- each
# a `pg_autoctl run` keeper in its own process group, as the service user, on local ports of the
# bridge address (net.sh). PostgreSQL keeps fsync and synchronous_commit on. Failure detection
# is tuned down from the defaults (docs/SCALING.md gives both) so a failover takes seconds.
# Sourced after tools/stack/lib.sh (STACK_*, PG_BIN, stack_as) and net.sh.
# shellcheck shell=bash

PGAF_DIR=""
PGAF_MONITOR_PORT=""
PGAF_MONITOR_URI=""
PGAF_NODES=(node1 node2)
declare -A PGAF_PORT=()     # node name -> port
declare -A PGAF_KEEPER=()   # node name (and "monitor") -> pid of its keeper (= process group)

# The monitor's failure detection, in ms (defaults: 5000, 5000, 2, 2000, 20000, 30000), and the
# keepers' network partition timeout in s (default 20), which must stay below the monitor's
# primary_demote_timeout: an isolated primary demotes itself before its standby is promoted.
PGAF_MONITOR_SETTINGS="
pgautofailover.health_check_period = 1000
pgautofailover.health_check_timeout = 1000
pgautofailover.health_check_max_retries = 1
pgautofailover.health_check_retry_delay = 500
pgautofailover.node_considered_unhealthy_timeout = 3000
pgautofailover.primary_demote_timeout = 5000"
PGAF_NETWORK_PARTITION_TIMEOUT=3

# pgaf_as COMMAND...: COMMAND as the service user, with pg_autoctl's configuration and state
# under PGAF_DIR (it keeps them in XDG directories) and PostgreSQL's sockets in STACK_RUN.
pgaf_as() {
    stack_as env PATH="$PG_BIN:$PATH" XDG_CONFIG_HOME="$PGAF_DIR/xdg/config" \
        XDG_DATA_HOME="$PGAF_DIR/xdg/data" XDG_RUNTIME_DIR="$PGAF_DIR/xdg/run" PGHOST="$STACK_RUN" \
        "$@"
}

# pgaf_monitor_sql QUERY: one value (or rows) from the monitor's pg_auto_failover database.
pgaf_monitor_sql() {
    "$PG_BIN/psql" -X -q -At -h 127.0.0.1 -p "$PGAF_MONITOR_PORT" -U pouch -d pg_auto_failover -c "$1"
}

# pgaf_node_sql NODE QUERY: one value from a node's pouch database.
pgaf_node_sql() {
    "$PG_BIN/psql" -X -q -At -h "$NET_GATEWAY" -p "${PGAF_PORT[$1]}" -U pouch -d pouch -c "$2"
}

# pgaf_initdb DIR: an empty cluster with the settings pg_autoctl's own include would get wrong
# here (it sizes shared_buffers from the machine's memory and listens on '*'). They go in
# postgresql.auto.conf, read after every include; pg_basebackup copies it to the standby.
pgaf_initdb() {
    stack_as "$PG_BIN/initdb" -D "$1" -U pouch --auth=trust -E UTF8 --locale=C.UTF-8 \
        --no-instructions >"$PGAF_DIR/initdb-$(basename "$1").log" 2>&1 ||
        stack_die "initdb $1 failed (log: $PGAF_DIR/initdb-$(basename "$1").log)"
    stack_as tee -a "$1/postgresql.auto.conf" >/dev/null <<EOF
unix_socket_directories = '$STACK_RUN'
shared_buffers = '64MB'
max_connections = 200
client_connection_check_interval = '2s'
EOF
}

# pgaf_keeper NAME: starts `pg_autoctl run` for PGAF_DIR/NAME in its own process group.
pgaf_keeper() {
    local name=$1
    (cd "$PGAF_DIR" && exec setsid "${STACK_AS[@]}" env PATH="$PG_BIN:$PATH" \
        XDG_CONFIG_HOME="$PGAF_DIR/xdg/config" XDG_DATA_HOME="$PGAF_DIR/xdg/data" \
        XDG_RUNTIME_DIR="$PGAF_DIR/xdg/run" PGHOST="$STACK_RUN" \
        pg_autoctl run --pgdata "$PGAF_DIR/$name") >>"$STACK_DIR/log/pgaf-$name.log" 2>&1 &
    PGAF_KEEPER[$name]=$!
}

# pgaf_states: "node1:primary:primary node2:secondary:secondary" (reported:assigned).
pgaf_states() {
    pgaf_monitor_sql "SELECT string_agg(nodename || ':' || reportedstate || ':' || goalstate, ' '
                      ORDER BY nodeid) FROM pgautofailover.node" 2>/dev/null
}

# pgaf_primary: the node reported and assigned primary, or nothing.
pgaf_primary() {
    pgaf_monitor_sql "SELECT nodename FROM pgautofailover.node
                      WHERE reportedstate = 'primary' AND goalstate = 'primary'" 2>/dev/null
}

# pgaf_state_is NODE STATE: reported and assigned STATE.
pgaf_state_is() {
    [[ $(pgaf_monitor_sql "SELECT reportedstate || ':' || goalstate FROM pgautofailover.node
                           WHERE nodename = '$1'" 2>/dev/null) == "$2:$2" ]]
}

# pgaf_wait_states SECONDS WANT: until pgaf_states equals WANT.
pgaf_wait_states() {
    local deadline=$((SECONDS + $1))
    until [[ $(pgaf_states) == "$2" ]]; do
        ((SECONDS < deadline)) || return 1
        sleep 0.5
    done
}

pgaf_start_monitor() {
    local dir=$PGAF_DIR/monitor
    pgaf_initdb "$dir"
    stack_as tee -a "$dir/postgresql.auto.conf" >/dev/null <<<"$PGAF_MONITOR_SETTINGS"
    pgaf_as pg_autoctl create monitor --pgdata "$dir" --pgport "$PGAF_MONITOR_PORT" \
        --hostname 127.0.0.1 --no-ssl --skip-pg-hba \
        >>"$STACK_DIR/log/pgaf-monitor.log" 2>&1 || {
        tail -n 20 "$STACK_DIR/log/pgaf-monitor.log" >&2
        stack_die "pg_autoctl create monitor failed"
    }
    pgaf_as pg_autoctl config set --pgdata "$dir" postgresql.listen_addresses 127.0.0.1 >/dev/null
    pgaf_keeper monitor
    local i
    for ((i = 0; i < 300; i++)); do
        "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PGAF_MONITOR_PORT" && break
        sleep 0.1
    done
    "$PG_BIN/pg_isready" -q -h 127.0.0.1 -p "$PGAF_MONITOR_PORT" ||
        stack_die "the pg_auto_failover monitor did not start (log: $STACK_DIR/log/pgaf-monitor.log)"
    PGAF_MONITOR_URI=$(pgaf_as pg_autoctl show uri --pgdata "$dir" --formation monitor)
    net_say "pg_auto_failover monitor on 127.0.0.1:$PGAF_MONITOR_PORT"
}

# pgaf_create_node NAME: registers and initialises a node with the monitor, then runs its
# keeper. The first becomes the primary; the next one clones it with pg_basebackup.
pgaf_create_node() {
    local name=$1 dir=$PGAF_DIR/$1
    if [[ $name == "${PGAF_NODES[0]}" ]]; then
        pgaf_initdb "$dir"
        # Handler hosts, the monitor's health checks and replication all come over the bridge.
        stack_as tee "$dir/pg_hba.conf" >/dev/null <<EOF
local all all trust
host all all 127.0.0.1/32 trust
host all all $NET_PREFIX.0/24 trust
host replication all 127.0.0.1/32 trust
host replication all $NET_PREFIX.0/24 trust
EOF
    fi
    pgaf_as pg_autoctl create postgres --pgdata "$dir" --pgport "${PGAF_PORT[$name]}" \
        --listen "$NET_GATEWAY" --hostname "$NET_GATEWAY" --name "$name" \
        --monitor "$PGAF_MONITOR_URI" --no-ssl --skip-pg-hba \
        --dbname pouch --username pouch >>"$STACK_DIR/log/pgaf-$name.log" 2>&1 || {
        tail -n 20 "$STACK_DIR/log/pgaf-$name.log" >&2
        stack_die "pg_autoctl create postgres $name failed"
    }
    pgaf_as pg_autoctl config set --pgdata "$dir" timeout.network_partition_timeout \
        "$PGAF_NETWORK_PARTITION_TIMEOUT" >/dev/null
    pgaf_keeper "$name"
}

# pgaf_start: the monitor and both nodes, until node1 is primary and node2 its secondary.
pgaf_start() {
    PGAF_DIR=$STACK_DIR/pgaf
    mkdir -p "$PGAF_DIR"/xdg/{config,data,run}
    chmod 700 "$PGAF_DIR/xdg/run"
    stack_own "$PGAF_DIR"
    stack_free_port PGAF_MONITOR_PORT
    local name node_port  # not "port": stack_free_port has a local of that name
    for name in "${PGAF_NODES[@]}"; do
        stack_free_port node_port
        PGAF_PORT[$name]=$node_port
    done
    pgaf_start_monitor
    pgaf_create_node node1
    pgaf_wait_states 60 "node1:single:single" ||
        stack_die "node1 did not become single (states: $(pgaf_states))"
    pgaf_create_node node2
    pgaf_wait_states 120 "node1:primary:primary node2:secondary:secondary" ||
        stack_die "node1/node2 did not become primary/secondary (states: $(pgaf_states))"
    net_say "pg_auto_failover: node1 primary on $NET_GATEWAY:${PGAF_PORT[node1]}, node2 secondary on $NET_GATEWAY:${PGAF_PORT[node2]}"
}

# pgaf_database_url: the multi-host URL every handler gets, as pg_autoctl shows it for the
# formation (target_session_attrs=read-write), with the role and a short connect timeout.
pgaf_database_url() {
    local uri
    uri=$(pgaf_as pg_autoctl show uri --pgdata "$PGAF_DIR/monitor" --formation default)
    [[ $uri == *target_session_attrs=read-write* ]] || stack_die "unexpected formation URI: $uri"
    echo "${uri/postgres:\/\//postgresql://pouch@}&connect_timeout=2"
}

# pgaf_kill_node NAME: kill -9 of the node's keeper and its PostgreSQL (postmaster and
# backends) at once, as a machine that loses power loses them.
pgaf_kill_node() {
    local pgid=${PGAF_KEEPER[$1]}
    kill -KILL -- "-$pgid" 2>/dev/null || true
    wait "$pgid" 2>/dev/null || true
    PGAF_KEEPER[$1]=""
}

# pgaf_stop: every keeper, which stops its PostgreSQL (fast); a keeper that does not stop in
# 15 s is killed with its process group, and a postmaster left behind by its data directory's
# postmaster.pid.
pgaf_stop() {
    local name pid pm
    [[ -n $PGAF_DIR ]] || return 0
    for name in "${!PGAF_KEEPER[@]}"; do
        pid=${PGAF_KEEPER[$name]}
        [[ -n $pid ]] && kill -TERM "$pid" 2>/dev/null
    done
    for name in "${!PGAF_KEEPER[@]}"; do
        pid=${PGAF_KEEPER[$name]}
        [[ -n $pid ]] || continue
        stack_wait_gone "$pid" 150 || kill -KILL -- "-$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
        PGAF_KEEPER[$name]=""
    done
    for name in monitor "${PGAF_NODES[@]}"; do
        pm=$(head -n 1 "$PGAF_DIR/$name/postmaster.pid" 2>/dev/null || true)
        if [[ $pm =~ ^[0-9]+$ ]] && stack_running "$pm" &&
            tr '\0' ' ' <"/proc/$pm/cmdline" 2>/dev/null | grep -q -- "$PGAF_DIR/$name"; then
            kill -KILL "$pm" 2>/dev/null
        fi
    done
    return 0
}
