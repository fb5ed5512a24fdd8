#!/usr/bin/env bash
# run.sh -- the hostile suite (issue 22; `make test-hostile`, and the `hostile` suite of `make
# test`): the real clients -- the `pouch` CLI and the web app in Debian's chromium -- attacked by
# a malicious server (the tampering proxy tests/hostile/proxy.py between them and the stack), a
# malicious member (pouch-attacker, tools/attacker) and a network attacker, each scenario checking
# the safe outcome on disk, in the proxy's log of what the clients sent, and in PostgreSQL.
# DPoP proofs name the URL (htu = POUCH_PUBLIC_URL + path), so this suite starts a stack of its
# own (tools/stack/lib.sh, as tests/faults does) whose public and web URL is the proxy's.
#   POUCH_HOSTILE="cli browser"   which halves run (default both)
#   POUCH_HOSTILE_ONLY=REGEX       only the scenarios whose names match
#   POUCH_KEEP_VAR=1               keeps the directory (proxy log: hostile/proxy.log)
# Prints PASS/FAIL lines and ends with "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tools/stack/lib.sh
source tools/stack/lib.sh

halves=${POUCH_HOSTILE:-cli browser}
HOSTILE_VAR=$(mktemp -d /tmp/pouch-hostile.XXXXXX)
PROXY_PID=0

cleanup() {
    if ((PROXY_PID)); then
        kill "$PROXY_PID" 2>/dev/null || true
        wait "$PROXY_PID" 2>/dev/null || true
        PROXY_PID=0
    fi
    stack_stop
    if [[ ${POUCH_KEEP_VAR:-0} == 1 ]]; then
        stack_say "kept $HOSTILE_VAR"
    else
        rm -rf "$HOSTILE_VAR"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

export POUCH_RATE_LIMITS=off
# The forged answers of this suite are not the API: keep them out of the OpenAPI check's log.
unset POUCH_API_LOG POUCH_URL_RATE_LIMITED
http_port=""
proxy_port=""
stack_free_port http_port
stack_free_port proxy_port
# The clients see the proxy as the server: the handlers check DPoP proofs against it and name
# it in authorize_url.
export POUCH_PUBLIC_URL=http://127.0.0.1:$proxy_port
export POUCH_WEB_URL=$POUCH_PUBLIC_URL
stack_init "$HOSTILE_VAR/stack" "$http_port" test
stack_start
stack_export_client_env

H=$HOSTILE_VAR/hostile
mkdir -p "$H"
chmod 755 "$HOSTILE_VAR" "$H"
export HOSTILE_DIR=$H
export HOSTILE_RULES=$H/rules.json
export HOSTILE_LOG=$H/proxy.log
export HOSTILE_DIRECT=$STACK_URL
echo '[]' >"$HOSTILE_RULES"
: >"$HOSTILE_LOG"
python3 tests/hostile/proxy.py --listen "$proxy_port" --upstream "$STACK_URL" \
    --rules "$HOSTILE_RULES" --log "$HOSTILE_LOG" 2>"$H/proxy.err" &
PROXY_PID=$!
for _ in {1..300}; do
    stack_port_in_use "$proxy_port" && break
    sleep 0.1
done
stack_port_in_use "$proxy_port" || stack_die "the proxy did not start: $(cat "$H/proxy.err")"
# Every client of the suite talks to the proxy: it is "the server".
export POUCH_URL=$POUCH_PUBLIC_URL

passed=0
failed=0
count() {
    passed=$((passed + $(grep -c '^PASS ' "$1" || true)))
    failed=$((failed + $(grep -c '^FAIL ' "$1" || true)))
}
for half in $halves; do
    out=$H/$half.out
    status=0
    case $half in
        cli) bash tests/hostile/cli.sh 2>&1 | tee "$out" || status=$? ;;
        browser) env BUILD="$STACK_BUILD" bash tests/hostile/browser.sh 2>&1 | tee "$out" || status=$? ;;
        *) stack_die "unknown half '$half' in POUCH_HOSTILE (cli browser)" ;;
    esac
    if ! grep -qx 'HOSTILE END' "$out"; then
        echo "FAIL hostile_$half: stopped before its end (see above)"
        failed=$((failed + 1))
    elif ((status != 0)) && ! grep -q '^FAIL ' "$out"; then
        # A half that could not run its scenarios (e.g. no node packages) must not pass empty.
        echo "FAIL hostile_$half: exited with status $status without a FAIL line (see above)"
        failed=$((failed + 1))
    fi
    count "$out"
done

if ((failed > 0)); then stack_tail_logs 20; fi
cleanup
trap - EXIT
echo "$passed passed, $failed failed"
((failed == 0))
