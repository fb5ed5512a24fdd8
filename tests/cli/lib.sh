# lib.sh -- helpers of the CLI suite (tests/cli/run.sh): its devices' directory for
# tests/lib/devices.sh (the `pouch` binary as one device or another, the browser member
# pouch-testweb, logins approved by it), folder comparisons and modes. Sourced after
# tests/smoke/lib.sh (PASS/FAIL lines, sql, retry), with the environment tools/stack/test.sh
# sets (POUCH_URL, POUCHCTL, ...).
# shellcheck shell=bash

CLI_TMP=$SMOKE_TMP/cli
# dev, cfg, member_id, device_id, web, web_account, login: tests/lib/devices.sh.
DEVICES=$CLI_TMP
# shellcheck source=tests/lib/devices.sh
source tests/lib/devices.sh

# same_tree A B: the two folders hold the same files with the same bytes (pouch's own
# temporary files would show up as a difference).
same_tree() {
    diff -r "$1" "$2" >/dev/null
}

mode_of() { stat -c %a "$1"; }

# said N WHAT: the summary line in ERR counts exactly N WHAT ("…: 1 received, 2 sent"), not
# 11 or 100001 of them.
said() { grep -qE "(: |, )$1 $2(,|\$)" <<<"$ERR"; }
