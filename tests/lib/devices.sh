# devices.sh -- the real `pouch` CLI as one device or another, for the suites that drive it (tests/cli,
# tests/hostile): each device its own config directory under DEVICES, the dev/test browser member
# pouch-testweb (state WEB_STATE), and logins approved with the link and code the terminal shows.
# Sourced after tests/smoke/lib.sh (smoke_fail); needs POUCHCTL, POUCH_URL and DEVICES (a directory).
# shellcheck shell=bash disable=SC2034  # OUT ERR RC LINK CODE REQ DEVICE_ID LOGIN_OUT POUCH_ID: the callers'

: "${DEVICES:?DEVICES, the directory of the devices, is not set}"
BIN=$(dirname "$POUCHCTL")
POUCH=$BIN/pouch
TESTWEB=$BIN/pouch-testweb
mkdir -p "$DEVICES"

# dev NAME ARGS...: `pouch` as device NAME (config $DEVICES/NAME), stopped after POUCH_CMD_TIMEOUT
# seconds (default 600; a command stopped so has status 124); stdout, stderr and the status land
# in OUT, ERR and RC.
dev() {
    local name=$1
    shift
    RC=0
    XDG_CONFIG_HOME=$DEVICES/$name timeout --kill-after=5 "${POUCH_CMD_TIMEOUT:-600}" "$POUCH" "$@" \
        >"$DEVICES/out" 2>"$DEVICES/err" </dev/null || RC=$?
    OUT=$(cat "$DEVICES/out")
    ERR=$(cat "$DEVICES/err")
}

# cfg NAME: device NAME's config directory; member_id / device_id NAME: its ids.
cfg() { echo "$DEVICES/$1/pouch"; }
member_id() { jq -r .member_id "$(cfg "$1")/device.json"; }
device_id() { jq -r .device_id "$(cfg "$1")/device.json"; }

# web COMMAND ARGS...: pouch-testweb as the account's browser member (state WEB_STATE, default
# $DEVICES/web).
web() { "$TESTWEB" "$1" --state "${WEB_STATE:-$DEVICES/web}" "${@:2}"; }

# web_account: a fresh user with genesis (the browser's onboarding) in WEB_STATE; sets POUCH_ID.
web_account() {
    rm -rf "${WEB_STATE:-$DEVICES/web}"
    "$TESTWEB" signup --server "$POUCH_URL" --state "${WEB_STATE:-$DEVICES/web}" >/dev/null &&
        POUCH_ID=$(web genesis)
}

# login NAME: `pouch login --name NAME` in the background, approved by the browser member with
# the link and the code a person copies from the terminal (an approval pouch-testweb refuses
# is denied, so the login ends). Leaves the login's output in LOGIN_OUT, its status in RC, the
# link in LINK, the code in CODE, the request id in REQ, the new device's id in DEVICE_ID; a
# login that does not end with 0 is a failed expectation (and status 1). LOGIN_ARGS: extra
# options of pouch login; APPROVE_ARGS: of pouch-testweb approve; POUCH_LOGIN_TIMEOUT (120 s).
login() {
    local name=$1 i pid
    rm -rf "${DEVICES:?}/$name"
    rm -f "$DEVICES/$name.login.rc"
    # shellcheck disable=SC2086  # LOGIN_ARGS: extra options, split on purpose
    (XDG_CONFIG_HOME=$DEVICES/$name timeout --kill-after=5 "${POUCH_LOGIN_TIMEOUT:-120}" "$POUCH" login \
        --server "$POUCH_URL" --name "$name" ${LOGIN_ARGS:-} >"$DEVICES/$name.login" 2>&1 </dev/null
    echo $? >"$DEVICES/$name.login.rc") &
    pid=$!
    # The approval link (with its #keys=…&n=… fragment) and the code, as the terminal shows them.
    LINK="" CODE="" DEVICE_ID=""
    for i in $(seq 600); do
        LINK=$(grep -o 'http[^ ]*/cli/approve?request=[^ ]*' "$DEVICES/$name.login" 2>/dev/null || true)
        CODE=$(sed -n 's/^then type this code on the page: \([0-9-]*\)$/\1/p' "$DEVICES/$name.login" 2>/dev/null || true)
        [[ -n $LINK && -n $CODE ]] && break
        [[ -e $DEVICES/$name.login.rc ]] && break  # it ended without showing them
        sleep 0.1
    done
    REQ=${LINK#*request=}
    REQ=${REQ%%#*}
    if [[ -n $LINK && -n $CODE ]]; then
        # shellcheck disable=SC2086  # APPROVE_ARGS: extra options of pouch-testweb approve
        DEVICE_ID=$(web approve "$REQ" --link "$LINK" --code "$CODE" ${APPROVE_ARGS:-} 2>"$DEVICES/$name.approve.err") ||
            web approve "$REQ" --deny >/dev/null 2>&1
    fi
    wait "$pid"
    LOGIN_OUT=$(cat "$DEVICES/$name.login")
    RC=$(cat "$DEVICES/$name.login.rc")
    if [[ $RC != 0 ]]; then
        smoke_fail "the login of $name exited $RC: $(tr '\n' ' ' <"$DEVICES/$name.login" | tail -c 300) $(cat "$DEVICES/$name.approve.err" 2>/dev/null)"
        return 1
    fi
}
