# lib.sh -- helpers for the smoke tests (tests/smoke/[0-9]*.sh): curl requests against the
# running stack, expectations on status, headers and JSON fields, and PASS/FAIL lines that
# tools/stack/test.sh counts, plus small helpers (sql, repeat, b64url, now_ms, retry, the
# stack's Redis and handlers). The multi-step set-ups (users, genesis, CLI login, commits)
# are in flows.sh. Relies on curl, jq and psql, and on the environment test.sh sets:
# POUCH_URL, POUCHCTL, POUCH_DATABASE_URL, POUCH_REDIS_URL, POUCH_VAR; with an https POUCH_URL
# (a stack started with POUCH_TLS=1, tests/tls), POUCH_CA_FILE is the certificate to trust.
#
#   source "$(dirname "$0")/lib.sh"
#   req GET /v1/nope
#   expect_status 404
#   expect_json .error.code not_found
#   check unknown_path_is_json_404         # prints "PASS unknown_path_is_json_404"
#   ...
#   smoke_done                             # exit status 1 if any check failed
# shellcheck shell=bash

: "${POUCH_URL:?POUCH_URL is not set (run through tools/stack/test.sh)}"
: "${POUCH_VAR:?POUCH_VAR is not set (run through tools/stack/test.sh)}"

# An https stack with a certificate of its own: every curl of the tests (req, and those the
# scripts run themselves) trusts that file and no other (curl reads CURL_CA_BUNDLE as its
# --cacert), as `pouch --ca-file` and pouch-testweb (POUCH_CA_FILE) do.
if [[ -n ${POUCH_CA_FILE:-} ]]; then
    [[ -r $POUCH_CA_FILE ]] || { echo "POUCH_CA_FILE $POUCH_CA_FILE cannot be read" >&2; exit 1; }
    export CURL_CA_BUNDLE=$POUCH_CA_FILE
    SMOKE_CACERT=(--cacert "$POUCH_CA_FILE")
else
    SMOKE_CACERT=()
fi

SMOKE_TMP=$(mktemp -d)
trap 'rm -rf "$SMOKE_TMP"' EXIT

STATUS=""           # HTTP status of the last req ("000" when no answer)
HEADERS=""          # its response headers, CRs removed
BODY=""             # its response body
SMOKE_ERRORS=()     # failed expectations since the last check
SMOKE_PASSED=0
SMOKE_FAILED=0

