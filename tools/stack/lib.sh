# lib.sh -- the local Pouch Sync stack shared by run.sh and test.sh: PostgreSQL, Redis, nginx
# and the supervised handlers, all inside one directory and on loopback ports. Sourced, not
# run. Relies on PostgreSQL's server binaries (/usr/lib/postgresql/*/bin), redis-server, nginx,
# setsid/setpriv (util-linux) and curl.
#
# Layout of the stack directory (STACK_DIR; VAR itself or, for root, possibly elsewhere):
#   pg/ redis/ blobs/ nginx/ log/ pids/ bin/ stack.env     sockets: STACK_RUN (usually run/)
# shellcheck shell=bash

STACK_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# nginx is in /usr/sbin, which Debian leaves out of a normal user's PATH.
case ":$PATH:" in *:/usr/sbin:*) ;; *) export PATH=$PATH:/usr/sbin:/sbin ;; esac
STACK_RUN_USER=pouch        # who runs the services when we are root (PostgreSQL refuses root)
STACK_SUPERVISORS=()        # "group:pid" of each handler supervisor we started
STACK_NGINX_PIDS=()        # nginx master processes we started (our children)
STACK_STARTED=0
STACK_PG_PID=0
STACK_TAKEN_PORTS=" "
STACK_TLS=off               # POUCH_TLS=1: the local stack serves HTTPS (stack_init)
STACK_CA_FILE=""

stack_say() { printf 'stack: %s\n' "$*" >&2; }
stack_die() {
    printf 'stack: error: %s\n' "$*" >&2
    exit 1
}

# True while the process runs; a zombie (exited, not yet reaped) counts as gone.
stack_running() {
    local stat
    [[ -n ${1:-} && $1 != 0 ]] || return 1
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [[ ${stat%% *} != Z ]]
}

# Waits up to $2 tenths of a second for process $1 to end.
stack_wait_gone() {
    local i
    for ((i = 0; i < $2; i++)); do
        stack_running "$1" || return 0
        sleep 0.1
    done
    ! stack_running "$1"
}

stack_port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# stack_free_port VARNAME: a loopback port nobody listens on, below the ephemeral range and
# distinct from the ones this stack already took.
stack_free_port() {
    local port tries
    for ((tries = 0; tries < 500; tries++)); do
        port=$((20000 + RANDOM % 12000))
        [[ $STACK_TAKEN_PORTS == *" $port "* ]] && continue
        stack_port_in_use "$port" && continue
        STACK_TAKEN_PORTS+="$port "
        printf -v "$1" '%s' "$port"
        return 0
    done
    stack_die "found no free loopback port"
}

# Runs a command as the service user (root) or as ourselves. STACK_AS is the prefix for exec.
stack_as() { "${STACK_AS[@]}" "$@"; }

stack_own() {
    if [[ -n $STACK_USER ]]; then chown -R "$STACK_USER:$STACK_USER" "$@"; fi
}

stack_ensure_user() {
    if ! id -u "$STACK_RUN_USER" >/dev/null 2>&1; then
        stack_say "creating system user $STACK_RUN_USER (services may not run as root)"
        useradd --system --no-create-home --shell /usr/sbin/nologin "$STACK_RUN_USER"
    fi
}

