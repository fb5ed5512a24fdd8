#!/usr/bin/env bash
# supervise.sh -- keeps one handler process running for the local stack: restarts it when it
# dies (backoff 200 ms doubling to 2 s, reset after 10 s of uptime), stops it on SIGTERM/SIGINT.
# Usage: supervise.sh NAME LOGFILE PIDFILE COMMAND [ARGS...]; the handler's stdout and stderr
# go to LOGFILE, its pid to PIDFILE (tests kill it through that file to check the restart).
# The script is all functions plus one call, so bash has parsed it whole before it runs and
# editing it during a running stack cannot break the running supervisors.
set -euo pipefail

child=0
sleeper=0
stopping=0

# One line on the stack's terminal (fd 3) and one JSON line in the handler's own log, so a
# restart is visible live and next to the crash it follows.
note() {
    printf 'stack: %s: %s\n' "$name" "$1" >&3
    printf '{"ts":"%s","level":"warn","group":"%s","msg":"supervisor: %s"}\n' \
        "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)" "$name" "$1" >>"$log"
}

# shellcheck disable=SC2317  # invoked by trap
on_stop() {
    stopping=1
    if ((sleeper)); then kill -TERM "$sleeper" 2>/dev/null || true; fi
    if ((child)); then kill -TERM "$child" 2>/dev/null || true; fi
}

# True while the process runs (a zombie, exited but not yet reaped, counts as gone).
running() {
    local stat
    stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
    stat=${stat##*) }
    [[ ${stat%% *} != Z ]]
}

# Waits for the handler to end; returns its wait status in `status`.
reap() {
    status=0
    wait "$child" || status=$?
    # A trapped signal interrupts `wait` while the handler may still run; wait again until it
    # is really gone (kill -0 also succeeds on a not yet reaped zombie).
    while kill -0 "$child" 2>/dev/null; do
        if ((stopping)); then
            # A handler that ignores SIGTERM must not keep the stack from stopping.
            for _ in {1..100}; do
                running "$child" || break
                sleep 0.1
            done
            if running "$child"; then
                note "handler ignored SIGTERM for 10 s; killing it"
                kill -KILL "$child" 2>/dev/null || true
            fi
        fi
        status=0
        wait "$child" || status=$?
    done
    child=0
}

main() {
    if (($# < 4)); then
        echo "usage: supervise.sh NAME LOGFILE PIDFILE COMMAND [ARGS...]" >&2
        exit 2
    fi
    name=$1 log=$2 pidfile=$3
    shift 3
    local backoff_ms=200 started why

    # bash reports a child killed by a signal ("line N: PID Killed ...") on stderr: that
    # belongs in the handler's log, next to the handler's last words.
    exec 3>&2 2>>"$log"
    trap on_stop TERM INT

    while ((!stopping)); do
        started=$SECONDS
        "$@" >>"$log" 2>&1 &
        child=$!
        echo "$child" >"$pidfile"
        reap
        ((stopping)) && break
        if ((SECONDS - started >= 10)); then
            backoff_ms=200
        fi
        if ((status > 128)); then
            why="killed by signal $((status - 128))"
        else
            why="exited with status $status"
        fi
        note "handler $why; restarting in ${backoff_ms} ms"
        sleep "$((backoff_ms / 1000)).$(printf '%03d' $((backoff_ms % 1000)))" &
        sleeper=$!
        wait "$sleeper" || true
        sleeper=0
        backoff_ms=$((backoff_ms * 2 > 2000 ? 2000 : backoff_ms * 2))
    done
    rm -f "$pidfile"
}

main "$@"
exit
