# lib.sh -- helpers of the CLI suite (tests/cli/run.sh): the `pouch` binary as one device or
# another (each its own config directory), the dev/test browser member pouch-testweb, logins
# approved by it, and folder comparisons. Sourced after tests/smoke/lib.sh (PASS/FAIL lines,
# sql, retry), with the environment tools/stack/test.sh sets (POUCH_URL, POUCHCTL, ...).
# shellcheck shell=bash

BIN=$(dirname "$POUCHCTL")
POUCH=$BIN/pouch
TESTWEB=$BIN/pouch-testweb
CLI_TMP=$SMOKE_TMP/cli
mkdir -p "$CLI_TMP"

# dev NAME ARGS...: runs pouch as device NAME (config $CLI_TMP/NAME); stdout, stderr and the
# exit code land in OUT, ERR and RC.
dev() {
    local name=$1
    shift
    RC=0
    XDG_CONFIG_HOME=$CLI_TMP/$name "$POUCH" "$@" >"$CLI_TMP/out" 2>"$CLI_TMP/err" || RC=$?
    OUT=$(cat "$CLI_TMP/out")
    ERR=$(cat "$CLI_TMP/err")
}

# web ARGS...: pouch-testweb with the suite's browser member (state $CLI_TMP/web, or
# WEB_STATE for another account's).
web() { "$TESTWEB" "$1" --state "${WEB_STATE:-$CLI_TMP/web}" "${@:2}"; }

# web_account: a fresh user with genesis (the browser's onboarding).
web_account() {
    "$TESTWEB" signup --server "$POUCH_URL" --state "${WEB_STATE:-$CLI_TMP/web}" >/dev/null &&
        POUCH_ID=$(web genesis)
}

# login NAME: `pouch login --name NAME` in the background, approved by the browser member
# once the login is pending, with the link and the code a person copies from the terminal;
# leaves the login's output in LOGIN_OUT, its status in RC, the link in LINK, the typed code
# in CODE and the request id in REQ. LOGIN_ARGS: extra options of pouch login.
login() {
    local name=$1 cfg=$CLI_TMP/$1 i
    rm -rf "$cfg"
    # shellcheck disable=SC2086  # LOGIN_ARGS: extra options, split on purpose
    (XDG_CONFIG_HOME=$cfg "$POUCH" login --server "$POUCH_URL" --name "$name" ${LOGIN_ARGS:-} \
        >"$CLI_TMP/$name.login" 2>&1; echo $? >"$CLI_TMP/$name.login.rc") &
    local pid=$!
    # The approval link (with its #keys=…&n=… fragment) and the code, as the terminal shows them.
    LINK="" CODE=""
    for i in $(seq 300); do
        LINK=$(grep -o 'http[^ ]*/cli/approve?request=[^ ]*' "$CLI_TMP/$name.login" 2>/dev/null || true)
        CODE=$(sed -n 's/^then type this code on the page: \([0-9-]*\)$/\1/p' "$CLI_TMP/$name.login" 2>/dev/null || true)
        [[ -n $LINK && -n $CODE ]] && break
        sleep 0.1
    done
    REQ=${LINK#*request=}
    REQ=${REQ%%#*}
    # shellcheck disable=SC2086  # APPROVE_ARGS: extra options of pouch-testweb approve
    DEVICE_ID=$(web approve "$REQ" --link "$LINK" --code "$CODE" ${APPROVE_ARGS:-})
    wait "$pid"
    LOGIN_OUT=$(cat "$CLI_TMP/$name.login")
    RC=$(cat "$CLI_TMP/$name.login.rc")
}

# same_tree A B: the two folders hold the same files with the same bytes (pouch's own
# temporary files would show up as a difference).
same_tree() {
    diff -r "$1" "$2" >/dev/null
}

# device_id NAME: the device id of a logged-in device.
device_id() { jq -r .device_id "$CLI_TMP/$1/pouch/device.json"; }
member_id() { jq -r .member_id "$CLI_TMP/$1/pouch/device.json"; }

mode_of() { stat -c %a "$1"; }