# req METHOD PATH [BODY] [extra curl args...]: sends a request to POUCH_URL + PATH. A
# non-empty BODY is sent as is, with Content-Type application/json unless the extra args set
# another; BODY "@file" sends a file. Use "" for no body when passing extra args.
req() {
    local method=$1 path=$2 body=${3-} ctype=(-H 'Content-Type: application/json') arg
    shift 2
    if (($# > 0)); then shift; fi
    for arg in "$@"; do
        if [[ ${arg,,} == content-type:* ]]; then ctype=(); fi
    done
    local args=(-sS -X "$method" -o "$SMOKE_TMP/body" -D "$SMOKE_TMP/headers" -w '%{http_code}'
        --max-time "${SMOKE_TIMEOUT:-40}" "${SMOKE_CACERT[@]}")
    if [[ -n $body ]]; then
        args+=("${ctype[@]}" --data-binary "$body")
    fi
    : >"$SMOKE_TMP/body"
    : >"$SMOKE_TMP/headers"
    STATUS=$(curl "${args[@]}" "$@" "$POUCH_URL$path" 2>"$SMOKE_TMP/curl.err") || true
    [[ -n $STATUS ]] || STATUS=000
    HEADERS=$(tr -d '\r' <"$SMOKE_TMP/headers")
    BODY=$(cat "$SMOKE_TMP/body")
    # The OpenAPI check (tests/openapi/) validates every JSON answer recorded here.
    if [[ -n ${POUCH_API_LOG:-} ]] && [[ ${HEADERS,,} == *"content-type: application/json"* ]]; then
        jq -nc --arg m "$method" --arg p "$path" --arg s "$STATUS" --rawfile b "$SMOKE_TMP/body" \
            '{method:$m, path:$p, status:($s|tonumber), body:$b}' >>"$POUCH_API_LOG" 2>/dev/null || true
    fi
}

# load_saved_answer FILE: makes an answer that curl -i saved in FILE (status line, headers,
# blank line, body) the last answer, as if req had received it: STATUS from its status line,
# HEADERS and BODY. A missing or empty FILE is a failed expectation (STATUS 000), so the
# checks on it fail rather than pass unread. Returns 0 either way (set -e scripts go on).
load_saved_answer() {
    STATUS=000 HEADERS="" BODY=""
    if [[ ! -s ${1:-} ]]; then
        smoke_fail "no saved answer in '${1:-}'"
        return 0
    fi
    HEADERS=$(sed -n '1,/^\r\?$/p' "$1" | tr -d '\r')
    BODY=$(sed '1,/^\r\?$/d' "$1")
    STATUS=$(awk 'NR == 1 && $1 ~ /^HTTP\// { print $2 }' <<<"$HEADERS")
    if [[ ! $STATUS =~ ^[0-9]{3}$ ]]; then
        smoke_fail "'$1' does not start with an HTTP status line"
        STATUS=000
    fi
}

# header NAME: the value of response header NAME of the last req (last one if repeated).
header() {
    awk -v name="${1,,}" 'BEGIN { FS = ": " }
        tolower($1) == name { sub(/^[^:]*: /, ""); value = $0 } END { print value }' <<<"$HEADERS"
}

# json FILTER: jq -r FILTER on the last body (empty output when the body is not JSON).
json() { jq -r "$1" <<<"$BODY" 2>/dev/null || true; }

smoke_fail() { SMOKE_ERRORS+=("$*"); }

expect_status() {
    [[ $STATUS == "$1" ]] ||
        smoke_fail "status $STATUS, want $1 (body: ${BODY:0:300})"
}

# expect_json FILTER VALUE: jq -r FILTER of the last body equals VALUE (strings unquoted,
# null as "null").
expect_json() {
    local got
    got=$(json "$1")
    [[ $got == "$2" ]] || smoke_fail "$1 is '${got:0:200}', want '$2'"
}

# expect_json_match FILTER REGEX: the field matches an extended regular expression.
expect_json_match() {
    local got
    got=$(json "$1")
    [[ $got =~ $2 ]] || smoke_fail "$1 is '${got:0:200}', want a match of /$2/"
}

# expect_header NAME VALUE / expect_header_match NAME REGEX
expect_header() {
    local got
    got=$(header "$1")
    [[ $got == "$2" ]] || smoke_fail "header $1 is '$got', want '$2'"
}
expect_header_match() {
    local got
    got=$(header "$1")
    [[ $got =~ $2 ]] || smoke_fail "header $1 is '$got', want a match of /$2/"
}

# expect_error STATUS CODE: a failure envelope with that status and error code, whose
# meta.request_id equals the X-Request-Id header.
expect_error() {
    expect_status "$1"
    expect_json .ok false
    expect_json .error.code "$2"
    expect_json_match .meta.request_id '^[0-9a-f]{32}$'
    expect_header X-Request-Id "$(json .meta.request_id)"
}

# expect_true DESCRIPTION COMMAND...: any other condition.
expect_true() {
    local what=$1
    shift
    "$@" || smoke_fail "$what"
}

# check NAME: prints "PASS NAME" if every expectation since the last check held, else
# "FAIL NAME: first problem; second problem".
check() {
    if ((${#SMOKE_ERRORS[@]} == 0)); then
        echo "PASS $1"
        SMOKE_PASSED=$((SMOKE_PASSED + 1))
    else
        local IFS=';'
        echo "FAIL $1: ${SMOKE_ERRORS[*]}"
        SMOKE_FAILED=$((SMOKE_FAILED + 1))
    fi
    SMOKE_ERRORS=()
}

# smoke_done: ends the script (its "SMOKE END" line tells test.sh the script ran to the
# end), exit status 1 if a check failed.
smoke_done() {
    echo "SMOKE END"
    exit $((SMOKE_FAILED > 0))
}

# sql QUERY: psql of the stack's database, unaligned tuples only (one value: just the value).
sql() { psql "$POUCH_DATABASE_URL" -XtAq -c "$1"; }

# repeat STRING N: STRING N times (multi-byte safe, unlike tr).
repeat() {
    local s
    printf -v s "%${2}s" ""
    printf '%s' "${s// /$1}"
}

# b64url TEXT / b64url_decode TEXT: TEXT as unpadded b64url, and back (e.g. a JWS segment).
b64url() { printf '%s' "$1" | base64 -w0 | tr '+/' '-_' | tr -d '='; }
b64url_decode() {
    local s=${1//-/+}
    s=${s//_//}
    while ((${#s} % 4)); do s+="="; done
    base64 -d <<<"$s"
}

# growth BEFORE AFTER: AFTER - BEFORE when both are whole numbers (counter readings), else
# "unreadable BEFORE -> AFTER", which no expected number equals.
growth() {
    if [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]]; then echo $(($2 - $1)); else echo "unreadable $1 -> $2"; fi
}

# now_ms: wall clock in milliseconds.
now_ms() { date +%s%3N; }

# retry SECONDS COMMAND...: runs COMMAND every 0.2 s until it succeeds or time runs out.
retry() {
    local deadline=$((SECONDS + $1))
    shift
    until "$@"; do
        ((SECONDS < deadline)) || return 1
        sleep 0.2
    done
}

# The sandbox's Redis, for tests of behaviour without it. Stopped Redis is started again by
# the next stack_redis_start (do it before the script ends: later tests expect it running).
stack_redis_stop() { "$POUCH_VAR/bin/redis-ctl" stop; }
stack_redis_start() { "$POUCH_VAR/bin/redis-ctl" start; }

# stack_handler_pid GROUP / stack_handler_kill GROUP [SIGNAL]: the running handler process
# of a group (its supervisor restarts it within 0.2..2 s after it dies).
stack_handler_pid() { cat "$POUCH_VAR/pids/$1.pid"; }
stack_handler_kill() { kill "-${2:-KILL}" "$(stack_handler_pid "$1")"; }
# stack_handler_kib GROUP FIELD: a memory figure of the group's handler process from
# /proc/PID/status, in KiB (VmHWM: its peak resident memory; VmRSS: now).
stack_handler_kib() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$(stack_handler_pid "$1")/status"; }

# stack_log GROUP: path of a handler's log (JSON lines), e.g. to grep for a request id.
stack_log() { echo "$POUCH_VAR/log/$1.log"; }
