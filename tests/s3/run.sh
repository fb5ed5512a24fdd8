#!/usr/bin/env bash
# run.sh -- the `s3` suite of `make test` (issue 27): the blob store on a real radosgw. Starts a
# single-host Ceph (tools/stack/ceph.sh) and a stack of its own whose handlers and pouchctl keep
# blobs in its bucket (POUCH_BLOB_STORE=s3://…, from the s3.env ceph.sh writes), then runs the
# blob smoke scripts (tests/smoke/50-blobs.sh, 51-blobs-gc.sh: they read the objects from the
# bucket), the checks of tests/s3/checks.sh (downloads through nginx's /_s3/ location with a
# presigned URL, radosgw killed -> 503 unavailable and no row, back -> the retry stores it,
# `pouchctl blobs migrate` interrupted and rerun), a CLI push/pull through it, and the unit
# tests that need the store (unit_tests S3Live.*: streamed PUTs). Always tears
# both down. Prints PASS/FAIL lines and SMOKE END (tools/stack/test.sh counts them).
#   POUCH_KEEP_VAR=1  keeps the directories
set -euo pipefail
cd "$(dirname "$0")/../.."
# shellcheck source=tools/stack/lib.sh
source tools/stack/lib.sh

S3_VAR=$(mktemp -d /tmp/pouch-s3.XXXXXX)
CEPH_DIR=$(mktemp -d /tmp/pouch-ceph.XXXXXX)
chmod 755 "$CEPH_DIR"  # the daemons run as user ceph (tools/stack/ceph.sh)
export CEPH_DIR
cleanup() {
    stack_stop
    tools/stack/ceph.sh stop "$CEPH_DIR" >/dev/null 2>&1 || true
    if [[ ${POUCH_KEEP_VAR:-0} == 1 ]]; then
        stack_say "kept $S3_VAR and $CEPH_DIR"
    else
        rm -rf "$S3_VAR" "$CEPH_DIR"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

started=$SECONDS
tools/stack/ceph.sh start "$CEPH_DIR" 2>&1 | sed 's/^/  /'
[[ -f $CEPH_DIR/s3.env ]] || { echo "FAIL s3_setup: ceph.sh start wrote no s3.env"; exit 1; }
set -a
# shellcheck source=/dev/null
source "$CEPH_DIR/s3.env"
set +a
echo "  (ceph up after $((SECONDS - started)) s: $POUCH_BLOB_STORE at $POUCH_S3_ENDPOINT)"

unset POUCH_PUBLIC_URL POUCH_WEB_URL
export POUCH_RATE_LIMITS=off
http_port=""
stack_free_port http_port
stack_init "$S3_VAR/stack" "$http_port" test
stack_start
stack_export_client_env
echo "  (stack up after $((SECONDS - started)) s)"

status=0
for script in tests/smoke/50-blobs.sh tests/smoke/51-blobs-gc.sh; do
    echo "--- $script on $POUCH_BLOB_STORE"
    out=$S3_VAR/$(basename "$script" .sh).out
    bash "$script" >"$out" 2>&1 || status=1
    sed 's/^/  /; s/^  \(PASS\|FAIL\) /\1 s3\//' "$out"
    grep -qx 'SMOKE END' "$out" || echo "FAIL s3/$(basename "$script" .sh): stopped before its end"
done
echo "  (smoke scripts done after $((SECONDS - started)) s)"

# shellcheck source=tests/s3/checks.sh
bash tests/s3/checks.sh || status=1

# The unit tests that need the real store (tests/unit/storage_s3_test.cpp, S3Live: streamed
# PUTs refused before their last byte store nothing), one PASS/FAIL line each.
echo "--- unit_tests S3Live.* on $POUCH_BLOB_STORE"
"$STACK_BUILD/bin/unit_tests" --gtest_filter='S3Live.*' >"$S3_VAR/s3live.out" 2>&1 || status=1
sed 's/^/  /' "$S3_VAR/s3live.out" | grep -v '^  \[ \(RUN\|  OK\|  FAILED\)' || true
sed -n 's/^\[       OK \] S3Live\.\([A-Za-z]*\) (.*/PASS s3\/live_\1/p; s/^\[  FAILED  \] S3Live\.\([A-Za-z]*\) (.*/FAIL s3\/live_\1/p' "$S3_VAR/s3live.out"
grep -q '^\[  PASSED  \] 4 tests' "$S3_VAR/s3live.out" || { echo "FAIL s3/live: not all 4 S3Live tests passed"; status=1; }
echo "  (all done after $((SECONDS - started)) s)"
exit "$status"
