#!/usr/bin/env bash
# run.sh -- `make run`: serves the local Pouch Sync stack in the foreground from ./var
# (PostgreSQL data is kept between runs) until Ctrl-C or SIGTERM, then stops everything.
# HTTP on 127.0.0.1:${POUCH_PORT:-8080}; nginx's metrics server, PostgreSQL and Redis on free
# loopback ports (POUCH_METRICS_LISTEN sets the first), written to var/stack.env at each start.
# POUCH_TLS=1: HTTPS on that port instead, with a certificate made for 127.0.0.1 and kept in
# var/tls/cert.pem (the file to pin: pouch --ca-file, curl --cacert), and plain HTTP on a free
# port that only redirects to it (and serves ACME challenges from var/acme).
# Relies on tools/stack/lib.sh.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tools/stack/lib.sh
source tools/stack/lib.sh

port=${POUCH_PORT:-8080}
[[ $port =~ ^[0-9]+$ ]] || stack_die "POUCH_PORT must be a port number, not '$port'"

sleeper=0
stop() {
    if ((sleeper)); then kill "$sleeper" 2>/dev/null || true; fi
    stack_stop
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

stack_init "${POUCH_VAR:-var}" "$port" run
# A run killed with SIGKILL may still hold the port: stop what it left first.
stack_stop_leftovers
if stack_port_in_use "$port"; then
    stack_die "port $port is in use; set POUCH_PORT to another one"
fi
stack_start

stack_say "ready: $STACK_URL"
if [[ $STACK_TLS == on ]]; then
    stack_say "  CA file  $STACK_VAR/tls/cert.pem (pouch --ca-file, curl --cacert); $STACK_PLAIN_URL redirects"
fi
stack_say "  metrics  $STACK_METRICS_URL/metrics/<group> (internal listener; POUCH_METRICS_LISTEN)"
stack_say "  database $STACK_DATABASE_URL"
stack_say "  redis    ${STACK_REDIS_URL/:$STACK_REDIS_PASSWORD@/:***@} (with its password: $STACK_VAR/stack.env)"
stack_say "  logs     $STACK_VAR/log/"
stack_say "Ctrl-C stops everything."
echo "$STACK_URL"

# Watch the services: a dead nginx or PostgreSQL ends the run; handlers are restarted by their
# supervisors; a stopped Redis is reported (the handlers must cope with it).
redis_warned=0
while :; do
    sleep 1 &
    sleeper=$!
    wait "$sleeper" || true
    sleeper=0
    if ! stack_running "${STACK_NGINX_PIDS[0]}"; then
        stack_tail_logs 10
        stack_die "nginx exited"
    fi
    if ! stack_running "$STACK_PG_PID"; then
        stack_die "PostgreSQL exited (log: $STACK_VAR/log/postgres.log)"
    fi
    redis_pid=$(cat "$STACK_DIR/pids/redis.pid" 2>/dev/null || true)
    if [[ $redis_pid =~ ^[0-9]+$ ]] && stack_running "$redis_pid"; then
        redis_warned=0
    elif ((!redis_warned)); then
        stack_say "warning: Redis is not running (start it again: $STACK_VAR/bin/redis-ctl start)"
        redis_warned=1
    fi
done
