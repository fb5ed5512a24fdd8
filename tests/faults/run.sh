#!/usr/bin/env bash
# run.sh -- `make test-faults`: starts the stack as `make test` does (tools/stack/lib.sh, a
# fresh temporary directory, free loopback ports, rate limits off) but with PostgreSQL durable
# (fsync and synchronous_commit on), runs the fault scenarios of tests/faults/scenarios.sh
# under a steady commit load (tests/faults/load.py; the crash and the restore drill, which
# turns on WAL archiving with pgBackRest, under the CLI-path load of tests/faults/cli_load.py),
# always tears down, and ends with one line "N passed, N failed". Figures (requests, restarts, statuses)
# are printed as "FIGURES <scenario> <json>" lines.
#   POUCH_FAULTS="handler_kill cliauth_kill devices_kill postgres_restart postgres_crash
#                 redis_stop nginx_reload restore_drill"  picks scenarios
#   POUCH_FAULT_KILLS=10       how often the sync handler is killed
#   POUCH_FAULT_OUTAGE=6       seconds PostgreSQL stays down
#   POUCH_KEEP_VAR=1           keeps the directory (load logs: load-*/requests.jsonl)
# The scenarios run in this shell, not in child processes: restarting PostgreSQL must leave
# the new postmaster a child of the shell that stops it at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tools/stack/lib.sh
source tools/stack/lib.sh

scenarios=${POUCH_FAULTS:-handler_kill cliauth_kill devices_kill postgres_restart postgres_crash redis_stop nginx_reload restore_drill}
FAULT_VAR=$(mktemp -d /tmp/pouch-faults.XXXXXX)
LOAD_PID=0

cleanup() {
    if ((LOAD_PID)); then
        touch "$LOAD_DIR/stop" 2>/dev/null
        wait "$LOAD_PID" 2>/dev/null
        LOAD_PID=0
    fi
    # Redis may have been stopped by a scenario that failed half-way; stack_stop stops it.
    stack_stop
    if [[ ${POUCH_KEEP_VAR:-0} == 1 ]]; then
        stack_say "kept $FAULT_VAR"
    else
        rm -rf "$FAULT_VAR"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

unset POUCH_PUBLIC_URL POUCH_WEB_URL
export POUCH_RATE_LIMITS=off

http_port=""
stack_free_port http_port
# PostgreSQL as production runs it (fsync, synchronous_commit): a crash must lose nothing.
stack_init "$FAULT_VAR" "$http_port" durable
stack_start

stack_export_client_env

# The smoke helpers (req, expect_*, check, retry, stack_handler_kill, the CLI login flow).
# shellcheck source=tests/smoke/lib.sh
source tests/smoke/lib.sh
# shellcheck source=tests/smoke/flows.sh
source tests/smoke/flows.sh
trap 'rm -rf "$SMOKE_TMP"; cleanup' EXIT
# shellcheck source=tests/faults/scenarios.sh
source tests/faults/scenarios.sh

for s in $scenarios; do
    declare -F "fault_$s" >/dev/null || stack_die "unknown scenario '$s' in POUCH_FAULTS"
done
for s in $scenarios; do
    echo "=== faults/$s"
    started=$SECONDS
    # `||` keeps a scenario's failing command from ending the run (its checks report it).
    if ! "fault_$s"; then
        echo "FAIL $s: the scenario stopped early (see above)"
        SMOKE_FAILED=$((SMOKE_FAILED + 1))
    fi
    load_abort
    echo "  ($s took $((SECONDS - started)) s)"
done

if ((SMOKE_FAILED > 0)); then stack_tail_logs 30; fi
cleanup
trap - EXIT
rm -rf "$SMOKE_TMP"
echo "$SMOKE_PASSED passed, $SMOKE_FAILED failed"
((SMOKE_FAILED == 0))
