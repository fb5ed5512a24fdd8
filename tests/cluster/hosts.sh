# hosts.sh -- the cluster test's handler hosts (tests/cluster/run.sh): every handler group of
# one host, each kept running by tools/stack/supervise.sh as the service user inside the
# host's network namespace (net.sh), serving FastCGI on TCP at <host address>:<group port>
# (POUCH_LISTEN, ports of STACK_GROUP_PORTS) to nginx alone (FCGI_WEB_SERVER_ADDRS = the bridge
# address), with the shared multi-host database URL and Redis, and the blob store: the bucket
# of run.sh's Ceph (POUCH_BLOB_STORE and POUCH_S3_* exported by run.sh) with a blob directory
# of the host's own, which must stay empty; or, with POUCH_CLUSTER_BLOBS=dir, one directory
# for both.
# Sourced after tools/stack/lib.sh and net.sh; CLUSTER_DATABASE_URL must be set.
# shellcheck shell=bash

# host_dir I: logs and pid files of host I (1-based).
host_dir() { echo "$STACK_DIR/h$1"; }

# host_handler_pid I GROUP: the pid of that handler process (its supervisor writes it).
host_handler_pid() { cat "$(host_dir "$1")/pids/$2.pid" 2>/dev/null; }

# host_pids I: "group=pid ..." of every handler of host I, for before/after comparisons.
host_pids() {
    local g out=""
    for g in "${STACK_HANDLERS[@]}"; do out+="$g=$(host_handler_pid "$1" "$g") "; done
    echo "${out% }"
}

# host_serving I: every group of host I accepts connections on its port.
host_serving() {
    local g addr=${NET_HOST_ADDRS[$1 - 1]}
    for g in "${STACK_HANDLERS[@]}"; do
        (exec 3<>"/dev/tcp/$addr/$(stack_group_port "$g")") 2>/dev/null || return 1
    done
}

# host_start I: starts the supervised handlers of host I and waits until all accept.
host_start() {
    local i=$1 ns=${NET_NAMESPACES[$1 - 1]} addr=${NET_HOST_ADDRS[$1 - 1]} dir group log k
    dir=$(host_dir "$i")
    mkdir -p "$dir/log" "$dir/pids" "$dir/blobs"
    rm -f "$dir"/pids/*.pid
    for group in "${STACK_HANDLERS[@]}"; do
        log=$dir/log/$group.log
        touch "$log"
    done
    stack_own "$dir"
    for group in "${STACK_HANDLERS[@]}"; do
        (
            cd "$STACK_DIR" || exit 1
            unset POUCH_SOCKET
            POUCH_LISTEN=$addr:$(stack_group_port "$group")
            export POUCH_LISTEN
            export FCGI_WEB_SERVER_ADDRS=$NET_GATEWAY
            export POUCH_DATABASE_URL=$CLUSTER_DATABASE_URL
            export POUCH_REDIS_URL=redis://$STACK_REDIS_USER:$STACK_REDIS_PASSWORD@$NET_GATEWAY:$STACK_REDIS_PORT/0
            export POUCH_PUBLIC_URL=$STACK_URL POUCH_WEB_URL=$STACK_URL
            if [[ $CLUSTER_BLOBS == ceph ]]; then
                export POUCH_BLOB_DIR=$dir/blobs
            else
                unset POUCH_BLOB_STORE POUCH_S3_ENDPOINT POUCH_S3_REGION POUCH_S3_ACCESS_KEY POUCH_S3_SECRET_KEY
                export POUCH_BLOB_DIR=$STACK_DIR/blobs
            fi
            export POUCH_THREADS=${POUCH_THREADS:-8} POUCH_DB_POOL=${POUCH_DB_POOL:-3}
            export POUCH_LOG_LEVEL=info
            exec ip netns exec "$ns" setsid "${STACK_AS[@]}" "$STACK_SUPERVISE" "$group" \
                "$dir/log/$group.log" "$dir/pids/$group.pid" "$STACK_EXEC/pouch-$group"
        ) 2>>"$STACK_DIR/log/h$i-supervisors.log" &
    done
    for ((k = 0; k < 150; k++)); do
        host_serving "$i" && break
        sleep 0.1
    done
    if ! host_serving "$i"; then
        for group in "${STACK_HANDLERS[@]}"; do
            echo "--- $dir/log/$group.log" >&2
            tail -n 10 "$dir/log/$group.log" >&2
        done
        stack_die "handler host $i ($addr) did not start serving"
    fi
    net_say "handler host $i: ${STACK_HANDLERS[*]} on $addr (ports $(for group in "${STACK_HANDLERS[@]}"; do printf '%s ' "$(stack_group_port "$group")"; done | sed 's/ $//'))"
}

# host_copy_binaries: the handlers and supervise.sh where the service user reaches them, as
# for the one-host stack (tools/stack/lib.sh).
host_copy_binaries() { stack_copy_binaries; }

# host_kill I: kill -9 of every process of host I (supervisors and handlers): the host is gone.
host_kill() { net_kill_all "${NET_NAMESPACES[$1 - 1]}" KILL; }

# host_stop I: SIGTERM to host I's processes (the supervisors stop their handlers).
host_stop() { net_kill_all "${NET_NAMESPACES[$1 - 1]}" TERM || host_kill "$1"; }
