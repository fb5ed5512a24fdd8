#!/usr/bin/env bash
# run.sh -- `make test-cluster` (issue 18): Pouch Sync beyond one machine, on one machine. Two
# handler hosts in network namespaces made here (tests/cluster/net.sh: a bridge, veth pairs,
# addresses of this run's own), every handler group on each serving FastCGI on TCP
# (hosts.sh); one nginx in front with an upstream of both hosts per group; pg_auto_failover's
# monitor, primary and synchronous standby on local ports (pgaf.sh), reached through one
# multi-host URL with target_session_attrs=read-write; one Redis for both hosts; blobs in a
# single-host Ceph started here (tools/stack/ceph.sh: mon, OSD, radosgw on the bridge address,
# which both namespaces reach), each host with a blob directory of its own that must stay
# empty. Under a steady CLI-path commit load (tests/faults/cli_load.py) and parked events
# long-polls (longpoll.py) the scenarios of scenarios.sh kill host 1, kill -9 radosgw under a
# blob upload and commit load (blob_load.py), kill -9 the primary and bring it back as the
# standby, then check that nothing was lost. Always tears down; ends with "N passed, N failed"
# and prints the figures as "FIGURES cluster <json>".
#   POUCH_KEEP_VAR=1          keeps the directory (logs of every process, load logs)
#   POUCH_CLUSTER_BLOBS=dir   one blob directory shared by both hosts instead of Ceph (as a
#                             shared mount would be; the object-store scenario is skipped)
# Needs root (network namespaces); the services run as the unprivileged user of
# tools/stack/lib.sh. Relies on tools/stack/lib.sh and the smoke helpers.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tools/stack/lib.sh
source tools/stack/lib.sh
# shellcheck source=tests/cluster/net.sh
source tests/cluster/net.sh
# shellcheck source=tests/cluster/pgaf.sh
source tests/cluster/pgaf.sh
# shellcheck source=tests/cluster/hosts.sh
source tests/cluster/hosts.sh

if ((EUID != 0)); then
    echo "FAIL cluster: make test-cluster needs root (it makes network namespaces with ip netns)"
    echo "0 passed, 1 failed"
    exit 1
fi

CLUSTER_VAR=$(mktemp -d /tmp/pouch-cluster.XXXXXX)
LOAD_PID=0
POLL_PID=0
LOAD_DIR=""
POLL_DIR=""
CLUSTER_STARTED=$SECONDS
CLUSTER_BLOBS=${POUCH_CLUSTER_BLOBS:-ceph}
CLUSTER_CEPH=""      # the Ceph's directory once ceph.sh start ran
CEPH_START_PID=0
BLOB_LOAD_PID=0
BLOB_LOAD_DIR=""
[[ $CLUSTER_BLOBS == ceph || $CLUSTER_BLOBS == dir ]] ||
    { echo "FAIL cluster: POUCH_CLUSTER_BLOBS is ceph or dir, not '$CLUSTER_BLOBS'"; echo "0 passed, 1 failed"; exit 1; }

