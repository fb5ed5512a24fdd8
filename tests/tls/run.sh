#!/usr/bin/env bash
# run.sh -- the TLS suite (issue 26; the `tls` suite of `make test`): a stack of its own started
# as `make run POUCH_TLS=1` starts it (tools/stack/lib.sh: HTTPS on its port with a certificate
# made for 127.0.0.1, a plain-HTTP port that only redirects and serves ACME challenges, the
# handlers' POUCH_PUBLIC_URL https://127.0.0.1:PORT), then tests/tls/checks.sh through it: the
# protocol and header checks, DPoP htu on the https origin, and the real CLI pinned with
# --ca-file; then a subset of the smoke scripts through https. Its own stack because the
# handlers' public origin (DPoP htu) is the https one.
#   POUCH_KEEP_VAR=1   keeps the directory
# Prints PASS/FAIL lines and SMOKE END (tools/stack/test.sh counts them).
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tools/stack/lib.sh
source tools/stack/lib.sh

TLS_VAR=$(mktemp -d /tmp/pouch-tls.XXXXXX)
cleanup() {
    stack_stop
    if [[ ${POUCH_KEEP_VAR:-0} == 1 ]]; then
        stack_say "kept $TLS_VAR"
    else
        rm -rf "$TLS_VAR"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

export POUCH_RATE_LIMITS=off POUCH_TLS=1
# The handlers name the stack's own https origin; nothing of the caller's.
unset POUCH_PUBLIC_URL POUCH_WEB_URL POUCH_API_LOG POUCH_URL_RATE_LIMITED POUCH_METRICS_LISTEN
http_port=""
stack_free_port http_port
start=$SECONDS
stack_init "$TLS_VAR/stack" "$http_port" test
stack_start
echo "  (the stack started in $((SECONDS - start)) s)"
stack_export_client_env
chmod 755 "$TLS_VAR"
status=0
# run_script SCRIPT NAME: its PASS/FAIL lines (named NAME/<check> unless NAME is empty), a FAIL
# when it stopped before its SMOKE END; only this script's own SMOKE END, at the very end, tells
# test.sh it finished.
run_script() {
    local out prefix=${2:+$2/} start=$SECONDS
    out=$TLS_VAR/$(basename "$1" .sh).out
    bash "$1" >"$out" 2>&1 || status=1
    echo "  (${2:-tls/checks} took $((SECONDS - start)) s)"
    sed -E -e "s#^(PASS|FAIL) #\1 $prefix#" -e '/^SMOKE END$/d' "$out"
    if ! grep -qx 'SMOKE END' "$out"; then
        echo "FAIL ${2:-tls/checks}: stopped before its end"
        status=1
    fi
}
run_script tests/tls/checks.sh ""

# Then the smoke scripts of what matters through https (sign-up and login, a commit, blobs up
# and down, share links; the CLI login with DPoP is checks.sh's), their PASS/FAIL lines named
# tls/<script>/<check>; POUCH_TLS_SMOKE_FILES picks others (prefixes, as POUCH_SMOKE_FILES).
# Measured with load 10 on the 2 cores: stack 5 s, checks 5 s, 10 12 s, 30 31 s, 50 15 s, 60
# 16 s (22-devices, 30 s more, left out).
for want in ${POUCH_TLS_SMOKE_FILES:-10 30 50 60}; do
    for script in tests/smoke/"$want"*.sh; do
        [[ -f $script ]] && run_script "$script" "tls/$(basename "$script" .sh)"
    done
done
echo "SMOKE END"
exit "$status"