# stack_init VAR HTTP_PORT [run|test|durable]: resolves paths, the service user, the stack
# directory, the socket directory and the ports. "test" turns off PostgreSQL's fsync (fast
# suites); "durable" is "test" with PostgreSQL as production runs it (fsync and
# synchronous_commit on), for the crash scenarios of tests/faults.
stack_init() {
    local var=$1 hash
    STACK_HTTP_PORT=$2
    STACK_MODE=${3:-run}
    STACK_TAKEN_PORTS+="$STACK_HTTP_PORT "

    case ${BUILD:-build} in
        /*) STACK_BUILD=${BUILD} ;;
        *) STACK_BUILD=$STACK_ROOT/${BUILD:-build} ;;
    esac
    [[ -x $STACK_BUILD/bin/pouchctl ]] || stack_die "$STACK_BUILD/bin/pouchctl is missing: run 'make build' first"

    PG_BIN=$(find /usr/lib/postgresql -mindepth 2 -maxdepth 2 -name bin -type d 2>/dev/null | sort -V | tail -n 1)
    [[ -n $PG_BIN && -x $PG_BIN/initdb ]] || stack_die "PostgreSQL server binaries not found under /usr/lib/postgresql (run tools/stack/deps.sh)"
    command -v redis-server >/dev/null || stack_die "redis-server not found (run tools/stack/deps.sh)"
    command -v nginx >/dev/null || stack_die "nginx not found (run tools/stack/deps.sh)"

    mkdir -p "$(dirname "$var")"
    STACK_VAR=$(cd "$(dirname "$var")" && pwd)/$(basename "$var")
    hash=$(printf '%s' "$STACK_VAR" | sha256sum | cut -c1-12)

    STACK_USER=""
    STACK_AS=()
    if ((EUID == 0)); then
        stack_ensure_user
        STACK_USER=$STACK_RUN_USER
        STACK_AS=(setpriv "--reuid=$STACK_USER" "--regid=$STACK_USER" --init-groups --)
    fi

    # The service user must reach the stack directory. Under a checkout in /root (mode 0700)
    # it cannot, so the data lives in /var/tmp and VAR becomes a symlink to it.
    if [[ -L $STACK_VAR ]]; then
        STACK_DIR=$(readlink -f "$STACK_VAR")
    elif [[ -n $STACK_USER ]] && ! stack_as test -x "$(dirname "$STACK_VAR")"; then
        STACK_DIR=/var/tmp/pouch-$hash
        if [[ -d $STACK_VAR ]]; then
            rmdir "$STACK_VAR" 2>/dev/null ||
                stack_die "$STACK_VAR is a directory user $STACK_USER cannot reach; remove it (or move the checkout)"
        fi
        stack_say "user $STACK_USER cannot reach $(dirname "$STACK_VAR"); data lives in $STACK_DIR ($STACK_VAR links to it)"
        mkdir -p "$STACK_DIR"
        ln -sfn "$STACK_DIR" "$STACK_VAR"
    else
        STACK_DIR=$STACK_VAR
    fi
    mkdir -p "$STACK_DIR"/{pg,redis,blobs,log,pids,bin}
    chmod 700 "$STACK_DIR/pg"

    # Unix socket paths must stay below 108 bytes (sun_path).
    STACK_RUN=$STACK_DIR/run
    if ((${#STACK_RUN} + 16 > 100)); then
        STACK_RUN=/tmp/pouch-run-$hash
        stack_say "socket directory $STACK_DIR/run would be too long for unix sockets; using $STACK_RUN"
    fi
    mkdir -p "$STACK_RUN"
    chmod 700 "$STACK_RUN"
    stack_own "$STACK_DIR" "$STACK_RUN"

    # Handlers run from the build directory when the service user can reach it, else from a
    # copy (made at start, so a rebuild during `make run` needs a restart to take effect).
    STACK_EXEC=$STACK_BUILD/bin
    STACK_SUPERVISE=$STACK_ROOT/tools/stack/supervise.sh
    if [[ -n $STACK_USER ]] && ! { stack_as test -x "$STACK_EXEC/pouchctl" && stack_as test -r "$STACK_SUPERVISE"; }; then
        STACK_EXEC=$STACK_DIR/bin
        STACK_SUPERVISE=$STACK_DIR/bin/supervise.sh
    fi

    STACK_HANDLERS=()
    local dir group
    for dir in "$STACK_ROOT"/handlers/*/; do
        [[ -d $dir ]] || continue
        group=$(basename "$dir")
        if [[ -x $STACK_BUILD/bin/pouch-$group ]]; then STACK_HANDLERS+=("$group"); fi
    done

    stack_free_port STACK_PG_PORT
    stack_free_port STACK_REDIS_PORT
    # POUCH_TLS=1 (or on): HTTPS on the stack's port with a certificate made for 127.0.0.1
    # (stack_tls_cert), plain HTTP on a free port that only redirects and serves ACME challenges.
    case ${POUCH_TLS:-0} in
        1 | on) STACK_TLS=on ;;
        0 | off | "") STACK_TLS=off ;;
        *) stack_die "POUCH_TLS must be 1 (on) or 0 (off), not '$POUCH_TLS'" ;;
    esac
    STACK_CA_FILE=""
    if [[ $STACK_TLS == on ]]; then
        STACK_URL=https://127.0.0.1:$STACK_HTTP_PORT
        stack_free_port STACK_PLAIN_PORT
        STACK_PLAIN_URL=http://127.0.0.1:$STACK_PLAIN_PORT
        STACK_CA_FILE=$STACK_DIR/tls/cert.pem
    else
        STACK_URL=http://127.0.0.1:$STACK_HTTP_PORT
    fi
    # The metrics server of nginx (never the public port): POUCH_METRICS_LISTEN, or a free
    # loopback port.
    if [[ -n ${POUCH_METRICS_LISTEN:-} ]]; then
        STACK_METRICS_LISTEN=$POUCH_METRICS_LISTEN
    else
        local metrics_port
        stack_free_port metrics_port
        STACK_METRICS_LISTEN=127.0.0.1:$metrics_port
    fi
    STACK_METRICS_URL=http://$STACK_METRICS_LISTEN
    # PostgreSQL listens on its unix socket only (STACK_RUN/.s.PGSQL.PORT), as production
    # reaches it with postgresql:///pouch: no TCP round trips on loopback.
    STACK_DATABASE_URL=$(stack_pg_url pouch)
    # Redis runs with an ACL user and a password, the default user off, as production should
    # (docs/OPERATIONS.md): every start draws a new password, so nothing stale can connect.
    STACK_REDIS_USER=pouch
    STACK_REDIS_PASSWORD=$(head -c 18 /dev/urandom | od -An -tx1 | tr -d ' \n')
    STACK_REDIS_URL=redis://$STACK_REDIS_USER:$STACK_REDIS_PASSWORD@127.0.0.1:$STACK_REDIS_PORT/0
    STACK_RATE_LIMITS=${POUCH_RATE_LIMITS:-on}
    [[ $STACK_RATE_LIMITS == on || $STACK_RATE_LIMITS == off ]] ||
        stack_die "POUCH_RATE_LIMITS must be on or off, not '$STACK_RATE_LIMITS'"
}