cleanup() {
    set +e
    local i
    for pid_dir in "$LOAD_PID:$LOAD_DIR" "$POLL_PID:$POLL_DIR" "$BLOB_LOAD_PID:$BLOB_LOAD_DIR"; do
        if [[ ${pid_dir%%:*} != 0 ]]; then
            touch "${pid_dir#*:}/stop" 2>/dev/null
            wait "${pid_dir%%:*}" 2>/dev/null
        fi
    done
    LOAD_PID=0 POLL_PID=0 BLOB_LOAD_PID=0
    for ((i = 1; i <= ${#NET_NAMESPACES[@]}; i++)); do host_stop "$i"; done
    stack_stop
    pgaf_stop
    if [[ -n $CLUSTER_CEPH ]]; then
        ((CEPH_START_PID)) && wait "$CEPH_START_PID"
        tools/stack/ceph.sh stop "$CLUSTER_CEPH" 2>>"$STACK_DIR/log/ceph.log"
        CLUSTER_CEPH="" CEPH_START_PID=0
    fi
    net_down
    if [[ ${POUCH_KEEP_VAR:-0} == 1 ]]; then
        stack_say "kept $CLUSTER_VAR"
    else
        rm -rf "$CLUSTER_VAR"
    fi
    set -e
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

unset POUCH_PUBLIC_URL POUCH_WEB_URL
export POUCH_RATE_LIMITS=off

http_port=""
stack_free_port http_port
stack_init "$CLUSTER_VAR" "$http_port" durable
STACK_STARTED=1  # stack_stop then stops nginx and Redis; PostgreSQL is pgaf.sh's

net_up 2
# Ceph comes up (6-8 s) while PostgreSQL does; its ports are taken here, with the stack's, so
# no two of them collide. radosgw listens on the bridge address, which both hosts reach.
if [[ $CLUSTER_BLOBS == ceph ]]; then
    CLUSTER_CEPH=$STACK_DIR/ceph
    mkdir -p "$CLUSTER_CEPH"
    chmod 711 "$STACK_DIR"   # the daemons run as user ceph (ceph.sh)
    ceph_rgw_port="" ceph_mon_port=""
    stack_free_port ceph_rgw_port
    stack_free_port ceph_mon_port
    POUCH_CEPH_RGW_ADDRS="$NET_GATEWAY 127.0.0.1" POUCH_CEPH_MON_PORT=$ceph_mon_port \
        tools/stack/ceph.sh start "$CLUSTER_CEPH" "$ceph_rgw_port" >"$STACK_DIR/log/ceph.log" 2>&1 &
    CEPH_START_PID=$!
fi
STACK_REDIS_BIND="127.0.0.1 $NET_GATEWAY" stack_start_redis
pgaf_start
CLUSTER_DATABASE_URL=$(pgaf_database_url)
stack_migrate "$CLUSTER_DATABASE_URL"
if [[ $CLUSTER_BLOBS == ceph ]]; then
    wait "$CEPH_START_PID" || { CEPH_START_PID=0; stack_die "Ceph did not come up: $(tail -n 5 "$STACK_DIR/log/ceph.log")"; }
    CEPH_START_PID=0
    net_say "$(tail -n 1 "$STACK_DIR/log/ceph.log")"
    # The handlers, nginx and pouchctl read the store from the environment.
    set -a
    # shellcheck source=/dev/null
    source "$CLUSTER_CEPH/s3.env"
    set +a
fi
host_copy_binaries
host_start 1
host_start 2
STACK_HANDLER_HOSTS="${NET_HOST_ADDRS[*]}" POUCH_METRICS_FROM=127.0.0.1 \
    stack_start_nginx nginx "$STACK_HTTP_PORT" off
stack_say "cluster up in $((SECONDS - CLUSTER_STARTED)) s: $STACK_URL"

stack_export_client_env
# shellcheck disable=SC2031  # the handlers' subshells set their own; this is the client's
export POUCH_DATABASE_URL=$CLUSTER_DATABASE_URL

# The smoke helpers (req, expect_*, check, retry, sql, the flows).
# shellcheck source=tests/smoke/lib.sh
source tests/smoke/lib.sh
# shellcheck source=tests/smoke/flows.sh
source tests/smoke/flows.sh
trap 'rm -rf "$SMOKE_TMP"; cleanup' EXIT
# shellcheck source=tests/cluster/scenarios.sh
source tests/cluster/scenarios.sh

cluster_scenarios || {
    echo "FAIL cluster: the scenarios stopped early (see above)"
    SMOKE_FAILED=$((SMOKE_FAILED + 1))
}
echo "  (cluster took $((SECONDS - CLUSTER_STARTED)) s)"

if ((SMOKE_FAILED > 0)); then
    stack_tail_logs 20
    for f in "$STACK_DIR"/h*/log/sync.log; do
        echo "--- tail of $f" >&2
        tail -n 20 "$f" >&2
    done
fi
cleanup
trap - EXIT
rm -rf "$SMOKE_TMP"
echo "$SMOKE_PASSED passed, $SMOKE_FAILED failed"
((SMOKE_FAILED == 0))