# A previous run killed with SIGKILL leaves its services running; stop them first.
stack_stop_leftovers() {
    local pidfile pid
    if [[ -f $STACK_DIR/pg/postmaster.pid ]] && stack_as "$PG_BIN/pg_ctl" status -D "$STACK_DIR/pg" >/dev/null 2>&1; then
        stack_say "stopping PostgreSQL left over from an earlier run"
        (cd "$STACK_DIR" && stack_as "$PG_BIN/pg_ctl" stop -D "$STACK_DIR/pg" -m fast -w) >/dev/null 2>&1 || true
    fi
    # Supervisors first, or they would restart the handlers stopped here.
    for pidfile in "$STACK_DIR"/pids/supervise-*.pid "$STACK_DIR"/pids/*.pid; do
        [[ -f $pidfile ]] || continue
        pid=$(cat "$pidfile" 2>/dev/null || true)
        # Every service runs inside STACK_DIR: a recycled pid of an unrelated process does not.
        if [[ $pid =~ ^[0-9]+$ ]] && stack_running "$pid" &&
            [[ $(readlink "/proc/$pid/cwd" 2>/dev/null) == "$STACK_DIR"* ]]; then
            stack_say "stopping $(basename "$pidfile" .pid) (pid $pid) left over from an earlier run"
            kill -TERM "$pid" 2>/dev/null || true
            stack_wait_gone "$pid" 50 || kill -KILL "$pid" 2>/dev/null || true
        fi
        rm -f "$pidfile"
    done
}

stack_start_postgres() {
    local data=$STACK_DIR/pg opts i
    if [[ ! -f $data/PG_VERSION ]]; then
        stack_say "initdb $data (first run)"
        if ! (cd "$STACK_DIR" && stack_as "$PG_BIN/initdb" -D "$data" -U pouch --auth=trust \
            -E UTF8 --locale=C.UTF-8 --no-instructions) >"$STACK_DIR/log/initdb.log" 2>&1; then
            tail -n 20 "$STACK_DIR/log/initdb.log" >&2
            stack_die "initdb failed (log: $STACK_DIR/log/initdb.log)"
        fi
    fi
    # The unix socket in the stack's socket directory only, no TCP (the port names the
    # socket file); the default socket directory is not ours to write.
    opts=(-D "$data" -p "$STACK_PG_PORT" -c listen_addresses=
        -c unix_socket_directories="$STACK_RUN" -c max_connections=200)
    if [[ $STACK_MODE == test ]]; then
        opts+=(-c fsync=off -c synchronous_commit=off -c full_page_writes=off)
    fi
    # The postmaster runs as our child (not daemonized by pg_ctl), so stopping it can reap it
    # and nothing is left for init to collect.
    (cd "$STACK_DIR" && exec setsid "${STACK_AS[@]}" "$PG_BIN/postgres" "${opts[@]}") \
        >>"$STACK_DIR/log/postgres.log" 2>&1 &
    STACK_PG_PID=$!
    for ((i = 0; i < 600; i++)); do
        if ! stack_running "$STACK_PG_PID"; then
            tail -n 20 "$STACK_DIR/log/postgres.log" >&2
            stack_die "PostgreSQL did not start (log: $STACK_DIR/log/postgres.log)"
        fi
        "$PG_BIN/pg_isready" -q -h "$STACK_RUN" -p "$STACK_PG_PORT" && break
        sleep 0.1
    done
    stack_say "postgres on $STACK_RUN/.s.PGSQL.$STACK_PG_PORT"
    stack_createdb pouch
}

stack_psql() { "$PG_BIN/psql" -X -q -h "$STACK_RUN" -p "$STACK_PG_PORT" -U pouch -v ON_ERROR_STOP=1 "$@"; }

# stack_createdb NAME: creates the database unless it exists.
stack_createdb() {
    local exists
    exists=$(stack_psql -d postgres -Atc "SELECT 1 FROM pg_database WHERE datname = '$1'")
    if [[ $exists != 1 ]]; then
        stack_psql -d postgres -c "CREATE DATABASE \"$1\"" >/dev/null
    fi
}

# Redis is started and stopped by a generated script, so a smoke test can stop and restart it
# (tests/smoke/lib.sh: stack_redis_stop / stack_redis_start) with the same command line. Its
# configuration file (mode 0600) holds the ACL: the default user off, STACK_REDIS_USER with
# STACK_REDIS_PASSWORD allowed everything; protected mode stays on (it refuses nothing once the
# default user is off). STACK_REDIS_BIND (default 127.0.0.1; keep 127.0.0.1 in it) adds
# addresses, for handler hosts in network namespaces (tests/cluster).
stack_write_redis_ctl() {
    local ctl=$STACK_DIR/bin/redis-ctl conf=$STACK_DIR/redis/redis.conf as_prefix=""
    if ((${#STACK_AS[@]} > 0)); then as_prefix=$(printf '%q ' "${STACK_AS[@]}"); fi
    (
        umask 077
        printf 'user default off\nuser %s on >%s ~* &* +@all\n' "$STACK_REDIS_USER" "$STACK_REDIS_PASSWORD" >"$conf"
    )
    stack_own "$conf"
    cat >"$ctl" <<EOF
#!/usr/bin/env bash
# redis-ctl -- start|stop the sandbox Redis of this stack (generated by tools/stack/lib.sh).
set -euo pipefail
pidfile=$(printf '%q' "$STACK_DIR/pids/redis.pid")
port=$STACK_REDIS_PORT
pong() {
    exec 3<>"/dev/tcp/127.0.0.1/\$port" || return 1
    printf 'AUTH %s %s\r\nPING\r\n' $(printf '%q' "$STACK_REDIS_USER") $(printf '%q' "$STACK_REDIS_PASSWORD") >&3
    local auth="" line=""
    read -r -t 2 auth <&3 || true
    read -r -t 2 line <&3 || true
    exec 3<&-
    [[ \$auth == +OK* && \$line == +PONG* ]]
}
case \${1:-} in
    start)
        cd $(printf '%q' "$STACK_DIR")
        ${as_prefix}redis-server $(printf '%q' "$conf") --bind ${STACK_REDIS_BIND:-127.0.0.1} --port "\$port" --save '' --appendonly no \\
            --daemonize yes --pidfile "\$pidfile" --dir $(printf '%q' "$STACK_DIR/redis") \\
            --logfile $(printf '%q' "$STACK_DIR/log/redis.log")
        for _ in {1..100}; do
            if pong 2>/dev/null; then exit 0; fi
            sleep 0.1
        done
        echo "redis-ctl: Redis did not answer PING on port \$port" >&2
        exit 1
        ;;
    stop)
        pid=\$(cat "\$pidfile" 2>/dev/null || true)
        if [[ -n \$pid ]] && kill -TERM "\$pid" 2>/dev/null; then
            for _ in {1..50}; do
                kill -0 "\$pid" 2>/dev/null || break
                sleep 0.1
            done
            kill -KILL "\$pid" 2>/dev/null || true
        fi
        rm -f "\$pidfile"
        ;;
    *)
        echo "usage: redis-ctl start|stop" >&2
        exit 2
        ;;
esac
EOF
    chmod 700 "$ctl"  # it holds the password
}

stack_start_redis() {
    stack_write_redis_ctl
    "$STACK_DIR/bin/redis-ctl" start || stack_die "Redis did not start (log: $STACK_DIR/log/redis.log)"
    stack_say "redis on 127.0.0.1:$STACK_REDIS_PORT (ACL user $STACK_REDIS_USER, password in $STACK_DIR/stack.env)"
}

# stack_pg_url DATABASE: the libpq URI of a database of this stack, over its unix socket.
stack_pg_url() { printf 'postgresql://pouch@/%s?host=%s&port=%s' "$1" "$STACK_RUN" "$STACK_PG_PORT"; }

stack_sed_escape() { printf '%s' "$1" | sed -e 's/[\\|&]/\\&/g'; }

# The TCP port of each handler group on a handler host (POUCH_LISTEN=<address>:<port>,
# docs/SCALING.md); nginx/pouch.conf.template's "#@HOST" lines use them.
STACK_GROUP_PORTS="account=9101 cliauth=9102 devices=9103 sync=9104 shares=9105 admin=9106"

# stack_group_port GROUP: its port from STACK_GROUP_PORTS.
stack_group_port() {
    local kv
    for kv in $STACK_GROUP_PORTS; do
        if [[ ${kv%%=*} == "$1" ]]; then
            echo "${kv#*=}"
            return 0
        fi
    done
    stack_die "no TCP port for handler group '$1' (STACK_GROUP_PORTS in tools/stack/lib.sh)"
}

# stack_expand_hosts HOSTS: the template on stdin with each "#@HOST" line kept as is (marker
# stripped) when HOSTS is empty, else written once per host of HOSTS (space-separated IPv4
# addresses) with unix:@SOCKET_DIR@/<group>.sock replaced by <host>:<group's port> and the
# metrics path /metrics/<group> by /metrics/<group>/<host>.
stack_expand_hosts() {
    local h
    for h in $1; do
        [[ $h =~ ^[0-9]{1,3}(\.[0-9]{1,3}){3}$ ]] || stack_die "POUCH_HANDLER_HOSTS: '$h' is not an IPv4 address"
    done
    awk -v hosts="$1" -v ports="$STACK_GROUP_PORTS" '
        BEGIN {
            n = split(hosts, host, " ")
            m = split(ports, kv, " ")
            for (i = 1; i <= m; i++) { split(kv[i], p, "="); port[p[1]] = p[2] }
        }
        !/#@HOST$/ { print; next }
        {
            line = $0
            sub(/[[:space:]]*#@HOST$/, "", line)
            if (n == 0) { print line; next }
            if (!match(line, /unix:@SOCKET_DIR@\/[a-z]+\.sock/)) { print "#@HOST line without a socket: " line > "/dev/stderr"; exit 1 }
            group = substr(line, RSTART + 18, RLENGTH - 23)
            if (!(group in port)) { print "no TCP port for group " group > "/dev/stderr"; exit 1 }
            for (i = 1; i <= n; i++) {
                out = line
                sub(/unix:@SOCKET_DIR@\/[a-z]+\.sock/, host[i] ":" port[group], out)
                sub("/metrics/" group " ", "/metrics/" group "/" host[i] " ", out)
                print out
            }
        }'
}

# stack_render_nginx_conf LISTEN SOCKET_DIR BLOB_DIR ACCESS_LOG on|off ERROR_LOG WEB_DIR
# [REAL_IP_FROM] [METRICS_FROM] [HANDLER_HOSTS] [METRICS_LISTEN]: the template with its
# placeholders filled, rate limit lines kept (markers stripped) or dropped, the trusted-proxy
# lines kept once per address of REAL_IP_FROM (space-separated addresses or CIDRs) or dropped
# when it is empty, the metrics scrapers' allow lines once per address of METRICS_FROM (default
# 127.0.0.1; "none" admits no one), the handlers' lines expanded for HANDLER_HOSTS
# (stack_expand_hosts; empty: this machine's unix sockets), and the metrics server listening on
# METRICS_LISTEN (default 127.0.0.1:9180). To stdout.
# TLS, from these variables (set them for the call): RENDER_TLS=on keeps the "#@TLS" lines (the
# public server on LISTEN with TLS, certificate RENDER_TLS_CERT and key RENDER_TLS_KEY, default
# /etc/pouch/tls/{fullchain,privkey}.pem; a server on RENDER_HTTP_LISTEN, default 80, that
# redirects to https on port RENDER_HTTPS_PORT, default 443, and serves ACME challenges from
# RENDER_ACME_DIR, default /var/lib/pouch/acme; OCSP stapling's resolver RENDER_TLS_RESOLVER
# when set); off (the default) keeps the "#@PLAIN" lines, the plain-HTTP public server.
stack_render_nginx_conf() {
    local rl_expr rip_expr rip_line="" cidr ma_expr ma_line="" metrics_from=${9:-127.0.0.1}
    local metrics_listen=${11:-127.0.0.1:9180} tls_expr res_expr https_port
    local tls=${RENDER_TLS:-off} tls_cert=${RENDER_TLS_CERT:-/etc/pouch/tls/fullchain.pem}
    local tls_key=${RENDER_TLS_KEY:-/etc/pouch/tls/privkey.pem} http_listen=${RENDER_HTTP_LISTEN:-80}
    local acme_dir=${RENDER_ACME_DIR:-/var/lib/pouch/acme} resolver=${RENDER_TLS_RESOLVER:-}
    https_port=${RENDER_HTTPS_PORT:-443}
    case $tls in
        on | 1) tls_expr="/#@PLAIN\$/d; s/[[:space:]]*#@TLS\$//" ;;
        off | 0) tls_expr="/#@TLS\$/d; s/[[:space:]]*#@PLAIN\$//" ;;
        *) stack_die "POUCH_TLS must be on or off, not '$tls'" ;;
    esac
    [[ $https_port =~ ^[0-9]{1,5}$ ]] || stack_die "the https port must be a number, not '$https_port'"
    if [[ $https_port == 443 ]]; then https_port=""; else https_port=:$https_port; fi
    [[ $http_listen =~ ^([0-9.]+:|\[[0-9A-Fa-f:]+\]:)?[0-9]{1,5}$ ]] ||
        stack_die "POUCH_HTTP_LISTEN: '$http_listen' is not [address:]port"
    local path
    for path in "$tls_cert" "$tls_key" "$acme_dir"; do
        [[ $path == /* && $path != *[[:space:]\;\'\"]* ]] ||
            stack_die "TLS paths must be absolute, without spaces, quotes or ';': '$path'"
    done
    if [[ -n $resolver ]]; then
        local res_re='^[][0-9A-Fa-f.: ]+$'  # IPv4, [IPv6], optional :port, spaces between
        [[ $resolver =~ $res_re ]] || stack_die "POUCH_TLS_RESOLVER: '$resolver' is not a list of addresses"
        res_expr='s/[[:space:]]*#@RES$//'
        [[ $tls == on ]] || res_expr='/#@RES$/d'
    else
        res_expr='/#@RES$/d'
    fi
    [[ $metrics_listen =~ ^([0-9.]+:|\[[0-9A-Fa-f:]+\]:)?[0-9]{1,5}$ ]] ||
        stack_die "POUCH_METRICS_LISTEN: '$metrics_listen' is not [address:]port"
    if [[ $5 == on ]]; then
        rl_expr='s/[[:space:]]*#@RL$//'
    else
        rl_expr='/#@RL$/d'
    fi
    if [[ -n ${8:-} ]]; then
        for cidr in $8; do
            [[ $cidr =~ ^[0-9A-Fa-f.:/]+$ ]] || stack_die "POUCH_REAL_IP_FROM: '$cidr' is not an address or CIDR"
            rip_line+="    set_real_ip_from $cidr;\n"
        done
        rip_expr="s|^[[:space:]]*set_real_ip_from @REAL_IP_FROM@;.*#@RIP\$|${rip_line%\\n}|; s/[[:space:]]*#@RIP\$//"
    else
        rip_expr='/#@RIP$/d'
    fi
    if [[ $metrics_from == none ]]; then
        ma_expr='/#@MA$/d'
    else
        for cidr in $metrics_from; do
            [[ $cidr =~ ^[0-9A-Fa-f.:/]+$ ]] || stack_die "POUCH_METRICS_FROM: '$cidr' is not an address or CIDR"
            ma_line+="        allow $cidr;\n"
        done
        ma_expr="s|^[[:space:]]*allow @METRICS_FROM@;.*#@MA\$|${ma_line%\\n}|"
    fi
    stack_expand_hosts "${10:-}" <"$STACK_ROOT/nginx/pouch.conf.template" |
    sed -e "$rl_expr" -e "$rip_expr" -e "$ma_expr" -e "$tls_expr" -e "$res_expr" \
        -e "s|@LISTEN@|$(stack_sed_escape "$1")|g" \
        -e "s|@HTTP_LISTEN@|$(stack_sed_escape "$http_listen")|g" \
        -e "s|@HTTPS_PORT@|$https_port|g" \
        -e "s|@TLS_CERT@|$(stack_sed_escape "$tls_cert")|g" \
        -e "s|@TLS_KEY@|$(stack_sed_escape "$tls_key")|g" \
        -e "s|@TLS_RESOLVER@|$(stack_sed_escape "$resolver")|g" \
        -e "s|@ACME_DIR@|$(stack_sed_escape "$acme_dir")|g" \
        -e "s|@METRICS_LISTEN@|$(stack_sed_escape "$metrics_listen")|g" \
        -e "s|@SOCKET_DIR@|$(stack_sed_escape "$2")|g" \
        -e "s|@BLOB_DIR@|$(stack_sed_escape "$3")|g" \
        -e "s|@ACCESS_LOG@|$(stack_sed_escape "$4")|g" \
        -e "s|@ERROR_LOG@|$(stack_sed_escape "$6")|g" \
        -e "s|@WEB_DIR@|$(stack_sed_escape "$7")|g"
}

# The web app's bundle (clients/web, built by `make build` into BUILD/web) as nginx serves it:
# from the build directory when the service user can read it, else from a copy in STACK_DIR/web
# (made at start, like the handlers). Sets STACK_WEB.
stack_web_dir() {
    [[ -n ${STACK_WEB:-} ]] && return 0
    STACK_WEB=$STACK_BUILD/web
    if [[ ! -f $STACK_WEB/index.html ]]; then
        stack_say "warning: $STACK_WEB/index.html is missing (make build); the web app answers 404"
    elif [[ -n $STACK_USER ]] && ! stack_as test -r "$STACK_WEB/index.html"; then
        rm -rf "$STACK_DIR/web"
        cp -r "$STACK_BUILD/web" "$STACK_DIR/web"
        stack_own "$STACK_DIR/web"
        STACK_WEB=$STACK_DIR/web
    fi
}

# stack_bench_routes DIR: with POUCH_BENCH_ROUTES=1 (tools/bench/web.mjs's plain-fetch
# baseline), DIR/pouch.conf's server also answers /_bench/data: a PUT stores the body in
# DIR/bench (WebDAV, so the answer comes after the whole body was read), a GET serves it back.
# Never in production (render-nginx.sh does not call this) nor in make test.
stack_bench_routes() {
    local dir=$1
    mkdir -p "$dir/bench" "$dir/tmp/bench"
    cat >"$dir/bench-routes.conf" <<EOF
# Generated by tools/stack/lib.sh (POUCH_BENCH_ROUTES=1): the web bench's plain-fetch baseline.
location = /_bench/data {
    root $dir/bench;
    dav_methods PUT;
    create_full_put_path on;
    client_max_body_size 256m;
    client_body_temp_path $dir/tmp/bench;
    default_type application/octet-stream;
    add_header Cache-Control no-store always;
}
EOF
    sed -i "s|^    location / { return 404; }\$|    include $dir/bench-routes.conf;\n&|" "$dir/pouch.conf"
    grep -q "include $dir/bench-routes.conf;" "$dir/pouch.conf" ||
        stack_die "POUCH_BENCH_ROUTES: no place for the bench routes in $dir/pouch.conf"
}

# stack_tls_cert: with POUCH_TLS=1, a self-signed certificate for 127.0.0.1 (subjectAltName
# IP:127.0.0.1, P-256, 825 days) and its key in STACK_DIR/tls/, made once and kept until it is
# within 30 days of expiry. The certificate is its own CA: clients pin it (STACK_CA_FILE,
# `pouch --ca-file`, `curl --cacert`). STACK_DIR/acme is the ACME webroot of the port-80 server.
stack_tls_cert() {
    local dir=$STACK_DIR/tls
    mkdir -p "$dir" "$STACK_DIR/acme/.well-known/acme-challenge"
    if [[ ! -s $dir/cert.pem || ! -s $dir/key.pem ]] ||
        ! openssl x509 -in "$dir/cert.pem" -noout -checkend $((30 * 86400)) >/dev/null 2>&1; then
        command -v openssl >/dev/null || stack_die "openssl not found (run tools/stack/deps.sh)"
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 825 \
            -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" \
            -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>"$STACK_DIR/log/openssl.log" ||
            stack_die "openssl could not make the stack's certificate (log: $STACK_DIR/log/openssl.log)"
        chmod 600 "$dir/key.pem"
        stack_say "made a certificate for 127.0.0.1: $dir/cert.pem"
    fi
    stack_own "$dir" "$STACK_DIR/acme"
}

# stack_start_nginx NAME PORT on|off: an nginx in the foreground (daemon off, our child) with
# its config, temp files and pid under STACK_DIR/NAME/, after `nginx -t` accepted the config.
# Its upstreams are this machine's unix sockets, or the handler hosts of STACK_HANDLER_HOSTS
# (tests/cluster). Its metrics server listens on STACK_METRICS_LISTEN for the nginx named
# "nginx", on a free loopback port for any other; STACK_LAST_METRICS_URL is its URL.
stack_start_nginx() {
    local name=$1 port=$2 limits=$3 dir=$STACK_DIR/$1 i pid metrics_port metrics_listen
    mkdir -p "$dir/tmp"
    stack_web_dir
    if [[ $name == nginx ]]; then
        metrics_listen=$STACK_METRICS_LISTEN
    else
        stack_free_port metrics_port
        metrics_listen=127.0.0.1:$metrics_port
    fi
    STACK_LAST_METRICS_URL=http://$metrics_listen
    local tls=off
    if [[ $name == nginx && $STACK_TLS == on ]]; then
        tls=on
        stack_tls_cert
    fi
    RENDER_TLS=$tls RENDER_TLS_CERT=$STACK_DIR/tls/cert.pem RENDER_TLS_KEY=$STACK_DIR/tls/key.pem \
        RENDER_HTTP_LISTEN=127.0.0.1:${STACK_PLAIN_PORT:-80} RENDER_HTTPS_PORT=$port \
        RENDER_ACME_DIR=$STACK_DIR/acme RENDER_TLS_RESOLVER="" \
        stack_render_nginx_conf "127.0.0.1:$port" "$STACK_RUN" "$STACK_DIR/blobs" \
        "$STACK_DIR/log/$name-access.log" "$limits" "$STACK_DIR/log/$name-error.log" \
        "$STACK_WEB" "${POUCH_REAL_IP_FROM:-}" "${POUCH_METRICS_FROM:-}" \
        "${STACK_HANDLER_HOSTS:-}" "$metrics_listen" >"$dir/pouch.conf"
    if [[ $name == nginx && ${POUCH_BENCH_ROUTES:-0} == 1 ]]; then stack_bench_routes "$dir"; fi
    cat >"$dir/nginx.conf" <<EOF
# Generated by tools/stack/lib.sh for the local stack; see nginx/pouch.conf.template.
daemon off;
worker_processes 2;
# Long-polls hold two connections each (client and FastCGI): room for thousands of them
# (make bench raises both for its 10,000 waiters).
worker_rlimit_nofile ${STACK_NGINX_NOFILE:-16384};
pid $STACK_DIR/pids/$name.pid;
error_log $STACK_DIR/log/$name-error.log warn;
events { worker_connections ${STACK_NGINX_CONNECTIONS:-8192}; }
http {
    client_body_temp_path $dir/tmp/client_body;
    fastcgi_temp_path $dir/tmp/fastcgi;
    proxy_temp_path $dir/tmp/proxy;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    include $dir/pouch.conf;
}
EOF
    stack_own "$dir"
    local cmd=(nginx -p "$dir/" -c "$dir/nginx.conf" -e "$STACK_DIR/log/$name-error.log")
    if ! stack_as "${cmd[@]}" -t -q 2>"$STACK_DIR/log/$name-t.log"; then
        cat "$STACK_DIR/log/$name-t.log" >&2
        stack_die "nginx -t rejected $dir/nginx.conf"
    fi
    (cd "$STACK_DIR" && exec setsid "${STACK_AS[@]}" "${cmd[@]}") &
    pid=$!
    STACK_NGINX_PIDS+=("$pid")
    for ((i = 0; i < 100; i++)); do
        stack_running "$pid" || break
        if stack_port_in_use "$port"; then
            if [[ $tls == on ]]; then
                stack_say "$name on https://127.0.0.1:$port (redirect and ACME on $STACK_PLAIN_URL; rate limits $limits), metrics on $STACK_LAST_METRICS_URL"
            else
                stack_say "$name on http://127.0.0.1:$port (rate limits $limits), metrics on $STACK_LAST_METRICS_URL"
            fi
            return 0
        fi
        sleep 0.1
    done
    tail -n 20 "$STACK_DIR/log/$name-error.log" >&2
    stack_die "$name did not start listening on 127.0.0.1:$port"
}

# stack_migrate DATABASE_URL: applies sql/ with pouchctl.
stack_migrate() {
    if [[ ! -d $STACK_ROOT/sql ]]; then
        stack_say "no sql/ directory yet; skipping migrations"
        return 0
    fi
    if ! (cd "$STACK_ROOT" && POUCH_DATABASE_URL=$1 "$STACK_BUILD/bin/pouchctl" migrate --dir "$STACK_ROOT/sql") >&2; then
        stack_die "pouchctl migrate failed for $1"
    fi
}

# stack_copy_binaries: when the service user cannot reach the build directory (STACK_EXEC is
# STACK_DIR/bin), copies the handlers and supervise.sh there and gives them to that user.
# Also used by tests/cluster/hosts.sh for each handler host.
stack_copy_binaries() {
    local group
    [[ $STACK_EXEC == "$STACK_DIR/bin" ]] || return 0
    for group in "${STACK_HANDLERS[@]}"; do
        cp -f "$STACK_BUILD/bin/pouch-$group" "$STACK_EXEC/"
    done
    cp -f "$STACK_ROOT/tools/stack/supervise.sh" "$STACK_SUPERVISE"
    stack_own "$STACK_DIR/bin"
}

stack_start_handlers() {
    local group log i pending
    stack_copy_binaries
    if ((${#STACK_HANDLERS[@]} == 0)); then
        stack_say "no handler binaries in $STACK_BUILD/bin yet; nginx answers 502 for the API"
        return 0
    fi
    for group in "${STACK_HANDLERS[@]}"; do
        log=$STACK_DIR/log/$group.log
        touch "$log"
        stack_own "$log"
        (
            cd "$STACK_DIR"
            export POUCH_SOCKET=$STACK_RUN/$group.sock
            # shellcheck disable=SC2030  # the handler's own environment, on purpose
            export POUCH_DATABASE_URL=$STACK_DATABASE_URL POUCH_REDIS_URL=$STACK_REDIS_URL
            # libpq's application_name: pg_stat_activity tells each handler's backends apart.
            export PGAPPNAME=pouch-$group
            export POUCH_PUBLIC_URL=${POUCH_PUBLIC_URL:-$STACK_URL}
            export POUCH_WEB_URL=${POUCH_WEB_URL:-$STACK_URL}
            export POUCH_BLOB_DIR=$STACK_DIR/blobs
            export POUCH_THREADS=${POUCH_THREADS:-16}
            export POUCH_DB_POOL=${POUCH_DB_POOL:-4}
            export POUCH_LOG_LEVEL=${POUCH_LOG_LEVEL:-info}
            exec setsid "${STACK_AS[@]}" "$STACK_SUPERVISE" "$group" "$log" \
                "$STACK_DIR/pids/$group.pid" "$STACK_EXEC/pouch-$group"
        ) &
        STACK_SUPERVISORS+=("$group:$!")
        echo "$!" >"$STACK_DIR/pids/supervise-$group.pid"
    done
    # Ready when every handler has created its socket.
    for ((i = 0; i < 150; i++)); do
        pending=()
        for group in "${STACK_HANDLERS[@]}"; do
            [[ -S $STACK_RUN/$group.sock ]] || pending+=("$group")
        done
        ((${#pending[@]} == 0)) && break
        sleep 0.1
    done
    if ((${#pending[@]} > 0)); then
        for group in "${pending[@]}"; do
            echo "--- $STACK_DIR/log/$group.log" >&2
            tail -n 20 "$STACK_DIR/log/$group.log" >&2
        done
        stack_die "handler(s) ${pending[*]} did not create their socket in $STACK_RUN"
    fi
    stack_say "handlers: ${STACK_HANDLERS[*]}"
}

# What a test or a shell needs to talk to this stack (quoted: `source var/stack.env` works,
# the database URL holds a '&').
stack_write_env() {
    cat >"$STACK_DIR/stack.env" <<EOF
POUCH_URL='$STACK_URL'
POUCH_METRICS_URL='$STACK_METRICS_URL'
POUCH_DATABASE_URL='$STACK_DATABASE_URL'
POUCH_REDIS_URL='$STACK_REDIS_URL'
POUCH_VAR='$STACK_VAR'
POUCH_STACK_DIR='$STACK_DIR'
POUCH_SOCKET_DIR='$STACK_RUN'
POUCH_CA_FILE='$STACK_CA_FILE'
POUCH_PLAIN_URL='${STACK_PLAIN_URL:-}'
EOF
    chmod 600 "$STACK_DIR/stack.env"  # the Redis password
}

# Exports what the test suites, pouchctl and the smoke helpers (tests/smoke/lib.sh) read to
# talk to this stack, in the calling shell.
stack_export_client_env() {
    export POUCH_URL=$STACK_URL
    export POUCH_METRICS_URL=$STACK_METRICS_URL
    export POUCHCTL=$STACK_BUILD/bin/pouchctl
    # shellcheck disable=SC2031  # set only in the handlers' subshells, exported here
    export POUCH_DATABASE_URL=$STACK_DATABASE_URL POUCH_REDIS_URL=$STACK_REDIS_URL
    export POUCH_VAR=$STACK_DIR
    export POUCH_ROOT=$STACK_ROOT
    # With POUCH_TLS=1: the certificate to pin (tests/smoke/lib.sh, pouch --ca-file) and the
    # plain-HTTP port that redirects (tests/tls).
    export POUCH_CA_FILE=$STACK_CA_FILE POUCH_PLAIN_URL=${STACK_PLAIN_URL:-}
}

# Full start in dependency order, in two halves so test.sh can run the unit tests between
# them (Redis pub/sub is server-wide: a running handler's subscription would be seen by the
# unit tests). The caller must have trapped EXIT to stack_stop.
stack_start() {
    stack_start_backends
    stack_start_frontends
}

stack_start_backends() {
    STACK_STARTED=1
    stack_stop_leftovers
    stack_start_postgres
    stack_start_redis
    stack_migrate "$STACK_DATABASE_URL"
}

stack_start_frontends() {
    stack_start_handlers
    stack_start_nginx nginx "$STACK_HTTP_PORT" "$STACK_RATE_LIMITS"
    stack_write_env
    if [[ " ${STACK_HANDLERS[*]} " == *" account "* ]]; then
        local cacert=()
        [[ -n $STACK_CA_FILE ]] && cacert=(--cacert "$STACK_CA_FILE")
        if ! curl -fsS -o /dev/null --max-time 5 "${cacert[@]}" "$STACK_URL/v1/health"; then
            stack_say "warning: $STACK_URL/v1/health did not answer 200"
        fi
    fi
}

# Stops everything this stack started: handlers, nginx, Redis, PostgreSQL. Idempotent, and
# safe after a partial start.
stack_stop() {
    local entry pid group
    ((STACK_STARTED)) || return 0
    STACK_STARTED=0
    set +e
    stack_say "stopping"
    for entry in "${STACK_SUPERVISORS[@]}"; do
        kill -TERM "${entry#*:}" 2>/dev/null
    done
    for entry in "${STACK_SUPERVISORS[@]}"; do
        group=${entry%%:*} pid=${entry#*:}
        if ! stack_wait_gone "$pid" 150; then
            stack_say "supervisor of $group did not stop; killing it and its handler"
            kill -KILL "$pid" "$(cat "$STACK_DIR/pids/$group.pid" 2>/dev/null)" 2>/dev/null
        fi
        wait "$pid" 2>/dev/null
        rm -f "$STACK_DIR/pids/supervise-$group.pid"
    done
    STACK_SUPERVISORS=()
    for pid in "${STACK_NGINX_PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null
        stack_wait_gone "$pid" 100 || kill -KILL "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    STACK_NGINX_PIDS=()
    [[ -x $STACK_DIR/bin/redis-ctl ]] && "$STACK_DIR/bin/redis-ctl" stop
    if stack_running "$STACK_PG_PID"; then
        if ! (cd "$STACK_DIR" && stack_as "$PG_BIN/pg_ctl" stop -D "$STACK_DIR/pg" -m fast -w) >/dev/null 2>&1; then
            stack_say "pg_ctl stop failed (log: $STACK_DIR/log/postgres.log); killing the postmaster"
            kill -KILL "$STACK_PG_PID" 2>/dev/null
        fi
    fi
    ((STACK_PG_PID)) && wait "$STACK_PG_PID" 2>/dev/null
    STACK_PG_PID=0
    rm -f "$STACK_RUN"/*.sock
    if [[ $STACK_RUN != "$STACK_DIR/run" ]]; then rmdir "$STACK_RUN" 2>/dev/null; fi
    set -e
    return 0
}

# Tails of the logs that explain a failure.
stack_tail_logs() {
    local f
    for f in "$STACK_DIR"/log/*.log; do
        [[ -s $f ]] || continue
        case $(basename "$f") in initdb.log | *-t.log | *-access.log) continue ;; esac
        echo "--- tail of $f" >&2
        tail -n "${1:-30}" "$f" >&2
    done
}

# stack_wal_archive [ARCHIVE_TIMEOUT]: turns on WAL archiving to a pgBackRest repository under
# STACK_DIR/backup (docs/OPERATIONS.md "Backup and restore"), as production configures it:
# archive_command copies the blobs new since the last copy (`pouchctl backup blobs`) and only
# then pushes the segment, so every archived segment finds the blobs it names in the
# repository. Restarts PostgreSQL (archive_mode needs it), creates the stanza and checks that
# a segment gets archived. pgBackRest runs as the service user, like PostgreSQL. Sets
# STACK_BACKUP_CONF and STACK_BACKUP_PCTL (the pouchctl that user can run); run
# `stack_as "$STACK_BACKUP_PCTL" backup --config "$STACK_BACKUP_CONF" --blob-dir ...`.
stack_wal_archive() {
    local dir=$STACK_DIR/backup timeout=${1:-60} cmd
    command -v pgbackrest >/dev/null || stack_die "pgbackrest not found (run tools/stack/deps.sh)"
    mkdir -p "$dir"/{repo,log,lock,spool}
    chmod 700 "$dir"
    STACK_BACKUP_CONF=$dir/pgbackrest.conf
    STACK_BACKUP_PCTL=$STACK_BUILD/bin/pouchctl
    if [[ -n $STACK_USER ]] && ! stack_as test -x "$STACK_BACKUP_PCTL"; then
        cp -f "$STACK_BUILD/bin/pouchctl" "$STACK_DIR/bin/pouchctl"
        STACK_BACKUP_PCTL=$STACK_DIR/bin/pouchctl
    fi
    # lz4: the fastest of pgBackRest's compressions, so a restore is bounded by the disk.
    cat >"$STACK_BACKUP_CONF" <<CONF
# Generated by tools/stack/lib.sh (stack_wal_archive) for the local stack.
[global]
repo1-path=$dir/repo
repo1-retention-full=2
log-path=$dir/log
lock-path=$dir/lock
spool-path=$dir/spool
log-level-console=warn
log-level-file=info
compress-type=lz4
process-max=2
start-fast=y

[pouch]
pg1-path=$STACK_DIR/pg
pg1-socket-path=$STACK_RUN
pg1-port=$STACK_PG_PORT
pg1-user=pouch
CONF
    stack_own "$STACK_DIR/bin" "$dir"
    cmd="$(printf '%q' "$STACK_BACKUP_PCTL") backup blobs --config $(printf '%q' "$STACK_BACKUP_CONF")"
    cmd+=" --blob-dir $(printf '%q' "$STACK_DIR/blobs") >/dev/null"
    cmd+=" && pgbackrest --config=$(printf '%q' "$STACK_BACKUP_CONF") --stanza=pouch archive-push %p"
    stack_psql -d postgres -v cmd="$cmd" -v timeout="$timeout" >/dev/null <<'SQL'
ALTER SYSTEM SET archive_mode = on;
ALTER SYSTEM SET archive_command = :'cmd';
ALTER SYSTEM SET archive_timeout = :'timeout';
ALTER SYSTEM SET wal_level = replica;
SQL
    if ! (cd "$STACK_DIR" && stack_as "$PG_BIN/pg_ctl" stop -D "$STACK_DIR/pg" -m fast -w) >/dev/null 2>&1; then
        stack_die "pg_ctl stop failed (log: $STACK_DIR/log/postgres.log)"
    fi
    wait "$STACK_PG_PID" 2>/dev/null || true
    stack_start_postgres
    if ! (cd "$STACK_DIR" && stack_as "$STACK_BACKUP_PCTL" backup init --config "$STACK_BACKUP_CONF" \
        --blob-dir "$STACK_DIR/blobs") >"$dir/log/init.log" 2>&1; then
        cat "$dir/log/init.log" >&2
        stack_die "pouchctl backup init failed"
    fi
    stack_say "WAL archiving to $dir/repo (archive_timeout $timeout s)"
}

# stack_stop_handlers: stops the handlers and their supervisors only (as stack_stop does), for
# what must happen while no handler runs: a restore (tests/faults restore_drill), an upgrade
# (tests/upgrade). stack_start_handlers starts them again.
stack_stop_handlers() {
    local entry pid group
    for entry in "${STACK_SUPERVISORS[@]}"; do kill -TERM "${entry#*:}" 2>/dev/null || true; done
    for entry in "${STACK_SUPERVISORS[@]}"; do
        group=${entry%%:*} pid=${entry#*:}
        if ! stack_wait_gone "$pid" 150; then
            kill -KILL "$pid" "$(cat "$STACK_DIR/pids/$group.pid" 2>/dev/null)" 2>/dev/null || true
        fi
        wait "$pid" 2>/dev/null || true
        rm -f "$STACK_DIR/pids/supervise-$group.pid" "$STACK_RUN/$group.sock"
    done
    STACK_SUPERVISORS=()
}
